//! Dropping a hook call at any point — before it is polled, while it writes a
//! big stdin, while it waits for the hook, during the kill grace after a
//! timeout, at runtime shutdown, outside any runtime — leaves no process, no
//! zombie and no open descriptor, and the stack keeps working.
//!
//! These tests count this process's descriptors and children, so they run one
//! at a time (`SERIAL`), each on its own multi-thread runtime.

#[path = "../support/mod.rs"]
mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;
use tokio::runtime::Runtime;
use tower::{Service, ServiceExt};
use tower_hooks::process::{Limits, ProcessRunner};
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack};

use support::{assert_no_process_left, children, open_fds, settle, PidFile};

static SERIAL: Mutex<()> = Mutex::new(());

/// How long the background reaper and the kernel get to finish.
const SETTLE: Duration = Duration::from_secs(3);

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A stack with the hook under test on tool `slow` and a well-behaved hook on
/// tool `quick`, to show that the stack still works afterwards.
fn stack(slow: &str, timeout: Duration) -> HookStack {
    stack_with(slow, timeout, ProcessRunner::new())
}

fn stack_with(slow: &str, timeout: Duration, runner: ProcessRunner) -> HookStack {
    let slow = HookSpec::command(Event::ToolExecutionStart, slow)
        .with_matcher("^slow$")
        .unwrap()
        .with_timeout(timeout);
    let quick = HookSpec::command(
        Event::ToolExecutionStart,
        r#"cat >/dev/null; echo '{"decision":"block","reason":"still here"}'"#,
    )
    .with_matcher("^quick$")
    .unwrap();
    HookStack::builder()
        .report(())
        .runner(runner)
        .command_hooks([slow, quick])
        .build()
}

fn slow_call(payload_bytes: usize) -> HookRequest {
    HookRequest::tool_execution_start("slow", json!({"command": "x".repeat(payload_bytes)}))
}

type Call = Pin<Box<dyn Future<Output = HookOutcome> + Send>>;

fn call(stack: &HookStack, req: HookRequest) -> Call {
    let stack = stack.clone();
    Box::pin(async move { stack.oneshot(req).await.unwrap() })
}

/// What the process holds before a test: taken after a warm-up call, so that
/// whatever the runtime and the runner create once is already there.
struct Baseline {
    fds: usize,
    children: Vec<i32>,
}

impl Baseline {
    fn take(rt: &Runtime, stack: &HookStack) -> Self {
        assert_still_works(rt, stack);
        Baseline {
            fds: open_fds(),
            children: children(),
        }
    }

    /// No hook process is left, no child of ours (live or zombie), no descriptor.
    fn assert_restored(&self, groups: &[i32]) {
        for &pgid in groups {
            assert_no_process_left(pgid, &[pgid]);
        }
        assert!(
            settle(SETTLE, || children() == self.children),
            "children left: {:?} (before: {:?})",
            children(),
            self.children
        );
        assert!(
            settle(SETTLE, || open_fds() <= self.fds),
            "{} descriptors open, {} before",
            open_fds(),
            self.fds
        );
    }
}

fn assert_still_works(rt: &Runtime, stack: &HookStack) {
    // Bigger than a pipe holds, so the runner's stdin feeder (a thread and its
    // descriptors, made once per process) exists before any baseline is taken.
    let req = HookRequest::tool_execution_start("quick", json!({"pad": "x".repeat(1 << 17)}));
    let outcome = rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(10), stack.clone().oneshot(req))
            .await
            .expect("the follow-up call returns")
            .unwrap()
    });
    assert_eq!(outcome.reason(), Some("still here"));
}

/// Drives `call` until `ready` holds (checked every 10 ms), then drops it inside
/// the runtime. Fails if the call finishes first.
fn drop_when(rt: &Runtime, mut call: Call, limit: Duration, ready: impl Fn() -> bool) {
    rt.block_on(async {
        let reached = async {
            let start = tokio::time::Instant::now();
            while !ready() {
                assert!(start.elapsed() < limit, "the hook never got there");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::select! {
            outcome = &mut call => panic!("the call finished before it was dropped: {outcome:?}"),
            () = reached => {}
        }
        drop(call);
    });
}

#[test]
fn dropping_the_call_before_it_is_polled_spawns_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    let pids = PidFile::new();
    let stack = stack(
        &format!("echo $$ >> {f}; sleep 30", f = pids.quoted()),
        Duration::from_secs(30),
    );
    let baseline = Baseline::take(&rt, &stack);

    rt.block_on(async {
        let mut svc = stack.clone();
        svc.ready().await.unwrap();
        let future = svc.call(slow_call(10));
        tokio::time::sleep(Duration::from_millis(200)).await;
        drop(future);
        drop(call(&stack, slow_call(10)));
        tokio::time::sleep(Duration::from_millis(200)).await;
    });

    assert_eq!(pids.pids(), Vec::<i32>::new(), "nothing ran");
    baseline.assert_restored(&[]);
    assert_still_works(&rt, &stack);
}

#[test]
fn dropping_the_call_while_it_writes_a_big_stdin_leaves_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    let pids = PidFile::new();
    // It never reads: the 8 MiB write is stuck on a full pipe when the call is dropped.
    let stack = stack(
        &format!("echo $$ >> {f}; sleep 30", f = pids.quoted()),
        Duration::from_secs(30),
    );
    let baseline = Baseline::take(&rt, &stack);

    let started = || !pids.pids().is_empty();
    drop_when(&rt, call(&stack, slow_call(8 << 20)), SETTLE, started);

    baseline.assert_restored(&pids.pids());
    assert_still_works(&rt, &stack);
}

#[test]
fn dropping_the_call_while_it_waits_for_the_hook_leaves_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    let pids = PidFile::new();
    let stack = stack(
        &format!(
            "echo $$ >> {f}; sleep 30 & echo $! >> {f}; cat >/dev/null; wait",
            f = pids.quoted()
        ),
        Duration::from_secs(30),
    );
    let baseline = Baseline::take(&rt, &stack);

    let started = || pids.pids().len() >= 2;
    drop_when(&rt, call(&stack, slow_call(10)), SETTLE, started);

    let pids = pids.pids();
    baseline.assert_restored(&pids[..1]);
    assert_no_process_left(pids[0], &pids);
    assert_still_works(&rt, &stack);
}

#[test]
fn dropping_the_call_during_the_kill_grace_leaves_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    let pids = PidFile::new();
    let termed = pids.dir().join("termed");
    // It survives SIGTERM, so after the timeout the runner sits in the kill
    // grace: two seconds here, so that the drop surely lands inside it.
    let runner = ProcessRunner::with_limits(Limits {
        kill_grace: Duration::from_secs(2),
        ..Limits::default()
    });
    let stack = stack_with(
        &format!(
            "trap 'echo TERM >> {t}' TERM; echo $$ >> {f}; while :; do sleep 0.05; done",
            f = pids.quoted(),
            t = support::shell_quote(&termed),
        ),
        Duration::from_millis(300),
        runner,
    );
    let baseline = Baseline::take(&rt, &stack);

    let in_grace = || std::fs::read_to_string(&termed).is_ok_and(|t| t.contains("TERM"));
    drop_when(&rt, call(&stack, slow_call(10)), SETTLE, in_grace);

    baseline.assert_restored(&pids.pids());
    assert_still_works(&rt, &stack);
}

#[test]
fn dropping_the_call_outside_any_runtime_leaves_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    let pids = PidFile::new();
    let stack = stack(
        &format!("echo $$ >> {f}; sleep 30", f = pids.quoted()),
        Duration::from_secs(30),
    );
    let baseline = Baseline::take(&rt, &stack);

    let mut call = call(&stack, slow_call(10));
    rt.block_on(async {
        tokio::select! {
            outcome = &mut call => panic!("the call finished: {outcome:?}"),
            () = async { while pids.pids().is_empty() { tokio::time::sleep(Duration::from_millis(10)).await } } => {}
        }
    });
    // Dropped on this thread, outside the runtime.
    drop(call);

    baseline.assert_restored(&pids.pids());
    assert_still_works(&rt, &stack);
}

#[test]
fn shutting_down_the_runtime_with_calls_in_flight_leaves_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    let pids = PidFile::new();
    let stack = stack(
        &format!("echo $$ >> {f}; sleep 30", f = pids.quoted()),
        Duration::from_secs(30),
    );
    let baseline = Baseline::take(&rt, &stack);

    // A second runtime runs four calls and is dropped while they are in flight.
    let doomed = runtime();
    for _ in 0..4 {
        doomed.spawn(call(&stack, slow_call(10)));
    }
    pids.wait_for(4, SETTLE);
    drop(doomed);

    baseline.assert_restored(&pids.pids());
    assert_still_works(&rt, &stack);
}

#[test]
fn dropping_calls_at_many_points_leaves_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    let pids = PidFile::new();
    // Reads some stdin, starts a child, prints, waits: a drop can land anywhere.
    let stack = stack(
        &format!(
            "echo $$ >> {f}; head -c 1000 >/dev/null; sleep 30 & echo started; wait",
            f = pids.quoted()
        ),
        Duration::from_millis(150),
    );
    let baseline = Baseline::take(&rt, &stack);

    rt.block_on(async {
        let mut calls = Vec::new();
        for i in 0..48u64 {
            let call = call(&stack, slow_call(if i % 2 == 0 { 10 } else { 1 << 20 }));
            // From "at once" to "after the timeout, in or past the kill grace".
            let after = Duration::from_millis(i * 11);
            calls.push(tokio::spawn(async move {
                let _ = tokio::time::timeout(after, call).await;
            }));
        }
        for call in calls {
            call.await.unwrap();
        }
    });

    baseline.assert_restored(&pids.pids());
    assert_still_works(&rt, &stack);
}
