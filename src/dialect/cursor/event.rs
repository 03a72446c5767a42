//! Cursor's events: their names (exact, and as a `hooks.json` may spell them),
//! the neutral event each fires at, the tool kind of the derived ones, and
//! which only observe.

use crate::event::{Event, NameColumns};
use crate::request::ToolKind;

/// One of the events of Cursor's `hooks.json` (and OpenHuman's, which copies it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CursorEvent {
    /// `sessionStart`.
    SessionStart,
    /// `sessionEnd`.
    SessionEnd,
    /// `beforeSubmitPrompt`.
    BeforeSubmitPrompt,
    /// `preToolUse`: before any tool.
    PreToolUse,
    /// `beforeShellExecution`: before a shell tool, after `preToolUse`.
    BeforeShellExecution,
    /// `beforeReadFile`: before a read tool, after `preToolUse`.
    BeforeReadFile,
    /// `beforeMCPExecution`: before an MCP tool, after `preToolUse`.
    BeforeMcpExecution,
    /// `postToolUse`: after a tool that succeeded.
    PostToolUse,
    /// `postToolUseFailure`: after a tool that failed.
    PostToolUseFailure,
    /// `afterShellExecution`: after a shell tool.
    AfterShellExecution,
    /// `afterFileEdit`: after an edit tool.
    AfterFileEdit,
    /// `afterMCPExecution`: after an MCP tool.
    AfterMcpExecution,
    /// `afterAgentResponse`: the assistant's message is finished.
    AfterAgentResponse,
    /// `afterAgentThought`: the assistant finished a thought.
    AfterAgentThought,
    /// `stop`: the agent is about to stop.
    Stop,
    /// `subagentStart`.
    SubagentStart,
    /// `subagentStop`.
    SubagentStop,
    /// `preCompact`.
    PreCompact,
    /// `beforeTabFileRead`: before Tab (inline completions) reads a file: a
    /// read tool the host names `TabRead`.
    BeforeTabFileRead,
    /// `afterTabFileEdit`: after Tab edited a file: a tool the host names
    /// `TabWrite`.
    AfterTabFileEdit,
    /// `workspaceOpen`: a workspace opened, outside any session; fired by
    /// name only ([`Event::Named`]).
    WorkspaceOpen,
}

impl CursorEvent {
    /// Every event, generic tool events before their derived ones.
    pub const ALL: [CursorEvent; 21] = [
        CursorEvent::SessionStart,
        CursorEvent::SessionEnd,
        CursorEvent::BeforeSubmitPrompt,
        CursorEvent::PreToolUse,
        CursorEvent::BeforeShellExecution,
        CursorEvent::BeforeReadFile,
        CursorEvent::BeforeMcpExecution,
        CursorEvent::PostToolUse,
        CursorEvent::PostToolUseFailure,
        CursorEvent::AfterShellExecution,
        CursorEvent::AfterFileEdit,
        CursorEvent::AfterMcpExecution,
        CursorEvent::AfterAgentResponse,
        CursorEvent::AfterAgentThought,
        CursorEvent::Stop,
        CursorEvent::SubagentStart,
        CursorEvent::SubagentStop,
        CursorEvent::PreCompact,
        CursorEvent::BeforeTabFileRead,
        CursorEvent::AfterTabFileEdit,
        CursorEvent::WorkspaceOpen,
    ];

    /// The exact name (`preToolUse`, `beforeMCPExecution`, …).
    pub const fn name(self) -> &'static str {
        match self {
            CursorEvent::SessionStart => "sessionStart",
            CursorEvent::SessionEnd => "sessionEnd",
            CursorEvent::BeforeSubmitPrompt => "beforeSubmitPrompt",
            CursorEvent::PreToolUse => "preToolUse",
            CursorEvent::BeforeShellExecution => "beforeShellExecution",
            CursorEvent::BeforeReadFile => "beforeReadFile",
            CursorEvent::BeforeMcpExecution => "beforeMCPExecution",
            CursorEvent::PostToolUse => "postToolUse",
            CursorEvent::PostToolUseFailure => "postToolUseFailure",
            CursorEvent::AfterShellExecution => "afterShellExecution",
            CursorEvent::AfterFileEdit => "afterFileEdit",
            CursorEvent::AfterMcpExecution => "afterMCPExecution",
            CursorEvent::AfterAgentResponse => "afterAgentResponse",
            CursorEvent::AfterAgentThought => "afterAgentThought",
            CursorEvent::Stop => "stop",
            CursorEvent::SubagentStart => "subagentStart",
            CursorEvent::SubagentStop => "subagentStop",
            CursorEvent::PreCompact => "preCompact",
            CursorEvent::BeforeTabFileRead => "beforeTabFileRead",
            CursorEvent::AfterTabFileEdit => "afterTabFileEdit",
            CursorEvent::WorkspaceOpen => "workspaceOpen",
        }
    }

    /// The event with this exact name (the CLI's `--event`).
    pub fn from_name(name: &str) -> Option<CursorEvent> {
        CursorEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The event a `hooks.json` key means: names match ignoring case, `_` and
    /// `-` (`preToolUse`, `PreToolUse` and `pre_tool_use` are one), and a few
    /// other spellings are aliases, Claude Code's names among them
    /// (`UserPromptSubmit` is `beforeSubmitPrompt`).
    ///
    /// ```
    /// use tower_hooks::dialect::cursor::CursorEvent;
    ///
    /// assert_eq!(CursorEvent::from_loose("pre_tool_use"), Some(CursorEvent::PreToolUse));
    /// assert_eq!(CursorEvent::from_loose("UserPromptSubmit"), Some(CursorEvent::BeforeSubmitPrompt));
    /// assert_eq!(CursorEvent::from_loose("beforeMcpExecution"), Some(CursorEvent::BeforeMcpExecution));
    /// assert_eq!(CursorEvent::from_loose("TaskCreated"), None);
    /// ```
    pub fn from_loose(name: &str) -> Option<CursorEvent> {
        let key = loose(name);
        if let Some(event) = CursorEvent::ALL
            .into_iter()
            .find(|e| loose(e.name()) == key)
        {
            return Some(event);
        }
        let alias = match key.as_str() {
            "userpromptsubmit" => CursorEvent::BeforeSubmitPrompt,
            "notification" | "agentresponse" => CursorEvent::AfterAgentResponse,
            "agentthought" => CursorEvent::AfterAgentThought,
            "precompaction" | "compact" => CursorEvent::PreCompact,
            "sessionstop" => CursorEvent::SessionEnd,
            "toolusefailure" | "tooluseerror" => CursorEvent::PostToolUseFailure,
            _ => return None,
        };
        Some(alias)
    }

    /// The neutral event it fires at.
    pub const fn event(self) -> Event {
        match self {
            CursorEvent::SessionStart => Event::SessionStart,
            CursorEvent::SessionEnd => Event::SessionShutdown,
            CursorEvent::BeforeSubmitPrompt => Event::Input,
            CursorEvent::PreToolUse
            | CursorEvent::BeforeShellExecution
            | CursorEvent::BeforeReadFile
            | CursorEvent::BeforeMcpExecution
            | CursorEvent::BeforeTabFileRead => Event::ToolExecutionStart,
            CursorEvent::PostToolUse
            | CursorEvent::PostToolUseFailure
            | CursorEvent::AfterShellExecution
            | CursorEvent::AfterFileEdit
            | CursorEvent::AfterMcpExecution
            | CursorEvent::AfterTabFileEdit => Event::ToolExecutionEnd,
            CursorEvent::AfterAgentResponse => Event::MessageEnd,
            CursorEvent::AfterAgentThought => Event::AgentThought,
            CursorEvent::Stop => Event::Stop,
            CursorEvent::SubagentStart => Event::SubagentStart,
            CursorEvent::SubagentStop => Event::SubagentStop,
            CursorEvent::PreCompact => Event::SessionBeforeCompact,
            CursorEvent::WorkspaceOpen => Event::Named,
        }
    }

    /// The tool a Tab event fires for (`TabRead`, `TabWrite`, matched
    /// ignoring case); `None` for the others.
    pub const fn tab_tool(self) -> Option<&'static str> {
        match self {
            CursorEvent::BeforeTabFileRead => Some("TabRead"),
            CursorEvent::AfterTabFileEdit => Some("TabWrite"),
            _ => None,
        }
    }

    /// The tool kind a derived event fires for; `None` for the others.
    pub const fn tool_kind(self) -> Option<ToolKind> {
        match self {
            CursorEvent::BeforeShellExecution | CursorEvent::AfterShellExecution => {
                Some(ToolKind::Shell)
            }
            CursorEvent::BeforeReadFile | CursorEvent::BeforeTabFileRead => Some(ToolKind::Read),
            CursorEvent::AfterFileEdit | CursorEvent::AfterTabFileEdit => Some(ToolKind::Edit),
            CursorEvent::BeforeMcpExecution | CursorEvent::AfterMcpExecution => Some(ToolKind::Mcp),
            _ => None,
        }
    }

    /// Whether its hooks only observe: they run in the background, the call
    /// never waits for them, and their decisions change nothing.
    pub const fn is_observing(self) -> bool {
        matches!(
            self,
            CursorEvent::AfterShellExecution
                | CursorEvent::AfterFileEdit
                | CursorEvent::AfterTabFileEdit
                | CursorEvent::AfterMcpExecution
                | CursorEvent::PostToolUseFailure
                | CursorEvent::AfterAgentResponse
                | CursorEvent::AfterAgentThought
                | CursorEvent::SessionEnd
        )
    }

    /// Whether its matcher is tested against a command line, where it is
    /// always a regex, rather than against a name (Cursor's page: the shell
    /// events match "the full command string"; the file events match the
    /// tool's type, `Read` or `TabRead`, `Write` or `TabWrite`).
    pub const fn matches_text(self) -> bool {
        matches!(
            self,
            CursorEvent::BeforeShellExecution | CursorEvent::AfterShellExecution
        )
    }

    /// Whether it has something for a matcher to test. Cursor's page lists
    /// none for `sessionStart`, `sessionEnd` and `preCompact`: a matcher there
    /// is ignored (with a load warning) and the hook runs every time; nor
    /// for the Tab events.
    pub const fn has_subject(self) -> bool {
        !matches!(
            self,
            CursorEvent::SessionStart
                | CursorEvent::SessionEnd
                | CursorEvent::PreCompact
                | CursorEvent::BeforeTabFileRead
                | CursorEvent::AfterTabFileEdit
                | CursorEvent::WorkspaceOpen
        )
    }
}

/// Cursor's names of each neutral event, from [`CursorEvent::ALL`].
static NAMES: NameColumns<6> = {
    let mut columns = NameColumns::new();
    let mut i = 0;
    while i < CursorEvent::ALL.len() {
        let cursor = CursorEvent::ALL[i];
        columns = columns.with(cursor.event(), cursor.name());
        i += 1;
    }
    columns
};

impl Event {
    /// Cursor's (and OpenHuman's) names for this event: the generic event
    /// first, then the ones by tool kind; empty when it has none. Derived
    /// from [`CursorEvent`].
    ///
    /// ```
    /// use tower_hooks::Event;
    ///
    /// assert_eq!(Event::Stop.cursor_names(), ["stop"]);
    /// assert!(Event::PermissionRequest.cursor_names().is_empty());
    /// ```
    pub fn cursor_names(self) -> &'static [&'static str] {
        NAMES.get(self)
    }
}

/// A name with case, `_` and `-` ignored.
fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names_round_trip_and_match_the_event_table() {
        for event in CursorEvent::ALL {
            assert_eq!(CursorEvent::from_name(event.name()), Some(event));
            assert_eq!(CursorEvent::from_loose(event.name()), Some(event));
            assert!(
                event.event().cursor_names().contains(&event.name()),
                "{} is not in the table's row for {}",
                event.name(),
                event.event()
            );
        }
    }

    /// The column the event table held before it was derived, with the Tab
    /// events since added.
    #[test]
    fn derived_names_are_the_old_table_column() {
        let old: [(Event, &[&str]); Event::COUNT] = [
            (Event::SessionStart, &["sessionStart"]),
            (Event::SessionShutdown, &["sessionEnd"]),
            (Event::BeforeAgentStart, &[]),
            (Event::Input, &["beforeSubmitPrompt"]),
            (Event::TurnStart, &[]),
            (
                Event::ToolExecutionStart,
                &[
                    "preToolUse",
                    "beforeShellExecution",
                    "beforeReadFile",
                    "beforeMCPExecution",
                    "beforeTabFileRead",
                ],
            ),
            (
                Event::ToolExecutionEnd,
                &[
                    "postToolUse",
                    "postToolUseFailure",
                    "afterShellExecution",
                    "afterFileEdit",
                    "afterMCPExecution",
                    "afterTabFileEdit",
                ],
            ),
            (Event::TurnEnd, &[]),
            (Event::MessageEnd, &["afterAgentResponse"]),
            (Event::SessionBeforeCompact, &["preCompact"]),
            (Event::SessionCompact, &[]),
            (Event::PermissionRequest, &[]),
            (Event::PostToolBatch, &[]),
            (Event::Stop, &["stop"]),
            (Event::StopFailure, &[]),
            (Event::Notification, &[]),
            (Event::SubagentStart, &["subagentStart"]),
            (Event::SubagentStop, &["subagentStop"]),
            (Event::InstructionsLoaded, &[]),
            (Event::AgentThought, &["afterAgentThought"]),
            (Event::ModelRequest, &[]),
            (Event::ModelResponse, &[]),
            (Event::ToolSelection, &[]),
            (Event::Named, &["workspaceOpen"]),
        ];
        for (event, names) in old {
            assert_eq!(event.cursor_names(), names, "{event}");
        }
    }

    #[test]
    fn loose_names_and_aliases() {
        for (given, want) in [
            ("PreToolUse", CursorEvent::PreToolUse),
            ("pre-tool-use", CursorEvent::PreToolUse),
            ("BEFORE_SHELL_EXECUTION", CursorEvent::BeforeShellExecution),
            ("SessionStop", CursorEvent::SessionEnd),
            ("ToolUseError", CursorEvent::PostToolUseFailure),
            ("AgentThought", CursorEvent::AfterAgentThought),
        ] {
            assert_eq!(CursorEvent::from_loose(given), Some(want), "{given}");
        }
        assert_eq!(CursorEvent::from_name("PreToolUse"), None);
    }
}
