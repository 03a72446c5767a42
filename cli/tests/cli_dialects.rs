//! The `hooks` binary with Claude Code and react-agent-mini files next to nanopi's
//! (docs/cli.md, "Dialects"): detection and prefixes, discovery, each dialect's
//! event names and payloads, the report's new fields, and `list` / `check`.

mod support;

use serde_json::{json, Value};
use support::{needs_tool, path, Sandbox};

fn claude(hooks: Value) -> String {
    serde_json::to_string_pretty(&json!({ "hooks": hooks })).unwrap()
}

/// A guard written for Claude Code, unchanged: it reads its stdin with jq and
/// answers with pretty-printed JSON.
const GUARD: &str = r#"#!/bin/sh
command=$(jq -r '.tool_input.command')
case "$command" in
  *"rm -rf"*) cat <<EOF
{
  "hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "permissionDecision": "deny",
    "permissionDecisionReason": "use trash instead of: $command"
  }
}
EOF
  ;;
esac
"#;

#[test]
fn a_claude_guard_blocks_with_its_pretty_printed_answer() {
    if !needs_tool("jq", "a_claude_guard_blocks_with_its_pretty_printed_answer") {
        return;
    }
    let s = Sandbox::new();
    s.write("proj/.claude/hooks/guard.sh", GUARD);
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"}]}]})),
    );
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}});
    let r = s.run(&[
        "test",
        "--json",
        "--exit-code",
        "--config",
        path(&settings),
        "--event",
        "PreToolUse",
        "--payload",
        &payload.to_string(),
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let report = r.json();
    assert_eq!(report["event"], "PreToolUse");
    assert_eq!(report["decision"], "block");
    assert_eq!(report["reason"], "use trash instead of: rm -rf build");
    assert_eq!(
        report["message"],
        "blocked by hook: use trash instead of: rm -rf build"
    );
    assert_eq!(report["arguments"], json!({"command": "rm -rf build"}));
    assert_eq!(report["hooks"][0]["dialect"], "claude");

    // Another command passes.
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&settings),
        "--event",
        "PreToolUse",
        "--payload",
        &payload.to_string(),
    ]);
    assert_eq!(r.json()["decision"], "allow", "{}", r.stderr);
}

#[test]
fn a_nanopi_name_fires_claude_hooks_of_the_same_point() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "echo 'branch: main'"}]}]})),
    );
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&settings),
        "--event",
        "input",
        "--payload",
        r#"{"prompt": "hi"}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    assert_eq!(report["event"], "input");
    assert_eq!(report["context"], json!(["branch: main"]));
}

#[test]
fn discovery_follows_the_flags_and_the_project() {
    let s = Sandbox::new();
    s.write(
        "other/.claude/settings.json",
        &claude(json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "echo c"}]}]})),
    );
    s.write(
        "other/.agents/hooks.json",
        r#"{"PreToolUse": [{"matcher": "*", "command": "echo a", "timeoutMs": 700}]}"#,
    );
    let other = s.dir.path().join("other");
    let r = s.run(&[
        "list",
        "--json",
        "--discover",
        "agents",
        "--discover",
        "claude",
        "--project",
        path(&other),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let list = r.json();
    let rows: Vec<(&str, &str, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["dialect"].as_str().unwrap(),
                h["command"].as_str().unwrap(),
                h["timeout_ms"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [("agents", "echo a", 700), ("claude", "echo c", 600_000)]
    );

    // --discover and --config do not mix.
    let r = s.run(&["list", "--discover", "claude", "--config", "x.json"]);
    assert_eq!(r.code, 2);
    // An unknown dialect is a usage error naming the valid ones.
    let r = s.run(&["list", "--discover", "vscode"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("nanopi, claude, cursor, openhuman, agents"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_prefix_forces_the_dialect_of_a_file() {
    let s = Sandbox::new();
    let file = s.write(
        "cfg/team.json",
        r#"{"PreToolUse": [{"matcher": "Bash", "command": "echo no >&2; exit 2"}]}"#,
    );
    let arg = format!("agents:{}", path(&file));
    let r = s.run(&["list", "--json", "--config", &arg]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()[0]["dialect"], "agents");
    // Without the prefix, the file is read as Claude Code settings, whose
    // hooks live under "hooks": its top-level keys are not ours.
    let r = s.run(&["list", "--json", "--config", path(&file)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json(), json!([]));
}

#[test]
fn copies_of_a_claude_handler_are_listed_and_skipped_with_their_original() {
    let s = Sandbox::new();
    let hooks = claude(json!({"PreToolUse": [{"hooks": [
        {"type": "command", "command": "echo once >> log"}]}]}));
    let user = s.write("home/.claude/settings.json", &hooks);
    s.write("proj/.claude/settings.json", &hooks);
    let r = s.run(&[
        "test",
        "--json",
        "--discover",
        "claude",
        "--event",
        "PreToolUse",
        "--payload",
        r#"{"tool_name": "Bash"}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hooks = &r.json()["hooks"];
    assert_eq!(hooks[0]["outcome"], "allow");
    assert_eq!(hooks[1]["outcome"], "skipped");
    assert_eq!(
        hooks[1]["reason"],
        format!("duplicate of {}:0", user.display())
    );
    assert_eq!(
        std::fs::read_to_string(s.proj.join("log")).unwrap(),
        "once\n"
    );
    // `list` shows the copy, turned off.
    let r = s.run(&["list", "--json", "--discover", "claude"]);
    assert_eq!(
        r.json()[1]["disabled"],
        format!("duplicate of {}:0", user.display())
    );
}

#[test]
fn load_errors_and_warnings_name_the_file() {
    let s = Sandbox::new();
    let broken = s.write(
        "proj/.claude/settings.json",
        "{\"hooks\": {\n  \"PreToolUse\": [\n",
    );
    let r = s.run(&["check", "--config", path(&broken)]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains(path(&broken)), "{}", r.stderr);
    assert!(r.stderr.contains("line 3"), "{}", r.stderr);

    let unfired = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"TaskCreated": [{"hooks": [{"type": "command", "command": "true"}]}]})),
    );
    let r = s.run(&["check", "--config", path(&unfired)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.lines().any(|l| l.starts_with("hooks: warning: ")
            && l.contains(path(&unfired))
            && l.contains("TaskCreated")),
        "{}",
        r.stderr
    );
}

#[test]
fn event_names_are_exact_and_the_error_lists_every_dialect() {
    let s = Sandbox::new();
    let r = s.run(&["test", "--event", "pretooluse"]);
    assert_eq!(r.code, 2);
    for name in ["tool_execution_start", "PreToolUse", "Stop"] {
        assert!(r.stderr.contains(name), "{name}: {}", r.stderr);
    }
    // A Claude payload of the wrong shape is a usage error.
    let r = s.run(&[
        "test",
        "--event",
        "PreToolUse",
        "--payload",
        r#"{"tool_input": 1}"#,
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("\"tool_input\" must be a JSON object"),
        "{}",
        r.stderr
    );
}

#[test]
fn model_hooks_run_with_an_evaluator_command_and_are_skipped_without() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"}]}]})),
    );
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}).to_string();
    let model = r#"grep -q 'rm -rf' && echo '{"ok": false, "reason": "deletes everything"}' || echo '{"ok": true}'"#;
    let args = |evaluator: Option<&str>| {
        let mut v = vec![
            "test".to_owned(),
            "--json".into(),
            "--config".into(),
            path(&settings).into(),
            "--event".into(),
            "PreToolUse".into(),
            "--payload".into(),
            payload.clone(),
        ];
        if let Some(cmd) = evaluator {
            v.push("--evaluator-command".into());
            v.push(cmd.into());
        }
        v
    };
    let with: Vec<String> = args(Some(model));
    let r = s.run(&with.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["decision"], "block");
    assert_eq!(r.json()["reason"], "deletes everything");
    assert!(!r.stderr.contains("answered by a model"), "{}", r.stderr);

    let without: Vec<String> = args(None);
    let r = s.run(&without.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.json()["decision"], "allow");
    assert_eq!(r.json()["hooks"][0]["outcome"], "skipped");
    assert!(r.stderr.contains("answered by a model"), "{}", r.stderr);
}

/// A malformed Claude Code entry is dropped with a `hooks: error:` line
/// naming the file and the entry; the rest of the file loads; `check` exits
/// 1, `list` and `test` go on.
#[test]
fn a_malformed_claude_entry_is_dropped_and_check_fails() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"PreToolUse": [
            {"matcher": "(Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]},
            {"matcher": "Read", "hooks": [{"type": "command"}, {"type": "command", "command": "true"}]},
            {"matcher": "Edit"}
        ]})),
    );
    let r = s.run(&["check", "--config", path(&settings)]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("hooks: error: "))
        .collect();
    assert_eq!(errors.len(), 3, "{}", r.stderr);
    for (line, place) in errors.iter().zip([
        "PreToolUse matcher group 0 (hooks.PreToolUse[0])",
        "PreToolUse handler 1 (hooks.PreToolUse[1].hooks[0])",
        "matcher group hooks.PreToolUse[2]",
    ]) {
        assert!(line.contains(path(&settings)), "{line}");
        assert!(line.contains(place), "{place}: {line}");
        assert!(
            line.ends_with("(dropped; the rest of the file loads)"),
            "{line}"
        );
    }
    assert!(
        r.stdout
            .starts_with("error: 1 hook from 1 file, 3 entries dropped"),
        "{}",
        r.stdout
    );

    let r = s.run(&["list", "--json", "--config", path(&settings)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json().as_array().unwrap().len(), 1);
    assert_eq!(r.stderr.matches("hooks: error: ").count(), 3);
}

/// Claude Code reads the JSON answer on any exit status: a guard that
/// prints a deny and exits 1 denies, and its row says the status was
/// ignored; exit 2 takes its reason from the JSON's own deny.
#[test]
fn a_claude_json_answer_counts_on_every_exit_status() {
    let s = Sandbox::new();
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    for code in ["1", "2"] {
        let deny = format!(
            "cat >/dev/null; printf '%s' '{}'; echo 'stderr no' >&2; exit {code}",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "json no"}})
        );
        let settings = s.write(
            "proj/.claude/settings.json",
            &claude(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": deny}]}]})),
        );
        let r = s.run(&[
            "test",
            "--json",
            "--config",
            path(&settings),
            "--event",
            "PreToolUse",
            "--payload",
            &payload.to_string(),
        ]);
        let report = r.json();
        assert_eq!(report["decision"], "block", "exit {code}: {}", r.stderr);
        assert_eq!(report["reason"], "json no", "exit {code}");
        assert_eq!(report["hooks"][0]["exit"], code.parse::<i32>().unwrap());
        let warnings = report["hooks"][0]["warnings"].as_array().unwrap();
        if code == "1" {
            assert!(
                warnings[0].as_str().unwrap().contains("status 1"),
                "{warnings:?}"
            );
        } else {
            assert!(warnings.is_empty(), "{warnings:?}");
        }
    }
}

/// A Stop hook's `additionalContext` keeps the agent going: the decision
/// stays allow and `follow_up` is the text.
#[test]
fn a_claude_stop_hooks_additional_context_is_the_follow_up() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"Stop": [{"hooks": [{"type": "command", "command":
            r#"cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "tests fail"}}'"#}]}]})),
    );
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&settings),
        "--event",
        "Stop",
        "--payload",
        "{}",
    ]);
    let report = r.json();
    assert_eq!(report["decision"], "allow", "{}", r.stderr);
    assert_eq!(report["follow_up"], "tests fail");
    assert_eq!(report["hooks"][0]["outcome"], "allow");
}

/// The report's `env`: what a Claude Code SessionStart hook wrote to
/// `CLAUDE_ENV_FILE`, and what a Cursor sessionStart hook answered in `env`;
/// a line that is no assignment shows in the hook's `warnings`.
#[test]
fn the_report_env_holds_what_session_start_hooks_set() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"SessionStart": [{"hooks": [{"type": "command", "command":
            "cat >/dev/null; echo 'export NODE_ENV=production' >> \"$CLAUDE_ENV_FILE\"; echo 'nvm use 20' >> \"$CLAUDE_ENV_FILE\""}]}]})),
    );
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&settings),
        "--event",
        "SessionStart",
        "--payload",
        r#"{"source":"startup"}"#,
    ]);
    let report = r.json();
    assert_eq!(
        report["env"],
        json!({"NODE_ENV": "production"}),
        "{}",
        r.stderr
    );
    let warnings = report["hooks"][0]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("nvm use 20"));

    let hooks = s.write(
        "proj/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"sessionStart": [{"command":
            "cat >/dev/null; echo '{\"env\": {\"REGION\": \"eu\"}}'"}]}})
        .to_string(),
    );
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&hooks),
        "--event",
        "sessionStart",
        "--payload",
        "{}",
    ]);
    assert_eq!(r.json()["env"], json!({"REGION": "eu"}), "{}", r.stderr);
}

/// `hooks test --event tool_execution_start --tool bash` runs a Claude Code
/// `"matcher": "Bash"` guard: each dialect sees its own name for the tool's
/// kind, and `hooks[].tool_name` reports it.
#[test]
fn a_claude_bash_guard_runs_for_a_hosts_bash_tool() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat >/dev/null; echo 'no rm' >&2; exit 2"}]}]})),
    );
    let nanopi = s.write(
        "proj/.nanopi/config.toml",
        "[[hooks.tool_execution_start]]\nmatcher = \"^bash$\"\ncommand = \"true\"\n",
    );
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&nanopi),
        "--config",
        path(&settings),
        "--event",
        "tool_execution_start",
        "--tool",
        "bash",
        "--payload",
        r#"{"command":"rm -rf x"}"#,
    ]);
    let report = r.json();
    assert_eq!(report["decision"], "block", "{}", r.stderr);
    assert_eq!(report["reason"], "no rm");
    let names: Vec<&Value> = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| &h["tool_name"])
        .collect();
    assert_eq!(names, [&json!("bash"), &json!("Bash")]);
}

/// `hooks test --event TaskCreated`: every Claude Code event is fired by
/// name with its payload as the stdin fields, and exit 2 blocks where Claude
/// Code's table says it does; the load warning says how such hooks run.
#[test]
fn a_claude_event_with_no_neutral_point_is_fired_by_name() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &claude(json!({"TaskCreated": [{"hooks": [{"type": "command", "command":
            "subject=$(cat | sed -n 's/.*\"task_subject\": *\"\\([^\"]*\\)\".*/\\1/p'); echo \"no task: $subject\" >&2; exit 2"}]}]})),
    );
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&settings),
        "--event",
        "TaskCreated",
        "--payload",
        r#"{"task_id":"t1","task_subject":"ship it"}"#,
    ]);
    let report = r.json();
    assert_eq!(report["event"], "TaskCreated", "{}", r.stderr);
    assert_eq!(report["decision"], "block");
    assert_eq!(report["honored"], true);
    assert_eq!(report["reason"], "no task: ship it");
    assert!(
        r.stderr
            .contains("its hooks run only when the host fires the event by name"),
        "{}",
        r.stderr
    );
}

/// A Gemini CLI SessionStart hook is matched on the session's `source`: a
/// skipped one is not said to be tested against nanopi's session id.
#[test]
fn a_skip_names_no_subject_its_dialect_does_not_test() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {
            "SessionStart": [{"matcher": "resume", "hooks": [{"type": "command", "command": "true"}]}],
            "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "true"}]}]}})
        .to_string(),
    );
    let config = format!("gemini:{}", path(&settings));
    let r = s.run(&[
        "test",
        "--config",
        &config,
        "--event",
        "SessionStart",
        "--payload",
        r#"{"source":"startup"}"#,
    ]);
    assert!(
        r.stdout.contains("its matcher or rules did not select it"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("session id"), "{}", r.stdout);
    // At a tool event the subject is the tool, by the name the hook saw.
    let r = s.run(&[
        "test",
        "--config",
        &config,
        "--event",
        "BeforeTool",
        "--tool",
        "bash",
        "--payload",
        r#"{"tool_input":{"command":"ls"}}"#,
    ]);
    assert!(
        r.stdout
            .contains("did not select it for tool name \"run_shell_command\""),
        "{}",
        r.stdout
    );
}

/// At a session event of another dialect, the report's arguments are the
/// payload as given, not the neutral `reason` made of it (DIALECTS.md
/// "Round 4").
#[test]
fn a_session_events_arguments_are_the_payload_as_given() {
    let s = Sandbox::new();
    for (dialect, event) in [
        ("gemini", "SessionStart"),
        ("claude", "SessionStart"),
        ("gemini", "SessionEnd"),
    ] {
        let payload = json!({"source": "startup", "reason": "exit"});
        let r = s.run(&[
            "test",
            "--json",
            "--discover",
            dialect,
            "--event",
            event,
            "--payload",
            &payload.to_string(),
        ]);
        assert_eq!(
            r.json()["arguments"],
            payload,
            "{dialect} {event}: {}",
            r.stdout
        );
        let text = s.run(&[
            "test",
            "--discover",
            dialect,
            "--event",
            event,
            "--payload",
            &payload.to_string(),
        ]);
        assert!(
            text.stdout.contains(&format!("arguments  {payload}")),
            "{dialect} {event}: {}",
            text.stdout
        );
    }
}

/// Claude Code 2.1.332's `PreSkillShellCommand`, fired by name: its matcher
/// is the tool name, and exit 2 keeps the skill's command from running.
#[test]
fn pre_skill_shell_command_hooks_run_by_name_and_refuse() {
    let s = Sandbox::new();
    s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreSkillShellCommand": [
            {"matcher": "Bash", "hooks": [{"type": "command",
                "command": "grep -q 'curl' && { echo 'no network in skills' >&2; exit 2; }; exit 0"}]}]}})
        .to_string(),
    );
    let fire = |command: &str| {
        let payload = json!({"tool_name": "Bash", "tool_input": {"command": command},
            "command_name": "deploy", "invoked_by": "user"});
        s.run(&[
            "test",
            "--json",
            "--discover",
            "claude",
            "--event",
            "PreSkillShellCommand",
            "--payload",
            &payload.to_string(),
        ])
        .json()
    };
    let refused = fire("curl https://example.com");
    assert_eq!(refused["decision"], "block", "{refused}");
    assert_eq!(refused["reason"], "no network in skills");
    assert_eq!(fire("ls")["decision"], "allow");
}
