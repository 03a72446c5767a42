//! A Cursor event fired by name: its stdin fields, as Cursor would write them,
//! read back into a neutral [`HookRequest`] (the inverse of
//! [`stdin_bytes`](super::stdin_bytes)).

use serde_json::{json, Map, Value};

use super::event::CursorEvent;
use crate::dialect::FireError;
use crate::event::Event;
use crate::request::{HookRequest, ToolKind};

/// The fields every Cursor envelope has; they are not the event's facts.
const COMMON: [&str; 8] = [
    "hook_event_name",
    "conversation_id",
    "generation_id",
    "workspace_roots",
    "cwd",
    "cursor_version",
    "openhuman_version",
    "transcript_path",
];

/// The neutral request for the Cursor event `event` whose stdin fields are
/// `fields`.
///
/// | event | the neutral request |
/// | --- | --- |
/// | `preToolUse`, `postToolUse`, `postToolUseFailure` | the tool call: `tool_name`, `tool_input`, `tool_use_id`; after it, `tool_output` (or `error_message`) is the result's text |
/// | `beforeShellExecution`, `afterShellExecution` | a shell tool (`tool_name`, else `Shell`) with `{"command"}`; after it, `output` is the result |
/// | `beforeReadFile` | a read tool (`tool_name`, else `Read`) with `{"file_path"}` |
/// | `beforeTabFileRead`, `afterTabFileEdit` | Tab's read (`TabRead`) or edit (`TabWrite`), as the two above |
/// | `afterFileEdit` | an edit tool (`tool_name`, else `Write`) with `{"file_path", "edits"}` |
/// | `beforeMCPExecution`, `afterMCPExecution` | an MCP tool: `tool_name`, `tool_input` (a JSON string is parsed); after it, `result_json` |
/// | `beforeSubmitPrompt` | `input` with `prompt` |
/// | the others | their fields are the arguments (`subagentStart`'s `subagent_type` is also `agent_type`) |
///
/// The derived events state their tool kind ([`HookRequest::with_tool_kind`]).
/// `session_id` (else `conversation_id`) sets the session; every field given is
/// also kept as a [wire field](HookRequest::with_wire_fields), so a Cursor
/// hook reads exactly what was given, except a `tool_name` on the shell and
/// file events, whose envelopes have none: it names the tool (the CLI's
/// `--tool`), which hooks of other dialects match.
pub fn request(event: &str, fields: Map<String, Value>) -> Result<HookRequest, FireError> {
    let event = CursorEvent::from_name(event)
        .ok_or_else(|| FireError::no_such_event(event, "a Cursor event"))?;
    let neutral = event.event();
    let mut req = facts_request(event, &fields);
    if let Some(id) = fields.get("tool_use_id").and_then(Value::as_str) {
        req = req.with_tool_call_id(id);
    }
    let session = fields
        .get("session_id")
        .or_else(|| fields.get("conversation_id"))
        .and_then(Value::as_str);
    if let Some(session) = session {
        req = req.with_session_id(session);
    }
    if let Some(kind) = event.tool_kind() {
        req = req.with_tool_kind(kind);
    } else if neutral == Event::ToolExecutionStart || neutral == Event::ToolExecutionEnd {
        let kind = ToolKind::infer(req.tool_name().unwrap_or(""));
        req = req.with_tool_kind(kind);
    }
    let mut fields = fields;
    if event.tool_kind().is_some_and(|kind| kind != ToolKind::Mcp) {
        fields.remove("tool_name");
    }
    Ok(req.with_wire_fields(fields).with_wire_facts(facts(event)))
}

/// The request carrying `event`'s facts, read from its fields as the table of
/// [`request`] says.
fn facts_request(event: CursorEvent, fields: &Map<String, Value>) -> HookRequest {
    let f = Fields(fields);
    let neutral = event.event();
    match event {
        CursorEvent::PreToolUse | CursorEvent::BeforeMcpExecution => {
            HookRequest::new(neutral, f.object_or_parsed("tool_input"))
                .with_tool_name(f.text("tool_name"))
        }
        CursorEvent::BeforeShellExecution => {
            HookRequest::new(neutral, json!({ "command": f.text("command") }))
                .with_tool_name(f.tool_or("Shell"))
        }
        CursorEvent::BeforeReadFile => {
            HookRequest::new(neutral, json!({ "file_path": f.text("file_path") }))
                .with_tool_name(f.tool_or("Read"))
        }
        CursorEvent::BeforeTabFileRead => {
            HookRequest::new(neutral, json!({ "file_path": f.text("file_path") }))
                .with_tool_name("TabRead")
        }
        CursorEvent::PostToolUse
        | CursorEvent::PostToolUseFailure
        | CursorEvent::AfterShellExecution
        | CursorEvent::AfterFileEdit
        | CursorEvent::AfterTabFileEdit
        | CursorEvent::AfterMcpExecution => tool_end(event, fields),
        CursorEvent::BeforeSubmitPrompt => HookRequest::input(f.text("prompt")),
        CursorEvent::WorkspaceOpen => {
            let args: Map<String, Value> = fields
                .iter()
                .filter(|(k, _)| !COMMON.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            HookRequest::named(event.name(), Value::Object(args))
        }
        _ => {
            let mut args: Map<String, Value> = fields
                .iter()
                .filter(|(k, _)| !COMMON.contains(&k.as_str()) && *k != "session_id")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if let Some(kind) = args.get("subagent_type").cloned() {
                args.entry("agent_type").or_insert(kind);
            }
            HookRequest::new(neutral, Value::Object(args))
        }
    }
}

/// The request of an event after a tool ran: the tool, its input, and its
/// result (or failure) as the tool's response.
fn tool_end(event: CursorEvent, fields: &Map<String, Value>) -> HookRequest {
    let f = Fields(fields);
    let neutral = event.event();
    let (tool, input, result) = match event {
        CursorEvent::AfterShellExecution => (
            f.tool_or("Shell"),
            json!({ "command": f.text("command") }),
            f.text("output"),
        ),
        CursorEvent::AfterFileEdit | CursorEvent::AfterTabFileEdit => (
            if event == CursorEvent::AfterTabFileEdit {
                "TabWrite".to_owned()
            } else {
                f.tool_or("Write")
            },
            json!({ "file_path": f.text("file_path"),
                    "edits": fields.get("edits").cloned().unwrap_or(json!([])) }),
            "",
        ),
        CursorEvent::AfterMcpExecution => (
            f.text("tool_name").to_owned(),
            f.object_or_parsed("tool_input"),
            f.text("result_json"),
        ),
        CursorEvent::PostToolUseFailure => (
            f.text("tool_name").to_owned(),
            f.object_or_parsed("tool_input"),
            f.text("error_message"),
        ),
        _ => (
            f.text("tool_name").to_owned(),
            f.object_or_parsed("tool_input"),
            f.text("tool_output"),
        ),
    };
    let failed = event == CursorEvent::PostToolUseFailure;
    let mut response = json!({ "content": result, "is_error": failed });
    if let Some(ms) = fields.get("duration").or_else(|| fields.get("duration_ms")) {
        response["duration_ms"] = ms.clone();
    }
    HookRequest::new(
        neutral,
        json!({ "tool_input": input, "tool_response": response }),
    )
    .with_tool_name(tool)
}

/// An event's stdin fields, read as loosely as Cursor writes them.
#[derive(Clone, Copy)]
struct Fields<'f>(&'f Map<String, Value>);

impl<'f> Fields<'f> {
    /// A string field; empty when absent or not a string.
    fn text(self, key: &str) -> &'f str {
        self.0.get(key).and_then(Value::as_str).unwrap_or("")
    }

    /// The tool of a shell or file event: the one named, else Cursor's type.
    fn tool_or(self, default: &'static str) -> String {
        self.0
            .get("tool_name")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .unwrap_or(default)
            .to_owned()
    }

    /// An object field, or a string holding a JSON object; else `{}`.
    fn object_or_parsed(self, key: &str) -> Value {
        match self.0.get(key) {
            Some(Value::String(s)) => serde_json::from_str::<Value>(s)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({})),
            Some(v @ Value::Object(_)) => v.clone(),
            _ => json!({}),
        }
    }
}

/// The fields of `event` that state its arguments: a hook's rewrite replaces
/// them for the hooks after it.
fn facts(event: CursorEvent) -> &'static [&'static str] {
    match event {
        CursorEvent::PreToolUse | CursorEvent::BeforeMcpExecution => &["tool_input"],
        CursorEvent::BeforeShellExecution => &["command"],
        CursorEvent::BeforeReadFile | CursorEvent::BeforeTabFileRead => &["file_path"],
        CursorEvent::PostToolUse | CursorEvent::PostToolUseFailure => {
            &["tool_input", "tool_output", "error_message"]
        }
        CursorEvent::AfterShellExecution => &["command", "output"],
        CursorEvent::AfterFileEdit | CursorEvent::AfterTabFileEdit => &["file_path", "edits"],
        CursorEvent::AfterMcpExecution => &["tool_input", "result_json"],
        CursorEvent::BeforeSubmitPrompt => &["prompt"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fire(event: &str, fields: Value) -> HookRequest {
        request(event, fields.as_object().unwrap().clone()).unwrap()
    }

    #[test]
    fn an_unknown_name_says_it_is_no_cursor_event() {
        let err = request("PreToolUse", Map::new()).unwrap_err();
        assert_eq!(err.to_string(), "\"PreToolUse\" is not a Cursor event");
    }

    #[test]
    fn derived_events_state_their_tool_kind() {
        let shell = fire("beforeShellExecution", json!({"command": "ls"}));
        assert_eq!(shell.event(), Event::ToolExecutionStart);
        assert_eq!(shell.tool_kind(), Some(ToolKind::Shell));
        assert_eq!(shell.arguments(), &json!({"command": "ls"}));
        let read = fire("beforeReadFile", json!({"file_path": ".env"}));
        assert_eq!(read.tool_kind(), Some(ToolKind::Read));
        let generic = fire(
            "preToolUse",
            json!({"tool_name": "Terminal", "tool_input": {"command": "make"}}),
        );
        assert_eq!(generic.tool_kind(), Some(ToolKind::Shell));
        let after = fire(
            "postToolUse",
            json!({"tool_name": "Read", "tool_input": {}, "tool_output": "hi"}),
        );
        assert_eq!(after.arguments()["tool_response"]["content"], "hi");
        assert_eq!(after.arguments()["tool_response"]["is_error"], false);
    }

    #[test]
    fn a_named_tool_is_the_tool_of_a_shell_or_file_event() {
        let shell = fire(
            "beforeShellExecution",
            json!({"command": "ls", "tool_name": "Bash"}),
        );
        assert_eq!(shell.tool_name(), Some("Bash"));
        assert_eq!(shell.tool_kind(), Some(ToolKind::Shell));
        assert!(shell.wire_fields().unwrap().get("tool_name").is_none());
        let edit = fire(
            "afterFileEdit",
            json!({"file_path": "a", "tool_name": "TabWrite"}),
        );
        assert_eq!(edit.tool_name(), Some("TabWrite"));
        assert_eq!(fire("beforeReadFile", json!({})).tool_name(), Some("Read"));
    }

    #[test]
    fn other_events_keep_their_fields() {
        let stop = fire(
            "stop",
            json!({"status": "completed", "loop_count": 0, "session_id": "s"}),
        );
        assert_eq!(stop.event(), Event::Stop);
        assert_eq!(stop.arguments()["status"], "completed");
        assert_eq!(stop.session_id(), Some("s"));
        assert_eq!(stop.wire_fields().unwrap()["loop_count"], 0);
        assert!(request("PreToolUse", Map::new()).is_err());
    }
}
