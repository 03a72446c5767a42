//! How a Claude Code hook's answer is read: the exit status, then the JSON on
//! stdout, field by field as each event reads it.

use serde_json::{Map, Value};

use super::{block_meaning, BlockMeaning, ClaudeAnswer, ClaudeDecision, Failure};
use crate::dialect::claude::ClaudeEvent as C;

/// The reason Claude Code gives a JSON block that names none (a `deny`, a
/// `decision: "block"`, …): its own words, as 2.1.332 sends them to the model
/// (conformance/hosts scenarios `pre_deny_without_reason`,
/// `post_block_without_reason`, `stop_block_without_reason`).
const BLOCK_WITHOUT_REASON: &str = "Blocked by hook";

/// The reason Claude Code gives an exit 2 with nothing on stderr, in its own
/// words (conformance/hosts scenarios `pre_exit_2_empty_stderr`,
/// `post_exit_2_empty_stderr`).
const EXIT_2_WITHOUT_STDERR: &str = "No stderr output";

/// The reason of an exit-2 block: stderr, lossily decoded, without trailing
/// newlines, or `No stderr output` (Claude Code's words) when it is blank.
/// stdout is never the reason.
pub fn exit2_reason(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let trimmed = text.trim_end_matches(['\n', '\r']);
    if trimmed.trim().is_empty() {
        EXIT_2_WITHOUT_STDERR.to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// Reads a Claude Code hook's answer at the Claude Code event `event` (the name
/// in its envelope's `hook_event_name`). `exit` is `None` when the hook was ended
/// by a signal. Never panics, whatever the bytes.
///
/// * **exit 0**: when stdout, trimmed, starts with `{` and is one JSON object
///   (compact or pretty-printed), that object is the answer (below). Otherwise
///   stdout is plain text: model context on `UserPromptSubmit`,
///   `UserPromptExpansion` and `SessionStart`, ignored elsewhere. A `{` that
///   does not parse is plain text too.
/// * **exit 2**: a block, whatever stdout says. When stdout is a JSON answer
///   that makes a blocking decision of its own (`decision: "block"`,
///   `permissionDecision: "deny"`, `decision.behavior: "deny"`), that
///   decision is the block, with its reason (stderr when it gives none);
///   otherwise the reason is stderr ([`exit2_reason`]) and the JSON's other
///   fields (`additionalContext`, `systemMessage`, `continue`, `stopReason`)
///   still count. JSON that breaks the schema is left out. What the block
///   means depends on the event ([`block_meaning`]); on `PermissionRequest`
///   only `decision.behavior: "deny"` is honored.
/// * **any other exit**: a JSON answer on stdout decides as on exit 0, and
///   the status is ignored (the answer's
///   [`warnings`](ClaudeAnswer#structfield.warnings) say so); without one
///   (plain text, nothing, JSON that breaks the schema) it is a failure
///   ([`Failure::exited`]) and the action proceeds. A hook ended by a signal
///   is a failure whatever it printed.
///
/// The fields of a JSON answer:
///
/// | field | effect |
/// | --- | --- |
/// | `continue: false`, `stopReason` | [`stop`](ClaudeAnswer::stop) = the reason (`""` without one); the decision is left as it is |
/// | `systemMessage` | a user message |
/// | `decision: "block"`, `reason` | a block, meaning what [`block_meaning`] says |
/// | `decision: "approve"` | allow (legacy); its `reason` is a user message |
/// | `hookSpecificOutput.hookEventName` | must name `event` when present |
/// | `…permissionDecision` (`PreToolUse`) | `allow` (its `permissionDecisionReason` is a user message), `deny` (a block with that reason), `ask` (the reason is the ask's reason and a user message), `defer`; with a legacy top-level decision, the stronger one |
/// | `…updatedInput` (`PreToolUse`) | replaces the tool input, unless the decision is deny or defer |
/// | `…decision.behavior` (`PermissionRequest`) | `allow` (with `updatedInput`) or `deny` (a block with `message` as its reason; `interrupt: true` also stops the agent) |
/// | `…additionalContext` | context on `PreToolUse`, `UserPromptSubmit`, `UserPromptExpansion`, `SessionStart`, `Setup`, `PostToolUse`, `PostToolUseFailure`, `PostToolBatch`, `SubagentStart` |
/// | `…additionalContext` (`Stop`, `SubagentStop`) | the follow-up: the agent keeps going with it |
/// | `…sessionTitle` (`UserPromptSubmit`, `SessionStart`), `…suppressOriginalPrompt` (`UserPromptSubmit`), `…initialUserMessage` (`SessionStart`), `…watchPaths` (`SessionStart`, `CwdChanged`, `FileChanged`), `…decision.updatedPermissions` (a `PermissionRequest` allow) | handed to the host as they are ([`ClaudeAnswer`]'s fields of those names) |
/// | `…updatedToolOutput` (`PostToolUse`; `updatedMCPToolOutput` as a fallback) | replaces the tool's output |
///
/// As in Claude Code, `InstructionsLoaded`, `SessionEnd` and `StopFailure`
/// discard the JSON answer; `Notification`, `PreCompact`, `PostCompact`,
/// `ConfigChange`, `MessageDisplay`, `Elicitation`, `ElicitationResult`,
/// `WorktreeCreate` and `WorktreeRemove` discard `continue` and
/// `systemMessage`; `CwdChanged`, `FileChanged`, `DirectoryAdded` and
/// `TaskCreated` discard `continue`.
///
/// ```
/// use tower_hooks::dialect::claude::{decode, ClaudeDecision};
///
/// let stop = decode(Some(2), b"", b"run the tests first\n", "Stop");
/// assert_eq!(stop.follow_up.as_deref(), Some("run the tests first"));
/// let crashed = decode(Some(1), b"", b"lint crashed\n", "PreToolUse");
/// assert_eq!(crashed.decision, ClaudeDecision::Allow);
/// assert_eq!(crashed.error.as_deref(), Some("exited with status 1: lint crashed"));
/// ```
///
/// # Caveats
///
/// * An answer that is JSON but does not follow Claude Code's schema (a field
///   of the wrong type, an unknown `permissionDecision`, a `hookEventName` of
///   another event) is a non-blocking error, as in Claude Code, and nothing
///   else of it is used.
/// * Claude Code's 10,000-character cap on context and messages is not applied.
/// * `additionalContext` on `Stop` and `SubagentStop` keeps the agent going as
///   a block does: it is the [`follow_up`](ClaudeAnswer#structfield.follow_up),
///   and the decision stays allow.
pub fn decode(exit: Option<i32>, stdout: &[u8], stderr: &[u8], event: &str) -> ClaudeAnswer {
    match exit {
        Some(0) => decode_stdout(stdout, event),
        Some(2) => decode_exit_2(stdout, stderr, event),
        Some(code) => match json_object(stdout).map(|json| read_json(&json, event)) {
            Some(Ok(mut answer)) => {
                answer.warnings.push(format!(
                    "exited with status {code}: the JSON answer on stdout decided, the status \
                     was ignored"
                ));
                answer
            }
            _ => ClaudeAnswer::failed(&Failure::exited(exit, stderr)),
        },
        None => ClaudeAnswer::failed(&Failure::exited(exit, stderr)),
    }
}

/// stdout as one JSON object: trimmed, it starts with `{` and parses as one.
fn json_object(stdout: &[u8]) -> Option<Map<String, Value>> {
    let trimmed = stdout.trim_ascii();
    if trimmed.first() != Some(&b'{') {
        return None;
    }
    match serde_json::from_slice::<Value>(trimmed) {
        Ok(Value::Object(json)) => Some(json),
        _ => None,
    }
}

/// Exit 2: a block whatever stdout says. A JSON answer on stdout that makes
/// a blocking decision of its own is that block (with its own reason, or
/// stderr's when it gives none); one that does not still adds its context,
/// messages and stop request to the block; one that breaks the schema is
/// left out, and stderr is the reason.
fn decode_exit_2(stdout: &[u8], stderr: &[u8], event: &str) -> ClaudeAnswer {
    let stderr_reason = exit2_reason(stderr);
    let Some(json) = json_object(stdout) else {
        return ClaudeAnswer::blocked(event, stderr_reason);
    };
    match read_json_or(&json, event, &stderr_reason) {
        Ok(answer) if answer.decision == ClaudeDecision::Block => answer,
        Ok(_) => {
            let mut answer = ClaudeAnswer::blocked(event, stderr_reason);
            // Only the fields that do not decide count.
            let side = read_json(&side_fields(&json), event).unwrap_or_default();
            answer.context.extend(side.context);
            answer.user_messages.extend(side.user_messages);
            answer.stop = side.stop;
            if let Some(more) = side.follow_up {
                join_line(&mut answer.follow_up, more);
            }
            answer.warnings.push(
                "exit 2 blocks whatever the JSON answer on stdout decided; its other fields \
                 were kept"
                    .to_owned(),
            );
            answer
        }
        Err(problem) => {
            let mut answer = ClaudeAnswer::blocked(event, stderr_reason);
            answer.warnings.push(format!(
                "exit 2 blocks with stderr as the reason; the JSON answer on stdout was not \
                 used: {problem}"
            ));
            answer
        }
    }
}

/// The fields of a JSON answer that do not decide: `continue`, `stopReason`,
/// `systemMessage`, and `hookSpecificOutput`'s `hookEventName` and
/// `additionalContext`.
fn side_fields(json: &Map<String, Value>) -> Map<String, Value> {
    let mut side: Map<String, Value> = ["continue", "stopReason", "systemMessage"]
        .into_iter()
        .filter_map(|key| Some((key.to_owned(), json.get(key)?.clone())))
        .collect();
    if let Some(Value::Object(specific)) = json.get("hookSpecificOutput") {
        let kept: Map<String, Value> = ["hookEventName", "additionalContext"]
            .into_iter()
            .filter_map(|key| Some((key.to_owned(), specific.get(key)?.clone())))
            .collect();
        side.insert("hookSpecificOutput".into(), Value::Object(kept));
    }
    side
}

/// Appends `more` to `slot` on a new line.
fn join_line(slot: &mut Option<String>, more: String) {
    match slot {
        Some(text) => {
            text.push('\n');
            text.push_str(&more);
        }
        None => *slot = Some(more),
    }
}

fn decode_stdout(stdout: &[u8], event: &str) -> ClaudeAnswer {
    let trimmed = stdout.trim_ascii();
    if let Some(json) = json_object(stdout) {
        return match read_json(&json, event) {
            Ok(answer) => answer,
            Err(problem) => ClaudeAnswer::with_error(format!("invalid answer: {problem}")),
        };
    }
    let mut answer = ClaudeAnswer::default();
    if matches!(
        C::from_name(event),
        Some(C::UserPromptSubmit | C::UserPromptExpansion | C::SessionStart)
    ) {
        let text = String::from_utf8_lossy(trimmed);
        if !text.is_empty() {
            answer.context.push(text.into_owned());
        }
    }
    answer
}

/// Whether Claude Code discards a JSON answer at `event`.
const fn discards_json(event: C) -> bool {
    matches!(
        event,
        C::InstructionsLoaded | C::SessionEnd | C::StopFailure
    )
}

/// Whether `event` discards `continue` and `systemMessage`.
const fn discards_messages(event: C) -> bool {
    matches!(
        event,
        C::Notification
            | C::PreCompact
            | C::PostCompact
            | C::ConfigChange
            | C::MessageDisplay
            | C::Elicitation
            | C::ElicitationResult
            | C::WorktreeCreate
            | C::WorktreeRemove
    )
}

/// Whether `event` discards `continue` only.
const fn discards_continue(event: C) -> bool {
    matches!(
        event,
        C::CwdChanged | C::FileChanged | C::DirectoryAdded | C::TaskCreated
    )
}

/// Whether `hookSpecificOutput.additionalContext` is model context at `event`.
const fn takes_context(event: C) -> bool {
    matches!(
        event,
        C::PreToolUse
            | C::UserPromptSubmit
            | C::UserPromptExpansion
            | C::SessionStart
            | C::Setup
            | C::PostToolUse
            | C::PostToolUseFailure
            | C::PostToolBatch
            | C::SubagentStart
    )
}

/// Reads a JSON answer; `Err` names the first field that breaks the schema.
fn read_json(json: &Map<String, Value>, event: &str) -> Result<ClaudeAnswer, String> {
    read_json_or(json, event, BLOCK_WITHOUT_REASON)
}

/// [`read_json`], with `fallback` as the reason of a block that gives none.
fn read_json_or(
    json: &Map<String, Value>,
    event: &str,
    fallback: &str,
) -> Result<ClaudeAnswer, String> {
    let mut answer = ClaudeAnswer::default();
    // An event this host does not know keeps everything.
    let known = C::from_name(event);
    if known.is_some_and(discards_json) {
        return Ok(answer);
    }
    let keeps_messages = !known.is_some_and(discards_messages);
    let keeps_continue = keeps_messages && !known.is_some_and(discards_continue);

    let go_on = boolean(json, "continue", "continue")?;
    let stop_reason = string(json, "stopReason", "stopReason")?;
    let system_message = string(json, "systemMessage", "systemMessage")?;
    let reason = string(json, "reason", "reason")?;
    let legacy = match string(json, "decision", "decision")? {
        None => None,
        Some("block") => Some(ClaudeDecision::Block),
        Some("approve") => Some(ClaudeDecision::Allow),
        Some(other) => {
            return Err(format!(
                "decision is {other:?}; expected \"block\" or \"approve\""
            ))
        }
    };
    let specific = match json.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(specific)) => Some(specific),
        Some(_) => return Err("hookSpecificOutput must be an object".into()),
    };
    if let Some(specific) = specific {
        match string(
            specific,
            "hookEventName",
            "hookSpecificOutput.hookEventName",
        )? {
            Some(name) if name != event => {
                return Err(format!(
                    "hookSpecificOutput.hookEventName is {name:?}, but the event is {event:?}"
                ))
            }
            _ => {}
        }
    }

    if keeps_messages {
        if let Some(message) = system_message {
            answer.user_messages.push(message.to_owned());
        }
    }
    if keeps_continue && go_on == Some(false) {
        answer.stop = Some(stop_reason.unwrap_or("").to_owned());
    }

    match known {
        Some(C::PreToolUse) => read_pre_tool_use(&mut answer, specific, legacy, reason, fallback)?,
        Some(C::PreSkillShellCommand) => {
            read_pre_skill_shell_command(&mut answer, specific, legacy, reason, fallback)?
        }
        Some(C::PermissionRequest) => {
            read_permission_request(&mut answer, specific, legacy, reason, fallback)?
        }
        _ => match legacy {
            Some(ClaudeDecision::Block) => {
                answer.block(block_meaning(event), reason_or(reason, fallback));
            }
            Some(_) => {
                if let Some(r) = reason {
                    answer.user_messages.push(r.to_owned());
                }
            }
            None => {}
        },
    }

    if let Some(specific) = specific {
        read_specific_extras(&mut answer, known, specific)?;
    }
    Ok(answer)
}

/// A block's reason: the one given, unless it is blank, else `fallback`.
fn reason_or(reason: Option<&str>, fallback: &str) -> String {
    reason
        .filter(|r| !r.trim().is_empty())
        .unwrap_or(fallback)
        .to_owned()
}

/// The decision of a `PreToolUse` answer: `permissionDecision` or the legacy
/// `decision`, the stronger of the two, with the reason of the one that
/// decided.
fn read_pre_tool_use(
    answer: &mut ClaudeAnswer,
    specific: Option<&Map<String, Value>>,
    legacy: Option<ClaudeDecision>,
    reason: Option<&str>,
    fallback: &str,
) -> Result<(), String> {
    let specific = specific.map_or(Ok(PreToolUse::default()), PreToolUse::read)?;
    let decision = match (specific.decision, legacy) {
        (Some(a), Some(b)) => a.stronger(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => ClaudeDecision::Allow,
    };
    // The reason of the field that decided.
    let from_specific = specific.decision == Some(decision);
    let decided_reason = if from_specific {
        specific.reason.or(reason)
    } else {
        reason
    };
    match decision {
        ClaudeDecision::Block => {
            answer.block(BlockMeaning::Deny, reason_or(decided_reason, fallback));
        }
        ClaudeDecision::Ask => {
            answer.decision = ClaudeDecision::Ask;
            if let Some(r) = decided_reason {
                answer.user_messages.push(r.to_owned());
                answer.reason = Some(r.to_owned());
            }
        }
        ClaudeDecision::Defer => answer.decision = ClaudeDecision::Defer,
        ClaudeDecision::Allow => {
            answer.approved = specific.decision == Some(ClaudeDecision::Allow);
            if let Some(r) = decided_reason {
                answer.user_messages.push(r.to_owned());
            }
        }
    }
    if matches!(decision, ClaudeDecision::Allow | ClaudeDecision::Ask) {
        answer.updated_input = specific.updated_input.cloned();
    }
    Ok(())
}

/// The decision of a `PreSkillShellCommand` answer, which reads the fields
/// of `PreToolUse` only to refuse.
fn read_pre_skill_shell_command(
    answer: &mut ClaudeAnswer,
    specific: Option<&Map<String, Value>>,
    legacy: Option<ClaudeDecision>,
    reason: Option<&str>,
    fallback: &str,
) -> Result<(), String> {
    // The same fields as PreToolUse, read otherwise: `allow` adds
    // nothing, and a refusal, an ask, a defer or any `updatedInput`
    // (never applied) keeps the command from running.
    let specific = specific.map_or(Ok(PreToolUse::default()), PreToolUse::read)?;
    let refused = legacy == Some(ClaudeDecision::Block)
        || specific.updated_input.is_some()
        || matches!(
            specific.decision,
            Some(ClaudeDecision::Block | ClaudeDecision::Ask | ClaudeDecision::Defer)
        );
    if refused {
        answer.block(
            BlockMeaning::Deny,
            reason_or(specific.reason.or(reason), fallback),
        );
    }
    Ok(())
}

/// The decision of a `PermissionRequest` answer: `hookSpecificOutput.decision`
/// (deny or allow, with its changes), else the legacy `decision`.
fn read_permission_request(
    answer: &mut ClaudeAnswer,
    specific: Option<&Map<String, Value>>,
    legacy: Option<ClaudeDecision>,
    reason: Option<&str>,
    fallback: &str,
) -> Result<(), String> {
    let behavior = match specific.map(|s| s.get("decision")) {
        None | Some(None) | Some(Some(Value::Null)) => None,
        Some(Some(Value::Object(decision))) => Some(PermissionDecision::read(decision)?),
        Some(Some(_)) => return Err("hookSpecificOutput.decision must be an object".into()),
    };
    match behavior {
        Some(PermissionDecision {
            deny: true,
            message,
            interrupt,
            ..
        }) => {
            let reason = reason_or(message, fallback);
            if interrupt {
                answer.stop = Some(reason.clone());
            }
            answer.block(BlockMeaning::Deny, reason);
        }
        Some(PermissionDecision {
            deny: false,
            updated_input,
            updated_permissions,
            ..
        }) if legacy != Some(ClaudeDecision::Block) => {
            answer.approved = true;
            answer.updated_input = updated_input.cloned();
            answer.updated_permissions = updated_permissions;
        }
        _ => match legacy {
            Some(ClaudeDecision::Block) => {
                answer.block(BlockMeaning::NotHonored, reason_or(reason, fallback));
            }
            _ => {
                if let Some(r) = reason.filter(|_| legacy.is_some()) {
                    answer.user_messages.push(r.to_owned());
                }
            }
        },
    }
    Ok(())
}

/// The fields of `hookSpecificOutput` besides the decision, each at the
/// events that read it: context for the model or to keep the agent going, a
/// session title, paths to watch, a rewritten tool output, ….
fn read_specific_extras(
    answer: &mut ClaudeAnswer,
    known: Option<C>,
    specific: &Map<String, Value>,
) -> Result<(), String> {
    if known.is_some_and(takes_context) {
        let context = string(
            specific,
            "additionalContext",
            "hookSpecificOutput.additionalContext",
        )?;
        if let Some(context) = context {
            answer.context.push(context.to_owned());
        }
    }
    if matches!(known, Some(C::Stop | C::SubagentStop)) {
        let context = string(
            specific,
            "additionalContext",
            "hookSpecificOutput.additionalContext",
        )?;
        // Claude Code keeps the agent going with it, as with a block.
        if let Some(context) = context.filter(|c| !c.trim().is_empty()) {
            join_line(&mut answer.follow_up, context.to_owned());
        }
    }
    if matches!(known, Some(C::UserPromptSubmit | C::SessionStart)) {
        let title = string(specific, "sessionTitle", "hookSpecificOutput.sessionTitle")?;
        answer.session_title = title.map(str::to_owned);
    }
    if known == Some(C::UserPromptSubmit) {
        answer.suppress_original_prompt = boolean(
            specific,
            "suppressOriginalPrompt",
            "hookSpecificOutput.suppressOriginalPrompt",
        )?
        .unwrap_or(false);
    }
    if known == Some(C::SessionStart) {
        let message = string(
            specific,
            "initialUserMessage",
            "hookSpecificOutput.initialUserMessage",
        )?;
        answer.initial_user_message = message.map(str::to_owned);
    }
    if matches!(
        known,
        Some(C::SessionStart | C::CwdChanged | C::FileChanged)
    ) {
        answer.watch_paths = match specific.get("watchPaths") {
            None | Some(Value::Null) => None,
            Some(Value::Array(paths)) => Some(
                paths
                    .iter()
                    .map(|p| p.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("hookSpecificOutput.watchPaths must be an array of strings")?,
            ),
            Some(_) => {
                return Err("hookSpecificOutput.watchPaths must be an array of strings".into())
            }
        };
    }
    if known == Some(C::PostToolUse) {
        let output = ["updatedToolOutput", "updatedMCPToolOutput"]
            .iter()
            .find_map(|key| specific.get(*key).filter(|v| !v.is_null()));
        answer.updated_tool_output = output.cloned();
    }
    Ok(())
}

/// `hookSpecificOutput` of a `PreToolUse` answer.
#[derive(Default)]
struct PreToolUse<'j> {
    decision: Option<ClaudeDecision>,
    reason: Option<&'j str>,
    updated_input: Option<&'j Map<String, Value>>,
}

impl<'j> PreToolUse<'j> {
    fn read(specific: &'j Map<String, Value>) -> Result<Self, String> {
        let decision = match string(
            specific,
            "permissionDecision",
            "hookSpecificOutput.permissionDecision",
        )? {
            None => None,
            Some("allow") => Some(ClaudeDecision::Allow),
            Some("deny") => Some(ClaudeDecision::Block),
            Some("ask") => Some(ClaudeDecision::Ask),
            Some("defer") => Some(ClaudeDecision::Defer),
            Some(other) => {
                return Err(format!(
                    "hookSpecificOutput.permissionDecision is {other:?}; expected \"allow\", \
                     \"deny\", \"ask\" or \"defer\""
                ))
            }
        };
        Ok(PreToolUse {
            decision,
            reason: string(
                specific,
                "permissionDecisionReason",
                "hookSpecificOutput.permissionDecisionReason",
            )?,
            updated_input: object(specific, "updatedInput", "hookSpecificOutput.updatedInput")?,
        })
    }
}

/// `hookSpecificOutput.decision` of a `PermissionRequest` answer.
struct PermissionDecision<'j> {
    deny: bool,
    message: Option<&'j str>,
    interrupt: bool,
    updated_input: Option<&'j Map<String, Value>>,
    updated_permissions: Vec<Value>,
}

impl<'j> PermissionDecision<'j> {
    fn read(decision: &'j Map<String, Value>) -> Result<Self, String> {
        const AT: &str = "hookSpecificOutput.decision";
        let deny = match string(decision, "behavior", "hookSpecificOutput.decision.behavior")? {
            Some("allow") => false,
            Some("deny") => true,
            Some(other) => {
                return Err(format!(
                    "{AT}.behavior is {other:?}; expected \"allow\" or \"deny\""
                ))
            }
            None => return Err(format!("{AT} needs a behavior, \"allow\" or \"deny\"")),
        };
        Ok(PermissionDecision {
            deny,
            message: string(decision, "message", "hookSpecificOutput.decision.message")?,
            interrupt: boolean(
                decision,
                "interrupt",
                "hookSpecificOutput.decision.interrupt",
            )?
            .unwrap_or(false),
            updated_input: object(
                decision,
                "updatedInput",
                "hookSpecificOutput.decision.updatedInput",
            )?,
            updated_permissions: match decision.get("updatedPermissions") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(updates)) if updates.iter().all(Value::is_object) => {
                    updates.clone()
                }
                Some(_) => {
                    return Err(format!(
                        "{AT}.updatedPermissions must be an array of objects"
                    ))
                }
            },
        })
    }
}

/// An optional string field (`null` counts as absent).
fn string<'j>(map: &'j Map<String, Value>, key: &str, at: &str) -> Result<Option<&'j str>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("{at} must be a string")),
    }
}

/// An optional boolean field (`null` counts as absent).
fn boolean(map: &Map<String, Value>, key: &str, at: &str) -> Result<Option<bool>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("{at} must be true or false")),
    }
}

/// An optional object field (`null` counts as absent).
fn object<'j>(
    map: &'j Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<&'j Map<String, Value>>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(obj)) => Ok(Some(obj)),
        Some(_) => Err(format!("{at} must be an object")),
    }
}

/// A `PostToolUse` hook's `updatedToolOutput` as a neutral tool-result
/// transform (the `updated_input` of `tool_execution_end`, see
/// [`TransformScope::ToolResult`](crate::TransformScope::ToolResult)).
///
/// The envelope sends `{"content": <text>}` as `tool_response`, or the result's
/// structured content when it has one, so: a string, or an object whose only
/// field is a string `content`, replaces the text; anything else replaces the
/// structured content.
///
/// ```
/// use serde_json::json;
/// use tower_hooks::dialect::claude::tool_output_transform;
///
/// assert_eq!(tool_output_transform(&json!({"content": "[redacted]"}))["content"], "[redacted]");
/// assert_eq!(tool_output_transform(&json!("[redacted]"))["content"], "[redacted]");
/// assert_eq!(tool_output_transform(&json!({"rows": 3}))["structured_content"], json!({"rows": 3}));
/// ```
pub fn tool_output_transform(updated: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    match updated {
        Value::String(text) => {
            out.insert("content".into(), Value::String(text.clone()));
        }
        Value::Object(obj)
            if obj.len() == 1 && obj.get("content").is_some_and(Value::is_string) =>
        {
            out.insert("content".into(), obj["content"].clone());
        }
        other => {
            out.insert(crate::request::STRUCTURED_CONTENT.into(), other.clone());
        }
    }
    out
}
