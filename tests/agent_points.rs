//! The typed call sites of the points other dialects add (`stop`,
//! `subagent_stop`, `permission_request`, …) and the tool layer's approver and
//! model context, with in-process hooks and with real command hooks: nanopi's
//! and Claude Code's, run unchanged.

use std::convert::Infallible;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tower::{service_fn, Service, ServiceBuilder, ServiceExt};
use tower_hooks::agent::tool::{Approval, ApprovalRequest};
use tower_hooks::agent::{PermissionDecision, StopDecision};
use tower_hooks::dialect::claude;
use tower_hooks::{
    AgentHooks, Event, HookOutcome, HookRequest, HookSpec, HookStack, ToolCall, ToolResult, Verdict,
};

// ---------------------------------------------------------------- fixtures

/// Requests the in-process hooks saw.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<HookRequest>>>);

impl Seen {
    fn answering(
        &self,
        verdict: impl Fn(&HookRequest) -> Verdict + Clone + Send + Sync + 'static,
    ) -> impl Fn(&HookRequest) -> Verdict + Clone + Send + Sync + 'static {
        let seen = self.0.clone();
        move |req: &HookRequest| {
            seen.lock().unwrap().push(req.clone());
            verdict(req)
        }
    }

    fn field(&self, key: &str) -> Vec<Value> {
        let seen = self.0.lock().unwrap();
        seen.iter().map(|r| r.arguments()[key].clone()).collect()
    }
}

/// Every outcome the facade's callback saw, by event.
#[derive(Clone, Default)]
struct Outcomes(Arc<Mutex<Vec<(Event, HookOutcome)>>>);

impl Outcomes {
    fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().iter().map(|(e, _)| *e).collect()
    }
}

fn observed<S>(hooks: AgentHooks<S>, outcomes: &Outcomes) -> AgentHooks<S> {
    let log = outcomes.0.clone();
    hooks.on_outcome(move |req, out| log.lock().unwrap().push((req.event(), out.clone())))
}

/// A tool that records the calls it runs and answers `ran <arguments>`.
#[derive(Clone, Default)]
struct Tool(Arc<Mutex<Vec<ToolCall>>>);

impl Tool {
    fn service(
        &self,
    ) -> impl Service<ToolCall, Response = ToolResult, Error = Infallible, Future: Send> + Clone
    {
        let ran = self.0.clone();
        service_fn(move |call: ToolCall| {
            let result = ToolResult::ok(format!("ran {}", call.arguments));
            ran.lock().unwrap().push(call);
            async move { Ok::<_, Infallible>(result) }
        })
    }

    fn ran(&self) -> Vec<ToolCall> {
        self.0.lock().unwrap().clone()
    }
}

/// A person who answers `answer` and remembers what they were asked.
#[derive(Clone, Default)]
struct Person(Arc<Mutex<Vec<ApprovalRequest>>>);

impl Person {
    fn answering(
        &self,
        answer: Approval,
    ) -> impl Service<ApprovalRequest, Response = Approval, Error = Infallible, Future: Send>
           + Clone
           + Send
           + Sync {
        let asked = self.0.clone();
        service_fn(move |request: ApprovalRequest| {
            asked.lock().unwrap().push(request);
            let answer = answer.clone();
            async move { Ok::<_, Infallible>(answer) }
        })
    }

    fn asked(&self) -> Vec<ApprovalRequest> {
        self.0.lock().unwrap().clone()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A stack of the Claude Code hooks of `settings` (a `.claude/settings.json`
/// under `root`), loaded as Claude Code would.
fn claude_stack(root: &Path, settings: Value) -> HookStack {
    let path = root.join(".claude/settings.json");
    write(&path, &settings.to_string());
    let files = claude::config::load_all([&path], root).unwrap();
    let specs = claude::hook::specs(files.iter().flat_map(|f| &f.handlers), root);
    assert!(!specs.is_empty());
    HookStack::builder().report(()).command_hooks(specs).build()
}

/// A Claude Code handler that runs `command`.
fn handler(command: &str) -> Value {
    json!({"type": "command", "command": command, "timeout": 30})
}

/// A shell command that prints `answer` (a JSON object) on one line.
fn say(answer: Value) -> String {
    format!("printf '%s\\n' '{answer}'")
}

// ---------------------------------------------------------------- stop

/// A nanopi command hook that refuses every stop (exit 2) sends the agent back
/// with its stderr as the instruction; `stop_hook_active` is `true` on every
/// stop after a follow-up; after the cap the stop goes ahead, and the count
/// starts over.
#[tokio::test]
async fn a_command_stop_hook_follows_up_until_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stdin.log");
    let never_done = HookSpec::command(
        Event::Stop,
        format!(
            "cat >> '{}'; echo 'run the tests first' >&2; exit 2",
            log.display()
        ),
    );
    let stack = HookStack::builder()
        .report(())
        .command_hooks([never_done])
        .build();
    let outcomes = Outcomes::default();
    let hooks = observed(
        AgentHooks::new(stack)
            .with_session_id("019s")
            .with_cwd("/w")
            .with_follow_up_cap(2),
        &outcomes,
    );

    let go_on = StopDecision::KeepGoing("run the tests first".into());
    assert_eq!(hooks.stop("I fixed it").await.unwrap(), go_on);
    assert_eq!(hooks.follow_ups(), 1);
    assert_eq!(hooks.stop("fixed, really").await.unwrap(), go_on);
    // Two follow-ups in a row: the stop goes ahead, and the count starts over.
    assert_eq!(hooks.stop("done").await.unwrap(), StopDecision::Finish);
    assert_eq!(hooks.follow_ups(), 0);
    assert_eq!(hooks.stop("done again").await.unwrap(), go_on);

    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let active: Vec<_> = lines
        .iter()
        .map(|l| l["arguments"]["stop_hook_active"].clone())
        .collect();
    assert_eq!(active, [false, true, true, false]);
    assert_eq!(lines[0]["event"], "stop");
    assert_eq!(lines[0]["session_id"], "019s");
    assert_eq!(lines[0]["cwd"], "/w");
    assert_eq!(
        lines[0]["arguments"]["last_assistant_message"],
        "I fixed it"
    );
    assert_eq!(outcomes.events(), [Event::Stop; 4]);
}

/// The usual Claude Code Stop hook: it blocks unless `stop_hook_active`, so
/// the agent goes back once, then stops; a new stop starts over.
#[tokio::test]
async fn a_claude_stop_hook_sees_stop_hook_active_on_the_second_stop() {
    let dir = tempfile::tempdir().unwrap();
    let check = format!(
        r#"case "$(cat)" in *'"stop_hook_active":true'*) exit 0;; esac; {}"#,
        say(json!({"decision": "block", "reason": "check the build"}))
    );
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {"Stop": [{"hooks": [handler(&check)]}]}}),
    );
    let hooks = AgentHooks::new(stack);
    let go_on = StopDecision::KeepGoing("check the build".into());
    assert_eq!(hooks.stop("done").await.unwrap(), go_on);
    assert_eq!(hooks.stop("built").await.unwrap(), StopDecision::Finish);
    assert_eq!(hooks.stop("done").await.unwrap(), go_on);
}

/// `continue: false` stops the agent, even next to a block.
#[tokio::test]
async fn a_claude_hook_asking_to_stop_the_agent_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let halt = say(json!({"continue": false, "stopReason": "budget spent",
                          "decision": "block", "reason": "more"}));
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {"Stop": [{"hooks": [handler(&halt)]}]}}),
    );
    let outcomes = Outcomes::default();
    let hooks = observed(AgentHooks::new(stack), &outcomes);
    assert_eq!(hooks.stop("done").await.unwrap(), StopDecision::Finish);
    let (_, outcome) = outcomes.0.lock().unwrap()[0].clone();
    assert_eq!(outcome.stop(), Some("budget spent"));
}

/// In-process: a Stop block is a follow-up; the counter resets on a finish.
#[tokio::test]
async fn an_in_process_stop_block_is_a_follow_up_and_a_finish_resets_the_count() {
    let seen = Seen::default();
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::Stop, "tests-first"),
            seen.answering(
                |req| match req.arguments()["last_assistant_message"].as_str() {
                    Some(m) if m.contains("tests pass") => Verdict::Allow,
                    _ => Verdict::block("run the tests"),
                },
            ),
        )
        .build();
    let hooks = AgentHooks::new(stack);
    for message in ["a", "b", "tests pass", "c"] {
        hooks.stop(message).await.unwrap();
    }
    assert_eq!(
        seen.field("stop_hook_active"),
        [false, true, true, false],
        "true after each follow-up, false again after the finish"
    );
}

#[tokio::test]
async fn subagent_stop_follows_up_per_subagent() {
    let seen = Seen::default();
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::SubagentStop, "more"),
            seen.answering(|_| Verdict::block("look in tests/ too")),
        )
        .build();
    let hooks = AgentHooks::new(stack).with_follow_up_cap(1);
    let go_on = StopDecision::KeepGoing("look in tests/ too".into());
    assert_eq!(
        hooks
            .subagent_stop("a1", "Explore", "found 3")
            .await
            .unwrap(),
        go_on
    );
    assert_eq!(
        hooks
            .subagent_stop("a2", "Explore", "found 1")
            .await
            .unwrap(),
        go_on
    );
    assert_eq!(
        hooks
            .subagent_stop("a1", "Explore", "found 4")
            .await
            .unwrap(),
        StopDecision::Finish
    );
    assert_eq!(seen.field("stop_hook_active"), [false, false, true]);
    assert_eq!(seen.field("agent_id"), ["a1", "a2", "a1"]);
}

// ---------------------------------------------------------------- permission

#[tokio::test]
async fn permission_request_in_process_deny_rewrite_and_ask() {
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::PermissionRequest, "policy")
                .with_matcher("^Bash$")
                .unwrap(),
            |req| match req.arguments()["command"].as_str() {
                Some(c) if c.starts_with("rm") => Verdict::block("no deletions"),
                Some("git push") => {
                    Verdict::transform(json!({"command": "git push --dry-run"})).unwrap()
                }
                Some("deploy") => Verdict::ask("a person decides"),
                _ => Verdict::Allow,
            },
        )
        .build();
    let outcomes = Outcomes::default();
    let hooks = observed(AgentHooks::new(stack), &outcomes);
    let request = |command: &str| hooks.permission_request("Bash", json!({ "command": command }));

    assert_eq!(
        request("rm -rf build").await.unwrap(),
        PermissionDecision::Deny("no deletions".into())
    );
    assert_eq!(
        request("git push").await.unwrap(),
        PermissionDecision::Allow {
            input: json!({"command": "git push --dry-run"})
        }
    );
    assert_eq!(request("deploy").await.unwrap(), PermissionDecision::Ask);
    // An allow without an opinion: the prompt is shown as usual.
    assert_eq!(request("ls").await.unwrap(), PermissionDecision::Ask);
    // No hook for this tool: the prompt is shown.
    let other = hooks.permission_request("Edit", json!({"file_path": "a"}));
    assert_eq!(other.await.unwrap(), PermissionDecision::Ask);
    assert_eq!(outcomes.events(), [Event::PermissionRequest; 5]);
}

/// A Claude Code PermissionRequest hook, unchanged: `behavior: "deny"` denies,
/// `behavior: "allow"` with `updatedInput` allows on that input.
#[tokio::test]
async fn permission_request_with_a_claude_hook() {
    let dir = tempfile::tempdir().unwrap();
    let decide = |decision: Value| {
        say(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                          "decision": decision}}),
        )
    };
    let script = format!(
        r#"case "$(cat)" in *'rm -rf'*) {deny};; *'git push'*) {allow};; *'git status'*) {plain};; esac; exit 0"#,
        deny = decide(json!({"behavior": "deny", "message": "not here"})),
        allow = decide(json!({"behavior": "allow",
                              "updatedInput": {"command": "git push --dry-run"}})),
        plain = decide(json!({"behavior": "allow"})),
    );
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [handler(&script)]}]}}),
    );
    let hooks = AgentHooks::new(stack);
    let request = |command: &str| hooks.permission_request("Bash", json!({ "command": command }));
    assert_eq!(
        request("rm -rf /").await.unwrap(),
        PermissionDecision::Deny("not here".into())
    );
    assert_eq!(
        request("git push").await.unwrap(),
        PermissionDecision::Allow {
            input: json!({"command": "git push --dry-run"})
        }
    );
    // An explicit allow grants the permission as asked; silence shows the prompt.
    assert_eq!(
        request("git status").await.unwrap(),
        PermissionDecision::Allow {
            input: json!({"command": "git status"})
        }
    );
    assert_eq!(request("ls").await.unwrap(), PermissionDecision::Ask);
}

// ---------------------------------------------------------------- approval

fn deploy_guard() -> HookStack {
    HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "deploys")
                .with_matcher("^deploy$")
                .unwrap(),
            |_| Verdict::ask("deploys need a person"),
        )
        .build()
}

#[tokio::test]
async fn an_ask_without_an_approver_refuses_with_the_reason() {
    let tool = Tool::default();
    let hooks = AgentHooks::new(deploy_guard());
    let layered = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(tool.service());
    let result = layered
        .oneshot(ToolCall::new("deploy", "c1", json!({"env": "prod"})))
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::error("blocked by hook: deploys need a person")
    );
    assert!(tool.ran().is_empty());
}

#[tokio::test]
async fn an_approver_that_approves_runs_the_tool() {
    let (tool, person) = (Tool::default(), Person::default());
    let outcomes = Outcomes::default();
    let hooks = observed(AgentHooks::new(deploy_guard()), &outcomes).with_session_id("s1");
    let layered = ServiceBuilder::new()
        .layer(
            hooks
                .tool_layer()
                .with_approver(person.answering(Approval::Approve)),
        )
        .service(tool.service());
    let call = ToolCall::new("deploy", "c1", json!({"env": "staging"}));
    let result = layered.clone().oneshot(call.clone()).await.unwrap();
    assert_eq!(result, ToolResult::ok(r#"ran {"env":"staging"}"#));
    assert_eq!(tool.ran(), std::slice::from_ref(&call));
    let asked = person.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].call, call);
    assert_eq!(asked[0].reason, "deploys need a person");
    // Both tool events ran, and the callback saw them.
    assert_eq!(
        outcomes.events(),
        [Event::ToolExecutionStart, Event::ToolExecutionEnd]
    );

    // A call no hook asks about never reaches the person.
    let other = ToolCall::new("read", "c2", json!({}));
    assert!(!layered.oneshot(other).await.unwrap().is_error());
    assert_eq!(person.asked().len(), 1);
}

#[tokio::test]
async fn an_approver_that_denies_refuses_the_call() {
    let (tool, person) = (Tool::default(), Person::default());
    let layered = ServiceBuilder::new()
        .layer(
            AgentHooks::new(deploy_guard())
                .tool_layer()
                .with_approver(person.answering(Approval::Deny("not on a Friday".into()))),
        )
        .service(tool.service());
    let result = layered
        .oneshot(ToolCall::new("deploy", "c1", json!({"env": "prod"})))
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::error("denied by approver: not on a Friday")
    );
    assert!(tool.ran().is_empty());
    assert_eq!(person.asked().len(), 1);
}

/// A Claude Code PreToolUse hook answering `ask`, approved by the person.
#[tokio::test]
async fn a_claude_ask_goes_to_the_approver() {
    let dir = tempfile::tempdir().unwrap();
    let ask = say(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "ask", "permissionDecisionReason": "pushes are public"}}));
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler(&ask)]}]}}),
    );
    let (tool, person) = (Tool::default(), Person::default());
    let layered = ServiceBuilder::new()
        .layer(
            AgentHooks::new(stack)
                .tool_layer()
                .with_approver(person.answering(Approval::Approve)),
        )
        .service(tool.service());
    let result = layered
        .oneshot(ToolCall::new(
            "Bash",
            "toolu_1",
            json!({"command": "git push"}),
        ))
        .await
        .unwrap();
    assert_eq!(result, ToolResult::ok(r#"ran {"command":"git push"}"#));
    assert_eq!(person.asked()[0].reason, "pushes are public");
    assert_eq!(tool.ran().len(), 1);
}

/// An ask beside an `updatedInput`: the person is asked about the rewritten
/// input, and the tool runs with it once approved.
#[tokio::test]
async fn a_claude_ask_with_a_rewrite_asks_about_the_rewritten_input() {
    let dir = tempfile::tempdir().unwrap();
    let ask = say(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "ask", "permissionDecisionReason": "force-push?",
        "updatedInput": {"command": "git push --force-with-lease"}}}));
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler(&ask)]}]}}),
    );
    let (tool, person) = (Tool::default(), Person::default());
    let layered = ServiceBuilder::new()
        .layer(
            AgentHooks::new(stack)
                .tool_layer()
                .with_approver(person.answering(Approval::Approve)),
        )
        .service(tool.service());
    let result = layered
        .oneshot(ToolCall::new(
            "Bash",
            "toolu_1",
            json!({"command": "git push --force"}),
        ))
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::ok(r#"ran {"command":"git push --force-with-lease"}"#)
    );
    assert_eq!(
        person.asked()[0].call.arguments,
        json!({"command": "git push --force-with-lease"})
    );
}

// ---------------------------------------------------------------- context

/// Claude Code hooks' `additionalContext` at PreToolUse and PostToolUse reach
/// the tool's result, in order; a refusal carries the PreToolUse context.
#[tokio::test]
async fn claude_context_reaches_the_tool_result() {
    let dir = tempfile::tempdir().unwrap();
    let pre = |context: &str| {
        say(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                          "additionalContext": context}}))
    };
    let post = say(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                                 "additionalContext": "the build is green"}}),
    );
    let deny = say(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no deletions",
        "additionalContext": "use git clean instead"}}));
    let guard = format!(r#"case "$(cat)" in *'rm '*) {deny};; *) exit 0;; esac"#);
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                handler(&pre("repo uses make")), handler(&pre("CI is slow")), handler(&guard)]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [handler(&post)]}],
        }}),
    );
    let tool = Tool::default();
    let layered = ServiceBuilder::new()
        .layer(AgentHooks::new(stack).tool_layer())
        .service(tool.service());

    let result = layered
        .clone()
        .oneshot(ToolCall::new("Bash", "toolu_1", json!({"command": "make"})))
        .await
        .unwrap();
    assert_eq!(result.content(), r#"ran {"command":"make"}"#);
    assert_eq!(
        result.context(),
        ["repo uses make", "CI is slow", "the build is green"]
    );

    let refused = layered
        .oneshot(ToolCall::new(
            "Bash",
            "toolu_2",
            json!({"command": "rm -r x"}),
        ))
        .await
        .unwrap();
    assert_eq!(refused.content(), "blocked by hook: no deletions");
    assert!(refused.is_error());
    assert_eq!(
        refused.context(),
        ["repo uses make", "CI is slow", "use git clean instead"]
    );
    assert_eq!(tool.ran().len(), 1);
}

/// The observing points answer the outcome as it is: a Claude Code
/// PostToolBatch hook's context is there for the agent.
#[tokio::test]
async fn an_observing_point_answers_the_outcome_with_its_context() {
    let dir = tempfile::tempdir().unwrap();
    let note = say(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolBatch",
                                                 "additionalContext": "3 files changed"}}),
    );
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {"PostToolBatch": [{"hooks": [handler(&note)]}]}}),
    );
    let outcomes = Outcomes::default();
    let hooks = observed(AgentHooks::new(stack), &outcomes);
    let batch = json!([{"tool_name": "Edit", "tool_input": {}, "tool_use_id": "t1",
                        "tool_response": {}}]);
    let outcome = hooks.post_tool_batch(batch).await.unwrap();
    assert_eq!(outcome.event(), Event::PostToolBatch);
    assert_eq!(outcome.context(), ["3 files changed"]);
    assert_eq!(outcomes.events(), [Event::PostToolBatch]);
}

// ---------------------------------------------------------------- stopping the agent

/// A Claude Code hook that answers `continue: false` stops the agent: at
/// PreToolUse the call is refused, though nothing blocked it, and nobody is
/// asked to approve it; at PostToolUse the tool's result stands; either way
/// the result carries the stop, and at UserPromptSubmit the prompt is
/// refused with the reason for the person.
#[tokio::test]
async fn a_claude_hook_that_stops_the_agent_stops_tool_calls_and_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let stop = say(json!({"continue": false, "stopReason": "budget spent"}));
    let ask_and_stop = say(json!({"continue": false, "stopReason": "budget spent",
        "hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "ask", "permissionDecisionReason": "costly"}}));
    let pre =
        format!(r#"case "$(cat)" in *deploy*) {ask_and_stop};; *stop*) {stop};; *) exit 0;; esac"#);
    let post = format!(r#"case "$(cat)" in *late*) {stop};; *) exit 0;; esac"#);
    let stack = claude_stack(
        dir.path(),
        json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [handler(&pre)]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [handler(&post)]}],
            "UserPromptSubmit": [{"hooks": [handler(&stop)]}],
        }}),
    );
    let (tool, person) = (Tool::default(), Person::default());
    let hooks = AgentHooks::new(stack);
    let layered = ServiceBuilder::new()
        .layer(
            hooks
                .tool_layer()
                .with_approver(person.answering(Approval::Approve)),
        )
        .service(tool.service());
    let bash = |id: &str, command: &str| ToolCall::new("Bash", id, json!({ "command": command }));

    let stopped = layered
        .clone()
        .oneshot(bash("t1", "stop now"))
        .await
        .unwrap();
    assert_eq!(stopped.content(), "stopped by hook: budget spent");
    assert!(stopped.is_error());
    assert_eq!(stopped.stop(), Some("budget spent"));

    let asked = layered.clone().oneshot(bash("t2", "deploy")).await.unwrap();
    assert_eq!(asked.stop(), Some("budget spent"));
    assert!(asked.is_error(), "{asked:?}");
    assert!(
        person.asked().is_empty(),
        "a stopping hook is not asked about"
    );
    assert!(tool.ran().is_empty());

    let late = layered
        .clone()
        .oneshot(bash("t3", "echo late"))
        .await
        .unwrap();
    assert_eq!(late.content(), r#"ran {"command":"echo late"}"#);
    assert_eq!(late.stop(), Some("budget spent"));
    let fine = layered.oneshot(bash("t4", "ls")).await.unwrap();
    assert_eq!(fine.stop(), None);
    assert_eq!(tool.ran().len(), 2);

    // The facade's own call sites.
    let decision = hooks
        .tool_execution_start(bash("t5", "stop"))
        .await
        .unwrap();
    assert!(
        matches!(&decision, tower_hooks::ToolDecision::Refused(result) if result.stop() == Some("budget spent")),
        "{decision:?}"
    );
    let prompt = hooks.input("hello").await.unwrap();
    assert_eq!(
        prompt,
        tower_hooks::PromptDecision::Refused("budget spent".into())
    );
}
