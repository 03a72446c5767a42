//! Hosts that are not the well-behaved default: one that restored `SIGPIPE`'s
//! default action, one that is a child subreaper (as PID 1 in a container is),
//! one that ignores and blocks `SIGTERM`, one whose environment holds stale
//! protocol variables. Each condition is process-wide, so they live in a test
//! binary of their own, set up once, before any hook runs.

#![allow(unsafe_code)] // `signal(2)` is the only way to set a disposition.

#[path = "../support/mod.rs"]
mod support;

use std::sync::Once;
use std::time::Duration;

use nix::sys::signal::{self, SigHandler, SigSet, Signal};
use serde_json::json;
use tower::ServiceExt;
use tower_hooks::{Event, HookRequest, HookSpec, StartReason};

use support::{assert_no_process_left, children, collecting_stack, settle, PidFile};

/// Sets up every condition of this binary, once.
fn host_conditions() {
    static SETUP: Once = Once::new();
    SETUP.call_once(|| {
        // SAFETY: SIG_DFL and SIG_IGN install no handler; nothing in this
        // process relies on the previous dispositions.
        unsafe {
            signal::signal(Signal::SIGPIPE, SigHandler::SigDfl).expect("SIGPIPE to SIG_DFL");
            signal::signal(Signal::SIGTERM, SigHandler::SigIgn).expect("SIGTERM to SIG_IGN");
            signal::signal(Signal::SIGINT, SigHandler::SigIgn).expect("SIGINT to SIG_IGN");
        }
        rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
            .expect("PR_SET_CHILD_SUBREAPER");
        // Stale protocol variables, as a host started from inside a hook has.
        std::env::set_var("NANOPI_TOOL_NAME", "stale-tool");
        std::env::set_var("NANOPI_TOOL_CALL_ID", "stale-call");
        std::env::set_var("NANOPI_SESSION_ID", "stale-session");
        std::env::set_var("NANOPI_DEBUG", "kept");
    });
}

/// A current-thread runtime: hooks are spawned from the test's own thread, so
/// that thread's signal mask is the one a spawn could hand down.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// A host that restored `SIG_DFL` for `SIGPIPE` survives a hook that exits
/// without reading a payload far bigger than a pipe holds.
#[test]
fn default_sigpipe_host_survives_a_hook_that_ignores_a_big_payload() {
    host_conditions();
    let pids = PidFile::new();
    let spec = HookSpec::command(
        Event::ToolExecutionStart,
        format!("echo $$ >> {f}; exit 0", f = pids.quoted()),
    );
    let (stack, _) = collecting_stack(vec![spec]);
    for _ in 0..5 {
        let req = HookRequest::tool_execution_start("bash", json!({"pad": "x".repeat(4 << 20)}));
        let outcome = block_on(stack.clone().oneshot(req)).unwrap();
        assert!(!outcome.is_blocked());
    }
    // Still alive to say so; and the feeder's pipes are all closed.
    for pgid in pids.pids() {
        assert_no_process_left(pgid, &[pgid]);
    }
}

/// A subreaper (or PID 1) inherits every background child a hook leaves; the
/// runner kills them and reaps them too, so no zombie stays with the host.
#[test]
fn subreaper_host_is_left_no_zombie_by_background_children() {
    host_conditions();
    let pids = PidFile::new();
    let spec = HookSpec::command(
        Event::ToolExecutionStart,
        format!(
            "echo $$ >> {f}; (sleep 30 & sleep 30 & wait) & sleep 30 >/dev/null 2>&1 & echo '{{}}'",
            f = pids.quoted()
        ),
    );
    let (stack, _) = collecting_stack(vec![spec]);
    for _ in 0..3 {
        let req = HookRequest::tool_execution_start("bash", json!({}));
        block_on(stack.clone().oneshot(req)).unwrap();
    }
    let pgids = pids.pids();
    assert_eq!(pgids.len(), 3);
    // Nothing of the hooks' groups is left, and nothing of ours waits to be reaped.
    let ours = || {
        children()
            .into_iter()
            .filter(|pid| {
                support::proc_state(*pid).is_some_and(|_| {
                    let stat =
                        std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                    let pgrp = stat
                        .rsplit(')')
                        .next()
                        .and_then(|rest| rest.split_whitespace().nth(2))
                        .and_then(|p| p.parse::<i32>().ok());
                    pgrp.is_some_and(|g| pgids.contains(&g))
                })
            })
            .collect::<Vec<_>>()
    };
    assert!(
        settle(Duration::from_secs(5), || ours().is_empty()),
        "hook processes left with this host: {:?}",
        ours()
    );
    for pgid in pgids {
        assert!(support::group_is_empty(pgid), "group {pgid} is not empty");
    }
}

/// A host that ignores `SIGTERM` and `SIGINT` and blocks `SIGTERM` and
/// `SIGUSR1` starts its hooks with every signal at its default action and none
/// blocked: the graceful `SIGTERM` of a timeout reaches a hook's trap.
#[test]
fn hooks_start_with_default_signals_whatever_the_host_blocks_or_ignores() {
    host_conditions();
    let mut blocked = SigSet::empty();
    blocked.add(Signal::SIGTERM);
    blocked.add(Signal::SIGUSR1);
    blocked.thread_block().expect("block SIGTERM and SIGUSR1");

    let pids = PidFile::new();
    let status = pids.dir().join("status");
    let termed = pids.dir().join("termed");
    let spec = HookSpec::command(
        Event::ToolExecutionStart,
        format!(
            "echo $$ >> {f}; grep -E '^Sig(Blk|Ign)' /proc/self/status > {s}; \
             trap 'echo TERM > {t}; exit 0' TERM; while :; do sleep 0.05; done",
            f = pids.quoted(),
            s = support::shell_quote(&status),
            t = support::shell_quote(&termed),
        ),
    )
    .with_timeout(Duration::from_millis(500));
    let (stack, _) = collecting_stack(vec![spec]);
    let req = HookRequest::tool_execution_start("bash", json!({}));
    let outcome = block_on(stack.oneshot(req)).unwrap();
    blocked.thread_unblock().expect("unblock");

    assert_eq!(outcome.reason(), Some("hook timed out after 500 ms"));
    let status = std::fs::read_to_string(&status).expect("the hook wrote its signal state");
    let mask = |field: &str| {
        let line = status
            .lines()
            .find(|l| l.starts_with(field))
            .unwrap_or_else(|| panic!("no {field} in {status}"));
        u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
    };
    assert_eq!(mask("SigBlk"), 0, "{status}");
    let bit = |sig: Signal| 1u64 << (sig as i32 - 1);
    assert_eq!(
        mask("SigIgn") & (bit(Signal::SIGTERM) | bit(Signal::SIGINT)),
        0,
        "{status}"
    );
    assert_eq!(
        std::fs::read_to_string(&termed).ok().as_deref(),
        Some("TERM\n"),
        "the hook's TERM trap never ran"
    );
    assert_no_process_left(pids.pids()[0], &pids.pids());
}

/// The protocol variables an event does not set are absent, even when the
/// host's own environment holds them; other variables are inherited.
#[test]
fn protocol_variables_the_event_does_not_set_are_cleared() {
    host_conditions();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env");
    let spec = HookSpec::command(
        Event::SessionStart,
        format!(
            "env | grep -E '^NANOPI_' | sort > {o}",
            o = support::shell_quote(&out)
        ),
    );
    let (stack, _) = collecting_stack(vec![spec]);
    let req = HookRequest::session_start(StartReason::Startup).with_cwd("/w");
    block_on(stack.oneshot(req)).unwrap();
    let env = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        env, "NANOPI_CWD=/w\nNANOPI_DEBUG=kept\nNANOPI_EVENT=SessionStart\n",
        "session_start has no session id here, no tool name and no tool call id"
    );
}
