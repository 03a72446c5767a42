//! Processes: the seam between a hook's protocol and the processes that run it.
//!
//! The [`Command`](crate::layer::command::Command) leaf turns a request into a
//! [`Job`] and hands it to a [`Runner`]; [`ProcessRunner`] is the runner that
//! starts real processes, and a test or a bench can put anything that answers a
//! [`Finished`] in its place. A runner gets a job, never a configuration.
//!
//! [`ProcessRunner`] is the only code in the crate that touches a child process.
//! Each hook runs in its own process group, spawned through `posix_spawn` (no
//! `fork` of a large agent); its stdin is written while stdout and stderr are
//! drained, so no payload and no hook can deadlock it; capture is bounded (a tail
//! of stdout, a head of stderr), and an answer line longer than the kept tail is
//! an error rather than a silent allow; when the hook exits, whatever it left
//! running in its group is killed; at the deadline the group gets `SIGTERM`, then
//! `SIGKILL`; dropping the call kills the group too, and the hook is reaped off
//! the async threads (on a thread of its own if the runtime is shutting down).

pub mod background;
mod error;
mod oneshot;
pub mod persistent;
#[doc(hidden)] // for the fuzz target and property tests; not API
pub mod substitute;

use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

pub use self::error::CommandError;
pub use self::oneshot::{Limits, ProcessRunner};

/// How long a hook gets between `SIGTERM` and `SIGKILL`.
pub const KILL_GRACE: Duration = Duration::from_millis(250);

/// A boxed, sendable future: what runners and the leaf return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One command to run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Job {
    /// What runs: a shell with [`command`](Self::command), or a program with
    /// its arguments.
    pub program: Program,
    /// The shell command (`bash -c <command>` for nanopi), or the program of
    /// [`Program::Exec`].
    pub command: Arc<str>,
    /// The bytes written to stdin: one JSON line.
    pub stdin: Vec<u8>,
    /// Variables set on top of the inherited environment: the ones given to
    /// the command ([`Command::env`](crate::layer::command::Command::env)), then the protocol variables of the
    /// event (no name appears twice). A value holds no NUL.
    pub env: Vec<(String, String)>,
    /// Inherited variables the hook must not see: the protocol variables this
    /// event does not set (a stale `NANOPI_TOOL_NAME` from the host's own
    /// environment on `session_start`, say).
    pub env_remove: Vec<String>,
    /// The names, among [`env`](Self::env), of the variables that belong to
    /// this event rather than to the hook (`NANOPI_EVENT`, `CURSOR_HOOK_EVENT`,
    /// …): a persistent hook gets them with each request instead of in its
    /// environment.
    pub event_env: Vec<String>,
    /// The host's own values of variables that an event variable of the same
    /// name shadows in this run (a Cursor session that set `PATH`): a
    /// persistent process, which outlives the session, starts with these,
    /// and a session's variables never take the host's away from it.
    pub host_env: Vec<(String, String)>,
    /// The directory the hook runs in, if not the process's own
    /// ([`Command::current_dir`](crate::layer::command::Command::current_dir)); a runner that starts processes runs the
    /// command there, and fails the run when it cannot.
    pub current_dir: Option<Arc<Path>>,
    /// When the hook is overdue, if ever.
    pub deadline: Option<Deadline>,
}

impl Job {
    /// A job that runs `command` with `program`, `stdin` on its stdin, the
    /// inherited environment and no deadline: for a host that runs a helper
    /// command with the same hygiene as a hook (its own process group, killed
    /// when the run is dropped).
    ///
    /// ```
    /// use tower_hooks::process::{Job, ProcessRunner, Program, Runner, Termination};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
    /// let job = Job::new(Program::Sh, "tr a-z A-Z", b"ok\n".to_vec());
    /// let done = ProcessRunner::shared().run(job).await?;
    /// assert_eq!(done.termination, Termination::Exited(0));
    /// assert_eq!(done.stdout, b"OK\n");
    /// # Ok(()) }
    /// ```
    pub fn new(program: Program, command: impl Into<Arc<str>>, stdin: Vec<u8>) -> Self {
        Job {
            program,
            command: command.into(),
            stdin,
            env: Vec::new(),
            env_remove: Vec::new(),
            event_env: Vec::new(),
            host_env: Vec::new(),
            current_dir: None,
            deadline: None,
        }
    }
}

/// What a finished hook left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// How it ended.
    pub termination: Termination,
    /// The tail of its stdout (bounded: see [`Limits::stdout_tail`]).
    pub stdout: Vec<u8>,
    /// Whether the start of stdout was dropped to keep within the bound. When
    /// the kept tail then begins inside its last line, the answer is incomplete
    /// and the hook fails ([`CommandError::AnswerTooLong`]).
    pub stdout_truncated: bool,
    /// The head of its stderr (bounded).
    pub stderr: Vec<u8>,
}

/// Runs a [`Job`]: the seam between the protocol and processes.
pub trait Runner: Send + Sync + 'static {
    /// Runs the job to its end. An error means the hook could not be run at all.
    fn run(&self, job: Job) -> BoxFuture<'static, io::Result<Finished>>;

    /// The bound on jobs in flight, if the runner has one: the command leaf
    /// takes a permit in `poll_ready` and holds it for the run, so a hook at
    /// its bound is not ready. The default: no bound.
    fn in_flight_limit(&self) -> Option<Arc<tokio::sync::Semaphore>> {
        None
    }
}

/// What a hook's process runs (see [`Job`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Program {
    /// `bash -c <command>`: nanopi's hooks.
    #[default]
    Bash,
    /// `sh -c <command>`: the hooks of Claude Code, Cursor and react-agent-mini.
    Sh,
    /// `pwsh -NoProfile -NonInteractive -Command <command>`: a Claude Code
    /// handler with `"shell": "powershell"`.
    PowerShell,
    /// The command is a program, started with these arguments and no shell
    /// (Claude Code's exec form, `args`): nothing in them is expanded.
    Exec(Arc<[String]>),
}

/// How a hook's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Termination {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it.
    Signaled(i32),
    /// It ran past its deadline and was killed.
    TimedOut,
}

/// When a hook run must be over, set by the [`HookTimeout`](crate::layer::timeout::HookTimeout) layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Deadline {
    /// The instant the hook is overdue.
    pub at: Instant,
    /// The timeout it was computed from, named in the block reason.
    pub timeout: Duration,
}

/// The furthest ahead a deadline is set: about 30 years, tokio's own bound for
/// `sleep`. Timers and the instants derived from a deadline stay representable.
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

impl Deadline {
    /// The deadline `timeout` from now. A timeout too long for the clock
    /// (`Duration::MAX`, say) saturates at about 30 years: never, in practice.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower_hooks::request::Deadline;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let deadline = Deadline::after(Duration::MAX);
    /// assert_eq!(deadline.timeout, Duration::MAX);
    /// assert!(deadline.at > tokio::time::Instant::now() + Duration::from_secs(86_400 * 365));
    /// # }
    /// ```
    pub fn after(timeout: Duration) -> Deadline {
        let now = Instant::now();
        let far = now + FAR_FUTURE;
        let at = now.checked_add(timeout).map_or(far, |at| at.min(far));
        Deadline { at, timeout }
    }
}
