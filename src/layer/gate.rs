//! Middleware for `--no-hooks`: when closed, nothing below it runs.
//!
//! The emergency switch of the spec gates every call site, the session ones
//! included. A closed [`Gate`] answers "allow" with the arguments unchanged at
//! once, without calling (or even polling) the service below; it allocates
//! nothing. [`GateLayer::pair`] gives a [`GateHandle`] that flips the gate at run
//! time, for every clone of the stack at once.
//!
//! # Example
//!
//! ```
//! use std::convert::Infallible;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use std::sync::Arc;
//! use tower::{service_fn, ServiceBuilder, ServiceExt};
//! use tower_hooks::layer::gate::GateLayer;
//! use tower_hooks::{Decision, HookOutcome, HookRequest};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let calls = Arc::new(AtomicUsize::new(0));
//! let seen = calls.clone();
//! let (layer, handle) = GateLayer::pair();
//! let stack = ServiceBuilder::new().layer(layer).service(service_fn(move |req: HookRequest| {
//!     seen.fetch_add(1, Ordering::SeqCst);
//!     async move { Ok::<_, Infallible>(HookOutcome::allow(req)) }
//! }));
//!
//! handle.set_no_hooks(true);
//! let outcome = stack.oneshot(HookRequest::input("hi")).await.unwrap();
//! assert_eq!(outcome.decision(), Decision::Allow);
//! assert_eq!(calls.load(Ordering::SeqCst), 0);
//! # }
//! ```

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use pin_project::pin_project;
use tower_layer::Layer;
use tower_service::Service;

use crate::outcome::HookOutcome;
use crate::request::HookRequest;

/// Flips a [`Gate`] at run time. Clones share the switch.
#[derive(Debug, Clone, Default)]
pub struct GateHandle {
    closed: Arc<AtomicBool>,
}

impl GateHandle {
    /// A handle whose gate starts open (`no_hooks = false`) or closed.
    pub fn new(no_hooks: bool) -> Self {
        GateHandle {
            closed: Arc::new(AtomicBool::new(no_hooks)),
        }
    }

    /// Turns every hook off (`true`) or back on (`false`).
    pub fn set_no_hooks(&self, no_hooks: bool) {
        self.closed.store(no_hooks, Ordering::Relaxed);
    }

    /// Whether hooks are off.
    pub fn no_hooks(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

/// Answers "allow" at once while hooks are off. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Gate<S> {
    inner: S,
    handle: GateHandle,
    // The state seen by the last `poll_ready`, so that `call` agrees with it.
    closed_when_ready: bool,
}

impl<S> Gate<S> {
    /// Wraps `inner`, switched by `handle`.
    pub fn new(inner: S, handle: GateHandle) -> Self {
        Gate {
            inner,
            handle,
            closed_when_ready: false,
        }
    }

    /// The switch.
    pub fn handle(&self) -> &GateHandle {
        &self.handle
    }

    define_inner_service_accessors!();
}

impl<S> Service<HookRequest> for Gate<S>
where
    S: Service<HookRequest, Response = HookOutcome>,
{
    type Response = HookOutcome;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    // poll_ready: short-circuit ready while closed; otherwise pass through.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.closed_when_ready = self.handle.no_hooks();
        if self.closed_when_ready {
            Poll::Ready(Ok(()))
        } else {
            self.inner.poll_ready(cx)
        }
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let kind = if self.closed_when_ready {
            Kind::Closed { request: Some(req) }
        } else {
            Kind::Open {
                future: self.inner.call(req),
            }
        };
        ResponseFuture { kind }
    }
}

/// Applies [`Gate`] to services. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct GateLayer {
    handle: GateHandle,
}

impl GateLayer {
    /// A layer whose gate starts open (`no_hooks = false`) or closed.
    pub fn new(no_hooks: bool) -> Self {
        GateLayer {
            handle: GateHandle::new(no_hooks),
        }
    }

    /// A layer whose gate starts open, and the handle that flips it.
    pub fn pair() -> (GateLayer, GateHandle) {
        let layer = GateLayer::new(false);
        let handle = layer.handle.clone();
        (layer, handle)
    }

    /// A layer switched by an existing handle.
    pub fn with_handle(handle: GateHandle) -> Self {
        GateLayer { handle }
    }
}

impl<S> Layer<S> for GateLayer {
    type Service = Gate<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Gate::new(inner, self.handle.clone())
    }
}

/// The response future of [`Gate`].
#[pin_project]
#[derive(Debug)]
pub struct ResponseFuture<F> {
    #[pin]
    kind: Kind<F>,
}

#[pin_project(project = KindProj)]
#[derive(Debug)]
enum Kind<F> {
    Open {
        #[pin]
        future: F,
    },
    Closed {
        request: Option<HookRequest>,
    },
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<HookOutcome, E>>,
{
    type Output = Result<HookOutcome, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Open { future } => future.poll(cx),
            KindProj::Closed { request } => Poll::Ready(Ok(HookOutcome::allow(
                request.take().expect("Gate future polled after completion"),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;
    use std::sync::atomic::AtomicUsize;
    use tower::{service_fn, ServiceExt};

    fn counting(
        calls: Arc<AtomicUsize>,
    ) -> impl Service<HookRequest, Response = HookOutcome, Error = Infallible> + Clone {
        service_fn(move |req: HookRequest| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move { Ok::<_, Infallible>(HookOutcome::allow(req)) }
        })
    }

    #[tokio::test]
    async fn closed_gate_runs_nothing() {
        let calls = Arc::new(AtomicUsize::new(0));
        let gate = Gate::new(counting(calls.clone()), GateHandle::new(true));
        gate.oneshot(HookRequest::input("x")).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn handle_flips_the_gate_at_run_time() {
        let calls = Arc::new(AtomicUsize::new(0));
        let (layer, handle) = GateLayer::pair();
        let gate = layer.layer(counting(calls.clone()));
        gate.clone().oneshot(HookRequest::input("x")).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        handle.set_no_hooks(true);
        gate.clone().oneshot(HookRequest::input("x")).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        handle.set_no_hooks(false);
        gate.oneshot(HookRequest::input("x")).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }
}
