//! react-agent-mini hooks (`.agents/hooks.json`), unchanged, through the stack.

use std::path::Path;

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::dialect::agents;
use tower_hooks::{Dialect, HookRequest, HookStack, RecordOutcome};

fn stack(root: &Path, hooks: Value) -> HookStack {
    let path = root.join(".agents/hooks.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, hooks.to_string()).unwrap();
    let file = agents::load(&path).unwrap();
    let specs = agents::specs(&file, &path);
    assert!(specs.iter().all(|s| s.dialect() == Dialect::Agents));
    HookStack::builder().report(()).command_hooks(specs).build()
}

fn bash(command: &str) -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({ "command": command }))
}

#[tokio::test]
async fn agents_hooks_deny_by_exit_2_or_a_json_last_line_and_see_their_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen.json");
    let stack = stack(
        dir.path(),
        json!({"PreToolUse": [
            {"matcher": "bash", "command": format!("cat > '{}'; exit 0", seen.display())},
            {"matcher": "bash", "command": "grep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }; exit 0"},
            {"matcher": "*", "command": "input=$(cat); echo log; case \"$input\" in *push*) echo '{\"decision\":\"deny\",\"reason\":\"no push\"}';; esac"},
        ]}),
    );
    let outcome = stack.clone().oneshot(bash("rm -rf /")).await.unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("no rm"));
    let envelope: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(
        envelope,
        json!({"hook_event_name": "PreToolUse", "tool_name": "bash", "tool_input": {"command": "rm -rf /"}})
    );

    let outcome = stack.clone().oneshot(bash("git push")).await.unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("no push"));

    let outcome = stack.oneshot(bash("ls")).await.unwrap();
    assert!(!outcome.is_blocked());
}

#[tokio::test]
async fn a_failure_allows_unless_deny_on_failure() {
    let dir = tempfile::tempdir().unwrap();
    let open = stack(dir.path(), json!({"PreToolUse": [{"command": "exit 1"}]}));
    let outcome = open.oneshot(bash("ls")).await.unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Error);

    let dir = tempfile::tempdir().unwrap();
    let closed = stack(
        dir.path(),
        json!({"PreToolUse": [{"command": "sleep 5", "timeoutMs": 200, "denyOnFailure": true}]}),
    );
    let outcome = closed.oneshot(bash("ls")).await.unwrap();
    assert!(outcome.is_blocked(), "{outcome:?}");
    assert!(
        outcome.reason().unwrap().contains("timed out"),
        "{outcome:?}"
    );
}
