//! [`ProcessRunner`]: the one place that spawns, feeds, drains, kills and reaps.

use std::ffi::OsStr;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use rustix::process::{Pid, Signal};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::unix::pipe;
use tokio::task::JoinHandle;

use super::{BoxFuture, Finished, Job, Runner, Termination};
use crate::timeout::KILL_GRACE;

/// Bounds on what one hook run may hold or take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How much of the end of stdout is kept (the answer is its last line; an
    /// answer longer than this is an error, not an allow).
    pub stdout_tail: usize,
    /// How much of the start of stderr is kept (the block reason).
    pub stderr_head: usize,
    /// Between `SIGTERM` and `SIGKILL` when a hook is overdue.
    pub kill_grace: Duration,
    /// How long output already written is read after the hook has exited.
    pub output_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            stdout_tail: 1024 * 1024,
            stderr_head: 64 * 1024,
            kill_grace: KILL_GRACE,
            output_grace: Duration::from_millis(100),
        }
    }
}

/// Runs jobs as `bash -c <command>` processes. See the [module docs](super).
///
/// `bash` is looked up on `PATH` at the first run and then spawned by its
/// absolute path, so `std` keeps using `posix_spawn`.
#[derive(Debug, Default)]
pub struct ProcessRunner {
    bash: OnceLock<PathBuf>,
    limits: Limits,
}

impl ProcessRunner {
    /// A runner with the default [`Limits`].
    pub fn new() -> Self {
        ProcessRunner::default()
    }

    /// A runner with these limits.
    pub fn with_limits(limits: Limits) -> Self {
        ProcessRunner {
            bash: OnceLock::new(),
            limits,
        }
    }

    /// The process-wide default runner.
    pub fn shared() -> Arc<dyn Runner> {
        static SHARED: OnceLock<Arc<ProcessRunner>> = OnceLock::new();
        SHARED
            .get_or_init(|| Arc::new(ProcessRunner::new()))
            .clone()
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn bash(&self) -> io::Result<PathBuf> {
        if let Some(path) = self.bash.get() {
            return Ok(path.clone());
        }
        let path = find_on_path("bash")?;
        Ok(self.bash.get_or_init(|| path).clone())
    }
}

impl Runner for ProcessRunner {
    fn run(&self, job: Job) -> BoxFuture<'static, io::Result<Finished>> {
        let bash = self.bash();
        let limits = self.limits;
        Box::pin(async move { run(&bash?, limits, job).await })
    }
}

fn find_on_path(name: &str) -> io::Result<PathBuf> {
    let not_found = || io::Error::new(io::ErrorKind::NotFound, format!("{name} not found on PATH"));
    let path = std::env::var_os("PATH").ok_or_else(not_found)?;
    std::env::split_paths(&path)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                Path::new(".").join(name)
            } else {
                dir.join(name)
            }
        })
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .ok_or_else(not_found)
}

async fn run(bash: &Path, limits: Limits, job: Job) -> io::Result<Finished> {
    let mut command = std::process::Command::new(bash);
    command
        // Spawned by its absolute path, but named `bash` as nanopi's `bash -c`
        // names it: the hook's `$0` and bash's own messages say `bash`.
        .arg0("bash")
        .arg("-c")
        .arg(OsStr::new(&*job.command))
        .envs(job.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so that everything it starts can be killed at once.
        // No pre_exec closure: std keeps spawning through posix_spawn.
        .process_group(0);
    let mut child = command.spawn().map_err(|err| {
        io::Error::new(
            err.kind(),
            format!("could not spawn {}: {err}", bash.display()),
        )
    })?;
    let stdin = child.stdin.take().map(OwnedFd::from);
    let stdout = child.stdout.take().map(OwnedFd::from);
    let stderr = child.stderr.take().map(OwnedFd::from);
    // From here on, leaving early (an error, a dropped future) kills the group.
    let mut group = Group::new(child);
    tracing::Span::current().record("pid", group.pid.as_raw_nonzero().get());

    let stdin = stdin.map(pipe::Sender::from_owned_fd).transpose()?;
    let stdout = stdout.map(pipe::Receiver::from_owned_fd).transpose()?;
    let stderr = stderr.map(pipe::Receiver::from_owned_fd).transpose()?;
    let mut exit = ExitWatch::new(group.pid);

    let mut out = Vec::new();
    let mut out_truncated = false;
    let mut err = Vec::new();
    let mut timed_out = false;
    {
        let io = async {
            tokio::join!(
                write_all(stdin, &job.stdin),
                read_tail(stdout, &mut out, &mut out_truncated, limits.stdout_tail),
                read_head(stderr, &mut err, limits.stderr_head),
            )
        };
        tokio::pin!(io);
        let mut io_done = false;
        let overdue = async {
            match job.deadline {
                Some(deadline) => tokio::time::sleep_until(deadline.at).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(overdue);

        // Feed and drain until the hook exits or is overdue.
        loop {
            tokio::select! {
                biased;
                () = exit.exited() => break,
                _ = &mut io, if !io_done => io_done = true,
                () = &mut overdue => {
                    timed_out = true;
                    break;
                }
            }
        }

        if timed_out {
            group.signal(Signal::TERM);
            let graced = exit
                .exited_within(limits.kill_grace, &mut io, &mut io_done)
                .await;
            if !graced {
                group.signal(Signal::KILL);
                // SIGKILL cannot be ignored; the bound only guards against a
                // process stuck in the kernel. Its group guard reaps it later.
                let _ = exit
                    .exited_within(limits.kill_grace * 4, &mut io, &mut io_done)
                    .await;
            }
        }

        // The hook has exited but is not reaped yet, so its group id cannot have
        // been reused: kill whatever it left running there.
        group.signal(Signal::KILL);
        if !io_done {
            // Output already written is still in the pipes; read it, briefly.
            let _ = tokio::time::timeout(limits.output_grace, &mut io).await;
        }
    }

    let status = group.reap()?;
    let termination = match status {
        _ if timed_out => Termination::TimedOut,
        Some(status) => termination_of(status),
        None => {
            return Err(io::Error::other(
                "the hook did not exit after SIGKILL; it will be reaped when it does",
            ))
        }
    };
    Ok(Finished {
        termination,
        stdout: out,
        stdout_truncated: out_truncated,
        stderr: err,
    })
}

fn termination_of(status: ExitStatus) -> Termination {
    match (status.code(), status.signal()) {
        (Some(code), _) => Termination::Exited(code),
        (None, Some(signal)) => Termination::Signaled(signal),
        (None, None) => Termination::Signaled(0),
    }
}

async fn write_all(pipe: Option<pipe::Sender>, data: &[u8]) {
    if let Some(mut pipe) = pipe {
        // A hook that exits without reading its stdin breaks the pipe: not an error.
        let _ = pipe.write_all(data).await;
    }
}

const CHUNK: usize = 16 * 1024;

async fn read_tail(
    pipe: Option<pipe::Receiver>,
    buf: &mut Vec<u8>,
    truncated: &mut bool,
    cap: usize,
) {
    drain(pipe, |data| {
        buf.extend_from_slice(data);
        if buf.len() > cap.saturating_mul(2) {
            buf.drain(..buf.len() - cap);
            *truncated = true;
        }
    })
    .await
}

async fn read_head(pipe: Option<pipe::Receiver>, buf: &mut Vec<u8>, cap: usize) {
    drain(pipe, |data| {
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&data[..data.len().min(room)]);
    })
    .await
}

/// Reads `pipe` to its end (or its first error), handing each chunk to `keep`.
async fn drain(pipe: Option<pipe::Receiver>, mut keep: impl FnMut(&[u8])) {
    let Some(mut pipe) = pipe else { return };
    // On the heap and never zeroed: `read_buf` fills the spare capacity.
    let mut chunk = Vec::with_capacity(CHUNK);
    loop {
        chunk.clear();
        match pipe.read_buf(&mut chunk).await {
            Ok(0) => return,
            Ok(_) => keep(&chunk),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// A spawned hook and its process group. Until it is reaped, dropping it kills
/// the group and reaps the hook off this thread.
struct Group {
    child: Option<Child>,
    pid: Pid,
}

impl Group {
    fn new(child: Child) -> Self {
        let pid = Pid::from_child(&child);
        Group {
            child: Some(child),
            pid,
        }
    }

    /// Signals every process in the group, while the leader is unreaped.
    fn signal(&self, signal: Signal) {
        if self.child.is_some() {
            // ESRCH (nobody left) is fine.
            let _ = rustix::process::kill_process_group(self.pid, signal);
        }
    }

    /// Collects the exit status of a leader that has exited.
    fn reap(&mut self) -> io::Result<Option<ExitStatus>> {
        let Some(child) = self.child.as_mut() else {
            return Ok(None);
        };
        let status = child.try_wait()?;
        if status.is_some() {
            self.child = None;
        }
        Ok(status)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let Some(child) = self.child.take() else {
            return;
        };
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let mut reaper = Reaper(Some(child));
                drop(runtime.spawn_blocking(move || reaper.wait()));
            }
            Err(_) => reap_on_a_thread(child),
        }
    }
}

/// Waits for a killed hook on the runtime's blocking pool. A runtime that is
/// shutting down drops blocking tasks without running them; dropping a
/// `Reaper` that has not waited hands the wait to a thread of its own, so the
/// hook never stays a zombie.
struct Reaper(Option<Child>);

impl Reaper {
    fn wait(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.wait();
        }
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(child) = self.0.take() {
            reap_on_a_thread(child);
        }
    }
}

/// Waits for a killed hook on a new thread; without one, here (the hook has
/// been sent `SIGKILL`, so the wait is short).
fn reap_on_a_thread(child: Child) {
    fn wait(slot: &Mutex<Option<Child>>) {
        let child = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(mut child) = child {
            let _ = child.wait();
        }
    }
    let slot = Arc::new(Mutex::new(Some(child)));
    let theirs = slot.clone();
    let spawned = std::thread::Builder::new()
        .name("tower-hooks-reaper".into())
        .spawn(move || wait(&theirs));
    if spawned.is_err() {
        wait(&slot);
    }
}

/// Learns that the hook exited without reaping it (so its group id stays ours).
enum ExitWatch {
    /// Linux: a pidfd turns readable when the process exits.
    Pidfd(AsyncFd<OwnedFd>),
    /// Elsewhere: a blocking `waitid(WNOWAIT)` on a worker thread.
    Thread { handle: JoinHandle<()>, done: bool },
}

impl ExitWatch {
    fn new(pid: Pid) -> Self {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Ok(fd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
            // Deprecated because a type's raw fd could change under it; an
            // `OwnedFd` we own cannot, and the safe constructor avoids `unsafe`.
            #[allow(deprecated)]
            let registered = AsyncFd::with_interest(fd, Interest::READABLE);
            if let Ok(fd) = registered {
                return ExitWatch::Pidfd(fd);
            }
        }
        let handle = tokio::task::spawn_blocking(move || {
            let options =
                rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOWAIT;
            while let Err(rustix::io::Errno::INTR) =
                rustix::process::waitid(rustix::process::WaitId::Pid(pid), options)
            {}
        });
        ExitWatch::Thread {
            handle,
            done: false,
        }
    }

    /// Resolves once the hook has exited; again at once on later calls.
    async fn exited(&mut self) {
        match self {
            ExitWatch::Pidfd(fd) => {
                // The readiness is kept (never cleared): later calls return at once.
                let _ = fd.readable().await;
            }
            ExitWatch::Thread { handle, done } => {
                if !*done {
                    let _ = handle.await;
                    *done = true;
                }
            }
        }
    }

    /// Waits up to `limit` for the exit while still driving the I/O.
    async fn exited_within<F: std::future::Future + Unpin>(
        &mut self,
        limit: Duration,
        io: &mut F,
        io_done: &mut bool,
    ) -> bool {
        let wait = async {
            loop {
                tokio::select! {
                    biased;
                    () = self.exited() => return,
                    _ = &mut *io, if !*io_done => *io_done = true,
                }
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }
}
