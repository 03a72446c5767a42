//! Middleware that turns a hook that cannot run into "allow", and says so.
//!
//! A hook whose command cannot be spawned (no `bash`, a failed `fork`, an I/O
//! error on its pipes) is infrastructure failure, not policy: nanopi allows the
//! action and prints
//!
//! ```text
//! nanopi: hook errored; failing open (allow) [tool=bash matcher=* error=...]
//! ```
//!
//! [`FailOpen`] does exactly that for any inner error, through a
//! [`Report`]. A hook configured with `fail_closed = true`
//! blocks instead, with a reason that says it failed closed and why.
//!
//! One error is not a failure: tower's
//! [`Elapsed`](tower::timeout::error::Elapsed), found anywhere in the error's
//! [`source`](std::error::Error::source) chain, means a
//! `tower::timeout::Timeout` below gave up on the hook. That is the hook's
//! timeout, so the answer is the hook's timeout block
//! ([`Verdict::timed_out`] with the hook's `timeout`), as if its own deadline
//! had passed: a slow guard refuses, it is never waved through.
//!
//! Its error type is [`Infallible`]: below a `FailOpen`, nothing can fail the call.
//!
//! # Example
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use serde_json::json;
//! use tower::{service_fn, ServiceBuilder, ServiceExt};
//! use tower_hooks::layer::fail_open::FailOpenLayer;
//! use tower_hooks::report::Notice;
//! use tower_hooks::{BoxError, HookRequest, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let lines = Arc::new(Mutex::new(Vec::new()));
//! let sink = lines.clone();
//! let hook = ServiceBuilder::new()
//!     .layer(FailOpenLayer::new(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi"))))
//!     .service(service_fn(|_req: HookRequest| async {
//!         Err::<Verdict, BoxError>("no bash on PATH".into())
//!     }));
//!
//! let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
//! let verdict = hook.oneshot(req).await.unwrap();
//! assert!(matches!(verdict, Verdict::FailedOpen { .. }));
//! assert_eq!(
//!     lines.lock().unwrap()[0],
//!     "nanopi: hook errored; failing open (allow) [tool=bash matcher=* error=no bash on PATH]"
//! );
//! # }
//! ```

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use pin_project::pin_project;
use tower_layer::Layer;
use tower_service::Service;

use crate::outcome::Verdict;
use crate::report::{one_line, Notice, Report};
use crate::request::HookRequest;
use crate::spec::{HookSpec, DEFAULT_TIMEOUT};
use crate::BoxError;

/// Turns inner errors into [`Verdict::FailedOpen`] (or a fail-closed block). See the [module docs](self).
#[derive(Debug, Clone)]
pub struct FailOpen<S, R> {
    inner: S,
    report: R,
    ready_error: Option<Failed>,
}

impl<S, R> FailOpen<S, R> {
    /// Wraps `inner`, reporting through `report`.
    pub fn new(inner: S, report: R) -> Self {
        FailOpen {
            inner,
            report,
            ready_error: None,
        }
    }

    /// A layer that wraps services with this reporter.
    pub fn layer(report: R) -> FailOpenLayer<R> {
        FailOpenLayer::new(report)
    }

    define_inner_service_accessors!();
}

impl<S, R> Service<HookRequest> for FailOpen<S, R>
where
    S: Service<HookRequest, Response = Verdict>,
    S::Error: Into<BoxError>,
    R: Report + Clone,
{
    type Response = Verdict;
    type Error = Infallible;
    type Future = ResponseFuture<S::Future, R>;

    // poll_ready: pass through; an inner readiness error is kept and answered by
    // the next call, so the caller still gets a verdict.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.ready_error.is_some() {
            return Poll::Ready(Ok(()));
        }
        if let Err(err) = ready!(self.inner.poll_ready(cx)) {
            self.ready_error = Some(Failed::of(&*err.into()));
        }
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let context = Failure {
            started: tokio::time::Instant::now(),
            tool: req.shared_tool_name().cloned(),
            hook: req.hook().cloned(),
            deadline: req.deadline().map(|d| d.timeout),
            report: self.report.clone(),
        };
        let kind = match self.ready_error.take() {
            Some(failed) => Kind::NotReady {
                failed: Some(failed),
            },
            None => Kind::Called {
                future: self.inner.call(req),
            },
        };
        ResponseFuture {
            kind,
            context: Some(context),
        }
    }
}

/// How an inner service failed.
#[derive(Debug, Clone)]
enum Failed {
    /// tower's `Elapsed` is in the error's chain: the hook's timeout.
    TimedOut,
    /// Anything else, as one line.
    Error(Arc<str>),
}

impl Failed {
    fn of(err: &(dyn std::error::Error + 'static)) -> Self {
        if is_elapsed(err) {
            Failed::TimedOut
        } else {
            Failed::Error(error_text(err).into())
        }
    }
}

/// Whether tower's `Elapsed` is `err` or one of its sources.
fn is_elapsed(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(err);
    while let Some(err) = next {
        if err.is::<tower::timeout::error::Elapsed>() {
            return true;
        }
        next = err.source();
    }
    false
}

/// What is needed to report a failure.
#[derive(Debug)]
struct Failure<R> {
    /// When the call reached this layer: a layer that gave up on the hook
    /// is told how long it really waited.
    started: tokio::time::Instant,
    tool: Option<Arc<str>>,
    hook: Option<Arc<HookSpec>>,
    deadline: Option<Duration>,
    report: R,
}

impl<R: Report> Failure<R> {
    fn verdict(self, failed: Failed) -> Verdict {
        let error = match failed {
            Failed::TimedOut => {
                // The hook's timeout (the one its `HookTimeout` enforces), else
                // the request's, else the default.
                let timeout = match (&self.hook, self.deadline) {
                    (Some(hook), _) => hook.timeout(),
                    (None, Some(timeout)) => timeout,
                    (None, None) => DEFAULT_TIMEOUT,
                };
                // A layer that gave up before the hook's own deadline says
                // so, with the time that really passed.
                let waited = self.started.elapsed();
                if waited < timeout {
                    return Verdict::stopped_by_layer(waited, timeout);
                }
                return Verdict::timed_out(timeout);
            }
            Failed::Error(error) => error,
        };
        let error = &*error;
        let matcher = self.hook.as_ref().and_then(|h| h.matcher()).unwrap_or("*");
        let tool = self.tool.as_deref().unwrap_or("");
        if self.hook.as_ref().is_some_and(|h| h.fail_closed()) {
            tracing::warn!(tool, matcher, error, "hook errored; failing closed (block)");
            return Verdict::failed_closed(error);
        }
        self.report.report(&Notice::HookErrored {
            tool,
            matcher,
            error,
        });
        Verdict::FailedOpen {
            error: error.to_owned(),
        }
    }
}

/// Applies [`FailOpen`] to services. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct FailOpenLayer<R> {
    report: R,
}

impl<R> FailOpenLayer<R> {
    /// A layer reporting through `report`.
    pub const fn new(report: R) -> Self {
        FailOpenLayer { report }
    }
}

impl<S, R: Clone> Layer<S> for FailOpenLayer<R> {
    type Service = FailOpen<S, R>;

    fn layer(&self, inner: S) -> Self::Service {
        FailOpen::new(inner, self.report.clone())
    }
}

/// The response future of [`FailOpen`].
#[pin_project]
#[derive(Debug)]
pub struct ResponseFuture<F, R> {
    #[pin]
    kind: Kind<F>,
    context: Option<Failure<R>>,
}

#[pin_project(project = KindProj)]
#[derive(Debug)]
enum Kind<F> {
    Called {
        #[pin]
        future: F,
    },
    NotReady {
        failed: Option<Failed>,
    },
}

impl<F, E, R> Future for ResponseFuture<F, R>
where
    F: Future<Output = Result<Verdict, E>>,
    E: Into<BoxError>,
    R: Report,
{
    type Output = Result<Verdict, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let failed = match this.kind.project() {
            KindProj::Called { future } => match ready!(future.poll(cx)) {
                Ok(verdict) => return Poll::Ready(Ok(verdict)),
                Err(err) => Failed::of(&*err.into()),
            },
            KindProj::NotReady { failed } => failed
                .take()
                .expect("FailOpen future polled after completion"),
        };
        let context = this
            .context
            .take()
            .expect("FailOpen future polled after completion");
        Poll::Ready(Ok(context.verdict(failed)))
    }
}

/// An error and its causes, on one line.
pub(crate) fn error_text(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    match one_line(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(flat) => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::outcome::BlockCause;
    use serde_json::json;
    use std::sync::Mutex;
    use tower::{service_fn, ServiceExt};

    fn collector() -> (Arc<Mutex<Vec<String>>>, impl Report + Clone) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let report = Arc::new(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")));
        (lines, report)
    }

    fn failing() -> impl Service<HookRequest, Response = Verdict, Error = BoxError> + Clone {
        service_fn(|_req: HookRequest| async { Err::<Verdict, BoxError>("spawn failed".into()) })
    }

    #[tokio::test]
    async fn spawn_failure_allows_and_reports_the_spec_line() {
        let (lines, report) = collector();
        let spec = Arc::new(
            HookSpec::command(Event::ToolExecutionStart, "x")
                .with_matcher("^bash$")
                .unwrap(),
        );
        let req = HookRequest::tool_execution_start("bash", json!({})).with_hook(spec);
        let v = FailOpen::new(failing(), report).oneshot(req).await.unwrap();
        assert_eq!(
            v,
            Verdict::FailedOpen {
                error: "spawn failed".into()
            }
        );
        assert_eq!(
            *lines.lock().unwrap(),
            ["nanopi: hook errored; failing open (allow) [tool=bash matcher=^bash$ error=spawn failed]"]
        );
    }

    #[tokio::test]
    async fn without_a_tool_the_tool_field_is_empty() {
        let (lines, report) = collector();
        let req = HookRequest::turn_start(1, 0);
        FailOpen::new(failing(), report).oneshot(req).await.unwrap();
        assert_eq!(
            *lines.lock().unwrap(),
            ["nanopi: hook errored; failing open (allow) [tool= matcher=* error=spawn failed]"]
        );
    }

    #[tokio::test]
    async fn fail_closed_hook_blocks_and_says_why() {
        let (lines, report) = collector();
        let spec =
            Arc::new(HookSpec::command(Event::ToolExecutionStart, "x").with_fail_closed(true));
        let req = HookRequest::tool_execution_start("bash", json!({})).with_hook(spec);
        let v = FailOpen::new(failing(), report).oneshot(req).await.unwrap();
        assert_eq!(
            v,
            Verdict::Block {
                reason: "hook failed closed: spawn failed".into(),
                cause: BlockCause::FailedClosed
            }
        );
        assert!(lines.lock().unwrap().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn towers_elapsed_is_the_hooks_timeout_block_not_an_error() {
        use std::time::Duration;
        // A layer that gives up after `after`.
        let elapsed = |after: Duration| {
            service_fn(move |_req: HookRequest| async move {
                tokio::time::sleep(after).await;
                Err::<Verdict, BoxError>(tower::timeout::error::Elapsed::new().into())
            })
        };
        let (lines, report) = collector();
        let spec = Arc::new(
            HookSpec::command(Event::ToolExecutionStart, "x")
                .with_timeout(Duration::from_millis(700)),
        );
        let req = || HookRequest::tool_execution_start("bash", json!({})).with_hook(spec.clone());
        // Given up on before the hook's own deadline: the time that passed, and who.
        let v = FailOpen::new(elapsed(Duration::from_millis(200)), report.clone())
            .oneshot(req())
            .await
            .unwrap();
        assert_eq!(
            v,
            Verdict::Block {
                reason: "hook timed out after 200 ms: a timeout layer around it stopped it (its \
                         own timeout is 700 ms)"
                    .into(),
                cause: crate::outcome::BlockCause::Timeout,
            }
        );
        // At or past it: the hook's own timeout.
        let v = FailOpen::new(elapsed(Duration::from_millis(700)), report.clone())
            .oneshot(req())
            .await
            .unwrap();
        assert_eq!(v, Verdict::timed_out(Duration::from_millis(700)));
        // Without a hook: the request's deadline, else the default.
        let req = HookRequest::turn_start(1, 0).with_deadline(crate::request::Deadline {
            at: tokio::time::Instant::now(),
            timeout: Duration::from_millis(40),
        });
        let v = FailOpen::new(elapsed(Duration::from_millis(40)), report.clone())
            .oneshot(req)
            .await
            .unwrap();
        assert_eq!(v, Verdict::timed_out(Duration::from_millis(40)));
        let v = FailOpen::new(elapsed(DEFAULT_TIMEOUT), report)
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert_eq!(v, Verdict::timed_out(DEFAULT_TIMEOUT));
        assert!(lines.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn answers_pass_through_untouched() {
        let (lines, report) = collector();
        let inner =
            service_fn(|_req: HookRequest| async { Ok::<_, BoxError>(Verdict::block("no")) });
        let v = FailOpen::new(inner, report)
            .oneshot(HookRequest::input("x"))
            .await
            .unwrap();
        assert_eq!(v, Verdict::block("no"));
        assert!(lines.lock().unwrap().is_empty());
    }
}
