//! Run with: cargo run --example codex
//!
//! OpenAI Codex CLI hooks, unchanged, in an agent built on tower-hooks. The
//! example makes a throwaway project folder, writes `examples/hooks/codex/`'s
//! `hooks.json` and `config.toml` to its `.codex/` and the four scripts those
//! files name to `.codex/hooks/`, finds and loads them with `Discovery` (the
//! Codex dialect, without the user's own `~/.codex`), and plays one scripted
//! session (no model, no network) through `AgentHooks` and a `ToolHooksLayer`
//! around a fake `Bash` tool that only prints the commands it is given:
//!
//! * `branch-context.sh` prints plain text at `UserPromptSubmit`, which the
//!   model gets as context;
//! * `bash-guard.sh` denies `rm -rf /` with `permissionDecision: "deny"` and
//!   refuses a forced push with exit 2 and a reason on stderr;
//! * `npm-ci.sh` rewrites `npm install` to `npm ci` with
//!   `permissionDecision: "allow"` and `updatedInput` (Codex's only rewrite);
//! * `tests-first.sh`, a `Stop` hook written in `config.toml`'s
//!   `[[hooks.Stop]]`, sends the agent back once with "run the tests first".
//!
//! Codex runs each hook as `$SHELL -lc <command>` in the session's directory;
//! the scripts need nothing but `sh`. `tests/examples` runs it and asserts
//! its output.

#[path = "support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::error::Error;
use std::time::Duration;

use serde_json::json;
use tower::{service_fn, ServiceBuilder};

pub(crate) use self::support::Transcript;
use self::support::{claude_event_head, decision, script_line, with_arguments};
use tower_hooks::config::Format;
use tower_hooks::{
    HookOutcome, HookRequest, HookStack, ShutdownReason, StartReason, ToolCall, ToolResult,
};

/// The project's two Codex files and the scripts they run, as a Codex user
/// keeps them: `<project>/.codex/hooks.json`, `<project>/.codex/config.toml`
/// and `<project>/.codex/hooks/`.
const HOOKS_JSON: &str = include_str!("hooks/codex/hooks.json");
const CONFIG_TOML: &str = include_str!("hooks/codex/config.toml");
const SCRIPTS: [(&str, &str); 4] = [
    (
        "branch-context.sh",
        include_str!("hooks/codex/branch-context.sh"),
    ),
    ("bash-guard.sh", include_str!("hooks/codex/bash-guard.sh")),
    ("npm-ci.sh", include_str!("hooks/codex/npm-ci.sh")),
    ("tests-first.sh", include_str!("hooks/codex/tests-first.sh")),
];

const SESSION_ID: &str = "demo-codex-0001";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    support::play("codex", run).await
}

/// Plays the session into `out`. The project folder is removed at the end.
pub(crate) async fn run(out: Transcript) -> Result<Transcript, Box<dyn Error>> {
    let dir = tempfile::Builder::new()
        .prefix("tower-hooks-codex-")
        .tempdir()?;
    let project = dir.path();
    support::write_project(project, ".codex", ("hooks.json", HOOKS_JSON), &SCRIPTS)?;
    std::fs::write(project.join(".codex/config.toml"), CONFIG_TOML)?;

    // Codex's files: ~/.codex/hooks.json and config.toml, then the project's
    // two, every one adding its hooks. This example reads the project's only.
    let discovery = support::project_discovery(project, Format::Codex);
    let config = discovery.load()?;
    for warning in config.warnings() {
        out.say(format!("warning: {warning}"));
    }

    // Codex runs `$SHELL -lc <command>`: a plain `sh` keeps the example the
    // same on every machine, whatever the user's login shell prints.
    let cwd = project.display().to_string();
    let builder = HookStack::builder().config(&config).env("SHELL", "/bin/sh");
    let mut hooks = support::agent(&out, builder, SESSION_ID, &cwd, print_event);

    let tool_out = out.clone();
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(service_fn(move |call: ToolCall| {
            fake_bash(tool_out.clone(), call)
        }));

    out.say("tower-hooks example: Codex CLI hooks, one scripted session (no model, no network)");
    out.say(format!("project {cwd}"));
    out.loaded(&discovery, config.hooks().len(), SESSION_ID);

    hooks.session_start(StartReason::Startup).await?;

    out.say("\n## turn 1");
    let typed = "look around, clear out everything old, then install the dependencies";
    if out.prompt(&mut hooks, typed).await?.is_none() {
        return Ok(out);
    }
    let calls = [
        ("call_01", "ls"),
        ("call_02", "rm -rf /"),
        ("call_03", "git push --force"),
        ("call_04", "npm install"),
    ];
    for (id, command) in calls {
        out.call_bash(&mut bash, id, command).await?;
    }

    out.say("\n## the model stops");
    let follow_up =
        |n: usize| ToolCall::new("Bash", format!("call_1{n}"), json!({"command": "npm test"}));
    let last_message = "The dependencies are installed.".to_owned();
    out.stop_until_done(&hooks, &mut bash, last_message, follow_up)
        .await?;

    hooks.session_shutdown(ShutdownReason::Quit).await?;
    drop(dir);
    Ok(out)
}

/// The tool: pretends to run a shell command. Nothing is executed.
async fn fake_bash(out: Transcript, call: ToolCall) -> Result<ToolResult, Infallible> {
    let outputs = [
        ("ls", "build/\npackage.json\npackage-lock.json\nsrc/\n"),
        ("npm ci", "added 42 packages in 1s\n"),
        ("npm test", "12 passing\n"),
    ];
    let result = support::pretend_bash(&out, &call, &outputs);
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(result)
}

/// One event of the transcript: its Codex name (Claude Code's), each hook,
/// the decision and what the model and the person are handed.
fn print_event(out: &Transcript, req: &HookRequest, outcome: &HookOutcome) {
    if outcome.hooks().is_empty() {
        return;
    }
    out.say(with_arguments(&claude_event_head(req), req));
    for hook in outcome.hooks() {
        let script = hook.spec().command_line().unwrap_or(hook.spec().source());
        let name = script.rsplit('/').next().unwrap_or(script);
        out.say(script_line(name, hook, (18, 6)));
    }
    out.say(format!("     => {}", decision(req, outcome)));
    for context in outcome.context() {
        out.say(format!("     context: {context}"));
    }
}
