//! Which handlers are copies of one another.

use std::time::Duration;

use super::Handler;
use crate::spec::HookKind;

/// For each handler of `handlers` (in load order), the handler it duplicates,
/// if any: the first earlier handler from a settings file that is identical
/// once expanded. That one runs; this one is to be recorded as skipped with
/// the reason `duplicate of <source>:<index>` ([`Handler::location`]).
///
/// Two handlers are identical when they are equal in everything that
/// changes what a run does: event (as written), matcher (an omitted, `""`
/// and `"*"` matcher are one), `if` rule, type, `command` and `args` after
/// substitution, `shell`, `url`, `headers`, `allowedEnvVars`, `prompt`,
/// `timeout`, `async`, `persistent`, `onFailure`, `continueOnBlock` and
/// `once`. Only `statusMessage` does not count. A copy that differs in any
/// of them is another hook, and both run. Handlers from settings files take
/// part, the same file included; a plugin's handler is never a duplicate nor
/// an original.
///
/// ```
/// use std::path::Path;
/// use tower_hooks::dialect::claude::config::{duplicates, parse, Context};
///
/// let text = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo once"}]}]}}"#;
/// let ctx = Context::new("/p");
/// let user = parse(text, Path::new("/h/.claude/settings.json"), &ctx)?;
/// let project = parse(text, Path::new("/p/.claude/settings.json"), &ctx)?;
/// let all: Vec<_> = user.handlers.iter().chain(&project.handlers).collect();
/// let originals = duplicates(all.iter().copied());
/// assert!(originals[0].is_none());
/// assert_eq!(originals[1].unwrap().location(), "/h/.claude/settings.json:0");
/// # Ok::<(), tower_hooks::ConfigError>(())
/// ```
pub fn duplicates<'a, I>(handlers: I) -> Vec<Option<&'a Handler>>
where
    I: IntoIterator<Item = &'a Handler>,
{
    let mut seen: Vec<(Key<'a>, &'a Handler)> = Vec::new();
    handlers
        .into_iter()
        .map(|handler| {
            let key = Key::of(handler)?;
            match seen.iter().find(|(k, _)| *k == key) {
                Some((_, original)) => Some(*original),
                None => {
                    seen.push((key, handler));
                    None
                }
            }
        })
        .collect()
}

/// What makes two handlers the same, for [`duplicates`]: every field that
/// changes what a run does. A copy that differs in any of them (a shorter
/// timeout, another matcher, no `onFailure`) is another hook, and both run:
/// a project's near-copy must never stand in for a managed guard.
#[derive(PartialEq, Eq)]
struct Key<'a> {
    kind: &'a str,
    event: &'a str,
    matcher: Option<&'a str>,
    if_rule: Option<&'a str>,
    command: Option<&'a str>,
    args: Option<&'a [String]>,
    shell: Option<&'a str>,
    url: Option<&'a str>,
    headers: &'a [(String, String)],
    allowed_env_vars: &'a [String],
    prompt: Option<&'a str>,
    model: Option<&'a str>,
    server: Option<&'a str>,
    tool: Option<&'a str>,
    input: Option<&'a serde_json::Value>,
    timeout: Duration,
    is_async: bool,
    async_rewake: bool,
    persistent: bool,
    fail_closed: bool,
    continue_on_block: bool,
    once: bool,
}

impl<'a> Key<'a> {
    fn of(handler: &'a Handler) -> Option<Self> {
        let runs_itself = matches!(
            handler.hook_kind(),
            HookKind::Command
                | HookKind::Http
                | HookKind::Prompt
                | HookKind::Agent
                | HookKind::McpTool
        );
        if handler.is_plugin() || !runs_itself {
            return None;
        }
        Some(Key {
            kind: &handler.kind,
            event: &handler.event,
            matcher: handler
                .matcher
                .as_deref()
                .filter(|m| !m.is_empty() && *m != "*"),
            if_rule: handler.if_rule.as_ref().map(|r| r.as_str().trim()),
            command: handler.command.as_deref(),
            args: handler.args.as_deref(),
            shell: handler.shell.as_deref(),
            url: handler.url.as_deref(),
            headers: &handler.headers,
            allowed_env_vars: &handler.allowed_env_vars,
            prompt: handler.prompt.as_deref(),
            model: handler.model.as_deref(),
            server: handler.server.as_deref(),
            tool: handler.tool.as_deref(),
            input: handler.input.as_ref(),
            timeout: handler.timeout,
            is_async: handler.is_async,
            async_rewake: handler.async_rewake,
            persistent: handler.persistent,
            fail_closed: handler.fail_closed,
            continue_on_block: handler.continue_on_block,
            once: handler.once,
        })
    }
}
