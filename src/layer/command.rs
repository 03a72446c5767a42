//! The leaf that runs one command hook: `bash -c <command>`.
//!
//! [`Command`] turns a [`HookRequest`] into a [`Job`] (the stdin line and the
//! `NANOPI_*` variables, from the [nanopi wire](crate::dialect::nanopi)), hands it to a
//! [`Runner`], and decodes what comes back into a [`Verdict`]. The runner is a
//! seam: [`ProcessRunner`] spawns real processes, and a test or a bench can put
//! anything that answers a [`Finished`] in its place.
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

use crate::dialect::nanopi::{decode, env_vars, last_nonempty_line, stdin_line};
use crate::host::Host;
use crate::outcome::{RunDetail, Verdict};
use crate::process::persistent::PROTOCOL_VAR;
use crate::process::{BoxFuture, Finished, Job, ProcessRunner, Program, Runner, Termination};
use crate::request::HookRequest;
use crate::BoxError;

/// Why a command hook failed to produce an answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The process could not be started or driven.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// It exited with a status other than 0 or 2 (reported only for fail-closed
    /// hooks), with the start of what it wrote to stderr: bash's own message for
    /// a missing script (127), a missing interpreter (126 or 127, by bash
    /// version) or a script that is not executable (126).
    #[error("exited with status {code}{}", stderr_suffix(.stderr))]
    Status {
        /// The exit status.
        code: i32,
        /// The start of its stderr, trimmed (empty when it wrote nothing).
        stderr: String,
    },
    /// A signal ended it (reported only for fail-closed hooks).
    #[error("killed by signal {0}")]
    Signal(i32),
    /// Its answer, the last non-empty line of stdout, is longer than the tail
    /// the runner keeps, so it cannot be read: an error rather than an allow, so
    /// that a block or a redaction too long to read is never silently dropped.
    #[error("its answer (the last line of stdout) is longer than the {kept} bytes kept")]
    AnswerTooLong {
        /// How many bytes of stdout were kept.
        kept: usize,
    },
}

/// Sets `key` in `env`, replacing an earlier value.
pub(crate) fn set_var(env: &mut Vec<(String, String)>, key: String, value: String) {
    match env.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => env.push((key, value)),
    }
}

/// An environment value cannot hold NUL, and a tool call id, a session id or a
/// cwd from elsewhere may: with one, spawning fails and the hook would fail open
/// without ever running. Each NUL becomes U+FFFD instead; the stdin line still
/// carries the exact value.
fn env_value(value: &str) -> String {
    value.replace('\0', "\u{fffd}")
}

/// How much of stderr a fail-closed reason quotes.
const STDERR_EXCERPT: usize = 300;

/// The start of a failed hook's stderr, for its fail-closed reason: lossily
/// decoded, on one line, trimmed, at most [`STDERR_EXCERPT`] bytes (then `…`).
fn stderr_excerpt(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.len() <= STDERR_EXCERPT {
        return text;
    }
    let mut end = STDERR_EXCERPT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Whether the kept tail of stdout lost the start of its last non-empty line
/// (or holds no such line at all, so the answer was in what was dropped).
fn answer_is_cut(finished: &Finished) -> bool {
    if !finished.stdout_truncated {
        return false;
    }
    match last_nonempty_line(&finished.stdout) {
        // The line is complete when a newline before it was kept.
        Some(line) => line.as_ptr() == finished.stdout.as_ptr(),
        None => true,
    }
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
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

    /// The job this hook would run for `req`.
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
        if let Some(spec) = req.hook() {
            // A hook of another dialect: its own envelope, variables and program.
            if let Some(encoded) = crate::dialect::encode(spec, req, cwd) {
                let crate::dialect::Encoded {
                    stdin,
                    env: dialect_env,
                    mut event_env,
                    session_env,
                    dir,
                } = encoded;
                // The host's own values of what the session set: a process
                // that outlives the session keeps them.
                let host_env = session_env
                    .iter()
                    .filter_map(|(name, _)| {
                        let value = match self.env.iter().find(|(k, _)| k == name) {
                            Some((_, value)) => env_value(value),
                            None => std::env::var(name).ok()?,
                        };
                        Some((name.clone(), value))
                    })
                    .collect();
                event_env.extend(session_env);
                let ours = |k: &String| {
                    dialect_env
                        .iter()
                        .chain(&event_env)
                        .any(|(name, _)| name == k)
                };
                let mut env: Vec<(String, String)> = self
                    .env
                    .iter()
                    .filter(|(k, _)| !ours(k))
                    .map(|(k, v)| (k.clone(), env_value(v)))
                    .collect();
                let event_names = event_env.iter().map(|(k, _)| k.clone()).collect();
                env.extend(
                    dialect_env
                        .into_iter()
                        .chain(event_env)
                        .map(|(k, v)| (k, env_value(&v))),
                );
                // Their hooks run where their dialect says, by default in the
                // session's working directory.
                let current_dir = match (dir, req.cwd()) {
                    (Some(dir), _) => Some(dir),
                    (None, Some(cwd)) => Some(Arc::from(Path::new(cwd))),
                    (None, None) => self.current_dir.clone(),
                };
                return Job {
                    program: spec.program().clone(),
                    command: self.command.clone(),
                    stdin,
                    env,
                    env_remove: vec![PROTOCOL_VAR.0.to_owned()],
                    event_env: event_names,
                    host_env,
                    current_dir,
                    deadline: req.deadline(),
                };
            }
        }
        let names = self.host.env_names();
        // The caller's variables first, less any protocol name: those are exact.
        // One allocation: the caller's variables plus the five of the protocol.
        let mut env: Vec<(String, String)> = Vec::with_capacity(self.env.len() + 5);
        env.extend(
            self.env
                .iter()
                .filter(|(k, _)| !names.iter().any(|name| name == k))
                .map(|(k, v)| (k.clone(), env_value(v))),
        );
        let extra = env.len();
        env.extend(env_vars(req, names, cwd).map(|(k, v)| (k.to_owned(), env_value(v))));
        // A one-shot run is never told it speaks the persistent protocol,
        // whatever the host's environment holds.
        let env_remove = names
            .iter()
            .filter(|name| !env[extra..].iter().any(|(k, _)| k == name))
            .map(str::to_owned)
            .chain([PROTOCOL_VAR.0.to_owned()])
            .collect();
        // The protocol's variables all belong to the event.
        let event_env = env[extra..].iter().map(|(k, _)| k.clone()).collect();
        Job {
            program: Program::Bash,
            command: self.command.clone(),
            stdin: stdin_line(req, cwd),
            env,
            env_remove,
            event_env,
            host_env: Vec::new(),
            current_dir: self.current_dir.clone(),
            deadline: req.deadline(),
        }
    }
}

/// Runs a hook of another dialect than nanopi's and reads its answer by that
/// dialect's rules: every failure (a timeout, a crash, a run that could not
/// start) is that dialect's own answer, never nanopi's report line.
async fn answer_in_dialect(
    req: HookRequest,
    run: BoxFuture<'static, io::Result<crate::process::Finished>>,
) -> Result<Verdict, BoxError> {
    let spec = req.hook().expect("checked by the caller").clone();
    let slot = req.run_slot();
    // A task of its own, so that the hooks of a group that runs at once are
    // started on every worker thread, not one after another on the caller's;
    // dropping the call aborts the task, whose run then kills its process.
    let run = match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            let task = AbortOnDrop(runtime.spawn(run));
            Box::pin(async move {
                let mut task = task;
                (&mut task.0)
                    .await
                    .unwrap_or_else(|err| Err(io::Error::other(err)))
            })
        }
        Err(_) => run,
    };
    let (verdict, notes) = match run.await {
        Ok(finished) => {
            if let Some(slot) = slot {
                slot.put(RunDetail::ended(
                    finished.termination,
                    &finished.stdout,
                    &finished.stderr,
                ));
            }
            let ended = (
                finished.termination,
                finished.stdout.as_slice(),
                finished.stderr.as_slice(),
            );
            crate::dialect::answer(&spec, &req, Ok(ended))
        }
        Err(err) => {
            if let Some(slot) = slot {
                slot.put(RunDetail::not_started());
            }
            crate::dialect::answer(&spec, &req, Err(&err))
        }
    }
    .unwrap_or((Verdict::Allow, crate::outcome::Notes::default()));
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
        let fail_closed = req.hook().is_some_and(|h| h.fail_closed());
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
        if req
            .hook()
            .is_some_and(|spec| spec.dialect() != crate::spec::Dialect::Nanopi)
        {
            return Box::pin(answer_in_dialect(req, run));
        }
        Box::pin(async move {
            // What the process did goes to the chain's record, when it asked.
            let slot = req.run_slot();
            let finished = match run.await {
                Ok(finished) => finished,
                Err(err) => {
                    if let Some(slot) = slot {
                        slot.put(RunDetail::not_started());
                    }
                    return Err(CommandError::Io(err).into());
                }
            };
            if let Some(slot) = slot {
                slot.put(RunDetail::ended(
                    finished.termination,
                    &finished.stdout,
                    &finished.stderr,
                ));
            }
            let span = tracing::Span::current();
            match finished.termination {
                Termination::TimedOut => {
                    span.record("exit_status", "timed out");
                    let timeout = req.deadline().map(|d| d.timeout).unwrap_or_default();
                    Ok(Verdict::timed_out(timeout))
                }
                Termination::Exited(code) => {
                    span.record("exit_status", code);
                    if fail_closed && code != 0 && code != 2 {
                        let stderr = stderr_excerpt(&finished.stderr);
                        return Err(CommandError::Status { code, stderr }.into());
                    }
                    // Exit 2 answers with stderr; stdout does not matter.
                    if code != 2 && answer_is_cut(&finished) {
                        let kept = finished.stdout.len();
                        return Err(CommandError::AnswerTooLong { kept }.into());
                    }
                    Ok(decode(Some(code), &finished.stdout, &finished.stderr))
                }
                Termination::Signaled(signal) => {
                    span.record("exit_status", format_args!("signal {signal}"));
                    if fail_closed {
                        return Err(CommandError::Signal(signal).into());
                    }
                    if answer_is_cut(&finished) {
                        let kept = finished.stdout.len();
                        return Err(CommandError::AnswerTooLong { kept }.into());
                    }
                    Ok(decode(None, &finished.stdout, &finished.stderr))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
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
    fn stderr_excerpt_is_one_bounded_line() {
        assert_eq!(stderr_excerpt(b"a\n  b\r\n\n"), "a b");
        assert_eq!(stderr_excerpt(b"\xff oops"), "\u{fffd} oops");
        let long = "\u{e9}".repeat(400);
        let excerpt = stderr_excerpt(long.as_bytes());
        assert!(excerpt.ends_with('\u{2026}'));
        assert!(excerpt.len() <= STDERR_EXCERPT + '\u{2026}'.len_utf8());
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
