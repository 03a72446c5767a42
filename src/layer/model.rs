//! The leaf of a model-evaluated hook: Claude Code's `prompt` and `agent`
//! handlers, which ask a model rather than run a command.
//!
//! The host hands the stack an [`Evaluator`], a `tower::Service` from a
//! [`ModelRequest`] (the prompt, and the model the handler names, if any) to
//! the model's text ([`Builder::evaluator`](crate::Builder::evaluator)); it
//! already owns a model client, and this is where it plugs in. For each run the
//! hook's prompt gets its input, the object a command hook of its dialect would
//! read on stdin: `$ARGUMENTS` in the prompt stands for it (`\$` is a plain
//! `$`), and without the placeholder it is appended after a blank line. The
//! model is to answer `{"ok": true}` or `{"ok": false, "reason": "…"}` (and may
//! add `"impossible": true` at a stop); the object may come inside other text
//! or a code fence. What `ok: false` does depends on the event, by the hook's
//! dialect (Claude Code's table is in the guide to its hooks).
//!
//! A model that fails, answers past the hook's timeout, or answers something
//! else is a failure that lets the action proceed (an `error` record), as a
//! Claude Code command hook's failures do.
//!
//! ```
//! use tower_hooks::layer::model::{arguments_in, ModelAnswer};
//!
//! assert_eq!(arguments_in("Safe? $ARGUMENTS", "{\"x\":1}"), "Safe? {\"x\":1}");
//! assert_eq!(arguments_in("Costs \\$5", "{}"), "Costs $5\n\n{}");
//! let answer = ModelAnswer::parse("Sure.\n```json\n{\"ok\": false, \"reason\": \"no\"}\n```").unwrap();
//! assert!(!answer.ok);
//! assert_eq!(answer.reason.as_deref(), Some("no"));
//! ```

use std::fmt;
use std::task::{Context, Poll};

use tower::util::BoxCloneSyncService;
use tower::ServiceExt;
use tower_service::Service;

use crate::outcome::Verdict;
use crate::process::BoxFuture;
use crate::request::HookRequest;
use crate::BoxError;

/// What a stack asks a model: a [`ModelRequest`] in, the model's text out.
pub type Evaluator = BoxCloneSyncService<ModelRequest, String, BoxError>;

/// One question for the model of a model-evaluated hook.
///
/// ```
/// use tower_hooks::layer::model::ModelRequest;
///
/// let asked = ModelRequest::new("Safe? {}").with_model("claude-haiku-4-5");
/// assert_eq!((asked.prompt.as_str(), asked.model.as_deref()), ("Safe? {}", Some("claude-haiku-4-5")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelRequest {
    /// The hook's prompt with its input in place ([`arguments_in`]).
    pub prompt: String,
    /// The model the handler names (Claude Code's `model`), as written;
    /// `None` leaves the choice to the host.
    pub model: Option<String>,
}

impl ModelRequest {
    /// A question with no model named.
    pub fn new(prompt: impl Into<String>) -> Self {
        ModelRequest {
            prompt: prompt.into(),
            model: None,
        }
    }

    /// Names the model to ask.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
}

pub use crate::dialect::ModelAnswer;

/// `prompt` with `$ARGUMENTS` replaced by `input` (and `\$` by `$`); without
/// the placeholder, `input` is appended after a blank line.
pub fn arguments_in(prompt: &str, input: &str) -> String {
    let mut out = String::with_capacity(prompt.len() + input.len() + 2);
    let mut found = false;
    let mut rest = prompt;
    while let Some(at) = rest.find(['\\', '$']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("\\$") {
            out.push('$');
            rest = after;
        } else if let Some(after) = rest.strip_prefix("$ARGUMENTS") {
            out.push_str(input);
            found = true;
            rest = after;
        } else {
            let c = rest.chars().next().expect("found above");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.push_str(rest);
    if !found {
        out.push_str("\n\n");
        out.push_str(input);
    }
    out
}

/// The leaf of a model-evaluated hook. See the [module docs](self).
#[derive(Clone)]
pub struct ModelHook {
    evaluator: Evaluator,
}

impl fmt::Debug for ModelHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ModelHook")
    }
}

impl ModelHook {
    /// A leaf that asks `evaluator`.
    pub fn new(evaluator: Evaluator) -> Self {
        ModelHook { evaluator }
    }
}

impl Service<HookRequest> for ModelHook {
    type Response = Verdict;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Verdict, BoxError>>;

    // poll_ready: the evaluator's.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.evaluator.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let evaluator = self.evaluator.clone();
        let evaluator = std::mem::replace(&mut self.evaluator, evaluator);
        Box::pin(async move {
            let spec = req
                .hook()
                .cloned()
                .ok_or("a model-evaluated hook runs inside a chain")?;
            let template = spec.prompt().unwrap_or_default();
            let input = crate::dialect::input(&spec, &req);
            let prompt = arguments_in(template, String::from_utf8_lossy(&input).trim());
            let asked = ModelRequest {
                prompt,
                model: spec.model().map(str::to_owned),
            };
            let asked = evaluator.oneshot(asked);
            let asked = async { asked.await.map_err(|e| format!("the model failed: {e}")) };
            let text = crate::dialect::within_deadline(&req, asked).await;
            let answer = text.and_then(|text| ModelAnswer::parse(&text));
            let answer = crate::dialect::rules(&spec).model_answer(&spec, &req, answer);
            Ok(crate::dialect::settle(
                &req,
                answer,
                "this dialect has no model-evaluated hooks",
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_placeholder_and_its_escape() {
        assert_eq!(arguments_in("a $ARGUMENTS b $ARGUMENTS", "X"), "a X b X");
        assert_eq!(
            arguments_in("\\$ARGUMENTS is literal", "X"),
            "$ARGUMENTS is literal\n\nX"
        );
        assert_eq!(arguments_in("$HOME stays", "X"), "$HOME stays\n\nX");
        assert_eq!(arguments_in("é $ARGUMENTS", "X"), "é X");
    }

    #[test]
    fn answers_are_found_and_checked() {
        let ok = ModelAnswer::parse(r#"{"ok": true}"#).unwrap();
        assert!(ok.ok && ok.reason.is_none());
        let wrapped = ModelAnswer::parse(
            "I think: {\"ok\": false, \"reason\": \"rm\", \"impossible\": true} done",
        )
        .unwrap();
        assert_eq!((wrapped.ok, wrapped.impossible), (false, true));
        assert!(ModelAnswer::parse("yes")
            .unwrap_err()
            .contains("did not answer"));
        assert!(ModelAnswer::parse(r#"{"ok": "yes"}"#)
            .unwrap_err()
            .contains("boolean"));
        assert!(ModelAnswer::parse("").is_err());
    }
}
