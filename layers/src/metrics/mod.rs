//! Middleware that counts and times hook runs, per event and per hook.
//!
//! [`Metrics`] reports through the [`metrics`](https://docs.rs/metrics) facade, so whatever
//! recorder the host installed (a Prometheus or StatsD exporter, …) picks the
//! numbers up with no glue; without one, the facade does nothing. Made with
//! [`MetricsLayer::pair`], it also keeps an in-process [`Snapshot`] for hosts
//! without an exporter.
//!
//! | name | kind | labels |
//! | --- | --- | --- |
//! | [`HOOK_RUNS`] `tower_hooks_hook_runs_total` | counter | `event`, `hook`, `outcome` |
//! | [`HOOK_DURATION`] `tower_hooks_hook_duration_seconds` | histogram | `event`, `hook`, `outcome` |
//! | [`CALLS`] `tower_hooks_calls_total` | counter | `event`, `outcome` |
//! | [`CALL_DURATION`] `tower_hooks_call_duration_seconds` | histogram | `event`, `outcome` |
//!
//! * `event` is the event's snake_case name, `hook` the hook's
//!   [label](tower_hooks::HookSpec::label): its `name`, or `source:index` with a
//!   file under `$HOME` shown as `~/…` and one under the project as a relative
//!   path, so that no home directory reaches a metrics backend;
//! * a hook run's `outcome` is its [`RecordOutcome`], the word `hooks test` and the
//!   audit log use too: `allow`, `transform`, `block`, `skipped` (its matcher did
//!   not match), `timeout`, `failed_closed` (it could not run or failed, and its
//!   hook fails closed) or `error` (it could not run and failed open). Hooks the
//!   chain did not reach because an earlier one blocked (`not_run`) are not counted;
//! * a call's `outcome` is the hooks' [`Decision`] —
//!   `allow`, `transform` or `block`, before the advisory layer drops blocks on
//!   events that do not enforce them — or `error` if the service below failed.
//!
//! # Where to put it
//!
//! **Around the whole call** ([`Builder::around_call`](tower_hooks::Builder::around_call)),
//! the recommended place: one layer yields both the per-event call metrics and the
//! per-hook metrics, the latter read from the [`HookRecord`]s of each
//! [`HookOutcome`] (the chain times each hook). Calls while `--no-hooks` is on
//! never reach it and are not counted.
//!
//! **Around each hook** ([`Builder::around_hook`](tower_hooks::Builder::around_hook)):
//! per-hook metrics only, timed by the layer itself and told apart by
//! [`HookRequest::hook`]. The chain skips a hook whose matcher does not match
//! before it reaches the layers around it, so there `skipped` stays at zero. Use it to measure at a given depth of your own hook
//! layers, e.g. below a [`cache`](crate::cache) to count only the runs that were
//! not answered from it.
//!
//! Use one place per [`MetricsHandle`] (or per recorder): in both, each hook run is
//! counted twice.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower::ServiceExt;
//! use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
//! use tower_hooks_layers::metrics::MetricsLayer;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let (metrics, handle) = MetricsLayer::pair();
//! let stack = HookStack::builder()
//!     .fn_hook(
//!         HookSpec::in_process(Event::ToolExecutionStart, "guard").with_matcher("^bash$").unwrap(),
//!         |req: &HookRequest| match req.arguments()["command"].as_str() {
//!             Some(cmd) if cmd.contains("rm -rf") => Verdict::block("no rm -rf here"),
//!             _ => Verdict::Allow,
//!         },
//!     )
//!     .around_call(metrics)
//!     .build();
//!
//! for (tool, command) in [("bash", "ls"), ("bash", "rm -rf /"), ("read", "rm -rf")] {
//!     let req = HookRequest::tool_execution_start(tool, json!({ "command": command }));
//!     stack.clone().oneshot(req).await.unwrap();
//! }
//!
//! let snapshot = handle.snapshot();
//! let guard = snapshot.hook(Event::ToolExecutionStart, "guard:0").unwrap();
//! assert_eq!((guard.counts.allow, guard.counts.block, guard.counts.skipped), (1, 1, 1));
//! let calls = snapshot.event(Event::ToolExecutionStart).unwrap();
//! assert_eq!((calls.counts.allow, calls.counts.block), (2, 1));
//! assert_eq!(calls.latency.count, 3);
//! # }
//! ```
//!
//! # Caveats
//!
//! Each measured call costs a few small allocations (the labels), on top of the
//! recorder's own cost; the in-process snapshot takes a lock per call. Both are
//! lost in the 1 ms a command hook takes to spawn, but they are not free on events
//! with no hook configured. A call dropped before it answered (the agent was
//! cancelled) is not counted.

mod future;
mod snapshot;

use std::sync::Arc;
use std::task::{Context, Poll};

use tower_hooks::{HookOutcome, HookRequest, RecordOutcome, Verdict};
use tower_layer::Layer;
use tower_service::Service;

#[cfg(doc)]
use tower_hooks::{Decision, HookRecord};

pub use self::future::ResponseFuture;
pub use self::snapshot::{CallStats, Counts, HookStats, Latency, Snapshot};

use self::sealed::Probe;
use self::snapshot::Registry;

/// Counter of hook runs; labels `event`, `hook`, `outcome`.
pub const HOOK_RUNS: &str = "tower_hooks_hook_runs_total";
/// Histogram of hook run durations, in seconds; labels `event`, `hook`, `outcome`.
pub const HOOK_DURATION: &str = "tower_hooks_hook_duration_seconds";
/// Counter of calls through the stack; labels `event`, `outcome`.
pub const CALLS: &str = "tower_hooks_calls_total";
/// Histogram of call durations, in seconds; labels `event`, `outcome`.
pub const CALL_DURATION: &str = "tower_hooks_call_duration_seconds";

/// Describes the four metrics (help text and units) to the installed recorder.
///
/// Every [`MetricsLayer`] does this when it wraps a service; call it yourself if
/// you install the recorder later.
pub fn describe() {
    use ::metrics::Unit;
    ::metrics::describe_counter!(
        HOOK_RUNS,
        Unit::Count,
        "Hook runs, by event, hook and outcome."
    );
    ::metrics::describe_histogram!(
        HOOK_DURATION,
        Unit::Seconds,
        "How long each hook run took, by event, hook and outcome."
    );
    ::metrics::describe_counter!(
        CALLS,
        Unit::Count,
        "Lifecycle events run through the hooks, by event and decision."
    );
    ::metrics::describe_histogram!(
        CALL_DURATION,
        Unit::Seconds,
        "How long the hooks of one event took together, by event and decision."
    );
}

/// The values of the `outcome` label, in the order the [`Snapshot`] table shows
/// them: every [`RecordOutcome`] but `not_run`, which is not counted.
pub const OUTCOMES: [RecordOutcome; 8] = [
    RecordOutcome::Allow,
    RecordOutcome::Transform,
    RecordOutcome::Block,
    RecordOutcome::Ask,
    RecordOutcome::Skipped,
    RecordOutcome::Timeout,
    RecordOutcome::FailedClosed,
    RecordOutcome::Error,
];

/// Applies [`Metrics`] to services. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct MetricsLayer {
    registry: Option<Arc<Registry>>,
}

impl MetricsLayer {
    /// A layer that reports through the `metrics` facade only.
    pub const fn new() -> Self {
        MetricsLayer { registry: None }
    }

    /// A layer that also keeps an in-process snapshot, and the handle that reads it.
    pub fn pair() -> (MetricsLayer, MetricsHandle) {
        let registry = Arc::new(Registry::default());
        let layer = MetricsLayer {
            registry: Some(registry.clone()),
        };
        (layer, MetricsHandle { registry })
    }

    /// A layer that adds to the snapshot of an existing handle (and reports
    /// through the facade).
    pub fn with_handle(handle: &MetricsHandle) -> Self {
        MetricsLayer {
            registry: Some(handle.registry.clone()),
        }
    }
}

impl<S> Layer<S> for MetricsLayer {
    type Service = Metrics<S>;

    fn layer(&self, inner: S) -> Self::Service {
        describe();
        Metrics {
            inner,
            registry: self.registry.clone(),
        }
    }
}

/// Reads the in-process snapshot of a [`MetricsLayer::pair`]. Clones share it.
#[derive(Debug, Clone)]
pub struct MetricsHandle {
    registry: Arc<Registry>,
}

impl MetricsHandle {
    /// Everything counted so far, sorted by event, then hook.
    pub fn snapshot(&self) -> Snapshot {
        self.registry.snapshot()
    }

    /// Forgets everything counted so far (the facade's recorder is not touched).
    pub fn reset(&self) {
        self.registry.reset();
    }
}

/// Counts and times the calls of the service inside. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Metrics<S> {
    inner: S,
    registry: Option<Arc<Registry>>,
}

impl<S> Metrics<S> {
    /// Wraps `inner`, reporting through the facade only.
    pub fn new(inner: S) -> Self {
        MetricsLayer::new().layer(inner)
    }

    /// A layer reporting through the facade only; see [`MetricsLayer::pair`] for a snapshot.
    pub const fn layer() -> MetricsLayer {
        MetricsLayer::new()
    }

    define_inner_service_accessors!();
}

impl<S> Service<HookRequest> for Metrics<S>
where
    S: Service<HookRequest>,
    S::Response: Measured,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    // poll_ready: pass through.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let probe = Probe::new(
            req.event(),
            req.hook().map(|spec| spec.label()),
            req.hook().is_some_and(|spec| spec.fail_closed()),
            self.registry.clone(),
        );
        ResponseFuture::new(self.inner.call(req), probe)
    }
}

/// What [`Metrics`] can measure: a hook's [`Verdict`] (around each hook) or the
/// stack's [`HookOutcome`] (around the call). Sealed.
pub trait Measured: sealed::Sealed {}

impl Measured for Verdict {}
impl Measured for HookOutcome {}

mod sealed {
    use std::sync::Arc;
    use std::time::Duration;

    use ::metrics::Label;
    use tokio::time::Instant;
    use tower_hooks::{Event, HookOutcome, RecordOutcome, Verdict};

    use super::snapshot::Registry;
    use super::{CALLS, CALL_DURATION, HOOK_DURATION, HOOK_RUNS};

    #[allow(unreachable_pub)]
    pub trait Sealed {
        /// Records an answer.
        fn record(&self, probe: &Probe);
        /// Records a failure of the service below.
        fn record_error(probe: &Probe);
    }

    impl Sealed for Verdict {
        fn record(&self, probe: &Probe) {
            probe.hook_run(self.record_outcome());
        }

        /// The fail-open layer outside turns the error into a block for a hook
        /// that fails closed, and into an allow otherwise.
        fn record_error(probe: &Probe) {
            probe.hook_run(if probe.fail_closed {
                RecordOutcome::FailedClosed
            } else {
                RecordOutcome::Error
            });
        }
    }

    impl Sealed for HookOutcome {
        fn record(&self, probe: &Probe) {
            probe.call(RecordOutcome::from(self.decision()));
            for record in self.hooks() {
                if record.outcome() != RecordOutcome::NotRun {
                    let spec = record.spec();
                    let hook = spec.label();
                    probe.sample(&hook, record.outcome(), record.duration());
                }
            }
        }

        fn record_error(probe: &Probe) {
            probe.call(RecordOutcome::Error);
        }
    }

    /// One call being measured.
    #[allow(unreachable_pub)]
    #[derive(Debug)]
    pub struct Probe {
        started: Instant,
        event: Event,
        hook: Option<String>,
        /// Whether the hook (around each hook) fails closed.
        fail_closed: bool,
        registry: Option<Arc<Registry>>,
    }

    impl Probe {
        pub(super) fn new(
            event: Event,
            hook: Option<String>,
            fail_closed: bool,
            registry: Option<Arc<Registry>>,
        ) -> Self {
            Probe {
                started: Instant::now(),
                event,
                hook,
                fail_closed,
                registry,
            }
        }

        /// A hook run timed by this probe (the layer sits around a hook).
        fn hook_run(&self, outcome: RecordOutcome) {
            let hook = self.hook.as_deref().unwrap_or("");
            self.sample(hook, outcome, self.started.elapsed());
        }

        /// A hook run timed by the chain.
        fn sample(&self, hook: &str, outcome: RecordOutcome, duration: Duration) {
            let labels = [
                Label::new("event", self.event.name()),
                Label::new("hook", hook.to_owned()),
                Label::new("outcome", outcome.as_str()),
            ];
            ::metrics::counter!(HOOK_RUNS, labels.iter()).increment(1);
            ::metrics::histogram!(HOOK_DURATION, labels.iter()).record(duration.as_secs_f64());
            if let Some(registry) = &self.registry {
                registry.hook_run(self.event, hook, outcome, duration);
            }
        }

        /// The whole call (the layer sits around the call).
        fn call(&self, outcome: RecordOutcome) {
            let duration = self.started.elapsed();
            let labels = [
                Label::new("event", self.event.name()),
                Label::new("outcome", outcome.as_str()),
            ];
            ::metrics::counter!(CALLS, labels.iter()).increment(1);
            ::metrics::histogram!(CALL_DURATION, labels.iter()).record(duration.as_secs_f64());
            if let Some(registry) = &self.registry {
                registry.call(self.event, outcome, duration);
            }
        }
    }
}
