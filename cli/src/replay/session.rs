//! One session file, read as a stream of events: its format is detected from
//! its content (a Claude Code transcript, or a `RecordLayer` record), and each
//! line is read, turned into events and forgotten.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};
use tower_hooks::config::read::{open_regular, FileError};
use tower_hooks_layers::record::{RecordedRequest, RECORD_TYPE};

use super::event::{ReplayEvent, Selection};
use super::lines::{Line, Lines, MAX_LINE};
use super::transcript::{self, Transcript};

/// Lines that were not replayed, by why.
pub(crate) type Skips = BTreeMap<&'static str, u64>;

/// What each kind of skip means, for people.
pub(crate) fn describe_skip(kind: &str) -> &'static str {
    match kind {
        "not_json" => "not JSON (a line cut short by a crash reads so)",
        "not_an_object" => "not a JSON object",
        "unknown_type" => "of a type this version does not know",
        "invalid" => "missing fields or holding fields of the wrong shape",
        "newer_version" => "written by a newer record format (upgrade hooks)",
        "unknown_event" => "naming an event this version does not know",
        "too_long" => "longer than 16 MiB",
        "unpaired_result" => "a tool result whose call is not in the file",
        _ => "unreadable",
    }
}

/// Why a file cannot be replayed at all.
#[derive(Debug)]
pub(crate) enum OpenError {
    Io(io::Error),
    /// Not a regular file: what it is.
    NotAFile(String),
    /// No line is a Claude Code transcript line or a record line.
    NotASession,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(e) => write!(f, "cannot read it: {e}"),
            OpenError::NotAFile(what) => write!(f, "{what}; hooks replay reads regular files only"),
            OpenError::NotASession => write!(
                f,
                "neither a Claude Code transcript nor a session record (no line has \
                 \"sessionId\", or \"type\":\"{RECORD_TYPE}\"); name a session file, or a \
                 directory of them"
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Claude,
    Record,
}

/// A session file being read.
#[derive(Debug)]
pub(crate) struct SessionReader {
    lines: Lines<BufReader<File>>,
    format: Option<Format>,
    transcript: Transcript,
    stem: Arc<str>,
    pending: VecDeque<ReplayEvent>,
    pub(crate) skips: Skips,
}

impl From<FileError> for OpenError {
    fn from(error: FileError) -> Self {
        match error {
            FileError::Io(e) => OpenError::Io(e),
            other => OpenError::NotAFile(other.to_string()),
        }
    }
}

impl SessionReader {
    /// Opens the session file at `path` (a regular file, else an error: a
    /// FIFO or a device is never read); its events tell hooks the
    /// transcript is at `shown` and the session ran in `cwd`.
    pub(crate) fn open(path: &Path, shown: &Path, cwd: Arc<str>) -> Result<Self, OpenError> {
        let file = open_regular(path)?;
        let stem: Arc<str> = path
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default()
            .into();
        Ok(SessionReader {
            lines: Lines::new(BufReader::with_capacity(64 << 10, file), MAX_LINE),
            format: None,
            transcript: Transcript::new(shown, stem.clone(), cwd),
            stem,
            pending: VecDeque::new(),
            skips: Skips::new(),
        })
    }

    /// Tool calls forgotten unanswered, to bound what is kept for them.
    pub(crate) fn forgotten_calls(&self) -> u64 {
        self.transcript.forgotten
    }

    /// The next event `wanted` selects; `None` at the end of the file.
    pub(crate) fn next_event(
        &mut self,
        wanted: &Selection,
    ) -> Result<Option<ReplayEvent>, OpenError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            let number = self.lines.number() + 1;
            let line = match self.lines.next_line().map_err(OpenError::Io)? {
                None if self.format.is_none() => return Err(OpenError::NotASession),
                None => return Ok(None),
                Some(Line::TooLong(_)) => {
                    *self.skips.entry("too_long").or_default() += 1;
                    continue;
                }
                Some(Line::Text(text)) if text.iter().all(u8::is_ascii_whitespace) => continue,
                Some(Line::Text(text)) => text,
            };
            if self.format == Some(Format::Record) {
                match read_record(line, number, &self.stem, wanted) {
                    Ok(Some(event)) => return Ok(Some(event)),
                    Ok(None) => {}
                    Err(kind) => *self.skips.entry(kind).or_default() += 1,
                }
                continue;
            }
            let object: Map<String, Value> = match serde_json::from_slice(line) {
                Ok(Value::Object(object)) => object,
                Ok(_) => {
                    *self.skips.entry("not_an_object").or_default() += 1;
                    continue;
                }
                Err(_) => {
                    *self.skips.entry("not_json").or_default() += 1;
                    continue;
                }
            };
            if self.format.is_none() {
                if object.get("type").and_then(Value::as_str) == Some(RECORD_TYPE) {
                    self.format = Some(Format::Record);
                    match read_record(line, number, &self.stem, wanted) {
                        Ok(Some(event)) => return Ok(Some(event)),
                        Ok(None) => {}
                        Err(kind) => *self.skips.entry(kind).or_default() += 1,
                    }
                    continue;
                }
                if !transcript::recognizes(&object) {
                    return Err(OpenError::NotASession);
                }
                self.format = Some(Format::Claude);
            }
            if let Err(kind) = self
                .transcript
                .line(number, object, wanted, &mut self.pending)
            {
                *self.skips.entry(kind).or_default() += 1;
            }
        }
    }
}

/// One line of a record: the event, or `None` when `wanted` leaves it out.
fn read_record(
    line: &[u8],
    number: u64,
    stem: &Arc<str>,
    wanted: &Selection,
) -> Result<Option<ReplayEvent>, &'static str> {
    let record = RecordedRequest::from_line(line).map_err(|e| e.kind())?;
    let request = record.to_request().map_err(|e| e.kind())?;
    let event = request.event();
    if !wanted.has(event) {
        return Ok(None);
    }
    Ok(Some(ReplayEvent {
        name: event.name(),
        session: record.session_id.as_deref().map_or(stem.clone(), Arc::from),
        time: Some(record.time.into()),
        line: number,
        request,
    }))
}
