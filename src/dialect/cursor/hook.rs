//! A Cursor entry as a hook of the stack: the [`HookSpec`] made from it, when
//! it applies and runs, the job it starts, how its answer becomes a neutral
//! [`Verdict`] and [`Notes`], and what it leaves for the session (follow-up
//! counts, `sessionStart`'s `env`).

use std::any::Any;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::config::{run_dir, CursorEntry, CursorFile};
use super::event::CursorEvent;
use super::matcher::{subject_seen, CursorMatcher};
use super::wire::{
    decode, env_vars, prefix, stdin_bytes, CursorAnswer, CursorPermission, Envelope,
};
use crate::config::Format;
use crate::dialect::Failure;
use crate::dialect::{DialectHook, Encoded, Ended, ModelAnswer};
use crate::event::Event;
use crate::outcome::{Notes, Termination, Verdict};
use crate::request::{HookRequest, ToolKind};
use crate::spec::{Dialect, HookKind, HookSpec, Program, Scope};
use crate::sync::lock;
use crate::BoxError;

/// What the Cursor hooks of one loaded configuration share: each hook's
/// follow-up count per session, and the variables `sessionStart` hooks set
/// for each session.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    follow_ups: Mutex<HashMap<(usize, String), u32>>,
    /// Each session's variables.
    env: Mutex<HashMap<String, Vec<SessionVar>>>,
}

/// A variable a `sessionStart` hook set: its name, its value, and the scope
/// of the hook that set it.
type SessionVar = (String, String, Scope);

impl Sessions {
    fn follow_ups(&self, hook: usize, session: &str) -> u32 {
        let counts = lock(&self.follow_ups);
        counts
            .get(&(hook, session.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    /// Counts one more follow-up of `hook` in `session`, if `limit` allows
    /// it; answers whether it did. A `seed` (the `loop_count` an event fired
    /// by name gives) is the count so far, whatever was counted before.
    fn take_follow_up(
        &self,
        hook: usize,
        session: &str,
        limit: Option<u32>,
        seed: Option<u32>,
    ) -> bool {
        let mut counts = lock(&self.follow_ups);
        let count = counts.entry((hook, session.to_owned())).or_insert(0);
        if let Some(seed) = seed {
            *count = seed;
        }
        if limit.is_some_and(|limit| *count >= limit) {
            return false;
        }
        *count += 1;
        true
    }

    /// What `sessionStart` hooks set for `session` that a hook of `scope`
    /// may see: what hooks trusted as much as it or more set (a project's
    /// hook never sets a variable for the user's or the administrator's).
    fn env(&self, session: &str, scope: Scope) -> Vec<(String, String)> {
        let env = lock(&self.env);
        let Some(list) = env.get(session) else {
            return Vec::new();
        };
        list.iter()
            .filter(|(_, _, by)| *by >= scope)
            .map(|(name, value, _)| (name.clone(), value.clone()))
            .collect()
    }

    /// Keeps what a `sessionStart` hook set for `session`. A name no process
    /// can carry (empty, or with `=` or NUL) is dropped, and so are the
    /// protocol's own variables, which stay exact. Answers what it kept.
    fn set_env(
        &self,
        session: &str,
        vars: &serde_json::Map<String, Value>,
        format: Format,
        by: Scope,
    ) -> Vec<(String, String)> {
        let mut kept = Vec::new();
        let mut env = lock(&self.env);
        let list = env.entry(session.to_owned()).or_default();
        for (key, value) in vars {
            if key.is_empty() || key.contains(['=', '\0']) || is_protocol_var(format, key) {
                tracing::warn!(%key, "a sessionStart hook's env names a variable it cannot set");
                continue;
            }
            if !crate::dialect::session_var_allowed(key) {
                tracing::warn!(%key, "a sessionStart hook's env names a variable no hook gets");
                continue;
            }
            let value = match value {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            // A name set again is the newest setter's, at its trust.
            list.retain(|(k, _, _)| k != key);
            list.push((key.clone(), value.clone(), by));
            kept.push((key.clone(), value));
        }
        kept
    }
}

/// The scope of the hook `req` is run for (a hook outside a chain is the
/// user's, as a hook made in code is).
fn scope_of(req: &HookRequest) -> Scope {
    req.hook().map_or(Scope::User, |spec| spec.scope())
}

/// Whether `name` is one of the variables the Cursor family sets itself (for
/// `format`'s hooks).
fn is_protocol_var(format: Format, name: &str) -> bool {
    let own = format!("{}_", prefix(format));
    ["CURSOR_", "OPENHUMAN_", "CLAUDE_", &own]
        .iter()
        .any(|prefix| {
            name.strip_prefix(prefix).is_some_and(|rest| {
                matches!(
                    rest,
                    "PROJECT_DIR" | "VERSION" | "HOOK_EVENT" | "SESSION_ID"
                )
            })
        })
}

/// What a Cursor hook keeps on its spec.
#[derive(Debug)]
pub(crate) struct CursorHook {
    pub(crate) event: CursorEvent,
    /// The event's key, as written.
    pub(crate) written: Box<str>,
    format: Format,
    project_dir: Box<str>,
    pub(crate) run_dir: Box<str>,
    /// The plugin's root, for a plugin's `hooks/hooks.json`.
    plugin_root: Option<Box<str>>,
    matcher: CursorMatcher,
    loop_limit: Option<u32>,
    /// Its key in [`Sessions`].
    id: usize,
    sessions: Arc<Sessions>,
}

/// The hook specs of a loaded `hooks.json` at `source`, in order; they run
/// under `sh -c` from [`run_dir`]. `sessions` is shared by every Cursor hook
/// of one configuration; `first_id` numbers them apart.
pub(crate) fn specs(
    file: &CursorFile,
    source: &Path,
    format: Format,
    project: &Path,
    sessions: &Arc<Sessions>,
    first_id: usize,
) -> Vec<HookSpec> {
    let dir = run_dir(source, project).display().to_string();
    let project_dir = project.display().to_string();
    let plugin_root = crate::dialect::claude::config::plugin_root_of(source).map(|root| {
        std::path::absolute(&root)
            .unwrap_or(root)
            .display()
            .to_string()
    });
    file.entries
        .iter()
        .enumerate()
        .map(|(n, entry)| {
            spec(
                entry,
                source,
                format,
                (&project_dir, plugin_root.as_deref()),
                &dir,
                sessions,
                first_id + n,
            )
        })
        .collect()
}

/// A plugin's hooks: `${CURSOR_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_ROOT}` in
/// the command are the plugin's root, as one word (never shell code), and
/// both variables are exported.
const PLUGIN_ROOT_VARS: [&str; 2] = ["CURSOR_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"];

fn spec(
    entry: &CursorEntry,
    source: &Path,
    format: Format,
    (project_dir, plugin_root): (&str, Option<&str>),
    run_dir: &str,
    sessions: &Arc<Sessions>,
    id: usize,
) -> HookSpec {
    let hook = CursorHook {
        event: entry.event,
        written: entry.written.as_str().into(),
        format,
        project_dir: project_dir.into(),
        run_dir: run_dir.into(),
        plugin_root: plugin_root.map(Into::into),
        matcher: entry.pattern.clone(),
        loop_limit: entry.loop_limit,
        id,
        sessions: sessions.clone(),
    };
    let command = match plugin_root {
        Some(root) => {
            use crate::process::substitute::{placeholders, substitute, Form};
            let vars = PLUGIN_ROOT_VARS.map(|name| (name, root));
            substitute(&entry.command, Form::Sh, placeholders(&vars)).into_owned()
        }
        None => entry.command.clone(),
    };
    let mut spec = HookSpec::command(entry.event.event(), command)
        .with_source(source.display().to_string(), entry.index)
        .with_timeout(entry.timeout)
        .with_fail_closed(entry.fail_closed)
        .with_program(Program::Sh)
        .with_background(entry.event.is_observing())
        .with_persistent(entry.persistent)
        .with_dialect(Arc::new(hook));
    let kind = HookKind::from_name(&entry.kind);
    if kind != HookKind::Command {
        spec = spec.with_kind(kind.clone());
    }
    if let (Some(prompt), HookKind::Prompt) = (&entry.prompt, &kind) {
        spec = spec.with_prompt(prompt.as_str());
    }
    if !entry.enabled {
        spec = spec.with_disabled("enabled: false");
    }
    spec.matcher = entry.matcher.clone();
    spec
}

/// Whether `spec` is a Cursor hook of an event derived by tool kind
/// (`beforeShellExecution`, `afterFileEdit`, …): within a group, these run
/// after the generic event's.
pub(crate) fn is_derived(spec: &HookSpec) -> bool {
    crate::dialect::extra::<CursorHook>(spec).is_some_and(|hook| hook.event.tool_kind().is_some())
}

impl DialectHook for CursorHook {
    fn dialect(&self) -> Dialect {
        Dialect::Cursor
    }

    fn event_name<'a>(&'a self, _spec: &'a HookSpec) -> &'a str {
        &self.written
    }

    fn applies(&self, req: &HookRequest) -> bool {
        applies(self, req)
    }

    fn runs_for(&self, _spec: &HookSpec, req: &HookRequest) -> bool {
        runs_for(self, req)
    }

    fn encode(&self, req: &HookRequest, cwd: &str) -> Encoded {
        encode(self, req, cwd)
    }

    fn finish(
        &self,
        spec: Option<&HookSpec>,
        req: &HookRequest,
        ended: Ended<'_>,
    ) -> Result<(Verdict, Notes), BoxError> {
        let timeout = spec.map(HookSpec::timeout).unwrap_or_default();
        // What its stdout held that Cursor ignores, for the hook's record.
        let ignored = match &ended {
            Ok(finished) => match finished.termination {
                Termination::Exited(code) => {
                    super::wire::answer_warnings(Some(code), &finished.stdout)
                }
                _ => Vec::new(),
            },
            Err(_) => Vec::new(),
        };
        let answer = answer(ended, timeout);
        let (verdict, mut notes) =
            neutral(self, spec.is_some_and(HookSpec::fail_closed), req, answer);
        notes.warnings.extend(ignored);
        Ok((verdict, notes))
    }

    fn model_answer(
        &self,
        spec: &HookSpec,
        req: &HookRequest,
        answer: Result<ModelAnswer, String>,
    ) -> Option<(Verdict, Notes)> {
        let answer = model_answer(self, answer);
        Some(neutral(self, spec.fail_closed(), req, answer))
    }

    fn run_dir(&self) -> Option<&Path> {
        Some(Path::new(&*self.run_dir))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Whether the hook's event is the one `req` fires: its neutral event, and for a
/// derived event the tool kind; `postToolUse` after a success and
/// `postToolUseFailure` after a failure. A hook of another event is not part
/// of the call at all (no record).
fn applies(hook: &CursorHook, req: &HookRequest) -> bool {
    if req.event() != hook.event.event() {
        return false;
    }
    if hook.event.event() == Event::Named {
        return req.named_event() == Some(hook.event.name());
    }
    if let Some(tab) = hook.event.tab_tool() {
        return req.tool_name().is_some_and(|t| t.eq_ignore_ascii_case(tab));
    }
    if let Some(kind) = hook.event.tool_kind() {
        // `afterFileEdit` fires after an edit and after a write alike.
        return req.tool_kind().is_some_and(|tool| {
            tool == kind || (kind == ToolKind::Edit && tool == ToolKind::Write)
        });
    }
    let failed = req.tool_failed();
    match hook.event {
        CursorEvent::PostToolUse => !failed,
        CursorEvent::PostToolUseFailure => failed,
        _ => true,
    }
}

/// Whether the hook runs for `req`: it applies, and its matcher selects the call.
fn runs_for(hook: &CursorHook, req: &HookRequest) -> bool {
    applies(hook, req) && {
        let tool = crate::dialect::tool_name(hook, req);
        hook.matcher.matches(&subject_seen(hook.event, req, tool))
    }
}

/// `req` with the tool named as a Cursor hook sees it (the host's alias for
/// Cursor, else Cursor's name for the tool's kind); borrowed when that is
/// the host's name.
fn as_seen<'r>(hook: &CursorHook, req: &'r HookRequest) -> std::borrow::Cow<'r, HookRequest> {
    match crate::dialect::tool_name(hook, req) {
        Some(seen) if Some(seen) != req.tool_name() => {
            let seen = seen.to_owned();
            std::borrow::Cow::Owned(req.clone().with_tool_name(seen))
        }
        _ => std::borrow::Cow::Borrowed(req),
    }
}

/// The stdin bytes, variables and working directory of the hook's run.
fn encode(hook: &CursorHook, req: &HookRequest, cwd: &str) -> Encoded {
    let req = &*as_seen(hook, req);
    let session = req.session_id();
    let envelope = Envelope {
        format: hook.format,
        cwd,
        project: &hook.project_dir,
        loop_count: hook.sessions.follow_ups(hook.id, session.unwrap_or("")),
    };
    // The event's name and session, and what `sessionStart` set for the
    // session, change from event to event; the rest belongs to the hook.
    let (mut event_env, env): (Vec<_>, Vec<_>) =
        env_vars(hook.format, &hook.project_dir, hook.event, session)
            .into_iter()
            .partition(|(name, _)| name.ends_with("_HOOK_EVENT") || name.ends_with("_SESSION_ID"));
    event_env.extend(host_vars(hook.format, req));
    let mut env = env;
    if let Some(root) = &hook.plugin_root {
        env.extend(PLUGIN_ROOT_VARS.map(|name| (name.to_owned(), root.to_string())));
    }
    Encoded {
        stdin: stdin_bytes(hook.event, req, &envelope),
        env,
        event_env,
        session_env: hook.sessions.env(session.unwrap_or(""), scope_of(req)),
        dir: Some(Path::new(&*hook.run_dir).into()),
    }
}

/// How the hook's run ended, as its answer.
fn answer(ended: Ended<'_>, timeout: Duration) -> CursorAnswer {
    match ended {
        Ok(finished) => match finished.termination {
            Termination::Exited(code) => decode(Some(code), &finished.stdout, &finished.stderr),
            Termination::Signaled(_) => decode(None, &finished.stdout, &finished.stderr),
            Termination::TimedOut => CursorAnswer::failed(&Failure::TimedOut(timeout)),
        },
        Err(error) => CursorAnswer::failed(&Failure::CouldNotStart(error.to_string())),
    }
}

/// A Cursor answer in neutral terms.
///
/// A failure allows with an `error` record, or blocks when the hook fails
/// closed. A deny blocks (its reason: `agent_message`, else `user_message`);
/// an ask asks; `updated_input` rewrites; an explicit allow approves.
/// `continue: false` asks to stop the agent, and on `beforeSubmitPrompt` also
/// drops the prompt. A `followup_message` is the follow-up while the hook's
/// `loop_limit` allows it in the session; a `sessionStart` hook's `env` goes
/// to the session's later hooks. An observing hook's decision changes nothing.
fn neutral(
    hook: &CursorHook,
    fail_closed: bool,
    req: &HookRequest,
    answer: CursorAnswer,
) -> (Verdict, Notes) {
    if let Some(error) = answer.error {
        let closed = fail_closed && !hook.event.is_observing();
        return (Verdict::failed(error, closed), Notes::default());
    }
    let session = req.session_id().unwrap_or("");
    let set = match (hook.event, &answer.env) {
        (CursorEvent::SessionStart, Some(env)) => {
            hook.sessions
                .set_env(session, env, hook.format, scope_of(req))
        }
        _ => Vec::new(),
    };
    let reason = answer.reason();
    let mut notes = Notes {
        context: answer.additional_context.clone().into_iter().collect(),
        user_messages: answer.user_message.clone().into_iter().collect(),
        stop: answer.stop.then(String::new),
        // Only the agent's stop and a subagent's carry a follow-up, and only
        // when the agent (or subagent) completed.
        follow_up: answer
            .followup_message
            .clone()
            .filter(|_| matches!(hook.event, CursorEvent::Stop | CursorEvent::SubagentStop))
            .filter(|_| completed(req))
            .filter(|_| {
                hook.sessions.take_follow_up(
                    hook.id,
                    session,
                    hook.loop_limit,
                    given_loop_count(req),
                )
            }),
        approved: answer.permission == Some(CursorPermission::Allow),
        block_honored: None,
        // What it set, for the host too.
        env: set,
        plugin_paths: match hook.event {
            CursorEvent::WorkspaceOpen => answer.plugin_paths.clone(),
            _ => Vec::new(),
        },
        ..Notes::default()
    };
    if hook.event.is_observing() {
        notes.stop = None;
        notes.approved = false;
        return (Verdict::Allow, notes);
    }
    let prompt_dropped = hook.event == CursorEvent::BeforeSubmitPrompt && answer.stop;
    let verdict = match answer.permission {
        Some(CursorPermission::Deny) => Verdict::block(reason.unwrap_or_default()),
        _ if prompt_dropped => Verdict::block(
            answer
                .user_message
                .clone()
                .unwrap_or_else(|| crate::DEFAULT_BLOCK_REASON.to_owned()),
        ),
        // Cursor's page: `subagentStart` has no ask, and treats one as a deny.
        Some(CursorPermission::Ask) if hook.event == CursorEvent::SubagentStart => Verdict::block(
            answer
                .user_message
                .clone()
                .or_else(|| answer.agent_message.clone())
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| crate::DEFAULT_BLOCK_REASON.to_owned()),
        ),
        Some(CursorPermission::Ask) => Verdict::ask(
            answer
                .user_message
                .or(answer.agent_message)
                .unwrap_or_default(),
        ),
        _ => match (answer.updated_input, answer.updated_mcp_tool_output) {
            (Some(input), _) if hook.event.event() == Event::ToolExecutionStart => {
                Verdict::Transform(input)
            }
            (_, Some(output))
                if hook.event == CursorEvent::PostToolUse
                    && req.tool_kind() == Some(crate::request::ToolKind::Mcp) =>
            {
                Verdict::Transform(crate::dialect::claude::tool_output_transform(&output))
            }
            _ => Verdict::Allow,
        },
    };
    if matches!(verdict, Verdict::Block { .. }) {
        // Cursor's events that cannot be refused keep their block as a record.
        notes.block_honored = Some(can_deny(hook.event));
    }
    (verdict, notes)
}

/// The `loop_count` an event fired by name gives (`hooks test --payload`):
/// the follow-ups already caused, which the loop limit is checked against.
fn given_loop_count(req: &HookRequest) -> Option<u32> {
    let count = req.wire_fields()?.get("loop_count")?.as_u64()?;
    Some(u32::try_from(count).unwrap_or(u32::MAX))
}

/// Whether the `stop` or `subagentStop` of `req` says the agent completed:
/// its `status` (as fired, else in the arguments) is `completed` or absent.
/// Cursor consumes a `followup_message` only then.
fn completed(req: &HookRequest) -> bool {
    let status = req
        .wire_fields()
        .and_then(|fields| fields.get("status"))
        .or_else(|| req.arguments().get("status"));
    match status.and_then(Value::as_str) {
        Some(status) => status == "completed",
        None => true,
    }
}

/// The variables a host gives through Cursor's common fields: `user_email`
/// as `<APP>_USER_EMAIL`, `transcript_path` as `<APP>_TRANSCRIPT_PATH`, each
/// only when it is a non-empty string.
fn host_vars(format: Format, req: &HookRequest) -> Vec<(String, String)> {
    let Some(fields) = req.wire_fields() else {
        return Vec::new();
    };
    let prefix = prefix(format);
    [
        ("user_email", "USER_EMAIL"),
        ("transcript_path", "TRANSCRIPT_PATH"),
    ]
    .into_iter()
    .filter_map(|(field, var)| {
        let value = fields.get(field)?.as_str().filter(|v| !v.is_empty())?;
        Some((format!("{prefix}_{var}"), value.to_owned()))
    })
    .collect()
}

/// The events whose hooks can refuse what is about to happen.
fn can_deny(event: CursorEvent) -> bool {
    matches!(
        event,
        CursorEvent::PreToolUse
            | CursorEvent::BeforeShellExecution
            | CursorEvent::BeforeReadFile
            | CursorEvent::BeforeMcpExecution
            | CursorEvent::BeforeTabFileRead
            | CursorEvent::BeforeSubmitPrompt
            | CursorEvent::SubagentStart
    )
}

/// A model's answer to a Cursor `prompt` entry, as the entry's answer: `ok:
/// true` allows; `ok: false` denies with the reason, and at `stop` and
/// `subagentStop` sends the agent back with it (unless `impossible`).
fn model_answer(hook: &CursorHook, answer: Result<ModelAnswer, String>) -> CursorAnswer {
    let answer = match answer {
        Ok(answer) => answer,
        Err(error) => return CursorAnswer::with_error(error),
    };
    let (ok, impossible) = (answer.ok, answer.impossible);
    let reason = answer.reason.as_deref().unwrap_or("");
    let reason = (!reason.trim().is_empty()).then(|| reason.to_owned());
    match (ok, hook.event) {
        (true, _) => CursorAnswer::default(),
        (false, CursorEvent::Stop | CursorEvent::SubagentStop) if impossible => {
            CursorAnswer::default()
        }
        (false, CursorEvent::Stop | CursorEvent::SubagentStop) => CursorAnswer {
            followup_message: reason,
            ..CursorAnswer::default()
        },
        (false, _) => CursorAnswer {
            permission: Some(CursorPermission::Deny),
            agent_message: reason,
            ..CursorAnswer::default()
        },
    }
}
