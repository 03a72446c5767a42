//! Model-evaluated hooks: Claude Code's `prompt` and `agent` handlers, answered
//! by the evaluator the host gives the stack.

use std::convert::Infallible;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::config::{Config, ConfigFile};
use tower_hooks::layer::model::ModelRequest;
use tower_hooks::{Decision, HookOutcome, HookRequest, HookStack, RecordOutcome};

/// A stack of the Claude Code `settings` loaded from a project at `root`,
/// whose model answers `answer(prompt)` after `delay`; the prompts it was
/// asked are kept.
fn stack(
    root: &Path,
    settings: Value,
    delay: Duration,
    answer: fn(&str) -> String,
) -> (HookStack, Arc<Mutex<Vec<String>>>) {
    let path = root.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, settings.to_string()).unwrap();
    let config = Config::load_files(&[ConfigFile::detect(&path)], root).unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let model = tower::service_fn(move |asked: ModelRequest| {
        let prompt = asked.prompt;
        log.lock().unwrap().push(prompt.clone());
        async move {
            tokio::time::sleep(delay).await;
            Ok::<_, Infallible>(answer(&prompt))
        }
    });
    let stack = HookStack::builder()
        .report(())
        .evaluator(model)
        .config(&config)
        .build();
    (stack, asked)
}

fn prompt_hook(event: &str, prompt: &str, timeout: Option<u64>) -> Value {
    let mut handler = json!({"type": "prompt", "prompt": prompt});
    if let Some(t) = timeout {
        handler["timeout"] = json!(t);
    }
    json!({"hooks": {event: [{"hooks": [handler]}]}})
}

fn deny_rm(prompt: &str) -> String {
    if prompt.contains("rm -rf") {
        r#"Looking at it: {"ok": false, "reason": "it deletes everything"}"#.into()
    } else {
        r#"{"ok": true}"#.into()
    }
}

async fn call(stack: &HookStack, req: HookRequest) -> HookOutcome {
    tokio::time::timeout(Duration::from_secs(30), stack.clone().oneshot(req))
        .await
        .expect("bounded")
        .unwrap()
}

#[tokio::test]
async fn the_model_sees_the_claude_input_and_its_no_denies_a_tool_call() {
    let dir = tempfile::tempdir().unwrap();
    let (stack, asked) = stack(
        dir.path(),
        prompt_hook(
            "PreToolUse",
            "Is this safe? $ARGUMENTS Answer in JSON.",
            None,
        ),
        Duration::ZERO,
        deny_rm,
    );
    let refused = call(
        &stack,
        HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"}))
            .with_session_id("s1"),
    )
    .await;
    assert!(refused.is_blocked(), "{refused:?}");
    assert_eq!(refused.reason(), Some("it deletes everything"));
    let allowed = call(
        &stack,
        HookRequest::tool_execution_start("Bash", json!({"command": "ls"})),
    )
    .await;
    assert_eq!(allowed.decision(), Decision::Allow);
    let asked = asked.lock().unwrap();
    let prompt = &asked[0];
    assert!(prompt.starts_with("Is this safe? {"), "{prompt}");
    assert!(prompt.ends_with("} Answer in JSON."), "{prompt}");
    let input: Value = serde_json::from_str(
        &prompt["Is this safe? ".len()..prompt.len() - " Answer in JSON.".len()],
    )
    .unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_input"], json!({"command": "rm -rf /"}));
    assert_eq!(input["session_id"], "s1");
}

#[tokio::test]
async fn ok_false_means_what_the_event_makes_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let no = |_: &str| r#"{"ok": false, "reason": "run the tests first"}"#.to_owned();
    let (stop, _) = stack(
        dir.path(),
        prompt_hook("Stop", "Done?", None),
        Duration::ZERO,
        no,
    );
    let outcome = call(&stop, HookRequest::stop(false, "done")).await;
    assert_eq!(outcome.follow_up(), Some("run the tests first"));

    let dir = tempfile::tempdir().unwrap();
    let impossible =
        |_: &str| r#"{"ok": false, "reason": "cannot", "impossible": true}"#.to_owned();
    let (stop, _) = stack(
        dir.path(),
        prompt_hook("Stop", "Done?", None),
        Duration::ZERO,
        impossible,
    );
    let outcome = call(&stop, HookRequest::stop(false, "done")).await;
    assert_eq!(outcome.follow_up(), None);
    assert!(!outcome.is_blocked());

    let dir = tempfile::tempdir().unwrap();
    let (failure, _) = stack(
        dir.path(),
        prompt_hook("PostToolUseFailure", "Why did it fail?", None),
        Duration::ZERO,
        no,
    );
    let outcome = call(
        &failure,
        HookRequest::tool_execution_end("Bash", json!({}), "boom", true, Duration::ZERO),
    )
    .await;
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.context(), ["run the tests first"]);

    let dir = tempfile::tempdir().unwrap();
    let (permission, _) = stack(
        dir.path(),
        prompt_hook("PermissionRequest", "Allow?", None),
        Duration::ZERO,
        no,
    );
    let outcome = call(
        &permission,
        HookRequest::permission_request("Bash", json!({"command": "ls"})),
    )
    .await;
    assert_eq!(outcome.decision(), Decision::Allow);
}

#[tokio::test]
async fn a_bad_or_late_answer_is_an_error_that_lets_the_action_proceed() {
    let dir = tempfile::tempdir().unwrap();
    let nonsense = |_: &str| "I would rather not say".to_owned();
    let (stack_a, _) = stack(
        dir.path(),
        prompt_hook("PreToolUse", "Safe?", None),
        Duration::ZERO,
        nonsense,
    );
    let outcome = call(
        &stack_a,
        HookRequest::tool_execution_start("Bash", json!({})),
    )
    .await;
    assert_eq!(outcome.decision(), Decision::Allow);
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Error);
    assert!(
        outcome.hooks()[0]
            .reason()
            .unwrap()
            .contains("did not answer"),
        "{outcome:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let (slow, _) = stack(
        dir.path(),
        prompt_hook("PreToolUse", "Safe?", Some(1)),
        Duration::from_secs(20),
        deny_rm,
    );
    let started = Instant::now();
    let outcome = call(
        &slow,
        HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"})),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(outcome.decision(), Decision::Allow);
    assert_eq!(outcome.hooks()[0].reason(), Some("timed out after 1 s"));
}

#[tokio::test]
async fn without_an_evaluator_a_model_hook_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, prompt_hook("PreToolUse", "Safe?", None).to_string()).unwrap();
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir.path()).unwrap();
    assert!(config
        .warnings()
        .iter()
        .any(|w| w.to_string().contains("answered by a model")));
    let stack = HookStack::builder().report(()).config(&config).build();
    let outcome = call(
        &stack,
        HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"})),
    )
    .await;
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Skipped);
}

/// A Cursor `hooks.json` at `root` with these hooks.
fn cursor_config(root: &Path, hooks: Value) -> Config {
    let path = root.join(".cursor/hooks.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, json!({"version": 1, "hooks": hooks}).to_string()).unwrap();
    Config::load_files(&[ConfigFile::detect(&path)], root).unwrap()
}

#[tokio::test]
async fn cursor_prompt_entries_deny_and_follow_up_and_fail_closed_without_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let config = cursor_config(
        dir.path(),
        json!({
            "preToolUse": [{"type": "prompt", "prompt": "Safe? $ARGUMENTS"}],
            "stop": [{"type": "prompt", "prompt": "Finished?"}],
        }),
    );
    assert!(config
        .warnings()
        .iter()
        .all(|w| w.to_string().contains("answered by a model")));
    let model = tower::service_fn(|ModelRequest { prompt, .. }| async move {
        Ok::<_, Infallible>(
            if prompt.contains("rm -rf") || prompt.starts_with("Finished?") {
                r#"{"ok": false, "reason": "not yet"}"#.to_owned()
            } else {
                r#"{"ok": true}"#.to_owned()
            },
        )
    });
    let stack = HookStack::builder()
        .report(())
        .evaluator(model)
        .config(&config)
        .build();
    let refused = call(
        &stack,
        HookRequest::tool_execution_start("Shell", json!({"command": "rm -rf /"})),
    )
    .await;
    assert!(refused.is_blocked(), "{refused:?}");
    assert_eq!(refused.reason(), Some("not yet"));
    let stop = call(
        &stack,
        HookRequest::stop(false, "done").with_session_id("s"),
    )
    .await;
    assert_eq!(stop.follow_up(), Some("not yet"));

    // Without a model: skipped, unless the entry fails closed.
    let dir = tempfile::tempdir().unwrap();
    let config = cursor_config(
        dir.path(),
        json!({"preToolUse": [
            {"type": "prompt", "prompt": "Safe?"},
            {"type": "prompt", "prompt": "Safe?", "failClosed": true},
        ]}),
    );
    let stack = HookStack::builder().report(()).config(&config).build();
    let outcome = call(
        &stack,
        HookRequest::tool_execution_start("Shell", json!({})),
    )
    .await;
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Skipped);
    assert!(outcome.is_blocked(), "{outcome:?}");
    assert_eq!(
        outcome.reason(),
        Some("hook failed closed: no model to ask: this host has no evaluator")
    );
}

/// A model's no on a tool call ends the turn too (`continue: false`), unless
/// the prompt handler says `continueOnBlock` or the handler is an `agent`:
/// then only the call is refused.
#[tokio::test]
async fn a_no_on_a_tool_call_ends_the_turn_unless_the_hook_continues_on_block() {
    let no = |_: &str| r#"{"ok": false, "reason": "not in this repo"}"#.to_owned();
    let rm = || HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"}));
    for (handler, ends_turn) in [
        (json!({"type": "prompt", "prompt": "Safe?"}), true),
        (
            json!({"type": "prompt", "prompt": "Safe?", "continueOnBlock": true}),
            false,
        ),
        (json!({"type": "agent", "prompt": "Safe?"}), false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let settings = json!({"hooks": {"PreToolUse": [{"hooks": [handler.clone()]}]}});
        let (stack, _) = stack(dir.path(), settings, Duration::ZERO, no);
        let outcome = call(&stack, rm()).await;
        assert!(outcome.is_blocked(), "{handler}: {outcome:?}");
        assert_eq!(outcome.reason(), Some("not in this repo"), "{handler}");
        let stop = ends_turn.then_some("not in this repo");
        assert_eq!(outcome.stop(), stop, "{handler}");
    }
    // A prompt refused by a model ends the turn.
    let dir = tempfile::tempdir().unwrap();
    let (stack, _) = stack(
        dir.path(),
        prompt_hook("UserPromptSubmit", "Allowed?", None),
        Duration::ZERO,
        no,
    );
    let outcome = call(&stack, HookRequest::input("delete prod")).await;
    assert!(outcome.is_blocked());
    assert_eq!(outcome.stop(), Some("not in this repo"));
}

/// A model that is never ready to take a prompt (a rate limit that never
/// lifts): its back-pressure is a wait in `poll_ready`.
#[derive(Clone)]
struct NeverReady;

impl tower::Service<ModelRequest> for NeverReady {
    type Response = String;
    type Error = Infallible;
    type Future = std::future::Ready<Result<String, Infallible>>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Pending
    }

    fn call(&mut self, _prompt: ModelRequest) -> Self::Future {
        std::future::ready(Ok(r#"{"ok": false, "reason": "never asked"}"#.to_owned()))
    }
}

#[tokio::test]
async fn a_model_that_is_never_ready_costs_the_hook_its_timeout_and_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let settings = prompt_hook("PreToolUse", "Is this safe? $ARGUMENTS", Some(1));
    std::fs::write(&path, settings.to_string()).unwrap();
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir.path()).unwrap();
    let stack = HookStack::builder()
        .report(())
        .evaluator(NeverReady)
        .config(&config)
        .build();
    let started = Instant::now();
    let req = HookRequest::tool_execution_start("Bash", json!({"command": "ls"}));
    let outcome = call(&stack, req).await;
    // A Claude Code hook that timed out lets the call through, with an error.
    assert_eq!(outcome.decision(), Decision::Allow);
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Error);
    assert_eq!(outcome.hooks()[0].reason(), Some("timed out after 1 s"));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_model_a_handler_names_reaches_the_evaluator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let settings = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "prompt", "prompt": "Named? $ARGUMENTS", "model": "claude-haiku-4-5"},
        {"type": "prompt", "prompt": "Default? $ARGUMENTS"}
    ]}]}});
    std::fs::write(&path, settings.to_string()).unwrap();
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir.path()).unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let model = tower::service_fn(move |asked: ModelRequest| {
        log.lock().unwrap().push(asked);
        async { Ok::<_, Infallible>(r#"{"ok": true}"#.to_owned()) }
    });
    let stack = HookStack::builder()
        .evaluator(model)
        .config(&config)
        .build();
    let outcome = call(
        &stack,
        HookRequest::tool_execution_start("bash", json!({"command": "ls"})),
    )
    .await;
    assert!(!outcome.is_blocked());
    let mut asked = asked.lock().unwrap().clone();
    asked.sort_by(|a, b| a.prompt.cmp(&b.prompt));
    let seen: Vec<_> = asked
        .iter()
        .map(|a| (a.prompt.split(' ').next().unwrap(), a.model.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [("Default?", None), ("Named?", Some("claude-haiku-4-5"))]
    );
}
