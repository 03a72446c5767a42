//! Middleware that drops, and reports, a block on an event that cannot enforce it.
//!
//! Only `before_agent_start`, `input` and `tool_execution_start` can stop
//! anything. A block from a hook on any other event is discarded — by design on
//! the four session and compaction events, by the call site on `turn_start`,
//! `turn_end`, `message_end` and `tool_execution_end` — but it is reported, so a
//! hook that blocks is not indistinguishable from one that ran clean:
//!
//! ```text
//! nanopi: TurnStart hook asked to block; ignored (advisory event) [reason=...]
//! ```
//!
//! [`Advisory`] marks such an outcome as not honored
//! ([`HookOutcome::is_honored`] is `false`, [`HookOutcome::is_blocked`] too) and
//! reports it. Transforms taken before the dropped block stay.
//!
//! A hook of a dialect that decides per event what its block does follows its
//! own rule instead, whatever the event's policy, and without the report line:
//! a Claude Code `PreCompact` block prevents the compaction, and a Claude Code
//! `PostToolUse` block is not honored (its reason reaches the model as context).
//! The hook says so in its notes ([`Notes::block_honored`](crate::Notes::block_honored));
//! the layer names no dialect.
//!
//! # Example
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use tower::{ServiceBuilder, ServiceExt};
//! use tower_hooks::layer::advisory::AdvisoryLayer;
//! use tower_hooks::report::Notice;
//! use tower_hooks::{Decision, HookRequest, HookSpec, Event, HookStack, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let lines = Arc::new(Mutex::new(Vec::new()));
//! let sink = lines.clone();
//! // The builder puts an Advisory layer in every stack.
//! let stack = HookStack::builder()
//!     .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")))
//!     .fn_hook(HookSpec::in_process(Event::TurnStart, "blocker"), |_req| Verdict::block("stop"))
//!     .build();
//!
//! let outcome = stack.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
//! assert_eq!(outcome.decision(), Decision::Block);
//! assert!(!outcome.is_blocked());
//! assert_eq!(
//!     lines.lock().unwrap()[0],
//!     "nanopi: TurnStart hook asked to block; ignored (advisory event) [reason=stop]"
//! );
//! # let _ = AdvisoryLayer::new(());
//! # }
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project::pin_project;
use tower_layer::Layer;
use tower_service::Service;

use crate::outcome::{Decision, HookOutcome, DEFAULT_BLOCK_REASON};
use crate::report::{Notice, Report};
use crate::request::HookRequest;

/// Drops and reports blocks the event cannot enforce. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Advisory<S, R> {
    inner: S,
    report: R,
}

impl<S, R> Advisory<S, R> {
    /// Wraps `inner`, reporting through `report`.
    pub const fn new(inner: S, report: R) -> Self {
        Advisory { inner, report }
    }

    /// A layer reporting through `report`.
    pub const fn layer(report: R) -> AdvisoryLayer<R> {
        AdvisoryLayer::new(report)
    }

    define_inner_service_accessors!();
}

impl<S, R> Service<HookRequest> for Advisory<S, R>
where
    S: Service<HookRequest, Response = HookOutcome>,
    R: Report + Clone,
{
    type Response = HookOutcome;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future, R>;

    // poll_ready: pass through.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        // Only events that drop blocks can have something to report.
        let report = req
            .event()
            .block_policy()
            .drops_blocks()
            .then(|| self.report.clone());
        ResponseFuture {
            future: self.inner.call(req),
            report,
        }
    }
}

/// Applies [`Advisory`] to services. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct AdvisoryLayer<R> {
    report: R,
}

impl<R> AdvisoryLayer<R> {
    /// A layer reporting through `report`.
    pub const fn new(report: R) -> Self {
        AdvisoryLayer { report }
    }
}

impl<S, R: Clone> Layer<S> for AdvisoryLayer<R> {
    type Service = Advisory<S, R>;

    fn layer(&self, inner: S) -> Self::Service {
        Advisory::new(inner, self.report.clone())
    }
}

/// The response future of [`Advisory`].
#[pin_project]
#[derive(Debug)]
pub struct ResponseFuture<F, R> {
    #[pin]
    future: F,
    report: Option<R>,
}

impl<F, E, R> Future for ResponseFuture<F, R>
where
    F: Future<Output = Result<HookOutcome, E>>,
    R: Report,
{
    type Output = Result<HookOutcome, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut outcome = ready!(this.future.poll(cx))?;
        if outcome.decision() != Decision::Block || !outcome.is_honored() {
            return Poll::Ready(Ok(outcome));
        }
        // A hook whose dialect decides per event what its block does (the
        // first that blocked speaks for its group) overrides the event's policy.
        match outcome.block_honored() {
            Some(true) => {}
            Some(false) => outcome.drop_decision(),
            // `report` is set only for events that drop blocks.
            None => {
                if let Some(report) = this.report.as_ref() {
                    outcome.drop_decision();
                    report.report(&Notice::AdvisoryBlock {
                        event: outcome.event(),
                        reason: outcome.reason().unwrap_or(DEFAULT_BLOCK_REASON),
                    });
                }
            }
        }
        Poll::Ready(Ok(outcome))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::outcome::{HookRecord, Records, Verdict};
    use crate::spec::HookSpec;
    use serde_json::json;
    use std::convert::Infallible;
    use std::sync::{Arc, Mutex};
    use tower::{service_fn, ServiceExt};

    /// An inner service whose hooks all answered `verdict`.
    fn answering(
        verdict: Verdict,
    ) -> impl Service<HookRequest, Response = HookOutcome, Error = Infallible> + Clone {
        service_fn(move |req: HookRequest| {
            let verdict = verdict.clone();
            async move {
                let event = req.event();
                let (decision, reason) = match &verdict {
                    Verdict::Block { reason, .. } => (Decision::Block, Some(reason.clone())),
                    _ => (Decision::Allow, None),
                };
                let spec = Arc::new(HookSpec::in_process(event, "t"));
                let records: Records = [HookRecord::new(spec, &verdict, Default::default())]
                    .into_iter()
                    .collect();
                Ok::<_, Infallible>(HookOutcome::from_parts(
                    event,
                    decision,
                    true,
                    reason,
                    Arc::new(req.arguments().clone()),
                    records,
                ))
            }
        })
    }

    fn collector() -> (Arc<Mutex<Vec<String>>>, Arc<dyn Report>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let report: Arc<dyn Report> =
            Arc::new(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")));
        (lines, report)
    }

    #[tokio::test]
    async fn block_on_every_non_enforcing_event_is_dropped_and_reported() {
        for event in Event::ALL {
            let (lines, report) = collector();
            let out = Advisory::new(answering(Verdict::block("why")), report)
                .oneshot(HookRequest::new(event, json!({})))
                .await
                .unwrap();
            assert_eq!(out.decision(), Decision::Block);
            let lines = lines.lock().unwrap();
            if event.block_policy().drops_blocks() {
                assert!(!out.is_honored(), "{event}");
                assert!(!out.is_blocked(), "{event}");
                assert_eq!(out.message(), None);
                assert_eq!(
                    *lines,
                    [format!(
                        "nanopi: {} hook asked to block; ignored (advisory event) [reason=why]",
                        event.camel_name()
                    )]
                );
            } else {
                assert!(out.is_blocked(), "{event}");
                assert!(lines.is_empty(), "{event}: {lines:?}");
            }
        }
    }

    #[tokio::test]
    async fn a_multi_line_reason_is_reported_on_one_line() {
        let (lines, report) = collector();
        let verdict = Verdict::block("line one\nline two\r\nline three");
        Advisory::new(answering(verdict), report)
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert_eq!(
            *lines.lock().unwrap(),
            [
                "nanopi: TurnStart hook asked to block; ignored (advisory event) \
              [reason=line one line two line three]"
            ]
        );
    }

    #[tokio::test]
    async fn allow_is_never_reported() {
        let (lines, report) = collector();
        let out = Advisory::new(answering(Verdict::Allow), report)
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert!(out.is_honored());
        assert!(lines.lock().unwrap().is_empty());
    }
}
