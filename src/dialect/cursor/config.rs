//! Cursor's `hooks.json` (and OpenHuman's): one flat list of entries per event.
//!
//! ```json
//! {"version": 1,
//!  "hooks": {"beforeShellExecution": [{"command": ".cursor/hooks/guard.sh", "matcher": "rm|curl",
//!                                      "timeout": 10, "failClosed": true}]}}
//! ```
//!
//! Each entry: `command` (required), `type` (`command`; `prompt` loads with a
//! warning and never runs), `matcher`, `timeout` in **seconds** (default 30),
//! `failClosed` (also `fail_closed`), `loop_limit` (default 5; `0` or `null`:
//! no limit), `enabled` (`false`: listed, never run), `model`, and this
//! crate's `persistent`. Event keys match loosely ([`CursorEvent::from_loose`]).
//!
//! Problems: JSON that does not parse (with its line and column), a value of
//! the wrong type and an entry without a command are errors naming the file; a
//! `version` other than 1 (the file is skipped), an unknown event, a matcher
//! that does not compile (it selects nothing) and a type that does not run are
//! warnings.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::event::CursorEvent;
use super::matcher::CursorMatcher;
use crate::config::derived::{refuse, refuse_described, Refused};
use crate::config::read::read_config;
use crate::config::{
    invalid_value as invalid, ConfigError, ConfigErrorKind, ConfigWarningKind, MAX_CONFIG_SIZE,
};

/// A hook's timeout when its entry names none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How many follow-ups a hook may cause in a session when its entry names no
/// `loop_limit`.
pub const DEFAULT_LOOP_LIMIT: u32 = 5;

/// One entry of a `hooks.json`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CursorEntry {
    /// The event it fires on.
    pub event: CursorEvent,
    /// The event's key, as written.
    pub written: String,
    /// Its position in that key's list, from 0.
    pub index: usize,
    /// `type`: `command`, or a type this host does not run.
    pub kind: String,
    /// The shell command, run with `sh -c`.
    pub command: String,
    /// The matcher as written; `None` when omitted.
    pub matcher: Option<String>,
    /// The compiled matcher ([`CursorMatcher::Nothing`] when it does not compile).
    pub pattern: CursorMatcher,
    /// `timeout`, or [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// `failClosed`: a failure denies.
    pub fail_closed: bool,
    /// `loop_limit`: `None` for no limit.
    pub loop_limit: Option<u32>,
    /// `enabled`.
    pub enabled: bool,
    /// `persistent`: one long-lived process answers every event.
    pub persistent: bool,
    /// `prompt`, for a `prompt` entry: what a model is asked.
    pub prompt: Option<String>,
}

/// A loaded `hooks.json`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CursorFile {
    /// Its entries, in file order (key by key, each key's in order); empty
    /// when the file's `version` is not 1.
    pub entries: Vec<CursorEntry>,
    /// What loads but looks wrong, in file order.
    pub warnings: Vec<ConfigWarningKind>,
}

/// Reads the `hooks.json` at `path` (a regular file of at most
/// [`MAX_CONFIG_SIZE`] bytes of UTF-8). Errors name the file.
pub fn load(path: &Path) -> Result<CursorFile, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    parse(&text).map_err(|kind| ConfigError::new(path, kind))
}

/// Reads the text of a `hooks.json`. See the [module docs](self).
///
/// ```
/// use tower_hooks::dialect::cursor::config::parse;
/// use tower_hooks::dialect::cursor::CursorEvent;
///
/// let file = parse(r#"{"version": 1, "hooks": {"pre_tool_use": [{"command": "./guard.sh", "timeout": 2}]}}"#)?;
/// assert_eq!(file.entries[0].event, CursorEvent::PreToolUse);
/// assert_eq!(file.entries[0].timeout.as_secs(), 2);
/// assert!(parse(r#"{"version": 1, "hooks": {"stop": [{}]}}"#).is_err());
/// # Ok::<(), tower_hooks::config::ConfigErrorKind>(())
/// ```
pub fn parse(text: &str) -> Result<CursorFile, ConfigErrorKind> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root: Value = serde_json::from_str(text).map_err(ConfigErrorKind::InvalidJson)?;
    let Value::Object(root) = root else {
        return Err(invalid("the file", "a JSON object", &root));
    };
    let mut file = CursorFile {
        warnings: crate::config::duplicate_keys(text),
        ..CursorFile::default()
    };
    match root.get("version") {
        None => {}
        Some(v) if v.as_f64() == Some(1.0) => {}
        Some(other) => {
            file.warnings.push(ConfigWarningKind::OtherVersion {
                found: crate::config::describe_json(other),
            });
            return Ok(file);
        }
    }
    match root.get("hooks") {
        None | Some(Value::Null) => return Ok(file),
        Some(Value::Object(_)) => {}
        Some(other) => return Err(invalid("\"hooks\"", "an object of events", other)),
    }
    // Again, for the order of the events as written (a `Map` sorts them).
    let events = serde_json::from_str::<InOrder>(text)
        .map_err(ConfigErrorKind::InvalidJson)?
        .hooks;
    for (key, list) in &events {
        let Some(event) = CursorEvent::from_loose(key) else {
            let names = CursorEvent::ALL.iter().map(|e| e.name());
            file.warnings.push(ConfigWarningKind::UnknownEvent {
                event: key.clone(),
                expected: "a Cursor hook event",
                suggestion: crate::suggest::closest(key, names),
            });
            continue;
        };
        let entries = match list {
            Value::Null => continue,
            Value::Array(entries) => entries,
            other => {
                let at = format!("hooks.{key}");
                return Err(invalid(&at, "an array of hook entries", other));
            }
        };
        for (index, entry) in entries.iter().enumerate() {
            let at = format!("hooks.{key}[{index}]");
            file.entries
                .push(entry_of(event, key, index, entry, &at, &mut file.warnings)?);
        }
    }
    Ok(file)
}

fn entry_of(
    event: CursorEvent,
    key: &str,
    index: usize,
    entry: &Value,
    at: &str,
    warnings: &mut Vec<ConfigWarningKind>,
) -> Result<CursorEntry, ConfigErrorKind> {
    let Value::Object(fields) = entry else {
        return Err(invalid(at, "an object with a \"command\"", entry));
    };
    let raw: RawEntry = serde_path_to_error::deserialize(entry).map_err(|err| {
        match Refused::read(&err, &REFUSALS) {
            Some(refusal) => {
                let field = refusal.path.to_string();
                refusal.at(format!("{at}.{field}"))
            }
            // Every check of an entry's fields is a refusal; this is serde's own.
            None => ConfigErrorKind::InvalidValue {
                at: format!("{at}.{}", err.path()),
                expected: "a hooks.json entry",
                found: err.inner().to_string(),
            },
        }
    })?;
    let kind = raw.kind.unwrap_or_else(|| "command".to_owned());
    match kind.as_str() {
        "command" => {}
        "prompt" => warnings.push(ConfigWarningKind::ModelHook {
            at: at.to_owned(),
            kind: kind.clone(),
        }),
        _ => warnings.push(ConfigWarningKind::UnsupportedType {
            at: at.to_owned(),
            entries: "hooks",
            kind: kind.clone(),
            why: "only \"command\" runs",
        }),
    }
    let command = match raw.command {
        Some(command) => command,
        None if kind != "command" => String::new(),
        None => {
            return Err(ConfigErrorKind::MissingKey {
                at: at.to_owned(),
                key: "command",
                needs: "a hooks.json entry needs the shell command to run (with sh -c)",
            })
        }
    };
    let pattern = entry_pattern(event, key, raw.matcher.as_deref(), at, warnings);
    // `fail_closed` counts only when `failClosed` says nothing.
    let fail_closed = match raw.fail_closed {
        Some(b) => b,
        None => match fields.get("fail_closed") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(invalid(format!("{at}.fail_closed"), A_FLAG, other)),
        },
    };
    Ok(CursorEntry {
        event,
        written: key.to_owned(),
        index,
        kind,
        command,
        matcher: raw.matcher,
        pattern,
        timeout: raw.timeout.unwrap_or(DEFAULT_TIMEOUT),
        fail_closed,
        loop_limit: raw.loop_limit,
        enabled: raw.enabled.unwrap_or(true),
        persistent: raw.persistent.unwrap_or(false),
        prompt: raw.prompt,
    })
}

/// An entry's `matcher`, compiled: it matches everything when absent or when
/// its event has nothing to match, and nothing when it does not compile
/// (with a warning either way).
fn entry_pattern(
    event: CursorEvent,
    key: &str,
    matcher: Option<&str>,
    at: &str,
    warnings: &mut Vec<ConfigWarningKind>,
) -> CursorMatcher {
    match matcher {
        None => CursorMatcher::Any,
        Some(m) if !event.has_subject() && !m.is_empty() && m != "*" => {
            warnings.push(ConfigWarningKind::IgnoredEntryMatcher {
                at: at.to_owned(),
                event: key.to_owned(),
                matcher: m.to_owned(),
            });
            CursorMatcher::Any
        }
        Some(m) => CursorMatcher::compile(event, m).unwrap_or_else(|err| {
            if crate::pattern::is_too_big(&err) {
                warnings.push(ConfigWarningKind::MatcherTooBig {
                    at: at.to_owned(),
                    matcher: m.to_owned(),
                    effect: "so it selects nothing and this hook never runs",
                });
                return CursorMatcher::Nothing;
            }
            warnings.push(ConfigWarningKind::InvalidMatcher {
                at: at.to_owned(),
                matcher: m.to_owned(),
                error: err.to_string().lines().last().unwrap_or("").to_owned(),
            });
            CursorMatcher::Nothing
        }),
    }
}

/// What a string field must be.
const A_STRING: &str = "a string";
/// What `command` must be.
const A_COMMAND: &str = "a shell command";
/// What a `command` with a NUL character must be.
const NO_NUL: &str = "a command without NUL characters (\\u0000)";
/// What `timeout` must be.
const SECONDS: &str = "a positive number of seconds";
/// What `loop_limit` must be.
const FOLLOW_UPS: &str = "a whole number of follow-ups (0 or null: no limit)";
/// What `failClosed`, `enabled` and `persistent` must be.
const A_FLAG: &str = "true or false";
/// Every refusal an entry's fields raise.
const REFUSALS: [&str; 6] = [A_STRING, A_COMMAND, NO_NUL, SECONDS, FOLLOW_UPS, A_FLAG];

/// One entry as written, each field checked (`null` is as good as absent,
/// but for `loop_limit`, where it means no limit). Other keys are left alone.
#[derive(Debug, Deserialize)]
struct RawEntry {
    #[serde(default, rename = "type", deserialize_with = "string")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "string")]
    prompt: Option<String>,
    #[serde(default, deserialize_with = "command")]
    command: Option<String>,
    #[serde(default, deserialize_with = "string")]
    matcher: Option<String>,
    #[serde(default, deserialize_with = "timeout")]
    timeout: Option<Duration>,
    #[serde(default = "default_loop_limit", deserialize_with = "loop_limit")]
    loop_limit: Option<u32>,
    // Read for its type only: a model is the host's.
    #[serde(default, rename = "model", deserialize_with = "string")]
    _model: Option<String>,
    #[serde(default, rename = "failClosed", deserialize_with = "flag")]
    fail_closed: Option<bool>,
    #[serde(default, deserialize_with = "flag")]
    enabled: Option<bool>,
    #[serde(default, deserialize_with = "flag")]
    persistent: Option<bool>,
}

fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(refuse(A_STRING, &other)),
    }
}

/// A command that is not blank (`None` when it is, or `null`).
fn command<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(c) if c.trim().is_empty() => Ok(None),
        Value::String(c) if c.contains('\0') => Err(refuse_described(NO_NUL, "a string with one")),
        Value::String(c) => Ok(Some(c)),
        other => Err(refuse(A_COMMAND, &other)),
    }
}

fn timeout<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        value => seconds(&value)
            .map(Some)
            .ok_or_else(|| refuse(SECONDS, &value)),
    }
}

fn default_loop_limit() -> Option<u32> {
    Some(DEFAULT_LOOP_LIMIT)
}

/// `loop_limit`: `0` and `null` are no limit.
fn loop_limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let value = Value::deserialize(d)?;
    match (&value, value.as_u64()) {
        (Value::Null, _) | (_, Some(0)) => Ok(None),
        (_, Some(n)) => Ok(Some(u32::try_from(n).unwrap_or(u32::MAX))),
        (_, None) => Err(refuse(FOLLOW_UPS, &value)),
    }
}

fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(b)),
        other => Err(refuse(A_FLAG, &other)),
    }
}

/// A positive number of seconds, fractions allowed; never less than 1 ms.
fn seconds(value: &Value) -> Option<Duration> {
    let secs = value.as_f64()?;
    (secs.is_finite() && secs > 0.0)
        .then(|| Duration::from_secs_f64(secs.min(1e9)).max(Duration::from_millis(1)))
}

/// The file's `hooks`, its events in the order written. A key written twice
/// keeps its last value, where it first stood (as `JSON.parse` has it).
struct InOrder {
    hooks: Vec<(String, Value)>,
}

impl<'de> serde::Deserialize<'de> for InOrder {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, Visitor};

        struct Events(Vec<(String, Value)>);
        impl<'de> serde::Deserialize<'de> for Events {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Events;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("an object of events")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Events, A::Error> {
                        crate::config::read::entries_in_order(map).map(Events)
                    }
                }
                d.deserialize_map(V)
            }
        }

        struct Top;
        impl<'de> Visitor<'de> for Top {
            type Value = InOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<InOrder, A::Error> {
                let mut hooks = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "hooks" {
                        hooks = map.next_value::<Events>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(InOrder { hooks })
            }
        }
        deserializer.deserialize_map(Top)
    }
}

/// Where a hook of the `hooks.json` at `path` runs: the project root for a
/// project's `.cursor/hooks.json`, else the file's own folder.
pub fn run_dir(path: &Path, project: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let project = std::path::absolute(project).unwrap_or_else(|_| project.to_path_buf());
    let folder = path.parent().unwrap_or(Path::new("."));
    if folder == project.join(".cursor") {
        project.to_path_buf()
    } else {
        folder.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(hooks: Value) -> Result<CursorFile, ConfigErrorKind> {
        parse(&json!({"version": 1, "hooks": hooks}).to_string())
    }

    #[test]
    fn fields_units_and_defaults() {
        let f = file(json!({"stop": [
            {"command": "a", "timeout": 1.5, "failClosed": true, "loop_limit": 0, "enabled": false},
            {"command": "b", "fail_closed": true},
            {"command": "c"},
        ]}))
        .unwrap();
        let [a, b, c] = &f.entries[..] else { panic!() };
        assert_eq!(a.timeout, Duration::from_millis(1500));
        assert!(a.fail_closed && b.fail_closed && !c.fail_closed);
        assert_eq!(
            (a.loop_limit, c.loop_limit),
            (None, Some(DEFAULT_LOOP_LIMIT))
        );
        assert!(!a.enabled && c.enabled);
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
        assert_eq!((b.index, b.written.as_str()), (1, "stop"));
    }

    #[test]
    fn another_version_skips_the_file_with_a_warning() {
        let f = parse(r#"{"version": 2, "hooks": {"stop": [{"command": "x"}]}}"#).unwrap();
        assert!(f.entries.is_empty());
        assert_eq!(
            f.warnings,
            [ConfigWarningKind::OtherVersion {
                found: "the number 2".into()
            }]
        );
    }

    #[test]
    fn each_field_of_the_wrong_type_is_an_error_at_its_path() {
        for (entry, want) in [
            (
                json!({"command": 5}),
                "hooks.stop[0].command must be a shell command, not the number 5",
            ),
            (
                json!({"command": "a\u{0}b"}),
                "hooks.stop[0].command must be a command without NUL characters (\\u0000), not \
                 a string with one",
            ),
            (
                json!({"command": "x", "type": 1}),
                "hooks.stop[0].type must be a string, not the number 1",
            ),
            (
                json!({"command": "x", "matcher": ["a"]}),
                "hooks.stop[0].matcher must be a string, not an array",
            ),
            (
                json!({"command": "x", "model": {}}),
                "hooks.stop[0].model must be a string, not an object",
            ),
            (
                json!({"command": "x", "prompt": true}),
                "hooks.stop[0].prompt must be a string, not true",
            ),
            (
                json!({"command": "x", "loop_limit": -1}),
                "hooks.stop[0].loop_limit must be a whole number of follow-ups (0 or null: no \
                 limit), not the number -1",
            ),
            (
                json!({"command": "x", "failClosed": "yes"}),
                "hooks.stop[0].failClosed must be true or false, not the string \"yes\"",
            ),
            (
                json!({"command": "x", "failClosed": null, "fail_closed": 1}),
                "hooks.stop[0].fail_closed must be true or false, not the number 1",
            ),
            (
                json!({"command": "x", "enabled": "no"}),
                "hooks.stop[0].enabled must be true or false, not the string \"no\"",
            ),
            (
                json!({"command": "x", "persistent": 0}),
                "hooks.stop[0].persistent must be true or false, not the number 0",
            ),
            (
                json!("x"),
                "hooks.stop[0] must be an object with a \"command\", not the string \"x\"",
            ),
        ] {
            let err = file(json!({"stop": [entry.clone()]})).unwrap_err();
            assert_eq!(err.to_string(), want, "{entry}");
        }
    }

    #[test]
    fn null_is_absent_but_for_loop_limit_and_fail_closed_yields_to_fail_closed_camel() {
        let entry = |fields: Value| file(json!({"stop": [fields]})).unwrap().entries.remove(0);
        let plain = entry(json!({"command": "x", "timeout": null, "enabled": null, "note": [1]}));
        assert_eq!(
            (
                plain.timeout,
                plain.enabled,
                plain.loop_limit,
                plain.fail_closed
            ),
            (DEFAULT_TIMEOUT, true, Some(DEFAULT_LOOP_LIMIT), false)
        );
        assert_eq!(
            entry(json!({"command": "x", "loop_limit": null})).loop_limit,
            None
        );
        assert_eq!(
            entry(json!({"command": "x", "loop_limit": 0})).loop_limit,
            None
        );
        assert_eq!(
            entry(json!({"command": "x", "loop_limit": 7})).loop_limit,
            Some(7)
        );
        // `failClosed` decides; `fail_closed` is not read then.
        let both = entry(json!({"command": "x", "failClosed": false, "fail_closed": "yes"}));
        assert!(!both.fail_closed);
        assert!(entry(json!({"command": "x", "fail_closed": true})).fail_closed);
        // A prompt entry needs no command.
        assert_eq!(
            entry(json!({"type": "prompt", "prompt": "ok?"})).command,
            ""
        );
    }

    #[test]
    fn problems_are_errors_or_warnings() {
        let err = parse("{\"version\": 1,\n \"hooks\": {\n").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
        let err = file(json!({"stop": [{"timeout": 3}]})).unwrap_err();
        assert!(err.to_string().contains("hooks.stop[0]"), "{err}");
        let err = file(json!({"stop": [{"command": "x", "timeout": "3s"}]})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "hooks.stop[0].timeout must be a positive number of seconds, not the string \"3s\""
        );
        let f = file(json!({
            "preToolUs": [{"command": "x"}],
            "preToolUse": [{"command": "y", "matcher": "(", "type": "prompt"}],
        }))
        .unwrap();
        assert!(matches!(f.entries[0].pattern, CursorMatcher::Nothing));
        let kinds: Vec<String> = f.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(kinds.len(), 3, "{kinds:?}");
        assert!(
            kinds[0].contains("did you mean \"preToolUse\""),
            "{kinds:?}"
        );
    }

    #[test]
    fn a_matcher_on_an_event_without_a_subject_is_ignored() {
        let f = file(
            json!({"sessionStart": [{"command": "x", "matcher": "startup"}],
                            "stop": [{"command": "y", "matcher": "Stop"}]}),
        )
        .unwrap();
        assert!(matches!(f.entries[0].pattern, CursorMatcher::Any));
        assert!(matches!(f.entries[1].pattern, CursorMatcher::Names(_)));
        assert_eq!(
            f.warnings,
            [ConfigWarningKind::IgnoredEntryMatcher {
                at: "hooks.sessionStart[0]".into(),
                event: "sessionStart".into(),
                matcher: "startup".into(),
            }]
        );
        assert!(f.warnings[0].to_string().contains("runs every time"));
    }

    #[test]
    fn project_hooks_run_from_the_project_root() {
        let project = Path::new("/p");
        assert_eq!(
            run_dir(Path::new("/p/.cursor/hooks.json"), project),
            project
        );
        assert_eq!(
            run_dir(Path::new("/h/.cursor/hooks.json"), project),
            Path::new("/h/.cursor")
        );
    }
}
