//! Codex's events: Claude Code's names, a subset of them, plus `Interrupt`.

use crate::dialect::claude::ClaudeEvent;
use crate::event::Event;

/// A Codex hook event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodexEvent {
    /// A thread starts (`source`: `startup`, `resume`, `clear`, `compact`).
    SessionStart,
    /// A subagent starts.
    SubagentStart,
    /// A prompt is about to be sent.
    UserPromptSubmit,
    /// Before a tool call.
    PreToolUse,
    /// Codex is about to ask the person to approve a call.
    PermissionRequest,
    /// After a tool call, failed ones included.
    PostToolUse,
    /// Before compaction.
    PreCompact,
    /// After compaction.
    PostCompact,
    /// A subagent is about to stop.
    SubagentStop,
    /// The turn is about to end.
    Stop,
    /// The main thread ends.
    SessionEnd,
    /// The person interrupts a turn (fired by name only).
    Interrupt,
}

impl CodexEvent {
    /// Every Codex event.
    pub const ALL: [CodexEvent; 12] = [
        CodexEvent::SessionStart,
        CodexEvent::SubagentStart,
        CodexEvent::UserPromptSubmit,
        CodexEvent::PreToolUse,
        CodexEvent::PermissionRequest,
        CodexEvent::PostToolUse,
        CodexEvent::PreCompact,
        CodexEvent::PostCompact,
        CodexEvent::SubagentStop,
        CodexEvent::Stop,
        CodexEvent::SessionEnd,
        CodexEvent::Interrupt,
    ];

    /// The name, as Codex writes it.
    pub const fn name(self) -> &'static str {
        match self {
            CodexEvent::SessionStart => "SessionStart",
            CodexEvent::SubagentStart => "SubagentStart",
            CodexEvent::UserPromptSubmit => "UserPromptSubmit",
            CodexEvent::PreToolUse => "PreToolUse",
            CodexEvent::PermissionRequest => "PermissionRequest",
            CodexEvent::PostToolUse => "PostToolUse",
            CodexEvent::PreCompact => "PreCompact",
            CodexEvent::PostCompact => "PostCompact",
            CodexEvent::SubagentStop => "SubagentStop",
            CodexEvent::Stop => "Stop",
            CodexEvent::SessionEnd => "SessionEnd",
            CodexEvent::Interrupt => "Interrupt",
        }
    }

    /// The event with this exact name.
    pub fn from_name(name: &str) -> Option<CodexEvent> {
        CodexEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The neutral event it fires at ([`Event::Named`] for `Interrupt`).
    pub fn event(self) -> Event {
        match self.claude() {
            Some(claude) => claude.event().unwrap_or(Event::Named),
            None => Event::Named,
        }
    }

    /// The Claude Code event of the same name, whose envelope fields and
    /// matcher subject Codex shares; `None` for `Interrupt`.
    pub(crate) fn claude(self) -> Option<ClaudeEvent> {
        ClaudeEvent::from_name(self.name())
    }

    /// Whether its matcher means something (Codex ignores the matcher of
    /// `UserPromptSubmit`, `Stop` and `Interrupt`).
    pub const fn has_matcher(self) -> bool {
        !matches!(
            self,
            CodexEvent::UserPromptSubmit | CodexEvent::Stop | CodexEvent::Interrupt
        )
    }

    /// Whether exit 2 (or `decision: "block"`) blocks here.
    pub const fn can_block(self) -> bool {
        matches!(
            self,
            CodexEvent::PreToolUse
                | CodexEvent::PermissionRequest
                | CodexEvent::PostToolUse
                | CodexEvent::UserPromptSubmit
                | CodexEvent::Stop
                | CodexEvent::SubagentStop
        )
    }

    /// Whether plain text on stdout is context for the model.
    pub const fn text_is_context(self) -> bool {
        matches!(
            self,
            CodexEvent::SessionStart | CodexEvent::SubagentStart | CodexEvent::UserPromptSubmit
        )
    }

    /// Whether it is one of the two stop events, whose block keeps the agent
    /// going.
    pub const fn is_stop(self) -> bool {
        matches!(self, CodexEvent::Stop | CodexEvent::SubagentStop)
    }
}
