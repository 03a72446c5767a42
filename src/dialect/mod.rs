//! Dialects: the config files, event names, stdin envelope, answer format and
//! combination rule of each hook ecosystem.
//!
//! Each dialect is data plus pure functions: its names for the neutral events
//! ([`Event`](crate::Event)), its loader (file → [`HookSpec`]s),
//! its encoder (request → stdin bytes and environment) and its decoder (exit
//! code, stdout and stderr → [`Verdict`]). The layers stay
//! dialect-blind.

pub mod agents;
pub mod claude;
pub mod codex;
pub mod cursor;
pub mod droid;
mod envelope;
mod failure;
pub mod gemini;
mod named;
pub mod nanopi;

#[doc(hidden)] // the failure texts, for the dialects' wires and their tests; not API
pub use self::failure::Failure;
pub(crate) use self::failure::{review, AnswerForm};
pub use self::named::{EventNames, FireError, NamedEvent};
pub use crate::outcome::model_answer::ModelAnswer;
// What the core asks of a dialect, for the dialects' folders.
pub(crate) use crate::spec::rules::{
    assemble, env_value, session_var_allowed, DialectHook, Encoded, Ended, JobParts,
};

use std::sync::Arc;

use crate::outcome::{Notes, Verdict};
use crate::profile::ToolNames;
use crate::request::{HookRequest, SeenName, ToolKind};
use crate::spec::HookSpec;

/// The rules of `spec`'s dialect: those its loader gave it, or nanopi's
/// for a spec made by hand.
#[inline]
pub(crate) fn rules(spec: &HookSpec) -> &dyn DialectHook {
    match &spec.hook {
        Some(hook) => &**hook,
        None => &nanopi::NanopiHook,
    }
}

/// The dialect of `req`'s hook (nanopi's for a request without one).
pub(crate) fn of(req: &HookRequest) -> &dyn DialectHook {
    match req.hook() {
        Some(spec) => rules(spec),
        None => &nanopi::NanopiHook,
    }
}

/// `spec`'s dialect data if it is a `T`: for a dialect's own code only.
pub(crate) fn extra<T: DialectHook>(spec: &HookSpec) -> Option<&T> {
    rules(spec).as_any().downcast_ref()
}

/// Whether `spec`'s hook runs for `req`, by its dialect's rule.
#[inline]
pub(crate) fn runs_for(spec: &HookSpec, req: &HookRequest) -> bool {
    // A spec made by hand follows nanopi's rule, called directly: the skip
    // path of the crate's own hooks pays no virtual call.
    match &spec.hook {
        Some(hook) => hook.runs_for(spec, req),
        None => nanopi::NanopiHook.runs_for(spec, req),
    }
}

/// Whether `spec`'s hook is part of a call of `req` at all, matcher aside.
#[inline]
pub(crate) fn applies(spec: &HookSpec, req: &HookRequest) -> bool {
    spec.hook.as_ref().is_none_or(|hook| hook.applies(req))
}

/// The tool's name as the hooks of `hook`'s dialect see it, on an event with
/// a tool: the host's alias for that dialect
/// ([`HookRequest::with_tool_alias`]), else the dialect's own name for the
/// tool's kind (its profile's [table](Dialect::tool_names)), else the host's name. A
/// name the dialect makes ([`DialectHook::made_tool_name`]) is not borrowed
/// from the request, so this leaves it out: such a dialect asks
/// [`tool_name_seen`].
pub(crate) fn tool_name<'r>(hook: &dyn DialectHook, req: &'r HookRequest) -> Option<&'r str> {
    let host = req.tool_name_shared()?;
    Some(match tool_name_seen_static(hook, req, host) {
        SeenName::Static(name) => name,
        SeenName::Shared(name) => &**name,
        SeenName::Made(_) => host,
    })
}

/// [`tool_name`], as a [`SeenName`].
pub(crate) fn tool_name_seen<'r>(
    hook: &dyn DialectHook,
    req: &'r HookRequest,
) -> Option<SeenName<'r>> {
    let host = req.tool_name_shared()?;
    if let Some(alias) = req.tool_alias_shared(hook.dialect()) {
        return Some(SeenName::Shared(alias));
    }
    let Some(names) = hook.dialect().tool_names() else {
        return Some(SeenName::Shared(host));
    };
    // The kind is inferred from the name once for both questions.
    let Some(kind) = req.tool_kind() else {
        return Some(SeenName::Shared(host));
    };
    if let Some(name) = kind_tool_name(names, kind, host) {
        return Some(SeenName::Static(name));
    }
    Some(
        hook.made_tool_name(kind, host)
            .map_or(SeenName::Shared(host), SeenName::Made),
    )
}

/// [`tool_name_seen`] without the names a dialect makes: the alias, the
/// dialect's own name for the kind, or the host's name.
fn tool_name_seen_static<'r>(
    hook: &dyn DialectHook,
    req: &'r HookRequest,
    host: &'r Arc<str>,
) -> SeenName<'r> {
    if let Some(alias) = req.tool_alias_shared(hook.dialect()) {
        return SeenName::Shared(alias);
    }
    let Some(names) = hook.dialect().tool_names() else {
        return SeenName::Shared(host);
    };
    match req
        .tool_kind()
        .and_then(|kind| kind_tool_name(names, kind, host))
    {
        Some(name) => SeenName::Static(name),
        None => SeenName::Shared(host),
    }
}

/// A dialect's name, from its table, for a tool of `kind` that the host
/// calls `host`; `None` (the host's name) for a kind the table has no name
/// for and for a host name that is already the dialect's own.
pub(crate) fn kind_tool_name(
    names: &ToolNames,
    kind: ToolKind,
    host: &str,
) -> Option<&'static str> {
    if names.own.contains(&host) {
        return None;
    }
    match kind {
        ToolKind::Shell => names.shell,
        ToolKind::Read => names.read,
        ToolKind::Edit => names.edit,
        ToolKind::Write => names.write,
        _ => None,
    }
}

/// The event a hook is configured for, as its file names it: `PreToolUse` for
/// a Claude Code or react-agent-mini hook, `tool_execution_start` for a nanopi
/// one (and for a hook a program made itself).
///
/// ```
/// use tower_hooks::{dialect, Event, HookSpec};
///
/// let spec = HookSpec::command(Event::ToolExecutionStart, "true");
/// assert_eq!(dialect::event_as_written(&spec), "tool_execution_start");
/// ```
pub fn event_as_written(spec: &HookSpec) -> &str {
    spec.event_as_written()
}

/// What a hook that is not a command is given in place of stdin: its
/// dialect's envelope (a model hook's `$ARGUMENTS`, an HTTP hook's body), or
/// the event's arguments for a nanopi hook.
pub(crate) fn input(spec: &HookSpec, req: &HookRequest) -> Vec<u8> {
    let cwd = req.cwd().map(str::to_owned).unwrap_or_else(|| {
        std::env::current_dir()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    });
    rules(spec).input(req, &cwd)
}

/// `run`, answered by its own deadline for a leaf that reads its answer in
/// its dialect (a model hook, an HTTP hook): past the request's deadline it
/// is dropped and answers the dialect's failure `timed out after N s`, not
/// nanopi's timeout block.
pub(crate) async fn within_deadline<T>(
    req: &crate::request::HookRequest,
    run: impl std::future::Future<Output = Result<T, String>>,
) -> Result<T, String> {
    match req.deadline() {
        Some(deadline) => tokio::time::timeout_at(deadline.at, run)
            .await
            .unwrap_or_else(|_| Err(Failure::TimedOut(deadline.timeout).to_string())),
        None => run.await,
    }
}

/// The verdict of a leaf that decoded its own answer; the notes go to the
/// run's slot. `None` (a dialect without such hooks) fails open with `missing`.
pub(crate) fn settle(
    req: &HookRequest,
    answer: Option<(Verdict, Notes)>,
    missing: &str,
) -> Verdict {
    let (verdict, notes) =
        answer.unwrap_or_else(|| (Verdict::failed_open(missing), Notes::default()));
    if let Some(slot) = req.run_slot() {
        slot.put_notes(notes);
    }
    verdict
}
