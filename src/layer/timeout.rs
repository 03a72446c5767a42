//! Middleware that makes an overdue hook a block whose reason names the duration.
//!
//! The spec: `timeout` defaults to 5000 ms; on expiry the hook is killed and the
//! outcome is a block. So a hung `tool_execution_start` hook refuses the tool
//! call, and a hung `turn_start` hook costs its timeout and nothing else.
//!
//! [`HookTimeout`] stamps each request with a [`Deadline`]. The hook below
//! honors it: the command runner sends `SIGTERM` to the hook's process group at
//! the deadline, `SIGKILL` after [`KILL_GRACE`], reaps it, and answers the
//! timeout block itself; an in-process hook is dropped at the deadline. For a
//! hook that does not honor deadlines, `HookTimeout` is the backstop: it drops the
//! call [`BACKSTOP`] after the deadline and answers the same block.
//!
//! Not to be confused with `tower::timeout::Timeout`, which fails the call with
//! an `Elapsed` *error*. [`HookTimeout`] answers a *response*, the block the
//! spec asks for, and kills nothing by itself: the deadline it stamps does.
//! (Put tower's around a hook with
//! [`Builder::around_hook`](crate::Builder::around_hook) and its `Elapsed` is
//! turned into this same block by the hook's fail-open layer.)
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use tower::{service_fn, ServiceBuilder, ServiceExt};
//! use tower_hooks::layer::timeout::HookTimeoutLayer;
//! use tower_hooks::{HookRequest, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
//! let hook = ServiceBuilder::new()
//!     .layer(HookTimeoutLayer::new(Duration::from_millis(300)))
//!     .service(service_fn(|_req: HookRequest| async {
//!         std::future::pending::<()>().await;
//!         Ok::<_, std::convert::Infallible>(Verdict::Allow)
//!     }));
//!
//! let verdict = hook.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
//! assert_eq!(verdict, Verdict::timed_out(Duration::from_millis(300)));
//! # }
//! ```
//!
//! # Caveats
//!
//! A hook below `HookTimeout` that ignores [`HookRequest::deadline`] is answered at
//! the deadline plus [`BACKSTOP`], not at the deadline.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use pin_project::pin_project;
use tokio::time::Sleep;
use tower_layer::Layer;
use tower_service::Service;

use crate::outcome::Verdict;
use crate::request::{Deadline, HookRequest};

pub use crate::process::KILL_GRACE;

/// How long after the deadline `HookTimeout` drops a hook that did not answer.
pub const BACKSTOP: Duration = Duration::from_millis(750);

/// Blocks a hook that runs past its timeout. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct HookTimeout<S> {
    inner: S,
    timeout: Duration,
}

impl<S> HookTimeout<S> {
    /// Wraps `inner` with `timeout`.
    pub const fn new(inner: S, timeout: Duration) -> Self {
        HookTimeout { inner, timeout }
    }

    /// A layer with this timeout.
    pub const fn layer(timeout: Duration) -> HookTimeoutLayer {
        HookTimeoutLayer::new(timeout)
    }

    /// The timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    define_inner_service_accessors!();
}

impl<S> Service<HookRequest> for HookTimeout<S>
where
    S: Service<HookRequest, Response = Verdict>,
{
    type Response = Verdict;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    // poll_ready: pass through.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let mut deadline = Deadline::after(self.timeout);
        if let Some(earlier) = req.deadline().filter(|d| d.at <= deadline.at) {
            deadline = earlier;
        }
        ResponseFuture {
            future: self.inner.call(req.with_deadline(deadline)),
            backstop: None,
            deadline,
        }
    }
}

/// Applies [`HookTimeout`] to services. See the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct HookTimeoutLayer {
    timeout: Duration,
}

impl HookTimeoutLayer {
    /// A layer with this timeout.
    pub const fn new(timeout: Duration) -> Self {
        HookTimeoutLayer { timeout }
    }
}

impl<S> Layer<S> for HookTimeoutLayer {
    type Service = HookTimeout<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HookTimeout::new(inner, self.timeout)
    }
}

/// The response future of [`HookTimeout`].
#[pin_project]
#[derive(Debug)]
pub struct ResponseFuture<F> {
    #[pin]
    future: F,
    // Armed at the first `Pending`: a hook that answers at once costs no timer.
    #[pin]
    backstop: Option<Sleep>,
    deadline: Deadline,
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Verdict, E>>,
{
    type Output = Result<Verdict, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        if let Poll::Ready(out) = this.future.poll(cx) {
            return Poll::Ready(out);
        }
        if this.backstop.is_none() {
            // A deadline built by hand may sit at the clock's end: saturate.
            let at = this.deadline.at.checked_add(BACKSTOP);
            let at = at.unwrap_or(this.deadline.at);
            this.backstop.set(Some(tokio::time::sleep_until(at)));
        }
        let backstop = this.backstop.as_pin_mut().expect("armed just above");
        match backstop.poll(cx) {
            Poll::Ready(()) => Poll::Ready(Ok(Verdict::timed_out(this.deadline.timeout))),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;
    use tokio::time::Instant;
    use tower::{service_fn, ServiceExt};

    fn sleeper(
        d: Duration,
    ) -> impl Service<HookRequest, Response = Verdict, Error = Infallible> + Clone {
        service_fn(move |_req: HookRequest| async move {
            tokio::time::sleep(d).await;
            Ok::<_, Infallible>(Verdict::Allow)
        })
    }

    #[tokio::test(start_paused = true)]
    async fn overdue_hook_blocks_with_its_duration() {
        let started = Instant::now();
        let v = HookTimeout::new(
            sleeper(Duration::from_secs(60)),
            Duration::from_millis(5000),
        )
        .oneshot(HookRequest::turn_start(1, 0))
        .await
        .unwrap();
        assert_eq!(v, Verdict::timed_out(Duration::from_millis(5000)));
        assert!(matches!(&v, Verdict::Block { reason, .. } if reason.contains("5000")));
        assert!(started.elapsed() <= Duration::from_millis(5000) + BACKSTOP);
    }

    /// The documented bound, written as numbers rather than as `BACKSTOP`: a
    /// hook that ignores its deadline is answered 750 ms after it, not
    /// sooner (it gets the time to answer itself) and not much later.
    #[tokio::test(start_paused = true)]
    async fn a_hook_that_ignores_its_deadline_is_answered_750_ms_after_it() {
        let started = Instant::now();
        let v = HookTimeout::new(
            sleeper(Duration::from_secs(3600)),
            Duration::from_millis(300),
        )
        .oneshot(HookRequest::turn_start(1, 0))
        .await
        .unwrap();
        assert_eq!(v, Verdict::timed_out(Duration::from_millis(300)));
        let elapsed = started.elapsed();
        assert!(
            elapsed >= Duration::from_millis(1_000) && elapsed <= Duration::from_millis(1_100),
            "answered {elapsed:?} after the call, for a deadline 300 ms after it"
        );
        // An answer before the backstop is the hook's own.
        let v = HookTimeout::new(
            sleeper(Duration::from_millis(900)),
            Duration::from_millis(300),
        )
        .oneshot(HookRequest::turn_start(1, 0))
        .await
        .unwrap();
        assert_eq!(v, Verdict::Allow);
    }

    #[tokio::test(start_paused = true)]
    async fn hook_in_time_answers_itself() {
        let v = HookTimeout::new(
            sleeper(Duration::from_millis(100)),
            Duration::from_millis(300),
        )
        .oneshot(HookRequest::turn_start(1, 0))
        .await
        .unwrap();
        assert_eq!(v, Verdict::Allow);
    }

    #[tokio::test(start_paused = true)]
    async fn request_carries_the_deadline() {
        let inner = service_fn(|req: HookRequest| async move {
            let d = req.deadline().expect("deadline set");
            assert_eq!(d.timeout, Duration::from_millis(300));
            Ok::<_, Infallible>(Verdict::Allow)
        });
        let v = HookTimeout::new(inner, Duration::from_millis(300))
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert_eq!(v, Verdict::Allow);
    }

    #[tokio::test(start_paused = true)]
    async fn an_earlier_deadline_is_kept() {
        let inner = service_fn(|req: HookRequest| async move {
            assert_eq!(req.deadline().unwrap().timeout, Duration::from_millis(100));
            Ok::<_, Infallible>(Verdict::Allow)
        });
        let svc = HookTimeout::new(
            HookTimeout::new(inner, Duration::from_millis(5000)),
            Duration::from_millis(100),
        );
        assert_eq!(
            svc.oneshot(HookRequest::turn_start(1, 0)).await.unwrap(),
            Verdict::Allow
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_timeout_too_long_for_the_clock_saturates() {
        // The sleeper is pending at first, so the backstop is armed too.
        let inner = service_fn(|req: HookRequest| async move {
            let deadline = req.deadline().expect("deadline set");
            assert_eq!(deadline.timeout, Duration::MAX);
            assert!(deadline.at > Instant::now() + Duration::from_secs(86_400 * 365 * 29));
            tokio::time::sleep(Duration::from_secs(86_400)).await;
            Ok::<_, Infallible>(Verdict::Allow)
        });
        let v = HookTimeout::new(inner, Duration::MAX)
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert_eq!(v, Verdict::Allow);
    }
}
