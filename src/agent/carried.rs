//! What the facade and its tool layer add to every request: the session id,
//! the working directory and the observer.

use std::fmt;
use std::sync::Arc;

use crate::outcome::HookOutcome;
use crate::request::HookRequest;

/// A callback that sees every request and the stack's answer to it.
type Observer = Arc<dyn Fn(&HookRequest, &HookOutcome) + Send + Sync>;

/// What the facade and its tool layer add to every request.
#[derive(Clone)]
pub(crate) struct Carried {
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) cwd: Option<Arc<str>>,
    pub(crate) on_outcome: Option<Observer>,
}

impl Carried {
    pub(crate) const fn new() -> Self {
        Carried {
            session_id: None,
            cwd: None,
            on_outcome: None,
        }
    }

    /// Adds the session id and the working directory.
    pub(crate) fn stamp(&self, mut req: HookRequest) -> HookRequest {
        if let Some(id) = &self.session_id {
            req = req.with_session_id(id.clone());
        }
        if let Some(cwd) = &self.cwd {
            req = req.with_cwd(cwd.clone());
        }
        req
    }

    /// A copy of the request for the observer, if there is one (cheap: shared fields).
    pub(crate) fn seen(&self, req: &HookRequest) -> Option<HookRequest> {
        self.on_outcome.as_ref().map(|_| req.clone())
    }

    /// Shows the observer the request and its outcome, then drops the copy.
    pub(crate) fn observe(&self, seen: Option<HookRequest>, outcome: &HookOutcome) {
        if let (Some(f), Some(req)) = (&self.on_outcome, seen) {
            f(&req, outcome);
        }
    }
}

impl fmt::Debug for Carried {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Carried")
            .field("session_id", &self.session_id)
            .field("cwd", &self.cwd)
            .field("on_outcome", &self.on_outcome.as_ref().map(|_| "<fn>"))
            .finish()
    }
}
