//! Gemini CLI hooks, unchanged, through the stack: scripts written for a
//! `.gemini/settings.json` (and an extension's `hooks/hooks.json`) are loaded
//! from real files, run as real processes under `bash -c`, and their answers
//! refuse tool calls through `ToolHooksLayer`, rewrite tool input and model
//! requests, add context, keep the agent going at its stop, and fail as
//! Gemini CLI's do. The hostile cases (a hang, a flood, a hook that ignores
//! stdin, forks, or ignores SIGTERM) are at the end.
//!
//! Timing assertions only bound hangs, generously.

#[path = "../support/mod.rs"]
mod support;

use support::{script, write};

use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tower::{Service, ServiceBuilder, ServiceExt};
use tower_hooks::agent::{AgentHooks, StopDecision};
use tower_hooks::config::{Config, ConfigFile, Discovery, Format};
use tower_hooks::{
    Decision, Dialect, Event, HookOutcome, HookRequest, HookStack, RecordOutcome, ToolCall,
    ToolHooksLayer, ToolKind, ToolResult,
};

// --- helpers ----------------------------------------------------------------

/// `{"hooks": hooks}` with a comment, as a hand-edited settings file has.
fn settings(hooks: Value) -> String {
    format!(
        "// written by hand\n{}",
        serde_json::to_string_pretty(&json!({"general": {"vimMode": true}, "hooks": hooks}))
            .unwrap()
    )
}

/// Writes `hooks` as the project's `.gemini/settings.json` and loads it as a
/// host handed that file would.
fn load_project(project: &Path, hooks: Value) -> Config {
    let path = project.join(".gemini/settings.json");
    write(&path, &settings(hooks));
    let file = ConfigFile::detect(&path);
    assert_eq!(
        file.format(),
        Format::Gemini,
        "a settings.json under .gemini"
    );
    let config = Config::load_files(&[file], project).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    assert!(config
        .hooks()
        .iter()
        .all(|h| h.dialect() == Dialect::Gemini));
    config
}

fn stack_of(config: &Config) -> HookStack {
    HookStack::builder().report(()).config(config).build()
}

/// Each record as (the event as its file names it, outcome, reason).
fn records(outcome: &HookOutcome) -> Vec<(String, RecordOutcome, Option<String>)> {
    outcome
        .hooks()
        .iter()
        .map(|r| {
            (
                tower_hooks::dialect::event_as_written(r.spec()).to_owned(),
                r.outcome(),
                r.reason().map(str::to_owned),
            )
        })
        .collect()
}

fn shell(command: &str) -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({"command": command}))
        .with_tool_kind(ToolKind::Shell)
        .with_session_id("g-1")
}

/// The JSON a hook saved from its stdin.
fn saved(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!text.ends_with('\n'), "no trailing newline: {text:?}");
    serde_json::from_str(&text).unwrap()
}

// --- 1. a guard refuses a shell call ---------------------------------------

/// A BeforeTool guard as Gemini CLI's docs write one: it reads the event,
/// denies `rm -rf` with a JSON `decision`, and asks before a push.
const GUARD: &str = r#"#!/usr/bin/env bash
input=$(cat)
printf '%s' "$input" > "$GEMINI_PROJECT_DIR/.gemini/seen.json"
case "$input" in
  *'rm -rf'*) echo '{"decision": "deny", "reason": "rm -rf is not allowed here"}' ;;
  *'git push'*) echo '{"decision": "ask", "reason": "pushing needs a person"}' ;;
  *) echo '{"decision": "allow"}' ;;
esac
"#;

#[tokio::test]
async fn a_gemini_guard_refuses_a_shell_call_through_the_tool_layer_unchanged() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    script(&project.join(".gemini/hooks/guard.sh"), GUARD);
    let config = load_project(
        project,
        json!({"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
            {"type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh", "timeout": 10000}
        ]}]}),
    );
    let stack = stack_of(&config);
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    let tools = tower::service_fn(move |_call: ToolCall| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, Infallible>(ToolResult::ok("ran")) }
    });
    let mut tools = ServiceBuilder::new()
        .layer(ToolHooksLayer::new(stack).with_session_id("g-1"))
        .service(tools);
    for (command, want) in [
        (
            "rm -rf build",
            ToolResult::error("Tool execution blocked: rm -rf is not allowed here"),
        ),
        ("ls", ToolResult::ok("ran")),
    ] {
        let call = ToolCall::new("bash", "c1", json!({"command": command}));
        let got = tools.ready().await.unwrap().call(call).await.unwrap();
        assert_eq!(got, want, "{command}");
    }
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    // It saw Gemini CLI's envelope and its own name for the shell tool.
    let seen = saved(&project.join(".gemini/seen.json"));
    assert_eq!(seen["hook_event_name"], "BeforeTool");
    assert_eq!(seen["tool_name"], "run_shell_command");
    assert_eq!(seen["session_id"], "g-1");
    assert_eq!(seen["transcript_path"], "");
    assert!(seen["timestamp"].as_str().unwrap().ends_with('Z'));
    assert!(seen.get("permission_mode").is_none());
    })
    .await;
}

#[tokio::test]
async fn ask_on_before_tool_needs_a_person() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        script(&project.join(".gemini/hooks/guard.sh"), GUARD);
        let config = load_project(
            project,
            json!({"BeforeTool": [{"hooks": [{"command": ".gemini/hooks/guard.sh"}]}]}),
        );
        let outcome = stack_of(&config)
            .oneshot(shell("git push origin main").with_cwd(project.display().to_string()))
            .await
            .unwrap();
        assert!(outcome.needs_approval());
        assert_eq!(outcome.reason(), Some("pushing needs a person"));
    })
    .await;
}

// --- 2. rewrites ------------------------------------------------------------

#[tokio::test]
async fn the_last_tool_input_replaces_the_input_and_sequential_hooks_see_it_merged() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let out = project.join("second.json");
    let config = load_project(
        project,
        json!({"BeforeTool": [
            {"sequential": true, "hooks": [{"command":
                "echo '{\"hookSpecificOutput\": {\"tool_input\": {\"command\": \"ls -a\"}}}'"}]},
            {"hooks": [{"command": format!(
                "cat > {}; echo '{{\"hookSpecificOutput\": {{\"tool_input\": {{\"dir_path\": \"src\"}}}}}}'",
                support::shell_quote(&out))}]},
        ]}),
    );
    let req = HookRequest::tool_execution_start(
        "run_shell_command",
        json!({"command": "ls", "description": "list"}),
    );
    let outcome = stack_of(&config).oneshot(req).await.unwrap();
    assert_eq!(outcome.decision(), Decision::Transform);
    // Gemini CLI 0.61 runs the tool with the last hook's tool_input alone
    // (its scheduler rebuilds the call from it, so here the shell tool would
    // refuse it for want of `command`)...
    assert_eq!(outcome.arguments(), &json!({"dir_path": "src"}));
    // ...while the next hook of a sequential run gets the input with the
    // rewrites before it merged over it.
    assert_eq!(
        saved(&out)["tool_input"],
        json!({"command": "ls -a", "description": "list"})
    );
    })
    .await;
}

#[tokio::test]
async fn hooks_at_once_that_rewrite_leave_the_later_tool_input_alone() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let rewrite = |input: Value| {
            json!({"command": format!(
            "echo '{}'", json!({"hookSpecificOutput": {"tool_input": input}}))})
        };
        let config = load_project(
            dir.path(),
            json!({"BeforeTool": [{"hooks": [
                rewrite(json!({"command": "ls -a", "description": "first"})),
                rewrite(json!({"command": "ls -b"})),
            ]}]}),
        );
        let req = HookRequest::tool_execution_start(
            "run_shell_command",
            json!({"command": "ls", "description": "list", "dir_path": "src"}),
        );
        let outcome = stack_of(&config).oneshot(req).await.unwrap();
        // Neither the input's other fields nor the first hook's are kept.
        assert_eq!(outcome.arguments(), &json!({"command": "ls -b"}));
    })
    .await;
}

#[tokio::test]
async fn hooks_of_a_definition_that_is_not_sequential_run_at_once() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let sleepy = |n: u32| {
        json!({"command": format!(
        "sleep 1; echo '{{\"hookSpecificOutput\": {{\"tool_input\": {{\"command\": \"ls -{n}\"}}}}}}'")})
    };
    let config = load_project(
        dir.path(),
        json!({"BeforeTool": [{"hooks": [sleepy(1), sleepy(2), sleepy(3)]}]}),
    );
    let started = Instant::now();
    let outcome = stack_of(&config).oneshot(shell("ls")).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(2900),
        "{:?}",
        started.elapsed()
    );
    // The later rewrite in config order wins.
    assert_eq!(outcome.arguments(), &json!({"command": "ls -3"}));
    })
    .await;
}

// --- 3. context, messages, stop --------------------------------------------

#[tokio::test]
async fn before_agent_context_and_messages() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({"BeforeAgent": [{"hooks": [
            {"command": "echo 'branch: main'"},
            {"command": "echo 'low disk' >&2; exit 1"},
            {"command": "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"ticket ABC-1\"}, \"additionalContext\": \"ignored\"}'"},
        ]}]}),
    );
    let outcome = stack_of(&config)
        .oneshot(HookRequest::input("fix it"))
        .await
        .unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.context(), ["ticket ABC-1"]);
    assert_eq!(
        outcome.user_messages(),
        ["branch: main", "Warning: low disk"]
    );
    let outcome_records = records(&outcome);
    assert!(outcome_records
        .iter()
        .all(|(e, o, _)| e == "BeforeAgent" && *o == RecordOutcome::Allow));
    })
    .await;
}

#[tokio::test]
async fn an_after_agent_block_sends_the_agent_back_once() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        script(
            &project.join(".gemini/hooks/tests-first.sh"),
            r#"#!/bin/sh
input=$(cat)
case "$input" in *'"stop_hook_active":true'*) exit 0 ;; esac
echo '{"decision": "deny", "reason": "run the tests first"}'
"#,
        );
        let config = load_project(
            project,
            json!({"AfterAgent": [{"hooks": [{"command": ".gemini/hooks/tests-first.sh"}]}]}),
        );
        let hooks = AgentHooks::new(stack_of(&config)).with_cwd(project.display().to_string());
        assert_eq!(
            hooks.stop("done").await.unwrap(),
            StopDecision::KeepGoing("run the tests first".into())
        );
        assert_eq!(
            hooks.stop("tests pass").await.unwrap(),
            StopDecision::Finish
        );
    })
    .await;
}

#[tokio::test]
async fn continue_false_stops_the_agent_and_an_after_tool_block_hides_the_result() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({"AfterTool": [{"matcher": "read_file", "hooks": [
            {"command": "echo '{\"decision\": \"block\", \"reason\": \"holds a key\", \"continue\": false, \"stopReason\": \"halt\"}'"}
        ]}]}),
    );
    let req = HookRequest::tool_execution_end(
        "read_file",
        json!({"file_path": ".env"}),
        "KEY=1",
        false,
        Duration::from_millis(3),
    );
    let outcome = stack_of(&config).oneshot(req).await.unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("halt"));
    assert_eq!(
        outcome.message().as_deref(),
        Some("Tool result blocked: halt")
    );
    assert_eq!(outcome.stop(), Some("halt"));
    })
    .await;
}

// --- 4. failures and Gemini CLI's exit-code quirks --------------------------

#[tokio::test]
async fn failures_allow_and_text_on_another_exit_blocks() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let config = load_project(
            dir.path(),
            json!({"BeforeTool": [{"hooks": [
                {"command": "exit 3"},
                {"command": "echo '{\"decision\": \"allow\"}'; exit 2"},
                {"command": "./no/such/guard.sh"},
            ]}]}),
        );
        let outcome = stack_of(&config).oneshot(shell("ls")).await.unwrap();
        let got = records(&outcome);
        assert_eq!(got[0].1, RecordOutcome::Error);
        assert_eq!(got[1].1, RecordOutcome::Allow);
        // A missing script prints "No such file" and exits 127: Gemini CLI blocks.
        assert_eq!(got[2].1, RecordOutcome::Block);
        assert!(
            outcome.reason().unwrap().contains("No such file"),
            "{outcome:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn timeouts_are_milliseconds_and_fail_open() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let config = load_project(
            dir.path(),
            json!({"BeforeTool": [{"hooks": [{"command": "sleep 5; exit 2", "timeout": 200}]}]}),
        );
        let started = Instant::now();
        let outcome = stack_of(&config).oneshot(shell("ls")).await.unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert!(!outcome.is_blocked());
        assert_eq!(records(&outcome)[0].1, RecordOutcome::Error);
        assert!(records(&outcome)[0].2.as_deref().unwrap().contains("200ms"));
    })
    .await;
}

// --- 5. files and switches --------------------------------------------------

#[tokio::test]
async fn user_then_project_dedup_disabled_and_untrusted_projects() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let (home, project) = (dir.path().join("home"), dir.path().join("proj"));
        let log = dir.path().join("log");
        let echo = format!("echo x >> {}", support::shell_quote(&log));
        write(
            &home.join(".gemini/settings.json"),
            &settings(json!({"BeforeTool": [{"hooks": [{"command": echo}]}]})),
        );
        write(
            &project.join(".gemini/settings.json"),
            &format!(
                "{{ /* project */ \"hooksConfig\": {{\"disabled\": [\"noisy\"]}}, \"hooks\": {}}}",
                json!({"BeforeTool": [{"hooks": [
                    {"command": echo},
                    {"command": echo, "name": "audit"},
                    {"command": "touch never", "name": "noisy"}
                ]}]})
            ),
        );
        let discovery = |trusted| {
            Discovery::new(&project)
                .with_home(Some(home.clone()))
                .with_system_files(false)
                .with_project_trusted(trusted)
                .format(Format::Gemini)
                .load()
                .unwrap()
        };
        let outcome = stack_of(&discovery(true))
            .oneshot(shell("ls"))
            .await
            .unwrap();
        let got: Vec<RecordOutcome> = records(&outcome).into_iter().map(|r| r.1).collect();
        use RecordOutcome::{Allow, Skipped};
        assert_eq!(got, [Allow, Skipped, Allow, Skipped]);
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "x\nx\n");
        // Untrusted, the project's hooks load all the same: its switch reaches
        // only its own hooks, which is all it named here.
        let outcome = stack_of(&discovery(false))
            .oneshot(shell("ls"))
            .await
            .unwrap();
        let got: Vec<RecordOutcome> = records(&outcome).into_iter().map(|r| r.1).collect();
        assert_eq!(got, [Allow, Skipped, Allow, Skipped]);
    })
    .await;
}

#[tokio::test]
async fn hooks_config_enabled_false_turns_every_gemini_hook_off() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".gemini/settings.json");
    write(
        &path,
        &json!({"hooksConfig": {"enabled": false}, "hooks": {"BeforeTool": [{"hooks": [{"command": "exit 2"}]}]}})
            .to_string(),
    );
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir.path()).unwrap();
    let outcome = stack_of(&config).oneshot(shell("ls")).await.unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(records(&outcome)[0].1, RecordOutcome::Skipped);
    })
    .await;
}

#[tokio::test]
async fn an_extension_finds_its_script_through_extension_path_even_with_spaces() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let ext = dir.path().join("my ext; touch pwned");
    script(
        &ext.join("scripts/guard.sh"),
        "#!/bin/sh\ncat > /dev/null\necho '{\"decision\":\"deny\",\"reason\":\"from the extension\"}'\n",
    );
    let hooks = ext.join("hooks/hooks.json");
    write(
        &hooks,
        &json!({"hooks": {"BeforeTool": [{"matcher": "read_file", "hooks": [
            {"command": "${extensionPath}${/}scripts${pathSeparator}guard.sh"}]}]}})
        .to_string(),
    );
    let file = ConfigFile::new(&hooks, Format::Gemini);
    let config = Config::load_files(&[file], dir.path()).unwrap();
    let req = HookRequest::tool_execution_start("read_file", json!({"file_path": ".env"}))
        .with_cwd(dir.path().display().to_string());
    let outcome = stack_of(&config).oneshot(req).await.unwrap();
    assert_eq!(outcome.reason(), Some("from the extension"));
    assert!(!dir.path().join("pwned").exists());
    })
    .await;
}

#[tokio::test]
async fn an_mcp_tool_is_named_the_gemini_way() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("in.json");
        let config = load_project(
            dir.path(),
            json!({"BeforeTool": [{"matcher": "^mcp_github_", "hooks": [
            {"command": format!("cat > {}", support::shell_quote(&out))}]}]}),
        );
        let req =
            HookRequest::tool_execution_start("mcp__github__create_issue", json!({"title": "t"}));
        let outcome = stack_of(&config).oneshot(req).await.unwrap();
        assert_eq!(
            outcome.hooks()[0].tool_name(),
            Some("mcp_github_create_issue")
        );
        assert_eq!(saved(&out)["tool_name"], "mcp_github_create_issue");
    })
    .await;
}

// --- 6. the model points ------------------------------------------------------

#[tokio::test]
async fn model_hooks_rewrite_the_request_the_response_and_the_tool_config() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    // A redactor of the model's answer, as a Gemini CLI user writes one.
    script(
        &project.join(".gemini/hooks/redact.sh"),
        r#"#!/usr/bin/env bash
input=$(cat)
case "$input" in
  *sk-live-*) echo '{"hookSpecificOutput": {"hookEventName": "AfterModel", "llm_response": {"candidates": [{"content": {"role": "model", "parts": ["[redacted]"]}}]}}}' ;;
esac
"#,
    );
    let config = load_project(
        project,
        json!({
            "BeforeModel": [{"hooks": [{"command":
                "echo '{\"hookSpecificOutput\": {\"llm_request\": {\"model\": \"gemini-2.5-flash\"}}}'"}]}],
            "AfterModel": [{"hooks": [{"command": ".gemini/hooks/redact.sh"}]}],
            "BeforeToolSelection": [{"hooks": [
                {"command": "echo '{\"hookSpecificOutput\": {\"toolConfig\": {\"mode\": \"ANY\", \"allowedFunctionNames\": [\"read_file\"]}}}'"},
                {"command": "echo '{\"hookSpecificOutput\": {\"toolConfig\": {\"mode\": \"AUTO\", \"allowedFunctionNames\": [\"glob\"]}}}'"}
            ]}],
        }),
    );
    let hooks = AgentHooks::new(stack_of(&config)).with_cwd(project.display().to_string());
    let mut request =
        json!({"model": "gemini-2.5-pro", "messages": [{"role": "user", "content": "hi"}]});
    hooks.model_request(&mut request).await.unwrap();
    assert_eq!(request["model"], "gemini-2.5-flash");
    assert_eq!(request["messages"][0]["content"], "hi");
    hooks.tool_selection(&mut request).await.unwrap();
    assert_eq!(
        request["toolConfig"],
        json!({"mode": "ANY", "allowedFunctionNames": ["read_file", "glob"]})
    );
    let mut response =
        json!({"candidates": [{"content": {"role": "model", "parts": ["sk-live-1"]}}]});
    hooks
        .model_response(&mut request, &mut response)
        .await
        .unwrap();
    assert_eq!(
        response["candidates"][0]["content"]["parts"][0],
        "[redacted]"
    );
    })
    .await;
}

// --- 7. hostile hooks ---------------------------------------------------------

async fn run_bounded(config: &Config, req: HookRequest) -> (HookOutcome, Duration) {
    let started = Instant::now();
    let outcome = tokio::time::timeout(Duration::from_secs(30), stack_of(config).oneshot(req))
        .await
        .expect("the hook's timeout bounds the call")
        .unwrap();
    (outcome, started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_hook_and_its_children_are_killed_at_the_timeout() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let pids = support::PidFile::new();
        let command = format!(
            "sleep 30 & echo $! >> {p}; echo $$ >> {p}; wait",
            p = pids.quoted()
        );
        let config = load_project(
            dir.path(),
            json!({"BeforeTool": [{"hooks": [{"command": command, "timeout": 500}]}]}),
        );
        let (outcome, took) = run_bounded(&config, shell("ls")).await;
        assert!(took < Duration::from_secs(10), "{took:?}");
        assert_eq!(records(&outcome)[0].1, RecordOutcome::Error);
        let all = pids.wait_for(2, Duration::from_secs(5));
        support::assert_no_process_left(all[1], &all);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_ignores_sigterm_is_killed_anyway() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let pids = support::PidFile::new();
        let command = format!(
            "trap '' TERM; echo $$ >> {}; while :; do sleep 1; done",
            pids.quoted()
        );
        let config = load_project(
            dir.path(),
            json!({"BeforeTool": [{"hooks": [{"command": command, "timeout": 300}]}]}),
        );
        let (outcome, took) = run_bounded(&config, shell("ls")).await;
        assert!(took < Duration::from_secs(10), "{took:?}");
        assert!(!outcome.is_blocked());
        let all = pids.wait_for(1, Duration::from_secs(5));
        support::assert_no_process_left(all[0], &all);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_never_reads_a_big_stdin_answers_promptly() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({"BeforeTool": [{"hooks": [{"command": "echo '{\"decision\": \"deny\", \"reason\": \"no\"}'"}]}]}),
    );
    let big = "x".repeat(4 << 20);
    let (outcome, took) = run_bounded(&config, shell(&big)).await;
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(outcome.reason(), Some("no"));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_on_stdout_is_cut_and_never_read_as_an_answer() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    // Exit 0: the kept tail is not the hook's whole answer, so it is a
    // failure that names the bound (it allows, as a failure does).
    let config = load_project(
        dir.path(),
        json!({"BeforeTool": [{"hooks": [{"command": "head -c 100000000 /dev/zero | tr '\\0' 'y'; printf '{}'"}]}]}),
    );
    let (outcome, took) = run_bounded(&config, shell("ls")).await;
    assert!(took < Duration::from_secs(25), "{took:?}");
    assert!(!outcome.is_blocked());
    let (_, result, reason) = &records(&outcome)[0];
    assert_eq!(*result, RecordOutcome::Error);
    assert!(
        reason.as_deref().unwrap().contains("bytes of stdout kept"),
        "{reason:?}"
    );
    // Exit 2 blocks whatever was printed: a cut answer never weakens it.
    let config = load_project(
        dir.path(),
        json!({"BeforeTool": [{"hooks": [{"command": "head -c 100000000 /dev/zero | tr '\\0' 'y'; exit 2"}]}]}),
    );
    let (outcome, _) = run_bounded(&config, shell("ls")).await;
    assert!(outcome.is_blocked(), "{outcome:?}");
    })
    .await;
}

#[tokio::test]
async fn only_gemini_hooks_run_at_the_model_points() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        let touch = format!("touch {}", support::shell_quote(&project.join("ran")));
        let claude = project.join(".claude/settings.json");
        write(
        &claude,
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": touch}]}],
                          "PreToolUse": [{"hooks": [{"type": "command", "command": touch}]}]}})
        .to_string(),
    );
        let gemini = project.join(".gemini/settings.json");
        write(
            &gemini,
            &settings(json!({"BeforeModel": [{"hooks": [{"command": "cat > /dev/null"}]}]})),
        );
        let files = [ConfigFile::detect(&claude), ConfigFile::detect(&gemini)];
        let config = Config::load_files(&files, project).unwrap();
        let outcome = stack_of(&config)
            .oneshot(HookRequest::model_request(json!({"model": "m"})))
            .await
            .unwrap();
        let who: Vec<Dialect> = outcome.hooks().iter().map(|r| r.spec().dialect()).collect();
        assert_eq!(who, [Dialect::Gemini]);
        assert!(!project.join("ran").exists());
        // A nanopi file cannot name the point: its names are nanopi's eleven.
        assert!("model_request".parse::<Event>().is_err());
    })
    .await;
}

#[tokio::test]
async fn a_decision_gemini_ignores_is_dropped_quietly_and_indexes_count_per_event() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({
            "BeforeTool": [{"hooks": [{"command": "true"}, {"command": "true"}]}],
            "SessionStart": [{"hooks": [{"command": "echo '{\"decision\": \"deny\", \"reason\": \"nope\"}'"}]}],
        }),
    );
    let indexes: Vec<(Event, usize)> = config
        .hooks()
        .iter()
        .map(|h| (h.event(), h.index()))
        .collect();
    assert_eq!(
        indexes,
        [
            (Event::SessionStart, 0),
            (Event::ToolExecutionStart, 0),
            (Event::ToolExecutionStart, 1)
        ]
    );
    let lines = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let stack = HookStack::builder()
        .report(move |n: &tower_hooks::report::Notice<'_>| {
            sink.lock().unwrap().push(n.line("nanopi"))
        })
        .config(&config)
        .build();
    let outcome = stack
        .oneshot(HookRequest::session_start(
            tower_hooks::request::StartReason::Startup,
        ))
        .await
        .unwrap();
    assert_eq!(outcome.decision(), Decision::Block);
    assert!(!outcome.is_honored());
    assert!(
        lines.lock().unwrap().is_empty(),
        "{:?}",
        lines.lock().unwrap()
    );
    })
    .await;
}

#[tokio::test]
async fn the_environment_has_the_gemini_variables_and_the_handler_env_last() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("my proj");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let out = dir.path().join("env.txt");
    script(
        &project.join(".gemini/hooks/env.sh"),
        &format!(
            "#!/bin/sh\nprintf '%s|%s|%s|%s|%s|%s\\n' \"$GEMINI_PROJECT_DIR\" \"$CLAUDE_PROJECT_DIR\" \
             \"$GEMINI_CWD\" \"$GEMINI_SESSION_ID\" \"$FLAVOR\" \"$(pwd -P)\" > {}\n",
            support::shell_quote(&out)
        ),
    );
    let config = load_project(
        &project,
        json!({"BeforeTool": [{"hooks": [{"command": "$GEMINI_PROJECT_DIR/.gemini/hooks/env.sh",
                                          "env": {"FLAVOR": "settings", "GEMINI_SESSION_ID": "mine"}}]}]}),
    );
    let req = shell("ls").with_cwd(work.display().to_string());
    let outcome = stack_of(&config).oneshot(req).await.unwrap();
    assert_eq!(records(&outcome)[0].1, RecordOutcome::Allow, "{outcome:?}");
    let (p, w) = (project.display(), work.canonicalize().unwrap());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("{p}|{p}|{}|mine|settings|{}\n", work.display(), w.display())
    );
    })
    .await;
}

#[tokio::test]
async fn a_block_in_a_sequential_run_lets_the_rest_of_the_run_go_on_and_still_wins() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let ran = dir.path().join("ran");
    let config = load_project(
        dir.path(),
        json!({"BeforeTool": [
            {"sequential": true, "hooks": [
                {"command": "echo '{\"decision\": \"deny\", \"reason\": \"first\"}'"},
                {"command": format!("touch {}; echo '{{\"hookSpecificOutput\": {{\"tool_input\": {{\"command\": \"ls -a\"}}}}}}'",
                                    support::shell_quote(&ran))},
                {"command": "echo '{\"decision\": \"block\", \"reason\": \"second\"}'"},
            ]},
        ]}),
    );
    let outcome = stack_of(&config).oneshot(shell("ls")).await.unwrap();
    assert!(ran.exists(), "the hook after the block ran");
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("first\nsecond"));
    let got: Vec<RecordOutcome> = records(&outcome).into_iter().map(|r| r.1).collect();
    use RecordOutcome::{Block, Transform};
    assert_eq!(got, [Block, Transform, Block]);
    })
    .await;
}

#[tokio::test]
async fn an_after_tool_block_replaces_the_result_the_model_sees() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({"AfterTool": [{"matcher": "read_file", "hooks": [{"command":
            "case \"$(cat)\" in *sk-live*) echo '{\"decision\": \"deny\", \"reason\": \"it holds a key\"}' ;; esac"}]}]}),
    );
    let tools = tower::service_fn(|call: ToolCall| async move {
        let path = call.arguments["file_path"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let text = if path == ".env" {
            "KEY=sk-live-1"
        } else {
            "hello"
        };
        Ok::<_, Infallible>(ToolResult::ok(text))
    });
    let mut tools = ServiceBuilder::new()
        .layer(ToolHooksLayer::new(stack_of(&config)))
        .service(tools);
    let read = |path: &str| ToolCall::new("read_file", "c", json!({"file_path": path}));
    let got = tools
        .ready()
        .await
        .unwrap()
        .call(read(".env"))
        .await
        .unwrap();
    assert_eq!(
        got,
        ToolResult::error("Tool result blocked: it holds a key")
    );
    let got = tools
        .ready()
        .await
        .unwrap()
        .call(read("README"))
        .await
        .unwrap();
    assert_eq!(got, ToolResult::ok("hello"));
    })
    .await;
}

#[tokio::test]
async fn session_matchers_and_fields_use_gemini_clis_words() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("end.json");
    let config = load_project(
        dir.path(),
        json!({"SessionEnd": [
            {"matcher": "exit", "hooks": [{"command": format!("cat > {}", support::shell_quote(&out))}]},
            {"matcher": "quit", "hooks": [{"command": "true"}]},
        ]}),
    );
    let req = HookRequest::session_shutdown(tower_hooks::request::ShutdownReason::Quit);
    let outcome = stack_of(&config).oneshot(req).await.unwrap();
    let got: Vec<RecordOutcome> = records(&outcome).into_iter().map(|r| r.1).collect();
    assert_eq!(got, [RecordOutcome::Allow, RecordOutcome::Skipped]);
    assert_eq!(saved(&out)["reason"], "exit");
    })
    .await;
}

/// Before a tool, the model reads a Gemini CLI block in Gemini CLI's words;
/// the report keeps the contract's `message` and gives those words as
/// `host_message`.
#[tokio::test]
async fn a_before_tool_block_reaches_the_model_in_gemini_words() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let config = load_project(
            dir.path(),
            json!({"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
                {"command": "echo 'no rm here' >&2; exit 2"}
            ]}]}),
        );
        let req = HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"}));
        let outcome = stack_of(&config).oneshot(req).await.unwrap();
        assert!(outcome.is_blocked());
        assert_eq!(outcome.reason(), Some("no rm here"));
        assert_eq!(
            outcome.message().as_deref(),
            Some("Tool execution blocked: no rm here")
        );
        let report = serde_json::to_value(&outcome).unwrap();
        assert_eq!(report["message"], "blocked by hook: no rm here");
        assert_eq!(report["host_message"], "Tool execution blocked: no rm here");
    })
    .await;
}
