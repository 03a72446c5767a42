//! Events fired by a dialect's own name for them (`hooks test --event
//! PreToolUse`): which dialects have such names, and the request each name
//! and its stdin fields make.

use std::fmt;

use serde_json::{Map, Value};

use crate::event::Event;
use crate::request::HookRequest;
use crate::spec::Dialect;

/// One dialect's names for the events it can be fired at, and how a named
/// event and its stdin fields become a [`HookRequest`]. nanopi's names are
/// [`Event`]'s own and not among these.
///
/// ```
/// use tower_hooks::dialect::{EventNames, NamedEvent};
/// use tower_hooks::{Dialect, Event};
///
/// let claude = EventNames::all().into_iter().find(|n| n.dialect() == Dialect::Claude).unwrap();
/// assert!(claude.names().contains(&"PreToolUse"));
/// let named = NamedEvent::find("preToolUse").unwrap();
/// assert_eq!((named.dialect(), named.event()), (Dialect::Cursor, Event::ToolExecutionStart));
/// assert!(NamedEvent::find("tool_execution_start").is_none()); // nanopi's own
/// ```
#[derive(Clone, Copy)]
pub struct EventNames {
    dialect: Dialect,
    described: &'static str,
    tool_events: &'static str,
    events: fn() -> Vec<(&'static str, Event)>,
    request: fn(&str, Map<String, Value>) -> Result<HookRequest, FireError>,
}

impl EventNames {
    /// The names of `dialect`: `described` says what one is (`a Cursor
    /// event`), `tool_events` names the events that have a tool, `events`
    /// lists each name with the neutral event it fires, and `request` builds
    /// the request of a name and its stdin fields.
    pub(crate) const fn new(
        dialect: Dialect,
        described: &'static str,
        tool_events: &'static str,
        events: fn() -> Vec<(&'static str, Event)>,
        request: fn(&str, Map<String, Value>) -> Result<HookRequest, FireError>,
    ) -> EventNames {
        EventNames {
            dialect,
            described,
            tool_events,
            events,
            request,
        }
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// What one of these names is, for a message: `a Claude Code (and
    /// react-agent-mini) event`.
    pub fn described(&self) -> &'static str {
        self.described
    }

    /// The names of its events that have a tool, for a message:
    /// `PreToolUse, PostToolUse, …`.
    pub fn tool_events(&self) -> &'static str {
        self.tool_events
    }

    /// Every name, in the dialect's order.
    pub fn names(&self) -> Vec<&'static str> {
        (self.events)().into_iter().map(|(name, _)| name).collect()
    }
}

impl fmt::Debug for EventNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventNames")
            .field("dialect", &self.dialect)
            .field("described", &self.described)
            .finish_non_exhaustive()
    }
}

/// An event as a dialect names it, found by that name among every dialect's
/// [`EventNames`].
#[derive(Debug, Clone, Copy)]
pub struct NamedEvent {
    name: &'static str,
    event: Event,
    names: EventNames,
}

impl NamedEvent {
    /// The event some dialect names `name`, asking the dialects in the
    /// loaders' order; `None` when none does (nanopi's names included).
    pub fn find(name: &str) -> Option<NamedEvent> {
        EventNames::all().into_iter().find_map(|names| {
            (names.events)()
                .into_iter()
                .find(|(known, _)| *known == name)
                .map(|(name, event)| NamedEvent { name, event, names })
        })
    }

    /// The name, as the dialect spells it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The neutral event it fires at.
    pub fn event(&self) -> Event {
        self.event
    }

    /// The dialect that names it.
    pub fn dialect(&self) -> Dialect {
        self.names.dialect
    }

    /// The names of its dialect.
    pub fn names(&self) -> &EventNames {
        &self.names
    }

    /// The request for this event whose stdin fields (other than the
    /// envelope's) are `fields`, read as the dialect writes them.
    ///
    /// # Errors
    ///
    /// A field of the wrong JSON type.
    pub fn request(&self, fields: Map<String, Value>) -> Result<HookRequest, FireError> {
        (self.names.request)(self.name, fields)
    }
}

/// Why an event named by a dialect cannot be fired ([`NamedEvent::request`],
/// `claude::request`, `cursor::request`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FireError {
    /// The name is no event of the dialect asked (`expected`: `a Cursor
    /// event`).
    NoSuchEvent {
        /// The name, as given.
        name: String,
        /// What it should have been: `a Cursor event`.
        expected: &'static str,
    },
    /// A field that must have one JSON type has another.
    InvalidField {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

impl FireError {
    /// `name` is not `expected` (`a Cursor event`).
    pub(crate) fn no_such_event(name: &str, expected: &'static str) -> Self {
        FireError::NoSuchEvent {
            name: name.to_owned(),
            expected,
        }
    }

    /// The field `field` is not `expected` (`a string`, `a JSON object`).
    pub(crate) fn invalid(field: &'static str, expected: &'static str) -> Self {
        FireError::InvalidField { field, expected }
    }
}

/// The arguments of a session event (start, end, compaction) fired by name:
/// the reason its stdin states (`source` at a start, `reason` at an end,
/// `trigger` at a compaction, as Claude Code and Gemini CLI name them), as
/// the neutral `reason`; the field is taken out of `fields`.
pub(crate) fn session_args(event: Event, fields: &mut Map<String, Value>) -> Map<String, Value> {
    let key = match event {
        Event::SessionStart => "source",
        Event::SessionShutdown => "reason",
        _ => "trigger",
    };
    let mut args = Map::new();
    if let Some(reason) = fields.remove(key) {
        args.insert("reason".into(), reason);
    }
    args
}

impl fmt::Display for FireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FireError::NoSuchEvent { name, expected } => {
                write!(f, "{name:?} is not {expected}")
            }
            FireError::InvalidField { field, expected } => {
                write!(f, "\"{field}\" must be {expected}")
            }
        }
    }
}

impl std::error::Error for FireError {}
