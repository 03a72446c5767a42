//! The spec's wire protocol and chaining rules through the whole stack, with real
//! bash hooks (the layers' own tests use in-process hooks).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::report::Notice;
use tower_hooks::{
    Decision, Event, HookOutcome, HookRequest, HookSpec, HookStack, RecordOutcome, Verdict,
};

async fn run(specs: Vec<HookSpec>, req: HookRequest) -> (HookOutcome, Vec<String>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stack = HookStack::builder()
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")))
        .command_hooks(specs)
        .build();
    let outcome = stack.oneshot(req).await.unwrap();
    let lines = lines.lock().unwrap().clone();
    (outcome, lines)
}

fn cmd(event: Event, command: &str) -> HookSpec {
    HookSpec::command(event, command)
}

fn bash_start(args: Value) -> HookRequest {
    HookRequest::tool_execution_start("bash", args)
}

#[tokio::test]
async fn hook_reads_one_json_line_with_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stdin");
    let req = bash_start(json!({"command": "rm -rf /"}))
        .with_tool_call_id("call_abc")
        .with_session_id("019")
        .with_cwd("/home/u/proj");
    run(
        vec![cmd(
            Event::ToolExecutionStart,
            &format!("cat > {}", out.display()),
        )],
        req,
    )
    .await;
    let raw = std::fs::read_to_string(out).unwrap();
    assert!(
        raw.ends_with('\n') && raw.matches('\n').count() == 1,
        "{raw:?}"
    );
    let line: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        line,
        json!({"event": "tool_execution_start", "tool_name": "bash", "tool_call_id": "call_abc",
               "arguments": {"command": "rm -rf /"}, "cwd": "/home/u/proj", "session_id": "019"})
    );
}

#[tokio::test]
async fn hook_inherits_the_environment_plus_the_nanopi_variables() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env");
    let req = HookRequest::turn_end(1, 0, false)
        .with_session_id("s1")
        .with_cwd("/p");
    run(
        vec![cmd(Event::TurnEnd, &format!("env -0 > {}", out.display()))],
        req,
    )
    .await;
    let raw = std::fs::read(out).unwrap();
    let env: Vec<(String, String)> = raw
        .split(|&b| b == 0)
        .filter_map(|kv| {
            let kv = String::from_utf8_lossy(kv);
            kv.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        })
        .collect();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("NANOPI_EVENT"), Some("TurnEnd"));
    assert_eq!(get("NANOPI_CWD"), Some("/p"));
    assert_eq!(get("NANOPI_SESSION_ID"), Some("s1"));
    assert_eq!(get("NANOPI_TOOL_NAME"), Some(""));
    assert_eq!(get("NANOPI_TOOL_CALL_ID"), None);
    assert!(
        get("PATH").is_some(),
        "the parent's environment is inherited"
    );
}

#[tokio::test]
async fn exit_2_blocks_with_stderr_as_the_reason() {
    let (out, _) = run(
        vec![cmd(
            Event::ToolExecutionStart,
            "echo 'refusing: touches production' >&2; exit 2",
        )],
        bash_start(json!({})),
    )
    .await;
    assert!(out.is_blocked());
    assert_eq!(
        out.message().as_deref(),
        Some("blocked by hook: refusing: touches production")
    );
}

#[tokio::test]
async fn last_nonempty_stdout_line_is_the_answer() {
    let (out, _) = run(
        vec![cmd(
            Event::ToolExecutionStart,
            r#"echo log; echo '{"decision":"block","reason":"why"}'; echo; echo '  '"#,
        )],
        bash_start(json!({})),
    )
    .await;
    assert_eq!(out.reason(), Some("why"));
}

#[tokio::test]
async fn exit_1_and_garbage_allow() {
    for command in [
        "echo nope >&2; exit 1",
        "echo '{not json'",
        "printf '\\xff\\xfe'",
    ] {
        let (out, lines) = run(
            vec![cmd(Event::ToolExecutionStart, command)],
            bash_start(json!({"command": "x"})),
        )
        .await;
        assert_eq!(out.decision(), Decision::Allow, "{command}");
        assert_eq!(out.arguments(), &json!({"command": "x"}));
        assert!(lines.is_empty(), "{command}: {lines:?}");
    }
}

#[tokio::test]
async fn rewrites_chain_through_real_hooks() {
    let first = cmd(
        Event::ToolExecutionStart,
        r#"echo '{"updated_input":{"command":"a"}}'"#,
    );
    let second = cmd(
        Event::ToolExecutionStart,
        // Appends "b" to whatever command it received.
        r#"c=$(sed -E 's/.*"command":"([^"]*)".*/\1/'); printf '{"updated_input":{"command":"%sb"}}\n' "$c""#,
    );
    let (out, _) = run(vec![first, second], bash_start(json!({"command": "x"}))).await;
    assert_eq!(out.decision(), Decision::Transform);
    assert_eq!(out.arguments(), &json!({"command": "ab"}));
}

#[tokio::test]
async fn first_block_stops_the_chain_and_later_hooks_never_spawn() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let (out, _) = run(
        vec![
            cmd(Event::Input, "exit 2"),
            cmd(Event::Input, &format!("touch {}", marker.display())),
        ],
        HookRequest::input("hi"),
    )
    .await;
    assert_eq!(
        out.message().as_deref(),
        Some("your `input` hook refused this prompt (policy, not a failure) \u{2014} blocked by hook")
    );
    let outcomes: Vec<_> = out.hooks().iter().map(|r| r.outcome()).collect();
    assert_eq!(outcomes, [RecordOutcome::Block, RecordOutcome::NotRun]);
    assert!(!marker.exists());
}

#[tokio::test]
async fn tool_end_rewrite_is_read_from_the_top_level() {
    let req = HookRequest::tool_execution_end(
        "bash",
        json!({"command": "cat .env"}),
        "secret",
        false,
        Duration::from_millis(7),
    );
    let (out, _) = run(
        vec![cmd(
            Event::ToolExecutionEnd,
            r#"echo '{"updated_input":{"content":"[redacted]","is_error":true}}'"#,
        )],
        req,
    )
    .await;
    assert_eq!(
        out.arguments(),
        &json!({"tool_input": {"command": "cat .env"},
                "tool_response": {"content": "[redacted]", "is_error": true, "duration_ms": 7}})
    );
}

#[tokio::test]
async fn advisory_block_from_a_real_hook_is_reported_and_dropped() {
    let (out, lines) = run(
        vec![cmd(Event::SessionCompact, "echo stop >&2; exit 2")],
        HookRequest::session_compact(tower_hooks::CompactionReason::Manual),
    )
    .await;
    assert_eq!(out.decision(), Decision::Block);
    assert!(!out.is_blocked());
    assert_eq!(
        lines,
        ["nanopi: SessionCompact hook asked to block; ignored (advisory event) [reason=stop]"]
    );
}

#[tokio::test]
async fn timeout_blocks_and_names_the_duration() {
    let started = std::time::Instant::now();
    let (out, _) = run(
        vec![cmd(Event::ToolExecutionStart, "sleep 30").with_timeout(Duration::from_millis(200))],
        bash_start(json!({})),
    )
    .await;
    assert!(out.is_blocked());
    assert_eq!(out.reason(), Some("hook timed out after 200 ms"));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn in_process_and_command_hooks_share_one_chain() {
    let stack = HookStack::builder()
        .fn_hook(HookSpec::in_process(Event::Input, "prefix"), |req| {
            let p = req.arguments()["prompt"].as_str().unwrap_or("").to_owned();
            Verdict::Transform(
                json!({ "prompt": format!("[ctx] {p}") })
                    .as_object()
                    .cloned()
                    .unwrap(),
            )
        })
        .command_hook(cmd(
            Event::Input,
            r#"grep -q '\[ctx\]' && echo '{"updated_input":{"prompt":"seen"}}'"#,
        ))
        .build();
    let out = stack.oneshot(HookRequest::input("hi")).await.unwrap();
    assert_eq!(out.prompt(), Some("seen"));
}

#[tokio::test]
async fn hung_turn_start_hook_costs_its_timeout_and_says_so() {
    let (out, lines) = run(
        vec![cmd(Event::TurnStart, "sleep 30").with_timeout(Duration::from_millis(100))],
        HookRequest::turn_start(1, 0),
    )
    .await;
    assert_eq!(out.decision(), Decision::Block);
    assert!(!out.is_blocked(), "turn_start cannot stop anything");
    assert_eq!(
        lines,
        ["nanopi: TurnStart hook asked to block; ignored (advisory event) [reason=hook timed out after 100 ms]"]
    );
}

#[tokio::test]
async fn a_multi_line_advisory_reason_is_reported_on_one_line() {
    let (out, lines) = run(
        vec![cmd(
            Event::TurnEnd,
            r#"echo '{"decision":"block","reason":"line one\nline two\r\nline three"}'"#,
        )],
        HookRequest::turn_end(1, 0, false),
    )
    .await;
    assert_eq!(out.decision(), Decision::Block);
    assert!(!out.is_blocked());
    assert_eq!(
        lines,
        [
            "nanopi: TurnEnd hook asked to block; ignored (advisory event) \
          [reason=line one line two line three]"
        ]
    );
}

#[tokio::test]
async fn a_timeout_too_long_for_the_clock_saturates() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stack = HookStack::builder()
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")))
        .command_hook(cmd(Event::ToolExecutionStart, "exit 0").with_timeout(Duration::MAX))
        .service_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "service").with_timeout(Duration::MAX),
            tower::service_fn(|_req: HookRequest| async {
                tokio::task::yield_now().await;
                Ok::<_, std::convert::Infallible>(Verdict::Allow)
            }),
        )
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "function").with_timeout(Duration::MAX),
            |_req| Verdict::Allow,
        )
        .build();
    let out = stack.oneshot(bash_start(json!({}))).await.unwrap();
    assert_eq!(out.decision(), Decision::Allow);
    let outcomes: Vec<_> = out.hooks().iter().map(|h| h.outcome()).collect();
    assert_eq!(outcomes, [RecordOutcome::Allow; 3]);
    assert!(lines.lock().unwrap().is_empty(), "{lines:?}");
}

/// `type = "service"` in a file names no service: the entry loads, is listed,
/// and never runs its command (as any type other than `command`).
#[tokio::test]
async fn a_service_entry_in_a_file_never_runs_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let text = format!(
        "[[hooks.input]]\ntype = \"service\"\ncommand = \"touch '{}'\"\n",
        marker.display()
    );
    let config = tower_hooks::Config::from_str_with_source(&text, "c.toml").unwrap();
    assert!(!config.hooks()[0].is_runnable());
    let (outcome, lines) = run(config.into_hooks(), HookRequest::input("hi")).await;
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Skipped);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(!marker.exists(), "the entry's command ran");
}

/// The points beyond nanopi's eleven run hooks like any other; at the agent's
/// stop a block is honored and its reason is the agent's next instruction.
#[tokio::test]
async fn hooks_run_at_the_points_other_dialects_add() {
    let stack = HookStack::builder()
        .report(())
        .fn_hook(HookSpec::in_process(Event::Stop, "keep-going"), |req| {
            assert_eq!(req.arguments()["stop_hook_active"], false);
            Verdict::block("run the tests first")
        })
        .fn_hook(HookSpec::in_process(Event::Notification, "quiet"), |_| {
            Verdict::block("not now")
        })
        .build();
    let stop = stack
        .clone()
        .oneshot(HookRequest::stop(false, "done"))
        .await
        .unwrap();
    assert!(stop.is_blocked());
    assert_eq!(stop.message().as_deref(), Some("run the tests first"));

    // A notification cannot be blocked: the block is reported and dropped.
    let note = stack
        .oneshot(HookRequest::notification("hi", Some("t"), "idle"))
        .await
        .unwrap();
    assert!(!note.is_blocked());
    assert_eq!(note.arguments()["title"], "t");
}

/// A command that reads its stdin and leaves a file named `name` in `dir`:
/// the side effect by which a test sees that the hook ran.
fn leaves(dir: &std::path::Path, name: &str) -> String {
    format!("cat >/dev/null; touch '{}'", dir.join(name).display())
}

/// Which of `names` the hooks left in `dir` (and removes them for the next call).
fn left(dir: &std::path::Path, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .filter(|name| std::fs::remove_file(dir.join(name)).is_ok())
        .map(|name| name.to_string())
        .collect()
}

/// A hook whose matcher does not match is not spawned, before the first hook
/// that runs and between two that do, in a nanopi configuration loaded from
/// a file; a call that it matches runs it.
#[tokio::test]
async fn a_hook_whose_matcher_does_not_match_is_never_spawned() {
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("marks");
    std::fs::create_dir(&marks).unwrap();
    let path = dir.path().join("config.toml");
    let entry = |matcher: &str, name: &str| {
        format!(
            "[[hooks.tool_execution_start]]\nmatcher = '{matcher}'\ncommand = \"{}\"\n",
            leaves(&marks, name)
        )
    };
    let toml = [
        entry("^write$", "write-1"),
        entry("^bash$", "bash"),
        entry("^(write|edit)$", "write-2"),
    ]
    .join("\n");
    std::fs::write(&path, toml).unwrap();
    let config = tower_hooks::config::Config::load_file(&path).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let stack = HookStack::builder().report(()).config(&config).build();
    let all = ["write-1", "bash", "write-2"];

    let call = |tool: &str| HookRequest::tool_execution_start(tool, json!({"path": "a"}));
    let outcome = stack.clone().oneshot(call("bash")).await.unwrap();
    assert_eq!(left(&marks, &all), ["bash"]);
    let records: Vec<_> = outcome.hooks().iter().map(|r| r.outcome()).collect();
    assert_eq!(
        records,
        [
            RecordOutcome::Skipped,
            RecordOutcome::Allow,
            RecordOutcome::Skipped
        ]
    );

    stack.clone().oneshot(call("write")).await.unwrap();
    assert_eq!(left(&marks, &all), ["write-1", "write-2"]);

    // No hook matches: none runs, and every one is recorded as skipped.
    let outcome = stack.oneshot(call("read")).await.unwrap();
    assert_eq!(left(&marks, &all), Vec::<String>::new());
    assert_eq!(outcome.hooks().len(), 3);
    assert!(outcome
        .hooks()
        .iter()
        .all(|r| r.outcome() == RecordOutcome::Skipped));
}

/// The same for Claude Code's hooks, which run as a group at once: a handler
/// whose group's matcher does not match is not spawned beside those that run.
#[tokio::test]
async fn a_claude_handler_whose_matcher_does_not_match_is_never_spawned() {
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("marks");
    std::fs::create_dir(&marks).unwrap();
    let path = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let group = |matcher: &str, name: &str| json!({"matcher": matcher, "hooks": [{"type": "command", "command": leaves(&marks, name)}]});
    let settings = json!({"hooks": {"PreToolUse": [
        group("Write", "write-1"),
        group("Bash", "bash"),
        group("Edit|Write", "write-2"),
    ]}});
    std::fs::write(&path, settings.to_string()).unwrap();
    let config = tower_hooks::config::Config::load_files(
        &[tower_hooks::config::ConfigFile::detect(&path)],
        dir.path(),
    )
    .unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let stack = HookStack::builder().report(()).config(&config).build();
    let all = ["write-1", "bash", "write-2"];

    let call = |tool: &str| HookRequest::tool_execution_start(tool, json!({"file_path": "a"}));
    let outcome = stack.clone().oneshot(call("Bash")).await.unwrap();
    assert_eq!(left(&marks, &all), ["bash"]);
    let records: Vec<_> = outcome.hooks().iter().map(|r| r.outcome()).collect();
    assert_eq!(
        records,
        [
            RecordOutcome::Skipped,
            RecordOutcome::Allow,
            RecordOutcome::Skipped
        ]
    );

    stack.clone().oneshot(call("Write")).await.unwrap();
    assert_eq!(left(&marks, &all), ["write-1", "write-2"]);

    stack.oneshot(call("Read")).await.unwrap();
    assert_eq!(left(&marks, &all), Vec::<String>::new());
}
