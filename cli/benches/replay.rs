//! `replay/10k_events`: `hooks replay` over a record of 10,000 tool calls, fired
//! through one persistent hook (a Perl loop that allows every event), as the
//! whole command runs: start, read, fire, report.
//!
//! It lives in the CLI's package because it runs the `hooks` binary that cargo
//! builds for it (`CARGO_BIN_EXE_hooks`). Run with `cargo bench --bench replay`;
//! `cargo bench --bench replay -- --test` runs it once.

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use tower_hooks::HookRequest;
use tower_hooks_layers::record::RecordedRequest;

/// How many events the record holds.
const EVENTS: usize = 10_000;

/// A persistent hook that allows every event: it echoes each request's id.
const CONFIG: &str = r#"
[[hooks.tool_execution_start]]
matcher = "^bash$"
persistent = true
command = '''exec perl -ne 'BEGIN { $| = 1 } print "{\"id\":$1}\n" if /"id":(\d+)/' '''
"#;

/// Writes a record of `EVENTS` tool calls in ten sessions.
fn write_record(path: &Path) {
    let mut text = String::new();
    for i in 0..EVENTS {
        let req = HookRequest::tool_execution_start("bash", json!({"command": format!("ls {i}")}))
            .with_tool_call_id(format!("call_{i}"))
            .with_session_id(format!("bench-{}", i / (EVENTS / 10)))
            .with_cwd("/home/u/app");
        text.push_str(&RecordedRequest::from_request(&req, std::time::SystemTime::now()).to_line());
    }
    std::fs::write(path, text).unwrap();
}

fn replay(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("session.jsonl");
    let config = dir.path().join("hooks.toml");
    write_record(&record);
    std::fs::write(&config, CONFIG).unwrap();
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(["replay", "--json", "--config"])
            .arg(&config)
            .arg(&record)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["events"]["replayed"], EVENTS);
        assert_eq!(report["hooks"][0]["runs"], EVENTS);
    };
    let mut group = c.benchmark_group("replay");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("10k_events", |b| b.iter(run));
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
