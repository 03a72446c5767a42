//! The agent's side: the typed call sites of `AgentHooks` and the tool layer
//! `ToolHooksLayer`, with in-process hooks for every rule, and with the real
//! bash hooks of `examples/hooks/` for the refusal and the redaction.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, Layer, Service, ServiceBuilder, ServiceExt};
use tower_hooks::report::Notice;
use tower_hooks::{
    AgentHooks, Builder, CompactionReason, Config, Decision, Event, HookRequest, HookSpec,
    HookStack, PromptDecision, ShutdownReason, StartReason, ToolCall, ToolDecision, ToolHooksLayer,
    ToolResult, Verdict,
};

// ---------------------------------------------------------------- fixtures

/// The stack's report lines, collected.
type Lines = Arc<Mutex<Vec<String>>>;

/// A stack from `hooks`, reporting into the returned lines.
fn stack(hooks: impl FnOnce(Builder) -> Builder) -> (HookStack, Lines) {
    let lines = Lines::default();
    let sink = lines.clone();
    let builder = HookStack::builder()
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")));
    (hooks(builder).build(), lines)
}

fn hook(event: Event) -> HookSpec {
    HookSpec::in_process(event, "test")
}

fn transform(value: Value) -> Verdict {
    match value {
        Value::Object(map) => Verdict::Transform(map),
        other => panic!("updated_input must be an object, got {other}"),
    }
}

/// Requests the hooks saw, in order.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<HookRequest>>>);

impl Seen {
    /// A hook that records its request, then answers `verdict`.
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

    fn all(&self) -> Vec<HookRequest> {
        self.0.lock().unwrap().clone()
    }

    fn events(&self) -> Vec<Event> {
        self.all().iter().map(HookRequest::event).collect()
    }
}

/// A fake tool: records each call it receives and answers `result`.
#[derive(Clone, Default)]
struct Tool {
    calls: Arc<Mutex<Vec<ToolCall>>>,
}

impl Tool {
    fn answering(
        &self,
        result: ToolResult,
    ) -> impl Service<ToolCall, Response = ToolResult, Error = Infallible, Future: Send> + Clone
    {
        let calls = self.calls.clone();
        service_fn(move |call: ToolCall| {
            calls.lock().unwrap().push(call);
            let result = result.clone();
            async move { Ok::<_, Infallible>(result) }
        })
    }

    fn calls(&self) -> Vec<ToolCall> {
        self.calls.lock().unwrap().clone()
    }
}

fn bash(command: &str) -> ToolCall {
    ToolCall::new("bash", "call_1", json!({ "command": command }))
}

/// `examples/hooks/<name>`, quoted for bash.
fn example_hook(name: &str) -> String {
    format!("'{}/examples/hooks/{name}'", env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------- prompts

#[tokio::test]
async fn prompt_rewritten_by_before_agent_start_is_the_prompt_input_receives() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::BeforeAgentStart), |req| {
            let prompt = req.arguments()["prompt"].as_str().unwrap();
            transform(json!({ "prompt": format!("{prompt}, politely") }))
        })
        .fn_hook(
            hook(Event::Input),
            seen.answering(|req| {
                let prompt = req.arguments()["prompt"].as_str().unwrap();
                transform(json!({ "prompt": format!("{prompt} (checked)") }))
            }),
        )
    });
    let mut hooks = AgentHooks::new(stack);

    let decision = hooks.prompt("list the files").await.unwrap();

    assert_eq!(
        seen.all()[0].arguments(),
        &json!({"prompt": "list the files, politely"})
    );
    assert_eq!(
        decision,
        PromptDecision::Proceed("list the files, politely (checked)".into())
    );
    assert_eq!(
        decision.prompt(),
        Some("list the files, politely (checked)")
    );
}

#[tokio::test]
async fn prompt_without_hooks_proceeds_as_typed() {
    let (stack, _) = stack(|b| b);
    let mut hooks = AgentHooks::new(stack);
    assert_eq!(
        hooks.prompt("hi").await.unwrap(),
        PromptDecision::Proceed("hi".into())
    );
}

#[tokio::test]
async fn before_agent_start_block_ends_the_turn_with_the_bracketed_marker() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::BeforeAgentStart), |_| {
            Verdict::block("outside office hours")
        })
        .fn_hook(hook(Event::Input), seen.answering(|_| Verdict::Allow))
    });
    let mut hooks = AgentHooks::new(stack);

    let decision = hooks.prompt("deploy").await.unwrap();

    assert_eq!(
        decision,
        PromptDecision::Refused(
            "[BeforeAgentStart hook blocked the turn: outside office hours]".into()
        )
    );
    assert!(decision.is_refused());
    assert_eq!(decision.prompt(), None);
    assert!(seen.all().is_empty(), "input must not run after the block");
}

#[tokio::test]
async fn input_block_is_worded_as_a_policy_outcome_not_a_failure() {
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::Input), |_| {
            Verdict::block("asks for a password")
        })
    });
    let mut hooks = AgentHooks::new(stack);

    let decision = hooks.prompt("what is the root password?").await.unwrap();

    assert_eq!(
        decision,
        PromptDecision::Refused(
            "your `input` hook refused this prompt (policy, not a failure) \u{2014} asks for a password"
                .into()
        )
    );
}

#[tokio::test]
async fn prompt_advances_the_turn_count_that_turn_events_carry() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        let b = b
            .fn_hook(
                hook(Event::BeforeAgentStart),
                seen.answering(|_| Verdict::Allow),
            )
            // Scoped to the first turn by the turn-count matcher.
            .fn_hook(
                hook(Event::BeforeAgentStart).with_matcher("^1$").unwrap(),
                |_| transform(json!({"prompt": "first turn"})),
            );
        [Event::TurnStart, Event::TurnEnd, Event::MessageEnd]
            .into_iter()
            .fold(b, |b, event| {
                b.fn_hook(hook(event), seen.answering(|_| Verdict::Allow))
            })
    });
    let mut hooks = AgentHooks::new(stack);
    assert_eq!(hooks.turn_count(), 0);

    let first = hooks.prompt("a").await.unwrap();
    hooks.turn_start(0).await.unwrap();
    hooks.turn_end(0, true).await.unwrap();
    hooks.turn_start(1).await.unwrap();
    hooks.turn_end(1, false).await.unwrap();
    hooks.message_end(42).await.unwrap();
    let second = hooks.prompt("b").await.unwrap();
    hooks.turn_start(0).await.unwrap();

    assert_eq!(first, PromptDecision::Proceed("first turn".into()));
    assert_eq!(second, PromptDecision::Proceed("b".into()));
    assert_eq!(hooks.turn_count(), 2);
    let payloads: Vec<Value> = seen.all().iter().map(|r| r.arguments().clone()).collect();
    assert_eq!(
        payloads,
        [
            json!({"turn_count": 1, "prompt": "a"}),
            json!({"turn_count": 1, "iteration": 0}),
            json!({"turn_count": 1, "iteration": 0, "had_tool_calls": true}),
            json!({"turn_count": 1, "iteration": 1}),
            json!({"turn_count": 1, "iteration": 1, "had_tool_calls": false}),
            json!({"turn_count": 1, "response_length": 42}),
            json!({"turn_count": 2, "prompt": "b"}),
            json!({"turn_count": 2, "iteration": 0}),
        ]
    );
}

#[tokio::test]
async fn a_refused_turn_still_counts() {
    let (stack, _) = stack(|b| b.fn_hook(hook(Event::Input), |_| Verdict::block("no")));
    let mut hooks = AgentHooks::new(stack);
    assert!(hooks.prompt("a").await.unwrap().is_refused());
    assert!(hooks.prompt("b").await.unwrap().is_refused());
    assert_eq!(hooks.turn_count(), 2);
}

#[tokio::test]
async fn next_turn_numbers_turns_for_prompt_hooks_fired_one_by_one() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(
            hook(Event::BeforeAgentStart),
            seen.answering(|_| Verdict::Allow),
        )
    });
    let mut hooks = AgentHooks::new(stack);

    assert_eq!(hooks.next_turn(), 1);
    hooks.before_agent_start("one").await.unwrap();
    hooks.set_turn_count(41);
    assert_eq!(hooks.next_turn(), 42);
    hooks.before_agent_start("resumed").await.unwrap();
    hooks
        .input("input alone does not count turns")
        .await
        .unwrap();

    let counts: Vec<Value> = seen
        .all()
        .iter()
        .map(|r| r.arguments()["turn_count"].clone())
        .collect();
    assert_eq!(counts, [json!(1), json!(42)]);
    assert_eq!(hooks.turn_count(), 42);
}

// ---------------------------------------------------------------- session and advisory events

#[tokio::test]
async fn session_and_compaction_reasons_reach_the_hooks_on_the_wire() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let (stack, _) = stack(|b| {
        [
            Event::SessionStart,
            Event::SessionShutdown,
            Event::SessionBeforeCompact,
            Event::SessionCompact,
        ]
        .into_iter()
        .fold(b, |b, event| {
            let sink = sink.clone();
            b.fn_hook(hook(event), move |req| {
                // The exact line a command hook would read on stdin.
                let line = tower_hooks::dialect::nanopi::stdin_line(req, req.cwd().unwrap());
                sink.lock().unwrap().push(String::from_utf8(line).unwrap());
                Verdict::Allow
            })
        })
    });
    let hooks = AgentHooks::new(stack)
        .with_session_id("019abc")
        .with_cwd("/p");

    use StartReason as S;
    for reason in [S::Startup, S::New, S::Resume, S::Fork, S::Import] {
        hooks.session_start(reason).await.unwrap();
    }
    use ShutdownReason as D;
    for reason in [D::Quit, D::New, D::Resume, D::Fork, D::Import] {
        hooks.session_shutdown(reason).await.unwrap();
    }
    for reason in [CompactionReason::Threshold, CompactionReason::Manual] {
        hooks.session_before_compact(reason).await.unwrap();
        hooks.session_compact(reason).await.unwrap();
    }

    let line = |event: &str, reason: &str| {
        format!(
            "{{\"event\":\"{event}\",\"arguments\":{{\"reason\":\"{reason}\"}},\
             \"cwd\":\"/p\",\"session_id\":\"019abc\"}}\n"
        )
    };
    let mut expected = Vec::new();
    for reason in ["startup", "new", "resume", "fork", "import"] {
        expected.push(line("session_start", reason));
    }
    for reason in ["quit", "new", "resume", "fork", "import"] {
        expected.push(line("session_shutdown", reason));
    }
    for reason in ["threshold", "manual"] {
        expected.push(line("session_before_compact", reason));
        expected.push(line("session_compact", reason));
    }
    assert_eq!(*lines.lock().unwrap(), expected);
}

#[tokio::test]
async fn compaction_matchers_test_the_reason_while_session_id_stays_the_real_id() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(
            hook(Event::SessionBeforeCompact)
                .with_matcher("^manual$")
                .unwrap(),
            seen.answering(|_| Verdict::Allow),
        )
    });
    let hooks = AgentHooks::new(stack).with_session_id("019abc");

    hooks
        .session_before_compact(CompactionReason::Threshold)
        .await
        .unwrap();
    hooks
        .session_before_compact(CompactionReason::Manual)
        .await
        .unwrap();

    let seen = seen.all();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].arguments(), &json!({"reason": "manual"}));
    assert_eq!(seen[0].session_id(), Some("019abc"));
}

#[tokio::test]
async fn advisory_and_ignored_events_cannot_stop_anything() {
    let (stack, lines) = stack(|b| {
        [
            Event::SessionStart,
            Event::SessionShutdown,
            Event::TurnStart,
            Event::ToolExecutionEnd,
            Event::TurnEnd,
            Event::MessageEnd,
            Event::SessionBeforeCompact,
            Event::SessionCompact,
        ]
        .into_iter()
        .fold(b, |b, event| {
            b.fn_hook(hook(event), move |_| Verdict::block(event.camel_name()))
        })
    });
    let hooks = AgentHooks::new(stack);

    let outcomes = [
        hooks.session_start(StartReason::Startup).await.unwrap(),
        hooks.turn_start(0).await.unwrap(),
        hooks.turn_end(0, false).await.unwrap(),
        hooks.message_end(0).await.unwrap(),
        hooks
            .session_before_compact(CompactionReason::Threshold)
            .await
            .unwrap(),
        hooks
            .session_compact(CompactionReason::Threshold)
            .await
            .unwrap(),
        hooks.session_shutdown(ShutdownReason::Quit).await.unwrap(),
    ];
    for outcome in &outcomes {
        // The hook said block; the call site goes on regardless.
        assert_eq!(outcome.decision(), Decision::Block, "{:?}", outcome.event());
        assert!(!outcome.is_blocked(), "{:?}", outcome.event());
        assert!(!outcome.is_honored(), "{:?}", outcome.event());
        assert_eq!(outcome.message(), None, "{:?}", outcome.event());
    }
    let call = bash("ls");
    let result = hooks
        .tool_execution_end(&call, ToolResult::ok("a b c"), Duration::from_millis(5))
        .await
        .unwrap();
    assert_eq!(result, ToolResult::ok("a b c"));

    let report = |camel: &str| {
        format!("nanopi: {camel} hook asked to block; ignored (advisory event) [reason={camel}]")
    };
    assert_eq!(
        *lines.lock().unwrap(),
        [
            "SessionStart",
            "TurnStart",
            "TurnEnd",
            "MessageEnd",
            "SessionBeforeCompact",
            "SessionCompact",
            "SessionShutdown",
            "ToolExecutionEnd",
        ]
        .map(report)
    );
}

#[tokio::test]
async fn session_id_and_cwd_ride_on_every_event_without_being_retyped() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        Event::NANOPI.into_iter().fold(b, |b, event| {
            b.fn_hook(hook(event), seen.answering(|_| Verdict::Allow))
        })
    });
    let mut hooks = AgentHooks::new(stack)
        .with_session_id("019abc")
        .with_cwd("/home/u/proj");
    let tool = Tool::default();
    let layered = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(tool.answering(ToolResult::ok("done")));

    hooks.session_start(StartReason::Startup).await.unwrap();
    hooks.prompt("hi").await.unwrap();
    hooks.turn_start(0).await.unwrap();
    layered.oneshot(bash("ls")).await.unwrap();
    hooks.turn_end(0, true).await.unwrap();
    hooks.message_end(2).await.unwrap();
    hooks
        .session_before_compact(CompactionReason::Manual)
        .await
        .unwrap();
    hooks
        .session_compact(CompactionReason::Manual)
        .await
        .unwrap();
    hooks.session_shutdown(ShutdownReason::Quit).await.unwrap();

    let seen = seen.all();
    let mut events: Vec<Event> = seen.iter().map(HookRequest::event).collect();
    events.sort();
    assert_eq!(events, Event::NANOPI, "every event fired once");
    for req in &seen {
        assert_eq!(req.session_id(), Some("019abc"), "{:?}", req.event());
        assert_eq!(req.cwd(), Some("/home/u/proj"), "{:?}", req.event());
        let tool_event = matches!(
            req.event(),
            Event::ToolExecutionStart | Event::ToolExecutionEnd
        );
        let expected = tool_event.then_some("call_1");
        assert_eq!(req.tool_call_id(), expected, "{:?}", req.event());
        assert_eq!(
            req.tool_name(),
            tool_event.then_some("bash"),
            "{:?}",
            req.event()
        );
    }
}

#[tokio::test]
async fn on_outcome_sees_every_request_and_its_full_outcome() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionStart), |_| Verdict::Allow)
            .fn_hook(hook(Event::ToolExecutionEnd), |_| {
                transform(json!({"content": "redacted"}))
            })
    });
    let hooks = AgentHooks::new(stack).on_outcome(move |req, outcome| {
        sink.lock().unwrap().push((
            req.event(),
            req.arguments().clone(),
            outcome.decision(),
            outcome.hooks().len(),
        ))
    });
    let tool = Tool::default();
    let layered = hooks
        .tool_layer()
        .layer(tool.answering(ToolResult::ok("secret")));

    hooks.turn_start(0).await.unwrap();
    layered.oneshot(bash("cat .env")).await.unwrap();

    let log = log.lock().unwrap();
    assert_eq!(log.len(), 3);
    assert_eq!(
        log[0],
        (
            Event::TurnStart,
            json!({"turn_count": 0, "iteration": 0}),
            Decision::Allow,
            0
        )
    );
    assert_eq!(
        log[1],
        (
            Event::ToolExecutionStart,
            json!({"command": "cat .env"}),
            Decision::Allow,
            1
        )
    );
    assert_eq!(log[2].0, Event::ToolExecutionEnd);
    assert_eq!(
        log[2].1["tool_response"]["content"], "secret",
        "the request as sent"
    );
    assert_eq!((log[2].2, log[2].3), (Decision::Transform, 1));
}

// ---------------------------------------------------------------- tool calls, through the facade

#[tokio::test]
async fn facade_tool_execution_start_answers_the_call_to_make_or_the_refusal() {
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionStart), |req| {
            match req.arguments()["command"].as_str() {
                Some("rm -rf /") => Verdict::block("not on my watch"),
                Some(cmd) => transform(json!({"command": format!("{cmd} --dry-run")})),
                None => Verdict::Allow,
            }
        })
    });
    let hooks = AgentHooks::new(stack);

    assert_eq!(
        hooks.tool_execution_start(bash("rm -rf /")).await.unwrap(),
        ToolDecision::Refused(ToolResult::error("blocked by hook: not on my watch"))
    );
    assert_eq!(
        hooks.tool_execution_start(bash("deploy")).await.unwrap(),
        ToolDecision::Run(bash("deploy --dry-run"))
    );
}

#[tokio::test]
async fn facade_tool_execution_end_answers_the_rewritten_result() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(
            hook(Event::ToolExecutionEnd),
            seen.answering(|_| transform(json!({"content": "[redacted]", "is_error": true}))),
        )
    });
    let hooks = AgentHooks::new(stack);

    let result = hooks
        .tool_execution_end(
            &bash("cat .env"),
            ToolResult::ok("TOKEN=x"),
            Duration::from_millis(7),
        )
        .await
        .unwrap();

    assert_eq!(result, ToolResult::error("[redacted]"));
    assert_eq!(
        seen.all()[0].arguments(),
        &json!({"tool_input": {"command": "cat .env"},
                "tool_response": {"content": "TOKEN=x", "is_error": false, "duration_ms": 7}})
    );
}

// ---------------------------------------------------------------- ToolHooksLayer

#[tokio::test]
async fn refused_tool_call_is_never_made_and_answers_blocked_by_hook() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionStart), |_| {
            Verdict::block("refused: rm -rf")
        })
        .fn_hook(
            hook(Event::ToolExecutionEnd),
            seen.answering(|_| Verdict::Allow),
        )
    });
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("gone")));

    let result = layered.oneshot(bash("rm -rf /")).await.unwrap();

    assert_eq!(
        result,
        ToolResult::error("blocked by hook: refused: rm -rf")
    );
    assert!(tool.calls().is_empty(), "the tool must never be called");
    assert!(
        seen.all().is_empty(),
        "a call that never ran has no end event"
    );
}

#[tokio::test]
async fn replacement_arguments_are_what_the_tool_runs_on() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionStart), |_| {
            transform(json!({"command": "ls -la", "timeout": 10}))
        })
        .fn_hook(
            hook(Event::ToolExecutionEnd),
            seen.answering(|_| Verdict::Allow),
        )
    });
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("total 0")));

    let result = layered.oneshot(bash("ls")).await.unwrap();

    assert_eq!(result, ToolResult::ok("total 0"));
    assert_eq!(
        tool.calls(),
        [ToolCall::new(
            "bash",
            "call_1",
            json!({"command": "ls -la", "timeout": 10})
        )]
    );
    assert_eq!(
        seen.all()[0].arguments()["tool_input"],
        json!({"command": "ls -la", "timeout": 10}),
        "tool_input is what actually ran"
    );
}

#[tokio::test]
async fn end_transform_replaces_content_and_is_error_before_the_result_is_returned() {
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionEnd), |req| {
            let content = req.arguments()["tool_response"]["content"]
                .as_str()
                .unwrap();
            transform(json!({"content": content.replace("hunter2", "[redacted]")}))
        })
        .fn_hook(hook(Event::ToolExecutionEnd), |req| {
            // The second hook sees the first one's rewrite.
            assert_eq!(req.arguments()["tool_response"]["content"], "pw=[redacted]");
            transform(json!({"is_error": true}))
        })
    });
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("pw=hunter2")));

    let result = layered.oneshot(bash("cat pw")).await.unwrap();

    assert_eq!(result, ToolResult::error("pw=[redacted]"));
}

#[tokio::test]
async fn nested_tool_response_in_updated_input_is_not_honored() {
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionEnd), |_| {
            // Shaped like the payload it received: wrong, by the spec.
            transform(json!({"tool_response": {"content": "[redacted]", "is_error": true}}))
        })
    });
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("TOKEN=x")));

    let result = layered.oneshot(bash("cat .env")).await.unwrap();

    assert_eq!(result, ToolResult::ok("TOKEN=x"));
}

#[tokio::test]
async fn tool_errors_pass_through_unchanged() {
    #[derive(Debug, PartialEq)]
    struct ToolDown(&'static str);

    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(
            hook(Event::ToolExecutionEnd),
            seen.answering(|_| Verdict::Allow),
        )
    });
    let failing =
        service_fn(|_call: ToolCall| async { Err::<ToolResult, _>(ToolDown("sandbox gone")) });
    let layered = ToolHooksLayer::new(stack).layer(failing);

    let err = layered.oneshot(bash("ls")).await.unwrap_err();

    assert_eq!(err, ToolDown("sandbox gone"));
    assert!(seen.all().is_empty(), "no result, so no end event");
}

#[tokio::test]
async fn tool_readiness_errors_pass_through_unchanged() {
    #[derive(Debug, Clone)]
    struct NeverReady;
    impl Service<ToolCall> for NeverReady {
        type Response = ToolResult;
        type Error = &'static str;
        type Future = std::future::Ready<Result<ToolResult, &'static str>>;
        fn poll_ready(
            &mut self,
            _cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), Self::Error>> {
            std::task::Poll::Ready(Err("pool closed"))
        }
        fn call(&mut self, _call: ToolCall) -> Self::Future {
            unreachable!("never ready, so never called")
        }
    }
    let (stack, _) = stack(|b| b);
    let layered = ToolHooksLayer::new(stack).layer(NeverReady);
    assert_eq!(
        layered.oneshot(bash("ls")).await.unwrap_err(),
        "pool closed"
    );
}

#[tokio::test(start_paused = true)]
async fn duration_ms_is_the_measured_time_of_the_tool_call() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(
            hook(Event::ToolExecutionEnd),
            seen.answering(|_| Verdict::Allow),
        )
    });
    let slow = service_fn(|_call: ToolCall| async {
        tokio::time::sleep(Duration::from_millis(250)).await;
        Ok::<_, Infallible>(ToolResult::ok("done"))
    });
    let layered = ToolHooksLayer::new(stack).layer(slow);

    layered.oneshot(bash("make")).await.unwrap();

    assert_eq!(
        seen.all()[0].arguments()["tool_response"],
        json!({"content": "done", "is_error": false, "duration_ms": 250})
    );
}

#[tokio::test]
async fn end_block_is_ignored_and_the_tool_result_stands() {
    let (stack, lines) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionEnd), |_| {
            transform(json!({"content": "rewritten first"}))
        })
        .fn_hook(hook(Event::ToolExecutionEnd), |_| {
            Verdict::block("too late")
        })
    });
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("raw")));

    let result = layered.oneshot(bash("ls")).await.unwrap();

    // The block has no effect; the rewrite taken before it stays.
    assert_eq!(result, ToolResult::ok("rewritten first"));
    assert_eq!(
        *lines.lock().unwrap(),
        ["nanopi: ToolExecutionEnd hook asked to block; ignored (advisory event) [reason=too late]"]
    );
}

#[tokio::test]
async fn no_hooks_runs_the_tool_on_the_model_s_arguments_and_returns_its_result_untouched() {
    let (stack, _) = stack(|b| {
        b.no_hooks(true)
            .fn_hook(hook(Event::ToolExecutionStart), |_| Verdict::block("no"))
            .fn_hook(hook(Event::ToolExecutionEnd), |_| {
                transform(json!({"content": "[redacted]"}))
            })
    });
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("TOKEN=x")));

    let result = layered.oneshot(bash("rm -rf build/")).await.unwrap();

    assert_eq!(result, ToolResult::ok("TOKEN=x"));
    assert_eq!(tool.calls(), [bash("rm -rf build/")]);
}

#[tokio::test]
async fn layer_carries_its_session_id_and_cwd_and_omits_an_empty_call_id() {
    let seen = Seen::default();
    let (stack, _) = stack(|b| {
        b.fn_hook(
            hook(Event::ToolExecutionStart),
            seen.answering(|_| Verdict::Allow),
        )
        .fn_hook(
            hook(Event::ToolExecutionEnd),
            seen.answering(|_| Verdict::Allow),
        )
    });
    let tool = Tool::default();
    let layered = ServiceBuilder::new()
        .layer(
            ToolHooksLayer::new(stack)
                .with_session_id("s1")
                .with_cwd("/p"),
        )
        .service(tool.answering(ToolResult::ok("")));

    layered
        .oneshot(ToolCall::new("read", "", json!({"path": "a"})))
        .await
        .unwrap();

    assert_eq!(
        seen.events(),
        [Event::ToolExecutionStart, Event::ToolExecutionEnd]
    );
    for req in seen.all() {
        assert_eq!(req.session_id(), Some("s1"));
        assert_eq!(req.cwd(), Some("/p"));
        assert_eq!(req.tool_name(), Some("read"));
        assert_eq!(req.tool_call_id(), None);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_tool_calls_each_get_their_own_hooks() {
    let starts = Arc::new(AtomicUsize::new(0));
    let counter = starts.clone();
    let (stack, _) = stack(|b| {
        b.fn_hook(hook(Event::ToolExecutionStart), move |req| {
            counter.fetch_add(1, Ordering::SeqCst);
            transform(json!({"n": req.arguments()["n"].as_u64().unwrap() * 10}))
        })
    });
    let mut hooks = AgentHooks::new(stack).with_session_id("s1");
    let echo = service_fn(|call: ToolCall| async move {
        Ok::<_, Infallible>(ToolResult::ok(call.arguments["n"].to_string()))
    });
    let layered = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(echo);

    // Futures of the layer and of the facade are Send: they can be spawned.
    let tasks: Vec<_> = (1..=4)
        .map(|n| {
            let layered = layered.clone();
            tokio::spawn(layered.oneshot(ToolCall::new("calc", format!("c{n}"), json!({"n": n}))))
        })
        .collect();
    // An agent loop can run as a task of its own.
    let facade = tokio::spawn(async move {
        hooks.prompt("go").await?;
        hooks.turn_start(0).await
    });
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.unwrap().unwrap().into_content());
    }
    facade.await.unwrap().unwrap();

    assert_eq!(results, ["10", "20", "30", "40"]);
    assert_eq!(starts.load(Ordering::SeqCst), 4);
}

// ---------------------------------------------------------------- real bash hooks

#[tokio::test]
async fn guard_sh_refuses_rm_rf_and_the_tool_never_runs() {
    let (stack, _) = stack(|b| {
        b.command_hook(
            HookSpec::command(Event::ToolExecutionStart, example_hook("guard.sh"))
                .with_matcher("^bash$")
                .unwrap(),
        )
    });
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("ran")));

    let refused = layered
        .clone()
        .oneshot(bash("rm -rf build/"))
        .await
        .unwrap();
    let allowed = layered.oneshot(bash("ls build/")).await.unwrap();

    assert_eq!(
        refused,
        ToolResult::error("blocked by hook: refused by guard.sh: rm -rf build/")
    );
    assert_eq!(allowed, ToolResult::ok("ran"));
    assert_eq!(tool.calls(), [bash("ls build/")]);
}

#[tokio::test]
async fn redact_sh_strips_the_token_before_the_model_sees_it() {
    let (stack, _) = stack(|b| {
        b.command_hook(HookSpec::command(
            Event::ToolExecutionEnd,
            example_hook("redact.sh"),
        ))
    });
    let tool = Tool::default();
    let output = "DEPLOY_TARGET=staging\nGITHUB_TOKEN=ghp_FAKEexampleTOKEN0123456789 \"quoted\"\n";
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok(output)));

    let result = layered.oneshot(bash("cat deploy.env")).await.unwrap();

    assert_eq!(
        result,
        ToolResult::ok("DEPLOY_TARGET=staging\nGITHUB_TOKEN=[REDACTED_GITHUB_TOKEN] \"quoted\"\n")
    );
}

#[tokio::test]
async fn example_config_rewrites_the_first_prompt_refuses_rm_rf_and_redacts() {
    // examples/agent.toml as `cargo run --example agent` loads it, and the
    // variable its hooks get from the builder, as the example gives it.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/agent.toml");
    let config = Config::load_file(path).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let (stack, lines) = stack(|b| {
        b.config(&config).env(
            "TOWER_HOOKS_EXAMPLES",
            concat!(env!("CARGO_MANIFEST_DIR"), "/examples/hooks"),
        )
    });
    let mut hooks = AgentHooks::new(stack).with_session_id("demo-0001");
    let tool = Tool::default();
    let mut layered = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(tool.answering(ToolResult::ok(
            "GITHUB_TOKEN=ghp_FAKEexampleTOKEN0123456789",
        )));

    let started = hooks.session_start(StartReason::Startup).await.unwrap();
    let first = hooks.prompt("tidy up").await.unwrap();
    let second = hooks.prompt("tidy up again").await.unwrap();
    let third = hooks.prompt("what is the password?").await.unwrap();
    let refused = layered
        .ready()
        .await
        .unwrap()
        .call(bash("rm -rf build/"))
        .await
        .unwrap();
    let redacted = layered
        .ready()
        .await
        .unwrap()
        .call(bash("cat .env"))
        .await
        .unwrap();
    let compacting = hooks
        .session_before_compact(CompactionReason::Manual)
        .await
        .unwrap();

    assert_eq!(started.hooks().len(), 1);
    assert_eq!(
        first,
        PromptDecision::Proceed(
            "tidy up (house rules: stay inside the repository; never print secrets)".into()
        )
    );
    assert_eq!(
        second,
        PromptDecision::Proceed("tidy up again".into()),
        "first turn only"
    );
    assert_eq!(
        third,
        PromptDecision::Refused(
            "your `input` hook refused this prompt (policy, not a failure) \u{2014} \
             prompts must not ask for passwords"
                .into()
        )
    );
    assert_eq!(
        refused,
        ToolResult::error("blocked by hook: refused by guard.sh: rm -rf build/")
    );
    assert_eq!(
        redacted,
        ToolResult::ok("GITHUB_TOKEN=[REDACTED_GITHUB_TOKEN]")
    );
    assert_eq!(tool.calls(), [bash("cat .env")]);
    assert!(!compacting.is_blocked());
    assert_eq!(
        *lines.lock().unwrap(),
        [
            "nanopi: SessionBeforeCompact hook asked to block; ignored (advisory event) \
          [reason=not now, please]"
        ]
    );
}

/// `ask` with no approver is a refusal with its reason: the tool never runs.
#[tokio::test]
async fn an_ask_without_an_approver_refuses_the_tool_call() {
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = ran.clone();
    let tools = tower::service_fn(move |_call: ToolCall| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async { Ok::<_, std::convert::Infallible>(ToolResult::ok("ran")) }
    });
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "reviewer"),
            |_| Verdict::ask("a person must review deploys"),
        )
        .build();
    let mut layered = tower::ServiceBuilder::new()
        .layer(ToolHooksLayer::new(stack.clone()))
        .service(tools);
    let result = layered
        .ready()
        .await
        .unwrap()
        .call(ToolCall::new("deploy", "call_1", json!({})))
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::error("blocked by hook: a person must review deploys")
    );
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0);

    let outcome = stack
        .oneshot(HookRequest::tool_execution_start("deploy", json!({})))
        .await
        .unwrap();
    assert_eq!(outcome.decision(), Decision::Ask);
    assert!(outcome.needs_approval() && !outcome.is_blocked());
    assert_eq!(outcome.reason(), Some("a person must review deploys"));
}
