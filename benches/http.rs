//! What an HTTP hook costs per call, beside a command hook.
//!
//! Run with: `cargo bench --bench http --features http` (results: BENCHMARKS.md,
//! "HTTP hooks").
//!
//! * `http/round_trip`: one `PreToolUse` call for `Bash` through a stack whose
//!   only hook is a Claude Code `http` handler posting to a policy server on
//!   127.0.0.1 that answers 200 with an empty body (allow). The server is
//!   hyper 1 (HTTP/1) on a thread and runtime of its own, as a separate
//!   daemon would be; the stack's client keeps its connection open between
//!   calls, as it does in an agent. Measured as `persistent/round_trip` is in
//!   `benches/overhead.rs`.
//! * `http/floor`: what an HTTP hook cannot avoid: the same body (the one
//!   the hook posted, as the server saw it) posted to the same server by a
//!   bare hyper HTTP/1 connection (`hyper::client::conn::http1`, no pool, no
//!   library code) kept open between calls, on the same runtime.
//!   `round_trip` and `floor` are each timed with the other run between its
//!   iterations.
//! * `http/command_hook`: the same as `spawn/command_hook` in
//!   `benches/overhead.rs`, in the same run for comparison: a one-shot command
//!   hook (`bash -c true`, 200-byte stdin line), checked once to run and
//!   allow, then timed with the spawn floor (`bash -c true` started with the
//!   runner's spawn primitive, no library code) run untimed between its
//!   iterations.

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use std::cell::Cell;
use std::convert::Infallible;
use std::hint::black_box;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::server::conn::http1;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tower::ServiceExt;
use tower_hooks::dialect::claude;
use tower_hooks::dialect::nanopi::stdin_line;
use tower_hooks::{HookRequest, HookStack, RecordOutcome};

mod support;
use support::{
    bench_interleaved, check_allows, command_hook, command_stack, current_thread, request,
    spawn_floor,
};

// ─── The policy server ──────────────────────────────────────────────────────

/// What the server saw: connections accepted, requests answered, the last
/// body posted.
#[derive(Default)]
struct Seen {
    connections: AtomicUsize,
    requests: AtomicUsize,
    body: Mutex<Bytes>,
}

/// Starts the policy server on a free port of 127.0.0.1, on a thread of its
/// own: every `POST` gets 200 with an empty body, after its body is read.
fn policy_server() -> (SocketAddr, Arc<Seen>) {
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Seen::default());
    let counts = seen.clone();
    std::thread::Builder::new()
        .name("policy-server".into())
        .spawn(move || {
            current_thread().block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let (stream, _) = listener.accept().await.unwrap();
                    stream.set_nodelay(true).unwrap();
                    counts.connections.fetch_add(1, Ordering::Relaxed);
                    let counts = counts.clone();
                    let service = hyper::service::service_fn(move |req| {
                        let counts = counts.clone();
                        allow(counts, req)
                    });
                    tokio::spawn(async move {
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            })
        })
        .unwrap();
    (addr, seen)
}

/// 200, empty body: no opinion, the action goes ahead.
async fn allow(
    seen: Arc<Seen>,
    req: Request<Incoming>,
) -> Result<Response<Empty<Bytes>>, Infallible> {
    let body = req.into_body().collect().await.map(|body| body.to_bytes());
    let status = match &body {
        Ok(body) if !body.is_empty() => StatusCode::OK,
        _ => StatusCode::BAD_REQUEST,
    };
    seen.requests.fetch_add(1, Ordering::Relaxed);
    if let Ok(body) = body {
        *seen.body.lock().unwrap() = body;
    }
    let mut response = Response::new(Empty::new());
    *response.status_mut() = status;
    Ok(response)
}

// ─── The HTTP hook ──────────────────────────────────────────────────────────

/// A stack whose only hook is a Claude Code `http` handler on `PreToolUse`
/// for `Bash`, posting to `addr`.
fn http_stack(addr: SocketAddr) -> HookStack {
    let handler = json!({"type": "http", "url": format!("http://{addr}/policy"), "timeout": 5});
    let text = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
    let project = std::path::Path::new("/work/project");
    let path = project.join(".claude/settings.json");
    let ctx = claude::config::Context::new(project);
    let file = claude::config::parse(&text.to_string(), &path, &ctx).unwrap();
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
    let specs = claude::hook::specs(&file.handlers, project);
    assert_eq!(specs.len(), 1);
    HookStack::builder().command_hooks(specs).build()
}

/// A `PreToolUse` call for `Bash`, as `spawn/claude_parallel_8` fires it.
fn bash_call() -> HookRequest {
    let session_dir = std::env::current_dir().unwrap().display().to_string();
    HookRequest::tool_execution_start("Bash", json!({"command": "ls -la"}))
        .with_tool_call_id("toolu_0123456789")
        .with_session_id("019a2b3c-7000-8000")
        .with_cwd(session_dir)
}

/// One call: the HTTP hook ran and allowed (a failure would allow the call
/// too, with an `error` record: that is not what is measured).
async fn http_call(stack: &HookStack, req: &HookRequest) {
    let outcome = stack.clone().oneshot(req.clone()).await.unwrap();
    let record = &outcome.hooks()[0];
    assert_eq!(
        record.outcome(),
        RecordOutcome::Allow,
        "{:?}",
        record.reason()
    );
    black_box(outcome);
}

// ─── The floor: a bare hyper connection ─────────────────────────────────────

/// A bare HTTP/1 connection to `addr`, its driver spawned on the current
/// runtime, with `TCP_NODELAY` as the hook's client sets it.
async fn connect(addr: SocketAddr) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    sender
}

/// One `POST` of `body` to the policy server; answers the status, the
/// response's body read to its end.
async fn post(sender: &mut SendRequest<Full<Bytes>>, addr: SocketAddr, body: &Bytes) -> StatusCode {
    sender.ready().await.unwrap();
    let req = Request::post("/policy")
        .header(HOST, addr.to_string())
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(body.clone()))
        .unwrap();
    let response = sender.send_request(req).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert!(body.is_empty());
    status
}

// ─── The command hook, as `spawn/command_hook` in benches/overhead.rs ───────

fn http(c: &mut Criterion) {
    let rt = current_thread();
    let (addr, seen) = policy_server();
    let http = http_stack(addr);
    let call = bash_call();
    let mut group = c.benchmark_group("http");

    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    // The hook's call once (it must allow: `http_call` checks), then the
    // floor's once with the body the hook posted (the server must answer 200).
    rt.block_on(http_call(&http, &call));
    let body = seen.body.lock().unwrap().clone();
    assert!(!body.is_empty());
    let sender = Cell::new(Some(rt.block_on(connect(addr))));
    let before = seen.requests.load(Ordering::Relaxed);
    let mut checked = sender.take().unwrap();
    assert_eq!(rt.block_on(post(&mut checked, addr, &body)), StatusCode::OK);
    assert_eq!(seen.requests.load(Ordering::Relaxed), before + 1);
    sender.set(Some(checked));
    let floor = || async {
        let mut bare = sender.take().unwrap();
        black_box(post(&mut bare, addr, &body).await);
        sender.set(Some(bare));
    };
    let hook = || http_call(&http, &call);
    bench_interleaved(&mut group, "floor", &rt, floor, hook);
    bench_interleaved(&mut group, "round_trip", &rt, hook, floor);

    let req = request();
    let line = stdin_line(&req, "/work/project");
    let stack = command_stack();
    rt.block_on(check_allows(stack.clone(), req.clone(), 1));
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));
    let floor = || spawn_floor(&line);
    let hook = || command_hook(stack.clone(), req.clone());
    bench_interleaved(&mut group, "command_hook", &rt, hook, floor);
    group.finish();

    eprintln!(
        "policy server: {} requests over {} connection(s)",
        seen.requests.load(Ordering::Relaxed),
        seen.connections.load(Ordering::Relaxed)
    );
}

criterion_group!(benches, http);
criterion_main!(benches);
