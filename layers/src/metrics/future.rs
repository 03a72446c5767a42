//! The response future of [`Metrics`](super::Metrics).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project::pin_project;

use super::sealed::Probe;
use super::Measured;

/// The response future of [`Metrics`](super::Metrics): records the answer when it comes.
#[pin_project]
pub struct ResponseFuture<F> {
    #[pin]
    future: F,
    probe: Option<Probe>,
}

impl<F> ResponseFuture<F> {
    pub(super) fn new(future: F, probe: Probe) -> Self {
        ResponseFuture {
            future,
            probe: Some(probe),
        }
    }
}

impl<F> fmt::Debug for ResponseFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseFuture")
            .field("probe", &self.probe)
            .finish_non_exhaustive()
    }
}

impl<F, R, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<R, E>>,
    R: Measured,
{
    type Output = Result<R, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let result = ready!(this.future.poll(cx));
        let probe = this
            .probe
            .take()
            .expect("Metrics future polled after completion");
        match &result {
            Ok(response) => response.record(&probe),
            Err(_) => R::record_error(&probe),
        }
        Poll::Ready(result)
    }
}
