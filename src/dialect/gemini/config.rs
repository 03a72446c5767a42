//! Gemini CLI's settings files and an extension's `hooks/hooks.json`: the
//! `hooks` object (event → definitions → handlers) and the `hooksConfig`
//! switches, read from JSON that may hold `//` and `/* */` comments.
//!
//! ```json
//! {
//!   // the project's guards
//!   "hooksConfig": {"disabled": ["noisy-logger"]},
//!   "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "sequential": true,
//!                             "hooks": [{"type": "command", "command": "./guard.sh",
//!                                        "name": "guard", "timeout": 5000}]}]}
//! }
//! ```
//!
//! A definition has `matcher`, `sequential` and `hooks`; a handler has
//! `type` (`command`; any other type is dropped with a warning), `command`,
//! `name`, `description`, `timeout` in **milliseconds** (default
//! [`DEFAULT_TIMEOUT`]) and `env`. The other keys of a settings file are
//! Gemini CLI's own business and are not read.
//!
//! Problems: a file that does not parse, and a value of the wrong type, are
//! errors naming the file and the JSON path of the value; a key of `hooks`
//! that is no Gemini CLI event, a definition without `hooks`, a handler of
//! another type and a handler without a command are warnings (Gemini CLI
//! skips them too), and the rest of the file loads.

use std::path::Path;
use std::time::Duration;

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::event::GeminiEvent;
use super::matcher::{GeminiMatcher, CWD_VAR, PROJECT_DIR_VAR, SESSION_ID_VAR};
use crate::process::substitute::{evaluated_twice, References};

/// The variables Gemini CLI replaces in a command (as `$NAME`) before the
/// shell reads it.
const EXPANDED: References<'static> = References {
    names: &[
        PROJECT_DIR_VAR,
        crate::dialect::claude::PROJECT_DIR_VAR,
        CWD_VAR,
        SESSION_ID_VAR,
    ],
    bare_substituted: true,
};
use crate::config::derived::{refuse, Refused};
use crate::config::read::read_config;
use crate::config::{ConfigError, ConfigErrorKind, ConfigWarningKind, MAX_CONFIG_SIZE};

/// A handler's timeout when it names none: 60 000 ms.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(60_000);

/// The keys of `hooks` that are no event and are skipped without a word (the
/// old place of the `hooksConfig` switches).
const LEGACY_KEYS: [&str; 3] = ["enabled", "disabled", "notifications"];

/// What the field types refuse, for [`Refused::read`].
const EXPECTED: [&str; 7] = [
    "an object",
    "a string",
    "true or false",
    "an array of hook definitions",
    "an array of handlers",
    "a positive whole number of milliseconds",
    "an object of string values",
];

/// One handler of a settings file, with where it stands.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GeminiEntry {
    /// The event it fires on.
    pub event: GeminiEvent,
    /// Its definition's position in the event's list, from 0.
    pub definition: usize,
    /// Its position in the definition's `hooks`, from 0.
    pub index: usize,
    /// The definition's `matcher`, trimmed; `None` when omitted.
    pub matcher: Option<String>,
    /// The definition's `sequential`.
    pub sequential: bool,
    /// `command`, run with `bash -c`.
    pub command: String,
    /// `name`, if any.
    pub name: Option<String>,
    /// `description`, if any.
    pub description: Option<String>,
    /// `timeout`, or [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// `env`: variables added last to the hook's environment.
    pub env: Vec<(String, String)>,
    /// `matcher`, compiled once for its whole definition.
    pub(crate) compiled: GeminiMatcher,
}

impl GeminiEntry {
    /// Where it is in its file: `hooks.BeforeTool[0].hooks[1]`.
    pub fn at(&self) -> String {
        format!(
            "hooks.{}[{}].hooks[{}]",
            self.event.name(),
            self.definition,
            self.index
        )
    }

    /// The key Gemini CLI runs a hook once by: `name:command`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.name.as_deref().unwrap_or(""), self.command)
    }
}

/// A loaded settings file (or extension `hooks.json`).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct GeminiFile {
    /// Its handlers, event by event (in the order of [`GeminiEvent::ALL`]),
    /// each event's in file order.
    pub entries: Vec<GeminiEntry>,
    /// `hooksConfig.enabled`, when the file says.
    pub enabled: Option<bool>,
    /// `hooksConfig.disabled`: names (or commands) of hooks to skip.
    pub disabled: Vec<String>,
    /// What loads but looks wrong, in file order.
    pub warnings: Vec<ConfigWarningKind>,
}

#[derive(Deserialize)]
struct SettingsFile {
    #[serde(default, deserialize_with = "object")]
    hooks: Option<Map<String, Value>>,
    #[serde(default, rename = "hooksConfig")]
    hooks_config: Option<HooksConfig>,
}

#[derive(Deserialize)]
struct HooksConfig {
    #[serde(default, deserialize_with = "boolean")]
    enabled: Option<bool>,
    #[serde(default)]
    disabled: Option<Vec<Text>>,
}

#[derive(Deserialize)]
struct Definition {
    #[serde(default)]
    matcher: Option<Text>,
    #[serde(default, deserialize_with = "boolean")]
    sequential: Option<bool>,
    #[serde(default, deserialize_with = "handlers")]
    hooks: Option<Vec<Map<String, Value>>>,
}

/// The keys of a Gemini CLI hook, as its settings schema has them.
const HANDLER_KEYS: [&str; 6] = ["type", "command", "name", "description", "timeout", "env"];

#[derive(Deserialize)]
struct Handler {
    #[serde(default, rename = "type")]
    kind: Option<Text>,
    #[serde(default)]
    command: Option<Text>,
    #[serde(default)]
    name: Option<Text>,
    #[serde(default)]
    description: Option<Text>,
    #[serde(default, deserialize_with = "millis")]
    timeout: Option<Duration>,
    #[serde(default, deserialize_with = "strings")]
    env: Option<Vec<(String, String)>>,
}

/// A string, refused with what it must be otherwise (`null` is no value).
struct Text(Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(Text(Some(s))),
            Value::Null => Ok(Text(None)),
            other => Err(refuse("a string", &other)),
        }
    }
}

fn string(t: Option<Text>) -> Option<String> {
    t.and_then(|t| t.0)
}

fn object<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Map<String, Value>>, D::Error> {
    match Value::deserialize(d)? {
        Value::Object(m) => Ok(Some(m)),
        Value::Null => Ok(None),
        other => Err(refuse("an object", &other)),
    }
}

fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Value::deserialize(d)? {
        Value::Bool(b) => Ok(Some(b)),
        Value::Null => Ok(None),
        other => Err(refuse("true or false", &other)),
    }
}

fn handlers<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Map<String, Value>>>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(m) => Ok(m),
                other => Err(refuse("an array of handlers", &other)),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(refuse("an array of handlers", &other)),
    }
}

fn millis<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    const MS: &str = "a positive whole number of milliseconds";
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_f64() {
            Some(ms) if ms >= 1.0 && ms.is_finite() && ms <= u32::MAX as f64 => {
                Ok(Some(Duration::from_millis(ms as u64)))
            }
            _ => Err(refuse(MS, &Value::Number(n))),
        },
        other => Err(refuse(MS, &other)),
    }
}

fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<(String, String)>>, D::Error> {
    const WANT: &str = "an object of string values";
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Object(m) => m
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) if !k.contains(['=', '\0']) && !s.contains('\0') => Ok((k, s)),
                other => Err(refuse(WANT, &other)),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(refuse(WANT, &other)),
    }
}

/// Reads the settings file at `path` (a regular file of at most
/// [`MAX_CONFIG_SIZE`] bytes of UTF-8). Errors name the file.
pub fn load(path: &Path) -> Result<GeminiFile, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    parse(&text).map_err(|kind| ConfigError::new(path, kind))
}

/// Reads `value` at `at` as a `T`, with the refused value's path in the error.
fn read<T: for<'de> Deserialize<'de>>(value: Value, at: &str) -> Result<T, ConfigErrorKind> {
    serde_path_to_error::deserialize(value).map_err(|err| match Refused::read(&err, &EXPECTED) {
        Some(refused) => {
            let path = err.path().to_string();
            let at = match path.as_str() {
                "." | "" => at.to_owned(),
                p if at.is_empty() => p.to_owned(),
                p => format!("{at}.{p}"),
            };
            refused.at(at)
        }
        None => ConfigErrorKind::InvalidJson(serde_json::Error::custom(err.inner().to_string())),
    })
}

/// Reads the text of a settings file. See the [module docs](self).
///
/// ```
/// use tower_hooks::dialect::gemini::config::parse;
/// use tower_hooks::dialect::gemini::GeminiEvent;
///
/// let file = parse(r#"{
///   // a comment
///   "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh", "timeout": 1500}]}]}
/// }"#)?;
/// assert_eq!(file.entries[0].event, GeminiEvent::BeforeTool);
/// assert_eq!(file.entries[0].timeout.as_millis(), 1500);
/// assert!(parse(r#"{"hooks": {"BeforeTool": [{"hooks": [{"command": 5}]}]}}"#).is_err());
/// # Ok::<(), tower_hooks::config::ConfigErrorKind>(())
/// ```
pub fn parse(text: &str) -> Result<GeminiFile, ConfigErrorKind> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Comments become blanks, so that serde_json's line and column still
    // point into the file as written.
    let mut plain = String::with_capacity(text.len());
    std::io::Read::read_to_string(
        &mut json_comments::StripComments::new(text.as_bytes()),
        &mut plain,
    )
    .map_err(|e| ConfigErrorKind::InvalidJson(serde_json::Error::custom(e)))?;
    let root: Value = serde_json::from_str(&plain).map_err(ConfigErrorKind::InvalidJson)?;
    if !root.is_object() {
        return Err(crate::config::invalid_value(
            "the file",
            "a JSON object",
            &root,
        ));
    }
    let settings: SettingsFile = read(root, "")?;
    let mut file = GeminiFile {
        warnings: crate::config::duplicate_keys(&plain),
        ..GeminiFile::default()
    };
    if let Some(config) = settings.hooks_config {
        file.enabled = config.enabled;
        file.disabled = config
            .disabled
            .into_iter()
            .flatten()
            .filter_map(|t| t.0)
            .collect();
    }
    let Some(hooks) = settings.hooks else {
        return Ok(file);
    };
    for (key, _) in hooks.iter() {
        if GeminiEvent::from_name(key).is_none() && !LEGACY_KEYS.contains(&key.as_str()) {
            let names = GeminiEvent::ALL.iter().map(|e| e.name());
            file.warnings.push(ConfigWarningKind::UnknownEvent {
                event: key.clone(),
                expected: "a Gemini CLI hook event",
                suggestion: crate::suggest::closest(key, names),
            });
        }
    }
    for event in GeminiEvent::ALL {
        let Some(list) = hooks.get(event.name()) else {
            continue;
        };
        let at = format!("hooks.{}", event.name());
        let definitions = match list {
            Value::Array(items) => items,
            Value::Null => continue,
            other => {
                return Err(crate::config::invalid_value(
                    at,
                    "an array of hook definitions",
                    other,
                ))
            }
        };
        for (d, definition) in definitions.iter().enumerate() {
            read_definition(&mut file, event, d, &format!("{at}[{d}]"), definition)?;
        }
    }
    Ok(file)
}

/// One hook definition of `event`, `d`-th in its list at `at`, into `file`:
/// its matcher, and each of its hooks that runs a command.
fn read_definition(
    file: &mut GeminiFile,
    event: GeminiEvent,
    d: usize,
    at: &str,
    definition: &Value,
) -> Result<(), ConfigErrorKind> {
    if !definition.is_object() {
        return Err(crate::config::invalid_value(at, "an object", definition));
    }
    let definition: Definition = read(definition.clone(), at)?;
    let Some(handlers) = definition.hooks else {
        file.warnings.push(ConfigWarningKind::UnsupportedType {
            at: at.to_owned(),
            entries: "hook definitions",
            kind: "(none)".into(),
            why: "a definition needs a \"hooks\" array; Gemini CLI discards it",
        });
        return Ok(());
    };
    let matcher = string(definition.matcher)
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty() && m != "*");
    let (compiled, error) = GeminiMatcher::compile(event, matcher.as_deref());
    if error.as_ref().is_some_and(crate::pattern::is_too_big) {
        file.warnings.push(ConfigWarningKind::MatcherTooBig {
            at: at.to_owned(),
            matcher: matcher.clone().unwrap_or_default(),
            effect: "so it is read as Gemini CLI reads a matcher that is no regex, \
                     as a literal tool name, and this definition's hooks run for no \
                     real tool",
        });
    }
    for (h, handler) in handlers.into_iter().enumerate() {
        let at = format!("{at}.hooks[{h}]");
        // Gemini CLI passes over keys it does not read; so do we,
        // aloud (a `persistent` copied from a Claude Code file, say).
        for key in handler
            .keys()
            .filter(|k| !HANDLER_KEYS.contains(&k.as_str()))
        {
            file.warnings.push(ConfigWarningKind::UnknownKey {
                at: format!("{at}.{key}"),
                expected: "a key of a Gemini CLI hook (type, command, name, \
                           description, timeout, env; \"persistent\" is a tower-hooks \
                           extension of nanopi and Claude Code files only)",
            });
        }
        let handler: Handler = read(Value::Object(handler), &at)?;
        let Some(command) = hook_command(
            &mut file.warnings,
            &at,
            string(handler.kind),
            string(handler.command),
        )?
        else {
            continue;
        };
        file.entries.push(GeminiEntry {
            event,
            definition: d,
            index: h,
            matcher: matcher.clone(),
            sequential: definition.sequential.unwrap_or(false),
            command,
            name: string(handler.name),
            description: string(handler.description),
            timeout: handler.timeout.unwrap_or(DEFAULT_TIMEOUT),
            env: handler.env.unwrap_or_default(),
            compiled: compiled.clone(),
        });
    }
    Ok(())
}

/// The command of a hook that runs one, checked. `None`, with a warning, for
/// a hook of another type or with no command: Gemini CLI skips it.
fn hook_command(
    warnings: &mut Vec<ConfigWarningKind>,
    at: &str,
    kind: Option<String>,
    command: Option<String>,
) -> Result<Option<String>, ConfigErrorKind> {
    let kind = kind.unwrap_or_else(|| "command".into());
    if kind != "command" {
        warnings.push(ConfigWarningKind::UnsupportedType {
            at: at.to_owned(),
            entries: "hooks",
            kind,
            why: "only \"command\" hooks run in a settings file",
        });
        return Ok(None);
    }
    let Some(command) = command.filter(|c| !c.trim().is_empty()) else {
        warnings.push(ConfigWarningKind::UnsupportedType {
            at: at.to_owned(),
            entries: "hooks",
            kind,
            why: "it has no \"command\"; Gemini CLI discards it",
        });
        return Ok(None);
    };
    if command.contains('\0') {
        return Err(ConfigErrorKind::NulCharacter {
            at: format!("\"command\" of {at}"),
        });
    }
    // Gemini CLI puts the values of `$GEMINI_PROJECT_DIR`, … into
    // the command before bash reads it: one word for that shell,
    // code again for a `bash -c` or `eval` the command hands it to.
    if let Some(found) = evaluated_twice(&command, EXPANDED) {
        warnings.push(ConfigWarningKind::EvaluatedTwice {
            at: at.to_owned(),
            reference: found.reference,
            evaluator: found.evaluator,
        });
    }
    Ok(Some(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanks_and_a_slash_pair_in_a_string_is_text() {
        let file = parse(
            "// top\n{ /* a */ \"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"command\": \"echo http://x // y\"}]}]} }",
        )
        .unwrap();
        assert_eq!(file.entries[0].command, "echo http://x // y");
        assert_eq!(file.entries[0].timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn a_wrong_type_names_its_json_path() {
        let err =
            parse(r#"{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeout": "5s"}]}]}}"#)
                .unwrap_err()
                .to_string();
        assert!(err.contains("hooks.BeforeTool[0].hooks[0]"), "{err}");
        assert!(err.contains("timeout"), "{err}");
        assert!(err.contains("milliseconds"), "{err}");
    }

    #[test]
    fn unknown_events_warn_and_legacy_keys_do_not() {
        let file = parse(r#"{"hooks": {"PreToolUse": [], "enabled": true}}"#).unwrap();
        assert_eq!(file.warnings.len(), 1);
        assert!(file.warnings[0].to_string().contains("PreToolUse"));
    }

    #[test]
    fn a_key_gemini_does_not_read_is_a_warning_and_persistent_says_why() {
        let file = parse(
            r#"{"hooks": {"BeforeTool": [{"hooks": [
                {"command": "./guard", "persistent": true, "timout": 5}]}]}}"#,
        )
        .unwrap();
        assert_eq!(file.entries.len(), 1, "the hook still loads");
        let warnings: Vec<String> = file.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("hooks.BeforeTool[0].hooks[0].persistent is not")
                && warnings[0].contains("tower-hooks extension"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("hooks.BeforeTool[0].hooks[0].timout"),
            "{warnings:?}"
        );
    }

    #[test]
    fn switches_and_dropped_entries() {
        let file = parse(
            r#"{"hooksConfig": {"enabled": false, "disabled": ["a"]},
                "hooks": {"AfterTool": [{"matcher": "*"}, {"hooks": [{"type": "runtime", "command": "x"},
                          {"command": "y", "name": "n", "env": {"K": "v"}}]}]}}"#,
        )
        .unwrap();
        assert_eq!(file.enabled, Some(false));
        assert_eq!(file.disabled, ["a"]);
        assert_eq!(file.warnings.len(), 2);
        assert_eq!(file.entries.len(), 1);
        assert_eq!(file.entries[0].key(), "n:y");
        assert_eq!(file.entries[0].env, [("K".to_owned(), "v".to_owned())]);
        assert_eq!(file.entries[0].at(), "hooks.AfterTool[1].hooks[1]");
    }
}
