//! [`Background`]: the bounded executor that runs hooks the call does not wait for.
//!
//! Some hooks run in the background: Claude Code's `async: true` handlers and
//! Cursor's observing events. The call that fires them returns at once; the
//! hook runs here, and what it hands to the agent (context, messages) waits in
//! [`Background::take_notes`] until a later call of the same session picks it up.
//!
//! The executor belongs to its stack and is bounded both ways:
//!
//! * at most [`BackgroundLimits::running`] runs at a time, and at most
//!   [`BackgroundLimits::queued`] waiting; a run that finds the queue full is
//!   dropped, counted ([`Background::dropped`]) and reported, and the call that
//!   submitted it never waits;
//! * [`Background::shutdown`] stops taking runs, waits for the ones in flight up
//!   to a deadline, then cancels the rest; dropping the last handle cancels
//!   whatever is left. A cancelled run drops its future, and a command hook's
//!   future kills its process group: nothing outlives the stack.
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use tower_hooks::process::background::{Background, BackgroundLimits};
//! use tower_hooks::Notes;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let background = Background::new(BackgroundLimits::default());
//! assert!(background.submit(async {
//!     Some(("session-1".into(), Notes::default().with_context("lint passed")))
//! }));
//! background.shutdown(Duration::from_secs(1)).await;
//! assert_eq!(background.take_notes("session-1").unwrap().context, ["lint passed"]);
//! assert_eq!(background.dropped(), 0);
//! # }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;

use crate::outcome::Notes;
use crate::sync::lock;

/// How much the executor takes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackgroundLimits {
    /// Runs at a time.
    pub running: usize,
    /// Runs waiting for a turn; one more is dropped.
    pub queued: usize,
}

impl Default for BackgroundLimits {
    /// 8 at a time, 64 waiting.
    fn default() -> Self {
        BackgroundLimits {
            running: 8,
            queued: 64,
        }
    }
}

impl BackgroundLimits {
    /// Limits of `running` at a time and `queued` waiting (each at least 1).
    pub fn new(running: usize, queued: usize) -> Self {
        BackgroundLimits {
            running: running.max(1),
            queued: queued.max(1),
        }
    }
}

/// What a background run leaves for the agent: the session it belongs to and
/// its notes, or nothing.
pub type Delivery = Option<(Arc<str>, Notes)>;

/// A background hook woke the agent (Claude Code's `asyncRewake` hook that
/// exited 2): what the host's [`Builder::on_wake_up`](crate::Builder::on_wake_up)
/// is told as soon as the hook ends.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WakeUp {
    /// The session of the call that started the hook (empty when it had none).
    pub session_id: String,
    /// What the agent is to be shown: the hook's stderr, else its stdout.
    pub message: String,
}

/// The host's callback for a [`WakeUp`].
pub(crate) type OnWakeUp = Arc<dyn Fn(WakeUp) + Send + Sync>;

/// The bounded executor of a stack's background hooks. See the [module docs](self).
///
/// Cheap to clone; clones share the executor. Dropping the last clone cancels
/// every run still in it.
#[derive(Clone)]
pub struct Background {
    inner: Arc<Inner>,
}

/// Dropped with the last handle: dropping its `JoinSet` aborts every run
/// still in it.
struct Inner {
    limits: BackgroundLimits,
    permits: Arc<Semaphore>,
    tasks: Mutex<JoinSet<()>>,
    /// Runs submitted and not finished (waiting or running).
    pending: AtomicUsize,
    dropped: AtomicU64,
    closed: AtomicBool,
    /// Woken whenever a run finishes.
    finished: Notify,
    notes: Mutex<HashMap<Arc<str>, Notes>>,
    /// Whether `notes` may hold anything: the calls of a stack with no
    /// background hook never lock it.
    has_notes: AtomicBool,
}

impl Background {
    /// An executor with these limits. It starts its runs on the tokio runtime
    /// of the call that submits them.
    pub fn new(limits: BackgroundLimits) -> Self {
        let limits = BackgroundLimits::new(limits.running, limits.queued);
        Background {
            inner: Arc::new(Inner {
                limits,
                permits: Arc::new(Semaphore::new(limits.running)),
                tasks: Mutex::new(JoinSet::new()),
                pending: AtomicUsize::new(0),
                dropped: AtomicU64::new(0),
                closed: AtomicBool::new(false),
                finished: Notify::new(),
                notes: Mutex::new(HashMap::new()),
                has_notes: AtomicBool::new(false),
            }),
        }
    }

    /// The limits.
    pub fn limits(&self) -> BackgroundLimits {
        self.inner.limits
    }

    /// Starts `run` in the background, unless the executor is full or shut
    /// down: then the run is dropped (never started) and counted, and this
    /// answers `false`. It never waits. Must be called inside a tokio runtime.
    pub fn submit<F>(&self, run: F) -> bool
    where
        F: Future<Output = Delivery> + Send + 'static,
    {
        let inner = &self.inner;
        let capacity = inner.limits.running + inner.limits.queued;
        let admitted = !inner.closed.load(Ordering::Acquire)
            && inner
                .pending
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < capacity).then_some(n + 1)
                })
                .is_ok();
        if !admitted {
            inner.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        let permits = inner.permits.clone();
        let weak = Arc::downgrade(&self.inner);
        let task = async move {
            let permit = permits.acquire_owned().await;
            let delivery = match permit {
                Ok(_permit) => run.await,
                Err(_) => None,
            };
            if let Some(inner) = weak.upgrade() {
                if let Some((session, notes)) = delivery {
                    inner.deliver(session, notes);
                }
                inner.pending.fetch_sub(1, Ordering::AcqRel);
                inner.finished.notify_waiters();
            }
        };
        let mut tasks = lock(&inner.tasks);
        // Reap what has finished, so that the set holds only live runs.
        while tasks.try_join_next().is_some() {}
        tasks.spawn(task);
        true
    }

    /// Whether [`shutdown`](Self::shutdown) was called: no run starts any more.
    pub fn is_shut_down(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    /// How many runs were dropped because the executor was full or shut down.
    pub fn dropped(&self) -> u64 {
        self.inner.dropped.load(Ordering::Relaxed)
    }

    /// How many runs are waiting or running.
    pub fn pending(&self) -> usize {
        self.inner.pending.load(Ordering::Acquire)
    }

    /// Takes the notes that finished background runs left for `session`.
    pub fn take_notes(&self, session: &str) -> Option<Notes> {
        if !self.inner.has_notes.load(Ordering::Acquire) {
            return None;
        }
        let mut notes = lock(&self.inner.notes);
        let taken = notes.remove(session);
        if notes.is_empty() {
            self.inner.has_notes.store(false, Ordering::Release);
        }
        taken
    }

    /// Stops taking runs, waits up to `grace` for the ones in flight, then
    /// cancels the rest. Answers how many were cancelled.
    pub async fn shutdown(&self, grace: Duration) -> usize {
        let inner = &self.inner;
        inner.closed.store(true, Ordering::Release);
        let drained = tokio::time::timeout(grace, async {
            loop {
                let finished = inner.finished.notified();
                if inner.pending.load(Ordering::Acquire) == 0 {
                    return;
                }
                finished.await;
            }
        })
        .await;
        if drained.is_ok() {
            return 0;
        }
        let cancelled = inner.pending.swap(0, Ordering::AcqRel);
        let mut tasks = std::mem::take(&mut *lock(&inner.tasks));
        tasks.abort_all();
        // Let the aborted runs drop their futures (and kill their processes).
        while tasks.join_next().await.is_some() {}
        cancelled
    }
}

impl Inner {
    fn deliver(&self, session: Arc<str>, notes: Notes) {
        if notes.is_empty() {
            return;
        }
        let mut all = lock(&self.notes);
        all.entry(session).or_default().merge(notes);
        self.has_notes.store(true, Ordering::Release);
    }
}

impl fmt::Debug for Background {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Background")
            .field("limits", &self.inner.limits)
            .field("pending", &self.pending())
            .field("dropped", &self.dropped())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn notes(text: &str) -> Notes {
        Notes {
            context: vec![text.into()],
            ..Notes::default()
        }
    }

    #[tokio::test]
    async fn a_full_executor_drops_and_counts_without_waiting() {
        let background = Background::new(BackgroundLimits::new(1, 1));
        let gate = Arc::new(Semaphore::new(0));
        for _ in 0..2 {
            let gate = gate.clone();
            assert!(background.submit(async move {
                let _open = gate.acquire().await;
                None
            }));
        }
        // One running, one queued: the third is dropped at once.
        assert!(!background.submit(async { None }));
        assert_eq!(background.dropped(), 1);
        assert_eq!(background.pending(), 2);
        gate.add_permits(2);
        assert_eq!(background.shutdown(Duration::from_secs(5)).await, 0);
        assert_eq!(background.pending(), 0);
    }

    #[tokio::test]
    async fn runs_are_limited_to_the_running_count() {
        let background = Background::new(BackgroundLimits::new(2, 10));
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        for _ in 0..8 {
            let (now, most) = (now.clone(), most.clone());
            assert!(background.submit(async move {
                let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(n, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                None
            }));
        }
        assert_eq!(background.shutdown(Duration::from_secs(5)).await, 0);
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn notes_wait_for_a_later_call_of_the_same_session() {
        let background = Background::new(BackgroundLimits::default());
        assert!(background.submit(async { Some(("a".into(), notes("first"))) }));
        assert!(background.submit(async { Some(("b".into(), notes("other"))) }));
        background.shutdown(Duration::from_secs(5)).await;
        assert_eq!(background.take_notes("a").unwrap().context, ["first"]);
        assert!(background.take_notes("a").is_none(), "taken once");
        assert_eq!(background.take_notes("b").unwrap().context, ["other"]);
        assert!(background.take_notes("c").is_none());
    }

    #[tokio::test]
    async fn shutdown_cancels_what_outlives_its_grace_and_takes_no_more() {
        struct Dropped(Arc<AtomicBool>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let background = Background::new(BackgroundLimits::default());
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = Dropped(dropped.clone());
        assert!(background.submit(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
            None
        }));
        tokio::task::yield_now().await;
        let started = tokio::time::Instant::now();
        assert_eq!(background.shutdown(Duration::from_millis(50)).await, 1);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            dropped.load(Ordering::SeqCst),
            "the cancelled run was dropped"
        );
        assert!(!background.submit(async { None }), "closed");
        assert_eq!(background.dropped(), 1);
    }

    #[tokio::test]
    async fn dropping_the_last_handle_cancels_every_run() {
        let dropped = Arc::new(AtomicBool::new(false));
        {
            struct Dropped(Arc<AtomicBool>);
            impl Drop for Dropped {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::SeqCst);
                }
            }
            let background = Background::new(BackgroundLimits::default());
            let guard = Dropped(dropped.clone());
            background.submit(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                None
            });
            tokio::task::yield_now().await;
        }
        // Aborted tasks are dropped by the runtime on its next turn.
        for _ in 0..10 {
            if dropped.load(Ordering::SeqCst) {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert!(dropped.load(Ordering::SeqCst));
    }
}
