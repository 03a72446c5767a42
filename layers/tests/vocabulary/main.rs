//! One outcome vocabulary: a timeout and a fail-closed failure have the same word
//! in the hook's record, its JSON report, the metrics' `outcome` label (around the
//! call and around each hook) and the audit log's `decision`.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, ServiceExt};
use tower_hooks::{BoxError, Event, HookRequest, HookSpec, HookStack, RecordOutcome, Verdict};
use tower_hooks_layers::audit::AuditLayer;
use tower_hooks_layers::metrics::MetricsLayer;

/// An audit writer whose lines the test can read.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Lines {
    fn json(&self) -> Vec<Value> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn builder(slow: bool) -> tower_hooks::Builder {
    let spec = HookSpec::in_process(Event::ToolExecutionStart, "guard");
    let builder = HookStack::builder().report(());
    if slow {
        builder.service_hook(
            spec.with_timeout(Duration::from_millis(50)),
            service_fn(|_req: HookRequest| async {
                tokio::time::sleep(Duration::from_secs(10)).await;
                Ok::<_, Infallible>(Verdict::Allow)
            }),
        )
    } else {
        builder.service_hook(
            spec.with_fail_closed(true),
            service_fn(|_req: HookRequest| async {
                Err::<Verdict, BoxError>("cannot spawn".into())
            }),
        )
    }
}

/// The word of every place, for a stack whose one hook times out (`slow`) or
/// fails closed.
async fn words(slow: bool) -> Vec<(&'static str, String)> {
    let req = || HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
    let lines = Lines::default();
    let (audit, audit_handle) = AuditLayer::new(lines.clone()).unwrap();
    let (per_hook, per_hook_handle) = MetricsLayer::pair();
    let (per_call, per_call_handle) = MetricsLayer::pair();
    let stack = builder(slow)
        .around_call(per_call)
        .around_hook(audit)
        .around_hook(per_hook)
        .build();
    let outcome = stack.oneshot(req()).await.unwrap();
    assert!(outcome.is_blocked());
    audit_handle.shutdown().await;

    let record = &outcome.hooks()[0];
    let report = serde_json::to_value(&outcome).unwrap();
    let label = |snapshot: tower_hooks_layers::metrics::Snapshot| {
        let counts = snapshot
            .hook(Event::ToolExecutionStart, "guard:0")
            .unwrap()
            .counts;
        let counted: Vec<&str> = tower_hooks_layers::metrics::OUTCOMES
            .iter()
            .filter(|o| counts.get(**o) == 1)
            .map(|o| o.as_str())
            .collect();
        assert_eq!(counted.len(), 1, "{counts:?}");
        counted[0].to_owned()
    };
    vec![
        ("record", record.outcome().as_str().to_owned()),
        ("record display", record.outcome().to_string()),
        (
            "report outcome_detail",
            report["hooks"][0]["outcome_detail"]
                .as_str()
                .unwrap()
                .to_owned(),
        ),
        ("metrics around the call", label(per_call_handle.snapshot())),
        (
            "metrics around each hook",
            label(per_hook_handle.snapshot()),
        ),
        (
            "audit decision",
            lines.json()[0]["decision"].as_str().unwrap().to_owned(),
        ),
    ]
}

#[tokio::test(start_paused = true)]
async fn every_place_says_timeout_for_a_timeout() {
    for (place, word) in words(true).await {
        assert_eq!(word, "timeout", "{place}");
    }
    assert_eq!(RecordOutcome::Timeout.as_str(), "timeout");
}

#[tokio::test(start_paused = true)]
async fn every_place_says_failed_closed_for_a_fail_closed_block() {
    for (place, word) in words(false).await {
        assert_eq!(word, "failed_closed", "{place}");
    }
    assert_eq!(RecordOutcome::FailedClosed.as_str(), "failed_closed");
}
