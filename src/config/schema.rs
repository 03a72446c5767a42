//! The shape of a configuration file, as serde reads it.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use toml::Spanned;

use crate::event::Event;

/// A whole file: only `[hooks]` is ours; every other key belongs to the host and
/// is left alone.
#[derive(Debug, Deserialize)]
pub(super) struct File {
    #[serde(default, deserialize_with = "hooks_table")]
    pub(super) hooks: Option<Hooks>,
}

/// Every entry of one event's list, with where it starts in the file.
pub(super) type List = Vec<Spanned<Table<Entry>>>;

/// A `T` that may only be written as a table. serde would also read a struct
/// from an array, by position, dropping what is left over: `hooks = [[…], […]]`
/// or `turn_start = [["^x$", "command", "./a.sh"]]` would load as something
/// nobody wrote. Those are errors instead.
#[derive(Debug)]
pub(super) struct Table<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Table<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_map(TableVisitor::<T>(PhantomData, TableOf::Entry))
            .map(Table)
    }
}

fn hooks_table<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Hooks>, D::Error> {
    deserializer
        .deserialize_map(TableVisitor::<Hooks>(PhantomData, TableOf::Hooks))
        .map(Some)
}

/// Which table a [`TableVisitor`] reads, for its messages.
#[derive(Debug, Clone, Copy)]
enum TableOf {
    Hooks,
    Entry,
}

struct TableVisitor<T>(PhantomData<T>, TableOf);

impl<'de, T: Deserialize<'de>> Visitor<'de> for TableVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.1 {
            TableOf::Hooks => "a [hooks] table keyed by event name",
            TableOf::Entry => "a hook entry table",
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<T, A::Error> {
        Err(de::Error::custom(match self.1 {
            TableOf::Hooks => {
                "`hooks` is an array, which would be read by position: write a \
                 [[hooks.<event>]] table for each hook instead"
            }
            TableOf::Entry => {
                "a hook entry is an array, which would be read by position: write it as \
                 a table ([[hooks.<event>]] with matcher = …, command = …) instead"
            }
        }))
    }
}

/// `[hooks]`: one list per event, keyed by the snake_case name. Any other key is
/// an error in serde's own words, which list the valid keys.
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    default,
    expecting = "a [hooks] table keyed by event name"
)]
pub(super) struct Hooks {
    session_start: List,
    session_shutdown: List,
    before_agent_start: List,
    input: List,
    turn_start: List,
    tool_execution_start: List,
    tool_execution_end: List,
    turn_end: List,
    message_end: List,
    session_before_compact: List,
    session_compact: List,
}

impl Hooks {
    /// The lists in [`Event::NANOPI`] order.
    pub(super) fn into_lists(self) -> [(Event, List); 11] {
        [
            (Event::SessionStart, self.session_start),
            (Event::SessionShutdown, self.session_shutdown),
            (Event::BeforeAgentStart, self.before_agent_start),
            (Event::Input, self.input),
            (Event::TurnStart, self.turn_start),
            (Event::ToolExecutionStart, self.tool_execution_start),
            (Event::ToolExecutionEnd, self.tool_execution_end),
            (Event::TurnEnd, self.turn_end),
            (Event::MessageEnd, self.message_end),
            (Event::SessionBeforeCompact, self.session_before_compact),
            (Event::SessionCompact, self.session_compact),
        ]
    }
}

/// One `[[hooks.<event>]]` entry. Any other key (`timout`) is an error.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a hook entry table")]
pub(super) struct Entry {
    /// `*` or omitted: every subject; otherwise a regex.
    pub(super) matcher: Option<String>,
    /// `command` when omitted; any other value loads and is skipped at run time.
    #[serde(rename = "type")]
    pub(super) kind: Option<String>,
    /// The shell command; required for `type = "command"`.
    pub(super) command: Option<String>,
    /// Milliseconds; 5000 when omitted.
    pub(super) timeout: Option<u64>,
    /// Block instead of allow when the hook cannot run.
    #[serde(default)]
    pub(super) fail_closed: bool,
    /// How metrics, audit and the CLI name the hook (a tower-hooks extension).
    pub(super) name: Option<String>,
    /// One long-lived process answers every event (a tower-hooks extension).
    #[serde(default)]
    pub(super) persistent: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_name_is_a_field_of_its_own_event() {
        for event in Event::NANOPI {
            let text = format!("[[hooks.{}]]\ncommand = \"x\"\n", event.name());
            let file: File = toml::from_str(&text).unwrap();
            let lists = file.hooks.unwrap().into_lists();
            for (listed, entries) in lists {
                assert_eq!(entries.len(), usize::from(listed == event), "{event}");
            }
        }
    }

    #[test]
    fn lists_come_in_event_table_order() {
        let lists = Hooks::default().into_lists();
        let events: Vec<Event> = lists.iter().map(|(event, _)| *event).collect();
        assert_eq!(events, Event::NANOPI);
    }
}
