//! Per-call overhead of the hook stack (see BENCHMARKS.md).
//!
//! Run with: `cargo bench --bench overhead`

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use std::convert::Infallible;
use std::hint::black_box;
use std::time::Instant;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use serde_json::json;
use tokio::runtime::Runtime;
use tower::{service_fn, Service, ServiceExt};
use tower_hooks::{HookOutcome, HookRequest, HookStack};

fn request() -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({"command": "ls -la"})).with_cwd("/work")
}

/// Times `ready().await` then `call().await` on one service, one batch per `block_on`.
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

fn idle(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let req = request();
    let mut group = c.benchmark_group("idle");
    let bare =
        service_fn(|req: HookRequest| async move { Ok::<_, Infallible>(HookOutcome::allow(req)) });
    bench_calls(&mut group, "bare_service", &rt, bare, &req);
    bench_calls(
        &mut group,
        "gated",
        &rt,
        HookStack::builder().no_hooks(true).build(),
        &req,
    );
    group.finish();
}

criterion_group!(benches, idle);
criterion_main!(benches);
