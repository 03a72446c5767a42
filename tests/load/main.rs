//! Load: 1,000 real hook calls, 64 in flight, on a multi-thread runtime, mixing
//! hooks that allow, block, time out and transform. Every outcome must be right;
//! descriptors and child processes must return to where they started; memory
//! must not grow with the number of calls.
//!
//! One test in this binary: it counts the whole process's descriptors and children.

#[path = "../support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};
use serde_json::json;
use tower::ServiceExt;
use tower_hooks::{BlockCause, Decision, Event, HookRequest, HookSpec, HookStack, RecordOutcome};

use support::{children, collecting_stack, mib, open_fds, settle, vm_bytes};

const IN_FLIGHT: usize = 64;
const SLOW_TIMEOUT: Duration = Duration::from_millis(100);

/// Reads `"n":<digits>` from the stdin line with bash alone (no extra process).
const READ_N: &str = r#"read -r line; n=${line#*\"n\":}; n=${n%%[!0-9]*}"#;

fn stack() -> HookStack {
    let hook = |tool: &str, command: String| {
        HookSpec::command(Event::ToolExecutionStart, command)
            .with_matcher(format!("^{tool}$"))
            .unwrap()
    };
    let specs = vec![
        // Leaves a child behind in its group, which the runner kills at its exit.
        hook("allow", "cat >/dev/null; sleep 5 &".into()),
        hook(
            "block",
            format!(r#"{READ_N}; echo "refused $n" >&2; exit 2"#),
        ),
        // Ignores SIGTERM: the runner escalates to SIGKILL after the grace.
        hook("slow", "trap '' TERM; sleep 5".into()).with_timeout(SLOW_TIMEOUT),
        hook(
            "rewrite",
            format!(r#"{READ_N}; echo "{{\"updated_input\":{{\"n\":$n,\"rewritten\":true}}}}""#),
        ),
    ];
    collecting_stack(specs).0
}

const KINDS: [&str; 4] = ["allow", "block", "slow", "rewrite"];

fn kind(n: usize) -> &'static str {
    // Interleaved rather than in blocks of one kind.
    KINDS[(n * 7 + n / 4) % 4]
}

/// Runs calls `range` with [`IN_FLIGHT`] at a time and checks every outcome.
async fn run_calls(stack: &HookStack, range: std::ops::Range<usize>) {
    let checked = stream::iter(range)
        .map(|n| {
            let stack = stack.clone();
            async move {
                let tool = kind(n);
                let req = HookRequest::tool_execution_start(tool, json!({"n": n}));
                let outcome = stack.oneshot(req).await.unwrap();
                (n, tool, outcome)
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .map(|(n, tool, outcome)| {
            let record = &outcome.hooks()[KINDS.iter().position(|k| *k == tool).unwrap()];
            match tool {
                "allow" => {
                    assert_eq!(outcome.decision(), Decision::Allow, "call {n}: {outcome:?}");
                    assert_eq!(outcome.arguments(), &json!({"n": n}));
                    assert_eq!(record.outcome(), RecordOutcome::Allow);
                }
                "block" => {
                    assert!(outcome.is_blocked(), "call {n}: {outcome:?}");
                    assert_eq!(outcome.reason(), Some(format!("refused {n}").as_str()));
                    assert_eq!(record.block_cause(), Some(BlockCause::Hook));
                }
                "slow" => {
                    assert!(outcome.is_blocked(), "call {n}: {outcome:?}");
                    assert_eq!(outcome.reason(), Some("hook timed out after 100 ms"));
                    assert_eq!(record.block_cause(), Some(BlockCause::Timeout));
                }
                "rewrite" => {
                    assert_eq!(
                        outcome.decision(),
                        Decision::Transform,
                        "call {n}: {outcome:?}"
                    );
                    assert_eq!(outcome.arguments(), &json!({"n": n, "rewritten": true}));
                }
                _ => unreachable!(),
            }
        })
        .count()
        .await;
    assert!(checked > 0);
}

#[test]
fn a_thousand_calls_64_in_flight_answer_right_and_leave_nothing_behind() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let stack = stack();
    let started = Instant::now();

    // Warm up: one call of each kind, so that what is made once already exists.
    rt.block_on(run_calls(&stack, 0..8));
    let fds = open_fds();
    let kids = children();

    rt.block_on(run_calls(&stack, 8..200));
    let restored = || open_fds() <= fds && children() == kids;
    assert!(
        settle(Duration::from_secs(5), restored),
        "after 200 calls: {} fds (from {fds}), children {:?} (from {kids:?})",
        open_fds(),
        children()
    );
    let rss_200 = vm_bytes("VmRSS");

    rt.block_on(run_calls(&stack, 200..1000));
    assert!(
        settle(Duration::from_secs(5), restored),
        "after 1000 calls: {} fds (from {fds}), children {:?} (from {kids:?})",
        open_fds(),
        children()
    );
    let rss_1000 = vm_bytes("VmRSS");

    // 800 more calls must not cost memory that stays: a generous bound, far
    // below what keeping anything per call would cost.
    assert!(
        rss_1000 < rss_200 + (24 << 20),
        "RSS grew from {:.1} MiB after 200 calls to {:.1} MiB after 1000",
        mib(rss_200),
        mib(rss_1000)
    );
    // Only catches a hang: this takes a few seconds on two cores.
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "{:?}",
        started.elapsed()
    );
    eprintln!(
        "1000 calls in {:?}; RSS {:.1} MiB after 200, {:.1} MiB after 1000",
        started.elapsed(),
        mib(rss_200),
        mib(rss_1000)
    );
}
