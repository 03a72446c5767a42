//! Claude Code hooks, unchanged, through the stack: a plugin's guard script that
//! answers with pretty-printed JSON or with exit 2, found through
//! `${CLAUDE_PLUGIN_ROOT}`, blocks a tool call through `ToolHooksLayer`.

#[path = "../support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tower::{Service, ServiceBuilder, ServiceExt};
use tower_hooks::dialect::claude;
use tower_hooks::{
    Dialect, HookRequest, HookStack, RecordOutcome, ToolCall, ToolHooksLayer, ToolResult,
};

/// A guard written for Claude Code: it reads the envelope on stdin, denies
/// `rm -rf` with a pretty-printed `hookSpecificOutput` (as `jq -n` prints it),
/// and refuses a forced push with exit 2 and a reason on stderr.
const GUARD: &str = r#"#!/bin/sh
input=$(cat)
printf '%s' "$input" > "$CLAUDE_PLUGIN_ROOT/seen.json"
case "$input" in
  *'rm -rf'*)
    cat <<'JSON'
{
  "hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "permissionDecision": "deny",
    "permissionDecisionReason": "rm -rf is not allowed here"
  }
}
JSON
    ;;
  *'push --force'*)
    echo "no forced pushes" >&2
    exit 2
    ;;
esac
exit 0
"#;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn plugin_stack(root: &Path) -> HookStack {
    let plugin = root.join("plugin");
    let guard = plugin.join("scripts/guard.sh");
    write(&guard, GUARD);
    let status = std::process::Command::new("chmod")
        .arg("+x")
        .arg(&guard)
        .status()
        .unwrap();
    assert!(status.success());
    write(
        &plugin.join("hooks/hooks.json"),
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh", "timeout": 10}
        ]}]}})
        .to_string(),
    );
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let files = claude::config::load_all([plugin.join("hooks/hooks.json")], &project).unwrap();
    let specs = claude::hook::specs(files.iter().flat_map(|f| &f.handlers), &project);
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0].dialect(), Dialect::Claude);
    HookStack::builder().report(()).command_hooks(specs).build()
}

#[tokio::test]
async fn a_claude_guard_blocks_through_the_tool_layer_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let stack = plugin_stack(dir.path());
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    let tools = tower::service_fn(move |_call: ToolCall| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, Infallible>(ToolResult::ok("ran")) }
    });
    let mut tools = ServiceBuilder::new()
        .layer(ToolHooksLayer::new(stack.clone()))
        .service(tools);

    for (id, command, want) in [
        (
            "toolu_1",
            "rm -rf build",
            ToolResult::error("blocked by hook: rm -rf is not allowed here"),
        ),
        (
            "toolu_2",
            "git push --force",
            ToolResult::error("blocked by hook: no forced pushes"),
        ),
        ("toolu_3", "ls", ToolResult::ok("ran")),
    ] {
        let call = ToolCall::new("Bash", id, json!({ "command": command }));
        let result = tools.ready().await.unwrap().call(call).await.unwrap();
        assert_eq!(result, want, "{command}");
    }
    assert_eq!(ran.load(Ordering::SeqCst), 1, "only `ls` ran");

    // The script saw Claude Code's envelope, not nanopi's line.
    let seen = std::fs::read_to_string(dir.path().join("plugin/seen.json")).unwrap();
    let seen: Value = serde_json::from_str(&seen).unwrap();
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["tool_input"], json!({"command": "ls"}));
    assert_eq!(seen["tool_use_id"], "toolu_3");
    assert!(seen.get("event").is_none() && seen.get("arguments").is_none());

    // Another tool: the matcher `Bash` is exact and case-sensitive.
    let outcome = stack
        .oneshot(HookRequest::tool_execution_start(
            "bash",
            json!({"command": "rm -rf /"}),
        ))
        .await
        .unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Skipped);
}

/// Loads `settings` as a project's `.claude/settings.json` and builds a stack.
fn settings_stack(root: &Path, settings: Value) -> HookStack {
    let path = root.join(".claude/settings.json");
    write(&path, &settings.to_string());
    let files = claude::config::load_all([&path], root).unwrap();
    let specs = claude::hook::specs(files.iter().flat_map(|f| &f.handlers), root);
    HookStack::builder().report(()).command_hooks(specs).build()
}

fn handler(command: &str) -> Value {
    json!({"type": "command", "command": command, "timeout": 30})
}

/// The hooks of one Claude group run at once: each waits until all eight have
/// started, which only works if none waits for another to finish.
#[tokio::test]
async fn the_hooks_of_a_group_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let hook = |i: usize| {
        handler(&format!(
            "touch '{m}/{i}'; n=0; while [ $(ls '{m}' | wc -l) -lt 8 ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done; [ $n -lt 500 ] || exit 1",
            m = marks.display()
        ))
    };
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": (0..8).map(hook).collect::<Vec<_>>()}]}}),
    );
    let outcome = stack
        .oneshot(HookRequest::tool_execution_start(
            "Bash",
            json!({"command": "ls"}),
        ))
        .await
        .unwrap();
    let outcomes: Vec<_> = outcome.hooks().iter().map(|h| h.outcome()).collect();
    assert_eq!(outcomes, [RecordOutcome::Allow; 8], "{outcome:?}");
}

/// A deny does not stop the other hooks of its group: every hook runs, their
/// reasons join in config order, and their context is kept in config order.
#[tokio::test]
async fn a_deny_does_not_stop_its_siblings_and_reasons_join_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let ran = dir.path().join("ran");
    let say = |obj: Value| format!("printf '%s\\n' '{obj}'");
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"hooks": [
            handler(&say(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "first"}}))),
            handler(&format!("sleep 0.2; touch '{}'; {}", ran.display(),
                say(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "additionalContext": "checked"}})))),
            handler("echo second >&2; exit 2"),
        ]}]}}),
    );
    let outcome = stack
        .clone()
        .oneshot(HookRequest::tool_execution_start(
            "Bash",
            json!({"command": "ls"}),
        ))
        .await
        .unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("first\nsecond"));
    assert!(ran.exists(), "the sibling ran to its end");
    assert_eq!(outcome.context(), ["checked"]);
    let outcomes: Vec<_> = outcome.hooks().iter().map(|h| h.outcome()).collect();
    assert_eq!(
        outcomes,
        [
            RecordOutcome::Block,
            RecordOutcome::Allow,
            RecordOutcome::Block
        ]
    );
}

/// Dropping a call while its Claude hooks run, or letting them time out,
/// leaves no process behind: each run is a task aborted with its call (the
/// runtime's workers drop it at once; a current-thread runtime at its next turn).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_hooks_leave_nothing_behind_when_dropped_or_timed_out() {
    let dir = tempfile::tempdir().unwrap();
    let pids = support::PidFile::new();
    let slow = format!("echo $$ >> {f}; sleep 30 & sleep 30", f = pids.quoted());
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": slow, "timeout": 30},
            {"type": "command", "command": slow, "timeout": 1},
        ]}]}}),
    );
    let call = stack
        .clone()
        .oneshot(HookRequest::tool_execution_start("Bash", json!({})));
    let dropped = tokio::time::timeout(std::time::Duration::from_millis(500), call).await;
    assert!(dropped.is_err(), "the call was still running");
    for pgid in pids.wait_for(2, std::time::Duration::from_secs(10)) {
        support::assert_no_process_left(pgid, &[pgid]);
    }

    // The second one alone: its 1 s timeout is a non-blocking error.
    let pids = support::PidFile::new();
    let slow = format!("echo $$ >> {f}; sleep 30 & sleep 30", f = pids.quoted());
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": slow, "timeout": 1},
        ]}]}}),
    );
    let outcome = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        stack.oneshot(HookRequest::tool_execution_start("Bash", json!({}))),
    )
    .await
    .expect("the timeout bounds the call")
    .unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Error);
    assert_eq!(outcome.hooks()[0].reason(), Some("timed out after 1 s"));
    for pgid in pids.pids() {
        support::assert_no_process_left(pgid, &[pgid]);
    }
}
