//! One constructor per neutral event, each with the arguments nanopi's
//! hooks see for it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::{CompactionReason, HookRequest, ShutdownReason, StartReason};
use crate::event::Event;

impl HookRequest {
    /// `session_start`: `{"reason": …}`.
    pub fn session_start(reason: StartReason) -> Self {
        Self::new(Event::SessionStart, json!({ "reason": reason.as_str() }))
    }

    /// `session_shutdown`: `{"reason": …}`.
    pub fn session_shutdown(reason: ShutdownReason) -> Self {
        Self::new(Event::SessionShutdown, json!({ "reason": reason.as_str() }))
    }

    /// `before_agent_start`: `{"turn_count": N, "prompt": "…"}`.
    pub fn before_agent_start(turn_count: u64, prompt: impl Into<String>) -> Self {
        Self::new(
            Event::BeforeAgentStart,
            json!({ "turn_count": turn_count, "prompt": prompt.into() }),
        )
    }

    /// `input`: `{"prompt": "…"}`.
    pub fn input(prompt: impl Into<String>) -> Self {
        Self::new(Event::Input, json!({ "prompt": prompt.into() }))
    }

    /// `turn_start`: `{"turn_count": N, "iteration": I}`.
    pub fn turn_start(turn_count: u64, iteration: u64) -> Self {
        Self::new(
            Event::TurnStart,
            json!({ "turn_count": turn_count, "iteration": iteration }),
        )
    }

    /// `tool_execution_start`: the tool's argument object, verbatim.
    pub fn tool_execution_start(tool_name: impl Into<Arc<str>>, arguments: Value) -> Self {
        Self::new(Event::ToolExecutionStart, arguments).with_tool_name(tool_name)
    }

    /// `tool_execution_end`: `{"tool_input": {…}, "tool_response": {"content", "is_error", "duration_ms"}}`.
    pub fn tool_execution_end(
        tool_name: impl Into<Arc<str>>,
        tool_input: Value,
        content: impl Into<String>,
        is_error: bool,
        duration: Duration,
    ) -> Self {
        let duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        Self::new(
            Event::ToolExecutionEnd,
            json!({
                "tool_input": tool_input,
                "tool_response": {
                    "content": content.into(),
                    "is_error": is_error,
                    "duration_ms": duration_ms,
                },
            }),
        )
        .with_tool_name(tool_name)
    }

    /// `turn_end`: `{"turn_count": N, "iteration": I, "had_tool_calls": bool}`.
    pub fn turn_end(turn_count: u64, iteration: u64, had_tool_calls: bool) -> Self {
        Self::new(
            Event::TurnEnd,
            json!({ "turn_count": turn_count, "iteration": iteration, "had_tool_calls": had_tool_calls }),
        )
    }

    /// `message_end`: `{"turn_count": N, "response_length": N}`.
    pub fn message_end(turn_count: u64, response_length: u64) -> Self {
        Self::new(
            Event::MessageEnd,
            json!({ "turn_count": turn_count, "response_length": response_length }),
        )
    }

    /// `session_before_compact`: `{"reason": …}`.
    pub fn session_before_compact(reason: CompactionReason) -> Self {
        Self::new(
            Event::SessionBeforeCompact,
            json!({ "reason": reason.as_str() }),
        )
    }

    /// `session_compact`: `{"reason": …}`.
    pub fn session_compact(reason: CompactionReason) -> Self {
        Self::new(Event::SessionCompact, json!({ "reason": reason.as_str() }))
    }

    /// `permission_request`: a permission prompt is about to be shown for a
    /// tool call. The arguments are the tool input (a hook may rewrite them).
    pub fn permission_request(tool_name: impl Into<Arc<str>>, tool_input: Value) -> Self {
        Self::new(Event::PermissionRequest, tool_input).with_tool_name(tool_name)
    }

    /// `post_tool_batch`: `{"tool_calls": […]}`, each
    /// `{"tool_name", "tool_input", "tool_use_id", "tool_response"}`.
    pub fn post_tool_batch(tool_calls: Value) -> Self {
        Self::new(Event::PostToolBatch, json!({ "tool_calls": tool_calls }))
    }

    /// `stop`: `{"stop_hook_active": bool, "last_assistant_message": …}`. The
    /// agent is about to stop; `stop_hook_active` says that it is only still
    /// going because a stop hook sent it back.
    pub fn stop(stop_hook_active: bool, last_assistant_message: impl Into<String>) -> Self {
        Self::new(
            Event::Stop,
            json!({
                "stop_hook_active": stop_hook_active,
                "last_assistant_message": last_assistant_message.into(),
            }),
        )
    }

    /// `stop_failure`: `{"error": …, "last_assistant_message": …}`: the turn
    /// ended with a model error.
    pub fn stop_failure(
        error: impl Into<String>,
        last_assistant_message: impl Into<String>,
    ) -> Self {
        Self::new(
            Event::StopFailure,
            json!({
                "error": error.into(),
                "last_assistant_message": last_assistant_message.into(),
            }),
        )
    }

    /// `notification`: `{"message": …, "title": …, "notification_type": …}`.
    pub fn notification(
        message: impl Into<String>,
        title: Option<&str>,
        notification_type: impl Into<String>,
    ) -> Self {
        let mut arguments = json!({
            "message": message.into(),
            "notification_type": notification_type.into(),
        });
        if let (Some(title), Value::Object(map)) = (title, &mut arguments) {
            map.insert("title".into(), Value::from(title));
        }
        Self::new(Event::Notification, arguments)
    }

    /// `subagent_start`: `{"agent_id": …, "agent_type": …}`.
    pub fn subagent_start(agent_id: impl Into<String>, agent_type: impl Into<String>) -> Self {
        Self::new(
            Event::SubagentStart,
            json!({ "agent_id": agent_id.into(), "agent_type": agent_type.into() }),
        )
    }

    /// `subagent_stop`: `{"agent_id", "agent_type", "stop_hook_active",
    /// "last_assistant_message"}`: a subagent is about to stop.
    pub fn subagent_stop(
        agent_id: impl Into<String>,
        agent_type: impl Into<String>,
        stop_hook_active: bool,
        last_assistant_message: impl Into<String>,
    ) -> Self {
        Self::new(
            Event::SubagentStop,
            json!({
                "agent_id": agent_id.into(),
                "agent_type": agent_type.into(),
                "stop_hook_active": stop_hook_active,
                "last_assistant_message": last_assistant_message.into(),
            }),
        )
    }

    /// `instructions_loaded`: `{"file_path", "memory_type", "load_reason"}`.
    pub fn instructions_loaded(
        file_path: impl Into<String>,
        memory_type: impl Into<String>,
        load_reason: impl Into<String>,
    ) -> Self {
        Self::new(
            Event::InstructionsLoaded,
            json!({
                "file_path": file_path.into(),
                "memory_type": memory_type.into(),
                "load_reason": load_reason.into(),
            }),
        )
    }

    /// `agent_thought`: `{"text": …}`.
    pub fn agent_thought(text: impl Into<String>) -> Self {
        Self::new(Event::AgentThought, json!({ "text": text.into() }))
    }

    /// `model_request`, before the agent calls the model: `{"llm_request": …}`,
    /// the host's model request in Gemini CLI's shape (`model`, `messages`,
    /// `config`, `toolConfig`).
    pub fn model_request(llm_request: Value) -> Self {
        let mut args = Map::new();
        args.insert("llm_request".into(), llm_request);
        Self::new(Event::ModelRequest, Value::Object(args))
    }

    /// `model_response`, after the model answered: `{"llm_request": …,
    /// "llm_response": …}` in Gemini CLI's shape (`llm_response` has
    /// `candidates[].content.parts`).
    pub fn model_response(llm_request: Value, llm_response: Value) -> Self {
        let mut args = Map::new();
        args.insert("llm_request".into(), llm_request);
        args.insert("llm_response".into(), llm_response);
        Self::new(Event::ModelResponse, Value::Object(args))
    }

    /// `tool_selection`, before the model is told which tools it may call:
    /// `{"llm_request": …}`, whose `toolConfig` (`mode`,
    /// `allowedFunctionNames`) hooks may change.
    pub fn tool_selection(llm_request: Value) -> Self {
        let mut args = Map::new();
        args.insert("llm_request".into(), llm_request);
        Self::new(Event::ToolSelection, Value::Object(args))
    }
}
