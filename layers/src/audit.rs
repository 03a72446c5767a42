//! Middleware that appends one JSON line per hook run to an audit log, off the hot path.
//!
//! Put an [`AuditLayer`] around each hook ([`Builder::around_hook`](tower_hooks::Builder::around_hook))
//! and every hook that runs leaves one line, written in the order the hooks answered:
//!
//! ```text
//! {"time":"2026-11-29T15:10:00.123Z","event":"tool_execution_start","tool":"bash","tool_call_id":"call_1","session":"019abc","hook":"~/.nanopi/config.toml:0","decision":"block","reason":"no rm -rf here","duration_ms":3}
//! ```
//!
//! * `time`: when the hook was called (UTC, RFC 3339, milliseconds);
//! * `event`, `tool`, `tool_call_id`, `session`: from the request (`null` when absent);
//! * `hook`: the hook's [label](tower_hooks::HookSpec::label): its `name`, or
//!   `source:index` with the source shown as `~/…` or relative to the project;
//! * `decision`: the hook's [`RecordOutcome`], the word `hooks test` and the
//!   metrics use too: `allow`, `transform`, `block`, `skipped`, `timeout`,
//!   `failed_closed` (it could not run or failed, and its hook fails closed) or
//!   `error` (it could not run and failed open);
//! * `reason`: the block reason, the timeout's, or the error; `null` otherwise;
//! * `duration_ms`: how long the hook took, in whole milliseconds.
//!
//! The arguments and a transform's `updated_input` are not written: they can hold
//! secrets. A hook whose matcher did not match is not a run and is not written,
//! unless [`AuditBuilder::record_skipped`] asks for it. Inside a
//! [`HookStack`](tower_hooks::HookStack) the chain skips such a hook before the layers
//! around it, so only a hook that answers [`Verdict::Skipped`] itself (one behind
//! its own [`Matcher`](tower_hooks::layer::matcher::Matcher), say) can produce that line; the
//! stack's skipped hooks show in [`HookOutcome::hooks`](tower_hooks::HookOutcome::hooks).
//! A call dropped before its
//! hook answered (the agent was cancelled) leaves no line.
//!
//! # Off the hot path
//!
//! A hook call never waits for the disk. Each line goes into a bounded queue
//! ([`AuditBuilder::capacity`], default [`DEFAULT_CAPACITY`]) that a writer thread
//! drains; the thread writes each line in one piece (the file is opened
//! in append mode, so processes sharing a log do not interleave lines) and flushes
//! whenever the queue runs empty. When the queue is full, the writer has stopped,
//! or a write fails (a full disk), the line is dropped: the call is never slowed
//! down or failed by its audit line. Drops are counted
//! ([`AuditHandle::dropped`]) and reported with a `tracing` warning once per run
//! of drops, and again when lines get through.
//!
//! The [`AuditHandle`] is for the host: [`flush`](AuditHandle::flush) waits until
//! every line accepted so far is written, [`shutdown`](AuditHandle::shutdown) also
//! stops the writer. Await `shutdown` before the process exits. As a best effort,
//! when the layer, every service made from it and the handle are all dropped, the
//! writer writes out the queue, and the last drop waits up to [`DROP_GRACE`] for it.
//!
//! # Example
//!
//! ```
//! use serde_json::{json, Value};
//! use tower::ServiceExt;
//! use tower_hooks_layers::audit::AuditLayer;
//! use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("audit.jsonl");
//! let (audit, handle) = AuditLayer::open(&path)?;
//! let stack = HookStack::builder()
//!     .fn_hook(
//!         HookSpec::in_process(Event::ToolExecutionStart, "guard"),
//!         |req: &HookRequest| match req.arguments()["command"].as_str() {
//!             Some(cmd) if cmd.contains("rm -rf") => Verdict::block("no rm -rf here"),
//!             _ => Verdict::Allow,
//!         },
//!     )
//!     .around_hook(audit)
//!     .build();
//!
//! let req = HookRequest::tool_execution_start("bash", json!({"command": "rm -rf /"}))
//!     .with_session_id("019abc");
//! assert!(stack.oneshot(req).await?.is_blocked());
//! handle.shutdown().await;
//!
//! let text = std::fs::read_to_string(&path)?;
//! let line: Value = serde_json::from_str(text.lines().next().unwrap())?;
//! assert_eq!(line["event"], "tool_execution_start");
//! assert_eq!(line["tool"], "bash");
//! assert_eq!(line["session"], "019abc");
//! assert_eq!(line["hook"], "guard:0");
//! assert_eq!(line["decision"], "block");
//! assert_eq!(line["reason"], "no rm -rf here");
//! assert_eq!(handle.written(), 1);
//! assert_eq!(handle.dropped(), 0);
//! # Ok(()) }
//! ```
//!
//! # Order
//!
//! Around each hook, `AuditLayer` sits inside the fail-open layer, so a hook that
//! cannot be spawned is written as `error` with its error. Layers added before it
//! sit outside it: put it first to record what the chain saw (a cached answer
//! included, with its short duration), or after a cache to record only real runs.

use std::fmt;
use std::fs::OpenOptions;
use std::future::Future;
use std::io::{self, Write};
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{ready, Context, Poll};
use std::time::{Duration, SystemTime};

use pin_project::pin_project;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tower_layer::Layer;
use tower_service::Service;

use tower_hooks::{HookRequest, RecordOutcome, Verdict};

use crate::time::rfc3339;

/// How many lines may wait for the writer before new ones are dropped, by default.
pub const DEFAULT_CAPACITY: usize = 1024;

/// How long dropping the last reference to an audit log waits for its writer.
pub const DROP_GRACE: Duration = Duration::from_millis(500);

/// Configures an audit log. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct AuditBuilder {
    capacity: usize,
    record_skipped: bool,
}

impl Default for AuditBuilder {
    fn default() -> Self {
        AuditBuilder::new()
    }
}

impl AuditBuilder {
    /// A queue of [`DEFAULT_CAPACITY`] lines; skipped hooks not written.
    pub const fn new() -> Self {
        AuditBuilder {
            capacity: DEFAULT_CAPACITY,
            record_skipped: false,
        }
    }

    /// How many lines may wait for the writer (at least 1); past that, lines are dropped.
    pub const fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = if capacity == 0 { 1 } else { capacity };
        self
    }

    /// Also writes a line for each hook that answers [`Verdict::Skipped`]
    /// (`"decision":"skipped"`); see the [module docs](self) for which do.
    pub const fn record_skipped(mut self, record_skipped: bool) -> Self {
        self.record_skipped = record_skipped;
        self
    }

    /// Appends to the file at `path`, creating it if needed.
    ///
    /// Fails when the file cannot be opened or the writer thread cannot be started;
    /// once it runs, write errors are counted as drops instead.
    pub fn open(self, path: impl AsRef<Path>) -> io::Result<(AuditLayer, AuditHandle)> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path.as_ref())?;
        self.writer(file)
    }

    /// Writes to `writer` (a file, a socket, a buffer in a test) from a writer thread.
    ///
    /// Fails when the writer thread cannot be started.
    pub fn writer<W>(self, writer: W) -> io::Result<(AuditLayer, AuditHandle)>
    where
        W: Write + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(self.capacity);
        let stats = Arc::new(Stats::default());
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let thread_stats = stats.clone();
        std::thread::Builder::new()
            .name("tower-hooks-audit".into())
            .spawn(move || {
                Writer::new(writer, thread_stats).run(rx);
                drop(done_tx);
            })?;
        let sink = Arc::new(Sink {
            tx,
            stats,
            _done: WriterDone(Mutex::new(done_rx)),
        });
        let layer = AuditLayer {
            sink: sink.clone(),
            record_skipped: self.record_skipped,
        };
        Ok((layer, AuditHandle { sink }))
    }
}

/// Writes one audit line per hook run. See the [module docs](self).
#[derive(Clone)]
pub struct AuditLayer {
    sink: Arc<Sink>,
    record_skipped: bool,
}

impl AuditLayer {
    /// Appends to the file at `path` with the default settings. See [`AuditBuilder::open`].
    pub fn open(path: impl AsRef<Path>) -> io::Result<(AuditLayer, AuditHandle)> {
        AuditBuilder::new().open(path)
    }

    /// Writes to `writer` with the default settings. See [`AuditBuilder::writer`].
    pub fn new<W>(writer: W) -> io::Result<(AuditLayer, AuditHandle)>
    where
        W: Write + Send + 'static,
    {
        AuditBuilder::new().writer(writer)
    }

    /// Starts configuring an audit log (queue capacity, skipped hooks).
    pub const fn builder() -> AuditBuilder {
        AuditBuilder::new()
    }
}

impl fmt::Debug for AuditLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditLayer")
            .field("sink", &self.sink)
            .field("record_skipped", &self.record_skipped)
            .finish()
    }
}

impl<S> Layer<S> for AuditLayer {
    type Service = Audit<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Audit {
            inner,
            sink: self.sink.clone(),
            record_skipped: self.record_skipped,
        }
    }
}

/// Writes one audit line per call of the hook inside. See the [module docs](self).
#[derive(Clone)]
pub struct Audit<S> {
    inner: S,
    sink: Arc<Sink>,
    record_skipped: bool,
}

impl<S> Audit<S> {
    /// Wraps `inner`, writing to the log of `layer`.
    pub fn new(inner: S, layer: &AuditLayer) -> Self {
        layer.layer(inner)
    }

    define_inner_service_accessors!();
}

impl<S: fmt::Debug> fmt::Debug for Audit<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Audit")
            .field("inner", &self.inner)
            .field("sink", &self.sink)
            .field("record_skipped", &self.record_skipped)
            .finish()
    }
}

impl<S> Service<HookRequest> for Audit<S>
where
    S: Service<HookRequest, Response = Verdict>,
    S::Error: fmt::Display,
{
    type Response = Verdict;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    // poll_ready: pass through.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        // A clone of the request is a handful of reference counts.
        let pending = Pending {
            sink: self.sink.clone(),
            record_skipped: self.record_skipped,
            request: req.clone(),
            time: SystemTime::now(),
            started: Instant::now(),
        };
        ResponseFuture {
            future: self.inner.call(req),
            pending: Some(pending),
        }
    }
}

/// The response future of [`Audit`].
#[pin_project]
pub struct ResponseFuture<F> {
    #[pin]
    future: F,
    pending: Option<Pending>,
}

impl<F> fmt::Debug for ResponseFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseFuture").finish_non_exhaustive()
    }
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Verdict, E>>,
    E: fmt::Display,
{
    type Output = Result<Verdict, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let result = ready!(this.future.poll(cx));
        let pending = this
            .pending
            .take()
            .expect("Audit future polled after completion");
        let duration = pending.started.elapsed();
        let (decision, reason) = match &result {
            Ok(verdict) => describe(verdict),
            // The fail-open layer outside turns the error into a block for a
            // hook that fails closed, and into an allow otherwise.
            Err(err) => {
                let fail_closed = pending.request.hook().is_some_and(|h| h.fail_closed());
                let outcome = if fail_closed {
                    RecordOutcome::FailedClosed
                } else {
                    RecordOutcome::Error
                };
                (outcome.as_str(), Some(err.to_string()))
            }
        };
        if decision != "skipped" || pending.record_skipped {
            pending.sink.send(Entry {
                request: pending.request,
                time: pending.time,
                decision,
                reason,
                duration,
            });
        }
        Poll::Ready(result)
    }
}

/// What is kept from a call until its hook answers.
struct Pending {
    sink: Arc<Sink>,
    record_skipped: bool,
    request: HookRequest,
    time: SystemTime,
    started: Instant,
}

/// The `decision` and `reason` of a verdict.
fn describe(verdict: &Verdict) -> (&'static str, Option<String>) {
    let reason = match verdict {
        Verdict::Block { reason, .. } => Some(reason.clone()),
        Verdict::FailedOpen { error, .. } => Some(error.clone()),
        _ => None,
    };
    (verdict.record_outcome().as_str(), reason)
}

/// Lets the host flush and stop an audit log, and see what it dropped.
///
/// Clones share the log. See the [module docs](self).
#[derive(Clone)]
pub struct AuditHandle {
    sink: Arc<Sink>,
}

impl AuditHandle {
    /// Waits until every line accepted before this call is written and the writer flushed.
    ///
    /// Lines that failed to write are counted in [`dropped`](Self::dropped), not
    /// returned as errors. Fails only when the writer has stopped.
    pub async fn flush(&self) -> Result<(), AuditClosed> {
        let (reply, done) = oneshot::channel();
        self.sink
            .tx
            .send(Message::Flush(reply))
            .await
            .map_err(|_| AuditClosed(()))?;
        done.await.map_err(|_| AuditClosed(()))
    }

    /// Writes every line accepted before this call, flushes, and stops the writer.
    ///
    /// Lines that arrive later are dropped (and counted). Calling it again, or
    /// after the writer stopped, returns at once. On a disk that hangs, this waits
    /// for it: bound it with `tokio::time::timeout` if the host must exit anyway.
    pub async fn shutdown(&self) {
        let (reply, done) = oneshot::channel();
        if self.sink.tx.send(Message::Shutdown(reply)).await.is_ok() {
            let _ = done.await;
        }
    }

    /// Lines written so far.
    pub fn written(&self) -> u64 {
        self.sink.stats.written.load(Ordering::Relaxed)
    }

    /// Lines dropped so far: queue full, writer stopped, or a failed write.
    pub fn dropped(&self) -> u64 {
        self.sink.stats.dropped.load(Ordering::Relaxed)
    }

    /// Why lines were last dropped, if they were.
    pub fn last_error(&self) -> Option<String> {
        self.sink
            .stats
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl fmt::Debug for AuditHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditHandle")
            .field("sink", &self.sink)
            .finish()
    }
}

/// The error of [`AuditHandle::flush`] once the writer has stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditClosed(());

impl fmt::Display for AuditClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the audit log's writer has stopped")
    }
}

impl std::error::Error for AuditClosed {}

/// One finished hook run, on its way to the writer.
struct Entry {
    request: HookRequest,
    time: SystemTime,
    decision: &'static str,
    reason: Option<String>,
    duration: Duration,
}

enum Message {
    Line(Entry),
    Flush(oneshot::Sender<()>),
    Shutdown(oneshot::Sender<()>),
}

/// Shared by the layer, its services and the handle. Fields drop in order: the
/// queue closes first, then the last owner waits a little for the writer.
struct Sink {
    tx: mpsc::Sender<Message>,
    stats: Arc<Stats>,
    // Held for its `Drop`.
    _done: WriterDone,
}

impl Sink {
    /// Queues a line without ever waiting; counts it as dropped if it cannot be queued.
    fn send(&self, entry: Entry) {
        match self.tx.try_send(Message::Line(entry)) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.stats
                    .dropped(1, "the queue is full (the writer is slow)");
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.stats.dropped(1, "the writer has stopped");
            }
        }
    }
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("written", &self.stats.written.load(Ordering::Relaxed))
            .field("dropped", &self.stats.dropped.load(Ordering::Relaxed))
            .field("closed", &self.tx.is_closed())
            .finish()
    }
}

/// Disconnected when the writer thread has finished.
struct WriterDone(Mutex<std::sync::mpsc::Receiver<()>>);

impl Drop for WriterDone {
    fn drop(&mut self) {
        // Best effort: the queue is closed by now; give the writer a moment to
        // write it out before the process, perhaps, exits.
        let done = self.0.get_mut().unwrap_or_else(PoisonError::into_inner);
        let _ = done.recv_timeout(DROP_GRACE);
    }
}

#[derive(Default)]
struct Stats {
    written: AtomicU64,
    dropped: AtomicU64,
    dropping: AtomicBool,
    last_error: Mutex<Option<String>>,
}

impl Stats {
    fn dropped(&self, lines: u64, why: &str) {
        let total = self.dropped.fetch_add(lines, Ordering::Relaxed) + lines;
        if !self.dropping.swap(true, Ordering::Relaxed) {
            tracing::warn!(dropped = total, "audit log: dropping lines: {why}");
        }
        let mut last = self
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last.as_deref() != Some(why) {
            *last = Some(why.to_owned());
        }
    }

    fn written(&self) {
        self.written.fetch_add(1, Ordering::Relaxed);
        if self.dropping.swap(false, Ordering::Relaxed) {
            tracing::warn!(
                dropped = self.dropped.load(Ordering::Relaxed),
                "audit log: writing again"
            );
        }
    }
}

/// The writer thread's state.
struct Writer<W> {
    out: W,
    stats: Arc<Stats>,
    line: Vec<u8>,
    // Lines written since the last successful flush: lost if the flush fails.
    unflushed: u64,
}

impl<W: Write> Writer<W> {
    fn new(out: W, stats: Arc<Stats>) -> Self {
        Writer {
            out,
            stats,
            line: Vec::with_capacity(256),
            unflushed: 0,
        }
    }

    fn run(mut self, mut rx: mpsc::Receiver<Message>) {
        // `None`: every sender is gone and the queue is empty.
        while let Some(message) = rx.blocking_recv() {
            if let Some(reply) = self.handle(message) {
                // Shutdown: what is still queued came after it.
                rx.close();
                while let Ok(message) = rx.try_recv() {
                    match message {
                        Message::Line(_) => self.stats.dropped(1, "the writer has stopped"),
                        Message::Flush(reply) | Message::Shutdown(reply) => {
                            let _ = reply.send(());
                        }
                    }
                }
                let _ = reply.send(());
                return;
            }
            if rx.is_empty() {
                self.flush();
            }
        }
        self.flush();
    }

    /// Handles one message; returns the reply of a shutdown.
    fn handle(&mut self, message: Message) -> Option<oneshot::Sender<()>> {
        match message {
            Message::Line(entry) => {
                self.write(&entry);
                None
            }
            Message::Flush(reply) => {
                self.flush();
                let _ = reply.send(());
                None
            }
            Message::Shutdown(reply) => {
                self.flush();
                Some(reply)
            }
        }
    }

    fn write(&mut self, entry: &Entry) {
        self.line.clear();
        let req = &entry.request;
        let hook = req.hook().map(|spec| spec.label());
        let line = Line {
            time: &rfc3339(entry.time),
            event: req.event().name(),
            tool: req.tool_name(),
            tool_call_id: req.tool_call_id(),
            session: req.session_id(),
            hook: hook.as_deref(),
            decision: entry.decision,
            reason: entry.reason.as_deref(),
            duration_ms: u64::try_from(entry.duration.as_millis()).unwrap_or(u64::MAX),
        };
        serde_json::to_writer(&mut self.line, &line).expect("an audit line always serializes");
        self.line.push(b'\n');
        match self.out.write_all(&self.line) {
            Ok(()) => {
                self.unflushed += 1;
            }
            Err(err) => self.stats.dropped(1, &format!("cannot write: {err}")),
        }
    }

    fn flush(&mut self) {
        match self.out.flush() {
            Ok(()) => {
                for _ in 0..std::mem::take(&mut self.unflushed) {
                    self.stats.written();
                }
            }
            Err(err) => {
                let lost = std::mem::take(&mut self.unflushed);
                if lost > 0 {
                    self.stats.dropped(lost, &format!("cannot flush: {err}"));
                }
            }
        }
    }
}

/// One audit line, in field order.
#[derive(Serialize)]
struct Line<'a> {
    time: &'a str,
    event: &'static str,
    tool: Option<&'a str>,
    tool_call_id: Option<&'a str>,
    session: Option<&'a str>,
    hook: Option<&'a str>,
    decision: &'static str,
    reason: Option<&'a str>,
    duration_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use std::sync::mpsc as std_mpsc;
    use std::time::UNIX_EPOCH;
    use tower::{service_fn, ServiceExt};
    use tower_hooks::Event;
    use tower_hooks::{BoxError, HookSpec};

    /// A writer whose lines end up in a shared buffer.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Buffer {
        fn lines(&self) -> Vec<Value> {
            let bytes = self.0.lock().unwrap().clone();
            String::from_utf8(bytes)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        }
    }

    /// A disk that is always full.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("no space left on device"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A disk that takes each write until the test lets it go.
    struct Stuck {
        entered: std_mpsc::Sender<()>,
        release: std_mpsc::Receiver<()>,
        out: Buffer,
    }

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let _ = self.entered.send(());
            let _ = self.release.recv();
            self.out.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn spec(i: usize) -> Arc<HookSpec> {
        Arc::new(
            HookSpec::in_process(Event::ToolExecutionStart, "policy.toml")
                .with_source("policy.toml", i),
        )
    }

    fn request() -> HookRequest {
        HookRequest::tool_execution_start("bash", json!({"command": "ls"}))
            .with_tool_call_id("call_1")
            .with_session_id("019abc")
            .with_hook(spec(2))
    }

    fn answering(
        verdict: Verdict,
    ) -> impl Service<HookRequest, Response = Verdict, Error = BoxError> + Clone {
        service_fn(move |_req: HookRequest| {
            let verdict = verdict.clone();
            async move { Ok::<_, BoxError>(verdict) }
        })
    }

    #[tokio::test(start_paused = true)]
    async fn writes_one_json_line_per_hook_run() {
        let out = Buffer::default();
        let (layer, handle) = AuditLayer::new(out.clone()).unwrap();
        let hook = layer.layer(service_fn(|_req: HookRequest| async {
            tokio::time::sleep(Duration::from_millis(30)).await;
            Ok::<_, BoxError>(Verdict::block("no ls today"))
        }));
        let verdict = hook.oneshot(request()).await.unwrap();
        assert_eq!(verdict, Verdict::block("no ls today"));
        handle.flush().await.unwrap();

        let lines = out.lines();
        assert_eq!(lines.len(), 1);
        let line = &lines[0];
        assert!(line["time"].as_str().unwrap().ends_with('Z'));
        let mut line = line.clone();
        line.as_object_mut().unwrap().remove("time");
        assert_eq!(
            line,
            json!({
                "event": "tool_execution_start", "tool": "bash", "tool_call_id": "call_1",
                "session": "019abc", "hook": "policy.toml:2", "decision": "block",
                "reason": "no ls today", "duration_ms": 30,
            })
        );
        assert_eq!((handle.written(), handle.dropped()), (1, 0));
    }

    #[tokio::test]
    async fn every_decision_has_its_name_and_reason() {
        let out = Buffer::default();
        let (layer, handle) = AuditLayer::new(out.clone()).unwrap();
        let transform =
            Verdict::Transform(json!({"command": "ls -a"}).as_object().unwrap().clone());
        for verdict in [
            Verdict::Allow,
            transform,
            Verdict::timed_out(Duration::from_millis(300)),
            Verdict::failed_closed("no bash"),
            Verdict::failed_open("no bash"),
        ] {
            layer
                .layer(answering(verdict))
                .oneshot(request())
                .await
                .unwrap();
        }
        let failing = service_fn(|_req: HookRequest| async {
            Err::<Verdict, BoxError>("spawn failed".into())
        });
        let err = layer.layer(failing).oneshot(request()).await.unwrap_err();
        assert_eq!(err.to_string(), "spawn failed");
        // The same failure of a hook that fails closed: the fail-open layer
        // outside blocks, and the line says so.
        let closed = Arc::new(
            HookSpec::command(Event::ToolExecutionStart, "x")
                .with_source("policy.toml", 3)
                .with_fail_closed(true),
        );
        let err = layer
            .layer(failing)
            .oneshot(request().with_hook(closed))
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "spawn failed");
        handle.flush().await.unwrap();

        let got: Vec<(Value, Value)> = out
            .lines()
            .into_iter()
            .map(|l| (l["decision"].clone(), l["reason"].clone()))
            .collect();
        assert_eq!(
            got,
            [
                (json!("allow"), Value::Null),
                (json!("transform"), Value::Null),
                (json!("timeout"), json!("hook timed out after 300 ms")),
                (json!("failed_closed"), json!("hook failed closed: no bash")),
                (json!("error"), json!("no bash")),
                (json!("error"), json!("spawn failed")),
                (json!("failed_closed"), json!("spawn failed")),
            ]
        );
    }

    #[tokio::test]
    async fn skipped_hooks_are_written_only_when_asked() {
        let out = Buffer::default();
        let (layer, handle) = AuditLayer::new(out.clone()).unwrap();
        layer
            .layer(answering(Verdict::Skipped))
            .oneshot(request())
            .await
            .unwrap();
        handle.flush().await.unwrap();
        assert!(out.lines().is_empty());

        let (layer, handle) = AuditLayer::builder()
            .record_skipped(true)
            .writer(out.clone())
            .unwrap();
        layer
            .layer(answering(Verdict::Skipped))
            .oneshot(request())
            .await
            .unwrap();
        handle.flush().await.unwrap();
        assert_eq!(out.lines()[0]["decision"], "skipped");
    }

    #[tokio::test]
    async fn a_request_outside_a_chain_has_no_hook() {
        let out = Buffer::default();
        let (layer, handle) = AuditLayer::new(out.clone()).unwrap();
        let req = HookRequest::turn_start(3, 0);
        layer
            .layer(answering(Verdict::Allow))
            .oneshot(req)
            .await
            .unwrap();
        handle.shutdown().await;
        let line = &out.lines()[0];
        assert_eq!(line["hook"], Value::Null);
        assert_eq!(line["tool"], Value::Null);
        assert_eq!(line["event"], "turn_start");
    }

    #[tokio::test]
    async fn slow_writer_never_blocks_the_call_and_counts_what_it_drops() {
        let (entered_tx, entered) = std_mpsc::channel();
        let (release, release_rx) = std_mpsc::channel();
        let out = Buffer::default();
        let stuck = Stuck {
            entered: entered_tx,
            release: release_rx,
            out: out.clone(),
        };
        let (layer, handle) = AuditLayer::builder().capacity(2).writer(stuck).unwrap();
        let hook = layer.layer(answering(Verdict::Allow));

        // The first line reaches the writer, which is now stuck in `write`.
        hook.clone().oneshot(request()).await.unwrap();
        entered.recv_timeout(Duration::from_secs(10)).unwrap();
        // Two more fill the queue; seven more find it full. No call waits.
        let calls = async {
            for _ in 0..9 {
                hook.clone().oneshot(request()).await.unwrap();
            }
        };
        tokio::time::timeout(Duration::from_secs(5), calls)
            .await
            .expect("a hook call waited for the disk");
        assert_eq!(handle.dropped(), 7);
        assert_eq!(
            handle.last_error().as_deref(),
            Some("the queue is full (the writer is slow)")
        );

        // The disk recovers: everything that was queued is written.
        for _ in 0..3 {
            release.send(()).unwrap();
        }
        handle.shutdown().await;
        assert_eq!((handle.written(), handle.dropped()), (3, 7));
        assert_eq!(out.lines().len(), 3);
    }

    #[tokio::test]
    async fn full_disk_never_fails_the_call_and_counts_every_line() {
        let (layer, handle) = AuditLayer::new(Full).unwrap();
        let hook = layer.layer(answering(Verdict::block("no")));
        for _ in 0..5 {
            let verdict = hook.clone().oneshot(request()).await.unwrap();
            assert_eq!(verdict, Verdict::block("no"));
        }
        handle.flush().await.unwrap();
        assert_eq!((handle.written(), handle.dropped()), (0, 5));
        assert_eq!(
            handle.last_error().as_deref(),
            Some("cannot write: no space left on device")
        );
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn dev_full_is_a_full_disk_too() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let (layer, handle) = AuditLayer::open("/dev/full").unwrap();
        let verdict = layer
            .layer(answering(Verdict::Allow))
            .oneshot(request())
            .await
            .unwrap();
        assert_eq!(verdict, Verdict::Allow);
        handle.shutdown().await;
        assert_eq!((handle.written(), handle.dropped()), (0, 1));
        assert!(handle.last_error().unwrap().starts_with("cannot write: "));
    }

    #[test]
    fn a_file_that_cannot_be_opened_is_an_error_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let err = AuditLayer::open(dir.path().join("no/such/dir/audit.jsonl")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[tokio::test]
    async fn open_appends_to_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "{\"earlier\":true}\n").unwrap();
        let (layer, handle) = AuditLayer::open(&path).unwrap();
        layer
            .layer(answering(Verdict::Allow))
            .oneshot(request())
            .await
            .unwrap();
        handle.shutdown().await;
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], "{\"earlier\":true}");
        assert!(lines[1].contains("\"decision\":\"allow\""));
    }

    #[tokio::test]
    async fn lines_after_shutdown_are_dropped_and_counted() {
        let out = Buffer::default();
        let (layer, handle) = AuditLayer::new(out.clone()).unwrap();
        let hook = layer.layer(answering(Verdict::Allow));
        hook.clone().oneshot(request()).await.unwrap();
        handle.shutdown().await;
        hook.clone().oneshot(request()).await.unwrap();
        assert_eq!((handle.written(), handle.dropped()), (1, 1));
        assert_eq!(handle.flush().await, Err(AuditClosed(())));
        handle.shutdown().await; // again: returns at once
        assert_eq!(out.lines().len(), 1);
    }

    #[tokio::test]
    async fn dropping_everything_writes_out_the_queue() {
        let out = Buffer::default();
        let (layer, handle) = AuditLayer::new(out.clone()).unwrap();
        let hook = layer.layer(answering(Verdict::Allow));
        for _ in 0..20 {
            hook.clone().oneshot(request()).await.unwrap();
        }
        drop((layer, hook, handle));
        assert_eq!(out.lines().len(), 20);
    }

    #[tokio::test]
    async fn through_the_stack_a_spawn_failure_is_an_error_line() {
        use tower_hooks::HookStack;
        let out = Buffer::default();
        let (layer, handle) = AuditLayer::new(out.clone()).unwrap();
        let stack = HookStack::builder()
            .report(())
            .service_hook(
                HookSpec::in_process(Event::TurnStart, "broken"),
                service_fn(|_req: HookRequest| async {
                    Err::<Verdict, BoxError>("cannot spawn".into())
                }),
            )
            .around_hook(layer)
            .build();
        let outcome = stack.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
        assert!(!outcome.is_blocked());
        handle.shutdown().await;
        let line = &out.lines()[0];
        assert_eq!(line["hook"], "broken:0");
        assert_eq!(line["decision"], "error");
        assert_eq!(line["reason"], "cannot spawn");
    }

    #[test]
    fn time_is_utc_with_milliseconds() {
        let at = |ms: u64| rfc3339(UNIX_EPOCH + Duration::from_millis(ms));
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(1_732_890_000_123), "2024-11-29T14:20:00.123Z");
        assert_eq!(at(4_102_444_799_999), "2099-12-31T23:59:59.999Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH - Duration::from_secs(1)),
            "1970-01-01T00:00:00.000Z"
        );
    }
}
