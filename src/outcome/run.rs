//! What a command hook's process did ([`RunDetail`]), and the slot that
//! carries it from the command leaf to the chain's record ([`RunSlot`]).

use std::fmt;
use std::sync::{Arc, Mutex};

use super::{last_nonempty_line, Notes, Termination};
use crate::sync::lock;

/// How much of a command hook's stderr a [`RunDetail`] keeps, and of its last
/// stdout line: 4 KiB.
pub const RUN_DETAIL_LIMIT: usize = 4096;

/// What a command hook's process did: how it ended, the head of its stderr and
/// its last stdout line. It tells a person why a hook answered what it did: an
/// exit 1 is not a block, a last stdout line that is not a JSON object answers
/// nothing, a script that is not found exits 127 with bash's message on stderr.
///
/// Kept only for command hooks run by a chain: see [`HookRecord::run`](super::HookRecord::run).
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
    /// [reason](super::HookRecord::reason) says why.
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
    /// What a dialect made for this run and reads when it is over (Claude
    /// Code's `CLAUDE_ENV_FILE`); dropped with the slot.
    scratch: Option<Box<dyn std::any::Any + Send>>,
}

impl RunSlot {
    pub(crate) fn put(&self, detail: RunDetail) {
        lock(&self.0).detail = Some(Box::new(detail));
    }

    pub(crate) fn take(&self) -> Option<Box<RunDetail>> {
        lock(&self.0).detail.take()
    }

    /// Leaves a hook's notes for the chain (a dialect hook's context, …).
    pub(crate) fn put_notes(&self, notes: Notes) {
        if !notes.is_empty() {
            lock(&self.0).notes = Some(notes);
        }
    }

    /// Keeps what a dialect made for this run, for its `finish` to take.
    pub(crate) fn put_scratch(&self, scratch: Box<dyn std::any::Any + Send>) {
        lock(&self.0).scratch = Some(scratch);
    }

    /// Takes what [`put_scratch`](Self::put_scratch) kept.
    pub(crate) fn take_scratch(&self) -> Option<Box<dyn std::any::Any + Send>> {
        lock(&self.0).scratch.take()
    }

    pub(crate) fn take_notes(&self) -> Option<Notes> {
        lock(&self.0).notes.take()
    }
}

impl fmt::Debug for RunSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RunSlot")
    }
}
