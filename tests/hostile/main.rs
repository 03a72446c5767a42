//! Hostile hooks through the whole stack, with real bash: each test asserts the
//! outcome, a generous time bound (it only catches hangs) and that no process of
//! the hook is left behind.
//!
//! Each hook writes `$$` first: `bash -c` is its process group's leader, so `$$`
//! is the group id that the runner kills.

#[path = "../support/mod.rs"]
mod support;

use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use serde_json::json;
use tower::ServiceExt;
use tower_hooks::dialect::nanopi::stdin_line;
use tower_hooks::{
    BlockCause, Decision, Event, HookOutcome, HookRequest, HookSpec, RecordOutcome, Verdict,
};

use support::{assert_no_process_left, collecting_stack, mib, vm_bytes, PidFile};

/// What the time bounds add to a hook's timeout: enough for any machine to
/// answer, short enough that a hang fails the test.
const SLACK: Duration = Duration::from_secs(3);

/// Tests that measure this process's memory hold this lock, and so do the tests
/// that allocate big payloads, so that one does not show in the other.
static MEMORY: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

struct Run {
    outcome: HookOutcome,
    lines: Vec<String>,
    elapsed: Duration,
}

/// Runs `req` through a stack holding only `spec`, and fails if the call takes
/// longer than the hook's timeout plus [`SLACK`].
async fn run(spec: HookSpec, req: HookRequest) -> Run {
    let bound = spec.timeout() + SLACK;
    let (stack, lines) = collecting_stack(vec![spec]);
    let started = Instant::now();
    let outcome = tokio::time::timeout(bound, stack.oneshot(req))
        .await
        .unwrap_or_else(|_| panic!("the call did not return within {bound:?}"))
        .unwrap();
    let elapsed = started.elapsed();
    let lines = lines.lock().unwrap().clone();
    Run {
        outcome,
        lines,
        elapsed,
    }
}

fn hook(command: impl Into<String>, timeout: Duration) -> HookSpec {
    HookSpec::command(Event::ToolExecutionStart, command).with_timeout(timeout)
}

fn bash_call() -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({"command": "ls"})).with_cwd("/w")
}

/// A `tool_execution_start` call whose stdin line is over `bytes` long.
fn big_call(bytes: usize) -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({"command": "x".repeat(bytes)})).with_cwd("/w")
}

fn assert_blocked(outcome: &HookOutcome, reason: &str, cause: BlockCause) {
    assert_eq!(outcome.decision(), Decision::Block, "{outcome:?}");
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some(reason));
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::from(cause));
    assert_eq!(outcome.hooks()[0].block_cause(), Some(cause));
}

fn assert_timed_out(outcome: &HookOutcome, timeout: Duration) {
    let reason = format!("hook timed out after {} ms", timeout.as_millis());
    assert_blocked(outcome, &reason, BlockCause::Timeout);
}

fn assert_allowed_quietly(run: &Run) {
    assert_eq!(run.outcome.decision(), Decision::Allow, "{:?}", run.outcome);
    assert!(!run.outcome.is_blocked());
    assert_eq!(run.outcome.hooks()[0].outcome(), RecordOutcome::Allow);
    assert!(run.lines.is_empty(), "unexpected report: {:?}", run.lines);
}

/// The group is `pids[0]` (the hook's `$$`); every pid must be gone.
fn assert_clean(pids: &[i32]) {
    assert!(!pids.is_empty(), "the hook wrote no pid");
    assert_no_process_left(pids[0], pids);
}

// --- time: a hook cannot hold the agent past its timeout --------------------

#[tokio::test]
async fn overdue_hook_is_killed_and_blocks_with_its_duration() {
    support::bounded(async {
        let pids = PidFile::new();
        let timeout = Duration::from_millis(500);
        let spec = hook(
            format!("echo $$ >> {f}; sleep 30; echo done", f = pids.quoted()),
            timeout,
        );
        let run = run(spec, bash_call()).await;
        assert_timed_out(&run.outcome, timeout);
        assert!(run.elapsed < timeout + SLACK, "{:?}", run.elapsed);
        assert_clean(&pids.pids());
    })
    .await;
}

#[tokio::test]
async fn grandchildren_of_an_overdue_hook_die_with_it() {
    support::bounded(async {
        let pids = PidFile::new();
        let timeout = Duration::from_millis(1000);
        // Background children, a subshell with its own child, and a nested bash with
        // a child of its own; the hook then waits for all of them.
        let spec = hook(
            format!(
                "echo $$ >> {f}; \
             sleep 60 & echo $! >> {f}; \
             ( sleep 60 & echo $! >> {f}; sleep 60 ) & echo $! >> {f}; \
             bash -c 'sleep 60 & echo $! >> {f}; wait' & echo $! >> {f}; \
             wait",
                f = pids.quoted()
            ),
            timeout,
        );
        let run = run(spec, bash_call()).await;
        assert_timed_out(&run.outcome, timeout);
        let pids = pids.pids();
        assert_eq!(pids.len(), 6, "every descendant recorded its pid: {pids:?}");
        assert_clean(&pids);
    })
    .await;
}

#[tokio::test]
async fn hook_that_survives_sigterm_is_killed_after_the_grace() {
    support::bounded(async {
        let pids = PidFile::new();
        let termed = pids.dir().join("termed");
        let timeout = Duration::from_millis(500);
        // It notes SIGTERM and carries on; a child ignores it outright.
        let spec = hook(
            format!(
                "trap 'echo TERM >> {t}' TERM; echo $$ >> {f}; \
             ( trap '' TERM; exec sleep 60 ) & echo $! >> {f}; \
             while :; do sleep 0.05; done",
                f = pids.quoted(),
                t = support::shell_quote(&termed),
            ),
            timeout,
        );
        let run = run(spec, bash_call()).await;
        assert_timed_out(&run.outcome, timeout);
        assert!(run.elapsed < timeout + SLACK, "{:?}", run.elapsed);
        let termed = std::fs::read_to_string(termed).unwrap_or_default();
        assert!(termed.contains("TERM"), "SIGTERM comes first: {termed:?}");
        assert_clean(&pids.pids());
    })
    .await;
}

/// The documented grace between `SIGTERM` and `SIGKILL` (250 ms), with its
/// bounds written as numbers, on the runner itself (through a stack, the
/// timeout layer's backstop would hide a longer grace): a hook that survives
/// `SIGTERM` lives on for about that long after its deadline, then is killed,
/// not seconds later.
#[tokio::test]
async fn the_grace_between_sigterm_and_sigkill_is_a_quarter_second() {
    support::bounded(async {
        use tower_hooks::process::{Job, ProcessRunner, Program, Termination};
        let pids = PidFile::new();
        let termed = pids.dir().join("termed");
        let command = format!(
            "trap 'echo TERM >> {t}' TERM; echo $$ >> {f}; while :; do sleep 0.02; done",
            f = pids.quoted(),
            t = support::shell_quote(&termed),
        );
        let mut job = Job::new(Program::Bash, command, Vec::new());
        let started = Instant::now();
        job.deadline = Some(tower_hooks::Deadline::after(Duration::from_millis(500)));
        let done = tokio::time::timeout(Duration::from_secs(30), ProcessRunner::shared().run(job))
            .await
            .expect("the run returns")
            .unwrap();
        let elapsed = started.elapsed();
        assert_eq!(done.termination, Termination::TimedOut);
        let termed = std::fs::read_to_string(termed).unwrap_or_default();
        assert!(termed.contains("TERM"), "SIGTERM comes first: {termed:?}");
        // The run ends once the hook is killed and reaped: at least most of the
        // grace after the deadline, and well before 2 s after it.
        assert!(
            elapsed >= Duration::from_millis(500 + 200),
            "killed {elapsed:?} after the start, for a deadline at 500 ms: no grace after SIGTERM"
        );
        assert!(
            elapsed < Duration::from_millis(500 + 2_000),
            "killed {elapsed:?} after the start, for a deadline at 500 ms and a 250 ms grace"
        );
        assert_clean(&pids.pids());
    })
    .await;
}

// --- stdin: no payload and no reading habit can wedge the call ---------------

#[tokio::test]
async fn hook_reading_its_stdin_to_the_end_gets_one_line_then_eof() {
    support::bounded(async {
    let pids = PidFile::new();
    let spec = hook(
        format!(
            r#"echo $$ >> {f}; n=$(wc -l); echo "{{\"decision\":\"block\",\"reason\":\"lines=$n\"}}""#,
            f = pids.quoted()
        ),
        Duration::from_secs(5),
    );
    let run = run(spec, bash_call()).await;
    assert_blocked(&run.outcome, "lines=1", BlockCause::Hook);
    assert_clean(&pids.pids());
    })
    .await;
}

#[tokio::test]
async fn hook_that_keeps_reading_a_stdin_that_never_ends_times_out() {
    support::bounded(async {
        let pids = PidFile::new();
        let timeout = Duration::from_millis(500);
        // Reads forever: past EOF it retries, and a pipeline of its own never ends.
        let spec = hook(
            format!(
                "echo $$ >> {f}; read -r first; yes | while read -r x; do :; done; \
             while :; do read -r x || sleep 0.05; done",
                f = pids.quoted()
            ),
            timeout,
        );
        let run = run(spec, bash_call()).await;
        assert_timed_out(&run.outcome, timeout);
        assert!(run.elapsed < timeout + SLACK, "{:?}", run.elapsed);
        assert_clean(&pids.pids());
    })
    .await;
}

#[tokio::test]
async fn hook_that_never_reads_a_4_mib_payload_answers_promptly() {
    support::bounded(async {
    let _memory = MEMORY.lock().await;
    let pids = PidFile::new();
    let req = big_call(4 << 20);
    // It sleeps first, so the runner is stuck in the middle of the write when
    // the hook exits.
    let spec = hook(
        format!(
            r#"echo $$ >> {f}; sleep 0.2; echo '{{"decision":"block","reason":"did not read"}}'"#,
            f = pids.quoted()
        ),
        Duration::from_secs(10),
    );
    let run = run(spec, req).await;
    assert_blocked(&run.outcome, "did not read", BlockCause::Hook);
    // Not held until the timeout by the unwritten payload.
    assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
    assert!(run.lines.is_empty(), "{:?}", run.lines);
    assert_clean(&pids.pids());
    })
    .await;
}

#[tokio::test]
async fn hook_that_prints_a_lot_before_reading_its_stdin_does_not_deadlock() {
    support::bounded(async {
    let _memory = MEMORY.lock().await;
    let pids = PidFile::new();
    let req = big_call(4 << 20);
    let expected = stdin_line(&req, "/w").len();
    // 8 MiB to stdout first (far past any pipe buffer), then it reads the 4 MiB
    // payload and reports how much it got.
    let spec = hook(
        format!(
            r#"echo $$ >> {f}; head -c 8388608 /dev/zero | tr '\0' x; echo; n=$(wc -c); echo "{{\"decision\":\"block\",\"reason\":\"read $n bytes\"}}""#,
            f = pids.quoted()
        ),
        Duration::from_secs(20),
    );
    let run = run(spec, req).await;
    assert_blocked(
        &run.outcome,
        &format!("read {expected} bytes"),
        BlockCause::Hook,
    );
    assert_clean(&pids.pids());
    })
    .await;
}

#[tokio::test]
async fn nul_bytes_in_the_request_do_not_stop_the_guard_from_running() {
    support::bounded(async {
    // An environment value cannot hold NUL; a tool call id from the provider or
    // a session id can. The guard must still run (and block), not fail open.
    let pids = PidFile::new();
    let spec = hook(
        format!(
            r#"echo $$ >> {f}; echo "$NANOPI_TOOL_CALL_ID|$NANOPI_SESSION_ID|$NANOPI_TOOL_NAME" >&2; exit 2"#,
            f = pids.quoted()
        ),
        Duration::from_secs(5),
    );
    let req = HookRequest::tool_execution_start("ba\0sh", json!({"command": "rm\0 -rf /"}))
        .with_tool_call_id("call\0x")
        .with_session_id("s\0")
        .with_cwd("/w\0");
    let run = run(spec, req).await;
    assert_blocked(
        &run.outcome,
        "call\u{fffd}x|s\u{fffd}|ba\u{fffd}sh",
        BlockCause::Hook,
    );
    assert!(run.lines.is_empty(), "{:?}", run.lines);
    assert_clean(&pids.pids());
    })
    .await;
}

// --- output: floods, garbage and odd descriptors ----------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flood_of_300_mb_on_stdout_and_stderr_keeps_memory_flat_and_the_last_line_decides() {
    support::bounded(async {
    let _memory = MEMORY.lock().await;
    let pids = PidFile::new();
    let rss_before = vm_bytes("VmRSS");
    let peak_before = vm_bytes("VmHWM");
    let spec = hook(
        format!(
            r#"echo $$ >> {f}; (yes err | head -c 300000000 >&2) & yes out | head -c 300000000; wait; echo '{{"decision":"block","reason":"still decides"}}'"#,
            f = pids.quoted()
        ),
        Duration::from_secs(60),
    );
    let run = run(spec, bash_call()).await;
    let rss_after = vm_bytes("VmRSS");
    let peak_after = vm_bytes("VmHWM");
    assert_blocked(&run.outcome, "still decides", BlockCause::Hook);
    // 600 MB went through; the capture is bounded (1 MiB tail, 64 KiB head).
    let bound = 64 << 20;
    assert!(
        peak_after < peak_before + bound,
        "peak RSS grew from {:.1} MiB to {:.1} MiB",
        mib(peak_before),
        mib(peak_after)
    );
    assert!(
        rss_after < rss_before + bound,
        "RSS grew from {:.1} MiB to {:.1} MiB",
        mib(rss_before),
        mib(rss_after)
    );
    assert_clean(&pids.pids());
    })
    .await;
}

#[tokio::test]
async fn answer_longer_than_the_kept_stdout_tail_fails_open_loudly_or_closed_on_request() {
    support::bounded(async {
    let _memory = MEMORY.lock().await;
    let pids = PidFile::new();
    // A 3 MB block reason on one line: more than the 1 MiB tail the runner keeps.
    // Silently reading it as "unparseable, allow" would drop the block.
    let command = format!(
        r#"echo $$ >> {f}; printf '{{"decision":"block","reason":"'; head -c 3000000 /dev/zero | tr '\0' x; printf '"}}\n'"#,
        f = pids.quoted()
    );
    let too_long = "its answer (the last line of stdout) is longer than the ";

    let run_open = run(hook(&command, Duration::from_secs(10)), bash_call()).await;
    assert_eq!(run_open.outcome.decision(), Decision::Allow);
    assert_eq!(run_open.outcome.hooks()[0].outcome(), RecordOutcome::Error);
    let [line] = &run_open.lines[..] else {
        panic!("one report line: {:?}", run_open.lines);
    };
    let prefix = "nanopi: hook errored; failing open (allow) [tool=bash matcher=* error=";
    assert!(line.starts_with(&format!("{prefix}{too_long}")), "{line}");

    let closed = hook(&command, Duration::from_secs(10)).with_fail_closed(true);
    let run_closed = run(closed, bash_call()).await;
    let reason = run_closed.outcome.reason().unwrap_or_default();
    assert!(
        reason.starts_with(&format!("hook failed closed: {too_long}")),
        "{reason}"
    );
    assert_eq!(
        run_closed.outcome.hooks()[0].block_cause(),
        Some(BlockCause::FailedClosed)
    );
    for pgid in pids.pids() {
        assert_no_process_left(pgid, &[pgid]);
    }
    })
    .await;
}

#[tokio::test]
async fn invalid_utf8_is_read_lossily_and_never_fails_the_call() {
    support::bounded(async {
    let cases: [(&str, Verdict); 4] = [
        // Garbage alone: not JSON, so allow.
        (r"printf '\xff\xfe\x80 junk\n'", Verdict::Allow),
        // Garbage above the answer: the last line still decides.
        (
            r#"printf '\xff\xfe\n\xc3\x28\n'; echo '{"decision":"block","reason":"last line"}'"#,
            Verdict::block("last line"),
        ),
        // Invalid UTF-8 inside the JSON answer: unparseable, so allow.
        (
            r#"printf '{"decision":"block","reason":"\xff"}\n'"#,
            Verdict::Allow,
        ),
        // Exit 2: stderr is the reason, decoded lossily.
        (
            r"printf '\xff\xfe refused\n' >&2; exit 2",
            Verdict::block("\u{fffd}\u{fffd} refused"),
        ),
    ];
    for (command, want) in cases {
        let pids = PidFile::new();
        let spec = hook(
            format!("echo $$ >> {f}; {command}", f = pids.quoted()),
            Duration::from_secs(5),
        );
        let run = run(spec, bash_call()).await;
        match want {
            Verdict::Allow => assert_allowed_quietly(&run),
            Verdict::Block { reason, cause, .. } => assert_blocked(&run.outcome, &reason, cause),
            other => unreachable!("{other:?}"),
        }
        assert_clean(&pids.pids());
    }
    })
    .await;
}

#[tokio::test]
async fn background_process_holding_stdout_does_not_delay_the_answer() {
    support::bounded(async {
    let pids = PidFile::new();
    let spec = hook(
        format!(
            r#"echo $$ >> {f}; sleep 20 & echo $! >> {f}; echo '{{"decision":"block","reason":"answered"}}'"#,
            f = pids.quoted()
        ),
        Duration::from_secs(30),
    );
    let run = run(spec, bash_call()).await;
    assert_blocked(&run.outcome, "answered", BlockCause::Hook);
    // Done when the hook exits, not when its background `sleep 20` would.
    assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
    let pids = pids.pids();
    assert_eq!(pids.len(), 2);
    assert_clean(&pids);
    })
    .await;
}

#[tokio::test]
async fn hook_that_closes_stdout_early_is_still_waited_for() {
    support::bounded(async {
        let pids = PidFile::new();
        // The exit code, which comes a second after stdout closes, decides.
        let spec = hook(
            format!(
                "exec 1>&-; echo $$ >> {f}; sleep 1; echo 'closed early' >&2; exit 2",
                f = pids.quoted()
            ),
            Duration::from_secs(5),
        );
        let run = run(spec, bash_call()).await;
        assert_blocked(&run.outcome, "closed early", BlockCause::Hook);
        assert_clean(&pids.pids());
    })
    .await;
}

// --- failures: fail open by default, fail closed on request ------------------

/// A hook that fails in some way, run as configured and with `fail_closed = true`.
struct Failing {
    command: String,
    /// The fail-closed reason, after `hook failed closed: `.
    why: String,
    pids: PidFile,
}

/// Runs the failing hook twice: fail-open (allow, and no report line: the hook
/// ran, it just failed) and fail-closed (a block that says so and why).
async fn fails_open_quietly_and_closed_on_request(failing: Failing) {
    let quick = Duration::from_secs(5);

    let run_open = run(hook(&failing.command, quick), bash_call()).await;
    assert_allowed_quietly(&run_open);

    let closed = hook(&failing.command, quick).with_fail_closed(true);
    let run_closed = run(closed, bash_call()).await;
    assert_blocked(
        &run_closed.outcome,
        &format!("hook failed closed: {}", failing.why),
        BlockCause::FailedClosed,
    );
    assert_eq!(
        run_closed.outcome.message().as_deref(),
        Some(format!("blocked by hook: hook failed closed: {}", failing.why).as_str())
    );
    assert!(run_closed.lines.is_empty(), "{:?}", run_closed.lines);

    let pids = failing.pids.pids();
    assert_eq!(pids.len(), 2, "both runs recorded their group: {pids:?}");
    for pgid in pids {
        assert_no_process_left(pgid, &[pgid]);
    }
}

#[tokio::test]
async fn hook_killed_by_a_signal_fails_open_quietly_or_closed_on_request() {
    support::bounded(async {
        let pids = PidFile::new();
        let command = format!("echo $$ >> {f}; kill -9 $$", f = pids.quoted());
        fails_open_quietly_and_closed_on_request(Failing {
            command,
            why: "killed by signal 9".into(),
            pids,
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn crashing_hook_fails_open_quietly_or_closed_on_request() {
    support::bounded(async {
        let pids = PidFile::new();
        let command = format!(
            "echo $$ >> {f}; echo 'panicked at guard.rs:3' >&2; kill -SEGV $$",
            f = pids.quoted()
        );
        fails_open_quietly_and_closed_on_request(Failing {
            command,
            why: "killed by signal 11".into(),
            pids,
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn hook_exiting_1_fails_open_quietly_or_closed_on_request() {
    support::bounded(async {
        let pids = PidFile::new();
        let command = format!(
            "echo $$ >> {f}; echo 'jq: command not found' >&2; exit 1",
            f = pids.quoted()
        );
        fails_open_quietly_and_closed_on_request(Failing {
            command,
            why: "exited with status 1: jq: command not found".into(),
            pids,
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn missing_script_fails_open_quietly_or_closed_on_request() {
    support::bounded(async {
        let pids = PidFile::new();
        let script = pids.dir().join("missing.sh");
        let command = format!("echo $$ >> {f}; {}", script.display(), f = pids.quoted());
        let why = format!(
            "exited with status 127: bash: line 1: {}: No such file or directory",
            script.display()
        );
        fails_open_quietly_and_closed_on_request(Failing { command, why, pids }).await;
    })
    .await;
}

#[tokio::test]
async fn command_that_is_not_executable_fails_open_quietly_or_closed_on_request() {
    support::bounded(async {
        let pids = PidFile::new();
        let script = pids.dir().join("guard.sh");
        std::fs::write(&script, "#!/bin/bash\nexit 2\n").unwrap();
        set_mode(&script, 0o644);
        let command = format!("echo $$ >> {f}; {}", script.display(), f = pids.quoted());
        let why = format!(
            "exited with status 126: bash: line 1: {}: Permission denied",
            script.display()
        );
        fails_open_quietly_and_closed_on_request(Failing { command, why, pids }).await;
    })
    .await;
}

#[tokio::test]
async fn script_with_a_missing_interpreter_fails_open_quietly_or_closed_on_request() {
    support::bounded(async {
        let pids = PidFile::new();
        let script = pids.dir().join("guard.py");
        std::fs::write(&script, "#!/nonexistent/interp\nexit 2\n").unwrap();
        set_mode(&script, 0o755);
        let command = format!("echo $$ >> {f}; {}", script.display(), f = pids.quoted());
        // bash words it by version: "bad interpreter: No such file or directory"
        // (126) or "cannot execute: required file not found" (127). Ask this one.
        let probe = StdCommand::new("bash")
            .args(["-c", &format!(": ; {}", script.display())])
            .output()
            .unwrap();
        let code = probe.status.code().unwrap();
        assert!(code == 126 || code == 127, "{probe:?}");
        let message = String::from_utf8_lossy(&probe.stderr).trim().to_owned();
        assert!(message.contains(&script.display().to_string()), "{message}");
        let why = format!("exited with status {code}: {message}");
        fails_open_quietly_and_closed_on_request(Failing { command, why, pids }).await;
    })
    .await;
}

fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Set in the copy of this test binary that runs without bash on `PATH`.
const NO_BASH: &str = "TOWER_HOOKS_TEST_NO_BASH";

/// The only failure that is reported: the hook could not be spawned at all. The
/// test binary runs this test again in a child process whose `PATH` has no bash
/// (this process's own runner found bash long ago, and `PATH` is process-wide).
#[test]
fn hook_that_cannot_be_spawned_fails_open_with_the_report_line_or_closed_on_request() {
    if std::env::var_os(NO_BASH).is_some() {
        return cannot_be_spawned_without_bash();
    }
    let empty = tempfile::tempdir().unwrap();
    let output = StdCommand::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "hook_that_cannot_be_spawned_fails_open_with_the_report_line_or_closed_on_request",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(NO_BASH, "1")
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the run without bash failed:\n{stdout}\n{stderr}"
    );
}

fn cannot_be_spawned_without_bash() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let run_open = run(hook("exit 2", Duration::from_secs(5)), bash_call()).await;
        assert_eq!(run_open.outcome.decision(), Decision::Allow);
        assert_eq!(run_open.outcome.hooks()[0].outcome(), RecordOutcome::Error);
        assert_eq!(
            run_open.lines,
            ["nanopi: hook errored; failing open (allow) [tool=bash matcher=* error=bash not found on PATH]"]
        );

        let closed = hook("exit 2", Duration::from_secs(5)).with_fail_closed(true);
        let run_closed = run(closed, bash_call()).await;
        assert_blocked(
            &run_closed.outcome,
            "hook failed closed: bash not found on PATH",
            BlockCause::FailedClosed,
        );
        assert!(run_closed.lines.is_empty(), "{:?}", run_closed.lines);
    });
}

// --- answers that take a detour: the last line must still decide ------------

/// The answer goes through a helper of the hook's group (`tee` behind a process
/// substitution) and reaches the pipe after `bash` has exited: it is read
/// before anything in the group is killed. Ten runs, since a lost answer
/// showed in most runs but not all.
#[tokio::test]
async fn answer_written_through_a_helper_after_bash_exits_still_decides() {
    support::bounded(async {
    let pids = PidFile::new();
    let log = pids.dir().join("hook.log");
    let command = format!(
        r#"echo $$ >> {f}; exec > >(tee -a {log}); echo '{{"decision":"block","reason":"guarded"}}'"#,
        f = pids.quoted(),
        log = support::shell_quote(&log),
    );
    for _ in 0..10 {
        let run = run(hook(&command, Duration::from_secs(5)), bash_call()).await;
        assert_blocked(&run.outcome, "guarded", BlockCause::Hook);
    }
    for pgid in pids.pids() {
        assert_no_process_left(pgid, &[pgid]);
    }
    })
    .await;
}

/// A redactor answers with a rewritten payload about as long as the one it
/// read: a 2.5 MB tool output must not be dropped for being longer than the
/// default tail, or the secret reaches the model.
#[tokio::test]
async fn redactor_of_a_big_tool_output_is_applied() {
    support::bounded(async {
    if !support::has_python3("redactor_of_a_big_tool_output_is_applied") {
        return;
    }
    let _memory = MEMORY.lock().await;
    let pids = PidFile::new();
    let redact = r#"import json, sys
p = json.loads(sys.stdin.readline())["arguments"]["tool_response"]
print(json.dumps({"updated_input": {"content": p["content"].replace("SECRET-TOKEN", "[redacted]"), "is_error": p["is_error"]}}))"#;
    let command = format!(
        "echo $$ >> {f}; python3 -c {script}",
        f = pids.quoted(),
        script = support::shell_quote(std::path::Path::new(redact)),
    );
    let content = format!(
        "{}SECRET-TOKEN{}",
        "a".repeat(1_250_000),
        "b".repeat(1_250_000)
    );
    let spec =
        HookSpec::command(Event::ToolExecutionEnd, command).with_timeout(Duration::from_secs(20));
    let req = HookRequest::tool_execution_end(
        "bash",
        json!({"command": "cat log"}),
        content,
        false,
        Duration::from_millis(5),
    );
    let run = run(spec, req).await;
    assert_eq!(
        run.outcome.hooks()[0].outcome(),
        RecordOutcome::Transform,
        "{:?}",
        run.lines
    );
    let content = run.outcome.arguments()["tool_response"]["content"]
        .as_str()
        .expect("content stays a string");
    assert_eq!(content.len(), 2_500_000 + "[redacted]".len());
    assert!(!content.contains("SECRET-TOKEN"));
    assert_clean(&pids.pids());
    })
    .await;
}
