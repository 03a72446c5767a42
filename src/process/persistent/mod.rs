//! [`Persistent`]: one long-lived process answers every event of a hook.
//!
//! A hook marked persistent is started at the first event that reaches it,
//! with the command, shell and working directory a one-shot run would have,
//! in its own process group, with the environment a one-shot run would get
//! less the per-event variables, plus `HOOK_PROTOCOL=lines/1`. Each event is
//! one line on its stdin:
//!
//! ```text
//! {"id": 7, "input": <what a one-shot run reads on stdin>, "env": {<the per-event variables>}}
//! ```
//!
//! and it answers each with one line on its stdout, in any order:
//!
//! ```text
//! {"id": 7, "exit": 0, "stdout": "…", "stderr": "…"}
//! ```
//!
//! `exit` defaults to 0, `stdout` and `stderr` to `""`. The answer is read
//! exactly as a one-shot run that exited with that status and printed that
//! stdout and stderr, by the hook's dialect's own decoder. A line that is not
//! such an object, or that names no request in flight, is ignored (and
//! logged); what the process writes on its stderr goes to `tracing`.
//!
//! * **Concurrency**: at most [`PersistentLimits::max_in_flight`] requests at
//!   once; beyond that the hook's service is not ready.
//! * **Timeout**: a request that is not answered by its deadline is the
//!   dialect's timeout result; the process is killed (its group) and started
//!   again, and the other requests in flight on it go again on the new process.
//! * **Crash** (it exits, or closes its stdout): the request it was answering
//!   (the oldest in flight: a hook answers one request after another) fails
//!   as a hook that could not run; the others in flight go again on a fresh
//!   process. The next start waits for a backoff (an event waits for it, or
//!   fails at once when its deadline comes first). A request goes again once
//!   at most, and only before its own deadline.
//! * **Crash loop**: after [`PersistentLimits::crash_limit`] crashes within
//!   [`PersistentLimits::crash_window`] the hook is run as `hooks test` runs
//!   it: a process of its own for each event, sent that one request; once it
//!   answered, its stdin is closed and it has
//!   [`PersistentLimits::shutdown_grace`] to exit (in the background) before
//!   `SIGTERM` and `SIGKILL`. Its events are still answered by the hook, never
//!   allowed without it; the switch is told once.
//! * **Bounded memory**: an answer line longer than
//!   [`PersistentLimits::max_line`] kills the process (a crash, whose error
//!   names the limit), never grows a buffer without end.
//! * **Shutdown** ([`Persistent::shutdown`]): stdin is closed, the process gets
//!   a grace to exit, then `SIGTERM` and `SIGKILL` go to its group. Dropping the
//!   last handle kills the group at once. No process outlives its stack but
//!   a process per event that has answered, for the grace it has to exit.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::unix::pipe;
use tokio::sync::{oneshot, Semaphore};

use super::oneshot::{spawn_group, ProcessRunner};
use super::{BoxFuture, Finished, Job, Runner, Termination};

mod pipes;

use crate::sync::lock;
use pipes::{log_stderr, read_answers, request_line, watch};

/// The variable that tells a persistent hook which protocol it speaks.
pub const PROTOCOL_VAR: (&str, &str) = ("HOOK_PROTOCOL", "lines/1");

/// The bounds of a persistent hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PersistentLimits {
    /// Requests in flight at once (default 16).
    pub max_in_flight: usize,
    /// The longest answer line, in bytes (default 1 MiB).
    pub max_line: usize,
    /// How long a process whose stdin was closed has to exit at shutdown
    /// before `SIGTERM` (default 1 s).
    pub shutdown_grace: Duration,
    /// How many crashes within [`crash_window`](Self::crash_window) switch
    /// the hook to a process per event (default 5).
    pub crash_limit: usize,
    /// See [`crash_limit`](Self::crash_limit) (default 60 s).
    pub crash_window: Duration,
    /// After a crash, how long the next start waits (an event whose deadline
    /// comes first fails at once); it doubles with each crash in the window
    /// (default 100 ms, at most 2 s).
    pub backoff: Duration,
}

impl Default for PersistentLimits {
    fn default() -> Self {
        PersistentLimits {
            max_in_flight: 16,
            max_line: 1024 * 1024,
            shutdown_grace: Duration::from_secs(1),
            crash_limit: 5,
            crash_window: Duration::from_secs(60),
            backoff: Duration::from_millis(100),
        }
    }
}

/// What is told when a persistent hook that crashed too often switches to a
/// process per event: why.
pub type OnFallback = Box<dyn Fn(&str) + Send + Sync>;

/// How long answers written just before a process exited are still read.
const ANSWER_GRACE: Duration = Duration::from_millis(100);

/// The most a restart waits after crashes.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// One persistent hook's process, started on demand. A [`Runner`]: the
/// command leaf hands it the same [`Job`] a one-shot run would get, and gets
/// back the same [`Finished`]. Cheap to clone; clones share the process.
#[derive(Clone)]
pub struct Persistent {
    inner: Arc<Inner>,
}

struct Inner {
    argv: ProcessRunner,
    limits: PersistentLimits,
    permits: Arc<Semaphore>,
    live: tokio::sync::Mutex<Option<Live>>,
    next_id: AtomicU64,
    crashes: Mutex<VecDeque<Instant>>,
    /// After a crash, no start before this instant (the backoff).
    not_before: Mutex<Option<tokio::time::Instant>>,
    /// The longest request line sent so far: an answer may be twice as long.
    longest_request: Arc<std::sync::atomic::AtomicUsize>,
    /// Set when it crashed too often: each event gets a process of its own.
    one_shot: AtomicBool,
    /// Told once when it switches to a process per event.
    on_fallback: Option<OnFallback>,
}

impl fmt::Debug for Persistent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Persistent")
            .field("limits", &self.inner.limits)
            .field("one_shot", &self.inner.one_shot.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// An answer line, read.
struct Answer {
    exit: i32,
    stdout: String,
    stderr: String,
}

/// Why a request in flight got no answer.
#[derive(Debug)]
struct Lost {
    /// What its error says when it does not go again.
    why: String,
    /// Whether it may go again on a fresh process: its process ended for
    /// another request's sake (a crash while it answered an older request,
    /// another request's timeout).
    again: bool,
}

/// A request in flight: its answer, or why none comes.
type Reply = Result<Answer, Lost>;

type Waiters = Arc<Mutex<HashMap<u64, oneshot::Sender<Reply>>>>;

/// What a request's try on a process came to.
enum Tried {
    /// Answered (or timed out).
    Done(Finished),
    /// No answer: why.
    Lost(Lost),
    /// The hook now runs a process per event: try that way.
    OneShot,
}

/// The error of a request whose process ended while it answered it.
const ENDED: &str = "the persistent hook ended before it answered";

/// A running process.
struct Live {
    stdin: Option<pipe::Sender>,
    /// Held while the process runs: a pipe with a reader never raises SIGPIPE.
    _stdin_theirs: OwnedFd,
    waiters: Waiters,
    /// Tells the watcher to end the process: `Some(grace)` after stdin was
    /// closed, `None` at once. Dropped unsent: at once.
    stop: Option<oneshot::Sender<Option<Duration>>>,
    /// Set by the watcher when the process has ended.
    ended: Arc<AtomicBool>,
    /// Resolves when the watcher is done (the group killed and reaped).
    done: Option<oneshot::Receiver<()>>,
    /// Whether it ended by itself (or by a line too long): a crash.
    /// (Read when the next request finds it ended.)
    crashed: Arc<AtomicBool>,
}

impl Persistent {
    /// A persistent hook with these limits; `on_fallback` is told (once) when
    /// it crashed too often and each event gets a process of its own.
    pub fn new(limits: PersistentLimits, on_fallback: Option<OnFallback>) -> Self {
        Persistent {
            inner: Arc::new(Inner {
                argv: ProcessRunner::new(),
                limits,
                permits: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
                live: tokio::sync::Mutex::new(None),
                next_id: AtomicU64::new(1),
                crashes: Mutex::new(VecDeque::new()),
                not_before: Mutex::new(None),
                longest_request: Arc::default(),
                one_shot: AtomicBool::new(false),
                on_fallback,
            }),
        }
    }

    /// Whether it crashed too often and now starts a process for each event.
    pub fn runs_one_shot(&self) -> bool {
        self.inner.one_shot.load(Ordering::Acquire)
    }

    /// Ends the process, if one runs: its stdin is closed, it gets `grace` to
    /// exit, then `SIGTERM`, then `SIGKILL` to its group; the requests in flight
    /// fail. Waits until the group is gone.
    pub async fn shutdown(&self, grace: Duration) {
        let live = self.inner.live.lock().await.take();
        if let Some(mut live) = live {
            live.stdin = None;
            if let Some(stop) = live.stop.take() {
                let _ = stop.send(Some(grace));
            }
            if let Some(done) = live.done.take() {
                let _ = done.await;
            }
        }
    }

    /// Starts the process now rather than at the first event, with what `job`
    /// would run (its input is not sent). Nothing to start once it runs a
    /// process per event.
    pub async fn start(&self, job: &Job) -> io::Result<()> {
        if self.runs_one_shot() {
            return Ok(());
        }
        let mut live = self.inner.live.lock().await;
        if live.as_ref().is_none_or(Live::has_ended) {
            *live = Some(self.inner.spawn(job)?);
        }
        Ok(())
    }
}

impl Inner {
    fn spawn(&self, job: &Job) -> io::Result<Live> {
        let argv = self.argv.argv(job)?;
        // The process's environment: the job's, less the per-event variables,
        // plus the protocol's name.
        let mut env: Vec<(String, String)> = job
            .env
            .iter()
            .filter(|(k, _)| !job.event_env.contains(k) && k != PROTOCOL_VAR.0)
            .cloned()
            .collect();
        env.push((PROTOCOL_VAR.0.to_owned(), PROTOCOL_VAR.1.to_owned()));
        // What a session set never takes the host's own value away.
        env.extend(job.host_env.iter().cloned());
        let mut env_remove = job.env_remove.clone();
        env_remove.extend(
            job.event_env
                .iter()
                .filter(|name| !job.host_env.iter().any(|(k, _)| k == *name))
                .cloned(),
        );
        let child = spawn_group(&argv, &env, &env_remove).map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("could not spawn {}: {err}", argv.path().to_string_lossy()),
            )
        })?;
        let (group, stdin, stdin_theirs, stdout, stderr) = child.into_parts();
        let waiters: Waiters = Arc::default();
        let ended = Arc::new(AtomicBool::new(false));
        let crashed = Arc::new(AtomicBool::new(false));
        let (stop_tx, stop_rx) = oneshot::channel();
        let (done_tx, done_rx) = oneshot::channel();
        let (kill_tx, kill_rx) = oneshot::channel::<Option<usize>>();
        let stdout = pipe::Receiver::from_owned_fd(stdout)?;
        let stderr = pipe::Receiver::from_owned_fd(stderr)?;
        let stdin = pipe::Sender::from_owned_fd(stdin)?;
        let pid = group.pid_raw();
        tokio::spawn(read_answers(
            stdout,
            waiters.clone(),
            (self.limits.max_line, self.longest_request.clone()),
            kill_tx,
            crashed.clone(),
        ));
        tokio::spawn(log_stderr(stderr, pid));
        tokio::spawn(watch(
            group,
            stop_rx,
            kill_rx,
            waiters.clone(),
            ended.clone(),
            crashed.clone(),
            done_tx,
        ));
        Ok(Live {
            stdin: Some(stdin),
            _stdin_theirs: stdin_theirs,
            waiters,
            stop: Some(stop_tx),
            ended,
            done: Some(done_rx),
            crashed,
        })
    }

    /// Counts a crash now; answers whether the hook now runs a process per
    /// event (it crashed too often).
    fn crash(&self) -> bool {
        let now = Instant::now();
        let mut crashes = lock(&self.crashes);
        crashes.push_back(now);
        while crashes
            .front()
            .is_some_and(|t| now.duration_since(*t) > self.limits.crash_window)
        {
            crashes.pop_front();
        }
        if crashes.len() >= self.limits.crash_limit && !self.one_shot.swap(true, Ordering::AcqRel) {
            let why = format!(
                "it crashed {} times within {} s",
                crashes.len(),
                self.limits.crash_window.as_secs()
            );
            tracing::warn!(%why, "persistent hook keeps crashing; a process per event from now on");
            if let Some(tell) = &self.on_fallback {
                tell(&why);
            }
        }
        self.one_shot.load(Ordering::Acquire)
    }

    /// How long to wait before starting again after the crashes in the window.
    fn backoff(&self) -> Duration {
        let crashes = lock(&self.crashes);
        match crashes.len() {
            0 => Duration::ZERO,
            n => {
                let factor = 1u32 << (n - 1).min(16);
                self.limits.backoff.saturating_mul(factor).min(MAX_BACKOFF)
            }
        }
    }
}

impl Live {
    fn has_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Closes its stdin and lets it exit within `grace`, then `SIGTERM` and
    /// `SIGKILL` go to its group; does not wait for that.
    fn close(mut self, grace: Duration) {
        self.stdin = None;
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(Some(grace));
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // Unsent: the watcher kills the group at once.
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(None);
        }
    }
}

impl Runner for Persistent {
    fn run(&self, job: Job) -> BoxFuture<'static, io::Result<Finished>> {
        let inner = self.inner.clone();
        Box::pin(async move { inner.run(job).await })
    }

    fn in_flight_limit(&self) -> Option<Arc<Semaphore>> {
        Some(self.inner.permits.clone())
    }
}

impl Inner {
    /// Runs `job` on the shared process; a request that its process lost for
    /// another request's sake goes again once, on a fresh process, while its
    /// deadline allows. Once the hook crashed too often, each event gets a
    /// process of its own.
    async fn run(&self, job: Job) -> io::Result<Finished> {
        let deadline = job.deadline.map(|d| d.at);
        let mut tries_left = 1;
        loop {
            let tried = if self.one_shot.load(Ordering::Acquire) {
                self.run_alone(&job, deadline).await?
            } else {
                self.run_shared(&job, deadline).await?
            };
            let lost = match tried {
                Tried::Done(finished) => return Ok(finished),
                Tried::OneShot => continue,
                Tried::Lost(lost) => lost,
            };
            if !lost.again {
                return Err(io::Error::other(lost.why));
            }
            if deadline.is_some_and(|at| at <= tokio::time::Instant::now()) {
                // Lost at its deadline: overdue, as it would have been.
                return Ok(timed_out());
            }
            if tries_left == 0 {
                return Err(io::Error::other(format!(
                    "{}, and again on a fresh process",
                    lost.why
                )));
            }
            tries_left -= 1;
            tracing::debug!(why = %lost.why, "a request in flight goes again on a fresh process");
        }
    }

    /// One try of `job` on the shared process (started if none runs).
    async fn run_shared(
        &self,
        job: &Job,
        deadline: Option<tokio::time::Instant>,
    ) -> io::Result<Tried> {
        let (tx, rx) = oneshot::channel();
        let (id, waiters) = {
            let mut live = loop {
                let mut live = self.live.lock().await;
                if let Some(old) = live.as_ref().filter(|l| l.has_ended()) {
                    let crashed = old.crashed.load(Ordering::Acquire);
                    *live = None;
                    if crashed {
                        if self.crash() {
                            return Ok(Tried::OneShot);
                        }
                        let until = tokio::time::Instant::now() + self.backoff();
                        *lock(&self.not_before) = Some(until);
                    }
                }
                if live.is_some() {
                    break live;
                }
                // After a crash the process starts again once the backoff is
                // over: an event waits for it (without holding the process's
                // lock), unless its deadline comes first; then it fails at
                // once rather than start a process it would have to kill.
                let not_before = *lock(&self.not_before);
                match not_before.filter(|until| tokio::time::Instant::now() < *until) {
                    None => {
                        if self.one_shot.load(Ordering::Acquire) {
                            return Ok(Tried::OneShot);
                        }
                        *live = Some(self.spawn(job)?);
                        break live;
                    }
                    Some(until) if deadline.is_some_and(|d| d <= until) => {
                        return Err(io::Error::other(
                            "the persistent hook crashed and starts again only after a backoff",
                        ));
                    }
                    Some(until) => {
                        drop(live);
                        tokio::time::sleep_until(until).await;
                    }
                }
            };
            let current = live.as_mut().expect("set above");
            // Taken under the process's lock, which each write holds: ids are
            // in the order the process reads them, so the oldest in flight has
            // the least.
            match self.send(current, job, tx, deadline, true).await {
                Sent::Yes(id) => (id, current.waiters.clone()),
                Sent::No(tried) => return Ok(tried),
                Sent::Stuck => {
                    *live = None;
                    return Ok(Tried::Done(timed_out()));
                }
            }
        };
        // A call dropped while it waits (its caller gave up) takes its request
        // out of the process's list, which would otherwise keep it until an
        // answer that may never come.
        let _gone = Forget {
            waiters: &waiters,
            id,
        };
        let reply = match deadline {
            Some(at) => match tokio::time::timeout_at(at, rx).await {
                Ok(reply) => reply,
                Err(_) => {
                    lock(&waiters).remove(&id);
                    // Overdue: the process is killed, and started again; the
                    // others in flight on it go again on the new one.
                    let mut live = self.live.lock().await;
                    if live
                        .as_ref()
                        .is_some_and(|l| Arc::ptr_eq(&l.waiters, &waiters))
                    {
                        *live = None;
                    }
                    return Ok(Tried::Done(timed_out()));
                }
            },
            None => rx.await,
        };
        Ok(tried(reply))
    }

    /// One try of `job` on a process of its own, as `hooks test` runs a
    /// persistent hook: started, sent this one request, and once it answered,
    /// its stdin is closed and it gets the shutdown grace to exit (in the
    /// background), then `SIGTERM` and `SIGKILL`. Overdue or dropped, it is
    /// killed at once.
    async fn run_alone(
        &self,
        job: &Job,
        deadline: Option<tokio::time::Instant>,
    ) -> io::Result<Tried> {
        let mut live = self.spawn(job)?;
        let (tx, rx) = oneshot::channel();
        match self.send(&mut live, job, tx, deadline, false).await {
            Sent::Yes(_) => {}
            Sent::No(tried) => return Ok(tried),
            // Dropping `live` kills it.
            Sent::Stuck => return Ok(Tried::Done(timed_out())),
        }
        let reply = match deadline {
            Some(at) => match tokio::time::timeout_at(at, rx).await {
                Ok(reply) => reply,
                Err(_) => return Ok(Tried::Done(timed_out())),
            },
            None => rx.await,
        };
        live.close(self.limits.shutdown_grace);
        // Its only request: whatever ended the process was this request's.
        Ok(match tried(reply) {
            Tried::Lost(lost) => Tried::Lost(Lost {
                again: false,
                ..lost
            }),
            other => other,
        })
    }
}

/// How sending a request to a process went.
enum Sent {
    /// Its line is written; the answer comes to its waiter, under this id.
    Yes(u64),
    /// The process had ended, or could not be written to: the try is over
    /// (lost, and tried again on a fresh process when the caller said so).
    No(Tried),
    /// Not read in time: the process is stuck, and the caller kills it.
    Stuck,
}

impl Inner {
    /// Registers a request of `job` on `live` (its answer goes to `tx`) and
    /// writes its line, within `deadline`. A request that is not sent takes
    /// its waiter out again. `again`: whether a lost request may go again on
    /// a fresh process.
    async fn send(
        &self,
        live: &mut Live,
        job: &Job,
        tx: oneshot::Sender<Reply>,
        deadline: Option<tokio::time::Instant>,
        again: bool,
    ) -> Sent {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = request_line(id, job);
        {
            // Under the waiters' lock, which the watcher takes to end the
            // process: a request is either in before it ends, and told
            // then, or sees that it has ended.
            let mut waiters = lock(&live.waiters);
            if live.ended.load(Ordering::Acquire) {
                return Sent::No(Tried::Lost(Lost {
                    why: ENDED.to_owned(),
                    again,
                }));
            }
            waiters.insert(id, tx);
        }
        self.longest_request
            .fetch_max(line.len(), Ordering::Relaxed);
        let write = async {
            match live.stdin.as_mut() {
                Some(stdin) => stdin.write_all(&line).await,
                None => Err(io::Error::from(io::ErrorKind::BrokenPipe)),
            }
        };
        let written = match deadline {
            Some(at) => tokio::time::timeout_at(at, write).await.ok(),
            None => Some(write.await),
        };
        match written {
            Some(Ok(())) => Sent::Yes(id),
            Some(Err(err)) => {
                // The process is gone (or going) before it read this
                // request: not this request's doing.
                lock(&live.waiters).remove(&id);
                Sent::No(Tried::Lost(Lost {
                    why: format!("could not send the event to the persistent hook: {err}"),
                    again,
                }))
            }
            None => {
                lock(&live.waiters).remove(&id);
                Sent::Stuck
            }
        }
    }
}

/// What a reply from the process makes of a try.
fn tried(reply: Result<Reply, oneshot::error::RecvError>) -> Tried {
    match reply {
        Ok(Ok(answer)) => Tried::Done(Finished {
            termination: Termination::Exited(answer.exit),
            stdout: answer.stdout.into_bytes(),
            stdout_truncated: false,
            stderr: answer.stderr.into_bytes(),
        }),
        Ok(Err(lost)) => Tried::Lost(lost),
        Err(_) => Tried::Lost(Lost {
            why: ENDED.to_owned(),
            again: false,
        }),
    }
}

/// Removes a request from the waiters when dropped (a no-op once answered).
struct Forget<'a> {
    waiters: &'a Waiters,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        lock(self.waiters).remove(&self.id);
    }
}

fn timed_out() -> Finished {
    Finished {
        termination: Termination::TimedOut,
        stdout: Vec::new(),
        stdout_truncated: false,
        stderr: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
