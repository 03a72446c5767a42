//! What the facade and its tool layer add to every request: the session id,
//! the working directory and the observer.

use std::fmt;
use std::sync::Arc;

use crate::outcome::HookOutcome;
use crate::request::HookRequest;
use crate::spec::Dialect;

/// A callback that sees every request and the stack's answer to it.
type Observer = Arc<dyn Fn(&HookRequest, &HookOutcome) + Send + Sync>;

/// A host tool's name for one dialect's hooks: (tool, dialect, name).
type ToolAlias = (Arc<str>, Dialect, Arc<str>);

/// What the facade and its tool layer add to every request.
#[derive(Clone)]
pub(crate) struct Carried {
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) cwd: Option<Arc<str>>,
    pub(crate) on_outcome: Option<Observer>,
    /// The host's names of its tools for a dialect's hooks: (tool, dialect,
    /// name).
    pub(crate) tool_aliases: Option<Arc<[ToolAlias]>>,
}

impl Carried {
    pub(crate) const fn new() -> Self {
        Carried {
            session_id: None,
            cwd: None,
            on_outcome: None,
            tool_aliases: None,
        }
    }

    /// Names `tool` `name` for the hooks of `dialect`.
    pub(crate) fn alias(&mut self, tool: Arc<str>, dialect: Dialect, name: Arc<str>) {
        let mut aliases: Vec<_> = self
            .tool_aliases
            .iter()
            .flat_map(|aliases| aliases.iter())
            .filter(|(t, d, _)| !(*t == tool && *d == dialect))
            .cloned()
            .collect();
        aliases.push((tool, dialect, name));
        self.tool_aliases = Some(aliases.into());
    }

    /// Adds the session id and the working directory.
    pub(crate) fn stamp(&self, mut req: HookRequest) -> HookRequest {
        if let Some(id) = &self.session_id {
            req = req.with_session_id(id.clone());
        }
        if let Some(cwd) = &self.cwd {
            req = req.with_cwd(cwd.clone());
        }
        if let Some(aliases) = &self.tool_aliases {
            let tool = req.tool_name_shared().cloned();
            for (_, dialect, name) in aliases.iter().filter(|(t, _, _)| Some(t) == tool.as_ref()) {
                req = req.with_tool_alias(*dialect, name.clone());
            }
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
            .field("tool_aliases", &self.tool_aliases)
            .field("on_outcome", &self.on_outcome.as_ref().map(|_| "<fn>"))
            .finish()
    }
}
