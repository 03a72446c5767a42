//! How late timed-out calls answer under a burst: `n` calls in flight at once,
//! each to a hook that sleeps past its 1 s timeout. The documented bound is
//! the deadline plus `BACKSTOP` (750 ms); this measures, per burst size, how
//! far past the deadline the calls answered.
//!
//! Not criterion: what matters is the tail of one burst, not a mean of many.
//! Prints a table and writes `target/burst.json` for `benches/report.py`.
//!
//! ```sh
//! cargo bench --bench burst            # bursts of 100, 250, 500 and 1000
//! cargo bench --bench burst -- 1000    # one size
//! ```

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use serde_json::json;
use tower::ServiceExt;
use tower_hooks::layer::timeout::BACKSTOP;
use tower_hooks::{Event, HookRequest, HookSpec, HookStack, RecordOutcome};

const TIMEOUT: Duration = Duration::from_secs(1);

fn burst(runtime: &tokio::runtime::Runtime, n: usize) -> Vec<Duration> {
    let stack = HookStack::builder()
        .report(())
        .command_hook(
            HookSpec::command(Event::ToolExecutionStart, "sleep 30").with_timeout(TIMEOUT),
        )
        .build();
    runtime.block_on(async {
        let calls: Vec<_> = (0..n)
            .map(|_| {
                let stack = stack.clone();
                tokio::spawn(async move {
                    let started = Instant::now();
                    let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
                    let outcome = stack.oneshot(req).await.unwrap();
                    // Blocked by the timeout, not by a hook that failed to run.
                    assert_eq!(
                        outcome.hooks()[0].outcome(),
                        RecordOutcome::Timeout,
                        "{outcome:?}"
                    );
                    started.elapsed().saturating_sub(TIMEOUT)
                })
            })
            .collect();
        let mut late = Vec::with_capacity(n);
        for call in calls {
            late.push(call.await.unwrap());
        }
        late.sort_unstable();
        late
    })
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i]
}

fn main() {
    // `cargo bench` passes `--bench`; a bare number picks one size.
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![100, 250, 500, 1000]
    } else {
        sizes
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "| calls in flight | p50 late | p80 late | p99 late | max late | over {} ms |",
        BACKSTOP.as_millis()
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut rows = Vec::new();
    for n in sizes {
        let late = burst(&runtime, n);
        let over = late.iter().filter(|d| **d > BACKSTOP).count();
        let row = json!({
            "calls": n,
            "p50_ms": ms(quantile(&late, 0.5)),
            "p80_ms": ms(quantile(&late, 0.8)),
            "p99_ms": ms(quantile(&late, 0.99)),
            "max_ms": ms(*late.last().unwrap()),
            "over_backstop": over,
        });
        println!(
            "| {n} | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {over} |",
            ms(quantile(&late, 0.5)),
            ms(quantile(&late, 0.8)),
            ms(quantile(&late, 0.99)),
            ms(*late.last().unwrap()),
        );
        rows.push(row);
        // Let the machine settle between bursts.
        std::thread::sleep(Duration::from_secs(2));
    }
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/burst.json");
    let _ = std::fs::write(&out, serde_json::to_vec_pretty(&rows).unwrap());
}
