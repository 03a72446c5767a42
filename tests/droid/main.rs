//! Factory Droid hooks, unchanged, through the stack: a project's
//! `.factory/settings.json` and `.factory/hooks.json` as Droid users write
//! them (the example pairs of the hosts reference, Part G4), Droid's files,
//! switches and rules, and hostile hooks of the dialect.

#[path = "../support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::config::{Config, ConfigFile, Discovery, Format};
use tower_hooks::{Decision, Dialect, HookRequest, HookStack, RecordOutcome, Scope};

use support::write;

/// A project whose `.factory/settings.json` holds `hooks`, loaded as
/// Droid's by its path.
fn stack(project: &Path, hooks: Value) -> HookStack {
    let path = project.join(".factory/settings.json");
    write(&path, &json!({ "hooks": hooks }).to_string());
    let file = ConfigFile::detect(&path);
    assert_eq!(file.format(), Format::Droid);
    let config = Config::load_files(&[file], project).unwrap();
    let specs = config.into_hooks();
    assert!(specs.iter().all(|s| s.dialect() == Dialect::Droid));
    HookStack::builder().report(()).command_hooks(specs).build()
}

fn group(matcher: &str, commands: &[&str]) -> Value {
    let hooks: Vec<Value> = commands
        .iter()
        .map(|c| json!({"type": "command", "command": c, "timeout": 30}))
        .collect();
    json!({"matcher": matcher, "hooks": hooks})
}

/// The host's shell tool, under the host's own name.
fn bash(command: &str) -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({ "command": command }))
}

/// The guard of the reference's pairs, at the path its config names
/// (`"$FACTORY_PROJECT_DIR"/.factory/hooks/g.sh`): it keeps its stdin and
/// refuses `rm -rf` with exit 2.
const GUARD: &str = r#"#!/bin/sh
input=$(cat)
printf '%s' "$input" > "$FACTORY_PROJECT_DIR/seen.json"
case "$input" in
  *'rm -rf'*) echo "use make clean" >&2; exit 2 ;;
esac
exit 0
"#;

#[tokio::test]
async fn g4_1_exit_2_blocks_with_stderr_and_the_hook_sees_droid_stdin() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        support::script(&dir.path().join(".factory/hooks/g.sh"), GUARD);
        let command = r#""$FACTORY_PROJECT_DIR"/.factory/hooks/g.sh"#;
        let stack = stack(
            dir.path(),
            json!({"PreToolUse": [group("Execute", &[command])]}),
        );
        let req = bash("rm -rf build")
            .with_session_id("s1")
            .with_tool_call_id("call-1");
        let out = stack.oneshot(req).await.unwrap();
        assert!(out.is_blocked());
        assert_eq!(out.reason(), Some("use make clean"));

        let raw = std::fs::read_to_string(dir.path().join("seen.json")).unwrap();
        let seen: Value = serde_json::from_str(&raw).unwrap();
        let at = |key: &str| raw.find(&format!("\"{key}\":"));
        let order = [
            "session_id",
            "transcript_path",
            "cwd",
            "permission_mode",
            "hook_event_name",
            "tool_name",
            "tool_input",
        ]
        .map(|key| at(key).unwrap_or_else(|| panic!("no {key} in {raw}")));
        assert!(order.is_sorted(), "Droid's order: {raw}");
        assert_eq!(seen.as_object().unwrap().len(), 7, "no tool_use_id: {raw}");
        assert_eq!(seen["tool_name"], "Execute");
        assert_eq!(seen["tool_input"], json!({"command": "rm -rf build"}));
    })
    .await;
}

#[tokio::test]
async fn g4_2_allow_with_updated_input_rewrites_the_command() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let rewrite = r#"cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"make clean"}}}'"#;
        let stack = stack(dir.path(), json!({"PreToolUse": [group("Execute", &[rewrite])]}));
        let out = stack.oneshot(bash("rm -rf build")).await.unwrap();
        assert_eq!(out.decision(), Decision::Transform);
        assert_eq!(out.arguments(), &json!({"command": "make clean"}));
    })
    .await;
}

#[tokio::test]
async fn g4_3_plain_stdout_is_context_on_user_prompt_submit() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let stack = stack(
            dir.path(),
            json!({"UserPromptSubmit": [group("", &["cat >/dev/null; echo 'Branch: main'"])]}),
        );
        let out = stack
            .oneshot(HookRequest::input("fix the bug"))
            .await
            .unwrap();
        assert_eq!(out.decision(), Decision::Allow);
        assert_eq!(out.context(), ["Branch: main"]);
    })
    .await;
}

#[tokio::test]
async fn g4_4_a_claude_matcher_bash_never_fires_and_execute_does() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let stack = stack(
            dir.path(),
            json!({"PreToolUse": [
                group("Bash", &["echo claude >&2; exit 2"]),
                group("^(Execute|Grep)$", &["echo droid >&2; exit 2"]),
            ]}),
        );
        let out = stack.oneshot(bash("ls")).await.unwrap();
        assert_eq!(out.reason(), Some("droid"));
        let ran: Vec<_> = out
            .hooks()
            .iter()
            .filter(|h| h.outcome() != RecordOutcome::Skipped)
            .collect();
        assert_eq!(ran.len(), 1, "the Bash group never runs");
    })
    .await;
}

#[tokio::test]
async fn g4_5_a_stop_block_makes_droid_continue() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let block =
            r#"cat >/dev/null; printf '%s' '{"decision":"block","reason":"run the tests"}'"#;
        let stack = stack(dir.path(), json!({"Stop": [group("", &[block])]}));
        let out = stack
            .oneshot(HookRequest::stop(false, "done"))
            .await
            .unwrap();
        assert_eq!(out.follow_up(), Some("run the tests"));
    })
    .await;
}

#[test]
fn droids_files_load_from_its_folders_with_their_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("work"));
    let entry = |command: &str| json!({"hooks": {"PreToolUse": [group("Execute", &[command])]}});
    write(
        &home.join(".factory/hooks.json"),
        &entry("echo user").to_string(),
    );
    write(
        &project.join(".factory/hooks.json"),
        &entry("echo project").to_string(),
    );
    write(
        &project.join(".factory/hooks/hooks.json"),
        &entry("echo legacy").to_string(),
    );
    write(
        &project.join(".factory/settings.local.json"),
        &entry("echo local").to_string(),
    );
    // A Claude Code file of the same project is no Droid file.
    write(
        &project.join(".claude/settings.json"),
        &entry("echo claude").to_string(),
    );
    let config = Discovery::new(&project)
        .with_home(Some(home))
        .format(Format::Droid)
        .load()
        .unwrap();
    let found: Vec<(&str, Scope)> = config
        .hooks()
        .iter()
        .map(|h| (h.command_line().unwrap(), h.scope()))
        .collect();
    assert_eq!(
        found,
        [
            ("echo user", Scope::User),
            ("echo project", Scope::Project),
            ("echo legacy", Scope::Project),
            ("echo local", Scope::Local),
        ]
    );
    assert!(config.hooks().iter().all(|h| h.dialect() == Dialect::Droid));
    assert!(Dialect::all().contains(&Dialect::Droid));
    assert_eq!(Format::from_name("droid"), Some(Format::Droid));
}

#[test]
fn droid_runs_command_handlers_of_its_nine_events_with_a_60_second_default() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".factory/settings.json");
    write(
        &path,
        &json!({"hooks": {
            "PreToolUse": [{"hooks": [
                {"type": "command", "command": "a"},
                {"type": "command", "command": "b", "timeout": 5},
                {"type": "prompt", "prompt": "is this safe?"}
            ]}],
            "PermissionRequest": [{"hooks": [{"type": "command", "command": "c"}]}],
            "PreTool": [{"hooks": [{"type": "command", "command": "d", "timeout": 5000}]}]
        }})
        .to_string(),
    );
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir.path()).unwrap();
    let hooks = config.hooks();
    assert_eq!(hooks.len(), 3, "PermissionRequest is no Droid event");
    assert_eq!(hooks[0].timeout(), Duration::from_secs(60));
    assert_eq!(hooks[1].timeout(), Duration::from_secs(5));
    assert_eq!(
        hooks[2].disabled(),
        Some("Factory Droid runs no prompt handler")
    );
    let warnings: Vec<String> = config.warnings().iter().map(ToString::to_string).collect();
    assert!(
        warnings.iter().any(|w| w.contains("PermissionRequest")
            && w.contains("Factory Droid hooks run on PreToolUse")),
        "{warnings:?}"
    );
    // The core's warnings speak of Droid in a Droid file.
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("PreTool") && w.contains("a Factory Droid event")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("Factory Droid") && w.contains("5000")),
        "{warnings:?}"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("Claude Code")),
        "{warnings:?}"
    );
}

#[test]
fn hooks_disabled_is_droids_switch_and_a_project_cannot_turn_off_a_users_hook() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("work"));
    let entry = |command: &str| json!({"PreToolUse": [group("", &[command])]});
    write(
        &home.join(".factory/settings.json"),
        &json!({"hooks": entry("echo user")}).to_string(),
    );
    write(
        &project.join(".factory/settings.json"),
        &json!({"hooksDisabled": true, "disableAllHooks": false, "hooks": entry("echo project")})
            .to_string(),
    );
    let config = Discovery::new(&project)
        .with_home(Some(home.clone()))
        .format(Format::Droid)
        .load()
        .unwrap();
    let hooks = config.hooks();
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[0].disabled(), None, "the user's hook stays on");
    assert!(hooks[1]
        .disabled()
        .unwrap()
        .contains("hooksDisabled is true"));

    // Claude Code's switch means nothing to Droid.
    write(
        &project.join(".factory/settings.json"),
        &json!({"disableAllHooks": true, "hooks": entry("echo project")}).to_string(),
    );
    let config = Discovery::new(&project)
        .with_home(Some(home))
        .format(Format::Droid)
        .load()
        .unwrap();
    assert!(config.hooks().iter().all(|h| h.disabled().is_none()));

    // And Droid's means nothing to Claude Code, whatever its value.
    for value in [json!(true), json!("yes")] {
        write(
            &project.join(".claude/settings.json"),
            &json!({"hooksDisabled": value, "hooks": entry("echo claude")}).to_string(),
        );
        let config = Discovery::new(&project)
            .with_home(Some(dir.path().join("home")))
            .format(Format::Claude)
            .with_system_files(false)
            .load()
            .unwrap();
        assert_eq!(config.hooks().len(), 1, "{value}");
        assert_eq!(config.hooks()[0].disabled(), None, "{value}");
    }
}

#[tokio::test]
async fn a_hanging_droid_hook_is_killed_at_its_timeout_and_leaves_no_process() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let pids = support::PidFile::new();
        let hang = format!(
            "sleep 300 & echo $! >> {0}; trap '' TERM; echo $$ >> {0}; while :; do sleep 1; done",
            pids.quoted()
        );
        let hooks = json!({"PreToolUse": [{"matcher": "Execute", "hooks": [
            {"type": "command", "command": hang, "timeout": 1}
        ]}]});
        let stack = stack(dir.path(), hooks);
        let started = Instant::now();
        let out = stack.oneshot(bash("ls")).await.unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never hangs the agent"
        );
        assert_eq!(
            out.decision(),
            Decision::Allow,
            "a failed Droid hook lets the call through"
        );
        let left = pids.wait_for(2, Duration::from_secs(10));
        assert!(support::settle(Duration::from_secs(10), || left
            .iter()
            .all(
                |&pid| support::proc_state(pid).is_none_or(|(state, _)| state == 'Z')
            )));
    })
    .await;
}
