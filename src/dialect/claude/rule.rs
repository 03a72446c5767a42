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
//!   commands inside `$(…)`, backquotes and `(…)` are taken out too; leading
//!   `VAR=value` words and shell keywords (`if`, `then`, `do`, `!`, `{`, …)
//!   are dropped, and the rule matches when any one of them matches. Words
//!   are read as the shell reads them: quotes and backslashes are removed
//!   (`\rm`, `'rm'`, `"rm"` and `r""m` are `rm`). A program that the shell
//!   finds only when the command runs (`$x`, `$(…)`, backquotes, an
//!   unquoted glob such as `r*`, a `$'…'` with escapes) matches, so the hook
//!   runs. When another word holds an expansion or a glob, what it runs is
//!   not known before it runs either: a rule naming more than the program
//!   then matches as soon as the program does. A command that cannot be split
//!   (an unclosed quote or `$(`) matches, so the hook runs: a guard errs on
//!   the side of running.
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

use super::http_url;
use crate::request::HookRequest;

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
    TOOL_EVENTS.contains(&event)
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
    let Some(rule) = rule else {
        return true;
    };
    if !is_tool_event(event) {
        return false;
    }
    let arguments = req.arguments();
    let tool_name = req
        .tool_name()
        .or_else(|| arguments.get("tool_name").and_then(Value::as_str))
        .unwrap_or("");
    let tool_input = match event {
        "PreToolUse" | "PermissionRequest" if req.tool_name().is_some() => arguments,
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

/// `*` matches any run of characters (none included); every other character
/// matches itself.
///
/// Linear in the lengths of both (a backtracking matcher is quadratic, and
/// both come from hooks files): the text must start with the part before the
/// first `*` and end with the part after the last, and each part between
/// is found, in order, after the one before it; taking each at its first
/// place leaves the most room for the rest.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let Some((first, after_first)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let (middle, last) = after_first.rsplit_once('*').unwrap_or(("", after_first));
    if text.len() < first.len() + last.len() || !text.starts_with(first) || !text.ends_with(last) {
        return false;
    }
    // Both ends matched whole text at char boundaries, and they do not overlap.
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in middle.split('*').filter(|part| !part.is_empty()) {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

// ---- shell commands --------------------------------------------------------

/// A shell `if` pattern against a command line.
fn shell_matches(pattern: &str, command: &str) -> bool {
    let pattern = words_of_pattern(pattern);
    let Ok(commands) = split_command(command) else {
        return true;
    };
    let first_word = pattern.split(' ').next().unwrap_or("");
    let names_more = pattern.contains(' ');
    commands.iter().any(|simple| {
        let Some(words) = simple.meaningful_words() else {
            return false;
        };
        // A program named by an expansion or a glob is not known until the
        // command runs.
        if words[0].dynamic || words[0].glob {
            return true;
        }
        let join = |part: fn(&Word) -> &str| words.iter().map(part).collect::<Vec<_>>().join(" ");
        // The words as the shell reads them, and as written (a pattern may
        // hold quotes too).
        for text in [join(|w| &w.value), join(|w| &w.text)] {
            if glob(&pattern, &text) {
                return true;
            }
            if let Some(prefix) = pattern.strip_suffix(" *") {
                if glob(prefix, &text) {
                    return true;
                }
            }
        }
        // What an expansion runs is not known until it runs: a rule that names
        // more than the program matches once the program does.
        names_more && words.iter().any(|w| w.dynamic || w.glob) && glob(first_word, &words[0].value)
    })
}

/// The pattern with a trailing `:*` read as ` *` and runs of whitespace as one
/// space.
fn words_of_pattern(pattern: &str) -> String {
    let mut normal = pattern.split_whitespace().collect::<Vec<_>>().join(" ");
    if normal.ends_with(":*") {
        normal.truncate(normal.len() - 2);
        normal.push_str(" *");
    }
    normal
}

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    /// As written, quotes kept.
    text: String,
    /// As the shell reads it: quotes and backslashes removed (`'rm'`, `\rm`,
    /// `r""m` are `rm`); an expansion stays as written.
    value: String,
    /// Holds an expansion outside single quotes: `$x`, `${x}`, `$(…)`,
    /// backquotes, or a `$'…'` / `$"…"` that shells read differently.
    dynamic: bool,
    /// Holds an unquoted glob character (`*`, `?`, `[`).
    glob: bool,
}

/// One simple command: its words, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Simple {
    words: Vec<Word>,
}

/// Shell words that start a command without being it.
const KEYWORDS: [&str; 16] = [
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time",
    "case", "esac", "in",
];

impl Simple {
    /// The words from the program on: leading `VAR=value` assignments and shell
    /// keywords dropped. `None` when nothing is left.
    fn meaningful_words(&self) -> Option<&[Word]> {
        let start = self
            .words
            .iter()
            .position(|w| !is_assignment(&w.text) && !KEYWORDS.contains(&w.text.as_str()))?;
        Some(&self.words[start..])
    }
}

/// `NAME=…` with a shell name before the `=`.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A command line that cannot be split: an unclosed quote, `$(`, `${` or
/// backquote, a `)` without its `(`, a trailing backslash, or nesting too deep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unsplittable;

/// How deep `$(…)`, `(…)` and backquotes may nest before the line counts as
/// unsplittable.
const MAX_DEPTH: usize = 32;

/// Splits a command line into its simple commands, the ones inside
/// substitutions and subshells included (after the command that holds them).
fn split_command(command: &str) -> Result<Vec<Simple>, Unsplittable> {
    let chars: Vec<char> = command.chars().collect();
    let mut splitter = Splitter {
        chars: &chars,
        i: 0,
        out: Vec::new(),
    };
    splitter.list(End::Eof, 0)?;
    Ok(splitter.out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    Paren,
    Backquote,
}

struct Splitter<'a> {
    chars: &'a [char],
    i: usize,
    out: Vec<Simple>,
}

/// The simple command being read, and its word.
#[derive(Default)]
struct Current {
    simple: Simple,
    word: String,
    value: String,
    dynamic: bool,
    glob: bool,
    in_word: bool,
}

impl Current {
    fn end_word(&mut self) {
        if self.in_word {
            self.simple.words.push(Word {
                text: std::mem::take(&mut self.word),
                value: std::mem::take(&mut self.value),
                dynamic: self.dynamic,
                glob: self.glob,
            });
        }
        self.in_word = false;
        self.dynamic = false;
        self.glob = false;
    }

    fn end_command(&mut self, out: &mut Vec<Simple>) {
        self.end_word();
        let simple = std::mem::take(&mut self.simple);
        if !simple.words.is_empty() {
            out.push(simple);
        }
    }

    /// Adds `c` to the word as written.
    fn push(&mut self, c: char) {
        self.word.push(c);
        self.in_word = true;
    }

    /// Adds `c` to the word as the shell reads it.
    fn lit(&mut self, c: char) {
        self.value.push(c);
    }

    /// Adds an unquoted `c`, written and read alike.
    fn unquoted(&mut self, c: char) {
        self.push(c);
        self.lit(c);
        self.glob |= matches!(c, '*' | '?' | '[');
    }
}

impl Splitter<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    /// Reads simple commands until `end`, pushing each to `out`.
    fn list(&mut self, end: End, depth: usize) -> Result<(), Unsplittable> {
        if depth > MAX_DEPTH {
            return Err(Unsplittable);
        }
        let mut cur = Current::default();
        // Commands found inside this command's substitutions, pushed after it.
        let mut inner: Vec<Simple> = Vec::new();
        loop {
            let Some(c) = self.peek(0) else {
                if end != End::Eof {
                    return Err(Unsplittable);
                }
                cur.end_command(&mut self.out);
                self.out.append(&mut inner);
                return Ok(());
            };
            self.i += 1;
            match c {
                ' ' | '\t' | '\r' => cur.end_word(),
                '\n' | ';' => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                }
                '#' if !cur.in_word => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\\' => match self.peek(0) {
                    None => return Err(Unsplittable),
                    Some('\n') => self.i += 1,
                    Some(next) => {
                        cur.push('\\');
                        cur.push(next);
                        cur.lit(next);
                        self.i += 1;
                    }
                },
                '\'' => {
                    cur.push('\'');
                    loop {
                        let Some(q) = self.peek(0) else {
                            return Err(Unsplittable);
                        };
                        self.i += 1;
                        cur.push(q);
                        if q == '\'' {
                            break;
                        }
                        cur.lit(q);
                    }
                }
                '"' => {
                    cur.push('"');
                    self.double_quoted(&mut cur, &mut inner, depth)?;
                }
                '`' if end == End::Backquote => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    return Ok(());
                }
                '`' => self.backquoted(&mut cur, &mut inner, depth)?,
                '$' => self.dollar(&mut cur, &mut inner, depth)?,
                '&' if cur.word.ends_with(['>', '<']) || self.peek(0) == Some('>') => {
                    cur.unquoted('&');
                }
                '&' | '|' => {
                    if self.peek(0) == Some(c) || (c == '|' && self.peek(0) == Some('&')) {
                        self.i += 1;
                    }
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                }
                '(' if !cur.in_word => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    self.list(End::Paren, depth + 1)?;
                }
                ')' if end == End::Paren => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    return Ok(());
                }
                ')' => return Err(Unsplittable),
                c => cur.unquoted(c),
            }
        }
    }

    /// After an opening `"`: up to and including the closing one.
    fn double_quoted(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unsplittable> {
        loop {
            let Some(c) = self.peek(0) else {
                return Err(Unsplittable);
            };
            self.i += 1;
            match c {
                '"' => {
                    cur.push('"');
                    return Ok(());
                }
                '\\' => {
                    let Some(next) = self.peek(0) else {
                        return Err(Unsplittable);
                    };
                    self.i += 1;
                    cur.push('\\');
                    cur.push(next);
                    // Only these lose their backslash in double quotes.
                    match next {
                        '\n' => {}
                        '$' | '`' | '"' | '\\' => cur.lit(next),
                        _ => {
                            cur.lit('\\');
                            cur.lit(next);
                        }
                    }
                }
                '`' => self.backquoted(cur, inner, depth)?,
                // `$'` and `$"` are a plain `$` in double quotes.
                '$' if matches!(self.peek(0), Some('\'' | '"')) => {
                    cur.push('$');
                    cur.lit('$');
                }
                '$' => self.dollar(cur, inner, depth)?,
                c => {
                    cur.push(c);
                    cur.lit(c);
                }
            }
        }
    }

    /// After a `` ` ``: the command inside, up to the closing one.
    fn backquoted(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unsplittable> {
        let start = self.i;
        let mut nested = Splitter {
            chars: self.chars,
            i: self.i,
            out: Vec::new(),
        };
        nested.list(End::Backquote, depth + 1)?;
        self.i = nested.i;
        inner.append(&mut nested.out);
        cur.push('`');
        cur.word.extend(&self.chars[start..self.i]);
        cur.dynamic = true;
        Ok(())
    }

    /// After a `$`: a substitution, an expansion, `$'…'`, or a plain `$`.
    fn dollar(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unsplittable> {
        let start = self.i - 1;
        // Whether this is an expansion (its value is known only when it runs).
        let expansion = match self.peek(0) {
            Some('(') => {
                self.i += 1;
                let mut nested = Splitter {
                    chars: self.chars,
                    i: self.i,
                    out: Vec::new(),
                };
                nested.list(End::Paren, depth + 1)?;
                self.i = nested.i;
                inner.append(&mut nested.out);
                true
            }
            Some('{') => {
                let mut level = 0usize;
                loop {
                    let Some(c) = self.peek(0) else {
                        return Err(Unsplittable);
                    };
                    self.i += 1;
                    match c {
                        '{' => level += 1,
                        '}' => {
                            level -= 1;
                            if level == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                true
            }
            Some('\'') => {
                self.i += 1;
                let mut text = String::new();
                let mut escapes = false;
                loop {
                    let Some(c) = self.peek(0) else {
                        return Err(Unsplittable);
                    };
                    self.i += 1;
                    match c {
                        '\\' if self.peek(0).is_some() => {
                            self.i += 1;
                            escapes = true;
                        }
                        '\'' => break,
                        c => text.push(c),
                    }
                }
                // An escape stands for what bash says (and dash reads
                // `$'…'` otherwise): undecidable here.
                cur.value.push_str(&text);
                escapes
            }
            // bash translates `$"…"`; dash reads `$` and `"…"`.
            Some('"') => true,
            Some(c) if c.is_ascii_alphanumeric() || "_?@#$!*-".contains(c) => {
                self.i += 1;
                if c.is_ascii_alphabetic() || c == '_' {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        self.i += 1;
                    }
                }
                true
            }
            _ => {
                cur.lit('$');
                false
            }
        };
        let written = &self.chars[start..self.i];
        cur.word.extend(written);
        if expansion && self.chars.get(start + 1) != Some(&'\'') {
            cur.value.extend(written);
        }
        cur.dynamic |= expansion;
        cur.in_word = true;
        Ok(())
    }
}

// ---- paths and hosts -------------------------------------------------------

/// A file `if` pattern against a path (see the module docs).
fn path_matches(pattern: &str, path: &str, cwd: Option<&str>) -> bool {
    let mut pattern = pattern.trim().to_owned();
    if pattern.ends_with('/') {
        pattern.push_str("**");
    }
    let pattern = pattern.strip_prefix("./").unwrap_or(&pattern).to_owned();
    let (anchored, rest): (Option<String>, &str) = if let Some(abs) = pattern.strip_prefix("//") {
        (Some(String::new()), abs)
    } else if let Some(abs) = pattern.strip_prefix('/') {
        (Some(String::new()), abs)
    } else if let Some(home) = pattern.strip_prefix("~/") {
        match std::env::var("HOME") {
            Ok(dir) => (Some(dir.trim_end_matches('/').to_owned()), home),
            Err(_) => return false,
        }
    } else if !pattern.contains('/') {
        // A file name at any depth.
        let name = path.rsplit('/').next().unwrap_or(path);
        return glob_component(&pattern, name);
    } else {
        match cwd {
            Some(dir) => (Some(dir.trim_end_matches('/').to_owned()), pattern.as_str()),
            None => (None, pattern.as_str()),
        }
    };
    let rest: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let path_parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match anchored {
        Some(base) => {
            let base: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
            if path_parts.len() < base.len() || path_parts[..base.len()] != base[..] {
                return false;
            }
            components_match(&rest, &path_parts[base.len()..])
        }
        None => (0..=path_parts.len()).any(|start| components_match(&rest, &path_parts[start..])),
    }
}

/// Path components against pattern components, `**` spanning any number.
fn components_match(pattern: &[&str], path: &[&str]) -> bool {
    // Reachable positions in `path` after each pattern component (a small
    // table, no backtracking blow-up on many `**`).
    let mut reach = vec![false; path.len() + 1];
    reach[0] = true;
    for part in pattern {
        let mut next = vec![false; path.len() + 1];
        if *part == "**" {
            let mut on = false;
            for j in 0..=path.len() {
                on |= reach[j];
                next[j] = on;
            }
        } else {
            for j in 0..path.len() {
                if reach[j] && glob_component(part, path[j]) {
                    next[j + 1] = true;
                }
            }
        }
        reach = next;
    }
    reach[path.len()]
}

/// One path component against a pattern component: `*` within it.
fn glob_component(pattern: &str, name: &str) -> bool {
    glob(pattern, name)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn rule(text: &str) -> PermissionRule {
        PermissionRule::parse(text).unwrap()
    }

    fn bash(rule_text: &str, command: &str) -> bool {
        rule(rule_text).matches("Bash", &json!({ "command": command }))
    }

    #[test]
    fn a_rule_is_a_tool_and_an_optional_pattern() {
        let r = rule("Bash(git commit:*)");
        assert_eq!(r.tool(), "Bash");
        assert_eq!(r.pattern(), Some("git commit:*"));
        assert_eq!(r.as_str(), "Bash(git commit:*)");
        assert_eq!(rule("Edit").pattern(), None);
        assert_eq!(rule("Edit(*)").pattern(), None);
        assert_eq!(rule("Bash(echo $(date))").pattern(), Some("echo $(date)"));
        assert_eq!(rule("Bash(echo \")\")").pattern(), Some("echo \")\""));
    }

    #[test]
    fn malformed_rules_are_errors() {
        for text in [
            "",
            "  ",
            "Bash(",
            "Bash(git",
            "Bash()",
            "Bash(a) || Edit(b)",
            "Bash(a), Edit(b)",
            "(git *)",
            "Bash (git *)",
            "Bash(x) trailing",
            "Bash git",
        ] {
            let err = PermissionRule::parse(text).unwrap_err();
            assert_eq!(err.rule(), text);
            assert!(
                err.to_string().starts_with("invalid permission rule"),
                "{err}"
            );
        }
    }

    #[test]
    fn the_tool_name_must_match_exactly() {
        assert!(!rule("Bash").matches("bash", &json!({"command": "ls"})));
        assert!(rule("Bash").matches("Bash", &json!({"command": "ls"})));
        assert!(!rule("Bash(ls)").matches("Edit", &json!({"command": "ls"})));
        assert!(rule("mcp__github__*").matches("mcp__github__create_issue", &json!({})));
        assert!(rule("mcp__github").matches("mcp__github__create_issue", &json!({})));
        assert!(!rule("mcp__github").matches("mcp__githubx__create_issue", &json!({})));
        assert!(!rule("mcp__git").matches("mcp__github__create_issue", &json!({})));
    }

    #[test]
    fn star_matches_any_run_of_characters() {
        assert!(bash("Bash(git * main)", "git push origin main"));
        assert!(bash("Bash(* --version)", "cargo --version"));
        assert!(!bash("Bash(* --version)", "cargo --help"));
        assert!(bash("Bash(rm *)", "rm -rf build"));
        assert!(!bash("Bash(rm *)", "rmdir build"));
        assert!(bash("Bash(npm test)", "npm test"));
        assert!(!bash("Bash(npm test)", "npm test --watch"));
    }

    #[test]
    fn a_trailing_colon_star_is_a_trailing_space_star() {
        for text in ["Bash(git commit:*)", "Bash(git commit *)"] {
            assert!(bash(text, "git commit -m wip"), "{text}");
            assert!(!bash(text, "git commit-tree x"), "{text}");
            assert!(!bash(text, "git status"), "{text}");
        }
        // Only at the end: elsewhere the colon is literal.
        assert!(!bash("Bash(git:* push)", "git push"));
        assert!(bash("Bash(git:* push)", "git:x push"));
    }

    #[test]
    fn a_prefix_rule_also_matches_the_bare_command() {
        assert!(bash("Bash(git commit:*)", "git commit"));
        assert!(bash("Bash(git commit *)", "git commit"));
        assert!(bash("Bash(ls:*)", "ls"));
        assert!(!bash("Bash(git commit:*)", "git"));
    }

    #[test]
    fn each_subcommand_is_tested() {
        let r = "Bash(git commit:*)";
        assert!(bash(r, "cd repo && git commit -m wip"));
        assert!(bash(r, "make || git commit -am fix"));
        assert!(bash(r, "make; git commit"));
        assert!(bash(r, "echo x | git commit -F -"));
        assert!(bash(r, "make & git commit"));
        assert!(bash(r, "make\ngit commit"));
        assert!(!bash(r, "git status && git push"));
        assert!(!bash(r, "echo 'git commit'"));
        assert!(!bash(r, "echo \"a && git commit\""));
    }

    #[test]
    fn redirections_do_not_split_a_command() {
        assert!(bash("Bash(make *)", "make test 2>&1"));
        assert!(bash("Bash(make *)", "make test &> log"));
        assert!(!bash("Bash(log)", "make test &> log"));
    }

    #[test]
    fn leading_assignments_and_keywords_are_ignored() {
        assert!(bash(
            "Bash(git commit:*)",
            "GIT_AUTHOR_NAME=x git commit -m y"
        ));
        assert!(bash("Bash(git commit:*)", "A=1 B=\"two words\" git commit"));
        assert!(bash("Bash(npm test)", "CI=1 npm test"));
        assert!(bash(
            "Bash(git commit:*)",
            "if true; then git commit -m x; fi"
        ));
        assert!(bash("Bash(rm *)", "! rm -rf x"));
        // An assignment alone runs nothing.
        assert!(!bash("Bash(FOO*)", "FOO=bar"));
    }

    #[test]
    fn substitutions_and_subshells_are_tested_too() {
        assert!(bash("Bash(rm *)", "echo $(rm -rf /)"));
        assert!(bash("Bash(rm *)", "echo `rm -rf /`"));
        assert!(bash("Bash(rm *)", "echo \"$(rm -rf /)\""));
        assert!(bash("Bash(git commit:*)", "(cd repo && git commit)"));
        assert!(bash("Bash(git commit:*)", "{ git commit; }"));
        assert!(!bash("Bash(rm *)", "echo '$(rm -rf /)'"));
    }

    #[test]
    fn an_expansion_matches_once_the_program_does() {
        assert!(bash("Bash(git push *)", "git $SUBCOMMAND origin"));
        assert!(bash("Bash(git push *)", "git \"$(echo push)\" origin"));
        assert!(bash("Bash(git push *)", "$GIT push"));
        assert!(!bash("Bash(git push *)", "echo $HOME"));
        // A rule naming only the program is decided by the text.
        assert!(!bash("Bash(git)", "git $X"));
    }

    #[test]
    fn the_command_word_is_read_as_the_shell_reads_it() {
        for command in [
            "\\rm -rf /",
            "'rm' -rf /",
            "\"rm\" -rf /",
            "r\"\"m -rf /",
            "r''m -rf /",
            "\"r\"'m' -rf /",
            "r\\m -rf /",
            "$'rm' -rf /",
            "FOO=1 'rm' -rf /",
            "ls && \\rm -rf /",
            "echo $(\"rm\" -rf /)",
        ] {
            assert!(bash("Bash(rm *)", command), "{command}");
            assert!(bash("Bash(rm -rf *)", command), "{command}");
        }
        // The arguments too.
        assert!(bash("Bash(rm -rf /)", "rm '-rf' \"/\""));
        assert!(bash("Bash(git push:*)", "git \"push\" origin"));
        // Other programs are still other programs.
        assert!(!bash("Bash(rm *)", "'ls' -l"));
        assert!(!bash("Bash(rm *)", "\"rmdir\" x"));
    }

    #[test]
    fn an_undecidable_command_word_runs_the_hook() {
        for command in [
            "$x -rf /",
            "${x} -rf /",
            "$(echo rm) -rf /",
            "`echo rm` -rf /",
            "\"$x\" -rf /",
            "r* -rf /",
            "r? -rf /",
            "[r]m -rf /",
            "$'\\x72m' -rf /",
            "$\"rm\" -rf /",
        ] {
            assert!(bash("Bash(rm *)", command), "{command}");
        }
        // Quoted glob characters are text.
        assert!(!bash("Bash(rm *)", "'r*' x"));
        assert!(!bash("Bash(rm *)", "\"r?\" x"));
    }

    #[test]
    fn an_unsplittable_command_runs_the_hook() {
        for command in [
            "echo 'unclosed",
            "echo \"unclosed",
            "echo $(unclosed",
            "echo `unclosed",
            "echo ${unclosed",
            "echo )",
            "trailing \\",
        ] {
            assert!(bash("Bash(git commit:*)", command), "{command}");
        }
        let deep = format!("{}x{}", "$(".repeat(100), ")".repeat(100));
        assert!(bash("Bash(git commit:*)", &deep));
        // No command string: nothing to test, so the hook runs.
        assert!(rule("Bash(rm *)").matches("Bash", &json!({})));
    }

    #[test]
    fn comments_are_not_commands() {
        assert!(!bash("Bash(rm *)", "ls # rm -rf /"));
        assert!(bash("Bash(rm *)", "ls # note\nrm -rf x"));
        assert!(!bash("Bash(rm *)", "echo a#rm"));
    }

    #[test]
    fn whitespace_is_normalised() {
        assert!(bash("Bash(git  commit *)", "  git   commit   -m x  "));
        assert!(bash("Bash(git commit *)", "git\tcommit"));
    }

    #[test]
    fn power_shell_commands_are_shell_commands() {
        let r = rule("PowerShell(Remove-Item *)");
        assert!(r.matches(
            "PowerShell",
            &json!({"command": "cd x; Remove-Item -Recurse y"})
        ));
    }

    fn edit(rule_text: &str, path: &str) -> bool {
        rule(rule_text).matches("Edit", &json!({ "file_path": path }))
    }

    #[test]
    fn a_file_name_pattern_matches_at_any_depth() {
        assert!(edit("Edit(*.rs)", "/p/src/lib.rs"));
        assert!(edit("Edit(*.rs)", "/lib.rs"));
        assert!(!edit("Edit(*.rs)", "/p/src/lib.rsx"));
        assert!(!edit("Edit(*.rs)", "/p/src.rs/lib.toml"));
        assert!(edit("Edit(Cargo.toml)", "/p/Cargo.toml"));
        assert!(!edit("Edit(Cargo.toml)", "/p/Cargo.toml.bak"));
    }

    #[test]
    fn a_relative_path_pattern_is_anchored_at_the_cwd_when_known() {
        let r = rule("Edit(src/**)");
        let input = json!({"file_path": "/p/src/a/b.rs"});
        assert!(r.matches_in("Edit", &input, Some("/p")));
        assert!(r.matches_in("Edit", &input, Some("/p/")));
        assert!(!r.matches_in("Edit", &json!({"file_path": "/p/lib/src/a.rs"}), Some("/p")));
        assert!(!r.matches_in("Edit", &input, Some("/q")));
        // Without a cwd it may start anywhere.
        assert!(r.matches("Edit", &json!({"file_path": "/p/lib/src/a.rs"})));
        assert!(!r.matches("Edit", &json!({"file_path": "/p/lib/a.rs"})));
        assert!(rule("Edit(**/src/**)").matches_in(
            "Edit",
            &json!({"file_path": "/p/lib/src/a.rs"}),
            Some("/p")
        ));
    }

    #[test]
    fn star_stays_in_one_component_and_double_star_spans() {
        assert!(edit("Edit(/etc/*)", "/etc/hosts"));
        assert!(!edit("Edit(/etc/*)", "/etc/ssh/sshd_config"));
        assert!(edit("Edit(/etc/**)", "/etc/ssh/sshd_config"));
        assert!(edit("Edit(//etc/**)", "/etc/ssh/sshd_config"));
        assert!(edit("Edit(/etc/)", "/etc/ssh/sshd_config"));
        assert!(edit("Edit(/etc/**/*.conf)", "/etc/a/b/x.conf"));
        assert!(edit("Edit(/etc/**/*.conf)", "/etc/x.conf"));
        assert!(!edit("Edit(/etc/**/*.conf)", "/usr/etc/x.conf"));
        let many = format!("/{}x", "**/".repeat(50));
        assert!(!edit(&format!("Edit({many})"), &"/a".repeat(60)));
    }

    #[test]
    fn other_path_fields_are_used_when_file_path_is_missing() {
        let r = rule("NotebookEdit(*.ipynb)");
        assert!(r.matches("NotebookEdit", &json!({"notebook_path": "/p/a.ipynb"})));
        assert!(rule("Grep(src/**)").matches("Grep", &json!({"pattern": "x", "path": "/p/src/a"})));
    }

    #[test]
    fn web_fetch_domains_match_the_host() {
        let r = rule("WebFetch(domain:*.example.com)");
        assert!(r.matches("WebFetch", &json!({"url": "https://docs.example.com/x?y"})));
        assert!(!r.matches("WebFetch", &json!({"url": "https://example.org/x"})));
        assert!(rule("WebFetch(domain:example.com)")
            .matches("WebFetch", &json!({"url": "http://user@EXAMPLE.com:8080/"})));
    }

    /// The host is the one the URL is fetched from: a backslash ends the
    /// authority (`https://evil.test\@example.com/` goes to `evil.test`), and a
    /// URL whose host cannot be read runs the hook.
    #[test]
    fn web_fetch_domains_are_the_host_the_url_goes_to() {
        let guard = rule("WebFetch(domain:evil.test)");
        for url in [
            "https://evil.test\\@example.com/",
            "https://EVIL.test#@example.com/",
            "https://evil.test?@example.com/",
            "https://user:pw@evil.test:8443/x",
        ] {
            assert!(guard.matches("WebFetch", &json!({ "url": url })), "{url}");
        }
        assert!(!guard.matches("WebFetch", &json!({"url": "https://example.com/evil.test"})));
        assert!(guard.matches("WebFetch", &json!({"url": "no url at all"})));
        assert!(rule("WebFetch(domain:*.bücher.de)")
            .matches("WebFetch", &json!({"url": "https://www.xn--bcher-kva.de/"})));
    }

    #[test]
    fn a_subagent_type_is_matched() {
        let r = rule("Agent(Explore)");
        assert!(r.matches("Agent", &json!({"subagent_type": "Explore", "prompt": "x"})));
        assert!(!r.matches("Agent", &json!({"subagent_type": "Plan", "prompt": "x"})));
    }

    #[test]
    fn a_pattern_with_nothing_to_test_runs_the_hook() {
        assert!(rule("mcp__x__y(anything)").matches("mcp__x__y", &json!({"a": 1})));
    }

    #[test]
    fn if_never_runs_on_other_events() {
        let r = rule("Bash");
        let stop = HookRequest::stop(false, "done");
        assert!(!if_allows(Some(&r), "Stop", &stop));
        assert!(!if_allows(
            Some(&r),
            "UserPromptSubmit",
            &HookRequest::input("x")
        ));
        assert!(if_allows(
            None,
            "UserPromptSubmit",
            &HookRequest::input("x")
        ));
        for event in TOOL_EVENTS {
            assert!(is_tool_event(event));
        }
        assert!(!is_tool_event("Stop"));
    }

    #[test]
    fn if_reads_the_tool_input_of_each_tool_event() {
        let r = rule("Bash(rm *)");
        let start = HookRequest::tool_execution_start("Bash", json!({"command": "rm x"}));
        assert!(if_allows(Some(&r), "PreToolUse", &start));
        let end = HookRequest::tool_execution_end(
            "Bash",
            json!({"command": "rm x"}),
            "",
            false,
            Duration::ZERO,
        );
        assert!(if_allows(Some(&r), "PostToolUse", &end));
        let other = HookRequest::tool_execution_end(
            "Bash",
            json!({"command": "ls"}),
            "",
            true,
            Duration::ZERO,
        );
        assert!(!if_allows(Some(&r), "PostToolUseFailure", &other));
        let permission = HookRequest::permission_request("Bash", json!({"command": "rm x"}));
        assert!(if_allows(Some(&r), "PermissionRequest", &permission));
        let raw = HookRequest::new(
            crate::Event::PermissionRequest,
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        );
        assert!(!if_allows(Some(&r), "PermissionDenied", &raw));
        let edit = HookRequest::tool_execution_start("Edit", json!({"file_path": "/p/src/a.rs"}))
            .with_cwd("/p");
        assert!(if_allows(
            Some(&rule("Edit(src/*.rs)")),
            "PreToolUse",
            &edit
        ));
        assert!(!if_allows(
            Some(&rule("Edit(lib/*.rs)")),
            "PreToolUse",
            &edit
        ));
    }

    #[test]
    fn glob_handles_stars_anywhere() {
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXbYY"));
        assert!(glob("**a", "a"));
        assert!(glob("é*", "été"));
        assert!(!glob("", "x"));
        assert!(glob("a*a", "a*a"));
        assert!(!glob("ab*ba", "aba"), "the two ends may not overlap");
        assert!(glob("*ab*ab*", "xabyab"));
        assert!(!glob("*ab*ab*", "xaby"));
        assert!(glob("x**y", "xy"));
    }

    /// Both sides come from hooks files: matching is linear, so a pattern
    /// and a text built to make a backtracking matcher take minutes answer at
    /// once (the bound only catches a hang).
    #[test]
    fn glob_is_linear_on_hostile_input() {
        let pattern = format!("http://h/*{}b*", "a".repeat(100_000));
        let text = format!("http://h/{}", "a".repeat(200_000));
        let started = std::time::Instant::now();
        assert!(!glob(&pattern, &text));
        assert!(glob(&pattern, &format!("{text}b")));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// `word` spelled as a shell would read back: each character bare,
    /// backslashed, single- or double-quoted, with empty quotes anywhere.
    fn spelled(word: &'static str) -> impl Strategy<Value = String> {
        let spellings: Vec<_> = word
            .chars()
            .map(|c| {
                prop::sample::select(vec![
                    format!("{c}"),
                    format!("{c}"),
                    format!("\\{c}"),
                    format!("'{c}'"),
                    format!("\"{c}\""),
                    format!("{c}''"),
                    format!("\"\"{c}"),
                ])
            })
            .collect();
        spellings.prop_map(|parts| parts.concat())
    }

    /// One simple command, spelled, and its words as the shell reads them.
    fn simple_command() -> impl Strategy<Value = (String, Vec<String>)> {
        let word = prop::sample::select(vec!["rm", "ls", "git", "push", "-rf", "/", "x", "rmdir"]);
        (
            prop::option::of(Just("FOO=1 ")),
            prop::collection::vec(word, 1..4),
        )
            .prop_flat_map(|(assignment, words)| {
                let spellings: Vec<_> = words.iter().map(|w| spelled(w)).collect();
                (Just(assignment), Just(words), spellings)
            })
            .prop_map(|(assignment, words, spellings)| {
                let text = format!("{}{}", assignment.unwrap_or(""), spellings.join(" "));
                (text, words.into_iter().map(str::to_owned).collect())
            })
    }

    proptest! {
        /// The linear matcher answers what a regex of the same glob answers.
        #[test]
        fn glob_agrees_with_a_regex(pattern in "[ab*]{0,8}", text in "[ab]{0,10}") {
            let regex = format!(
                "^{}$",
                pattern.split('*').map(regex::escape).collect::<Vec<_>>().join(".*")
            );
            let expected = regex::Regex::new(&regex).unwrap().is_match(&text);
            prop_assert_eq!(glob(&pattern, &text), expected, "{} / {}", pattern, text);
        }
    }

    proptest! {
        #[test]
        fn rules_and_commands_never_panic(text in any::<String>(), command in any::<String>()) {
            if let Ok(r) = PermissionRule::parse(&text) {
                let _ = r.matches("Bash", &json!({ "command": command }));
                let _ = r.matches_in("Edit", &json!({ "file_path": command }), Some("/p"));
                let _ = r.matches("WebFetch", &json!({ "url": command }));
            }
            let _ = shell_matches(&text, &command);
        }

        /// Commands from a small shell grammar: each word spelled with
        /// random quotes and backslashes, leading assignments, several
        /// commands joined by `&&`, `||`, `;`, `|`. A rule matches exactly
        /// when one command's words, read as the shell reads them, match it.
        #[test]
        fn a_rule_reads_quoted_words_as_the_shell_does(
            commands in prop::collection::vec(simple_command(), 1..4),
            separators in prop::collection::vec(prop::sample::select(vec![" && ", " || ", "; ", " | ", "\n"]), 3),
            rule_text in prop::sample::select(vec!["Bash(rm *)", "Bash(rm -rf *)", "Bash(git push:*)", "Bash(ls)"]),
        ) {
            let mut command = String::new();
            for (i, (spelled, _)) in commands.iter().enumerate() {
                if i > 0 {
                    command.push_str(separators[i - 1]);
                }
                command.push_str(spelled);
            }
            let pattern = words_of_pattern(rule(rule_text).pattern().unwrap());
            let expected = commands.iter().any(|(_, words)| {
                let text = words.join(" ");
                glob(&pattern, &text)
                    || pattern.strip_suffix(" *").is_some_and(|prefix| glob(prefix, &text))
            });
            prop_assert_eq!(bash(rule_text, &command), expected, "{}", command);
        }

        /// A program named by an expansion or a glob always runs the hook.
        #[test]
        fn an_expanded_program_always_runs_the_hook(
            program in prop::sample::select(vec!["$x", "${x}", "$(x)", "`x`", "r*", "?m", "[r]m", "\"$x\""]),
            (args, _) in simple_command(),
        ) {
            let command = format!("{} {}", program, args);
            prop_assert!(bash("Bash(rm *)", &command), "{}", command);
        }
        #[test]
        fn shell_like_commands_never_panic(command in "[a-z $()`'\"|&;<>#{}=\\\\\n]{0,60}") {
            let _ = shell_matches("git commit *", &command);
        }
    }
}
