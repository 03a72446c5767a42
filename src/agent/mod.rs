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
//!   A hook that asks for a person's approval refuses the call here; the tool
//!   layer can ask an approver instead ([`ToolHooksLayer::with_approver`]).
//! * the other seven nanopi events cannot stop anything: their methods answer
//!   the [`HookOutcome`] as it is, for the record.
//!
//! The events that other hook ecosystems add (Claude Code's, Cursor's) have
//! methods too:
//!
//! * [`stop`](AgentHooks::stop), when the agent is about to stop, answers
//!   [`StopDecision::Finish`] or [`StopDecision::KeepGoing`] with the
//!   instruction a hook sent it back with (a block at `stop` is a follow-up,
//!   [`HookOutcome::follow_up`]). The facade counts the follow-ups in a row:
//!   the request's `stop_hook_active` is `true` while the agent is only still
//!   going because a stop hook sent it back, and after
//!   [`DEFAULT_FOLLOW_UP_CAP`] follow-ups in a row (8, Claude Code's default;
//!   [`with_follow_up_cap`](AgentHooks::with_follow_up_cap) changes it) the
//!   stop is allowed anyway. A hook asking to stop the agent (`continue:
//!   false`, [`HookOutcome::stop`]) always finishes. A `Finish` and a new turn
//!   ([`prompt`](AgentHooks::prompt), [`next_turn`](AgentHooks::next_turn))
//!   reset the count. [`subagent_stop`](AgentHooks::subagent_stop) does the
//!   same for a subagent, with a count per `agent_id` that
//!   [`subagent_start`](AgentHooks::subagent_start) resets.
//! * [`permission_request`](AgentHooks::permission_request), when a permission
//!   prompt is about to be shown, answers [`PermissionDecision::Allow`] with
//!   the input to run (a hook rewrote it), [`PermissionDecision::Deny`] with
//!   the reason (a hook blocked), or [`PermissionDecision::Ask`]: no hook
//!   decided, show the prompt as usual.
//! * [`post_tool_batch`](AgentHooks::post_tool_batch),
//!   [`stop_failure`](AgentHooks::stop_failure),
//!   [`notification`](AgentHooks::notification),
//!   [`subagent_start`](AgentHooks::subagent_start),
//!   [`instructions_loaded`](AgentHooks::instructions_loaded) and
//!   [`agent_thought`](AgentHooks::agent_thought) answer the [`HookOutcome`]
//!   as it is: its [`context`](HookOutcome::context),
//!   [`user_messages`](HookOutcome::user_messages) and
//!   [`stop`](HookOutcome::stop) are there for the agent to act on.
//!
//! * [`model_request`](AgentHooks::model_request),
//!   [`model_response`](AgentHooks::model_response) and
//!   [`tool_selection`](AgentHooks::tool_selection) are the model points
//!   Gemini CLI adds: the host passes its model request (and response) as
//!   JSON in Gemini CLI's shape, by `&mut`, and gets back what the hooks left.
//!   Only Gemini CLI hooks and hooks made for these events run there.
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
//! A stop hook that sends the agent back until the tests pass, and the cap:
//!
//! ```
//! use tower_hooks::agent::{AgentHooks, StopDecision};
//! use tower_hooks::{Event, HookSpec, HookStack, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let stack = HookStack::builder()
//!     .fn_hook(HookSpec::in_process(Event::Stop, "tests-first"), |req| {
//!         match req.arguments()["last_assistant_message"].as_str() {
//!             Some(m) if m.contains("tests pass") => Verdict::Allow,
//!             _ => Verdict::block("run the tests before you stop"),
//!         }
//!     })
//!     .build();
//! let hooks = AgentHooks::new(stack).with_follow_up_cap(2);
//!
//! // Sent back with the block's reason as the next instruction.
//! let stop = hooks.stop("I changed the parser.").await.unwrap();
//! assert_eq!(stop, StopDecision::KeepGoing("run the tests before you stop".into()));
//! // Done: the agent stops, and the count of follow-ups starts over.
//! assert_eq!(hooks.stop("All tests pass.").await.unwrap(), StopDecision::Finish);
//!
//! // A hook that never lets go: after 2 follow-ups in a row, it stops anyway.
//! assert!(!hooks.stop("no tests here").await.unwrap().is_finish());
//! assert!(!hooks.stop("still none").await.unwrap().is_finish());
//! assert_eq!(hooks.stop("giving up").await.unwrap(), StopDecision::Finish);
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
//! one current when the method is called, not when its future is polled. So
//! is the count of follow-ups in a row that [`stop`](AgentHooks::stop) sends
//! as `stop_hook_active`; it is updated when the future answers (not when the
//! stack fails), and clones of a facade share it, as they share the session.

mod approval;
mod call;
mod carried;
mod model;
mod stop;
pub mod tool;

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tower::ServiceExt;
use tower_service::Service;

pub use self::approval::{Approval, ApprovalRequest};
pub use self::stop::{StopDecision, DEFAULT_FOLLOW_UP_CAP};

use self::carried::Carried;
use self::stop::FollowUps;
use self::tool::{ToolCall, ToolHooksLayer, ToolResult};
use crate::outcome::{Decision, HookOutcome, DEFAULT_BLOCK_REASON};
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
        // A hook that stops the agent ends the turn too; its reason is shown.
        if let Some(reason) = outcome.stop() {
            let text = if reason.is_empty() {
                "stopped by hook"
            } else {
                reason
            };
            return PromptDecision::Refused(text.to_owned());
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

/// What becomes of a permission prompt about to be shown for a tool call.
///
/// No hook having an opinion is not an allow: a hook that exits 0 with nothing
/// to say lets the prompt be shown ([`Ask`](Self::Ask)). A hook grants the
/// permission by saying so ([`HookOutcome::is_approved`]: a Claude Code
/// `decision.behavior: "allow"`) or by rewriting the input (a transform).
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision {
    /// Grant the permission without asking, and run the tool on this input
    /// (as the hooks left it): a hook allowed explicitly, or rewrote it.
    Allow {
        /// The tool input, as the hooks left it.
        input: Value,
    },
    /// Refuse the permission without asking; the reason (a hook blocked).
    Deny(String),
    /// Show the prompt to the person: no hook decided, or one asked for it.
    /// The person is shown the input as the agent asked for it (a rewrite
    /// next to an ask is not applied).
    Ask,
}

impl PermissionDecision {
    fn of(outcome: HookOutcome) -> Self {
        if outcome.is_blocked() {
            return PermissionDecision::Deny(
                outcome
                    .message()
                    .unwrap_or_else(|| outcome.reason().unwrap_or(DEFAULT_BLOCK_REASON).to_owned()),
            );
        }
        match outcome.decision() {
            Decision::Transform if outcome.is_honored() => PermissionDecision::Allow {
                input: outcome.into_arguments(),
            },
            _ if outcome.is_approved() => PermissionDecision::Allow {
                input: outcome.into_arguments(),
            },
            _ => PermissionDecision::Ask,
        }
    }
}

/// The call sites of an agent, over a hook stack: nanopi's eleven and the
/// events other dialects add. See the [module docs](self).
#[derive(Clone)]
pub struct AgentHooks<S = HookStack> {
    hooks: S,
    carried: Carried,
    turn_count: u64,
    follow_up_cap: u32,
    follow_ups: Arc<FollowUps>,
}

impl<S> AgentHooks<S> {
    /// Fires events through `hooks`, with no session id, the process's working
    /// directory, the turn count at 0 (the first [`prompt`](Self::prompt) is
    /// turn 1) and a follow-up cap of [`DEFAULT_FOLLOW_UP_CAP`].
    pub fn new(hooks: S) -> Self {
        AgentHooks {
            hooks,
            carried: Carried::new(),
            turn_count: 0,
            follow_up_cap: DEFAULT_FOLLOW_UP_CAP,
            follow_ups: Arc::default(),
        }
    }

    /// Sets how many follow-ups in a row a stop hook may cause before
    /// [`stop`](Self::stop) (or [`subagent_stop`](Self::subagent_stop), per
    /// subagent) finishes anyway; 0: no cap (Claude Code's
    /// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0`). Default: [`DEFAULT_FOLLOW_UP_CAP`].
    pub fn with_follow_up_cap(mut self, cap: u32) -> Self {
        self.follow_up_cap = cap;
        self
    }

    /// The follow-up cap (see [`with_follow_up_cap`](Self::with_follow_up_cap)).
    pub fn follow_up_cap(&self) -> u32 {
        self.follow_up_cap
    }

    /// How many follow-ups in a row stop hooks have sent the agent back with:
    /// 0 unless the agent is only still going because a stop hook sent it back.
    pub fn follow_ups(&self) -> u32 {
        self.follow_ups.agent()
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
    /// The agent's count of follow-ups in a row starts over: the person set it
    /// going, not a stop hook.
    pub fn next_turn(&mut self) -> u64 {
        self.turn_count += 1;
        self.follow_ups.reset_agent();
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

    define_inner_service_accessors!(hooks, "hook stack");
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
    /// maybe replaced), or refuse it with the result the model sees. A hook
    /// that asks for approval refuses it here (`blocked by hook: <reason>`):
    /// to ask a person, use the [tool layer](Self::tool_layer) with
    /// [`with_approver`](ToolHooksLayer::with_approver).
    ///
    /// A refusal carries the hooks' notes for the model
    /// ([`ToolResult::context`]); for a call that runs, read them from the
    /// [`on_outcome`](Self::on_outcome) callback, or use the tool layer, which
    /// puts them on the tool's result.
    pub fn tool_execution_start(
        &self,
        call: ToolCall,
    ) -> impl Future<Output = Result<ToolDecision, S::Error>> {
        let (name, call_id) = (call.name.clone(), call.call_id.clone());
        let fire = self.fire(call::start_request(&self.carried, call));
        async move {
            let outcome = fire.await?;
            // An ask with nobody to ask is a refusal, never an allow; so is
            // a hook that stops the agent.
            if call::refuses(&outcome) {
                let context = outcome.context().to_vec();
                return Ok(ToolDecision::Refused(
                    call::refusal(&outcome).after_context(context),
                ));
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
    /// rewrote them, and the hooks' notes for the model after the ones
    /// `result` had ([`ToolResult::context`]). `call` is the call that ran (its
    /// arguments are `tool_input`).
    pub fn tool_execution_end(
        &self,
        call: &ToolCall,
        result: ToolResult,
        duration: Duration,
    ) -> impl Future<Output = Result<ToolResult, S::Error>> {
        let call_id = (!call.call_id.is_empty()).then(|| Arc::<str>::from(call.call_id.as_str()));
        let (req, kept) = call::end_request(
            &self.carried,
            Arc::from(call.name.as_str()),
            call_id.as_ref(),
            call.arguments.clone(),
            result,
            duration,
        );
        let fire = self.fire(req);
        async move { Ok(call::result_of(fire.await?).with_kept(Vec::new(), kept)) }
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

    /// `session_before_compact`, before compaction runs. nanopi's hooks are
    /// advisory here (a block is reported and dropped); a Claude Code
    /// `PreCompact` hook's block prevents the compaction, which the outcome
    /// says with [`is_blocked`](HookOutcome::is_blocked): check it before
    /// compacting.
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

    /// `permission_request`, when a permission prompt is about to be shown for
    /// a call of `tool_name` with `tool_input`: grant it on the hooks' input,
    /// deny it, or show the prompt. See [`PermissionDecision`] for what an
    /// allow without a rewrite means.
    ///
    /// A Claude Code hook's `interrupt: true` (stop the agent too) is the
    /// outcome's [`stop`](HookOutcome::stop), seen by the
    /// [`on_outcome`](Self::on_outcome) callback.
    pub fn permission_request(
        &self,
        tool_name: impl Into<Arc<str>>,
        tool_input: Value,
    ) -> impl Future<Output = Result<PermissionDecision, S::Error>> {
        let fire = self.fire(HookRequest::permission_request(tool_name, tool_input));
        async move { Ok(PermissionDecision::of(fire.await?)) }
    }

    /// `post_tool_batch`, once a batch of parallel tool calls resolved, before
    /// the next model call: `tool_calls` is the array of
    /// `{"tool_name", "tool_input", "tool_use_id", "tool_response"}`. The
    /// outcome as it is (its [`context`](HookOutcome::context) is for the model).
    pub fn post_tool_batch(
        &self,
        tool_calls: Value,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::post_tool_batch(tool_calls))
    }

    /// `stop`, when the agent is about to stop with `last_assistant_message`:
    /// [`StopDecision::KeepGoing`] with the instruction a hook sent it back
    /// with, or [`StopDecision::Finish`]. The request's `stop_hook_active` is
    /// `true` when the previous stop was a follow-up; after the
    /// [cap](Self::with_follow_up_cap) of follow-ups in a row, and whenever a
    /// hook asks to stop the agent ([`HookOutcome::stop`]), it finishes. A
    /// `Finish` resets the count. See the [module docs](self) for an example.
    pub fn stop(
        &self,
        last_assistant_message: impl Into<String>,
    ) -> impl Future<Output = Result<StopDecision, S::Error>> {
        let sent = self.follow_ups.agent();
        let fire = self.fire(HookRequest::stop(sent > 0, last_assistant_message));
        let (follow_ups, cap) = (self.follow_ups.clone(), self.follow_up_cap);
        async move {
            let decision = StopDecision::of(&fire.await?, sent, cap);
            follow_ups.agent_decided(sent, &decision);
            Ok(decision)
        }
    }

    /// `stop_failure`, when a turn ended with a model `error`. Cannot stop
    /// anything (Claude Code discards these hooks' answers).
    pub fn stop_failure(
        &self,
        error: impl Into<String>,
        last_assistant_message: impl Into<String>,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::stop_failure(error, last_assistant_message))
    }

    /// `notification`, when the agent notifies the person (`notification_type`:
    /// Claude Code's `permission_prompt`, `idle_prompt`, …). Cannot stop anything.
    pub fn notification(
        &self,
        message: impl Into<String>,
        title: Option<&str>,
        notification_type: impl Into<String>,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::notification(message, title, notification_type))
    }

    /// `subagent_start`, when subagent `agent_id` starts; its count of
    /// follow-ups in a row starts over. Cannot stop anything; the outcome's
    /// [`context`](HookOutcome::context) is for the subagent's model.
    pub fn subagent_start(
        &self,
        agent_id: impl Into<String>,
        agent_type: impl Into<String>,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        let agent_id = agent_id.into();
        self.follow_ups.reset_subagent(&agent_id);
        self.fire(HookRequest::subagent_start(agent_id, agent_type))
    }

    /// `subagent_stop`, when subagent `agent_id` is about to stop: as
    /// [`stop`](Self::stop), with a count of follow-ups in a row of its own
    /// (per `agent_id`, so that subagents running side by side do not share
    /// it) and the same cap.
    pub fn subagent_stop(
        &self,
        agent_id: impl Into<String>,
        agent_type: impl Into<String>,
        last_assistant_message: impl Into<String>,
    ) -> impl Future<Output = Result<StopDecision, S::Error>> {
        let agent_id = agent_id.into();
        let sent = self.follow_ups.subagent(&agent_id);
        let fire = self.fire(HookRequest::subagent_stop(
            agent_id.clone(),
            agent_type,
            sent > 0,
            last_assistant_message,
        ));
        let (follow_ups, cap) = (self.follow_ups.clone(), self.follow_up_cap);
        async move {
            let decision = StopDecision::of(&fire.await?, sent, cap);
            follow_ups.subagent_decided(&agent_id, sent, &decision);
            Ok(decision)
        }
    }

    /// `instructions_loaded`, when an instructions file was loaded
    /// (`memory_type`: `User`, `Project`, …; `load_reason`: `session_start`,
    /// …). Cannot stop anything.
    pub fn instructions_loaded(
        &self,
        file_path: impl Into<String>,
        memory_type: impl Into<String>,
        load_reason: impl Into<String>,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::instructions_loaded(
            file_path,
            memory_type,
            load_reason,
        ))
    }

    /// `agent_thought`, when the agent finished a thought (Cursor's
    /// `afterAgentThought`). Cannot stop anything.
    pub fn agent_thought(
        &self,
        text: impl Into<String>,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> {
        self.fire(HookRequest::agent_thought(text))
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
            .field("follow_up_cap", &self.follow_up_cap)
            .field("follow_ups", &self.follow_ups.agent())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
