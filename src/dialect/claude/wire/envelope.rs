//! What a Claude Code hook is given: the stdin envelope and the variables.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{event_name, PLUGIN_ROOT_VAR, PROJECT_DIR_VAR};
use crate::dialect::claude::matcher::{
    compaction_trigger, session_end_reason, session_start_source,
};
use crate::dialect::envelope::{copy_others, lay_over, line};
use crate::event::Event;
use crate::request::HookRequest;

// --- the envelope -----------------------------------------------------------

/// What a Claude Code hook's stdin needs beyond the [`HookRequest`].
///
/// Build it with [`Envelope::new`] and the `with_*` methods. See
/// [`stdin_bytes`] for how the request's facts are written.
#[derive(Debug, Clone, Copy)]
pub struct Envelope<'a> {
    cwd: &'a str,
    transcript_path: &'a str,
    permission_mode: &'a str,
    event_name: Option<&'a str>,
    tool_name: Option<&'a str>,
    agent_id: Option<&'a str>,
    agent_type: Option<&'a str>,
    fields: Option<&'a Map<String, Value>>,
    tool_use_id: bool,
}

impl<'a> Envelope<'a> {
    /// An envelope for a session working in `cwd`: no transcript (`""`),
    /// permission mode `default`, the event name chosen by [`event_name`].
    pub const fn new(cwd: &'a str) -> Self {
        Envelope {
            cwd,
            transcript_path: "",
            permission_mode: "default",
            event_name: None,
            tool_name: None,
            agent_id: None,
            agent_type: None,
            fields: None,
            tool_use_id: true,
        }
    }

    /// Leaves `tool_use_id` out of a tool call's envelope, for a host of
    /// the family that does not write it (Factory Droid).
    pub const fn without_tool_use_id(mut self) -> Self {
        self.tool_use_id = false;
        self
    }

    /// Writes `name` as `tool_name` instead of the request's (the tool's
    /// Claude Code name, when the host calls it otherwise).
    pub const fn with_tool_name(mut self, name: &'a str) -> Self {
        self.tool_name = Some(name);
        self
    }

    /// Sets `transcript_path`: the session's transcript file.
    pub const fn with_transcript_path(mut self, path: &'a str) -> Self {
        self.transcript_path = path;
        self
    }

    /// Sets `permission_mode` (`default`, `plan`, `acceptEdits`, `auto`,
    /// `dontAsk`, `bypassPermissions`).
    pub const fn with_permission_mode(mut self, mode: &'a str) -> Self {
        self.permission_mode = mode;
        self
    }

    /// Writes `name` as `hook_event_name` instead of the one [`event_name`]
    /// chooses: for a Claude Code event the host fires by name.
    pub const fn with_event_name(mut self, name: &'a str) -> Self {
        self.event_name = Some(name);
        self
    }

    /// Sets `agent_id` and `agent_type`: the call happens inside this subagent.
    /// Fields of the same name in the request's arguments win.
    pub const fn with_agent(mut self, agent_id: &'a str, agent_type: &'a str) -> Self {
        self.agent_id = Some(agent_id);
        self.agent_type = Some(agent_type);
        self
    }

    /// Fields that replace the engine's value of the same name, where the engine
    /// writes it, and are added after the event's fields otherwise: the raw
    /// fields of an event fired by name, or what a CLI payload gives.
    pub const fn with_fields(mut self, fields: &'a Map<String, Value>) -> Self {
        self.fields = Some(fields);
        self
    }

    /// The working directory written as `cwd`.
    pub const fn cwd(&self) -> &'a str {
        self.cwd
    }
}

/// The bytes written to a Claude Code hook's stdin: one JSON object (on one
/// line) and a newline.
///
/// The fields come in Claude Code's order: `session_id`, `transcript_path`,
/// `cwd`, `permission_mode`, `hook_event_name`, then the event's own fields.
///
/// # How neutral facts become Claude Code fields
///
/// | neutral | Claude Code |
/// | --- | --- |
/// | the event | `hook_event_name`: the event's Claude name; a tool result marked `is_error` fires `PostToolUseFailure` ([`event_name`]) |
/// | session id, cwd | `session_id` (`""` when unknown), `cwd` |
/// | tool name, tool call id | `tool_name`, `tool_use_id` (none on `PermissionRequest`, as in Claude Code) |
/// | `tool_execution_start` arguments | `tool_input` |
/// | `tool_execution_end` | `tool_input`; `tool_response` = the result's structured content when the host gave one, else `{"content": <text>}`; `duration_ms`; on a failure `error` = the result's text instead of `tool_response` |
/// | `input` | `prompt` |
/// | session start reason `startup` / `new` / `resume` / `fork` / `import` | `source` `startup` / `clear` / `resume` / `fork` / `resume` |
/// | shutdown reason `quit` / `new` / `resume` / `fork` / `import` | `reason` `prompt_input_exit` / `clear` / `resume` / `other` / `resume` |
/// | compaction reason `threshold` / `manual` | `trigger` `auto` / `manual`; `custom_instructions` (`""` unless the arguments carry it) on `PreCompact` |
/// | the other events (stop, notification, subagents, …) | their arguments, which already use Claude Code's field names |
///
/// A reason this table does not know is passed through as written. The
/// [`Envelope`] adds what the request does not carry: the transcript path, the
/// permission mode, the subagent the call happens in, and fields that replace or
/// extend the engine's (an event fired by name with raw fields, or a field given
/// in a CLI payload).
///
pub fn stdin_bytes(req: &HookRequest, envelope: &Envelope<'_>) -> Vec<u8> {
    let name = envelope
        .event_name
        .or_else(|| event_name(req))
        .unwrap_or_else(|| req.event().camel_name());
    let mut entries: Vec<(&str, Cow<'_, Value>)> = Vec::with_capacity(12);
    let text = |s: &str| Cow::Owned(Value::String(s.to_owned()));
    entries.push(("session_id", text(req.session_id().unwrap_or(""))));
    entries.push(("transcript_path", text(envelope.transcript_path)));
    entries.push(("cwd", text(envelope.cwd)));
    entries.push(("permission_mode", text(envelope.permission_mode)));
    entries.push(("hook_event_name", text(name)));
    event_fields(req, name, envelope, &mut entries);
    for (key, value) in [
        ("agent_id", envelope.agent_id),
        ("agent_type", envelope.agent_type),
    ] {
        if let Some(value) = value {
            if !entries.iter().any(|(k, _)| *k == key) {
                entries.push((key, text(value)));
            }
        }
    }
    for fields in [req.wire_fields(), envelope.fields].into_iter().flatten() {
        lay_over(&mut entries, fields);
    }
    line(&entries)
}

/// The event's own fields, from the request's neutral facts.
fn event_fields<'r>(
    req: &'r HookRequest,
    name: &str,
    envelope: &Envelope<'_>,
    out: &mut Vec<(&'r str, Cow<'r, Value>)>,
) {
    let tool = envelope.tool_name;
    let tool_use_id = req.tool_call_id().filter(|_| envelope.tool_use_id);
    let args = req.arguments();
    let text = |s: &str| Cow::Owned(Value::String(s.to_owned()));
    let arg = move |key: &str| args.get(key).filter(|v| !v.is_null());
    let tool_name = || text(tool.or(req.tool_name()).unwrap_or(""));
    match req.event() {
        Event::ToolExecutionStart => {
            out.push(("tool_name", tool_name()));
            out.push(("tool_input", Cow::Borrowed(args)));
            if let Some(id) = tool_use_id {
                out.push(("tool_use_id", text(id)));
            }
        }
        Event::PermissionRequest => {
            out.push(("tool_name", tool_name()));
            out.push(("tool_input", Cow::Borrowed(args)));
        }
        Event::ToolExecutionEnd => {
            out.push(("tool_name", tool_name()));
            let input = arg("tool_input")
                .map(Cow::Borrowed)
                .unwrap_or_else(|| Cow::Owned(Value::Object(Map::new())));
            out.push(("tool_input", input));
            if let Some(id) = tool_use_id {
                out.push(("tool_use_id", text(id)));
            }
            let response = args.get("tool_response");
            let content = response.and_then(|r| r.get("content"));
            if name == "PostToolUseFailure" {
                let error = match content {
                    Some(Value::String(s)) => text(s),
                    Some(other) if !other.is_null() => text(&other.to_string()),
                    _ => text(""),
                };
                out.push(("error", error));
            } else {
                let structured = response
                    .and_then(|r| r.get(crate::request::STRUCTURED_CONTENT))
                    .filter(|v| !v.is_null());
                let tool_response = match structured {
                    Some(structured) => Cow::Borrowed(structured),
                    None => {
                        let mut map = Map::new();
                        map.insert(
                            "content".into(),
                            content.cloned().unwrap_or(Value::String(String::new())),
                        );
                        Cow::Owned(Value::Object(map))
                    }
                };
                out.push(("tool_response", tool_response));
            }
            if let Some(ms) = response.and_then(|r| r.get("duration_ms")) {
                out.push(("duration_ms", Cow::Borrowed(ms)));
            }
        }
        Event::Input => {
            out.push((
                "prompt",
                arg("prompt").map_or_else(|| text(""), Cow::Borrowed),
            ));
        }
        Event::SessionStart => {
            out.push(("source", mapped(arg("reason"), session_start_source)));
            copy_others(args, &["reason"], out);
        }
        Event::SessionShutdown => {
            out.push(("reason", mapped(arg("reason"), session_end_reason)));
            copy_others(args, &["reason"], out);
        }
        Event::SessionBeforeCompact | Event::SessionCompact => {
            out.push(("trigger", mapped(arg("reason"), compaction_trigger)));
            if req.event() == Event::SessionBeforeCompact {
                let instructions =
                    arg("custom_instructions").map_or_else(|| text(""), Cow::Borrowed);
                out.push(("custom_instructions", instructions));
            }
            copy_others(args, &["reason", "custom_instructions"], out);
        }
        Event::Stop | Event::SubagentStop => {
            if arg("stop_hook_active").is_none() {
                out.push(("stop_hook_active", Cow::Owned(Value::Bool(false))));
            }
            copy_others(args, &[], out);
        }
        _ => copy_others(args, &[], out),
    }
}

/// A neutral reason in the envelope under Claude Code's value for it (one
/// mapping, shared with the matcher's subjects: [`session_start_source`] and
/// its siblings); an absent one is the empty string.
fn mapped<'r>(value: Option<&'r Value>, map: fn(&str) -> &str) -> Cow<'r, Value> {
    match value {
        None => Cow::Owned(Value::String(String::new())),
        Some(value) => match value.as_str() {
            Some(neutral) if map(neutral) != neutral => {
                Cow::Owned(Value::String(map(neutral).to_owned()))
            }
            _ => Cow::Borrowed(value),
        },
    }
}

// --- the environment --------------------------------------------------------

/// The variables a Claude Code hook gets on top of the inherited environment:
/// `CLAUDE_PROJECT_DIR` (the project root), then `CLAUDE_PLUGIN_ROOT` for a
/// plugin's hook.
///
/// ```
/// use tower_hooks::dialect::claude::env_vars;
///
/// let vars: Vec<_> = env_vars("/p", Some("/plugins/x")).collect();
/// assert_eq!(vars, [("CLAUDE_PROJECT_DIR", "/p"), ("CLAUDE_PLUGIN_ROOT", "/plugins/x")]);
/// assert_eq!(env_vars("/p", None).count(), 1);
/// ```
pub fn env_vars<'a>(
    project_dir: &'a str,
    plugin_root: Option<&'a str>,
) -> impl Iterator<Item = (&'static str, &'a str)> + Clone + 'a {
    [
        Some((PROJECT_DIR_VAR, project_dir)),
        plugin_root.map(|root| (PLUGIN_ROOT_VAR, root)),
    ]
    .into_iter()
    .flatten()
}
