//! Middleware that writes every request a stack sees as one JSON line: a session
//! record that `hooks replay` fires again, through today's hooks or tomorrow's.
//!
//! Put a [`RecordLayer`] around the whole call
//! ([`Builder::around_call`](tower_hooks::Builder::around_call)) and each event the
//! agent fires leaves one line, before its hooks run:
//!
//! ```text
//! {"type":"hook_request","v":1,"time":"2026-11-29T15:10:00.123Z","event":"tool_execution_start","session_id":"demo-1","cwd":"/home/u/app","tool_name":"bash","tool_call_id":"call_1","arguments":{"command":"ls"}}
//! ```
//!
//! [`RecordedRequest`] is that line's shape, for the writer here and for any
//! reader (`hooks replay` reads it with [`RecordedRequest::from_line`]):
//!
//! * `type`: always `hook_request`; `v`: the format's version, [`RECORD_VERSION`];
//! * `time`: when the agent fired the event (UTC, RFC 3339, milliseconds);
//! * `event`: the neutral event name (`tool_execution_start`, `input`, `stop`, …);
//! * `session_id`, `cwd`, `tool_name`, `tool_call_id`: from the request (`null` when absent);
//! * `arguments`: the event's arguments, as the hooks would receive them;
//! * `wire`: the fields a dialect keeps for its own hooks' stdin (Claude Code's
//!   `transcript_path`, …), left out when there are none.
//!
//! # What it writes, and what it keeps out
//!
//! A record holds what the agent showed its hooks: prompts, commands, and the
//! output of every tool. [`RecordLayer::redact_tool_output`] sees each tool's
//! output (the `tool_response` of a `tool_execution_end`) before it is written
//! and may blank or rewrite it. The arguments of other events are written as
//! they are.
//!
//! # Writes
//!
//! Lines go through a buffer in this process: [`RecordHandle::flush`] writes out
//! what is buffered (do it before the process exits; dropping the last layer
//! and handle flushes too). A failed write never fails or slows the call; it is
//! counted ([`RecordHandle::failed`]) and its error kept ([`RecordHandle::last_error`]).
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower::ServiceExt;
//! use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
//! use tower_hooks_layers::record::{RecordLayer, RecordedRequest};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("session.jsonl");
//! let (record, handle) = RecordLayer::open(&path)?;
//! let record = record.redact_tool_output(|_tool, output| output["content"] = json!("[redacted]"));
//! let stack = HookStack::builder()
//!     .fn_hook(HookSpec::in_process(Event::ToolExecutionStart, "guard"), |_: &HookRequest| {
//!         Verdict::Allow
//!     })
//!     .around_call(record)
//!     .build();
//!
//! let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}))
//!     .with_session_id("demo-1");
//! stack.clone().oneshot(req).await?;
//! let end = HookRequest::tool_execution_end(
//!     "bash", json!({"command": "ls"}), "token=s3cret", false, Default::default());
//! stack.oneshot(end).await?;
//! handle.flush()?;
//!
//! let text = std::fs::read_to_string(&path)?;
//! let mut lines = text.lines().map(|l| RecordedRequest::from_line(l.as_bytes()));
//! let start = lines.next().unwrap()?;
//! assert_eq!(start.event, "tool_execution_start");
//! assert_eq!(start.session_id.as_deref(), Some("demo-1"));
//! assert_eq!(start.to_request()?.arguments(), &json!({"command": "ls"}));
//! let end = lines.next().unwrap()?;
//! assert_eq!(end.arguments["tool_response"]["content"], "[redacted]");
//! # Ok(()) }
//! ```

use std::fmt;
use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tower_layer::Layer;
use tower_service::Service;

use tower_hooks::{Event, HookRequest};

use crate::time::rfc3339;

/// The `type` of every record line.
pub const RECORD_TYPE: &str = "hook_request";

/// The version of the record format this crate writes (`v`), and the newest it reads.
pub const RECORD_VERSION: u64 = 1;

/// One line of a session record: one request as the stack saw it. See the
/// [module docs](self) for the fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RecordedRequest {
    /// Always [`RECORD_TYPE`].
    #[serde(rename = "type")]
    pub kind: String,
    /// The format's version, [`RECORD_VERSION`] when written here.
    pub v: u64,
    /// When the event was fired (UTC, RFC 3339).
    pub time: String,
    /// The neutral event name.
    pub event: String,
    /// The session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The session's working directory the hooks were told about.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The tool name, on tool events.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// The tool call id.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The event's arguments.
    #[serde(default)]
    pub arguments: Value,
    /// The dialect's own stdin fields (see [`HookRequest::wire_fields`]).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub wire: Map<String, Value>,
}

impl RecordedRequest {
    /// What `request`, fired at `time`, is written as.
    pub fn from_request(request: &HookRequest, time: SystemTime) -> Self {
        RecordedRequest {
            kind: RECORD_TYPE.to_owned(),
            v: RECORD_VERSION,
            time: rfc3339(time),
            event: request.event().name().to_owned(),
            session_id: request.session_id().map(str::to_owned),
            cwd: request.cwd().map(str::to_owned),
            tool_name: request.tool_name().map(str::to_owned),
            tool_call_id: request.tool_call_id().map(str::to_owned),
            arguments: request.arguments().clone(),
            wire: request.wire_fields().cloned().unwrap_or_default(),
        }
    }

    /// Reads one line (without its line break). Any JSON object whose `type`
    /// is not [`RECORD_TYPE`] is [`LineError::UnknownType`], so that a reader
    /// can skip what a newer writer added and count it.
    pub fn from_line(line: &[u8]) -> Result<Self, LineError> {
        let value: Value = serde_json::from_slice(line).map_err(LineError::NotJson)?;
        let Value::Object(object) = &value else {
            return Err(LineError::NotAnObject);
        };
        match object.get("type") {
            Some(Value::String(kind)) if kind == RECORD_TYPE => {}
            Some(Value::String(kind)) => return Err(LineError::UnknownType(kind.clone())),
            _ => return Err(LineError::UnknownType(String::new())),
        }
        let record: RecordedRequest = serde_json::from_value(value).map_err(LineError::Invalid)?;
        if record.v > RECORD_VERSION {
            return Err(LineError::NewerVersion(record.v));
        }
        Ok(record)
    }

    /// The line: compact JSON and a line break.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).expect("a record always serializes");
        line.push('\n');
        line
    }

    /// The request to fire again: the same event, ids, directory, arguments
    /// and wire fields.
    pub fn to_request(&self) -> Result<HookRequest, LineError> {
        let event = Event::from_neutral_name(&self.event)
            .ok_or_else(|| LineError::UnknownEvent(self.event.clone()))?;
        let mut request = HookRequest::new(event, self.arguments.clone());
        if let Some(tool) = &self.tool_name {
            request = request.with_tool_name(tool.as_str());
        }
        if let Some(id) = &self.tool_call_id {
            request = request.with_tool_call_id(id.as_str());
        }
        if let Some(id) = &self.session_id {
            request = request.with_session_id(id.as_str());
        }
        if let Some(cwd) = &self.cwd {
            request = request.with_cwd(cwd.as_str());
        }
        if !self.wire.is_empty() {
            request = request.with_wire_fields(self.wire.clone());
        }
        Ok(request)
    }

    /// A tool's output (the `tool_response` of a `tool_execution_end`), which
    /// [`RecordLayer::redact_tool_output`] is given.
    pub fn tool_output_mut(&mut self) -> Option<&mut Value> {
        if self.event != Event::ToolExecutionEnd.name() {
            return None;
        }
        self.arguments.get_mut("tool_response")
    }
}

/// Why a line is not a record a reader can fire.
#[derive(Debug)]
#[non_exhaustive]
pub enum LineError {
    /// It is not JSON (a line cut short by a crash reads so).
    NotJson(serde_json::Error),
    /// It is JSON, but not an object.
    NotAnObject,
    /// Its `type` is not [`RECORD_TYPE`] (empty when it has no string `type`).
    UnknownType(String),
    /// A field has the wrong shape.
    Invalid(serde_json::Error),
    /// A newer writer's format version.
    NewerVersion(u64),
    /// An event name this version does not know.
    UnknownEvent(String),
}

impl LineError {
    /// A short name for counting skipped lines: `not_json`, `not_an_object`,
    /// `unknown_type`, `invalid`, `newer_version` or `unknown_event`.
    pub fn kind(&self) -> &'static str {
        match self {
            LineError::NotJson(_) => "not_json",
            LineError::NotAnObject => "not_an_object",
            LineError::UnknownType(_) => "unknown_type",
            LineError::Invalid(_) => "invalid",
            LineError::NewerVersion(_) => "newer_version",
            LineError::UnknownEvent(_) => "unknown_event",
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotJson(e) => write!(f, "not JSON ({e}); a line cut short reads so"),
            LineError::NotAnObject => f.write_str("not a JSON object"),
            LineError::UnknownType(kind) if kind.is_empty() => {
                write!(
                    f,
                    "no \"type\" (a record line has \"type\":\"{RECORD_TYPE}\")"
                )
            }
            LineError::UnknownType(kind) => write!(
                f,
                "unknown record type \"{kind}\" (this version reads \"{RECORD_TYPE}\")"
            ),
            LineError::Invalid(e) => write!(f, "not a valid record: {e}"),
            LineError::NewerVersion(v) => write!(
                f,
                "record version {v} is newer than this reader's ({RECORD_VERSION}); upgrade it"
            ),
            LineError::UnknownEvent(name) => write!(f, "unknown event \"{name}\""),
        }
    }
}

impl std::error::Error for LineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LineError::NotJson(e) | LineError::Invalid(e) => Some(e),
            _ => None,
        }
    }
}

/// What [`RecordLayer::redact_tool_output`] runs: the tool's name and its output.
type Redact = dyn Fn(&str, &mut Value) + Send + Sync;

/// Writes one record line per request. See the [module docs](self).
#[derive(Clone)]
pub struct RecordLayer {
    sink: Arc<Sink>,
    redact: Option<Arc<Redact>>,
}

impl fmt::Debug for RecordLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordLayer")
            .field("sink", &self.sink)
            .field("redacts", &self.redact.is_some())
            .finish()
    }
}

impl RecordLayer {
    /// Appends to the file at `path`, creating it if needed.
    pub fn open(path: impl AsRef<Path>) -> io::Result<(RecordLayer, RecordHandle)> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path.as_ref())?;
        Ok(RecordLayer::new(file))
    }

    /// Writes to `writer` (a file, a buffer in a test).
    pub fn new<W>(writer: W) -> (RecordLayer, RecordHandle)
    where
        W: Write + Send + 'static,
    {
        let sink = Arc::new(Sink {
            out: Mutex::new(BufWriter::new(Box::new(writer))),
            written: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            last_error: Mutex::new(None),
        });
        let layer = RecordLayer {
            sink: sink.clone(),
            redact: None,
        };
        (layer, RecordHandle { sink })
    }

    /// Runs `redact` on each tool's output before it is written: it gets the
    /// tool name and the `tool_response` object (`content`, `is_error`, …) and
    /// may change it as it likes. Only the record changes; the hooks still get
    /// the real output.
    pub fn redact_tool_output<F>(mut self, redact: F) -> Self
    where
        F: Fn(&str, &mut Value) + Send + Sync + 'static,
    {
        self.redact = Some(Arc::new(redact));
        self
    }
}

impl<S> Layer<S> for RecordLayer {
    type Service = Record<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Record {
            inner,
            layer: self.clone(),
        }
    }
}

/// Writes one record line for each request, then passes it on. See the
/// [module docs](self).
#[derive(Clone)]
pub struct Record<S> {
    inner: S,
    layer: RecordLayer,
}

impl<S> Record<S> {
    /// Wraps `inner`, writing to the record of `layer`.
    pub fn new(inner: S, layer: &RecordLayer) -> Self {
        layer.layer(inner)
    }

    define_inner_service_accessors!();
}

impl<S: fmt::Debug> fmt::Debug for Record<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("inner", &self.inner)
            .field("layer", &self.layer)
            .finish()
    }
}

impl<S> Service<HookRequest> for Record<S>
where
    S: Service<HookRequest>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let mut record = RecordedRequest::from_request(&req, SystemTime::now());
        if let Some(redact) = &self.layer.redact {
            let tool = record.tool_name.clone().unwrap_or_default();
            if let Some(output) = record.tool_output_mut() {
                redact(&tool, output);
            }
        }
        self.layer.sink.write(&record.to_line());
        self.inner.call(req)
    }
}

/// Where the lines go, shared by the layer, its services and the handle.
struct Sink {
    out: Mutex<BufWriter<Box<dyn Write + Send>>>,
    written: AtomicU64,
    failed: AtomicU64,
    last_error: Mutex<Option<String>>,
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("written", &self.written.load(Ordering::Relaxed))
            .field("failed", &self.failed.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Sink {
    fn write(&self, line: &str) {
        let result = self
            .out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write_all(line.as_bytes());
        match result {
            Ok(()) => self.written.fetch_add(1, Ordering::Relaxed),
            Err(e) => {
                self.failed(&e);
                0
            }
        };
    }

    fn failed(&self, error: &io::Error) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        *self
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(error.to_string());
    }
}

/// The host's side of a record: flush it, and see how many lines it took.
#[derive(Debug, Clone)]
pub struct RecordHandle {
    sink: Arc<Sink>,
}

impl RecordHandle {
    /// Writes out every buffered line.
    pub fn flush(&self) -> io::Result<()> {
        let result = self
            .sink
            .out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .flush();
        if let Err(e) = &result {
            self.sink.failed(e);
        }
        result
    }

    /// How many lines were handed to the writer.
    pub fn written(&self) -> u64 {
        self.sink.written.load(Ordering::Relaxed)
    }

    /// How many writes and flushes failed.
    pub fn failed(&self) -> u64 {
        self.sink.failed.load(Ordering::Relaxed)
    }

    /// The last write error, if any.
    pub fn last_error(&self) -> Option<String> {
        self.sink
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
