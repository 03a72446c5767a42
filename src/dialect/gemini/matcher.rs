//! A Gemini CLI definition's matcher, and the variables its hooks get: what
//! both the settings reader and the hook need, below them both.

use std::sync::Arc;

use regex::Regex;
use serde_json::Value;

use super::event::{GeminiEvent, MatcherKind};
use crate::request::HookRequest;

/// `GEMINI_PROJECT_DIR`: the project root.
pub const PROJECT_DIR_VAR: &str = "GEMINI_PROJECT_DIR";
/// `GEMINI_CWD`: the session's working directory.
pub const CWD_VAR: &str = "GEMINI_CWD";
/// `GEMINI_SESSION_ID`: the session's id.
pub const SESSION_ID_VAR: &str = "GEMINI_SESSION_ID";

/// How a definition's matcher selects.
#[derive(Debug, Clone)]
pub(crate) enum GeminiMatcher {
    /// Omitted, `""` or `"*"`, or an event that ignores matchers.
    All,
    /// An unanchored regex on the Gemini tool name.
    Regex(Arc<Regex>),
    /// A tool name, compared as written (a matcher that is no valid regex).
    Literal(Box<str>),
    /// Equal to the event's `source`, `reason` or `trigger` (the neutral
    /// request's `reason`, in Gemini CLI's words).
    Exact(GeminiEvent, Box<str>),
}

impl GeminiMatcher {
    /// The matcher `written` at `event`.
    #[cfg(test)]
    pub(crate) fn new(event: GeminiEvent, written: Option<&str>) -> GeminiMatcher {
        GeminiMatcher::compile(event, written).0
    }

    /// The matcher `written` at `event`, with the regex crate's error when
    /// it is a tool regex that does not compile (then it is a
    /// [`Literal`](Self::Literal)), which the loader reports when the regex
    /// is over the bound on a matcher.
    pub(crate) fn compile(
        event: GeminiEvent,
        written: Option<&str>,
    ) -> (GeminiMatcher, Option<regex::Error>) {
        let Some(written) = written else {
            return (GeminiMatcher::All, None);
        };
        match event.matcher_kind() {
            MatcherKind::Ignored => (GeminiMatcher::All, None),
            MatcherKind::Exact => (GeminiMatcher::Exact(event, written.into()), None),
            MatcherKind::ToolRegex => match crate::pattern::compile_regex(written) {
                Ok(regex) => (GeminiMatcher::Regex(Arc::new(regex)), None),
                Err(err) => (GeminiMatcher::Literal(written.into()), Some(err)),
            },
        }
    }

    /// Whether a hook with this matcher runs for `req`, whose tool Gemini
    /// CLI calls `tool`.
    pub(super) fn matches(&self, req: &HookRequest, tool: Option<&str>) -> bool {
        match self {
            GeminiMatcher::All => true,
            GeminiMatcher::Regex(regex) => regex.is_match(tool.unwrap_or("")),
            GeminiMatcher::Literal(name) => tool == Some(&**name),
            GeminiMatcher::Exact(event, want) => {
                let reason = req.arguments().get("reason").and_then(Value::as_str);
                reason.map(|r| event.session_value(r)) == Some(&**want)
            }
        }
    }
}
