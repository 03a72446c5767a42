//! Middleware that skips a hook whose matcher does not match the event's subject.
//!
//! The subject depends on the event (see [`MatcherSubject`](crate::MatcherSubject)):
//! the tool name, the session id, the turn count, the compaction reason, or the
//! empty string for `input`. `*` or an omitted matcher matches everything; any
//! other matcher is a regex searched anywhere in the subject. A skipped hook is
//! never called: nothing is spawned.
//!
//! Inside a [`HookStack`](crate::HookStack) the [`Chain`](crate::layer::chain) tests each
//! hook's [`Pattern`] itself, before it touches the hook's service, so that a
//! skipped hook costs nothing more; [`Matcher`] is the same rule as a layer, for a
//! hook service used on its own.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower::{service_fn, ServiceBuilder, ServiceExt};
//! use tower_hooks::layer::matcher::MatcherLayer;
//! use tower_hooks::Pattern;
//! use tower_hooks::{HookRequest, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let hook = ServiceBuilder::new()
//!     .layer(MatcherLayer::new(Pattern::new("^bash$").unwrap()))
//!     .service(service_fn(|_req: HookRequest| async { Ok::<_, std::convert::Infallible>(Verdict::block("no")) }));
//!
//! let read = HookRequest::tool_execution_start("read", json!({"path": "a"}));
//! assert_eq!(hook.clone().oneshot(read).await.unwrap(), Verdict::Skipped);
//!
//! let bash = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
//! assert_eq!(hook.oneshot(bash).await.unwrap(), Verdict::block("no"));
//! # }
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project::pin_project;
use tower_layer::Layer;
use tower_service::Service;

use crate::outcome::Verdict;
use crate::pattern::Pattern;
use crate::request::HookRequest;

/// Skips the inner hook when the pattern does not match. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Matcher<S> {
    inner: S,
    pattern: Pattern,
}

impl<S> Matcher<S> {
    /// Wraps `inner`.
    pub fn new(inner: S, pattern: Pattern) -> Self {
        Matcher { inner, pattern }
    }

    /// A layer that wraps services with this pattern.
    pub fn layer(pattern: Pattern) -> MatcherLayer {
        MatcherLayer::new(pattern)
    }

    define_inner_service_accessors!();
}

impl<S> Service<HookRequest> for Matcher<S>
where
    S: Service<HookRequest, Response = Verdict>,
{
    type Response = Verdict;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    // poll_ready: pass through (the match depends on the request).
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let matched = self.pattern.matches(req.matcher_subject().as_str());
        if matched {
            ResponseFuture {
                kind: Kind::Called {
                    future: self.inner.call(req),
                },
            }
        } else {
            ResponseFuture {
                kind: Kind::Skipped,
            }
        }
    }
}

/// Applies [`Matcher`] to services. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct MatcherLayer {
    pattern: Pattern,
}

impl MatcherLayer {
    /// A layer with this pattern.
    pub fn new(pattern: Pattern) -> Self {
        MatcherLayer { pattern }
    }
}

impl<S> Layer<S> for MatcherLayer {
    type Service = Matcher<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Matcher::new(inner, self.pattern.clone())
    }
}

/// The response future of [`Matcher`].
#[pin_project]
#[derive(Debug)]
pub struct ResponseFuture<F> {
    #[pin]
    kind: Kind<F>,
}

#[pin_project(project = KindProj)]
#[derive(Debug)]
enum Kind<F> {
    Called {
        #[pin]
        future: F,
    },
    Skipped,
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Verdict, E>>,
{
    type Output = Result<Verdict, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Called { future } => future.poll(cx),
            KindProj::Skipped => Poll::Ready(Ok(Verdict::Skipped)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tower::{service_fn, ServiceExt};

    fn counting(
        calls: Arc<AtomicUsize>,
    ) -> impl Service<HookRequest, Response = Verdict, Error = Infallible> + Clone {
        service_fn(move |_req: HookRequest| {
            calls.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, Infallible>(Verdict::Allow) }
        })
    }

    async fn run(pattern: &str, req: HookRequest) -> (Verdict, usize) {
        let calls = Arc::new(AtomicUsize::new(0));
        let svc = Matcher::new(counting(calls.clone()), Pattern::new(pattern).unwrap());
        let v = svc.oneshot(req).await.unwrap();
        (v, calls.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn skipped_hook_does_not_run() {
        let req = HookRequest::tool_execution_start("read", json!({}));
        assert_eq!(run("^bash$", req).await, (Verdict::Skipped, 0));
    }

    #[tokio::test]
    async fn star_matches_everything() {
        let req = HookRequest::input("x");
        assert_eq!(run("*", req).await, (Verdict::Allow, 1));
    }

    #[tokio::test]
    async fn regex_is_searched_not_anchored() {
        let req = HookRequest::tool_execution_start("mcp__github__push", json!({}));
        assert_eq!(run("github", req).await, (Verdict::Allow, 1));
    }

    #[tokio::test]
    async fn turn_count_matcher_scopes_to_the_first_turn() {
        assert_eq!(
            run("^1$", HookRequest::before_agent_start(1, "hi")).await.1,
            1
        );
        assert_eq!(
            run("^1$", HookRequest::before_agent_start(12, "hi"))
                .await
                .1,
            0
        );
    }

    #[tokio::test]
    async fn input_matcher_sees_the_empty_string() {
        assert_eq!(run("hello", HookRequest::input("hello world")).await.1, 0);
        assert_eq!(run("^$", HookRequest::input("hello world")).await.1, 1);
    }
}
