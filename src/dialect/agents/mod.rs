//! react-agent-mini: `.agents/hooks.json`, `PreToolUse` and `PostToolUse`
//! only, as pure functions: the file's entries, the stdin envelope and the
//! answer.
//!
//! The file is an object of events, bare or under `"hooks"`:
//!
//! ```json
//! {"PreToolUse": [{"matcher": "Bash", "command": "./guard.sh", "timeoutMs": 2000,
//!                  "denyOnFailure": true}]}
//! ```
//!
//! * `matcher`: a tool name, compared exactly, or `*` (also `""` or omitted)
//!   for every tool.
//! * `command`: run with `sh -c`; required.
//! * `timeoutMs`: milliseconds, default 5000.
//! * `denyOnFailure`: a `PreToolUse` hook that fails (an exit other than 0 and
//!   2, a signal, a timeout, a hook that cannot start) denies instead of
//!   letting the tool run.
//! * `persistent`: a tower-hooks extension: one long-lived process answers
//!   every event.
//!
//! Other keys of an entry are left alone. A key of the file other than the two
//! events is a warning; a wrong type, a missing command or JSON that does not
//! parse is an error.
//!
//! A hook reads `{"hook_event_name", "tool_name", "tool_input"}` on stdin, and,
//! after the tool ran, `tool_result` (the result's text) and `tool_is_error`.
//! It answers with exit 2 (deny; the reason is stderr, else stdout), or exit 0
//! and a last stdout line such as `{"decision": "deny", "reason": "…"}`.
//! `PostToolUse` hooks only observe: what they answer changes nothing.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower_hooks::dialect::agents::{decode, parse, stdin_line, AgentsDecision, AgentsEvent};
//! use tower_hooks::HookRequest;
//!
//! let file = parse(r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "command": "./guard.sh"}]}}"#)
//!     .unwrap();
//! let hook = &file.hooks[0];
//! assert!(hook.matches("Bash") && !hook.matches("bash"));
//! assert_eq!(hook.timeout.as_millis(), 5000);
//!
//! let req = HookRequest::tool_execution_start("Bash", json!({"command": "bun test"}));
//! assert_eq!(
//!     stdin_line(&req).unwrap(),
//!     b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"bun test\"}}\n"
//! );
//!
//! let answer = decode(AgentsEvent::PreToolUse, Some(0), b"checking\n{\"decision\":\"deny\",\"reason\":\"no\"}\n", b"", false);
//! assert_eq!(answer.decision, AgentsDecision::Deny);
//! assert_eq!(answer.reason.as_deref(), Some("no"));
//! ```
//!
//! # Decisions where react-agent-mini is silent
//!
//! * Its own loader drops malformed entries and unreadable files without a
//!   word; this one reports them as errors naming the file, the entry and the
//!   field.
//! * A deny without a reason, and exit 2 with nothing on stderr or stdout, give
//!   `blocked by hook`, the reason every dialect of this crate uses.
//! * Failures read as in the Claude Code dialect (`exited with status 1: …`,
//!   `timed out after 300 ms`, `could not start: …`); `denyOnFailure` makes
//!   that text the reason of the deny. On `PostToolUse` `denyOnFailure` has no
//!   effect.
//! * Only exit 0 reads stdout for a JSON deny (react-agent-mini reads it on any
//!   exit code); exit 1 with a deny on stdout is a failure.

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use serde::de::{self, Deserializer, MapAccess, SeqAccess};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::derived::{refuse, refuse_described, Refused, Shape};
use crate::config::read::{read_config, MAX_CONFIG_SIZE};
use crate::config::{invalid_value as invalid, ConfigError, ConfigErrorKind, ConfigWarningKind};
use crate::dialect::Failure;
use crate::event::Event;
use crate::outcome::{last_nonempty_line, DEFAULT_BLOCK_REASON};
use crate::request::HookRequest;

pub(crate) mod loader;

/// Where a workspace keeps its react-agent-mini hooks, relative to its root.
pub const FILE: &str = ".agents/hooks.json";

#[doc(hidden)] // for fuzz targets and property tests; not API
/// How long a hook may run when its entry has no `timeoutMs`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);

/// One of react-agent-mini's two events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentsEvent {
    /// Before a tool runs: a hook may deny it.
    PreToolUse,
    /// After a tool ran: hooks only observe.
    PostToolUse,
}

impl AgentsEvent {
    /// Both events, in the order the loader lists their hooks.
    pub const ALL: [AgentsEvent; 2] = [AgentsEvent::PreToolUse, AgentsEvent::PostToolUse];

    /// The name in the file and in `hook_event_name`.
    pub const fn name(self) -> &'static str {
        match self {
            AgentsEvent::PreToolUse => "PreToolUse",
            AgentsEvent::PostToolUse => "PostToolUse",
        }
    }

    /// The neutral event it fires at.
    pub const fn event(self) -> Event {
        match self {
            AgentsEvent::PreToolUse => Event::ToolExecutionStart,
            AgentsEvent::PostToolUse => Event::ToolExecutionEnd,
        }
    }

    /// The event fired for a neutral event, if react-agent-mini has one there.
    pub fn at(event: Event) -> Option<AgentsEvent> {
        AgentsEvent::ALL.into_iter().find(|e| e.event() == event)
    }

    /// The event with this exact name.
    pub fn from_name(name: &str) -> Option<AgentsEvent> {
        AgentsEvent::ALL.into_iter().find(|e| e.name() == name)
    }
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// One entry of `.agents/hooks.json`. See the [module docs](self) for the
/// fields.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentsHook {
    /// The event whose list holds it.
    pub event: AgentsEvent,
    /// Its position in that list, from 0.
    pub index: usize,
    /// The tool it runs for; `None` for every tool (`*`, `""` or omitted).
    pub matcher: Option<String>,
    /// The shell command, run with `sh -c`.
    pub command: String,
    /// `timeoutMs`, or [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// `denyOnFailure`: a failure of a `PreToolUse` hook denies.
    pub deny_on_failure: bool,
    /// `persistent`: one long-lived process answers every event.
    pub persistent: bool,
}

impl AgentsHook {
    /// Whether the hook runs for a call of `tool_name`: the matcher is that
    /// exact name (case included), or there is none.
    pub fn matches(&self, tool_name: &str) -> bool {
        self.matcher.as_deref().is_none_or(|m| m == tool_name)
    }

    /// The matcher as the file says it (`*` for every tool).
    pub fn matcher_str(&self) -> &str {
        self.matcher.as_deref().unwrap_or("*")
    }
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// What a `.agents/hooks.json` holds: its hooks (the `PreToolUse` ones, then
/// the `PostToolUse` ones, each in file order) and what looks wrong in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct AgentsFile {
    /// The entries.
    pub hooks: Vec<AgentsHook>,
    /// Keys that are no event of react-agent-mini
    /// ([`ConfigWarningKind::UnsupportedEvent`]).
    pub warnings: Vec<ConfigWarningKind>,
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// Reads the `.agents/hooks.json` at `path` (a regular file of at most
/// [`MAX_CONFIG_SIZE`] bytes of UTF-8). Errors name the file.
pub fn load(path: &Path) -> Result<AgentsFile, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    parse(&text).map_err(|kind| ConfigError::new(path, kind))
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// Reads the text of a `.agents/hooks.json`: bare (`{"PreToolUse": […]}`) or
/// wrapped (`{"hooks": {"PreToolUse": […]}}`).
///
/// Errors: JSON that does not parse ([`ConfigErrorKind::InvalidJson`], with
/// its line and column), an entry without a command
/// ([`ConfigErrorKind::MissingKey`]), a value of the wrong type
/// ([`ConfigErrorKind::InvalidValue`]). A key that is not `PreToolUse` or
/// `PostToolUse` is a warning.
pub fn parse(text: &str) -> Result<AgentsFile, ConfigErrorKind> {
    let root: Value = serde_json::from_str(text).map_err(ConfigErrorKind::InvalidJson)?;
    let Value::Object(fields) = &root else {
        return Err(invalid("the file", "a JSON object of events", &root));
    };
    let (events, prefix) = match fields.get("hooks") {
        Some(events @ Value::Object(_)) => (events, "hooks."),
        Some(other) => return Err(invalid("\"hooks\"", "an object of events", other)),
        None => (&root, ""),
    };
    let mut others = Vec::new();
    let mut other_key = |path: serde_ignored::Path<'_>| {
        // A key of the events object; an entry's other keys are left alone.
        if let serde_ignored::Path::Map {
            parent: serde_ignored::Path::Root,
            key,
        } = path
        {
            others.push(key);
        }
    };
    let events = serde_ignored::Deserializer::new(events, &mut other_key);
    let events: Events =
        serde_path_to_error::deserialize(events).map_err(|err| refused(&err, prefix))?;
    let mut file = AgentsFile {
        warnings: crate::config::duplicate_keys(text),
        ..AgentsFile::default()
    };
    for (event, entries) in [
        (AgentsEvent::PreToolUse, events.pre_tool_use),
        (AgentsEvent::PostToolUse, events.post_tool_use),
    ] {
        for (index, entry) in entries.0.into_iter().enumerate() {
            file.hooks.push(AgentsHook {
                event,
                index,
                matcher: entry.matcher,
                command: entry.command,
                timeout: entry.timeout.unwrap_or(DEFAULT_TIMEOUT),
                deny_on_failure: entry.deny_on_failure,
                persistent: entry.persistent,
            });
        }
    }
    for key in others {
        file.warnings.push(ConfigWarningKind::UnsupportedEvent {
            suggestion: suggestion(&key),
            event: key,
            runs_on: "react-agent-mini hooks run on PreToolUse and PostToolUse only",
        });
    }
    Ok(file)
}

// --- the file's types --------------------------------------------------------

/// What an entry's `matcher` must be.
const A_TOOL_NAME: &str = "a tool name or \"*\"";
/// What an entry's `command` must be.
const A_COMMAND: &str = "a shell command";
/// What a `command` with a NUL character must be.
const NO_NUL: &str = "a command without NUL characters (\\u0000)";
/// What `timeoutMs` must be.
const MILLISECONDS: &str = "a positive number of milliseconds";
/// What `denyOnFailure` and `persistent` must be.
const A_FLAG: &str = "true or false";
/// What an event's value must be.
const ENTRIES: &str = "an array of hook entries";
/// What an entry must be.
const AN_ENTRY: &str = "an object with a \"command\"";
/// The refusal of an entry without a command (the error is
/// [`ConfigErrorKind::MissingKey`], not a wrong value).
const NO_COMMAND: &str = "\"command\"";
/// Every refusal the file's types raise.
const REFUSALS: [&str; 8] = [
    A_TOOL_NAME,
    A_COMMAND,
    NO_NUL,
    MILLISECONDS,
    A_FLAG,
    ENTRIES,
    AN_ENTRY,
    NO_COMMAND,
];

/// The events of a `.agents/hooks.json`, bare or under `"hooks"`. Any other
/// key is reported by `serde_ignored` and becomes a warning.
#[derive(Debug, Deserialize)]
struct Events {
    #[serde(rename = "PreToolUse", default)]
    pre_tool_use: Entries,
    #[serde(rename = "PostToolUse", default)]
    post_tool_use: Entries,
}

/// An event's entries (`null` is none).
#[derive(Debug, Default)]
struct Entries(Vec<Entry>);

impl<'de> Shape<'de> for Entries {
    const EXPECTED: &'static str = ENTRIES;

    fn null<E: de::Error>() -> Result<Self, E> {
        Ok(Entries::default())
    }

    fn seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = seq.next_element::<Entry>()? {
            entries.push(entry);
        }
        Ok(Entries(entries))
    }
}

deserialize_by_shape!(Entries);

/// One entry, its fields checked, with a command. Other keys are left
/// alone.
#[derive(Debug, Deserialize)]
struct RawEntry {
    #[serde(default, deserialize_with = "matcher")]
    matcher: Option<String>,
    #[serde(default, deserialize_with = "command")]
    command: Option<String>,
    #[serde(default, rename = "timeoutMs", deserialize_with = "timeout_ms")]
    timeout: Option<Duration>,
    #[serde(default, rename = "denyOnFailure", deserialize_with = "flag")]
    deny_on_failure: bool,
    #[serde(default, deserialize_with = "flag")]
    persistent: bool,
}

/// A [`RawEntry`] that has its command.
#[derive(Debug)]
struct Entry {
    matcher: Option<String>,
    command: String,
    timeout: Option<Duration>,
    deny_on_failure: bool,
    persistent: bool,
}

impl<'de> Shape<'de> for Entry {
    const EXPECTED: &'static str = AN_ENTRY;

    fn map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        let raw = RawEntry::deserialize(de::value::MapAccessDeserializer::new(map))?;
        let Some(command) = raw.command else {
            return Err(refuse_described(NO_COMMAND, ""));
        };
        Ok(Entry {
            matcher: raw.matcher,
            command,
            timeout: raw.timeout,
            deny_on_failure: raw.deny_on_failure,
            persistent: raw.persistent,
        })
    }
}

deserialize_by_shape!(Entry);

/// A tool name; `*`, `""` and `null` are every tool (`None`).
fn matcher<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(m) if m.is_empty() || m == "*" => Ok(None),
        Value::String(m) => Ok(Some(m)),
        other => Err(refuse(A_TOOL_NAME, &other)),
    }
}

/// A command that is not blank (`None` when it is, or `null`).
fn command<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::String(c) if c.trim().is_empty() => Ok(None),
        Value::String(c) if c.contains('\0') => Err(refuse_described(NO_NUL, "a string with one")),
        Value::String(c) => Ok(Some(c)),
        Value::Null => Ok(None),
        other => Err(refuse(A_COMMAND, &other)),
    }
}

/// `timeoutMs`: [`milliseconds`], or `None` for `null`.
fn timeout_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        value => milliseconds(&value)
            .map(Some)
            .ok_or_else(|| refuse(MILLISECONDS, &value)),
    }
}

/// `true` or `false`; `null` is `false`.
fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(b),
        other => Err(refuse(A_FLAG, &other)),
    }
}

/// The error of a refusal at its path, named as the file names it:
/// `"PreToolUse" (hooks.PreToolUse)`, `PreToolUse entry 2 (PreToolUse[2])`,
/// `"timeoutMs" of PreToolUse entry 2 (PreToolUse[2])`.
fn refused(err: &serde_path_to_error::Error<serde_json::Error>, prefix: &str) -> ConfigErrorKind {
    use serde_path_to_error::Segment;
    let Some(refusal) = Refused::read(err, &REFUSALS) else {
        // Every check of the file's types is a refusal; this is serde's own.
        return ConfigErrorKind::InvalidValue {
            at: format!("{prefix}{}", err.path()),
            expected: "a react-agent-mini hook entry",
            found: err.inner().to_string(),
        };
    };
    let segments: Vec<&Segment> = refusal.path.iter().collect();
    let entry =
        |event: &str, index: &usize| format!("{event} entry {index} ({prefix}{event}[{index}])");
    let at = match segments.as_slice() {
        [Segment::Map { key: event }] => format!("\"{event}\" ({prefix}{event})"),
        [Segment::Map { key: event }, Segment::Seq { index }] => entry(event, index),
        [Segment::Map { key: event }, Segment::Seq { index }, Segment::Map { key }] => {
            format!("\"{key}\" of {}", entry(event, index))
        }
        _ => format!("{prefix}{}", refusal.path),
    };
    if refusal.expected == NO_COMMAND {
        return ConfigErrorKind::MissingKey {
            at,
            key: "command",
            needs: "a react-agent-mini hook needs the shell command to run (with sh -c)",
        };
    }
    refusal.at(at)
}

/// A positive number of milliseconds; a fraction rounds up.
fn milliseconds(value: &Value) -> Option<Duration> {
    if let Some(ms) = value.as_u64() {
        return (ms > 0).then(|| Duration::from_millis(ms));
    }
    let ms = value.as_f64()?;
    // Durations past u64::MAX ms are not representable; cap them (never, in practice).
    (ms.is_finite() && ms > 0.0)
        .then(|| Duration::from_millis(ms.ceil().min(u64::MAX as f64) as u64))
}

/// The event a key most likely means: the same letters, ignoring case, `_`
/// and `-` (`preToolUse`, `pre_tool_use`).
fn suggestion(key: &str) -> Option<&'static str> {
    let folded: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    AgentsEvent::ALL
        .into_iter()
        .map(AgentsEvent::name)
        .find(|name| name.to_ascii_lowercase() == folded)
}

// --- the envelope -----------------------------------------------------------

#[derive(Serialize)]
struct Line<'a> {
    hook_event_name: &'static str,
    tool_name: &'a str,
    tool_input: Cow<'a, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_result: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_is_error: Option<bool>,
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// The line written to a react-agent-mini hook's stdin: one JSON object and a
/// newline. `None` at an event react-agent-mini has no event for.
///
/// Before a tool runs: `{"hook_event_name": "PreToolUse", "tool_name",
/// "tool_input"}`. After: `"PostToolUse"`, the tool input, then `tool_result`
/// (the result's text) and `tool_is_error`.
pub fn stdin_line(req: &HookRequest) -> Option<Vec<u8>> {
    let event = AgentsEvent::at(req.event())?;
    let args = req.arguments();
    let line = match event {
        AgentsEvent::PreToolUse => Line {
            hook_event_name: event.name(),
            tool_name: req.tool_name().unwrap_or(""),
            tool_input: Cow::Borrowed(args),
            tool_result: None,
            tool_is_error: None,
        },
        AgentsEvent::PostToolUse => {
            let response = args.get("tool_response");
            let text = match response.and_then(|r| r.get("content")) {
                Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
                None | Some(Value::Null) => Cow::Borrowed(""),
                Some(other) => Cow::Owned(other.to_string()),
            };
            Line {
                hook_event_name: event.name(),
                tool_name: req.tool_name().unwrap_or(""),
                tool_input: args
                    .get("tool_input")
                    .map_or_else(|| Cow::Owned(Value::Object(Map::new())), Cow::Borrowed),
                tool_result: Some(text),
                tool_is_error: Some(
                    response.and_then(|r| r.get("is_error")) == Some(&Value::Bool(true)),
                ),
            }
        }
    };
    let mut out = Vec::with_capacity(256);
    // Strings and `Value`s written into a Vec cannot fail to serialize.
    serde_json::to_writer(&mut out, &line).expect("a JSON value always serializes");
    out.push(b'\n');
    Some(out)
}

// --- the answer -------------------------------------------------------------

#[doc(hidden)] // for fuzz targets and property tests; not API
/// What a react-agent-mini hook decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AgentsDecision {
    /// The tool runs (also: a failure without `denyOnFailure`).
    #[default]
    Allow,
    /// The tool does not run.
    Deny,
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// One react-agent-mini hook's answer, read by [`decode`] or [`failed`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentsAnswer {
    /// What the hook decided.
    pub decision: AgentsDecision,
    /// Whether the decision takes effect: `false` for a deny on `PostToolUse`,
    /// which only observes.
    pub honored: bool,
    /// The reason of a deny.
    pub reason: Option<String>,
    /// The hook failed: `exited with status 1: …`, `timed out after 300 ms`, …
    /// The tool runs, unless `denyOnFailure` made the failure a deny (with this
    /// text as its reason).
    pub error: Option<String>,
}

impl AgentsAnswer {
    fn allow() -> Self {
        AgentsAnswer {
            decision: AgentsDecision::Allow,
            honored: true,
            reason: None,
            error: None,
        }
    }

    fn deny(event: AgentsEvent, reason: String) -> Self {
        AgentsAnswer {
            decision: AgentsDecision::Deny,
            honored: event == AgentsEvent::PreToolUse,
            reason: Some(reason),
            error: None,
        }
    }
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// Reads a react-agent-mini hook's answer. `exit` is `None` when the hook was
/// ended by a signal. Never panics, whatever the bytes.
///
/// * exit 2: deny; the reason is stderr, else stdout (each trimmed), else
///   `blocked by hook`;
/// * exit 0: the last non-blank stdout line, when it is a JSON object whose
///   `permissionDecision`, `decision` or `behavior` is `"deny"`, denies; the
///   reason is the first non-blank `reason`, `permissionDecisionReason` or
///   `message`, else `blocked by hook`. Anything else allows;
/// * any other exit, or a signal: a failure, see [`failed`].
///
/// On `PostToolUse` a deny is recorded and not honored.
pub fn decode(
    event: AgentsEvent,
    exit: Option<i32>,
    stdout: &[u8],
    stderr: &[u8],
    deny_on_failure: bool,
) -> AgentsAnswer {
    match exit {
        Some(2) => AgentsAnswer::deny(event, crate::dialect::envelope::deny_reason(stderr, stdout)),
        Some(0) => match last_nonempty_line(stdout).and_then(deny_reason) {
            Some(reason) => AgentsAnswer::deny(event, reason),
            None => AgentsAnswer::allow(),
        },
        _ => failed(event, &Failure::exited(exit, stderr), deny_on_failure),
    }
}

/// The reason of a deny on this stdout line, or `None` when it does not deny.
fn deny_reason(line: &[u8]) -> Option<String> {
    let Ok(Value::Object(answer)) = serde_json::from_slice::<Value>(line.trim_ascii()) else {
        return None;
    };
    let denies = ["permissionDecision", "decision", "behavior"]
        .iter()
        .any(|key| answer.get(*key).and_then(Value::as_str) == Some("deny"));
    if !denies {
        return None;
    }
    let reason = ["reason", "permissionDecisionReason", "message"]
        .iter()
        .filter_map(|key| answer.get(*key).and_then(Value::as_str))
        .find(|text| !text.trim().is_empty())
        .unwrap_or(DEFAULT_BLOCK_REASON);
    Some(reason.to_owned())
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// The answer of a hook that failed (exited with another status, was killed,
/// timed out or could not start): an `error` that lets the tool run, or, for a
/// `PreToolUse` entry with `denyOnFailure`, a deny whose reason is the error.
///
/// ```
/// use std::time::Duration;
/// use tower_hooks::dialect::agents::{failed, AgentsDecision, AgentsEvent};
/// use tower_hooks::dialect::claude::Failure;
///
/// let open = failed(AgentsEvent::PreToolUse, &Failure::TimedOut(Duration::from_millis(300)), false);
/// assert_eq!(open.decision, AgentsDecision::Allow);
/// assert_eq!(open.error.as_deref(), Some("timed out after 300 ms"));
/// let closed = failed(AgentsEvent::PreToolUse, &Failure::TimedOut(Duration::from_millis(300)), true);
/// assert_eq!(closed.decision, AgentsDecision::Deny);
/// ```
pub fn failed(event: AgentsEvent, failure: &Failure, deny_on_failure: bool) -> AgentsAnswer {
    let error = failure.to_string();
    let mut answer = if deny_on_failure && event == AgentsEvent::PreToolUse {
        AgentsAnswer::deny(event, error.clone())
    } else {
        AgentsAnswer::allow()
    };
    answer.error = Some(error);
    answer
}

// --- as a hook of the stack ---------------------------------------------------

/// What a react-agent-mini hook keeps on its spec.
#[derive(Debug)]
pub(crate) struct AgentsExtra {
    hook: AgentsHook,
}

impl AgentsExtra {
    /// The event, as the file names it.
    pub(crate) fn event_name(&self) -> &'static str {
        self.hook.event.name()
    }
}

#[doc(hidden)] // for fuzz targets and property tests; not API
/// The hook specs of a loaded `.agents/hooks.json` at `source`, in order; they
/// run under `sh -c`.
pub fn specs(file: &AgentsFile, source: &Path) -> Vec<crate::HookSpec> {
    file.hooks
        .iter()
        .map(|hook| {
            let mut spec = crate::HookSpec::command(hook.event.event(), hook.command.clone())
                .with_source(source.display().to_string(), hook.index)
                .with_timeout(hook.timeout)
                .with_program(crate::spec::Program::Sh)
                .with_persistent(hook.persistent)
                .with_dialect(std::sync::Arc::new(AgentsExtra { hook: hook.clone() }));
            spec.matcher = hook.matcher.clone();
            spec
        })
        .collect()
}

impl crate::dialect::DialectHook for AgentsExtra {
    fn dialect(&self) -> crate::Dialect {
        crate::Dialect::Agents
    }

    fn event_name<'a>(&'a self, _spec: &'a crate::HookSpec) -> &'a str {
        self.event_name()
    }

    /// Its event is the request's neutral event and its matcher names the tool (or
    /// is `*`).
    fn runs_for(&self, _spec: &crate::HookSpec, req: &HookRequest) -> bool {
        AgentsEvent::at(req.event()) == Some(self.hook.event)
            && self.hook.matches(req.tool_name().unwrap_or(""))
    }

    /// The stdin line of a run (nothing is added to the environment).
    fn encode(&self, req: &HookRequest, _cwd: &str) -> crate::dialect::Encoded {
        crate::dialect::Encoded {
            stdin: stdin_line(req).unwrap_or_default(),
            ..Default::default()
        }
    }

    /// A deny blocks; a failure is an `error` record that lets the tool
    /// run, or a block with `denyOnFailure` (or when the hook fails closed).
    fn finish(
        &self,
        spec: Option<&crate::HookSpec>,
        _req: &HookRequest,
        ended: crate::dialect::Ended<'_>,
    ) -> Result<(crate::Verdict, crate::Notes), crate::BoxError> {
        use crate::outcome::Termination;
        let timeout = spec.map(crate::HookSpec::timeout).unwrap_or_default();
        let fail_closed = spec.is_some_and(crate::HookSpec::fail_closed);
        let (event, deny) = (self.hook.event, self.hook.deny_on_failure || fail_closed);
        let answer = match ended {
            Ok(finished) => {
                let (stdout, stderr) = (&finished.stdout, &finished.stderr);
                match finished.termination {
                    Termination::Exited(code) => decode(event, Some(code), stdout, stderr, deny),
                    Termination::Signaled(_) => decode(event, None, stdout, stderr, deny),
                    Termination::TimedOut => failed(event, &Failure::TimedOut(timeout), deny),
                }
            }
            Err(error) => failed(event, &Failure::CouldNotStart(error.to_string()), deny),
        };
        let verdict = match (answer.decision, answer.error) {
            (AgentsDecision::Deny, error) => crate::Verdict::block(
                answer
                    .reason
                    .or(error)
                    .unwrap_or_else(|| crate::DEFAULT_BLOCK_REASON.into()),
            ),
            (AgentsDecision::Allow, Some(error)) => crate::Verdict::failed_open(error),
            (AgentsDecision::Allow, None) => crate::Verdict::Allow,
        };
        Ok((verdict, crate::Notes::default()))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests;
