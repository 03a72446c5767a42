//! [`ProcessRunner`]: the one place that spawns, feeds, drains, kills and reaps.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use nix::spawn::{posix_spawn, PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags};
use nix::sys::signal::SigSet;
use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitStatus};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;

use super::KILL_GRACE;
use super::{BoxFuture, Deadline, Finished, Job, Program, Runner, Termination};

mod group;

pub(super) use group::Group;
use group::{reap_leftovers, ExitWatch};

/// Bounds on what one hook run may hold or take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The least of the end of stdout that is kept (the answer is its last
    /// line; an answer longer than the kept tail is an error, not an allow).
    /// A run keeps more when its request is big: see [`Limits::stdout_tail_for`].
    pub stdout_tail: usize,
    /// How much of the start of stderr is kept (the block reason).
    pub stderr_head: usize,
    /// Between `SIGTERM` and `SIGKILL` when a hook is overdue.
    pub kill_grace: Duration,
    /// How long output already written is read after the hook has exited,
    /// before whatever it left running is killed.
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

/// Room for what a transform adds to a payload it rewrites.
const TAIL_MARGIN: usize = 64 * 1024;

impl Limits {
    /// The tail of stdout kept for a hook whose stdin line is `stdin_len` bytes:
    /// twice that plus a margin, and never less than [`Limits::stdout_tail`].
    /// A hook that rewrites its payload (a redactor on a 2.5 MB tool output)
    /// answers with a line about as long as the payload; it always fits, and
    /// memory stays bounded by the input.
    ///
    /// ```
    /// use tower_hooks::process::Limits;
    /// let limits = Limits::default();
    /// assert_eq!(limits.stdout_tail_for(200), limits.stdout_tail);
    /// assert!(limits.stdout_tail_for(2_500_000) >= 5_000_000);
    /// ```
    pub fn stdout_tail_for(&self, stdin_len: usize) -> usize {
        stdin_len
            .saturating_mul(2)
            .saturating_add(TAIL_MARGIN)
            .max(self.stdout_tail)
    }
}

/// Runs jobs as processes: `bash -c <command>`, `sh -c <command>`, or a program
/// with its arguments ([`Program`]). See the [module docs](super).
///
/// `bash` and `sh` are looked up on `PATH` at their first run and then spawned
/// by their absolute paths through `posix_spawn`; an exec-form program is looked
/// up on each run (unless its name holds a `/`).
#[derive(Debug, Default)]
pub struct ProcessRunner {
    bash: OnceLock<CString>,
    sh: OnceLock<CString>,
    limits: Limits,
    exit_watch: WatchKind,
}

/// How a run learns that its hook exited.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum WatchKind {
    /// A pidfd where the kernel has one, else a waiter thread.
    #[default]
    Best,
    /// Always a waiter thread (what hosts without pidfd get); for tests.
    #[cfg_attr(not(test), allow(dead_code))]
    Thread,
}

impl ProcessRunner {
    /// A runner with the default [`Limits`].
    pub fn new() -> Self {
        ProcessRunner::default()
    }

    /// A runner with these limits.
    pub fn with_limits(limits: Limits) -> Self {
        ProcessRunner {
            limits,
            ..ProcessRunner::default()
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

    /// A shell found on `PATH` once, then spawned by its absolute path.
    fn shell(cell: &OnceLock<CString>, name: &str) -> io::Result<CString> {
        if let Some(path) = cell.get() {
            return Ok(path.clone());
        }
        let path = c_path(find_on_path(name)?)?;
        Ok(cell.get_or_init(|| path).clone())
    }

    /// What to spawn for `job`: the executable, `argv[0]`, and the arguments
    /// after it.
    pub(super) fn argv(&self, job: &Job) -> io::Result<Argv> {
        let dir = job.current_dir.as_deref();
        let shell = |cell, name: &'static str| -> io::Result<Argv> {
            let command = match dir {
                None => job.command.as_bytes().to_vec(),
                Some(dir) => in_dir(dir, &job.command)?,
            };
            Ok(Argv {
                path: Self::shell(cell, name)?,
                arg0: c_string(name.as_bytes().to_vec())?,
                args: vec![c_string(b"-c".to_vec())?, c_string(command)?],
            })
        };
        match &job.program {
            Program::Bash => shell(&self.bash, "bash"),
            Program::Sh => shell(&self.sh, "sh"),
            Program::PowerShell => {
                let args = ["-NoProfile", "-NonInteractive", "-Command", &job.command];
                self.exec("pwsh", args, dir)
            }
            Program::Exec(args) => self.exec(&job.command, args.iter().map(String::as_str), dir),
        }
    }

    /// What to spawn for `program` with `args` and no shell, started in
    /// `dir` when there is one.
    fn exec<'a>(
        &self,
        program: &str,
        args: impl IntoIterator<Item = &'a str>,
        dir: Option<&Path>,
    ) -> io::Result<Argv> {
        let mut rest = Vec::new();
        let path = match dir {
            // `sh` changes directory, then becomes the program:
            // `sh -c 'cd -- DIR || exit 126; exec "$0" "$@"' PROGRAM ARGS…`.
            Some(dir) => {
                rest.push(c_string(b"-c".to_vec())?);
                rest.push(c_string(in_dir(dir, r#"exec "$0" "$@""#)?)?);
                rest.push(c_string(program.as_bytes().to_vec())?);
                Self::shell(&self.sh, "sh")?
            }
            None if program.contains('/') => c_path(PathBuf::from(program))?,
            None => c_path(find_on_path(program)?)?,
        };
        for arg in args {
            rest.push(c_string(arg.as_bytes().to_vec())?);
        }
        let arg0 = if dir.is_some() { "sh" } else { program };
        Ok(Argv {
            path,
            arg0: c_string(arg0.as_bytes().to_vec())?,
            args: rest,
        })
    }
}

/// The executable of a spawn, the name it runs under (`bash`, `sh`, or the
/// program as written), and its arguments.
pub(super) struct Argv {
    path: CString,
    arg0: CString,
    args: Vec<CString>,
}

impl Argv {
    /// The executable.
    pub(super) fn path(&self) -> &CStr {
        &self.path
    }
}

fn c_string(bytes: Vec<u8>) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the hook's command or an argument holds a NUL byte",
        )
    })
}

fn c_path(path: PathBuf) -> io::Result<CString> {
    c_string(path.into_os_string().into_vec())
}

impl Runner for ProcessRunner {
    fn run(&self, job: Job) -> BoxFuture<'static, io::Result<Finished>> {
        let argv = self.argv(&job);
        let limits = self.limits;
        let watch = self.exit_watch;
        Box::pin(async move { run(argv?, limits, watch, job).await })
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

async fn run(argv: Argv, limits: Limits, watch: WatchKind, job: Job) -> io::Result<Finished> {
    let tail = limits.stdout_tail_for(job.stdin.len());
    // Spawned right here, on the calling thread: a spawn is a millisecond or
    // so, and a pool would put a busy pool between the host and its hooks.
    // Under a burst of many hundred hooks on two cores that millisecond
    // queues up (docs/guarantees.md says at which load the bound holds).
    let child = spawn(&argv, &job.env, &job.env_remove).map_err(|err| {
        io::Error::new(
            err.kind(),
            format!("could not spawn {}: {err}", argv.path.to_string_lossy()),
        )
    })?;
    let Child {
        mut group,
        stdin,
        stdin_theirs,
        stdout,
        stderr,
    } = child;
    tracing::Span::current().record("pid", group.pid.as_raw_nonzero().get());

    let _feeder = feed_stdin(stdin, stdin_theirs, job.stdin)?;
    let stdout = pipe::Receiver::from_owned_fd(stdout)?;
    let stderr = pipe::Receiver::from_owned_fd(stderr)?;
    let mut exit = ExitWatch::new(group.pid, watch)?;

    let mut out = Vec::new();
    let mut out_truncated = false;
    let mut err = Vec::new();
    let timed_out = {
        let reads = async {
            tokio::join!(
                read_tail(stdout, &mut out, &mut out_truncated, tail),
                read_head(stderr, &mut err, limits.stderr_head),
            )
        };
        tokio::pin!(reads);
        let mut reads_done = false;
        let timed_out = read_until_exit(&mut exit, &mut reads, &mut reads_done, job.deadline).await;
        if timed_out {
            stop_overdue(
                &group,
                &mut exit,
                limits.kill_grace,
                &mut reads,
                &mut reads_done,
            )
            .await;
        }

        if !reads_done {
            // The hook has exited, but its answer may still be on its way
            // through a helper of its group (`exec > >(tee log)`): read what
            // comes, for a short bound, before anything is killed.
            let _ = tokio::time::timeout(limits.output_grace, &mut reads).await;
        }
        // The hook has exited but is not reaped yet, so its group id cannot have
        // been reused: kill whatever it left running there.
        group.signal(Signal::KILL);
        timed_out
    };

    let status = group.reap()?;
    if status.is_some() {
        reap_leftovers(group.pid, limits.kill_grace).await;
    }
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

/// Writes a hook's stdin. What fits in the pipe is written now, while this
/// process still holds the pipe's read end (`theirs`): a pipe with a reader
/// never raises SIGPIPE, however the host has set that signal. The rest goes
/// to a thread that blocks it, whose [`Feeder`] is kept until the run ends.
fn feed_stdin(stdin: OwnedFd, theirs: OwnedFd, data: Vec<u8>) -> io::Result<Option<Feeder>> {
    let written = write_now(&stdin, &data);
    drop(theirs);
    if written < data.len() {
        Ok(Some(Feeder::start(stdin, data, written)?))
    } else {
        // All of it is in the pipe: closing our end is the hook's EOF.
        drop(stdin);
        Ok(None)
    }
}

/// Reads the hook's output until it exits or its deadline passes; whether it
/// is overdue.
async fn read_until_exit<F: std::future::Future + Unpin>(
    exit: &mut ExitWatch,
    reads: &mut F,
    reads_done: &mut bool,
    deadline: Option<Deadline>,
) -> bool {
    let overdue = async {
        match deadline {
            Some(deadline) => tokio::time::sleep_until(deadline.at).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(overdue);
    loop {
        tokio::select! {
            biased;
            () = exit.exited() => return false,
            _ = &mut *reads, if !*reads_done => *reads_done = true,
            () = &mut overdue => return true,
        }
    }
}

/// Stops an overdue hook: `SIGTERM` to its group, then `SIGKILL` when it has
/// not exited within `grace`. Its output is read meanwhile.
async fn stop_overdue<F: std::future::Future + Unpin>(
    group: &Group,
    exit: &mut ExitWatch,
    grace: Duration,
    reads: &mut F,
    reads_done: &mut bool,
) {
    group.signal(Signal::TERM);
    if exit.exited_within(grace, reads, reads_done).await {
        return;
    }
    group.signal(Signal::KILL);
    // SIGKILL cannot be ignored; the bound only guards against a process
    // stuck in the kernel. Its group guard reaps it later.
    let _ = exit.exited_within(grace * 4, reads, reads_done).await;
}

fn termination_of(status: WaitStatus) -> Termination {
    match (status.exit_status(), status.terminating_signal()) {
        (Some(code), _) => Termination::Exited(code),
        (None, Some(signal)) => Termination::Signaled(signal),
        (None, None) => Termination::Signaled(0),
    }
}

/// A started hook: its pid, and this process's ends of its pipes.
pub(super) struct Child {
    /// Its group: dropped unreaped, it kills and reaps.
    group: Group,
    /// The write end of its stdin.
    stdin: OwnedFd,
    /// Our copy of the read end of its stdin, kept until the first write.
    stdin_theirs: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
}

/// `command`, run in `dir`: `cd -- '<dir>' || exit 126; <command>`, on one
/// line so that bash's `line N` messages keep their numbers. `posix_spawn` has
/// no portable change of directory (and `unsafe` is not allowed here), so the
/// shell changes it; the directory is checked first, so that one that is
/// missing or cannot be entered is an error of the run (the hook fails open or
/// closed) rather than bash's exit 126, which would read as an allow. Relative
/// directories are made absolute first (so `CDPATH` plays no part).
fn in_dir(dir: &Path, command: &str) -> io::Result<Vec<u8>> {
    let context = |err: io::Error| {
        io::Error::new(
            err.kind(),
            format!("the hook's working directory {}: {err}", dir.display()),
        )
    };
    let dir = std::path::absolute(dir).map_err(context)?;
    let metadata = std::fs::metadata(&dir).map_err(context)?;
    if !metadata.is_dir() {
        return Err(context(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a directory",
        )));
    }
    rustix::fs::access(&dir, rustix::fs::Access::EXEC_OK).map_err(|e| context(e.into()))?;
    let mut line = b"cd -- '".to_vec();
    for &byte in dir.as_os_str().as_bytes() {
        if byte == b'\'' {
            line.extend_from_slice(b"'\\''");
        } else {
            line.push(byte);
        }
    }
    line.extend_from_slice(b"' || exit 126; ");
    line.extend_from_slice(command.as_bytes());
    Ok(line)
}

/// Starts `argv` (`bash -c <command>` for nanopi) through `posix_spawn`
/// (never a `fork` of a large host), leading a new process group, with an
/// empty signal mask and every signal at its default action: a host that
/// blocks or ignores `SIGTERM` does not hand that to its hooks, so the graceful
/// `SIGTERM` of a timeout works.
/// [`spawn`], for the persistent runner.
pub(super) fn spawn_group(
    argv: &Argv,
    env: &[(String, String)],
    env_remove: &[String],
) -> io::Result<Child> {
    spawn(argv, env, env_remove)
}

impl Child {
    /// Its group, the write end of its stdin (non-blocking), our copy of the
    /// read end of its stdin, and the read ends of its stdout and stderr.
    pub(super) fn into_parts(self) -> (Group, OwnedFd, OwnedFd, OwnedFd, OwnedFd) {
        (
            self.group,
            self.stdin,
            self.stdin_theirs,
            self.stdout,
            self.stderr,
        )
    }
}

fn spawn(argv: &Argv, env: &[(String, String)], env_remove: &[String]) -> io::Result<Child> {
    let env = environment(env, env_remove)?;
    let (stdin_theirs, stdin) = pipe()?;
    let (stdout, stdout_theirs) = pipe()?;
    let (stderr, stderr_theirs) = pipe()?;
    // A host that closed its own 0, 1 or 2 may get them back as pipe ends
    // here; the child's ends must not sit where an earlier dup2 writes.
    let stdin_theirs = above_stdio(stdin_theirs)?;
    let stdout_theirs = above_stdio(stdout_theirs)?;
    let stderr_theirs = above_stdio(stderr_theirs)?;

    let mut actions = PosixSpawnFileActions::init()?;
    actions.add_dup2(stdin_theirs.as_raw_fd(), 0)?;
    actions.add_dup2(stdout_theirs.as_raw_fd(), 1)?;
    actions.add_dup2(stderr_theirs.as_raw_fd(), 2)?;
    let mut attr = PosixSpawnAttr::init()?;
    attr.set_flags(
        PosixSpawnFlags::POSIX_SPAWN_SETPGROUP
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF,
    )?;
    attr.set_pgroup(nix::unistd::Pid::from_raw(0))?;
    attr.set_sigmask(&SigSet::empty())?;
    attr.set_sigdefault(&SigSet::all())?;
    // A shell is named as `bash -c` and `sh -c` name it: the hook's `$0` and
    // the shell's own messages say `bash` or `sh`.
    let args: Vec<&CStr> = std::iter::once(argv.arg0.as_c_str())
        .chain(argv.args.iter().map(CString::as_c_str))
        .collect();
    let pid = posix_spawn(argv.path.as_c_str(), &actions, &attr, &args, &env)?;
    let pid = Pid::from_raw(pid.as_raw())
        .ok_or_else(|| io::Error::other("posix_spawn answered an invalid pid"))?;
    let group = Group { pid, reaped: false };
    rustix::io::ioctl_fionbio(&stdin, true)?;
    Ok(Child {
        group,
        stdin,
        stdin_theirs,
        stdout,
        stderr,
    })
}

/// A pipe whose two ends close on exec: `(read, write)`.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    #[cfg(not(target_vendor = "apple"))]
    {
        Ok(rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?)
    }
    #[cfg(target_vendor = "apple")]
    {
        let (read, write) = rustix::pipe::pipe()?;
        for fd in [&read, &write] {
            rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::CLOEXEC)?;
        }
        Ok((read, write))
    }
}

fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    Ok(rustix::io::fcntl_dupfd_cloexec(&fd, 3)?)
}

/// The hook's environment: the host's, less the protocol variables this event
/// does not set ([`Job::env_remove`]), plus the job's own. A name of the job's
/// that is empty or holds `=` or NUL is an error.
fn environment(set: &[(String, String)], remove: &[String]) -> io::Result<Vec<CString>> {
    if let Some((key, _)) = set
        .iter()
        .find(|(key, _)| key.is_empty() || key.contains(['=', '\0']))
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid environment variable name {key:?}"),
        ));
    }
    let replaced = |key: &[u8]| {
        set.iter().any(|(k, _)| k.as_bytes() == key) || remove.iter().any(|k| k.as_bytes() == key)
    };
    let mut env: Vec<CString> = std::env::vars_os()
        .filter(|(key, _)| !replaced(key.as_bytes()))
        .filter_map(|(key, value)| {
            let mut entry = key.into_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            CString::new(entry).ok()
        })
        .collect();
    // Names were checked; values cannot hold NUL (the leaf replaced it).
    env.extend(
        set.iter()
            .filter_map(|(key, value)| CString::new(format!("{key}={value}")).ok()),
    );
    Ok(env)
}

/// Writes as much of `data` as the pipe takes without waiting; answers how much.
fn write_now(pipe: &OwnedFd, data: &[u8]) -> usize {
    let mut done = 0;
    while done < data.len() {
        match rustix::io::write(pipe, &data[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(Errno::INTR) => {}
            // Full (EAGAIN), or anything else: the feeder takes over or gives up.
            Err(_) => break,
        }
    }
    done
}

/// The rest of a stdin bigger than the pipe, written by a task on the feeder
/// thread. Aborted when dropped, which closes the pipe.
struct Feeder(tokio::task::JoinHandle<()>);

impl Feeder {
    fn start(pipe: OwnedFd, data: Vec<u8>, from: usize) -> io::Result<Feeder> {
        let handle = feeder_runtime()?;
        Ok(Feeder(handle.spawn(async move {
            // Registered with the feeder's own reactor, on its own thread.
            if let Ok(mut pipe) = pipe::Sender::from_owned_fd(pipe) {
                // A hook that stops reading breaks the pipe: not an error.
                let _ = pipe.write_all(&data[from..]).await;
            }
        })))
    }
}

impl Drop for Feeder {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A single-threaded runtime on a thread of its own that blocks `SIGPIPE`:
/// a write into a pipe whose hook has gone leaves the signal pending on that
/// thread, where it is never delivered, so a host that restored `SIG_DFL` is
/// not killed by a hook that exits without reading.
fn feeder_runtime() -> io::Result<&'static tokio::runtime::Handle> {
    static FEEDER: OnceLock<Option<tokio::runtime::Handle>> = OnceLock::new();
    let start = || -> io::Result<tokio::runtime::Handle> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()?;
        let handle = runtime.handle().clone();
        std::thread::Builder::new()
            .name("tower-hooks-stdin".into())
            .spawn(move || {
                let mut sigpipe = SigSet::empty();
                sigpipe.add(nix::sys::signal::Signal::SIGPIPE);
                if sigpipe.thread_block().is_ok() {
                    runtime.block_on(std::future::pending::<()>());
                }
            })?;
        Ok(handle)
    };
    FEEDER
        .get_or_init(|| start().ok())
        .as_ref()
        .ok_or_else(|| io::Error::other("could not start the thread that feeds hooks' stdin"))
}

const CHUNK: usize = 16 * 1024;

async fn read_tail(pipe: pipe::Receiver, buf: &mut Vec<u8>, truncated: &mut bool, cap: usize) {
    drain(pipe, |data| {
        buf.extend_from_slice(data);
        if buf.len() > cap.saturating_mul(2) {
            buf.drain(..buf.len() - cap);
            *truncated = true;
        }
    })
    .await
}

async fn read_head(pipe: pipe::Receiver, buf: &mut Vec<u8>, cap: usize) {
    drain(pipe, |data| {
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&data[..data.len().min(room)]);
    })
    .await
}

/// Reads `pipe` to its end (or its first error), handing each chunk to `keep`.
async fn drain(mut pipe: pipe::Receiver, mut keep: impl FnMut(&[u8])) {
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

#[cfg(test)]
mod tests;
