//! What the JSON dialects' stdin envelopes share: an object written field by
//! field in a fixed order, the host's wire fields laid over it, and the
//! arguments of events a dialect has no fields of its own for.

use std::borrow::Cow;

use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::outcome::DEFAULT_BLOCK_REASON;

/// An envelope's fields, in the order they are written.
pub(crate) type Entries<'r> = Vec<(&'r str, Cow<'r, Value>)>;

/// Lays `fields` over `entries`: a field of the same name replaces the
/// engine's value where it stands; the others are added at the end.
pub(crate) fn lay_over<'r>(entries: &mut Entries<'r>, fields: &'r Map<String, Value>) {
    for (key, value) in entries.iter_mut() {
        if let Some(given) = fields.get(*key) {
            *value = Cow::Borrowed(given);
        }
    }
    for (key, value) in fields {
        if !entries.iter().any(|(k, _)| k == key) {
            entries.push((key.as_str(), Cow::Borrowed(value)));
        }
    }
}

/// Every field of `args` not written yet and not in `skip`, as it is.
pub(crate) fn copy_others<'r>(args: &'r Value, skip: &[&str], out: &mut Entries<'r>) {
    if let Value::Object(map) = args {
        for (key, value) in map {
            if !skip.contains(&key.as_str()) && !out.iter().any(|(k, _)| k == key) {
                out.push((key.as_str(), Cow::Borrowed(value)));
            }
        }
    }
}

/// The entries as one JSON object on one line, and a newline.
pub(crate) fn line(entries: &Entries<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    {
        let mut ser = serde_json::Serializer::new(&mut out);
        // Strings and `Value`s written into a Vec cannot fail to serialize.
        let mut map = ser
            .serialize_map(Some(entries.len()))
            .expect("a JSON map always serializes");
        for (key, value) in entries {
            map.serialize_entry(key, value.as_ref())
                .expect("a JSON value always serializes");
        }
        map.end().expect("a JSON map always serializes");
    }
    out.push(b'\n');
    out
}

/// The reason of an exit-2 deny in the dialects that fall back to stdout
/// (Cursor, react-agent-mini): stderr, else stdout, trimmed, else `blocked by
/// hook`.
pub(crate) fn deny_reason(stderr: &[u8], stdout: &[u8]) -> String {
    [stderr, stdout]
        .into_iter()
        .map(|bytes| String::from_utf8_lossy(bytes).trim().to_owned())
        .find(|text| !text.is_empty())
        .unwrap_or_else(|| DEFAULT_BLOCK_REASON.to_owned())
}
