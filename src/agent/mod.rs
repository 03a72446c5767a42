//! Typed call sites: the hook stack as an agent loop calls it.
//!
//! [`AgentHooks`] is a thin facade over any hook stack (a
//! `Service<HookRequest, Response = HookOutcome> + Clone`, usually a
//! [`HookStack`]). It has one method per event, taking that event's payload
//! fields and answering what the agent acts on, and it carries what the agent
//! should not retype at every call site: the session id, the working directory
//! and the turn count.
//!
//! * [`prompt`](AgentHooks::prompt) starts a turn: it advances the turn count,
//!   runs `before_agent_start`, and hands its (possibly rewritten) prompt to
//!   `input`. The answer is [`PromptDecision::Proceed`] with the prompt that
//!   enters context, or [`PromptDecision::Refused`] with the exact text that
//!   ends the turn: `[BeforeAgentStart hook blocked the turn: <reason>]`, or
//!   ``your `input` hook refused this prompt (policy, not a failure) — <reason>``.
//! * [`tool_execution_start`](AgentHooks::tool_execution_start) answers
//!   [`ToolDecision::Run`] with the call to make (its arguments replaced by a
//!   transform) or [`ToolDecision::Refused`] with the tool result the model
//!   sees; [`tool_execution_end`](AgentHooks::tool_execution_end) answers the
//!   result after the hooks rewrote `content` / `is_error`. To run both around a
//!   tool service, use [`tool_layer`](AgentHooks::tool_layer).
//! * the other seven events cannot stop anything: their methods answer the
//!   [`HookOutcome`] as it is, for the record.
//!
//! Every full [`HookOutcome`], with one record per hook, goes to the
//! [`on_outcome`](AgentHooks::on_outcome) callback, for a transcript.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower_hooks::agent::{AgentHooks, PromptDecision};
//! use tower_hooks::{Event, HookSpec, HookStack, StartReason, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let stack = HookStack::builder()
//!     .fn_hook(HookSpec::in_process(Event::BeforeAgentStart, "context"), |req| {
//!         let prompt = format!("{} (in /srv/app)", req.arguments()["prompt"].as_str().unwrap());
//!         Verdict::Transform(json!({ "prompt": prompt }).as_object().unwrap().clone())
//!     })
//!     .fn_hook(HookSpec::in_process(Event::Input, "no-secrets"), |req| {
//!         match req.arguments()["prompt"].as_str() {
//!             Some(p) if p.contains("password") => Verdict::block("asks for a password"),
//!             _ => Verdict::Allow,
//!         }
//!     })
//!     .build();
//! let mut hooks = AgentHooks::new(stack).with_session_id("019abc").with_cwd("/srv/app");
//!
//! let started = hooks.session_start(StartReason::Startup).await.unwrap();
//! assert!(!started.is_blocked());
//!
//! let turn = hooks.prompt("list the files").await.unwrap();
//! assert_eq!(turn, PromptDecision::Proceed("list the files (in /srv/app)".into()));
//! assert_eq!(hooks.turn_count(), 1);
//!
//! let turn = hooks.prompt("print the root password").await.unwrap();
//! assert_eq!(
//!     turn,
//!     PromptDecision::Refused(
//!         "your `input` hook refused this prompt (policy, not a failure) \u{2014} asks for a password"
//!             .into()
//!     )
//! );
//! # }
//! ```
//!
//! # Caveats
//!
//! Each call clones the stack and drives the clone ready (`oneshot`); the
//! future it returns owns what it uses and borrows nothing from the facade. So
//! the methods take `&self`, and their futures may run concurrently (parallel
//! tool calls) or be spawned. Only [`prompt`](AgentHooks::prompt) and the
//! turn-count setters take `&mut self`; the turn count a method sends is the
//! one current when the method is called, not when its future is polled.

mod carried;
pub mod tool;

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tower::ServiceExt;
use tower_service::Service;

use self::carried::Carried;
use self::tool::{ToolCall, ToolHooksLayer, ToolResult};
use crate::outcome::{HookOutcome, DEFAULT_BLOCK_REASON};
use crate::request::{CompactionReason, HookRequest, ShutdownReason, StartReason};
use crate::stack::HookStack;

/// What becomes of a prompt: it enters context, or the turn ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptDecision {
    /// The prompt that enters context (rewritten by the hooks, or as typed).
    Proceed(String),
    /// The turn ends; this is the exact text to show.
    Refused(String),
}

impl PromptDecision {
    fn of(outcome: &HookOutcome, typed: String) -> Self {
        if outcome.is_blocked() {
            return PromptDecision::Refused(
                outcome
                    .message()
                    .unwrap_or_else(|| outcome.reason().unwrap_or(DEFAULT_BLOCK_REASON).to_owned()),
            );
        }
        match outcome.prompt() {
            Some(prompt) if prompt != typed => PromptDecision::Proceed(prompt.to_owned()),
            _ => PromptDecision::Proceed(typed),
        }
    }

    /// The prompt to send, unless the turn was refused.
    pub fn prompt(&self) -> Option<&str> {
        match self {
            PromptDecision::Proceed(prompt) => Some(prompt),
            PromptDecision::Refused(_) => None,
        }
    }

    /// Whether the turn ends here.
    pub fn is_refused(&self) -> bool {
        matches!(self, PromptDecision::Refused(_))
    }
}

/// What becomes of a tool call: it runs (maybe on replaced arguments), or it is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolDecision {
    /// Run this call: the arguments are the hooks' replacement, or the model's.
    Run(ToolCall),
    /// Do not run the tool; the model sees this result (`blocked by hook: …`, an error).
    Refused(ToolResult),
}

/// The eleven call sites of an agent, over a hook stack. See the [module docs](self).
#[derive(Clone)]
pub struct AgentHooks<S = HookStack> {
    hooks: S,
    carried: Carried,
    turn_count: u64,
}

impl<S> AgentHooks<S> {
    /// Fires events through `hooks`, with no session id, the process's working
    /// directory, and the turn count at 0 (the first [`prompt`](Self::prompt) is turn 1).
    pub const fn new(hooks: S) -> Self {
        AgentHooks {
            hooks,
            carried: Carried::new(),
            turn_count: 0,
        }
    }

    /// Sets the session id every event carries (and session matchers test).
    pub fn with_session_id(mut self, session_id: impl Into<Arc<str>>) -> Self {
        self.set_session_id(session_id);
        self
    }

    /// Sets the session's working directory (payload `cwd`, `NANOPI_CWD`).
    pub fn with_cwd(mut self, cwd: impl Into<Arc<str>>) -> Self {
        self.carried.cwd = Some(cwd.into());
        self
    }

    /// Calls `f` with every request this facade (and its [tool layer](Self::tool_layer))
    /// fires, and the stack's full answer: each hook's outcome and duration.
    pub fn on_outcome<F>(mut self, f: F) -> Self
    where
        F: Fn(&HookRequest, &HookOutcome) + Send + Sync + 'static,
    {
        self.carried.on_outcome = Some(Arc::new(f));
        self
    }

    /// Changes the session id, e.g. after `/new` or `/resume`; the turn count stays.
    pub fn set_session_id(&mut self, session_id: impl Into<Arc<str>>) {
        self.carried.session_id = Some(session_id.into());
    }

    /// The session id, if set.
    pub fn session_id(&self) -> Option<&str> {
        self.carried.session_id.as_deref()
    }

    /// The working directory, if set.
    pub fn cwd(&self) -> Option<&str> {
        self.carried.cwd.as_deref()
    }

    /// The current turn: 0 before the first prompt.
    pub fn turn_count(&self) -> u64 {
        self.turn_count
    }

    /// Starts the next turn and returns its number. [`prompt`](Self::prompt) does
    /// this itself; call it when firing `before_agent_start` and `input` one by one.
    pub fn next_turn(&mut self) -> u64 {
        self.turn_count += 1;
        self.turn_count
    }

    /// Sets the turn count, e.g. for a resumed session.
    pub fn set_turn_count(&mut self, turn_count: u64) {
        self.turn_count = turn_count;
    }

    /// A [`ToolHooksLayer`] over the same stack, carrying this session's id, cwd
    /// and outcome callback as they are now.
    pub fn tool_layer(&self) -> ToolHooksLayer<S>
    where
        S: Clone,
    {
        ToolHooksLayer::new(self.hooks.clone()).with_carried(self.carried.clone())
    }

    /// The hook stack.
    pub fn get_ref(&self) -> &S {
        &self.hooks
    }

    /// The hook stack, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.hooks
    }

    /// Unwraps the hook stack.
    pub fn into_inner(self) -> S {
        self.hooks
    }
}

impl<S> AgentHooks<S>
where
    S: Service<HookRequest, Response = HookOutcome> + Clone,
{
    /// `session_start`, once before the first turn. Advisory: it always starts.
    pub fn session_start(
        &self,
        reason: StartReason,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::session_start(reason))
    }

    /// `session_shutdown`, before the process exits and on `/new`, `/resume`,
    /// `/fork`, `/import`. Advisory: it always ends.
    pub fn session_shutdown(
        &self,
        reason: ShutdownReason,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::session_shutdown(reason))
    }

    /// Starts a turn: advances the turn count, then runs `before_agent_start`
    /// and `input`, the first's prompt being the second's input. A block in
    /// either ends the turn (and `input` does not run after a
    /// `before_agent_start` block). The turn counts even when it is refused.
    pub fn prompt(
        &mut self,
        prompt: impl Into<String>,
    ) -> impl Future<Output = Result<PromptDecision, S::Error>> {
        self.next_turn();
        let before = self.before_agent_start(prompt);
        let this = self.clone();
        async move {
            match before.await? {
                PromptDecision::Proceed(prompt) => {
                    let input = this.input(prompt);
                    input.await
                }
                refused => Ok(refused),
            }
        }
    }

    /// `before_agent_start` alone, with the current turn count.
    pub fn before_agent_start(
        &self,
        prompt: impl Into<String>,
    ) -> impl Future<Output = Result<PromptDecision, S::Error>> {
        let prompt = prompt.into();
        let fire = self.fire(HookRequest::before_agent_start(
            self.turn_count,
            prompt.clone(),
        ));
        async move { Ok(PromptDecision::of(&fire.await?, prompt)) }
    }

    /// `input` alone.
    pub fn input(
        &self,
        prompt: impl Into<String>,
    ) -> impl Future<Output = Result<PromptDecision, S::Error>> {
        let prompt = prompt.into();
        let fire = self.fire(HookRequest::input(prompt.clone()));
        async move { Ok(PromptDecision::of(&fire.await?, prompt)) }
    }

    /// `turn_start`, at the top of each agent-loop iteration. Cannot stop anything.
    pub fn turn_start(
        &self,
        iteration: u64,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::turn_start(self.turn_count, iteration))
    }

    /// `tool_execution_start`, before the tool runs: run the call (arguments
    /// maybe replaced), or refuse it with the result the model sees.
    pub fn tool_execution_start(
        &self,
        call: ToolCall,
    ) -> impl Future<Output = Result<ToolDecision, S::Error>> {
        let (name, call_id) = (call.name.clone(), call.call_id.clone());
        let fire = self.fire(tool::start_request(&self.carried, call));
        async move {
            let outcome = fire.await?;
            // An ask with nobody to ask is a refusal, never an allow.
            if outcome.is_blocked() || outcome.needs_approval() {
                return Ok(ToolDecision::Refused(tool::refusal(&outcome)));
            }
            Ok(ToolDecision::Run(ToolCall {
                name,
                call_id,
                arguments: outcome.into_arguments(),
            }))
        }
    }

    /// `tool_execution_end`, after the tool answered `result` in `duration`:
    /// the result the model sees, with `content` / `is_error` as the hooks
    /// rewrote them. `call` is the call that ran (its arguments are `tool_input`).
    pub fn tool_execution_end(
        &self,
        call: &ToolCall,
        result: ToolResult,
        duration: Duration,
    ) -> impl Future<Output = Result<ToolResult, S::Error>> {
        let call_id = (!call.call_id.is_empty()).then(|| Arc::<str>::from(call.call_id.as_str()));
        let req = tool::end_request(
            &self.carried,
            Arc::from(call.name.as_str()),
            call_id.as_ref(),
            call.arguments.clone(),
            result,
            duration,
        );
        let fire = self.fire(req);
        async move { Ok(tool::result_of(fire.await?)) }
    }

    /// `turn_end`, at the bottom of each agent-loop iteration. Cannot stop anything.
    pub fn turn_end(
        &self,
        iteration: u64,
        had_tool_calls: bool,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::turn_end(
            self.turn_count,
            iteration,
            had_tool_calls,
        ))
    }

    /// `message_end`, once after the loop ends, with the response's length.
    /// Cannot stop anything.
    pub fn message_end(
        &self,
        response_length: u64,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::message_end(self.turn_count, response_length))
    }

    /// `session_before_compact`, before compaction runs. Advisory: it always runs.
    pub fn session_before_compact(
        &self,
        reason: CompactionReason,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::session_before_compact(reason))
    }

    /// `session_compact`, after compaction succeeded. Advisory.
    pub fn session_compact(
        &self,
        reason: CompactionReason,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::session_compact(reason))
    }

    /// Stamps `req` and sends it through a clone of the stack (driven ready by
    /// `oneshot`); the observer sees the answer. The future owns what it uses.
    fn fire(&self, req: HookRequest) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        let req = self.carried.stamp(req);
        let seen = self.carried.seen(&req);
        let carried = self.carried.clone();
        let call = self.hooks.clone().oneshot(req);
        async move {
            let outcome = call.await?;
            carried.observe(seen, &outcome);
            Ok(outcome)
        }
    }
}

impl<S> fmt::Debug for AgentHooks<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentHooks")
            .field("session_id", &self.carried.session_id)
            .field("cwd", &self.carried.cwd)
            .field("turn_count", &self.turn_count)
            .finish_non_exhaustive()
    }
}
