//! A Claude Code hooks file as derived types: the top level, a matcher group
//! and a handler. Each field checks its value, and an error is placed by its
//! JSON path; what must be checked after something else (a group's handlers
//! only once its matcher compiled) is kept as written until then.

use std::collections::BTreeMap;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess};
use serde::Deserialize;
use serde_json::Value;

use crate::config::derived::{refuse, refuse_described, shaped, Refused, Shape};
use crate::config::ConfigErrorKind;

/// What a string field must be.
pub(super) const A_STRING: &str = "a string";
/// What a flag must be.
pub(super) const A_FLAG: &str = "true or false";
/// What `args` (and any other list of strings) must be.
pub(super) const STRINGS: &str = "an array of strings";
/// What `headers` must be.
const HEADERS: &str = "an object of header names and string values";
/// What a header's name must be.
const OWN_HEADERS: &str = "headers the HTTP client does not set itself (not Host, \
                           Content-Length, Transfer-Encoding or Connection)";
/// What `onFailure` must be.
const ON_FAILURE: &str = "\"block\" or \"allow\"";
/// What `timeout` must be.
const SECONDS: &str = "a positive number of seconds";
/// Every refusal a handler's fields raise.
const REFUSALS: [&str; 7] = [
    A_STRING,
    A_FLAG,
    STRINGS,
    HEADERS,
    OWN_HEADERS,
    ON_FAILURE,
    SECONDS,
];

/// What the top level must be.
pub(super) const A_JSON_OBJECT: &str = "a JSON object";
/// What an event's value in `hooks` must be.
pub(super) const GROUPS: &str = "an array of matcher groups";
/// What a matcher group must be.
pub(super) const AN_OBJECT: &str = "an object";
/// What a matcher group's `hooks` must be.
pub(super) const HANDLERS: &str = "an array of handlers";

/// The top level: each key with its last value (as `JSON.parse` keeps a key
/// written twice), the values that are objects with their keys in file
/// order, so that `hooks` lists its events as written.
///
/// A map rather than a derived struct: a struct's derive refuses a key
/// written twice, which Claude Code reads as its last value.
pub(super) struct Top(pub(super) BTreeMap<String, Written<InOrder>>);

impl<'de> Shape<'de> for Top {
    const EXPECTED: &'static str = A_JSON_OBJECT;

    fn map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        BTreeMap::deserialize(MapAccessDeserializer::new(map)).map(Top)
    }
}

deserialize_by_shape!(Top);

/// A value as written: a `T` when it reads as one, else as it is, for a
/// check that must wait its turn.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Written<T> {
    /// It reads as a `T`.
    Shaped(T),
    /// It does not.
    Other(Value),
}

/// An object's entries in file order; a key written twice keeps its last
/// value where it first stood.
#[derive(Debug)]
pub(super) struct InOrder(pub(super) Vec<(String, Value)>);

impl<'de> Shape<'de> for InOrder {
    const EXPECTED: &'static str = AN_OBJECT;

    fn map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        crate::config::read::entries_in_order(map).map(InOrder)
    }
}

deserialize_by_shape!(InOrder);

impl Written<InOrder> {
    /// The value as written.
    pub(super) fn into_value(self) -> Value {
        match self {
            Written::Shaped(InOrder(entries)) => Value::Object(entries.into_iter().collect()),
            Written::Other(value) => value,
        }
    }
}

/// The top-level keys read besides `hooks`, in the order they are checked
/// (the first fault of a file is the first one met in this order).
pub(super) const SWITCHES: [&str; 5] = [
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "hooksDisabled",
];

/// The [`SWITCHES`], each checked.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Switches {
    #[serde(default, deserialize_with = "string_list")]
    pub(super) allowed_http_hook_urls: Option<Vec<String>>,
    #[serde(default, deserialize_with = "string_list")]
    pub(super) http_hook_allowed_env_vars: Option<Vec<String>>,
    #[serde(default, deserialize_with = "flag")]
    pub(super) disable_all_hooks: Option<bool>,
    #[serde(default, deserialize_with = "flag")]
    pub(super) allow_managed_hooks_only: Option<bool>,
    /// Factory Droid's switch, which Claude Code does not read: taken when it
    /// is a boolean, never a fault of the file.
    #[serde(default)]
    pub(super) hooks_disabled: Option<Value>,
}

/// An event's matcher groups, each as written; `null` is none.
pub(super) struct Groups(pub(super) Option<Vec<Value>>);

impl<'de> Shape<'de> for Groups {
    const EXPECTED: &'static str = GROUPS;

    fn null<E: de::Error>() -> Result<Self, E> {
        Ok(Groups(None))
    }

    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut groups = Vec::new();
        while let Some(group) = seq.next_element()? {
            groups.push(group);
        }
        Ok(Groups(Some(groups)))
    }
}

deserialize_by_shape!(Groups);

/// A matcher group: an object (an array is no group, though a derived
/// struct would read one) with its `matcher` checked and its `hooks` as
/// written, read once the matcher compiled.
pub(super) struct Group(pub(super) RawGroup);

/// A matcher group's keys; the others are left alone.
#[derive(Debug, Deserialize)]
pub(super) struct RawGroup {
    #[serde(default, deserialize_with = "string")]
    pub(super) matcher: Option<String>,
    /// `null` included: it is a `hooks` of the wrong type, not a missing one.
    #[serde(default, deserialize_with = "as_written")]
    pub(super) hooks: Option<Value>,
}

impl<'de> Shape<'de> for Group {
    const EXPECTED: &'static str = AN_OBJECT;

    fn map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        RawGroup::deserialize(MapAccessDeserializer::new(map)).map(Group)
    }
}

deserialize_by_shape!(Group);

/// A group's handlers, each as written.
pub(super) struct Handlers(pub(super) Vec<Value>);

impl<'de> Shape<'de> for Handlers {
    const EXPECTED: &'static str = HANDLERS;

    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut handlers = Vec::new();
        while let Some(handler) = seq.next_element()? {
            handlers.push(handler);
        }
        Ok(Handlers(handlers))
    }
}

deserialize_by_shape!(Handlers);

/// Any value, `null` included, kept as written.
fn as_written<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `true` or `false`; `null` is none.
fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(b)),
        other => Err(refuse(A_FLAG, &other)),
    }
}

/// A handler as written, each field checked (`null` is as good as absent).
/// The keys it does not name are left alone.
#[derive(Debug, Deserialize)]
pub(super) struct RawHandler {
    #[serde(default, rename = "type", deserialize_with = "string")]
    pub(super) kind: Option<String>,
    #[serde(default, deserialize_with = "string")]
    pub(super) command: Option<String>,
    #[serde(default, deserialize_with = "string_list")]
    pub(super) args: Option<Vec<String>>,
    #[serde(default, deserialize_with = "string")]
    pub(super) shell: Option<String>,
    #[serde(default, rename = "async", deserialize_with = "flag_field")]
    pub(super) is_async: bool,
    #[serde(default, rename = "asyncRewake", deserialize_with = "flag_field")]
    pub(super) rewake: bool,
    #[serde(default, deserialize_with = "flag_field")]
    pub(super) once: bool,
    #[serde(default, deserialize_with = "flag_field")]
    pub(super) persistent: bool,
    #[serde(default, rename = "continueOnBlock", deserialize_with = "flag_field")]
    pub(super) continue_on_block: bool,
    #[serde(default, rename = "statusMessage", deserialize_with = "string")]
    pub(super) status_message: Option<String>,
    #[serde(default, deserialize_with = "string")]
    pub(super) prompt: Option<String>,
    #[serde(default, deserialize_with = "string")]
    pub(super) model: Option<String>,
    #[serde(default, deserialize_with = "string")]
    pub(super) server: Option<String>,
    #[serde(default, deserialize_with = "string")]
    pub(super) tool: Option<String>,
    #[serde(default)]
    pub(super) input: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default, deserialize_with = "string")]
    pub(super) url: Option<String>,
    #[serde(default)]
    pub(super) headers: Headers,
    #[serde(default, rename = "allowedEnvVars", deserialize_with = "string_list")]
    pub(super) allowed_env_vars: Option<Vec<String>>,
    #[serde(default, rename = "onFailure", deserialize_with = "on_failure")]
    pub(super) fail_closed: bool,
    #[serde(default, deserialize_with = "timeout_seconds")]
    pub(super) timeout: Option<serde_json::Number>,
    #[serde(default, rename = "if", deserialize_with = "string")]
    pub(super) if_rule: Option<String>,
    /// Whether `failClosed` is written (Cursor's key, not Claude Code's).
    #[serde(default, rename = "failClosed", deserialize_with = "written")]
    pub(super) fail_closed_camel: bool,
    /// Whether `fail_closed` is written.
    #[serde(default, rename = "fail_closed", deserialize_with = "written")]
    pub(super) fail_closed_snake: bool,
}

/// A string; `null` is none.
pub(super) fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(refuse(A_STRING, &other)),
    }
}

fn flag_field<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(b),
        other => Err(refuse(A_FLAG, &other)),
    }
}

/// Whatever the value, the key is written.
fn written<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

/// `args`, `allowedEnvVars`: strings, each item placed by its index.
pub(super) fn string_list<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<String>>, D::Error> {
    shaped::<StringList, D>(d).map(|list| list.0)
}

/// A list of strings; `null` is none.
struct StringList(Option<Vec<String>>);

impl<'de> Shape<'de> for StringList {
    const EXPECTED: &'static str = STRINGS;

    fn null<E: de::Error>() -> Result<Self, E> {
        Ok(StringList(None))
    }

    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut items = Vec::new();
        while let Some(Text(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(StringList(Some(items)))
    }
}

/// A string item or value, refused (at its own place) when it is not one.
struct Text(String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(Text(s)),
            other => Err(refuse(A_STRING, &other)),
        }
    }
}

/// `headers`: names the client does not set itself, each with a string.
#[derive(Debug, Default)]
pub(super) struct Headers(pub(super) Vec<(String, String)>);

impl<'de> Shape<'de> for Headers {
    const EXPECTED: &'static str = HEADERS;

    fn null<E: de::Error>() -> Result<Self, E> {
        Ok(Headers::default())
    }

    fn map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        const FRAMING: [&str; 4] = ["host", "content-length", "transfer-encoding", "connection"];
        let mut headers = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            if FRAMING.contains(&name.to_ascii_lowercase().as_str()) {
                return Err(refuse_described(OWN_HEADERS, &format!("{name:?}")));
            }
            let Text(value) = map.next_value()?;
            headers.push((name, value));
        }
        Ok(Headers(headers))
    }
}

deserialize_by_shape!(Headers);

/// `onFailure`: `"block"` fails closed; `"allow"` and nothing fail open.
fn on_failure<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(false),
        Value::String(s) if s == "allow" => Ok(false),
        Value::String(s) if s == "block" => Ok(true),
        other @ Value::String(_) => Err(refuse(ON_FAILURE, &other)),
        other => Err(refuse(A_STRING, &other)),
    }
}

/// `timeout`: a positive number (of seconds).
fn timeout_seconds<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<serde_json::Number>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Number(n) if n.as_f64().is_some_and(|s| s > 0.0) => Ok(Some(n)),
        other => Err(refuse(SECONDS, &other)),
    }
}

/// The error of a refusal in the handler at `at`, placed as the handler's
/// messages place it: `"timeout" of …`, `"args"[2] of …`, `"headers"."X-A"
/// of …`, `item 0 of "allowedEnvVars" of …`.
pub(super) fn handler_error(
    err: &serde_path_to_error::Error<serde_json::Error>,
    at: &str,
) -> ConfigErrorKind {
    use serde_path_to_error::Segment;
    let Some(refusal) = Refused::read(err, &REFUSALS) else {
        // Every check of a handler's fields is a refusal; this is serde's own.
        return ConfigErrorKind::InvalidValue {
            at: format!("{} of {at}", err.path()),
            expected: "a handler's field",
            found: err.inner().to_string(),
        };
    };
    let segments: Vec<&Segment> = refusal.path.iter().collect();
    let place = match segments.as_slice() {
        [Segment::Map { key }] => format!("\"{key}\" of {at}"),
        [Segment::Map { key }, Segment::Seq { index }] if key == "allowedEnvVars" => {
            format!("item {index} of \"{key}\" of {at}")
        }
        [Segment::Map { key }, Segment::Seq { index }] => format!("\"{key}\"[{index}] of {at}"),
        [Segment::Map { key }, Segment::Map { key: name }] => {
            format!("\"{key}\".{name:?} of {at}")
        }
        _ => format!("{} of {at}", refusal.path),
    };
    refusal.at(place)
}
