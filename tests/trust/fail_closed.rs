//! DIALECTS.md "Round 4", failing closed without gaps: with the host-wide
//! switch on, every answer that is not one of the dialect's defined answers
//! blocks at every event where that dialect's block takes effect; without
//! it, an answer longer than the kept stdout is a failure that names the
//! limit, never "no opinion".

use super::*;

/// A hook of `format` at its pre-tool event (or `event`), running `command`.
fn one_hook(format: Format, event: &str, command: &str) -> (&'static str, String) {
    let handler = json!({"type": "command", "command": command});
    match format {
        f if f == Format::Gemini => (
            ".gemini/settings.json",
            gemini(json!({event: [{"matcher": ".*", "hooks": [handler]}]})),
        ),
        f if f == Format::Codex => (
            ".codex/hooks.json",
            claude(json!({event: [{"hooks": [handler]}]})),
        ),
        f if f == Format::Agents => (
            ".agents/hooks.json",
            json!({event: [{"command": command}]}).to_string(),
        ),
        _ => (
            ".claude/settings.json",
            claude(json!({event: [{"hooks": [handler]}]})),
        ),
    }
}

/// A stack of one `format` hook at `event` (user scope), failing closed or not.
fn one(dir: &Path, format: Format, event: &str, command: &str, closed: bool) -> HookStack {
    let (rel, text) = one_hook(format, event, command);
    let config = load(dir, &[(Scope::User, rel, format, text)]);
    assert_eq!(config.hooks().len(), 1, "{format:?} {event}");
    stack(&config, closed)
}

/// A script under `dir` that prints `stdout` (bytes, through printf's `%b`)
/// and exits `code`.
fn printing(dir: &Path, name: &str, stdout: &str, code: i32) -> String {
    let body = dir.join(format!("{name}.out"));
    std::fs::write(&body, stdout).unwrap();
    let path = dir.join(format!("{name}.sh"));
    script(
        &path,
        &format!(
            "#!/bin/sh\ncat >/dev/null\ncat {}\nexit {code}\n",
            shell_quote(&body)
        ),
    );
    shell_quote(&path)
}

fn ended(tool: &str) -> HookRequest {
    HookRequest::tool_execution_end(
        tool,
        json!({"command": "ls"}),
        "a.txt",
        false,
        std::time::Duration::from_millis(3),
    )
    .with_tool_kind(ToolKind::Shell)
    .with_session_id("trust-1")
}

/// Each `(dialect, stdout, exit)` that is not a defined answer blocks with
/// the switch on.
#[tokio::test]
async fn with_the_switch_on_an_answer_that_is_not_one_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let big_context = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "additionalContext": "x".repeat(3 << 20)}})
    .to_string();
    let codex_deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no"}})
    .to_string();
    let cases: Vec<(&str, Format, String, i32)> = vec![
        (
            "claude: cut JSON",
            Format::Claude,
            "{\"decision\":".into(),
            0,
        ),
        ("claude: null", Format::Claude, "null".into(), 0),
        ("claude: a number", Format::Claude, "12".into(), 0),
        ("claude: a NUL byte", Format::Claude, "{}\0".into(), 0),
        ("claude: oversized", Format::Claude, big_context.clone(), 0),
        ("codex: oversized", Format::Codex, big_context.clone(), 0),
        (
            "codex: login shell noise before the answer",
            Format::Codex,
            format!("Welcome back!\n{codex_deny}\n"),
            0,
        ),
        ("agents: oversized", Format::Agents, big_context.clone(), 0),
        (
            "gemini: a crash (exit 1, a traceback)",
            Format::Gemini,
            "Traceback (most recent call last):\n".into(),
            1,
        ),
    ];
    for (what, format, stdout, code) in cases {
        let event = match format {
            f if f == Format::Gemini => "BeforeTool",
            _ => "PreToolUse",
        };
        let command = printing(dir.path(), "answer", &stdout, code);
        let outcome = fire(&one(dir.path(), format, event, &command, true), shell("ls")).await;
        assert!(outcome.is_blocked(), "{what}: {outcome:?}");
    }
}

/// A failing hook blocks with the switch on where its dialect's block takes
/// effect after the tool ran: Gemini CLI's `AfterTool`, Codex's `PostToolUse`.
#[tokio::test]
async fn with_the_switch_on_a_failing_after_tool_hook_blocks_where_blocks_count() {
    let dir = tempfile::tempdir().unwrap();
    for (format, event, tool) in [
        (Format::Gemini, "AfterTool", "run_shell_command"),
        (Format::Codex, "PostToolUse", "Bash"),
    ] {
        let stack = one(dir.path(), format, event, "cat >/dev/null; exit 1", true);
        let outcome = fire(&stack, ended(tool)).await;
        assert!(outcome.is_blocked(), "{format:?} {event}: {outcome:?}");
        // Without the switch, the failure lets the result through.
        let stack = one(dir.path(), format, event, "cat >/dev/null; exit 1", false);
        let outcome = fire(&stack, ended(tool)).await;
        assert!(!outcome.is_blocked(), "{format:?} {event}: {outcome:?}");
    }
}

/// A Claude Code hook at a named event whose exit 2 blocks (`TaskCreated`)
/// blocks when it fails, with the switch on.
#[tokio::test]
async fn with_the_switch_on_a_failing_named_claude_hook_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let task = || HookRequest::named("TaskCreated", json!({"task_subject": "ship it"}));
    let closed = one(dir.path(), Format::Claude, "TaskCreated", "exit 1", true);
    let outcome = fire(&closed, task()).await;
    assert!(outcome.is_blocked(), "{outcome:?}");
    let open = one(dir.path(), Format::Claude, "TaskCreated", "exit 1", false);
    assert!(!fire(&open, task()).await.is_blocked());
    // Its exit 2 blocks either way.
    let blocking = one(dir.path(), Format::Claude, "TaskCreated", "exit 2", false);
    assert!(fire(&blocking, task()).await.is_blocked());
}

/// Without the switch, an answer longer than the kept stdout is a failure
/// whose error names the limit, in every dialect that reads JSON answers.
#[tokio::test]
async fn an_oversized_answer_is_a_failure_that_names_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "additionalContext": "x".repeat(3 << 20)}})
    .to_string();
    for format in [
        Format::Claude,
        Format::Codex,
        Format::Agents,
        Format::Gemini,
    ] {
        let event = if format == Format::Gemini {
            "BeforeTool"
        } else {
            "PreToolUse"
        };
        let command = printing(dir.path(), "big", &big, 0);
        let outcome = fire(
            &one(dir.path(), format, event, &command, false),
            shell("ls"),
        )
        .await;
        assert!(!outcome.is_blocked(), "{format:?}: {outcome:?}");
        let record = &outcome.hooks()[0];
        assert_eq!(
            record.outcome(),
            RecordOutcome::Error,
            "{format:?}: {record:?}"
        );
        let error = record.reason().unwrap_or_default();
        assert!(error.contains("bytes"), "{format:?}: {error}");
    }
}

/// Codex: a login shell's noise before a JSON answer is warned about without
/// the switch (the answer is not read, as in Codex).
#[tokio::test]
async fn login_shell_noise_before_a_codex_answer_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no"}});
    let command = printing(dir.path(), "noisy", &format!("Welcome back!\n{deny}\n"), 0);
    let outcome = fire(
        &one(dir.path(), Format::Codex, "PreToolUse", &command, false),
        shell("ls"),
    )
    .await;
    let record = &outcome.hooks()[0];
    let warnings = record.warnings().join("\n");
    assert!(warnings.contains("login"), "{record:?}");
}
