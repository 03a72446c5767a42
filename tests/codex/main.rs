//! Codex CLI hooks, unchanged, through the stack: a project's `.codex/hooks.json`
//! and `.codex/config.toml` with guard, rewriter, context and Stop-gate scripts
//! written the way Codex users write them, and hostile hooks of the dialect.

#[path = "../support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::config::{Config, ConfigFile, Discovery, Format};
use tower_hooks::{Decision, Dialect, HookRequest, HookStack, RecordOutcome};

use support::write;

/// Writes an executable script at `path`; answers the path, as a command.
fn script(path: &Path, text: &str) -> String {
    support::script(path, text);
    path.display().to_string()
}

/// A project whose `.codex/hooks.json` is `hooks`, loaded as Codex's by its
/// path, with `SHELL` set for the hooks (`$SHELL -lc`).
fn stack(project: &Path, hooks: Value) -> HookStack {
    let path = project.join(".codex/hooks.json");
    write(&path, &json!({ "hooks": hooks }).to_string());
    let file = ConfigFile::detect(&path);
    assert_eq!(file.format(), Format::Codex);
    let config = Config::load_files(&[file], project).unwrap();
    build(config)
}

fn build(config: Config) -> HookStack {
    let specs = config.into_hooks();
    assert!(specs.iter().all(|s| s.dialect() == Dialect::Codex));
    HookStack::builder()
        .report(())
        .env("SHELL", "/bin/sh")
        .command_hooks(specs)
        .build()
}

fn group(matcher: &str, commands: &[&str]) -> Value {
    let hooks: Vec<Value> = commands
        .iter()
        .map(|c| json!({"type": "command", "command": c, "timeout": 10}))
        .collect();
    json!({"matcher": matcher, "hooks": hooks})
}

fn bash(command: &str) -> HookRequest {
    HookRequest::tool_execution_start("Bash", json!({ "command": command }))
}

/// A guard in the style of Codex's docs: it reads the envelope with `jq`-free
/// shell, denies destructive commands in JSON and refuses forced pushes with
/// exit 2.
const GUARD: &str = r#"#!/bin/sh
input=$(cat)
printf '%s' "$input" > "$(dirname "$0")/seen.json"
case "$input" in
  *'rm -rf /'*)
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"refusing to delete the root"}}'
    ;;
  *'push --force'*)
    echo "no forced pushes on this repository" >&2
    exit 2
    ;;
esac
exit 0
"#;

#[tokio::test]
async fn a_codex_guard_blocks_in_json_and_with_exit_2_and_sees_codex_stdin() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let guard = script(&dir.path().join("hooks/guard.sh"), GUARD);
        let stack = stack(
            dir.path(),
            json!({"PreToolUse": [group("Bash", &[&guard])]}),
        );
        let out = stack.clone().oneshot(bash("rm -rf /")).await.unwrap();
        assert!(out.is_blocked());
        assert_eq!(out.reason(), Some("refusing to delete the root"));
        let out = stack
            .clone()
            .oneshot(bash("git push --force"))
            .await
            .unwrap();
        assert_eq!(out.reason(), Some("no forced pushes on this repository"));
        let req = bash("ls").with_session_id("s-1");
        let out = stack.oneshot(req).await.unwrap();
        assert_eq!(out.decision(), Decision::Allow);

        let raw = std::fs::read_to_string(dir.path().join("hooks/seen.json")).unwrap();
        assert!(
            !raw.ends_with('\n') && !raw.contains(": "),
            "compact: {raw}"
        );
        let seen: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(seen["hook_event_name"], "PreToolUse");
        assert_eq!(seen["tool_name"], "Bash");
        assert_eq!(seen["session_id"], "s-1");
        assert_eq!(seen["transcript_path"], Value::Null);
        assert!(seen.get("model").is_some() && seen.get("turn_id").is_some());
    })
    .await;
}

#[tokio::test]
async fn allow_with_updated_input_rewrites_and_allow_alone_is_a_failure() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let rewrite = r#"printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -rf ./build"}}}'"#;
    let stack1 = stack(dir.path(), json!({"PreToolUse": [group("", &[rewrite])]}));
    let out = stack1.oneshot(bash("rm -rf build")).await.unwrap();
    assert_eq!(out.decision(), Decision::Transform);
    assert_eq!(out.arguments(), &json!({"command": "rm -rf ./build"}));

    let alone = r#"printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'"#;
    let unknown = r#"printf '%s' '{"suppressOutput":true}'"#;
    let stack2 = stack(
        dir.path(),
        json!({"PreToolUse": [group("*", &[alone, unknown])]}),
    );
    let out = stack2.oneshot(bash("ls")).await.unwrap();
    assert_eq!(out.decision(), Decision::Allow);
    assert!(out
        .hooks()
        .iter()
        .all(|h| h.outcome() == RecordOutcome::Error));
    })
    .await;
}

#[tokio::test]
async fn plain_text_is_context_on_user_prompt_submit_and_a_failure_on_stop() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let stack = stack(
            dir.path(),
            json!({
                "UserPromptSubmit": [group("ignored-here", &["echo '  branch: main  '"])],
                "Stop": [group("", &["echo all good"])],
            }),
        );
        let out = stack
            .clone()
            .oneshot(HookRequest::input("hi"))
            .await
            .unwrap();
        assert_eq!(out.context(), ["branch: main"]);
        let out = stack
            .oneshot(HookRequest::stop(false, "done"))
            .await
            .unwrap();
        assert_eq!(out.follow_up(), None);
        assert_eq!(out.hooks()[0].outcome(), RecordOutcome::Error);
    })
    .await;
}

#[tokio::test]
async fn stop_blocks_join_with_a_blank_line_and_continue_false_beats_them() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let block = |r: &str| format!(r#"printf '%s' '{{"decision":"block","reason":"{r}"}}'"#);
        let (a, b) = (block("run the tests"), block("update the changelog"));
        let gates = stack(dir.path(), json!({"Stop": [group("", &[&a, &b])]}));
        let out = gates
            .oneshot(HookRequest::stop(false, "done"))
            .await
            .unwrap();
        assert_eq!(
            out.follow_up(),
            Some("run the tests\n\nupdate the changelog")
        );

        let halt = r#"printf '%s' '{"continue":false,"stopReason":"budget spent"}'"#;
        let both = stack(dir.path(), json!({"Stop": [group("", &[&a, halt])]}));
        let out = both
            .oneshot(HookRequest::stop(false, "done"))
            .await
            .unwrap();
        assert_eq!(out.stop(), Some("budget spent"));
        assert_eq!(out.follow_up(), None);
        assert!(!out.is_blocked());
    })
    .await;
}

#[tokio::test]
async fn the_first_block_in_config_order_gives_the_reason_and_copies_both_run() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let deny = |r: &str, s: &str| {
        format!(
            r#"sleep {s}; printf '%s' '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"{r}"}}}}'"#
        )
    };
    let log = dir.path().join("log");
    let count = format!("echo x >> {}", log.display());
    let stack = stack(
        dir.path(),
        json!({"PreToolUse": [group("Bash", &[&deny("first", "0.4"), &deny("second", "0"), &count, &count])]}),
    );
    let out = stack.oneshot(bash("ls")).await.unwrap();
    assert_eq!(out.reason(), Some("first"));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "x\nx\n");
    })
    .await;
}

#[tokio::test]
async fn matchers_are_exact_lists_or_regexes_and_apply_patch_answers_edit() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let ctx = |t: &str| {
        format!(
            r#"printf '%s' '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","additionalContext":"{t}"}}}}'"#
        )
    };
    let stack = stack(
        dir.path(),
        json!({"PreToolUse": [
            group("Edit", &[&ctx("edit")]),
            group("Write|Bash", &[&ctx("list")]),
            group("apply", &[&ctx("prefix")]),
            group("^apply_", &[&ctx("regex")]),
        ]}),
    );
    let req = HookRequest::tool_execution_start("str_replace", json!({"file_path": "a.rs"}));
    let out = stack.oneshot(req).await.unwrap();
    assert_eq!(out.context(), ["edit", "list", "regex"]);
    assert_eq!(out.hooks()[0].tool_name(), Some("apply_patch"));
    })
    .await;
}

#[test]
fn config_toml_hooks_load_and_the_features_switch_turns_a_layer_off() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = (dir.path().join("home"), dir.path().join("proj"));
    let toml = |head: &str, cmd: &str| {
        format!("{head}\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ncommand = \"{cmd}\"\ntimeout = 0.2\n")
    };
    write(
        &home.join(".codex/config.toml"),
        &toml("[features]\nhooks = false\n", "echo user"),
    );
    write(
        &home.join(".codex/hooks.json"),
        &json!({"hooks": {"Stop": [group("", &["true"])]}}).to_string(),
    );
    write(
        &project.join(".codex/config.toml"),
        &toml("model = \"gpt-5\"\n", "echo project"),
    );
    let config = Discovery::new(&project)
        .with_home(Some(home.clone()))
        .format(Format::Codex)
        .load()
        .unwrap();
    let hooks = config.hooks();
    assert_eq!(hooks.len(), 3);
    assert!(hooks[0].disabled().is_some() && hooks[1].disabled().is_some());
    assert_eq!(hooks[2].disabled(), None);
    assert_eq!(
        hooks[2].timeout(),
        Duration::from_secs(1),
        "below 1 s is 1 s"
    );
}

#[test]
fn a_hooks_json_with_an_unknown_top_level_key_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".codex/hooks.json");
    write(&path, r#"{"version": 1, "hooks": {}}"#);
    let err = Config::load_files(&[ConfigFile::new(&path, Format::Codex)], dir.path()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("hooks.json") && text.contains("version"),
        "{text}"
    );
}

#[test]
fn an_invalid_regex_skips_its_group_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".codex/hooks.json");
    let hooks = json!({"hooks": {"PreToolUse": [group("(", &["true"]), group("Bash", &["true"])]}});
    write(&path, &hooks.to_string());
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir.path()).unwrap();
    assert_eq!(config.hooks().len(), 1);
    assert!(config
        .warnings()
        .iter()
        .any(|w| w.to_string().contains("(")));
}

#[tokio::test]
async fn a_plugin_hook_gets_the_plugin_variables() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("plug");
    script(
        &plugin.join("scripts/env.sh"),
        "#!/bin/sh\nprintf '%s|%s' \"$PLUGIN_ROOT\" \"$CLAUDE_PLUGIN_DATA\" > \"$PLUGIN_ROOT/env.txt\"\n",
    );
    let path = plugin.join("hooks/hooks.json");
    let hooks = json!({"hooks": {"PreToolUse": [group("", &["\"$PLUGIN_ROOT/scripts/env.sh\""])]}});
    write(&path, &hooks.to_string());
    let config = Config::load_files(&[ConfigFile::new(&path, Format::Codex)], dir.path()).unwrap();
    build(config).oneshot(bash("ls")).await.unwrap();
    let seen = std::fs::read_to_string(plugin.join("env.txt")).unwrap();
    let (root, data) = seen.split_once('|').unwrap();
    assert_eq!(PathBuf::from(root), plugin);
    assert!(data.ends_with("plug"), "{data}");
    })
    .await;
}

// --- hostile hooks -----------------------------------------------------------

/// A stack of one Codex `PreToolUse` hook with a 1 s timeout.
fn hostile(dir: &Path, command: &str) -> HookStack {
    let hooks =
        json!({"PreToolUse": [{"hooks": [{"type": "command", "command": command, "timeout": 1}]}]});
    stack(dir, hooks)
}

async fn fails_open_in_time(command: &str) -> tower_hooks::HookOutcome {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = hostile(dir.path(), command)
        .oneshot(bash("ls"))
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{command} hung the call"
    );
    assert_eq!(out.decision(), Decision::Allow, "{command}");
    assert_eq!(out.hooks()[0].outcome(), RecordOutcome::Error, "{command}");
    out
}

#[tokio::test]
async fn a_hook_that_hangs_times_out_and_fails_open() {
    support::bounded(async {
        let out = fails_open_in_time("sleep 30").await;
        assert!(out.hooks()[0].reason().unwrap_or("").contains("timed out"));
    })
    .await;
}

#[tokio::test]
async fn a_hook_that_ignores_sigterm_is_killed() {
    support::bounded(async {
        fails_open_in_time("trap '' TERM; while :; do sleep 1; done").await;
    })
    .await;
}

#[tokio::test]
async fn a_hook_that_forks_a_sleeper_leaves_nothing_behind() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let command = format!("sleep 60 & echo $! > {}; exit 0", pid.display());
        let out = hostile(dir.path(), &command)
            .oneshot(bash("ls"))
            .await
            .unwrap();
        assert_eq!(out.decision(), Decision::Allow);
        let pid: i32 = std::fs::read_to_string(&pid)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            state.is_empty() || state.contains(") Z"),
            "the sleeper outlived its hook"
        );
    })
    .await;
}

#[tokio::test]
async fn a_flood_on_stdout_does_not_eat_memory_or_hang() {
    support::bounded(async {
        fails_open_in_time("head -c 50000000 /dev/zero | tr '\\0' '{'").await;
    })
    .await;
}

#[tokio::test]
async fn a_hook_that_ignores_its_stdin_answers() {
    support::bounded(async {
    let dir = tempfile::tempdir().unwrap();
    let deny = r#"printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'"#;
    let big = "x".repeat(4 << 20);
    // A timeout no busy machine reaches: with the 1 s of `hostile`, a slow
    // start of the hook under load timed out and failed open. A writer that
    // hung on the unread stdin still fails: the hook would time out and allow,
    // and `bounded` ends the test.
    let hooks = json!({"PreToolUse": [{"hooks": [{"type": "command", "command": deny, "timeout": 60}]}]});
    let out = stack(dir.path(), hooks).oneshot(bash(&big)).await.unwrap();
    assert!(out.is_blocked(), "{out:?}");
    assert_eq!(out.reason(), Some("no"));
    assert_eq!(out.hooks()[0].outcome(), RecordOutcome::Block);
    })
    .await;
}

/// `continue: false` after a tool: Codex puts the reason in place of the
/// tool's result and the turn goes on (seen in Codex 0.171 by the
/// `post_continue_false` host scenario), so the outcome blocks the result
/// and asks for no stop.
#[tokio::test]
async fn continue_false_after_a_tool_replaces_the_result_and_the_turn_goes_on() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let stack = stack(
            dir.path(),
            json!({"PostToolUse": [group("Bash", &[
                r#"cat >/dev/null; echo '{"continue": false, "stopReason": "result withheld"}'"#,
            ])]}),
        );
        let ended = HookRequest::tool_execution_end(
            "Bash",
            json!({"command": "ls"}),
            "a.txt",
            false,
            std::time::Duration::from_millis(2),
        );
        let out = stack.oneshot(ended).await.unwrap();
        assert!(out.is_blocked(), "{out:?}");
        assert_eq!(out.reason(), Some("result withheld"));
        assert_eq!(out.stop(), None, "{out:?}");
    })
    .await;
}

/// A UserPromptSubmit block: the prompt is dropped and the person is told
/// why (the report's user messages); the model never sees it.
#[tokio::test]
async fn a_prompt_block_tells_the_person_why() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let stack = stack(
            dir.path(),
            json!({"UserPromptSubmit": [group("", &[
                r#"cat >/dev/null; echo '{"decision": "block", "reason": "no secrets in prompts"}'"#,
            ])]}),
        );
        let out = stack.oneshot(HookRequest::input("my key is x")).await.unwrap();
        assert!(out.is_blocked(), "{out:?}");
        assert_eq!(out.user_messages(), ["no secrets in prompts"]);
        assert!(out.context().is_empty());
    })
    .await;
}

/// A guard that writes what it read and rewrites the patch's added line.
const PATCH_REWRITER: &str = r#"#!/bin/sh
input=$(cat)
printf '%s' "$input" > "$(dirname "$0")/seen.json"
patch=$(printf '%s' "$input" | sed -n 's/.*"command":"\([^"]*\)".*/\1/p' | sed 's/+new/+rewritten/')
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"%s"}}}' "$patch"
"#;

#[tokio::test]
async fn a_hosts_edit_reaches_a_codex_hook_as_apply_patch_and_its_rewrite_comes_back_as_an_edit() {
    support::bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let hook = script(&dir.path().join("hooks/rewrite.sh"), PATCH_REWRITER);
        let rewriting = stack(dir.path(), json!({"PreToolUse": [group("Edit", &[&hook])]}));
        let edit = json!({"file_path": "src/a.rs", "old_string": "old", "new_string": "new", "replace_all": false});
        let req = HookRequest::tool_execution_start("Edit", edit);
        let out = rewriting.oneshot(req).await.unwrap();

        let seen: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("hooks/seen.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(seen["tool_name"], "apply_patch");
        assert_eq!(
            seen["tool_input"],
            json!({"command": "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-old\n+new\n*** End Patch\n"})
        );
        // The hook's patch, read back into the Edit tool's own arguments.
        assert_eq!(out.decision(), Decision::Transform);
        assert_eq!(
            out.arguments(),
            &json!({"file_path": "src/a.rs", "old_string": "old", "new_string": "rewritten", "replace_all": false})
        );

        // A patch the Edit tool cannot take (it deletes the file) refuses
        // the call: the call as it was is not what the hook allowed.
        let delete = r#"printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"*** Begin Patch\n*** Delete File: src/a.rs\n*** End Patch\n"}}}'"#;
        let deleting = stack(&dir.path().join("other"), json!({"PreToolUse": [group("Write", &[delete])]}));
        let req = HookRequest::tool_execution_start(
            "Edit",
            json!({"file_path": "src/a.rs", "old_string": "old", "new_string": "new"}),
        );
        let out = deleting.oneshot(req).await.unwrap();
        assert!(out.is_blocked());
        let reason = out.reason().unwrap();
        assert!(
            reason.contains("the Edit tool cannot take") && reason.contains("*** Delete File: src/a.rs"),
            "{reason}"
        );
    })
    .await;
}
