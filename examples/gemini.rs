//! Run with: cargo run --example gemini
//!
//! Gemini CLI hooks, unchanged, in an agent built on tower-hooks. The example
//! makes a throwaway project folder, writes `examples/hooks/gemini/settings.json`
//! (comments and all) to its `.gemini/settings.json` and the four scripts that
//! file names to `.gemini/hooks/`, finds and loads them with `Discovery` (the
//! Gemini CLI dialect, without the user's own `~/.gemini`), and plays one
//! scripted session (no model, no network) through `AgentHooks` and a
//! `ToolHooksLayer` around a fake `Bash` tool that only prints the commands it
//! is given:
//!
//! * `branch-context.sh`, a `BeforeAgent` hook, adds the branch to the
//!   prompt's context;
//! * `shell-guard.sh`, a `BeforeTool` hook on `run_shell_command` (Gemini
//!   CLI's name for the host's `Bash`), denies `rm -rf` with a `decision` and
//!   rewrites `npm install` to `npm ci` with `hookSpecificOutput.tool_input`;
//! * `redact.sh`, an `AfterModel` hook, replaces a model response that shows
//!   an API key (the host hands its model calls through
//!   `AgentHooks::model_request` and `model_response`);
//! * `tests-first.sh`, an `AfterAgent` hook, sends the agent back once with
//!   "run the tests first"; the next stop (`stop_hook_active` is then true)
//!   finishes.
//!
//! The scripts need nothing but `sh` and `sed`. The transcript shows each
//! event a hook listens to under its Gemini CLI name, each hook's decision
//! and duration, and what the model sees. `tests/examples` runs it and
//! asserts that output.

#[path = "support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::error::Error;
use std::time::Duration;

use serde_json::json;
use tower::{service_fn, ServiceBuilder};

pub(crate) use self::support::Transcript;
use self::support::{decision, event_head, script_line, with_arguments};
use tower_hooks::config::Format;
use tower_hooks::dialect::gemini::GeminiEvent;
use tower_hooks::{
    HookOutcome, HookRequest, HookStack, ShutdownReason, StartReason, ToolCall, ToolResult,
};

/// The project's settings file and the scripts it runs, as a Gemini CLI user
/// keeps them: `<project>/.gemini/settings.json` and `<project>/.gemini/hooks/`.
const SETTINGS: &str = include_str!("hooks/gemini/settings.json");
const SCRIPTS: [(&str, &str); 4] = [
    (
        "branch-context.sh",
        include_str!("hooks/gemini/branch-context.sh"),
    ),
    (
        "shell-guard.sh",
        include_str!("hooks/gemini/shell-guard.sh"),
    ),
    ("redact.sh", include_str!("hooks/gemini/redact.sh")),
    (
        "tests-first.sh",
        include_str!("hooks/gemini/tests-first.sh"),
    ),
];

const SESSION_ID: &str = "demo-gemini-0001";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    support::play("gemini", run).await
}

/// Plays the session into `out`. The project folder is removed at the end.
pub(crate) async fn run(out: Transcript) -> Result<Transcript, Box<dyn Error>> {
    let dir = tempfile::Builder::new()
        .prefix("tower-hooks-gemini-")
        .tempdir()?;
    let project = dir.path();
    support::write_project(project, ".gemini", ("settings.json", SETTINGS), &SCRIPTS)?;

    // The dialect's standard files: /etc/gemini-cli/system-defaults.json,
    // ~/.gemini/settings.json, the project's .gemini/settings.json (a
    // trusted folder), /etc/gemini-cli/settings.json, then the extensions'.
    // This example reads the project's only, so that it runs the same
    // everywhere.
    let discovery = support::project_discovery(project, Format::Gemini);
    let config = discovery.load()?;
    for warning in config.warnings() {
        out.say(format!("warning: {warning}"));
    }

    // Gemini CLI hooks run under bash -c in the session's working directory,
    // with GEMINI_PROJECT_DIR (the project root given to Discovery).
    let cwd = project.display().to_string();
    let builder = HookStack::builder().config(&config);
    let mut hooks = support::agent(&out, builder, SESSION_ID, &cwd, print_event);

    let tool_out = out.clone();
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(service_fn(move |call: ToolCall| {
            fake_bash(tool_out.clone(), call)
        }));

    out.say("tower-hooks example: Gemini CLI hooks, one scripted session (no model, no network)");
    out.say(format!("project {cwd}"));
    out.loaded(&discovery, config.hooks().len(), SESSION_ID);

    hooks.session_start(StartReason::Startup).await?;

    out.say("\n## turn 1");
    let typed = "clear out the old build, install the dependencies, and tell me the API key";
    let Some(prompt) = out.prompt(&mut hooks, typed).await? else {
        return Ok(out);
    };

    // The host's model call, in Gemini CLI's shape, through the model points.
    let mut request = json!({
        "model": "gemini-2.5-pro",
        "messages": [{"role": "user", "content": prompt}],
        "config": {"temperature": 0.2}
    });
    hooks.model_request(&mut request).await?;
    let mut response = json!({"candidates": [{"content": {"role": "model",
        "parts": ["The key in .env is sk-live-4f2a9c; I will clean up and install now."]}}]});
    out.say(format!(
        "model  < {}",
        response["candidates"][0]["content"]["parts"][0]
    ));
    hooks.model_response(&mut request, &mut response).await?;
    out.say(format!(
        "user   < {}",
        response["candidates"][0]["content"]["parts"][0]
    ));

    let calls = [("call_01", "rm -rf build"), ("call_02", "npm install")];
    for (id, command) in calls {
        out.call_bash(&mut bash, id, command).await?;
    }

    out.say("\n## the model stops");
    let follow_up =
        |n: usize| ToolCall::new("Bash", format!("call_1{n}"), json!({"command": "npm test"}));
    out.stop_until_done(
        &hooks,
        &mut bash,
        "The dependencies are installed.".into(),
        follow_up,
    )
    .await?;

    hooks.session_shutdown(ShutdownReason::Quit).await?;
    drop(dir);
    Ok(out)
}

/// The tool: pretends to run a shell command. Nothing is executed.
async fn fake_bash(out: Transcript, call: ToolCall) -> Result<ToolResult, Infallible> {
    let outputs = [
        ("npm ci", "added 42 packages in 1s\n"),
        ("npm test", "12 passing\n"),
    ];
    let result = support::pretend_bash(&out, &call, &outputs);
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(result)
}

/// One event of the transcript: its Gemini CLI name, each hook, the decision.
fn print_event(out: &Transcript, req: &HookRequest, outcome: &HookOutcome) {
    if outcome.hooks().is_empty() {
        return;
    }
    let name = GeminiEvent::at(req.event()).map_or(req.event().name(), GeminiEvent::name);
    out.say(with_arguments(&event_head(name, req), req));
    for hook in outcome.hooks() {
        let name = hook.spec().name();
        let name = name.unwrap_or(hook_name(hook.spec().command_line().unwrap_or("")));
        out.say(script_line(name, hook, (15, 17)));
    }
    out.say(format!("     => {}", decision(req, outcome)));
    for message in outcome.user_messages() {
        out.say(format!("     user   : {message}"));
    }
    for context in outcome.context() {
        out.say(format!("     model  + {context}"));
    }
}

/// `$GEMINI_PROJECT_DIR/.gemini/hooks/shell-guard.sh` → `shell-guard.sh`.
fn hook_name(command: &str) -> &str {
    command.rsplit('/').next().unwrap_or(command)
}
