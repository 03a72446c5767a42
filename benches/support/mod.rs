//! What the benches share: the 200-byte tool call, the runtime, the spawn
//! floor, the one-shot command hook, the check of a hook's decision before
//! timing, and the interleaved timing of a pair.

#![allow(dead_code)] // each bench uses its own part of it

use std::convert::Infallible;
use std::ffi::{CStr, CString};
use std::hint::black_box;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;
use nix::spawn::{posix_spawn, PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags};
use nix::sys::signal::SigSet;
use serde_json::json;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncReadExt, Interest};
use tokio::net::unix::pipe;
use tokio::runtime::Runtime;
use tower::{Service, ServiceExt};
use tower_hooks::dialect::nanopi::stdin_line;
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack, RecordOutcome};

/// A tool call whose stdin line is 200 bytes, as in the spawn floor.
pub(crate) fn request() -> HookRequest {
    let req = |pad: usize| {
        HookRequest::tool_execution_start(
            "bash",
            json!({"command": "ls -la", "pad": "x".repeat(pad)}),
        )
        .with_tool_call_id("call_0123456789")
        .with_session_id("019a2b3c-7000-8000")
        .with_cwd("/work/project")
    };
    let base = stdin_line(&req(0), "/work/project").len();
    let out = req(200usize.saturating_sub(base));
    assert_eq!(stdin_line(&out, "/work/project").len(), 200);
    out
}

pub(crate) fn current_thread() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// `bash`, found on `PATH` once, as the hook runner finds it.
fn bash() -> &'static CStr {
    static BASH: OnceLock<CString> = OnceLock::new();
    BASH.get_or_init(|| {
        let path = std::env::var_os("PATH").expect("PATH is set");
        let bash = std::env::split_paths(&path)
            .map(|dir| dir.join("bash"))
            .find(|candidate| candidate.is_file())
            .expect("bash is on PATH");
        CString::new(bash.into_os_string().into_vec()).unwrap()
    })
}

/// A pipe whose two ends close on exec: `(read, write)`, as the runner makes them.
fn cloexec_pipe() -> (OwnedFd, OwnedFd) {
    #[cfg(not(target_vendor = "apple"))]
    {
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap()
    }
    #[cfg(target_vendor = "apple")]
    {
        let (read, write) = rustix::pipe::pipe().unwrap();
        for fd in [&read, &write] {
            rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::CLOEXEC).unwrap();
        }
        (read, write)
    }
}

/// `posix_spawn` of `bash -c SCRIPT` as the runner spawns a hook: its pid, the
/// write end of its stdin and our copy of the read end, and the read ends of
/// its stdout and stderr.
fn spawn_bash(script: &CStr) -> (rustix::process::Pid, OwnedFd, OwnedFd, OwnedFd, OwnedFd) {
    let env: Vec<CString> = std::env::vars_os()
        .filter_map(|(key, value)| {
            let mut entry = key.into_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            CString::new(entry).ok()
        })
        .collect();
    let (stdin_theirs, stdin) = cloexec_pipe();
    let (stdout, stdout_theirs) = cloexec_pipe();
    let (stderr, stderr_theirs) = cloexec_pipe();
    let mut actions = PosixSpawnFileActions::init().unwrap();
    actions.add_dup2(stdin_theirs.as_raw_fd(), 0).unwrap();
    actions.add_dup2(stdout_theirs.as_raw_fd(), 1).unwrap();
    actions.add_dup2(stderr_theirs.as_raw_fd(), 2).unwrap();
    let mut attr = PosixSpawnAttr::init().unwrap();
    attr.set_flags(
        PosixSpawnFlags::POSIX_SPAWN_SETPGROUP
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF,
    )
    .unwrap();
    attr.set_pgroup(nix::unistd::Pid::from_raw(0)).unwrap();
    attr.set_sigmask(&SigSet::empty()).unwrap();
    attr.set_sigdefault(&SigSet::all()).unwrap();
    let args = [c"bash", c"-c", script];
    let pid = posix_spawn(bash(), &actions, &attr, &args, &env).unwrap();
    let pid = rustix::process::Pid::from_raw(pid.as_raw()).unwrap();
    (pid, stdin, stdin_theirs, stdout, stderr)
}

/// The floor: `bash -c true` started with the hook runner's own spawn
/// primitive — `posix_spawn` of bash by its path, leading a new process
/// group, with an empty signal mask and every signal at its default, the
/// inherited environment copied — its stdin line written, both outputs read
/// to their end, its exit awaited (on a pidfd, as the runner does on Linux)
/// and reaped. No tower-hooks code, and none of the runner's extra work (no
/// group kill, no reaping of leftovers, no deadline): what a command hook
/// cannot avoid. It checks that bash exited 0, so a failing floor is not timed.
pub(crate) async fn spawn_floor(line: &[u8]) {
    spawn_floor_of(c"true", line).await
}

/// [`spawn_floor`] of `bash -c SCRIPT` (a hook's own script, in place of `true`).
pub(crate) async fn spawn_floor_of(script: &CStr, line: &[u8]) {
    let (pid, stdin, stdin_theirs, stdout, stderr) = spawn_bash(script);

    // 200 bytes fit in the pipe: written at once, then our end is closed.
    let mut written = 0;
    while written < line.len() {
        written += rustix::io::write(&stdin, &line[written..]).unwrap();
    }
    drop((stdin, stdin_theirs));
    let mut stdout = pipe::Receiver::from_owned_fd(stdout).unwrap();
    let mut stderr = pipe::Receiver::from_owned_fd(stderr).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let (read_out, read_err) =
        tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
    read_out.unwrap();
    read_err.unwrap();
    exited(pid).await;
    let (_, status) = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty())
        .unwrap()
        .unwrap();
    assert_eq!(status.exit_status(), Some(0), "the floor's bash failed");
    black_box((out, err));
}

/// Resolves once `pid` has exited, without reaping it.
#[cfg(any(target_os = "linux", target_os = "android"))]
async fn exited(pid: rustix::process::Pid) {
    let fd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).unwrap();
    // As the runner does: deprecated for types whose fd could change, which an
    // `OwnedFd` cannot.
    #[allow(deprecated)]
    let fd = AsyncFd::with_interest(fd, Interest::READABLE).unwrap();
    let _ = fd.readable().await.unwrap();
}

/// Elsewhere the runner waits on a thread of its own.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
async fn exited(pid: rustix::process::Pid) {
    tokio::task::spawn_blocking(move || {
        let options =
            rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOWAIT;
        rustix::process::waitid(rustix::process::WaitId::Pid(pid), options).unwrap();
    })
    .await
    .unwrap();
}

pub(crate) fn command_stack() -> HookStack {
    HookStack::builder()
        .command_hook(HookSpec::command(Event::ToolExecutionStart, "true"))
        .build()
}

pub(crate) async fn command_hook<S>(stack: S, req: HookRequest)
where
    S: Service<HookRequest, Response = HookOutcome, Error = Infallible>,
{
    let outcome = stack.oneshot(req).await.unwrap();
    assert_eq!(outcome.hooks().len(), 1);
    black_box(outcome);
}

/// Runs one call before any timing and checks that `hooks` hooks ran and
/// allowed, and that each command hook exited 0: a hook that cannot run (a
/// missing program, a crash, a persistent process that died) answers too,
/// often faster, and would otherwise be timed as if it worked.
pub(crate) async fn check_allows<S>(stack: S, req: HookRequest, hooks: usize)
where
    S: Service<HookRequest, Response = HookOutcome, Error = Infallible>,
{
    let outcome = stack.oneshot(req).await.unwrap();
    let records = outcome.hooks();
    assert_eq!(records.len(), hooks, "{records:?}");
    for record in records {
        assert_eq!(record.outcome(), RecordOutcome::Allow, "{record:?}");
        assert_eq!(record.reason(), None, "{record:?}");
        if let Some(run) = record.run() {
            assert!(run.started(), "{record:?}");
            if let Some(code) = run.exit_code() {
                assert_eq!(code, 0, "{record:?}");
            }
            assert_eq!(run.signal(), None, "{record:?}");
        }
    }
    assert!(!outcome.is_blocked(), "{outcome:?}");
}

/// Times `timed` while running `other` untimed between iterations, so that a
/// pair of ids is measured under the same conditions (a VM's neighbours and
/// clock drift over minutes would otherwise land on one id of the pair only).
pub(crate) fn bench_interleaved<T, O, TF, OF>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    rt: &Runtime,
    mut timed: T,
    mut other: O,
) where
    T: FnMut() -> TF,
    O: FnMut() -> OF,
    TF: std::future::Future<Output = ()>,
    OF: std::future::Future<Output = ()>,
{
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    other().await;
                    let start = Instant::now();
                    timed().await;
                    total += start.elapsed();
                }
                total
            })
        })
    });
}
