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
//! A hook whose service is not ready (a model evaluator applying
//! back-pressure, a persistent hook whose runs in flight are at their bound)
//! waits for it within the same timeout: the wait starts the hook's clock, and
//! a hook still not ready at its deadline is answered as a timed-out run of its
//! dialect (nanopi's timeout block; a failure, allowed unless the hook fails
//! closed, in the others). A hook that becomes ready in time runs with what is
//! left of its timeout.
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
#[derive(Debug)]
pub struct HookTimeout<S> {
    inner: S,
    timeout: Duration,
    /// A wait for `inner` to be ready: its deadline and timer, armed at the
    /// first `Pending` (a service ready at once costs no timer).
    waiting: Option<Waiting>,
    /// The deadline passed while waiting: the next call answers the timeout.
    expired: Option<Deadline>,
}

/// A wait in `poll_ready` that ends at the hook's deadline.
#[derive(Debug)]
struct Waiting {
    deadline: Deadline,
    timer: Pin<Box<Sleep>>,
}

impl<S: Clone> Clone for HookTimeout<S> {
    /// A clone has no wait of its own yet.
    fn clone(&self) -> Self {
        HookTimeout::new(self.inner.clone(), self.timeout)
    }
}

impl<S> HookTimeout<S> {
    /// Wraps `inner` with `timeout`.
    pub const fn new(inner: S, timeout: Duration) -> Self {
        HookTimeout {
            inner,
            timeout,
            waiting: None,
            expired: None,
        }
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

    // poll_ready: the inner service's, but a wait ends at the hook's
    // deadline (counted from the wait's start): then it is ready, and the call
    // answers the timeout without calling the inner service.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.expired.is_some() {
            return Poll::Ready(Ok(()));
        }
        if let Poll::Ready(ready) = self.inner.poll_ready(cx) {
            return Poll::Ready(ready);
        }
        let timeout = self.timeout;
        let waiting = self.waiting.get_or_insert_with(|| {
            let deadline = Deadline::after(timeout);
            Waiting {
                deadline,
                timer: Box::pin(tokio::time::sleep_until(deadline.at)),
            }
        });
        match waiting.timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.expired = self.waiting.take().map(|w| w.deadline);
                Poll::Ready(Ok(()))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        if let Some(deadline) = self.expired.take() {
            let verdict = not_ready_in_time(&req.with_deadline(deadline));
            return ResponseFuture {
                future: None,
                answered: Some(verdict),
                backstop: None,
                deadline,
            };
        }
        // A hook that waited to be ready has what is left of its timeout.
        let mut deadline = match self.waiting.take() {
            Some(waiting) => waiting.deadline,
            None => Deadline::after(self.timeout),
        };
        if let Some(earlier) = req.deadline().filter(|d| d.at <= deadline.at) {
            deadline = earlier;
        }
        ResponseFuture {
            future: Some(self.inner.call(req.with_deadline(deadline))),
            answered: None,
            backstop: None,
            deadline,
        }
    }
}

/// The answer of a hook whose service was not ready by its deadline: a run
/// of its dialect that timed out (its notes go to the run's slot).
fn not_ready_in_time(req: &HookRequest) -> Verdict {
    let timed_out = crate::process::Finished {
        termination: crate::outcome::Termination::TimedOut,
        stdout: Vec::new(),
        stdout_truncated: false,
        stderr: Vec::new(),
    };
    let timeout = req.deadline().map(|d| d.timeout).unwrap_or_default();
    match crate::dialect::of(req).finish(req.hook().map(|s| &**s), req, Ok(&timed_out)) {
        Ok(answer) => crate::dialect::settle(req, Some(answer), ""),
        Err(_) => Verdict::timed_out(timeout),
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
    future: Option<F>,
    /// The answer given without a call (the hook was not ready in time).
    answered: Option<Verdict>,
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
        let Some(future) = this.future.as_pin_mut() else {
            let verdict = this.answered.take().expect("a timeout future polled again");
            return Poll::Ready(Ok(verdict));
        };
        if let Poll::Ready(out) = future.poll(cx) {
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

    /// Ready from `ready_at` on (never, for `None`); answers the deadline
    /// it was given, as the time left, in a block reason.
    #[derive(Clone)]
    struct ReadyAt(Option<Instant>);

    impl Service<HookRequest> for ReadyAt {
        type Response = Verdict;
        type Error = Infallible;
        type Future = std::future::Ready<Result<Verdict, Infallible>>;

        fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            match self.0 {
                Some(at) if Instant::now() >= at => Poll::Ready(Ok(())),
                Some(at) => {
                    // Wakes itself at `at`, as a semaphore would on a release.
                    let waker = cx.waker().clone();
                    tokio::spawn(async move {
                        tokio::time::sleep_until(at).await;
                        waker.wake();
                    });
                    Poll::Pending
                }
                None => Poll::Pending,
            }
        }

        fn call(&mut self, req: HookRequest) -> Self::Future {
            let left = req.deadline().unwrap().at - Instant::now();
            std::future::ready(Ok(Verdict::block(format!("{}", left.as_millis()))))
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_wait_to_be_ready_ends_at_the_deadline() {
        let started = Instant::now();
        let v = HookTimeout::new(ReadyAt(None), Duration::from_millis(300))
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert_eq!(v, Verdict::timed_out(Duration::from_millis(300)));
        assert_eq!(started.elapsed(), Duration::from_millis(300));
    }

    #[tokio::test(start_paused = true)]
    async fn a_hook_ready_late_runs_with_the_time_left() {
        let ready = Instant::now() + Duration::from_millis(200);
        let v = HookTimeout::new(ReadyAt(Some(ready)), Duration::from_millis(300))
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert_eq!(v, Verdict::block("100"));
        // Ready at once: the whole timeout.
        let v = HookTimeout::new(ReadyAt(Some(Instant::now())), Duration::from_millis(300))
            .oneshot(HookRequest::turn_start(1, 0))
            .await
            .unwrap();
        assert_eq!(v, Verdict::block("300"));
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
