//! A tool call and its result, and the tool events' requests they make: what
//! [`ToolHooks`](super::tool::ToolHooks) and
//! [`AgentHooks`](super::AgentHooks) hand the hooks and take back.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::carried::Carried;
use crate::outcome::{HookOutcome, DEFAULT_BLOCK_REASON};
use crate::request::{HookRequest, STRUCTURED_CONTENT};

/// One tool call the model asked for.
///
/// An empty `call_id` means the provider gave none: the hooks then get no
/// `tool_call_id` (and no `NANOPI_TOOL_CALL_ID`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name: what `tool_execution_start` / `tool_execution_end` matchers test.
    pub name: String,
    /// The provider's id for this call.
    pub call_id: String,
    /// The argument object.
    pub arguments: Value,
}

impl ToolCall {
    /// A call of tool `name` with `arguments`.
    pub fn new(name: impl Into<String>, call_id: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            name: name.into(),
            call_id: call_id.into(),
            arguments,
        }
    }
}

/// What a tool answered, and what the model sees: a text, whether it is an
/// error, and optionally structured content (any JSON value) beside the text.
///
/// # What hooks see
///
/// `tool_execution_end` hooks get the text and the flag as the spec's
/// `tool_response.content` and `tool_response.is_error`. Structured content,
/// a tower-hooks extension, is there too as `tool_response.structured_content`,
/// only when the result has some (a result without any sends the spec's
/// payload, byte for byte).
///
/// A transform's top-level `content` (a string) and `is_error` (a bool)
/// replace the text and the flag, as the spec says. Structured content
/// follows one rule, so that no hook written against the spec lets through
/// what it meant to rewrite:
///
/// * a top-level `structured_content` replaces it (`null` removes it);
/// * otherwise, a transform that *changes* the text removes it: a redactor
///   that knows only `content` rewrote the text, and the structured copy of
///   the same data was not rewritten. A transform that hands the text back
///   unchanged keeps it.
///
/// ```
/// use serde_json::json;
/// use tower_hooks::ToolResult;
///
/// let result = ToolResult::ok("2 files").with_structured(json!({"files": ["a", "b"]}));
/// assert_eq!(result.content(), "2 files");
/// assert!(!result.is_error());
/// assert_eq!(result.structured(), Some(&json!({"files": ["a", "b"]})));
/// ```
///
/// # Context
///
/// A result also carries text for the model's context that hooks handed over
/// ([`HookOutcome::context`]), one element per note, in order: see
/// [context for the model](super::tool#context-for-the-model). Hooks do not see it,
/// and a `tool_execution_end` transform leaves it as it is.
///
/// ```
/// use tower_hooks::ToolResult;
///
/// let result = ToolResult::ok("2 files").with_context("the repo is a monorepo");
/// assert_eq!(result.context(), ["the repo is a monorepo"]);
/// assert_ne!(result, ToolResult::ok("2 files"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolResult {
    content: String,
    is_error: bool,
    structured: Option<Value>,
    context: Vec<String>,
    stop: Option<String>,
    deferred: bool,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        ToolResult {
            content: content.into(),
            is_error: false,
            structured: None,
            context: Vec::new(),
            stop: None,
            deferred: false,
        }
    }

    /// A failed result: the model sees `content` as an error.
    pub fn error(content: impl Into<String>) -> Self {
        ToolResult {
            content: content.into(),
            is_error: true,
            structured: None,
            context: Vec::new(),
            stop: None,
            deferred: false,
        }
    }

    /// Adds structured content beside the text (e.g. an MCP tool's
    /// `structuredContent`). See [what hooks see](ToolResult#what-hooks-see).
    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }

    /// The text the model sees.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// Whether the model is told the call failed.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The structured content, if any.
    pub fn structured(&self) -> Option<&Value> {
        self.structured.as_ref()
    }

    /// The text, without a copy.
    pub fn into_content(self) -> String {
        self.content
    }

    /// The structured content, taken out (the result keeps its text and flag).
    pub fn take_structured(&mut self) -> Option<Value> {
        self.structured.take()
    }

    /// Adds a note for the model's context, after the ones already there.
    pub fn with_context(mut self, text: impl Into<String>) -> Self {
        self.context.push(text.into());
        self
    }

    /// Text for the model's context that hooks handed over, one element per
    /// note, in order (see [context](ToolResult#context)).
    pub fn context(&self) -> &[String] {
        &self.context
    }

    /// Asks the agent to stop after this result; `reason` (possibly empty) is
    /// for the person.
    pub fn with_stop(mut self, reason: impl Into<String>) -> Self {
        self.stop = Some(reason.into());
        self
    }

    /// Whether a hook asked the agent to stop ([`HookOutcome::stop`]: Claude
    /// Code's `continue: false`, or a model hook's no at a tool call): the
    /// agent ends its turn after this result instead of asking the model
    /// again, and shows the reason (possibly empty) to the person. See
    /// [stopping the agent](super::tool#stopping-the-agent).
    pub fn stop(&self) -> Option<&str> {
        self.stop.as_deref()
    }

    /// Whether the call was deferred rather than run (a hook's
    /// [`HookOutcome::is_deferred`]): the tool did not run, nobody was asked,
    /// and the agent stops ([`stop`](Self::stop)) so that the host can
    /// pause the session and offer the same call again when it resumes.
    pub fn is_deferred(&self) -> bool {
        self.deferred
    }

    /// `context` first, then the notes already on the result.
    pub(crate) fn after_context(mut self, mut context: Vec<String>) -> Self {
        if !context.is_empty() {
            context.append(&mut self.context);
            self.context = context;
        }
        self
    }
}

/// Adds the tool call id (when there is one), session id and cwd.
pub(crate) fn stamp_tool(
    carried: &Carried,
    req: HookRequest,
    call_id: Option<&Arc<str>>,
) -> HookRequest {
    let req = carried.stamp(req);
    match call_id {
        Some(id) => req.with_tool_call_id(id.clone()),
        None => req,
    }
}

/// The `tool_execution_start` request of `call`, with what `carried` adds.
pub(crate) fn start_request(carried: &Carried, call: ToolCall) -> HookRequest {
    let call_id = (!call.call_id.is_empty()).then(|| Arc::<str>::from(call.call_id));
    stamp_tool(
        carried,
        HookRequest::tool_execution_start(call.name, call.arguments),
        call_id.as_ref(),
    )
}

/// The `tool_execution_end` request, and what hooks do not see of `result`:
/// its notes for the model and its request to stop (an inner layer's).
/// `result` moves into the payload and [`result_of`] takes it back out, so
/// the content is never copied.
pub(crate) fn end_request(
    carried: &Carried,
    name: Arc<str>,
    call_id: Option<&Arc<str>>,
    tool_input: Value,
    result: ToolResult,
    duration: Duration,
) -> (HookRequest, Kept) {
    let ToolResult {
        content,
        is_error,
        structured,
        context,
        stop,
        ..
    } = result;
    let mut req = HookRequest::tool_execution_end(name, tool_input, content, is_error, duration);
    if let Some(structured) = structured {
        req.set_response_field(STRUCTURED_CONTENT, structured);
    }
    (stamp_tool(carried, req, call_id), Kept { context, stop })
}

/// What hooks do not see of a tool's result, put back after them.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    context: Vec<String>,
    stop: Option<String>,
}

impl ToolResult {
    /// The result after `tool_execution_end`, from the hooks' `result` and
    /// what they did not see: `first` notes (the start hooks'), then the
    /// tool's, then the end hooks'; a stop the hooks did not ask for is the
    /// tool's.
    pub(crate) fn with_kept(self, mut first: Vec<String>, kept: Kept) -> ToolResult {
        let mut context = kept.context;
        first.append(&mut context);
        let mut result = self.after_context(first);
        if result.stop.is_none() {
            result.stop = kept.stop;
        }
        result
    }
}

/// The tool result of a refused call (a block, an ask with nobody to ask, a
/// hook that stops the agent): the exact text the model sees, `blocked by
/// hook: <reason>` or `stopped by hook: <reason>`, and the stop. It carries
/// no notes.
pub(crate) fn refusal(outcome: &HookOutcome) -> ToolResult {
    if outcome.is_deferred() {
        return ToolResult {
            stop: Some(outcome.stop().unwrap_or(DEFERRED_STOP).to_owned()),
            deferred: true,
            ..ToolResult::error(DEFERRED_TEXT)
        };
    }
    let text = match outcome.stop() {
        Some(reason) if !outcome.is_blocked() && !outcome.needs_approval() => {
            if reason.is_empty() {
                "stopped by hook".to_owned()
            } else {
                format!("stopped by hook: {reason}")
            }
        }
        _ => outcome.message().unwrap_or_else(|| {
            format!(
                "blocked by hook: {}",
                outcome.reason().unwrap_or(DEFAULT_BLOCK_REASON)
            )
        }),
    };
    ToolResult {
        stop: outcome.stop().map(str::to_owned),
        ..ToolResult::error(text)
    }
}

/// What the model sees of a deferred call, and why the agent stops.
const DEFERRED_TEXT: &str = "the tool call is deferred: it runs when the session resumes";
const DEFERRED_STOP: &str = "a hook deferred the tool call";

/// Whether `tool_execution_start` hooks refuse the call when nobody is
/// asked: they blocked, asked for approval, or asked the agent to stop.
pub(crate) fn refuses(outcome: &HookOutcome) -> bool {
    outcome.is_blocked() || outcome.needs_approval() || outcome.stop().is_some()
}

/// The result after `tool_execution_end`: `tool_response.content` and
/// `tool_response.is_error` of the outcome's arguments, which hold every
/// honored transform (and the tool's own answer when there was none), with
/// the outcome's notes for the model; for a block that takes effect here, an
/// error with the refusal's text instead.
pub(crate) fn result_of(outcome: HookOutcome) -> ToolResult {
    let context = outcome.context().to_vec();
    let stop = outcome.stop().map(str::to_owned);
    if outcome.is_blocked() {
        // A block that takes effect here (a dialect whose block hides the
        // result, as Gemini CLI's `AfterTool`): the model sees the refusal,
        // as its dialect words it, in place of the result.
        let text = outcome
            .message()
            .unwrap_or_else(|| outcome.reason().unwrap_or(DEFAULT_BLOCK_REASON).to_owned());
        return ToolResult {
            context,
            stop,
            ..ToolResult::error(text)
        };
    }
    let mut arguments = outcome.into_arguments();
    let mut response = arguments
        .get_mut("tool_response")
        .map(Value::take)
        .unwrap_or_default();
    let content = match response.get_mut("content").map(Value::take) {
        Some(Value::String(content)) => content,
        _ => String::new(),
    };
    let is_error = response
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let structured = response
        .get_mut(STRUCTURED_CONTENT)
        .map(Value::take)
        .filter(|v| !v.is_null());
    ToolResult {
        content,
        is_error,
        structured,
        context,
        stop,
        deferred: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use serde_json::json;

    #[test]
    fn result_of_reads_the_tool_response_back() {
        let req = HookRequest::tool_execution_end(
            "bash",
            json!({"command": "ls"}),
            "a\nb",
            true,
            Duration::from_millis(3),
        );
        assert_eq!(
            result_of(HookOutcome::allow(req)),
            ToolResult::error("a\nb")
        );
    }

    #[test]
    fn empty_call_id_sends_no_tool_call_id() {
        let req = start_request(&Carried::new(), ToolCall::new("bash", "", json!({})));
        assert_eq!(req.event(), Event::ToolExecutionStart);
        assert_eq!(req.tool_call_id(), None);
        let req = start_request(&Carried::new(), ToolCall::new("bash", "c1", json!({})));
        assert_eq!(req.tool_call_id(), Some("c1"));
    }
}
