//! The shape of a configuration file, as serde reads it.

use serde::Deserialize;

use crate::event::Event;

/// A whole file: only `[hooks]` is ours; every other key belongs to the host and
/// is left alone.
#[derive(Debug, Deserialize)]
pub(super) struct File {
    pub(super) hooks: Option<Hooks>,
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
    session_start: Vec<Entry>,
    session_shutdown: Vec<Entry>,
    before_agent_start: Vec<Entry>,
    input: Vec<Entry>,
    turn_start: Vec<Entry>,
    tool_execution_start: Vec<Entry>,
    tool_execution_end: Vec<Entry>,
    turn_end: Vec<Entry>,
    message_end: Vec<Entry>,
    session_before_compact: Vec<Entry>,
    session_compact: Vec<Entry>,
}

impl Hooks {
    /// The lists in [`Event::ALL`] order.
    pub(super) fn into_lists(self) -> [(Event, Vec<Entry>); 11] {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_name_is_a_field_of_its_own_event() {
        for event in Event::ALL {
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
        assert_eq!(events, Event::ALL);
    }
}
