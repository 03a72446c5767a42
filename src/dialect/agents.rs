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

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::read::{read_config, MAX_CONFIG_SIZE};
use crate::config::{ConfigError, ConfigErrorKind, ConfigWarningKind};
use crate::dialect::claude::Failure;
use crate::event::Event;
use crate::outcome::{last_nonempty_line, DEFAULT_BLOCK_REASON};
use crate::request::HookRequest;

/// Where a workspace keeps its react-agent-mini hooks, relative to its root.
pub const FILE: &str = ".agents/hooks.json";

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

    /// The neutral point it fires at.
    pub const fn point(self) -> Event {
        match self {
            AgentsEvent::PreToolUse => Event::ToolExecutionStart,
            AgentsEvent::PostToolUse => Event::ToolExecutionEnd,
        }
    }

    /// The event fired at a neutral point, if react-agent-mini has one there.
    pub fn at(point: Event) -> Option<AgentsEvent> {
        AgentsEvent::ALL.into_iter().find(|e| e.point() == point)
    }

    /// The event with this exact name.
    pub fn from_name(name: &str) -> Option<AgentsEvent> {
        AgentsEvent::ALL.into_iter().find(|e| e.name() == name)
    }
}

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

/// What a `.agents/hooks.json` holds: its hooks (the `PreToolUse` ones, then
/// the `PostToolUse` ones, each in file order) and what looks wrong in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct AgentsFile {
    /// The entries.
    pub hooks: Vec<AgentsHook>,
    /// Keys that are no event of react-agent-mini
    /// ([`ConfigWarningKind::AgentsUnsupportedEvent`]).
    pub warnings: Vec<ConfigWarningKind>,
}

/// Reads the `.agents/hooks.json` at `path` (a regular file of at most
/// [`MAX_CONFIG_SIZE`] bytes of UTF-8). Errors name the file.
pub fn load(path: &Path) -> Result<AgentsFile, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    parse(&text).map_err(|kind| ConfigError::new(path, kind))
}

/// Reads the text of a `.agents/hooks.json`: bare (`{"PreToolUse": […]}`) or
/// wrapped (`{"hooks": {"PreToolUse": […]}}`).
///
/// Errors: JSON that does not parse ([`ConfigErrorKind::InvalidJson`], with
/// its line and column), an entry without a command
/// ([`ConfigErrorKind::AgentsMissingCommand`]), a value of the wrong type
/// ([`ConfigErrorKind::AgentsInvalidValue`]). A key that is not `PreToolUse` or
/// `PostToolUse` is a warning.
pub fn parse(text: &str) -> Result<AgentsFile, ConfigErrorKind> {
    let root: Value = serde_json::from_str(text).map_err(ConfigErrorKind::InvalidJson)?;
    let Value::Object(root) = root else {
        return Err(invalid("the file", "a JSON object of events", &root));
    };
    let (events, prefix) = match root.get("hooks") {
        Some(Value::Object(events)) => (events, "hooks."),
        Some(other) => return Err(invalid("\"hooks\"", "an object of events", other)),
        None => (&root, ""),
    };
    let mut file = AgentsFile {
        warnings: crate::config::duplicate_keys(text),
        ..AgentsFile::default()
    };
    for event in AgentsEvent::ALL {
        let entries = match events.get(event.name()) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(entries)) => entries,
            Some(other) => {
                let at = format!("\"{}\" ({prefix}{})", event.name(), event.name());
                return Err(invalid(&at, "an array of hook entries", other));
            }
        };
        for (index, entry) in entries.iter().enumerate() {
            let at = format!(
                "{} entry {index} ({prefix}{}[{index}])",
                event.name(),
                event.name()
            );
            file.hooks.push(entry_of(event, index, entry, &at)?);
        }
    }
    for key in events.keys() {
        if AgentsEvent::from_name(key).is_none() {
            file.warnings
                .push(ConfigWarningKind::AgentsUnsupportedEvent {
                    event: key.clone(),
                    suggestion: suggestion(key),
                });
        }
    }
    Ok(file)
}

fn entry_of(
    event: AgentsEvent,
    index: usize,
    entry: &Value,
    at: &str,
) -> Result<AgentsHook, ConfigErrorKind> {
    let Value::Object(entry) = entry else {
        return Err(invalid(at, "an object with a \"command\"", entry));
    };
    let field = |key: &str| entry.get(key).filter(|v| !v.is_null());
    let field_at = |key: &str| format!("\"{key}\" of {at}");

    let matcher = match field("matcher") {
        None => None,
        Some(Value::String(m)) if m.is_empty() || m == "*" => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(other) => return Err(invalid(&field_at("matcher"), "a tool name or \"*\"", other)),
    };
    let command = match field("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => c,
        None | Some(Value::String(_)) => {
            return Err(ConfigErrorKind::AgentsMissingCommand { at: at.to_owned() })
        }
        Some(other) => return Err(invalid(&field_at("command"), "a shell command", other)),
    };
    if command.contains('\0') {
        return Err(ConfigErrorKind::AgentsInvalidValue {
            at: field_at("command"),
            expected: "a command without NUL characters (\\u0000)",
            found: "a string with one".into(),
        });
    }
    let timeout = match field("timeoutMs") {
        None => DEFAULT_TIMEOUT,
        Some(value) => milliseconds(value).ok_or_else(|| {
            invalid(
                &field_at("timeoutMs"),
                "a positive number of milliseconds",
                value,
            )
        })?,
    };
    let flag = |key: &str| match field(key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(invalid(&field_at(key), "true or false", other)),
    };
    Ok(AgentsHook {
        event,
        index,
        matcher,
        command: command.clone(),
        timeout,
        deny_on_failure: flag("denyOnFailure")?,
        persistent: flag("persistent")?,
    })
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

fn invalid(at: &str, expected: &'static str, found: &Value) -> ConfigErrorKind {
    ConfigErrorKind::AgentsInvalidValue {
        at: at.to_owned(),
        expected,
        found: crate::config::describe_json(found),
    }
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

/// The line written to a react-agent-mini hook's stdin: one JSON object and a
/// newline. `None` at a point react-agent-mini has no event for.
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

/// What a react-agent-mini hook decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AgentsDecision {
    /// The tool runs (also: a failure without `denyOnFailure`).
    #[default]
    Allow,
    /// The tool does not run.
    Deny,
}

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

/// The hook specs of a loaded `.agents/hooks.json` at `source`, in order; they
/// run under `sh -c`.
pub fn specs(file: &AgentsFile, source: &Path) -> Vec<crate::HookSpec> {
    file.hooks
        .iter()
        .map(|hook| {
            let mut spec = crate::HookSpec::command(hook.event.point(), hook.command.clone())
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

    /// Its event is the request's point and its matcher names the tool (or
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
mod tests {
    use super::*;
    use serde_json::json;

    fn hook(event: AgentsEvent, index: usize, matcher: Option<&str>, command: &str) -> AgentsHook {
        AgentsHook {
            event,
            index,
            matcher: matcher.map(str::to_owned),
            command: command.into(),
            timeout: DEFAULT_TIMEOUT,
            deny_on_failure: false,
            persistent: false,
        }
    }

    fn error_of(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    // --- the file -----------------------------------------------------------

    #[test]
    fn the_bare_and_the_wrapped_form_read_alike() {
        let events = json!({
            "PostToolUse": [{"matcher": "*", "command": "./log.sh"}],
            "PreToolUse": [{"matcher": "Bash", "command": "./a.sh"}, {"command": "./b.sh"}],
        });
        let bare = parse(&events.to_string()).unwrap();
        let wrapped = parse(&json!({"hooks": events, "description": "x"}).to_string()).unwrap();
        assert_eq!(bare, wrapped);
        assert_eq!(
            bare.hooks,
            [
                hook(AgentsEvent::PreToolUse, 0, Some("Bash"), "./a.sh"),
                hook(AgentsEvent::PreToolUse, 1, None, "./b.sh"),
                hook(AgentsEvent::PostToolUse, 0, None, "./log.sh"),
            ]
        );
        assert!(bare.warnings.is_empty());
    }

    #[test]
    fn entries_carry_their_fields() {
        let file = parse(
            r#"{"PreToolUse": [{"matcher": "Write", "command": "x", "timeoutMs": 300,
                                "denyOnFailure": true, "persistent": true, "extra": [1]}]}"#,
        )
        .unwrap();
        let h = &file.hooks[0];
        assert_eq!(h.matcher.as_deref(), Some("Write"));
        assert_eq!(h.timeout, Duration::from_millis(300));
        assert!(h.deny_on_failure && h.persistent);
        let file =
            parse(r#"{"PreToolUse": [{"command": "x", "timeoutMs": 2.5, "denyOnFailure": null}]}"#)
                .unwrap();
        assert_eq!(file.hooks[0].timeout, Duration::from_millis(3));
        assert!(!file.hooks[0].deny_on_failure);
    }

    #[test]
    fn the_matcher_is_an_exact_name_or_every_tool() {
        for matcher in [json!("*"), json!(""), Value::Null] {
            let text = json!({"PreToolUse": [{"matcher": matcher, "command": "x"}]}).to_string();
            let h = &parse(&text).unwrap().hooks[0];
            assert_eq!(h.matcher, None);
            assert_eq!(h.matcher_str(), "*");
            assert!(h.matches("Bash") && h.matches("mcp__x__y"));
        }
        let h = hook(AgentsEvent::PreToolUse, 0, Some("Bash"), "x");
        assert!(h.matches("Bash"));
        assert!(!h.matches("bash") && !h.matches("BashOutput") && !h.matches(""));
        // No regex: `Edit|Write` is one odd name.
        let h = hook(AgentsEvent::PreToolUse, 0, Some("Edit|Write"), "x");
        assert!(!h.matches("Edit"));
    }

    #[test]
    fn bad_json_is_an_error_with_its_line_and_column() {
        let err = parse("{\n  \"PreToolUse\": [\n    {\"command\": \"x\",}\n  ]\n}").unwrap_err();
        assert!(matches!(err, ConfigErrorKind::InvalidJson(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("line 3 column"), "{message}");
    }

    #[test]
    fn an_entry_without_a_command_is_an_error_naming_it() {
        assert_eq!(
            error_of(r#"{"hooks": {"PreToolUse": [{"command": "x"}, {"matcher": "Bash"}]}}"#),
            "PreToolUse entry 1 (hooks.PreToolUse[1]) has no \"command\": a react-agent-mini hook \
             needs the shell command to run (with sh -c)"
        );
        for command in [json!(""), json!("  "), Value::Null] {
            let text = json!({"PostToolUse": [{"command": command}]}).to_string();
            assert!(
                matches!(
                    parse(&text),
                    Err(ConfigErrorKind::AgentsMissingCommand { .. })
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn values_of_the_wrong_type_are_errors_naming_the_field() {
        for (text, want) in [
            ("[]", "the file must be a JSON object of events, not an array"),
            (r#"{"hooks": []}"#, "\"hooks\" must be an object of events, not an array"),
            (
                r#"{"PreToolUse": {"command": "x"}}"#,
                "\"PreToolUse\" (PreToolUse) must be an array of hook entries, not an object",
            ),
            (
                r#"{"PreToolUse": ["./x.sh"]}"#,
                "PreToolUse entry 0 (PreToolUse[0]) must be an object with a \"command\", not the string \"./x.sh\"",
            ),
            (
                r#"{"PreToolUse": [{"command": "x", "timeoutMs": "5s"}]}"#,
                "\"timeoutMs\" of PreToolUse entry 0 (PreToolUse[0]) must be a positive number of \
                 milliseconds, not the string \"5s\"",
            ),
            (
                r#"{"PreToolUse": [{"command": "x", "timeoutMs": 0}]}"#,
                "\"timeoutMs\" of PreToolUse entry 0 (PreToolUse[0]) must be a positive number of \
                 milliseconds, not the number 0",
            ),
            (
                r#"{"PreToolUse": [{"command": "x", "timeoutMs": -5}]}"#,
                "\"timeoutMs\" of PreToolUse entry 0 (PreToolUse[0]) must be a positive number of \
                 milliseconds, not the number -5",
            ),
            (
                r#"{"PreToolUse": [{"command": "x", "denyOnFailure": "yes"}]}"#,
                "\"denyOnFailure\" of PreToolUse entry 0 (PreToolUse[0]) must be true or false, not the string \"yes\"",
            ),
            (
                r#"{"PostToolUse": [{"command": "x", "persistent": 1}]}"#,
                "\"persistent\" of PostToolUse entry 0 (PostToolUse[0]) must be true or false, not the number 1",
            ),
            (
                r#"{"PreToolUse": [{"command": "x", "matcher": ["Bash"]}]}"#,
                "\"matcher\" of PreToolUse entry 0 (PreToolUse[0]) must be a tool name or \"*\", not an array",
            ),
            (
                r#"{"PreToolUse": [{"command": 5}]}"#,
                "\"command\" of PreToolUse entry 0 (PreToolUse[0]) must be a shell command, not the number 5",
            ),
            (
                r#"{"PreToolUse": [{"command": "a\u0000b"}]}"#,
                "\"command\" of PreToolUse entry 0 (PreToolUse[0]) must be a command without NUL \
                 characters (\\u0000), not a string with one",
            ),
        ] {
            assert_eq!(error_of(text), want, "{text}");
        }
    }

    #[test]
    fn other_events_are_warnings_never_errors() {
        let file = parse(
            r#"{"PreToolUse": [{"command": "x"}], "Stop": [{"command": "y"}], "preToolUse": 3,
                "post_tool_use": []}"#,
        )
        .unwrap();
        assert_eq!(file.hooks.len(), 1);
        // In file order when serde_json keeps it, else sorted: compare sorted.
        let mut warnings: Vec<String> = file.warnings.iter().map(ToString::to_string).collect();
        warnings.sort();
        assert_eq!(
            warnings,
            [
                "\"Stop\": react-agent-mini hooks run on PreToolUse and PostToolUse only, so the \
                 hooks listed under it never run",
                "\"post_tool_use\": react-agent-mini hooks run on PreToolUse and PostToolUse only, \
                 so the hooks listed under it never run; did you mean \"PostToolUse\"?",
                "\"preToolUse\": react-agent-mini hooks run on PreToolUse and PostToolUse only, so \
                 the hooks listed under it never run; did you mean \"PreToolUse\"?",
            ]
        );
        assert_eq!(parse("{}").unwrap(), AgentsFile::default());
        assert_eq!(
            parse(r#"{"PreToolUse": null}"#).unwrap(),
            AgentsFile::default()
        );
    }

    #[test]
    fn load_reads_the_file_and_names_it_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.json");
        std::fs::write(
            &path,
            r#"{"PreToolUse": [{"matcher": "Bash", "command": "true"}]}"#,
        )
        .unwrap();
        assert_eq!(load(&path).unwrap().hooks.len(), 1);
        std::fs::write(&path, r#"{"PreToolUse": [{}]}"#).unwrap();
        let err = load(&path).unwrap_err();
        assert_eq!(err.path(), path);
        assert!(err
            .to_string()
            .starts_with(&format!("{}: PreToolUse entry 0", path.display())));
        std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
        assert!(matches!(
            load(&path).unwrap_err().kind(),
            ConfigErrorKind::InvalidUtf8 { offset: 7, line: 1 }
        ));
        let missing = load(&dir.path().join("nope.json")).unwrap_err();
        assert!(missing.is_not_found());
        assert!(matches!(
            load(dir.path()).unwrap_err().kind(),
            ConfigErrorKind::NotAFile { .. }
        ));
    }

    // --- the envelope -------------------------------------------------------

    #[test]
    fn before_a_tool_the_envelope_has_the_event_the_tool_and_its_input() {
        let req = HookRequest::tool_execution_start("Bash", json!({"command": "bun test"}))
            .with_session_id("s1")
            .with_tool_call_id("c1")
            .with_cwd("/w");
        let line = stdin_line(&req).unwrap();
        assert_eq!(
            line,
            b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"bun test\"}}\n"
        );
    }

    #[test]
    fn after_a_tool_the_envelope_adds_its_result() {
        for is_error in [false, true] {
            let req = HookRequest::tool_execution_end(
                "Read",
                json!({"file_path": "a.txt"}),
                "two\nlines",
                is_error,
                Duration::from_millis(5),
            );
            let line = stdin_line(&req).unwrap();
            assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            let v: Value = serde_json::from_slice(&line).unwrap();
            assert_eq!(
                v,
                json!({"hook_event_name": "PostToolUse", "tool_name": "Read",
                       "tool_input": {"file_path": "a.txt"}, "tool_result": "two\nlines",
                       "tool_is_error": is_error})
            );
        }
        let odd = HookRequest::new(Event::ToolExecutionEnd, json!({})).with_tool_name("t");
        let v: Value = serde_json::from_slice(&stdin_line(&odd).unwrap()).unwrap();
        assert_eq!(v["tool_input"], json!({}));
        assert_eq!(v["tool_result"], "");
        assert_eq!(v["tool_is_error"], false);
    }

    #[test]
    fn other_points_have_no_envelope() {
        for event in Event::ALL {
            let req = HookRequest::new(event, json!({}));
            let want = matches!(event, Event::ToolExecutionStart | Event::ToolExecutionEnd);
            assert_eq!(stdin_line(&req).is_some(), want, "{event}");
        }
        assert_eq!(AgentsEvent::at(Event::Input), None);
        assert_eq!(
            AgentsEvent::at(Event::ToolExecutionEnd),
            Some(AgentsEvent::PostToolUse)
        );
    }

    // --- the answer ---------------------------------------------------------

    const PRE: AgentsEvent = AgentsEvent::PreToolUse;
    const POST: AgentsEvent = AgentsEvent::PostToolUse;

    fn denied(reason: &str) -> AgentsAnswer {
        AgentsAnswer::deny(PRE, reason.into())
    }

    #[test]
    fn exit_2_denies_with_stderr_else_stdout() {
        assert_eq!(
            decode(PRE, Some(2), b"out", b"Bash blocked by policy\n", false),
            denied("Bash blocked by policy")
        );
        assert_eq!(
            decode(PRE, Some(2), b"  from stdout\n", b" \n", false),
            denied("from stdout")
        );
        assert_eq!(
            decode(PRE, Some(2), b"", b"", false),
            denied("blocked by hook")
        );
    }

    #[test]
    fn a_last_stdout_line_that_says_deny_denies() {
        let out = b"checking\n{\"decision\":\"deny\",\"reason\":\"json says no\"}\n\n";
        assert_eq!(
            decode(PRE, Some(0), out, b"", false),
            denied("json says no")
        );
        for line in [
            json!({"permissionDecision": "deny", "permissionDecisionReason": "p"}),
            json!({"behavior": "deny", "message": "p"}),
            json!({"decision": "allow", "behavior": "deny", "reason": "", "message": "p"}),
        ] {
            let out = line.to_string();
            assert_eq!(
                decode(PRE, Some(0), out.as_bytes(), b"", false),
                denied("p"),
                "{line}"
            );
        }
        // `reason` comes first.
        let out = json!({"decision": "deny", "message": "m", "permissionDecisionReason": "p", "reason": "r"});
        assert_eq!(
            decode(PRE, Some(0), out.to_string().as_bytes(), b"", false),
            denied("r")
        );
        let out = json!({"decision": "deny"}).to_string();
        assert_eq!(
            decode(PRE, Some(0), out.as_bytes(), b"", false),
            denied("blocked by hook")
        );
    }

    #[test]
    fn anything_else_on_exit_0_allows() {
        for out in [
            &b""[..],
            b"ok\n",
            b"{\"decision\":\"deny\"}\nlater line\n",
            b"{\"decision\":\"allow\"}",
            b"{\"decision\":\"block\"}",
            b"{\"hookSpecificOutput\":{\"permissionDecision\":\"deny\"}}",
            b"{\"decision\":\"Deny\"}",
            b"[\"deny\"]",
            b"\xff\xfe",
        ] {
            assert_eq!(
                decode(PRE, Some(0), out, b"no", false),
                AgentsAnswer::allow()
            );
        }
    }

    #[test]
    fn a_failure_allows_with_an_error_unless_deny_on_failure() {
        let a = decode(PRE, Some(1), b"{\"decision\":\"deny\"}", b"broken\n", false);
        assert_eq!(a.decision, AgentsDecision::Allow);
        assert_eq!(a.error.as_deref(), Some("exited with status 1: broken"));
        let a = decode(PRE, Some(1), b"", b"broken\n", true);
        assert_eq!(a.decision, AgentsDecision::Deny);
        assert!(a.honored);
        assert_eq!(a.reason.as_deref(), Some("exited with status 1: broken"));
        assert_eq!(a.error, a.reason);
        let a = decode(PRE, None, b"", b"", false);
        assert_eq!(a.error.as_deref(), Some("killed by a signal"));
        let a = failed(PRE, &Failure::TimedOut(Duration::from_millis(300)), true);
        assert_eq!(a.decision, AgentsDecision::Deny);
        assert_eq!(a.reason.as_deref(), Some("timed out after 300 ms"));
        let a = failed(PRE, &Failure::CouldNotStart("no sh".into()), false);
        assert_eq!(a.decision, AgentsDecision::Allow);
        assert_eq!(a.error.as_deref(), Some("could not start: no sh"));
    }

    #[test]
    fn post_tool_use_only_observes() {
        let a = decode(POST, Some(2), b"", b"too late", false);
        assert_eq!(a.decision, AgentsDecision::Deny);
        assert!(!a.honored);
        let a = decode(POST, Some(0), b"{\"decision\":\"deny\"}", b"", false);
        assert!(!a.honored);
        let a = decode(POST, Some(1), b"", b"", true);
        assert_eq!(a.decision, AgentsDecision::Allow);
        assert!(a.error.is_some());
    }

    #[test]
    fn event_names_round_trip() {
        for event in AgentsEvent::ALL {
            assert_eq!(AgentsEvent::from_name(event.name()), Some(event));
            assert_eq!(AgentsEvent::at(event.point()), Some(event));
        }
        assert_eq!(AgentsEvent::from_name("preToolUse"), None);
    }
}
