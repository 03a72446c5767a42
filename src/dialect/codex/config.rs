//! Codex's hook files: `hooks.json` (Claude Code's shape) and the `[hooks]`
//! tables of a `config.toml`, read into [`CodexHandler`]s.
//!
//! Both forms go through the same derived types: a TOML file's `hooks` table
//! is turned into JSON first. The top level of a `hooks.json` is strict (an
//! unknown key is an error naming it, as Codex refuses the file); unknown keys
//! of a group or a handler load with a warning.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::event::CodexEvent;
use super::matcher::CodexMatcher;
use crate::config::read::{read_config, MAX_CONFIG_SIZE};
use crate::config::{invalid_value, ConfigError, ConfigErrorKind, ConfigWarningKind};

/// A handler's timeout when it names none: 600 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// A `SessionEnd` handler's timeout when it names none (1 s), and the most
/// it may have (3 s).
pub const SESSION_END_TIMEOUT: (Duration, Duration) =
    (Duration::from_secs(1), Duration::from_secs(3));

/// One Codex handler, as loaded.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CodexHandler {
    /// The event, as written.
    pub event: CodexEvent,
    /// The group's matcher, as written.
    pub matcher: Option<String>,
    /// The matcher, read by Codex's rule.
    pub pattern: CodexMatcher,
    /// `type`: `command` runs; `prompt` and `agent` load and never run.
    pub kind: String,
    /// The shell command.
    pub command: String,
    /// `timeout` (or `timeoutSec`, `timeout_sec`), in seconds, at least 1.
    pub timeout: Duration,
    /// `async`: the call does not wait for it and its decisions count for
    /// nothing.
    pub is_async: bool,
    /// `statusMessage`: a spinner text for the person.
    pub status_message: Option<String>,
    /// Its position in its file: group and handler, from 0.
    pub group: usize,
    /// The handler's position among the file's handlers, from 0.
    pub index: usize,
}

/// What one Codex file holds.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CodexFile {
    /// Its handlers, in file order.
    pub handlers: Vec<CodexHandler>,
    /// What looks wrong but loads.
    pub warnings: Vec<ConfigWarningKind>,
    /// `[features] hooks` (or the older `codex_hooks`) of a `config.toml`:
    /// `Some(false)` turns off the hooks of its layer.
    pub hooks_feature: Option<bool>,
}

/// The top level of a `hooks.json`: `hooks`, and `description` as metadata.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonFile {
    #[serde(default)]
    hooks: Option<Map<String, Value>>,
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<Value>,
}

/// What a `config.toml` holds that counts here.
#[derive(Debug, Deserialize)]
struct TomlFile {
    #[serde(default)]
    features: Option<Features>,
    #[serde(default)]
    hooks: Option<toml::Table>,
}

/// `[features]`.
#[derive(Debug, Deserialize)]
struct Features {
    hooks: Option<bool>,
    codex_hooks: Option<bool>,
}

/// A matcher group.
#[derive(Debug, Deserialize)]
struct Group {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default)]
    hooks: Option<Vec<RawHandler>>,
}

/// A handler, with every spelling Codex accepts.
#[derive(Debug, Deserialize)]
struct RawHandler {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default, alias = "commandWindows")]
    #[allow(dead_code)]
    command_windows: Option<String>,
    #[serde(default, alias = "timeoutSec", alias = "timeout_sec")]
    timeout: Option<f64>,
    #[serde(default, rename = "async")]
    is_async: Option<bool>,
    #[serde(default, alias = "statusMessage")]
    status_message: Option<String>,
    #[serde(default, rename = "additionalContextLimit")]
    #[allow(dead_code)]
    additional_context_limit: Option<Value>,
    /// A `prompt` or `agent` handler's text and model: read, never run.
    #[serde(default)]
    #[allow(dead_code)]
    prompt: Option<Value>,
    #[serde(default)]
    #[allow(dead_code)]
    model: Option<Value>,
}

/// Reads the Codex file at `path`: a `config.toml` by its extension, any
/// other file as a `hooks.json`.
pub fn load(path: &Path) -> Result<CodexFile, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    let parsed = if path.extension().is_some_and(|ext| ext == "toml") {
        parse_toml(&text)
    } else {
        parse_json(&text)
    };
    parsed.map_err(|kind| ConfigError::new(path, kind))
}

/// Reads the text of a `hooks.json`.
///
/// ```
/// use tower_hooks::dialect::codex;
///
/// let file = codex::parse_json(r#"{"hooks": {"PreToolUse": [
///     {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}
/// ]}}"#).unwrap();
/// assert_eq!(file.handlers[0].command, "./guard.sh");
/// assert_eq!(file.handlers[0].timeout.as_secs(), 5);
/// assert!(codex::parse_json(r#"{"hooks": {}, "version": 1}"#).is_err());
/// ```
pub fn parse_json(text: &str) -> Result<CodexFile, ConfigErrorKind> {
    let value: Value = serde_json::from_str(text).map_err(ConfigErrorKind::InvalidJson)?;
    let Value::Object(top) = &value else {
        return Err(invalid_value(
            "the top level",
            "a JSON object with \"hooks\"",
            &value,
        ));
    };
    if let Some(hooks) = top.get("hooks").filter(|hooks| !hooks.is_object()) {
        return Err(invalid_value(
            "hooks",
            "an object whose keys are Codex events (\"PreToolUse\", \"Stop\", …)",
            hooks,
        ));
    }
    {
        // Codex refuses the whole file for one unknown top-level key: say which.
        if let Some((key, found)) = top
            .iter()
            .find(|(key, _)| !matches!(key.as_str(), "hooks" | "description"))
        {
            return Err(invalid_value(
                format!("the top-level key {key:?}"),
                "absent: Codex refuses a hooks.json whose top level has any key but \
                 \"hooks\" and \"description\"",
                found,
            ));
        }
    }
    let file: JsonFile = serde_path_to_error::deserialize(&value).map_err(|err| {
        let at = match err.path().to_string() {
            path if path == "." => "the top level".to_owned(),
            path => path,
        };
        ConfigErrorKind::InvalidValue {
            at,
            expected: "an object with \"hooks\", an object of events (and optionally \
                       \"description\")",
            found: err.into_inner().to_string(),
        }
    })?;
    let mut out = CodexFile::default();
    if let Some(hooks) = file.hooks {
        read_hooks(&hooks, &mut out)?;
    }
    Ok(out)
}

/// Reads the text of a `config.toml`: its `[features]` switch and its
/// `[[hooks.EVENT]]` groups. Every other table is Codex's business.
///
/// ```
/// use tower_hooks::dialect::codex;
///
/// let file = codex::parse_toml("[features]\nhooks = false\n\n[[hooks.Stop]]\n\
///     [[hooks.Stop.hooks]]\ncommand = \"./gate.sh\"\n").unwrap();
/// assert_eq!(file.hooks_feature, Some(false));
/// assert_eq!(file.handlers.len(), 1);
/// ```
pub fn parse_toml(text: &str) -> Result<CodexFile, ConfigErrorKind> {
    let file: TomlFile = toml::from_str(text).map_err(ConfigErrorKind::Parse)?;
    let mut out = CodexFile {
        hooks_feature: file
            .features
            .and_then(|features| features.hooks.or(features.codex_hooks)),
        ..CodexFile::default()
    };
    if let Some(mut hooks) = file.hooks {
        // Codex keeps its trust records under `[hooks.state]`.
        hooks.remove("state");
        let json = serde_json::to_value(hooks).map_err(|err| ConfigErrorKind::InvalidValue {
            at: "hooks".into(),
            expected: "tables of hook groups",
            found: err.to_string(),
        })?;
        if let Value::Object(hooks) = json {
            read_hooks(&hooks, &mut out)?;
        }
    }
    Ok(out)
}

/// The events of `hooks`, each an array of groups, into `out`.
fn read_hooks(hooks: &Map<String, Value>, out: &mut CodexFile) -> Result<(), ConfigErrorKind> {
    for (name, groups) in hooks {
        let Some(event) = CodexEvent::from_name(name) else {
            out.warnings.push(ConfigWarningKind::UnknownEvent {
                event: name.clone(),
                expected: "a Codex hook event",
                suggestion: CodexEvent::ALL
                    .iter()
                    .map(|e| e.name())
                    .find(|known| known.eq_ignore_ascii_case(name)),
            });
            continue;
        };
        let Value::Array(groups) = groups else {
            return Err(invalid_value(
                format!("hooks.{name}"),
                "an array of matcher groups",
                groups,
            ));
        };
        for (g, raw) in groups.iter().enumerate() {
            read_group(event, name, g, raw, out)?;
        }
    }
    Ok(())
}

/// One matcher group of `event` into `out`.
fn read_group(
    event: CodexEvent,
    name: &str,
    g: usize,
    raw: &Value,
    out: &mut CodexFile,
) -> Result<(), ConfigErrorKind> {
    let at = format!("hooks.{name}[{g}]");
    let group = deserialize_group(&at, raw, &mut out.warnings)?;
    let pattern = match CodexMatcher::compile(event, group.matcher.as_deref()) {
        Ok(pattern) => pattern,
        // Over the bound: handled as a matcher that does not compile.
        Err(error) if crate::pattern::is_too_big(&error) => {
            out.warnings.push(ConfigWarningKind::MatcherTooBig {
                at,
                matcher: group.matcher.clone().unwrap_or_default(),
                effect: "so Codex skips this group and its hooks never run",
            });
            return Ok(());
        }
        Err(error) => {
            // Codex skips the group with a warning. The regex crate's message
            // spans lines; the last one says what is wrong.
            let text = error.to_string();
            out.warnings.push(ConfigWarningKind::InvalidMatcher {
                at,
                matcher: group.matcher.clone().unwrap_or_default(),
                error: text.lines().last().unwrap_or_default().trim().to_owned(),
            });
            return Ok(());
        }
    };
    let Some(handlers) = group.hooks else {
        return Err(ConfigErrorKind::MissingKey {
            at,
            key: "hooks",
            needs: "a Codex matcher group lists its handlers under \"hooks\"",
        });
    };
    for (h, handler) in handlers.into_iter().enumerate() {
        let at = format!("{at}.hooks[{h}]");
        let kind = handler.kind.unwrap_or_else(|| "command".into());
        let command = handler.command.unwrap_or_default();
        if command.contains('\0') {
            return Err(ConfigErrorKind::NulCharacter {
                at: format!("\"command\" of {at}"),
            });
        }
        if kind == "command" && command.trim().is_empty() {
            return Err(ConfigErrorKind::MissingKey {
                at,
                key: "command",
                needs: "a Codex command handler needs the shell command it runs",
            });
        }
        let timeout = handler_timeout(event, &at, handler.timeout)?;
        if kind != "command" {
            out.warnings.push(ConfigWarningKind::UnsupportedType {
                at: at.clone(),
                entries: "handlers",
                kind: kind.clone(),
                why: "Codex parses prompt and agent handlers and skips them; only \"command\" runs",
            });
        }
        let index = out.handlers.len();
        out.handlers.push(CodexHandler {
            event,
            matcher: group.matcher.clone(),
            pattern: pattern.clone(),
            kind,
            command,
            timeout,
            is_async: handler.is_async.unwrap_or(false),
            status_message: handler.status_message,
            group: g,
            index,
        });
    }
    Ok(())
}

/// A matcher group's value read as a [`Group`], with a warning in
/// `warnings` for each key Codex does not read.
fn deserialize_group(
    at: &str,
    raw: &Value,
    warnings: &mut Vec<ConfigWarningKind>,
) -> Result<Group, ConfigErrorKind> {
    let mut ignored = Vec::new();
    let mut note = |path: serde_ignored::Path<'_>| ignored.push(json_path(&path));
    let de = serde_ignored::Deserializer::new(raw, &mut note);
    let group: Group = serde_path_to_error::deserialize(de).map_err(|err| {
        let place = match err.path().to_string() {
            path if path == "." => at.to_owned(),
            path if path.starts_with('[') => format!("{at}{path}"),
            path => format!("{at}.{path}"),
        };
        ConfigErrorKind::InvalidValue {
            at: place,
            expected: "what Codex reads there (a group is {\"matcher\": a string, \"hooks\": \
                       [handlers]}; a handler's \"command\" is a string, its \"timeout\" a \
                       number of seconds, its \"async\" true or false)",
            found: err.into_inner().to_string(),
        }
    })?;
    for key in ignored {
        warnings.push(ConfigWarningKind::UnknownKey {
            at: format!("{at}{key}"),
            expected: "a key of a Codex matcher group or handler",
        });
    }
    Ok(group)
}

/// A handler's timeout: the event's default when none is written, else the
/// seconds written, at least 1; never over the cap at `SessionEnd`.
fn handler_timeout(
    event: CodexEvent,
    at: &str,
    written: Option<f64>,
) -> Result<Duration, ConfigErrorKind> {
    let timeout = match written {
        None if event == CodexEvent::SessionEnd => SESSION_END_TIMEOUT.0,
        None => DEFAULT_TIMEOUT,
        Some(secs) if !secs.is_finite() || secs < 0.0 => {
            return Err(invalid_value(
                format!("\"timeout\" of {at}"),
                "a number of seconds",
                &Value::from(secs),
            ));
        }
        // Codex raises a timeout below 1 s to 1 s.
        Some(secs) => Duration::from_secs_f64(secs.clamp(1.0, 1e9)),
    };
    Ok(match event {
        CodexEvent::SessionEnd => timeout.min(SESSION_END_TIMEOUT.1),
        _ => timeout,
    })
}

/// Where a plugin's hooks file sits: `<root>/hooks/hooks.json`. `None` for a
/// file of a config layer.
pub fn plugin_root(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let plugin = path.file_name()? == "hooks.json" && dir.file_name()? == "hooks";
    plugin
        .then(|| dir.parent().map(Path::to_path_buf))
        .flatten()
}

/// A path serde_ignored reports, as a JSON path: `.hooks[2].timout`.
fn json_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path as P;
    match path {
        P::Root => String::new(),
        P::Seq { parent, index } => format!("{}[{index}]", json_path(parent)),
        P::Map { parent, key } => format!("{}.{key}", json_path(parent)),
        P::Some { parent } | P::NewtypeStruct { parent } | P::NewtypeVariant { parent } => {
            json_path(parent)
        }
    }
}
