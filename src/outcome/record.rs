//! What one hook did: [`HookRecord`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::{BlockCause, RecordOutcome, RunDetail, Verdict};
use crate::request::SeenName;
use crate::spec::HookSpec;

/// One hook's part in a call: which hook, what it did, how long it took.
#[derive(Clone)]
pub struct HookRecord {
    spec: Arc<HookSpec>,
    // In nanoseconds, and what most records lack behind one thin pointer:
    // records live inline in every outcome, which is moved through every
    // layer on every call, so each byte here costs on the idle paths.
    nanos: u64,
    detail: Option<Box<Detail>>,
    outcome: RecordOutcome,
    cause: Option<BlockCause>,
    // The tool's name as this hook's dialect sees it, on tool events.
    tool_name: Option<Arc<str>>,
}

/// What a record holds only for some hooks: a reason, a process's run, the
/// warnings of an answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Detail {
    reason: Option<String>,
    // Command hooks only.
    run: Option<Box<RunDetail>>,
    warnings: Vec<String>,
}

impl Detail {
    fn reason(reason: String) -> Option<Box<Detail>> {
        Some(Box::new(Detail {
            reason: Some(reason),
            ..Detail::default()
        }))
    }
}

/// A dialect's own tool name (`Bash`) as a shared string, made once per name
/// and thread: a record holds a thin `Arc<str>` whether the name is the
/// host's or the dialect's, which keeps records (moved with every outcome)
/// small, and a thread's own list needs no lock on the call path.
fn interned(name: &'static str) -> Arc<str> {
    thread_local! {
        static NAMES: std::cell::RefCell<Vec<(&'static str, Arc<str>)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some((_, shared)) = names.iter().find(|(known, _)| *known == name) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(name);
        names.push((name, shared.clone()));
        shared
    })
}

impl fmt::Debug for HookRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let warnings = self.warnings();
        f.debug_struct("HookRecord")
            .field("spec", &self.spec)
            .field("reason", &self.reason())
            .field("nanos", &self.nanos)
            .field("outcome", &self.outcome)
            .field("cause", &self.cause)
            .field("run", &self.run())
            .field("warnings", &(!warnings.is_empty()).then_some(warnings))
            .field("tool_name", &self.tool_name)
            .finish()
    }
}

impl HookRecord {
    pub(crate) fn new(spec: Arc<HookSpec>, verdict: &Verdict, duration: Duration) -> Self {
        let (detail, cause) = match verdict {
            Verdict::Block { reason, cause } => (Detail::reason(reason.clone()), Some(*cause)),
            Verdict::FailedOpen { error } => (Detail::reason(error.clone()), None),
            _ => (None, None),
        };
        HookRecord {
            spec,
            nanos: u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX),
            detail,
            outcome: verdict.record_outcome(),
            cause,
            tool_name: None,
        }
    }

    /// Attaches the tool's name as the hook's dialect sees it.
    pub(crate) fn set_tool_name(&mut self, seen: Option<SeenName<'_>>) {
        self.tool_name = seen.map(|seen| match seen {
            SeenName::Static(name) => interned(name),
            SeenName::Shared(name) => name.clone(),
            SeenName::Made(name) => name,
        });
    }

    /// Attaches what the hook did that its dialect ignores.
    pub(crate) fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        if !warnings.is_empty() {
            self.detail_mut().warnings = warnings;
        }
        self
    }

    fn detail_mut(&mut self) -> &mut Detail {
        self.detail.get_or_insert_with(Box::default)
    }

    /// Attaches what the hook's process did.
    pub(crate) fn with_run(mut self, run: Option<Box<RunDetail>>) -> Self {
        if run.is_some() {
            self.detail_mut().run = run;
        } else if let Some(detail) = &mut self.detail {
            detail.run = None;
        }
        self
    }

    /// A hook that did not run for this call: its matcher did not match, its
    /// type is not runnable, or it is turned off (whose reason is recorded).
    pub(crate) fn skipped(spec: Arc<HookSpec>) -> Self {
        let detail = spec
            .disabled()
            .and_then(|why| Detail::reason(why.to_owned()));
        HookRecord {
            detail,
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
            detail: Detail::reason(reason.to_owned()),
            ..HookRecord::new(spec, &verdict, Duration::ZERO)
        }
    }

    pub(crate) fn not_run(spec: Arc<HookSpec>) -> Self {
        HookRecord {
            spec,
            nanos: 0,
            detail: None,
            outcome: RecordOutcome::NotRun,
            cause: None,
            tool_name: None,
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
        self.detail.as_ref().and_then(|d| d.run.as_deref())
    }

    /// The block reason, or the error of a hook that failed open.
    pub fn reason(&self) -> Option<&str> {
        self.detail.as_ref().and_then(|d| d.reason.as_deref())
    }

    /// What the hook did that its dialect ignores, one sentence each (a
    /// Claude Code hook's exit status that its JSON answer overrode, say);
    /// empty for most hooks.
    pub fn warnings(&self) -> &[String] {
        self.detail.as_ref().map_or(&[], |d| d.warnings.as_slice())
    }

    /// The tool's name as this hook saw it, on a tool event: its dialect's
    /// own name for the tool's kind (Claude Code's `Bash` for a host's
    /// `bash`), the host's alias for the dialect, or the host's name. `None`
    /// off tool events, and for a record made outside a chain.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool_name.as_deref()
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
        let mut s = serializer.serialize_struct("HookRecord", 17)?;
        s.serialize_field("dialect", self.spec.dialect().as_str())?;
        s.serialize_field("scope", self.spec.scope().as_str())?;
        // The event as the hook's own file names it (`PostToolUse` for a
        // Codex hook run after a failed call).
        s.serialize_field("event", self.spec.event_as_written())?;
        s.serialize_field("source", self.spec.source())?;
        s.serialize_field("index", &self.spec.index())?;
        s.serialize_field("name", &self.spec.name())?;
        s.serialize_field("matcher", &self.spec.matcher())?;
        s.serialize_field("outcome", self.outcome.folded().as_str())?;
        s.serialize_field("outcome_detail", self.outcome.as_str())?;
        s.serialize_field("reason", &self.reason())?;
        s.serialize_field("duration_ms", &millis(self.duration()))?;
        s.serialize_field("exit", &run.and_then(RunDetail::exit_code))?;
        s.serialize_field("signal", &run.and_then(RunDetail::signal))?;
        s.serialize_field("stderr", &run.and_then(RunDetail::stderr))?;
        s.serialize_field("persistent", &self.spec.is_persistent())?;
        s.serialize_field("tool_name", &self.tool_name())?;
        s.serialize_field("warnings", self.warnings())?;
        s.end()
    }
}

/// A duration in whole milliseconds, saturating.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
