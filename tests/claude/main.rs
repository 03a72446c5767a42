//! Claude Code hooks, unchanged, through the stack: a plugin's guard script that
//! answers with pretty-printed JSON or with exit 2, found through
//! `${CLAUDE_PLUGIN_ROOT}`, blocks a tool call through `ToolHooksLayer`.

mod if_rules;
#[path = "../support/mod.rs"]
mod support;

use support::{script, write};

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
    support::bounded(async {
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

        // Another tool: the matcher `Bash` is exact (a host's `bash` is Claude
        // Code's `Bash`, a `Grep` tool is not).
        let outcome = stack
            .oneshot(HookRequest::tool_execution_start(
                "Grep",
                json!({"command": "rm -rf /"}),
            ))
            .await
            .unwrap();
        assert!(!outcome.is_blocked());
        assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Skipped);
    })
    .await;
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

/// A project directory whose name is shell code, holds a space or a quote
/// still runs the guard that `${CLAUDE_PROJECT_DIR}` names, and nothing else
/// runs: in shell form under `sh` and bash, bare or quoted, and in exec form.
#[tokio::test]
async fn a_project_directory_is_one_word_and_never_shell_code() {
    support::bounded(async {
    const GUARD: &str = "#!/bin/sh\ncat >/dev/null\necho guarded >&2\nexit 2\n";
    let root = tempfile::tempdir().unwrap();
    for (name, command) in [
        (
            "x; touch PWNED #",
            "${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh",
        ),
        ("My Project", "${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh"),
        (
            "q\"$(touch PWNED)\"",
            "\"${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh\"",
        ),
        (
            "it's `touch PWNED`",
            "'${CLAUDE_PROJECT_DIR}'/.claude/hooks/guard.sh",
        ),
    ] {
        let project = root.path().join(name);
        let guard = project.join(".claude/hooks/guard.sh");
        write(&guard, GUARD);
        let status = std::process::Command::new("chmod")
            .arg("+x")
            .arg(&guard)
            .status()
            .unwrap();
        assert!(status.success());
        for handler in [
            json!({"type": "command", "command": command}),
            json!({"type": "command", "command": command, "shell": "bash"}),
            json!({"type": "command", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh", "args": []}),
        ] {
            let stack = settings_stack(
                &project,
                json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}),
            );
            let call = HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"}))
                .with_cwd(project.display().to_string());
            let outcome =
                tokio::time::timeout(std::time::Duration::from_secs(20), stack.oneshot(call))
                    .await
                    .expect("bounded")
                    .unwrap();
            assert!(outcome.is_blocked(), "{name:?}, {handler}: {outcome:?}");
            assert_eq!(outcome.reason(), Some("guarded"), "{name:?}, {handler}");
            for dir in [root.path(), &project] {
                assert!(
                    !dir.join("PWNED").exists(),
                    "{name:?}, {handler}: a command ran"
                );
            }
        }
    }
    })
    .await;
}

/// A guard with `if: "Bash(rm *)"` runs (and blocks) however the shell
/// spelling of `rm` is quoted, and when the program is an expansion.
#[tokio::test]
async fn an_if_rule_guard_sees_through_quoted_command_words() {
    support::bounded(async {
        let root = tempfile::tempdir().unwrap();
        let guard =
            json!({"type": "command", "command": "echo no rm >&2; exit 2", "if": "Bash(rm *)"});
        let stack = settings_stack(
            root.path(),
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [guard]}]}}),
        );
        for (command, blocked) in [
            ("rm -rf /", true),
            ("\\rm -rf /", true),
            ("'rm' -rf /", true),
            ("\"rm\" -rf /", true),
            ("r\"\"m -rf /", true),
            ("$RM -rf /", true),
            ("ls -l", false),
        ] {
            let call = HookRequest::tool_execution_start("Bash", json!({ "command": command }));
            let outcome = stack.clone().oneshot(call).await.unwrap();
            assert_eq!(outcome.is_blocked(), blocked, "{command}: {outcome:?}");
        }
    })
    .await;
}

/// The hooks of one Claude group run at once: each waits until all eight have
/// started, which only works if none waits for another to finish.
#[tokio::test]
async fn the_hooks_of_a_group_run_at_once() {
    support::bounded(async {
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
    })
    .await;
}

/// A deny does not stop the other hooks of its group: every hook runs, their
/// reasons join in config order, and their context is kept in config order.
#[tokio::test]
async fn a_deny_does_not_stop_its_siblings_and_reasons_join_in_order() {
    support::bounded(async {
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
    })
    .await;
}

/// `onFailure: "block"`: a failed run (a status that is neither 0 nor 2, a
/// timeout, a command that cannot start) blocks with its failure, where
/// the same handler without it lets the action proceed.
#[tokio::test]
async fn on_failure_block_turns_a_failed_run_into_a_block() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let failing = [
            (
                json!({"type": "command", "command": "echo broken >&2; exit 1"}),
                "exited with status 1: broken",
                "failed; blocking because onFailure is \"block\"\nbroken",
            ),
            (
                json!({"type": "command", "command": "sleep 5", "timeout": 0.3}),
                "timed out after 300 ms",
                "timed out; blocking because onFailure is \"block\"",
            ),
            (
                json!({"type": "command", "command": "x", "args": ["/nonexistent/guard"]}),
                "could not start",
                "failed; blocking because onFailure is \"block\"\ncould not start",
            ),
        ];
        for (handler, failure, blocked) in failing {
            for block in [false, true] {
                let mut handler = handler.clone();
                if block {
                    handler["onFailure"] = json!("block");
                }
                let stack = settings_stack(
                    dir.path(),
                    json!({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}),
                );
                let outcome = tokio::time::timeout(
                    std::time::Duration::from_secs(20),
                    stack.oneshot(HookRequest::tool_execution_start(
                        "Bash",
                        json!({"command": "ls"}),
                    )),
                )
                .await
                .expect("bounded")
                .unwrap();
                let record = &outcome.hooks()[0];
                if block {
                    assert!(outcome.is_blocked(), "{failure}: {outcome:?}");
                    // In Claude Code's own words.
                    let reason = outcome.reason().unwrap();
                    assert!(reason.starts_with(blocked), "{reason}");
                } else {
                    assert!(!outcome.is_blocked(), "{failure}: {outcome:?}");
                    assert_eq!(record.outcome(), RecordOutcome::Error);
                    assert!(record.reason().unwrap().contains(failure), "{record:?}");
                }
            }
        }
    })
    .await;
}

/// The spec's fail-closed setting, and the host's policy, count for a loaded
/// Claude Code hook as for any other: a missing guard script blocks.
#[tokio::test]
async fn a_host_makes_a_loaded_claude_guard_fail_closed() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/settings.json");
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./.claude/hooks/missing-guard.sh"}]}]}});
        write(&path, &settings.to_string());
        let files = claude::config::load_all([&path], dir.path()).unwrap();
        let specs = claude::hook::specs(files.iter().flat_map(|f| &f.handlers), dir.path());
        let call =
            || HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf build/"}));
        let build = |specs: Vec<tower_hooks::HookSpec>, policy| {
            HookStack::builder()
                .report(())
                .current_dir(dir.path())
                .command_hooks(specs)
                .fail_closed(policy)
                .build()
        };
        use tower_hooks::FailClosedPolicy;
        let open = build(specs.clone(), FailClosedPolicy::configured());
        assert!(!open.oneshot(call()).await.unwrap().is_blocked());
        let by_spec: Vec<_> = specs
            .iter()
            .cloned()
            .map(|s| s.with_fail_closed(true))
            .collect();
        let outcome = build(by_spec, FailClosedPolicy::configured())
            .oneshot(call())
            .await
            .unwrap();
        assert!(outcome.is_blocked(), "{outcome:?}");
        assert!(outcome
            .reason()
            .unwrap()
            .starts_with("hook failed closed: "));
        for policy in [
            FailClosedPolicy::at_blocking_events(),
            FailClosedPolicy::at_blocking_events_of([Dialect::Claude]),
        ] {
            let outcome = build(specs.clone(), policy.clone())
                .oneshot(call())
                .await
                .unwrap();
            assert!(outcome.is_blocked(), "{policy:?}: {outcome:?}");
        }
        let others = FailClosedPolicy::at_blocking_events_of([Dialect::Nanopi, Dialect::Cursor]);
        assert!(!build(specs, others)
            .oneshot(call())
            .await
            .unwrap()
            .is_blocked());
    })
    .await;
}

/// Dropping a call while its Claude hooks run, or letting them time out,
/// leaves no process behind: each run is a task aborted with its call (the
/// runtime's workers drop it at once; a current-thread runtime at its next turn).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_hooks_leave_nothing_behind_when_dropped_or_timed_out() {
    support::bounded(async {
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
    })
    .await;
}

/// Loads `settings` and builds a stack whose report lines are collected, with
/// room for `running` background runs and `queued` waiting.
fn background_stack(
    root: &Path,
    settings: Value,
    limits: tower_hooks::process::background::BackgroundLimits,
) -> (HookStack, Arc<std::sync::Mutex<Vec<String>>>) {
    let path = root.join(".claude/settings.json");
    write(&path, &settings.to_string());
    let files = claude::config::load_all([&path], root).unwrap();
    let specs = claude::hook::specs(files.iter().flat_map(|f| &f.handlers), root);
    let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stack = HookStack::builder()
        .report(move |n: &tower_hooks::report::Notice<'_>| {
            sink.lock().unwrap().push(n.line("nanopi"))
        })
        .background_limits(limits)
        .command_hooks(specs)
        .build();
    (stack, lines)
}

/// An `async: true` hook: the call does not wait for it, its deny changes
/// nothing, and its context comes with the next call of the same session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_hook_runs_in_the_background_and_its_notes_come_later() {
    support::bounded(async {
        use std::time::{Duration, Instant};
        let dir = tempfile::tempdir().unwrap();
        let done = dir.path().join("done");
        let answer = json!({"systemMessage": "lint ran",
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "too late", "additionalContext": "lint: 0 problems"}});
        let command = format!(
            "sleep 1; printf '%s\\n' '{answer}'; touch {}",
            support::shell_quote(&done)
        );
        let (stack, _lines) = background_stack(
            dir.path(),
            json!({"hooks": {"PreToolUse": [{"hooks": [
                {"type": "command", "command": command, "async": true},
                {"type": "command", "command": "echo '{\"systemMessage\": \"sync\"}'"},
            ]}]}}),
            Default::default(),
        );
        let call = |session: &str| {
            stack.clone().oneshot(
                HookRequest::tool_execution_start("Bash", json!({"command": "ls"}))
                    .with_session_id(session),
            )
        };
        let started = Instant::now();
        let first = call("s1").await.unwrap();
        assert!(
            started.elapsed() < Duration::from_millis(900),
            "the call waited for the async hook: {:?}",
            started.elapsed()
        );
        assert!(!first.is_blocked());
        assert_eq!(first.hooks()[0].outcome(), RecordOutcome::Allow);
        assert_eq!(first.hooks()[0].reason(), Some("started in the background"));
        assert_eq!(first.user_messages(), ["sync"]);
        assert!(first.context().is_empty());

        assert!(support::settle(Duration::from_secs(10), || done.exists()));
        tokio::time::sleep(Duration::from_millis(200)).await;
        // Another session gets nothing of it; the same session gets it once.
        let other = call("s2").await.unwrap();
        assert!(other.context().is_empty());
        let second = call("s1").await.unwrap();
        assert_eq!(second.context(), ["lint: 0 problems"]);
        assert_eq!(second.user_messages(), ["lint ran", "sync"]);
        assert!(!second.is_blocked());
        // The second call started the hook again: a shutdown lets it finish, and
        // its notes still reach the session; after it, nothing starts.
        assert_eq!(stack.shutdown(Duration::from_secs(5)).await, 0);
        let third = call("s1").await.unwrap();
        assert_eq!(third.context(), ["lint: 0 problems"]);
        assert_eq!(third.hooks()[0].outcome(), RecordOutcome::Error);
        assert_eq!(
            third.hooks()[0].reason(),
            Some("not started: the stack is shut down")
        );
        assert_eq!(third.user_messages(), ["lint ran", "sync"]);
    })
    .await;
}

/// A full background queue drops the run with a report line and never makes
/// the call wait; a shutdown cancels what runs and leaves no process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_background_queue_drops_runs_and_shutdown_kills_the_rest() {
    support::bounded(async {
        use std::time::{Duration, Instant};
        let dir = tempfile::tempdir().unwrap();
        let pids = support::PidFile::new();
        let slow = format!("echo $$ >> {f}; sleep 30 & sleep 30", f = pids.quoted());
        let (stack, lines) = background_stack(
            dir.path(),
            json!({"hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": slow, "async": true},
            ]}]}}),
            tower_hooks::process::background::BackgroundLimits::new(1, 1),
        );
        let started = Instant::now();
        let mut records = Vec::new();
        for _ in 0..3 {
            let outcome = stack
                .clone()
                .oneshot(HookRequest::stop(false, "done"))
                .await
                .unwrap();
            records.push((
                outcome.hooks()[0].outcome(),
                outcome.hooks()[0].reason().map(str::to_owned),
            ));
        }
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(records[0].0, RecordOutcome::Allow);
        assert_eq!(records[1].0, RecordOutcome::Allow);
        assert_eq!(records[2].0, RecordOutcome::Error);
        assert_eq!(
            records[2].1.as_deref(),
            Some("dropped: the background queue is full")
        );
        assert_eq!(stack.background().dropped(), 1);
        assert_eq!(
            *lines.lock().unwrap(),
            ["nanopi: background hook dropped; queue full [matcher=* dropped=1]"]
        );
        // One runs (the other waits its turn); a shutdown with a short grace
        // cancels both and kills the running one's group.
        let running = pids.wait_for(1, Duration::from_secs(10));
        assert_eq!(stack.shutdown(Duration::from_millis(200)).await, 2);
        for pgid in running {
            support::assert_no_process_left(pgid, &[pgid]);
        }
    })
    .await;
}

/// What a Claude Code block does follows Claude Code's table, not the neutral
/// point's: PreCompact prevents the compaction (nanopi's point only reports
/// blocks), PostToolUse only reaches the model, and neither prints nanopi's
/// advisory report line.
#[tokio::test]
async fn a_claude_block_means_what_claude_code_says_at_each_event() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let block = "echo '{\"decision\": \"block\", \"reason\": \"not now\"}'";
        let (stack, lines) = background_stack(
            dir.path(),
            json!({"hooks": {
                "PreCompact": [{"hooks": [{"type": "command", "command": block}]}],
                "PostToolUse": [{"hooks": [{"type": "command", "command": block}]}],
            }}),
            Default::default(),
        );
        let compact = stack
            .clone()
            .oneshot(HookRequest::session_before_compact(
                tower_hooks::CompactionReason::Manual,
            ))
            .await
            .unwrap();
        assert!(compact.is_blocked());
        assert_eq!(compact.reason(), Some("not now"));

        let after = stack
            .clone()
            .oneshot(HookRequest::tool_execution_end(
                "Read",
                json!({"file_path": "a"}),
                "text",
                false,
                std::time::Duration::ZERO,
            ))
            .await
            .unwrap();
        assert_eq!(after.decision(), tower_hooks::Decision::Block);
        assert!(!after.is_honored());
        assert_eq!(after.context(), ["not now"]);
        assert!(
            lines.lock().unwrap().is_empty(),
            "{:?}",
            lines.lock().unwrap()
        );
    })
    .await;
}

/// Claude Code reads a hook's JSON answer whatever its exit status: a guard
/// that prints a deny and exits 1 denies; one that exits 2 blocks with its
/// JSON's own reason and still hands over its context and message; the
/// hook's record says which of these happened.
#[tokio::test]
async fn a_json_answer_counts_on_every_exit_status() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let deny_exit_1 = r#"cat >/dev/null
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
  "permissionDecisionReason": "no rm here"}}
JSON
exit 1"#;
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler(deny_exit_1)]}]}}),
    );
    let outcome = stack
        .oneshot(HookRequest::tool_execution_start(
            "Bash",
            json!({"command": "rm -rf x"}),
        ))
        .await
        .unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("no rm here"));
    let record = &outcome.hooks()[0];
    assert_eq!(record.outcome(), RecordOutcome::Block);
    assert_eq!(record.run().and_then(|r| r.exit_code()), Some(1));
    assert!(
        record.warnings()[0].contains("status 1"),
        "{:?}",
        record.warnings()
    );

    let dir = tempfile::tempdir().unwrap();
    let exit_2 = r#"cat >/dev/null
echo '{"systemMessage": "guard v2", "decision": "block", "reason": "json reason",
  "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "see AGENTS.md"}}'
echo "stderr reason" >&2
exit 2"#;
    let allow_exit_2 = r#"cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
  "additionalContext": "allowed?"}}'
echo "stderr reason" >&2
exit 2"#;
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"hooks": [handler(exit_2), handler(allow_exit_2)]}]}}),
    );
    let outcome = stack
        .oneshot(HookRequest::tool_execution_start(
            "Bash",
            json!({"command": "ls"}),
        ))
        .await
        .unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("json reason\nstderr reason"));
    assert_eq!(outcome.context(), ["see AGENTS.md", "allowed?"]);
    assert_eq!(outcome.user_messages(), ["guard v2"]);
    assert!(outcome.hooks()[0].warnings().is_empty());
    assert_eq!(outcome.hooks()[1].warnings().len(), 1);
    })
    .await;
}

/// A Stop block with `additionalContext`: the agent goes on with both, the
/// block's reason first (Claude Code 2.1.332 gives the model both; the host
/// scenario `claude/stop_block_and_context` shows it).
#[tokio::test]
async fn a_stop_blocks_context_follows_its_reason() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let both = r#"cat >/dev/null
echo '{"decision": "block", "reason": "fix lint", "hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "see CI"}}'"#;
        let stack = settings_stack(
            dir.path(),
            json!({"hooks": {"Stop": [{"hooks": [handler(both)]}]}}),
        );
        let outcome = stack
            .oneshot(HookRequest::stop(false, "done"))
            .await
            .unwrap();
        assert!(outcome.is_blocked());
        assert_eq!(outcome.reason(), Some("fix lint"));
        assert_eq!(outcome.follow_up(), Some("fix lint\nsee CI"));
    })
    .await;
}

/// A Stop hook's `additionalContext` sends the agent back to work without a
/// block: the outcome allows, and its follow-up is the text.
#[tokio::test]
async fn stop_additional_context_is_a_follow_up() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let keep_going = r#"cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "the tests still fail"}}'"#;
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"Stop": [{"hooks": [handler(keep_going)]}]}}),
    );
    let outcome = stack
        .oneshot(HookRequest::stop(false, "done"))
        .await
        .unwrap();
    assert_eq!(outcome.decision(), tower_hooks::Decision::Allow);
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.follow_up(), Some("the tests still fail"));
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Allow);
    })
    .await;
}

/// `CLAUDE_ENV_FILE` at SessionStart: the lines a hook writes become the
/// outcome's environment and reach the session's later hooks (and no other
/// session's); a line that is no assignment is left out with a warning in
/// the hook's record; the file is gone once the run is over.
#[tokio::test]
async fn claude_env_file_variables_reach_the_host_and_no_later_hook() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    let setup = r#"cat >/dev/null
printf '%s' "$CLAUDE_ENV_FILE" > "$CLAUDE_PROJECT_DIR/env-file-path"
echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"
echo "PROFILE='dev box'" >> "$CLAUDE_ENV_FILE"
echo 'source ~/.nvm/nvm.sh' >> "$CLAUDE_ENV_FILE""#;
    let later = format!(
        "cat >/dev/null; printf '%s|%s|%s' \"$NODE_ENV\" \"$PROFILE\" \"${{CLAUDE_ENV_FILE-none}}\" > {}",
        seen.display()
    );
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {
            "SessionStart": [{"hooks": [handler(setup)]}],
            "PreToolUse": [{"hooks": [handler(&later)]}],
        }}),
    );
    let outcome = stack
        .clone()
        .oneshot(
            HookRequest::session_start(tower_hooks::StartReason::Startup).with_session_id("s1"),
        )
        .await
        .unwrap();
    let env: Vec<(&str, &str)> = outcome
        .env()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(env, [("NODE_ENV", "production"), ("PROFILE", "dev box")]);
    let warnings = outcome.hooks()[0].warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("source ~/.nvm/nvm.sh"), "{warnings:?}");
    // The file was private to the run, and is gone.
    let path = std::fs::read_to_string(dir.path().join("env-file-path")).unwrap();
    assert!(!path.is_empty());
    assert!(!Path::new(&path).exists(), "{path}");
    let json = serde_json::to_value(&outcome).unwrap();
    assert_eq!(
        json["env"],
        json!({"NODE_ENV": "production", "PROFILE": "dev box"})
    );

    // They are for the agent's shell commands: a later hook of the session
    // does not get them (a project's SessionStart hook must not set PATH for
    // a guard), nor an env file of its own.
    let call = HookRequest::tool_execution_start("Bash", json!({"command": "ls"}));
    for session in ["s1", "s2"] {
        let call = call.clone().with_session_id(session);
        stack.clone().oneshot(call).await.unwrap();
        assert_eq!(std::fs::read_to_string(&seen).unwrap(), "||none");
    }
    })
    .await;
}

/// Each dialect sees its own name for the tool's kind: a host's `bash` is
/// Claude Code's `Bash`, so a `"matcher": "Bash"` guard and its `if` rule
/// run, its envelope says `Bash`, and its record reports it; a host name
/// that is already Claude Code's stays; a host's alias for Claude Code wins.
#[tokio::test]
async fn claude_hooks_see_claude_code_names_for_the_hosts_tools() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    let guard = format!("cat > {}; echo 'no rm here' >&2; exit 2", seen.display());
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": guard, "if": "Bash(rm *)"}]},
            {"matcher": "MultiEdit|mcp__ops__.*", "hooks": [handler("cat >/dev/null; echo 'not that' >&2; exit 2")]},
        ]}}),
    );
    let outcome = stack
        .clone()
        .oneshot(HookRequest::tool_execution_start(
            "bash",
            json!({"command": "rm -rf x"}),
        ))
        .await
        .unwrap();
    assert!(outcome.is_blocked(), "{:?}", outcome.hooks());
    assert_eq!(outcome.reason(), Some("no rm here"));
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(stdin["tool_name"], "Bash");
    assert_eq!(outcome.hooks()[0].tool_name(), Some("Bash"));
    // The host's own name is what the request and the outcome keep.
    assert_eq!(outcome.arguments(), &json!({"command": "rm -rf x"}));

    // `MultiEdit` is Claude Code's own name: it stays.
    let outcome = stack
        .clone()
        .oneshot(HookRequest::tool_execution_start("MultiEdit", json!({})))
        .await
        .unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.hooks()[1].tool_name(), Some("MultiEdit"));

    // A tool of kind "other" keeps the host's name, unless the host aliases it.
    let tools = tower::service_fn(|_call: ToolCall| async {
        Ok::<_, Infallible>(ToolResult::ok("deployed"))
    });
    let mut plain = ServiceBuilder::new()
        .layer(ToolHooksLayer::new(stack.clone()))
        .service(tools);
    let call = ToolCall::new("deploy", "t1", json!({}));
    let result = plain
        .ready()
        .await
        .unwrap()
        .call(call.clone())
        .await
        .unwrap();
    assert_eq!(result, ToolResult::ok("deployed"));
    let mut aliased = ServiceBuilder::new()
        .layer(
            ToolHooksLayer::new(stack)
                .with_tool_alias("deploy", Dialect::Claude, "mcp__ops__deploy")
                .with_tool_alias("deploy", Dialect::Cursor, "ignored here"),
        )
        .service(tools);
    let result = aliased.ready().await.unwrap().call(call).await.unwrap();
    assert_eq!(result, ToolResult::error("blocked by hook: not that"));
    })
    .await;
}

/// Every Claude Code event can be fired by name: the hooks of that name run
/// (and no other's), see the raw fields, and a block means what Claude
/// Code's exit-2 table says for that event.
#[tokio::test]
async fn events_with_no_neutral_point_run_when_fired_by_name() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    let record = format!("cat > {}; echo 'not now' >&2; exit 2", seen.display());
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {
            "TaskCreated": [{"hooks": [handler(&record)]}],
            "TeammateIdle": [{"hooks": [handler("cat >/dev/null; echo 'take the next task' >&2; exit 2")]}],
            "CwdChanged": [{"hooks": [handler(
                "cat >/dev/null; echo 'export IN_REPO=1' >> \"$CLAUDE_ENV_FILE\"; echo no >&2; exit 2")]}],
            "ConfigChange": [{"hooks": [handler("exit 2")]}],
        }}),
    );
    let fields = json!({"task_id": "t1", "task_subject": "ship it", "session_id": "s1"});
    let task = claude::request("TaskCreated", fields.as_object().unwrap().clone()).unwrap();
    let outcome = stack.clone().oneshot(task).await.unwrap();
    assert!(outcome.is_blocked(), "TaskCreated: exit 2 blocks");
    assert_eq!(outcome.reason(), Some("not now"));
    assert_eq!(
        outcome.hooks().len(),
        1,
        "only the TaskCreated hook is part of it"
    );
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(stdin["hook_event_name"], "TaskCreated");
    assert_eq!(stdin["task_subject"], "ship it");
    assert_eq!(stdin["session_id"], "s1");

    let idle = HookRequest::named("TeammateIdle", json!({"teammate_name": "b"}));
    let outcome = stack.clone().oneshot(idle).await.unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.follow_up(), Some("take the next task"));

    // CwdChanged cannot block; its hooks get CLAUDE_ENV_FILE.
    let cwd = HookRequest::named("CwdChanged", json!({"old_cwd": "/a", "new_cwd": "/b"}))
        .with_session_id("s1");
    let outcome = stack.clone().oneshot(cwd).await.unwrap();
    assert_eq!(outcome.decision(), tower_hooks::Decision::Block);
    assert!(!outcome.is_honored());
    assert_eq!(outcome.env(), [("IN_REPO".to_owned(), "1".to_owned())]);

    // A name nobody configured runs nothing.
    let outcome = stack
        .oneshot(HookRequest::named("WorktreeCreate", json!({})))
        .await
        .unwrap();
    assert!(outcome.hooks().is_empty());
    assert!(!outcome.is_blocked());
    })
    .await;
}

/// What Claude Code hands its own features (a session title, paths to watch,
/// permission updates) reaches the host as typed fields of the outcome.
#[tokio::test]
async fn fields_for_the_hosts_own_features_reach_the_outcome() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let start = r#"cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "sessionTitle": "Fix the build", "watchPaths": [".env"]}}'"#;
    let allow = r#"cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]}}}'"#;
    let stack = settings_stack(
        dir.path(),
        json!({"hooks": {
            "SessionStart": [{"hooks": [handler(start)]}],
            "PermissionRequest": [{"hooks": [handler(allow)]}],
        }}),
    );
    let outcome = stack
        .clone()
        .oneshot(HookRequest::session_start(
            tower_hooks::StartReason::Startup,
        ))
        .await
        .unwrap();
    assert_eq!(outcome.session_title(), Some("Fix the build"));
    assert_eq!(outcome.watch_paths(), Some(&[".env".to_owned()][..]));

    let fields = json!({"tool_name": "Edit", "tool_input": {"file_path": "a"}});
    let ask = claude::request("PermissionRequest", fields.as_object().unwrap().clone()).unwrap();
    let outcome = stack.oneshot(ask).await.unwrap();
    assert!(outcome.is_approved());
    assert_eq!(
        outcome.updated_permissions(),
        [json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"})]
    );
    })
    .await;
}

/// A Claude Code settings file in a fresh project, loaded.
fn claude_config(root: &Path, settings: Value) -> tower_hooks::config::Config {
    let path = root.join(".claude/settings.json");
    write(&path, &settings.to_string());
    tower_hooks::config::Config::load_files(&[tower_hooks::config::ConfigFile::detect(&path)], root)
        .unwrap()
}

async fn fire(stack: &HookStack, req: HookRequest) -> tower_hooks::HookOutcome {
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        stack.clone().oneshot(req),
    )
    .await
    .expect("bounded")
    .unwrap()
}

#[tokio::test]
async fn an_mcp_tool_handler_calls_the_hosts_mcp_client_with_its_filled_input() {
    support::bounded(async {
        use tower_hooks::layer::mcp::McpRequest;
        let dir = tempfile::tempdir().unwrap();
        let config = claude_config(
            dir.path(),
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
                "type": "mcp_tool",
                "server": "policy",
                "tool": "check_command",
                "input": {"command": "${tool_input.command}", "event": "${hook_event_name}", "n": 1}
            }]}]}}),
        );
        // The handler loads with a warning that it runs only with an MCP client.
        assert!(config
            .warnings()
            .iter()
            .any(|w| w.to_string().contains("Builder::mcp")));
        let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = calls.clone();
        // The host's MCP client, in process: a policy tool that denies `rm -rf`
        // in Claude Code's JSON, and fails for `curl` as a disconnected server would.
        let client = tower::service_fn(move |call: McpRequest| {
            log.lock().unwrap().push(call.clone());
            async move {
                let command = call.input["command"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                if command.contains("curl") {
                    return Err("server policy is not connected".to_owned());
                }
                Ok(if command.contains("rm -rf") {
                    json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the policy tool says no"}})
                    .to_string()
                } else {
                    String::new()
                })
            }
        });
        let stack = HookStack::builder()
            .report(())
            .mcp(client)
            .config(&config)
            .build();

        let denied = fire(
            &stack,
            HookRequest::tool_execution_start("bash", json!({"command": "rm -rf /"})),
        )
        .await;
        assert!(denied.is_blocked(), "{denied:?}");
        assert_eq!(denied.reason(), Some("the policy tool says no"));
        {
            let calls = calls.lock().unwrap();
            assert_eq!(
                (calls[0].server.as_str(), calls[0].tool.as_str()),
                ("policy", "check_command")
            );
            assert_eq!(
                calls[0].input,
                json!({"command": "rm -rf /", "event": "PreToolUse", "n": 1})
            );
        }

        let allowed = fire(
            &stack,
            HookRequest::tool_execution_start("bash", json!({"command": "ls"})),
        )
        .await;
        assert!(!allowed.is_blocked());
        assert_eq!(allowed.hooks()[0].outcome(), RecordOutcome::Allow);

        // A client that fails lets the call go ahead, with the error recorded.
        let failed = fire(
            &stack,
            HookRequest::tool_execution_start("bash", json!({"command": "curl x"})),
        )
        .await;
        assert!(!failed.is_blocked());
        assert_eq!(failed.hooks()[0].outcome(), RecordOutcome::Error);
        assert!(
            failed.hooks()[0]
                .reason()
                .is_some_and(|r| r.contains("server policy is not connected")),
            "{:?}",
            failed.hooks()[0].reason()
        );

        // Without a client the handler is listed and skipped.
        let without = HookStack::builder().report(()).config(&config).build();
        let skipped = fire(
            &without,
            HookRequest::tool_execution_start("bash", json!({"command": "rm -rf /"})),
        )
        .await;
        assert!(!skipped.is_blocked());
        assert_eq!(skipped.hooks()[0].outcome(), RecordOutcome::Skipped);
    })
    .await;
}

/// A guard that defers `AskUserQuestion` (with context Claude Code drops
/// beside a defer) and asks about `deploy`.
const DEFERRING_GUARD: &str = r#"#!/bin/sh
input=$(cat)
case "$input" in
  *AskUserQuestion*) printf '%s' '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "defer", "permissionDecisionReason": "for the log only",
    "additionalContext": "dropped"}}' ;;
  *deploy*) printf '%s' '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "ask", "permissionDecisionReason": "deploys need a person"}}' ;;
esac
"#;

#[tokio::test]
async fn a_deferred_call_neither_runs_nor_asks_and_stops_the_agent() {
    support::bounded(async {
        use tower_hooks::{Approval, ApprovalRequest};
        let dir = tempfile::tempdir().unwrap();
        script(&dir.path().join("defer.sh"), DEFERRING_GUARD);
        let config = claude_config(
            dir.path(),
            json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/defer.sh"}]}]}}),
        );
        let stack = HookStack::builder().report(()).config(&config).build();

        let outcome = fire(
            &stack,
            HookRequest::tool_execution_start("AskUserQuestion", json!({"questions": []})),
        )
        .await;
        assert!(
            outcome.is_deferred() && outcome.needs_approval(),
            "{outcome:?}"
        );
        assert_eq!(outcome.reason(), Some("deferred by hook"));
        assert!(outcome.context().is_empty(), "{:?}", outcome.context());
        let asked = fire(
            &stack,
            HookRequest::tool_execution_start("Bash", json!({"command": "deploy"})),
        )
        .await;
        assert!(asked.needs_approval() && !asked.is_deferred());

        // Through the tool layer: the deferred call neither runs nor reaches the
        // approver; the ask does.
        let ran = Arc::new(AtomicUsize::new(0));
        let counter = ran.clone();
        let tools = tower::service_fn(move |_call: ToolCall| {
            counter.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, Infallible>(ToolResult::ok("ran")) }
        });
        let approvals = Arc::new(AtomicUsize::new(0));
        let seen = approvals.clone();
        let approver = tower::service_fn(move |_req: ApprovalRequest| {
            seen.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, Infallible>(Approval::Approve) }
        });
        let mut tools = ServiceBuilder::new()
            .layer(ToolHooksLayer::new(stack).with_approver(approver))
            .service(tools);
        let call = ToolCall::new("AskUserQuestion", "toolu_1", json!({"questions": []}));
        let result = tools.ready().await.unwrap().call(call).await.unwrap();
        assert!(result.is_deferred() && result.is_error(), "{result:?}");
        assert!(result.stop().is_some());
        assert_eq!(
            (ran.load(Ordering::SeqCst), approvals.load(Ordering::SeqCst)),
            (0, 0)
        );
        let call = ToolCall::new("Bash", "toolu_2", json!({"command": "deploy"}));
        let result = tools.ready().await.unwrap().call(call).await.unwrap();
        assert!(!result.is_deferred());
        assert_eq!(result, ToolResult::ok("ran"));
        assert_eq!(
            (ran.load(Ordering::SeqCst), approvals.load(Ordering::SeqCst)),
            (1, 1)
        );
    })
    .await;
}

/// An `asyncRewake` hook that exits 2 wakes the agent: the host's callback
/// hears of it as soon as it ends, and the session's next call brings its
/// stderr (else its stdout) as context; an `async` hook's exit 2, or a
/// rewake hook's exit 0, wakes nobody.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_rewake_hooks_exit_2_reaches_the_host_and_the_next_call() {
    support::bounded(async {
    use std::time::Duration;
    use tower_hooks::process::background::WakeUp;
    let dir = tempfile::tempdir().unwrap();
    script(
        &dir.path().join("tests.sh"),
        "#!/bin/sh\ncat >/dev/null\necho '3 tests failed' >&2\nexit 2\n",
    );
    script(
        &dir.path().join("quiet.sh"),
        "#!/bin/sh\ncat >/dev/null\necho 'only stdout'\nexit 2\n",
    );
    let config = claude_config(
        dir.path(),
        json!({"hooks": {"PostToolUse": [{"hooks": [
            {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/tests.sh", "asyncRewake": true},
            {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/quiet.sh", "asyncRewake": true},
            {"type": "command", "command": "echo 'not a wake-up' >&2; exit 2", "async": true},
            {"type": "command", "command": "echo fine >&2", "asyncRewake": true},
        ]}]}}),
    );
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<WakeUp>();
    let stack = HookStack::builder()
        .report(())
        .config(&config)
        .on_wake_up(move |wake: WakeUp| {
            let _ = tx.send(wake);
        })
        .build();
    let ended = |session: &str| {
        HookRequest::tool_execution_end(
            "Bash",
            json!({"command": "cargo test"}),
            "ok",
            false,
            Duration::from_millis(5),
        )
        .with_session_id(session)
    };
    let first = fire(&stack, ended("s1")).await;
    assert!(!first.is_blocked(), "{first:?}");

    let mut heard = Vec::new();
    for _ in 0..2 {
        let wake = tokio::time::timeout(Duration::from_secs(20), rx.recv())
            .await
            .expect("woken within the bound")
            .unwrap();
        heard.push((wake.session_id, wake.message));
    }
    heard.sort();
    assert_eq!(
        heard,
        [
            ("s1".to_owned(), "3 tests failed".to_owned()),
            ("s1".to_owned(), "only stdout".to_owned())
        ]
    );
    // The other two hooks end too; neither wakes anyone.
    assert_eq!(stack.shutdown(Duration::from_secs(10)).await, 0);
    assert!(rx.try_recv().is_err());

    // The session's next call brings the wake-ups (the first one did, if
    // the hooks were done before it returned).
    let next = fire(&stack, ended("s1")).await;
    let woken = first.wake_up().into_iter().chain(next.wake_up());
    let mut woken: Vec<&str> = woken.flat_map(str::lines).collect();
    woken.sort();
    assert_eq!(woken, ["3 tests failed", "only stdout"]);
    let context = first.context().iter().chain(next.context());
    assert!(context.clone().any(|c| c == "3 tests failed"), "{next:?}");
    })
    .await;
}

/// A plugin's hooks come from its `hooks/hooks.json` and from its manifest
/// `.claude-plugin/plugin.json`: inline (as events, or wrapped in `hooks`) or
/// as paths of more hooks files; `${CLAUDE_PLUGIN_ROOT}` is the plugin's root
/// in all of them, and their errors name the file.
#[tokio::test]
async fn hooks_declared_in_a_plugins_manifest_load_and_run() {
    support::bounded(async {
    use tower_hooks::config::{Discovery, Format};
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    // The guard looks at the command only (a `"` can only start a JSON key or
    // value, never sit unescaped inside a string such as the cwd), so the
    // path of the checkout cannot trip it.
    let guard = r#"#!/bin/sh
input=$(cat)
case "$input" in *'"command":"'"$1 "*) echo "$1 refused by $(basename "$CLAUDE_PLUGIN_ROOT")" >&2; exit 2 ;; esac
"#;
    let handler = |word: &str| json!({"type": "command", "command": format!("${{CLAUDE_PLUGIN_ROOT}}/guard.sh {word}")});
    let plugin = |name: &str, manifest: Value| {
        let root = dir.path().join(name);
        script(&root.join("guard.sh"), guard);
        write(
            &root.join(".claude-plugin/plugin.json"),
            &manifest.to_string(),
        );
        root
    };
    // Inline, as a settings file's events.
    let inline = plugin(
        "inline",
        json!({"name": "inline", "version": "1.0.0",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler("curl")]}]}}),
    );
    // Inline, wrapped as a hooks file is, beside a hooks/hooks.json.
    let wrapped = plugin(
        "wrapped",
        json!({"name": "wrapped",
            "hooks": {"hooks": {"PreToolUse": [{"hooks": [handler("wget")]}]}}}),
    );
    write(
        &wrapped.join("hooks/hooks.json"),
        &json!({"hooks": {"PreToolUse": [{"hooks": [handler("scp")]}]}}).to_string(),
    );
    // Paths of more hooks files; hooks/hooks.json is not read twice.
    let listed = plugin(
        "listed",
        json!({"name": "listed", "hooks": ["./extra/more.json", "./hooks/hooks.json"]}),
    );
    write(
        &listed.join("extra/more.json"),
        &json!({"hooks": {"PreToolUse": [{"hooks": [handler("ssh")]}]}}).to_string(),
    );
    write(
        &listed.join("hooks/hooks.json"),
        &json!({"hooks": {"PreToolUse": [{"hooks": [handler("nc")]}]}}).to_string(),
    );
    let config = Discovery::new(&project)
        .with_home(None)
        .with_system_files(false)
        .format(Format::Claude)
        .with_folder(Format::Claude, &inline)
        .with_folder(Format::Claude, &wrapped)
        .with_folder(Format::Claude, &listed)
        .load()
        .unwrap();
    assert_eq!(config.hooks().len(), 5, "{:?}", config.hooks());
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let sources: Vec<&str> = config.hooks().iter().map(|h| h.source()).collect();
    assert!(
        sources[0].ends_with("inline/.claude-plugin/plugin.json"),
        "{sources:?}"
    );
    let stack = HookStack::builder().report(()).config(&config).build();
    for (command, refusal) in [
        ("curl x", "curl refused by inline"),
        ("wget x", "wget refused by wrapped"),
        ("scp x", "scp refused by wrapped"),
        ("ssh x", "ssh refused by listed"),
        ("nc x", "nc refused by listed"),
    ] {
        let outcome = fire(
            &stack,
            HookRequest::tool_execution_start("Bash", json!({ "command": command })),
        )
        .await;
        assert!(outcome.is_blocked(), "{command}: {outcome:?}");
        assert_eq!(outcome.reason(), Some(refusal));
    }
    let fine = fire(
        &stack,
        HookRequest::tool_execution_start("Bash", json!({"command": "ls"})),
    )
    .await;
    assert!(!fine.is_blocked());

    // A manifest whose `hooks` is neither names the file and says what fits.
    let bad = plugin("bad", json!({"name": "bad", "hooks": 3}));
    let config = Discovery::new(&project)
        .with_home(None)
        .with_system_files(false)
        .format(Format::Claude)
        .with_folder(Format::Claude, &bad)
        .load()
        .unwrap();
    let text = config.unloaded_files()[0].to_string();
    assert!(
        text.contains("bad/.claude-plugin/plugin.json") && text.contains("\"hooks\""),
        "{text}"
    );
    })
    .await;
}
