//! [`Notes`]: what hooks hand the agent besides their decision.

use serde_json::{Map, Value};

#[cfg(doc)]
use super::HookOutcome;

/// What hooks handed to the agent besides their decision: text for the model's
/// context, messages for the person, a request to stop, an instruction to keep
/// going. Each list keeps one element per message, in config order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Notes {
    /// Text for the model's context (Claude Code's `additionalContext`,
    /// Cursor's `additional_context`, …).
    pub context: Vec<String>,
    /// Messages for the person (`systemMessage`, `user_message`, …).
    pub user_messages: Vec<String>,
    /// A hook asked to stop the agent (`continue: false`), with its reason
    /// (possibly empty).
    pub stop: Option<String>,
    /// An instruction to keep going, set by a dialect's own field (Cursor's
    /// `followup_message`); a block at the agent's stop is one too (see
    /// [`HookOutcome::follow_up`]).
    pub follow_up: Option<String>,
    /// A hook explicitly allowed the action, so that the person need not be
    /// asked (Claude Code's `permissionDecision: "allow"`, or `decision.behavior:
    /// "allow"` on a permission request). A block or an ask still wins (see
    /// [`HookOutcome::is_approved`]).
    pub approved: bool,
    /// Whether the block a hook made takes effect, by its dialect's own rule
    /// for this event rather than by the event's
    /// [`BlockPolicy`](crate::BlockPolicy): a Claude Code `PreCompact` block
    /// prevents the compaction (`Some(true)`), a `PostToolUse` block only
    /// reaches the model (`Some(false)`). `None`: the event's policy decides.
    /// Of several, the first in config order counts.
    pub block_honored: Option<bool>,
    /// What one hook did that its dialect ignores (an exit status a Claude
    /// Code JSON answer overrode, say). The chain moves them to that hook's
    /// [record](super::HookRecord::warnings); they never reach the outcome.
    pub warnings: Vec<String>,
    /// Variables hooks set for the session (Claude Code's `CLAUDE_ENV_FILE`,
    /// Cursor's `sessionStart` `env`), in the order they were first set; a
    /// later value of a name replaces the earlier one. The session's later
    /// hooks of that dialect get them too.
    pub env: Vec<(String, String)>,
    /// A title for the session (Claude Code's `sessionTitle`); of several,
    /// the last in config order.
    pub session_title: Option<String>,
    /// The prompt is not to be shown as the user's message (Claude Code's
    /// `suppressOriginalPrompt`).
    pub suppress_original_prompt: bool,
    /// A first user message for a session started without one (Claude
    /// Code's `initialUserMessage`); of several, the last in config order.
    pub initial_user_message: Option<String>,
    /// The paths whose changes the host watches from now on, replacing its
    /// list (Claude Code's `watchPaths`); several hooks' lists add up.
    pub watch_paths: Option<Vec<String>>,
    /// Permission updates a hook asked for with its allow (Claude Code's
    /// `updatedPermissions`: `addRules`, `setMode`, …), as written.
    pub updated_permissions: Vec<Value>,
    /// The tool input a hook that asks wants the person to approve (Claude
    /// Code's `updatedInput` beside `permissionDecision: "ask"`): the call
    /// runs with it once approved. Of several, the last in config order.
    pub ask_input: Option<Map<String, Value>>,
    /// More plugin folders for the host to load for the workspace (Cursor's
    /// `workspaceOpen` `pluginPaths`); several hooks' lists add up.
    pub plugin_paths: Vec<String>,
    /// A hook deferred the action (Claude Code's `permissionDecision:
    /// "defer"`): it does not run now and nobody is asked; the host pauses
    /// the session and offers the same call again when it resumes, when the
    /// hooks decide anew.
    pub deferred: bool,
    /// What a background hook woke the agent with (Claude Code's
    /// `asyncRewake` hook that exited 2: its stderr, else its stdout); it
    /// is in [`context`](Self::context) too. Of several, joined on new lines.
    pub wake_up: Option<String>,
}

impl Notes {
    /// Adds text for the model's context.
    ///
    /// ```
    /// use tower_hooks::Notes;
    /// let notes = Notes::default().with_context("lint passed").with_user_message("ok");
    /// assert_eq!(notes.context, ["lint passed"]);
    /// assert_eq!(notes.user_messages, ["ok"]);
    /// ```
    pub fn with_context(mut self, text: impl Into<String>) -> Self {
        self.context.push(text.into());
        self
    }

    /// Adds a message for the person.
    pub fn with_user_message(mut self, text: impl Into<String>) -> Self {
        self.user_messages.push(text.into());
        self
    }

    /// Asks to stop the agent, with a reason (possibly empty).
    pub fn with_stop(mut self, reason: impl Into<String>) -> Self {
        join_into(&mut self.stop, Some(reason.into()));
        self
    }

    /// Asks the agent to keep going with this instruction.
    pub fn with_follow_up(mut self, instruction: impl Into<String>) -> Self {
        join_into(&mut self.follow_up, Some(instruction.into()));
        self
    }

    /// Whether there is nothing in it.
    pub fn is_empty(&self) -> bool {
        self.context.is_empty()
            && self.user_messages.is_empty()
            && self.stop.is_none()
            && self.follow_up.is_none()
            && !self.approved
            && self.block_honored.is_none()
            && self.warnings.is_empty()
            && self.env.is_empty()
            && self.session_title.is_none()
            && !self.suppress_original_prompt
            && self.initial_user_message.is_none()
            && self.watch_paths.is_none()
            && self.updated_permissions.is_empty()
            && self.ask_input.is_none()
            && self.plugin_paths.is_empty()
            && !self.deferred
            && self.wake_up.is_none()
    }

    /// Appends `other`'s notes after these (`other` came later in config order);
    /// a later stop reason or follow-up joins the earlier one on a new line.
    pub fn merge(&mut self, other: Notes) {
        self.context.extend(other.context);
        self.user_messages.extend(other.user_messages);
        join_into(&mut self.stop, other.stop);
        join_into(&mut self.follow_up, other.follow_up);
        self.approved |= other.approved;
        self.block_honored = self.block_honored.or(other.block_honored);
        self.warnings.extend(other.warnings);
        if other.session_title.is_some() {
            self.session_title = other.session_title;
        }
        self.suppress_original_prompt |= other.suppress_original_prompt;
        self.deferred |= other.deferred;
        join_into(&mut self.wake_up, other.wake_up);
        if other.initial_user_message.is_some() {
            self.initial_user_message = other.initial_user_message;
        }
        if let Some(paths) = other.watch_paths {
            self.watch_paths.get_or_insert_with(Vec::new).extend(paths);
        }
        self.updated_permissions.extend(other.updated_permissions);
        self.plugin_paths.extend(other.plugin_paths);
        if other.ask_input.is_some() {
            self.ask_input = other.ask_input;
        }
        for (name, value) in other.env {
            match self.env.iter_mut().find(|(k, _)| *k == name) {
                Some(slot) => slot.1 = value,
                None => self.env.push((name, value)),
            }
        }
    }
}

fn join_into(slot: &mut Option<String>, more: Option<String>) {
    match (slot.as_mut(), more) {
        (_, None) => {}
        (None, Some(more)) => *slot = Some(more),
        (Some(text), Some(more)) => {
            if !text.is_empty() && !more.is_empty() {
                text.push('\n');
            }
            text.push_str(&more);
        }
    }
}
