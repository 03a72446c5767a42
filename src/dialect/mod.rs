//! Dialects: the config files, event names, stdin envelope, answer format and
//! combination rule of each hook ecosystem.
//!
//! Each dialect is data plus pure functions: its names for the neutral points
//! ([`Event`](crate::event::Event)), its loader (file → [`HookSpec`]s),
//! its encoder (request → stdin bytes and environment) and its decoder (exit
//! code, stdout and stderr → [`Verdict`]). The layers stay
//! dialect-blind.

pub mod agents;
pub mod claude;
pub mod cursor;
mod envelope;
pub mod nanopi;

use crate::outcome::{Notes, Termination, Verdict};
use crate::request::HookRequest;
use crate::spec::{Dialect, HookSpec};

/// Whether `spec`'s hook runs for `req`, by its dialect's rule: nanopi tests its
/// matcher against the point's subject; Claude Code also checks that the
/// request is its event (`PostToolUse` or `PostToolUseFailure`) and its `if`.
#[inline]
pub(crate) fn runs_for(spec: &HookSpec, req: &HookRequest) -> bool {
    match spec.dialect() {
        Dialect::Nanopi => spec.pattern().matches(req.matcher_subject().as_str()),
        Dialect::Claude => spec
            .extra::<claude::hook::ClaudeHook>()
            .is_some_and(|hook| claude::hook::runs_for(spec, hook, req)),
        Dialect::Agents => spec
            .extra::<agents::AgentsExtra>()
            .is_some_and(|extra| agents::runs_for(extra, req)),
        Dialect::Cursor => spec
            .extra::<cursor::hook::CursorHook>()
            .is_some_and(|hook| cursor::hook::runs_for(hook, req)),
    }
}

/// Whether `spec`'s hook is part of a call of `req` at all, matcher aside:
/// a Cursor hook of `beforeShellExecution` is not part of a call of a read
/// tool, nor a `PostToolUseFailure` hook of a call that succeeded. A hook that
/// is not part of the call neither runs nor appears in its records.
#[inline]
pub(crate) fn applies(spec: &HookSpec, req: &HookRequest) -> bool {
    match spec.dialect() {
        Dialect::Claude => spec
            .extra::<claude::hook::ClaudeHook>()
            .is_none_or(|hook| claude::hook::applies(hook, req)),
        Dialect::Cursor => spec
            .extra::<cursor::hook::CursorHook>()
            .is_none_or(|hook| cursor::hook::applies(hook, req)),
        _ => true,
    }
}

/// What a hook of another dialect than nanopi's is given.
#[derive(Debug, Default)]
pub(crate) struct Encoded {
    /// The bytes on its stdin.
    pub(crate) stdin: Vec<u8>,
    /// The variables added to the environment that belong to the hook.
    pub(crate) env: Vec<(String, String)>,
    /// The variables added to the environment that belong to this event (a
    /// persistent hook gets them with each request).
    pub(crate) event_env: Vec<(String, String)>,
    /// The variables the session's earlier hooks set (a Cursor
    /// `sessionStart` hook's `env`): they belong to the event too, but never
    /// hide the host's own value of a name from a process that outlives the
    /// session.
    pub(crate) session_env: Vec<(String, String)>,
    /// The directory it runs in; `None`: the session's working directory.
    pub(crate) dir: Option<std::sync::Arc<std::path::Path>>,
}

/// The stdin bytes and variables of a hook of a dialect other than nanopi's;
/// `None` for nanopi's hooks (the command leaf encodes those itself).
pub(crate) fn encode(spec: &HookSpec, req: &HookRequest, cwd: &str) -> Option<Encoded> {
    match spec.dialect() {
        Dialect::Claude => spec
            .extra::<claude::hook::ClaudeHook>()
            .map(|hook| claude::hook::encode(hook, req, cwd)),
        Dialect::Agents => spec
            .extra::<agents::AgentsExtra>()
            .map(|_| agents::encode(req)),
        Dialect::Cursor => spec
            .extra::<cursor::hook::CursorHook>()
            .map(|hook| cursor::hook::encode(hook, req, cwd)),
        _ => None,
    }
}

/// The directory a hook runs in when its dialect decides it (a Cursor hook
/// runs beside its `hooks.json`); `None`: the session's working directory.
pub(crate) fn run_dir(spec: &HookSpec) -> Option<&std::path::Path> {
    spec.extra::<cursor::hook::CursorHook>()
        .map(|hook| std::path::Path::new(&*hook.run_dir))
}

/// How a hook's run ended: its termination, stdout and stderr, or why it
/// could not start.
pub(crate) type Ended<'a> = Result<(Termination, &'a [u8], &'a [u8]), &'a dyn std::fmt::Display>;

/// How a run of a hook of another dialect than nanopi's ended, as a neutral
/// verdict and notes; `None` for nanopi's hooks.
pub(crate) fn answer(
    spec: &HookSpec,
    req: &HookRequest,
    ended: Ended<'_>,
) -> Option<(Verdict, Notes)> {
    match spec.dialect() {
        Dialect::Claude => {
            let hook = spec.extra::<claude::hook::ClaudeHook>()?;
            let answer = match ended {
                Ok((termination, stdout, stderr)) => {
                    claude::hook::answer(hook, termination, stdout, stderr, spec.timeout())
                }
                Err(error) => claude::ClaudeAnswer::could_not_start(error),
            };
            Some(claude::hook::neutral(hook, spec.fail_closed(), answer))
        }
        Dialect::Agents => {
            let extra = spec.extra::<agents::AgentsExtra>()?;
            Some(agents::neutral(
                extra,
                spec.fail_closed(),
                ended,
                spec.timeout(),
            ))
        }
        Dialect::Cursor => {
            let hook = spec.extra::<cursor::hook::CursorHook>()?;
            let answer = cursor::hook::answer(ended, spec.timeout());
            Some(cursor::hook::neutral(hook, spec.fail_closed(), req, answer))
        }
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
    match spec.dialect() {
        Dialect::Claude => spec
            .extra::<claude::hook::ClaudeHook>()
            .map_or(spec.event().name(), |hook| &*hook.event),
        Dialect::Agents => spec
            .extra::<agents::AgentsExtra>()
            .map_or(spec.event().name(), |extra| extra.event_name()),
        Dialect::Cursor => spec
            .extra::<cursor::hook::CursorHook>()
            .map_or(spec.event().name(), |hook| &*hook.written),
        _ => spec.event().name(),
    }
}

/// A model's answer to a model-evaluated hook (`prompt`, `agent`), in neutral
/// terms by the hook's dialect; `Err` is an answer that could not be had or
/// read, a failure that lets the action proceed. `None` for a dialect without
/// model-evaluated hooks.
pub(crate) fn model_answer(
    spec: &HookSpec,
    req: &HookRequest,
    answer: Result<crate::layer::model::ModelAnswer, String>,
) -> Option<(Verdict, Notes)> {
    match spec.dialect() {
        Dialect::Claude => {
            let hook = spec.extra::<claude::hook::ClaudeHook>()?;
            let answer = claude::hook::model_answer(hook, answer);
            Some(claude::hook::neutral(hook, spec.fail_closed(), answer))
        }
        Dialect::Cursor => {
            let hook = spec.extra::<cursor::hook::CursorHook>()?;
            let answer = cursor::hook::model_answer(hook, answer);
            Some(cursor::hook::neutral(hook, spec.fail_closed(), req, answer))
        }
        _ => None,
    }
}

/// Whether `spec`'s dialect has HTTP hooks (Claude Code's, with its Claude
/// Code data): an HTTP hook of any other dialect posts nothing.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn has_http_hooks(spec: &HookSpec) -> bool {
    spec.extra::<claude::hook::ClaudeHook>().is_some()
}

/// A policy server's response to an HTTP hook, in neutral terms by the hook's
/// dialect: `Ok((status, body))`, or why no response came (a refused address,
/// a connection error, a timeout, a body over the limit). `None` for a
/// dialect without HTTP hooks.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn http_answer(
    spec: &HookSpec,
    response: Result<(u16, &[u8]), String>,
) -> Option<(Verdict, Notes)> {
    match spec.dialect() {
        Dialect::Claude => {
            let hook = spec.extra::<claude::hook::ClaudeHook>()?;
            let answer = claude::hook::http_answer(hook, response);
            Some(claude::hook::neutral(hook, spec.fail_closed(), answer))
        }
        _ => None,
    }
}

/// What a hook that is not a command is given in place of stdin: its
/// dialect's envelope (a model hook's `$ARGUMENTS`, an HTTP hook's body), or
/// the point's arguments for a hook without one.
pub(crate) fn input(spec: &HookSpec, req: &HookRequest) -> Vec<u8> {
    let cwd = req.cwd().map(str::to_owned).unwrap_or_else(|| {
        std::env::current_dir()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    });
    encode(spec, req, &cwd)
        .map(|encoded| encoded.stdin)
        .unwrap_or_else(|| req.arguments().to_string().into_bytes())
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
