//! Run with: cargo run --example record [-- FILE]
//!
//! Records the session of `cargo run --example agent` (the same scripted
//! agent, the same hooks of `examples/agent.toml`, the same calls) with a
//! `RecordLayer` around the stack, then prints the `hooks replay` command that
//! fires the recorded events again. Tool outputs go through the record's
//! redaction hook, so the fake GitHub token of `cat deploy.env` never reaches
//! the file. The record is written to FILE, by default
//! `tower-hooks-example-session.jsonl` in the system's temporary directory.

use std::convert::Infallible;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, Service, ServiceBuilder, ServiceExt};
use tower_hooks::{
    AgentHooks, CompactionReason, Config, HookStack, PromptDecision, ShutdownReason, StartReason,
    ToolCall, ToolResult,
};
use tower_hooks_layers::record::RecordLayer;

const USAGE: &str = "usage: cargo run --example record [-- FILE]";

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let file = match (args.next(), args.next()) {
        (None, _) => std::env::temp_dir().join("tower-hooks-example-session.jsonl"),
        (Some(arg), None) if !arg.starts_with('-') => PathBuf::from(arg),
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    // A record is appended to: start this one afresh.
    match std::fs::remove_file(&file) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot replace {}: {e}", file.display()).into()),
    }
    let written = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(session(&examples, &file))?;

    let scripts = examples.join("hooks");
    println!(
        "recorded {written} events of the example agent's session to {}",
        file.display()
    );
    println!(
        "\nreplay them through the same hooks (or edit agent.toml first, or add --against):\n"
    );
    println!(
        "  TOWER_HOOKS_EXAMPLES={} cargo run -q --bin hooks -- replay --config {} {}",
        scripts.display(),
        examples.join("agent.toml").display(),
        file.display()
    );
    Ok(())
}

/// The example agent's session, recorded; answers how many lines were written.
/// (`hooks replay`'s tests record it too.)
pub(crate) async fn session(examples: &Path, file: &Path) -> Result<u64, Box<dyn Error>> {
    let config = Config::load_file(examples.join("agent.toml"))?;
    let (record, handle) = RecordLayer::open(file)?;
    let record = record.redact_tool_output(|_tool, output| redact_tokens(output));
    let stack = HookStack::builder()
        .config(&config)
        .env(
            "TOWER_HOOKS_EXAMPLES",
            examples.join("hooks").to_string_lossy(),
        )
        .report(|_: &tower_hooks::report::Notice<'_>| {})
        .around_call(record)
        .build();
    let cwd = std::env::current_dir()?.display().to_string();
    let mut hooks = AgentHooks::new(stack)
        .with_session_id("demo-0001")
        .with_cwd(cwd.as_str());
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(service_fn(fake_bash));

    hooks.session_start(StartReason::Startup).await?;
    let typed = "clean up the build folder, then show me the deploy settings";
    if let PromptDecision::Refused(message) = hooks.prompt(typed).await? {
        return Err(format!("the prompt was refused: {message}").into());
    }
    let calls = [
        ToolCall::new("bash", "call_1", json!({"command": "rm -rf build/"})),
        ToolCall::new("bash", "call_2", json!({"command": "cat deploy.env"})),
    ];
    hooks.turn_start(0).await?;
    let mut answer_length = 0;
    for call in calls {
        let result = bash.ready().await?.call(call).await?;
        answer_length += result.content().len() as u64;
    }
    hooks.turn_end(0, true).await?;
    hooks.turn_start(1).await?;
    hooks.turn_end(1, false).await?;
    hooks.message_end(answer_length).await?;
    hooks
        .session_before_compact(CompactionReason::Manual)
        .await?;
    hooks.session_compact(CompactionReason::Manual).await?;
    hooks.session_shutdown(ShutdownReason::Quit).await?;

    handle.flush()?;
    if let Some(error) = handle.last_error() {
        return Err(format!("the record lost lines: {error}").into());
    }
    Ok(handle.written())
}

/// The record's redaction hook: a word that looks like a GitHub token becomes
/// `[redacted]`, in the text and in any structured copy of it.
fn redact_tokens(output: &mut Value) {
    match output {
        Value::String(text) if text.contains("ghp_") => {
            *text = text
                .split_inclusive(['\n', ' ', '='])
                .map(|word| {
                    let bare = word.trim_end_matches(['\n', ' ', '=']);
                    if bare.starts_with("ghp_") {
                        word.replacen(bare, "[redacted]", 1)
                    } else {
                        word.to_owned()
                    }
                })
                .collect();
        }
        Value::Array(items) => items.iter_mut().for_each(redact_tokens),
        Value::Object(fields) => fields.values_mut().for_each(redact_tokens),
        _ => {}
    }
}

/// The example agent's tool: pretends to run a shell command. Nothing is executed.
async fn fake_bash(call: ToolCall) -> Result<ToolResult, Infallible> {
    let command = call.arguments["command"].as_str().unwrap_or_default();
    tokio::time::sleep(Duration::from_millis(5)).await;
    Ok(match command {
        "cat deploy.env" => {
            ToolResult::ok("DEPLOY_TARGET=staging\nGITHUB_TOKEN=ghp_FAKEexampleTOKEN0123456789\n")
        }
        "rm -rf build/" => ToolResult::ok("removed build/"),
        other => ToolResult::error(format!("bash: {other}: command not found")),
    })
}
