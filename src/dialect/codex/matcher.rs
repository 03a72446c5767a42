//! Codex's matcher rule and the names a tool answers to.

use std::sync::Arc;

use regex::Regex;

use super::event::CodexEvent;

/// A group's matcher, read by Codex's rule: omitted, `""` or `"*"` matches
/// everything; a matcher made only of `[A-Za-z0-9_|]` is an exact list of
/// names split on `|`; anything else is an unanchored regex.
///
/// ```
/// use tower_hooks::dialect::codex::{CodexEvent, CodexMatcher};
///
/// let exact = CodexMatcher::new(CodexEvent::PreToolUse, Some("Bash|Edit")).unwrap();
/// assert!(exact.matches(&["Bash"]));
/// assert!(!exact.matches(&["BashOutput"]));
/// let regex = CodexMatcher::new(CodexEvent::PreToolUse, Some("^Bash")).unwrap();
/// assert!(regex.matches(&["BashOutput"]));
/// assert!(CodexMatcher::new(CodexEvent::PreToolUse, Some("(")).is_err());
/// // Stop ignores its matcher, even one that is no regex.
/// assert!(CodexMatcher::new(CodexEvent::Stop, Some("(")).unwrap().matches(&["x"]));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum CodexMatcher {
    /// Everything.
    All,
    /// One of these names exactly.
    Names(Arc<[String]>),
    /// An unanchored regex.
    Regex(Arc<Regex>),
}

impl CodexMatcher {
    /// Reads `matcher` for a group of `event`; `Err` is why a regex does not
    /// compile, or that it is over the bound on a matcher (1 MiB compiled,
    /// [`MATCHER_SIZE_LIMIT`](crate::pattern::MATCHER_SIZE_LIMIT)): Codex
    /// skips that group.
    pub fn new(event: CodexEvent, matcher: Option<&str>) -> Result<CodexMatcher, String> {
        // The regex crate's message spans lines; the last one says what is wrong.
        CodexMatcher::compile(event, matcher).map_err(|err| {
            if crate::pattern::is_too_big(&err) {
                return crate::pattern::TOO_BIG.to_owned();
            }
            let text = err.to_string();
            text.lines().last().unwrap_or_default().trim().to_owned()
        })
    }

    /// [`new`](Self::new) with the regex crate's error, for the loader, which
    /// tells a matcher over the bound from one that is no regex.
    pub(crate) fn compile(
        event: CodexEvent,
        matcher: Option<&str>,
    ) -> Result<CodexMatcher, regex::Error> {
        let text = match matcher {
            Some(text) if event.has_matcher() && !text.is_empty() && text != "*" => text,
            _ => return Ok(CodexMatcher::All),
        };
        let plain = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|');
        if plain {
            return Ok(CodexMatcher::Names(
                text.split('|').map(str::to_owned).collect(),
            ));
        }
        crate::pattern::compile_regex(text).map(|regex| CodexMatcher::Regex(Arc::new(regex)))
    }

    /// Whether any of `subjects` (a tool's name and its aliases) matches.
    pub fn matches(&self, subjects: &[&str]) -> bool {
        self.matches_any(subjects.iter().copied())
    }

    /// [`matches`](Self::matches), for subjects given one by one.
    pub(crate) fn matches_any<'s>(&self, mut subjects: impl Iterator<Item = &'s str>) -> bool {
        match self {
            CodexMatcher::All => true,
            CodexMatcher::Names(names) => {
                subjects.any(|subject| names.iter().any(|name| name == subject))
            }
            CodexMatcher::Regex(regex) => subjects.any(|subject| regex.is_match(subject)),
        }
    }
}

/// The other names a Codex tool answers to in a matcher: `apply_patch`
/// answers `Edit` and `Write`, `spawn_agent` answers `Agent`.
///
/// ```
/// use tower_hooks::dialect::codex::tool_aliases;
/// assert_eq!(tool_aliases("apply_patch"), ["Edit", "Write"]);
/// assert!(tool_aliases("Bash").is_empty());
/// ```
pub fn tool_aliases(tool: &str) -> &'static [&'static str] {
    match tool {
        "apply_patch" => &["Edit", "Write"],
        "spawn_agent" => &["Agent"],
        _ => &[],
    }
}
