//! The leaf that runs one command hook (`bash -c <command>` for nanopi's).
//!
//! [`Command`] turns a [`HookRequest`] into a [`Job`] as the dialect of the
//! request's hook says (for nanopi: the stdin line and the `NANOPI_*`
//! variables), hands it to a [`Runner`], and has the same dialect read what
//! comes back as a [`Verdict`]. The leaf itself never names a dialect. The runner is a
//! seam: [`ProcessRunner`] spawns real processes, and a test or a bench can put
//! anything that answers a [`Finished`](crate::process::Finished) in its place.
//!
//! [`ProcessRunner`] is the only code in the
//! crate that touches a child process; see [`process`](crate::process).
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower::ServiceExt;
//! use tower_hooks::layer::command::Command;
//! use tower_hooks::{HookRequest, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let guard = Command::new(r#"grep -q 'rm -rf' && { echo "refused" >&2; exit 2; }; exit 0"#);
//! let req = HookRequest::tool_execution_start("bash", json!({"command": "rm -rf /"}));
//! assert_eq!(guard.oneshot(req).await.unwrap(), Verdict::block("refused"));
//! # }
//! ```

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::task::{Context, Poll};

use tower_service::Service;

use crate::dialect::JobParts;
use crate::host::Host;
use crate::outcome::{BlockCause, RunDetail, Verdict};
use crate::process::{BoxFuture, Job, ProcessRunner, Runner, Termination};
use crate::request::HookRequest;
use crate::BoxError;

pub use crate::process::CommandError;

/// Sets `key` in `env`, replacing an earlier value.
pub(crate) fn set_var(env: &mut Vec<(String, String)>, key: String, value: String) {
    match env.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => env.push((key, value)),
    }
}

/// Runs one command hook. See the [module docs](self).
pub struct Command {
    command: Arc<str>,
    runner: Arc<dyn Runner>,
    host: Arc<Host>,
    /// Extra variables, shared by every hook of a stack.
    env: Arc<[(String, String)]>,
    current_dir: Option<Arc<Path>>,
    /// For a runner with a bound on runs in flight: the permit `poll_ready`
    /// took for the next call, or the wait for one.
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    acquiring: Option<Acquiring>,
}

/// The wait for a permit of a bounded runner (`Sync`, as `Command` must be).
type Acquiring = std::pin::Pin<
    Box<dyn std::future::Future<Output = Option<tokio::sync::OwnedSemaphorePermit>> + Send + Sync>,
>;

impl Clone for Command {
    /// A clone shares the runner and its bound, and holds no permit.
    fn clone(&self) -> Self {
        Command {
            command: self.command.clone(),
            runner: self.runner.clone(),
            host: self.host.clone(),
            env: self.env.clone(),
            current_dir: self.current_dir.clone(),
            permit: None,
            acquiring: None,
        }
    }
}

impl Command {
    /// A hook running `bash -c <command>` as a real process, with nanopi's names.
    pub fn new(command: impl Into<Arc<str>>) -> Self {
        Command::with_runner(command, ProcessRunner::shared(), Arc::new(Host::default()))
    }

    /// A hook whose jobs go to `runner`, with `host`'s variable names.
    pub fn with_runner(
        command: impl Into<Arc<str>>,
        runner: Arc<dyn Runner>,
        host: Arc<Host>,
    ) -> Self {
        Command {
            command: command.into(),
            runner,
            host,
            env: Arc::from([]),
            current_dir: None,
            permit: None,
            acquiring: None,
        }
    }

    /// Sets a variable for the hook, on top of the inherited environment (a
    /// later value for the same name replaces an earlier one). The protocol
    /// variables (`NANOPI_EVENT`, …) are exact: a variable of one of their
    /// names is never passed, whether or not the event sets it. A NUL in the
    /// value becomes U+FFFD; a name that is empty or holds `=` or NUL makes
    /// each run fail, as a spawn error.
    pub fn env(self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.envs([(key, value)])
    }

    /// Sets several variables, as [`env`](Self::env) does.
    pub fn envs<K, V>(mut self, vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        let mut env = self.env.to_vec();
        for (key, value) in vars {
            set_var(&mut env, key.into(), value.into());
        }
        self.env = env.into();
        self
    }

    /// Runs the hook in `dir` rather than in the process's current directory
    /// (a relative `dir` is taken from the process's current directory at each
    /// run). It changes where relative paths in the command resolve, not the
    /// payload's `cwd` or `NANOPI_CWD`, which are the session's. Hooks of the
    /// Claude Code and react-agent-mini dialects run in the session's working
    /// directory ([`HookRequest::with_cwd`]) instead, as their hosts do; `dir`
    /// is theirs only for a request without one. A directory
    /// that does not exist or cannot be entered is an error of the run: the
    /// hook fails open (or closed) like one that cannot be spawned.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.current_dir = Some(dir.as_ref().into());
        self
    }

    /// The variables and directory of a stack, shared by its command hooks.
    pub(crate) fn with_shared(
        mut self,
        env: Arc<[(String, String)]>,
        current_dir: Option<Arc<Path>>,
    ) -> Self {
        self.env = env;
        self.current_dir = current_dir;
        self
    }

    /// The shell command.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The job this hook would run for `req`, as the dialect of the
    /// request's hook builds it (nanopi's for a request without one).
    pub fn job(&self, req: &HookRequest) -> Job {
        let process_cwd;
        let cwd = match req.cwd() {
            Some(cwd) => cwd,
            None => {
                process_cwd = std::env::current_dir()
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default();
                &process_cwd
            }
        };
        let parts = JobParts {
            command: &self.command,
            env: &self.env,
            current_dir: self.current_dir.as_ref(),
            host: &self.host,
            cwd,
        };
        crate::dialect::of(req).job(req.hook().map(|spec| &**spec), &parts, req)
    }
}

/// Runs a job and reads what it left by the rules of the request's dialect:
/// the record of the run goes to the chain's slot, the dialect's notes too.
/// A dialect that answers every failure itself never returns `Err`;
/// nanopi's does, for the fail-open layer's report line.
async fn run_and_answer(
    req: HookRequest,
    run: BoxFuture<'static, io::Result<crate::process::Finished>>,
) -> Result<Verdict, BoxError> {
    let dialect = crate::dialect::of(&req);
    // A task of its own, so that the hooks of a group that runs at once are
    // started on every worker thread, not one after another on the caller's;
    // dropping the call aborts the task, whose run then kills its process.
    let run = match tokio::runtime::Handle::try_current() {
        Ok(runtime) if dialect.dialect().runs_on_own_task() => {
            let task = AbortOnDrop(runtime.spawn(run));
            Box::pin(async move {
                let mut task = task;
                (&mut task.0)
                    .await
                    .unwrap_or_else(|err| Err(io::Error::other(err)))
            })
        }
        _ => run,
    };
    let slot = req.run_slot();
    let span = tracing::Span::current();
    // Filled only when the run finished: the dialect reads it by reference.
    let finished;
    let ended = match run.await {
        Ok(run) => {
            finished = run;
            if let Some(slot) = slot {
                slot.put(RunDetail::ended(
                    finished.termination,
                    &finished.stdout,
                    &finished.stderr,
                ));
            }
            match finished.termination {
                Termination::TimedOut => span.record("exit_status", "timed out"),
                Termination::Exited(code) => span.record("exit_status", code),
                Termination::Signaled(signal) => {
                    span.record("exit_status", format_args!("signal {signal}"))
                }
            };
            Ok(&finished)
        }
        Err(err) => {
            if let Some(slot) = slot {
                slot.put(RunDetail::not_started());
            }
            Err(err)
        }
    };
    let spec = req.hook().map(|spec| &**spec);
    let finished = ended.as_ref().ok().copied();
    let (mut verdict, mut notes) = dialect.finish(spec, &req, ended)?;
    if let (Some(finished), Some(spec)) = (finished, spec) {
        // The checks every dialect shares: an answer that is none.
        (verdict, notes) = crate::dialect::review(
            spec.dialect().answer_form(),
            finished,
            spec.fail_closed(),
            verdict,
            notes,
        );
    }
    if let (
        Verdict::Block {
            cause: BlockCause::FailedClosed,
            ..
        },
        Some(spec),
    ) = (&verdict, spec)
    {
        // A hook that fails closed where its dialect's block takes effect
        // blocks there, whatever the neutral event does with blocks.
        if notes.block_honored.is_none() && spec.block_takes_effect() {
            notes.block_honored = Some(true);
        }
    }
    if let Some(slot) = slot {
        slot.put_notes(notes);
    }
    Ok(verdict)
}

/// A task that is aborted when its handle is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Command")
            .field("command", &self.command)
            .field("current_dir", &self.current_dir)
            .finish_non_exhaustive()
    }
}

impl Service<HookRequest> for Command {
    type Response = Verdict;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Verdict, BoxError>>;

    // poll_ready: always ready; a process is started per call.
    // poll_ready: ready, unless the runner bounds its runs in flight (a
    // persistent hook) and is at its bound: then it waits for a permit.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.permit.is_some() {
            return Poll::Ready(Ok(()));
        }
        let Some(limit) = self.runner.in_flight_limit() else {
            return Poll::Ready(Ok(()));
        };
        let acquiring = self
            .acquiring
            .get_or_insert_with(|| Box::pin(async move { limit.acquire_owned().await.ok() }));
        match acquiring.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(permit) => {
                self.acquiring = None;
                self.permit = permit;
                Poll::Ready(Ok(()))
            }
        }
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let job = self.job(&req);
        let run = self.runner.run(job);
        // The permit, if any, is held until the run is over.
        let run = match self.permit.take() {
            Some(permit) => Box::pin(async move {
                let finished = run.await;
                drop(permit);
                finished
            }),
            None => run,
        };
        Box::pin(run_and_answer(req, run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::process::Finished;
    use crate::request::Deadline;
    use crate::spec::HookSpec;
    use serde_json::json;
    use std::sync::Mutex;
    use tower::ServiceExt;

    /// Answers a fixed result and keeps the job it was given.
    struct Canned {
        finished: Finished,
        seen: Mutex<Option<Job>>,
    }

    impl Runner for Canned {
        fn run(&self, job: Job) -> BoxFuture<'static, io::Result<Finished>> {
            *self.seen.lock().unwrap() = Some(job);
            let f = self.finished.clone();
            Box::pin(async move { Ok(f) })
        }
    }

    fn canned(termination: Termination, stdout: &str, stderr: &str) -> Arc<Canned> {
        Arc::new(Canned {
            finished: Finished {
                termination,
                stdout: stdout.into(),
                stdout_truncated: false,
                stderr: stderr.into(),
            },
            seen: Mutex::new(None),
        })
    }

    fn cmd(runner: Arc<Canned>) -> Command {
        Command::with_runner("guard.sh", runner, Arc::new(Host::default()))
    }

    #[test]
    fn callers_variables_come_first_and_never_shadow_the_protocols() {
        let command = cmd(canned(Termination::Exited(0), "", ""))
            .env("A", "1")
            .envs([
                ("NANOPI_EVENT", "Forged"),
                ("A", "2"),
                ("NANOPI_TOOL_CALL_ID", "x"),
            ])
            .env("B", "nul\0here")
            .current_dir("/srv");
        let job = command.job(&HookRequest::input("x").with_cwd("/p"));
        assert_eq!(
            job.env,
            [
                ("A".into(), "2".into()),
                ("B".into(), "nul\u{fffd}here".into()),
                ("NANOPI_EVENT".into(), "Input".into()),
                ("NANOPI_CWD".into(), "/p".into()),
                ("NANOPI_TOOL_NAME".into(), "".into()),
            ]
        );
        assert!(job.env_remove.contains(&"NANOPI_TOOL_CALL_ID".to_owned()));
        assert_eq!(
            job.current_dir.as_deref(),
            Some(std::path::Path::new("/srv"))
        );
    }

    #[tokio::test]
    async fn job_carries_the_stdin_line_and_env() {
        let runner = canned(Termination::Exited(0), "", "");
        let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}))
            .with_cwd("/p")
            .with_session_id("s");
        cmd(runner.clone()).oneshot(req).await.unwrap();
        let job = runner.seen.lock().unwrap().take().unwrap();
        assert_eq!(&*job.command, "guard.sh");
        let line: serde_json::Value = serde_json::from_slice(&job.stdin).unwrap();
        assert_eq!(line["cwd"], "/p");
        assert!(job
            .env
            .contains(&("NANOPI_EVENT".into(), "ToolExecutionStart".into())));
        assert!(job.env.contains(&("NANOPI_SESSION_ID".into(), "s".into())));
    }

    #[tokio::test]
    async fn nul_in_a_variable_becomes_a_replacement_character() {
        let runner = canned(Termination::Exited(0), "", "");
        let req = HookRequest::tool_execution_start("bash", json!({"command": "a\0b"}))
            .with_tool_call_id("call\0x");
        cmd(runner.clone()).oneshot(req).await.unwrap();
        let job = runner.seen.lock().unwrap().take().unwrap();
        assert!(job
            .env
            .contains(&("NANOPI_TOOL_CALL_ID".into(), "call\u{fffd}x".into())));
        // The payload keeps the exact value, escaped as JSON does.
        let line: serde_json::Value = serde_json::from_slice(&job.stdin).unwrap();
        assert_eq!(line["tool_call_id"], "call\0x");
        assert_eq!(line["arguments"]["command"], "a\0b");
    }

    #[tokio::test]
    async fn exit_codes_decode_per_the_protocol() {
        let v = cmd(canned(Termination::Exited(2), "", "nope\n"))
            .oneshot(HookRequest::input("x"))
            .await
            .unwrap();
        assert_eq!(v, Verdict::block("nope"));
        let v = cmd(canned(Termination::Exited(1), "", "crash"))
            .oneshot(HookRequest::input("x"))
            .await
            .unwrap();
        assert_eq!(v, Verdict::Allow);
    }

    #[tokio::test]
    async fn timed_out_job_blocks_with_the_duration() {
        let req = HookRequest::input("x").with_deadline(Deadline {
            at: tokio::time::Instant::now(),
            timeout: std::time::Duration::from_millis(300),
        });
        let v = cmd(canned(Termination::TimedOut, "", ""))
            .oneshot(req)
            .await
            .unwrap();
        assert_eq!(v, Verdict::timed_out(std::time::Duration::from_millis(300)));
    }

    #[tokio::test]
    async fn an_answer_cut_by_the_stdout_bound_is_an_error() {
        let cut = |stdout: &str, termination| {
            let runner = Arc::new(Canned {
                finished: Finished {
                    termination,
                    stdout: stdout.into(),
                    stdout_truncated: true,
                    stderr: b"refused".to_vec(),
                },
                seen: Mutex::new(None),
            });
            cmd(runner).oneshot(HookRequest::input("x"))
        };
        // The kept tail starts inside the answer line: unreadable.
        for t in [Termination::Exited(0), Termination::Signaled(9)] {
            let err = cut(r#"n":"block","reason":"r"}"#, t).await.unwrap_err();
            assert_eq!(
                err.to_string(),
                "its answer (the last line of stdout) is longer than the 24 bytes kept"
            );
        }
        // A newline before the last line was kept: that line is whole.
        let v = cut(
            "tail of a log\n{\"decision\":\"block\"}\n",
            Termination::Exited(0),
        );
        assert_eq!(v.await.unwrap(), Verdict::block("blocked by hook"));
        // Exit 2 answers with stderr.
        let v = cut("xxxx", Termination::Exited(2));
        assert_eq!(v.await.unwrap(), Verdict::block("refused"));
    }

    #[tokio::test]
    async fn fail_closed_turns_abnormal_exits_into_errors() {
        let spec = Arc::new(HookSpec::command(Event::Input, "x").with_fail_closed(true));
        for (t, stderr, want) in [
            (Termination::Exited(1), "", "exited with status 1"),
            (
                Termination::Exited(127),
                "bash: line 1: ./guard.sh: No such file or directory\n",
                "exited with status 127: bash: line 1: ./guard.sh: No such file or directory",
            ),
            (Termination::Signaled(9), "", "killed by signal 9"),
        ] {
            let err = cmd(canned(t, "", stderr))
                .oneshot(HookRequest::input("x").with_hook(spec.clone()))
                .await
                .unwrap_err();
            assert_eq!(err.to_string(), want);
        }
        // 0 and 2 keep their meaning.
        let v = cmd(canned(Termination::Exited(2), "", "no"))
            .oneshot(HookRequest::input("x").with_hook(spec))
            .await
            .unwrap();
        assert_eq!(v, Verdict::block("no"));
    }
}
