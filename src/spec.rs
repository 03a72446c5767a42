//! [`HookSpec`]: one configured hook, as plain data.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use self::rules::DialectHook;
use crate::event::Event;
use crate::pattern::{Pattern, PatternError};
use crate::request::HookRequest;

pub(crate) mod rules;
pub(crate) mod scope;
pub(crate) mod target;

pub use self::scope::Scope;
pub use self::target::{HttpTarget, McpTarget};
pub use crate::process::Program;
pub use crate::profile::Dialect;

/// The timeout a hook gets when its entry names none: 5000 ms.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);

/// Which hooks a stack makes fail closed beyond what their own configuration
/// says: the host-wide switch of [`Builder::fail_closed`](crate::Builder::fail_closed).
///
/// A hook that fails closed blocks when it fails (it cannot start, crashes,
/// exits with a status its dialect calls a failure, times out, or answers
/// what cannot be read) instead of letting the action proceed. The policy is
/// applied to the specs once, when the stack is built: it costs nothing per
/// call.
///
/// It touches only hooks at events where a block is enforced (a tool call,
/// a prompt: [`BlockPolicy::Enforced`](crate::BlockPolicy::Enforced)) that
/// the call waits for; a hook in the background or at an event whose blocks
/// are dropped or turned into follow-ups keeps its own setting.
///
/// ```
/// use tower_hooks::{Dialect, Event, FailClosedPolicy, HookSpec};
///
/// let guard = HookSpec::command(Event::ToolExecutionStart, "./guard.sh");
/// let log = HookSpec::command(Event::SessionShutdown, "./log.sh");
/// let all = FailClosedPolicy::at_blocking_events();
/// assert!(all.applies_to(&guard));
/// assert!(!all.applies_to(&log));
/// let claude_only = FailClosedPolicy::at_blocking_events_of([Dialect::Claude]);
/// assert!(!claude_only.applies_to(&guard)); // a nanopi hook
/// assert!(!FailClosedPolicy::configured().applies_to(&guard));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FailClosedPolicy(Reach);

/// Whose blocking hooks a [`FailClosedPolicy`] makes fail closed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Reach {
    /// None beyond their configuration.
    #[default]
    Configured,
    /// Every dialect's.
    Every,
    /// These dialects'.
    Only(Vec<Dialect>),
}

impl FailClosedPolicy {
    /// Every hook as its configuration says (the default).
    pub fn configured() -> Self {
        FailClosedPolicy(Reach::Configured)
    }

    /// Every hook of every dialect at an event where its block takes effect
    /// fails closed: where the event enforces blocks, and where the hook's
    /// own dialect does (Gemini CLI's `AfterTool`, Codex's `PostToolUse`,
    /// Claude Code's `TaskCreated`).
    pub fn at_blocking_events() -> Self {
        FailClosedPolicy(Reach::Every)
    }

    /// The hooks of `dialects` at events that can block fail closed; the
    /// others keep their own setting.
    pub fn at_blocking_events_of(dialects: impl IntoIterator<Item = Dialect>) -> Self {
        FailClosedPolicy(Reach::Only(dialects.into_iter().collect()))
    }

    /// Whether the policy makes `spec` fail closed.
    pub fn applies_to(&self, spec: &HookSpec) -> bool {
        let reached = match &self.0 {
            Reach::Configured => false,
            Reach::Every => true,
            Reach::Only(dialects) => dialects.contains(&spec.dialect()),
        };
        reached && spec.block_takes_effect() && !spec.runs_in_background()
    }
}

/// A hook's `type`: what answers for it.
///
/// Only `command` hooks, and hooks a service answers for, run everywhere; an
/// `http` hook runs on a stack built with the `http` feature, a `prompt` or
/// `agent` hook on a stack with a model evaluator. A type this host does not
/// know is kept as written ([`Other`](HookKind::Other)): the hook loads, is
/// listed, and never runs.
///
/// ```
/// use tower_hooks::{Event, HookKind, HookSpec};
///
/// assert_eq!(HookKind::from_name("http"), HookKind::Http);
/// assert_eq!(HookKind::from_name("shell").as_str(), "shell");
/// let spec = HookSpec::command(Event::Input, "./check.sh");
/// assert_eq!(spec.hook_kind(), &HookKind::Command);
/// assert_eq!(spec.kind(), "command");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookKind {
    /// `command`: a process (the default).
    #[default]
    Command,
    /// `service`: an in-process service, attached by the builder.
    Service,
    /// `http`: the event is posted to a URL (Claude Code).
    Http,
    /// `prompt`: a model is asked (Claude Code, Cursor).
    Prompt,
    /// `agent`: a model with tools is asked (Claude Code).
    Agent,
    /// `mcp_tool`: an MCP tool is called (Claude Code), on a stack given an
    /// MCP client.
    McpTool,
    /// A type this host does not know, as written.
    Other(Box<str>),
}

impl HookKind {
    /// The type a config entry names (`command`, `http`, …); any other name
    /// is kept as [`Other`](HookKind::Other).
    pub fn from_name(name: &str) -> HookKind {
        match name {
            "command" => HookKind::Command,
            "service" => HookKind::Service,
            "http" => HookKind::Http,
            "prompt" => HookKind::Prompt,
            "agent" => HookKind::Agent,
            "mcp_tool" => HookKind::McpTool,
            other => HookKind::Other(other.into()),
        }
    }

    /// The type as a config entry writes it.
    pub fn as_str(&self) -> &str {
        match self {
            HookKind::Command => "command",
            HookKind::Service => "service",
            HookKind::Http => "http",
            HookKind::Prompt => "prompt",
            HookKind::Agent => "agent",
            HookKind::McpTool => "mcp_tool",
            HookKind::Other(name) => name,
        }
    }
}

impl From<&str> for HookKind {
    fn from(name: &str) -> Self {
        HookKind::from_name(name)
    }
}

impl fmt::Display for HookKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One hook: where it came from, when it fires, what it runs.
///
/// The config loader yields these; a program can also make them itself and hand
/// them to the [`HookStack`](crate::HookStack) builder.
///
/// ```
/// use std::time::Duration;
/// use tower_hooks::{Event, HookSpec};
///
/// let spec = HookSpec::command(Event::ToolExecutionStart, "./guard.sh")
///     .with_matcher("^bash$")?
///     .with_timeout(Duration::from_millis(3000));
/// assert_eq!(spec.matcher(), Some("^bash$"));
/// assert!(HookSpec::command(Event::Input, "x").with_matcher("(unclosed").is_err());
/// # Ok::<(), tower_hooks::PatternError>(())
/// ```
#[derive(Clone)]
pub struct HookSpec {
    pub(crate) event: Event,
    /// Its dialect's rules and data, as its loader made them; `None`: a
    /// spec made by hand, which follows nanopi's (`dialect::rules`).
    pub(crate) hook: Option<Arc<dyn DialectHook>>,
    /// The dialect whose rules it follows.
    pub(crate) dialect: Dialect,
    /// A block from it takes effect at its event by its dialect's rule,
    /// though the event drops blocks
    /// ([`DialectHook::blocks_where_the_event_drops_them`]).
    pub(crate) blocks_anyway: bool,
    pub(crate) source: String,
    pub(crate) source_label: Option<String>,
    pub(crate) index: usize,
    pub(crate) name: Option<String>,
    pub(crate) matcher: Option<String>,
    pub(crate) pattern: Pattern,
    pub(crate) kind: HookKind,
    pub(crate) command: Option<String>,
    pub(crate) timeout: Duration,
    pub(crate) fail_closed: bool,
    /// A service answers for it (set by the builder's in-process hooks).
    pub(crate) attached: bool,
    /// What its process runs.
    pub(crate) program: Program,
    /// Why it never runs, when its loader says so (a copy of another hook).
    pub(crate) disabled: Option<Arc<str>>,
    /// The call does not wait for it (Claude Code's `async: true`).
    pub(crate) background: bool,
    /// One long-lived process answers every event.
    pub(crate) persistent: bool,
    /// What a model is asked, for a model-evaluated hook (`prompt`, `agent`).
    pub(crate) prompt: Option<Arc<str>>,
    /// The model a model-evaluated hook names.
    pub(crate) model: Option<Arc<str>>,
    /// Where an HTTP hook posts its event.
    pub(crate) http: Option<Arc<HttpTarget>>,
    /// Which MCP tool an MCP tool hook calls.
    pub(crate) mcp: Option<Arc<McpTarget>>,
    /// Why its loader does not let it run, for a fail-closed hook, which then
    /// blocks with that reason rather than be skipped (an HTTP hook whose URL
    /// the settings do not allow).
    pub(crate) refused: Option<Arc<str>>,
    /// How far it is trusted: its file's scope.
    pub(crate) scope: Scope,
    /// Hooks at one event with the same key are copies of one another: of
    /// those a call selects, the chain runs one, the most trusted (Gemini
    /// CLI's `name:command`).
    pub(crate) copy_key: Option<Arc<str>>,
}

/// The hook a request is handed to: its spec rides in the request's
/// [`extensions`](HookRequest::extensions), so the request itself names no
/// hook.
impl HookRequest {
    /// Tags the request with the hook it is about to run (the chain does this).
    pub fn with_hook(mut self, hook: Arc<HookSpec>) -> Self {
        self.extensions_mut().insert(hook);
        self
    }

    /// The hook this request is being handed to, inside a chain.
    ///
    /// Layers placed around each hook use it to tell hooks apart.
    pub fn hook(&self) -> Option<&Arc<HookSpec>> {
        self.extensions().get::<Arc<HookSpec>>()
    }
}

impl HookSpec {
    /// A `type = "command"` hook that runs `bash -c <command>`.
    pub fn command(event: Event, command: impl Into<String>) -> Self {
        HookSpec {
            event,
            hook: None,
            dialect: Dialect::Nanopi,
            blocks_anyway: false,
            source: String::from("<program>"),
            source_label: None,
            index: 0,
            name: None,
            matcher: None,
            pattern: Pattern::Any,
            kind: HookKind::Command,
            command: Some(command.into()),
            timeout: DEFAULT_TIMEOUT,
            fail_closed: false,
            attached: false,
            program: Program::Bash,
            disabled: None,
            background: false,
            persistent: false,
            prompt: None,
            model: None,
            http: None,
            mcp: None,
            refused: None,
            scope: Scope::User,
            copy_key: None,
        }
    }

    /// A hook whose answer comes from an in-process service; `name` stands in
    /// for the source file in reports.
    pub fn in_process(event: Event, name: impl Into<String>) -> Self {
        HookSpec {
            source: name.into(),
            command: None,
            kind: HookKind::Service,
            attached: true,
            ..HookSpec::command(event, String::new())
        }
    }

    /// Sets the matcher: `*` matches everything, anything else is a regex
    /// searched in the event's [matcher subject](crate::MatcherSubject).
    pub fn with_matcher(mut self, matcher: impl Into<String>) -> Result<Self, PatternError> {
        let matcher = matcher.into();
        self.pattern = Pattern::new(&matcher)?;
        self.matcher = Some(matcher);
        Ok(self)
    }

    /// Sets the timeout (default [`DEFAULT_TIMEOUT`]). One too long for the
    /// clock, up to `Duration::MAX`, saturates: in practice it never fires.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Makes a hook that cannot run, crashes or exits abnormally block instead of
    /// allow (off by default, as in nanopi).
    pub fn with_fail_closed(mut self, fail_closed: bool) -> Self {
        self.fail_closed = fail_closed;
        self
    }

    /// Records where the hook was configured: a file and its position in that
    /// file's list for the event.
    pub fn with_source(mut self, source: impl Into<String>, index: usize) -> Self {
        self.source = source.into();
        self.index = index;
        self
    }

    /// Records how the source is shown in [labels](HookSpec::label) when it
    /// differs from [`source`](HookSpec::source): the loader shows a file under
    /// `$HOME` as `~/…` and one under the project as a relative path, so that no
    /// home directory ends up in a metrics backend or an audit log.
    pub fn with_source_label(mut self, label: impl Into<String>) -> Self {
        self.source_label = Some(label.into());
        self
    }

    /// Names the hook (the `name` key of a config entry, a tower-hooks
    /// extension). Metrics, audit lines and the `hooks` CLI identify a named
    /// hook by its name; keep names unique per event.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into()).filter(|name| !name.is_empty());
        self
    }

    pub(crate) fn with_kind(mut self, kind: impl Into<HookKind>) -> Self {
        self.kind = kind.into();
        self
    }

    /// The event it fires on.
    pub fn event(&self) -> Event {
        self.event
    }

    /// What its process runs: `bash -c` for nanopi's hooks, `sh -c` for the
    /// other dialects', or a program with arguments.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Sets what its process runs.
    pub fn with_program(mut self, program: Program) -> Self {
        self.program = program;
        self
    }

    /// Sets the dialect whose rules it follows, with what that dialect
    /// keeps on it.
    pub(crate) fn with_dialect(mut self, hook: Arc<dyn DialectHook>) -> Self {
        self.dialect = hook.dialect();
        self.blocks_anyway = hook.blocks_where_the_event_drops_them();
        self.hook = Some(hook);
        self
    }

    /// Whether a block from this hook stops the action at its event: the
    /// event's policy enforces it, or the hook's dialect does
    /// ([`DialectHook::blocks_where_the_event_drops_them`]).
    pub(crate) fn block_takes_effect(&self) -> bool {
        self.event().block_policy() == crate::BlockPolicy::Enforced || self.blocks_anyway
    }

    /// The event as its file names it ([`dialect::event_as_written`](crate::dialect::event_as_written)).
    pub(crate) fn event_as_written(&self) -> &str {
        match &self.hook {
            Some(hook) => hook.event_name(self),
            None => self.event.name(),
        }
    }

    /// How the agent words a block this hook made at `event`, when its
    /// dialect words it its own way; `None`: the event's wording.
    pub(crate) fn refusal(&self, event: Event) -> Option<(&'static str, &'static str)> {
        self.dialect().refusal(event)
    }

    /// The directory the hook runs in when its dialect decides it (a Cursor
    /// hook runs beside its `hooks.json`); `None`: the session's working
    /// directory.
    pub(crate) fn run_dir(&self) -> Option<&std::path::Path> {
        self.hook.as_deref().and_then(DialectHook::run_dir)
    }

    /// The dialect whose rules it follows ([`Dialect::Nanopi`] unless a
    /// dialect's loader made it).
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The file it was configured in, or the name given to an in-process hook.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Its position in the source's list for this event.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Its name, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// How metrics, audit lines and the CLI identify the hook: its
    /// [name](HookSpec::with_name), or else `source:index` with the source as
    /// [labelled](HookSpec::with_source_label).
    ///
    /// ```
    /// use tower_hooks::{Event, HookSpec};
    ///
    /// let spec = HookSpec::command(Event::Input, "./check.sh")
    ///     .with_source("/home/u/.nanopi/config.toml", 2)
    ///     .with_source_label("~/.nanopi/config.toml");
    /// assert_eq!(spec.label(), "~/.nanopi/config.toml:2");
    /// assert_eq!(spec.with_name("prompt-guard").label(), "prompt-guard");
    /// ```
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => name.clone(),
            None => self.location(),
        }
    }

    /// Where it was configured, as labels show it: `source:index` with the
    /// source as [labelled](HookSpec::with_source_label).
    pub fn location(&self) -> String {
        format!(
            "{}:{}",
            self.source_label.as_deref().unwrap_or(&self.source),
            self.index
        )
    }

    /// The matcher as written; `None` when omitted.
    pub fn matcher(&self) -> Option<&str> {
        self.matcher.as_deref()
    }

    /// The compiled matcher.
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    /// The entry's `type`, as written: `command` for command hooks, `service`
    /// for in-process ones; any other value is configured but skipped at run
    /// time unless something answers for it (see [`HookKind`]).
    pub fn kind(&self) -> &str {
        self.kind.as_str()
    }

    /// The entry's `type` ([`kind`](Self::kind) as a [`HookKind`]).
    pub fn hook_kind(&self) -> &HookKind {
        &self.kind
    }

    /// Whether the chain runs this hook: a `command`, or a hook the builder
    /// attached a service to ([`service_hook`](crate::Builder::service_hook),
    /// [`fn_hook`](crate::Builder::fn_hook)). A `type = "service"` entry in a
    /// file has no service behind it and never runs, like any unknown `type`.
    /// A hook that is never run because it is disabled, or a copy of another
    /// hook, is not runnable either ([`disabled`](Self::disabled)).
    pub fn is_runnable(&self) -> bool {
        (self.kind == HookKind::Command || self.attached) && self.disabled.is_none()
    }

    /// Turns the hook off: it stays configured and listed, and each call
    /// records it as skipped with `reason` (a Claude Code handler that copies
    /// one loaded before it is `duplicate of <source>:<index>`).
    ///
    /// ```
    /// use tower_hooks::{Event, HookSpec};
    ///
    /// let spec = HookSpec::command(Event::Input, "true").with_disabled("duplicate of a.json:0");
    /// assert!(!spec.is_runnable());
    /// assert_eq!(spec.disabled(), Some("duplicate of a.json:0"));
    /// ```
    pub fn with_disabled(mut self, reason: impl Into<Arc<str>>) -> Self {
        self.disabled = Some(reason.into());
        self
    }

    /// Runs the hook in the background: the call that fires it does not wait
    /// for it, and its decision changes nothing. What it leaves for the agent
    /// (context, messages) comes with a later outcome of the same session. See
    /// [`Background`](crate::process::background::Background).
    pub fn with_background(mut self, background: bool) -> Self {
        self.background = background;
        self
    }

    /// Marks the hook persistent: one long-lived process, started at the first
    /// event that reaches it, answers every event over its stdin and stdout,
    /// one JSON line each way (see [`process::persistent`](crate::process::persistent)).
    pub fn with_persistent(mut self, persistent: bool) -> Self {
        self.persistent = persistent;
        self
    }

    /// The prompt of a model-evaluated hook (Claude Code's `prompt` and
    /// `agent` handlers): what the stack's evaluator is asked, `$ARGUMENTS`
    /// standing for the hook's input. See [`layer::model`](crate::layer::model).
    pub fn with_prompt(mut self, prompt: impl Into<Arc<str>>) -> Self {
        self.prompt = Some(prompt.into());
        self
    }

    /// The prompt of a model-evaluated hook ([`with_prompt`](Self::with_prompt)).
    pub fn prompt(&self) -> Option<&str> {
        self.prompt.as_deref()
    }

    /// The model a model-evaluated hook asks (Claude Code's `model`): it
    /// reaches the evaluator in [`ModelRequest::model`](crate::layer::model::ModelRequest::model).
    pub fn with_model(mut self, model: impl Into<Arc<str>>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The model a model-evaluated hook names ([`with_model`](Self::with_model)).
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// Makes it an HTTP hook (type `http`): the event is posted to `target`
    /// as its dialect's JSON envelope, and the answer is read as the dialect
    /// reads a command's stdout. It runs on a stack built with the `http`
    /// feature; elsewhere it is listed and skipped. See `layer::http`.
    pub fn with_http(mut self, target: HttpTarget) -> Self {
        self.kind = HookKind::Http;
        self.command = None;
        self.http = Some(Arc::new(target));
        self
    }

    /// Whether a run of it may leave notes (a command, a model hook, an HTTP
    /// hook, read by their dialect): an in-process hook leaves none, and
    /// costs no slot for them.
    pub(crate) fn leaves_notes(&self) -> bool {
        self.command.is_some() || self.prompt.is_some() || self.http.is_some() || self.mcp.is_some()
    }

    /// Makes it an MCP tool hook (type `mcp_tool`): each run calls `target`'s
    /// tool through the stack's MCP client and reads its text as its
    /// dialect reads a command's stdout. It runs on a stack given a client
    /// ([`Builder::mcp`](crate::Builder::mcp)); elsewhere it is listed and
    /// skipped. See [`layer::mcp`](crate::layer::mcp).
    pub fn with_mcp(mut self, target: McpTarget) -> Self {
        self.kind = HookKind::McpTool;
        self.command = None;
        self.mcp = Some(Arc::new(target));
        self
    }

    /// The tool an MCP tool hook calls ([`with_mcp`](Self::with_mcp)).
    pub fn mcp_target(&self) -> Option<&McpTarget> {
        self.mcp.as_deref()
    }

    /// Where an HTTP hook posts ([`with_http`](Self::with_http)).
    pub fn http_target(&self) -> Option<&HttpTarget> {
        self.http.as_deref()
    }

    /// Whether the hook is persistent ([`with_persistent`](Self::with_persistent)).
    pub fn is_persistent(&self) -> bool {
        self.persistent
    }

    /// Whether the hook runs in the background ([`with_background`](Self::with_background)).
    pub fn runs_in_background(&self) -> bool {
        self.background
    }

    /// Why the hook is turned off ([`with_disabled`](Self::with_disabled)).
    pub fn disabled(&self) -> Option<&str> {
        self.disabled.as_deref()
    }

    /// The shell command (after `~`/`$HOME` expansion), for command hooks.
    pub fn command_line(&self) -> Option<&str> {
        self.command.as_deref()
    }

    /// The timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether a failure to run blocks instead of allowing.
    pub fn fail_closed(&self) -> bool {
        self.fail_closed
    }

    /// How far it is trusted: the [`Scope`] of its file ([`Scope::User`] for a
    /// hook made in code, unless [`with_scope`](Self::with_scope) says
    /// otherwise).
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Sets how far it is trusted. A loader stamps each hook with its file's
    /// scope; a host sets it on a hook it makes in code, such as
    /// [`Scope::Managed`] for a guard of its own.
    ///
    /// ```
    /// use tower_hooks::{Event, HookSpec, Scope};
    ///
    /// let guard = HookSpec::command(Event::ToolExecutionStart, "./guard.sh");
    /// assert_eq!(guard.scope(), Scope::User);
    /// assert_eq!(guard.with_scope(Scope::Managed).scope(), Scope::Managed);
    /// ```
    pub fn with_scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }
}

impl fmt::Debug for HookSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookSpec")
            .field("event", &self.event)
            .field("dialect", &self.dialect)
            .field("source", &self.source)
            .field("index", &self.index)
            .field("name", &self.name)
            .field("matcher", &self.matcher)
            .field("kind", &self.kind.as_str())
            .field("command", &self.command)
            .field("timeout", &self.timeout)
            .field("fail_closed", &self.fail_closed)
            .field("disabled", &self.disabled)
            .field("background", &self.background)
            .field("persistent", &self.persistent)
            .field("scope", &self.scope)
            .finish()
    }
}
