//! What a session yields: one recorded event, and which events are fired.

use std::sync::Arc;

use tower_hooks::{Event, HookRequest};

/// One recorded event, ready to fire again.
#[derive(Debug)]
pub(crate) struct ReplayEvent {
    pub(crate) request: HookRequest,
    /// The event as the session's format names it (`PreToolUse`, `tool_execution_start`).
    pub(crate) name: &'static str,
    pub(crate) session: Arc<str>,
    /// When it happened, as the file says.
    pub(crate) time: Option<Arc<str>>,
    /// The number of the file's line it comes from (the first is 1).
    pub(crate) line: u64,
}

/// The events `hooks replay` fires.
#[derive(Debug, Clone)]
pub(crate) struct Selection([bool; Event::COUNT]);

impl Selection {
    /// The events whose hooks decide something before it happens: before a
    /// tool, a permission prompt, a prompt submitted, the agent stopping.
    pub(crate) fn deciding() -> Self {
        let mut selection = Selection([false; Event::COUNT]);
        for event in [
            Event::ToolExecutionStart,
            Event::PermissionRequest,
            Event::BeforeAgentStart,
            Event::Input,
            Event::Stop,
        ] {
            selection.add(event);
        }
        selection
    }

    /// Every event.
    #[cfg(test)]
    pub(crate) fn all() -> Self {
        Selection([true; Event::COUNT])
    }

    pub(crate) fn add(&mut self, event: Event) {
        self.0[event.index()] = true;
    }

    pub(crate) fn has(&self, event: Event) -> bool {
        self.0[event.index()]
    }
}
