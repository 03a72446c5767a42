//! Cursor (and OpenHuman) hooks, unchanged, through the stack: scripts written
//! for Cursor's `hooks.json` are loaded from real files, run as real processes,
//! and their answers refuse tool calls through `ToolHooksLayer`, run in the
//! background, keep going at `stop` (within `loop_limit`), pass `env` on to a
//! session's later hooks, fail open or closed, and run in Cursor's order.
//!
//! Timing assertions only bound hangs, generously.

#[path = "../support/mod.rs"]
mod support;

use support::{script, write};

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tower::{Service, ServiceBuilder, ServiceExt};
use tower_hooks::config::{Config, ConfigFile, Discovery, Format};
use tower_hooks::report::Notice;
use tower_hooks::request::StartReason;
use tower_hooks::{
    Dialect, Event, HookOutcome, HookRequest, HookStack, RecordOutcome, ToolCall, ToolHooksLayer,
    ToolResult,
};

// --- helpers ----------------------------------------------------------------

/// `{"version": 1, "hooks": hooks}`, as Cursor's docs write it.
fn hooks_json(hooks: Value) -> String {
    serde_json::to_string_pretty(&json!({"version": 1, "hooks": hooks})).unwrap()
}

/// Writes `hooks` as the project's `.cursor/hooks.json` and loads it the way
/// a host handed that file would.
fn load_project(project: &Path, hooks: Value) -> Config {
    let path = project.join(".cursor/hooks.json");
    write(&path, &hooks_json(hooks));
    let file = ConfigFile::detect(&path);
    assert_eq!(file.format(), Format::Cursor, "a hooks.json with a version");
    let config = Config::load_files(&[file], project).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    assert!(config
        .hooks()
        .iter()
        .all(|h| h.dialect() == Dialect::Cursor));
    config
}

type Lines = Arc<Mutex<Vec<String>>>;

/// A stack of the configuration's hooks whose report lines are collected.
fn stack_of(config: &Config) -> (HookStack, Lines) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stack = HookStack::builder()
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")))
        .config(config)
        .build();
    (stack, lines)
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

fn rec(
    event: &str,
    outcome: RecordOutcome,
    reason: Option<&str>,
) -> (String, RecordOutcome, Option<String>) {
    (event.to_owned(), outcome, reason.map(str::to_owned))
}

/// The JSON objects of a file of JSON lines.
fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn quoted(path: &Path) -> String {
    support::shell_quote(path)
}

fn tool_start(tool: &str, arguments: Value, session: &str) -> HookRequest {
    HookRequest::tool_execution_start(tool, arguments).with_session_id(session)
}

// --- 1. a guard blocks a shell call ----------------------------------------

/// A `beforeShellExecution` guard as Cursor's docs write it: exit 2 and a
/// reason on stderr. It saves its stdin (from the project root, where a
/// project's hooks run).
const SHELL_GUARD: &str = r#"#!/bin/sh
input=$(cat)
printf '%s\n' "$input" > .cursor/seen-shell.json
case "$input" in
  *'rm -rf'*)
    echo "rm -rf is not allowed here" >&2
    exit 2
    ;;
esac
echo '{"permission": "allow"}'
"#;

/// A `preToolUse` scanner that logs a few lines, then answers on its last line.
const SECRETS: &str = r#"#!/bin/sh
input=$(cat)
printf '%s\n' "$input" > .cursor/seen-pre.json
echo "secrets scan v1.2"
echo "rules: 14 loaded"
echo "event: $CURSOR_HOOK_EVENT in $CURSOR_PROJECT_DIR"
case "$input" in
  *'cat .env'*)
    echo '{"permission":"deny","agentMessage":"reading .env leaks secrets","userMessage":"Blocked a read of .env"}'
    ;;
  *)
    echo '{"permission":"allow"}'
    ;;
esac
"#;

#[tokio::test]
async fn a_cursor_guard_blocks_a_shell_call_through_the_tool_layer_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    script(&project.join(".cursor/hooks/shell-guard.sh"), SHELL_GUARD);
    script(&project.join(".cursor/hooks/secrets.sh"), SECRETS);
    let config = load_project(
        project,
        json!({
            "beforeShellExecution": [{"command": ".cursor/hooks/shell-guard.sh", "timeout": 10}],
            "preToolUse": [{"command": ".cursor/hooks/secrets.sh", "matcher": "Shell|Bash", "timeout": 10}],
        }),
    );
    let (stack, lines) = stack_of(&config);

    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    let tools = tower::service_fn(move |_call: ToolCall| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, Infallible>(ToolResult::ok("ran")) }
    });
    let outcomes: Arc<Mutex<Vec<HookOutcome>>> = Arc::default();
    let seen = outcomes.clone();
    let mut tools = ServiceBuilder::new()
        .layer(
            ToolHooksLayer::new(stack.clone())
                .with_session_id("s-1")
                .on_outcome(move |req, outcome| {
                    if req.event() == Event::ToolExecutionStart {
                        seen.lock().unwrap().push(outcome.clone());
                    }
                }),
        )
        .service(tools);

    for (tool, id, command, want) in [
        (
            "Shell",
            "c1",
            "rm -rf build",
            ToolResult::error("blocked by hook: rm -rf is not allowed here"),
        ),
        (
            "Bash",
            "c2",
            "cat .env",
            ToolResult::error("blocked by hook: reading .env leaks secrets"),
        ),
        ("Bash", "c3", "ls", ToolResult::ok("ran")),
    ] {
        let call = ToolCall::new(tool, id, json!({ "command": command }));
        let result = tools.ready().await.unwrap().call(call).await.unwrap();
        assert_eq!(result, want, "{tool}: {command}");
    }
    assert_eq!(ran.load(Ordering::SeqCst), 1, "only `ls` ran");

    let outcomes = outcomes.lock().unwrap();
    assert_eq!(
        records(&outcomes[0]),
        [
            rec("preToolUse", RecordOutcome::Allow, None),
            rec(
                "beforeShellExecution",
                RecordOutcome::Block,
                Some("rm -rf is not allowed here")
            ),
        ]
    );
    assert_eq!(
        records(&outcomes[1]),
        [
            rec(
                "preToolUse",
                RecordOutcome::Block,
                Some("reading .env leaks secrets")
            ),
            rec("beforeShellExecution", RecordOutcome::NotRun, None),
        ]
    );
    assert_eq!(outcomes[1].user_messages(), ["Blocked a read of .env"]);
    assert_eq!(
        records(&outcomes[2]),
        [
            rec("preToolUse", RecordOutcome::Allow, None),
            rec("beforeShellExecution", RecordOutcome::Allow, None),
        ]
    );
    assert!(outcomes[2].is_approved(), "both hooks said allow");
    assert!(
        lines.lock().unwrap().is_empty(),
        "{:?}",
        lines.lock().unwrap()
    );

    // The scripts saw Cursor's envelopes of the last call.
    let root = project.display().to_string();
    let pre = &json_lines(&project.join(".cursor/seen-pre.json"))[0];
    assert_eq!(pre["hook_event_name"], "preToolUse");
    // Cursor's name for the host's shell tool.
    assert_eq!(pre["tool_name"], "Shell");
    assert_eq!(pre["tool_input"], json!({"command": "ls"}));
    assert_eq!(pre["tool_use_id"], "c3");
    assert_eq!(pre["generation_id"], "c3");
    assert_eq!(pre["conversation_id"], "s-1");
    assert_eq!(pre["session_id"], "s-1");
    assert_eq!(pre["workspace_roots"], json!([root]));
    assert!(pre["cursor_version"].is_string(), "{pre}");
    let shell = &json_lines(&project.join(".cursor/seen-shell.json"))[0];
    assert_eq!(shell["hook_event_name"], "beforeShellExecution");
    assert_eq!(shell["command"], "ls");
    assert_eq!(shell["sandbox"], false);
    assert!(shell.get("event").is_none() && shell.get("arguments").is_none());
}

// --- 2. observing hooks run in the background ------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn observing_hooks_never_delay_the_call_and_shutdown_kills_them() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let pids = support::PidFile::new();
    let slow = format!("echo $$ >> {}; sleep 5", pids.quoted());
    let config = load_project(
        project,
        json!({
            "afterShellExecution": [{"command": slow}],
            "afterFileEdit": [{"command": slow}],
        }),
    );
    let (stack, _lines) = stack_of(&config);
    let ends: Arc<Mutex<Vec<HookOutcome>>> = Arc::default();
    let seen = ends.clone();
    let tools = ServiceBuilder::new()
        .layer(
            ToolHooksLayer::new(stack.clone())
                .with_session_id("s-bg")
                .on_outcome(move |req, outcome| {
                    if req.event() == Event::ToolExecutionEnd {
                        seen.lock().unwrap().push(outcome.clone());
                    }
                }),
        )
        .service(tower::service_fn(|call: ToolCall| async move {
            Ok::<_, Infallible>(ToolResult::ok(format!("{} done", call.name)))
        }));

    for (tool, arguments) in [
        ("Bash", json!({"command": "make"})),
        ("Write", json!({"file_path": "a.txt", "content": "x"})),
    ] {
        let started = Instant::now();
        let result = tools
            .clone()
            .oneshot(ToolCall::new(tool, "c", arguments))
            .await
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "the {tool} call waited for its observing hook: {:?}",
            started.elapsed()
        );
        assert_eq!(result, ToolResult::ok(format!("{tool} done")));
    }

    // Each call's record is its own event's hook only, started in the background.
    let ends = std::mem::take(&mut *ends.lock().unwrap());
    let background = Some("started in the background");
    assert_eq!(
        records(&ends[0]),
        [rec("afterShellExecution", RecordOutcome::Allow, background)]
    );
    assert_eq!(
        records(&ends[1]),
        [rec("afterFileEdit", RecordOutcome::Allow, background)]
    );

    // Both run (sleeping); a shutdown with a short grace cancels them and
    // leaves no process.
    let running = pids.wait_for(2, Duration::from_secs(10));
    let started = Instant::now();
    assert_eq!(stack.shutdown(Duration::from_millis(200)).await, 2);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    for pgid in running {
        support::assert_no_process_left(pgid, &[pgid]);
    }
}

// --- 3. stop follow-ups and loop_limit -------------------------------------

#[tokio::test]
async fn a_stop_followup_keeps_going_at_most_loop_limit_times_per_session() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let log = project.join("stop-stdin.jsonl");
    let command = format!(
        "cat >> {}; echo '{{\"followup_message\": \"keep going\"}}'",
        quoted(&log)
    );
    let config = load_project(
        project,
        json!({"stop": [{"command": command, "loop_limit": 2}]}),
    );
    let (stack, _lines) = stack_of(&config);
    let stop = |session: &str| {
        stack
            .clone()
            .oneshot(HookRequest::stop(false, "done").with_session_id(session))
    };
    let mut follow_ups = Vec::new();
    for session in ["a", "a", "a", "b", "a"] {
        let outcome = stop(session).await.unwrap();
        assert!(!outcome.is_blocked());
        follow_ups.push(outcome.follow_up().map(str::to_owned));
    }
    let keep = Some("keep going".to_owned());
    assert_eq!(follow_ups, [keep.clone(), keep.clone(), None, keep, None]);

    // What the hook read: the follow-ups it already caused in its session.
    let seen = json_lines(&log);
    let read: Vec<(String, u64)> = seen
        .iter()
        .map(|v| {
            assert_eq!(v["hook_event_name"], "stop");
            assert_eq!(v["status"], "completed");
            (
                v["session_id"].as_str().unwrap().to_owned(),
                v["loop_count"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("a", 2)]
        .iter()
        .map(|(s, n)| (s.to_string(), *n))
        .collect();
    assert_eq!(read, want);
}

#[tokio::test]
async fn loop_limit_defaults_to_5_and_0_or_null_is_unlimited() {
    for (limit, want) in [(None, 5), (Some(json!(0)), 7), (Some(json!(null)), 7)] {
        let dir = tempfile::tempdir().unwrap();
        let mut entry = json!({"command": "echo '{\"followupMessage\": \"again\"}'"});
        if let Some(limit) = &limit {
            entry["loop_limit"] = limit.clone();
        }
        let config = load_project(dir.path(), json!({"stop": [entry]}));
        let (stack, _lines) = stack_of(&config);
        let mut count = 0;
        for _ in 0..7 {
            let outcome = stack
                .clone()
                .oneshot(HookRequest::stop(false, "done").with_session_id("s"))
                .await
                .unwrap();
            count += usize::from(outcome.follow_up() == Some("again"));
        }
        assert_eq!(count, want, "loop_limit {limit:?}");
    }
}

// --- 4. sessionStart's env -------------------------------------------------

#[tokio::test]
async fn session_start_env_reaches_the_later_hooks_of_its_session_only() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let out = project.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let start =
        r#"echo '{"env": {"MY_VAR": "from start", "COUNT": 3, "CURSOR_HOOK_EVENT": "spoofed"}}'"#;
    let probe = format!(
        r#"printf '%s|%s|%s' "${{MY_VAR-unset}}" "${{COUNT-unset}}" "$CURSOR_HOOK_EVENT" > {}/"var-$CURSOR_SESSION_ID""#,
        quoted(&out)
    );
    let config = load_project(
        project,
        json!({
            "sessionStart": [{"command": start}],
            "preToolUse": [{"command": probe}],
        }),
    );
    let (stack, _lines) = stack_of(&config);
    let started = stack
        .clone()
        .oneshot(HookRequest::session_start(StartReason::Startup).with_session_id("s1"))
        .await
        .unwrap();
    assert_eq!(
        records(&started),
        [rec("sessionStart", RecordOutcome::Allow, None)]
    );
    for session in ["s1", "s2"] {
        let outcome = stack
            .clone()
            .oneshot(tool_start("Bash", json!({"command": "ls"}), session))
            .await
            .unwrap();
        assert_eq!(
            records(&outcome),
            [rec("preToolUse", RecordOutcome::Allow, None)]
        );
    }
    let read = |session: &str| std::fs::read_to_string(out.join(format!("var-{session}"))).unwrap();
    // The protocol's own variables are exact: `env` cannot replace them.
    assert_eq!(read("s1"), "from start|3|preToolUse");
    assert_eq!(read("s2"), "unset|unset|preToolUse");
}

/// A session's `env` that names a host variable shadows it in that session
/// only: a persistent hook, whose process outlives the session, keeps the
/// host's value (from the builder, or inherited) for every other session.
#[tokio::test]
async fn session_env_never_takes_a_host_variable_from_a_persistent_hook() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let out = project.join("seen");
    let start = r#"echo '{"env": {"HOST_VAR": "session", "HOME": "/session-home"}}'"#;
    // Speaks the persistent protocol: for each request it writes the
    // session's value when the request carries one, else its own.
    let probe = format!(
        r#"while IFS= read -r line; do
  id=${{line#'{{"id":'}}; id=${{id%%,*}}
  case "$line" in
    *'"HOST_VAR":"session"'*) v=session ;;
    *) v="${{HOST_VAR-unset}}" ;;
  esac
  case "$line" in
    *'"HOME":"/session-home"'*) h=session ;;
    *) h="${{HOME-unset}}" ;;
  esac
  printf '%s|%s
' "$v" "$h" >> {}
  printf '{{"id":%s,"exit":0,"stdout":"","stderr":""}}
' "$id"
done"#,
        quoted(&out)
    );
    let config = load_project(
        project,
        json!({
            "sessionStart": [{"command": start}],
            "preToolUse": [{"command": probe, "persistent": true}],
        }),
    );
    let stack = HookStack::builder()
        .report(())
        .env("HOST_VAR", "host")
        .config(&config)
        .build();
    stack
        .clone()
        .oneshot(HookRequest::session_start(StartReason::Startup).with_session_id("s1"))
        .await
        .unwrap();
    // The process starts for s1, whose session set both names.
    for session in ["s1", "s2"] {
        let outcome = stack
            .clone()
            .oneshot(tool_start("Bash", json!({"command": "ls"}), session))
            .await
            .unwrap();
        assert_eq!(
            records(&outcome),
            [rec("preToolUse", RecordOutcome::Allow, None)]
        );
    }
    stack.shutdown_persistent().await;
    let home = std::env::var("HOME").unwrap_or_else(|_| "unset".into());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("session|session\nhost|{home}\n")
    );
}

/// `env` is a hook's output: a name no environment can hold must not make the
/// session's later hooks fail to start.
#[tokio::test]
async fn a_bad_variable_name_in_session_start_env_does_not_break_later_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let out = project.join("seen");
    let start = r#"echo '{"env": {"BAD=NAME": "1", "": "2", "GOOD": "yes"}}'"#;
    let probe = format!(r#"printf '%s' "${{GOOD-unset}}" > {}"#, quoted(&out));
    let config = load_project(
        project,
        json!({
            "sessionStart": [{"command": start}],
            "preToolUse": [{"command": probe, "failClosed": true}],
        }),
    );
    let (stack, _lines) = stack_of(&config);
    stack
        .clone()
        .oneshot(HookRequest::session_start(StartReason::Startup).with_session_id("s1"))
        .await
        .unwrap();
    let outcome = stack
        .clone()
        .oneshot(tool_start("Bash", json!({"command": "ls"}), "s1"))
        .await
        .unwrap();
    assert_eq!(
        records(&outcome),
        [rec("preToolUse", RecordOutcome::Allow, None)],
        "the later hook could not start"
    );
    assert!(!outcome.is_blocked());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "yes");
}

// --- 5. failures: open, closed, timeouts -----------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_allow_unless_fail_closed_and_timeouts_are_bounded() {
    let crash = "cat > /dev/null; echo broken >&2; exit 1";
    let cases = [
        (
            json!({"command": crash}),
            false,
            RecordOutcome::Error,
            "exited with status 1: broken",
        ),
        (
            json!({"command": crash, "failClosed": true}),
            true,
            RecordOutcome::FailedClosed,
            "hook failed closed: exited with status 1: broken",
        ),
        (
            json!({"command": crash, "fail_closed": true}),
            true,
            RecordOutcome::FailedClosed,
            "hook failed closed: exited with status 1: broken",
        ),
        (
            json!({"command": "echo 'all good, no JSON'"}),
            false,
            RecordOutcome::Error,
            "stdout holds no JSON answer: all good, no JSON",
        ),
    ];
    for (entry, blocked, want, reason) in cases {
        let dir = tempfile::tempdir().unwrap();
        let config = load_project(dir.path(), json!({"preToolUse": [entry.clone()]}));
        let (stack, _lines) = stack_of(&config);
        let outcome = stack
            .oneshot(tool_start("Bash", json!({"command": "ls"}), "s"))
            .await
            .unwrap();
        assert_eq!(outcome.is_blocked(), blocked, "{entry}");
        assert_eq!(
            records(&outcome),
            [rec("preToolUse", want, Some(reason))],
            "{entry}"
        );
        if blocked {
            assert_eq!(
                outcome.message().as_deref(),
                Some(format!("blocked by hook: {reason}").as_str())
            );
        }
    }

    // A hook past its `timeout` (seconds) fails open, or closed with
    // `failClosed`; the call does not wait for the sleep, and nothing is left.
    for fail_closed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let pids = support::PidFile::new();
        let slow = format!("echo $$ >> {}; sleep 10", pids.quoted());
        let config = load_project(
            dir.path(),
            json!({"preToolUse": [{"command": slow, "timeout": 1, "failClosed": fail_closed}]}),
        );
        let (stack, _lines) = stack_of(&config);
        let started = Instant::now();
        let outcome = tokio::time::timeout(
            Duration::from_secs(20),
            stack.oneshot(tool_start("Bash", json!({"command": "ls"}), "s")),
        )
        .await
        .expect("the timeout bounds the call")
        .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the call waited for the sleep: {:?}",
            started.elapsed()
        );
        assert_eq!(outcome.is_blocked(), fail_closed);
        let (want, reason) = if fail_closed {
            (
                RecordOutcome::FailedClosed,
                "hook failed closed: timed out after 1 s",
            )
        } else {
            (RecordOutcome::Error, "timed out after 1 s")
        };
        assert_eq!(records(&outcome), [rec("preToolUse", want, Some(reason))]);
        for pgid in pids.pids() {
            support::assert_no_process_left(pgid, &[pgid]);
        }
    }
}

// --- 6. derived events: order and skipping ---------------------------------

/// `~/.cursor/hooks.json` holds the derived events' hooks, the project's file
/// the generic `preToolUse`: the files load in that order, and still the
/// generic hook runs first. A deny from it stops the derived ones; a derived
/// event of another kind of tool is not part of the call at all.
#[tokio::test]
async fn generic_hooks_run_first_a_deny_skips_the_derived_ones_and_other_kinds_leave_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let log = dir.path().join("order.log");
    let append = |word: &str| format!("echo {word} >> {}", quoted(&log));
    write(
        &home.join(".cursor/hooks.json"),
        &hooks_json(json!({
            "beforeShellExecution": [{"command": append("shell")}],
            "beforeReadFile": [{"command": append("read")}],
        })),
    );
    write(
        &project.join(".cursor/hooks.json"),
        &hooks_json(json!({"preToolUse": [{"command": format!(
            "{}; if grep -q 'rm -rf'; then echo 'pre says no' >&2; exit 2; fi",
            append("pre")
        )}]})),
    );
    let config = Discovery::new(&project)
        .with_home(Some(home.clone()))
        .with_system_files(false)
        .format(Format::Cursor)
        .load()
        .unwrap();
    assert_eq!(config.hooks().len(), 3);
    let (stack, _lines) = stack_of(&config);
    let call =
        |tool: &str, arguments: Value| stack.clone().oneshot(tool_start(tool, arguments, "s"));
    let read_log = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        std::fs::remove_file(&log).ok();
        text
    };

    let ls = call("Bash", json!({"command": "ls"})).await.unwrap();
    assert!(!ls.is_blocked());
    assert_eq!(
        records(&ls),
        [
            rec("preToolUse", RecordOutcome::Allow, None),
            rec("beforeShellExecution", RecordOutcome::Allow, None),
        ]
    );
    assert_eq!(read_log(), "pre\nshell\n");

    let rm = call("Bash", json!({"command": "rm -rf /"})).await.unwrap();
    assert!(rm.is_blocked());
    assert_eq!(
        rm.message().as_deref(),
        Some("blocked by hook: pre says no")
    );
    assert_eq!(
        records(&rm),
        [
            rec("preToolUse", RecordOutcome::Block, Some("pre says no")),
            rec("beforeShellExecution", RecordOutcome::NotRun, None),
        ]
    );
    assert_eq!(read_log(), "pre\n");

    let read = call("Read", json!({"file_path": "a.txt"})).await.unwrap();
    assert_eq!(
        records(&read),
        [
            rec("preToolUse", RecordOutcome::Allow, None),
            rec("beforeReadFile", RecordOutcome::Allow, None),
        ]
    );
    assert_eq!(read_log(), "pre\nread\n");

    let other = call("Glob", json!({"pattern": "*.rs"})).await.unwrap();
    assert_eq!(
        records(&other),
        [rec("preToolUse", RecordOutcome::Allow, None)]
    );
    assert_eq!(read_log(), "pre\n");
}

/// A `hooks.json` may name one event twice (Cursor's name and Claude Code's,
/// or two spellings): each list keeps its place in the file, as Cursor runs
/// them.
#[tokio::test]
async fn two_spellings_of_one_event_run_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let log = project.join("order.log");
    let path = project.join(".cursor/hooks.json");
    // Written by hand: the keys' order is the point.
    write(
        &path,
        &format!(
            r#"{{"version": 1, "hooks": {{
  "beforeSubmitPrompt": [{{"command": "echo cursor >> {log}"}}],
  "UserPromptSubmit": [{{"command": "echo claude >> {log}"}}]
}}}}"#,
            log = log.display()
        ),
    );
    let config = Config::load_files(&[ConfigFile::detect(&path)], project).unwrap();
    let (stack, _lines) = stack_of(&config);
    let outcome = stack.oneshot(HookRequest::input("hi")).await.unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "cursor\nclaude\n",
        "the hooks ran out of their file's order"
    );
}

// --- 7. OpenHuman ----------------------------------------------------------

#[tokio::test]
async fn openhuman_hooks_get_the_family_variables() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let path = project.join(".openhuman/hooks.json");
    // Relative paths: an OpenHuman project's hooks run from their file's folder.
    write(
        &path,
        &hooks_json(json!({"preToolUse": [{
            "command": "cat > stdin.json; env > env.txt; pwd -P > pwd.txt"
        }]})),
    );
    assert_eq!(ConfigFile::detect(&path).format(), Format::OpenHuman);
    let discovery = Discovery::new(project)
        .with_home(None)
        .with_system_files(false)
        .format(Format::OpenHuman);
    let files: Vec<PathBuf> = discovery
        .files()
        .iter()
        .map(|f| f.path().to_path_buf())
        .collect();
    assert_eq!(files, std::slice::from_ref(&path));
    let config = discovery.load().unwrap();
    let (stack, _lines) = stack_of(&config);
    let outcome = stack
        .oneshot(tool_start("Bash", json!({"command": "ls"}), "oh-1"))
        .await
        .unwrap();
    assert_eq!(
        records(&outcome),
        [rec("preToolUse", RecordOutcome::Allow, None)]
    );

    let folder = project.join(".openhuman");
    let env: Vec<(String, String)> = std::fs::read_to_string(folder.join("env.txt"))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let var = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let root = project.display().to_string();
    assert_eq!(var("OPENHUMAN_PROJECT_DIR"), Some(root.as_str()));
    assert_eq!(var("CURSOR_PROJECT_DIR"), Some(root.as_str()));
    assert_eq!(var("CLAUDE_PROJECT_DIR"), Some(root.as_str()));
    assert_eq!(var("OPENHUMAN_HOOK_EVENT"), Some("preToolUse"));
    assert_eq!(var("OPENHUMAN_SESSION_ID"), Some("oh-1"));
    assert_eq!(
        var("OPENHUMAN_VERSION"),
        Some(tower_hooks::dialect::cursor::VERSION)
    );
    for cursor_only in ["CURSOR_HOOK_EVENT", "CURSOR_SESSION_ID", "CURSOR_VERSION"] {
        if std::env::var_os(cursor_only).is_none() {
            assert_eq!(var(cursor_only), None, "{cursor_only}");
        }
    }
    let stdin = &json_lines(&folder.join("stdin.json"))[0];
    assert_eq!(stdin["hook_event_name"], "preToolUse");
    assert_eq!(stdin["session_id"], "oh-1");
    assert!(stdin["openhuman_version"].is_string(), "{stdin}");
    assert!(stdin.get("cursor_version").is_none(), "{stdin}");
    let pwd = std::fs::read_to_string(folder.join("pwd.txt")).unwrap();
    assert_eq!(
        Path::new(pwd.trim()),
        std::fs::canonicalize(&folder).unwrap()
    );
}

/// OpenHuman's workspace `hooks.json` loads between the user's file and the
/// project's, keeps OpenHuman's family, and its hooks run in the workspace.
#[tokio::test]
async fn an_openhuman_workspace_file_runs_between_the_users_and_the_projects() {
    let dir = tempfile::tempdir().unwrap();
    let (home, workspace, project) = (
        dir.path().join("home"),
        dir.path().join("workspace"),
        dir.path().join("project"),
    );
    let log = dir.path().join("order.log");
    let hook = |name: &str| {
        hooks_json(json!({"preToolUse": [{
            "command": format!("echo \"{name} $(pwd -P) $OPENHUMAN_HOOK_EVENT\" >> {}", quoted(&log))
        }]}))
    };
    write(&home.join(".openhuman/hooks.json"), &hook("user"));
    // A plain `hooks.json`: without the discovery, it would be taken for Cursor's.
    write(&workspace.join("hooks.json"), &hook("workspace"));
    write(&project.join(".openhuman/hooks.json"), &hook("project"));
    let config = Discovery::new(&project)
        .with_home(Some(home.clone()))
        .with_system_files(false)
        .with_folder(Format::OpenHuman, &workspace)
        .format(Format::OpenHuman)
        .load()
        .unwrap();
    let (stack, _lines) = stack_of(&config);
    let outcome = stack
        .oneshot(tool_start("Bash", json!({"command": "ls"}), "oh-2"))
        .await
        .unwrap();
    assert_eq!(outcome.hooks().len(), 3);
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap().display().to_string();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!(
            "user {} preToolUse\nworkspace {} preToolUse\nproject {} preToolUse\n",
            canonical(&home.join(".openhuman")),
            canonical(&workspace),
            canonical(&project.join(".openhuman")),
        )
    );
}

/// A host of the OpenHuman family under its own name reads its own folders
/// and sets its own variables, which a `sessionStart` hook cannot replace.
#[tokio::test]
async fn a_host_of_the_openhuman_family_uses_its_own_name() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let folder = project.join(".acme");
    write(
        &folder.join("hooks.json"),
        &hooks_json(json!({
            "sessionStart": [{"command": r#"echo '{"env": {"ACME_HOOK_EVENT": "spoofed", "TEAM": "core"}}'"#}],
            "preToolUse": [{"command": "cat > stdin.json; env > env.txt"}]
        })),
    );
    // OpenHuman's own folder is not read under another name.
    write(
        &project.join(".openhuman/hooks.json"),
        &hooks_json(json!({"preToolUse": [{"command": "exit 2"}]})),
    );
    let acme = Format::app("acme").unwrap();
    let config = Discovery::new(project)
        .with_home(None)
        .with_system_files(false)
        .format(acme)
        .load()
        .unwrap();
    let (stack, _lines) = stack_of(&config);
    stack
        .clone()
        .oneshot(HookRequest::session_start(StartReason::Startup).with_session_id("a-1"))
        .await
        .unwrap();
    let outcome = stack
        .oneshot(tool_start("Bash", json!({"command": "ls"}), "a-1"))
        .await
        .unwrap();
    assert_eq!(
        records(&outcome),
        [rec("preToolUse", RecordOutcome::Allow, None)]
    );
    let env = std::fs::read_to_string(folder.join("env.txt")).unwrap();
    let var = |name: &str| {
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .map(str::to_owned)
    };
    let root = project.display().to_string();
    assert_eq!(var("ACME_PROJECT_DIR").as_deref(), Some(root.as_str()));
    assert_eq!(var("CURSOR_PROJECT_DIR").as_deref(), Some(root.as_str()));
    assert_eq!(var("ACME_HOOK_EVENT").as_deref(), Some("preToolUse"));
    assert_eq!(var("ACME_SESSION_ID").as_deref(), Some("a-1"));
    assert_eq!(var("TEAM").as_deref(), Some("core"));
    if std::env::var_os("OPENHUMAN_HOOK_EVENT").is_none() {
        assert_eq!(var("OPENHUMAN_HOOK_EVENT"), None);
    }
    let stdin = &json_lines(&folder.join("stdin.json"))[0];
    assert!(stdin["acme_version"].is_string(), "{stdin}");
    assert!(stdin.get("openhuman_version").is_none(), "{stdin}");
}

/// A file handed over in a named host's format (no discovery) is read as
/// that host's: its hooks get its variables and version field, not
/// OpenHuman's.
#[tokio::test]
async fn a_file_in_a_named_hosts_format_loads_without_a_discovery() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let file = project.join("team/hooks.json");
    write(
        &file,
        &hooks_json(json!({"preToolUse": [{"command": "cat > stdin.json; env > env.txt"}]})),
    );
    let format = Format::app("acme_2").unwrap();
    let config = Config::load_files(&[ConfigFile::new(&file, format)], project).unwrap();
    assert!(config
        .hooks()
        .iter()
        .all(|h| h.dialect() == Dialect::Cursor));
    let (stack, _lines) = stack_of(&config);
    let outcome = stack
        .oneshot(tool_start("Bash", json!({"command": "ls"}), "n-1"))
        .await
        .unwrap();
    assert_eq!(outcome.hooks().len(), 1);
    // Outside a project's `.cursor`, a `hooks.json` runs in its own folder.
    let folder = project.join("team");
    let env = std::fs::read_to_string(folder.join("env.txt")).unwrap();
    let var = |name: &str| {
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .map(str::to_owned)
    };
    assert_eq!(var("ACME_2_HOOK_EVENT").as_deref(), Some("preToolUse"));
    assert_eq!(var("ACME_2_SESSION_ID").as_deref(), Some("n-1"));
    let stdin = &json_lines(&folder.join("stdin.json"))[0];
    assert!(stdin["acme_2_version"].is_string(), "{stdin}");
    assert!(stdin.get("openhuman_version").is_none(), "{stdin}");
}

// --- 8. bad hooks.json -----------------------------------------------------

#[test]
fn malformed_json_is_an_error_naming_the_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let path = project.join(".cursor/hooks.json");
    write(
        &path,
        "{\"version\": 1,\n \"hooks\": {\n  \"stop\": [{\"command\": \"x\",}]\n }\n}\n",
    );
    // Through the Cursor loader (discovery knows the format): the file is
    // left out beside the config, which loads without it …
    let config = Discovery::new(project)
        .with_home(None)
        .with_system_files(false)
        .format(Format::Cursor)
        .load()
        .unwrap();
    assert!(config.hooks().is_empty());
    let err = &config.unloaded_files()[0];
    assert_eq!(err.path(), path);
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!("{}: ", path.display())),
        "{shown}"
    );
    assert!(shown.contains("line 3 column"), "{shown}");
    // … and when the format is forced on a named file.
    let err = Config::load_files(&[ConfigFile::new(&path, Format::Cursor)], project).unwrap_err();
    assert_eq!(err.path(), path);
    assert!(err.to_string().contains("line 3 column"), "{err}");
    // Detection cannot read the version of a file that does not parse; whoever
    // loads it, the error still names the file and the place.
    let err = Config::load_files(&[ConfigFile::detect(&path)], project).unwrap_err();
    assert_eq!(err.path(), path);
    assert!(err.to_string().contains("line 3"), "{err}");
}

#[tokio::test]
async fn unknown_events_bad_matchers_prompts_and_other_versions_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let main = project.join(".cursor/hooks.json");
    write(
        &main,
        &hooks_json(json!({
            "preToolUs": [{"command": "exit 2"}],
            "preToolUse": [
                {"command": "echo boom >&2; exit 2", "matcher": "Bash("},
                {"type": "prompt", "prompt": "is this safe?"},
            ],
        })),
    );
    let v2 = project.join("team/hooks-v2.json");
    write(
        &v2,
        r#"{"version": 2, "hooks": {"preToolUse": [{"command": "exit 2"}]}}"#,
    );
    let files = [ConfigFile::detect(&main), ConfigFile::detect(&v2)];
    assert_eq!(files[1].format(), Format::Cursor);
    let config = Config::load_files(&files, project).unwrap();

    let shown: Vec<String> = config.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(shown.len(), 4, "{shown:#?}");
    let named = |path: &Path, needle: &str| {
        let prefix = format!("{}: ", path.display());
        assert!(
            shown
                .iter()
                .any(|w| w.starts_with(&prefix) && w.contains(needle)),
            "no warning of {} about {needle:?}: {shown:#?}",
            path.display()
        );
    };
    named(&main, "did you mean \"preToolUse\"");
    named(&main, "hooks.preToolUse[0]");
    named(&main, "prompt");
    named(&v2, "version");
    for warning in config.warnings() {
        assert!(warning.path() == main || warning.path() == v2);
    }

    // They load, and none of them runs: the bad matcher selects nothing, the
    // prompt is not runnable, the other version's hooks are not there.
    assert_eq!(config.hooks().len(), 2);
    let (stack, _lines) = stack_of(&config);
    let outcome = stack
        .oneshot(tool_start("Bash", json!({"command": "ls"}), "s"))
        .await
        .unwrap();
    assert!(!outcome.is_blocked());
    let outcomes: Vec<RecordOutcome> = outcome.hooks().iter().map(|h| h.outcome()).collect();
    assert_eq!(outcomes, [RecordOutcome::Skipped, RecordOutcome::Skipped]);
}

#[test]
fn wrong_values_are_errors_naming_the_file_and_nothing_panics() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let path = project.join(".cursor/hooks.json");
    let load = |text: &str| {
        write(&path, text);
        Config::load_files(&[ConfigFile::new(&path, Format::Cursor)], project)
    };
    let prefix = format!("{}: ", path.display());
    for (text, needle) in [
        (
            r#"{"version": 1, "hooks": {"stop": [{"command": "x", "timeout": "5s"}]}}"#,
            "hooks.stop[0].timeout must be a positive number of seconds, not the string \"5s\"",
        ),
        (
            r#"{"version": 1, "hooks": {"stop": [{"command": "x", "timeout": 0}]}}"#,
            "hooks.stop[0].timeout",
        ),
        (
            r#"{"version": 1, "hooks": {"stop": [{"timeout": 3}]}}"#,
            "hooks.stop[0] has no \"command\"",
        ),
        (
            r#"{"version": 1, "hooks": {"stop": [{"command": "   "}]}}"#,
            "hooks.stop[0] has no \"command\"",
        ),
        (
            r#"{"version": 1, "hooks": {"stop": {"command": "x"}}}"#,
            "hooks.stop",
        ),
        (r#"{"version": 1, "hooks": []}"#, "\"hooks\""),
        (
            r#"{"version": 1, "hooks": {"stop": [{"command": "x", "loop_limit": -1}]}}"#,
            "hooks.stop[0].loop_limit",
        ),
        (
            r#"{"version": 1, "hooks": {"stop": [{"command": "x", "failClosed": "yes"}]}}"#,
            "hooks.stop[0].failClosed",
        ),
        (
            r#"{"version": 1, "hooks": {"stop": [{"command": "a\u0000b"}]}}"#,
            "hooks.stop[0].command",
        ),
        ("[1, 2]", "the file must be a JSON object"),
        ("", "not valid JSON"),
        ("\u{feff}", "not valid JSON"),
    ] {
        let err = load(text).unwrap_err();
        let shown = err.to_string();
        assert!(shown.starts_with(&prefix), "{shown}");
        assert!(shown.contains(needle), "{text}: {shown}");
    }
    // Odd but loadable: a BOM, null lists, no hooks at all, an empty object.
    for text in [
        "\u{feff}{\"version\": 1, \"hooks\": {\"stop\": [{\"command\": \"x\"}]}}",
        r#"{"version": 1, "hooks": {"stop": null}}"#,
        r#"{"version": 1}"#,
        r#"{"version": 1.0, "hooks": null}"#,
        "{}",
    ] {
        load(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

/// `timeout` is a positive number of seconds: one too small for a nanosecond
/// is refused, or rounded up, never loaded as no time at all (a hook that
/// always times out before it starts).
#[tokio::test]
async fn a_tiny_positive_timeout_never_loads_as_zero() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    let path = project.join(".cursor/hooks.json");
    write(
        &path,
        &hooks_json(json!({"preToolUse": [{"command": "cat > /dev/null", "timeout": 1e-10}]})),
    );
    match Config::load_files(&[ConfigFile::detect(&path)], project) {
        Err(err) => {
            assert_eq!(err.path(), path);
            assert!(
                err.to_string().contains("hooks.preToolUse[0].timeout"),
                "{err}"
            );
        }
        Ok(config) => {
            // Rounded up to the clock's least useful step.
            let timeout = config.hooks()[0].timeout();
            assert_eq!(timeout, std::time::Duration::from_millis(1));
        }
    }
}

// --- the Cursor page, point by point (issue 21) ------------------------------

/// The fields of a Cursor event fired by name.
fn fire(event: &str, fields: Value) -> HookRequest {
    tower_hooks::dialect::cursor::request(event, fields.as_object().unwrap().clone()).unwrap()
}

#[tokio::test]
async fn a_stop_followup_is_consumed_only_when_the_agent_completed() {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({"stop": [{"command": "echo '{\"followup_message\": \"again\"}'", "loop_limit": 1}],
               "subagentStop": [{"command": "echo '{\"followup_message\": \"more\"}'"}]}),
    );
    let (stack, _lines) = stack_of(&config);
    for status in ["error", "aborted"] {
        let req = fire("stop", json!({"status": status, "session_id": "s"}));
        let outcome = stack.clone().oneshot(req).await.unwrap();
        assert_eq!(outcome.follow_up(), None, "status {status}");
        let req = fire("subagentStop", json!({"status": status, "session_id": "s"}));
        assert_eq!(stack.clone().oneshot(req).await.unwrap().follow_up(), None);
    }
    // The refused ones did not count against the loop limit of 1.
    let req = fire("stop", json!({"status": "completed", "session_id": "s"}));
    let outcome = stack.clone().oneshot(req).await.unwrap();
    assert_eq!(outcome.follow_up(), Some("again"));
    // A host's own stop (no status) is a completed one.
    let req = HookRequest::stop(false, "done").with_session_id("t");
    assert_eq!(
        stack.clone().oneshot(req).await.unwrap().follow_up(),
        Some("again")
    );
}

#[tokio::test]
async fn updated_mcp_tool_output_replaces_an_mcp_tools_output_only() {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({"postToolUse": [{"command": "echo '{\"updated_mcp_tool_output\": {\"issues\": []}, \"additional_context\": \"filtered\"}'"}]}),
    );
    let (stack, _lines) = stack_of(&config);
    let mcp = HookRequest::tool_execution_end(
        "mcp__github__list_issues",
        json!({"repo": "x"}),
        "[{\"title\": \"secret\"}]",
        false,
        Duration::from_millis(3),
    );
    let outcome = stack.clone().oneshot(mcp).await.unwrap();
    assert_eq!(outcome.decision(), tower_hooks::Decision::Transform);
    assert_eq!(
        outcome.arguments()["tool_response"]["structured_content"],
        json!({"issues": []})
    );
    assert_eq!(outcome.context(), ["filtered"]);
    // Not an MCP tool: the output stays, the context still goes to the model.
    let shell = HookRequest::tool_execution_end(
        "Shell",
        json!({"command": "ls"}),
        "a\n",
        false,
        Duration::from_millis(3),
    );
    let outcome = stack.clone().oneshot(shell).await.unwrap();
    assert_eq!(outcome.decision(), tower_hooks::Decision::Allow);
    assert_eq!(outcome.arguments()["tool_response"]["content"], "a\n");
    assert_eq!(outcome.context(), ["filtered"]);
}

#[tokio::test]
async fn user_email_and_transcript_path_reach_the_environment_when_given() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("env.txt");
    let command = format!(
        "cat > /dev/null; echo \"${{CURSOR_USER_EMAIL-unset}} ${{CURSOR_TRANSCRIPT_PATH-unset}}\" >> {}",
        quoted(&seen)
    );
    let config = load_project(
        dir.path(),
        json!({"beforeSubmitPrompt": [{"command": command}]}),
    );
    let (stack, _lines) = stack_of(&config);
    let given = fire(
        "beforeSubmitPrompt",
        json!({"prompt": "hi", "user_email": "ana@example.com", "transcript_path": "/t/c.jsonl"}),
    );
    stack.clone().oneshot(given).await.unwrap();
    stack
        .clone()
        .oneshot(HookRequest::input("hi"))
        .await
        .unwrap();
    let lines = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(lines, "ana@example.com /t/c.jsonl\nunset unset\n");
}

#[tokio::test]
async fn file_event_matchers_test_the_tools_type_not_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let config = load_project(
        dir.path(),
        json!({"beforeReadFile": [
            {"command": "cat > /dev/null; echo '{\"permission\": \"deny\", \"agent_message\": \"tab\"}'", "matcher": "TabRead"},
            {"command": "cat > /dev/null; echo '{\"permission\": \"deny\", \"agent_message\": \"agent\"}'", "matcher": "Read"}
        ]}),
    );
    let (stack, _lines) = stack_of(&config);
    let read = |tool: &str| {
        HookRequest::tool_execution_start(tool, json!({"path": ".env"}))
            .with_tool_kind(tower_hooks::request::ToolKind::Read)
    };
    let tab = stack.clone().oneshot(read("TabRead")).await.unwrap();
    assert_eq!(tab.reason(), Some("tab"));
    let agent = stack.clone().oneshot(read("read_file")).await.unwrap();
    assert_eq!(agent.reason(), Some("agent"));
}

#[tokio::test]
async fn a_plugins_root_is_one_word_in_the_command_and_in_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("my plug; touch pwned");
    let seen = dir.path().join("seen.txt");
    script(
        &plugin.join("scripts/guard.sh"),
        &format!(
            "#!/bin/sh\ncat > /dev/null\nprintf '%s\\n' \"$CURSOR_PLUGIN_ROOT\" \"$CLAUDE_PLUGIN_ROOT\" > {}\necho '{{\"permission\": \"deny\", \"agent_message\": \"from the plugin\"}}'\n",
            quoted(&seen)
        ),
    );
    let path = plugin.join("hooks/hooks.json");
    write(
        &path,
        &hooks_json(json!({"preToolUse": [{"command": "${CURSOR_PLUGIN_ROOT}/scripts/guard.sh"}]})),
    );
    let file = ConfigFile::detect(&path);
    assert_eq!(file.format(), Format::Cursor);
    let config = Config::load_files(&[file], dir.path()).unwrap();
    let (stack, _lines) = stack_of(&config);
    let req = HookRequest::tool_execution_start("Shell", json!({"command": "ls"}));
    let outcome = stack.oneshot(req).await.unwrap();
    assert_eq!(outcome.reason(), Some("from the plugin"));
    let root = plugin.display().to_string();
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        format!("{root}\n{root}\n")
    );
    assert!(!dir.path().join("pwned").exists());
    assert!(!plugin.join("hooks/pwned").exists());
    assert!(!Path::new("pwned").exists());
}

#[tokio::test]
async fn tab_events_fire_for_tabs_own_tools_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("tab-stdin.json");
    let command = format!(
        "cat > {}; echo '{{\"permission\": \"deny\", \"agent_message\": \"no secrets for Tab\"}}'",
        quoted(&seen)
    );
    let config = load_project(
        dir.path(),
        json!({"beforeTabFileRead": [{"command": command}],
               "afterTabFileEdit": [{"command": "cat > /dev/null"}]}),
    );
    let (stack, _lines) = stack_of(&config);
    let tab = fire("beforeTabFileRead", json!({"file_path": "/p/.env"}));
    let outcome = stack.clone().oneshot(tab).await.unwrap();
    assert_eq!(outcome.reason(), Some("no secrets for Tab"));
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(stdin["hook_event_name"], "beforeTabFileRead");
    assert_eq!(stdin["file_path"], "/p/.env");
    assert!(stdin.get("attachments").is_none(), "{stdin}");
    // The agent's own read is not Tab's: the hook is not part of the call.
    let agent = tool_start("read_file", json!({"path": "/p/.env"}), "s");
    let outcome = stack.clone().oneshot(agent).await.unwrap();
    assert!(!outcome.is_blocked());
    assert!(outcome.hooks().is_empty());
    let edit = fire(
        "afterTabFileEdit",
        json!({"file_path": "a.rs", "edits": []}),
    );
    let outcome = stack.clone().oneshot(edit).await.unwrap();
    assert_eq!(records(&outcome).len(), 1);
}

#[tokio::test]
async fn prompts_subagents_and_compaction_answer_as_cursors_page_says() {
    let dir = tempfile::tempdir().unwrap();
    let say = |answer: Value| format!("cat > /dev/null; echo '{answer}'");
    let config = load_project(
        dir.path(),
        json!({
            "beforeSubmitPrompt": [{"command": say(json!({"continue": false, "user_message": "not now"}))}],
            "subagentStart": [{"command": say(json!({"permission": "ask", "user_message": "no explorers"})), "matcher": "explore"}],
            "preCompact": [{"command": say(json!({"permission": "deny", "user_message": "keep it all"}))}],
            "preToolUse": [{"command": say(json!({"permission": "ask", "user_message": "really?"})), "matcher": "Shell"}],
        }),
    );
    let (stack, _lines) = stack_of(&config);
    // `continue: false` drops the prompt, with the user's message.
    let prompt = stack
        .clone()
        .oneshot(HookRequest::input("deploy"))
        .await
        .unwrap();
    assert!(prompt.is_blocked());
    assert_eq!(prompt.reason(), Some("not now"));
    // An ask at subagentStart is a deny; the matcher tests the subagent's type.
    let explore = HookRequest::subagent_start("a1", "explore");
    let outcome = stack.clone().oneshot(explore).await.unwrap();
    assert!(outcome.is_blocked() && !outcome.needs_approval());
    assert_eq!(outcome.reason(), Some("no explorers"));
    let general = HookRequest::subagent_start("a2", "generalPurpose");
    let outcome = stack.clone().oneshot(general).await.unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(records(&outcome)[0].1, RecordOutcome::Skipped);
    // preCompact cannot block: the deny is kept as a record.
    let compact =
        HookRequest::session_before_compact(tower_hooks::request::CompactionReason::Manual);
    let outcome = stack.clone().oneshot(compact).await.unwrap();
    assert!(!outcome.is_blocked());
    assert_eq!(records(&outcome)[0].1, RecordOutcome::Block);
    // An ask before a tool asks the host's approver.
    let shell = tool_start("Shell", json!({"command": "make deploy"}), "s");
    let outcome = stack.clone().oneshot(shell).await.unwrap();
    assert!(outcome.needs_approval());
    assert_eq!(outcome.reason(), Some("really?"));
}

#[tokio::test]
async fn cursor_hooks_see_cursors_names_for_the_hosts_tools() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen.jsonl");
    let config = load_project(
        dir.path(),
        json!({"preToolUse": [
            {"command": format!("cat >> {}; echo '{{}}'", quoted(&seen)), "matcher": "Shell|Write|deploy_prod"}]}),
    );
    let (stack, _lines) = stack_of(&config);
    let tools = tower::service_fn(|call: ToolCall| async move {
        Ok::<_, Infallible>(ToolResult::ok(call.name.to_string()))
    });
    let mut layer = ServiceBuilder::new()
        .layer(ToolHooksLayer::new(stack.clone()).with_tool_alias(
            "deploy",
            Dialect::Cursor,
            "deploy_prod",
        ))
        .service(tools);
    for (name, args) in [
        ("bash", json!({"command": "ls"})),
        ("apply_patch", json!({"patch": "x"})),
        ("deploy", json!({})),
        ("lookup", json!({})),
    ] {
        let call = ToolCall::new(name, "c1", args);
        let result = layer.ready().await.unwrap().call(call).await.unwrap();
        assert_eq!(result, ToolResult::ok(name.to_owned()), "{name}");
    }
    let names: Vec<String> = json_lines(&seen)
        .iter()
        .map(|stdin| stdin["tool_name"].as_str().unwrap().to_owned())
        .collect();
    // `lookup` is of kind "other": its name stays, and the matcher skips it.
    assert_eq!(names, ["Shell", "Write", "deploy_prod"]);
    let outcome = stack
        .oneshot(tool_start("run_command", json!({"command": "ls"}), "s"))
        .await
        .unwrap();
    assert_eq!(outcome.hooks()[0].tool_name(), Some("Shell"));
}

#[tokio::test]
async fn workspace_open_is_fired_by_name_and_hands_plugin_paths_to_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("open-stdin.json");
    let command = format!(
        "cat > {}; echo '{{\"pluginPaths\": [\"/opt/plugins/lint\", 7, \"/opt/plugins/ci\"]}}'",
        quoted(&seen)
    );
    let config = load_project(dir.path(), json!({"workspaceOpen": [{"command": command}]}));
    let (stack, _lines) = stack_of(&config);
    let open = fire(
        "workspaceOpen",
        json!({"workspace_roots": ["/w"], "user_email": "ana@example.com"}),
    );
    assert_eq!(open.event(), Event::Named);
    let outcome = stack.clone().oneshot(open).await.unwrap();
    assert_eq!(
        outcome.plugin_paths(),
        ["/opt/plugins/lint", "/opt/plugins/ci"]
    );
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(stdin["hook_event_name"], "workspaceOpen");
    assert_eq!(stdin["workspace_roots"], json!(["/w"]));
    assert_eq!(stdin["user_email"], "ana@example.com");
    for absent in [
        "conversation_id",
        "generation_id",
        "session_id",
        "transcript_path",
    ] {
        assert!(stdin.get(absent).is_none(), "{absent}: {stdin}");
    }
    // No other call runs it.
    let outcome = stack
        .oneshot(HookRequest::session_start(StartReason::Startup))
        .await
        .unwrap();
    assert!(outcome.hooks().is_empty());
}

#[tokio::test]
async fn claude_code_files_run_next_to_cursors_by_their_own_rules() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    write(
        &project.join(".cursor/hooks.json"),
        &hooks_json(json!({"preToolUse": [{"command": "cat > /dev/null; echo '{}'"}]})),
    );
    // A Claude Code guard as a Claude Code user wrote it: `Bash`, exit 2.
    write(
        &project.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat > /dev/null; echo 'not in this repo' >&2; exit 2"}]}]}})
        .to_string(),
    );
    let config = tower_hooks::config::Discovery::new(project)
        .with_home(None)
        .with_system_files(false)
        .format(Format::Cursor)
        .format(Format::Claude)
        .load()
        .unwrap();
    let dialects: Vec<Dialect> = config.hooks().iter().map(|h| h.dialect()).collect();
    assert_eq!(dialects, [Dialect::Cursor, Dialect::Claude]);
    let (stack, _lines) = stack_of(&config);
    let outcome = stack
        .oneshot(tool_start(
            "run_command",
            json!({"command": "make clean"}),
            "s",
        ))
        .await
        .unwrap();
    assert_eq!(outcome.reason(), Some("not in this repo"));
    let seen: Vec<Option<&str>> = outcome.hooks().iter().map(|h| h.tool_name()).collect();
    assert_eq!(seen, [Some("Shell"), Some("Bash")]);
}
