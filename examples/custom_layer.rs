//! Run with: cargo run --example custom_layer
//!
//! Writes a small tower middleware of its own, a `Timing` service and its
//! `TimingLayer` that count calls, add up their time and tally their answers,
//! and puts it in the two
//! places a layer can sit inside a hook stack: around the whole call
//! (`Builder::around_call`, one measurement per event that gets past the
//! `--no-hooks` gate, whatever its hooks did) and around each hook
//! (`Builder::around_hook`, one measurement per hook run, skipped hooks
//! included). It fires a few events through a stack of two bash hooks and an
//! in-process one, then prints what each placement measured.

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

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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
        // Around each hook: one measurement per hook, inside its fail-open layer.
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
    for req in events {
        let outcome = stack.clone().oneshot(req).await?;
        println!(
            "{:<22} {:<9} {}",
            outcome.event().name(),
            outcome.decision().as_str(),
            outcome.reason().unwrap_or("")
        );
    }

    print_stats(
        "around the whole call (Builder::around_call): every event past the gate",
        &per_call,
    );
    print_stats(
        "around each hook (Builder::around_hook): every hook of the event, skipped ones too",
        &per_hook,
    );
    println!(
        "\nThe guard's layer saw it skip the `read` call (its matcher is ^bash$); the \
         `slow` hook's layer saw two runs, not three: after the guard's block it did not run."
    );
    Ok(())
}

fn print_stats(title: &str, stats: &Stats) {
    println!("\n{title}");
    for (label, tally) in stats.lock().unwrap().iter() {
        let answers: Vec<String> = tally
            .answers
            .iter()
            .map(|(kind, n)| format!("{kind} ×{n}"))
            .collect();
        println!(
            "  {label:<50} {:>7.2} ms mean  {}",
            tally.total.as_secs_f64() * 1000.0 / f64::from(tally.calls),
            answers.join(", ")
        );
    }
}
