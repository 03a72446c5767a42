//! Run with: cargo run --example model_hook
//!
//! Model-evaluated hooks: Claude Code's `prompt` handlers, which ask a model
//! instead of running a command, answered by the model the host hands the
//! stack with `Builder::evaluator`. The example makes a throwaway project
//! folder, writes a `.claude/settings.json` with two such handlers to it, loads
//! it with `Discovery` (the Claude Code dialect, without the user's own
//! `~/.claude`), and plays one scripted session through `AgentHooks` and a
//! `ToolHooksLayer` around a fake `Bash` tool that only prints the commands it
//! is given:
//!
//! * a `PreToolUse` handler asks whether each shell command is safe to run in
//!   a CI sandbox: `ls` and `cargo build` run, `rm -rf /` is refused, and the
//!   model sees the reason as the tool's result;
//! * a `Stop` handler sends the agent back once when its last message does not
//!   say that the tests ran; the agent runs them, and the next stop finishes.
//!
//! The model is a **stand-in**: a few fixed rules in a `tower::service_fn`
//! (see `stand_in_model`), so the example needs no model, no key and no
//! network. `real_model`, at the end, shows where a real model client plugs
//! in instead. The transcript shows each prompt the stand-in was asked
//! (shortened), its answer, and what each hook's answer did. `tests/examples`
//! runs it and asserts that output.

#[path = "support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::error::Error;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, Service, ServiceBuilder};

pub(crate) use self::support::Transcript;
use self::support::{claude_event_head, hook_line, shorten};
use tower_hooks::config::{ConfigWarningKind, Format};
use tower_hooks::layer::model::ModelRequest;
use tower_hooks::{
    AgentHooks, BoxError, HookOutcome, HookRequest, HookStack, ShutdownReason, StartReason,
    ToolCall, ToolResult,
};

/// The project's `.claude/settings.json`. The `PreToolUse` prompt places the
/// hook's input with `$ARGUMENTS`; the `Stop` prompt has no placeholder, so the
/// input is appended after a blank line. Neither names a `timeout`: a `prompt`
/// handler's default is 30 seconds.
const SETTINGS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "prompt",
            "prompt": "Is this shell command safe to run in a CI sandbox? $ARGUMENTS Answer with one JSON object: {\"ok\": true} if it is, {\"ok\": false, \"reason\": \"...\"} if it is not."
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "prompt",
            "prompt": "The agent wants to stop. If stop_hook_active is true, answer {\"ok\": true}. Otherwise answer {\"ok\": false, \"reason\": \"run the tests before you stop\"} unless its last message says that the tests ran, and {\"ok\": true} if it does."
          }
        ]
      }
    ]
  }
}
"#;

const SESSION_ID: &str = "demo-model-0001";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    support::play("model_hook", run).await
}

/// Plays the session into `out`. The project folder is removed at the end.
pub(crate) async fn run(out: Transcript) -> Result<Transcript, Box<dyn Error>> {
    let dir = tempfile::Builder::new()
        .prefix("tower-hooks-model-")
        .tempdir()?;
    let project = dir.path();
    std::fs::create_dir_all(project.join(".claude"))?;
    std::fs::write(project.join(".claude/settings.json"), SETTINGS)?;

    let discovery = support::project_discovery(project, Format::Claude);
    let config = discovery.load()?;
    // Each `prompt` handler loads with a warning that it runs only where the
    // host supplies a model. This host does, so those warnings are left out.
    for warning in config.warnings() {
        if !matches!(warning.kind(), ConfigWarningKind::ModelHook { .. }) {
            out.say(format!("warning: {warning}"));
        }
    }

    // The model of the model-evaluated hooks. Without `.evaluator(…)` both
    // hooks would be listed and skipped, and every command would run.
    let stack = HookStack::builder()
        .config(&config)
        .evaluator(stand_in_model(out.clone()))
        .build();

    let cwd = project.display().to_string();
    let seen = out.clone();
    let mut hooks = AgentHooks::new(stack)
        .with_session_id(SESSION_ID)
        .with_cwd(cwd.as_str())
        .on_outcome(move |req, outcome| print_event(&seen, req, outcome));

    let tool_out = out.clone();
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(service_fn(move |call: ToolCall| {
            fake_bash(tool_out.clone(), call)
        }));

    out.say("tower-hooks example: model-evaluated hooks, one scripted session (no network)");
    out.say("judge: a stand-in for the model (a few fixed rules) answers the prompt hooks");
    out.say(format!("project {cwd}"));
    out.loaded(&discovery, config.hooks().len(), SESSION_ID);

    hooks.session_start(StartReason::Startup).await?;

    out.say("\n## turn 1");
    let typed = "clear out everything old, then build the project";
    if out.prompt(&mut hooks, typed).await?.is_none() {
        return Ok(out);
    }
    let mut refused = false;
    for (id, command) in [
        ("toolu_01", "ls"),
        ("toolu_02", "rm -rf /"),
        ("toolu_03", "cargo build"),
    ] {
        refused |= out.call_bash(&mut bash, id, command).await?.is_error();
    }

    out.say("\n## the model stops");
    let last_message = if refused {
        "I was not allowed to clear out the old files; the build passes.".to_owned()
    } else {
        "I cleared out the old files; the build passes.".to_owned()
    };
    let follow_up = |n: usize| {
        ToolCall::new(
            "Bash",
            format!("toolu_1{n}"),
            json!({"command": "cargo test"}),
        )
    };
    out.stop_until_done(&hooks, &mut bash, last_message, follow_up)
        .await?;

    hooks.session_shutdown(ShutdownReason::Quit).await?;
    drop(dir);
    Ok(out)
}

// ─── The stand-in model ─────────────────────────────────────────────────────

/// A STAND-IN for a model, so that the example runs anywhere: it is not a
/// model, only a few fixed rules that answer this project's two prompts. Like
/// a model, it gets the whole prompt as text; it finds the hook's input in it
/// and answers in the format the hooks ask for. It writes each prompt
/// ([shortened](shown)) and its answer to the transcript.
fn stand_in_model(
    out: Transcript,
) -> impl Service<
    ModelRequest,
    Response = String,
    Error = Infallible,
    Future = impl Future<Output = Result<String, Infallible>> + Send + 'static,
> + Clone
       + Send
       + Sync
       + 'static {
    service_fn(move |ModelRequest { prompt, .. }: ModelRequest| {
        out.say(format!("judge  < {}", shown(&prompt)));
        let answer = judge(&prompt);
        out.say(format!("judge  > {}", one_line(&answer)));
        async move {
            // A model takes a while.
            tokio::time::sleep(Duration::from_millis(5)).await;
            Ok(answer)
        }
    })
}

/// The stand-in's rules, by the event in the hook's input.
fn judge(prompt: &str) -> String {
    let Some((_, input)) = hook_input(prompt) else {
        return "I cannot tell what this hook asks.".to_owned();
    };
    match input["hook_event_name"].as_str() {
        Some("PreToolUse") => {
            let command = input["tool_input"]["command"].as_str().unwrap_or_default();
            let unsafe_because = [
                (
                    "rm -rf",
                    "deletes files recursively: remove the paths you mean by name",
                ),
                ("sudo", "runs as root"),
                ("| sh", "pipes text into a shell"),
            ]
            .into_iter()
            .find(|(pattern, _)| command.contains(pattern));
            match unsafe_because {
                Some((_, why)) => {
                    json!({"ok": false, "reason": format!("`{command}` {why}")}).to_string()
                }
                None => r#"{"ok": true}"#.to_owned(),
            }
        }
        Some("Stop") => {
            let sent_back = input["stop_hook_active"] == true;
            let message = input["last_assistant_message"].as_str().unwrap_or_default();
            if sent_back || message.contains("tests ran") {
                r#"{"ok": true}"#.to_owned()
            } else {
                // Some text around the object, as a model may write: the
                // stack finds the object in it.
                "The last message says nothing about tests.\n\
                 {\"ok\": false, \"reason\": \"run the tests before you stop\"}"
                    .to_owned()
            }
        }
        _ => r#"{"ok": true}"#.to_owned(),
    }
}

/// The hook's input in a prompt: the first JSON object in it that has a
/// `hook_event_name`, and where it is.
fn hook_input(prompt: &str) -> Option<(std::ops::Range<usize>, Value)> {
    prompt.match_indices('{').find_map(|(at, _)| {
        let mut values = serde_json::Deserializer::from_str(&prompt[at..]).into_iter::<Value>();
        let value = values.next()?.ok()?;
        value
            .get("hook_event_name")
            .is_some()
            .then(|| (at..at + values.byte_offset(), value))
    })
}

/// A prompt as the transcript shows it, on one line: the text before the
/// hook's input cut to 60 characters, the input without the fields every
/// event has (`session_id`, `transcript_path`, `cwd`, `permission_mode`,
/// shown as `{…,`), the text after it cut to 40.
fn shown(prompt: &str) -> String {
    let Some((at, _)) = hook_input(prompt) else {
        return one_line(&shorten(prompt, 120));
    };
    let (before, input, after) = (&prompt[..at.start], &prompt[at.clone()], &prompt[at.end..]);
    let input = match input.find("\"hook_event_name\"") {
        Some(event) => format!("{{…,{}", &input[event..]),
        None => input.to_owned(),
    };
    // The text is cut, the white space around the input kept.
    let (text_before, text_after) = (before.trim_end(), after.trim_start());
    one_line(&format!(
        "{}{}{input}{}{}",
        shorten(text_before, 60),
        &before[text_before.len()..],
        &after[..after.len() - text_after.len()],
        shorten(text_after, 40)
    ))
}

/// `text` with its line breaks shown as `\n`.
fn one_line(text: &str) -> String {
    text.replace('\n', "\\n")
}

// ─── The session ────────────────────────────────────────────────────────────

/// The tool: pretends to run a shell command. Nothing is executed.
async fn fake_bash(out: Transcript, call: ToolCall) -> Result<ToolResult, Infallible> {
    let outputs = [
        ("ls", "Cargo.toml\nsrc/\ntarget/\n"),
        ("cargo build", "Finished `dev` profile in 4.2s\n"),
        ("cargo test", "12 passed; 0 failed\n"),
    ];
    Ok(support::pretend_bash(&out, &call, &outputs))
}

/// One event with hooks: its Claude Code name, each hook, the decision.
fn print_event(out: &Transcript, req: &HookRequest, outcome: &HookOutcome) {
    if outcome.hooks().is_empty() {
        return;
    }
    out.say(claude_event_head(req));
    for hook in outcome.hooks() {
        out.say(hook_line(hook, 6));
    }
    let decision = match (outcome.follow_up(), outcome.message()) {
        (Some(instruction), _) => format!("keep going: {instruction}"),
        (None, Some(message)) => format!("block: {message}"),
        (None, None) => outcome.decision().as_str().to_owned(),
    };
    out.say(format!("     => {decision}"));
}

// ─── Where a real model plugs in ────────────────────────────────────────────
//
// `Builder::evaluator` takes any `tower::Service<ModelRequest, Response =
// String>` that is `Clone + Send + Sync + 'static`, whose error converts into
// `BoxError`: the prompt (and the model the handler names, if it names one)
// in, the model's text out. A host that talks to a
// model already has a client for it; the evaluator is one call of that client,
// wrapped. `real_model` is such a wrapper for a Messages-style chat API: it
// builds the request body from the prompt and takes the text out of the reply.
// The HTTP call itself is the host's, passed in as `post`; with reqwest, say
// (`url` and `key` are the provider's):
//
//     let http = reqwest::Client::new();
//     let model = real_model("<model name>", move |body| {
//         let request = http.post(url.as_str()).header("x-api-key", key.as_str()).json(&body);
//         async move {
//             let reply = request.send().await?.error_for_status()?;
//             Ok::<Value, BoxError>(reply.json().await?)
//         }
//     });
//     let stack = HookStack::builder().config(&config).evaluator(model).build();
//
// The stack bounds each call by the hook's timeout (30 s by default for a
// `prompt` handler) and drops the call's future then; a failed call, a late
// answer or an answer without a boolean `ok` lets the action go ahead.
//
// It is compiled and not called: this example adds no dependency and makes no
// network call. (`tests/examples` calls it with a fake `post`.)

/// An evaluator for a Messages-style chat API: `post` sends one request body
/// and returns the reply's JSON. It asks `model` unless the handler names
/// another (Claude Code's `model` field).
#[allow(dead_code)]
pub(crate) fn real_model<F, Fut>(
    model: &str,
    post: F,
) -> impl Service<
    ModelRequest,
    Response = String,
    Error = BoxError,
    Future = impl Future<Output = Result<String, BoxError>> + Send + 'static,
> + Clone
       + Send
       + Sync
       + 'static
where
    F: Fn(Value) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, BoxError>> + Send + 'static,
{
    let model: Arc<str> = model.into();
    service_fn(move |asked: ModelRequest| {
        let ModelRequest {
            prompt,
            model: named,
            ..
        } = asked;
        let body = json!({
            "model": named.as_deref().unwrap_or(&model),
            "max_tokens": 256,
            "system": "You check actions of a coding agent. Answer with one JSON object, \
                       as the user's message asks.",
            "messages": [{"role": "user", "content": prompt}],
        });
        let reply = post(body);
        async move {
            let reply = reply.await?;
            // The reply's text blocks, joined: the stack finds the
            // `{"ok": …}` object in them.
            let text: Vec<&str> = reply["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|block| block["type"] == "text")
                .filter_map(|block| block["text"].as_str())
                .collect();
            if text.is_empty() {
                return Err(format!("no text in the model's reply: {reply}").into());
            }
            Ok(text.join("\n"))
        }
    })
}
