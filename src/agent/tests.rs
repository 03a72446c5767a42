use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::*;
use crate::event::Event;
use crate::outcome::{Notes, Verdict};
use crate::spec::HookSpec;

/// Requests a hook saw.
type Seen = Arc<Mutex<Vec<HookRequest>>>;

fn seen_by(seen: &Seen, verdict: Verdict) -> impl Fn(&HookRequest) -> Verdict + Clone {
    let seen = seen.clone();
    move |req: &HookRequest| {
        seen.lock().unwrap().push(req.clone());
        verdict.clone()
    }
}

fn active(seen: &Seen, key: &str) -> Vec<bool> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|req| req.arguments()[key].as_bool().unwrap())
        .collect()
}

/// A stack that answers every request with `outcome(req)`.
fn answering(
    outcome: impl Fn(HookRequest) -> HookOutcome + Clone + Send + 'static,
) -> impl Service<HookRequest, Response = HookOutcome, Error = Infallible, Future: Send> + Clone {
    tower::service_fn(move |req: HookRequest| {
        let outcome = outcome(req);
        async move { Ok::<_, Infallible>(outcome) }
    })
}

fn with_notes(req: HookRequest, decision: Decision, notes: Notes) -> HookOutcome {
    let event = req.event();
    let mut outcome = HookOutcome::from_parts(
        event,
        decision,
        true,
        Some("why".into()),
        Arc::new(req.arguments().clone()),
        Default::default(),
    );
    outcome.add_notes(notes);
    outcome
}

#[tokio::test]
async fn stop_follows_up_until_the_cap_then_finishes_and_starts_over() {
    let seen = Seen::default();
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::Stop, "never-done"),
            seen_by(&seen, Verdict::block("keep going")),
        )
        .build();
    let hooks = AgentHooks::new(stack).with_follow_up_cap(3);
    assert_eq!(hooks.follow_up_cap(), 3);
    let mut answers = Vec::new();
    for _ in 0..4 {
        answers.push(hooks.stop("done").await.unwrap());
    }
    let go_on = StopDecision::KeepGoing("keep going".into());
    assert_eq!(
        answers,
        [go_on.clone(), go_on.clone(), go_on, StopDecision::Finish]
    );
    assert_eq!(active(&seen, "stop_hook_active"), [false, true, true, true]);
    assert_eq!(hooks.follow_ups(), 0, "a finish resets the count");
    assert!(!hooks.stop("again").await.unwrap().is_finish());
    assert!(!active(&seen, "stop_hook_active")[4]);
    assert_eq!(
        seen.lock().unwrap()[0].arguments()["last_assistant_message"],
        "done"
    );
}

#[tokio::test]
async fn the_default_cap_is_eight_and_zero_means_no_cap() {
    let stack = HookStack::builder()
        .report(())
        .fn_hook(HookSpec::in_process(Event::Stop, "never-done"), |_| {
            Verdict::block("more")
        })
        .build();
    let hooks = AgentHooks::new(stack.clone());
    assert_eq!(hooks.follow_up_cap(), DEFAULT_FOLLOW_UP_CAP);
    for _ in 0..8 {
        assert!(!hooks.stop("m").await.unwrap().is_finish());
    }
    assert_eq!(hooks.follow_ups(), 8);
    assert!(hooks.stop("m").await.unwrap().is_finish());

    let unbounded = AgentHooks::new(stack).with_follow_up_cap(0);
    for _ in 0..20 {
        assert!(!unbounded.stop("m").await.unwrap().is_finish());
    }
}

#[tokio::test]
async fn a_hook_asking_to_stop_the_agent_wins_over_a_follow_up() {
    let stack = answering(|req| {
        with_notes(
            req,
            Decision::Block,
            Notes::default().with_stop("budget exhausted"),
        )
    });
    let hooks = AgentHooks::new(stack);
    assert_eq!(hooks.stop("m").await.unwrap(), StopDecision::Finish);
    assert_eq!(hooks.follow_ups(), 0);

    // A follow-up note (Cursor's `followup_message`) keeps it going too.
    let stack = answering(|req| {
        with_notes(
            req,
            Decision::Allow,
            Notes::default().with_follow_up("and the docs"),
        )
    });
    let hooks = AgentHooks::new(stack);
    assert_eq!(
        hooks.stop("m").await.unwrap(),
        StopDecision::KeepGoing("and the docs".into())
    );
}

#[tokio::test]
async fn a_new_turn_forgets_the_follow_ups_and_clones_share_them() {
    let seen = Seen::default();
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::Stop, "never-done"),
            seen_by(&seen, Verdict::block("more")),
        )
        .build();
    let mut hooks = AgentHooks::new(stack);
    let clone = hooks.clone();
    hooks.stop("a").await.unwrap();
    assert_eq!(clone.follow_ups(), 1);
    hooks.next_turn();
    assert_eq!(clone.follow_ups(), 0);
    clone.stop("b").await.unwrap();
    assert_eq!(active(&seen, "stop_hook_active"), [false, false]);
}

#[tokio::test]
async fn subagents_count_their_follow_ups_each() {
    let seen = Seen::default();
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::SubagentStop, "never-done"),
            seen_by(&seen, Verdict::block("more")),
        )
        .build();
    let hooks = AgentHooks::new(stack).with_follow_up_cap(1);
    let a = hooks.subagent_stop("a", "Explore", "x").await.unwrap();
    assert_eq!(a, StopDecision::KeepGoing("more".into()));
    // `b` runs side by side: its first stop is not a follow-up.
    assert!(!hooks
        .subagent_stop("b", "Plan", "y")
        .await
        .unwrap()
        .is_finish());
    assert!(hooks
        .subagent_stop("a", "Explore", "x")
        .await
        .unwrap()
        .is_finish());
    // The agent's own count is apart.
    assert_eq!(hooks.follow_ups(), 0);
    // `b` starts again: its count starts over.
    hooks.subagent_start("b", "Plan").await.unwrap();
    assert!(!hooks
        .subagent_stop("b", "Plan", "y")
        .await
        .unwrap()
        .is_finish());
    assert_eq!(
        active(&seen, "stop_hook_active"),
        [false, false, true, false]
    );
    let first = seen.lock().unwrap()[0].clone();
    assert_eq!(first.arguments()["agent_id"], "a");
    assert_eq!(first.arguments()["agent_type"], "Explore");
}

#[tokio::test]
async fn permission_request_denies_allows_a_rewrite_and_otherwise_asks() {
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::PermissionRequest, "policy"),
            |req| match req.arguments()["command"].as_str() {
                Some("rm -rf /") => Verdict::block("never"),
                Some("ls") => Verdict::transform(json!({"command": "ls -a"})).unwrap(),
                Some("deploy") => Verdict::ask("a person decides"),
                _ => Verdict::Allow,
            },
        )
        .build();
    let events = Arc::new(Mutex::new(Vec::new()));
    let log = events.clone();
    let hooks = AgentHooks::new(stack)
        .with_session_id("s1")
        .on_outcome(move |req, out| {
            log.lock().unwrap().push((
                req.event(),
                req.tool_name().map(str::to_owned),
                req.session_id().map(str::to_owned),
                out.decision(),
            ))
        });
    let ask = |command: &str| hooks.permission_request("Bash", json!({ "command": command }));
    assert_eq!(
        ask("rm -rf /").await.unwrap(),
        PermissionDecision::Deny("never".into())
    );
    assert_eq!(
        ask("ls").await.unwrap(),
        PermissionDecision::Allow {
            input: json!({"command": "ls -a"})
        }
    );
    assert_eq!(ask("deploy").await.unwrap(), PermissionDecision::Ask);
    assert_eq!(ask("cat").await.unwrap(), PermissionDecision::Ask);
    let events = events.lock().unwrap().clone();
    assert_eq!(events.len(), 4);
    assert_eq!(
        events[1],
        (
            Event::PermissionRequest,
            Some("Bash".into()),
            Some("s1".into()),
            Decision::Transform
        )
    );
    assert_eq!(events[3].3, Decision::Allow);

    // No hook at all: the prompt is shown.
    let none = AgentHooks::new(HookStack::builder().report(()).build());
    let answer = none.permission_request("Bash", json!({})).await.unwrap();
    assert_eq!(answer, PermissionDecision::Ask);
}

#[tokio::test]
async fn the_observing_points_send_their_payloads_and_answer_the_outcome() {
    let seen = Seen::default();
    let mut builder = HookStack::builder().report(());
    for event in [
        Event::PostToolBatch,
        Event::StopFailure,
        Event::Notification,
        Event::SubagentStart,
        Event::InstructionsLoaded,
        Event::AgentThought,
    ] {
        builder = builder.fn_hook(
            HookSpec::in_process(event, "seen"),
            seen_by(&seen, Verdict::Allow),
        );
    }
    let count = Arc::new(Mutex::new(0));
    let counter = count.clone();
    let hooks = AgentHooks::new(builder.build())
        .with_session_id("s1")
        .with_cwd("/w")
        .on_outcome(move |_, _| *counter.lock().unwrap() += 1);
    let outcomes = [
        hooks.post_tool_batch(json!([])).await.unwrap(),
        hooks.stop_failure("overloaded", "half").await.unwrap(),
        hooks
            .notification("waiting", Some("Claude"), "idle_prompt")
            .await
            .unwrap(),
        hooks.subagent_start("a1", "Explore").await.unwrap(),
        hooks
            .instructions_loaded("/w/CLAUDE.md", "Project", "session_start")
            .await
            .unwrap(),
        hooks.agent_thought("hmm").await.unwrap(),
    ];
    assert!(outcomes.iter().all(|o| o.decision() == Decision::Allow));
    assert_eq!(*count.lock().unwrap(), 6);
    let seen = seen.lock().unwrap();
    let args: Vec<_> = seen.iter().map(|r| r.arguments().clone()).collect();
    assert_eq!(
        args,
        [
            json!({"tool_calls": []}),
            json!({"error": "overloaded", "last_assistant_message": "half"}),
            json!({"message": "waiting", "title": "Claude", "notification_type": "idle_prompt"}),
            json!({"agent_id": "a1", "agent_type": "Explore"}),
            json!({"file_path": "/w/CLAUDE.md", "memory_type": "Project", "load_reason": "session_start"}),
            json!({"text": "hmm"}),
        ]
    );
    assert!(seen
        .iter()
        .all(|r| r.session_id() == Some("s1") && r.cwd() == Some("/w")));
}

#[tokio::test]
async fn the_one_by_one_tool_methods_pass_context_along() {
    let stack = answering(|req| {
        let decision = match req.event() {
            Event::ToolExecutionStart => Decision::Block,
            _ => Decision::Allow,
        };
        let note = format!("from {}", req.event());
        with_notes(req, decision, Notes::default().with_context(note))
    });
    let hooks = AgentHooks::new(stack);
    let call = ToolCall::new("bash", "c1", json!({}));
    let decision = hooks.tool_execution_start(call.clone()).await.unwrap();
    assert_eq!(
        decision,
        ToolDecision::Refused(
            ToolResult::error("blocked by hook: why").with_context("from tool_execution_start")
        )
    );
    let result = ToolResult::ok("out").with_context("mine");
    let result = hooks
        .tool_execution_end(&call, result, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(result.content(), "out");
    assert_eq!(result.context(), ["mine", "from tool_execution_end"]);
}

/// A stack with one in-process hook at `event` that answers `verdict(req)`.
fn one_hook(
    event: Event,
    verdict: impl Fn(&HookRequest) -> Verdict + Clone + Send + Sync + 'static,
) -> crate::HookStack {
    crate::HookStack::builder()
        .fn_hook(HookSpec::in_process(event, "model point"), verdict)
        .build()
}

#[tokio::test]
async fn model_request_hands_the_rewritten_request_back() {
    let stack = one_hook(Event::ModelRequest, |req| {
        assert_eq!(req.event(), Event::ModelRequest);
        let mut args = req.arguments().as_object().unwrap().clone();
        args["llm_request"]["model"] = json!("small");
        Verdict::Transform(args)
    });
    let hooks = AgentHooks::new(stack);
    let mut request = json!({"model": "large", "messages": [{"role": "user", "content": "hi"}]});
    let outcome = hooks.model_request(&mut request).await.unwrap();
    assert_eq!(outcome.decision(), Decision::Transform);
    assert_eq!(
        request,
        json!({"model": "small", "messages": [{"role": "user", "content": "hi"}]})
    );
}

#[tokio::test]
async fn model_request_without_hooks_gives_the_request_back_unchanged() {
    let hooks = AgentHooks::new(one_hook(Event::ToolExecutionStart, |_| {
        Verdict::block("no")
    }));
    let mut request = json!({"model": "large"});
    let outcome = hooks.model_request(&mut request).await.unwrap();
    assert!(outcome.hooks().is_empty());
    assert_eq!(request, json!({"model": "large"}));
}

#[tokio::test]
async fn model_response_can_be_replaced_or_blocked() {
    let stack = one_hook(Event::ModelResponse, |req| {
        if req.arguments()["llm_request"]["model"] == "blocked" {
            return Verdict::block("leaks a key");
        }
        let mut args = req.arguments().as_object().unwrap().clone();
        args["llm_response"] = json!({"candidates": [{"content": {"parts": ["[redacted]"]}}]});
        Verdict::Transform(args)
    });
    let hooks = AgentHooks::new(stack);
    let (mut request, mut response) = (json!({"model": "m"}), json!({"text": "sk-123"}));
    hooks
        .model_response(&mut request, &mut response)
        .await
        .unwrap();
    assert_eq!(request, json!({"model": "m"}));
    assert_eq!(
        response["candidates"][0]["content"]["parts"][0],
        "[redacted]"
    );

    let (mut request, mut response) = (json!({"model": "blocked"}), json!({"text": "sk-123"}));
    let outcome = hooks
        .model_response(&mut request, &mut response)
        .await
        .unwrap();
    assert!(outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("leaks a key"));
    assert_eq!(response, json!({"text": "sk-123"}));
}

#[tokio::test]
async fn tool_selection_changes_the_tool_config_and_cannot_block() {
    let stack = one_hook(Event::ToolSelection, |req| {
        if req.arguments()["llm_request"]["toolConfig"].is_null() {
            return Verdict::block("ignored here");
        }
        let mut args = req.arguments().as_object().unwrap().clone();
        args["llm_request"]["toolConfig"] = json!({"mode": "NONE"});
        Verdict::Transform(args)
    });
    let hooks = AgentHooks::new(stack);
    let mut request = json!({"toolConfig": {"mode": "AUTO"}});
    hooks.tool_selection(&mut request).await.unwrap();
    assert_eq!(request, json!({"toolConfig": {"mode": "NONE"}}));
    let mut request = json!({});
    let outcome = hooks.tool_selection(&mut request).await.unwrap();
    assert!(!outcome.is_blocked());
    assert!(!outcome.is_honored());
}
