//! `hooks replay` (docs/replay.md): Claude Code transcripts and RecordLayer
//! records fired again through a configuration, `--against`, `--chain`,
//! `--fail-on`, and input that is cut short, unknown, huge or plentiful.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{path, Sandbox};
use tower::ServiceExt;
use tower_hooks::{HookRequest, HookStack, ShutdownReason, StartReason};
use tower_hooks_layers::record::RecordLayer;

/// One transcript line of `kind`, with the fields every line has.
fn line(kind: &str, n: u32, sidechain: bool, message: Value) -> String {
    json!({
        "type": kind,
        "uuid": format!("u{n}"),
        "parentUuid": if n == 0 { Value::Null } else { format!("u{}", n - 1).into() },
        "sessionId": "s-1",
        "timestamp": format!("2026-11-29T10:00:{n:02}.000Z"),
        "cwd": "/home/u/app",
        "version": "2.1.0",
        "gitBranch": "main",
        "userType": "external",
        "isSidechain": sidechain,
        "message": message,
    })
    .to_string()
}

fn prompt(n: u32, sidechain: bool, text: &str) -> String {
    line(
        "user",
        n,
        sidechain,
        json!({"role": "user", "content": text}),
    )
}

fn call(n: u32, sidechain: bool, id: &str, tool: &str, input: Value) -> String {
    line(
        "assistant",
        n,
        sidechain,
        json!({"role": "assistant", "model": "claude", "content": [
            {"type": "tool_use", "id": id, "name": tool, "input": input}],
            "stop_reason": "tool_use"}),
    )
}

fn result(n: u32, sidechain: bool, id: &str, text: &str, is_error: bool) -> String {
    line(
        "user",
        n,
        sidechain,
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
            "content": [{"type": "text", "text": text}], "is_error": is_error}]}),
    )
}

fn end_turn(n: u32, text: &str) -> String {
    line(
        "assistant",
        n,
        false,
        json!({"role": "assistant", "content": [{"type": "text", "text": text}],
               "stop_reason": "end_turn"}),
    )
}

/// A session: two prompts, a `tool_use` / `tool_result` pair, a refused
/// `rm -rf`, a command that failed, and a subagent that reads a file.
fn transcript() -> String {
    [
        json!({"type": "summary", "summary": "Fix the build", "leafUuid": "u9"}).to_string(),
        prompt(0, false, "fix the build"),
        call(1, false, "t1", "Bash", json!({"command": "ls"})),
        result(2, false, "t1", "Makefile src", false),
        call(3, false, "t2", "Bash", json!({"command": "rm -rf build"})),
        result(4, false, "t2", "refused", true),
        call(5, false, "t3", "Bash", json!({"command": "make"})),
        result(6, false, "t3", "make: *** [all] Error 2", true),
        prompt(7, true, "read the Makefile and report"),
        call(
            8,
            true,
            "t4",
            "Read",
            json!({"file_path": "/home/u/app/Makefile"}),
        ),
        result(9, true, "t4", "all: ...", false),
        end_turn(10, "the subagent is done"),
        prompt(11, false, "thanks"),
        end_turn(12, "done"),
    ]
    .join("\n")
        + "\n"
}

fn settings(hooks: Value) -> String {
    json!({ "hooks": hooks }).to_string()
}

/// A Claude Code guard that refuses `rm -rf` and says where it ran.
fn guard() -> Value {
    json!({"matcher": "Bash", "hooks": [{"type": "command", "command":
        "grep -q 'rm -rf' || exit 0; echo \"no rm -rf (HOOKS_REPLAY=$HOOKS_REPLAY, in $(pwd))\" >&2; exit 2"}]})
}

/// The hooks of `config` in `report["hooks"]`, by event.
fn hook<'a>(report: &'a Value, event: &str) -> Option<&'a Value> {
    report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["event"] == event)
}

#[test]
fn a_claude_transcript_fires_its_deciding_events_in_a_scratch_directory() {
    let s = Sandbox::new();
    let session = s.write("sessions/s-1.jsonl", &transcript());
    // An observer that would write into the directory it runs in: it must
    // not run unless asked for.
    let config = s.write(
        "proj/settings.json",
        &settings(json!({
            "PreToolUse": [guard(), {"matcher": "Read", "hooks": [
                {"type": "command", "command": "exit 0"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "exit 0"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}],
            "PostToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "touch \"$CLAUDE_PROJECT_DIR/observer-ran\""}]}],
        })),
    );
    let r = s.run(&[
        "replay",
        "--json",
        "--config",
        &format!("claude:{}", path(&config)),
        path(&session),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    // 2 typed prompts, 4 tool calls (the subagent's too), 2 stops: no
    // subagent prompt, no tool result.
    assert_eq!(report["events"]["replayed"], 8, "{report}");
    assert_eq!(report["sessions"]["replayed"], 1);
    assert_eq!(hook(&report, "UserPromptSubmit").unwrap()["runs"], 2);
    assert_eq!(hook(&report, "Stop").unwrap()["runs"], 2);
    assert!(hook(&report, "PostToolUse").is_none(), "{report}");
    assert!(!s.proj.join("observer-ran").exists());
    let read = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["hook"] == "settings.json:1")
        .unwrap();
    assert_eq!(read["runs"], 1, "the subagent's Read: {report}");

    let flagged = report["flagged"].as_array().unwrap();
    assert_eq!(flagged.len(), 1, "{report}");
    let block = &flagged[0];
    assert_eq!(block["event"], "PreToolUse");
    assert_eq!(block["decision"], "block");
    assert_eq!(block["session"], "s-1");
    assert_eq!(block["time"], "2026-11-29T10:00:03.000Z");
    assert_eq!(block["subject"], "Bash: rm -rf build");
    let reason = block["reason"].as_str().unwrap();
    assert!(reason.contains("HOOKS_REPLAY=1"), "{reason}");
    // The scratch directory: not the project, not the recorded cwd, and gone.
    let ran_in = reason.split("in ").last().unwrap().trim_end_matches(')');
    assert!(ran_in.contains("hooks-replay-"), "{reason}");
    assert!(
        !std::path::Path::new(ran_in).exists(),
        "{ran_in} was left behind"
    );
    let pre = hook(&report, "PreToolUse").unwrap();
    assert_eq!(
        (pre["runs"].as_u64(), pre["block"].as_u64()),
        (Some(3), Some(1))
    );
    for key in ["p50_ms", "p95_ms", "max_ms"] {
        assert!(pre[key].as_f64().unwrap() > 0.0, "{key}: {pre}");
    }
    assert!(report["added_ms"].as_f64().unwrap() > 0.0);

    // --events widens: the tool results fire too, a failure as PostToolUseFailure.
    let failure = s.write(
        "proj/failure.json",
        &settings(json!({
            "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "exit 0"}]}],
            "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": "grep -q 'Error 2' && { echo 'the build failed' >&2; exit 2; }; exit 0"}]}],
        })),
    );
    let r = s.run(&[
        "replay",
        "--json",
        "--events",
        "PostToolUse",
        "--config",
        &format!("claude:{}", path(&failure)),
        path(&session),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    assert_eq!(hook(&report, "PostToolUse").unwrap()["runs"], 2, "{report}");
    assert_eq!(hook(&report, "PostToolUseFailure").unwrap()["runs"], 2);
    let flagged = report["flagged"].as_array().unwrap();
    assert_eq!(flagged.len(), 1, "{report}");
    assert_eq!(flagged[0]["event"], "PostToolUseFailure");
    assert_eq!(flagged[0]["subject"], "Bash: make");
    assert_eq!(flagged[0]["reason"], "the build failed");
}

#[test]
fn the_report_for_people_has_the_table_and_the_blocked_call() {
    let s = Sandbox::new();
    let session = s.write("sessions/s-1.jsonl", &transcript());
    let config = s.write(
        "proj/settings.json",
        &settings(json!({"PreToolUse": [guard()]})),
    );
    let r = s.run(&[
        "replay",
        "--config",
        &format!("claude:{}", path(&config)),
        path(&session),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("replayed 8 events from 1 session file; the hooks would have added "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("HOOK             EVENT       RUNS  BLOCK  ASK  REWRITE  ERRORS  P50"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("1 event blocked, asked about or rewritten:"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("  s-1  2026-11-29T10:00:03.000Z  PreToolUse  Bash: rm -rf build: block (no rm -rf (HOOKS_REPLAY=1"),
        "{}",
        r.stdout
    );
    // --fail-on block: the same report, and exit 3.
    let r = s.run(&[
        "replay",
        "--fail-on",
        "block",
        "--config",
        &format!("claude:{}", path(&config)),
        path(&session),
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
}

#[test]
fn against_reports_only_the_decisions_that_differ() {
    let s = Sandbox::new();
    let session = s.write(
        "sessions/s-2.jsonl",
        &[
            call(0, false, "a", "Bash", json!({"command": "rm -rf build"})),
            call(
                1,
                false,
                "b",
                "Bash",
                json!({"command": "git push --force"}),
            ),
            call(2, false, "c", "Bash", json!({"command": "ls"})),
            call(3, false, "d", "Bash", json!({"command": "make"})),
        ]
        .join("\n"),
    );
    let old = s.write("proj/old.json", &settings(json!({"PreToolUse": [guard()]})));
    let rewrite = r#"grep -q '"command":"ls"' || exit 0; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}'"#;
    let new = s.write(
        "proj/new.json",
        &settings(
            json!({"PreToolUse": [guard(), {"matcher": "Bash", "hooks": [
                {"type": "command", "command":
                    "grep -q 'push --force' && { echo 'no force-push' >&2; exit 2; }; exit 0"},
                {"type": "command", "command": rewrite},
            ]}]}),
        ),
    );
    let args = |extra: &[&str]| {
        let mut args = vec![
            "replay".to_owned(),
            "--config".to_owned(),
            format!("claude:{}", path(&new)),
            "--against".to_owned(),
            format!("claude:{}", path(&old)),
        ];
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        args.push(path(&session).to_owned());
        args
    };
    let run = |extra: &[&str]| {
        let args = args(extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        s.run(&refs)
    };
    let r = run(&["--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    let differences = report["differences"].as_array().unwrap();
    let found: Vec<(&str, &str, &str)> = differences
        .iter()
        .map(|d| {
            (
                d["subject"].as_str().unwrap(),
                d["against"].as_str().unwrap(),
                d["decision"].as_str().unwrap(),
            )
        })
        .collect();
    // rm -rf is blocked by both, make by neither: not listed.
    assert_eq!(
        found,
        [
            ("Bash: git push --force", "allow", "block"),
            ("Bash: ls", "allow", "transform")
        ],
        "{report}"
    );
    assert_eq!(differences[0]["reason"], "no force-push");
    let configs: Vec<&str> = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["config"].as_str().unwrap())
        .collect();
    assert!(
        configs.contains(&"config") && configs.contains(&"against"),
        "{report}"
    );

    let r = run(&["--fail-on", "change"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stdout.contains("2 decisions differ"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("Bash: git push --force: allow → block (no force-push)"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("rm -rf"), "{}", r.stdout);
    // The other way round, the reason stays with the decision it explains.
    let swapped = s.run(&[
        "replay",
        "--config",
        &format!("claude:{}", path(&old)),
        "--against",
        &format!("claude:{}", path(&new)),
        "--fail-on",
        "change",
        path(&session),
    ]);
    assert!(
        swapped
            .stdout
            .contains("Bash: git push --force: block (no force-push) → allow"),
        "{}",
        swapped.stdout
    );
    assert!(
        !swapped.stdout.contains("→ allow (no force-push)"),
        "{}",
        swapped.stdout
    );

    // The same configuration against itself: nothing differs, exit 0.
    let r = s.run(&[
        "replay",
        "--fail-on",
        "change",
        "--config",
        &format!("claude:{}", path(&old)),
        "--against",
        &format!("claude:{}", path(&old)),
        path(&session),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("no decision differs"), "{}", r.stdout);
}

#[test]
fn chain_feeds_a_rewrite_and_a_block_forward_and_without_it_history_stands() {
    let s = Sandbox::new();
    let session = s.write(
        "sessions/s-3.jsonl",
        &[
            call(0, false, "a", "Bash", json!({"command": "ls"})),
            result(1, false, "a", "Makefile", false),
            call(2, false, "b", "Bash", json!({"command": "rm -rf build"})),
            result(3, false, "b", "", false),
        ]
        .join("\n"),
    );
    let rewrite = r#"grep -q '"command":"ls"' || exit 0; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}'"#;
    let config = s.write(
        "proj/settings.json",
        &settings(json!({
            "PreToolUse": [guard(), {"matcher": "Bash", "hooks": [{"type": "command", "command": rewrite}]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
                "grep -q 'ls -la' && { echo 'saw the rewritten input' >&2; exit 2; }; exit 0"}]}],
        })),
    );
    let run = |chain: bool| {
        let mut args = vec!["replay", "--json", "--events", "PostToolUse"];
        if chain {
            args.push("--chain");
        }
        let config = format!("claude:{}", path(&config));
        args.extend(["--config", &config, path(&session)]);
        let r = s.run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.json()
    };
    let recorded = run(false);
    assert_eq!(recorded["events"]["replayed"], 4, "{recorded}");
    assert_eq!(recorded["events"]["not_reached"], 0);
    let post = |report: &Value| -> Vec<String> {
        report["flagged"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["event"] == "PostToolUse")
            .map(|f| f["subject"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(post(&recorded).is_empty(), "{recorded}");
    let rewrite = &recorded["flagged"][0];
    assert_eq!(rewrite["decision"], "transform");
    assert_eq!(rewrite["arguments"], json!({"command": "ls -la"}));

    let chained = run(true);
    assert_eq!(chained["events"]["replayed"], 3, "{chained}");
    assert_eq!(
        chained["events"]["not_reached"], 1,
        "the blocked call's result"
    );
    assert_eq!(post(&chained), ["Bash: ls -la"], "{chained}");
}

/// Drives a library stack wrapped in a `RecordLayer` through a short session,
/// as an agent would, and returns the record's path.
fn record_a_session(s: &Sandbox) -> std::path::PathBuf {
    let file = s.dir.path().join("recorded/session.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (record, handle) = RecordLayer::open(&file).unwrap();
        let record = record.redact_tool_output(|_, output| output["content"] = json!("[redacted]"));
        let stack = HookStack::builder().around_call(record).build();
        let events = [
            HookRequest::session_start(StartReason::Startup),
            HookRequest::input("tidy the repo"),
            HookRequest::tool_execution_start("bash", json!({"command": "rm -rf build"}))
                .with_tool_call_id("call_1"),
            HookRequest::tool_execution_end(
                "bash",
                json!({"command": "rm -rf build"}),
                "TOKEN=s3cret",
                false,
                Duration::from_millis(12),
            )
            .with_tool_call_id("call_1"),
            HookRequest::tool_execution_start("bash", json!({"command": "ls"}))
                .with_tool_call_id("call_2"),
            HookRequest::session_shutdown(ShutdownReason::Quit),
        ];
        for event in events {
            let event = event.with_session_id("demo-1").with_cwd("/home/u/app");
            stack.clone().oneshot(event).await.unwrap();
        }
        handle.flush().unwrap();
    });
    file
}

#[test]
fn a_record_layer_recording_replays_through_a_nanopi_config() {
    let s = Sandbox::new();
    let file = record_a_session(&s);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 6);
    assert!(!text.contains("s3cret"), "the redaction hook ran");
    // A newer writer's line of another kind, and a line cut short by a crash.
    std::fs::write(
        &file,
        format!("{text}{{\"type\":\"hook_response\",\"v\":2}}\n{{\"type\":\"hook_req"),
    )
    .unwrap();
    let config = s.write(
        "proj/hooks.toml",
        r#"
[[hooks.tool_execution_start]]
matcher = "^bash$"
command = 'grep -q "rm -rf" && { echo "no rm -rf" >&2; exit 2; }; exit 0'

[[hooks.session_start]]
command = 'touch "$HOME/session-start-ran"'
"#,
    );
    let r = s.run(&["replay", "--json", "--config", path(&config), path(&file)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    // input and the two tool calls; session events are not deciding ones.
    assert_eq!(report["events"]["replayed"], 3, "{report}");
    assert!(!s.home.join("session-start-ran").exists());
    assert_eq!(
        report["skipped_lines"],
        json!({"not_json": 1, "unknown_type": 1})
    );
    assert!(r.stderr.contains("2 lines skipped"), "{}", r.stderr);
    let flagged = report["flagged"].as_array().unwrap();
    assert_eq!(flagged.len(), 1, "{report}");
    assert_eq!(flagged[0]["session"], "demo-1");
    assert_eq!(flagged[0]["event"], "tool_execution_start");
    assert_eq!(flagged[0]["subject"], "bash: rm -rf build");
    assert_eq!(flagged[0]["reason"], "no rm -rf");
    assert!(flagged[0]["time"].as_str().unwrap().ends_with('Z'));
}

// The example's `main` is its own; the test records with its `session`.
#[allow(dead_code)]
#[path = "../../examples/record.rs"]
mod record_example;

#[test]
fn the_example_agents_recorded_session_replays_through_its_hooks() {
    let s = Sandbox::new();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let file = s.dir.path().join("agent-session.jsonl");
    let written = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(record_example::session(&examples, &file))
        .unwrap();
    assert_eq!(written, 14);
    assert!(!std::fs::read_to_string(&file).unwrap().contains("ghp_"));

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["replay", "--json", "--config"])
        .arg(examples.join("agent.toml"))
        .arg(&file)
        .env("TOWER_HOOKS_EXAMPLES", examples.join("hooks"))
        .current_dir(&s.proj)
        .env("HOME", &s.home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    // before_agent_start, input and the two tool calls decide; the rest of
    // the 14 (session, turn, compaction events, the tool result) are not replayed.
    assert_eq!(report["events"]["replayed"], 4, "{report}");
    let flagged: Vec<(&str, &str)> = report["flagged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["event"].as_str().unwrap(),
                f["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        flagged,
        [
            ("before_agent_start", "transform"),
            ("tool_execution_start", "block")
        ],
        "{report}"
    );
    assert_eq!(report["flagged"][1]["subject"], "bash: rm -rf build/");
}

#[test]
fn a_fifty_megabyte_line_is_skipped_and_counted_and_the_session_goes_on() {
    let s = Sandbox::new();
    let huge = result(2, false, "t1", &"x".repeat(50 << 20), false);
    let session = s.write(
        "sessions/big.jsonl",
        &[
            call(1, false, "t1", "Bash", json!({"command": "cat big.log"})),
            huge,
            call(3, false, "t2", "Bash", json!({"command": "rm -rf build"})),
        ]
        .join("\n"),
    );
    let config = s.write(
        "proj/settings.json",
        &settings(json!({"PreToolUse": [guard()]})),
    );
    let r = s.run(&[
        "replay",
        "--json",
        "--config",
        &format!("claude:{}", path(&config)),
        path(&session),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    assert_eq!(report["skipped_lines"], json!({"too_long": 1}), "{report}");
    assert_eq!(report["events"]["replayed"], 2);
    assert_eq!(report["flagged"][0]["subject"], "Bash: rm -rf build");
}

#[test]
fn files_that_are_not_sessions_and_paths_that_are_not_there_say_so() {
    let s = Sandbox::new();
    let config = s.write(
        "proj/settings.json",
        &settings(json!({"PreToolUse": [guard()]})),
    );
    let config = format!("claude:{}", path(&config));
    let good = s.write(
        "sessions/good.jsonl",
        &call(0, false, "t1", "Bash", json!({"command": "ls"})),
    );
    let other = s.write("sessions/other.jsonl", "{\"name\": \"not a session\"}\n");
    let r = s.run(&[
        "replay",
        "--json",
        "--config",
        &config,
        path(&good),
        path(&other),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["sessions"], json!({"replayed": 1, "skipped": 1}));
    assert!(
        r.stderr
            .contains("other.jsonl: neither a Claude Code transcript nor a session record"),
        "{}",
        r.stderr
    );

    let r = s.run(&["replay", "--config", &config, "no/such.jsonl"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("cannot read the session no/such.jsonl"),
        "{}",
        r.stderr
    );

    std::fs::create_dir_all(s.dir.path().join("empty")).unwrap();
    let empty = s.dir.path().join("empty");
    let r = s.run(&["replay", "--config", &config, path(&empty)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("holds no session file"), "{}", r.stderr);

    let r = s.run(&[
        "replay",
        "--events",
        "NoSuchEvent",
        "--config",
        &config,
        path(&good),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn a_directory_of_a_thousand_sessions_replays_every_one() {
    let s = Sandbox::new();
    let dir = s.dir.path().join("projects");
    for i in 0..1000 {
        // Two project folders, as under ~/.claude/projects.
        let project = dir.join(if i % 2 == 0 { "-home-u-a" } else { "-home-u-b" });
        std::fs::create_dir_all(&project).unwrap();
        let command = if i % 10 == 0 { "rm -rf build" } else { "ls" };
        let mut text = call(0, false, "t1", "Bash", json!({"command": command}));
        text = text.replace("\"s-1\"", &format!("\"s-{i:04}\""));
        std::fs::write(project.join(format!("s-{i:04}.jsonl")), text).unwrap();
    }
    std::fs::write(dir.join("README.txt"), "not a session").unwrap();
    let config = s.write(
        "proj/settings.json",
        &settings(json!({"PreToolUse": [guard()]})),
    );
    let r = s.run(&[
        "replay",
        "--json",
        "--jobs",
        "4",
        "--config",
        &format!("claude:{}", path(&config)),
        path(&dir),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    assert_eq!(report["sessions"], json!({"replayed": 1000, "skipped": 0}));
    assert_eq!(report["events"]["replayed"], 1000);
    let flagged = report["flagged"].as_array().unwrap();
    assert_eq!(flagged.len(), 100);
    // In session order whatever the jobs finished first.
    let sessions: Vec<&str> = flagged
        .iter()
        .map(|f| f["session"].as_str().unwrap())
        .collect();
    let mut sorted = sessions.clone();
    sorted.sort_unstable();
    assert_eq!(sessions, sorted);
    assert_eq!(sessions[1], "s-0010");
}

#[test]
fn jobs_replays_sessions_side_by_side() {
    let s = Sandbox::new();
    let dir = s.dir.path().join("two");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["a", "b"] {
        std::fs::write(
            dir.join(format!("{name}.jsonl")),
            call(0, false, "t1", "Bash", json!({"command": "ls"}))
                .replace("\"s-1\"", &format!("\"{name}\"")),
        )
        .unwrap();
    }
    // Each call leaves a mark in the shared working directory and waits (up
    // to 2 s) for a second one: it allows when another session's call ran
    // beside it, and blocks when it ran alone.
    let config = s.write(
        "proj/settings.json",
        &settings(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
            "touch \"mark-$$\"; for i in $(seq 20); do [ \"$(ls | wc -l)\" -ge 2 ] && exit 0; sleep 0.1; done; echo alone >&2; exit 2"}]}]})),
    );
    let config = format!("claude:{}", path(&config));
    let blocked = |jobs: &str| {
        let r = s.run(&[
            "replay",
            "--json",
            "--jobs",
            jobs,
            "--config",
            &config,
            path(&dir),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let report = r.json();
        assert_eq!(report["events"]["replayed"], 2, "{report}");
        report["flagged"].as_array().unwrap().len()
    };
    assert_eq!(blocked("1"), 1, "one at a time, the first call is alone");
    assert_eq!(blocked("2"), 0, "side by side, each sees the other");
}
