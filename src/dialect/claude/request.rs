//! A Claude Code event fired by name: its stdin fields, as Claude Code would
//! write them, read back into a neutral [`HookRequest`].
//!
//! This is the inverse of [`stdin_bytes`](super::stdin_bytes): the facts the
//! neutral request carries (tool name, tool input, the tool's response, the
//! prompt, the session id, …) are taken from their Claude Code fields, and
//! every other field is kept as a [wire field](HookRequest::with_wire_fields),
//! so that a Claude Code hook sees exactly the object it was given while hooks of
//! other dialects see the same facts in their own terms.

use serde_json::{json, Map, Value};

use super::ClaudeEvent;
use crate::dialect::named::session_args;
use crate::dialect::FireError;
use crate::event::Event;
use crate::request::{HookRequest, STRUCTURED_CONTENT};

/// The fields every Claude Code envelope has; they are not the event's facts.
const COMMON: [&str; 5] = [
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "hook_event_name",
];

/// The neutral request for the Claude Code event `event` whose stdin fields
/// (other than the envelope's) are `fields`.
///
/// | event | the neutral request |
/// | --- | --- |
/// | `PreToolUse`, `PermissionRequest` | `tool_name`, `tool_input` (the arguments, `{}` when absent), `tool_use_id` |
/// | `PostToolUse`, `PostToolUseFailure` | `tool_execution_end`: `tool_input`; `tool_response` (an object is kept as the structured result, and its `content` string, or its JSON text, is the text); `error` (the text of a failure); `duration_ms` |
/// | `UserPromptSubmit` | `input` with `prompt` |
/// | `SessionStart`, `SessionEnd` | `reason` = `source` / `reason` as given |
/// | `PreCompact`, `PostCompact` | `reason` = `trigger` as given |
/// | the others | their fields are the arguments; an event with no neutral point (`TaskCreated`, `ConfigChange`, …) is fired by name ([`HookRequest::named`]) |
///
/// `session_id` sets the request's session; `transcript_path`, `cwd`,
/// `permission_mode` and any field the table does not read are kept as wire
/// fields, which a Claude Code hook's stdin takes as given.
///
/// ```
/// use serde_json::{json, Value};
/// use tower_hooks::dialect::claude::{request, stdin_bytes, Envelope};
/// use tower_hooks::Event;
///
/// let fields = json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
///                     "transcript_path": "/t/s.jsonl"});
/// let req = request("PreToolUse", fields.as_object().unwrap().clone())?;
/// assert_eq!(req.event(), Event::ToolExecutionStart);
/// assert_eq!(req.tool_name(), Some("Bash"));
/// assert_eq!(req.arguments(), &json!({"command": "ls"}));
///
/// let stdin: Value = serde_json::from_slice(&stdin_bytes(&req, &Envelope::new("/p"))).unwrap();
/// assert_eq!(stdin["transcript_path"], "/t/s.jsonl");
/// assert_eq!(stdin["tool_input"], json!({"command": "ls"}));
/// # Ok::<(), tower_hooks::dialect::claude::FireError>(())
/// ```
pub fn request(event: &str, mut fields: Map<String, Value>) -> Result<HookRequest, FireError> {
    let known = ClaudeEvent::from_name(event)
        .ok_or_else(|| FireError::no_such_event(event, "a Claude Code event"))?;
    // An event with no neutral point is fired by name.
    let neutral = known.event().unwrap_or(Event::Named);
    let session_id = match fields.remove("session_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id),
        Some(_) => return Err(FireError::invalid("session_id", "a string")),
    };
    fields.remove("hook_event_name");
    let mut wire = Map::new();
    for key in COMMON {
        if let Some(value) = fields.remove(key) {
            wire.insert(key.to_owned(), value);
        }
    }
    let mut req = match neutral {
        Event::ToolExecutionStart | Event::PermissionRequest => {
            let (tool, input, id) = tool_facts(&mut fields)?;
            let mut req = HookRequest::new(neutral, input).with_tool_name(tool);
            if let Some(id) = id.filter(|_| neutral == Event::ToolExecutionStart) {
                req = req.with_tool_call_id(id);
            }
            req
        }
        Event::ToolExecutionEnd => {
            let (tool, input, id) = tool_facts(&mut fields)?;
            let failed = event == ClaudeEvent::PostToolUseFailure.name();
            let response = tool_response(&mut fields, failed);
            let args = json!({ "tool_input": input, "tool_response": response });
            let mut req = HookRequest::new(neutral, args).with_tool_name(tool);
            if let Some(id) = id {
                req = req.with_tool_call_id(id);
            }
            req
        }
        Event::Input => {
            let prompt = match fields.remove("prompt") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(prompt)) => prompt,
                Some(_) => return Err(FireError::invalid("prompt", "a string")),
            };
            HookRequest::input(prompt)
        }
        Event::SessionStart
        | Event::SessionShutdown
        | Event::SessionBeforeCompact
        | Event::SessionCompact => {
            let mut args = session_args(neutral, &mut fields);
            if neutral == Event::SessionBeforeCompact {
                if let Some(text) = fields.remove("custom_instructions") {
                    args.insert("custom_instructions".into(), text);
                }
            }
            HookRequest::new(neutral, Value::Object(args))
        }
        Event::Named => {
            HookRequest::named(known.name(), Value::Object(std::mem::take(&mut fields)))
        }
        _ => HookRequest::new(neutral, Value::Object(std::mem::take(&mut fields))),
    };
    wire.extend(fields);
    if let Some(id) = session_id {
        req = req.with_session_id(id);
    }
    Ok(req.with_wire_fields(wire))
}

/// The neutral response of a finished tool, taken out of `fields`: the text
/// of its `error` when it failed, else its `tool_response` as text (an object
/// is also kept whole, as the structured result), then whether it failed and
/// `duration_ms`.
fn tool_response(fields: &mut Map<String, Value>, failed: bool) -> Map<String, Value> {
    let mut response = Map::new();
    match (
        failed,
        fields.remove("error"),
        fields.remove("tool_response"),
    ) {
        (true, error, _) => {
            let text = match error {
                Some(Value::String(text)) => text,
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            response.insert("content".into(), Value::String(text));
        }
        (false, _, Some(Value::Object(object))) => {
            let text = match object.get("content") {
                Some(Value::String(text)) => text.clone(),
                _ => Value::Object(object.clone()).to_string(),
            };
            response.insert("content".into(), Value::String(text));
            response.insert(STRUCTURED_CONTENT.into(), Value::Object(object));
        }
        (false, _, Some(Value::String(text))) => {
            response.insert("content".into(), Value::String(text));
        }
        (false, _, Some(other)) if !other.is_null() => {
            response.insert("content".into(), Value::String(other.to_string()));
        }
        (false, _, _) => {
            response.insert("content".into(), Value::String(String::new()));
        }
    }
    response.insert("is_error".into(), Value::Bool(failed));
    if let Some(ms) = fields.remove("duration_ms") {
        response.insert("duration_ms".into(), ms);
    }
    response
}

/// `tool_name`, `tool_input` and `tool_use_id`, taken out of `fields`.
fn tool_facts(
    fields: &mut Map<String, Value>,
) -> Result<(String, Value, Option<String>), FireError> {
    let tool = match fields.remove("tool_name") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(name)) => name,
        Some(_) => return Err(FireError::invalid("tool_name", "a string")),
    };
    let input = match fields.remove("tool_input") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(input @ Value::Object(_)) => input,
        Some(_) => return Err(FireError::invalid("tool_input", "a JSON object")),
    };
    let id = match fields.remove("tool_use_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id),
        Some(_) => return Err(FireError::invalid("tool_use_id", "a string")),
    };
    Ok((tool, input, id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::claude::{event_name, stdin_bytes, Envelope};

    fn fire(event: &str, fields: Value) -> HookRequest {
        request(event, fields.as_object().unwrap().clone()).unwrap()
    }

    fn stdin(req: &HookRequest, event: &str) -> Value {
        let envelope = Envelope::new("/p").with_event_name(event);
        serde_json::from_slice(&stdin_bytes(req, &envelope)).unwrap()
    }

    #[test]
    fn every_field_given_reaches_the_claude_hook_as_given() {
        let cases = [
            (
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
            ),
            (
                "PostToolUse",
                json!({"tool_name": "Read", "tool_input": {"file_path": "a"},
                       "tool_response": {"content": "hello", "lines": 1}, "tool_use_id": "t2"}),
            ),
            (
                "PostToolUseFailure",
                json!({"tool_name": "Read", "tool_input": {"file_path": "a"}, "error": "ENOENT"}),
            ),
            ("UserPromptSubmit", json!({"prompt": "fix it"})),
            ("SessionStart", json!({"source": "clear", "model": "m"})),
            ("SessionEnd", json!({"reason": "prompt_input_exit"})),
            (
                "PreCompact",
                json!({"trigger": "auto", "custom_instructions": "keep the plan"}),
            ),
            (
                "Stop",
                json!({"stop_hook_active": true, "last_assistant_message": "done"}),
            ),
            (
                "Notification",
                json!({"message": "m", "notification_type": "idle_prompt"}),
            ),
            (
                "PermissionRequest",
                json!({"tool_name": "Bash", "tool_input": {"command": "rm"},
                       "permission_suggestions": []}),
            ),
        ];
        for (event, fields) in cases {
            let req = fire(event, fields.clone());
            assert_eq!(event_name(&req), Some(event), "{event}");
            let seen = stdin(&req, event);
            for (key, value) in fields.as_object().unwrap() {
                assert_eq!(&seen[key], value, "{event}.{key}: {seen}");
            }
        }
    }

    #[test]
    fn neutral_facts_are_read_from_their_claude_fields() {
        let req = fire(
            "PostToolUse",
            json!({"tool_name": "Read", "tool_input": {"file_path": "a"},
                   "tool_response": {"content": "hello"}, "duration_ms": 7}),
        );
        assert_eq!(req.event(), Event::ToolExecutionEnd);
        assert_eq!(req.tool_name(), Some("Read"));
        assert_eq!(req.arguments()["tool_response"]["content"], "hello");
        assert_eq!(req.arguments()["tool_response"]["is_error"], false);
        assert_eq!(req.arguments()["tool_input"], json!({"file_path": "a"}));

        let failed = fire(
            "PostToolUseFailure",
            json!({"tool_name": "Read", "error": "ENOENT"}),
        );
        assert_eq!(failed.arguments()["tool_response"]["is_error"], true);
        assert_eq!(failed.arguments()["tool_response"]["content"], "ENOENT");

        let prompt = fire(
            "UserPromptSubmit",
            json!({"prompt": "p", "session_id": "s1"}),
        );
        assert_eq!(prompt.event(), Event::Input);
        assert_eq!(prompt.arguments(), &json!({"prompt": "p"}));
        assert_eq!(prompt.session_id(), Some("s1"));

        let compact = fire("PreCompact", json!({"trigger": "manual"}));
        assert_eq!(compact.arguments()["reason"], "manual");
    }

    #[test]
    fn an_event_without_a_neutral_point_is_fired_by_name_with_its_fields() {
        let task = fire(
            "TaskCreated",
            json!({"task_subject": "ship it", "session_id": "s1", "cwd": "/w"}),
        );
        assert_eq!(task.event(), Event::Named);
        assert_eq!(task.named_event(), Some("TaskCreated"));
        assert_eq!(task.arguments(), &json!({"task_subject": "ship it"}));
        assert_eq!(task.session_id(), Some("s1"));
        let stdin: Value = serde_json::from_slice(&super::super::stdin_bytes(
            &task,
            &super::super::Envelope::new("/p"),
        ))
        .unwrap();
        assert_eq!(stdin["hook_event_name"], "TaskCreated");
        assert_eq!(stdin["task_subject"], "ship it");
        assert_eq!(stdin["cwd"], "/w");
    }

    #[test]
    fn wrong_types_and_unknown_events_are_errors() {
        let err = request("TaskCreate", Map::new()).unwrap_err();
        let expected = "a Claude Code event";
        assert_eq!(
            err,
            FireError::NoSuchEvent {
                name: "TaskCreate".into(),
                expected
            }
        );
        assert_eq!(err.to_string(), "\"TaskCreate\" is not a Claude Code event");
        let fields = json!({"tool_input": "ls"}).as_object().unwrap().clone();
        let err = request("PreToolUse", fields).unwrap_err();
        assert_eq!(err.to_string(), "\"tool_input\" must be a JSON object");
    }
}
