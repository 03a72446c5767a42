//! Claude Code's wire protocol, as pure functions: the stdin envelope and the
//! variables a hook is given, how its answer is read, and how the answers of the
//! hooks that ran side by side are merged.
//!
//! Nothing here does I/O or knows about processes: the command leaf hands over
//! an exit status and the captured bytes, and the chain hands over a group's
//! answers in config order.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower_hooks::dialect::claude::{decode, event_name, stdin_bytes, ClaudeDecision, Envelope};
//! use tower_hooks::HookRequest;
//!
//! let req = HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"}))
//!     .with_session_id("s1");
//! assert_eq!(event_name(&req), Some("PreToolUse"));
//! let stdin: serde_json::Value =
//!     serde_json::from_slice(&stdin_bytes(&req, &Envelope::new("/p"))).unwrap();
//! assert_eq!(stdin["hook_event_name"], "PreToolUse");
//! assert_eq!(stdin["tool_input"], json!({"command": "rm -rf /"}));
//!
//! // A pretty-printed answer is one answer.
//! let stdout = b"{\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"PreToolUse\",\n    \
//!     \"permissionDecision\": \"deny\",\n    \"permissionDecisionReason\": \"no\"\n  }\n}\n";
//! let answer = decode(Some(0), stdout, b"", "PreToolUse");
//! assert_eq!(answer.decision, ClaudeDecision::Block);
//! assert_eq!(answer.reason.as_deref(), Some("no"));
//! ```
//!
//! The rules are on the functions: [`stdin_bytes`] (how neutral facts become
//! Claude Code fields), [`decode`] (how an answer is read), [`block_meaning`]
//! (what a block does at each event) and [`combine`] (how parallel hooks merge).

use super::matcher::{compaction_trigger, session_end_reason, session_start_source};
use crate::dialect::envelope::{copy_others, lay_over, line};
use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::event::Event;
use crate::outcome::DEFAULT_BLOCK_REASON;
use crate::request::HookRequest;

/// The variable holding the project root, set for every Claude Code hook.
pub const PROJECT_DIR_VAR: &str = "CLAUDE_PROJECT_DIR";

/// The variable holding a plugin's root folder, set for that plugin's hooks.
pub const PLUGIN_ROOT_VAR: &str = "CLAUDE_PLUGIN_ROOT";

/// How many follow-ups in a row a Stop block may cause before the stop is
/// allowed anyway (Claude Code's default cap).
pub const DEFAULT_FOLLOW_UP_CAP: u32 = 8;

// --- the event name ---------------------------------------------------------

/// The Claude Code event a request fires: its point's Claude Code name, and
/// `PostToolUseFailure` instead of `PostToolUse` for a tool result marked
/// `is_error`. `None` for a point Claude Code has no event for.
///
/// ```
/// use std::time::Duration;
/// use serde_json::json;
/// use tower_hooks::dialect::claude::event_name;
/// use tower_hooks::HookRequest;
///
/// let ok = HookRequest::tool_execution_end("Read", json!({}), "text", false, Duration::ZERO);
/// let failed = HookRequest::tool_execution_end("Read", json!({}), "ENOENT", true, Duration::ZERO);
/// assert_eq!(event_name(&ok), Some("PostToolUse"));
/// assert_eq!(event_name(&failed), Some("PostToolUseFailure"));
/// assert_eq!(event_name(&HookRequest::turn_start(1, 0)), None);
/// ```
pub fn event_name(req: &HookRequest) -> Option<&'static str> {
    let names = req.event().claude_names();
    if req.event() == Event::ToolExecutionEnd && tool_failed(req.arguments()) {
        return names.get(1).or(names.first()).copied();
    }
    names.first().copied()
}

fn tool_failed(arguments: &Value) -> bool {
    arguments.pointer("/tool_response/is_error") == Some(&Value::Bool(true))
}

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
    agent_id: Option<&'a str>,
    agent_type: Option<&'a str>,
    fields: Option<&'a Map<String, Value>>,
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
            agent_id: None,
            agent_type: None,
            fields: None,
        }
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
/// | the point | `hook_event_name`: the point's Claude name; a tool result marked `is_error` fires `PostToolUseFailure` ([`event_name`]) |
/// | session id, cwd | `session_id` (`""` when unknown), `cwd` |
/// | tool name, tool call id | `tool_name`, `tool_use_id` (none on `PermissionRequest`, as in Claude Code) |
/// | `tool_execution_start` arguments | `tool_input` |
/// | `tool_execution_end` | `tool_input`; `tool_response` = the result's structured content when the host gave one, else `{"content": <text>}`; `duration_ms`; on a failure `error` = the result's text instead of `tool_response` |
/// | `input` | `prompt` |
/// | session start reason `startup` / `new` / `resume` / `fork` / `import` | `source` `startup` / `clear` / `resume` / `fork` / `resume` |
/// | shutdown reason `quit` / `new` / `resume` / `fork` / `import` | `reason` `prompt_input_exit` / `clear` / `resume` / `other` / `resume` |
/// | compaction reason `threshold` / `manual` | `trigger` `auto` / `manual`; `custom_instructions` (`""` unless the arguments carry it) on `PreCompact` |
/// | the other points (stop, notification, subagents, …) | their arguments, which already use Claude Code's field names |
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
    event_fields(req, name, &mut entries);
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
fn event_fields<'r>(req: &'r HookRequest, name: &str, out: &mut Vec<(&'r str, Cow<'r, Value>)>) {
    let args = req.arguments();
    let text = |s: &str| Cow::Owned(Value::String(s.to_owned()));
    let arg = move |key: &str| args.get(key).filter(|v| !v.is_null());
    let tool_name = || text(req.tool_name().unwrap_or(""));
    match req.event() {
        Event::ToolExecutionStart => {
            out.push(("tool_name", tool_name()));
            out.push(("tool_input", Cow::Borrowed(args)));
            if let Some(id) = req.tool_call_id() {
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
            if let Some(id) = req.tool_call_id() {
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

// --- the answer -------------------------------------------------------------

/// What one Claude Code hook decided, from strongest to weakest when hooks are
/// merged: [`Block`](ClaudeDecision::Block) > [`Defer`](ClaudeDecision::Defer) >
/// [`Ask`](ClaudeDecision::Ask) > [`Allow`](ClaudeDecision::Allow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ClaudeDecision {
    /// No objection: no answer, an explicit `allow`, or a legacy `approve`.
    #[default]
    Allow,
    /// A person must approve (`permissionDecision: "ask"`).
    Ask,
    /// Leave the decision to the host's own permission flow
    /// (`permissionDecision: "defer"`); a host without one treats it as ask.
    Defer,
    /// A deny or a block: exit 2, `decision: "block"`, `permissionDecision:
    /// "deny"`, or `decision.behavior: "deny"` on `PermissionRequest`. What it
    /// does depends on the event ([`block_meaning`]).
    Block,
}

impl ClaudeDecision {
    /// `allow`, `ask`, `defer` or `block`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ClaudeDecision::Allow => "allow",
            ClaudeDecision::Ask => "ask",
            ClaudeDecision::Defer => "defer",
            ClaudeDecision::Block => "block",
        }
    }

    const fn rank(self) -> u8 {
        match self {
            ClaudeDecision::Allow => 0,
            ClaudeDecision::Ask => 1,
            ClaudeDecision::Defer => 2,
            ClaudeDecision::Block => 3,
        }
    }

    fn stronger(self, other: ClaudeDecision) -> ClaudeDecision {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

/// What a block does at a Claude Code event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockMeaning {
    /// The action does not happen and the reason goes to the model
    /// (`PreToolUse`, `TaskCreated`, `TaskCompleted`).
    Deny,
    /// The prompt is dropped and the reason goes to the person
    /// (`UserPromptSubmit`, `UserPromptExpansion`): it is also a user message.
    DropPrompt,
    /// The agent keeps going with the reason as its next instruction (`Stop`,
    /// `SubagentStop`, `TeammateIdle`): the reason is the follow-up.
    FollowUp,
    /// The action already happened: the block is not honored and its reason goes
    /// to the model next to the result (`PostToolUse`, `PostToolUseFailure`): it
    /// is also context.
    Feedback,
    /// The action does not happen (`PreCompact`, `PostToolBatch`,
    /// `ConfigChange`, `Elicitation`, `ElicitationResult`, `WorktreeCreate`).
    Prevent,
    /// The event cannot block this way: the block is recorded, not honored.
    /// Every other event, and exit 2 or `decision: "block"` on
    /// `PermissionRequest`, where only `decision.behavior: "deny"` denies.
    NotHonored,
}

impl BlockMeaning {
    /// Whether such a block takes effect.
    pub const fn is_honored(self) -> bool {
        !matches!(self, BlockMeaning::Feedback | BlockMeaning::NotHonored)
    }
}

/// What a block by exit 2 or `decision: "block"` means at the Claude Code event
/// `event` (an unknown name cannot block).
///
/// ```
/// use tower_hooks::dialect::claude::{block_meaning, BlockMeaning};
///
/// assert_eq!(block_meaning("Stop"), BlockMeaning::FollowUp);
/// assert!(!block_meaning("PostToolUse").is_honored());
/// assert_eq!(block_meaning("PermissionRequest"), BlockMeaning::NotHonored);
/// ```
pub fn block_meaning(event: &str) -> BlockMeaning {
    match event {
        "PreToolUse" | "TaskCreated" | "TaskCompleted" => BlockMeaning::Deny,
        "UserPromptSubmit" | "UserPromptExpansion" => BlockMeaning::DropPrompt,
        "Stop" | "SubagentStop" | "TeammateIdle" => BlockMeaning::FollowUp,
        "PostToolUse" | "PostToolUseFailure" => BlockMeaning::Feedback,
        "PreCompact" | "PostToolBatch" | "ConfigChange" | "Elicitation" | "ElicitationResult"
        | "WorktreeCreate" => BlockMeaning::Prevent,
        _ => BlockMeaning::NotHonored,
    }
}

/// One Claude Code hook's answer, read by [`decode`], in neutral terms.
///
/// An answer with an [`error`](Self#structfield.error) is a failure that lets the action
/// proceed: everything else in it is empty.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClaudeAnswer {
    /// What the hook decided.
    pub decision: ClaudeDecision,
    /// Whether the decision takes effect at this event: `false` for a block the
    /// event cannot enforce ([`BlockMeaning::is_honored`]); `true` otherwise.
    pub honored: bool,
    /// Why: a block's or a deny's reason (stderr on exit 2,
    /// `permissionDecisionReason`, `reason`, `decision.message`; `blocked by
    /// hook` when none is given), or an ask's reason. `None` for an allow.
    pub reason: Option<String>,
    /// A replacement for the whole tool input (`updatedInput` on `PreToolUse`
    /// with allow, ask or no decision; `decision.updatedInput` on a
    /// `PermissionRequest` allow).
    pub updated_input: Option<Map<String, Value>>,
    /// A replacement for the tool's output (`updatedToolOutput` on
    /// `PostToolUse`), as the hook wrote it; see [`tool_output_transform`].
    pub updated_tool_output: Option<Value>,
    /// Text for the model's context, in the order the hook gave it: a block's
    /// reason at `PostToolUse`, `additionalContext`, plain stdout on
    /// `UserPromptSubmit` and `SessionStart`.
    pub context: Vec<String>,
    /// Messages for the person: `systemMessage`, the reason of an allow or an
    /// ask, a block's reason at `UserPromptSubmit`.
    pub user_messages: Vec<String>,
    /// The hook asked to stop the agent (`continue: false`): its `stopReason`,
    /// possibly empty. It leaves the decision as it is.
    pub stop: Option<String>,
    /// The instruction to keep going with: a block's reason at `Stop` and
    /// `SubagentStop`.
    pub follow_up: Option<String>,
    /// The hook explicitly allowed: `permissionDecision: "allow"` on
    /// `PreToolUse`, `decision.behavior: "allow"` on `PermissionRequest`.
    pub approved: bool,
    /// The hook failed, and the action proceeds: `exited with status 1: …`,
    /// `timed out after 2 s`, `could not start: …`, or an answer that breaks
    /// Claude Code's schema.
    pub error: Option<String>,
}

impl Default for ClaudeAnswer {
    /// An allow with nothing to add (a hook that exits 0 and prints nothing).
    fn default() -> Self {
        ClaudeAnswer {
            decision: ClaudeDecision::Allow,
            honored: true,
            reason: None,
            updated_input: None,
            updated_tool_output: None,
            context: Vec::new(),
            user_messages: Vec::new(),
            stop: None,
            follow_up: None,
            approved: false,
            error: None,
        }
    }
}

impl ClaudeAnswer {
    /// The answer of a hook that failed: the action proceeds and the error is
    /// recorded.
    pub fn failed(failure: &Failure) -> Self {
        Self::with_error(failure.to_string())
    }

    /// The answer of a hook that ran past `timeout`: `timed out after N s`.
    pub fn timed_out(timeout: Duration) -> Self {
        Self::failed(&Failure::TimedOut(timeout))
    }

    /// The answer of a hook that could not be started: `could not start: …`.
    pub fn could_not_start(error: impl fmt::Display) -> Self {
        Self::failed(&Failure::CouldNotStart(error.to_string()))
    }

    /// A failure, said in `error`.
    pub(crate) fn with_error(error: String) -> Self {
        ClaudeAnswer {
            error: Some(error),
            ..ClaudeAnswer::default()
        }
    }

    /// A block at `event`, with what [`block_meaning`] says it means.
    fn blocked(event: &str, reason: String) -> Self {
        let mut answer = ClaudeAnswer::default();
        answer.block(block_meaning(event), reason);
        answer
    }

    fn block(&mut self, meaning: BlockMeaning, reason: String) {
        self.decision = ClaudeDecision::Block;
        self.honored = meaning.is_honored();
        match meaning {
            BlockMeaning::DropPrompt => self.user_messages.push(reason.clone()),
            BlockMeaning::FollowUp => self.follow_up = Some(reason.clone()),
            BlockMeaning::Feedback => self.context.push(reason.clone()),
            BlockMeaning::Deny | BlockMeaning::Prevent | BlockMeaning::NotHonored => {}
        }
        self.reason = Some(reason);
    }

    /// Whether this answer is a failure ([`error`](Self#structfield.error) is set).
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }
}

/// Why a hook ended without an answer. Its `Display` is the `error` of the
/// record: `exited with status 1: <first stderr line>`, `killed by a signal`,
/// `timed out after 2 s`, `could not start: <why>`. The agents dialect uses the
/// same texts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The hook exited with a status that is neither 0 nor 2.
    Exited {
        /// The exit status.
        code: i32,
        /// The first non-blank line of its stderr, shortened; empty when none.
        stderr_head: String,
    },
    /// The hook was ended by a signal.
    Signaled {
        /// The first non-blank line of its stderr, shortened; empty when none.
        stderr_head: String,
    },
    /// The hook ran past its timeout.
    TimedOut(Duration),
    /// The hook could not be started.
    CouldNotStart(String),
}

/// The longest stderr head a [`Failure`] quotes, in characters.
const STDERR_HEAD_CHARS: usize = 200;

impl Failure {
    /// The failure of a hook that ended with `code` (`None`: a signal) and
    /// printed `stderr`.
    pub fn exited(code: Option<i32>, stderr: &[u8]) -> Self {
        let stderr_head = stderr_head(stderr);
        match code {
            Some(code) => Failure::Exited { code, stderr_head },
            None => Failure::Signaled { stderr_head },
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, head) = match self {
            Failure::Exited { code, stderr_head } => (
                Cow::Owned(format!("exited with status {code}")),
                stderr_head,
            ),
            Failure::Signaled { stderr_head } => (Cow::Borrowed("killed by a signal"), stderr_head),
            Failure::TimedOut(timeout) => {
                let ms = timeout.as_millis();
                return if ms % 1000 == 0 && ms > 0 {
                    write!(f, "timed out after {} s", ms / 1000)
                } else {
                    write!(f, "timed out after {ms} ms")
                };
            }
            Failure::CouldNotStart(why) => return write!(f, "could not start: {why}"),
        };
        if head.is_empty() {
            f.write_str(&what)
        } else {
            write!(f, "{what}: {head}")
        }
    }
}

/// The first non-blank stderr line, trimmed and cut to [`STDERR_HEAD_CHARS`].
fn stderr_head(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    match line.char_indices().nth(STDERR_HEAD_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The reason of an exit-2 block: stderr, lossily decoded, without trailing
/// newlines, or `blocked by hook` when it is blank. stdout is never the reason.
pub fn exit2_reason(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let trimmed = text.trim_end_matches(['\n', '\r']);
    if trimmed.trim().is_empty() {
        DEFAULT_BLOCK_REASON.to_owned()
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
/// * **exit 2**: a block; the reason is stderr ([`exit2_reason`]), whatever
///   stdout says. What it means depends on the event ([`block_meaning`]); on
///   `PermissionRequest` it is not honored.
/// * **any other exit, or a signal**: a failure ([`Failure::exited`]); the action
///   proceeds.
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
/// * JSON on stdout is read on exit 0 only. Claude Code's newest documentation
///   also reads it on other exit codes; this crate follows `DIALECTS.md`, where
///   exit 2 is a block whatever stdout says and any other non-zero exit is an
///   error.
/// * An answer that is JSON but does not follow Claude Code's schema (a field
///   of the wrong type, an unknown `permissionDecision`, a `hookEventName` of
///   another event) is a non-blocking error, as in Claude Code, and nothing
///   else of it is used.
/// * Claude Code's 10,000-character cap on context and messages is not applied.
/// * `additionalContext` on `Stop` (which Claude Code 2.1.163 treats as a reason
///   to continue) is ignored: a Stop hook keeps the agent going with
///   `decision: "block"` or exit 2.
pub fn decode(exit: Option<i32>, stdout: &[u8], stderr: &[u8], event: &str) -> ClaudeAnswer {
    match exit {
        Some(0) => decode_stdout(stdout, event),
        Some(2) => ClaudeAnswer::blocked(event, exit2_reason(stderr)),
        _ => ClaudeAnswer::failed(&Failure::exited(exit, stderr)),
    }
}

fn decode_stdout(stdout: &[u8], event: &str) -> ClaudeAnswer {
    let trimmed = stdout.trim_ascii();
    if trimmed.first() == Some(&b'{') {
        if let Ok(Value::Object(answer)) = serde_json::from_slice::<Value>(trimmed) {
            return match read_json(&answer, event) {
                Ok(answer) => answer,
                Err(problem) => ClaudeAnswer::with_error(format!("invalid answer: {problem}")),
            };
        }
    }
    let mut answer = ClaudeAnswer::default();
    if matches!(
        event,
        "UserPromptSubmit" | "UserPromptExpansion" | "SessionStart"
    ) {
        let text = String::from_utf8_lossy(trimmed);
        if !text.is_empty() {
            answer.context.push(text.into_owned());
        }
    }
    answer
}

/// Events whose JSON answer Claude Code discards.
const DISCARDS_JSON: &[&str] = &["InstructionsLoaded", "SessionEnd", "StopFailure"];

/// Events that discard `continue` and `systemMessage`.
const DISCARDS_MESSAGES: &[&str] = &[
    "Notification",
    "PreCompact",
    "PostCompact",
    "ConfigChange",
    "MessageDisplay",
    "Elicitation",
    "ElicitationResult",
    "WorktreeCreate",
    "WorktreeRemove",
];

/// Events that discard `continue` only.
const DISCARDS_CONTINUE: &[&str] = &["CwdChanged", "FileChanged", "DirectoryAdded", "TaskCreated"];

/// Events where `hookSpecificOutput.additionalContext` is model context.
const TAKES_CONTEXT: &[&str] = &[
    "PreToolUse",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "Setup",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "SubagentStart",
];

/// Reads a JSON answer; `Err` names the first field that breaks the schema.
fn read_json(json: &Map<String, Value>, event: &str) -> Result<ClaudeAnswer, String> {
    let mut answer = ClaudeAnswer::default();
    if DISCARDS_JSON.contains(&event) {
        return Ok(answer);
    }
    let keeps_messages = !DISCARDS_MESSAGES.contains(&event);
    let keeps_continue = keeps_messages && !DISCARDS_CONTINUE.contains(&event);

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
    let reason_or_default = |reason: Option<&str>| {
        reason
            .filter(|r| !r.trim().is_empty())
            .unwrap_or(DEFAULT_BLOCK_REASON)
            .to_owned()
    };

    match event {
        "PreToolUse" => {
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
                    answer.block(BlockMeaning::Deny, reason_or_default(decided_reason));
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
        }
        "PermissionRequest" => {
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
                    let reason = reason_or_default(message);
                    if interrupt {
                        answer.stop = Some(reason.clone());
                    }
                    answer.block(BlockMeaning::Deny, reason);
                }
                Some(PermissionDecision {
                    deny: false,
                    updated_input,
                    ..
                }) if legacy != Some(ClaudeDecision::Block) => {
                    answer.approved = true;
                    answer.updated_input = updated_input.cloned();
                }
                _ => match legacy {
                    Some(ClaudeDecision::Block) => {
                        answer.block(BlockMeaning::NotHonored, reason_or_default(reason));
                    }
                    _ => {
                        if let Some(r) = reason.filter(|_| legacy.is_some()) {
                            answer.user_messages.push(r.to_owned());
                        }
                    }
                },
            }
        }
        _ => match legacy {
            Some(ClaudeDecision::Block) => {
                answer.block(block_meaning(event), reason_or_default(reason));
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
        if TAKES_CONTEXT.contains(&event) {
            let context = string(
                specific,
                "additionalContext",
                "hookSpecificOutput.additionalContext",
            )?;
            if let Some(context) = context {
                answer.context.push(context.to_owned());
            }
        }
        if event == "PostToolUse" {
            let output = ["updatedToolOutput", "updatedMCPToolOutput"]
                .iter()
                .find_map(|key| specific.get(*key).filter(|v| !v.is_null()));
            answer.updated_tool_output = output.cloned();
        }
    }
    Ok(answer)
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

// --- combination ------------------------------------------------------------

/// The merged answer of one group of Claude Code hooks that ran side by side.
/// See [`combine`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Combined {
    /// The strongest decision of the foreground hooks: block > defer > ask > allow.
    pub decision: ClaudeDecision,
    /// For a block: whether any of the blocks takes effect. `true` otherwise.
    pub honored: bool,
    /// For a block: the reasons of the blocks that decided (the honored ones when
    /// any is honored), joined with a newline in config order. For an ask or a
    /// defer: the asks' reasons, joined likewise. `None` for an allow.
    pub reason: Option<String>,
    /// The tool input after the rewrites: the last foreground `updatedInput` in
    /// config order.
    pub updated_input: Option<Map<String, Value>>,
    /// The tool output after the rewrites: the last foreground
    /// `updatedToolOutput` in config order.
    pub updated_tool_output: Option<Value>,
    /// The position (in the group, from 0) of the answer whose rewrite
    /// (`updated_input` or `updated_tool_output`) won.
    pub rewritten_by: Option<usize>,
    /// The positions of the answers whose rewrites were overridden by a later
    /// one, in config order.
    pub overridden_rewrites: Vec<usize>,
    /// Every answer's context, in config order (background answers included).
    pub context: Vec<String>,
    /// Every answer's user messages, in config order (background answers
    /// included).
    pub user_messages: Vec<String>,
    /// The foreground stop requests' reasons, the non-empty ones joined with a
    /// newline (`Some("")` when every reason is empty).
    pub stop: Option<String>,
    /// The foreground follow-ups joined with a newline, in config order.
    pub follow_up: Option<String>,
}

/// Merges the answers of one group of Claude Code hooks, given in config
/// order (whatever order they finished in) as `(answer, background)` pairs.
///
/// * The decision is the strongest foreground one: block > defer > ask > allow.
///   A background (`async`) hook's decision, rewrites and stop request change
///   nothing; its context and messages are kept.
/// * Contexts and user messages: all of them, in config order.
/// * Rewrites: the last in config order wins; [`Combined::overridden_rewrites`]
///   names the ones it overrode.
/// * Reasons, follow-ups and stop reasons of several hooks are joined with a
///   newline, in config order.
///
/// A failed answer (with an [`error`](ClaudeAnswer#structfield.error)) is an
/// allow with nothing to add.
///
/// ```
/// use tower_hooks::dialect::claude::{combine, decode, ClaudeDecision};
///
/// let ask = decode(Some(0), br#"{"hookSpecificOutput":{"permissionDecision":"ask"}}"#, b"", "PreToolUse");
/// let deny = decode(Some(2), b"", b"no", "PreToolUse");
/// let late = decode(Some(2), b"", b"too late", "PreToolUse");
/// let merged = combine([(&ask, false), (&deny, false), (&late, true)]);
/// assert_eq!(merged.decision, ClaudeDecision::Block);
/// assert_eq!(merged.reason.as_deref(), Some("no"));
/// ```
pub fn combine<'a, I>(answers: I) -> Combined
where
    I: IntoIterator<Item = (&'a ClaudeAnswer, bool)>,
{
    let answers: Vec<(usize, &ClaudeAnswer, bool)> = answers
        .into_iter()
        .enumerate()
        .map(|(i, (answer, background))| (i, answer, background))
        .collect();
    let foreground = || answers.iter().filter(|(_, _, background)| !background);

    let decision = foreground().fold(ClaudeDecision::Allow, |d, (_, a, _)| d.stronger(a.decision));
    let honored = decision != ClaudeDecision::Block
        || foreground().any(|(_, a, _)| a.decision == ClaudeDecision::Block && a.honored);
    let reason = match decision {
        ClaudeDecision::Allow => None,
        ClaudeDecision::Block => joined(
            foreground()
                .filter(|(_, a, _)| a.decision == ClaudeDecision::Block && a.honored == honored)
                .filter_map(|(_, a, _)| a.reason.as_deref()),
        ),
        ClaudeDecision::Ask | ClaudeDecision::Defer => joined(
            foreground()
                .filter(|(_, a, _)| {
                    matches!(a.decision, ClaudeDecision::Ask | ClaudeDecision::Defer)
                })
                .filter_map(|(_, a, _)| a.reason.as_deref()),
        ),
    };

    let rewrites: Vec<usize> = foreground()
        .filter(|(_, a, _)| a.updated_input.is_some() || a.updated_tool_output.is_some())
        .map(|(i, _, _)| *i)
        .collect();
    let rewritten_by = rewrites.last().copied();
    let overridden_rewrites = rewrites
        .split_last()
        .map(|(_, earlier)| earlier.to_vec())
        .unwrap_or_default();
    let updated_input = foreground()
        .rev()
        .find_map(|(_, a, _)| a.updated_input.as_ref())
        .cloned();
    let updated_tool_output = foreground()
        .rev()
        .find_map(|(_, a, _)| a.updated_tool_output.as_ref())
        .cloned();

    let stops: Vec<&str> = foreground()
        .filter_map(|(_, a, _)| a.stop.as_deref())
        .collect();
    let stop = (!stops.is_empty())
        .then(|| joined(stops.iter().copied().filter(|s| !s.is_empty())).unwrap_or_default());

    Combined {
        decision,
        honored,
        reason,
        updated_input,
        updated_tool_output,
        rewritten_by,
        overridden_rewrites,
        context: answers
            .iter()
            .flat_map(|(_, a, _)| a.context.iter().cloned())
            .collect(),
        user_messages: answers
            .iter()
            .flat_map(|(_, a, _)| a.user_messages.iter().cloned())
            .collect(),
        stop,
        follow_up: joined(foreground().filter_map(|(_, a, _)| a.follow_up.as_deref())),
    }
}

/// The texts joined with a newline, or `None` when there are none.
fn joined<'s>(texts: impl Iterator<Item = &'s str>) -> Option<String> {
    let mut out: Option<String> = None;
    for text in texts {
        match &mut out {
            None => out = Some(text.to_owned()),
            Some(all) => {
                all.push('\n');
                all.push_str(text);
            }
        }
    }
    out
}

/// Whether a Stop or SubagentStop block still sends the agent back to work,
/// after `sent` follow-ups in a row in this session. After `cap` of them the
/// stop is allowed anyway; a cap of 0 never stops the loop (Claude Code's
/// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0`). The default cap is
/// [`DEFAULT_FOLLOW_UP_CAP`].
///
/// The envelope's `stop_hook_active` is `sent > 0`.
///
/// ```
/// use tower_hooks::dialect::claude::{follow_up_allowed, DEFAULT_FOLLOW_UP_CAP};
///
/// assert!(follow_up_allowed(7, DEFAULT_FOLLOW_UP_CAP));
/// assert!(!follow_up_allowed(8, DEFAULT_FOLLOW_UP_CAP));
/// assert!(follow_up_allowed(1000, 0));
/// ```
pub const fn follow_up_allowed(sent: u32, cap: u32) -> bool {
    cap == 0 || sent < cap
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{CompactionReason, ShutdownReason, StartReason};
    use serde_json::json;

    // --- the envelope -------------------------------------------------------

    #[test]
    fn only_an_explicit_allow_approves() {
        let ok = |json: Value, event: &str| {
            decode(Some(0), json.to_string().as_bytes(), b"", event).approved
        };
        let pre = |d: &str| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": d}});
        assert!(ok(pre("allow"), "PreToolUse"));
        assert!(!ok(pre("ask"), "PreToolUse"));
        assert!(!ok(pre("deny"), "PreToolUse"));
        assert!(!ok(json!({}), "PreToolUse"));
        assert!(!ok(json!({"decision": "approve"}), "PreToolUse"));
        let permission = |b: &str| json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": b}}});
        assert!(ok(permission("allow"), "PermissionRequest"));
        assert!(!ok(permission("deny"), "PermissionRequest"));
        assert!(!decode(Some(0), b"", b"", "PermissionRequest").approved);
    }

    fn envelope_of(req: &HookRequest, envelope: &Envelope<'_>) -> Value {
        let raw = stdin_bytes(req, envelope);
        assert_eq!(raw.last(), Some(&b'\n'));
        assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
        serde_json::from_slice(&raw).unwrap()
    }

    fn stdin_of(req: &HookRequest) -> Value {
        envelope_of(req, &Envelope::new("/w"))
    }

    fn keys_in_order(req: &HookRequest, envelope: &Envelope<'_>) -> Vec<String> {
        // Read the keys in the order they were written (serde_json's Map may sort).
        let raw = String::from_utf8(stdin_bytes(req, envelope)).unwrap();
        let value: Value = serde_json::from_str(&raw).unwrap();
        let mut keys: Vec<(usize, String)> = value
            .as_object()
            .unwrap()
            .keys()
            .map(|k| (raw.find(&format!("\"{k}\":")).unwrap(), k.clone()))
            .collect();
        keys.sort();
        keys.into_iter().map(|(_, k)| k).collect()
    }

    #[test]
    fn pre_tool_use_envelope_has_the_common_fields_first_then_the_tool() {
        let req = HookRequest::tool_execution_start("Bash", json!({"command": "ls"}))
            .with_tool_call_id("toolu_1")
            .with_session_id("s1");
        let envelope = Envelope::new("/w")
            .with_transcript_path("/t.jsonl")
            .with_permission_mode("plan");
        assert_eq!(
            envelope_of(&req, &envelope),
            json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/w",
                   "permission_mode": "plan", "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"})
        );
        assert_eq!(
            keys_in_order(&req, &envelope),
            [
                "session_id",
                "transcript_path",
                "cwd",
                "permission_mode",
                "hook_event_name",
                "tool_name",
                "tool_input",
                "tool_use_id"
            ]
        );
    }

    #[test]
    fn envelope_defaults_and_never_carries_nanopi_fields() {
        // The conformance suite's mixed case: Claude's envelope, not nanopi's.
        let v = stdin_of(&HookRequest::tool_execution_start(
            "Bash",
            json!({"command": "ls"}),
        ));
        let obj = v.as_object().unwrap();
        assert_eq!(obj["session_id"], "");
        assert_eq!(obj["transcript_path"], "");
        assert_eq!(obj["permission_mode"], "default");
        assert!(!obj.contains_key("event"));
        assert!(!obj.contains_key("arguments"));
        assert!(!obj.contains_key("tool_use_id"));
    }

    #[test]
    fn newlines_in_values_stay_escaped_on_one_line() {
        let req = HookRequest::input("two\nlines\u{2028}");
        let raw = stdin_bytes(&req, &Envelope::new("/w"));
        assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    fn ended(is_error: bool) -> HookRequest {
        HookRequest::tool_execution_end(
            "Read",
            json!({"file_path": "a.txt"}),
            if is_error { "ENOENT: a.txt" } else { "hello" },
            is_error,
            Duration::from_millis(12),
        )
        .with_tool_call_id("toolu_2")
    }

    #[test]
    fn a_tool_that_succeeded_fires_post_tool_use_with_its_response() {
        let req = ended(false);
        assert_eq!(event_name(&req), Some("PostToolUse"));
        let v = stdin_of(&req);
        assert_eq!(v["hook_event_name"], "PostToolUse");
        assert_eq!(v["tool_name"], "Read");
        assert_eq!(v["tool_input"], json!({"file_path": "a.txt"}));
        assert_eq!(v["tool_use_id"], "toolu_2");
        assert_eq!(v["tool_response"], json!({"content": "hello"}));
        assert_eq!(v["duration_ms"], 12);
        assert!(v.get("error").is_none());
    }

    #[test]
    fn structured_content_is_the_tool_response_when_there_is_one() {
        let mut req = ended(false);
        req.set_response_field("structured_content", json!({"rows": 3}));
        assert_eq!(stdin_of(&req)["tool_response"], json!({"rows": 3}));
    }

    #[test]
    fn a_tool_that_failed_fires_post_tool_use_failure_with_the_error() {
        let req = ended(true);
        assert_eq!(event_name(&req), Some("PostToolUseFailure"));
        let v = stdin_of(&req);
        assert_eq!(v["hook_event_name"], "PostToolUseFailure");
        assert_eq!(v["error"], "ENOENT: a.txt");
        assert_eq!(v["tool_use_id"], "toolu_2");
        assert!(v.get("tool_response").is_none());
    }

    #[test]
    fn permission_request_has_the_tool_but_no_tool_use_id() {
        let req =
            HookRequest::permission_request("Bash", json!({"command": "kubectl delete pod x"}))
                .with_tool_call_id("toolu_3");
        let v = stdin_of(&req);
        assert_eq!(v["hook_event_name"], "PermissionRequest");
        assert_eq!(v["tool_input"]["command"], "kubectl delete pod x");
        assert!(v.get("tool_use_id").is_none());
    }

    #[test]
    fn user_prompt_submit_has_the_prompt() {
        let v = stdin_of(&HookRequest::input("fix the bug"));
        assert_eq!(v["hook_event_name"], "UserPromptSubmit");
        assert_eq!(v["prompt"], "fix the bug");
    }

    #[test]
    fn session_start_reasons_become_sources() {
        for (reason, source) in [
            (StartReason::Startup, "startup"),
            (StartReason::New, "clear"),
            (StartReason::Resume, "resume"),
            (StartReason::Fork, "fork"),
            (StartReason::Import, "resume"),
        ] {
            let v = stdin_of(&HookRequest::session_start(reason));
            assert_eq!(v["hook_event_name"], "SessionStart");
            assert_eq!(v["source"], source, "{reason:?}");
            assert!(v.get("reason").is_none());
        }
    }

    #[test]
    fn shutdown_reasons_become_session_end_reasons() {
        for (reason, claude) in [
            (ShutdownReason::Quit, "prompt_input_exit"),
            (ShutdownReason::New, "clear"),
            (ShutdownReason::Resume, "resume"),
            (ShutdownReason::Fork, "other"),
            (ShutdownReason::Import, "resume"),
        ] {
            let v = stdin_of(&HookRequest::session_shutdown(reason));
            assert_eq!(v["hook_event_name"], "SessionEnd");
            assert_eq!(v["reason"], claude, "{reason:?}");
        }
    }

    #[test]
    fn compaction_reasons_become_triggers() {
        let v = stdin_of(&HookRequest::session_before_compact(
            CompactionReason::Threshold,
        ));
        assert_eq!(v["hook_event_name"], "PreCompact");
        assert_eq!(v["trigger"], "auto");
        assert_eq!(v["custom_instructions"], "");
        assert!(v.get("reason").is_none());
        let v = stdin_of(&HookRequest::session_compact(CompactionReason::Manual));
        assert_eq!(v["hook_event_name"], "PostCompact");
        assert_eq!(v["trigger"], "manual");
        assert!(v.get("custom_instructions").is_none());
        let req = HookRequest::new(
            Event::SessionBeforeCompact,
            json!({"reason": "manual", "custom_instructions": "keep the plan"}),
        );
        assert_eq!(stdin_of(&req)["custom_instructions"], "keep the plan");
    }

    #[test]
    fn an_unknown_reason_passes_through() {
        let req = HookRequest::new(Event::SessionStart, json!({"reason": "compact"}));
        assert_eq!(stdin_of(&req)["source"], "compact");
    }

    #[test]
    fn stop_and_subagent_fields_are_written_as_given() {
        let v = stdin_of(&HookRequest::stop(true, "done"));
        assert_eq!(v["hook_event_name"], "Stop");
        assert_eq!(v["stop_hook_active"], true);
        assert_eq!(v["last_assistant_message"], "done");
        let v = stdin_of(&HookRequest::new(Event::Stop, json!({})));
        assert_eq!(v["stop_hook_active"], false);
        let v = stdin_of(&HookRequest::subagent_stop(
            "a1", "Explore", false, "found it",
        ));
        assert_eq!(v["hook_event_name"], "SubagentStop");
        assert_eq!(v["agent_id"], "a1");
        assert_eq!(v["agent_type"], "Explore");
        assert_eq!(v["stop_hook_active"], false);
        let v = stdin_of(&HookRequest::subagent_start("a1", "Plan"));
        assert_eq!(v["hook_event_name"], "SubagentStart");
        assert_eq!(v["agent_type"], "Plan");
        let v = stdin_of(&HookRequest::notification(
            "needs you",
            Some("t"),
            "idle_prompt",
        ));
        assert_eq!(v["hook_event_name"], "Notification");
        assert_eq!(v["message"], "needs you");
        assert_eq!(v["title"], "t");
        assert_eq!(v["notification_type"], "idle_prompt");
        let v = stdin_of(&HookRequest::stop_failure("rate_limit", "429"));
        assert_eq!(v["hook_event_name"], "StopFailure");
        assert_eq!(v["error"], "rate_limit");
        let v = stdin_of(&HookRequest::instructions_loaded(
            "/p/CLAUDE.md",
            "Project",
            "session_start",
        ));
        assert_eq!(v["hook_event_name"], "InstructionsLoaded");
        assert_eq!(v["load_reason"], "session_start");
        let v = stdin_of(&HookRequest::post_tool_batch(
            json!([{"tool_name": "Read"}]),
        ));
        assert_eq!(v["hook_event_name"], "PostToolBatch");
        assert_eq!(v["tool_calls"][0]["tool_name"], "Read");
    }

    #[test]
    fn the_subagent_of_the_call_is_written_unless_the_event_has_its_own() {
        let req = HookRequest::tool_execution_start("Bash", json!({}));
        let v = envelope_of(&req, &Envelope::new("/w").with_agent("a9", "Explore"));
        assert_eq!(v["agent_id"], "a9");
        assert_eq!(v["agent_type"], "Explore");
        let req = HookRequest::subagent_start("a1", "Plan");
        let v = envelope_of(&req, &Envelope::new("/w").with_agent("a9", "Explore"));
        assert_eq!(v["agent_id"], "a1");
        assert_eq!(v["agent_type"], "Plan");
    }

    #[test]
    fn given_fields_replace_the_engines_in_place_and_extend_it() {
        let req = HookRequest::tool_execution_end(
            "Bash",
            json!({"command": "ls"}),
            "x",
            false,
            Duration::ZERO,
        );
        let fields = json!({"tool_response": {"stdout": "x", "stderr": ""}, "transcript_path": "/real",
                            "is_interrupt": false});
        let fields = fields.as_object().unwrap();
        let envelope = Envelope::new("/w").with_fields(fields);
        let v = envelope_of(&req, &envelope);
        assert_eq!(v["tool_response"], json!({"stdout": "x", "stderr": ""}));
        assert_eq!(v["transcript_path"], "/real");
        assert_eq!(v["is_interrupt"], false);
        let keys = keys_in_order(&req, &envelope);
        assert_eq!(keys[1], "transcript_path");
        assert_eq!(keys.last().map(String::as_str), Some("is_interrupt"));
        assert_eq!(keys.len(), v.as_object().unwrap().len());
    }

    #[test]
    fn an_event_fired_by_name_carries_its_raw_fields() {
        let fields = json!({"task_id": "t1", "task_subject": "ship it"});
        let fields = fields.as_object().unwrap();
        let req = HookRequest::new(Event::Notification, json!({})).with_session_id("s");
        let envelope = Envelope::new("/w")
            .with_event_name("TaskCreated")
            .with_fields(fields);
        assert_eq!(
            envelope_of(&req, &envelope),
            json!({"session_id": "s", "transcript_path": "", "cwd": "/w", "permission_mode": "default",
                   "hook_event_name": "TaskCreated", "task_id": "t1", "task_subject": "ship it"})
        );
    }

    #[test]
    fn a_point_without_a_claude_event_has_no_name() {
        for req in [
            HookRequest::turn_start(1, 0),
            HookRequest::turn_end(1, 0, false),
            HookRequest::before_agent_start(1, "hi"),
            HookRequest::message_end(1, 3),
            HookRequest::agent_thought("hmm"),
        ] {
            assert_eq!(event_name(&req), None, "{req:?}");
        }
        for event in Event::ALL {
            let req = HookRequest::new(event, json!({}));
            assert_eq!(event_name(&req), event.claude_names().first().copied());
        }
    }

    #[test]
    fn env_has_the_project_and_the_plugin_root() {
        let vars: Vec<_> = env_vars("/p", Some("/plug")).collect();
        assert_eq!(
            vars,
            [
                ("CLAUDE_PROJECT_DIR", "/p"),
                ("CLAUDE_PLUGIN_ROOT", "/plug")
            ]
        );
        let vars: Vec<_> = env_vars("/p", None).collect();
        assert_eq!(vars, [("CLAUDE_PROJECT_DIR", "/p")]);
    }

    // --- the answer ---------------------------------------------------------

    fn json_answer(answer: Value, event: &str) -> ClaudeAnswer {
        decode(Some(0), answer.to_string().as_bytes(), b"", event)
    }

    fn pre(fields: Value) -> Value {
        let mut specific = json!({"hookEventName": "PreToolUse"});
        specific
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        json!({ "hookSpecificOutput": specific })
    }

    fn block(reason: &str, honored: bool) -> ClaudeAnswer {
        ClaudeAnswer {
            decision: ClaudeDecision::Block,
            honored,
            reason: Some(reason.into()),
            ..ClaudeAnswer::default()
        }
    }

    #[test]
    fn pretty_printed_and_compact_json_decode_alike() {
        let answer = json!({"systemMessage": "heads up",
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "pretty no", "additionalContext": "ctx"}});
        let compact = serde_json::to_vec(&answer).unwrap();
        let mut pretty = b"\n  ".to_vec();
        pretty.extend(serde_json::to_vec_pretty(&answer).unwrap());
        pretty.extend(b"\n\n");
        let a = decode(Some(0), &compact, b"", "PreToolUse");
        assert_eq!(a, decode(Some(0), &pretty, b"", "PreToolUse"));
        assert_eq!(a.decision, ClaudeDecision::Block);
        assert_eq!(a.reason.as_deref(), Some("pretty no"));
        assert_eq!(a.context, ["ctx"]);
        assert_eq!(a.user_messages, ["heads up"]);
    }

    #[test]
    fn invalid_json_on_exit_0_is_plain_text() {
        let out = br#"{"hookSpecificOutput": {"permissionDecision": "deny"}"#;
        assert_eq!(
            decode(Some(0), out, b"", "PreToolUse"),
            ClaudeAnswer::default()
        );
        let a = decode(Some(0), out, b"", "UserPromptSubmit");
        assert_eq!(a.context, [String::from_utf8_lossy(out)]);
        assert_eq!(a.decision, ClaudeDecision::Allow);
        // Two objects are not one answer; an array or a string is no object.
        for out in [
            &br#"{"decision":"block"}{"decision":"block"}"#[..],
            b"[1]",
            b"\"x\"",
        ] {
            assert_eq!(
                decode(Some(0), out, b"", "PreToolUse"),
                ClaudeAnswer::default()
            );
        }
    }

    #[test]
    fn plain_stdout_is_context_on_prompt_and_session_start_only() {
        for event in ["UserPromptSubmit", "SessionStart", "UserPromptExpansion"] {
            let a = decode(Some(0), b"current branch: main\n", b"", event);
            assert_eq!(a.context, ["current branch: main"], "{event}");
        }
        for event in ["PreToolUse", "PostToolUse", "Stop", "Notification"] {
            let a = decode(Some(0), b"current branch: main\n", b"", event);
            assert_eq!(a, ClaudeAnswer::default(), "{event}");
        }
        assert_eq!(
            decode(Some(0), b"  \n", b"", "UserPromptSubmit"),
            ClaudeAnswer::default()
        );
    }

    #[test]
    fn exit_2_blocks_with_stderr_whatever_stdout_says() {
        let allow = pre(json!({"permissionDecision": "allow"})).to_string();
        let a = decode(
            Some(2),
            allow.as_bytes(),
            b"rm is not allowed here\n",
            "PreToolUse",
        );
        assert_eq!(a, block("rm is not allowed here", true));
        assert_eq!(
            decode(Some(2), b"this is stdout\n", b"", "PreToolUse"),
            block("blocked by hook", true)
        );
        assert_eq!(
            decode(Some(2), b"", b" \n", "PreToolUse"),
            block("blocked by hook", true)
        );
        assert_eq!(
            decode(Some(2), b"", b"a\nb\r\n", "PreToolUse")
                .reason
                .as_deref(),
            Some("a\nb")
        );
    }

    #[test]
    fn any_other_exit_is_a_non_blocking_error() {
        let a = decode(Some(1), b"", b"lint crashed\nat line 3\n", "PreToolUse");
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert_eq!(
            a.error.as_deref(),
            Some("exited with status 1: lint crashed")
        );
        assert!(a.is_error());
        assert_eq!(
            decode(Some(127), b"", b"", "PreToolUse").error.as_deref(),
            Some("exited with status 127")
        );
        assert_eq!(
            decode(None, b"", b"\n  boom \n", "Stop").error.as_deref(),
            Some("killed by a signal: boom")
        );
        // JSON on stdout is not read on such an exit.
        let deny = pre(json!({"permissionDecision": "deny"})).to_string();
        let a = decode(Some(1), deny.as_bytes(), b"", "PreToolUse");
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert!(a.is_error());
    }

    #[test]
    fn a_long_stderr_line_is_shortened_in_the_error() {
        let long = "x".repeat(500);
        let error = decode(Some(1), b"", long.as_bytes(), "PreToolUse")
            .error
            .unwrap();
        assert_eq!(
            error.chars().count(),
            "exited with status 1: ".len() + 200 + 1
        );
        assert!(error.ends_with('…'));
    }

    #[test]
    fn every_failure_has_one_shape() {
        assert_eq!(
            ClaudeAnswer::timed_out(Duration::from_secs(2))
                .error
                .as_deref(),
            Some("timed out after 2 s")
        );
        assert_eq!(
            ClaudeAnswer::timed_out(Duration::from_millis(1500))
                .error
                .as_deref(),
            Some("timed out after 1500 ms")
        );
        assert_eq!(
            ClaudeAnswer::could_not_start("No such file or directory")
                .error
                .as_deref(),
            Some("could not start: No such file or directory")
        );
        let a = ClaudeAnswer::timed_out(Duration::from_secs(1));
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert!(a.honored && a.context.is_empty() && a.reason.is_none());
    }

    #[test]
    fn continue_false_sets_stop_and_leaves_the_decision() {
        let a = json_answer(
            json!({"continue": false, "stopReason": "budget exhausted"}),
            "PreToolUse",
        );
        assert_eq!(a.stop.as_deref(), Some("budget exhausted"));
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert_eq!(a.reason, None);
        let a = json_answer(json!({"continue": false}), "Stop");
        assert_eq!(a.stop.as_deref(), Some(""));
        let a = json_answer(
            json!({"continue": false, "decision": "block", "reason": "more"}),
            "Stop",
        );
        assert_eq!(a.stop.as_deref(), Some(""));
        assert_eq!(a.decision, ClaudeDecision::Block);
        assert_eq!(json_answer(json!({"continue": true}), "Stop").stop, None);
    }

    #[test]
    fn system_message_is_a_user_message_not_context() {
        let a = json_answer(json!({"systemMessage": "heads up: prod"}), "PreToolUse");
        assert_eq!(a.user_messages, ["heads up: prod"]);
        assert!(a.context.is_empty());
        assert_eq!(a.decision, ClaudeDecision::Allow);
    }

    #[test]
    fn permission_decisions_on_pre_tool_use() {
        let a = json_answer(
            pre(json!({"permissionDecision": "deny", "permissionDecisionReason": "use trash"})),
            "PreToolUse",
        );
        assert_eq!(a, block("use trash", true));
        let a = json_answer(pre(json!({"permissionDecision": "deny"})), "PreToolUse");
        assert_eq!(a.reason.as_deref(), Some("blocked by hook"));

        let a = json_answer(
            pre(json!({"permissionDecision": "allow", "permissionDecisionReason": "read-only"})),
            "PreToolUse",
        );
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert_eq!(a.reason, None);
        assert_eq!(a.user_messages, ["read-only"]);

        let a = json_answer(
            pre(json!({"permissionDecision": "ask", "permissionDecisionReason": "pushes"})),
            "PreToolUse",
        );
        assert_eq!(a.decision, ClaudeDecision::Ask);
        assert_eq!(a.reason.as_deref(), Some("pushes"));
        assert_eq!(a.user_messages, ["pushes"]);

        let a = json_answer(
            pre(json!({"permissionDecision": "defer", "permissionDecisionReason": "ignored"})),
            "PreToolUse",
        );
        assert_eq!(a.decision, ClaudeDecision::Defer);
        assert_eq!(a.reason, None);
        assert!(a.user_messages.is_empty());
    }

    #[test]
    fn updated_input_replaces_the_input_unless_denied_or_deferred() {
        let new = json!({"command": "rm -rf ./build"});
        for decision in [Some("allow"), Some("ask"), None] {
            let mut fields = json!({"updatedInput": new});
            if let Some(d) = decision {
                fields["permissionDecision"] = json!(d);
            }
            let a = json_answer(pre(fields), "PreToolUse");
            assert_eq!(
                a.updated_input.map(Value::Object),
                Some(new.clone()),
                "{decision:?}"
            );
        }
        for decision in ["deny", "defer"] {
            let a = json_answer(
                pre(json!({"permissionDecision": decision, "updatedInput": new})),
                "PreToolUse",
            );
            assert_eq!(a.updated_input, None, "{decision}");
        }
    }

    #[test]
    fn additional_context_goes_to_the_model_where_the_event_takes_it() {
        for event in [
            "PreToolUse",
            "UserPromptSubmit",
            "SessionStart",
            "PostToolUse",
            "PostToolUseFailure",
            "SubagentStart",
        ] {
            let a = json_answer(
                json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": "ticket ABC-1"}}),
                event,
            );
            assert_eq!(a.context, ["ticket ABC-1"], "{event}");
        }
        for event in ["Stop", "Notification", "SessionEnd", "PermissionRequest"] {
            let a = json_answer(
                json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": "x"}}),
                event,
            );
            assert!(a.context.is_empty(), "{event}");
        }
        // At top level it is nothing.
        let a = json_answer(json!({"additionalContext": "x"}), "UserPromptSubmit");
        assert!(a.context.is_empty());
    }

    #[test]
    fn legacy_decisions_on_pre_tool_use() {
        let a = json_answer(
            json!({"decision": "approve", "reason": "fine"}),
            "PreToolUse",
        );
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert_eq!(a.user_messages, ["fine"]);
        let a = json_answer(
            json!({"decision": "block", "reason": "old no"}),
            "PreToolUse",
        );
        assert_eq!(a, block("old no", true));
        // With a permissionDecision too, the stronger one decides, with its reason.
        let mut both =
            pre(json!({"permissionDecision": "allow", "permissionDecisionReason": "ok"}));
        both["decision"] = json!("block");
        both["reason"] = json!("top no");
        assert_eq!(json_answer(both, "PreToolUse"), block("top no", true));
        let mut both =
            pre(json!({"permissionDecision": "ask", "permissionDecisionReason": "sure?"}));
        both["decision"] = json!("approve");
        let a = json_answer(both, "PreToolUse");
        assert_eq!(a.decision, ClaudeDecision::Ask);
        assert_eq!(a.reason.as_deref(), Some("sure?"));
    }

    #[test]
    fn what_a_block_means_depends_on_the_event() {
        let json_block =
            |event: &str| json_answer(json!({"decision": "block", "reason": "because"}), event);
        let exit_2 = |event: &str| decode(Some(2), b"", b"because", event);
        for answer_of in [&json_block as &dyn Fn(&str) -> ClaudeAnswer, &exit_2] {
            let a = answer_of("UserPromptSubmit");
            assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
            assert_eq!(a.user_messages, ["because"]);
            assert!(a.context.is_empty() && a.follow_up.is_none());

            for event in ["Stop", "SubagentStop"] {
                let a = answer_of(event);
                assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
                assert_eq!(a.follow_up.as_deref(), Some("because"));
                assert_eq!(a.reason.as_deref(), Some("because"));
            }

            for event in ["PostToolUse", "PostToolUseFailure"] {
                let a = answer_of(event);
                assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, false));
                assert_eq!(a.context, ["because"]);
            }

            let a = answer_of("PreCompact");
            assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
            assert!(a.context.is_empty() && a.user_messages.is_empty());

            for event in [
                "SessionStart",
                "SessionEnd",
                "Notification",
                "SubagentStart",
                "StopFailure",
            ] {
                let a = answer_of(event);
                if a.decision == ClaudeDecision::Block {
                    assert!(!a.honored, "{event}");
                }
            }
            let a = answer_of("SessionStart");
            assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, false));
        }
    }

    #[test]
    fn a_stop_block_without_reason_follows_up_with_the_default() {
        let a = json_answer(json!({"decision": "block"}), "Stop");
        assert_eq!(a.follow_up.as_deref(), Some("blocked by hook"));
    }

    #[test]
    fn permission_request_denies_only_by_its_decision_object() {
        let answer = |decision: Value| {
            json_answer(
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}),
                "PermissionRequest",
            )
        };
        let a = answer(json!({"behavior": "deny", "message": "not on prod"}));
        assert_eq!(a, block("not on prod", true));
        let a = answer(json!({"behavior": "deny"}));
        assert_eq!(a.reason.as_deref(), Some("blocked by hook"));
        let a = answer(json!({"behavior": "deny", "message": "stop it", "interrupt": true}));
        assert_eq!(a.stop.as_deref(), Some("stop it"));
        assert_eq!(a.decision, ClaudeDecision::Block);
        let a = answer(json!({"behavior": "allow", "updatedInput": {"command": "ls"}}));
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert_eq!(
            a.updated_input.map(Value::Object),
            Some(json!({"command": "ls"}))
        );

        // Exit 2 and a top-level block are recorded, not honored.
        assert_eq!(
            decode(Some(2), b"", b"no", "PermissionRequest"),
            block("no", false)
        );
        let a = json_answer(
            json!({"decision": "block", "reason": "no"}),
            "PermissionRequest",
        );
        assert_eq!(a, block("no", false));
        // A permissionDecision is not PermissionRequest's field.
        let a = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "permissionDecision": "deny"}}),
            "PermissionRequest",
        );
        assert_eq!(a, ClaudeAnswer::default());
        // A decision object needs a behavior.
        assert!(answer(json!({"message": "x"})).is_error());
        assert!(answer(json!({"behavior": "ask"})).is_error());
    }

    #[test]
    fn updated_tool_output_rewrites_post_tool_use_only() {
        let a = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"content": "[redacted]"}}}),
            "PostToolUse",
        );
        assert_eq!(
            a.updated_tool_output,
            Some(json!({"content": "[redacted]"}))
        );
        let a = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "x"}}),
            "PostToolUse",
        );
        assert_eq!(a.updated_tool_output, Some(json!("x")));
        let a = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "updatedToolOutput": "x"}}),
            "PostToolUseFailure",
        );
        assert_eq!(a.updated_tool_output, None);
    }

    #[test]
    fn an_answer_that_breaks_the_schema_is_an_error() {
        for (answer, event) in [
            (json!({"continue": "no"}), "PreToolUse"),
            (json!({"systemMessage": 5}), "PreToolUse"),
            (json!({"decision": "deny"}), "Stop"),
            (json!({"reason": ["a"]}), "Stop"),
            (json!({"hookSpecificOutput": "deny"}), "PreToolUse"),
            (pre(json!({"permissionDecision": "Deny"})), "PreToolUse"),
            (pre(json!({"updatedInput": "ls"})), "PreToolUse"),
            (pre(json!({"additionalContext": 1})), "PreToolUse"),
            (pre(json!({"permissionDecision": "deny"})), "PostToolUse"),
        ] {
            let a = json_answer(answer.clone(), event);
            assert!(a.is_error(), "{answer} at {event}: {a:?}");
            assert!(a.error.as_deref().unwrap().starts_with("invalid answer: "));
            assert_eq!(a.decision, ClaudeDecision::Allow);
            assert!(a.user_messages.is_empty() && a.context.is_empty());
        }
        let a = json_answer(pre(json!({"permissionDecision": "deny"})), "PostToolUse");
        assert_eq!(
            a.error.as_deref(),
            Some("invalid answer: hookSpecificOutput.hookEventName is \"PreToolUse\", but the event is \"PostToolUse\"")
        );
        // null is absent; a missing hookEventName is accepted.
        let a = json_answer(
            json!({"reason": null, "systemMessage": null,
                   "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "r"}}),
            "PreToolUse",
        );
        assert_eq!(a, block("r", true));
        // Unknown fields are someone else's business.
        assert_eq!(
            json_answer(json!({"suppressOutput": true, "x": [1]}), "PreToolUse"),
            ClaudeAnswer::default()
        );
    }

    #[test]
    fn some_events_discard_parts_of_the_answer() {
        let everything =
            json!({"continue": false, "systemMessage": "m", "decision": "block", "reason": "r"});
        for event in ["SessionEnd", "InstructionsLoaded", "StopFailure"] {
            assert_eq!(
                json_answer(everything.clone(), event),
                ClaudeAnswer::default(),
                "{event}"
            );
        }
        let a = json_answer(everything.clone(), "Notification");
        assert!(a.user_messages.is_empty() && a.stop.is_none());
        let a = json_answer(everything.clone(), "PreCompact");
        assert!(a.user_messages.is_empty() && a.stop.is_none());
        assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
        let a = json_answer(everything, "TaskCreated");
        assert_eq!(a.user_messages, ["m"]);
        assert_eq!(a.stop, None);
    }

    #[test]
    fn bytes_that_are_not_utf8_never_panic() {
        for out in [
            &b"\xff\xfe{"[..],
            b"{\"systemMessage\":\"\xff\"}",
            b"\xc3",
            b"{\xff}",
        ] {
            for exit in [Some(0), Some(1), Some(2), None] {
                for event in ["PreToolUse", "UserPromptSubmit", "Weird"] {
                    let _ = decode(exit, out, out, event);
                }
            }
        }
        let a = decode(Some(0), b"\xff ok", b"", "SessionStart");
        assert_eq!(a.context, ["\u{fffd} ok"]);
        let deep = format!("{}{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
        assert_eq!(
            decode(Some(0), deep.as_bytes(), b"", "PreToolUse"),
            ClaudeAnswer::default()
        );
    }

    #[test]
    fn tool_output_rewrites_become_neutral_transforms() {
        assert_eq!(
            Value::Object(tool_output_transform(&json!({"content": "x"}))),
            json!({"content": "x"})
        );
        assert_eq!(
            Value::Object(tool_output_transform(&json!("x"))),
            json!({"content": "x"})
        );
        assert_eq!(
            Value::Object(tool_output_transform(&json!({"content": "x", "rows": 1}))),
            json!({"structured_content": {"content": "x", "rows": 1}})
        );
        assert_eq!(
            Value::Object(tool_output_transform(&json!([1]))),
            json!({"structured_content": [1]})
        );
    }

    // --- combination ------------------------------------------------------

    fn with(decision: ClaudeDecision, reason: Option<&str>) -> ClaudeAnswer {
        ClaudeAnswer {
            decision,
            reason: reason.map(str::to_owned),
            ..ClaudeAnswer::default()
        }
    }

    fn fg(answers: &[ClaudeAnswer]) -> Combined {
        combine(answers.iter().map(|a| (a, false)))
    }

    #[test]
    fn deny_beats_defer_beats_ask_beats_allow() {
        use ClaudeDecision::*;
        let order = [Allow, Ask, Defer, Block];
        for (i, &weaker) in order.iter().enumerate() {
            for &stronger in &order[i..] {
                for pair in [[weaker, stronger], [stronger, weaker]] {
                    let answers: Vec<_> = pair.iter().map(|&d| with(d, None)).collect();
                    assert_eq!(fg(&answers).decision, stronger, "{pair:?}");
                }
            }
        }
        assert_eq!(fg(&[]).decision, Allow);
        assert!(fg(&[]).honored);
    }

    #[test]
    fn the_reasons_of_several_blocks_are_joined_in_config_order() {
        let merged = fg(&[
            with(ClaudeDecision::Allow, None),
            block("first says no", true),
            with(ClaudeDecision::Ask, Some("sure?")),
            block("second says no", true),
        ]);
        assert_eq!(merged.decision, ClaudeDecision::Block);
        assert!(merged.honored);
        assert_eq!(
            merged.reason.as_deref(),
            Some("first says no\nsecond says no")
        );
        let asks = fg(&[
            with(ClaudeDecision::Ask, Some("a")),
            with(ClaudeDecision::Defer, None),
            with(ClaudeDecision::Ask, Some("b")),
        ]);
        assert_eq!(asks.decision, ClaudeDecision::Defer);
        assert_eq!(asks.reason.as_deref(), Some("a\nb"));
        assert_eq!(fg(&[with(ClaudeDecision::Allow, None)]).reason, None);
    }

    #[test]
    fn an_honored_block_decides_over_ones_that_are_not() {
        let merged = fg(&[block("exit 2", false), block("behavior deny", true)]);
        assert!(merged.honored);
        assert_eq!(merged.reason.as_deref(), Some("behavior deny"));
        let merged = fg(&[block("a", false), block("b", false)]);
        assert!(!merged.honored);
        assert_eq!(merged.reason.as_deref(), Some("a\nb"));
    }

    #[test]
    fn follow_ups_of_several_stop_hooks_are_joined() {
        let a = decode(Some(2), b"", b"run the tests", "Stop");
        let b = json_answer(json!({"decision": "block", "reason": "and lint"}), "Stop");
        let merged = fg(&[a, ClaudeAnswer::default(), b]);
        assert_eq!(merged.follow_up.as_deref(), Some("run the tests\nand lint"));
        assert_eq!(merged.reason, merged.follow_up);
    }

    #[test]
    fn context_and_messages_are_kept_in_config_order() {
        let one = json_answer(
            json!({"systemMessage": "m1", "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "first"}}),
            "PreToolUse",
        );
        let two = json_answer(
            json!({"systemMessage": "m2", "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "second"}}),
            "PreToolUse",
        );
        let three = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "third"}}),
            "PreToolUse",
        );
        let merged = combine([(&one, false), (&two, true), (&three, false)]);
        assert_eq!(merged.context, ["first", "second", "third"]);
        assert_eq!(merged.user_messages, ["m1", "m2"]);
    }

    #[test]
    fn the_last_rewrite_in_config_order_wins_and_says_whom_it_overrode() {
        let rewrite = |command: &str| {
            json_answer(
                pre(json!({"permissionDecision": "allow", "updatedInput": {"command": command}})),
                "PreToolUse",
            )
        };
        let answers = [
            rewrite("ls -a"),
            ClaudeAnswer::default(),
            rewrite("ls -l"),
            rewrite("ls -al"),
        ];
        let merged = fg(&answers);
        assert_eq!(
            merged.updated_input.map(Value::Object),
            Some(json!({"command": "ls -al"}))
        );
        assert_eq!(merged.rewritten_by, Some(3));
        assert_eq!(merged.overridden_rewrites, [0, 2]);
        // A background hook's rewrite changes nothing.
        let merged = combine([(&answers[0], false), (&answers[3], true)]);
        assert_eq!(
            merged.updated_input.map(Value::Object),
            Some(json!({"command": "ls -a"}))
        );
        assert_eq!(merged.rewritten_by, Some(0));
        assert!(merged.overridden_rewrites.is_empty());
        let one = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "a"}}),
            "PostToolUse",
        );
        let two = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "b"}}),
            "PostToolUse",
        );
        let merged = fg(&[one, two]);
        assert_eq!(merged.updated_tool_output, Some(json!("b")));
        assert_eq!(merged.overridden_rewrites, [0]);
    }

    #[test]
    fn background_decisions_and_stops_change_nothing() {
        let deny = block("late no", true);
        let stop = json_answer(
            json!({"continue": false, "stopReason": "halt"}),
            "PreToolUse",
        );
        let merged = combine([(&deny, true), (&stop, true)]);
        assert_eq!(merged.decision, ClaudeDecision::Allow);
        assert!(merged.honored);
        assert_eq!(merged.reason, None);
        assert_eq!(merged.stop, None);
    }

    #[test]
    fn stop_reasons_are_kept() {
        let halt = |reason: Option<&str>| {
            let mut answer = json!({"continue": false});
            if let Some(r) = reason {
                answer["stopReason"] = json!(r);
            }
            json_answer(answer, "PreToolUse")
        };
        assert_eq!(
            fg(&[halt(Some("a")), halt(None), halt(Some("b"))])
                .stop
                .as_deref(),
            Some("a\nb")
        );
        assert_eq!(fg(&[halt(None)]).stop.as_deref(), Some(""));
        assert_eq!(fg(&[ClaudeAnswer::default()]).stop, None);
    }

    #[test]
    fn a_failed_hook_adds_nothing_to_the_merge() {
        let merged = fg(&[
            ClaudeAnswer::timed_out(Duration::from_secs(2)),
            with(ClaudeDecision::Ask, Some("sure?")),
        ]);
        assert_eq!(merged.decision, ClaudeDecision::Ask);
        assert!(merged.context.is_empty());
    }

    #[test]
    fn the_follow_up_cap_allows_the_stop_after_eight_in_a_row() {
        assert_eq!(DEFAULT_FOLLOW_UP_CAP, 8);
        for sent in 0..8 {
            assert!(follow_up_allowed(sent, DEFAULT_FOLLOW_UP_CAP));
        }
        assert!(!follow_up_allowed(8, DEFAULT_FOLLOW_UP_CAP));
        assert!(!follow_up_allowed(u32::MAX, DEFAULT_FOLLOW_UP_CAP));
        assert!(follow_up_allowed(0, 1) && !follow_up_allowed(1, 1));
        assert!(follow_up_allowed(u32::MAX, 0));
    }

    #[test]
    fn block_meanings_of_the_events_this_host_fires() {
        use BlockMeaning::*;
        for (event, meaning) in [
            ("PreToolUse", Deny),
            ("UserPromptSubmit", DropPrompt),
            ("Stop", FollowUp),
            ("SubagentStop", FollowUp),
            ("PostToolUse", Feedback),
            ("PostToolUseFailure", Feedback),
            ("PreCompact", Prevent),
            ("PostToolBatch", Prevent),
            ("PermissionRequest", NotHonored),
            ("SessionStart", NotHonored),
            ("SessionEnd", NotHonored),
            ("PostCompact", NotHonored),
            ("Notification", NotHonored),
            ("SubagentStart", NotHonored),
            ("StopFailure", NotHonored),
            ("InstructionsLoaded", NotHonored),
            ("NoSuchEvent", NotHonored),
        ] {
            assert_eq!(block_meaning(event), meaning, "{event}");
        }
    }
}
