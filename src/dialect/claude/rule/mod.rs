//! Claude Code `if` rules: one permission rule, `Tool` or `Tool(pattern)`,
//! that a handler's tool call must match for the handler to run.
//!
//! The tool part is the tool name, compared exactly (case-sensitive); `*` in it
//! matches any run of characters (`mcp__github__*`), and a bare MCP server
//! name `mcp__github` matches every tool of that server. The pattern part is
//! tested against what the tool acts on:
//!
//! * **Shell tools** (`Bash`, `PowerShell`): the `command` of the tool input.
//!   `*` matches any run of characters; a trailing `:*` is the same as a
//!   trailing ` *`, and such a prefix rule also matches the bare command
//!   (`Bash(git commit:*)` matches `git commit`). The command is split into
//!   its simple commands at `&&`, `||`, `;`, `|`, `&` and new lines, and the
//!   commands inside `$(…)`, backquotes (nested ones too), `<(…)`, `>(…)`,
//!   `(…)`, `{ …; }` and the expansions of a here-document are taken out too;
//!   the text of a here-document is also read as commands when it parses
//!   (`bash <<EOF` runs it). Redirections are no words (`>/dev/null rm x` is
//!   `rm x`); leading `VAR=value` words and shell keywords (`if`, `then`,
//!   `do`, `!`, `{`, …) are dropped, and the wrappers that run the rest in
//!   the same shell (`command`, `exec`, `builtin`, `time`) are read through.
//!   The rule matches when any one of them matches. Words are read as the
//!   shell reads them: quotes and backslashes are removed (`\rm`, `'rm'`,
//!   `"rm"` and `r""m` are `rm`), and a program given by its path (`/bin/rm`)
//!   is also tested by its file name. A program that the shell finds only
//!   when the command runs (`$x`, `$(…)`, backquotes, an unquoted glob such
//!   as `r*` or a brace such as `{rm,x}`, a `$'…'` with escapes) matches, so
//!   the hook runs. When another word holds an expansion or a glob, what it
//!   runs is not known before it runs either: a rule naming more than the
//!   program then matches as soon as the program does.
//!
//!   A rule decides only what it can read: it matches, so the hook runs, on a
//!   command that cannot be split (an unclosed quote or `$(`, a here-document
//!   without its end line), a parameter expansion other than the plain forms
//!   (`${x:-$(…)}`, `${x:-{}`, `${!x}` and quotes inside all match), arithmetic
//!   on anything but numbers (`$((x))`, `((x))`, `$[x]`, `${x:i}`: bash
//!   evaluates `x`, and a value such as `a[$(rm …)]` runs), and programs that
//!   run code the command does not show (`eval`, `function`, `coproc`,
//!   `trap`, `alias`, `hash`, `let`, `declare`, `typeset`, `local`,
//!   `mapfile`, `readarray`, `[[`, `printf -v`, `test -v`, `read` into an
//!   array element, anything naming `PS4`). A guard errs on the side of
//!   running. Other programs stay programs: `env rm x`, `sudo rm x`,
//!   `nohup rm x`, `xargs rm` and `sh -c 'rm x'` are `env`, `sudo`, `nohup`,
//!   `xargs` and `sh` to a rule, so `Bash(rm *)` does not match them.
//! * **File tools** (a tool input with `file_path`, else `notebook_path`, else
//!   `path`): the path, with gitignore-like rules, as Claude Code's `Read` and
//!   `Edit` permission rules: `*` stays within one path component, `**`
//!   spans any number of them; a pattern without `/` (`*.rs`, `Cargo.toml`)
//!   is tested against the file name, at any depth; `//p` and `/p` are
//!   absolute, `~/p` is under `$HOME`; any other pattern with a `/`
//!   (`src/**`) is relative to the session's working directory when
//!   [`matches_in`](PermissionRule::matches_in) is given one, and otherwise
//!   may start at any directory (`src/**` then matches `/x/src/a.rs`, as
//!   `**/src/**` would). A trailing `/` means everything below.
//! * `WebFetch(domain:example.com)`: the host of the tool input's `url`
//!   (`*` works there, `domain:*.example.com`).
//! * A tool input with `subagent_type` (`Agent(Explore)`): that type.
//!
//! Anything else that a pattern cannot be tested against (an MCP tool with a
//! pattern, a shell tool without a `command` string) matches: the hook runs.
//!
//! Claude Code tests `if` on tool events only (`PreToolUse`, `PostToolUse`,
//! `PostToolUseFailure`, `PermissionRequest`, `PermissionDenied`); on any
//! other event a handler with `if` never runs ([`if_allows`]).
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower_hooks::dialect::claude::rule::PermissionRule;
//!
//! let rule = PermissionRule::parse("Bash(git commit:*)")?;
//! assert!(rule.matches("Bash", &json!({"command": "cd repo && git commit -m wip"})));
//! assert!(rule.matches("Bash", &json!({"command": "git commit"})));
//! assert!(!rule.matches("Bash", &json!({"command": "git status && git push"})));
//! assert!(!rule.matches("Edit", &json!({"file_path": "/p/git commit"})));
//!
//! let rust = PermissionRule::parse("Edit(*.rs)")?;
//! assert!(rust.matches("Edit", &json!({"file_path": "/p/src/lib.rs"})));
//! # Ok::<(), tower_hooks::dialect::claude::rule::RuleError>(())
//! ```

use std::fmt;

use serde_json::Value;

use super::glob::glob;
use super::http_url;
use super::ClaudeEvent;
use crate::request::HookRequest;

mod path;
mod shell;
mod split;

use path::path_matches;
use shell::shell_matches;

/// One permission rule, parsed: the `if` of a Claude Code handler.
///
/// See the [module docs](self) for what it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    rule: String,
    tool: String,
    pattern: Option<String>,
}

/// An `if` that is not one permission rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    rule: String,
    reason: &'static str,
}

impl RuleError {
    /// The rule as written.
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// What is wrong with it.
    pub fn reason(&self) -> &'static str {
        self.reason
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid permission rule \"{}\": {}",
            crate::pattern::display_pattern(&self.rule),
            self.reason
        )
    }
}

impl std::error::Error for RuleError {}

impl PermissionRule {
    /// Parses `Tool` or `Tool(pattern)`.
    ///
    /// The rule is one rule: `Bash(a) || Edit(b)` and lists are errors, as are an
    /// empty rule, an empty pattern `Bash()`, a tool name with spaces or
    /// parentheses, and text after the closing parenthesis.
    pub fn parse(rule: &str) -> Result<Self, RuleError> {
        let error = |reason| RuleError {
            rule: rule.to_owned(),
            reason,
        };
        let trimmed = rule.trim();
        if trimmed.is_empty() {
            return Err(error("the rule is empty; write Tool or Tool(pattern)"));
        }
        let (tool, pattern) = match trimmed.find('(') {
            None => (trimmed, None),
            Some(open) => {
                let Some(inner) = trimmed[open + 1..].strip_suffix(')') else {
                    return Err(error(
                        "a rule is Tool or Tool(pattern), with nothing after the closing parenthesis",
                    ));
                };
                if !closes_at_end(inner) {
                    return Err(error(
                        "one rule only: the parenthesis after the tool name closes before the end \
                         (an \"if\" takes a single Tool(pattern), not a list)",
                    ));
                }
                if inner.trim().is_empty() {
                    return Err(error(
                        "the pattern in parentheses is empty; write the tool name alone to match \
                         every use of the tool",
                    ));
                }
                (&trimmed[..open], Some(inner))
            }
        };
        if tool.is_empty() {
            return Err(error("the tool name before the parenthesis is missing"));
        }
        if tool
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '(' | ')' | '"' | '\''))
        {
            return Err(error(
                "the tool name holds a space, a quote or a parenthesis; a rule is Tool or \
                 Tool(pattern), one rule per \"if\"",
            ));
        }
        Ok(PermissionRule {
            rule: rule.to_owned(),
            tool: tool.to_owned(),
            pattern: pattern.filter(|p| p.trim() != "*").map(str::to_owned),
        })
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.rule
    }

    /// The tool name (or tool-name glob) before the parenthesis.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The pattern in parentheses; `None` for a bare tool name or `Tool(*)`.
    pub fn pattern(&self) -> Option<&str> {
        self.pattern.as_deref()
    }

    /// Whether a call of `tool_name` with `tool_input` matches the rule.
    /// Relative path patterns may start at any directory; see
    /// [`matches_in`](Self::matches_in).
    pub fn matches(&self, tool_name: &str, tool_input: &Value) -> bool {
        self.matches_in(tool_name, tool_input, None)
    }

    /// Whether a call of `tool_name` with `tool_input`, in the working
    /// directory `cwd`, matches the rule. With a `cwd`, a relative path pattern
    /// with a `/` (`src/**`) is anchored there.
    pub fn matches_in(&self, tool_name: &str, tool_input: &Value, cwd: Option<&str>) -> bool {
        if !tool_matches(&self.tool, tool_name) {
            return false;
        }
        let Some(pattern) = self.pattern.as_deref() else {
            return true;
        };
        if is_shell_tool(tool_name) {
            return match tool_input.get("command").and_then(Value::as_str) {
                Some(command) => shell_matches(pattern, command),
                None => true,
            };
        }
        if let Some(domain) = pattern.strip_prefix("domain:") {
            // A URL whose host cannot be read is one the rule cannot decide:
            // the hook runs.
            return match tool_input.get("url").and_then(Value::as_str) {
                Some(url) => http_url::host_of(url)
                    .is_none_or(|host| glob(&http_url::domain_pattern(domain), &host)),
                None => true,
            };
        }
        for key in ["file_path", "notebook_path", "path"] {
            if let Some(path) = tool_input.get(key).and_then(Value::as_str) {
                return path_matches(pattern, path, cwd);
            }
        }
        if let Some(kind) = tool_input.get("subagent_type").and_then(Value::as_str) {
            return glob(pattern, kind);
        }
        true
    }
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rule)
    }
}

/// Whether `inner`, the text after the tool name's `(` with the final `)`
/// removed, keeps that first parenthesis open to its end (so `a) || Edit(b`
/// is refused). Quotes are skipped, so `echo ")"` is one pattern.
fn closes_at_end(inner: &str) -> bool {
    let mut depth = 0usize;
    let mut quote = None;
    for c in inner.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    true
}

/// The Claude Code events on which `if` is tested. On every other event a
/// handler with `if` never runs.
pub const TOOL_EVENTS: [&str; 5] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// Whether `event` (a Claude Code event name) is a tool event, where `if` is
/// tested.
pub fn is_tool_event(event: &str) -> bool {
    ClaudeEvent::from_name(event).is_some_and(ClaudeEvent::is_tool_event)
}

/// Whether a handler with the `if` rule `rule` runs for `req` at the Claude
/// Code event `event`: always without a rule; never on an event that is not a
/// tool event; otherwise when the rule matches the call's tool name and tool
/// input (in the request's working directory).
///
/// The tool input is the request's arguments on `PreToolUse` and
/// `PermissionRequest`, and their `tool_input` on the other tool events.
///
/// ```
/// use serde_json::json;
/// use tower_hooks::dialect::claude::rule::{if_allows, PermissionRule};
/// use tower_hooks::HookRequest;
///
/// let rule = PermissionRule::parse("Bash(rm *)")?;
/// let call = HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf build"}));
/// assert!(if_allows(Some(&rule), "PreToolUse", &call));
/// assert!(!if_allows(Some(&rule), "Stop", &HookRequest::stop(false, "done")));
/// assert!(if_allows(None, "Stop", &HookRequest::stop(false, "done")));
/// # Ok::<(), tower_hooks::dialect::claude::rule::RuleError>(())
/// ```
pub fn if_allows(rule: Option<&PermissionRule>, event: &str, req: &HookRequest) -> bool {
    if_allows_seen(rule, event, req, req.tool_name())
}

/// [`if_allows`], with `tool` as the tool's name (the one Claude Code hooks
/// see, which may differ from the host's).
pub(crate) fn if_allows_seen(
    rule: Option<&PermissionRule>,
    event: &str,
    req: &HookRequest,
    tool: Option<&str>,
) -> bool {
    let Some(rule) = rule else {
        return true;
    };
    let Some(event) = ClaudeEvent::from_name(event).filter(|e| e.is_tool_event()) else {
        return false;
    };
    let arguments = req.arguments();
    let tool_name = tool
        .or_else(|| arguments.get("tool_name").and_then(Value::as_str))
        .unwrap_or("");
    let tool_input = match event {
        ClaudeEvent::PreToolUse | ClaudeEvent::PermissionRequest if req.tool_name().is_some() => {
            arguments
        }
        _ => arguments.get("tool_input").unwrap_or(&Value::Null),
    };
    rule.matches_in(tool_name, tool_input, req.cwd())
}

fn is_shell_tool(tool_name: &str) -> bool {
    matches!(tool_name, "Bash" | "PowerShell")
}

/// The rule's tool part against a tool name: `*` globs, and `mcp__server`
/// covers the server's tools.
fn tool_matches(rule_tool: &str, tool_name: &str) -> bool {
    if glob(rule_tool, tool_name) {
        return true;
    }
    // `mcp__server` (two parts) names every tool of that server.
    match rule_tool.strip_prefix("mcp__") {
        Some(server) if !server.is_empty() && !server.contains("__") => tool_name
            .strip_prefix(rule_tool)
            .is_some_and(|rest| rest.starts_with("__")),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
