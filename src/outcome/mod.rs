//! What hooks answer: [`Verdict`] from one hook, [`HookOutcome`] from the stack.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use smallvec::SmallVec;

use crate::event::Event;
pub use crate::process::Termination;

pub(crate) mod model_answer;
mod notes;
mod record;
mod run;

pub use notes::Notes;
pub(crate) use record::millis;
pub use record::HookRecord;
pub(crate) use run::RunSlot;
pub use run::{RunDetail, RUN_DETAIL_LIMIT};

/// The reason given when a hook blocks without saying why.
pub const DEFAULT_BLOCK_REASON: &str = "blocked by hook";

/// One hook's answer.
///
/// Build a block with [`Verdict::block`] (or [`timed_out`](Verdict::timed_out),
/// [`failed_closed`](Verdict::failed_closed)), a transform with
/// [`Verdict::transform`] or `Verdict::Transform(map)`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// Let the action proceed unchanged.
    Allow,
    /// Proceed with this `updated_input` object (read according to the event's
    /// [`TransformScope`](crate::TransformScope)).
    Transform(Map<String, Value>),
    /// Stop the action.
    #[non_exhaustive]
    Block {
        /// The reason, shown to the model or the user.
        reason: String,
        /// What made it a block.
        cause: BlockCause,
    },
    /// The hook did not run: its matcher did not match, or its type is not runnable.
    Skipped,
    /// The hook could not run and the action is allowed (nanopi's default).
    #[non_exhaustive]
    FailedOpen {
        /// What went wrong.
        error: String,
    },
    /// A person must approve the action (Claude Code's `ask`, Cursor's
    /// `ask`), or the action waits for later (Claude Code's `defer`, whose
    /// notes say [`deferred`](Notes::deferred)). Without a way to ask, the action is refused with the
    /// reason, never silently allowed.
    #[non_exhaustive]
    Ask {
        /// Why approval is needed.
        reason: String,
    },
}

/// What made a [`Verdict::Block`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockCause {
    /// The hook asked to block (exit 2, or `"decision":"block"`).
    Hook,
    /// The hook ran past its timeout.
    Timeout,
    /// The hook failed and is configured to fail closed.
    FailedClosed,
}

impl Verdict {
    /// A transform to `updated_input`, which must be a JSON object: anything
    /// else is handed back in the error.
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_hooks::Verdict;
    ///
    /// let v = Verdict::transform(json!({"command": "ls --dry-run"})).unwrap();
    /// assert!(matches!(&v, Verdict::Transform(map) if map["command"] == "ls --dry-run"));
    /// let err = Verdict::transform(json!("ls")).unwrap_err();
    /// assert_eq!(err.to_string(), "updated_input must be a JSON object, not a string");
    /// assert_eq!(err.into_value(), json!("ls"));
    /// ```
    pub fn transform(updated_input: Value) -> Result<Self, NotAnObject> {
        match updated_input {
            Value::Object(map) => Ok(Verdict::Transform(map)),
            value => Err(NotAnObject { value }),
        }
    }

    /// A block the hook asked for.
    pub fn block(reason: impl Into<String>) -> Self {
        Verdict::Block {
            reason: reason.into(),
            cause: BlockCause::Hook,
        }
    }

    /// The block of a hook that ran past `timeout`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower_hooks::Verdict;
    /// let v = Verdict::timed_out(Duration::from_millis(300));
    /// assert!(matches!(v, Verdict::Block { reason, .. } if reason == "hook timed out after 300 ms"));
    /// ```
    pub fn timed_out(timeout: Duration) -> Self {
        Verdict::Block {
            reason: format!("hook timed out after {} ms", timeout.as_millis()),
            cause: BlockCause::Timeout,
        }
    }

    /// The block of a hook that a timeout layer around it (tower's
    /// `TimeoutLayer`, say) stopped after `waited`, before its own
    /// `timeout`: a slow guard refuses, and the reason says who stopped it.
    pub(crate) fn stopped_by_layer(waited: Duration, timeout: Duration) -> Self {
        Verdict::Block {
            reason: format!(
                "hook timed out after {} ms: a timeout layer around it stopped it (its own \
                 timeout is {} ms)",
                waited.as_millis(),
                timeout.as_millis()
            ),
            cause: BlockCause::Timeout,
        }
    }

    /// The block of a fail-closed hook that failed with `error`.
    pub fn failed_closed(error: impl fmt::Display) -> Self {
        Verdict::Block {
            reason: format!("hook failed closed: {error}"),
            cause: BlockCause::FailedClosed,
        }
    }

    /// The answer for a hook that could not run, failing open with `error`
    /// (what the [`FailOpen`](crate::layer::fail_open) layer answers).
    pub fn failed_open(error: impl Into<String>) -> Self {
        Verdict::FailedOpen {
            error: error.into(),
        }
    }

    /// The answer for a hook that failed with `error`: a block when it
    /// fails `closed`, else [failing open](Self::failed_open).
    pub(crate) fn failed(error: String, closed: bool) -> Self {
        if closed {
            Verdict::failed_closed(error)
        } else {
            Verdict::failed_open(error)
        }
    }

    /// An answer that a person must approve the action, for `reason`.
    ///
    /// ```
    /// use tower_hooks::{RecordOutcome, Verdict};
    /// assert_eq!(Verdict::ask("touches prod").record_outcome(), RecordOutcome::Ask);
    /// ```
    pub fn ask(reason: impl Into<String>) -> Self {
        Verdict::Ask {
            reason: reason.into(),
        }
    }

    /// How this verdict is recorded: a block by its cause ([`RecordOutcome::Block`],
    /// [`Timeout`](RecordOutcome::Timeout) or [`FailedClosed`](RecordOutcome::FailedClosed)).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower_hooks::{RecordOutcome, Verdict};
    ///
    /// assert_eq!(Verdict::block("no").record_outcome(), RecordOutcome::Block);
    /// let timed_out = Verdict::timed_out(Duration::from_secs(5));
    /// assert_eq!(timed_out.record_outcome().as_str(), "timeout");
    /// assert_eq!(Verdict::failed_closed("no bash").record_outcome().as_str(), "failed_closed");
    /// assert_eq!(Verdict::failed_open("no bash").record_outcome().as_str(), "error");
    /// ```
    pub fn record_outcome(&self) -> RecordOutcome {
        match self {
            Verdict::Allow => RecordOutcome::Allow,
            Verdict::Transform(_) => RecordOutcome::Transform,
            Verdict::Block { cause, .. } => RecordOutcome::from(*cause),
            Verdict::Skipped => RecordOutcome::Skipped,
            Verdict::FailedOpen { .. } => RecordOutcome::Error,
            Verdict::Ask { .. } => RecordOutcome::Ask,
        }
    }
}

/// The error of [`Verdict::transform`]: `updated_input` was not a JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct NotAnObject {
    value: Value,
}

impl NotAnObject {
    /// The value that was given.
    pub fn into_value(self) -> Value {
        self.value
    }
}

impl fmt::Display for NotAnObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        };
        write!(f, "updated_input must be a JSON object, not {kind}")
    }
}

impl std::error::Error for NotAnObject {}

/// What the hooks of one event decided, taken together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Decision {
    /// Nobody blocked or transformed.
    Allow,
    /// At least one hook answered with a usable `updated_input`, none blocked.
    Transform,
    /// A hook blocked (also on events that drop blocks).
    Block,
    /// None blocked, and at least one said a person must approve the action.
    Ask,
}

impl Decision {
    /// `allow`, `transform`, `block` or `ask`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Transform => "transform",
            Decision::Block => "block",
            Decision::Ask => "ask",
        }
    }
}

/// What happened to one configured hook during a call: the one vocabulary of
/// [`HookRecord::outcome`], the `hooks` CLI, the metrics' `outcome` label, the
/// audit log's `decision` and the tracing span's `outcome`.
///
/// | variant | word |
/// | --- | --- |
/// | [`Skipped`](Self::Skipped) | `skipped` |
/// | [`Allow`](Self::Allow) | `allow` |
/// | [`Transform`](Self::Transform) | `transform` |
/// | [`Block`](Self::Block) | `block` |
/// | [`Ask`](Self::Ask) | `ask` |
/// | [`Timeout`](Self::Timeout) | `timeout` |
/// | [`FailedClosed`](Self::FailedClosed) | `failed_closed` |
/// | [`Error`](Self::Error) | `error` |
/// | [`NotRun`](Self::NotRun) | `not_run` |
///
/// A timeout and a fail-closed failure stop the action as a block does (nanopi
/// counts them as blocks), but they are not the hook's answer, so they have
/// words of their own. The `hooks test --json` report, whose `outcome` values
/// its contract fixes, writes them as `block` there ([`folded`](Self::folded))
/// and gives the word above in `outcome_detail`.
///
/// ```
/// use tower_hooks::RecordOutcome;
///
/// assert_eq!(RecordOutcome::Timeout.as_str(), "timeout");
/// assert_eq!(RecordOutcome::Timeout.folded(), RecordOutcome::Block);
/// assert!(RecordOutcome::FailedClosed.is_block());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RecordOutcome {
    /// It did not run for this call: its matcher did not match the event's
    /// subject (the tool name, the turn count, …), or its `type` is not one this
    /// host runs.
    Skipped,
    /// It ran and let the action proceed unchanged. A command hook allows
    /// whenever it neither exits 2 nor prints a block or an `updated_input` on
    /// its last stdout line: an exit 1 allows too ([`HookRecord::run`] shows how
    /// it ended).
    Allow,
    /// It answered a usable `updated_input` (a JSON object).
    Transform,
    /// It asked to block: exit 2, or `"decision":"block"`.
    Block,
    /// It asked for a person's approval (Claude Code's `ask` or `defer`,
    /// Cursor's `ask`).
    Ask,
    /// It ran past its timeout and was stopped; the action is blocked.
    Timeout,
    /// It could not run, or failed, and is configured to fail closed
    /// (`fail_closed = true`): the action is blocked.
    FailedClosed,
    /// It could not run, or failed (a spawn failure, an answer too long to read,
    /// a failing layer), and the action was allowed: nanopi's fail-open rule.
    /// The record's reason says what went wrong.
    Error,
    /// It was never called: an earlier hook of the same event blocked, and the
    /// first block stops the chain. Its duration is zero.
    NotRun,
}

impl RecordOutcome {
    /// Every outcome, in the order of the table above.
    pub const ALL: [RecordOutcome; 9] = [
        RecordOutcome::Skipped,
        RecordOutcome::Allow,
        RecordOutcome::Transform,
        RecordOutcome::Block,
        RecordOutcome::Ask,
        RecordOutcome::Timeout,
        RecordOutcome::FailedClosed,
        RecordOutcome::Error,
        RecordOutcome::NotRun,
    ];

    /// The snake_case word used in every report (see the table above).
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordOutcome::Skipped => "skipped",
            RecordOutcome::Allow => "allow",
            RecordOutcome::Transform => "transform",
            RecordOutcome::Block => "block",
            RecordOutcome::Ask => "ask",
            RecordOutcome::Timeout => "timeout",
            RecordOutcome::FailedClosed => "failed_closed",
            RecordOutcome::Error => "error",
            RecordOutcome::NotRun => "not_run",
        }
    }

    /// Whether the action stops: a block, a timeout or a fail-closed failure.
    pub const fn is_block(self) -> bool {
        matches!(
            self,
            RecordOutcome::Block | RecordOutcome::Timeout | RecordOutcome::FailedClosed
        )
    }

    /// [`Timeout`](Self::Timeout) and [`FailedClosed`](Self::FailedClosed)
    /// folded into [`Block`](Self::Block), every other outcome as it is: the
    /// `outcome` of the `hooks test --json` report, whose contract fixes its
    /// values (`skipped`, `allow`, `transform`, `block`, `ask`, `error`, `not_run`).
    pub const fn folded(self) -> RecordOutcome {
        if self.is_block() {
            RecordOutcome::Block
        } else {
            self
        }
    }
}

impl From<BlockCause> for RecordOutcome {
    fn from(cause: BlockCause) -> Self {
        match cause {
            BlockCause::Hook => RecordOutcome::Block,
            BlockCause::Timeout => RecordOutcome::Timeout,
            BlockCause::FailedClosed => RecordOutcome::FailedClosed,
        }
    }
}

impl From<Decision> for RecordOutcome {
    /// The word of a call's [`Decision`]: `allow`, `transform`, `block` or `ask`.
    fn from(decision: Decision) -> Self {
        match decision {
            Decision::Allow => RecordOutcome::Allow,
            Decision::Transform => RecordOutcome::Transform,
            Decision::Block => RecordOutcome::Block,
            Decision::Ask => RecordOutcome::Ask,
        }
    }
}

impl fmt::Display for RecordOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The last line of `stdout` that is not empty or blank.
pub fn last_nonempty_line(stdout: &[u8]) -> Option<&[u8]> {
    stdout
        .split(|&b| b == b'\n')
        .rev()
        .find(|line| !line.iter().all(|b| b.is_ascii_whitespace()))
}

pub(crate) type Records = SmallVec<[HookRecord; 1]>;

/// The stack's answer for one event.
///
/// ```
/// use serde_json::json;
/// use tower_hooks::{Decision, HookOutcome, HookRequest};
///
/// let outcome = HookOutcome::allow(HookRequest::input("hi"));
/// assert_eq!(outcome.decision(), Decision::Allow);
/// assert!(!outcome.is_blocked());
/// assert_eq!(outcome.arguments(), &json!({"prompt": "hi"}));
/// ```
#[derive(Debug, Clone)]
pub struct HookOutcome {
    event: Event,
    decision: Decision,
    honored: bool,
    reason: Option<Box<str>>,
    arguments: Arc<Value>,
    hooks: Records,
    /// Boxed and absent unless a hook left a note: nanopi's hooks never do, and
    /// an outcome stays small on the paths that run no hook.
    notes: Option<Box<Notes>>,
}

impl HookOutcome {
    pub(crate) fn from_parts(
        event: Event,
        decision: Decision,
        honored: bool,
        reason: Option<String>,
        arguments: Arc<Value>,
        hooks: Records,
    ) -> Self {
        HookOutcome {
            event,
            decision,
            honored,
            reason: reason.map(String::into_boxed_str),
            notes: None,
            arguments,
            hooks,
        }
    }

    /// The event.
    pub fn event(&self) -> Event {
        self.event
    }

    /// What the hooks said.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// Whether the decision takes effect at this event: `false` for a dropped
    /// block and for a transform the event ignores.
    pub fn is_honored(&self) -> bool {
        self.honored
    }

    /// Whether the action must stop: a block that is honored.
    pub fn is_blocked(&self) -> bool {
        self.decision == Decision::Block && self.honored
    }

    /// Whether a person must approve the action before it goes ahead: the
    /// decision is [`Decision::Ask`] and it takes effect here. An agent without a
    /// way to ask refuses the action, with the [reason](Self::reason).
    pub fn needs_approval(&self) -> bool {
        self.decision == Decision::Ask && self.honored
    }

    /// The block's reason, when the decision is [`Decision::Block`]; the reason
    /// approval is needed, when it is [`Decision::Ask`].
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The arguments after every honored transform: what the agent carries on with.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// Takes the argument `key` out of the arguments, without a copy when
    /// nothing else holds them: for a call site that hands a value back to
    /// the host.
    pub(crate) fn take_argument(&mut self, key: &str) -> Option<Value> {
        match Arc::make_mut(&mut self.arguments) {
            Value::Object(args) => args.remove(key),
            _ => None,
        }
    }

    /// Takes the arguments.
    pub fn into_arguments(self) -> Value {
        Arc::try_unwrap(self.arguments).unwrap_or_else(|shared| (*shared).clone())
    }

    /// The rewritten prompt of a `before_agent_start` / `input` outcome.
    pub fn prompt(&self) -> Option<&str> {
        self.arguments.get("prompt").and_then(Value::as_str)
    }

    /// One record per hook configured for the event, in execution order.
    pub fn hooks(&self) -> &[HookRecord] {
        &self.hooks
    }

    /// For an honored block, the exact text the agent shows: in the words
    /// of the blocking hook's own host where its dialect has them (Gemini
    /// CLI's `Tool execution blocked: <reason>`), else the event's
    /// (`blocked by hook: <reason>`); otherwise `None`. The CLI's report
    /// gives it as `host_message`.
    pub fn message(&self) -> Option<String> {
        if !self.is_blocked() {
            return None;
        }
        self.dialect_message().or_else(|| {
            self.event
                .refusal_message(self.reason.as_deref().unwrap_or(DEFAULT_BLOCK_REASON))
        })
    }

    /// The report's `message`: [`message`](Self::message), but before a
    /// tool runs always the event's own wording, `blocked by hook: <reason>`
    /// (the CLI's contract), whichever dialect blocked.
    fn report_message(&self) -> Option<String> {
        if self.event == Event::ToolExecutionStart && self.is_blocked() {
            let reason = self.reason.as_deref().unwrap_or(DEFAULT_BLOCK_REASON);
            return self.event.refusal_message(reason);
        }
        self.message()
    }

    /// For an honored block whose hook's dialect words the refusal its own
    /// way (Gemini CLI's `Tool execution blocked: <reason>` before a tool
    /// and `Tool result blocked: <reason>` after it), that text; otherwise
    /// `None`.
    pub fn dialect_message(&self) -> Option<String> {
        if !self.is_blocked() {
            return None;
        }
        let (before, after) = self
            .hooks
            .iter()
            .find(|record| record.outcome() == RecordOutcome::Block)
            .and_then(|record| record.spec().refusal(self.event))?;
        let reason = self.reason.as_deref().unwrap_or(DEFAULT_BLOCK_REASON);
        Some(format!("{before}{reason}{after}"))
    }

    /// What hooks handed over besides their decision (empty for nanopi hooks).
    pub fn notes(&self) -> Option<&Notes> {
        self.notes.as_deref()
    }

    /// Text for the model's context, one element per message, in config order.
    pub fn context(&self) -> &[String] {
        self.notes.as_deref().map_or(&[], |n| &n.context)
    }

    /// Messages for the person, one element per message, in config order.
    pub fn user_messages(&self) -> &[String] {
        self.notes.as_deref().map_or(&[], |n| &n.user_messages)
    }

    /// The variables hooks set for the session ([`Notes::env`]): for the
    /// host to use, e.g. in the shell its tools run.
    pub fn env(&self) -> &[(String, String)] {
        self.notes.as_deref().map_or(&[], |n| &n.env)
    }

    /// A title for the session a hook gave ([`Notes::session_title`]).
    pub fn session_title(&self) -> Option<&str> {
        self.notes.as_deref()?.session_title.as_deref()
    }

    /// Whether a hook asked that the prompt not be shown as the user's
    /// message ([`Notes::suppress_original_prompt`]).
    pub fn suppresses_original_prompt(&self) -> bool {
        self.notes
            .as_deref()
            .is_some_and(|n| n.suppress_original_prompt)
    }

    /// A first user message a hook gave ([`Notes::initial_user_message`]).
    pub fn initial_user_message(&self) -> Option<&str> {
        self.notes.as_deref()?.initial_user_message.as_deref()
    }

    /// The paths to watch from now on, when a hook gave them
    /// ([`Notes::watch_paths`]).
    pub fn watch_paths(&self) -> Option<&[String]> {
        self.notes.as_deref()?.watch_paths.as_deref()
    }

    /// The plugin folders hooks asked the host to load for the workspace
    /// ([`Notes::plugin_paths`]); empty when none did.
    pub fn plugin_paths(&self) -> &[String] {
        self.notes
            .as_deref()
            .map_or(&[][..], |notes| &notes.plugin_paths)
    }

    /// What a background hook woke the agent with ([`Notes::wake_up`]): it
    /// comes with the session's next call, its text also in
    /// [`context`](Self::context).
    pub fn wake_up(&self) -> Option<&str> {
        self.notes.as_deref()?.wake_up.as_deref()
    }

    /// Whether a hook deferred the action ([`Notes::deferred`]): the decision
    /// is [`Decision::Ask`], it takes effect here, and of the hooks that
    /// asked one deferred (Claude Code's precedence: deny, then defer, then
    /// ask). The action does not run and nobody is asked: the host pauses
    /// and offers the same call again later.
    pub fn is_deferred(&self) -> bool {
        self.needs_approval() && self.notes.as_deref().is_some_and(|n| n.deferred)
    }

    /// The tool input to ask the person about, when the decision is
    /// [`Decision::Ask`] and a hook that asked rewrote the input
    /// ([`Notes::ask_input`]); the call runs with it once approved.
    pub fn ask_input(&self) -> Option<&Map<String, Value>> {
        if self.decision != Decision::Ask {
            return None;
        }
        self.notes.as_deref()?.ask_input.as_ref()
    }

    /// The permission updates hooks asked for with their allow
    /// ([`Notes::updated_permissions`]).
    pub fn updated_permissions(&self) -> &[Value] {
        self.notes
            .as_deref()
            .map_or(&[], |n| &n.updated_permissions)
    }

    /// The reason, possibly empty, when a hook asked to stop the agent.
    pub fn stop(&self) -> Option<&str> {
        self.notes.as_deref().and_then(|n| n.stop.as_deref())
    }

    /// The blocking hook's own rule for its block ([`Notes::block_honored`]).
    pub(crate) fn block_honored(&self) -> Option<bool> {
        self.notes.as_deref().and_then(|n| n.block_honored)
    }

    /// Whether a hook explicitly allowed the action and none blocked or asked:
    /// the agent may go ahead without asking the person (a permission prompt
    /// answered by a hook).
    ///
    /// ```
    /// use tower_hooks::{HookOutcome, HookRequest};
    ///
    /// let outcome = HookOutcome::allow(HookRequest::input("hi"));
    /// assert!(!outcome.is_approved()); // no hook said so
    /// ```
    pub fn is_approved(&self) -> bool {
        matches!(self.decision, Decision::Allow | Decision::Transform)
            && self.notes.as_deref().is_some_and(|n| n.approved)
    }

    /// The instruction to keep going, when there is one: the reason of an
    /// honored block at the agent's stop ([`BlockPolicy::FollowUp`](crate::BlockPolicy::FollowUp)),
    /// with what the blocking hook's dialect added after it (Claude Code's
    /// `additionalContext` beside a Stop block), or a hook's own follow-up
    /// field.
    ///
    /// ```
    /// use tower_hooks::{HookOutcome, HookRequest};
    /// assert_eq!(HookOutcome::allow(HookRequest::stop(false, "done")).follow_up(), None);
    /// ```
    pub fn follow_up(&self) -> Option<&str> {
        if self.is_blocked() && self.event.block_policy() == crate::BlockPolicy::FollowUp {
            let reason = self.reason.as_deref().unwrap_or(DEFAULT_BLOCK_REASON);
            // A follow-up its dialect made of this reason and more.
            let made = self.notes.as_deref().and_then(|n| n.follow_up.as_deref());
            return Some(made.filter(|m| m.starts_with(reason)).unwrap_or(reason));
        }
        self.notes.as_deref().and_then(|n| n.follow_up.as_deref())
    }

    /// Adds notes after the ones already there.
    pub(crate) fn add_notes(&mut self, notes: Notes) {
        if notes.is_empty() {
            return;
        }
        match &mut self.notes {
            Some(mine) => mine.merge(notes),
            None => self.notes = Some(Box::new(notes)),
        }
    }

    /// Marks the decision as not taking effect (the advisory layer does this).
    pub(crate) fn drop_decision(&mut self) {
        self.honored = false;
    }
}

impl Serialize for HookOutcome {
    /// The JSON report of the `hooks` CLI.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(Some(14))?;
        m.serialize_entry("event", &self.event)?;
        m.serialize_entry("decision", self.decision.as_str())?;
        m.serialize_entry("honored", &self.honored)?;
        m.serialize_entry("reason", &self.reason)?;
        m.serialize_entry("message", &self.report_message())?;
        m.serialize_entry("host_message", &self.message())?;
        m.serialize_entry("arguments", &*self.arguments)?;
        m.serialize_entry("context", self.context())?;
        m.serialize_entry("user_messages", self.user_messages())?;
        m.serialize_entry("stop", &self.stop())?;
        m.serialize_entry("follow_up", &self.follow_up())?;
        m.serialize_entry("deferred", &self.is_deferred())?;
        m.serialize_entry("env", &EnvObject(self.env()))?;
        m.serialize_entry("hooks", &self.hooks[..])?;
        m.end()
    }
}

/// Variables as a JSON object, in their order.
struct EnvObject<'a>(&'a [(String, String)]);

impl Serialize for EnvObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            m.serialize_entry(name, value)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests;
