//! The model points of [`AgentHooks`]: the host's model request, the
//! model's response and the tool selection, handed through the hooks by
//! `&mut` and back.

use std::future::Future;

use serde_json::Value;
use tower_service::Service;

use super::AgentHooks;
use crate::outcome::HookOutcome;
use crate::request::HookRequest;

impl<S> AgentHooks<S>
where
    S: Service<HookRequest, Response = HookOutcome> + Clone,
{
    /// `model_request`, before the agent calls the model with `llm_request`
    /// (Gemini CLI's shape: `model`, `messages`, `config`, `toolConfig`).
    /// Only Gemini CLI hooks (and hooks made for this event) run here. When
    /// the future is done, `llm_request` holds the request as the hooks left
    /// it (a rewrite replaces it), and the outcome's arguments no longer do.
    /// A [block](HookOutcome::is_blocked) means: do not call the model, end
    /// the turn with the reason. Should the stack fail, `llm_request` is left
    /// `null`.
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_hooks::agent::AgentHooks;
    /// use tower_hooks::{Event, HookSpec, HookStack, Verdict};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let stack = HookStack::builder()
    ///     .fn_hook(HookSpec::in_process(Event::ModelRequest, "cheaper"), |req| {
    ///         let mut args = req.arguments().as_object().unwrap().clone();
    ///         args["llm_request"]["model"] = json!("gemini-2.5-flash");
    ///         Verdict::Transform(args)
    ///     })
    ///     .build();
    /// let hooks = AgentHooks::new(stack);
    /// let mut request = json!({"model": "gemini-2.5-pro", "messages": []});
    /// let outcome = hooks.model_request(&mut request).await.unwrap();
    /// assert!(!outcome.is_blocked());
    /// assert_eq!(request["model"], "gemini-2.5-flash");
    /// # }
    /// ```
    pub fn model_request<'a>(
        &self,
        llm_request: &'a mut Value,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> + 'a
    where
        S: 'a,
    {
        let fire = self.fire(HookRequest::model_request(std::mem::take(llm_request)));
        async move {
            let mut outcome = fire.await?;
            hand_back(&mut outcome, "llm_request", llm_request);
            Ok(outcome)
        }
    }

    /// `model_response`, after the model answered `llm_response` to
    /// `llm_request` (Gemini CLI's shapes). When the future is done both
    /// hold what the hooks left: a hook may replace the response (one with
    /// content parts). A [block](HookOutcome::is_blocked) means: do not use
    /// the response, end the turn with the reason. Should the stack fail,
    /// both are left `null`.
    pub fn model_response<'a>(
        &self,
        llm_request: &'a mut Value,
        llm_response: &'a mut Value,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> + 'a
    where
        S: 'a,
    {
        let fire = self.fire(HookRequest::model_response(
            std::mem::take(llm_request),
            std::mem::take(llm_response),
        ));
        async move {
            let mut outcome = fire.await?;
            hand_back(&mut outcome, "llm_request", llm_request);
            hand_back(&mut outcome, "llm_response", llm_response);
            Ok(outcome)
        }
    }

    /// `tool_selection`, before the model is told which tools it may call:
    /// when the future is done, `llm_request`'s `toolConfig` (`mode`,
    /// `allowedFunctionNames`) is what the hooks left (Gemini CLI's hooks
    /// add up: the union of the allowed functions, `NONE` over `ANY` over
    /// `AUTO`). Nothing can be blocked here. Should the stack fail,
    /// `llm_request` is left `null`.
    pub fn tool_selection<'a>(
        &self,
        llm_request: &'a mut Value,
    ) -> impl Future<Output = Result<HookOutcome, S::Error>> + 'a
    where
        S: 'a,
    {
        let fire = self.fire(HookRequest::tool_selection(std::mem::take(llm_request)));
        async move {
            let mut outcome = fire.await?;
            hand_back(&mut outcome, "llm_request", llm_request);
            Ok(outcome)
        }
    }
}

/// Moves the argument `key` of `outcome` into `into` (`null` when the
/// arguments have none).
fn hand_back(outcome: &mut HookOutcome, key: &str, into: &mut Value) {
    *into = outcome.take_argument(key).unwrap_or(Value::Null);
}
