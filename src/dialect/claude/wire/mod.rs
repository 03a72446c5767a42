//! Claude Code's wire protocol, as pure functions: the stdin envelope and the
//! variables a hook is given, how its answer is read, and how the answers of the
//! hooks that ran side by side are merged.
//!
//! Nothing here does I/O or knows about processes: the command leaf hands over
//! an exit status and the captured bytes, and the chain hands over a group's
//! answers in config order.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower_hooks::dialect::claude::{decode, event_name, stdin_bytes, ClaudeDecision, Envelope};
//! use tower_hooks::HookRequest;
//!
//! let req = HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"}))
//!     .with_session_id("s1");
//! assert_eq!(event_name(&req), Some("PreToolUse"));
//! let stdin: serde_json::Value =
//!     serde_json::from_slice(&stdin_bytes(&req, &Envelope::new("/p"))).unwrap();
//! assert_eq!(stdin["hook_event_name"], "PreToolUse");
//! assert_eq!(stdin["tool_input"], json!({"command": "rm -rf /"}));
//!
//! // A pretty-printed answer is one answer.
//! let stdout = b"{\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"PreToolUse\",\n    \
//!     \"permissionDecision\": \"deny\",\n    \"permissionDecisionReason\": \"no\"\n  }\n}\n";
//! let answer = decode(Some(0), stdout, b"", "PreToolUse");
//! assert_eq!(answer.decision, ClaudeDecision::Block);
//! assert_eq!(answer.reason.as_deref(), Some("no"));
//! ```
//!
//! The rules are on the functions: [`stdin_bytes`] (how neutral facts become
//! Claude Code fields), [`decode`] (how an answer is read), [`block_meaning`]
//! (what a block does at each event) and [`combine`] (how parallel hooks merge).

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use super::ClaudeEvent;
use crate::event::Event;
use crate::request::HookRequest;

mod combine;
mod decode;
mod envelope;

pub use crate::dialect::Failure;
pub use combine::{combine, Combined};
pub use decode::{decode, exit2_reason, tool_output_transform};
pub use envelope::{env_vars, stdin_bytes, Envelope};

/// The variable holding the project root, set for every Claude Code hook.
pub const PROJECT_DIR_VAR: &str = "CLAUDE_PROJECT_DIR";

/// The variable holding a plugin's root folder, set for that plugin's hooks.
pub const PLUGIN_ROOT_VAR: &str = "CLAUDE_PLUGIN_ROOT";

// --- the event name ---------------------------------------------------------

/// The Claude Code event a request fires: its neutral event's Claude Code name, and
/// `PostToolUseFailure` instead of `PostToolUse` for a tool result marked
/// `is_error`; the name of an event fired by name
/// ([`HookRequest::named`]). `None` for a neutral event Claude Code has no
/// name for.
///
/// ```
/// use std::time::Duration;
/// use serde_json::json;
/// use tower_hooks::dialect::claude::event_name;
/// use tower_hooks::HookRequest;
///
/// let ok = HookRequest::tool_execution_end("Read", json!({}), "text", false, Duration::ZERO);
/// let failed = HookRequest::tool_execution_end("Read", json!({}), "ENOENT", true, Duration::ZERO);
/// assert_eq!(event_name(&ok), Some("PostToolUse"));
/// assert_eq!(event_name(&failed), Some("PostToolUseFailure"));
/// assert_eq!(event_name(&HookRequest::turn_start(1, 0)), None);
/// ```
pub fn event_name(req: &HookRequest) -> Option<&str> {
    if req.event() == Event::Named {
        return req.named_event();
    }
    let names = req.event().claude_names();
    if req.event() == Event::ToolExecutionEnd && req.tool_failed() {
        return names.get(1).or(names.first()).copied();
    }
    names.first().copied()
}

// --- the answer -------------------------------------------------------------

/// What one Claude Code hook decided, from strongest to weakest when hooks are
/// merged: [`Block`](ClaudeDecision::Block) > [`Defer`](ClaudeDecision::Defer) >
/// [`Ask`](ClaudeDecision::Ask) > [`Allow`](ClaudeDecision::Allow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ClaudeDecision {
    /// No objection: no answer, an explicit `allow`, or a legacy `approve`.
    #[default]
    Allow,
    /// A person must approve (`permissionDecision: "ask"`).
    Ask,
    /// Leave the decision to the host's own permission flow
    /// (`permissionDecision: "defer"`); a host without one treats it as ask.
    Defer,
    /// A deny or a block: exit 2, `decision: "block"`, `permissionDecision:
    /// "deny"`, or `decision.behavior: "deny"` on `PermissionRequest`. What it
    /// does depends on the event ([`block_meaning`]).
    Block,
}

impl ClaudeDecision {
    /// `allow`, `ask`, `defer` or `block`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ClaudeDecision::Allow => "allow",
            ClaudeDecision::Ask => "ask",
            ClaudeDecision::Defer => "defer",
            ClaudeDecision::Block => "block",
        }
    }

    const fn rank(self) -> u8 {
        match self {
            ClaudeDecision::Allow => 0,
            ClaudeDecision::Ask => 1,
            ClaudeDecision::Defer => 2,
            ClaudeDecision::Block => 3,
        }
    }

    fn stronger(self, other: ClaudeDecision) -> ClaudeDecision {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

/// What a block does at a Claude Code event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockMeaning {
    /// The action does not happen and the reason goes to the model
    /// (`PreToolUse`, `TaskCreated`, `TaskCompleted`).
    Deny,
    /// The prompt is dropped and the reason goes to the person
    /// (`UserPromptSubmit`, `UserPromptExpansion`): it is also a user message.
    DropPrompt,
    /// The agent keeps going with the reason as its next instruction (`Stop`,
    /// `SubagentStop`, `TeammateIdle`): the reason is the follow-up.
    FollowUp,
    /// The action already happened: the block is not honored and its reason goes
    /// to the model next to the result (`PostToolUse`, `PostToolUseFailure`): it
    /// is also context.
    Feedback,
    /// The action does not happen (`PreCompact`, `PostToolBatch`,
    /// `ConfigChange`, `Elicitation`, `ElicitationResult`, `WorktreeCreate`).
    Prevent,
    /// The event cannot block this way: the block is recorded, not honored.
    /// Every other event, and exit 2 or `decision: "block"` on
    /// `PermissionRequest`, where only `decision.behavior: "deny"` denies.
    NotHonored,
}

impl BlockMeaning {
    /// Whether such a block takes effect.
    pub const fn is_honored(self) -> bool {
        !matches!(self, BlockMeaning::Feedback | BlockMeaning::NotHonored)
    }
}

/// What a block by exit 2 or `decision: "block"` means at the Claude Code event
/// `event` (an unknown name cannot block).
///
/// ```
/// use tower_hooks::dialect::claude::{block_meaning, BlockMeaning};
///
/// assert_eq!(block_meaning("Stop"), BlockMeaning::FollowUp);
/// assert!(!block_meaning("PostToolUse").is_honored());
/// assert_eq!(block_meaning("PermissionRequest"), BlockMeaning::NotHonored);
/// ```
pub fn block_meaning(event: &str) -> BlockMeaning {
    ClaudeEvent::from_name(event).map_or(BlockMeaning::NotHonored, ClaudeEvent::block_meaning)
}

impl ClaudeEvent {
    /// What a block by exit 2 or `decision: "block"` means at this event.
    pub(crate) const fn block_meaning(self) -> BlockMeaning {
        use ClaudeEvent as C;
        match self {
            C::PreToolUse | C::TaskCreated | C::TaskCompleted | C::PreSkillShellCommand => {
                BlockMeaning::Deny
            }
            C::UserPromptSubmit | C::UserPromptExpansion => BlockMeaning::DropPrompt,
            C::Stop | C::SubagentStop | C::TeammateIdle => BlockMeaning::FollowUp,
            C::PostToolUse | C::PostToolUseFailure => BlockMeaning::Feedback,
            C::PreCompact
            | C::PostToolBatch
            | C::ConfigChange
            | C::Elicitation
            | C::ElicitationResult
            | C::WorktreeCreate => BlockMeaning::Prevent,
            _ => BlockMeaning::NotHonored,
        }
    }
}

/// One Claude Code hook's answer, read by `decode`, in neutral terms.
///
/// An answer with an [`error`](Self#structfield.error) is a failure that lets the action
/// proceed: everything else in it is empty.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClaudeAnswer {
    /// What the hook decided.
    pub decision: ClaudeDecision,
    /// Whether the decision takes effect at this event: `false` for a block the
    /// event cannot enforce ([`BlockMeaning::is_honored`]); `true` otherwise.
    pub honored: bool,
    /// Why: a block's or a deny's reason (stderr on exit 2,
    /// `permissionDecisionReason`, `reason`, `decision.message`; `blocked by
    /// hook` when none is given), or an ask's reason. `None` for an allow.
    pub reason: Option<String>,
    /// A replacement for the whole tool input (`updatedInput` on `PreToolUse`
    /// with allow, ask or no decision; `decision.updatedInput` on a
    /// `PermissionRequest` allow).
    pub updated_input: Option<Map<String, Value>>,
    /// A replacement for the tool's output (`updatedToolOutput` on
    /// `PostToolUse`), as the hook wrote it; see [`tool_output_transform`].
    pub updated_tool_output: Option<Value>,
    /// Text for the model's context, in the order the hook gave it: a block's
    /// reason at `PostToolUse`, `additionalContext`, plain stdout on
    /// `UserPromptSubmit` and `SessionStart`.
    pub context: Vec<String>,
    /// Messages for the person: `systemMessage`, the reason of an allow or an
    /// ask, a block's reason at `UserPromptSubmit`.
    pub user_messages: Vec<String>,
    /// The hook asked to stop the agent (`continue: false`): its `stopReason`,
    /// possibly empty. It leaves the decision as it is.
    pub stop: Option<String>,
    /// The instruction to keep going with at `Stop` and `SubagentStop`: a
    /// block's reason, or `additionalContext` (which leaves the decision
    /// allow), joined with a newline.
    pub follow_up: Option<String>,
    /// The hook explicitly allowed: `permissionDecision: "allow"` on
    /// `PreToolUse`, `decision.behavior: "allow"` on `PermissionRequest`.
    pub approved: bool,
    /// The hook failed, and the action proceeds: `exited with status 1: …`,
    /// `timed out after 2 s`, `could not start: …`, or an answer that breaks
    /// Claude Code's schema.
    pub error: Option<String>,
    /// `sessionTitle` (`UserPromptSubmit`, `SessionStart`): a title for the
    /// session.
    pub session_title: Option<String>,
    /// `suppressOriginalPrompt: true` (`UserPromptSubmit`): the prompt is not
    /// shown as the user's message.
    pub suppress_original_prompt: bool,
    /// `initialUserMessage` (`SessionStart`): a first user message for a
    /// session without one.
    pub initial_user_message: Option<String>,
    /// `watchPaths` (`SessionStart`, `CwdChanged`, `FileChanged`): the paths
    /// whose changes fire `FileChanged`, replacing the host's list.
    pub watch_paths: Option<Vec<String>>,
    /// `decision.updatedPermissions` of a `PermissionRequest` allow: the
    /// permission updates (`addRules`, `setMode`, …) as written.
    pub updated_permissions: Vec<Value>,
    /// What the hook did that was ignored, for the person reading its record:
    /// an exit status a JSON answer overrode, a JSON answer that exit 2
    /// overrode.
    pub warnings: Vec<String>,
}

impl Default for ClaudeAnswer {
    /// An allow with nothing to add (a hook that exits 0 and prints nothing).
    fn default() -> Self {
        ClaudeAnswer {
            decision: ClaudeDecision::Allow,
            honored: true,
            reason: None,
            updated_input: None,
            updated_tool_output: None,
            context: Vec::new(),
            user_messages: Vec::new(),
            stop: None,
            follow_up: None,
            approved: false,
            error: None,
            session_title: None,
            suppress_original_prompt: false,
            initial_user_message: None,
            watch_paths: None,
            updated_permissions: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

impl ClaudeAnswer {
    /// The answer of a hook that failed: the action proceeds and the error is
    /// recorded.
    pub fn failed(failure: &Failure) -> Self {
        Self::with_error(failure.to_string())
    }

    /// The answer of a hook that ran past `timeout`: `timed out after N s`.
    pub fn timed_out(timeout: Duration) -> Self {
        Self::failed(&Failure::TimedOut(timeout))
    }

    /// The answer of a hook that could not be started: `could not start: …`.
    pub fn could_not_start(error: impl fmt::Display) -> Self {
        Self::failed(&Failure::CouldNotStart(error.to_string()))
    }

    /// A failure, said in `error`.
    pub(crate) fn with_error(error: String) -> Self {
        ClaudeAnswer {
            error: Some(error),
            ..ClaudeAnswer::default()
        }
    }

    /// A block at `event`, with what [`block_meaning`] says it means.
    fn blocked(event: &str, reason: String) -> Self {
        let mut answer = ClaudeAnswer::default();
        answer.block(block_meaning(event), reason);
        answer
    }

    fn block(&mut self, meaning: BlockMeaning, reason: String) {
        self.decision = ClaudeDecision::Block;
        self.honored = meaning.is_honored();
        match meaning {
            BlockMeaning::DropPrompt => self.user_messages.push(reason.clone()),
            BlockMeaning::FollowUp => self.follow_up = Some(reason.clone()),
            BlockMeaning::Feedback => self.context.push(reason.clone()),
            BlockMeaning::Deny | BlockMeaning::Prevent | BlockMeaning::NotHonored => {}
        }
        self.reason = Some(reason);
    }

    /// Whether this answer is a failure ([`error`](Self#structfield.error) is set).
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }
}

#[cfg(test)]
mod tests;
