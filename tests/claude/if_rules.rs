//! An `if` rule from the attacker's side: a guard on `Bash` with
//! `"if": "Bash(rm *)"` must still block every command that runs `rm`, or
//! that the rule cannot read, however the command is spelled.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tower::ServiceExt;
use tower_hooks::{HookRequest, HookStack};

use super::settings_stack;
use super::support::script;

/// A project whose settings hold one guard: it blocks (exit 2) each Bash
/// call that its `if` lets it see.
fn guarded(root: &Path) -> HookStack {
    script(
        &root.join(".claude/hooks/guard.sh"),
        "#!/bin/sh\ncat >/dev/null\necho 'rm is not allowed here' >&2\nexit 2\n",
    );
    let guard = json!({
        "type": "command",
        "if": "Bash(rm *)",
        "command": "\"${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh\"",
        "timeout": 30,
    });
    settings_stack(
        root,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [guard]}]}}),
    )
}

/// Whether the guard blocks `command`; each call is bounded, so a hang
/// fails the test instead of stalling it.
async fn blocked(stack: &HookStack, command: &str) -> bool {
    let call = HookRequest::tool_execution_start("Bash", json!({ "command": command }));
    tokio::time::timeout(Duration::from_secs(60), stack.clone().oneshot(call))
        .await
        .unwrap_or_else(|_| panic!("no answer in 60 s for {command:?}"))
        .unwrap()
        .is_blocked()
}

/// The commands found against the splitter (a brace counted inside `${…}`
/// hid what follows; `function` and `coproc` hid their commands), and more
/// of their kind: each one runs the guard, which blocks.
#[tokio::test]
async fn an_if_rule_guard_blocks_commands_it_cannot_read() {
    let root = tempfile::tempdir().unwrap();
    let stack = guarded(root.path());
    let mut missed = Vec::new();
    for command in [
        "echo ${x:-{}; rm -rf / #}",
        "echo ${x:-$(rm -rf /)}",
        "${x:=$(rm x)}",
        "${x/$(rm x)/}",
        "${x#$(rm x)}",
        "function f { rm x; }; f",
        "coproc rm x",
        "eval 'rm -rf /'",
        "echo `echo \\`rm -rf /\\``",
        "cat <<EOF\n#$(rm -rf /)\nEOF",
        "x=$(cat payload); echo $((x))",
        "trap 'rm -rf /' EXIT",
        "{rm,-rf,/}",
        ">/dev/null rm -rf /",
        "/bin/rm -rf /",
        "command rm -rf /",
        "exec rm -rf /",
        "cat <(rm -rf /)",
    ] {
        if !blocked(&stack, command).await {
            missed.push(command);
        }
    }
    assert!(missed.is_empty(), "not blocked: {missed:#?}");
}

/// Plain commands stay outside the rule, so the `if` keeps its use; and a
/// prefix rule names the program: `env rm` and `sudo rm` are `env` and
/// `sudo` (docs/claude-code.md says how to write a guard that catches them).
#[tokio::test]
async fn an_if_rule_guard_leaves_plain_commands_and_other_programs_alone() {
    let root = tempfile::tempdir().unwrap();
    let stack = guarded(root.path());
    for command in [
        "git status",
        "ls -la | grep x && echo ok",
        "echo \"${HOME:-/}\" $((1 + 2))",
        "git commit -m \"$(cat <<'EOF'\nfix\nEOF\n)\"",
        "env rm x",
        "sudo rm x",
    ] {
        assert!(!blocked(&stack, command).await, "blocked: {command:?}");
    }
}
