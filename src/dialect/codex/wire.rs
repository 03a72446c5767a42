//! How a Codex hook's run is read: the exit code, stdout and stderr, checked
//! against the event's strict answer schema.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::event::CodexEvent;

/// What one Codex hook decided.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CodexDecision {
    /// No opinion.
    #[default]
    Allow,
    /// A block (a deny, `decision: "block"`, exit 2 with a reason). At
    /// `Stop` and `SubagentStop` the reason is the next instruction.
    Block(String),
    /// `permissionDecision: "allow"` with `updatedInput`: the call runs with
    /// this input.
    Rewrite(Map<String, Value>),
    /// `PermissionRequest`'s `behavior: "allow"`: no person is asked.
    Approve,
}

/// A Codex hook's answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct CodexAnswer {
    /// What it decided.
    pub decision: CodexDecision,
    /// Text for the model (`additionalContext`, plain text on the events
    /// that take it).
    pub context: Vec<String>,
    /// `systemMessage`: a warning for the person.
    pub user_messages: Vec<String>,
    /// `continue: false`, with its `stopReason` (possibly empty).
    pub stop: Option<String>,
    /// Why the run failed (Codex lets the action proceed and records it).
    pub error: Option<String>,
    /// `PermissionRequest`'s `decision.updatedPermissions` beside an
    /// `allow`, as written: the permission rules the person would have
    /// granted.
    pub updated_permissions: Vec<Value>,
}

impl CodexAnswer {
    /// A failed run.
    pub fn failed(error: impl Into<String>) -> CodexAnswer {
        CodexAnswer {
            error: Some(error.into()),
            ..CodexAnswer::default()
        }
    }
}

/// The reason of a `PermissionRequest` deny without a `message`.
pub const DEFAULT_DENY_MESSAGE: &str = "PermissionRequest hook denied approval";

/// Reads a finished run of a hook at `event`: `code` is the exit status
/// (`None`: killed by a signal).
///
/// * exit 0: empty stdout is no opinion; a JSON object is checked against
///   the event's schema (an unknown key, or a key the event does not take,
///   fails the run); text that starts with `{` or `[` and is no JSON object
///   fails; other text is context on `SessionStart`, `SubagentStart` and
///   `UserPromptSubmit`, a failure on `Stop` and `SubagentStop`, and ignored
///   elsewhere;
/// * exit 2: a block with stderr as its reason, where the event can block;
///   with an empty stderr the run fails; stdout is not read;
/// * any other exit, or a signal: a failure.
///
/// ```
/// use tower_hooks::dialect::codex::{decode, CodexDecision, CodexEvent};
///
/// let deny = br#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
///     "permissionDecision": "deny", "permissionDecisionReason": "no force push"}}"#;
/// let answer = decode(CodexEvent::PreToolUse, Some(0), deny, b"");
/// assert_eq!(answer.decision, CodexDecision::Block("no force push".into()));
/// // ask is not in Codex's schema: the run fails and the call proceeds.
/// let ask = br#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
///     "permissionDecision": "ask"}}"#;
/// assert!(decode(CodexEvent::PreToolUse, Some(0), ask, b"").error.is_some());
/// assert!(decode(CodexEvent::PreToolUse, Some(2), b"", b"").error.is_some());
/// ```
pub fn decode(event: CodexEvent, code: Option<i32>, stdout: &[u8], stderr: &[u8]) -> CodexAnswer {
    match code {
        Some(0) => decode_stdout(event, stdout),
        Some(2) => {
            let reason = String::from_utf8_lossy(stderr).trim().to_owned();
            if reason.is_empty() {
                CodexAnswer::failed("hook exited with code 2 and wrote nothing on stderr")
            } else if event.can_block() {
                CodexAnswer {
                    decision: CodexDecision::Block(reason),
                    ..CodexAnswer::default()
                }
            } else {
                CodexAnswer::failed(format!(
                    "hook exited with code 2, which does not block at {}",
                    event.name()
                ))
            }
        }
        Some(code) => CodexAnswer::failed(format!("hook exited with code {code}")),
        None => CodexAnswer::failed("hook exited without a status code"),
    }
}

/// Exit 0: what stdout says.
fn decode_stdout(event: CodexEvent, stdout: &[u8]) -> CodexAnswer {
    let text = String::from_utf8_lossy(stdout);
    let text = text.trim();
    if text.is_empty() {
        return CodexAnswer::default();
    }
    if text.starts_with('{') || text.starts_with('[') {
        return match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => match answer(event, Value::Object(object)) {
                Ok(answer) => answer,
                Err(why) => CodexAnswer::failed(format!(
                    "hook returned invalid {} JSON output: {why}",
                    event.name()
                )),
            },
            Ok(_) => CodexAnswer::failed(format!(
                "hook returned invalid {} JSON output: not a JSON object",
                event.name()
            )),
            Err(err) => CodexAnswer::failed(format!(
                "hook returned invalid {} JSON output: {err}",
                event.name()
            )),
        };
    }
    if event.text_is_context() {
        return CodexAnswer {
            context: vec![text.to_owned()],
            ..CodexAnswer::default()
        };
    }
    if event.is_stop() {
        return CodexAnswer::failed(format!(
            "hook returned invalid {} JSON output: plain text, where Codex needs a JSON object",
            event.name()
        ));
    }
    CodexAnswer::default()
}

/// Every key a Codex answer may have; which ones an event accepts is
/// checked after.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Wire {
    #[serde(default, rename = "continue")]
    keep_going: Option<bool>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    system_message: Option<String>,
    #[serde(default)]
    suppress_output: Option<bool>,
    #[serde(default)]
    decision: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    hook_specific_output: Option<Specific>,
}

/// `hookSpecificOutput`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Specific {
    hook_event_name: String,
    #[serde(default)]
    permission_decision: Option<String>,
    #[serde(default)]
    permission_decision_reason: Option<String>,
    #[serde(default)]
    updated_input: Option<Value>,
    #[serde(default)]
    additional_context: Option<String>,
    #[serde(default)]
    decision: Option<Permission>,
}

/// `PermissionRequest`'s `hookSpecificOutput.decision`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Permission {
    behavior: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default, rename = "updatedPermissions")]
    updated_permissions: Option<Vec<Value>>,
}

/// A JSON answer at `event`, or why it is not one.
fn answer(event: CodexEvent, json: Value) -> Result<CodexAnswer, String> {
    let wire: Wire = serde_path_to_error::deserialize(json).map_err(|err| {
        let path = err.path().to_string();
        format!("{} (at {path})", err.into_inner())
    })?;
    use CodexEvent as E;
    let mut out = CodexAnswer::default();
    // The common fields.
    let common_ok = !matches!(event, E::PreToolUse | E::PermissionRequest);
    if !common_ok && (wire.keep_going.is_some() || wire.stop_reason.is_some()) {
        return refuse(event, "continue/stopReason");
    }
    // Codex 0.171 takes `suppressOutput` at Stop and SubagentStop (and
    // does nothing with it there); the tool events refuse it.
    if wire.suppress_output.is_some()
        && matches!(event, E::PreToolUse | E::PermissionRequest | E::PostToolUse)
    {
        return refuse(event, "suppressOutput");
    }
    if wire.keep_going == Some(false) && event != E::SubagentStart {
        out.stop = Some(wire.stop_reason.clone().unwrap_or_default());
    }
    out.user_messages.extend(wire.system_message);
    // The top-level decision.
    let takes_decision = matches!(
        event,
        E::PreToolUse | E::PostToolUse | E::UserPromptSubmit | E::Stop | E::SubagentStop
    );
    let reason = wire.reason.filter(|r| !r.trim().is_empty());
    match (wire.decision.as_deref(), takes_decision) {
        (None, _) if reason.is_some() => return refuse(event, "a reason without a decision"),
        (None, _) => {}
        (Some(_), false) => return refuse(event, "decision"),
        (Some("block"), true) => match reason {
            Some(reason) => out.decision = CodexDecision::Block(reason),
            None => return Err("decision \"block\" needs a non-empty reason".into()),
        },
        (Some(other), true) => return Err(format!("unsupported decision: {other:?}")),
    }
    let Some(specific) = wire.hook_specific_output else {
        return Ok(out);
    };
    read_specific(event, specific, &mut out)?;
    Ok(out)
}

/// `hookSpecificOutput` at `event` into `out`: the keys the event takes, and
/// the decision they make.
fn read_specific(
    event: CodexEvent,
    specific: Specific,
    out: &mut CodexAnswer,
) -> Result<(), String> {
    use CodexEvent as E;
    if specific.hook_event_name != event.name() {
        return Err(format!(
            "hookSpecificOutput.hookEventName is {:?}, at {}",
            specific.hook_event_name,
            event.name()
        ));
    }
    if let Some(context) = specific.additional_context {
        if !matches!(
            event,
            E::PreToolUse
                | E::PostToolUse
                | E::UserPromptSubmit
                | E::SessionStart
                | E::SubagentStart
        ) {
            return refuse(event, "additionalContext");
        }
        out.context.push(context);
    }
    let tool_keys = specific.permission_decision.is_some()
        || specific.permission_decision_reason.is_some()
        || specific.updated_input.is_some();
    if tool_keys && event != E::PreToolUse {
        return refuse(event, "permissionDecision/updatedInput");
    }
    if specific.decision.is_some() && event != E::PermissionRequest {
        return refuse(event, "hookSpecificOutput.decision");
    }
    if let Some(permission) = specific.decision {
        if let Some(updates) = permission.updated_permissions {
            if permission.behavior != "allow" {
                return refuse(
                    event,
                    "decision.updatedPermissions without behavior \"allow\"",
                );
            }
            out.updated_permissions = updates;
        }
        out.decision = match permission.behavior.as_str() {
            "allow" => CodexDecision::Approve,
            "deny" => CodexDecision::Block(
                permission
                    .message
                    .filter(|m| !m.trim().is_empty())
                    .unwrap_or_else(|| DEFAULT_DENY_MESSAGE.into()),
            ),
            other => return Err(format!("unsupported behavior: {other:?}")),
        };
    }
    if event == E::PreToolUse {
        let reason = specific
            .permission_decision_reason
            .filter(|r| !r.trim().is_empty());
        match (
            specific.permission_decision.as_deref(),
            specific.updated_input,
        ) {
            (None, Some(_)) => {
                return Err("updatedInput without permissionDecision:allow".into());
            }
            (None, None) if reason.is_some() => {
                return refuse(event, "permissionDecisionReason without permissionDecision");
            }
            (None, None) => {}
            (Some("deny"), None) => match reason {
                Some(reason) => out.decision = CodexDecision::Block(reason),
                None => return Err("permissionDecision:deny needs a non-empty reason".into()),
            },
            (Some("allow"), Some(Value::Object(input))) => {
                if matches!(out.decision, CodexDecision::Block(_)) {
                    return Err("updatedInput beside a block".into());
                }
                out.decision = CodexDecision::Rewrite(input);
            }
            (Some("allow"), Some(_)) => return Err("updatedInput must be a JSON object".into()),
            (Some("allow"), None) => return Err("unsupported permissionDecision:allow".into()),
            (Some(other), _) => return Err(format!("unsupported permissionDecision:{other}")),
        }
    }
    Ok(())
}

/// The error of a key `event` does not take.
fn refuse<T>(event: CodexEvent, what: &str) -> Result<T, String> {
    Err(format!("{what} is not supported at {}", event.name()))
}
