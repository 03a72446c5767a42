//! A hook's process group: ending it, reaping what it leaves, and learning
//! that the hook exited.

use std::io;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitOptions, WaitStatus};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::sync::oneshot;

use super::WatchKind;
use crate::process::KILL_GRACE;

/// A spawned hook and its process group. Until it is reaped, dropping it kills
/// the group and reaps the hook on a thread of its own.
pub(in crate::process) struct Group {
    pub(super) pid: Pid,
    pub(super) reaped: bool,
}

impl Group {
    /// The leader's pid.
    pub(in crate::process) fn pid_raw(&self) -> i32 {
        self.pid.as_raw_nonzero().get()
    }

    /// A watch on the leader's exit.
    pub(in crate::process) fn exit_watch(&self) -> io::Result<ExitWatch> {
        ExitWatch::new(self.pid, WatchKind::Best)
    }

    /// `SIGTERM` to the group.
    pub(in crate::process) fn signal_term(&self) {
        self.signal(Signal::TERM);
    }

    /// `SIGKILL` to the group.
    pub(in crate::process) fn signal_kill(&self) {
        self.signal(Signal::KILL);
    }

    /// Ends a leader that has exited or is being killed: `SIGKILL` to what is
    /// left of the group, then the leader and the leftovers this process
    /// inherits are reaped (by the guard's thread if the leader is not gone yet).
    pub(in crate::process) async fn end(mut self) {
        self.signal(Signal::KILL);
        if let Ok(Some(_)) = self.reap() {
            reap_leftovers(self.pid, KILL_GRACE).await;
        }
    }

    /// Signals every process in the group, while the leader is unreaped.
    pub(super) fn signal(&self, signal: Signal) {
        if !self.reaped {
            // ESRCH (nobody left) is fine.
            let _ = rustix::process::kill_process_group(self.pid, signal);
        }
    }

    /// Collects the exit status of a leader that has exited.
    pub(super) fn reap(&mut self) -> io::Result<Option<WaitStatus>> {
        if self.reaped {
            return Ok(None);
        }
        let status = loop {
            match rustix::process::waitpid(Some(self.pid), WaitOptions::NOHANG) {
                Err(Errno::INTR) => {}
                other => break other?,
            }
        };
        self.reaped = status.is_some();
        Ok(status.map(|(_, status)| status))
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.reaped {
            return;
        }
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
        let pid = self.pid;
        // After SIGKILL the wait is short; a thread of its own keeps it off the
        // runtime's threads (and works when no runtime is left).
        let reap = move || {
            while let Err(Errno::INTR) = rustix::process::waitpid(Some(pid), WaitOptions::empty()) {
            }
            reap_leftovers_blocking(pid, KILL_GRACE);
        };
        let spawned = std::thread::Builder::new()
            .name("tower-hooks-reaper".into())
            .spawn(reap);
        if let Err(err) = spawned {
            tracing::warn!(%err, "no reaper thread; reaping the hook on this one");
            while let Err(Errno::INTR) = rustix::process::waitpid(Some(pid), WaitOptions::empty()) {
            }
        }
    }
}

/// Whether this process inherits the orphans of its hooks: it is PID 1 (a
/// container without an init) or a child subreaper.
fn inherits_orphans() -> bool {
    if rustix::process::getpid().is_init() {
        return true;
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Ok(Some(_)) = rustix::process::child_subreaper() {
        return true;
    }
    false
}

/// One pass over a reaped leader's group: reaps every member that has become
/// this process's child. Answers whether members are left that may still become
/// ours (they were sent `SIGKILL` and are dying).
fn reap_leftovers_once(pgid: Pid) -> bool {
    // The leader is reaped; while members remain the group id stays taken,
    // so `-pgid` still names this group only.
    if rustix::process::test_kill_process_group(pgid).is_err() {
        return false;
    }
    if !inherits_orphans() {
        // Their new parent (init) reaps them.
        return false;
    }
    loop {
        match rustix::process::waitpgid(pgid, WaitOptions::NOHANG) {
            Ok(Some(_)) | Err(Errno::INTR) => {}
            // Ours but still dying, or not handed to us yet.
            Ok(None) | Err(Errno::CHILD) => return true,
            Err(_) => return false,
        }
    }
}

/// Reaps, for at most `limit`, what the hook left in its group and this process
/// inherited: without it, each background child of a hook would stay a zombie
/// of a host that is PID 1 or a subreaper.
pub(super) async fn reap_leftovers(pgid: Pid, limit: Duration) {
    let start = Instant::now();
    while reap_leftovers_once(pgid) && start.elapsed() < limit {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// [`reap_leftovers`] on a thread that may block.
fn reap_leftovers_blocking(pgid: Pid, limit: Duration) {
    let start = Instant::now();
    while reap_leftovers_once(pgid) && start.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Learns that the hook exited without reaping it (so its group id stays ours).
pub(in crate::process) enum ExitWatch {
    /// Linux: a pidfd turns readable when the process exits.
    Pidfd(AsyncFd<OwnedFd>),
    /// Elsewhere: a blocking `waitid(WNOWAIT)` on a thread of its own, never
    /// on the runtime's blocking pool, so a busy pool cannot delay an answer.
    Thread {
        exited: oneshot::Receiver<()>,
        done: bool,
    },
}

impl ExitWatch {
    pub(super) fn new(pid: Pid, kind: WatchKind) -> io::Result<Self> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if kind == WatchKind::Best {
            if let Ok(fd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
                // Deprecated because a type's raw fd could change under it; an
                // `OwnedFd` we own cannot, and the safe constructor avoids `unsafe`.
                #[allow(deprecated)]
                let registered = AsyncFd::with_interest(fd, Interest::READABLE);
                if let Ok(fd) = registered {
                    return Ok(ExitWatch::Pidfd(fd));
                }
            }
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let _ = kind;
        let (tx, exited) = oneshot::channel();
        std::thread::Builder::new()
            .name("tower-hooks-waiter".into())
            .spawn(move || {
                let options =
                    rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOWAIT;
                while let Err(Errno::INTR) =
                    rustix::process::waitid(rustix::process::WaitId::Pid(pid), options)
                {
                }
                let _ = tx.send(());
            })?;
        Ok(ExitWatch::Thread {
            exited,
            done: false,
        })
    }

    /// Resolves once the hook has exited; again at once on later calls.
    pub(in crate::process) async fn exited(&mut self) {
        match self {
            ExitWatch::Pidfd(fd) => {
                // The readiness is kept (never cleared): later calls return at once.
                let _ = fd.readable().await;
            }
            ExitWatch::Thread { exited, done } => {
                if !*done {
                    let _ = exited.await;
                    *done = true;
                }
            }
        }
    }

    /// Waits up to `limit` for the exit while still draining the output.
    pub(super) async fn exited_within<F: std::future::Future + Unpin>(
        &mut self,
        limit: Duration,
        reads: &mut F,
        reads_done: &mut bool,
    ) -> bool {
        let wait = async {
            loop {
                tokio::select! {
                    biased;
                    () = self.exited() => return,
                    _ = &mut *reads, if !*reads_done => *reads_done = true,
                }
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }
}
