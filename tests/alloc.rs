//! The idle paths allocate nothing: a gated call, an event with no hooks, and a
//! hook whose matcher does not match. Counted by `allocation-counter`, whose
//! global allocator counts what the current thread allocates.

use std::convert::Infallible;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use serde_json::json;
use tower::{Service, ServiceExt};
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack, RecordOutcome};

/// Polls `fut` to completion on this thread (the idle paths never pend),
/// counting the allocations this thread makes meanwhile.
fn allocations_of<F: Future>(fut: F) -> (F::Output, u64) {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = None;
    let info = allocation_counter::measure(|| {
        out = Some(loop {
            if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
                break out;
            }
        });
    });
    (out.expect("the future completed"), info.count_total)
}

/// One `ready().await` + `call().await`, with the request made before counting.
fn count_call<S>(stack: &mut S, req: HookRequest) -> (HookOutcome, u64)
where
    S: Service<HookRequest, Response = HookOutcome, Error = Infallible>,
{
    allocations_of(async move { stack.ready().await.unwrap().call(req).await.unwrap() })
}

fn request() -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({"command": "ls"}))
        .with_cwd("/w")
        .with_session_id("s")
}

fn guard() -> HookSpec {
    HookSpec::command(Event::ToolExecutionStart, "exit 2")
        .with_matcher("^bash$")
        .unwrap()
}

#[test]
fn gated_call_allocates_nothing() {
    let mut stack = HookStack::builder()
        .command_hook(guard())
        .no_hooks(true)
        .build();
    // Warm up once: lazily initialised statics are not per-call cost.
    count_call(&mut stack, request());
    let (outcome, n) = count_call(&mut stack, request());
    assert!(!outcome.is_blocked());
    assert_eq!(n, 0, "a gated call allocated {n} times");
}

#[test]
fn event_without_hooks_allocates_nothing() {
    let mut stack = HookStack::builder()
        .command_hook(HookSpec::command(Event::TurnEnd, "exit 2"))
        .command_hook(HookSpec::command(Event::SessionStart, "exit 2"))
        .build();
    count_call(&mut stack, request());
    let (outcome, n) = count_call(&mut stack, request());
    assert!(outcome.hooks().is_empty());
    assert_eq!(
        n, 0,
        "a call with no hooks for its event allocated {n} times"
    );
}

#[test]
fn hook_skipped_by_its_matcher_allocates_nothing() {
    let mut stack = HookStack::builder().command_hook(guard()).build();
    let req = || HookRequest::tool_execution_start("read", json!({"path": "a"})).with_cwd("/w");
    count_call(&mut stack, req());
    let (outcome, n) = count_call(&mut stack, req());
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Skipped);
    assert_eq!(n, 0, "a hook skipped by its matcher allocated {n} times");
}

#[test]
fn turn_count_subject_is_rendered_without_allocating() {
    let mut stack = HookStack::builder()
        .command_hook(
            HookSpec::command(Event::TurnStart, "exit 2")
                .with_matcher("^1$")
                .unwrap(),
        )
        .build();
    count_call(&mut stack, HookRequest::turn_start(7, 0));
    let (outcome, n) = count_call(&mut stack, HookRequest::turn_start(7, 0));
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Skipped);
    assert_eq!(n, 0, "matching a turn count allocated {n} times");
}

#[test]
fn the_counter_sees_allocations() {
    // The instrument itself works: a transform path does allocate.
    let (_, n) = allocations_of(async { vec![1u8; 16] });
    assert!(n >= 1);
}

#[test]
fn a_call_running_one_function_hook_allocates_only_its_chain_state() {
    let mut stack = HookStack::builder()
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "allow"),
            |_| tower_hooks::Verdict::Allow,
        )
        .build();
    count_call(&mut stack, request());
    let (outcome, n) = count_call(&mut stack, request());
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Allow);
    // One box for the chain's state, and the hook's spec in the request's
    // extensions (`HookRequest::hook`, as axum's `MatchedPath`): the map,
    // its table and the entry. Nothing else per hook.
    assert!(
        n <= 4,
        "the chain's state and the hook's entry in the extensions only; got {n}"
    );
}

#[test]
fn the_model_points_without_hooks_allocate_nothing() {
    let mut stack = HookStack::builder().command_hook(guard()).build();
    let requests = || {
        [
            HookRequest::model_request(json!({"model": "m"})),
            HookRequest::model_response(json!({"model": "m"}), json!({"text": "t"})),
            HookRequest::tool_selection(json!({"model": "m"})),
        ]
    };
    for req in requests() {
        count_call(&mut stack, req);
    }
    for req in requests() {
        let event = req.event();
        let (outcome, n) = count_call(&mut stack, req);
        assert!(outcome.hooks().is_empty());
        assert_eq!(n, 0, "a {event} call with no hooks allocated {n} times");
    }
}

/// A project's file of `dialect`'s shape at `rel`, holding one guard for
/// another tool than the call's, loaded the way a host hands it over.
fn loaded_guard(rel: &str, text: serde_json::Value) -> (tempfile::TempDir, HookStack) {
    use tower_hooks::config::{Config, ConfigFile};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text.to_string()).unwrap();
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir.path()).unwrap();
    assert!(
        config.warnings().is_empty(),
        "{rel}: {:?}",
        config.warnings()
    );
    assert_eq!(config.hooks().len(), 1, "{rel}");
    let stack = HookStack::builder()
        .command_hooks(config.into_hooks())
        .build();
    (dir, stack)
}

/// In every dialect, a hook whose matcher does not match the call is
/// skipped without an allocation: its matcher is tested against the tool's
/// name in that dialect (`Bash`, `Shell`, `run_shell_command`) without
/// building it, and nothing of the request is copied.
#[test]
fn a_hook_of_every_dialect_skipped_by_its_matcher_allocates_nothing() {
    let command = |c: &str| json!({"type": "command", "command": c});
    let cases = [
        (
            ".claude/settings.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [command("exit 2")]}]}}),
        ),
        (
            ".codex/hooks.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [command("exit 2")]}]}}),
        ),
        (
            ".gemini/settings.json",
            json!({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [command("exit 2")]}]}}),
        ),
        (
            ".cursor/hooks.json",
            json!({"version": 1, "hooks": {"preToolUse": [{"command": "exit 2", "matcher": "Write"}]}}),
        ),
        (
            ".agents/hooks.json",
            json!({"PreToolUse": [{"matcher": "write", "command": "exit 2"}]}),
        ),
        (
            ".factory/settings.json",
            json!({"hooks": {"PreToolUse": [{"matcher": "Create", "hooks": [command("exit 2")]}]}}),
        ),
    ];
    let mut failures = Vec::new();
    for (rel, text) in cases {
        let (_dir, mut stack) = loaded_guard(rel, text);
        count_call(&mut stack, request());
        let (outcome, n) = count_call(&mut stack, request());
        assert_eq!(
            outcome.hooks()[0].outcome(),
            RecordOutcome::Skipped,
            "{rel}"
        );
        if n != 0 {
            failures.push(format!("{rel}: {n} allocations"));
        }
    }
    assert!(
        failures.is_empty(),
        "a skipped hook allocated: {failures:?}"
    );
}
