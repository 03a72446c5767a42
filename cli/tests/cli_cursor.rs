//! The `hooks` binary with Cursor files (issue 21): the tool a Cursor event
//! of a kind of tool names, a rewrite seen by the later hooks whatever
//! spelling fired the event, the payload's loop count, why a hook allowed,
//! and the hint about another dialect's files.

mod support;

use serde_json::{json, Value};
use support::{path, Sandbox};

fn cursor(hooks: Value) -> String {
    serde_json::to_string_pretty(&json!({"version": 1, "hooks": hooks})).unwrap()
}

#[test]
fn tool_names_the_tool_of_a_shell_event() {
    let s = Sandbox::new();
    // A nanopi guard sees the host's own name for the tool.
    let settings = s.write(
        "proj/.nanopi/config.toml",
        "[[hooks.tool_execution_start]]\nmatcher = '^run_in_terminal$'\n\
         command = 'echo \"not here\" >&2; exit 2'\n",
    );
    let fire = |tool: Option<&str>| {
        let mut args = vec![
            "test",
            "--json",
            "--config",
            path(&settings),
            "--event",
            "beforeShellExecution",
            "--payload",
            r#"{"command": "rm -rf build"}"#,
        ];
        if let Some(tool) = tool {
            args.extend(["--tool", tool]);
        }
        s.run(&args)
    };
    let named = fire(Some("run_in_terminal"));
    let report = named.json();
    assert_eq!(report["decision"], "block", "{}", named.stderr);
    assert_eq!(report["reason"], "not here");
    // Without it the tool is Cursor's `Shell`, which the guard does not match.
    let report = fire(None).json();
    assert_eq!(report["decision"], "allow");
    assert_eq!(report["hooks"][0]["outcome"], "skipped");
}

#[test]
fn a_rewrite_is_what_later_hooks_see_whatever_spelling_fired_the_event() {
    let s = Sandbox::new();
    let seen = s.write("seen.jsonl", "");
    s.write(
        "proj/.cursor/hooks/rewrite.sh",
        "#!/bin/sh\ncat > /dev/null\necho '{\"updated_input\": {\"command\": \"ls -la\"}}'\n",
    );
    s.write(
        "proj/.cursor/hooks/record.sh",
        &format!("#!/bin/sh\ncat >> '{}'\necho '{{}}'\n", path(&seen)),
    );
    let file = s.write(
        "proj/.cursor/hooks.json",
        &cursor(json!({"preToolUse": [
            {"command": ".cursor/hooks/rewrite.sh"},
            {"command": ".cursor/hooks/record.sh"}]})),
    );
    for (event, payload) in [
        (
            "preToolUse",
            json!({"tool_name": "Shell", "tool_input": {"command": "ls"}}),
        ),
        ("tool_execution_start", json!({"command": "ls"})),
        (
            "PreToolUse",
            json!({"tool_name": "Shell", "tool_input": {"command": "ls"}}),
        ),
    ] {
        let mut args = vec!["test", "--json", "--config", path(&file), "--event", event];
        if event == "tool_execution_start" {
            args.extend(["--tool", "Shell"]);
        }
        let payload = payload.to_string();
        args.extend(["--payload", &payload]);
        let run = s.run(&args);
        let report = run.json();
        assert_eq!(report["decision"], "transform", "{event}: {}", run.stderr);
        assert_eq!(report["arguments"], json!({"command": "ls -la"}), "{event}");
    }
    let seen: Vec<Value> = std::fs::read_to_string(&seen)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(seen.len(), 3);
    for stdin in &seen {
        assert_eq!(stdin["tool_input"], json!({"command": "ls -la"}), "{stdin}");
    }
}

#[test]
fn the_payloads_loop_count_is_checked_against_the_loop_limit() {
    let s = Sandbox::new();
    let file = s.write(
        "proj/.cursor/hooks.json",
        &cursor(json!({"stop": [
            {"command": "cat > /dev/null; echo '{\"followup_message\": \"again\"}'", "loop_limit": 3}]})),
    );
    let stop = |count: u32| {
        let payload = json!({"status": "completed", "loop_count": count}).to_string();
        let run = s.run(&[
            "test",
            "--json",
            "--config",
            path(&file),
            "--event",
            "stop",
            "--payload",
            &payload,
        ]);
        run.json()
    };
    assert_eq!(stop(2)["follow_up"], "again");
    assert_eq!(stop(3)["follow_up"], Value::Null);
    assert_eq!(stop(7)["follow_up"], Value::Null);
    assert_eq!(stop(0)["follow_up"], "again");
}

#[test]
fn the_payloads_stop_hook_active_reaches_a_claude_stop_hook() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "command",
            "command": "grep -q '\"stop_hook_active\":true' && echo 'already going' >&2 && exit 2; exit 0"}]}]}})
        .to_string(),
    );
    let stop = |active: bool| {
        let payload = json!({"stop_hook_active": active}).to_string();
        s.run(&[
            "test",
            "--json",
            "--config",
            path(&settings),
            "--event",
            "Stop",
            "--payload",
            &payload,
        ])
        .json()
    };
    assert_eq!(stop(true)["follow_up"], "already going");
    assert_eq!(stop(false)["follow_up"], Value::Null);
}

#[test]
fn event_help_lists_every_dialects_names() {
    let s = Sandbox::new();
    let help = s.run(&["test", "--help"]).stdout;
    for name in [
        "tool_execution_start",
        "session_before_compact",
        "PreToolUse",
        "SubagentStop",
        "beforeShellExecution",
        "afterAgentThought",
    ] {
        assert!(help.contains(name), "{name} is not in:\n{help}");
    }
}

#[test]
fn identical_claude_handlers_in_one_file_run_once() {
    let s = Sandbox::new();
    let log = s.write("runs.log", "");
    let handler = json!({"type": "command", "command": format!("echo run >> '{}'", path(&log))});
    let settings = s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [handler, handler]},
            {"matcher": "Bash", "hooks": [handler]}]}})
        .to_string(),
    );
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}).to_string();
    let report = s
        .run(&[
            "test",
            "--json",
            "--config",
            path(&settings),
            "--event",
            "PreToolUse",
            "--payload",
            &payload,
        ])
        .json();
    let outcomes: Vec<&str> = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["allow", "skipped", "skipped"]);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "run\n");
}

#[test]
fn another_dialects_files_that_were_not_discovered_get_a_hint() {
    let s = Sandbox::new();
    s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}})
            .to_string(),
    );
    s.write("home/.cursor/hooks.json", &cursor(json!({})));
    for command in ["check", "list"] {
        let run = s.run(&[command]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stderr.contains(
                "hooks: hint: found .claude/settings.json; add --discover claude to load it"
            ),
            "{command}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(
                "hooks: hint: found ~/.cursor/hooks.json; add --discover cursor to load it"
            ),
            "{command}: {}",
            run.stderr
        );
    }
    let run = s.run(&["test", "--event", "turn_start"]);
    assert!(
        run.stderr.contains("add --discover claude"),
        "{}",
        run.stderr
    );
    // Discovering them, or naming files, says nothing.
    let run = s.run(&["check", "--discover", "claude"]);
    assert!(!run.stderr.contains("hint"), "{}", run.stderr);
    let run = s.run(&["check", "--config", "claude:.claude/settings.json"]);
    assert!(!run.stderr.contains("hint"), "{}", run.stderr);
}

#[test]
fn the_report_says_why_a_claude_or_cursor_hook_allowed() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "echo '{\"hookSpecifcOutput\": {\"permissionDecision\": \"deny\"}}'"},
            {"type": "command", "command": "echo checking; echo '{\"decision\": \"block\", \"reason\": \"no\"}'"},
            {"type": "command", "command": "echo looks fine"}]}]}})
        .to_string(),
    );
    let cursor_file = s.write(
        "proj/.cursor/hooks.json",
        &cursor(json!({"preToolUse": [
            {"command": "echo scanning; echo '{\"permision\": \"deny\"}'"}]})),
    );
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}).to_string();
    let run = s.run(&[
        "test",
        "--json",
        "--config",
        path(&settings),
        "--config",
        path(&cursor_file),
        "--event",
        "PreToolUse",
        "--payload",
        &payload,
    ]);
    let report = run.json();
    assert_eq!(report["decision"], "allow", "{}", run.stderr);
    let warnings: Vec<Vec<String>> = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| serde_json::from_value(h["warnings"].clone()).unwrap())
        .collect();
    assert!(
        warnings[0][0].contains("did you mean \"hookSpecificOutput\""),
        "{warnings:?}"
    );
    assert!(
        warnings[1][0].contains("text before its JSON"),
        "{warnings:?}"
    );
    assert!(
        warnings[2][0].starts_with("stdout is not JSON"),
        "{warnings:?}"
    );
    assert!(
        warnings[3][0].contains("the other line was ignored"),
        "{warnings:?}"
    );
    assert!(
        warnings[3][1].contains("did you mean \"permission\""),
        "{warnings:?}"
    );
    // The report for people shows them under each hook.
    let run = s.run(&[
        "test",
        "--config",
        path(&settings),
        "--config",
        path(&cursor_file),
        "--event",
        "PreToolUse",
        "--payload",
        &payload,
    ]);
    assert!(
        run.stdout
            .contains("note    key \"hookSpecifcOutput\" is not one Claude Code reads"),
        "{}",
        run.stdout
    );
}
