//! How a Cursor hook's `matcher` is read, and what it is tested against at
//! each event.
//!
//! * omitted, `""` or `*`: every call;
//! * on the shell events (`beforeShellExecution`, `afterShellExecution`),
//!   whose subject is the command line: always an unanchored, case-sensitive
//!   regex, so `curl|wget` selects a command that contains either;
//! * on the file events the subject is the tool's type, as Cursor's page
//!   says: `Read` (`TabRead` for a Tab read) on `beforeReadFile`, `Write`
//!   (`TabWrite`) on `afterFileEdit`;
//! * elsewhere, names of letters, digits, `_`, `-` and `:` joined by `|`: exact
//!   names, ignoring case; `MCP:<name>` is an MCP tool whose own name (after
//!   its `mcp__<server>__`, `mcp_` or `MCP:` prefix) is `<name>`, ignoring case;
//! * anything else: a regex.
//!
//! A regex the `regex` crate cannot compile selects nothing (the loader warns),
//! and so does one whose compiled form would take more than 1 MiB
//! ([`MATCHER_SIZE_LIMIT`](crate::pattern::MATCHER_SIZE_LIMIT)).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use regex::Regex;

use super::event::CursorEvent;
use crate::request::HookRequest;

/// A compiled Cursor matcher. See the [module docs](self).
#[derive(Clone)]
pub enum CursorMatcher {
    /// Every call.
    Any,
    /// Names, each exact but for case; `MCP:<name>` entries name MCP tools.
    Names(Arc<[String]>),
    /// A regex, found anywhere in the subject.
    Regex(Arc<Regex>),
    /// A regex that does not compile: nothing.
    Nothing,
}

impl fmt::Debug for CursorMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CursorMatcher::Any => f.write_str("Any"),
            CursorMatcher::Names(names) => f.debug_tuple("Names").field(names).finish(),
            CursorMatcher::Regex(re) => f.debug_tuple("Regex").field(&re.as_str()).finish(),
            CursorMatcher::Nothing => f.write_str("Nothing"),
        }
    }
}

impl CursorMatcher {
    /// Reads `matcher` as written on an entry of `event`. A regex that does
    /// not compile is an error; the caller decides (the loader warns and uses
    /// [`Nothing`](Self::Nothing)).
    ///
    /// ```
    /// use tower_hooks::dialect::cursor::{CursorEvent, CursorMatcher};
    ///
    /// let names = CursorMatcher::compile(CursorEvent::PreToolUse, "Shell|MCP:create_issue").unwrap();
    /// assert!(names.matches("shell"));
    /// assert!(names.matches("mcp__github__create_issue"));
    /// assert!(!names.matches("ShellCheck"));
    /// let text = CursorMatcher::compile(CursorEvent::BeforeShellExecution, "curl|wget").unwrap();
    /// assert!(text.matches("cd /tmp && curl -sL x | sh"));
    /// ```
    pub fn compile(event: CursorEvent, matcher: &str) -> Result<CursorMatcher, regex::Error> {
        if matcher.is_empty() || matcher == "*" {
            return Ok(CursorMatcher::Any);
        }
        let is_names = matcher
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '|'));
        if is_names && !event.matches_text() {
            let names = matcher
                .split('|')
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect();
            return Ok(CursorMatcher::Names(names));
        }
        let regex = crate::pattern::compile_regex(matcher)?;
        Ok(CursorMatcher::Regex(Arc::new(regex)))
    }

    /// Whether it selects a call whose subject is `subject`.
    pub fn matches(&self, subject: &str) -> bool {
        match self {
            CursorMatcher::Any => true,
            CursorMatcher::Nothing => false,
            CursorMatcher::Regex(re) => re.is_match(subject),
            CursorMatcher::Names(names) => names.iter().any(|name| name_matches(name, subject)),
        }
    }
}

/// One name of a list against a subject: `MCP:<name>` against an MCP tool's
/// own name, anything else against the whole subject, ignoring case.
fn name_matches(name: &str, subject: &str) -> bool {
    match strip_prefix_ignoring_case(name, "mcp:") {
        Some(wanted) => mcp_tool_name(subject).is_some_and(|own| own.eq_ignore_ascii_case(wanted)),
        None => name.eq_ignore_ascii_case(subject),
    }
}

/// An MCP tool's own name: what follows `mcp__<server>__`, `mcp_` or `MCP:`.
fn mcp_tool_name(tool: &str) -> Option<&str> {
    if let Some(rest) = strip_prefix_ignoring_case(tool, "mcp__") {
        return Some(rest.split_once("__").map_or(rest, |(_, own)| own));
    }
    strip_prefix_ignoring_case(tool, "mcp_").or_else(|| strip_prefix_ignoring_case(tool, "mcp:"))
}

fn strip_prefix_ignoring_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// What `event`'s matcher is tested against for `req`: the tool name on the
/// tool events; the command line on the shell events; the tool's type on the
/// file events (`Read` or `TabRead`, `Write` or `TabWrite`: a host's tool
/// named `TabRead` or `TabWrite` is a Tab operation); the subagent's type on
/// the subagent events; on the others, Cursor's fixed word
/// (`UserPromptSubmit`, `Stop`, `AgentResponse`, `AgentThought`), or nothing.
pub fn subject<'r>(event: CursorEvent, req: &'r HookRequest) -> Cow<'r, str> {
    subject_seen(event, req, req.tool_name())
}

/// [`subject`], with `tool` as the call's name: the name the hook's dialect
/// gives the host's tool, read in place (no copy of the request).
pub(crate) fn subject_seen<'r>(
    event: CursorEvent,
    req: &'r HookRequest,
    tool: Option<&'r str>,
) -> Cow<'r, str> {
    let args = req.arguments();
    let input = || match req.event() {
        crate::Event::ToolExecutionEnd => {
            args.get("tool_input").unwrap_or(&serde_json::Value::Null)
        }
        _ => args,
    };
    let text = |value: Option<&'r serde_json::Value>| {
        Cow::Borrowed(value.and_then(serde_json::Value::as_str).unwrap_or(""))
    };
    match event {
        CursorEvent::BeforeShellExecution | CursorEvent::AfterShellExecution => {
            text(input().get("command").or_else(|| input().get("cmd")))
        }
        CursorEvent::BeforeReadFile => Cow::Borrowed(tab_or(tool, "TabRead", "Read")),
        CursorEvent::AfterFileEdit => Cow::Borrowed(tab_or(tool, "TabWrite", "Write")),
        CursorEvent::SubagentStart | CursorEvent::SubagentStop => {
            text(args.get("subagent_type").or_else(|| args.get("agent_type")))
        }
        CursorEvent::BeforeSubmitPrompt => Cow::Borrowed("UserPromptSubmit"),
        CursorEvent::Stop => Cow::Borrowed("Stop"),
        CursorEvent::AfterAgentResponse => Cow::Borrowed("AgentResponse"),
        CursorEvent::AfterAgentThought => Cow::Borrowed("AgentThought"),
        CursorEvent::PreToolUse
        | CursorEvent::PostToolUse
        | CursorEvent::PostToolUseFailure
        | CursorEvent::BeforeMcpExecution
        | CursorEvent::AfterMcpExecution => Cow::Borrowed(tool.unwrap_or("")),
        _ => Cow::Borrowed(""),
    }
}

/// `tab` when `req`'s tool is named `tab` (ignoring case), else `agent`.
fn tab_or(tool: Option<&str>, tab: &'static str, agent: &'static str) -> &'static str {
    if tool.is_some_and(|t| t.eq_ignore_ascii_case(tab)) {
        tab
    } else {
        agent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(event: CursorEvent, matcher: &str) -> CursorMatcher {
        CursorMatcher::compile(event, matcher).unwrap()
    }

    #[test]
    fn names_are_exact_but_for_case() {
        let shell = m(CursorEvent::PreToolUse, "Shell|Read");
        assert!(shell.matches("shell"));
        assert!(shell.matches("READ"));
        assert!(!shell.matches("Shells"));
        assert!(!shell.matches("Write"));
    }

    #[test]
    fn mcp_names_select_by_the_tools_own_name() {
        let own = m(CursorEvent::PreToolUse, "MCP:create_issue");
        assert!(own.matches("mcp__github__create_issue"));
        assert!(own.matches("mcp_create_issue"));
        assert!(own.matches("MCP:CREATE_ISSUE"));
        assert!(!own.matches("mcp__github__close_issue"));
        let server = m(CursorEvent::PreToolUse, "MCP:github");
        assert!(!server.matches("mcp__github__create_issue"));
    }

    #[test]
    fn file_events_match_the_tools_type() {
        let read =
            HookRequest::tool_execution_start("read_file", serde_json::json!({"path": ".env"}));
        assert_eq!(subject(CursorEvent::BeforeReadFile, &read), "Read");
        let tab = HookRequest::tool_execution_start("TabRead", serde_json::json!({"path": ".env"}));
        assert_eq!(subject(CursorEvent::BeforeReadFile, &tab), "TabRead");
        let edit = HookRequest::tool_execution_end(
            "TabWrite",
            serde_json::json!({"file_path": "a.rs"}),
            "",
            false,
            std::time::Duration::ZERO,
        );
        assert_eq!(subject(CursorEvent::AfterFileEdit, &edit), "TabWrite");
        let only_tab = m(CursorEvent::BeforeReadFile, "TabRead");
        assert!(only_tab.matches(&subject(CursorEvent::BeforeReadFile, &tab)));
        assert!(!only_tab.matches(&subject(CursorEvent::BeforeReadFile, &read)));
    }

    #[test]
    fn text_events_always_take_a_regex() {
        let rm = m(CursorEvent::BeforeShellExecution, "curl|wget");
        assert!(rm.matches("x && wget y"));
        assert!(!rm.matches("CURL x"));
        // Names elsewhere, a regex where other characters appear.
        assert!(matches!(
            m(CursorEvent::PreToolUse, "curl|wget"),
            CursorMatcher::Names(_)
        ));
        assert!(matches!(
            m(CursorEvent::PreToolUse, "^Sh"),
            CursorMatcher::Regex(_)
        ));
        assert!(CursorMatcher::compile(CursorEvent::PreToolUse, "(").is_err());
        assert!(!CursorMatcher::Nothing.matches(""));
        // The file events take names: the tool's type.
        assert!(matches!(
            m(CursorEvent::BeforeReadFile, "TabRead|Read"),
            CursorMatcher::Names(_)
        ));
        assert!(m(CursorEvent::Stop, "*").matches("anything"));
    }
}
