//! Composition: tower's own layers around each hook and around the call, the
//! tool layer over a fallible stack, and the boxed stack. In-process hooks only.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, Layer, Service, ServiceBuilder, ServiceExt};
use tower_hooks::report::Notice;
use tower_hooks::{
    AgentHooks, BoxError, BoxHookStack, Builder, Event, HookOutcome, HookRequest, HookSpec,
    HookStack, ToolCall, ToolHooksLayer, ToolResult, Verdict,
};

/// A builder whose report lines are collected.
fn collecting() -> (Builder, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let builder = HookStack::builder()
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")));
    (builder, lines)
}

/// An in-process hook that answers `Allow` after `delay`.
fn slow(
    delay: Duration,
) -> impl tower::Service<HookRequest, Response = Verdict, Error = Infallible, Future = impl Send>
       + Clone
       + Send
       + Sync
       + 'static {
    service_fn(move |_req: HookRequest| async move {
        tokio::time::sleep(delay).await;
        Ok::<_, Infallible>(Verdict::Allow)
    })
}

/// A per-hook layer whose services fail every call with `error`.
#[derive(Clone)]
struct FailingHook(&'static str);

impl<S> Layer<S> for FailingHook {
    type Service = tower::util::BoxCloneSyncService<HookRequest, Verdict, BoxError>;

    fn layer(&self, _inner: S) -> Self::Service {
        let error = self.0;
        tower::util::BoxCloneSyncService::new(service_fn(move |_req: HookRequest| async move {
            Err::<Verdict, BoxError>(error.into())
        }))
    }
}

fn guard_spec() -> HookSpec {
    HookSpec::in_process(Event::ToolExecutionStart, "guard")
        .with_matcher("^bash$")
        .unwrap()
        .with_timeout(Duration::from_millis(300))
}

fn bash_call() -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({"command": "ls"}))
}

// ---------------------------------------------------------------------------
// Item 1: a per-hook layer's error follows the hook's failure rule.
// ---------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn towers_timeout_around_a_hook_blocks_like_the_hooks_own_timeout() {
    let (builder, lines) = collecting();
    let stack = builder
        .service_hook(guard_spec(), slow(Duration::from_secs(60)))
        .around_hook(tower::timeout::TimeoutLayer::new(Duration::from_millis(50)))
        .build();
    let outcome = stack.oneshot(bash_call()).await.unwrap();
    assert!(outcome.is_blocked(), "{outcome:?}");
    // The time that really passed, and that a layer stopped it.
    let reason = "hook timed out after 50 ms: a timeout layer around it stopped it (its own timeout is 300 ms)";
    assert_eq!(outcome.reason(), Some(reason));
    assert_eq!(
        outcome.message().as_deref(),
        Some(format!("blocked by hook: {reason}").as_str())
    );
    assert!(
        lines.lock().unwrap().is_empty(),
        "a timeout is not an error"
    );
}

#[tokio::test(start_paused = true)]
async fn towers_elapsed_is_found_under_a_wrapping_error() {
    #[derive(Debug)]
    struct Wrapped(BoxError);
    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the guard's layer gave up")
        }
    }
    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&*self.0)
        }
    }
    let (builder, lines) = collecting();
    let stack = builder
        .service_hook(guard_spec(), slow(Duration::from_secs(60)))
        .around_hook(tower::layer::layer_fn(|inner| {
            tower::util::MapErr::new(inner, |e: BoxError| -> BoxError { Box::new(Wrapped(e)) })
        }))
        .around_hook(tower::timeout::TimeoutLayer::new(Duration::from_millis(50)))
        .build();
    let outcome = stack.oneshot(bash_call()).await.unwrap();
    assert_eq!(outcome.reason(), Some("hook timed out after 50 ms: a timeout layer around it stopped it (its own timeout is 300 ms)"));
    assert!(lines.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_failing_hook_layer_fails_open_with_the_report_line() {
    let (builder, lines) = collecting();
    let stack = builder
        .fn_hook(guard_spec(), |_req: &HookRequest| {
            Verdict::block("never asked")
        })
        .around_hook(FailingHook("the layer broke"))
        .build();
    let outcome = stack.oneshot(bash_call()).await.unwrap();
    assert!(!outcome.is_blocked(), "{outcome:?}");
    assert_eq!(
        *lines.lock().unwrap(),
        ["nanopi: hook errored; failing open (allow) [tool=bash matcher=^bash$ error=the layer broke]"]
    );
}

#[tokio::test]
async fn a_failing_hook_layer_blocks_a_fail_closed_hook() {
    let (builder, lines) = collecting();
    let stack = builder
        .fn_hook(guard_spec().with_fail_closed(true), |_req: &HookRequest| {
            Verdict::Allow
        })
        .around_hook(FailingHook("the layer broke"))
        .build();
    let outcome = stack.oneshot(bash_call()).await.unwrap();
    assert!(outcome.is_blocked(), "{outcome:?}");
    assert_eq!(
        outcome.reason(),
        Some("hook failed closed: the layer broke")
    );
    assert!(lines.lock().unwrap().is_empty());
}

// ---------------------------------------------------------------------------
// Item 2: the tool layer over a stack that can fail.
// ---------------------------------------------------------------------------

/// An `around_call` layer that fails: when getting ready, or on one event.
#[derive(Clone, Copy)]
enum Fail {
    Ready,
    At(Event),
}

impl<S> Layer<S> for Fail {
    type Service = FailingCall<S>;

    fn layer(&self, inner: S) -> Self::Service {
        FailingCall { inner, fail: *self }
    }
}

#[derive(Clone)]
struct FailingCall<S> {
    inner: S,
    fail: Fail,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> Service<HookRequest> for FailingCall<S>
where
    S: Service<HookRequest, Response = HookOutcome, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = HookOutcome;
    type Error = BoxError;
    type Future = BoxFuture<Result<HookOutcome, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        if let Fail::Ready = self.fail {
            return Poll::Ready(Err("the buffer's worker is gone".into()));
        }
        self.inner.poll_ready(cx).map_err(|never| match never {})
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        if matches!(self.fail, Fail::At(event) if event == req.event()) {
            return Box::pin(async {
                Err::<HookOutcome, BoxError>("the audit log is full".into())
            });
        }
        let future = self.inner.call(req);
        Box::pin(async move { future.await.map_err(|never| match never {}) })
    }
}

/// A fake tool: counts its calls and answers `result`.
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

    fn calls(&self) -> usize {
        self.calls.lock().unwrap().len()
    }
}

fn bash(command: &str) -> ToolCall {
    ToolCall::new("bash", "call_1", json!({ "command": command }))
}

fn allow_all() -> Builder {
    HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "start"),
            |_req| Verdict::Allow,
        )
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionEnd, "end"),
            |_req| Verdict::Allow,
        )
}

#[tokio::test]
async fn an_overloaded_stack_refuses_the_tool_call() {
    // tower's own fallible layers: a load shedder over a limit that never has
    // room, so every call is shed with `Overloaded`.
    let stack = allow_all()
        .around_call(ServiceBuilder::new().load_shed().concurrency_limit(0))
        .build();
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("ran")));

    let result = layered.oneshot(bash("ls")).await.unwrap();

    assert_eq!(
        result,
        ToolResult::error("hook stack failed: service overloaded")
    );
    assert_eq!(
        tool.calls(),
        0,
        "a call the hooks could not approve never runs"
    );
}

#[tokio::test]
async fn a_stack_that_cannot_get_ready_refuses_the_tool_call() {
    let stack = allow_all().around_call(Fail::Ready).build();
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("ran")));

    let result = layered.oneshot(bash("ls")).await.unwrap();

    assert_eq!(
        result,
        ToolResult::error("hook stack failed: the buffer's worker is gone")
    );
    assert_eq!(tool.calls(), 0);
}

#[tokio::test]
async fn a_stack_failing_after_the_tool_ran_withholds_its_result() {
    let stack = allow_all()
        .around_call(Fail::At(Event::ToolExecutionEnd))
        .build();
    let tool = Tool::default();
    let layered = ToolHooksLayer::new(stack).layer(tool.answering(ToolResult::ok("a secret")));

    let result = layered.oneshot(bash("cat .env")).await.unwrap();

    assert_eq!(
        result,
        ToolResult::error(
            "hook stack failed (the tool ran; its result is withheld): the audit log is full"
        )
    );
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn the_facades_tool_layer_takes_a_fallible_stack_too() {
    let stack = allow_all()
        .around_call(Fail::At(Event::ToolExecutionStart))
        .build();
    let hooks = AgentHooks::new(stack);
    let tool = Tool::default();
    let layered = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(tool.answering(ToolResult::ok("ran")));

    let result = layered.oneshot(bash("ls")).await.unwrap();

    assert_eq!(
        result,
        ToolResult::error("hook stack failed: the audit log is full")
    );
    assert_eq!(tool.calls(), 0);
    // The facade's own methods hand the error to the caller.
    let err = hooks.tool_execution_start(bash("ls")).await.unwrap_err();
    assert_eq!(err.to_string(), "the audit log is full");
}

// ---------------------------------------------------------------------------
// Item 3: an around_hook layer is one instance per hook.
// ---------------------------------------------------------------------------

/// An in-process hook that waits for a permit of `gate`, then allows.
fn waiting_on(
    gate: Arc<tokio::sync::Semaphore>,
) -> impl Service<HookRequest, Response = Verdict, Error = Infallible, Future: Send>
       + Clone
       + Send
       + Sync
       + 'static {
    service_fn(move |_req: HookRequest| {
        let gate = gate.clone();
        async move {
            gate.acquire().await.unwrap().forget();
            Ok::<_, Infallible>(Verdict::Allow)
        }
    })
}

#[tokio::test(start_paused = true)]
async fn a_concurrency_limit_around_each_hook_limits_each_hook_separately() {
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let long = Duration::from_secs(600);
    let stack = HookStack::builder()
        .report(())
        .service_hook(
            HookSpec::in_process(Event::TurnStart, "slow").with_timeout(long),
            waiting_on(gate.clone()),
        )
        .fn_hook(
            HookSpec::in_process(Event::TurnEnd, "quick").with_timeout(long),
            |_req| Verdict::Allow,
        )
        .around_hook(tower::limit::ConcurrencyLimitLayer::new(1))
        .build();

    // The first hook is running, and holds its one slot: the same hook,
    // called again, waits for it.
    let first = tokio::spawn(stack.clone().oneshot(HookRequest::turn_start(1, 0)));
    let mut again = tokio::spawn(stack.clone().oneshot(HookRequest::turn_start(1, 1)));
    assert!(
        tokio::time::timeout(Duration::from_secs(1), &mut again)
            .await
            .is_err(),
        "one hook ran twice at once under a limit of 1"
    );

    // The other hook has a limit of its own: it runs now.
    let other = tokio::time::timeout(
        Duration::from_secs(1),
        stack.clone().oneshot(HookRequest::turn_end(1, 0, false)),
    )
    .await;
    assert!(
        other.is_ok(),
        "the other hook waited for the first one's slot"
    );

    gate.add_permits(2);
    assert!(!first.await.unwrap().unwrap().is_blocked());
    assert!(!again.await.unwrap().unwrap().is_blocked());
}

// ---------------------------------------------------------------------------
// Item 4: the boxed stack.
// ---------------------------------------------------------------------------

/// What an agent keeps: a stack of any layers, under one name.
struct Agent {
    hooks: BoxHookStack,
}

#[tokio::test]
async fn a_boxed_stack_keeps_its_hooks_and_its_switch() {
    let stack = HookStack::builder()
        .report(())
        .fn_hook(HookSpec::in_process(Event::Input, "no"), |_req| {
            Verdict::block("no")
        })
        .around_hook(tower::limit::ConcurrencyLimitLayer::new(4))
        .around_call(tower::layer::layer_fn(|inner| inner))
        .build();
    let agent = Agent {
        hooks: stack.boxed(),
    };
    assert_eq!(agent.hooks.specs().len(), 1);
    assert_eq!(agent.hooks.specs()[0].source(), "no");

    let outcome = agent.hooks.clone().oneshot(HookRequest::input("x")).await;
    assert!(outcome.unwrap().is_blocked());

    // The switch is the stack's: clones made before it flips see it too.
    let clone = agent.hooks.clone();
    agent.hooks.gate().set_no_hooks(true);
    assert!(clone.gate().no_hooks());
    let outcome = clone.oneshot(HookRequest::input("x")).await;
    assert!(!outcome.unwrap().is_blocked());
}

#[tokio::test]
async fn a_fallible_stack_boxes_with_its_error_type() {
    let stack: BoxHookStack<BoxError> = allow_all()
        .around_call(Fail::At(Event::Input))
        .build()
        .boxed();
    let err = stack
        .clone()
        .oneshot(HookRequest::input("x"))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "the audit log is full");
    // Boxed, it still goes under the tool layer and the facade.
    let tool = Tool::default();
    let layered = AgentHooks::new(stack)
        .tool_layer()
        .layer(tool.answering(ToolResult::ok("ran")));
    assert_eq!(
        layered.oneshot(bash("ls")).await.unwrap(),
        ToolResult::ok("ran")
    );
    assert_eq!(tool.calls(), 1);
}

// ---------------------------------------------------------------------------
// Item 11: structured tool results.
// ---------------------------------------------------------------------------

/// A stack whose one `tool_execution_end` hook records the payload it got and
/// answers `updated_input` (or allows, for `None`).
fn end_hook(updated: Option<Value>) -> (HookStack, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let stack = HookStack::builder()
        .report(())
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionEnd, "end"),
            move |req: &HookRequest| {
                sink.lock().unwrap().push(req.arguments().clone());
                match &updated {
                    Some(Value::Object(map)) => Verdict::Transform(map.clone()),
                    _ => Verdict::Allow,
                }
            },
        )
        .build();
    (stack, seen)
}

async fn through(stack: HookStack, result: ToolResult) -> ToolResult {
    let tool = Tool::default();
    ToolHooksLayer::new(stack)
        .layer(tool.answering(result))
        .oneshot(bash("ls"))
        .await
        .unwrap()
}

/// The `tool_response` the hook saw, less its `duration_ms`.
fn response_seen(seen: &Mutex<Vec<Value>>) -> Value {
    let mut response = seen.lock().unwrap()[0]["tool_response"].clone();
    let duration = response.as_object_mut().unwrap().remove("duration_ms");
    assert!(duration.is_some_and(|d| d.is_u64()));
    response
}

fn listing() -> ToolResult {
    ToolResult::ok("2 files").with_structured(json!({"files": ["a", "b"]}))
}

#[tokio::test]
async fn end_hooks_see_structured_content_beside_the_text() {
    let (stack, seen) = end_hook(None);
    let result = through(stack, listing()).await;
    assert_eq!(result, listing());
    assert_eq!(
        response_seen(&seen),
        json!({"content": "2 files", "is_error": false,
               "structured_content": {"files": ["a", "b"]}})
    );
}

#[tokio::test]
async fn a_text_only_result_sends_the_spec_payload() {
    let (stack, seen) = end_hook(None);
    let result = through(stack, ToolResult::ok("2 files")).await;
    assert_eq!(result.structured(), None);
    assert_eq!(
        response_seen(&seen),
        json!({"content": "2 files", "is_error": false})
    );
}

#[tokio::test]
async fn a_redactor_that_rewrites_the_text_drops_the_structured_copy() {
    let (stack, _) = end_hook(Some(json!({"content": "[redacted]", "is_error": false})));
    let result = through(stack, listing()).await;
    assert_eq!(result, ToolResult::ok("[redacted]"));
    assert_eq!(result.structured(), None);
}

#[tokio::test]
async fn a_transform_that_hands_the_text_back_keeps_the_structured_copy() {
    let (stack, _) = end_hook(Some(json!({"content": "2 files", "is_error": true})));
    let result = through(stack, listing()).await;
    assert_eq!(
        result,
        ToolResult::error("2 files").with_structured(json!({"files": ["a", "b"]}))
    );
}

#[tokio::test]
async fn a_transform_may_replace_or_remove_the_structured_content() {
    let (stack, _) = end_hook(Some(
        json!({"content": "1 file", "structured_content": {"files": ["a"]}}),
    ));
    let result = through(stack, listing()).await;
    assert_eq!(
        result,
        ToolResult::ok("1 file").with_structured(json!({"files": ["a"]}))
    );

    let (stack, _) = end_hook(Some(json!({"structured_content": null})));
    let result = through(stack, listing()).await;
    assert_eq!(result, ToolResult::ok("2 files"));
}
