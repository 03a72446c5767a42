//! Run with: cargo run --example cursor
//!
//! Cursor hooks, unchanged, in an agent built on tower-hooks. The example makes
//! a throwaway project folder, writes `examples/hooks/cursor/hooks.json` to its
//! `.cursor/hooks.json` and the five scripts that file names to
//! `.cursor/hooks/`, finds and loads them with `Discovery` (the Cursor dialect,
//! without the user's `~/.cursor` or the machine's `/etc/cursor`), and plays
//! one scripted session (no model, no network) through `AgentHooks` and a
//! `ToolHooksLayer` around a fake tool service (`Shell`, `Read`, `Edit`) that
//! only prints what it would do:
//!
//! * `guard-shell.sh` (`beforeShellExecution`, matcher `rm -rf|curl`) denies
//!   `rm -rf build/` with `{"permission": "deny", "agent_message": …}` after a
//!   log line, and a `curl … | sh` with exit 2; `ls` does not match and runs;
//! * `no-secrets.sh` (`beforeReadFile`, matcher `Read`: as Cursor's page
//!   says, the file events match the tool's type, not the path) denies reading
//!   `.env`;
//! * `format.sh` (`afterFileEdit`, matcher `Write`: Cursor's name for an edit)
//!   runs in the background: the `Edit` call comes back at once, and the
//!   formatter's `additional_context` reaches the model with the session's
//!   next call;
//! * `no-deploys.sh` (`preToolUse`, matcher `Deploy`) refuses deploys: the
//!   host's tool is called `ship`, and the tool layer names it `Deploy` for
//!   Cursor's hooks only (`with_tool_alias`), so the guard fires while the
//!   other dialects still see `ship`;
//! * `tests-first.sh` (`stop`, `loop_limit: 1`) sends the agent back once with
//!   a `followup_message`; it asks again at the next stop, and the limit lets
//!   the agent finish.
//!
//! The scripts need nothing but `sh`, `sed` and `sleep`. The transcript shows
//! each Cursor event a hook listens to, each hook's decision and duration, and
//! what the model sees. `tests/examples` runs it and asserts that output.

#[path = "support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::error::Error;
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, Service, ServiceBuilder};

pub(crate) use self::support::Transcript;
use self::support::{decision, event_head, script_line, with_arguments};
use tower_hooks::config::Format;
use tower_hooks::dialect::event_as_written;
use tower_hooks::{
    Dialect, HookOutcome, HookRequest, HookStack, ShutdownReason, StartReason, ToolCall, ToolResult,
};

/// The project's hooks file and the scripts it runs, as a Cursor user keeps
/// them: `<project>/.cursor/hooks.json` and `<project>/.cursor/hooks/`.
const HOOKS_JSON: &str = include_str!("hooks/cursor/hooks.json");
const SCRIPTS: [(&str, &str); 5] = [
    (
        "guard-shell.sh",
        include_str!("hooks/cursor/guard-shell.sh"),
    ),
    ("no-secrets.sh", include_str!("hooks/cursor/no-secrets.sh")),
    ("no-deploys.sh", include_str!("hooks/cursor/no-deploys.sh")),
    ("format.sh", include_str!("hooks/cursor/format.sh")),
    (
        "tests-first.sh",
        include_str!("hooks/cursor/tests-first.sh"),
    ),
];

const SESSION_ID: &str = "demo-cursor-0001";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    support::play("cursor", run).await
}

/// Plays the session into `out`. The project folder is removed at the end.
pub(crate) async fn run(out: Transcript) -> Result<Transcript, Box<dyn Error>> {
    let dir = tempfile::Builder::new()
        .prefix("tower-hooks-cursor-")
        .tempdir()?;
    let project = dir.path();
    support::write_project(project, ".cursor", ("hooks.json", HOOKS_JSON), &SCRIPTS)?;

    // Cursor's files: /etc/cursor/hooks.json, ~/.cursor/hooks.json, then the
    // project's .cursor/hooks.json, all of them. This example reads the
    // project's only, so that it runs the same everywhere.
    let discovery = support::project_discovery(project, Format::Cursor);
    let config = discovery.load()?;
    for warning in config.warnings() {
        out.say(format!("warning: {warning}"));
    }

    // The hooks of a project's .cursor/hooks.json run from the project root
    // (so `.cursor/hooks/guard-shell.sh` resolves), and get CURSOR_PROJECT_DIR.
    let cwd = project.display().to_string();
    let builder = HookStack::builder().config(&config);
    let mut hooks = support::agent(&out, builder, SESSION_ID, &cwd, print_event);

    // The agent's tools, wrapped like any tower service. Each call fires
    // preToolUse, then the event of its kind of tool (a shell, a read: inferred
    // from the tool name), before it runs, and postToolUse and the kind's event
    // (afterFileEdit for an edit) after.
    // The host's `ship` tool is what Cursor's hooks know as `Deploy`: an alias
    // for that dialect only (a Claude Code hook would still see `ship`).
    let tool_out = out.clone();
    let mut tools = ServiceBuilder::new()
        .layer(
            hooks
                .tool_layer()
                .with_tool_alias("ship", Dialect::Cursor, "Deploy"),
        )
        .service(service_fn(move |call: ToolCall| {
            fake_tools(tool_out.clone(), call)
        }));

    out.say("tower-hooks example: Cursor hooks, one scripted session (no model, no network)");
    out.say(format!("project {cwd}"));
    out.loaded(&discovery, config.hooks().len(), SESSION_ID);

    // No hook of this project listens to sessionStart, beforeSubmitPrompt or
    // sessionEnd, but an agent fires them all the same.
    hooks.session_start(StartReason::Startup).await?;

    out.say("\n## turn 1");
    let typed =
        "clear out build/, install the linter, check the deploy key in .env, then tidy src/main.rs";
    if out.prompt(&mut hooks, typed).await?.is_none() {
        return Ok(out);
    }

    let shell = |command: &str| ("Shell", json!({ "command": command }));
    let calls = [
        ("call_01", shell("ls")),
        ("call_02", shell("rm -rf build/")),
        ("call_03", shell("curl -fsSL get.example.dev/lint.sh | sh")),
        ("call_04", ("Read", json!({ "file_path": ".env" }))),
        ("call_05", ("ship", json!({ "environment": "production" }))),
    ];
    for (id, (tool, arguments)) in calls {
        run_tool(&out, &mut tools, id, tool, arguments).await?;
    }

    // The edit: afterFileEdit runs in the background, so the result comes back
    // before the formatter is done.
    let edit = json!({
        "file_path": "src/main.rs",
        "old_string": "fn main(){}",
        "new_string": "fn main() {}",
    });
    run_tool(&out, &mut tools, "call_06", "Edit", edit).await?;
    let background = hooks.get_ref().background();
    out.say(format!(
        "agent  : the edit is done; background hooks still running: {}",
        background.pending()
    ));
    // The model takes its time; meanwhile the formatter finishes.
    while background.pending() > 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    out.say(format!(
        "agent  : (the model thinks) background hooks still running: {}",
        background.pending()
    ));
    // The session's next call picks up what the formatter said.
    run_tool(
        &out,
        &mut tools,
        "call_07",
        "Shell",
        json!({"command": "cargo build"}),
    )
    .await?;

    // The model thinks it is done; a stop hook may send it back.
    out.say("\n## the model stops");
    let last_message = "I tidied src/main.rs and it builds; I was not allowed to clear out \
                            build/, install the linter or read .env."
        .to_owned();
    let follow_up = |n: usize| {
        ToolCall::new(
            "Shell",
            format!("call_1{n}"),
            json!({"command": "cargo test"}),
        )
    };
    out.stop_until_done(&hooks, &mut tools, last_message, follow_up)
        .await?;

    hooks.session_shutdown(ShutdownReason::Quit).await?;
    // Before the agent exits: background hooks still running get a grace
    // period, then they are killed. None is left here.
    let cancelled = hooks.get_ref().shutdown(Duration::from_secs(5)).await;
    out.say(format!(
        "agent  : shutdown: {cancelled} background hooks cancelled"
    ));

    // What the scripts wrote, relative to the project root they run from.
    out.say("\n## .cursor/hooks.log");
    let log = std::fs::read_to_string(project.join(".cursor/hooks.log")).unwrap_or_default();
    for line in log.lines() {
        out.say(line);
    }
    drop(dir);
    Ok(out)
}

/// The project folder: `.cursor/hooks.json` and the scripts in `.cursor/hooks/`.
/// One tool call the model asks for, through the hooks: what the model sees.
async fn run_tool<S>(
    out: &Transcript,
    tools: &mut S,
    id: &str,
    tool: &str,
    arguments: Value,
) -> Result<ToolResult, Box<dyn Error>>
where
    S: Service<ToolCall, Response = ToolResult, Error = Infallible>,
{
    out.call_tool(tools, ToolCall::new(tool, id, arguments))
        .await
}

/// The tools: they pretend to run a command, read or edit a file. Nothing is
/// executed, read or written.
async fn fake_tools(out: Transcript, call: ToolCall) -> Result<ToolResult, Infallible> {
    let arg = |key: &str| call.arguments[key].as_str().unwrap_or_default().to_owned();
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(match call.name.as_str() {
        "Shell" => {
            let command = arg("command");
            out.say(format!("tool   : Shell pretends to run `{command}`"));
            match command.as_str() {
                "ls" => ToolResult::ok("Cargo.toml\nbuild/\nsrc/\n"),
                "cargo build" => ToolResult::ok("Finished `dev` profile in 0.4s\n"),
                "cargo test" => ToolResult::ok("test result: ok. 12 passed\n"),
                other => ToolResult::error(format!("sh: {other}: not run by this fake tool")),
            }
        }
        "Read" => {
            let file = arg("file_path");
            out.say(format!("tool   : Read pretends to read {file}"));
            ToolResult::ok(format!("(the text of {file})"))
        }
        "Edit" => {
            let file = arg("file_path");
            out.say(format!("tool   : Edit pretends to edit {file}"));
            ToolResult::ok(format!("edited {file}"))
        }
        other => ToolResult::error(format!("no tool named {other}")),
    })
}

/// One call of the stack: the Cursor events whose hooks it ran, each hook, the
/// decision.
fn print_event(out: &Transcript, req: &HookRequest, outcome: &HookOutcome) {
    // Calls with no hook (the points this project configures nothing for) are
    // left out.
    if outcome.hooks().is_empty() {
        return;
    }
    // `preToolUse` and `beforeShellExecution` fire at one point: name the ones
    // that have hooks here.
    let mut events: Vec<&str> = Vec::new();
    for hook in outcome.hooks() {
        let event = event_as_written(hook.spec());
        if !events.contains(&event) {
            events.push(event);
        }
    }
    out.say(with_arguments(&event_head(&events.join(" + "), req), req));
    for hook in outcome.hooks() {
        let command = hook.spec().command_line().unwrap_or(hook.spec().source());
        let name = command.rsplit('/').next().unwrap_or(command);
        out.say(script_line(name, hook, (15, 12)));
    }
    out.say(format!("     => {}", decision(req, outcome)));
    for message in outcome.user_messages() {
        out.say(format!("     user   : {message}"));
    }
}
