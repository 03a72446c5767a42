//! What hooks answer: [`Verdict`] from one hook, [`HookOutcome`] from the stack.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use smallvec::SmallVec;

use crate::event::Event;
use crate::request::HookRequest;
use crate::spec::HookSpec;

/// The reason given when a hook blocks without saying why.
pub const DEFAULT_BLOCK_REASON: &str = "blocked by hook";

/// One hook's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Let the action proceed unchanged.
    Allow,
    /// Proceed with this `updated_input` object (read according to the event's
    /// [`TransformScope`](crate::TransformScope)).
    Transform(Map<String, Value>),
    /// Stop the action.
    Block {
        /// The reason, shown to the model or the user.
        reason: String,
        /// What made it a block.
        cause: BlockCause,
    },
    /// The hook did not run: its matcher did not match, or its type is not runnable.
    Skipped,
    /// The hook could not run and the action is allowed (nanopi's default).
    FailedOpen {
        /// What went wrong.
        error: String,
    },
}

/// What made a [`Verdict::Block`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockCause {
    /// The hook asked to block (exit 2, or `"decision":"block"`).
    Hook,
    /// The hook ran past its timeout.
    Timeout,
    /// The hook failed and is configured to fail closed.
    FailedClosed,
}

impl Verdict {
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

    /// The block of a fail-closed hook that failed with `error`.
    pub fn failed_closed(error: impl fmt::Display) -> Self {
        Verdict::Block {
            reason: format!("hook failed closed: {error}"),
            cause: BlockCause::FailedClosed,
        }
    }

    /// How this verdict is recorded.
    pub fn record_outcome(&self) -> RecordOutcome {
        match self {
            Verdict::Allow => RecordOutcome::Allow,
            Verdict::Transform(_) => RecordOutcome::Transform,
            Verdict::Block { .. } => RecordOutcome::Block,
            Verdict::Skipped => RecordOutcome::Skipped,
            Verdict::FailedOpen { .. } => RecordOutcome::Error,
        }
    }
}

/// What the hooks of one event decided, taken together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Nobody blocked or transformed.
    Allow,
    /// At least one hook answered with a usable `updated_input`, none blocked.
    Transform,
    /// A hook blocked (also on events that drop blocks).
    Block,
}

impl Decision {
    /// `allow`, `transform` or `block`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Transform => "transform",
            Decision::Block => "block",
        }
    }
}

/// What happened to one configured hook during a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordOutcome {
    /// Its matcher did not match, or its type is not runnable.
    Skipped,
    /// It allowed.
    Allow,
    /// It answered a usable `updated_input`.
    Transform,
    /// It blocked, timed out, or failed closed.
    Block,
    /// It could not run and failed open.
    Error,
    /// An earlier hook blocked, so it did not run.
    NotRun,
}

impl RecordOutcome {
    /// The snake_case name used in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordOutcome::Skipped => "skipped",
            RecordOutcome::Allow => "allow",
            RecordOutcome::Transform => "transform",
            RecordOutcome::Block => "block",
            RecordOutcome::Error => "error",
            RecordOutcome::NotRun => "not_run",
        }
    }
}

impl fmt::Display for RecordOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
        }
    }

    pub(crate) fn not_run(spec: Arc<HookSpec>) -> Self {
        HookRecord {
            spec,
            reason: None,
            nanos: 0,
            outcome: RecordOutcome::NotRun,
            cause: None,
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
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("HookRecord", 6)?;
        s.serialize_field("source", self.spec.source())?;
        s.serialize_field("index", &self.spec.index())?;
        s.serialize_field("matcher", &self.spec.matcher())?;
        s.serialize_field("outcome", self.outcome.as_str())?;
        s.serialize_field("reason", &self.reason)?;
        s.serialize_field("duration_ms", &millis(self.duration()))?;
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
}

impl HookOutcome {
    /// The outcome when no hook ran: allow, arguments unchanged.
    pub fn allow(request: HookRequest) -> Self {
        let event = request.event();
        HookOutcome {
            event,
            decision: Decision::Allow,
            honored: true,
            reason: None,
            arguments: request.into_shared_arguments(),
            hooks: Records::new(),
        }
    }

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

    /// The block's reason, when the decision is [`Decision::Block`].
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

    /// Marks the decision as not taking effect (the advisory layer does this).
    pub(crate) fn drop_decision(&mut self) {
        self.honored = false;
    }
}

impl Serialize for HookOutcome {
    /// The JSON report of the `hooks` CLI.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(Some(7))?;
        m.serialize_entry("event", &self.event)?;
        m.serialize_entry("decision", self.decision.as_str())?;
        m.serialize_entry("honored", &self.honored)?;
        m.serialize_entry("reason", &self.reason)?;
        m.serialize_entry("message", &self.message())?;
        m.serialize_entry("arguments", &*self.arguments)?;
        m.serialize_entry("hooks", &self.hooks[..])?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                "hooks": [{"source": "/h/.nanopi/config.toml", "index": 0, "matcher": "^bash$",
                           "outcome": "block", "reason": "why", "duration_ms": 4}]
            })
        );
    }
}
