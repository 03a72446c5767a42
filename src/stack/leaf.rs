//! The service at the bottom of each hook: a command, an in-process hook,
//! a model or a policy server.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use pin_project::pin_project;
use tower::util::BoxCloneSyncService;
use tower_service::Service;

use crate::layer::command::Command;
use crate::layer::mcp::McpHook;
use crate::layer::model::ModelHook;
use crate::outcome::Verdict;
use crate::process::BoxFuture;
use crate::request::{Deadline, HookRequest};
use crate::BoxError;

pub(super) type InProcess = BoxCloneSyncService<HookRequest, Verdict, BoxError>;
pub(super) type HookFn = Arc<dyn Fn(&HookRequest) -> Verdict + Send + Sync>;

/// The service at the bottom of each hook: a command, or an in-process hook.
///
/// Public only because it is part of [`HookBase`](super::HookBase), the service your
/// [`around_hook`](super::Builder::around_hook) layers wrap, and so of the type
/// [`Builder::build`](super::Builder::build) returns. It has no constructor and nothing to use but its
/// `Service` impl; what it holds is private and may change.
#[derive(Clone)]
pub struct Leaf {
    pub(super) kind: LeafKind,
}

#[derive(Clone)]
pub(super) enum LeafKind {
    Command(Command),
    /// A model-evaluated hook: the stack's evaluator answers.
    Model(ModelHook),
    /// An MCP tool hook: the host's MCP client answers.
    Mcp(McpHook),
    /// An HTTP hook: a policy service answers.
    #[cfg(feature = "http")]
    Http(crate::layer::http::HttpHook),
    InProcess(InProcess),
    /// A plain function: answered in `call`, no box, no timer.
    Function(HookFn),
}

impl fmt::Debug for Leaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            LeafKind::Command(c) => f.debug_tuple("Leaf").field(c).finish(),
            LeafKind::Model(m) => f.debug_tuple("Leaf").field(m).finish(),
            LeafKind::Mcp(m) => f.debug_tuple("Leaf").field(m).finish(),
            #[cfg(feature = "http")]
            LeafKind::Http(h) => f.debug_tuple("Leaf").field(h).finish(),
            LeafKind::InProcess(_) => f.write_str("Leaf(<in-process>)"),
            LeafKind::Function(_) => f.write_str("Leaf(<function>)"),
        }
    }
}

impl Service<HookRequest> for Leaf {
    type Response = Verdict;
    type Error = BoxError;
    type Future = LeafFuture;

    // poll_ready: pass through to the command or the in-process hook.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        match &mut self.kind {
            LeafKind::Command(c) => c.poll_ready(cx),
            LeafKind::Model(m) => m.poll_ready(cx),
            LeafKind::Mcp(m) => m.poll_ready(cx),
            #[cfg(feature = "http")]
            LeafKind::Http(h) => h.poll_ready(cx),
            LeafKind::InProcess(s) => s.poll_ready(cx),
            LeafKind::Function(_) => Poll::Ready(Ok(())),
        }
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        match &mut self.kind {
            // A command honors the deadline itself: SIGTERM, grace, SIGKILL.
            LeafKind::Command(c) => LeafFuture::new(LeafRun::Unbounded {
                future: c.call(req),
            }),
            // A model hook honors the deadline itself: a late answer is its
            // dialect's failure, not a block.
            LeafKind::Model(m) => LeafFuture::new(LeafRun::Unbounded {
                future: m.call(req),
            }),
            // So does an MCP tool hook.
            LeafKind::Mcp(m) => LeafFuture::new(LeafRun::Unbounded {
                future: m.call(req),
            }),
            // So does an HTTP hook (Claude Code's "timed out after N s").
            #[cfg(feature = "http")]
            LeafKind::Http(h) => LeafFuture::new(LeafRun::Unbounded {
                future: h.call(req),
            }),
            // An in-process hook is dropped at its deadline.
            LeafKind::InProcess(s) => LeafFuture::new(match req.deadline() {
                Some(deadline) => LeafRun::Bounded {
                    future: s.call(req),
                    deadline,
                    overdue: None,
                },
                None => LeafRun::Unbounded {
                    future: s.call(req),
                },
            }),
            // A function cannot be interrupted: it answers before any deadline.
            LeafKind::Function(f) => LeafFuture::new(LeafRun::Answered {
                verdict: Some(f(&req)),
            }),
        }
    }
}

/// The response future of [`Leaf`]. Opaque, and public only because it is
/// [`Leaf`]'s `Service::Future`.
#[pin_project]
pub struct LeafFuture {
    #[pin]
    run: LeafRun,
}

impl LeafFuture {
    fn new(run: LeafRun) -> Self {
        LeafFuture { run }
    }
}

#[pin_project(project = LeafProj)]
enum LeafRun {
    /// Runs to its own end.
    Unbounded {
        #[pin]
        future: BoxFuture<'static, Result<Verdict, BoxError>>,
    },
    /// Dropped at the deadline.
    Bounded {
        #[pin]
        future: BoxFuture<'static, Result<Verdict, BoxError>>,
        deadline: Deadline,
        /// The timer, armed at the first `Pending`: a hook that answers at once
        /// costs no timer.
        #[pin]
        overdue: Option<tokio::time::Sleep>,
    },
    /// Answered already; the answer, until it is taken.
    Answered { verdict: Option<Verdict> },
}

impl fmt::Debug for LeafFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LeafFuture")
    }
}

impl Future for LeafFuture {
    type Output = Result<Verdict, BoxError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().run.project() {
            LeafProj::Unbounded { future } => future.poll(cx),
            LeafProj::Answered { verdict } => Poll::Ready(Ok(verdict
                .take()
                .expect("LeafFuture polled after completion"))),
            LeafProj::Bounded {
                future,
                deadline,
                mut overdue,
            } => {
                if let Poll::Ready(out) = future.poll(cx) {
                    return Poll::Ready(out);
                }
                if overdue.is_none() {
                    overdue.set(Some(tokio::time::sleep_until(deadline.at)));
                }
                match overdue.as_pin_mut().expect("armed just above").poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Ok(Verdict::timed_out(deadline.timeout))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

// The three aliases below are public so that the type `build` returns can be
// written out, and so that code generic over a builder's layers can state their
// bounds (`H: Layer<HookBase>`). Most code names a stack as `BoxHookStack`.
