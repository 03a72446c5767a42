//! Run with: cargo run --example claude_code
//!
//! Claude Code hooks, unchanged, in an agent built on tower-hooks. The example
//! makes a throwaway project folder, writes `examples/hooks/claude/settings.json`
//! to its `.claude/settings.json` and the three scripts that file names to
//! `.claude/hooks/`, finds and loads them with `Discovery` (the Claude Code
//! dialect, without the user's own `~/.claude`), and plays one scripted session
//! (no model, no network) through `AgentHooks` and `ToolHooksLayer`s around a
//! fake `Bash` tool that only prints the commands it is given and a fake
//! `deploy` tool:
//!
//! * `session-env.sh`, a `SessionStart` hook, writes `export
//!   DEPLOY_TARGET=staging` to the file Claude Code names in `CLAUDE_ENV_FILE`:
//!   the host gets the variable (`HookOutcome::env`) for its shell commands
//!   (later hooks never do), and leaves the choice in the project too;
//! * `deploy-guard.sh` guards the host's `deploy` tool, which the host names
//!   `mcp__ops__deploy` for Claude Code hooks
//!   (`ToolHooksLayer::with_tool_alias`), as their matcher does: it lets only
//!   the target the session chose through;
//! * `bash-guard.sh` denies `rm -rf /` with pretty-printed `hookSpecificOutput`
//!   JSON, and the model sees the refusal as the tool's result;
//! * `npm-ci.sh` (only run for `npm install` commands, by its `if` rule)
//!   rewrites `npm install` to `npm ci` with `updatedInput`, and `npm ci` runs;
//! * `tests-first.sh`, a `Stop` hook, sends the agent back once with "run the
//!   tests first"; the agent runs them, and the next stop (`stop_hook_active`
//!   is then true) finishes.
//!
//! The scripts need nothing but `sh` and `sed`. The transcript shows each
//! event a hook listens to under its Claude Code name, each hook's decision
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
use self::support::{claude_event_head, decision, script_line, with_arguments};
use tower_hooks::config::Format;
use tower_hooks::{
    Dialect, HookOutcome, HookRequest, HookStack, ShutdownReason, StartReason, ToolCall, ToolResult,
};

/// The project's hooks file and the scripts it runs, as a Claude Code user
/// keeps them: `<project>/.claude/settings.json` and `<project>/.claude/hooks/`.
const SETTINGS: &str = include_str!("hooks/claude/settings.json");
const SCRIPTS: [(&str, &str); 5] = [
    (
        "session-env.sh",
        include_str!("hooks/claude/session-env.sh"),
    ),
    (
        "deploy-guard.sh",
        include_str!("hooks/claude/deploy-guard.sh"),
    ),
    ("bash-guard.sh", include_str!("hooks/claude/bash-guard.sh")),
    ("npm-ci.sh", include_str!("hooks/claude/npm-ci.sh")),
    (
        "tests-first.sh",
        include_str!("hooks/claude/tests-first.sh"),
    ),
];

const SESSION_ID: &str = "demo-claude-0001";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    support::play("claude_code", run).await
}

/// Plays the session into `out`. The project folder is removed at the end.
pub(crate) async fn run(out: Transcript) -> Result<Transcript, Box<dyn Error>> {
    let dir = tempfile::Builder::new()
        .prefix("tower-hooks-claude-")
        .tempdir()?;
    let project = dir.path();
    support::write_project(project, ".claude", ("settings.json", SETTINGS), &SCRIPTS)?;

    // The dialect's standard files: ~/.claude/settings.json, the project's
    // .claude/settings.json and settings.local.json, then the machine's
    // managed settings file. Missing ones are skipped; this example reads the
    // project's only (no home, no machine-wide files), so that it runs the
    // same everywhere.
    let discovery = support::project_discovery(project, Format::Claude);
    let config = discovery.load()?;
    for warning in config.warnings() {
        out.say(format!("warning: {warning}"));
    }

    // Claude Code hooks run in the session's working directory, and get
    // CLAUDE_PROJECT_DIR (the project root given to Discovery).
    let cwd = project.display().to_string();
    let builder = HookStack::builder().config(&config);
    let mut hooks = support::agent(&out, builder, SESSION_ID, &cwd, print_event);

    // The agent's Bash tool, wrapped like any tower service.
    let tool_out = out.clone();
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(service_fn(move |call: ToolCall| {
            fake_bash(tool_out.clone(), call)
        }));

    // The host's own `deploy` tool. Claude Code hooks know no such tool, so
    // the host gives them a name of theirs, the one their matcher uses;
    // other dialects' hooks still see `deploy`.
    let tool_out = out.clone();
    let mut deploy = ServiceBuilder::new()
        .layer(
            hooks
                .tool_layer()
                .with_tool_alias("deploy", Dialect::Claude, "mcp__ops__deploy"),
        )
        .service(service_fn(move |call: ToolCall| {
            fake_deploy(tool_out.clone(), call)
        }));

    out.say("tower-hooks example: Claude Code hooks, one scripted session (no model, no network)");
    out.say(format!("project {cwd}"));
    out.loaded(&discovery, config.hooks().len(), SESSION_ID);

    // SessionStart's hook sets DEPLOY_TARGET through CLAUDE_ENV_FILE. No hook
    // of this project listens to UserPromptSubmit or SessionEnd, but an agent
    // fires them all the same.
    hooks.session_start(StartReason::Startup).await?;

    out.say("\n## turn 1");
    let typed = "look around, clear out everything old, then install the dependencies";
    if out.prompt(&mut hooks, typed).await?.is_none() {
        return Ok(out);
    }

    let calls = [
        ("toolu_01", "ls"),
        ("toolu_02", "rm -rf /"),
        ("toolu_03", "npm install"),
    ];
    let mut results = Vec::new();
    for (id, command) in calls {
        results.push(out.call_bash(&mut bash, id, command).await?);
    }
    // The deploy guard reads the target SessionStart chose.
    for (id, target) in [("toolu_04", "production"), ("toolu_05", "staging")] {
        let call = ToolCall::new("deploy", id, json!({ "target": target }));
        out.call_tool(&mut deploy, call).await?;
    }

    // The model thinks it is done; a Stop hook may send it back.
    out.say("\n## the model stops");
    let last_message = summary(&results);
    let follow_up = |n: usize| {
        ToolCall::new(
            "Bash",
            format!("toolu_1{n}"),
            json!({"command": "npm test"}),
        )
    };
    out.stop_until_done(&hooks, &mut bash, last_message, follow_up)
        .await?;

    hooks.session_shutdown(ShutdownReason::Quit).await?;
    drop(dir);
    Ok(out)
}

/// The project folder: `.claude/settings.json` and the scripts in `.claude/hooks/`.
/// The tool: pretends to run a shell command. Nothing is executed.
async fn fake_bash(out: Transcript, call: ToolCall) -> Result<ToolResult, Infallible> {
    let outputs = [
        ("ls", "build/\npackage.json\npackage-lock.json\nsrc/\n"),
        ("npm ci", "added 42 packages in 1s\n"),
        (
            "npm install",
            "added 42 packages, and package-lock.json changed\n",
        ),
        ("npm test", "12 passing\n"),
    ];
    let result = support::pretend_bash(&out, &call, &outputs);
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(result)
}

/// The host's deploy tool: pretends to deploy. Nothing is deployed.
async fn fake_deploy(out: Transcript, call: ToolCall) -> Result<ToolResult, Infallible> {
    let target = call.arguments["target"].as_str().unwrap_or_default();
    out.say(format!("tool   : deploy pretends to deploy to {target}"));
    Ok(ToolResult::ok(format!("deployed to {target}")))
}

/// The scripted model's message when it thinks it is done.
fn summary(results: &[ToolResult]) -> String {
    let cleared = match results.get(1) {
        Some(r) if r.is_error() => "I was not allowed to clear out the old files",
        _ => "I cleared out the old files",
    };
    format!("{cleared}; the dependencies are installed.")
}

/// One event of the transcript: its Claude Code name, each hook, the decision.
fn print_event(out: &Transcript, req: &HookRequest, outcome: &HookOutcome) {
    // Events with no hook (the neutral points Claude Code has no name for, and
    // the ones this project configures nothing for) are left out.
    if outcome.hooks().is_empty() {
        return;
    }
    out.say(with_arguments(&claude_event_head(req), req));
    for hook in outcome.hooks() {
        let name = hook_name(hook.spec().command_line().unwrap_or(hook.spec().source()));
        out.say(script_line(&name, hook, (15, 16)));
    }
    out.say(format!("     => {}", decision(req, outcome)));
    for message in outcome.user_messages() {
        out.say(format!("     user   : {message}"));
    }
    for (name, value) in outcome.env() {
        out.say(format!("     env    : {name}={value}"));
    }
}

/// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/bash-guard.sh` → `bash-guard.sh`.
fn hook_name(command: &str) -> String {
    command
        .rsplit('/')
        .next()
        .unwrap_or(command)
        .trim_matches('"')
        .to_owned()
}
