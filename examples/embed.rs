//! Run with: cargo run --example embed
//!
//! Builds a hook stack by hand from two command hooks that ship beside this file
//! (`examples/hooks/guard.sh`, a `tool_execution_start` guard that refuses
//! `rm -rf`, and `examples/hooks/redact.sh`, a `tool_execution_end` hook that
//! strips tokens from tool output), plus one in-process hook, fires a few events
//! through it, and prints each outcome. No config file is read.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tower::{Service, ServiceExt};
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack, Verdict};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hooks = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hooks");
    let mut stack = HookStack::builder()
        .command_hook(
            HookSpec::command(
                Event::ToolExecutionStart,
                hooks.join("guard.sh").display().to_string(),
            )
            .with_source("examples/hooks/guard.sh", 0)
            .with_matcher("^bash$")?
            .with_timeout(Duration::from_millis(3000)),
        )
        .command_hook(
            HookSpec::command(
                Event::ToolExecutionEnd,
                hooks.join("redact.sh").display().to_string(),
            )
            .with_source("examples/hooks/redact.sh", 0),
        )
        // An in-process hook: prefixes every prompt of the first turn.
        .fn_hook(
            HookSpec::in_process(Event::BeforeAgentStart, "first-turn-context")
                .with_matcher("^1$")?,
            |req| {
                let prompt = req.arguments()["prompt"].as_str().unwrap_or_default();
                let rewritten = format!("(working in /srv/app) {prompt}");
                Verdict::Transform(
                    json!({ "prompt": rewritten })
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                )
            },
        )
        .build();

    let events = [
        HookRequest::before_agent_start(1, "list the build folder"),
        HookRequest::tool_execution_start("bash", json!({"command": "ls -la build/"})),
        HookRequest::tool_execution_start("bash", json!({"command": "rm -rf build/"})),
        HookRequest::tool_execution_end(
            "bash",
            json!({"command": "cat .env"}),
            "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwx1234",
            false,
            Duration::from_millis(12),
        ),
        HookRequest::turn_end(1, 0, true),
    ];
    for req in events {
        let req = req.with_session_id("019demo").with_tool_call_id("call_1");
        let outcome = stack.ready().await?.call(req).await?;
        print(&outcome);
    }
    Ok(())
}

fn print(outcome: &HookOutcome) {
    println!("── {}", outcome.event());
    for hook in outcome.hooks() {
        println!(
            "   hook {}:{}  {:<9} {:>4} ms  {}",
            hook.spec().source(),
            hook.spec().index(),
            hook.outcome().as_str(),
            hook.duration().as_millis(),
            hook.reason().unwrap_or(""),
        );
    }
    if outcome.hooks().is_empty() {
        println!("   (no hook for this event)");
    }
    match outcome.message() {
        Some(message) => println!("   → {message}"),
        None => println!(
            "   → {}{}: {}",
            outcome.decision().as_str(),
            if outcome.is_honored() {
                ""
            } else {
                " (not honored here)"
            },
            outcome.arguments()
        ),
    }
}
