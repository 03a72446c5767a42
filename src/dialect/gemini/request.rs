//! A Gemini CLI event fired by name: its stdin fields, as Gemini CLI writes
//! them, read back into a neutral [`HookRequest`].

use serde_json::{json, Map, Value};

use super::GeminiEvent;
use crate::dialect::named::session_args;
use crate::dialect::FireError;
use crate::event::Event;
use crate::request::{HookRequest, STRUCTURED_CONTENT};

/// The fields every Gemini CLI envelope has; they are not the event's facts.
const COMMON: [&str; 4] = ["transcript_path", "cwd", "hook_event_name", "timestamp"];

/// The neutral request for the Gemini CLI event `event` whose stdin fields
/// (other than the envelope's) are `fields`.
///
/// | event | the neutral request |
/// | --- | --- |
/// | `BeforeTool` | `tool_name`, `tool_input` (the arguments) |
/// | `AfterTool` | `tool_execution_end`: `tool_input`; `tool_response`'s `llmContent` is the result's text, `error` marks a failure, and the object is kept as given |
/// | `BeforeAgent` | `input` with `prompt` |
/// | `AfterAgent` | `stop`: `stop_hook_active`, `prompt_response` (also as `last_assistant_message`), `prompt` |
/// | `SessionStart`, `SessionEnd`, `PreCompress` | `reason` = `source` / `reason` / `trigger` |
/// | `BeforeModel`, `AfterModel`, `BeforeToolSelection`, `Notification` | their fields are the arguments |
///
/// ```
/// use serde_json::json;
/// use tower_hooks::dialect::gemini::request;
/// use tower_hooks::Event;
///
/// let fields = json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
/// let req = request("BeforeTool", fields.as_object().unwrap().clone())?;
/// assert_eq!(req.event(), Event::ToolExecutionStart);
/// assert_eq!(req.tool_name(), Some("run_shell_command"));
///
/// let err = request("BeforeToolUse", fields.as_object().unwrap().clone()).unwrap_err();
/// assert_eq!(err.to_string(), "\"BeforeToolUse\" is not a Gemini CLI event");
/// # Ok::<(), tower_hooks::dialect::FireError>(())
/// ```
pub fn request(event: &str, mut fields: Map<String, Value>) -> Result<HookRequest, FireError> {
    let known = GeminiEvent::from_name(event)
        .ok_or_else(|| FireError::no_such_event(event, "a Gemini CLI event"))?;
    let session_id = match fields.remove("session_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id),
        Some(_) => return Err(FireError::invalid("session_id", "a string")),
    };
    let mut wire = Map::new();
    for key in COMMON {
        if let Some(value) = fields.remove(key) {
            wire.insert(key.to_owned(), value);
        }
    }
    let tool_name = |fields: &mut Map<String, Value>| match fields.remove("tool_name") {
        Some(Value::String(name)) => Ok(name),
        None | Some(Value::Null) => Ok(String::new()),
        Some(_) => Err(FireError::invalid("tool_name", "a string")),
    };
    let tool_input = |fields: &mut Map<String, Value>| match fields.remove("tool_input") {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(input @ Value::Object(_)) => Ok(input),
        Some(_) => Err(FireError::invalid("tool_input", "an object")),
    };
    let mut req = match known.point() {
        Event::ToolExecutionStart => {
            let tool = tool_name(&mut fields)?;
            let input = tool_input(&mut fields)?;
            HookRequest::new(Event::ToolExecutionStart, input).with_tool_name(tool)
        }
        Event::ToolExecutionEnd => {
            let tool = tool_name(&mut fields)?;
            let input = tool_input(&mut fields)?;
            let given = fields.remove("tool_response").unwrap_or(Value::Null);
            let text = |v: Option<&Value>| match v {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            let failed = given.get("error").is_some_and(|e| !e.is_null());
            let content = match &given {
                Value::Object(o) if failed => text(o.get("error")),
                Value::Object(o) => text(o.get("llmContent")),
                other => text(Some(other)),
            };
            let mut response = json!({"content": content, "is_error": failed});
            if given.is_object() {
                response[STRUCTURED_CONTENT] = given;
            }
            let args = json!({"tool_input": input, "tool_response": response});
            HookRequest::new(Event::ToolExecutionEnd, args).with_tool_name(tool)
        }
        Event::Input => {
            let prompt = match fields.remove("prompt") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(prompt)) => prompt,
                Some(_) => return Err(FireError::invalid("prompt", "a string")),
            };
            HookRequest::input(prompt)
        }
        Event::Stop => {
            let active = match fields.get("stop_hook_active") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(FireError::invalid("stop_hook_active", "true or false")),
            };
            let response = fields
                .get("prompt_response")
                .cloned()
                .unwrap_or_else(|| "".into());
            fields.insert("stop_hook_active".into(), Value::Bool(active));
            fields.insert("last_assistant_message".into(), response);
            HookRequest::new(Event::Stop, Value::Object(std::mem::take(&mut fields)))
        }
        point @ (Event::SessionStart | Event::SessionShutdown | Event::SessionBeforeCompact) => {
            HookRequest::new(point, Value::Object(session_args(point, &mut fields)))
        }
        point => HookRequest::new(point, Value::Object(std::mem::take(&mut fields))),
    };
    wire.extend(fields);
    if let Some(id) = session_id {
        req = req.with_session_id(id);
    }
    Ok(req.with_wire_fields(wire))
}
