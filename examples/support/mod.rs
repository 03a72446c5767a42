//! What the example sessions share: how they print a transcript.

use serde_json::Value;

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
