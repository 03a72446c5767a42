//! Middleware that runs the two tool hooks around an agent's own tool service.
//!
//! [`ToolHooksLayer`] wraps any `Service<ToolCall, Response = ToolResult>`:
//!
//! * before the call it fires `tool_execution_start` with the call's arguments.
//!   A block answers the tool result `blocked by hook: <reason>` with
//!   `is_error = true`, and the tool is never called; a transform replaces the
//!   whole argument object the tool runs on.
//! * after the call it fires `tool_execution_end` with `tool_input` (the
//!   arguments the tool ran on), `tool_response` and the measured `duration_ms`.
//!   A transform replaces `content` and `is_error` before the result is
//!   returned, so the model only ever sees the rewritten result. A block there
//!   is ignored, as the specification says (and reported by the stack).
//!
//! The tool's own errors pass through unchanged: the layer's error type is the
//! tool's. The hook stack may fail (a `HookStack` with a fallible
//! [`around_call`](crate::Builder::around_call) layer, a load shedder, a
//! buffer), as long as its error converts into a [`BoxError`]; a stack error is
//! never the tool's error and never an allow:
//!
//! * at `tool_execution_start` (or while the stack gets ready for it) the call
//!   is **refused**: the hooks could not approve it, so the tool does not run,
//!   and the model sees `hook stack failed: <error>` with `is_error = true`.
//!   This holds for every hook, `fail_closed` or not: a hook's own failure
//!   follows its failure rule inside the stack, but a stack that fails has no
//!   verdict at all to follow.
//! * at `tool_execution_end` the tool has run, but its result is **withheld**
//!   (a redacting hook could not see it): the model sees
//!   `hook stack failed (the tool ran; its result is withheld): <error>`, with
//!   `is_error = true`.
//!
//! The [`on_outcome`](ToolHooksLayer::on_outcome) callback is not called for a
//! request the stack failed to answer.
//!
//! # Approval
//!
//! A `tool_execution_start` hook may answer that a person must approve the
//! call ([`Decision::Ask`](crate::Decision::Ask), e.g. Claude Code's
//! `permissionDecision: "ask"`). The layer then asks its approver, a
//! `Service<`[`ApprovalRequest`]`, Response = `[`Approval`]`>` set with
//! [`ToolHooksLayer::with_approver`], with the call as it would run (the
//! hooks' rewrite applied) and the hook's reason:
//!
//! * [`Approval::Approve`] runs the tool, then `tool_execution_end`, as usual;
//! * [`Approval::Deny`] refuses the call: the model sees
//!   `denied by approver: <reason>` (`denied by approver` for an empty
//!   reason) with `is_error = true`;
//! * an approver error (or readiness error) refuses it too:
//!   `approval failed: <error>`.
//!
//! With no approver an ask is a refusal, never an allow: the model sees
//! `blocked by hook: <reason>`, as for a block. A block from any hook wins
//! over an ask (the approver is not asked).
//!
//! ```
//! use std::convert::Infallible;
//! use serde_json::json;
//! use tower::{service_fn, ServiceBuilder, ServiceExt};
//! use tower_hooks::agent::tool::{Approval, ApprovalRequest, ToolCall, ToolHooksLayer, ToolResult};
//! use tower_hooks::{Event, HookSpec, HookStack, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let hooks = HookStack::builder()
//!     .fn_hook(HookSpec::in_process(Event::ToolExecutionStart, "deploys"), |req| {
//!         match req.tool_name() {
//!             Some("deploy") => Verdict::ask("deploys need a person"),
//!             _ => Verdict::Allow,
//!         }
//!     })
//!     .build();
//! // The person: approves staging, denies the rest.
//! let person = service_fn(|ask: ApprovalRequest| async move {
//!     assert_eq!(ask.reason, "deploys need a person");
//!     Ok::<_, Infallible>(match ask.call.arguments["env"].as_str() {
//!         Some("staging") => Approval::Approve,
//!         _ => Approval::Deny("not on a Friday".into()),
//!     })
//! });
//! let deploy = service_fn(|call: ToolCall| async move {
//!     Ok::<_, Infallible>(ToolResult::ok(format!("deployed to {}", call.arguments["env"])))
//! });
//! let tool = ServiceBuilder::new()
//!     .layer(ToolHooksLayer::new(hooks).with_approver(person))
//!     .service(deploy);
//!
//! let call = ToolCall::new("deploy", "call_1", json!({"env": "staging"}));
//! let result = tool.clone().oneshot(call).await.unwrap();
//! assert_eq!(result, ToolResult::ok(r#"deployed to "staging""#));
//!
//! let call = ToolCall::new("deploy", "call_2", json!({"env": "prod"}));
//! let refused = tool.oneshot(call).await.unwrap();
//! assert_eq!(refused, ToolResult::error("denied by approver: not on a Friday"));
//! # }
//! ```
//!
//! # Context for the model
//!
//! Hooks of other dialects may hand the model text besides their decision
//! (Claude Code's `additionalContext`: [`HookOutcome::context`]). The layer
//! puts it on the result it answers, [`ToolResult::context`]: the
//! `tool_execution_start` hooks' notes, then the ones already on the tool's
//! own result (an inner layer's), then the `tool_execution_end` hooks', in
//! order. A refused call's result carries the `tool_execution_start` hooks'
//! notes; a result withheld because the stack failed at `tool_execution_end`
//! carries only those too.
//!
//! # Stopping the agent
//!
//! A hook may ask the agent to stop altogether (Claude Code's `continue:
//! false`, [`HookOutcome::stop`]; a Claude Code `prompt` hook's no at a tool
//! call). At `tool_execution_start` that refuses the call whatever else the
//! hooks said (the model sees `stopped by hook: <reason>`, or the block's
//! message), and nobody is asked to approve it; at `tool_execution_end` the
//! result is the tool's, as the hooks left it. Either way the result carries
//! the request, [`ToolResult::stop`]: the agent ends its turn after this
//! result and shows the reason to the person.
//!
//! # Example
//!
//! ```
//! use std::convert::Infallible;
//! use serde_json::json;
//! use tower::{service_fn, ServiceBuilder, ServiceExt};
//! use tower_hooks::agent::tool::{ToolCall, ToolHooksLayer, ToolResult};
//! use tower_hooks::{Event, HookSpec, HookStack, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let hooks = HookStack::builder()
//!     .fn_hook(HookSpec::in_process(Event::ToolExecutionStart, "guard"), |req| {
//!         match req.arguments()["command"].as_str() {
//!             Some(cmd) if cmd.contains("rm -rf") => Verdict::block("no rm -rf here"),
//!             _ => Verdict::Allow,
//!         }
//!     })
//!     .fn_hook(HookSpec::in_process(Event::ToolExecutionEnd, "redact"), |req| {
//!         let content = req.arguments()["tool_response"]["content"].as_str().unwrap_or("");
//!         let clean = json!({ "content": content.replace("hunter2", "[redacted]") });
//!         Verdict::Transform(clean.as_object().unwrap().clone())
//!     })
//!     .build();
//!
//! // The agent's own tool: here, one that echoes the command it was given.
//! let bash = service_fn(|call: ToolCall| async move {
//!     Ok::<_, Infallible>(ToolResult::ok(format!("ran {}", call.arguments["command"])))
//! });
//! let tool = ServiceBuilder::new()
//!     .layer(ToolHooksLayer::new(hooks).with_session_id("019abc"))
//!     .service(bash);
//!
//! let call = ToolCall::new("bash", "call_1", json!({"command": "rm -rf /"}));
//! let refused = tool.clone().oneshot(call).await.unwrap();
//! assert_eq!(refused, ToolResult::error("blocked by hook: no rm -rf here"));
//!
//! let call = ToolCall::new("bash", "call_2", json!({"command": "echo hunter2"}));
//! let result = tool.oneshot(call).await.unwrap();
//! assert_eq!(result, ToolResult::ok(r#"ran "echo [redacted]""#));
//! # }
//! ```
//!
//! # Order
//!
//! Put layers that should see what the model asked for (an audit log) outside
//! `ToolHooksLayer`, and layers that should see what actually runs (a timeout,
//! a sandbox) inside it: the tool's `duration_ms` covers everything inside.
//!
//! # Caveats
//!
//! `tool_execution_end` fires only when the tool answers a [`ToolResult`]: a
//! refused call never ran, and a tool that fails with an error has no result
//! to show. A result's [structured content](ToolResult::with_structured) is a
//! tower-hooks extension: see [`ToolResult`] for what hooks see of it. The session id and working directory are fixed when the layer is
//! made ([`ToolHooksLayer::with_session_id`], [`ToolHooksLayer::with_cwd`], or
//! [`AgentHooks::tool_layer`](crate::agent::AgentHooks::tool_layer)).

use std::fmt;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use pin_project::pin_project;
use serde_json::Value;
use tokio::time::Instant;
use tower::util::Oneshot;
use tower::ServiceExt;
use tower_layer::Layer;
use tower_service::Service;

pub use super::approval::{Approval, ApprovalRequest};
pub use super::call::{ToolCall, ToolResult};

use super::approval::{self, Approver};
use super::call::{end_request, refusal, refuses, result_of, stamp_tool, Kept};
use super::carried::Carried;
use crate::layer::fail_open::error_text;
use crate::outcome::HookOutcome;
use crate::request::HookRequest;
use crate::spec::Dialect;
use crate::BoxError;

/// Runs the tool hooks around a tool service. See the [module docs](self) for an example.
#[derive(Debug, Clone)]
pub struct ToolHooks<S, H> {
    inner: S,
    hooks: H,
    carried: Carried,
    /// Who is asked when a hook answers `ask`; none: an ask is a refusal.
    approver: Option<Arc<Approver>>,
    /// The stack's readiness error, answered by the next call.
    ready_error: Option<String>,
}

impl<S, H> ToolHooks<S, H> {
    /// Wraps the tool service `inner`, firing the tool events through `hooks`.
    pub const fn new(inner: S, hooks: H) -> Self {
        ToolHooks {
            inner,
            hooks,
            carried: Carried::new(),
            approver: None,
            ready_error: None,
        }
    }

    /// Asks `approver` when a `tool_execution_start` hook answers that a person
    /// must approve the call (see [approval](self#approval)).
    pub fn with_approver<A>(mut self, approver: A) -> Self
    where
        A: Service<ApprovalRequest, Response = Approval> + Clone + Send + Sync + 'static,
        A::Error: Into<BoxError>,
        A::Future: Send + 'static,
    {
        self.approver = Some(Arc::new(approval::boxed(approver)));
        self
    }

    fn with_boxed_approver(mut self, approver: Option<Arc<Approver>>) -> Self {
        self.approver = approver;
        self
    }

    /// A layer firing the tool events through `hooks`.
    pub const fn layer(hooks: H) -> ToolHooksLayer<H> {
        ToolHooksLayer::new(hooks)
    }

    pub(crate) fn with_carried(mut self, carried: Carried) -> Self {
        self.carried = carried;
        self
    }

    define_inner_service_accessors!(inner, "tool service");

    /// The hook stack.
    pub fn hooks(&self) -> &H {
        &self.hooks
    }
}

impl<S, H> Service<ToolCall> for ToolHooks<S, H>
where
    S: Service<ToolCall, Response = ToolResult> + Clone,
    H: Service<HookRequest, Response = HookOutcome> + Clone,
    H::Error: Into<BoxError>,
{
    type Response = ToolResult;
    type Error = S::Error;
    type Future = ResponseFuture<S, H>;

    // poll_ready: pass through to the hook stack, which `call` uses first (the
    // ready one is taken with `mem::replace`); the tool and the second hook call
    // are driven ready inside the future, so a refused call never holds a slot
    // of the tool (a concurrency limit, a buffer). A readiness error of the
    // stack is kept and answered by the next call, as a refusal.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.ready_error.is_none() {
            if let Err(err) = ready!(self.hooks.poll_ready(cx)) {
                self.ready_error = Some(stack_failure(err));
            }
        }
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: ToolCall) -> Self::Future {
        if let Some(error) = self.ready_error.take() {
            return ResponseFuture {
                state: State::Failed {
                    result: Some(not_run(&error)),
                },
                tool: self.inner.clone(),
                hooks: self.hooks.clone(),
                names: None,
                shared_name: Arc::from(call.name),
                shared_id: None,
                carried: self.carried.clone(),
                approver: None,
                context: Vec::new(),
                tool_context: Kept::default(),
            };
        }
        let clone = self.hooks.clone();
        let mut hooks = mem::replace(&mut self.hooks, clone);
        let ToolCall {
            name,
            call_id,
            arguments,
        } = call;
        let shared_name: Arc<str> = Arc::from(name.as_str());
        let shared_id: Option<Arc<str>> =
            (!call_id.is_empty()).then(|| Arc::from(call_id.as_str()));
        let request = stamp_tool(
            &self.carried,
            HookRequest::tool_execution_start(shared_name.clone(), arguments),
            shared_id.as_ref(),
        );
        let seen = self.carried.seen(&request);
        let future = hooks.call(request);
        ResponseFuture {
            state: State::Start { future, seen },
            tool: self.inner.clone(),
            hooks,
            names: Some((name, call_id)),
            shared_name,
            shared_id,
            carried: self.carried.clone(),
            approver: self.approver.clone(),
            context: Vec::new(),
            tool_context: Kept::default(),
        }
    }
}

/// Applies [`ToolHooks`] to tool services. See the [module docs](self) for an example.
///
/// The hook stack `H` may fail (its error converts into a [`BoxError`]). A
/// failure is never an allow, whatever the hooks' `fail_closed`: when the
/// stack fails at `tool_execution_start` the tool call is refused (the tool
/// does not run; the model sees `hook stack failed: <error>` as an error), and
/// when it fails at `tool_execution_end` the tool's result is withheld (the
/// model sees `hook stack failed (the tool ran; its result is withheld):
/// <error>`). The tool's own errors stay the layer's errors.
#[derive(Debug, Clone)]
pub struct ToolHooksLayer<H> {
    hooks: H,
    carried: Carried,
    approver: Option<Arc<Approver>>,
}

impl<H> ToolHooksLayer<H> {
    /// A layer firing the tool events through `hooks` (e.g. a [`HookStack`](crate::HookStack)).
    pub const fn new(hooks: H) -> Self {
        ToolHooksLayer {
            hooks,
            carried: Carried::new(),
            approver: None,
        }
    }

    pub(crate) fn with_carried(mut self, carried: Carried) -> Self {
        self.carried = carried;
        self
    }

    /// Sets the session id the tool events carry.
    pub fn with_session_id(mut self, session_id: impl Into<Arc<str>>) -> Self {
        self.carried.session_id = Some(session_id.into());
        self
    }

    /// Sets the session's working directory the tool events carry.
    pub fn with_cwd(mut self, cwd: impl Into<Arc<str>>) -> Self {
        self.carried.cwd = Some(cwd.into());
        self
    }

    /// Names the host's tool `tool` `name` for the hooks of `dialect`, at
    /// both tool events ([`HookRequest::with_tool_alias`]): say, a `deploy`
    /// tool that Claude Code hooks know as `mcp__ops__deploy`. Without one,
    /// each dialect sees its own name for the tool's kind (a `bash` tool is
    /// Claude Code's `Bash`).
    ///
    /// ```
    /// use tower_hooks::{Dialect, HookStack, ToolHooksLayer};
    ///
    /// let layer = ToolHooksLayer::new(HookStack::builder().build())
    ///     .with_tool_alias("deploy", Dialect::Claude, "mcp__ops__deploy");
    /// # let _ = layer;
    /// ```
    pub fn with_tool_alias(
        mut self,
        tool: impl Into<Arc<str>>,
        dialect: Dialect,
        name: impl Into<Arc<str>>,
    ) -> Self {
        self.carried.alias(tool.into(), dialect, name.into());
        self
    }

    /// Calls `f` with each tool event and the stack's answer, e.g. to keep a transcript.
    pub fn on_outcome<F>(mut self, f: F) -> Self
    where
        F: Fn(&HookRequest, &HookOutcome) + Send + Sync + 'static,
    {
        self.carried.on_outcome = Some(Arc::new(f));
        self
    }

    /// Asks `approver` when a `tool_execution_start` hook answers that a person
    /// must approve the call: [`Approval::Approve`] runs it, [`Approval::Deny`]
    /// refuses it (`denied by approver: <reason>`), an error refuses it
    /// (`approval failed: <error>`). Without an approver an ask is refused
    /// (`blocked by hook: <reason>`). See [approval](self#approval).
    ///
    /// The approver is boxed and cloned for each ask, as the stack is per call.
    pub fn with_approver<A>(mut self, approver: A) -> Self
    where
        A: Service<ApprovalRequest, Response = Approval> + Clone + Send + Sync + 'static,
        A::Error: Into<BoxError>,
        A::Future: Send + 'static,
    {
        self.approver = Some(Arc::new(approval::boxed(approver)));
        self
    }
}

impl<S, H: Clone> Layer<S> for ToolHooksLayer<H> {
    type Service = ToolHooks<S, H>;

    fn layer(&self, inner: S) -> Self::Service {
        ToolHooks::new(inner, self.hooks.clone())
            .with_carried(self.carried.clone())
            .with_boxed_approver(self.approver.clone())
    }
}

/// The response future of [`ToolHooks`].
///
/// A named state machine rather than a boxed `async` block, so that a tool
/// service need not be `Send` and a call allocates no future.
#[pin_project]
pub struct ResponseFuture<S, H>
where
    S: Service<ToolCall>,
    H: Service<HookRequest>,
{
    #[pin]
    state: State<S::Future, H::Future>,
    tool: S,
    hooks: H,
    names: Option<(String, String)>,
    shared_name: Arc<str>,
    shared_id: Option<Arc<str>>,
    carried: Carried,
    /// Shared: cloned (boxed) only when a hook asks.
    approver: Option<Arc<Approver>>,
    /// The `tool_execution_start` hooks' notes for the model.
    context: Vec<String>,
    /// The notes on the tool's own result.
    tool_context: Kept,
}

/// What a future polled again after its answer panics with.
const POLLED_AFTER_DONE: &str = "ToolHooks future polled after completion";

#[pin_project(project = StateProj)]
enum State<F, G> {
    /// `tool_execution_start` is running.
    Start {
        #[pin]
        future: G,
        seen: Option<HookRequest>,
    },
    /// A hook asked for approval; the approver is deciding.
    Approval {
        #[pin]
        future: Oneshot<Approver, ApprovalRequest>,
        call: Option<ToolCall>,
    },
    /// Waiting for the tool to be ready.
    ToolReady {
        call: Option<ToolCall>,
    },
    /// The tool is running.
    Tool {
        #[pin]
        future: F,
        started: Instant,
        input: Option<Value>,
    },
    /// Waiting for the hook stack to be ready again.
    EndReady {
        request: Option<HookRequest>,
    },
    /// `tool_execution_end` is running.
    End {
        #[pin]
        future: G,
        seen: Option<HookRequest>,
    },
    /// The stack failed before the call: the refusal, until it is taken.
    Failed {
        result: Option<ToolResult>,
    },
    Done,
}

impl<S, H> fmt::Debug for ResponseFuture<S, H>
where
    S: Service<ToolCall>,
    H: Service<HookRequest>,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseFuture")
            .field("tool", &self.shared_name)
            .field("call_id", &self.shared_id)
            .finish_non_exhaustive()
    }
}

impl<S, H> Future for ResponseFuture<S, H>
where
    S: Service<ToolCall, Response = ToolResult>,
    H: Service<HookRequest, Response = HookOutcome>,
    H::Error: Into<BoxError>,
{
    type Output = Result<ToolResult, S::Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        loop {
            match this.state.as_mut().project() {
                StateProj::Start { future, seen } => {
                    let outcome = match ready!(future.poll(cx)) {
                        Ok(outcome) => outcome,
                        Err(err) => return finish(this.state, Ok(not_run(&stack_failure(err)))),
                    };
                    this.carried.observe(seen.take(), &outcome);
                    match after_start(outcome, this.approver, this.names, this.context) {
                        Ok(next) => this.state.set(next),
                        Err(refused) => return finish(this.state, Ok(refused)),
                    }
                }
                StateProj::Approval { future, call } => {
                    match approval_refusal(ready!(future.poll(cx))) {
                        Some(text) => {
                            let refused =
                                ToolResult::error(text).after_context(mem::take(this.context));
                            return finish(this.state, Ok(refused));
                        }
                        None => {
                            let call = call.take();
                            this.state.set(State::ToolReady { call });
                        }
                    }
                }
                StateProj::ToolReady { call } => {
                    if let Err(err) = ready!(this.tool.poll_ready(cx)) {
                        return finish(this.state, Err(err));
                    }
                    let call = call.take().expect(POLLED_AFTER_DONE);
                    let input = call.arguments.clone();
                    let future = this.tool.call(call);
                    this.state.set(State::Tool {
                        future,
                        started: Instant::now(),
                        input: Some(input),
                    });
                }
                StateProj::Tool {
                    future,
                    started,
                    input,
                } => {
                    let result = match ready!(future.poll(cx)) {
                        Ok(result) => result,
                        Err(err) => return finish(this.state, Err(err)),
                    };
                    let duration = started.elapsed();
                    let input = input.take().unwrap_or(Value::Null);
                    let (request, tool_context) = end_request(
                        this.carried,
                        this.shared_name.clone(),
                        this.shared_id.as_ref(),
                        input,
                        result,
                        duration,
                    );
                    *this.tool_context = tool_context;
                    this.state.set(State::EndReady {
                        request: Some(request),
                    });
                }
                StateProj::EndReady { request } => {
                    if let Err(err) = ready!(this.hooks.poll_ready(cx)) {
                        let withheld = withheld(err).after_context(mem::take(this.context));
                        return finish(this.state, Ok(withheld));
                    }
                    let request = request.take().expect(POLLED_AFTER_DONE);
                    let seen = this.carried.seen(&request);
                    let future = this.hooks.call(request);
                    this.state.set(State::End { future, seen });
                }
                StateProj::End { future, seen } => {
                    let outcome = match ready!(future.poll(cx)) {
                        Ok(outcome) => outcome,
                        Err(err) => {
                            let withheld = withheld(err).after_context(mem::take(this.context));
                            return finish(this.state, Ok(withheld));
                        }
                    };
                    this.carried.observe(seen.take(), &outcome);
                    let first = mem::take(this.context);
                    let kept = mem::take(this.tool_context);
                    return finish(this.state, Ok(result_of(outcome).with_kept(first, kept)));
                }
                StateProj::Failed { result } => {
                    let result = result.take().expect(POLLED_AFTER_DONE);
                    return finish(this.state, Ok(result));
                }
                StateProj::Done => panic!("{POLLED_AFTER_DONE}"),
            }
        }
    }
}

/// Ends the future with `output`: from here on its state is `Done`.
fn finish<F, G, T>(mut state: Pin<&mut State<F, G>>, output: T) -> Poll<T> {
    state.set(State::Done);
    Poll::Ready(output)
}

/// What follows the `tool_execution_start` hooks' answer: the approver's
/// question, the call for the tool (as the hooks left its input), or, as
/// `Err`, the refusal the model sees.
fn after_start<F, G>(
    outcome: HookOutcome,
    approver: &mut Option<Arc<Approver>>,
    names: &mut Option<(String, String)>,
    context: &mut Vec<String>,
) -> Result<State<F, G>, ToolResult> {
    context.extend_from_slice(outcome.context());
    // An ask with nobody to ask is a refusal, never an allow; a hook that
    // stops the agent is not asked about, and a deferred call waits for the
    // session to resume.
    let ask = if outcome.needs_approval() && outcome.stop().is_none() && !outcome.is_deferred() {
        approver.take()
    } else {
        None
    };
    if ask.is_none() && refuses(&outcome) {
        return Err(refusal(&outcome).after_context(mem::take(context)));
    }
    let reason = outcome.reason().unwrap_or_default().to_owned();
    // A hook that asked may have rewritten the input it asks about.
    let asked = ask
        .as_ref()
        .and_then(|_| outcome.ask_input().cloned())
        .map(Value::Object);
    let (name, call_id) = names.take().expect(POLLED_AFTER_DONE);
    let call = ToolCall {
        name,
        call_id,
        arguments: asked.unwrap_or_else(|| outcome.into_arguments()),
    };
    Ok(match ask {
        Some(approver) => {
            let request = ApprovalRequest::new(call.clone(), reason);
            State::Approval {
                future: Approver::clone(&approver).oneshot(request),
                call: Some(call),
            }
        }
        None => State::ToolReady { call: Some(call) },
    })
}

/// The text the model sees when the approver says no or fails; `None` when
/// it approves.
fn approval_refusal(answer: Result<Approval, BoxError>) -> Option<String> {
    match answer {
        Ok(Approval::Approve) => None,
        Ok(Approval::Deny(reason)) => Some(approval::denial_text(&reason)),
        Err(err) => Some(format!("approval failed: {}", error_text(&*err))),
    }
}

/// A stack's error, on one line.
fn stack_failure(err: impl Into<BoxError>) -> String {
    error_text(&*err.into())
}

/// The result the model sees when the stack failed before the tool ran, so
/// that the tool does not run.
fn not_run(error: &str) -> ToolResult {
    ToolResult::error(format!("hook stack failed: {error}"))
}

/// The result the model sees when the stack failed after the tool ran.
fn withheld(err: impl Into<BoxError>) -> ToolResult {
    ToolResult::error(format!(
        "hook stack failed (the tool ran; its result is withheld): {}",
        stack_failure(err)
    ))
}

#[cfg(test)]
mod tests;
