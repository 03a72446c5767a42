//! Failing closed from the command line: Claude Code's `onFailure: "block"` on
//! a command handler, `hooks test --fail-closed` for every dialect, and
//! `hooks check` naming a guard whose program cannot start.

mod support;

use serde_json::json;
use support::{path, Sandbox};

/// A tool call every dialect's guard below is configured for.
const PAYLOAD: &str = r#"{"tool_name": "Bash", "tool_input": {"command": "rm -rf build/"}}"#;

/// Runs `hooks test` at PreToolUse with `config` and `extra` flags.
fn pre_tool_use(s: &Sandbox, config: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "test",
        "--json",
        "--config",
        config,
        "--event",
        "PreToolUse",
        "--payload",
        PAYLOAD,
    ];
    args.extend_from_slice(extra);
    let run = s.run(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

#[test]
fn a_claude_command_handler_with_on_failure_block_blocks_when_its_script_is_missing() {
    let s = Sandbox::new();
    let handler = |extra: serde_json::Value| {
        let mut handler = json!({"type": "command", "command": "./.claude/hooks/gone.sh"});
        handler
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}).to_string()
    };
    let open = s.write("proj/.claude/settings.json", &handler(json!({})));
    let report = pre_tool_use(&s, path(&open), &[]);
    assert_eq!(report["decision"], "allow", "{report}");
    assert_eq!(report["hooks"][0]["outcome"], "error");

    let closed = s.write(
        "proj/.claude/settings.local.json",
        &handler(json!({"onFailure": "block"})),
    );
    let report = pre_tool_use(&s, path(&closed), &[]);
    assert_eq!(report["decision"], "block", "{report}");
    // Claude Code's own words for its own switch, then what the shell said.
    let reason = report["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("failed; blocking because onFailure is \"block\"\n"),
        "{reason}"
    );
}

#[test]
fn fail_closed_makes_a_failing_guard_of_every_dialect_block() {
    let s = Sandbox::new();
    // Each guard crashes (exit 1), which each dialect lets through by default.
    let crash = "echo boom >&2; exit 1";
    let files = [
        s.write(
            "proj/.nanopi/hooks.toml",
            &format!("[[hooks.tool_execution_start]]\ncommand = {crash:?}\n"),
        ),
        s.write(
            "proj/.claude/settings.json",
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": crash}]}]}})
            .to_string(),
        ),
        s.write(
            "proj/.cursor/hooks.json",
            &json!({"version": 1, "hooks": {"preToolUse": [{"command": crash}]}}).to_string(),
        ),
        s.write(
            "proj/.agents/hooks.json",
            &json!({"PreToolUse": [{"matcher": "*", "command": crash}]}).to_string(),
        ),
    ];
    for file in &files {
        let config = path(file);
        let report = pre_tool_use(&s, config, &[]);
        assert_eq!(report["decision"], "allow", "{config}: {report}");
        let report = pre_tool_use(&s, config, &["--fail-closed"]);
        assert_eq!(report["decision"], "block", "{config}: {report}");
    }
    // At an event whose blocks are advisory the switch changes nothing.
    let report = {
        let run = s.run(&[
            "test",
            "--json",
            "--config",
            path(&files[1]),
            "--event",
            "SessionEnd",
            "--fail-closed",
        ]);
        run.json()
    };
    assert_ne!(report["decision"], "block", "{report}");
}

#[test]
fn check_names_a_blocking_guard_whose_program_cannot_start() {
    let s = Sandbox::new();
    s.write("proj/.claude/hooks/ok.sh", "#!/bin/sh\nexit 0\n");
    s.write("proj/.claude/hooks/plain.txt", "exit 0\n");
    let settings = s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "./.claude/hooks/ok.sh"},
                {"type": "command", "command": "./.claude/hooks/gone.sh"},
                {"type": "command", "command": "./.claude/hooks/plain.txt"},
                {"type": "command", "command": "python3 .claude/hooks/gone.py"},
                {"type": "command", "command": "no-such-program-anywhere --x"}]}],
            // Not a blocking event: not checked.
            "SessionEnd": [{"hooks": [{"type": "command", "command": "./gone-too.sh"}]}]}})
        .to_string(),
    );
    let run = s.run(&["check", "--config", path(&settings)]);
    assert_eq!(
        run.code, 0,
        "warnings never change the exit status: {}",
        run.stderr
    );
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("hooks: warning:"))
        .collect();
    let named = |program: &str, why: &str| {
        warnings
            .iter()
            .any(|w| w.contains(&format!("{program:?} is {why}")))
    };
    assert!(
        named("./.claude/hooks/gone.sh", "not found"),
        "{warnings:#?}"
    );
    assert!(
        named("./.claude/hooks/plain.txt", "not executable"),
        "{warnings:#?}"
    );
    assert!(named(".claude/hooks/gone.py", "not found"), "{warnings:#?}");
    assert!(
        named("no-such-program-anywhere", "not on PATH"),
        "{warnings:#?}"
    );
    assert!(!run.stderr.contains("ok.sh"), "{}", run.stderr);
    assert!(!run.stderr.contains("gone-too.sh"), "{}", run.stderr);
    assert_eq!(warnings.len(), 4, "{warnings:#?}");
}

#[test]
fn fail_closed_on_a_claude_handler_is_a_warning_that_names_on_failure() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "true", "failClosed": true}]}]}})
        .to_string(),
    );
    let run = s.run(&["check", "--config", path(&settings)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let warning = run
        .stderr
        .lines()
        .find(|l| l.contains("\"failClosed\""))
        .unwrap_or_else(|| panic!("no warning: {}", run.stderr));
    assert!(warning.contains("\"onFailure\": \"block\""), "{warning}");
    assert!(warning.contains(path(&settings)), "{warning}");
}

#[test]
fn check_warns_about_a_key_written_twice_naming_file_key_and_both_positions() {
    let s = Sandbox::new();
    let files = [
        s.write(
            "proj/.claude/settings.json",
            "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \"true\",\n   \"onFailure\": \"block\", \"onFailure\": \"allow\"}]}]}}",
        ),
        s.write(
            "proj/.cursor/hooks.json",
            "{\"version\": 1, \"hooks\": {\"preToolUse\": [\n  {\"command\": \"true\", \"failClosed\": true,\n   \"failClosed\": false}]}}",
        ),
        s.write(
            "proj/.agents/hooks.json",
            "{\"PreToolUse\": [{\"command\": \"true\"}],\n \"PreToolUse\": []}",
        ),
    ];
    let wants = [
        (
            "hooks.PreToolUse[0].hooks[0]",
            "onFailure",
            "line 3 column 4 and line 3 column 26",
        ),
        (
            "hooks.preToolUse[0]",
            "failClosed",
            "line 2 column 23 and line 3 column 4",
        ),
        (
            "the top level",
            "PreToolUse",
            "line 1 column 2 and line 2 column 2",
        ),
    ];
    for (file, (at, key, positions)) in files.iter().zip(wants) {
        let run = s.run(&["check", "--config", path(file)]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let want = format!(
            "hooks: warning: {}: {at}: key {key:?} is written twice ({positions})",
            path(file)
        );
        assert!(run.stderr.contains(&want), "want {want}\n{}", run.stderr);
    }
}

/// A guard named through the project variable, quoted as Claude Code's docs
/// write it, is judged like the path it names (only `${…}` was).
#[test]
fn check_sees_through_the_project_variable_to_a_guard_that_cannot_start() {
    let s = Sandbox::new();
    s.write("proj/.claude/hooks/plain.sh", "#!/bin/sh\nexit 0\n");
    s.write("proj/.claude/hooks/ok.sh", "#!/bin/sh\nexit 0\n");
    let ok = s.proj.join(".claude/hooks/ok.sh");
    let mut mode = std::fs::metadata(&ok).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&ok, mode).unwrap();
    let plain = s.proj.join(".claude/hooks/plain.sh");
    let mut mode = std::fs::metadata(&plain).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o644);
    std::fs::set_permissions(&plain, mode).unwrap();
    s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/plain.sh"},
            {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh --x"},
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/ok.sh"}]}]}})
        .to_string(),
    );
    let run = s.run(&["check", "--discover", "claude"]);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("hooks: warning:"))
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("plain.sh") && w.contains("not executable")),
        "{warnings:#?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("gone.sh") && w.contains("not found")),
        "{warnings:#?}"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("ok.sh")),
        "{warnings:#?}"
    );
}

/// Gemini CLI reads the shell's exit 127 (with its line on stderr) as a
/// block: `hooks check` says that a Gemini guard whose script is gone refuses
/// every call, where a Claude Code one lets them through; and it does.
#[test]
fn check_says_what_a_missing_script_does_in_each_dialect() {
    let s = Sandbox::new();
    s.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command",
            "hooks": [{"type": "command", "command": "./gone.sh"}]}]}})
        .to_string(),
    );
    s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": "./gone-too.sh"}]}]}})
        .to_string(),
    );
    let run = s.run(&["check", "--discover", "gemini", "--discover", "claude"]);
    let warning = |program: &str| {
        run.stderr
            .lines()
            .find(|l| l.starts_with("hooks: warning:") && l.contains(program))
            .unwrap_or_else(|| panic!("no warning names {program}: {}", run.stderr))
            .to_owned()
    };
    assert!(
        warning("./gone.sh").contains("refuses every call"),
        "{}",
        run.stderr
    );
    assert!(
        warning("./gone-too.sh").contains("lets the action through"),
        "{}",
        run.stderr
    );
    let payload =
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}).to_string();
    let r = s.run(&[
        "test",
        "--json",
        "--discover",
        "gemini",
        "--event",
        "BeforeTool",
        "--payload",
        &payload,
    ]);
    assert_eq!(r.json()["decision"], "block", "{}", r.stderr);
}
