//! What the hook stack costs per call, beside what it cannot avoid.
//!
//! Run with: `cargo bench --bench overhead` (results and targets: BENCHMARKS.md).
//!
//! * `idle/*`: no hook runs. The baseline is a bare `tower::Service`; the stack
//!   with `--no-hooks`, with hooks only for other events, and with one hook whose
//!   matcher does not match must cost about the same.
//! * `in_process/*`: hooks that answer in-process, so the stack's own work shows;
//!   `scaling/transforming_hooks/N` runs the same rewriting hook N times, to
//!   show that a chain's cost grows linearly with its length.
//! * `spawn/*`: a command hook against the floor of spawning `bash -c true`
//!   with the runner's own spawn primitive (`posix_spawn`, a new process
//!   group, clean signal state; `support::spawn_floor`) and no library code,
//!   alone and 64 at a time; eight Claude Code hooks of one call (they run at
//!   once) against eight floors in flight; four Gemini CLI hooks of a
//!   `sequential` definition (one after another) against four floors in
//!   sequence; the command hook again while the
//!   process holds 2 GiB. Each of a pair is timed with the other run between
//!   its iterations, so both see the same machine.
//! * `persistent/*`: the same call through one persistent hook (a Perl loop
//!   started once): `round_trip` against `floor`, the same Perl hook driven by
//!   a bare blocking pipe loop (std's `Command`, a request line written, the
//!   answer line read: no runtime, no library code), each timed with the
//!   other run between its iterations; `runtime_floor`, the same hook driven
//!   by a bare async loop on the runtime (what the runtime's I/O driver adds
//!   to `floor`; the rest of `round_trip` is the library's);
//!   `concurrent_64`, a batch of 64.
//!
//! Every stack is called once before it is timed, and its hooks must have
//! run and allowed (`support::check_allows`): a hook that cannot run answers
//! too, often faster, and would be timed as if it worked.

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use std::cell::RefCell;
use std::convert::Infallible;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use serde_json::json;
use tokio::runtime::Runtime;
use tower::{service_fn, Service, ServiceExt};
use tower_hooks::dialect::claude;
use tower_hooks::dialect::nanopi::stdin_line;
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack, Verdict};

mod support;
use support::{
    bench_interleaved, check_allows, command_hook, command_stack, current_thread, request,
    spawn_floor,
};

fn multi_thread() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Times `ready().await` then `call().await`, one batch of iterations per `block_on`.
fn bench_calls<S>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    rt: &Runtime,
    mut svc: S,
    req: &HookRequest,
) where
    S: Service<HookRequest, Response = HookOutcome, Error = Infallible>,
{
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let req = req.clone();
                    black_box(svc.ready().await.unwrap().call(req).await.unwrap());
                }
                start.elapsed()
            })
        })
    });
}

fn guard(matcher: &str) -> HookSpec {
    HookSpec::command(Event::ToolExecutionStart, "exit 2")
        .with_matcher(matcher)
        .unwrap()
}

fn idle(c: &mut Criterion) {
    let rt = current_thread();
    let req = request();
    let mut group = c.benchmark_group("idle");
    let bare =
        service_fn(|req: HookRequest| async move { Ok::<_, Infallible>(HookOutcome::allow(req)) });
    bench_calls(&mut group, "bare_service", &rt, bare, &req);
    let gated = HookStack::builder()
        .command_hook(guard("*"))
        .no_hooks(true)
        .build();
    bench_calls(&mut group, "gated", &rt, gated, &req);
    let other_events = HookStack::builder()
        .command_hooks(
            [
                Event::TurnStart,
                Event::TurnEnd,
                Event::SessionStart,
                Event::Input,
            ]
            .map(|e| HookSpec::command(e, "exit 2")),
        )
        .build();
    bench_calls(&mut group, "no_hooks_for_event", &rt, other_events, &req);
    let skipped = HookStack::builder().command_hook(guard("^read$")).build();
    bench_calls(&mut group, "skipped_by_matcher", &rt, skipped, &req);
    group.finish();
}

fn transform_to(command: String) -> Verdict {
    let mut updated = serde_json::Map::new();
    updated.insert("command".to_owned(), command.into());
    Verdict::Transform(updated)
}

/// A stack of `n` in-process hooks, each rewriting the command.
fn transforming(n: usize) -> HookStack {
    let mut builder = HookStack::builder();
    for i in 0..n {
        builder = builder.fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "rewrite").with_source("rewrite", i),
            move |req| {
                let cmd = req.arguments()["command"].as_str().unwrap_or("");
                transform_to(format!("{cmd} {i}"))
            },
        );
    }
    builder.build()
}

fn in_process(c: &mut Criterion) {
    let rt = current_thread();
    let req = request();
    let mut group = c.benchmark_group("in_process");
    let one = HookStack::builder()
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "allow"),
            |_| Verdict::Allow,
        )
        .build();
    bench_calls(&mut group, "one_hook", &rt, one, &req);
    bench_calls(
        &mut group,
        "ten_hooks_transforming",
        &rt,
        transforming(10),
        &req,
    );
    group.finish();

    // How the chain grows: the same transforming hook, 1 to 10 times.
    let mut group = c.benchmark_group("scaling");
    for n in [1, 2, 5, 10] {
        let name = format!("transforming_hooks/{n}");
        bench_calls(&mut group, &name, &rt, transforming(n), &req);
    }
    group.finish();
}

/// `n` floors in flight, one batch.
async fn floor_batch(line: &[u8], n: usize) {
    let batch: Vec<_> = (0..n)
        .map(|_| {
            let line = line.to_vec();
            tokio::spawn(async move { spawn_floor(&line).await })
        })
        .collect();
    for task in batch {
        task.await.unwrap();
    }
}

/// A stack of `n` Claude Code hooks (`true` under bash) on `PreToolUse` for `Bash`.
fn claude_stack(n: usize) -> HookStack {
    let handlers: Vec<_> = (0..n)
        .map(|_| json!({"type": "command", "command": "true", "shell": "bash"}))
        .collect();
    let text = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}});
    let path = std::path::Path::new("/work/project/.claude/settings.json");
    let ctx = claude::config::Context::new("/work/project");
    let file = claude::config::parse(&text.to_string(), path, &ctx).unwrap();
    let specs = claude::hook::specs(&file.handlers, std::path::Path::new("/work/project"));
    HookStack::builder().command_hooks(specs).build()
}

/// One call through a stack of Claude Code (or Gemini CLI) hooks: all of them run.
async fn claude_call(stack: &HookStack, req: &HookRequest) {
    let outcome = stack.clone().oneshot(req.clone()).await.unwrap();
    assert!(outcome
        .hooks()
        .iter()
        .all(|h| h.outcome() == tower_hooks::RecordOutcome::Allow));
    black_box(outcome);
}

/// `n` floors one after another.
async fn floor_sequence(line: &[u8], n: usize) {
    for _ in 0..n {
        spawn_floor(line).await;
    }
}

/// A stack of `n` Gemini CLI hooks (`true`, under bash) on `BeforeTool` for
/// the shell tool, in one `sequential` definition, loaded from a settings
/// file in `dir` as a host loads it.
fn gemini_stack(dir: &std::path::Path, n: usize) -> HookStack {
    let hooks: Vec<_> = (0..n)
        .map(|i| json!({"type": "command", "command": "true", "name": format!("h{i}")}))
        .collect();
    let text = json!({"hooks": {"BeforeTool": [
        {"matcher": "run_shell_command", "sequential": true, "hooks": hooks}
    ]}});
    let path = dir.join(".gemini/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text.to_string()).unwrap();
    let file = tower_hooks::config::ConfigFile::detect(&path);
    let config = tower_hooks::config::Config::load_files(&[file], dir).unwrap();
    HookStack::builder().config(&config).build()
}

/// 64 command hooks in flight, one batch.
async fn command_hook_batch(stack: &HookStack, req: &HookRequest) {
    let batch: Vec<_> = (0..64)
        .map(|_| tokio::spawn(command_hook(stack.clone(), req.clone())))
        .collect();
    for task in batch {
        task.await.unwrap();
    }
}

fn spawn(c: &mut Criterion) {
    let rt = current_thread();
    let multi = multi_thread();
    let req = request();
    let line = stdin_line(&req, "/work/project");
    let stack = command_stack();
    rt.block_on(check_allows(stack.clone(), req.clone(), 1));
    multi.block_on(check_allows(stack.clone(), req.clone(), 1));
    let mut group = c.benchmark_group("spawn");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(10));

    let floor = || spawn_floor(&line);
    let hook = || command_hook(stack.clone(), req.clone());
    bench_interleaved(&mut group, "floor", &rt, floor, hook);
    bench_interleaved(&mut group, "command_hook", &rt, hook, floor);

    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(15));
    let floors = || floor_batch(&line, 64);
    let hooks = || command_hook_batch(&stack, &req);
    bench_interleaved(&mut group, "floor_concurrent_64", &multi, floors, hooks);
    bench_interleaved(
        &mut group,
        "command_hook_concurrent_64",
        &multi,
        hooks,
        floors,
    );

    // Eight Claude Code hooks on one point run at once: one call against eight
    // floors in flight (the hooks ask for bash, as the floor runs it).
    let claude = claude_stack(8);
    // Claude Code hooks run in the session's directory: a real one, here.
    let session_dir = std::env::current_dir().unwrap().display().to_string();
    let bash_call = HookRequest::tool_execution_start("Bash", json!({"command": "ls -la"}))
        .with_tool_call_id("toolu_0123456789")
        .with_session_id("019a2b3c-7000-8000")
        .with_cwd(session_dir);
    multi.block_on(check_allows(claude.clone(), bash_call.clone(), 8));
    let floors_8 = || floor_batch(&line, 8);
    let claude_8 = || claude_call(&claude, &bash_call);
    bench_interleaved(&mut group, "floor_concurrent_8", &multi, floors_8, claude_8);
    bench_interleaved(&mut group, "claude_parallel_8", &multi, claude_8, floors_8);

    // Four Gemini CLI hooks of a `sequential` definition run one after
    // another: one call against four floors in sequence.
    let gemini_dir = tempfile::tempdir().unwrap();
    let gemini = gemini_stack(gemini_dir.path(), 4);
    rt.block_on(check_allows(gemini.clone(), bash_call.clone(), 4));
    let floors_4 = || floor_sequence(&line, 4);
    let gemini_4 = || claude_call(&gemini, &bash_call);
    bench_interleaved(&mut group, "floor_sequential_4", &rt, floors_4, gemini_4);
    bench_interleaved(&mut group, "gemini_sequential_4", &rt, gemini_4, floors_4);

    // The agent holds 2 GiB of touched memory: a fork would copy its page
    // tables on every spawn; posix_spawn does not care.
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));
    let mut ballast = vec![0u8; 2 << 30];
    for page in ballast.chunks_mut(4096) {
        page[0] = 1;
    }
    black_box(&ballast);
    // Timed as `command_hook` is, so that the two compare.
    rt.block_on(check_allows(stack.clone(), req.clone(), 1));
    bench_interleaved(&mut group, "command_hook_big_parent", &rt, hook, floor);
    drop(ballast);
    group.finish();
}

/// A persistent hook that allows every event: a Perl loop that echoes each
/// request's id back as its answer (output unbuffered).
const PERSISTENT_ALLOW: &str =
    r#"exec perl -ne 'BEGIN { $| = 1 } print "{\"id\":$1}\n" if /"id":(\d+)/'"#;

fn persistent_stack() -> HookStack {
    HookStack::builder()
        .command_hook(
            HookSpec::command(Event::ToolExecutionStart, PERSISTENT_ALLOW).with_persistent(true),
        )
        .build()
}

/// 64 calls in flight through one persistent hook (its bound is 16 at once:
/// the rest wait for room, as they would in an agent).
async fn persistent_batch(stack: &HookStack, req: &HookRequest) {
    let batch: Vec<_> = (0..64)
        .map(|_| tokio::spawn(command_hook(stack.clone(), req.clone())))
        .collect();
    for task in batch {
        task.await.unwrap();
    }
}

/// The floor of a persistent round trip: the hook of [`PERSISTENT_ALLOW`]
/// started once with std's `Command` (by `bash -c`, as the engine starts it)
/// and driven by a blocking loop: a request line as the engine writes it
/// (`{"id":N,"input":<the 200-byte stdin line>,"env":{}}`) written, the answer
/// line read. No runtime and no tower-hooks code: what a persistent hook
/// cannot avoid.
struct PipeFloor {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    lines: RequestLines,
    answer: String,
}

/// The request lines a floor writes, as the engine writes them for a request
/// with no per-event variables: `{"id":N,"input":<the stdin line>,"env":{}}`,
/// numbered from 1.
struct RequestLines {
    input: Vec<u8>,
    next_id: u64,
    line: Vec<u8>,
}

impl RequestLines {
    fn new(input: &[u8]) -> Self {
        RequestLines {
            input: input.trim_ascii().to_vec(),
            next_id: 1,
            line: Vec::new(),
        }
    }

    /// The next request's id and line.
    fn next(&mut self) -> (u64, &[u8]) {
        let id = self.next_id;
        self.next_id += 1;
        self.line.clear();
        write!(self.line, "{{\"id\":{id},\"input\":").unwrap();
        self.line.extend_from_slice(&self.input);
        self.line.extend_from_slice(b",\"env\":{}}\n");
        (id, &self.line)
    }
}

impl PipeFloor {
    fn start(input: &[u8]) -> Self {
        let mut child = Command::new("bash")
            .args(["-c", PERSISTENT_ALLOW])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        PipeFloor {
            child,
            stdin,
            stdout,
            lines: RequestLines::new(input),
            answer: String::new(),
        }
    }

    /// One request and its answer; answers the id sent and the answer line.
    fn round_trip(&mut self) -> (u64, &str) {
        let (id, line) = self.lines.next();
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        self.answer.clear();
        self.stdout.read_line(&mut self.answer).unwrap();
        (id, &self.answer)
    }

    /// Runs one round trip and checks its answer: the hook's own line for
    /// the id sent (a hook that died answers nothing, and would fail here).
    fn check(&mut self) {
        let (id, answer) = self.round_trip();
        assert_eq!(answer, format!("{{\"id\":{id}}}\n"));
    }
}

impl Drop for PipeFloor {
    fn drop(&mut self) {
        // Its stdin closed, the loop ends.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The persistent floor on the runtime: the same Perl hook started with
/// tokio's `Command` and driven by a bare async loop on the runtime that
/// times `round_trip` (the same request line written, the answer line read).
/// No library code: what waiting on the runtime's I/O driver adds to
/// [`PipeFloor`]'s blocking read, so `round_trip` beside it shows the
/// library's own share.
struct RuntimeFloor {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    lines: RequestLines,
    answer: String,
}

impl RuntimeFloor {
    /// Starts the hook; called within the runtime that drives it.
    fn start(input: &[u8]) -> Self {
        let mut child = tokio::process::Command::new("bash")
            .args(["-c", PERSISTENT_ALLOW])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
        RuntimeFloor {
            child,
            stdin,
            stdout,
            lines: RequestLines::new(input),
            answer: String::new(),
        }
    }

    /// One request and its answer; answers the id sent (its answer line is
    /// `self.answer`).
    async fn round_trip(&mut self) -> u64 {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let (id, line) = self.lines.next();
        self.stdin.write_all(line).await.unwrap();
        self.answer.clear();
        self.stdout.read_line(&mut self.answer).await.unwrap();
        id
    }
}

fn persistent(c: &mut Criterion) {
    let rt = current_thread();
    let multi = multi_thread();
    let req = request();
    let mut group = c.benchmark_group("persistent");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    // Each runtime gets its own stack: a persistent hook's process belongs to
    // the runtime that started it.
    let stack = persistent_stack();
    rt.block_on(check_allows(stack.clone(), req.clone(), 1));
    let pipe_floor = RefCell::new(PipeFloor::start(&stdin_line(&req, "/work/project")));
    pipe_floor.borrow_mut().check();
    // Blocking, done in the call (timed) rather than in the future it returns.
    let floor = || {
        black_box(pipe_floor.borrow_mut().round_trip());
        std::future::ready(())
    };
    let hook = || command_hook(stack.clone(), req.clone());
    bench_interleaved(&mut group, "floor", &rt, floor, hook);
    bench_interleaved(&mut group, "round_trip", &rt, hook, floor);
    drop(pipe_floor);
    // Taken out for each round trip and put back, so that no borrow is held
    // across an await.
    let runtime_floor = Rc::new(RefCell::new(Some({
        let _in = rt.enter();
        RuntimeFloor::start(&stdin_line(&req, "/work/project"))
    })));
    let on_runtime = || {
        let floor = runtime_floor.clone();
        async move {
            let mut taken = floor.borrow_mut().take().unwrap();
            black_box(taken.round_trip().await);
            *floor.borrow_mut() = Some(taken);
        }
    };
    // The hook's own line for the id sent (a hook that died would fail here).
    rt.block_on(async {
        let mut taken = runtime_floor.borrow_mut().take().unwrap();
        let id = taken.round_trip().await;
        assert_eq!(taken.answer, format!("{{\"id\":{id}}}\n"));
        *runtime_floor.borrow_mut() = Some(taken);
    });
    bench_interleaved(&mut group, "runtime_floor", &rt, on_runtime, hook);
    if let Some(mut taken) = runtime_floor.borrow_mut().take() {
        rt.block_on(async move {
            drop(taken.stdin);
            let _ = taken.child.wait().await;
        });
    }
    rt.block_on(stack.shutdown(Duration::from_secs(1)));
    let stack = persistent_stack();
    multi.block_on(check_allows(stack.clone(), req.clone(), 1));
    group.bench_function("concurrent_64", |b| {
        b.to_async(&multi).iter(|| persistent_batch(&stack, &req))
    });
    multi.block_on(stack.shutdown(Duration::from_secs(1)));
    group.finish();
}

criterion_group!(benches, idle, in_process, spawn, persistent);
criterion_main!(benches);
