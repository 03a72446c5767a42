//! Cursor's wire protocol, as pure functions: the stdin envelope of each event,
//! the variables a hook is given, and how its answer is read.
//!
//! # Example
//!
//! ```
//! use tower_hooks::dialect::cursor::{decode, CursorPermission};
//!
//! // Log lines, then the answer on the last line that is a JSON object.
//! let stdout = b"scanning...\n2 files\n{\"permission\":\"deny\",\"agentMessage\":\"found a key\"}\n";
//! let answer = decode(Some(0), stdout, b"");
//! assert_eq!(answer.permission, Some(CursorPermission::Deny));
//! assert_eq!(answer.reason().as_deref(), Some("found a key"));
//! ```

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::event::CursorEvent;
use crate::config::Format;
use crate::dialect::envelope::{copy_others, deny_reason, lay_over, line};
use crate::dialect::Failure;
use crate::event::Event;
use crate::outcome::DEFAULT_BLOCK_REASON;
use crate::request::{HookRequest, STRUCTURED_CONTENT};

/// `CURSOR`, `OPENHUMAN`, `ACME`: the prefix of the variables of a
/// Cursor-family format's hooks, its name in capitals.
pub(crate) fn prefix(format: Format) -> Cow<'static, str> {
    match format.name() {
        "cursor" => Cow::Borrowed("CURSOR"),
        "openhuman" => Cow::Borrowed("OPENHUMAN"),
        name => Cow::Owned(name.to_ascii_uppercase()),
    }
}

/// `cursor_version`, `openhuman_version`, `acme_version`: the envelope's
/// version field for a Cursor-family format.
pub(crate) fn version_field(format: Format) -> Cow<'static, str> {
    match format.name() {
        "cursor" => Cow::Borrowed("cursor_version"),
        "openhuman" => Cow::Borrowed("openhuman_version"),
        name => Cow::Owned(format!("{name}_version")),
    }
}

/// The version the hooks are told (`<APP>_VERSION`, the envelope's version
/// field): this crate's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

// --- the envelope -----------------------------------------------------------

/// What a Cursor hook's stdin needs beyond the [`HookRequest`].
#[derive(Debug, Clone, Copy)]
pub struct Envelope<'a> {
    /// The family: [`Format::Cursor`], [`Format::OpenHuman`] or a
    /// [named](Format::app) host of the OpenHuman family.
    pub format: Format,
    /// The session's working directory (`cwd`).
    pub cwd: &'a str,
    /// The project root (`workspace_roots`).
    pub project: &'a str,
    /// How many follow-ups this hook already caused in the session
    /// (`loop_count` on `stop` and `subagentStop`).
    pub loop_count: u32,
}

/// The bytes written to a Cursor hook's stdin for `event`: one JSON object on
/// one line, then a newline.
///
/// The fields: `hook_event_name`, `conversation_id` and `session_id` (the
/// session id, `""` when unknown), `generation_id` (the tool call id, or `""`),
/// `workspace_roots` (`[project]`), `cwd`, the version field, then the event's
/// own fields:
///
/// | event | fields |
/// | --- | --- |
/// | `preToolUse`, `postToolUse`, `postToolUseFailure` | `tool_name`, `tool_input`, `tool_use_id`; after the tool: `tool_output` (the result as a JSON string: its structured content, else its text) and `duration`, or on a failure `error_message` and `failure_type` (`error`) |
/// | `beforeShellExecution`, `afterShellExecution` | `command`, `cwd`, `sandbox` (`false`); after: `output`, `duration` |
/// | `beforeReadFile`, `beforeTabFileRead` | `file_path`, `content` (`""`: the host did not read it); `beforeReadFile` also `attachments` (`[]`) |
/// | `afterFileEdit`, `afterTabFileEdit` | `file_path`, `edits` (the input's `edits`, else `[{old_string, new_string}]` from it) |
/// | `beforeMCPExecution`, `afterMCPExecution` | `tool_name`, `tool_input` (a JSON string); after: `result_json` (a JSON string), `duration` |
/// | `beforeSubmitPrompt` | `prompt`, `attachments` (`[]`) |
/// | `stop`, `subagentStop` | `status` (`completed`), `loop_count`, and the arguments |
/// | the others | their arguments as they are (`subagentStart`: `subagent_type` is the `agent_type`) |
///
/// The request's [wire fields](HookRequest::wire_fields) replace the fields
/// of their names, or are added at the end.
pub fn stdin_bytes(event: CursorEvent, req: &HookRequest, envelope: &Envelope<'_>) -> Vec<u8> {
    let mut entries: Vec<(&str, Cow<'_, Value>)> = Vec::with_capacity(16);
    let text = |s: &str| Cow::Owned(Value::String(s.to_owned()));
    let session = req.session_id().unwrap_or("");
    entries.push(("hook_event_name", text(event.name())));
    let version_field = version_field(envelope.format);
    if event == CursorEvent::WorkspaceOpen {
        // Outside any session: no conversation, generation or session.
        entries.push((
            "workspace_roots",
            Cow::Owned(Value::Array(vec![Value::String(
                envelope.project.to_owned(),
            )])),
        ));
        entries.push((&version_field, text(VERSION)));
        copy_others(req.arguments(), &[], &mut entries);
        if let Some(fields) = req.wire_fields() {
            lay_over(&mut entries, fields);
        }
        return line(&entries);
    }
    entries.push(("conversation_id", text(session)));
    entries.push(("generation_id", text(req.tool_call_id().unwrap_or(""))));
    entries.push(("session_id", text(session)));
    entries.push((
        "workspace_roots",
        Cow::Owned(Value::Array(vec![Value::String(
            envelope.project.to_owned(),
        )])),
    ));
    entries.push(("cwd", text(envelope.cwd)));
    entries.push((&version_field, text(VERSION)));
    event_fields(event, req, envelope, &mut entries);
    if let Some(fields) = req.wire_fields() {
        lay_over(&mut entries, fields);
    }
    line(&entries)
}

/// The event's own fields (see [`stdin_bytes`]).
fn event_fields<'r>(
    event: CursorEvent,
    req: &'r HookRequest,
    envelope: &Envelope<'_>,
    out: &mut Vec<(&'r str, Cow<'r, Value>)>,
) {
    let args = req.arguments();
    let text = |s: &str| Cow::Owned(Value::String(s.to_owned()));
    match event {
        CursorEvent::PreToolUse
        | CursorEvent::PostToolUse
        | CursorEvent::PostToolUseFailure
        | CursorEvent::BeforeShellExecution
        | CursorEvent::AfterShellExecution
        | CursorEvent::BeforeReadFile
        | CursorEvent::BeforeTabFileRead
        | CursorEvent::AfterFileEdit
        | CursorEvent::AfterTabFileEdit
        | CursorEvent::BeforeMcpExecution
        | CursorEvent::AfterMcpExecution => tool_fields(event, req, out),
        CursorEvent::BeforeSubmitPrompt => {
            out.push((
                "prompt",
                args.get("prompt").map_or_else(|| text(""), Cow::Borrowed),
            ));
            out.push(("attachments", Cow::Owned(Value::Array(Vec::new()))));
        }
        CursorEvent::Stop | CursorEvent::SubagentStop => {
            out.push(("status", text("completed")));
            out.push(("loop_count", Cow::Owned(Value::from(envelope.loop_count))));
            if event == CursorEvent::SubagentStop {
                push_subagent_type(args, out);
            }
            copy_others(args, &[], out);
        }
        CursorEvent::SubagentStart => {
            push_subagent_type(args, out);
            copy_others(args, &[], out);
        }
        _ => copy_others(args, &[], out),
    }
}

/// The fields of an event around a tool call: the tool's input as the event
/// writes it and, after the tool, its result and how long it took.
fn tool_fields<'r>(
    event: CursorEvent,
    req: &'r HookRequest,
    out: &mut Vec<(&'r str, Cow<'r, Value>)>,
) {
    let args = req.arguments();
    let text = |s: &str| Cow::Owned(Value::String(s.to_owned()));
    let after = req.event() == Event::ToolExecutionEnd;
    let input: &'r Value = if after {
        args.get("tool_input").unwrap_or(&Value::Null)
    } else {
        args
    };
    let empty_object = || Cow::Owned(Value::Object(Map::new()));
    let tool_input = || {
        if input.is_object() {
            Cow::Borrowed(input)
        } else {
            empty_object()
        }
    };
    let response = args.get("tool_response");
    match event {
        CursorEvent::PreToolUse | CursorEvent::PostToolUse | CursorEvent::PostToolUseFailure => {
            out.push(("tool_name", text(req.tool_name().unwrap_or(""))));
            out.push(("tool_input", tool_input()));
            out.push(("tool_use_id", text(req.tool_call_id().unwrap_or(""))));
            if event == CursorEvent::PostToolUse {
                out.push(("tool_output", text(&result_text(response))));
                out.push(("duration", Cow::Owned(duration(response))));
            } else if event == CursorEvent::PostToolUseFailure {
                out.push(("error_message", text(&result_text(response))));
                out.push(("failure_type", text("error")));
                out.push(("duration", Cow::Owned(duration(response))));
            }
        }
        CursorEvent::BeforeShellExecution | CursorEvent::AfterShellExecution => {
            let command = input
                .get("command")
                .or_else(|| input.get("cmd"))
                .and_then(Value::as_str)
                .unwrap_or("");
            out.push(("command", text(command)));
            out.push(("sandbox", Cow::Owned(Value::Bool(false))));
            if after {
                out.push(("output", text(&result_text(response))));
                out.push(("duration", Cow::Owned(duration(response))));
            }
        }
        CursorEvent::BeforeReadFile | CursorEvent::BeforeTabFileRead => {
            let path = input.get("file_path").or_else(|| input.get("path"));
            out.push((
                "file_path",
                text(path.and_then(Value::as_str).unwrap_or("")),
            ));
            out.push(("content", text("")));
            // Tab reads have no prompt, so no attachments.
            if event == CursorEvent::BeforeReadFile {
                out.push(("attachments", Cow::Owned(Value::Array(Vec::new()))));
            }
        }
        CursorEvent::AfterFileEdit | CursorEvent::AfterTabFileEdit => {
            let path = input.get("file_path").or_else(|| input.get("path"));
            out.push((
                "file_path",
                text(path.and_then(Value::as_str).unwrap_or("")),
            ));
            out.push(("edits", edits(input)));
        }
        CursorEvent::BeforeMcpExecution | CursorEvent::AfterMcpExecution => {
            out.push(("tool_name", text(req.tool_name().unwrap_or(""))));
            out.push(("tool_input", text(&tool_input().to_string())));
            if after {
                out.push(("result_json", text(&result_text(response))));
                out.push(("duration", Cow::Owned(duration(response))));
            }
        }
        // Not a tool event: `event_fields` writes its fields.
        _ => {}
    }
}

/// A tool's result as a Cursor hook reads it: its structured content as JSON
/// text, else its text.
fn result_text(response: Option<&Value>) -> String {
    let structured = response
        .and_then(|r| r.get(STRUCTURED_CONTENT))
        .filter(|v| !v.is_null());
    match (structured, response.and_then(|r| r.get("content"))) {
        (Some(structured), _) => structured.to_string(),
        (None, Some(Value::String(s))) => s.clone(),
        (None, Some(other)) if !other.is_null() => other.to_string(),
        _ => String::new(),
    }
}

/// How long the tool took, in milliseconds; 0 when the response does not say.
fn duration(response: Option<&Value>) -> Value {
    response
        .and_then(|r| r.get("duration_ms"))
        .cloned()
        .unwrap_or(Value::from(0))
}

/// The `edits` of a file edit: the input's own, else one edit made of its
/// `old_string` and its `new_string` (or `content`).
fn edits(input: &Value) -> Cow<'_, Value> {
    let string_field = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or("");
    match input.get("edits") {
        Some(edits @ Value::Array(_)) => Cow::Borrowed(edits),
        _ => {
            let mut edit = Map::new();
            edit.insert("old_string".into(), Value::from(string_field("old_string")));
            let new = input
                .get("new_string")
                .or_else(|| input.get("content"))
                .and_then(Value::as_str)
                .unwrap_or("");
            edit.insert("new_string".into(), Value::from(new));
            Cow::Owned(Value::Array(vec![Value::Object(edit)]))
        }
    }
}

fn push_subagent_type<'r>(args: &'r Value, out: &mut Vec<(&'r str, Cow<'r, Value>)>) {
    if let Some(kind) = args.get("subagent_type").or_else(|| args.get("agent_type")) {
        out.push(("subagent_type", Cow::Borrowed(kind)));
    }
}

// --- the environment --------------------------------------------------------

/// The variables a Cursor-family hook gets on top of the inherited environment
/// (and of the `env` a `sessionStart` hook set for the session):
/// `CURSOR_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` (and `OPENHUMAN_PROJECT_DIR`
/// for OpenHuman, `<APP>_PROJECT_DIR` for a [named](Format::app) host of its
/// family) = the project root; `<APP>_VERSION`; `<APP>_HOOK_EVENT`;
/// `<APP>_SESSION_ID` when the request has a session.
///
/// ```
/// use tower_hooks::config::Format;
/// use tower_hooks::dialect::cursor::{env_vars, CursorEvent};
///
/// let vars = env_vars(Format::OpenHuman, "/p", CursorEvent::PreToolUse, Some("s-1"));
/// assert!(vars.contains(&("OPENHUMAN_HOOK_EVENT".to_owned(), "preToolUse".to_owned())));
/// assert!(vars.contains(&("CURSOR_PROJECT_DIR".to_owned(), "/p".to_owned())));
/// ```
pub fn env_vars(
    format: Format,
    project: &str,
    event: CursorEvent,
    session: Option<&str>,
) -> Vec<(String, String)> {
    let prefix = prefix(format);
    let mut vars = vec![
        ("CURSOR_PROJECT_DIR".to_owned(), project.to_owned()),
        ("CLAUDE_PROJECT_DIR".to_owned(), project.to_owned()),
    ];
    if format != Format::Cursor {
        vars.push((format!("{prefix}_PROJECT_DIR"), project.to_owned()));
    }
    vars.push((format!("{prefix}_VERSION"), VERSION.to_owned()));
    vars.push((format!("{prefix}_HOOK_EVENT"), event.name().to_owned()));
    if let Some(session) = session {
        vars.push((format!("{prefix}_SESSION_ID"), session.to_owned()));
    }
    vars
}

// --- the answer -------------------------------------------------------------

/// A hook's `permission`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CursorPermission {
    /// `allow`.
    Allow,
    /// `ask`: a person decides.
    Ask,
    /// `deny`, or exit 2.
    Deny,
}

/// One Cursor hook's answer, read by [`decode`].
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct CursorAnswer {
    /// `permission`, or `deny` for exit 2; `None`: no opinion.
    pub permission: Option<CursorPermission>,
    /// `user_message` (`userMessage`): for the person.
    pub user_message: Option<String>,
    /// `agent_message` (`agentMessage`): for the model; a deny's reason.
    pub agent_message: Option<String>,
    /// `updated_input` (`updatedInput`): a new tool input.
    pub updated_input: Option<Map<String, Value>>,
    /// `additional_context` (`additionalContext`): for the model's context.
    pub additional_context: Option<String>,
    /// `continue: false`: stop the agent.
    pub stop: bool,
    /// `followup_message` (`followupMessage`): keep going with this.
    pub followup_message: Option<String>,
    /// `env` (on `sessionStart`): variables for the session's later hooks.
    pub env: Option<Map<String, Value>>,
    /// `updated_mcp_tool_output` (on `postToolUse` after an MCP tool): the
    /// tool output the model sees instead.
    pub updated_mcp_tool_output: Option<Value>,
    /// `pluginPaths` (on `workspaceOpen`): more plugin folders to load; the
    /// strings of the list.
    pub plugin_paths: Vec<String>,
    /// The hook failed (another exit status, a signal, a timeout, a start that
    /// failed, stdout that holds no JSON answer): the action proceeds, unless
    /// the hook fails closed.
    pub error: Option<String>,
}

impl CursorAnswer {
    /// A failure.
    pub fn failed(failure: &Failure) -> Self {
        Self::with_error(failure.to_string())
    }

    /// A failure, said in `error`.
    pub(crate) fn with_error(error: String) -> Self {
        CursorAnswer {
            error: Some(error),
            ..CursorAnswer::default()
        }
    }

    /// The reason of a deny: `agent_message`, else `user_message`, else
    /// `blocked by hook`; `None` unless the answer denies.
    pub fn reason(&self) -> Option<String> {
        (self.permission == Some(CursorPermission::Deny)).then(|| {
            self.agent_message
                .as_deref()
                .or(self.user_message.as_deref())
                .filter(|r| !r.trim().is_empty())
                .unwrap_or(DEFAULT_BLOCK_REASON)
                .to_owned()
        })
    }
}

/// Reads a Cursor hook's answer; `exit` is `None` when a signal ended it.
/// Never panics, whatever the bytes.
///
/// * **exit 0**: stdout is the answer: all of it when it parses as a JSON
///   object, else the last line that starts with `{` and parses as one (log
///   lines may come first); blank stdout is no opinion; anything else is a
///   failure. The fields are snake_case, camelCase spellings accepted; a field
///   of the wrong type is ignored.
/// * **exit 2**: a deny; its reason is stderr, else stdout, else `blocked by hook`.
/// * anything else: a failure.
pub fn decode(exit: Option<i32>, stdout: &[u8], stderr: &[u8]) -> CursorAnswer {
    match exit {
        Some(0) => decode_stdout(stdout),
        Some(2) => {
            let reason = deny_reason(stderr, stdout);
            CursorAnswer {
                permission: Some(CursorPermission::Deny),
                agent_message: Some(reason),
                ..CursorAnswer::default()
            }
        }
        other => CursorAnswer::failed(&Failure::exited(other, stderr)),
    }
}

fn decode_stdout(stdout: &[u8]) -> CursorAnswer {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return CursorAnswer::default();
    }
    let whole = serde_json::from_str::<Value>(trimmed).ok();
    let object = match whole {
        Some(Value::Object(map)) => Some(map),
        _ => trimmed.lines().rev().find_map(|line| {
            let line = line.trim();
            if !line.starts_with('{') {
                return None;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            }
        }),
    };
    let Some(json) = object else {
        let first = trimmed.lines().next().unwrap_or("");
        let shown: String = first.chars().take(120).collect();
        return CursorAnswer {
            error: Some(format!("stdout holds no JSON answer: {shown}")),
            ..CursorAnswer::default()
        };
    };
    let string = |keys: [&str; 2]| {
        keys.iter()
            .find_map(|k| json.get(*k).and_then(Value::as_str))
            .map(str::to_owned)
    };
    let object = |keys: [&str; 2]| {
        keys.iter()
            .find_map(|k| json.get(*k).and_then(Value::as_object))
            .cloned()
    };
    let permission = match json.get("permission").and_then(Value::as_str) {
        Some(p) if p.eq_ignore_ascii_case("deny") => Some(CursorPermission::Deny),
        Some(p) if p.eq_ignore_ascii_case("ask") => Some(CursorPermission::Ask),
        Some(p) if p.eq_ignore_ascii_case("allow") => Some(CursorPermission::Allow),
        _ => None,
    };
    CursorAnswer {
        permission,
        user_message: string(["user_message", "userMessage"]),
        agent_message: string(["agent_message", "agentMessage"]),
        updated_input: object(["updated_input", "updatedInput"]),
        additional_context: string(["additional_context", "additionalContext"]),
        stop: json.get("continue") == Some(&Value::Bool(false)),
        followup_message: string(["followup_message", "followupMessage"])
            .filter(|m| !m.trim().is_empty()),
        env: object(["env", "env"]),
        plugin_paths: json
            .get("pluginPaths")
            .or_else(|| json.get("plugin_paths"))
            .and_then(Value::as_array)
            .map(|paths| {
                paths
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        updated_mcp_tool_output: json
            .get("updated_mcp_tool_output")
            .or_else(|| json.get("updatedMcpToolOutput"))
            .filter(|v| !v.is_null())
            .cloned(),
        error: None,
    }
}

/// The keys of a Cursor answer this crate reads (snake_case, and the
/// camelCase spellings it accepts), and `pluginPaths` (`workspaceOpen`).
const ANSWER_KEYS: [&str; 16] = [
    "permission",
    "user_message",
    "agent_message",
    "updated_input",
    "additional_context",
    "continue",
    "followup_message",
    "env",
    "updated_mcp_tool_output",
    "pluginPaths",
    "userMessage",
    "agentMessage",
    "updatedInput",
    "additionalContext",
    "followupMessage",
    "updatedMcpToolOutput",
];

/// What a Cursor hook's answer (exit `exit`, `stdout`) held that is ignored,
/// for people: log lines before the JSON line that answered, and keys Cursor
/// does not know, each with the known key it most likely meant. Nothing for
/// an answer read whole and clean, or for a failure (its error says why).
pub(crate) fn answer_warnings(exit: Option<i32>, stdout: &[u8]) -> Vec<String> {
    let mut warnings = Vec::new();
    if exit != Some(0) {
        return warnings;
    }
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return warnings;
    }
    let object = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => map,
        _ => {
            let lines: Vec<&str> = trimmed.lines().filter(|l| !l.trim().is_empty()).collect();
            let found = lines.iter().enumerate().rev().find_map(|(i, line)| {
                let line = line.trim();
                match serde_json::from_str::<Value>(line) {
                    Ok(Value::Object(map)) if line.starts_with('{') => Some((i, map)),
                    _ => None,
                }
            });
            let Some((at, map)) = found else {
                return warnings;
            };
            let others = lines.len() - 1;
            let rest = if others == 1 {
                "the other line was ignored".to_owned()
            } else {
                format!("the {others} other lines were ignored")
            };
            warnings.push(format!(
                "the answer is stdout line {} of {}, the last that is a JSON object; {rest}",
                at + 1,
                lines.len(),
            ));
            map
        }
    };
    for key in object.keys().filter(|k| !ANSWER_KEYS.contains(&k.as_str())) {
        let hint = match crate::suggest::closest(key, ANSWER_KEYS) {
            Some(known) => format!(" (did you mean {known:?}?)"),
            None => String::new(),
        };
        warnings.push(format!(
            "key {key:?} is not one Cursor reads{hint}: ignored"
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn whole_stdout_then_the_last_json_line() {
        let pretty = b"{\n  \"permission\": \"deny\",\n  \"agent_message\": \"no\"\n}\n";
        assert_eq!(decode(Some(0), pretty, b"").reason().as_deref(), Some("no"));
        let logged = b"checking\n{\"permission\":\"allow\"}\n{\"permission\":\"ask\"}\ndone\n";
        assert_eq!(
            decode(Some(0), logged, b"").permission,
            Some(CursorPermission::Ask)
        );
        assert_eq!(decode(Some(0), b"  \n", b""), CursorAnswer::default());
        let plain = decode(Some(0), b"all good\n", b"");
        assert!(plain.error.unwrap().contains("all good"));
    }

    #[test]
    fn what_an_answer_held_that_is_ignored() {
        let w = answer_warnings(Some(0), b"scan\n2 files\n{\"permision\": \"deny\"}\n");
        assert_eq!(
            w,
            [
                "the answer is stdout line 3 of 3, the last that is a JSON object; the 2 other \
                 lines were ignored",
                "key \"permision\" is not one Cursor reads (did you mean \"permission\"?): ignored",
            ]
        );
        assert!(answer_warnings(Some(0), b"{\"permission\": \"allow\"}").is_empty());
        assert!(answer_warnings(Some(0), b"no json").is_empty());
        assert!(answer_warnings(Some(2), b"x\n{\"y\": 1}").is_empty());
    }

    #[test]
    fn camel_case_spellings_are_read() {
        let a = decode(
            Some(0),
            br#"{"permission":"deny","userMessage":"u","agentMessage":"a","followupMessage":"f","additionalContext":"c","updatedInput":{"x":1}}"#,
            b"",
        );
        assert_eq!(a.user_message.as_deref(), Some("u"));
        assert_eq!(a.reason().as_deref(), Some("a"));
        assert_eq!(a.followup_message.as_deref(), Some("f"));
        assert_eq!(a.additional_context.as_deref(), Some("c"));
        assert_eq!(
            a.updated_input,
            Some(json!({"x": 1}).as_object().unwrap().clone())
        );
    }

    #[test]
    fn exit_2_denies_with_stderr_then_stdout() {
        assert_eq!(
            decode(Some(2), b"out", b"err\n").reason().as_deref(),
            Some("err")
        );
        assert_eq!(
            decode(Some(2), b"out\n", b"").reason().as_deref(),
            Some("out")
        );
        assert_eq!(
            decode(Some(2), b"", b"").reason().as_deref(),
            Some(DEFAULT_BLOCK_REASON)
        );
    }

    #[test]
    fn other_endings_are_failures() {
        let crashed = decode(Some(1), b"{\"permission\":\"deny\"}", b"broken\n");
        assert_eq!(crashed.permission, None);
        assert_eq!(
            crashed.error.as_deref(),
            Some("exited with status 1: broken")
        );
        assert!(decode(None, b"", b"").error.is_some());
        let late = CursorAnswer::failed(&Failure::TimedOut(Duration::from_secs(2)));
        assert_eq!(late.error.as_deref(), Some("timed out after 2 s"));
    }

    fn stdin(event: CursorEvent, req: &HookRequest) -> Value {
        let envelope = Envelope {
            format: Format::Cursor,
            cwd: "/p",
            project: "/p",
            loop_count: 0,
        };
        serde_json::from_slice(&stdin_bytes(event, req, &envelope)).unwrap()
    }

    #[test]
    fn the_envelope_of_each_kind_of_event() {
        let shell = HookRequest::tool_execution_start("Bash", json!({"command": "ls"}))
            .with_session_id("s1")
            .with_tool_call_id("t1");
        let pre = stdin(CursorEvent::PreToolUse, &shell);
        assert_eq!(pre["hook_event_name"], "preToolUse");
        assert_eq!(pre["conversation_id"], "s1");
        assert_eq!(pre["tool_input"], json!({"command": "ls"}));
        assert_eq!(pre["workspace_roots"], json!(["/p"]));
        let before = stdin(CursorEvent::BeforeShellExecution, &shell);
        assert_eq!(before["command"], "ls");
        assert_eq!(before["sandbox"], false);

        let done = HookRequest::tool_execution_end(
            "Bash",
            json!({"command": "ls"}),
            "a\nb\n",
            false,
            Duration::from_millis(7),
        );
        let after = stdin(CursorEvent::AfterShellExecution, &done);
        assert_eq!(after["output"], "a\nb\n");
        assert_eq!(after["duration"], 7);
        let post = stdin(CursorEvent::PostToolUse, &done);
        assert_eq!(post["tool_output"], "a\nb\n");
        assert_eq!(post["tool_input"], json!({"command": "ls"}));

        let mcp = HookRequest::tool_execution_start("mcp__gh__create_issue", json!({"title": "x"}));
        assert_eq!(
            stdin(CursorEvent::BeforeMcpExecution, &mcp)["tool_input"],
            "{\"title\":\"x\"}"
        );
        let stop = stdin(CursorEvent::Stop, &HookRequest::stop(false, "done"));
        assert_eq!(stop["status"], "completed");
        assert_eq!(stop["loop_count"], 0);
    }

    #[test]
    fn wire_fields_replace_or_extend() {
        let mut fields = Map::new();
        fields.insert("loop_count".into(), json!(3));
        fields.insert("extra".into(), json!(true));
        let req = HookRequest::stop(false, "done").with_wire_fields(fields);
        let seen = stdin(CursorEvent::Stop, &req);
        assert_eq!(seen["loop_count"], 3);
        assert_eq!(seen["extra"], true);
    }
}
