//! Run with: cargo run --example http_policy
//!
//! HTTP hooks: Claude Code's `http` handlers, which post the hook's input to a
//! policy server instead of running a command (the library's `http` feature,
//! which the workspace build turns on). The example starts a small policy
//! server of its own on 127.0.0.1, on a port the system picks (nothing leaves
//! the machine), makes a throwaway project folder, writes a
//! `.claude/settings.json` whose `PreToolUse` handler for `Bash` posts to that
//! server, loads it with `Discovery` (the Claude Code dialect, without the
//! user's own `~/.claude`), and plays one scripted session through
//! `AgentHooks` and a `ToolHooksLayer` around a fake `Bash` tool that only
//! prints the commands it is given:
//!
//! * `ls`: the server answers 200 with an empty body (no opinion), and it runs;
//! * `rm -rf build/`: the server denies it with `hookSpecificOutput` JSON, and
//!   the model sees the server's reason as the tool's result;
//! * `git push --force`: the server answers `ask`; the tool layer's approver,
//!   a stand-in for the person at the keyboard, says no, and the model sees why;
//! * the server then breaks and answers 500 to everything: the hook's record
//!   is an `error`, and `git status` runs anyway (a failed HTTP hook lets the
//!   action proceed, unless its handler says `"onFailure": "block"`);
//! * last, a second agent whose stack holds a stale token: the server answers
//!   401, with the same result.
//!
//! The handler's header `Authorization: Bearer $POLICY_TOKEN` is expanded
//! because its `allowedEnvVars` lists `POLICY_TOKEN`; the value comes from
//! `Builder::env`, not from this process's environment. The file's
//! `allowedHttpHookUrls` lets HTTP hooks post to this server's URLs only. The
//! transcript shows what the server got and answered, each hook's decision,
//! and what the model sees. `tests/examples` runs it and asserts that output.

#[path = "support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::error::Error;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tower::{service_fn, ServiceBuilder};

pub(crate) use self::support::Transcript;
use self::support::{claude_event_head, hook_line, with_arguments};
use tower_hooks::config::{Config, Format};
use tower_hooks::{
    AgentHooks, Approval, ApprovalRequest, Decision, HookOutcome, HookRequest, HookStack,
    ShutdownReason, StartReason, ToolCall, ToolResult,
};

/// The project's `.claude/settings.json`; `{base}` becomes the server's
/// `http://127.0.0.1:<port>` when the file is written. No `timeout`: an
/// `http` handler's default is 600 seconds, as for a command handler.
const SETTINGS: &str = r#"{
  "allowedHttpHookUrls": ["{base}/*"],
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "http",
            "url": "{base}/policy",
            "headers": { "Authorization": "Bearer $POLICY_TOKEN" },
            "allowedEnvVars": ["POLICY_TOKEN"]
          }
        ]
      }
    ]
  }
}
"#;

/// The token the server expects, and the agent's stack sends. (A real one
/// comes from the host's secret store, never from the repository.)
const TOKEN: &str = "demo-policy-token";

const SESSION_ID: &str = "demo-http-0001";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    support::play("http_policy", run).await
}

/// Plays the session into `out`. The server stops and the project folder is
/// removed at the end.
pub(crate) async fn run(out: Transcript) -> Result<Transcript, Box<dyn Error>> {
    out.say(
        "tower-hooks example: an HTTP hook and a policy server on 127.0.0.1, one scripted session",
    );
    let policy = Arc::new(Policy {
        token: TOKEN.to_owned(),
        broken: AtomicBool::new(false),
        log: out.clone(),
    });
    let server = PolicyServer::start(policy.clone()).await?;
    let base = format!("http://{}", server.addr);
    out.say(format!("server : listening on {base}/policy"));

    let dir = tempfile::Builder::new()
        .prefix("tower-hooks-http-")
        .tempdir()?;
    let project = dir.path();
    let settings = SETTINGS.replace("{base}", &base);
    support::write_project(project, ".claude", ("settings.json", &settings), &[])?;

    let discovery = support::project_discovery(project, Format::Claude);
    let config = discovery.load()?;
    for warning in config.warnings() {
        out.say(format!("warning: {warning}"));
    }

    let cwd = project.display().to_string();
    out.say(format!("project {cwd}"));
    out.loaded(&discovery, config.hooks().len(), SESSION_ID);

    let mut hooks = agent(&out, &config, TOKEN, &cwd);
    // The person at the keyboard, asked when a hook answers `ask`: here, a
    // stand-in who says no to force pushes.
    let person_out = out.clone();
    let person = service_fn(move |ask: ApprovalRequest| {
        let out = person_out.clone();
        async move {
            let command = ask.call.arguments["command"].as_str().unwrap_or_default();
            // `ask.reason` is the server's, shown on the event's `=> ask` line.
            out.say(format!("person ? run `{command}`?"));
            let no = "not before the team has seen the rewritten history";
            out.say(format!("person > no, {no}"));
            Ok::<_, Infallible>(Approval::Deny(no.into()))
        }
    });
    let tool_out = out.clone();
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer().with_approver(person))
        .service(service_fn(move |call: ToolCall| {
            fake_bash(tool_out.clone(), call)
        }));

    hooks.session_start(StartReason::Startup).await?;

    out.say("\n## turn 1");
    let typed = "look around, clear out the build folder, then push the rebased branch";
    if out.prompt(&mut hooks, typed).await?.is_none() {
        return Ok(out);
    }
    for (id, command) in [
        ("toolu_01", "ls"),
        ("toolu_02", "rm -rf build/"),
        ("toolu_03", "git push --force origin main"),
    ] {
        out.call_bash(&mut bash, id, command).await?;
    }

    out.say("\n## the policy server breaks: it answers 500 to everything");
    policy.broken.store(true, Ordering::SeqCst);
    out.call_bash(&mut bash, "toolu_04", "git status").await?;
    policy.broken.store(false, Ordering::SeqCst);
    hooks.session_shutdown(ShutdownReason::Quit).await?;

    out.say("\n## a second agent, whose stack holds a stale token");
    let stale = agent(&out, &config, "expired-policy-token", &cwd);
    let tool_out = out.clone();
    let mut stale_bash = ServiceBuilder::new()
        .layer(stale.tool_layer())
        .service(service_fn(move |call: ToolCall| {
            fake_bash(tool_out.clone(), call)
        }));
    out.call_bash(&mut stale_bash, "toolu_05", "ls").await?;
    stale.session_shutdown(ShutdownReason::Quit).await?;

    drop(server);
    drop(dir);
    Ok(out)
}

/// An agent's hooks: the loaded configuration, with `token` as the value of
/// `POLICY_TOKEN`; each event with a hook goes to the transcript.
fn agent(out: &Transcript, config: &Config, token: &str, cwd: &str) -> AgentHooks {
    let builder = HookStack::builder()
        .config(config)
        // Read by the handler's `$POLICY_TOKEN`, which `allowedEnvVars` lets
        // it read. A variable it does not list would be expanded to nothing.
        .env("POLICY_TOKEN", token);
    support::agent(out, builder, SESSION_ID, cwd, print_event)
}

// ─── The policy server ──────────────────────────────────────────────────────

/// What the example's policy server knows: the bearer token it expects, and
/// whether it is broken. It writes what it gets and answers to `log`.
struct Policy {
    token: String,
    /// While set, every request gets a 500.
    broken: AtomicBool,
    log: Transcript,
}

/// The policy's rules: a command that contains the pattern gets the decision.
const RULES: [(&str, &str, &str); 2] = [
    (
        "rm -rf",
        "deny",
        "rm -rf is against the team policy: delete the files you mean by name",
    ),
    (
        "git push --force",
        "ask",
        "a force push rewrites shared history: a person must confirm it",
    ),
];

impl Policy {
    /// The status and body of the answer to one request.
    fn answer(&self, req: &hyper::http::request::Parts, body: &[u8]) -> (StatusCode, String) {
        let got = format!("{} {}", req.method, req.uri.path());
        if req.method != hyper::Method::POST || req.uri.path() != "/policy" {
            return self.log(&got, StatusCode::NOT_FOUND, "no such endpoint");
        }
        let bearer = req
            .headers
            .get(hyper::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        if bearer != Some(self.token.as_str()) {
            let got = format!("{got}, a wrong bearer token");
            return self.log(&got, StatusCode::UNAUTHORIZED, "wrong token");
        }
        let Ok(input) = serde_json::from_slice::<Value>(body) else {
            return self.log(&got, StatusCode::BAD_REQUEST, "the body is not JSON");
        };
        // The hook's input: the object a command handler reads on stdin.
        let command = input["tool_input"]["command"].as_str().unwrap_or_default();
        let got = format!(
            "{got} {} {} `{command}` (token ok)",
            input["hook_event_name"].as_str().unwrap_or("?"),
            input["tool_name"].as_str().unwrap_or("?"),
        );
        if self.broken.load(Ordering::SeqCst) {
            let why = "the policy store is unavailable";
            return self.log(&got, StatusCode::INTERNAL_SERVER_ERROR, why);
        }
        let Some((_, decision, reason)) = RULES
            .into_iter()
            .find(|(pattern, ..)| command.contains(pattern))
        else {
            // An empty 2xx: no opinion, the action goes ahead.
            self.log(&got, StatusCode::OK, "empty body");
            return (StatusCode::OK, String::new());
        };
        let answer = json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }});
        self.log(&got, StatusCode::OK, decision);
        (StatusCode::OK, answer.to_string())
    }

    /// Writes one request to the log; the answer is `status` with `text`.
    fn log(&self, got: &str, status: StatusCode, text: &str) -> (StatusCode, String) {
        self.log
            .say(format!("server : {got} -> {} {text}", status.as_u16()));
        (status, text.to_owned())
    }
}

/// The server: a hyper 1 HTTP/1 server on 127.0.0.1, a task of this runtime;
/// it stops when dropped.
struct PolicyServer {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl PolicyServer {
    /// Listens on a free port of 127.0.0.1 and serves `policy`.
    async fn start(policy: Arc<Policy>) -> std::io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            // The connections end with the server: dropping the set aborts them.
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                let policy = policy.clone();
                let service = hyper::service::service_fn(move |req| serve(policy.clone(), req));
                connections.spawn(async move {
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
                while connections.try_join_next().is_some() {}
            }
        });
        Ok(PolicyServer { addr, task })
    }
}

impl Drop for PolicyServer {
    /// Stops the server, whichever way the session ends.
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One request: its body read whole, then [`Policy::answer`].
async fn serve(
    policy: Arc<Policy>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (head, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let (status, text) = policy.answer(&head, &body);
    // A decision is JSON; the other answers (an empty body, an error) are text.
    let content_type = if text.starts_with('{') {
        "application/json"
    } else {
        "text/plain"
    };
    let response = Response::builder()
        .status(status)
        .header(hyper::header::CONTENT_TYPE, content_type)
        .body(Full::new(Bytes::from(text)))
        .expect("a valid response");
    Ok(response)
}

// ─── The session ────────────────────────────────────────────────────────────

/// The tool: pretends to run a shell command. Nothing is executed.
async fn fake_bash(out: Transcript, call: ToolCall) -> Result<ToolResult, Infallible> {
    let outputs = [
        ("ls", "Cargo.toml\nbuild/\nsrc/\n"),
        (
            "git status",
            "On branch main\nnothing to commit, working tree clean\n",
        ),
    ];
    Ok(support::pretend_bash(&out, &call, &outputs))
}

/// One event with hooks: its Claude Code name, each hook, the decision.
fn print_event(out: &Transcript, req: &HookRequest, outcome: &HookOutcome) {
    if outcome.hooks().is_empty() {
        return;
    }
    out.say(with_arguments(&claude_event_head(req), req));
    for hook in outcome.hooks() {
        out.say(hook_line(hook, 4));
    }
    let decision = match (outcome.decision(), outcome.message()) {
        (Decision::Block, Some(message)) => format!("block: {message}"),
        (Decision::Ask, _) => format!("ask: {}", outcome.reason().unwrap_or("")),
        (decision, _) => decision.as_str().to_owned(),
    };
    out.say(format!("     => {decision}"));
}
