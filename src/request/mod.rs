//! [`HookRequest`]: one lifecycle event on its way through the stack.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::event::{Event, MatcherSubject};
use crate::outcome::{Decision, HookOutcome, Records, RunSlot};
pub use crate::process::Deadline;
use crate::profile::Dialect;

mod events;
mod reason;

pub use reason::{CompactionReason, ShutdownReason, StartReason};

/// One lifecycle event, with the fields a hook receives on stdin.
///
/// Build it with the constructor for its event (they write the payload shapes of
/// the specification, so an agent cannot send the wrong shape), then add the
/// session id, working directory and tool call id that apply. Cloning is cheap:
/// every field is shared.
///
/// ```
/// use serde_json::json;
/// use tower_hooks::{Event, HookRequest};
///
/// let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}))
///     .with_tool_call_id("call_1")
///     .with_session_id("019abc")
///     .with_cwd("/home/u/proj");
/// assert_eq!(req.event(), Event::ToolExecutionStart);
/// assert_eq!(req.arguments()["command"], "ls");
/// ```
#[derive(Clone)]
pub struct HookRequest {
    event: Event,
    tool_name: Option<Arc<str>>,
    session_id: Option<Arc<str>>,
    cwd: Option<Arc<str>>,
    arguments: Arc<Value>,
    deadline: Option<Deadline>,
    /// What the layers around one hook find on it: the hook's spec (set by
    /// the chain: [`hook`](Self::hook)), and what a host's own layers add.
    extensions: http::Extensions,
    /// Where a command leaf leaves what its process did (set by the chain).
    run: Option<RunSlot>,
    /// What a request carries less often, behind one pointer, so that the
    /// request stays small: it is moved through every layer of every call.
    extras: Option<Arc<Extras>>,
}

/// What kind of tool a call is for: the fact Cursor's hooks fire by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolKind {
    /// Runs a shell command (`beforeShellExecution`, `afterShellExecution`).
    Shell,
    /// Reads a file (`beforeReadFile`).
    Read,
    /// Edits a file (`afterFileEdit`).
    Edit,
    /// Writes a whole file (`afterFileEdit` too: Cursor's `Write` covers
    /// edit and write).
    Write,
    /// A tool of an MCP server (`beforeMCPExecution`, `afterMCPExecution`).
    Mcp,
    /// Anything else: only the generic tool hooks fire.
    Other,
}

impl ToolKind {
    /// The kind a tool name suggests, ignoring case: `bash`, `shell`,
    /// `run_command`, `run_terminal_cmd`, `run_shell_command`, `terminal`
    /// are shell tools; `read`, `file_read`, `read_file` read; `write`,
    /// `file_write`, `write_file` write; `edit`, `multiedit`, `apply_patch`,
    /// `str_replace`, `edit_file`, `search_replace`, `replace` edit; a
    /// `mcp__`, `mcp_` or `mcp:` prefix is an MCP tool; anything else is
    /// [`Other`](Self::Other). Each dialect's own names for the kinds
    /// (`Bash`, `Shell`, `run_shell_command`, `write_file`, …) are among them.
    ///
    /// ```
    /// use tower_hooks::ToolKind;
    ///
    /// assert_eq!(ToolKind::infer("Bash"), ToolKind::Shell);
    /// assert_eq!(ToolKind::infer("mcp__github__create_issue"), ToolKind::Mcp);
    /// assert_eq!(ToolKind::infer("MultiEdit"), ToolKind::Edit);
    /// assert_eq!(ToolKind::infer("write_file"), ToolKind::Write);
    /// assert_eq!(ToolKind::infer("WebFetch"), ToolKind::Other);
    /// ```
    pub fn infer(tool_name: &str) -> ToolKind {
        let is = |names: &[&str]| names.iter().any(|n| tool_name.eq_ignore_ascii_case(n));
        let lower_prefix = |prefix: &str| {
            tool_name
                .get(..prefix.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
        };
        if lower_prefix("mcp__") || lower_prefix("mcp_") || lower_prefix("mcp:") {
            ToolKind::Mcp
        } else if is(&[
            "bash",
            "shell",
            "run_command",
            "run_terminal_cmd",
            "run_shell_command",
            "terminal",
        ]) {
            ToolKind::Shell
        } else if is(&["read", "file_read", "read_file"]) {
            ToolKind::Read
        } else if is(&["write", "file_write", "write_file"]) {
            ToolKind::Write
        } else if is(&[
            "edit",
            "multiedit",
            "apply_patch",
            "str_replace",
            "edit_file",
            "search_replace",
            "replace",
        ]) {
            ToolKind::Edit
        } else {
            ToolKind::Other
        }
    }

    /// `shell`, `read`, `edit`, `write`, `mcp` or `other`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolKind::Shell => "shell",
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Write => "write",
            ToolKind::Mcp => "mcp",
            ToolKind::Other => "other",
        }
    }
}

/// The rarer facts of a [`HookRequest`].
#[derive(Debug, Clone, Default)]
struct Extras {
    /// The provider's id for the tool call in flight.
    tool_call_id: Option<Arc<str>>,
    /// The kind of tool, when the host states it.
    tool_kind: Option<ToolKind>,
    /// The tool's name for the hooks of a dialect, when the host names it.
    tool_aliases: Vec<(Dialect, Arc<str>)>,
    /// The name of an event fired by name ([`Event::Named`]).
    name: Option<Arc<str>>,
    /// Fields other dialects' envelopes write as given (see `with_wire_fields`).
    wire: Option<Map<String, Value>>,
    /// The wire fields that state the arguments: a rewrite of the arguments
    /// drops them, so that later hooks see the rewrite.
    wire_facts: Option<Arc<[&'static str]>>,
    /// The arguments as the hooks before, in a group run one hook after
    /// another, left them for the next one, where that is not what is
    /// applied (Gemini CLI's `sequential`: each hook sees the `tool_input`
    /// merged, the call gets the last one alone). Any rewrite drops it.
    chained: Option<Arc<Value>>,
}

/// The key of a result's structured content in `tool_response` and in a
/// transform (a tower-hooks extension).
pub(crate) const STRUCTURED_CONTENT: &str = "structured_content";

impl HookOutcome {
    /// The outcome when no hook ran: allow, arguments unchanged.
    pub fn allow(request: HookRequest) -> Self {
        let event = request.event();
        HookOutcome::from_parts(
            event,
            Decision::Allow,
            true,
            None,
            request.into_shared_arguments(),
            Records::new(),
        )
    }
}

impl HookRequest {
    /// A request for `event` with an arbitrary `arguments` value.
    ///
    /// Prefer the typed constructors; this one is for tools such as the `hooks`
    /// CLI that take the payload from the user.
    pub fn new(event: Event, arguments: Value) -> Self {
        HookRequest {
            event,
            tool_name: None,
            session_id: None,
            cwd: None,
            arguments: Arc::new(arguments),
            deadline: None,
            extensions: http::Extensions::new(),
            run: None,
            extras: None,
        }
    }

    /// An event fired by its dialect's name ([`Event::Named`]): Claude Code's
    /// `TaskCreated`, `ConfigChange`, `CwdChanged`, … with `arguments` as the
    /// event's own fields, as that dialect writes them. Only the hooks
    /// configured for that exact name run.
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_hooks::{Event, HookRequest};
    ///
    /// let req = HookRequest::named("TaskCreated", json!({"task_subject": "ship it"}));
    /// assert_eq!(req.event(), Event::Named);
    /// assert_eq!(req.named_event(), Some("TaskCreated"));
    /// ```
    pub fn named(name: impl Into<Arc<str>>, arguments: Value) -> Self {
        let mut req = Self::new(Event::Named, arguments);
        req.extras_mut().name = Some(name.into());
        req
    }

    /// The name of an event fired by name ([`named`](Self::named)); `None`
    /// for the neutral events.
    pub fn named_event(&self) -> Option<&str> {
        self.extras.as_deref()?.name.as_deref()
    }

    /// Sets the tool name (the two tool events).
    pub fn with_tool_name(mut self, tool_name: impl Into<Arc<str>>) -> Self {
        self.tool_name = Some(tool_name.into());
        self
    }

    /// Sets the provider's id for the tool call in flight.
    pub fn with_tool_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.extras_mut().tool_call_id = Some(id.into());
        self
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Sets the session's working directory (payload `cwd`, `NANOPI_CWD`).
    ///
    /// Without it, hooks are told the process's current directory.
    pub fn with_cwd(mut self, cwd: impl Into<Arc<str>>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Replaces the arguments.
    pub fn with_arguments(mut self, arguments: Value) -> Self {
        self.arguments = Arc::new(arguments);
        self
    }

    /// Sets the deadline (the [`HookTimeout`](crate::layer::timeout::HookTimeout) layer does this).
    pub fn with_deadline(mut self, deadline: Deadline) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// States the kind of tool the call is for, rather than letting it be
    /// inferred from the tool name: Cursor's hooks fire by kind
    /// (`beforeShellExecution` for a shell tool, `beforeReadFile`, …).
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_hooks::{HookRequest, ToolKind};
    ///
    /// let req = HookRequest::tool_execution_start("Terminal", json!({"command": "ls"}));
    /// assert_eq!(req.tool_kind(), Some(ToolKind::Shell)); // inferred
    /// let req = HookRequest::tool_execution_start("run", json!({})).with_tool_kind(ToolKind::Shell);
    /// assert_eq!(req.tool_kind(), Some(ToolKind::Shell)); // stated
    /// ```
    pub fn with_tool_kind(mut self, kind: ToolKind) -> Self {
        self.extras_mut().tool_kind = Some(kind);
        self
    }

    /// Names the tool for the hooks of `dialect`: they see `name` in their
    /// envelope, their matchers and `if` rules test it, and their records
    /// report it, whatever the tool's kind would make of it. Without an
    /// alias a dialect sees its own name for the tool's
    /// [kind](Self::tool_kind) (Claude Code's `Bash` for a shell tool), or
    /// the host's name for a tool of another kind; nanopi always sees the
    /// host's name.
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_hooks::{Dialect, HookRequest};
    ///
    /// let req = HookRequest::tool_execution_start("deploy", json!({}))
    ///     .with_tool_alias(Dialect::Claude, "mcp__ops__deploy");
    /// assert_eq!(req.tool_alias(Dialect::Claude), Some("mcp__ops__deploy"));
    /// assert_eq!(req.tool_alias(Dialect::Cursor), None);
    /// ```
    pub fn with_tool_alias(mut self, dialect: Dialect, name: impl Into<Arc<str>>) -> Self {
        let name = name.into();
        let aliases = &mut self.extras_mut().tool_aliases;
        aliases.retain(|(d, _)| *d != dialect);
        aliases.push((dialect, name));
        self
    }

    /// The host's name of the tool for the hooks of `dialect`
    /// ([`with_tool_alias`](Self::with_tool_alias)), if it gave one.
    pub fn tool_alias(&self, dialect: Dialect) -> Option<&str> {
        self.tool_alias_shared(dialect).map(|name| &**name)
    }

    /// [`tool_alias`](Self::tool_alias), shared.
    pub(crate) fn tool_alias_shared(&self, dialect: Dialect) -> Option<&Arc<str>> {
        self.extras
            .as_deref()?
            .tool_aliases
            .iter()
            .find(|(d, _)| *d == dialect)
            .map(|(_, name)| name)
    }

    /// [`tool_name`](Self::tool_name), shared.
    pub(crate) fn tool_name_shared(&self) -> Option<&Arc<str>> {
        self.tool_name.as_ref()
    }

    /// Fields that a Claude Code hook's stdin object takes as given: each one
    /// replaces the engine's value of that name (`transcript_path`,
    /// `permission_mode`, `cwd`, …) or is added after the event's own fields.
    /// nanopi's hooks never see them.
    ///
    /// This is how a host fires a Claude Code event with raw fields (see
    /// [`claude::request`](crate::dialect::claude::request)), and how the `hooks`
    /// CLI passes on what a payload gives.
    ///
    /// ```
    /// use serde_json::{json, Map, Value};
    /// use tower_hooks::dialect::claude::{stdin_bytes, Envelope};
    /// use tower_hooks::HookRequest;
    ///
    /// let mut fields = Map::new();
    /// fields.insert("transcript_path".into(), json!("/t/s1.jsonl"));
    /// let req = HookRequest::input("hi").with_wire_fields(fields);
    /// let stdin: Value = serde_json::from_slice(&stdin_bytes(&req, &Envelope::new("/p"))).unwrap();
    /// assert_eq!(stdin["transcript_path"], "/t/s1.jsonl");
    /// assert_eq!(stdin["prompt"], "hi");
    /// ```
    pub fn with_wire_fields(mut self, fields: Map<String, Value>) -> Self {
        self.extras_mut().wire = (!fields.is_empty()).then_some(fields);
        self
    }

    /// Names the wire fields that state what the arguments hold (a Cursor
    /// `tool_input`, `command`, `prompt`, …): when a hook rewrites the
    /// arguments, the chain drops them, so that the hooks after it read the
    /// rewrite in their envelope, not the fields as first given.
    pub(crate) fn with_wire_facts(mut self, names: &[&'static str]) -> Self {
        if !names.is_empty() {
            self.extras_mut().wire_facts = Some(names.into());
        }
        self
    }

    /// The rarer facts, to change: shared ones are copied first.
    fn extras_mut(&mut self) -> &mut Extras {
        Arc::make_mut(self.extras.get_or_insert_with(Default::default))
    }

    /// The fields given with [`with_wire_fields`](Self::with_wire_fields).
    pub fn wire_fields(&self) -> Option<&Map<String, Value>> {
        self.extras.as_deref().and_then(|e| e.wire.as_ref())
    }

    /// Gives the hook about to run a slot for what its process does (the chain
    /// does this for command hooks).
    pub(crate) fn with_run_slot(mut self, run: RunSlot) -> Self {
        self.run = Some(run);
        self
    }

    /// The slot a command leaf fills with what its process did, if the chain set one.
    pub(crate) fn run_slot(&self) -> Option<&RunSlot> {
        self.run.as_ref()
    }

    /// The event.
    pub fn event(&self) -> Event {
        self.event
    }

    /// The tool name, on the two tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool_name.as_deref()
    }

    /// The kind of tool the call is for: as the host stated it
    /// ([`with_tool_kind`](Self::with_tool_kind)), else inferred from the tool
    /// name ([`ToolKind::infer`]); `None` on an event without a tool.
    pub fn tool_kind(&self) -> Option<ToolKind> {
        let stated = self.extras.as_deref().and_then(|e| e.tool_kind);
        stated.or_else(|| self.tool_name().map(ToolKind::infer))
    }

    /// The tool call id, when there is one.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.extras
            .as_deref()
            .and_then(|e| e.tool_call_id.as_deref())
    }

    /// The session id, when there is one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The working directory set with [`with_cwd`](Self::with_cwd), if any.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The event's arguments.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// Whether the arguments say the tool call failed
    /// (`tool_response.is_error` is `true`), read in place.
    pub(crate) fn tool_failed(&self) -> bool {
        self.arguments
            .get("tool_response")
            .and_then(|response| response.get("is_error"))
            == Some(&Value::Bool(true))
    }

    /// The arguments as the next hook of a group run in order sees them:
    /// the [chained](Self::set_chained_arguments) ones if a hook before it
    /// left some, else the arguments.
    pub(crate) fn chained_arguments(&self) -> &Value {
        self.extras
            .as_deref()
            .and_then(|e| e.chained.as_deref())
            .unwrap_or(&self.arguments)
    }

    /// Sets (or, with `None`, drops) what the next hook of a group run in
    /// order sees in place of the arguments.
    pub(crate) fn set_chained_arguments(&mut self, chained: Option<Value>) {
        if chained.is_some() || self.extras.as_deref().is_some_and(|e| e.chained.is_some()) {
            self.extras_mut().chained = chained.map(Arc::new);
        }
    }

    pub(crate) fn shared_tool_name(&self) -> Option<&Arc<str>> {
        self.tool_name.as_ref()
    }

    pub(crate) fn into_shared_arguments(self) -> Arc<Value> {
        self.arguments
    }

    /// Sets `arguments.tool_response.<key>` (on `tool_execution_end`; no copy
    /// when the arguments are not shared yet).
    pub(crate) fn set_response_field(&mut self, key: &str, value: Value) {
        if let Some(Value::Object(response)) =
            Arc::make_mut(&mut self.arguments).get_mut("tool_response")
        {
            response.insert(key.into(), value);
        }
    }

    pub(crate) fn set_shared_arguments(&mut self, arguments: Arc<Value>) {
        self.arguments = arguments;
        if let Some(extras) = self.extras.as_deref() {
            if extras.chained.is_some() {
                self.extras_mut().chained = None;
            }
        }
        let facts = self.extras.as_deref().and_then(|e| e.wire_facts.clone());
        if let Some(facts) = facts {
            let extras = self.extras_mut();
            if let Some(wire) = &mut extras.wire {
                for name in facts.iter() {
                    wire.remove(*name);
                }
            }
            extras.wire_facts = None;
        }
    }

    /// When the hook now running is overdue, if a timeout applies.
    pub fn deadline(&self) -> Option<Deadline> {
        self.deadline
    }

    /// What the request carries for the layers it passes: the spec of the
    /// hook it is handed to inside a chain ([`hook`](Self::hook)), as
    /// axum's `MatchedPath` rides on a request, and whatever a host's own
    /// layers put there.
    ///
    /// ```
    /// use tower_hooks::HookRequest;
    ///
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct TraceId(u64);
    ///
    /// let mut req = HookRequest::input("hello");
    /// req.extensions_mut().insert(TraceId(7));
    /// assert_eq!(req.clone().extensions().get::<TraceId>(), Some(&TraceId(7)));
    /// ```
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// The request's [`extensions`](Self::extensions), to add to.
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }

    /// What a matcher is tested against for this request (see [`MatcherSubject`]).
    ///
    /// ```
    /// use tower_hooks::HookRequest;
    /// assert_eq!(HookRequest::turn_start(12, 0).matcher_subject().as_str(), "12");
    /// assert_eq!(HookRequest::input("hello").matcher_subject().as_str(), "");
    /// ```
    pub fn matcher_subject(&self) -> Subject<'_> {
        match self.event.matcher_subject() {
            MatcherSubject::ToolName => Subject::Str(self.tool_name().unwrap_or("")),
            MatcherSubject::SessionId => Subject::Str(self.session_id().unwrap_or("")),
            MatcherSubject::Empty => Subject::Str(""),
            MatcherSubject::CompactionReason => Subject::of_value(self.arguments.get("reason")),
            MatcherSubject::TurnCount => Subject::of_value(self.arguments.get("turn_count")),
        }
    }
}

/// A matcher subject, borrowed or rendered on the stack (no allocation).
#[non_exhaustive]
pub enum Subject<'a> {
    /// Borrowed from the request.
    Str(&'a str),
    /// An unsigned number rendered as decimal.
    Unsigned(itoa::Buffer, u64),
    /// A signed number rendered as decimal.
    Signed(itoa::Buffer, i64),
}

impl<'a> Subject<'a> {
    fn of_value(value: Option<&'a Value>) -> Self {
        match value {
            Some(Value::String(s)) => Subject::Str(s),
            Some(Value::Number(n)) => {
                if let Some(u) = n.as_u64() {
                    Subject::Unsigned(itoa::Buffer::new(), u)
                } else if let Some(i) = n.as_i64() {
                    Subject::Signed(itoa::Buffer::new(), i)
                } else {
                    Subject::Str("")
                }
            }
            _ => Subject::Str(""),
        }
    }

    /// The subject as text.
    pub fn as_str(&mut self) -> &str {
        match self {
            Subject::Str(s) => s,
            Subject::Unsigned(buf, n) => buf.format(*n),
            Subject::Signed(buf, n) => buf.format(*n),
        }
    }
}

impl fmt::Debug for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Str(s) => fmt::Debug::fmt(s, f),
            Subject::Unsigned(_, n) => fmt::Debug::fmt(n, f),
            Subject::Signed(_, n) => fmt::Debug::fmt(n, f),
        }
    }
}

impl fmt::Debug for HookRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookRequest")
            .field("event", &self.event)
            .field("tool_name", &self.tool_name)
            .field("tool_call_id", &self.tool_call_id())
            .field("session_id", &self.session_id)
            .field("cwd", &self.cwd)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

/// Reads `updated_input` into a new argument value according to the event's
/// transform scope, or `None` when the event does not honor transforms.
pub(crate) fn apply_transform(
    event: Event,
    current: &Value,
    mut updated: Map<String, Value>,
) -> Option<Value> {
    use crate::event::TransformScope;
    match event.transform_scope() {
        TransformScope::Arguments => Some(Value::Object(updated)),
        TransformScope::Prompt => {
            let mut next = current.clone();
            if let (Some(prompt @ Value::String(_)), Value::Object(obj)) =
                (updated.remove("prompt"), &mut next)
            {
                obj.insert("prompt".into(), prompt);
            }
            Some(next)
        }
        TransformScope::ToolResult => {
            let mut next = current.clone();
            if let Value::Object(obj) = &mut next {
                let response = obj
                    .entry("tool_response")
                    .or_insert_with(|| Value::Object(Map::new()));
                if !response.is_object() {
                    *response = Value::Object(Map::new());
                }
                if let Value::Object(response) = response {
                    if let Some(content @ Value::String(_)) = updated.remove("content") {
                        // A text rewritten by a hook that did not say what
                        // becomes of the structured copy: that copy goes.
                        if response.get("content") != Some(&content)
                            && !updated.contains_key(STRUCTURED_CONTENT)
                        {
                            response.remove(STRUCTURED_CONTENT);
                        }
                        response.insert("content".into(), content);
                    }
                    if let Some(is_error @ Value::Bool(_)) = updated.remove("is_error") {
                        response.insert("is_error".into(), is_error);
                    }
                    match updated.remove(STRUCTURED_CONTENT) {
                        Some(Value::Null) => {
                            response.remove(STRUCTURED_CONTENT);
                        }
                        Some(structured) => {
                            response.insert(STRUCTURED_CONTENT.into(), structured);
                        }
                        None => {}
                    }
                }
            }
            Some(next)
        }
        TransformScope::None => None,
    }
}

/// A tool's name as one dialect sees it (what a dialect's `tool_name` answers), kept without a
/// copy: its own name for the kind, or the host's (or alias's) shared text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SeenName<'r> {
    /// The dialect's own name for the tool's kind.
    Static(&'static str),
    /// The host's name, or its alias for the dialect.
    Shared(&'r Arc<str>),
    /// A name the dialect made from the host's (a Gemini CLI MCP tool's `mcp_<server>_<tool>`).
    Made(Arc<str>),
}

#[cfg(test)]
mod tests;
