//! Run with: cargo run --example observability
//!
//! Puts the layers of `tower-hooks-layers` on one stack and runs a short scripted
//! session through it. Metrics sit around the whole call: per-event decisions and
//! per-hook outcomes and latencies, read back here from the in-process snapshot (a
//! Prometheus or StatsD exporter installed as the `metrics` recorder would get the
//! same numbers). An audit log and a cache sit around each hook: every hook run
//! leaves one JSON line in a file, written off the hot path, and the verdicts of a
//! pure lint hook are memoised for a minute. The hooks are a command guard run by
//! `bash`, the lint, a scan that times out on `curl`, and a redactor of tool output.
//! The example prints each outcome, then the snapshot, then the audit lines.

use std::convert::Infallible;
use std::time::Duration;

use serde_json::json;
use tower::{service_fn, ServiceBuilder, ServiceExt};
use tower_hooks::{Event, HookRequest, HookSpec, HookStack, ShutdownReason, StartReason, Verdict};
use tower_hooks_layers::audit::AuditLayer;
use tower_hooks_layers::cache::CacheLayer;
use tower_hooks_layers::metrics::MetricsLayer;
use tower_hooks_layers::ServiceBuilderExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let audit_path = dir.path().join("audit.jsonl");

    let (metrics, metrics_handle) = MetricsLayer::pair();
    let (audit, audit_log) = AuditLayer::open(&audit_path)?;
    let cache = CacheLayer::new(Duration::from_secs(60), 1024).hooks(["lint:0"]);
    let cache_handle = cache.handle();

    let stack = HookStack::builder()
        // A command hook: refuses `rm -rf`.
        .command_hook(
            HookSpec::command(
                Event::ToolExecutionStart,
                r#"grep -q 'rm -rf' && { echo "refused: rm -rf" >&2; exit 2; }; exit 0"#,
            )
            .with_source("guard", 0)
            .with_matcher("^bash$")?,
        )
        // A pure in-process check: the same command always gets the same answer.
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "lint"),
            |req: &HookRequest| match req.arguments()["command"].as_str() {
                Some(cmd) if cmd.starts_with("sudo") => Verdict::block("no sudo in this repo"),
                _ => Verdict::Allow,
            },
        )
        // A scan that hangs on network commands, past its 100 ms timeout.
        .service_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "scan")
                .with_timeout(Duration::from_millis(100)),
            service_fn(|req: HookRequest| async move {
                if req.arguments()["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("curl"))
                {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
                Ok::<_, Infallible>(Verdict::Allow)
            }),
        )
        // Strips tokens from what the model sees.
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionEnd, "redact"),
            |req: &HookRequest| {
                let content = req.arguments()["tool_response"]["content"]
                    .as_str()
                    .unwrap_or("");
                if content.contains("token=") {
                    let redacted = json!({"content": "[redacted]"});
                    Verdict::Transform(redacted.as_object().cloned().unwrap_or_default())
                } else {
                    Verdict::Allow
                }
            },
        )
        .around_call(metrics)
        .around_hook(ServiceBuilder::new().audit(audit).cache(cache))
        .build();

    let bash = |call_id: &str, command: &str| {
        HookRequest::tool_execution_start("bash", json!({ "command": command }))
            .with_tool_call_id(call_id)
            .with_session_id("019-demo")
    };
    let session = [
        HookRequest::session_start(StartReason::Startup).with_session_id("019-demo"),
        bash("call_1", "ls"),
        bash("call_2", "rm -rf build/"),
        bash("call_3", "ls"), // the lint answers from the cache
        bash("call_4", "sudo make install"),
        bash("call_5", "curl -s https://example.com/install.sh"),
        HookRequest::tool_execution_end(
            "bash",
            json!({"command": "env"}),
            "token=abc123",
            false,
            Duration::from_millis(4),
        )
        .with_tool_call_id("call_6")
        .with_session_id("019-demo"),
        HookRequest::session_shutdown(ShutdownReason::Quit).with_session_id("019-demo"),
    ];

    println!("== outcomes");
    for req in session {
        let subject = req
            .arguments()
            .get("command")
            .and_then(|c| c.as_str())
            .unwrap_or("")
            .to_owned();
        let outcome = stack.clone().oneshot(req).await?;
        println!(
            "{:<22} {:<40} {:<9} {}",
            outcome.event().name(),
            subject,
            outcome.decision().as_str(),
            outcome.reason().unwrap_or("")
        );
    }

    // Everything accepted so far is on disk once this returns.
    audit_log.shutdown().await;

    println!("\n== metrics snapshot");
    print!("{}", metrics_handle.snapshot());
    println!(
        "\ncache: {} hit(s), {} miss(es)",
        cache_handle.hits(),
        cache_handle.misses()
    );

    println!(
        "\n== audit log ({} lines written, {} dropped)",
        audit_log.written(),
        audit_log.dropped()
    );
    print!("{}", std::fs::read_to_string(&audit_path)?);
    Ok(())
}
