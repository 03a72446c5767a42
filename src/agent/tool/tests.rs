use super::*;
use crate::event::Event;
use crate::outcome::{Decision, Notes, Verdict};
use crate::spec::HookSpec;
use crate::stack::HookStack;
use serde_json::json;
use std::convert::Infallible;
use std::sync::Mutex;
use tower::{service_fn, ServiceExt};

/// A tool that records the calls it runs and answers `ran <arguments>`,
/// with a note of its own.
fn tool(
    ran: &Arc<Mutex<Vec<ToolCall>>>,
) -> impl Service<ToolCall, Response = ToolResult, Error = Infallible, Future: Send> + Clone {
    let ran = ran.clone();
    service_fn(move |call: ToolCall| {
        let result = ToolResult::ok(format!("ran {}", call.arguments)).with_context("tool");
        ran.lock().unwrap().push(call);
        async move { Ok::<_, Infallible>(result) }
    })
}

/// Hooks at `tool_execution_start`: a rewrite, then `verdict`.
fn asking(verdict: Verdict) -> HookStack {
    HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "rewrite"),
            |_| Verdict::transform(json!({"env": "staging"})).unwrap(),
        )
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "ask"),
            move |_| verdict.clone(),
        )
        .build()
}

/// An approver that records what it was asked and answers `answer`.
fn approver(
    asked: &Arc<Mutex<Vec<ApprovalRequest>>>,
    answer: Result<Approval, &'static str>,
) -> impl Service<ApprovalRequest, Response = Approval, Error = BoxError, Future: Send>
       + Clone
       + Send
       + Sync {
    let asked = asked.clone();
    service_fn(move |request: ApprovalRequest| {
        asked.lock().unwrap().push(request);
        let answer = answer.clone().map_err(BoxError::from);
        async move { answer }
    })
}

async fn run(layer: ToolHooksLayer<HookStack>, ran: &Arc<Mutex<Vec<ToolCall>>>) -> ToolResult {
    layer
        .layer(tool(ran))
        .oneshot(ToolCall::new("deploy", "c1", json!({"env": "prod"})))
        .await
        .unwrap()
}

#[tokio::test]
async fn an_approved_ask_runs_the_rewritten_call() {
    let (ran, asked) = (Arc::default(), Arc::default());
    let layer = ToolHooksLayer::new(asking(Verdict::ask("deploys need a person")))
        .with_approver(approver(&asked, Ok(Approval::Approve)));
    let result = run(layer, &ran).await;
    assert_eq!(result.content(), r#"ran {"env":"staging"}"#);
    assert!(!result.is_error());
    let call = ToolCall::new("deploy", "c1", json!({"env": "staging"}));
    assert_eq!(*ran.lock().unwrap(), std::slice::from_ref(&call));
    assert_eq!(
        *asked.lock().unwrap(),
        [ApprovalRequest::new(call, "deploys need a person")]
    );
}

#[tokio::test]
async fn a_denied_or_failed_approval_refuses_the_call() {
    for (answer, want) in [
        (
            Ok(Approval::Deny("not today".into())),
            "denied by approver: not today",
        ),
        (Ok(Approval::Deny(String::new())), "denied by approver"),
        (Err("the person left"), "approval failed: the person left"),
    ] {
        let (ran, asked) = (Arc::default(), Arc::default());
        let layer = ToolHooksLayer::new(asking(Verdict::ask("sure?")))
            .with_approver(approver(&asked, answer));
        assert_eq!(run(layer, &ran).await, ToolResult::error(want));
        assert!(ran.lock().unwrap().is_empty(), "{want}");
        assert_eq!(asked.lock().unwrap().len(), 1);
    }
}

#[tokio::test]
async fn an_ask_without_an_approver_and_a_block_are_refusals() {
    let ran = Arc::default();
    let layer = ToolHooksLayer::new(asking(Verdict::ask("sure?")));
    assert_eq!(
        run(layer, &ran).await,
        ToolResult::error("blocked by hook: sure?")
    );
    // A block: the approver is not asked.
    let asked = Arc::default();
    let layer = ToolHooksLayer::new(asking(Verdict::block("no")))
        .with_approver(approver(&asked, Ok(Approval::Approve)));
    assert_eq!(
        run(layer, &ran).await,
        ToolResult::error("blocked by hook: no")
    );
    assert!(asked.lock().unwrap().is_empty());
    // No ask: the approver is not asked either.
    let layer = ToolHooksLayer::new(asking(Verdict::Allow))
        .with_approver(approver(&asked, Ok(Approval::Deny("x".into()))));
    assert!(!run(layer, &ran).await.is_error());
    assert!(asked.lock().unwrap().is_empty());
    assert_eq!(ran.lock().unwrap().len(), 1);
}

/// Hooks that note where they ran; `start` decides at `tool_execution_start`.
fn noting(
    start: Decision,
) -> impl Service<HookRequest, Response = HookOutcome, Error = Infallible, Future: Send> + Clone {
    service_fn(move |req: HookRequest| {
        let event = req.event();
        let decision = match event {
            Event::ToolExecutionStart => start,
            _ => Decision::Allow,
        };
        let arguments = Arc::new(req.arguments().clone());
        let mut outcome = HookOutcome::from_parts(
            event,
            decision,
            true,
            Some("why".into()),
            arguments,
            Default::default(),
        );
        outcome.add_notes(
            Notes::default()
                .with_context(format!("{event} 1"))
                .with_context(format!("{event} 2")),
        );
        async move { Ok::<_, Infallible>(outcome) }
    })
}

#[tokio::test]
async fn context_of_both_tool_events_reaches_the_result_in_order() {
    let ran = Arc::default();
    let result = ToolHooks::new(tool(&ran), noting(Decision::Allow))
        .oneshot(ToolCall::new("bash", "c1", json!({})))
        .await
        .unwrap();
    assert_eq!(result.content(), "ran {}");
    assert_eq!(
        result.context(),
        [
            "tool_execution_start 1",
            "tool_execution_start 2",
            "tool",
            "tool_execution_end 1",
            "tool_execution_end 2"
        ]
    );

    // A refusal carries the start's notes.
    for decision in [Decision::Block, Decision::Ask] {
        let refused = ToolHooks::new(tool(&ran), noting(decision))
            .oneshot(ToolCall::new("bash", "c2", json!({})))
            .await
            .unwrap();
        assert_eq!(
            refused,
            ToolResult::error("blocked by hook: why")
                .with_context("tool_execution_start 1")
                .with_context("tool_execution_start 2")
        );
    }
    assert_eq!(ran.lock().unwrap().len(), 1);
}
