//! The neutral lifecycle events and everything that differs between them.
//!
//! An [`Event`] is a neutral event of an agent's lifecycle: nanopi's eleven
//! events, and the events that other hook ecosystems add (a permission prompt,
//! the agent about to stop, a notification, …). Every per-event rule lives in one
//! table, [`TABLE`], keyed by [`Event`]: the neutral and nanopi names, whether a
//! block is enforced, what a transform may replace, what a nanopi matcher is
//! tested against, and the wording an agent shows when a block takes effect. No
//! other module matches on nanopi's event names. The names each dialect gives an
//! event come from that dialect's own event enum
//! ([`Event::claude_names`], [`Event::cursor_names`]).

use std::fmt;
use std::str::FromStr;

/// A neutral lifecycle event an agent fires: one of nanopi's eleven events
/// (the first eleven variants, [`Event::NANOPI`]) or an event that only other
/// dialects have hooks for.
///
/// ```
/// use tower_hooks::{BlockPolicy, Event};
///
/// let event: Event = "tool_execution_start".parse().unwrap();
/// assert_eq!(event.camel_name(), "ToolExecutionStart");
/// assert_eq!(event.block_policy(), BlockPolicy::Enforced);
/// assert!("pre_tool_use".parse::<Event>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Event {
    /// Once, after the agent is constructed, before the first turn.
    SessionStart,
    /// Once before the process exits, and on `/new`, `/resume`, `/fork`, `/import`.
    SessionShutdown,
    /// Top of each turn, before the user message enters context.
    BeforeAgentStart,
    /// Right after `BeforeAgentStart`, before `/skill:` expansion.
    Input,
    /// Top of every agent-loop iteration.
    TurnStart,
    /// Before each tool call executes.
    ToolExecutionStart,
    /// After the tool returns, before the model or the screen sees the result.
    ToolExecutionEnd,
    /// Bottom of every agent-loop iteration.
    TurnEnd,
    /// Once, after the loop ends, before post-turn compaction.
    MessageEnd,
    /// Before compaction runs.
    SessionBeforeCompact,
    /// After compaction succeeds.
    SessionCompact,
    /// A permission prompt is about to be shown for a tool call (Claude Code's
    /// `PermissionRequest`). Arguments: the tool input.
    PermissionRequest,
    /// Once after a batch of parallel tool calls resolved, before the next model
    /// call (Claude Code's `PostToolBatch`). Arguments: `{"tool_calls": […]}`.
    PostToolBatch,
    /// The agent is about to stop (Claude Code's `Stop`, Cursor's `stop`): a block
    /// sends it back to work with the reason as its next instruction. Arguments:
    /// `{"stop_hook_active", "last_assistant_message"}`.
    Stop,
    /// A turn failed with a model error (Claude Code's `StopFailure`). Arguments:
    /// `{"error", "last_assistant_message"}`.
    StopFailure,
    /// A notification to the user (Claude Code's `Notification`). Arguments:
    /// `{"message", "title", "notification_type"}`.
    Notification,
    /// A subagent starts (`SubagentStart`, `subagentStart`). Arguments:
    /// `{"agent_id", "agent_type"}`.
    SubagentStart,
    /// A subagent is about to stop (`SubagentStop`, `subagentStop`): a block keeps
    /// it going. Arguments: `{"agent_id", "agent_type", "stop_hook_active",
    /// "last_assistant_message"}`.
    SubagentStop,
    /// An instructions file was loaded (Claude Code's `InstructionsLoaded`).
    /// Arguments: `{"file_path", "memory_type", "load_reason"}`.
    InstructionsLoaded,
    /// The agent finished a thought (Cursor's `afterAgentThought`). Arguments:
    /// `{"text"}`.
    AgentThought,
    /// Before the agent calls the model (Gemini CLI's `BeforeModel`).
    /// Arguments: `{"llm_request"}`, the host's model request in Gemini CLI's
    /// shape (`model`, `messages`, `config`, `toolConfig`); a rewrite replaces
    /// them, and a block stops the call.
    ModelRequest,
    /// After the model answered, before the agent uses the answer (Gemini
    /// CLI's `AfterModel`). Arguments: `{"llm_request", "llm_response"}`; a
    /// rewrite replaces the response, and a block stops the turn.
    ModelResponse,
    /// Before the model is told which tools it may call (Gemini CLI's
    /// `BeforeToolSelection`). Arguments: `{"llm_request"}`; a rewrite
    /// replaces the request's `toolConfig`. Blocks are dropped.
    ToolSelection,
    /// An event a dialect has and the neutral lifecycle does not (Claude
    /// Code's `TaskCreated`, `ConfigChange`, `CwdChanged`, …), fired by its
    /// name ([`HookRequest::named`](crate::HookRequest::named)) with the
    /// dialect's raw fields as arguments. Only the hooks configured for that
    /// name run, and whether a block takes effect is the dialect's rule for
    /// that name (Claude Code's exit-2 table); by default it does not.
    Named,
}

/// Whether a block from a hook takes effect at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockPolicy {
    /// The block stops the action: the turn ends, or the tool call is refused.
    Enforced,
    /// The block is discarded by design: a session always starts, ends and compacts.
    Advisory,
    /// The call site could have enforced it but throws the decision away.
    Ignored,
    /// The block keeps the agent going, with the reason as its next instruction
    /// (the agent was about to stop).
    FollowUp,
}

impl BlockPolicy {
    /// `true` unless the block takes effect (it is enforced, or it is a follow-up).
    pub const fn drops_blocks(self) -> bool {
        !matches!(self, BlockPolicy::Enforced | BlockPolicy::FollowUp)
    }
}

/// What a hook's `updated_input` may replace at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransformScope {
    /// The whole argument object is replaced (`tool_execution_start`).
    Arguments,
    /// Only the `prompt` key is honored (`before_agent_start`, `input`).
    Prompt,
    /// Top-level `content` (string) and `is_error` (bool) replace the ones in
    /// `tool_response` (`tool_execution_end`). A tower-hooks extension: a
    /// top-level `structured_content` replaces the result's structured content
    /// (`null` removes it), and a changed `content` without it removes it (see
    /// [`ToolResult`](crate::ToolResult#what-hooks-see)).
    ToolResult,
    /// Transforms are ignored.
    None,
}

/// What a hook's `matcher` is tested against at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MatcherSubject {
    /// The tool name.
    ToolName,
    /// The session id.
    SessionId,
    /// `arguments.turn_count`, rendered as a decimal string.
    TurnCount,
    /// `arguments.reason`: `threshold` or `manual`.
    CompactionReason,
    /// The empty string: only `*` or an omitted matcher ever fires.
    Empty,
}

/// One row of the per-event table.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct EventInfo {
    /// The event.
    pub event: Event,
    /// snake_case: the neutral name; for nanopi's events, the config key and the
    /// payload's `event` value.
    pub name: &'static str,
    /// CamelCase: the value of `NANOPI_EVENT` and of the advisory report line.
    pub camel_name: &'static str,
    /// Whether nanopi has this event (its hooks can be configured for it).
    pub nanopi: bool,
    /// Whether a block takes effect.
    pub block_policy: BlockPolicy,
    /// What a transform may replace.
    pub transform_scope: TransformScope,
    /// What the matcher is tested against.
    pub matcher_subject: MatcherSubject,
    /// Whether this is one of the four session or compaction events (no
    /// `NANOPI_TOOL_NAME` is set for them).
    pub session_event: bool,
    /// The text an agent shows for an honored block: `(before, after)` the reason.
    pub refusal: Option<(&'static str, &'static str)>,
}

use BlockPolicy::{Advisory, Enforced, FollowUp, Ignored};
use MatcherSubject as M;
use TransformScope as T;

/// The table: one row per event, in [`Event::ALL`] order.
pub static TABLE: [EventInfo; Event::COUNT] = [
    EventInfo {
        event: Event::SessionStart,
        name: "session_start",
        camel_name: "SessionStart",
        nanopi: true,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::SessionId,
        session_event: true,
        refusal: None,
    },
    EventInfo {
        event: Event::SessionShutdown,
        name: "session_shutdown",
        camel_name: "SessionShutdown",
        nanopi: true,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::SessionId,
        session_event: true,
        refusal: None,
    },
    EventInfo {
        event: Event::BeforeAgentStart,
        name: "before_agent_start",
        camel_name: "BeforeAgentStart",
        nanopi: true,
        block_policy: Enforced,
        transform_scope: T::Prompt,
        matcher_subject: M::TurnCount,
        session_event: false,
        refusal: Some(("[BeforeAgentStart hook blocked the turn: ", "]")),
    },
    EventInfo {
        event: Event::Input,
        name: "input",
        camel_name: "Input",
        nanopi: true,
        block_policy: Enforced,
        transform_scope: T::Prompt,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: Some((
            "your `input` hook refused this prompt (policy, not a failure) \u{2014} ",
            "",
        )),
    },
    EventInfo {
        event: Event::TurnStart,
        name: "turn_start",
        camel_name: "TurnStart",
        nanopi: true,
        block_policy: Ignored,
        transform_scope: T::None,
        matcher_subject: M::TurnCount,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::ToolExecutionStart,
        name: "tool_execution_start",
        camel_name: "ToolExecutionStart",
        nanopi: true,
        block_policy: Enforced,
        transform_scope: T::Arguments,
        matcher_subject: M::ToolName,
        session_event: false,
        refusal: Some(("blocked by hook: ", "")),
    },
    EventInfo {
        event: Event::ToolExecutionEnd,
        name: "tool_execution_end",
        camel_name: "ToolExecutionEnd",
        nanopi: true,
        block_policy: Ignored,
        transform_scope: T::ToolResult,
        matcher_subject: M::ToolName,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::TurnEnd,
        name: "turn_end",
        camel_name: "TurnEnd",
        nanopi: true,
        block_policy: Ignored,
        transform_scope: T::None,
        matcher_subject: M::TurnCount,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::MessageEnd,
        name: "message_end",
        camel_name: "MessageEnd",
        nanopi: true,
        block_policy: Ignored,
        transform_scope: T::None,
        matcher_subject: M::TurnCount,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::SessionBeforeCompact,
        name: "session_before_compact",
        camel_name: "SessionBeforeCompact",
        nanopi: true,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::CompactionReason,
        session_event: true,
        refusal: None,
    },
    EventInfo {
        event: Event::SessionCompact,
        name: "session_compact",
        camel_name: "SessionCompact",
        nanopi: true,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::CompactionReason,
        session_event: true,
        refusal: None,
    },
    EventInfo {
        event: Event::PermissionRequest,
        name: "permission_request",
        camel_name: "PermissionRequest",
        nanopi: false,
        block_policy: Enforced,
        transform_scope: T::Arguments,
        matcher_subject: M::ToolName,
        session_event: false,
        refusal: Some(("", "")),
    },
    EventInfo {
        event: Event::PostToolBatch,
        name: "post_tool_batch",
        camel_name: "PostToolBatch",
        nanopi: false,
        block_policy: Enforced,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: Some(("", "")),
    },
    EventInfo {
        event: Event::Stop,
        name: "stop",
        camel_name: "Stop",
        nanopi: false,
        block_policy: FollowUp,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: Some(("", "")),
    },
    EventInfo {
        event: Event::StopFailure,
        name: "stop_failure",
        camel_name: "StopFailure",
        nanopi: false,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::Notification,
        name: "notification",
        camel_name: "Notification",
        nanopi: false,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::SubagentStart,
        name: "subagent_start",
        camel_name: "SubagentStart",
        nanopi: false,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::SubagentStop,
        name: "subagent_stop",
        camel_name: "SubagentStop",
        nanopi: false,
        block_policy: FollowUp,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: Some(("", "")),
    },
    EventInfo {
        event: Event::InstructionsLoaded,
        name: "instructions_loaded",
        camel_name: "InstructionsLoaded",
        nanopi: false,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::AgentThought,
        name: "agent_thought",
        camel_name: "AgentThought",
        nanopi: false,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::ModelRequest,
        name: "model_request",
        camel_name: "ModelRequest",
        nanopi: false,
        block_policy: Enforced,
        transform_scope: T::Arguments,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: Some(("", "")),
    },
    EventInfo {
        event: Event::ModelResponse,
        name: "model_response",
        camel_name: "ModelResponse",
        nanopi: false,
        block_policy: Enforced,
        transform_scope: T::Arguments,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: Some(("", "")),
    },
    EventInfo {
        event: Event::ToolSelection,
        name: "tool_selection",
        camel_name: "ToolSelection",
        nanopi: false,
        block_policy: Ignored,
        transform_scope: T::Arguments,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: None,
    },
    EventInfo {
        event: Event::Named,
        name: "named",
        camel_name: "Named",
        nanopi: false,
        block_policy: Advisory,
        transform_scope: T::None,
        matcher_subject: M::Empty,
        session_event: false,
        refusal: None,
    },
];

/// The v0.11 names that v0.12 retired, with their replacements. They are load errors.
pub const RETIRED_NAMES: [(&str, Event); 4] = [
    ("pre_tool_use", Event::ToolExecutionStart),
    ("post_tool_use", Event::ToolExecutionEnd),
    ("user_prompt_submit", Event::Input),
    ("session_end", Event::SessionShutdown),
];

impl Event {
    /// How many neutral events there are.
    pub const COUNT: usize = 24;

    /// nanopi's eleven events, in the order of its specification's table.
    pub const NANOPI: [Event; 11] = [
        Event::SessionStart,
        Event::SessionShutdown,
        Event::BeforeAgentStart,
        Event::Input,
        Event::TurnStart,
        Event::ToolExecutionStart,
        Event::ToolExecutionEnd,
        Event::TurnEnd,
        Event::MessageEnd,
        Event::SessionBeforeCompact,
        Event::SessionCompact,
    ];

    /// Every neutral event: nanopi's eleven events, then the others.
    pub const ALL: [Event; Event::COUNT] = [
        Event::SessionStart,
        Event::SessionShutdown,
        Event::BeforeAgentStart,
        Event::Input,
        Event::TurnStart,
        Event::ToolExecutionStart,
        Event::ToolExecutionEnd,
        Event::TurnEnd,
        Event::MessageEnd,
        Event::SessionBeforeCompact,
        Event::SessionCompact,
        Event::PermissionRequest,
        Event::PostToolBatch,
        Event::Stop,
        Event::StopFailure,
        Event::Notification,
        Event::SubagentStart,
        Event::SubagentStop,
        Event::InstructionsLoaded,
        Event::AgentThought,
        Event::ModelRequest,
        Event::ModelResponse,
        Event::ToolSelection,
        Event::Named,
    ];

    /// The event's position in [`Event::ALL`] and [`TABLE`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// This event's row of the table.
    pub fn info(self) -> &'static EventInfo {
        &TABLE[self.index()]
    }

    /// The snake_case name: config key and payload `event`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The CamelCase name carried by `NANOPI_EVENT`.
    pub fn camel_name(self) -> &'static str {
        self.info().camel_name
    }

    /// Whether a block takes effect at this event.
    pub fn block_policy(self) -> BlockPolicy {
        self.info().block_policy
    }

    /// What a transform may replace at this event.
    pub fn transform_scope(self) -> TransformScope {
        self.info().transform_scope
    }

    /// What the matcher is tested against at this event.
    pub fn matcher_subject(self) -> MatcherSubject {
        self.info().matcher_subject
    }

    /// Whether this is one of the four session or compaction events.
    pub fn is_session_event(self) -> bool {
        self.info().session_event
    }

    /// The text an agent shows when a block with `reason` takes effect here, or
    /// `None` where blocks do not take effect.
    ///
    /// ```
    /// use tower_hooks::Event;
    /// assert_eq!(
    ///     Event::BeforeAgentStart.refusal_message("no").as_deref(),
    ///     Some("[BeforeAgentStart hook blocked the turn: no]"),
    /// );
    /// assert_eq!(Event::TurnStart.refusal_message("no"), None);
    /// ```
    pub fn refusal_message(self, reason: &str) -> Option<String> {
        self.info()
            .refusal
            .map(|(before, after)| format!("{before}{reason}{after}"))
    }

    /// Looks up one of nanopi's snake_case names (the config keys).
    pub fn from_name(name: &str) -> Option<Event> {
        TABLE
            .iter()
            .find(|row| row.nanopi && row.name == name)
            .map(|row| row.event)
    }

    /// Looks up any event's neutral name (`stop`, `permission_request`, …).
    pub fn from_neutral_name(name: &str) -> Option<Event> {
        TABLE
            .iter()
            .find(|row| row.name == name)
            .map(|row| row.event)
    }

    /// Whether nanopi has this event.
    pub fn is_nanopi(self) -> bool {
        self.info().nanopi
    }
}

/// A dialect's names for each neutral event, at most `W` per event, built at
/// compile time from the dialect's event enum (see [`Event::claude_names`]).
#[derive(Debug)]
pub(crate) struct NameColumns<const W: usize> {
    names: [[&'static str; W]; Event::COUNT],
    lens: [usize; Event::COUNT],
}

impl<const W: usize> NameColumns<W> {
    /// No names.
    pub(crate) const fn new() -> Self {
        NameColumns {
            names: [[""; W]; Event::COUNT],
            lens: [0; Event::COUNT],
        }
    }

    /// Adds `name` after the names `event` has (a compile error past `W`).
    pub(crate) const fn with(mut self, event: Event, name: &'static str) -> Self {
        let i = event.index();
        self.names[i][self.lens[i]] = name;
        self.lens[i] += 1;
        self
    }

    /// The names of `event`, in the order they were added.
    pub(crate) fn get(&'static self, event: Event) -> &'static [&'static str] {
        let i = event.index();
        &self.names[i][..self.lens[i]]
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Event {
    type Err = UnknownEvent;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Event::from_name(s).ok_or_else(|| UnknownEvent::new(s))
    }
}

impl serde::Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A name that is not one of the eleven events.
///
/// ```
/// use tower_hooks::Event;
///
/// let err = "ToolExecutionStart".parse::<Event>().unwrap_err();
/// assert_eq!(err.suggestion(), Some(Event::ToolExecutionStart));
/// assert!(err.to_string().starts_with(
///     "unknown hook event \"ToolExecutionStart\" (did you mean \"tool_execution_start\"?); expected one of: "
/// ));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEvent {
    name: String,
    suggestion: Option<Event>,
}

impl UnknownEvent {
    fn new(name: &str) -> Self {
        let retired = RETIRED_NAMES.iter().any(|(old, _)| *old == name);
        // A CamelCase spelling (`ToolExecutionStart`, or a v0.11 `PreToolUse`),
        // or a close misspelling.
        let suggestion = (!retired)
            .then(|| {
                let names = TABLE.iter().filter(|row| row.nanopi).map(|row| row.name);
                let old_names = RETIRED_NAMES.iter().map(|(old, _)| *old);
                crate::suggest::closest(name, names.chain(old_names))
            })
            .flatten()
            .and_then(|close| {
                Event::from_name(close).or_else(|| {
                    RETIRED_NAMES
                        .iter()
                        .find(|(old, _)| *old == close)
                        .map(|(_, new)| *new)
                })
            });
        UnknownEvent {
            name: name.to_owned(),
            suggestion,
        }
    }

    /// The name that was not recognised.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The event that was most likely meant: the snake_case name of a CamelCase
    /// spelling, or of a close misspelling.
    pub fn suggestion(&self) -> Option<Event> {
        self.suggestion
    }
}

impl fmt::Display for UnknownEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown hook event \"{}\"", self.name)?;
        if let Some((_, new)) = RETIRED_NAMES.iter().find(|(old, _)| *old == self.name) {
            write!(f, " (renamed to \"{}\" in v0.12)", new.name())?;
        } else if let Some(event) = self.suggestion {
            write!(f, " (did you mean \"{}\"?)", event.name())?;
        }
        f.write_str("; expected one of: ")?;
        for (i, row) in TABLE.iter().filter(|row| row.nanopi).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(row.name)?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownEvent {}

#[cfg(test)]
mod tests;
