//! The metrics layer against in-process hooks: around each hook, around the call,
//! through the `metrics` facade and in the in-process snapshot.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use metrics::{
    Counter, CounterFn, Gauge, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use serde_json::json;
use tower::{service_fn, ServiceExt};
use tower_hooks::{
    BoxError, Decision, Event, HookRequest, HookSpec, HookStack, RecordOutcome, Verdict,
};
use tower_hooks_layers::metrics::{Counts, MetricsLayer, OUTCOMES};

/// An in-process hook at `tool_execution_start` named `name`.
fn spec(name: &str) -> HookSpec {
    HookSpec::in_process(Event::ToolExecutionStart, name)
}

fn bash(command: &str) -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({ "command": command }))
}

fn counts(
    allow: u64,
    transform: u64,
    block: u64,
    skipped: u64,
    timeout: u64,
    error: u64,
) -> Counts {
    let mut c = Counts::default();
    c.allow = allow;
    c.transform = transform;
    c.block = block;
    c.skipped = skipped;
    c.timeout = timeout;
    c.error = error;
    c
}

/// A stack with one hook for each of the six outcomes, all at `tool_execution_start`,
/// in this order: `allow:0`; `transform:0`; `skip:0` (matcher `^read$`); `broken:0`
/// (cannot run); `slow:0` (times out after 50 ms on `sleep`, allows the rest);
/// `block:0` (blocks `rm`, allows the rest).
fn six_hooks() -> tower_hooks::Builder {
    HookStack::builder()
        .report(())
        .fn_hook(spec("allow"), |_req: &HookRequest| Verdict::Allow)
        .fn_hook(spec("transform"), |req: &HookRequest| {
            let mut args = req.arguments().as_object().cloned().unwrap_or_default();
            args.insert("dry_run".into(), json!(true));
            Verdict::Transform(args)
        })
        .fn_hook(
            spec("skip").with_matcher("^read$").unwrap(),
            |_req: &HookRequest| Verdict::Allow,
        )
        .service_hook(
            spec("broken"),
            service_fn(|_req: HookRequest| async {
                Err::<Verdict, BoxError>("cannot spawn".into())
            }),
        )
        .service_hook(
            spec("slow").with_timeout(Duration::from_millis(50)),
            service_fn(|req: HookRequest| async move {
                if req.arguments()["command"] == "sleep" {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                }
                Ok::<_, Infallible>(Verdict::Allow)
            }),
        )
        .fn_hook(spec("block"), |req: &HookRequest| {
            match req.arguments()["command"].as_str() {
                Some(cmd) if cmd.starts_with("rm") => Verdict::block("no rm"),
                _ => Verdict::Allow,
            }
        })
}

/// `ls` (transformed), `rm -rf /` (blocked), `sleep` (timed out).
async fn three_calls<S>(stack: HookStack<S>) -> Vec<Decision>
where
    HookStack<S>: tower::Service<HookRequest, Response = tower_hooks::HookOutcome, Error = Infallible>
        + Clone,
{
    let mut decisions = Vec::new();
    for command in ["ls", "rm -rf /", "sleep"] {
        let outcome = stack.clone().oneshot(bash(command)).await.unwrap();
        decisions.push(outcome.decision());
    }
    decisions
}

#[tokio::test(start_paused = true)]
async fn around_each_hook_every_outcome_is_counted_per_hook() {
    let (metrics, handle) = MetricsLayer::pair();
    let stack = six_hooks().around_hook(metrics).build();
    three_calls(stack).await;

    let snapshot = handle.snapshot();
    let count = |hook: &str| {
        snapshot
            .hook(Event::ToolExecutionStart, hook)
            .unwrap()
            .counts
    };
    assert_eq!(count("allow:0"), counts(3, 0, 0, 0, 0, 0));
    assert_eq!(count("transform:0"), counts(0, 3, 0, 0, 0, 0));
    // The chain skips a non-matching hook before the layers around it: never seen.
    assert!(snapshot.hook(Event::ToolExecutionStart, "skip:0").is_none());
    assert_eq!(count("broken:0"), counts(0, 0, 0, 0, 0, 3));
    assert_eq!(count("slow:0"), counts(2, 0, 0, 0, 1, 0));
    // After the timeout's block, `block:0` did not run.
    assert_eq!(count("block:0"), counts(1, 0, 1, 0, 0, 0));
    // Around each hook there is no call to count.
    assert!(snapshot.calls().is_empty());
    assert_eq!(snapshot.hooks().len(), 5);
}

#[tokio::test(start_paused = true)]
async fn around_the_call_decisions_are_counted_per_event_and_hooks_from_their_records() {
    let (metrics, handle) = MetricsLayer::pair();
    let stack = six_hooks().around_call(metrics).build();
    let decisions = three_calls(stack.clone()).await;
    assert_eq!(
        decisions,
        [Decision::Transform, Decision::Block, Decision::Block]
    );
    stack.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();

    let snapshot = handle.snapshot();
    let calls = snapshot.event(Event::ToolExecutionStart).unwrap();
    assert_eq!(calls.counts, counts(0, 1, 2, 0, 0, 0));
    assert_eq!(calls.latency.count, 3);
    // An event with no hook is a call too.
    let turns = snapshot.event(Event::TurnStart).unwrap();
    assert_eq!(turns.counts, counts(1, 0, 0, 0, 0, 0));

    let count = |hook: &str| {
        snapshot
            .hook(Event::ToolExecutionStart, hook)
            .unwrap()
            .counts
    };
    assert_eq!(count("allow:0"), counts(3, 0, 0, 0, 0, 0));
    assert_eq!(count("transform:0"), counts(0, 3, 0, 0, 0, 0));
    // Around the call, the records show the skipped hook too.
    assert_eq!(count("skip:0"), counts(0, 0, 0, 3, 0, 0));
    assert_eq!(count("broken:0"), counts(0, 0, 0, 0, 0, 3));
    assert_eq!(count("slow:0"), counts(2, 0, 0, 0, 1, 0));
    assert_eq!(count("block:0"), counts(1, 0, 1, 0, 0, 0));
}

#[tokio::test(start_paused = true)]
async fn hooks_after_a_block_did_not_run_and_are_not_counted() {
    let (metrics, handle) = MetricsLayer::pair();
    let stack = HookStack::builder()
        .fn_hook(spec("guard"), |_req: &HookRequest| Verdict::block("no"))
        .fn_hook(spec("after"), |_req: &HookRequest| Verdict::Allow)
        .around_call(metrics)
        .build();
    let outcome = stack.oneshot(bash("ls")).await.unwrap();
    assert_eq!(outcome.hooks()[1].outcome(), RecordOutcome::NotRun);

    let snapshot = handle.snapshot();
    assert_eq!(
        snapshot
            .hook(Event::ToolExecutionStart, "guard:0")
            .unwrap()
            .counts
            .block,
        1
    );
    assert!(snapshot
        .hook(Event::ToolExecutionStart, "after:0")
        .is_none());
}

#[tokio::test(start_paused = true)]
async fn latency_is_the_time_each_hook_and_call_took() {
    let slow = |ms: u64| {
        service_fn(move |_req: HookRequest| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok::<_, Infallible>(Verdict::Allow)
        })
    };
    let build = |layer: MetricsLayer, around_call: bool| {
        let builder = HookStack::builder()
            .service_hook(spec("fast"), slow(10))
            .service_hook(spec("slow"), slow(40));
        if around_call {
            builder.around_call(layer).build().boxed_clone()
        } else {
            builder.around_hook(layer).build().boxed_clone()
        }
    };
    for around_call in [false, true] {
        let (metrics, handle) = MetricsLayer::pair();
        let stack = build(metrics, around_call);
        for _ in 0..3 {
            stack.clone().oneshot(bash("ls")).await.unwrap();
        }
        let snapshot = handle.snapshot();
        let fast = snapshot
            .hook(Event::ToolExecutionStart, "fast:0")
            .unwrap()
            .latency;
        let slow = snapshot
            .hook(Event::ToolExecutionStart, "slow:0")
            .unwrap()
            .latency;
        assert_eq!(fast.count, 3);
        assert_eq!(
            fast.mean(),
            Duration::from_millis(10),
            "around_call={around_call}"
        );
        assert_eq!(slow.total, Duration::from_millis(120));
        assert_eq!(
            (slow.min, slow.max),
            (Duration::from_millis(40), Duration::from_millis(40))
        );
        if around_call {
            let calls = snapshot.event(Event::ToolExecutionStart).unwrap().latency;
            assert_eq!(calls.mean(), Duration::from_millis(50));
        }
    }
}

#[tokio::test]
async fn a_request_outside_a_chain_is_counted_with_an_empty_hook() {
    let (metrics, handle) = MetricsLayer::pair();
    let hook = tower::ServiceBuilder::new()
        .layer(metrics)
        .service(service_fn(|_req: HookRequest| async {
            Ok::<_, Infallible>(Verdict::Allow)
        }));
    hook.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
    let snapshot = handle.snapshot();
    assert_eq!(snapshot.hook(Event::TurnStart, "").unwrap().counts.allow, 1);
}

#[tokio::test]
async fn reset_forgets_everything_and_with_handle_adds_to_the_same_snapshot() {
    let (metrics, handle) = MetricsLayer::pair();
    let other = MetricsLayer::with_handle(&handle);
    let a = HookStack::builder()
        .fn_hook(spec("a"), |_req: &HookRequest| Verdict::Allow)
        .around_call(metrics)
        .build();
    let b = HookStack::builder()
        .fn_hook(spec("b"), |_req: &HookRequest| Verdict::Allow)
        .around_call(other)
        .build();
    a.oneshot(bash("ls")).await.unwrap();
    b.oneshot(bash("ls")).await.unwrap();
    let snapshot = handle.snapshot();
    assert_eq!(
        snapshot
            .event(Event::ToolExecutionStart)
            .unwrap()
            .counts
            .allow,
        2
    );
    assert_eq!(snapshot.hooks().len(), 2);
    handle.reset();
    assert!(handle.snapshot().is_empty());
}

#[tokio::test(start_paused = true)]
async fn snapshot_prints_one_line_per_event_and_hook() {
    let (metrics, handle) = MetricsLayer::pair();
    let stack = HookStack::builder()
        .service_hook(
            spec("guard"),
            service_fn(|_req: HookRequest| async {
                tokio::time::sleep(Duration::from_millis(2)).await;
                Ok::<_, Infallible>(Verdict::block("no"))
            }),
        )
        .around_call(metrics)
        .build();
    stack.oneshot(bash("ls")).await.unwrap();
    assert_eq!(
        handle.snapshot().to_string(),
        "\
event                 hook     allow  transform  block  ask  skipped  timeout  failed_closed  error       mean        max
tool_execution_start  *            0          0      1    0        0        0              0      0      2.0ms      2.0ms
tool_execution_start  guard:0      0          0      1    0        0        0              0      0      2.0ms      2.0ms
"
    );
}

#[test]
fn the_outcome_labels_are_the_record_outcomes_but_not_run() {
    let names: Vec<&str> = OUTCOMES.iter().map(|o| o.as_str()).collect();
    assert_eq!(
        names,
        [
            "allow",
            "transform",
            "block",
            "ask",
            "skipped",
            "timeout",
            "failed_closed",
            "error"
        ]
    );
    let mut c = Counts::default();
    c.failed_closed = 2;
    assert_eq!(c.get(RecordOutcome::FailedClosed), 2);
    assert_eq!(c.get(RecordOutcome::NotRun), 0);
    assert_eq!(c.total(), 2);
}

/// A stack with one in-process hook that cannot run and fails closed.
fn fail_closed_hook() -> tower_hooks::Builder {
    HookStack::builder().report(()).service_hook(
        spec("closed").with_fail_closed(true),
        service_fn(|_req: HookRequest| async { Err::<Verdict, BoxError>("cannot spawn".into()) }),
    )
}

#[tokio::test(start_paused = true)]
async fn a_fail_closed_failure_is_counted_as_failed_closed_in_both_places() {
    let (metrics, handle) = MetricsLayer::pair();
    let stack = fail_closed_hook().around_call(metrics).build();
    assert!(stack.oneshot(bash("ls")).await.unwrap().is_blocked());
    let around_call = handle.snapshot();

    let (metrics, handle) = MetricsLayer::pair();
    let stack = fail_closed_hook().around_hook(metrics).build();
    assert!(stack.oneshot(bash("ls")).await.unwrap().is_blocked());
    let around_hook = handle.snapshot();

    for snapshot in [around_call, around_hook] {
        let counts = snapshot
            .hook(Event::ToolExecutionStart, "closed:0")
            .unwrap()
            .counts;
        assert_eq!((counts.failed_closed, counts.error), (1, 0), "{snapshot}");
    }
}

// ---------------------------------------------------------------------------
// The facade: a recorder that writes down what it is given.
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Recorded {
    counters: Mutex<BTreeMap<String, u64>>,
    histograms: Mutex<BTreeMap<String, Vec<f64>>>,
    described: Mutex<Vec<(String, Option<Unit>)>>,
}

#[derive(Clone, Default)]
struct TestRecorder(Arc<Recorded>);

/// `name{label=value,…}`, labels in the order given.
fn render(key: &Key) -> String {
    let labels: Vec<String> = key
        .labels()
        .map(|l| format!("{}={}", l.key(), l.value()))
        .collect();
    format!("{}{{{}}}", key.name(), labels.join(","))
}

struct Slot(Arc<Recorded>, String);

impl CounterFn for Slot {
    fn increment(&self, value: u64) {
        *self
            .0
            .counters
            .lock()
            .unwrap()
            .entry(self.1.clone())
            .or_default() += value;
    }
    fn absolute(&self, value: u64) {
        self.0
            .counters
            .lock()
            .unwrap()
            .insert(self.1.clone(), value);
    }
}

impl HistogramFn for Slot {
    fn record(&self, value: f64) {
        self.0
            .histograms
            .lock()
            .unwrap()
            .entry(self.1.clone())
            .or_default()
            .push(value);
    }
}

impl Recorder for TestRecorder {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, _: SharedString) {
        self.0
            .described
            .lock()
            .unwrap()
            .push((key.as_str().to_owned(), unit));
    }
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, _: SharedString) {
        self.0
            .described
            .lock()
            .unwrap()
            .push((key.as_str().to_owned(), unit));
    }
    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(Arc::new(Slot(self.0.clone(), render(key))))
    }
    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }
    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(Arc::new(Slot(self.0.clone(), render(key))))
    }
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn counts_and_latencies_reach_the_installed_recorder_with_their_labels() {
    let recorder = TestRecorder::default();
    let _local = metrics::set_default_local_recorder(&recorder);

    // No handle: the facade only.
    let stack = six_hooks().around_call(MetricsLayer::new()).build();
    three_calls(stack).await;

    let counters = recorder.0.counters.lock().unwrap().clone();
    let runs = |hook: &str, outcome: &str| {
        counters[&format!(
            "tower_hooks_hook_runs_total{{event=tool_execution_start,hook={hook},outcome={outcome}}}"
        )]
    };
    assert_eq!(runs("allow:0", "allow"), 3);
    assert_eq!(runs("transform:0", "transform"), 3);
    assert_eq!(runs("skip:0", "skipped"), 3);
    assert_eq!(runs("broken:0", "error"), 3);
    assert_eq!(runs("slow:0", "allow"), 2);
    assert_eq!(runs("slow:0", "timeout"), 1);
    assert_eq!(runs("block:0", "allow"), 1);
    assert_eq!(runs("block:0", "block"), 1);
    assert_eq!(
        counters["tower_hooks_calls_total{event=tool_execution_start,outcome=transform}"],
        1
    );
    assert_eq!(
        counters["tower_hooks_calls_total{event=tool_execution_start,outcome=block}"],
        2
    );

    let histograms = recorder.0.histograms.lock().unwrap().clone();
    assert_eq!(
        histograms["tower_hooks_hook_duration_seconds{event=tool_execution_start,hook=slow:0,outcome=timeout}"],
        [0.05]
    );
    assert_eq!(
        histograms["tower_hooks_call_duration_seconds{event=tool_execution_start,outcome=block}"],
        [0.0, 0.05]
    );

    let described = recorder.0.described.lock().unwrap().clone();
    assert!(described.contains(&("tower_hooks_hook_runs_total".into(), Some(Unit::Count))));
    assert!(described.contains(&(
        "tower_hooks_hook_duration_seconds".into(),
        Some(Unit::Seconds)
    )));
}

/// A named hook is counted under its name, around each hook and from the records
/// around the call; an unnamed one under its location with `$HOME` as `~`.
#[tokio::test]
async fn hooks_are_counted_under_their_label() {
    let named = HookSpec::command(Event::ToolExecutionStart, "exit 0")
        .with_source("/home/u/.nanopi/config.toml", 0)
        .with_source_label("~/.nanopi/config.toml")
        .with_name("bash-guard");
    let unnamed = HookSpec::command(Event::ToolExecutionStart, "exit 0")
        .with_source("/home/u/.nanopi/config.toml", 1)
        .with_source_label("~/.nanopi/config.toml");
    let (around_hook, per_hook) = MetricsLayer::pair();
    let (around_call, per_call) = MetricsLayer::pair();
    let stack = HookStack::builder()
        .report(())
        .command_hooks([named, unnamed])
        .around_hook(around_hook)
        .around_call(around_call)
        .build();
    stack.oneshot(bash("ls")).await.unwrap();
    for snapshot in [per_hook.snapshot(), per_call.snapshot()] {
        let mut labels: Vec<_> = snapshot.hooks().iter().map(|h| h.hook.clone()).collect();
        labels.sort();
        assert_eq!(labels, ["bash-guard", "~/.nanopi/config.toml:1"]);
    }
}
