//! `ServiceBuilderExt`: each layer in one line, in the order given, and the three
//! together on a `HookStack`.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, ServiceBuilder, ServiceExt};
use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
use tower_hooks_layers::audit::AuditLayer;
use tower_hooks_layers::cache::CacheLayer;
use tower_hooks_layers::metrics::MetricsLayer;
use tower_hooks_layers::ServiceBuilderExt;

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

#[tokio::test]
async fn layers_added_first_see_what_the_cache_answers_and_layers_after_it_do_not() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let out = Lines::default();
    let (audit, log) = AuditLayer::new(out.clone()).unwrap();
    let (outer, outer_metrics) = MetricsLayer::pair();
    let (inner, inner_metrics) = MetricsLayer::pair();
    let cache = CacheLayer::new(Duration::from_secs(60), 16).hooks(["pure:0"]);

    let stack = HookStack::builder()
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "pure"),
            move |_req: &HookRequest| {
                counter.fetch_add(1, Ordering::SeqCst);
                Verdict::Allow
            },
        )
        .around_hook(
            ServiceBuilder::new()
                .audit(audit)
                .metrics(outer)
                .cache(cache)
                .metrics(inner),
        )
        .build();
    for _ in 0..3 {
        let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
        assert!(!stack.clone().oneshot(req).await.unwrap().is_blocked());
    }
    log.shutdown().await;

    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let allowed = |handle: &tower_hooks_layers::metrics::MetricsHandle| {
        let snapshot = handle.snapshot();
        snapshot
            .hook(Event::ToolExecutionStart, "pure:0")
            .unwrap()
            .counts
            .allow
    };
    assert_eq!(allowed(&outer_metrics), 3);
    assert_eq!(allowed(&inner_metrics), 1);
    let lines = out.json();
    assert_eq!(lines.len(), 3);
    assert!(lines
        .iter()
        .all(|l| l["decision"] == "allow" && l["hook"] == "pure:0"));
}

#[tokio::test]
async fn metrics_go_around_the_call_in_one_line() {
    let (metrics, handle) = MetricsLayer::pair();
    let stack = HookStack::builder()
        .fn_hook(
            HookSpec::in_process(Event::Input, "prompt-guard"),
            |_req: &HookRequest| Verdict::block("not today"),
        )
        .around_call(ServiceBuilder::new().metrics(metrics))
        .build();
    let outcome = stack.oneshot(HookRequest::input("hi")).await.unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(
        handle.snapshot().event(Event::Input).unwrap().counts.block,
        1
    );
}

#[tokio::test]
async fn the_builder_adds_the_audit_layer() {
    let (audit, log) = AuditLayer::new(Vec::new()).unwrap();
    let hook = ServiceBuilder::new()
        .audit(audit)
        .service(service_fn(|_req: HookRequest| async {
            Ok::<_, Infallible>(Verdict::Allow)
        }));
    hook.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
    log.shutdown().await;
    assert_eq!((log.written(), log.dropped()), (1, 0));
}
