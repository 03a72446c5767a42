//! Run with: cargo run --example custom_layer
//!
//! Writes a small tower middleware of its own, a `Timing` service and its
//! `TimingLayer` that count calls, add up their time and tally their answers,
//! and puts it in the two places a layer can sit inside a hook stack: around
//! the whole call (`Builder::around_call`: one measurement per event that gets
//! past the `--no-hooks` gate, whatever its hooks did) and around each hook
//! (`Builder::around_hook`: one measurement per hook that runs). The stack
//! decides which hooks run before any per-hook layer is reached: a hook whose
//! matcher does not match the event is skipped, and the hooks after a block are
//! not run, so their layers never see those requests; the outcome's per-hook
//! records still list them. It fires a few events through a stack of two bash
//! hooks and an in-process one, then prints each outcome with its records and
//! what each placement measured. `tests/examples` runs it and asserts that output.
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use pin_project::pin_project;
use serde_json::json;
use tokio::time::Instant;
use tower::{Layer, Service, ServiceBuilder, ServiceExt};
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack, Verdict};

/// What was measured, per label.
type Stats = Arc<Mutex<BTreeMap<String, Tally>>>;

#[derive(Debug, Default)]
struct Tally {
    calls: u32,
    total: Duration,
    answers: BTreeMap<&'static str, u32>,
}

/// What the layer reads from an answer: around the call it gets the
/// `HookOutcome`, around one hook that hook's `Verdict`.
trait Answer {
    fn kind(&self) -> &'static str;
}

impl Answer for HookOutcome {
    fn kind(&self) -> &'static str {
        self.decision().as_str()
    }
}

impl Answer for Verdict {
    fn kind(&self) -> &'static str {
        self.record_outcome().as_str()
    }
}

/// Measures each request through the service it wraps. Works wherever a
/// `Service<HookRequest>` sits: around the call (it answers a `HookOutcome`) or
/// around one hook (it answers a `Verdict`).
#[derive(Debug, Clone)]
struct Timing<S> {
    inner: S,
    place: Place,
    stats: Stats,
}

#[derive(Debug, Clone, Copy)]
enum Place {
    Call,
    Hook,
}

#[derive(Debug, Clone)]
struct TimingLayer {
    place: Place,
    stats: Stats,
}

impl TimingLayer {
    fn new(place: Place, stats: Stats) -> Self {
        TimingLayer { place, stats }
    }
}

impl<S> Layer<S> for TimingLayer {
    type Service = Timing<S>;

    fn layer(&self, inner: S) -> Timing<S> {
        Timing {
            inner,
            place: self.place,
            stats: self.stats.clone(),
        }
    }
}

impl<S> Service<HookRequest> for Timing<S>
where
    S: Service<HookRequest>,
    S::Response: Answer,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = TimingFuture<S::Future>;

    // poll_ready: pass through.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let label = match (self.place, req.hook()) {
            // Around each hook, the request says which hook is about to run.
            (Place::Hook, Some(hook)) => format!(
                "{} {} (matcher {})",
                req.event(),
                hook.source(),
                hook.matcher().unwrap_or("*")
            ),
            _ => req.event().to_string(),
        };
        TimingFuture {
            inner: self.inner.call(req),
            started: Instant::now(),
            label: Some(label),
            stats: self.stats.clone(),
        }
    }
}

#[pin_project]
#[derive(Debug)]
struct TimingFuture<F> {
    #[pin]
    inner: F,
    started: Instant,
    label: Option<String>,
    stats: Stats,
}

impl<F, R, E> Future for TimingFuture<F>
where
    F: Future<Output = Result<R, E>>,
    R: Answer,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let output = std::task::ready!(this.inner.poll(cx));
        if let Some(label) = this.label.take() {
            let mut stats = this.stats.lock().unwrap();
            let tally = stats.entry(label).or_default();
            tally.calls += 1;
            tally.total += this.started.elapsed();
            let kind = match &output {
                Ok(answer) => answer.kind(),
                Err(_) => "error",
            };
            *tally.answers.entry(kind).or_default() += 1;
        }
        Poll::Ready(output)
    }
}

/// What one run of the example saw.
#[derive(Debug)]
pub(crate) struct Report {
    /// One line per event: its name, the decision, the block reason, and what
    /// each of its hooks did (`source: outcome`).
    pub(crate) outcomes: Vec<String>,
    /// What the layer around the whole call measured, per event.
    pub(crate) per_call: Vec<Measured>,
    /// What the layer around each hook measured, per hook.
    pub(crate) per_hook: Vec<Measured>,
}

/// What one placement of the layer measured for one label.
#[derive(Debug)]
pub(crate) struct Measured {
    pub(crate) label: String,
    pub(crate) mean: Duration,
    /// The answers it saw and how often, e.g. `allow ×2, block ×1`.
    pub(crate) answers: String,
}

/// Builds the stack, fires the events, and returns what was seen.
pub(crate) async fn run() -> Result<Report, Box<dyn std::error::Error>> {
    let per_call = Stats::default();
    let per_hook = Stats::default();

    let stack = HookStack::builder()
        .command_hook(
            HookSpec::command(
                Event::ToolExecutionStart,
                r#"grep -q 'rm -rf' && { echo "no rm -rf" >&2; exit 2; }; exit 0"#,
            )
            .with_source("guard (bash)", 0)
            .with_matcher("^bash$")?,
        )
        .command_hook(
            HookSpec::command(Event::ToolExecutionStart, "sleep 0.05")
                .with_source("slow (bash)", 1),
        )
        .fn_hook(
            HookSpec::in_process(Event::TurnStart, "first-turn (in-process)")
                .with_matcher("^1$")?,
            |_req| Verdict::Allow,
        )
        // Around the whole call: one measurement per event.
        .around_call(ServiceBuilder::new().layer(TimingLayer::new(Place::Call, per_call.clone())))
        // Around each hook that runs: one measurement per run, inside its fail-open layer.
        .around_hook(ServiceBuilder::new().layer(TimingLayer::new(Place::Hook, per_hook.clone())))
        .build();

    let events = [
        HookRequest::turn_start(1, 0),
        HookRequest::tool_execution_start("bash", json!({"command": "ls"})),
        HookRequest::tool_execution_start("bash", json!({"command": "rm -rf /"})),
        HookRequest::tool_execution_start("read", json!({"path": "README.md"})),
        HookRequest::turn_end(1, 0, true),
        HookRequest::turn_start(2, 0),
    ];
    let mut outcomes = Vec::new();
    for req in events {
        let outcome = stack.clone().oneshot(req).await?;
        let records: Vec<String> = outcome
            .hooks()
            .iter()
            .map(|record| format!("{}: {}", record.spec().source(), record.outcome().as_str()))
            .collect();
        outcomes.push(format!(
            "{:<22} {:<9} {:<10} [{}]",
            outcome.event().name(),
            outcome.decision().as_str(),
            outcome.reason().unwrap_or("-"),
            records.join(", ")
        ));
    }

    Ok(Report {
        outcomes,
        per_call: measured(&per_call),
        per_hook: measured(&per_hook),
    })
}

fn measured(stats: &Stats) -> Vec<Measured> {
    stats
        .lock()
        .unwrap()
        .iter()
        .map(|(label, tally)| Measured {
            label: label.clone(),
            mean: tally.total / tally.calls,
            answers: tally
                .answers
                .iter()
                .map(|(kind, n)| format!("{kind} ×{n}"))
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let report = run().await?;
    println!(
        "{:<22} {:<9} {:<10} [each hook: its record]",
        "event", "decision", "reason"
    );
    for line in &report.outcomes {
        println!("{line}");
    }
    print_measured(
        "around the whole call (Builder::around_call): every event past the gate",
        &report.per_call,
    );
    print_measured(
        "around each hook (Builder::around_hook): only the hooks that ran",
        &report.per_hook,
    );
    println!(
        "\nOf the three tool calls, the guard's layer measured two (`ls`, `rm -rf`): the \
         stack skipped the guard for `read` (its matcher is ^bash$) before reaching its \
         layers. The `slow` hook's layer measured two (`ls`, `read`): after the guard's \
         block it did not run. The in-process hook ran on turn 1 only. The records above \
         still list every hook, skipped and not run ones included, and the layer around \
         the call saw all six events."
    );
    Ok(())
}

fn print_measured(title: &str, measured: &[Measured]) {
    println!("\n{title}");
    for m in measured {
        println!(
            "  {:<50} {:>7.2} ms mean  {}",
            m.label,
            m.mean.as_secs_f64() * 1000.0,
            m.answers
        );
    }
}
