//! What hooks answer: [`Verdict`] from one hook, [`HookOutcome`] from the stack.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use smallvec::SmallVec;

use crate::event::Event;
use crate::spec::HookSpec;

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
    /// A person must approve the action (Claude Code's `ask` and `defer`,
    /// Cursor's `ask`). Without a way to ask, the action is refused with the
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

/// How a hook's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Termination {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it.
    Signaled(i32),
    /// It ran past its deadline and was killed.
    TimedOut,
}

/// The last line of `stdout` that is not empty or blank.
pub fn last_nonempty_line(stdout: &[u8]) -> Option<&[u8]> {
    stdout
        .split(|&b| b == b'\n')
        .rev()
        .find(|line| !line.iter().all(|b| b.is_ascii_whitespace()))
}

/// How much of a command hook's stderr a [`RunDetail`] keeps, and of its last
/// stdout line: 4 KiB.
pub const RUN_DETAIL_LIMIT: usize = 4096;

/// What a command hook's process did: how it ended, the head of its stderr and
/// its last stdout line. It tells a person why a hook answered what it did: an
/// exit 1 is not a block, a last stdout line that is not a JSON object answers
/// nothing, a script that is not found exits 127 with bash's message on stderr.
///
/// Kept only for command hooks run by a chain: see [`HookRecord::run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDetail {
    /// `None`: the process could not be started.
    termination: Option<Termination>,
    stderr: Box<str>,
    last_stdout_line: Option<Box<str>>,
}

impl RunDetail {
    /// The detail of a process that ran (to its end, or to its deadline) and
    /// left this stdout and stderr.
    pub(crate) fn ended(termination: Termination, stdout: &[u8], stderr: &[u8]) -> Self {
        RunDetail {
            termination: Some(termination),
            stderr: head(stderr).into(),
            last_stdout_line: last_nonempty_line(stdout)
                .map(|line| head(line).trim_end_matches('\r').into()),
        }
    }

    /// The detail of a process that could not be started.
    pub(crate) fn not_started() -> Self {
        RunDetail {
            termination: None,
            stderr: Box::default(),
            last_stdout_line: None,
        }
    }

    /// Whether the process was started; when it was not, the record's
    /// [reason](HookRecord::reason) says why.
    pub fn started(&self) -> bool {
        self.termination.is_some()
    }

    /// How the process ended; `None` when it could not be started.
    pub fn termination(&self) -> Option<Termination> {
        self.termination
    }

    /// Its exit status, when it exited by itself.
    pub fn exit_code(&self) -> Option<i32> {
        match self.termination {
            Some(Termination::Exited(code)) => Some(code),
            _ => None,
        }
    }

    /// The signal that ended it, when one did (other than at its deadline).
    pub fn signal(&self) -> Option<i32> {
        match self.termination {
            Some(Termination::Signaled(signal)) => Some(signal),
            _ => None,
        }
    }

    /// Whether it ran past its deadline and was killed.
    pub fn timed_out(&self) -> bool {
        matches!(self.termination, Some(Termination::TimedOut))
    }

    /// The first [`RUN_DETAIL_LIMIT`] bytes of its stderr, lossily decoded
    /// (empty when it wrote nothing); `None` when it could not be started.
    pub fn stderr(&self) -> Option<&str> {
        self.started().then_some(&*self.stderr)
    }

    /// Its last non-empty stdout line (where an answer is read from), at most
    /// [`RUN_DETAIL_LIMIT`] bytes of it, lossily decoded; `None` when it printed none.
    pub fn last_stdout_line(&self) -> Option<&str> {
        self.last_stdout_line.as_deref()
    }
}

/// The first [`RUN_DETAIL_LIMIT`] bytes of `bytes`, lossily decoded, cut on a
/// character boundary.
fn head(bytes: &[u8]) -> String {
    // A character cut at the limit decodes as U+FFFD past the limit: cut again.
    let slice = &bytes[..bytes.len().min(RUN_DETAIL_LIMIT + 3)];
    let mut text = String::from_utf8_lossy(slice).into_owned();
    if text.len() > RUN_DETAIL_LIMIT {
        let mut end = RUN_DETAIL_LIMIT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// Where the command leaf leaves its [`RunDetail`] for the chain's record: made
/// by the chain for each command hook it calls, carried by the request.
#[derive(Clone, Default)]
pub(crate) struct RunSlot(Arc<Mutex<SlotContent>>);

#[derive(Default)]
struct SlotContent {
    detail: Option<Box<RunDetail>>,
    notes: Option<Notes>,
}

impl RunSlot {
    pub(crate) fn put(&self, detail: RunDetail) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).detail = Some(Box::new(detail));
    }

    pub(crate) fn take(&self) -> Option<Box<RunDetail>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .detail
            .take()
    }

    /// Leaves a hook's notes for the chain (a dialect hook's context, …).
    pub(crate) fn put_notes(&self, notes: Notes) {
        if !notes.is_empty() {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).notes = Some(notes);
        }
    }

    pub(crate) fn take_notes(&self) -> Option<Notes> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .notes
            .take()
    }
}

impl fmt::Debug for RunSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RunSlot")
    }
}

/// One hook's part in a call: which hook, what it did, how long it took.
#[derive(Debug, Clone)]
pub struct HookRecord {
    spec: Arc<HookSpec>,
    // Boxed and in nanoseconds: records live inline in every outcome, which is
    // moved on every call.
    reason: Option<Box<str>>,
    nanos: u64,
    outcome: RecordOutcome,
    cause: Option<BlockCause>,
    // Command hooks only; boxed so that other records stay small.
    run: Option<Box<RunDetail>>,
}

impl HookRecord {
    pub(crate) fn new(spec: Arc<HookSpec>, verdict: &Verdict, duration: Duration) -> Self {
        let (reason, cause) = match verdict {
            Verdict::Block { reason, cause } => (Some(reason.as_str().into()), Some(*cause)),
            Verdict::FailedOpen { error } => (Some(error.as_str().into()), None),
            _ => (None, None),
        };
        HookRecord {
            spec,
            reason,
            nanos: u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX),
            outcome: verdict.record_outcome(),
            cause,
            run: None,
        }
    }

    /// Attaches what the hook's process did.
    pub(crate) fn with_run(mut self, run: Option<Box<RunDetail>>) -> Self {
        self.run = run;
        self
    }

    /// A hook that did not run for this call: its matcher did not match, its
    /// type is not runnable, or it is turned off (whose reason is recorded).
    pub(crate) fn skipped(spec: Arc<HookSpec>) -> Self {
        let reason = spec.disabled().map(Into::into);
        HookRecord {
            reason,
            ..HookRecord::new(spec, &Verdict::Skipped, Duration::ZERO)
        }
    }

    /// A hook handed to the background: started, or not (an error record
    /// with the reason).
    pub(crate) fn offloaded(spec: Arc<HookSpec>, started: Result<(), &'static str>) -> Self {
        let (verdict, reason) = match started {
            Ok(()) => (Verdict::Allow, "started in the background"),
            Err(reason) => (Verdict::failed_open(reason), reason),
        };
        HookRecord {
            reason: Some(reason.into()),
            ..HookRecord::new(spec, &verdict, Duration::ZERO)
        }
    }

    pub(crate) fn not_run(spec: Arc<HookSpec>) -> Self {
        HookRecord {
            spec,
            reason: None,
            nanos: 0,
            outcome: RecordOutcome::NotRun,
            cause: None,
            run: None,
        }
    }

    /// The hook.
    pub fn spec(&self) -> &Arc<HookSpec> {
        &self.spec
    }

    /// What it did.
    pub fn outcome(&self) -> RecordOutcome {
        self.outcome
    }

    /// What its process did (how it ended, its stderr, its last stdout line),
    /// for a command hook that a chain called; `None` for an in-process hook, a
    /// hook that was skipped or not run, and a command answered without running
    /// (by a cache, say).
    pub fn run(&self) -> Option<&RunDetail> {
        self.run.as_deref()
    }

    /// The block reason, or the error of a hook that failed open.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// What made a block: the hook, a timeout, or a fail-closed failure.
    pub fn block_cause(&self) -> Option<BlockCause> {
        self.cause
    }

    /// How long it ran (zero when skipped or not run).
    pub fn duration(&self) -> Duration {
        Duration::from_nanos(self.nanos)
    }
}

impl Serialize for HookRecord {
    /// One `hooks[]` entry of the JSON report: `outcome` has the contract's six
    /// values ([`RecordOutcome::folded`]), `outcome_detail` the whole vocabulary.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let run = self.run();
        let mut s = serializer.serialize_struct("HookRecord", 13)?;
        s.serialize_field("dialect", self.spec.dialect().as_str())?;
        s.serialize_field("source", self.spec.source())?;
        s.serialize_field("index", &self.spec.index())?;
        s.serialize_field("name", &self.spec.name())?;
        s.serialize_field("matcher", &self.spec.matcher())?;
        s.serialize_field("outcome", self.outcome.folded().as_str())?;
        s.serialize_field("outcome_detail", self.outcome.as_str())?;
        s.serialize_field("reason", &self.reason)?;
        s.serialize_field("duration_ms", &millis(self.duration()))?;
        s.serialize_field("exit", &run.and_then(RunDetail::exit_code))?;
        s.serialize_field("signal", &run.and_then(RunDetail::signal))?;
        s.serialize_field("stderr", &run.and_then(RunDetail::stderr))?;
        s.serialize_field("persistent", &self.spec.is_persistent())?;
        s.end()
    }
}

/// A duration in whole milliseconds, saturating.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
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

/// What hooks handed to the agent besides their decision: text for the model's
/// context, messages for the person, a request to stop, an instruction to keep
/// going. Each list keeps one element per message, in config order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Notes {
    /// Text for the model's context (Claude Code's `additionalContext`,
    /// Cursor's `additional_context`, …).
    pub context: Vec<String>,
    /// Messages for the person (`systemMessage`, `user_message`, …).
    pub user_messages: Vec<String>,
    /// A hook asked to stop the agent (`continue: false`), with its reason
    /// (possibly empty).
    pub stop: Option<String>,
    /// An instruction to keep going, set by a dialect's own field (Cursor's
    /// `followup_message`); a block at the agent's stop is one too (see
    /// [`HookOutcome::follow_up`]).
    pub follow_up: Option<String>,
    /// A hook explicitly allowed the action, so that the person need not be
    /// asked (Claude Code's `permissionDecision: "allow"`, or `decision.behavior:
    /// "allow"` on a permission request). A block or an ask still wins (see
    /// [`HookOutcome::is_approved`]).
    pub approved: bool,
    /// Whether the block a hook made takes effect, by its dialect's own rule
    /// for this event rather than by the point's
    /// [`BlockPolicy`](crate::BlockPolicy): a Claude Code `PreCompact` block
    /// prevents the compaction (`Some(true)`), a `PostToolUse` block only
    /// reaches the model (`Some(false)`). `None`: the point's policy decides.
    /// Of several, the first in config order counts.
    pub block_honored: Option<bool>,
}

impl Notes {
    /// Adds text for the model's context.
    ///
    /// ```
    /// use tower_hooks::Notes;
    /// let notes = Notes::default().with_context("lint passed").with_user_message("ok");
    /// assert_eq!(notes.context, ["lint passed"]);
    /// assert_eq!(notes.user_messages, ["ok"]);
    /// ```
    pub fn with_context(mut self, text: impl Into<String>) -> Self {
        self.context.push(text.into());
        self
    }

    /// Adds a message for the person.
    pub fn with_user_message(mut self, text: impl Into<String>) -> Self {
        self.user_messages.push(text.into());
        self
    }

    /// Asks to stop the agent, with a reason (possibly empty).
    pub fn with_stop(mut self, reason: impl Into<String>) -> Self {
        join_into(&mut self.stop, Some(reason.into()));
        self
    }

    /// Asks the agent to keep going with this instruction.
    pub fn with_follow_up(mut self, instruction: impl Into<String>) -> Self {
        join_into(&mut self.follow_up, Some(instruction.into()));
        self
    }

    /// Whether there is nothing in it.
    pub fn is_empty(&self) -> bool {
        self.context.is_empty()
            && self.user_messages.is_empty()
            && self.stop.is_none()
            && self.follow_up.is_none()
            && !self.approved
            && self.block_honored.is_none()
    }

    /// Appends `other`'s notes after these (`other` came later in config order);
    /// a later stop reason or follow-up joins the earlier one on a new line.
    pub fn merge(&mut self, other: Notes) {
        self.context.extend(other.context);
        self.user_messages.extend(other.user_messages);
        join_into(&mut self.stop, other.stop);
        join_into(&mut self.follow_up, other.follow_up);
        self.approved |= other.approved;
        self.block_honored = self.block_honored.or(other.block_honored);
    }
}

fn join_into(slot: &mut Option<String>, more: Option<String>) {
    match (slot.as_mut(), more) {
        (_, None) => {}
        (None, Some(more)) => *slot = Some(more),
        (Some(text), Some(more)) => {
            if !text.is_empty() && !more.is_empty() {
                text.push('\n');
            }
            text.push_str(&more);
        }
    }
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

    /// For an honored block, the exact text the agent shows; otherwise `None`.
    pub fn message(&self) -> Option<String> {
        if !self.is_blocked() {
            return None;
        }
        self.event
            .refusal_message(self.reason.as_deref().unwrap_or(DEFAULT_BLOCK_REASON))
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
    /// or a hook's own follow-up field.
    ///
    /// ```
    /// use tower_hooks::{HookOutcome, HookRequest};
    /// assert_eq!(HookOutcome::allow(HookRequest::stop(false, "done")).follow_up(), None);
    /// ```
    pub fn follow_up(&self) -> Option<&str> {
        if self.is_blocked() && self.event.block_policy() == crate::BlockPolicy::FollowUp {
            return Some(self.reason.as_deref().unwrap_or(DEFAULT_BLOCK_REASON));
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
        let mut m = serializer.serialize_map(Some(11))?;
        m.serialize_entry("event", &self.event)?;
        m.serialize_entry("decision", self.decision.as_str())?;
        m.serialize_entry("honored", &self.honored)?;
        m.serialize_entry("reason", &self.reason)?;
        m.serialize_entry("message", &self.message())?;
        m.serialize_entry("arguments", &*self.arguments)?;
        m.serialize_entry("context", self.context())?;
        m.serialize_entry("user_messages", self.user_messages())?;
        m.serialize_entry("stop", &self.stop())?;
        m.serialize_entry("follow_up", &self.follow_up())?;
        m.serialize_entry("hooks", &self.hooks[..])?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn notes_merge_in_order_and_join_their_texts() {
        let mut notes = Notes {
            context: vec!["a".into()],
            stop: Some("first".into()),
            ..Notes::default()
        };
        notes.merge(Notes {
            context: vec!["b".into()],
            user_messages: vec!["hi".into()],
            stop: Some("second".into()),
            follow_up: Some("go on".into()),
            approved: true,
            block_honored: Some(false),
        });
        assert!(notes.approved);
        assert_eq!(notes.block_honored, Some(false));
        assert_eq!(notes.context, ["a", "b"]);
        assert_eq!(notes.user_messages, ["hi"]);
        assert_eq!(notes.stop.as_deref(), Some("first\nsecond"));
        assert_eq!(notes.follow_up.as_deref(), Some("go on"));
        assert!(!notes.is_empty());
        assert!(Notes::default().is_empty());
    }

    #[test]
    fn a_block_at_the_agents_stop_is_the_follow_up() {
        let spec = Arc::new(HookSpec::in_process(Event::Stop, "keep-going"));
        let rec = HookRecord::new(spec, &Verdict::block("run the tests"), Duration::ZERO);
        let out = HookOutcome::from_parts(
            Event::Stop,
            Decision::Block,
            true,
            Some("run the tests".into()),
            Arc::new(json!({})),
            [rec].into_iter().collect(),
        );
        assert_eq!(out.follow_up(), Some("run the tests"));
        assert_eq!(out.message().as_deref(), Some("run the tests"));
        let json = serde_json::to_value(&out).unwrap();
        assert_eq!(json["follow_up"], "run the tests");
        assert_eq!(json["context"], json!([]));
        assert_eq!(json["user_messages"], json!([]));
        assert_eq!(json["stop"], Value::Null);
        assert_eq!(json["hooks"][0]["dialect"], "nanopi");
    }

    #[test]
    fn message_only_for_an_honored_block() {
        let spec = Arc::new(HookSpec::command(Event::ToolExecutionStart, "x"));
        let rec = HookRecord::new(spec, &Verdict::block("no"), Duration::from_millis(4));
        let mut out = HookOutcome::from_parts(
            Event::ToolExecutionStart,
            Decision::Block,
            true,
            Some("no".into()),
            Arc::new(json!({})),
            [rec].into_iter().collect(),
        );
        assert_eq!(out.message().as_deref(), Some("blocked by hook: no"));
        out.drop_decision();
        assert_eq!(out.message(), None);
        assert!(!out.is_blocked());
    }

    #[test]
    fn serializes_to_the_contract_shape() {
        let spec = Arc::new(
            HookSpec::command(Event::ToolExecutionStart, "x")
                .with_matcher("^bash$")
                .unwrap()
                .with_source("/h/.nanopi/config.toml", 0),
        );
        let rec = HookRecord::new(spec, &Verdict::block("why"), Duration::from_millis(4));
        let out = HookOutcome::from_parts(
            Event::ToolExecutionStart,
            Decision::Block,
            true,
            Some("why".into()),
            Arc::new(json!({"command": "rm"})),
            [rec].into_iter().collect(),
        );
        assert_eq!(
            serde_json::to_value(&out).unwrap(),
            json!({
                "event": "tool_execution_start", "decision": "block", "honored": true,
                "reason": "why", "message": "blocked by hook: why",
                "arguments": {"command": "rm"},
                "context": [], "user_messages": [], "stop": null, "follow_up": null,
                "hooks": [{"dialect": "nanopi", "source": "/h/.nanopi/config.toml", "index": 0, "name": null, "matcher": "^bash$",
                           "outcome": "block", "outcome_detail": "block", "reason": "why",
                           "duration_ms": 4, "exit": null, "signal": null, "stderr": null,
                           "persistent": false}]
            })
        );
    }

    fn finished(termination: Termination, stdout: &[u8], stderr: &[u8]) -> RunDetail {
        RunDetail::ended(termination, stdout, stderr)
    }

    fn record_with(verdict: &Verdict, run: Option<RunDetail>) -> Value {
        let spec = Arc::new(HookSpec::command(Event::Input, "x").with_source("f", 0));
        let rec = HookRecord::new(spec, verdict, Duration::ZERO).with_run(run.map(Box::new));
        serde_json::to_value(&rec).unwrap()
    }

    #[test]
    fn a_record_shows_how_the_process_ended_and_its_stderr() {
        let exited = finished(
            Termination::Exited(1),
            b"checking...\nnot json\r\n\n",
            b"lint: command not found\n",
        );
        assert_eq!(exited.exit_code(), Some(1));
        assert_eq!(exited.signal(), None);
        assert_eq!(exited.last_stdout_line(), Some("not json"));
        let json = record_with(&Verdict::Allow, Some(exited));
        assert_eq!(json["outcome"], "allow");
        assert_eq!(json["exit"], 1);
        assert_eq!(json["signal"], Value::Null);
        assert_eq!(json["stderr"], "lint: command not found\n");

        let killed = finished(Termination::Signaled(9), b"", b"");
        let json = record_with(&Verdict::Allow, Some(killed));
        assert_eq!((&json["exit"], &json["signal"]), (&Value::Null, &json!(9)));
        assert_eq!(json["stderr"], "");

        // Could not start: no exit, no signal, no stderr; the reason says why.
        let json = record_with(
            &Verdict::failed_open("bash not found on PATH"),
            Some(RunDetail::not_started()),
        );
        assert_eq!(json["outcome"], "error");
        assert_eq!(json["reason"], "bash not found on PATH");
        assert_eq!(
            (&json["exit"], &json["signal"]),
            (&Value::Null, &Value::Null)
        );
        assert_eq!(json["stderr"], Value::Null);
    }

    #[test]
    fn the_stderr_kept_is_the_first_4_kib_on_a_character_boundary() {
        let mut stderr = vec![b'a'; RUN_DETAIL_LIMIT - 1];
        stderr.extend_from_slice("\u{e9}tail".as_bytes());
        let detail = finished(Termination::Exited(0), b"", &stderr);
        let kept = detail.stderr().unwrap();
        assert_eq!(kept.len(), RUN_DETAIL_LIMIT - 1);
        assert!(kept.bytes().all(|b| b == b'a'));
        let short = finished(Termination::Exited(0), b"", b"\xff!");
        assert_eq!(short.stderr(), Some("\u{fffd}!"));
    }

    #[test]
    fn timeout_and_failed_closed_have_their_own_words_and_fold_into_block() {
        let timeout = Verdict::timed_out(Duration::from_millis(300));
        let failed_closed = Verdict::failed_closed("exited with status 1");
        assert_eq!(timeout.record_outcome(), RecordOutcome::Timeout);
        assert_eq!(failed_closed.record_outcome(), RecordOutcome::FailedClosed);
        for (verdict, word) in [(&timeout, "timeout"), (&failed_closed, "failed_closed")] {
            let json = record_with(verdict, None);
            // The contract's six words in `outcome`, the vocabulary in `outcome_detail`.
            assert_eq!(json["outcome"], "block");
            assert_eq!(json["outcome_detail"], word);
        }
        let words: Vec<&str> = RecordOutcome::ALL.iter().map(|o| o.as_str()).collect();
        assert_eq!(
            words,
            [
                "skipped",
                "allow",
                "transform",
                "block",
                "ask",
                "timeout",
                "failed_closed",
                "error",
                "not_run"
            ]
        );
        let folded: Vec<&str> = RecordOutcome::ALL
            .iter()
            .map(|o| o.folded().as_str())
            .collect();
        assert_eq!(
            folded,
            [
                "skipped",
                "allow",
                "transform",
                "block",
                "ask",
                "block",
                "block",
                "error",
                "not_run"
            ]
        );
    }

    #[test]
    fn transform_takes_any_json_object_and_refuses_the_rest() {
        assert_eq!(
            Verdict::transform(json!({"a": 1})),
            Ok(Verdict::Transform(
                json!({"a": 1}).as_object().unwrap().clone()
            ))
        );
        for (value, kind) in [
            (json!(null), "null"),
            (json!([1]), "an array"),
            (json!(3), "a number"),
            (json!(true), "a boolean"),
        ] {
            let err = Verdict::transform(value.clone()).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("updated_input must be a JSON object, not {kind}")
            );
            assert_eq!(err.into_value(), value);
        }
    }
}
