//! What a Gemini CLI hook reads and writes: the stdin envelope, and how its
//! exit status, stdout and stderr become an answer.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use super::event::GeminiEvent;
use crate::outcome::Termination;
use crate::request::HookRequest;

/// The reason of a block that names none, as Gemini CLI words it.
pub const NO_REASON: &str = "No reason provided";

/// The stdin of a Gemini CLI hook: one compact JSON object, no trailing
/// newline, with `session_id`, `transcript_path` (`""` when unknown), `cwd`,
/// `hook_event_name`, `timestamp`, then the event's fields. `tool` is the
/// tool's name as Gemini CLI calls it.
pub fn stdin_bytes(
    req: &HookRequest,
    event: GeminiEvent,
    cwd: &str,
    tool: Option<&str>,
) -> Vec<u8> {
    let wire = req.wire_fields();
    let given = |key: &str| wire.and_then(|w| w.get(key)).cloned();
    // In Gemini CLI's order: the base fields, then the event's.
    let mut out = Fields::default();
    out.insert("session_id".into(), req.session_id().unwrap_or("").into());
    let transcript = match given("transcript_path") {
        Some(Value::String(path)) => path,
        _ => String::new(),
    };
    out.insert("transcript_path".into(), transcript.into());
    out.insert("cwd".into(), cwd.into());
    out.insert("hook_event_name".into(), event.name().into());
    out.insert("timestamp".into(), timestamp(SystemTime::now()).into());
    for (key, value) in event_fields(req, event, tool) {
        out.insert(key.into(), value);
    }
    // The fields Gemini CLI adds that the neutral request does not carry,
    // when the host gave them in Gemini CLI's terms.
    for key in ["mcp_context", "original_request_name"] {
        if let (Some(value), true) = (
            given(key),
            matches!(event, GeminiEvent::BeforeTool | GeminiEvent::AfterTool),
        ) {
            out.insert(key.into(), value);
        }
    }
    out.to_bytes()
}

/// The event's own fields, in Gemini CLI's order.
fn event_fields(
    req: &HookRequest,
    event: GeminiEvent,
    tool: Option<&str>,
) -> Vec<(&'static str, Value)> {
    let args = req.arguments();
    let wire = req.wire_fields();
    let given = |key: &str| wire.and_then(|w| w.get(key)).cloned();
    let arg = |key: &str| args.get(key).cloned();
    let mut fields: Vec<(&'static str, Value)> = Vec::new();
    match event {
        GeminiEvent::BeforeTool => {
            fields.push(("tool_name", tool.unwrap_or("").into()));
            // In a `sequential` run: as the hooks before this one left it.
            fields.push(("tool_input", req.chained_arguments().clone()));
        }
        GeminiEvent::AfterTool => {
            fields.push(("tool_name", tool.unwrap_or("").into()));
            fields.push((
                "tool_input",
                arg("tool_input").unwrap_or_else(|| Map::new().into()),
            ));
            fields.push(("tool_response", tool_response(args)));
        }
        GeminiEvent::BeforeAgent => {
            fields.push(("prompt", arg("prompt").unwrap_or_else(|| "".into())));
        }
        GeminiEvent::AfterAgent => {
            let prompt = arg("prompt").or_else(|| given("prompt"));
            let response = arg("prompt_response").or_else(|| arg("last_assistant_message"));
            fields.push(("prompt", prompt.unwrap_or_else(|| "".into())));
            fields.push(("prompt_response", response.unwrap_or_else(|| "".into())));
            let active = arg("stop_hook_active").unwrap_or(Value::Bool(false));
            fields.push(("stop_hook_active", active));
        }
        GeminiEvent::BeforeModel | GeminiEvent::BeforeToolSelection => {
            fields.push((
                "llm_request",
                arg("llm_request").unwrap_or_else(|| Map::new().into()),
            ));
        }
        GeminiEvent::AfterModel => {
            fields.push((
                "llm_request",
                arg("llm_request").unwrap_or_else(|| Map::new().into()),
            ));
            fields.push((
                "llm_response",
                arg("llm_response").unwrap_or_else(|| Map::new().into()),
            ));
        }
        GeminiEvent::SessionStart | GeminiEvent::SessionEnd | GeminiEvent::PreCompress => {
            let (key, default) = match event {
                GeminiEvent::SessionStart => ("source", "startup"),
                GeminiEvent::SessionEnd => ("reason", "other"),
                _ => ("trigger", "manual"),
            };
            let value = match args.get("reason") {
                Some(Value::String(reason)) => event.session_value(reason).into(),
                Some(other) => other.clone(),
                None => default.into(),
            };
            fields.push((key, value));
        }
        GeminiEvent::Notification => {
            fields.push((
                "notification_type",
                arg("notification_type").unwrap_or_else(|| "".into()),
            ));
            fields.push(("message", arg("message").unwrap_or_else(|| "".into())));
            fields.push((
                "details",
                arg("details").unwrap_or_else(|| Map::new().into()),
            ));
        }
    }
    fields
}

/// An object's fields in the order they were inserted (`serde_json`'s `Map`
/// sorts them), a later value of a key replacing the earlier one in place.
#[derive(Default)]
struct Fields(Vec<(String, Value)>);

impl Fields {
    fn insert(&mut self, key: String, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => *slot = value,
            None => self.0.push((key, value)),
        }
    }

    /// The compact JSON object.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![b'{'];
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // Strings and values always serialize.
            out.extend(serde_json::to_vec(key).unwrap_or_default());
            out.push(b':');
            out.extend(serde_json::to_vec(value).unwrap_or_default());
        }
        out.push(b'}');
        out
    }
}

/// The `tool_response` of an `AfterTool` envelope: as the host gave it in
/// Gemini CLI's shape, else made from the neutral result (`llmContent`,
/// `returnDisplay`, and `error` for a failed tool).
fn tool_response(args: &Value) -> Value {
    let response = args.get("tool_response");
    if let Some(Value::Object(given)) =
        response.and_then(|r| r.get(crate::request::STRUCTURED_CONTENT))
    {
        if given.contains_key("llmContent") {
            return Value::Object(given.clone());
        }
    }
    let content = response
        .and_then(|r| r.get("content"))
        .cloned()
        .unwrap_or_else(|| "".into());
    let mut out = Map::new();
    out.insert("llmContent".into(), content.clone());
    out.insert("returnDisplay".into(), content.clone());
    if response.and_then(|r| r.get("is_error")) == Some(&Value::Bool(true)) {
        out.insert("error".into(), content);
    }
    Value::Object(out)
}

/// `at` in ISO 8601, UTC, to the millisecond: `2026-01-27T09:30:00.000Z`.
pub(crate) fn timestamp(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// What a Gemini CLI hook's decision was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum GeminiDecision {
    /// No opinion (`allow`, `approve`, or none).
    #[default]
    Allow,
    /// `deny` or `block` (or text on an exit other than 0 and 1).
    Block,
    /// `ask`: a person must confirm (on `BeforeTool`).
    Ask,
}

/// A Gemini CLI hook's answer, read.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct GeminiAnswer {
    /// The decision, where the event takes one.
    pub decision: GeminiDecision,
    /// A decision the event ignores was made (`decision: "deny"` on
    /// `SessionStart`).
    pub ignored_block: bool,
    /// The effective reason: `stopReason`, else `reason`, else [`NO_REASON`].
    pub reason: String,
    /// `continue: false`: the agent stops, with this reason.
    pub stop: Option<String>,
    /// `systemMessage` and plain text: for the person.
    pub user_messages: Vec<String>,
    /// `hookSpecificOutput.additionalContext`, where the event takes it.
    pub context: Option<String>,
    /// `hookSpecificOutput` (the rewrites are read from it by the event).
    pub specific: Map<String, Value>,
    /// Why the run failed (it then decides nothing).
    pub error: Option<String>,
    /// The run ended with what Gemini CLI calls a warning (exit 1 with
    /// text): a non-blocking error, which lets the action proceed, or blocks
    /// when the hook fails closed.
    pub warning: bool,
}

impl GeminiAnswer {
    /// A failed run.
    pub fn failed(error: impl Into<String>) -> GeminiAnswer {
        GeminiAnswer {
            error: Some(error.into()),
            ..GeminiAnswer::default()
        }
    }
}

/// Reads a finished run of a hook at `event`: the text is stdout, or stderr
/// when stdout is empty (both trimmed). A JSON object decides whatever the
/// exit code; otherwise text on exit 0 is a message for the person, on exit 1
/// a warning for the person, and on any other exit a block with the text as
/// its reason; no text with an exit other than 0, a signal and a timeout are
/// failures.
///
/// ```
/// use tower_hooks::dialect::gemini::{decode, GeminiDecision, GeminiEvent};
/// use tower_hooks::process::Termination;
///
/// let a = decode(GeminiEvent::BeforeTool, Termination::Exited(2), b"", b"no such file", None);
/// assert_eq!((a.decision, a.reason.as_str()), (GeminiDecision::Block, "no such file"));
/// let a = decode(GeminiEvent::BeforeTool, Termination::Exited(2), br#"{"decision":"allow"}"#, b"", None);
/// assert_eq!(a.decision, GeminiDecision::Allow);
/// ```
pub fn decode(
    event: GeminiEvent,
    termination: Termination,
    stdout: &[u8],
    stderr: &[u8],
    timeout: Option<Duration>,
) -> GeminiAnswer {
    let code = match termination {
        Termination::Exited(code) => code,
        Termination::Signaled(signal) => {
            return GeminiAnswer::failed(format!("killed by signal {signal}"))
        }
        Termination::TimedOut => {
            let ms = timeout.map_or(0, |t| t.as_millis());
            return GeminiAnswer::failed(format!("Hook timed out after {ms}ms"));
        }
    };
    let out = String::from_utf8_lossy(stdout);
    let err = String::from_utf8_lossy(stderr);
    let text = match out.trim() {
        "" => err.trim(),
        text => text,
    };
    if let Some(object) = json_object(text) {
        return read_object(event, object);
    }
    match (text.is_empty(), code) {
        (true, 0) => GeminiAnswer::default(),
        (true, code) => {
            GeminiAnswer::failed(format!("exited with status {code} and printed nothing"))
        }
        (false, 0) => GeminiAnswer {
            user_messages: vec![text.to_owned()],
            ..GeminiAnswer::default()
        },
        (false, 1) => GeminiAnswer {
            user_messages: vec![format!("Warning: {text}")],
            warning: true,
            ..GeminiAnswer::default()
        },
        (false, _) => decided(event, GeminiDecision::Block, text.to_owned()),
    }
}

/// An answer with `decision` and `reason`, as the event takes it.
fn decided(event: GeminiEvent, decision: GeminiDecision, reason: String) -> GeminiAnswer {
    let mut answer = GeminiAnswer {
        reason,
        ..GeminiAnswer::default()
    };
    match decision {
        GeminiDecision::Block if !event.takes_decision() => answer.ignored_block = true,
        GeminiDecision::Ask if event != GeminiEvent::BeforeTool => {}
        decision => answer.decision = decision,
    }
    answer
}

/// The JSON object `text` is, also when it is a JSON string holding one.
fn json_object(text: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Object(object) => Some(object),
        Value::String(inner) => match serde_json::from_str::<Value>(&inner).ok()? {
            Value::Object(object) => Some(object),
            _ => None,
        },
        _ => None,
    }
}

/// The fields of a JSON answer, as they act at `event`.
fn read_object(event: GeminiEvent, mut object: Map<String, Value>) -> GeminiAnswer {
    let string = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let stop_reason = string(object.get("stopReason"));
    let reason = string(object.get("reason"));
    let effective = stop_reason
        .clone()
        .filter(|r| !r.is_empty())
        .or_else(|| reason.clone().filter(|r| !r.is_empty()))
        .unwrap_or_else(|| NO_REASON.to_owned());
    let decision = match object.get("decision").and_then(Value::as_str) {
        Some("deny" | "block") => GeminiDecision::Block,
        Some("ask") => GeminiDecision::Ask,
        _ => GeminiDecision::Allow,
    };
    let mut answer = decided(event, decision, effective);
    if object.get("continue") == Some(&Value::Bool(false))
        && event != GeminiEvent::BeforeToolSelection
        && event != GeminiEvent::SessionStart
    {
        answer.stop = Some(stop_reason.or(reason).unwrap_or_default());
    }
    if event != GeminiEvent::BeforeToolSelection {
        answer
            .user_messages
            .extend(string(object.get("systemMessage")));
    }
    if let Some(Value::Object(specific)) = object.remove("hookSpecificOutput") {
        if event.takes_context() {
            answer.context = string(specific.get("additionalContext")).filter(|c| !c.is_empty());
        }
        answer.specific = specific;
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit(code: i32, stdout: &str, stderr: &str) -> GeminiAnswer {
        decode(
            GeminiEvent::BeforeTool,
            Termination::Exited(code),
            stdout.as_bytes(),
            stderr.as_bytes(),
            None,
        )
    }

    #[test]
    fn text_by_exit_code() {
        assert_eq!(exit(0, "hi\n", "").user_messages, ["hi"]);
        assert_eq!(
            exit(1, "", "disk full").user_messages,
            ["Warning: disk full"]
        );
        let blocked = exit(127, "", "bash: x: No such file or directory");
        assert_eq!(blocked.decision, GeminiDecision::Block);
        assert!(blocked.reason.contains("No such file"));
        assert!(exit(3, "", "").error.is_some());
        assert_eq!(exit(0, "", ""), GeminiAnswer::default());
    }

    #[test]
    fn json_decides_on_any_exit_and_the_reason_prefers_stop_reason() {
        let a = exit(
            3,
            r#"{"decision":"deny","reason":"r","stopReason":"s"}"#,
            "",
        );
        assert_eq!(
            (a.decision, a.reason.as_str()),
            (GeminiDecision::Block, "s")
        );
        let a = exit(0, r#"{"decision":"block"}"#, "");
        assert_eq!(a.reason, NO_REASON);
        let a = exit(0, r#""{\"decision\":\"deny\"}""#, "");
        assert_eq!(a.decision, GeminiDecision::Block);
        assert_eq!(
            exit(2, r#"{"decision":"approve"}"#, "").decision,
            GeminiDecision::Allow
        );
    }

    #[test]
    fn ignored_fields_by_event() {
        let ev = |event, s: &str| decode(event, Termination::Exited(0), s.as_bytes(), b"", None);
        let a = ev(
            GeminiEvent::SessionStart,
            r#"{"decision":"deny","hookSpecificOutput":{"additionalContext":"c"}}"#,
        );
        assert!(a.ignored_block);
        assert_eq!(a.decision, GeminiDecision::Allow);
        assert_eq!(a.context.as_deref(), Some("c"));
        let a = ev(
            GeminiEvent::BeforeTool,
            r#"{"additionalContext":"top","hookSpecificOutput":{"additionalContext":"c"}}"#,
        );
        assert_eq!(a.context, None);
        let a = ev(
            GeminiEvent::BeforeToolSelection,
            r#"{"systemMessage":"m","continue":false}"#,
        );
        assert!(a.user_messages.is_empty() && a.stop.is_none());
        assert_eq!(
            ev(GeminiEvent::AfterTool, r#"{"decision":"ask"}"#).decision,
            GeminiDecision::Allow
        );
    }

    #[test]
    fn timeouts_and_signals_fail() {
        let a = decode(
            GeminiEvent::BeforeTool,
            Termination::TimedOut,
            b"",
            b"",
            Some(Duration::from_millis(300)),
        );
        assert_eq!(a.error.as_deref(), Some("Hook timed out after 300ms"));
        assert!(decode(
            GeminiEvent::BeforeTool,
            Termination::Signaled(9),
            b"x",
            b"",
            None
        )
        .error
        .is_some());
    }

    #[test]
    fn the_envelope_keeps_gemini_clis_order() {
        let req =
            HookRequest::tool_execution_start("read_file", serde_json::json!({"b": 1, "a": 2}))
                .with_session_id("s");
        let bytes = stdin_bytes(&req, GeminiEvent::BeforeTool, "/w", Some("read_file"));
        let text = String::from_utf8(bytes).unwrap();
        let keys: Vec<&str> = [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "timestamp",
            "tool_name",
            "tool_input",
        ]
        .into_iter()
        .collect();
        let at: Vec<usize> = keys
            .iter()
            .map(|k| text.find(&format!("\"{k}\":")).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(text.ends_with(r#""tool_input":{"a":2,"b":1}}"#), "{text}");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["cwd"], "/w");
    }

    #[test]
    fn timestamps_are_iso_8601() {
        let at = UNIX_EPOCH + Duration::from_millis(1_769_506_200_123);
        assert_eq!(timestamp(at), "2026-01-27T09:30:00.123Z");
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }
}
