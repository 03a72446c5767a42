//! What the benches share: the 200-byte tool call, the runtime, the spawn
//! floor, the one-shot command hook, and the interleaved timing of a pair.

#![allow(dead_code)] // each bench uses its own part of it

use std::convert::Infallible;
use std::hint::black_box;
use std::process::Stdio;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::runtime::Runtime;
use tower::{Service, ServiceExt};
use tower_hooks::dialect::nanopi::stdin_line;
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack};

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

/// The floor: tokio spawns `bash -c true`, writes the stdin line, reads both
/// outputs to their end, and waits. No tower-hooks code.
pub(crate) async fn spawn_floor(line: &[u8]) {
    let mut child = tokio::process::Command::new("bash")
        .args(["-c", "true"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let write = async move {
        let _ = stdin.write_all(line).await;
    };
    let _ = tokio::join!(
        write,
        stdout.read_to_end(&mut out),
        stderr.read_to_end(&mut err)
    );
    child.wait().await.unwrap();
    black_box((out, err));
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
