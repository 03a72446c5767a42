//! Gemini CLI's events: their names, the neutral event each fires at, what a
//! `matcher` is tested against there, and which fields of an answer act.

use crate::event::Event;

/// One of the events of a Gemini CLI `settings.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GeminiEvent {
    /// `SessionStart`: at startup, on resume, after `/clear` (`source`).
    SessionStart,
    /// `SessionEnd`: on exit and on `/clear` (`reason`).
    SessionEnd,
    /// `BeforeAgent`: a prompt was submitted.
    BeforeAgent,
    /// `AfterAgent`: the agent is about to stop; a block sends it back.
    AfterAgent,
    /// `BeforeModel`: before each model call.
    BeforeModel,
    /// `AfterModel`: after the model answered.
    AfterModel,
    /// `BeforeToolSelection`: before the model is told which tools it may call.
    BeforeToolSelection,
    /// `BeforeTool`: before a tool runs.
    BeforeTool,
    /// `AfterTool`: after a tool returned, failed ones included.
    AfterTool,
    /// `PreCompress`: before the history is compressed (`trigger`).
    PreCompress,
    /// `Notification`: the agent tells the person something (a tool needs
    /// confirmation). Observe only.
    Notification,
}

/// How a definition's `matcher` is read at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatcherKind {
    /// An unanchored regex on the Gemini tool name.
    ToolRegex,
    /// Equal to the event's `source`, `reason` or `trigger`.
    Exact,
    /// Ignored: the hook always runs.
    Ignored,
}

impl GeminiEvent {
    /// Every event, in the order of Gemini CLI's reference.
    pub const ALL: [GeminiEvent; 11] = [
        GeminiEvent::SessionStart,
        GeminiEvent::SessionEnd,
        GeminiEvent::BeforeAgent,
        GeminiEvent::AfterAgent,
        GeminiEvent::BeforeModel,
        GeminiEvent::AfterModel,
        GeminiEvent::BeforeToolSelection,
        GeminiEvent::BeforeTool,
        GeminiEvent::AfterTool,
        GeminiEvent::PreCompress,
        GeminiEvent::Notification,
    ];

    /// The name, as a settings file writes it.
    pub const fn name(self) -> &'static str {
        match self {
            GeminiEvent::SessionStart => "SessionStart",
            GeminiEvent::SessionEnd => "SessionEnd",
            GeminiEvent::BeforeAgent => "BeforeAgent",
            GeminiEvent::AfterAgent => "AfterAgent",
            GeminiEvent::BeforeModel => "BeforeModel",
            GeminiEvent::AfterModel => "AfterModel",
            GeminiEvent::BeforeToolSelection => "BeforeToolSelection",
            GeminiEvent::BeforeTool => "BeforeTool",
            GeminiEvent::AfterTool => "AfterTool",
            GeminiEvent::PreCompress => "PreCompress",
            GeminiEvent::Notification => "Notification",
        }
    }

    /// The event named exactly `name`.
    pub fn from_name(name: &str) -> Option<GeminiEvent> {
        GeminiEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The neutral event it fires at.
    pub const fn point(self) -> Event {
        match self {
            GeminiEvent::SessionStart => Event::SessionStart,
            GeminiEvent::SessionEnd => Event::SessionShutdown,
            GeminiEvent::BeforeAgent => Event::Input,
            GeminiEvent::AfterAgent => Event::Stop,
            GeminiEvent::BeforeModel => Event::ModelRequest,
            GeminiEvent::AfterModel => Event::ModelResponse,
            GeminiEvent::BeforeToolSelection => Event::ToolSelection,
            GeminiEvent::BeforeTool => Event::ToolExecutionStart,
            GeminiEvent::AfterTool => Event::ToolExecutionEnd,
            GeminiEvent::PreCompress => Event::SessionBeforeCompact,
            GeminiEvent::Notification => Event::Notification,
        }
    }

    /// The Gemini CLI event at the neutral `event`, if it has one.
    pub fn at(event: Event) -> Option<GeminiEvent> {
        GeminiEvent::ALL.into_iter().find(|e| e.point() == event)
    }

    /// How a `matcher` is read here.
    pub(crate) const fn matcher_kind(self) -> MatcherKind {
        match self {
            GeminiEvent::BeforeTool | GeminiEvent::AfterTool => MatcherKind::ToolRegex,
            GeminiEvent::SessionStart | GeminiEvent::SessionEnd | GeminiEvent::PreCompress => {
                MatcherKind::Exact
            }
            _ => MatcherKind::Ignored,
        }
    }

    /// The value a hook at this event sees for the neutral request's
    /// `reason` (its `source`, `reason` or `trigger`): Gemini CLI's words for
    /// the library's (a session start `new` is `clear`, `import` and `fork`
    /// are `resume`; a shutdown `quit` is `exit`, `new` is `clear`, the
    /// others are `other`; a compaction at the `threshold` is `auto`). A value
    /// already in Gemini CLI's words passes through.
    pub fn session_value(self, reason: &str) -> &str {
        match (self, reason) {
            (GeminiEvent::SessionStart, "new") => "clear",
            (GeminiEvent::SessionStart, "import" | "fork") => "resume",
            (GeminiEvent::SessionEnd, "quit") => "exit",
            (GeminiEvent::SessionEnd, "new") => "clear",
            (GeminiEvent::SessionEnd, "resume" | "import" | "fork") => "other",
            (GeminiEvent::PreCompress, "threshold") => "auto",
            (_, other) => other,
        }
    }

    /// Whether `hookSpecificOutput.additionalContext` reaches the model here.
    pub(crate) const fn takes_context(self) -> bool {
        matches!(
            self,
            GeminiEvent::BeforeAgent | GeminiEvent::AfterTool | GeminiEvent::SessionStart
        )
    }

    /// Whether a `decision` counts here (it is ignored on the events that
    /// only observe, and on `BeforeToolSelection`).
    pub(crate) const fn takes_decision(self) -> bool {
        !matches!(
            self,
            GeminiEvent::SessionStart
                | GeminiEvent::SessionEnd
                | GeminiEvent::PreCompress
                | GeminiEvent::Notification
                | GeminiEvent::BeforeToolSelection
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_points_are_distinct() {
        for event in GeminiEvent::ALL {
            assert_eq!(GeminiEvent::from_name(event.name()), Some(event));
            assert_eq!(GeminiEvent::at(event.point()), Some(event));
        }
        assert_eq!(GeminiEvent::from_name("PreToolUse"), None);
    }

    #[test]
    fn session_values_are_gemini_clis_words() {
        assert_eq!(GeminiEvent::SessionStart.session_value("new"), "clear");
        assert_eq!(
            GeminiEvent::SessionStart.session_value("startup"),
            "startup"
        );
        assert_eq!(GeminiEvent::SessionEnd.session_value("quit"), "exit");
        assert_eq!(GeminiEvent::SessionEnd.session_value("logout"), "logout");
        assert_eq!(GeminiEvent::PreCompress.session_value("threshold"), "auto");
    }

    #[test]
    fn the_model_points_are_not_nanopi_events() {
        for event in [
            GeminiEvent::BeforeModel,
            GeminiEvent::AfterModel,
            GeminiEvent::BeforeToolSelection,
        ] {
            assert!(!event.point().is_nanopi());
        }
    }
}
