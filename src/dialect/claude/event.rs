//! Claude Code's events: their names, the neutral event each fires at (none
//! for the ones this host does not fire), and what each one's rules are
//! (what its matcher is tested against, what a block means there, which
//! handler types run there, which parts of an answer it keeps).
//!
//! Claude Code adds events; a name that is none of these is kept as written
//! where it is read ([`Handler::event`](super::config::Handler::event), the
//! functions that take an event name) and follows the rules of an unknown
//! event: it fires at no neutral event, has no subject, and cannot block.

use crate::event::{Event, NameColumns};

/// One of the events of Claude Code's hooks (and Peri's, which copies them):
/// the ones this host fires first, in the order of [`Event::ALL`], then the
/// ones it does not fire (a file may configure them; a host may fire them by
/// name with raw fields).
///
/// ```
/// use tower_hooks::dialect::claude::ClaudeEvent;
/// use tower_hooks::Event;
///
/// let event = ClaudeEvent::from_name("PostToolUseFailure").unwrap();
/// assert_eq!(event.name(), "PostToolUseFailure");
/// assert_eq!(event.event(), Some(Event::ToolExecutionEnd));
/// assert_eq!(ClaudeEvent::TaskCreated.event(), None);
/// assert_eq!(ClaudeEvent::from_name("postToolUse"), None); // names are exact
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ClaudeEvent {
    /// `SessionStart` (`session_start`).
    SessionStart,
    /// `SessionEnd` (`session_shutdown`).
    SessionEnd,
    /// `UserPromptSubmit` (`input`).
    UserPromptSubmit,
    /// `PreToolUse` (`tool_execution_start`).
    PreToolUse,
    /// `PostToolUse` (`tool_execution_end`, a tool that succeeded).
    PostToolUse,
    /// `PostToolUseFailure` (`tool_execution_end`, a tool that failed).
    PostToolUseFailure,
    /// `PreCompact` (`session_before_compact`).
    PreCompact,
    /// `PostCompact` (`session_compact`).
    PostCompact,
    /// `PermissionRequest` (`permission_request`).
    PermissionRequest,
    /// `PostToolBatch` (`post_tool_batch`).
    PostToolBatch,
    /// `Stop` (`stop`).
    Stop,
    /// `StopFailure` (`stop_failure`).
    StopFailure,
    /// `Notification` (`notification`).
    Notification,
    /// `SubagentStart` (`subagent_start`).
    SubagentStart,
    /// `SubagentStop` (`subagent_stop`).
    SubagentStop,
    /// `InstructionsLoaded` (`instructions_loaded`).
    InstructionsLoaded,
    /// `Setup`: not fired by this host.
    Setup,
    /// `UserPromptExpansion`: not fired by this host.
    UserPromptExpansion,
    /// `MessageDisplay`: not fired by this host.
    MessageDisplay,
    /// `PermissionDenied`: not fired by this host.
    PermissionDenied,
    /// `TaskCreated`: not fired by this host.
    TaskCreated,
    /// `TaskCompleted`: not fired by this host.
    TaskCompleted,
    /// `TeammateIdle`: not fired by this host.
    TeammateIdle,
    /// `ConfigChange`: not fired by this host.
    ConfigChange,
    /// `CwdChanged`: not fired by this host.
    CwdChanged,
    /// `DirectoryAdded`: not fired by this host.
    DirectoryAdded,
    /// `FileChanged`: not fired by this host.
    FileChanged,
    /// `WorktreeCreate`: not fired by this host.
    WorktreeCreate,
    /// `WorktreeRemove`: not fired by this host.
    WorktreeRemove,
    /// `Elicitation`: not fired by this host.
    Elicitation,
    /// `ElicitationResult`: not fired by this host.
    ElicitationResult,
    /// `PreModelSwitch`: not fired by this host.
    PreModelSwitch,
    /// `PostModelSwitch`: not fired by this host.
    PostModelSwitch,
    /// `PreSkillShellCommand` (Claude Code 2.1.332): before a shell command
    /// that a skill's text runs as it is expanded; matched on `tool_name`,
    /// and any refusal, `ask`, `defer` or `updatedInput` keeps the command
    /// from running. Not fired by this host.
    PreSkillShellCommand,
}

use ClaudeEvent as C;

impl ClaudeEvent {
    /// Every event: the fired ones in the order of [`Event::ALL`] (a neutral
    /// event's first name first), then the others.
    pub const ALL: [ClaudeEvent; 34] = [
        C::SessionStart,
        C::SessionEnd,
        C::UserPromptSubmit,
        C::PreToolUse,
        C::PostToolUse,
        C::PostToolUseFailure,
        C::PreCompact,
        C::PostCompact,
        C::PermissionRequest,
        C::PostToolBatch,
        C::Stop,
        C::StopFailure,
        C::Notification,
        C::SubagentStart,
        C::SubagentStop,
        C::InstructionsLoaded,
        C::Setup,
        C::UserPromptExpansion,
        C::MessageDisplay,
        C::PermissionDenied,
        C::TaskCreated,
        C::TaskCompleted,
        C::TeammateIdle,
        C::ConfigChange,
        C::CwdChanged,
        C::DirectoryAdded,
        C::FileChanged,
        C::WorktreeCreate,
        C::WorktreeRemove,
        C::Elicitation,
        C::ElicitationResult,
        C::PreModelSwitch,
        C::PostModelSwitch,
        C::PreSkillShellCommand,
    ];

    /// The name, as Claude Code writes it (`PreToolUse`).
    pub const fn name(self) -> &'static str {
        match self {
            C::SessionStart => "SessionStart",
            C::SessionEnd => "SessionEnd",
            C::UserPromptSubmit => "UserPromptSubmit",
            C::PreToolUse => "PreToolUse",
            C::PostToolUse => "PostToolUse",
            C::PostToolUseFailure => "PostToolUseFailure",
            C::PreCompact => "PreCompact",
            C::PostCompact => "PostCompact",
            C::PermissionRequest => "PermissionRequest",
            C::PostToolBatch => "PostToolBatch",
            C::Stop => "Stop",
            C::StopFailure => "StopFailure",
            C::Notification => "Notification",
            C::SubagentStart => "SubagentStart",
            C::SubagentStop => "SubagentStop",
            C::InstructionsLoaded => "InstructionsLoaded",
            C::Setup => "Setup",
            C::UserPromptExpansion => "UserPromptExpansion",
            C::MessageDisplay => "MessageDisplay",
            C::PermissionDenied => "PermissionDenied",
            C::TaskCreated => "TaskCreated",
            C::TaskCompleted => "TaskCompleted",
            C::TeammateIdle => "TeammateIdle",
            C::ConfigChange => "ConfigChange",
            C::CwdChanged => "CwdChanged",
            C::DirectoryAdded => "DirectoryAdded",
            C::FileChanged => "FileChanged",
            C::WorktreeCreate => "WorktreeCreate",
            C::WorktreeRemove => "WorktreeRemove",
            C::Elicitation => "Elicitation",
            C::ElicitationResult => "ElicitationResult",
            C::PreModelSwitch => "PreModelSwitch",
            C::PostModelSwitch => "PostModelSwitch",
            C::PreSkillShellCommand => "PreSkillShellCommand",
        }
    }

    /// The event with this exact name; `None` for a name Claude Code does not
    /// have (or that this host does not know yet).
    pub fn from_name(name: &str) -> Option<ClaudeEvent> {
        Some(match name {
            "SessionStart" => C::SessionStart,
            "SessionEnd" => C::SessionEnd,
            "UserPromptSubmit" => C::UserPromptSubmit,
            "PreToolUse" => C::PreToolUse,
            "PostToolUse" => C::PostToolUse,
            "PostToolUseFailure" => C::PostToolUseFailure,
            "PreCompact" => C::PreCompact,
            "PostCompact" => C::PostCompact,
            "PermissionRequest" => C::PermissionRequest,
            "PostToolBatch" => C::PostToolBatch,
            "Stop" => C::Stop,
            "StopFailure" => C::StopFailure,
            "Notification" => C::Notification,
            "SubagentStart" => C::SubagentStart,
            "SubagentStop" => C::SubagentStop,
            "InstructionsLoaded" => C::InstructionsLoaded,
            "Setup" => C::Setup,
            "UserPromptExpansion" => C::UserPromptExpansion,
            "MessageDisplay" => C::MessageDisplay,
            "PermissionDenied" => C::PermissionDenied,
            "TaskCreated" => C::TaskCreated,
            "TaskCompleted" => C::TaskCompleted,
            "TeammateIdle" => C::TeammateIdle,
            "ConfigChange" => C::ConfigChange,
            "CwdChanged" => C::CwdChanged,
            "DirectoryAdded" => C::DirectoryAdded,
            "FileChanged" => C::FileChanged,
            "WorktreeCreate" => C::WorktreeCreate,
            "WorktreeRemove" => C::WorktreeRemove,
            "Elicitation" => C::Elicitation,
            "ElicitationResult" => C::ElicitationResult,
            "PreModelSwitch" => C::PreModelSwitch,
            "PostModelSwitch" => C::PostModelSwitch,
            "PreSkillShellCommand" => C::PreSkillShellCommand,
            _ => return None,
        })
    }

    /// The neutral event it fires at; `None` for an event this host does not
    /// fire.
    pub const fn event(self) -> Option<Event> {
        Some(match self {
            C::SessionStart => Event::SessionStart,
            C::SessionEnd => Event::SessionShutdown,
            C::UserPromptSubmit => Event::Input,
            C::PreToolUse => Event::ToolExecutionStart,
            C::PostToolUse | C::PostToolUseFailure => Event::ToolExecutionEnd,
            C::PreCompact => Event::SessionBeforeCompact,
            C::PostCompact => Event::SessionCompact,
            C::PermissionRequest => Event::PermissionRequest,
            C::PostToolBatch => Event::PostToolBatch,
            C::Stop => Event::Stop,
            C::StopFailure => Event::StopFailure,
            C::Notification => Event::Notification,
            C::SubagentStart => Event::SubagentStart,
            C::SubagentStop => Event::SubagentStop,
            C::InstructionsLoaded => Event::InstructionsLoaded,
            _ => return None,
        })
    }

    /// Whether this host fires it ([`event`](Self::event) is `Some`).
    pub const fn is_fired(self) -> bool {
        self.event().is_some()
    }

    /// Whether it is a tool event, where a handler's `if` rule is tested.
    pub const fn is_tool_event(self) -> bool {
        matches!(
            self,
            C::PreToolUse
                | C::PostToolUse
                | C::PostToolUseFailure
                | C::PermissionRequest
                | C::PermissionDenied
        )
    }

    /// Whether a model's yes or no means something here: where Claude Code
    /// runs `prompt` and `agent` handlers.
    pub(crate) const fn takes_model_hooks(self) -> bool {
        matches!(
            self,
            C::PermissionDenied
                | C::PermissionRequest
                | C::PostToolBatch
                | C::PostToolUse
                | C::PostToolUseFailure
                | C::PreToolUse
                | C::Stop
                | C::SubagentStop
                | C::TaskCompleted
                | C::TaskCreated
                | C::TeammateIdle
                | C::UserPromptExpansion
                | C::UserPromptSubmit
        )
    }

    /// The request field its matcher is tested against; `None` for an event
    /// whose matcher is ignored.
    pub(crate) const fn subject_field(self) -> Option<&'static str> {
        Some(match self {
            C::PreToolUse
            | C::PostToolUse
            | C::PostToolUseFailure
            | C::PermissionRequest
            | C::PermissionDenied
            | C::PreSkillShellCommand => "tool_name",
            C::SessionStart | C::ConfigChange | C::DirectoryAdded => "source",
            C::SessionEnd => "reason",
            C::PreCompact | C::PostCompact | C::Setup => "trigger",
            C::Notification => "notification_type",
            C::SubagentStart | C::SubagentStop => "agent_type",
            C::StopFailure => "error",
            C::InstructionsLoaded => "load_reason",
            C::UserPromptExpansion => "command_name",
            C::Elicitation | C::ElicitationResult => "mcp_server_name",
            C::FileChanged => "file_path",
            _ => return None,
        })
    }
}

/// Claude Code's names of each neutral event, from [`ClaudeEvent::ALL`].
static NAMES: NameColumns<2> = {
    let mut columns = NameColumns::new();
    let mut i = 0;
    while i < ClaudeEvent::ALL.len() {
        let claude = ClaudeEvent::ALL[i];
        if let Some(event) = claude.event() {
            columns = columns.with(event, claude.name());
        }
        i += 1;
    }
    columns
};

/// How many Claude Code events this host does not fire.
const UNFIRED_COUNT: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < ClaudeEvent::ALL.len() {
        if !ClaudeEvent::ALL[i].is_fired() {
            count += 1;
        }
        i += 1;
    }
    count
};

/// The names of the Claude Code events this host does not fire, in
/// [`ClaudeEvent::ALL`] order.
pub(crate) const UNFIRED_NAMES: [&str; UNFIRED_COUNT] = {
    let mut names = [""; UNFIRED_COUNT];
    let (mut i, mut n) = (0, 0);
    while i < ClaudeEvent::ALL.len() {
        if !ClaudeEvent::ALL[i].is_fired() {
            names[n] = ClaudeEvent::ALL[i].name();
            n += 1;
        }
        i += 1;
    }
    names
};

impl Event {
    /// Claude Code's names for this event (`PostToolUse` for a tool that
    /// succeeded, then `PostToolUseFailure`); empty when it has none. Derived
    /// from [`ClaudeEvent`].
    ///
    /// ```
    /// use tower_hooks::Event;
    ///
    /// assert_eq!(Event::ToolExecutionEnd.claude_names(), ["PostToolUse", "PostToolUseFailure"]);
    /// assert!(Event::TurnStart.claude_names().is_empty());
    /// ```
    pub fn claude_names(self) -> &'static [&'static str] {
        NAMES.get(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for event in ClaudeEvent::ALL {
            assert_eq!(ClaudeEvent::from_name(event.name()), Some(event));
        }
        assert_eq!(ClaudeEvent::from_name("preToolUse"), None);
        assert_eq!(ClaudeEvent::from_name("Weird"), None);
        let mut sorted = ClaudeEvent::ALL;
        sorted.sort();
        assert_eq!(sorted, ClaudeEvent::ALL, "ALL is in declaration order");
    }

    #[test]
    fn fired_events_come_first_in_event_order() {
        let fired: Vec<Event> = ClaudeEvent::ALL
            .into_iter()
            .map_while(ClaudeEvent::event)
            .collect();
        assert!(fired.windows(2).all(|w| w[0] <= w[1]), "{fired:?}");
        assert!(ClaudeEvent::ALL[fired.len()..]
            .iter()
            .all(|e| !e.is_fired()));
    }

    /// The columns the event table held before they were derived.
    #[test]
    fn derived_names_are_the_old_table_column() {
        let old: [(Event, &[&str]); Event::COUNT] = [
            (Event::SessionStart, &["SessionStart"]),
            (Event::SessionShutdown, &["SessionEnd"]),
            (Event::BeforeAgentStart, &[]),
            (Event::Input, &["UserPromptSubmit"]),
            (Event::TurnStart, &[]),
            (Event::ToolExecutionStart, &["PreToolUse"]),
            (
                Event::ToolExecutionEnd,
                &["PostToolUse", "PostToolUseFailure"],
            ),
            (Event::TurnEnd, &[]),
            (Event::MessageEnd, &[]),
            (Event::SessionBeforeCompact, &["PreCompact"]),
            (Event::SessionCompact, &["PostCompact"]),
            (Event::PermissionRequest, &["PermissionRequest"]),
            (Event::PostToolBatch, &["PostToolBatch"]),
            (Event::Stop, &["Stop"]),
            (Event::StopFailure, &["StopFailure"]),
            (Event::Notification, &["Notification"]),
            (Event::SubagentStart, &["SubagentStart"]),
            (Event::SubagentStop, &["SubagentStop"]),
            (Event::InstructionsLoaded, &["InstructionsLoaded"]),
            (Event::AgentThought, &[]),
            (Event::ModelRequest, &[]),
            (Event::ModelResponse, &[]),
            (Event::ToolSelection, &[]),
            (Event::Named, &[]),
        ];
        for (event, names) in old {
            assert_eq!(event.claude_names(), names, "{event}");
        }
    }

    #[test]
    fn unfired_names_are_the_old_list() {
        assert_eq!(
            UNFIRED_NAMES,
            [
                "Setup",
                "UserPromptExpansion",
                "MessageDisplay",
                "PermissionDenied",
                "TaskCreated",
                "TaskCompleted",
                "TeammateIdle",
                "ConfigChange",
                "CwdChanged",
                "DirectoryAdded",
                "FileChanged",
                "WorktreeCreate",
                "WorktreeRemove",
                "Elicitation",
                "ElicitationResult",
                "PreModelSwitch",
                "PostModelSwitch",
                "PreSkillShellCommand",
            ]
        );
    }
}
