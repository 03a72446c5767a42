//! What the example sessions share: how they print a transcript.
//!
//! Each example uses a part of this module, hence the `dead_code` allowance.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use serde_json::Value;

/// The lines of a session's transcript, kept for the test and printed as they
/// come when asked to.
#[derive(Clone, Default)]
pub(crate) struct Transcript {
    lines: Arc<Mutex<Vec<String>>>,
    print: bool,
}

impl Transcript {
    /// A transcript that prints each line too.
    pub(crate) fn printed() -> Self {
        Transcript {
            print: true,
            ..Transcript::default()
        }
    }

    /// Adds a line.
    pub(crate) fn say(&self, line: impl Into<String>) {
        let line = line.into();
        if self.print {
            println!("{line}");
        }
        self.lines.lock().unwrap().push(line);
    }

    /// Every line so far (for `tests/examples`).
    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

/// What a transform changed, as `key = value` of the top-level keys that differ.
pub(crate) fn changed(before: &Value, after: &Value) -> String {
    let (Some(before), Some(after)) = (before.as_object(), after.as_object()) else {
        return after.to_string();
    };
    let keys: Vec<String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k} = {}", shorten(&v.to_string(), 100)))
        .collect();
    keys.join(", ")
}

/// `text`, cut to `max` characters with `…` when longer.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(max - 1).collect();
    short.push('…');
    short
}
