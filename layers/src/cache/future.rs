//! The response future of [`Cache`](super::Cache).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use pin_project::pin_project;
use tower_hooks::Verdict;

use super::{Key, Store};

/// The response future of [`Cache`](super::Cache).
#[pin_project]
pub struct ResponseFuture<F> {
    #[pin]
    kind: Kind<F>,
}

#[pin_project(project = KindProj)]
enum Kind<F> {
    /// Answered from the cache.
    Hit { verdict: Option<Verdict> },
    /// The hook runs; a cacheable answer is stored.
    Miss {
        #[pin]
        future: F,
        key: Option<Key>,
        store: Arc<Store>,
    },
    /// A hook that is not opted in.
    Bypass {
        #[pin]
        future: F,
    },
}

impl<F> ResponseFuture<F> {
    pub(super) fn hit(verdict: Verdict) -> Self {
        ResponseFuture {
            kind: Kind::Hit {
                verdict: Some(verdict),
            },
        }
    }

    pub(super) fn miss(future: F, key: Key, store: Arc<Store>) -> Self {
        ResponseFuture {
            kind: Kind::Miss {
                future,
                key: Some(key),
                store,
            },
        }
    }

    pub(super) fn bypass(future: F) -> Self {
        ResponseFuture {
            kind: Kind::Bypass { future },
        }
    }
}

impl<F> fmt::Debug for ResponseFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.kind {
            Kind::Hit { .. } => "Hit",
            Kind::Miss { .. } => "Miss",
            Kind::Bypass { .. } => "Bypass",
        };
        f.debug_tuple("ResponseFuture").field(&kind).finish()
    }
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Verdict, E>>,
{
    type Output = Result<Verdict, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Hit { verdict } => Poll::Ready(Ok(verdict
                .take()
                .expect("Cache future polled after completion"))),
            KindProj::Miss { future, key, store } => {
                let result = ready!(future.poll(cx));
                if let (Ok(verdict), Some(key)) = (&result, key.take()) {
                    store.insert(key, verdict);
                }
                Poll::Ready(result)
            }
            KindProj::Bypass { future } => future.poll(cx),
        }
    }
}
