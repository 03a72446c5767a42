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

use serde_json::Value;

use super::event::CursorEvent;
use super::matcher::CursorMatcher;
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
    let Value::Object(entry) = entry else {
        return Err(invalid(at, "an object with a \"command\"", entry));
    };
    let field = |key: &str| entry.get(key).filter(|v| !v.is_null());
    let field_at = |key: &str| format!("{at}.{key}");
    let string = |key: &str| match field(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(field_at(key), "a string", other)),
    };
    let flag = |keys: &[&str], default: bool| {
        for key in keys {
            match field(key) {
                None => continue,
                Some(Value::Bool(b)) => return Ok(*b),
                Some(other) => return Err(invalid(field_at(key), "true or false", other)),
            }
        }
        Ok(default)
    };

    let kind = string("type")?.unwrap_or_else(|| "command".to_owned());
    let prompt = string("prompt")?;
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
    let command = match field("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
        None | Some(Value::String(_)) if kind != "command" => String::new(),
        None | Some(Value::String(_)) => {
            return Err(ConfigErrorKind::MissingKey {
                at: at.to_owned(),
                key: "command",
                needs: "a hooks.json entry needs the shell command to run (with sh -c)",
            })
        }
        Some(other) => return Err(invalid(field_at("command"), "a shell command", other)),
    };
    if command.contains('\0') {
        return Err(ConfigErrorKind::InvalidValue {
            at: field_at("command"),
            expected: "a command without NUL characters (\\u0000)",
            found: "a string with one".into(),
        });
    }
    let matcher = string("matcher")?;
    let pattern = match matcher.as_deref() {
        None => CursorMatcher::Any,
        Some(m) => CursorMatcher::compile(event, m).unwrap_or_else(|err| {
            warnings.push(ConfigWarningKind::InvalidMatcher {
                at: at.to_owned(),
                matcher: m.to_owned(),
                error: err.to_string().lines().last().unwrap_or("").to_owned(),
            });
            CursorMatcher::Nothing
        }),
    };
    let timeout = match field("timeout") {
        None => DEFAULT_TIMEOUT,
        Some(value) => seconds(value)
            .ok_or_else(|| invalid(field_at("timeout"), "a positive number of seconds", value))?,
    };
    let loop_limit = match entry.get("loop_limit") {
        None => Some(DEFAULT_LOOP_LIMIT),
        Some(Value::Null) => None,
        Some(value) => match value.as_u64() {
            Some(0) => None,
            Some(n) => Some(u32::try_from(n).unwrap_or(u32::MAX)),
            None => {
                return Err(invalid(
                    field_at("loop_limit"),
                    "a whole number of follow-ups (0 or null: no limit)",
                    value,
                ))
            }
        },
    };
    let _model: Option<String> = string("model")?;
    Ok(CursorEntry {
        event,
        written: key.to_owned(),
        index,
        kind,
        command,
        matcher,
        pattern,
        timeout,
        fail_closed: flag(&["failClosed", "fail_closed"], false)?,
        loop_limit,
        enabled: flag(&["enabled"], true)?,
        persistent: flag(&["persistent"], false)?,
        prompt,
    })
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
