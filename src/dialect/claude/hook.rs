//! A Claude Code handler as a hook of the stack: the [`HookSpec`] made from a
//! loaded [`Handler`], whether it runs for a request, the job it starts and how
//! its answer becomes a neutral [`Verdict`] and [`Notes`].

use std::any::Any;
use std::path::Path;
use std::sync::Arc;

use super::config::{Handler, POWERSHELL};
use super::family::{Family, CLAUDE_CODE};
use super::rule::{if_allows_seen, PermissionRule};
use super::session::{takes_env_file, EnvFile, ENV_FILE_VAR};
use super::wire::{
    decode, event_name, stdin_bytes, tool_output_transform, ClaudeAnswer, ClaudeDecision, Envelope,
};
use super::ClaudeEvent;
use crate::dialect::{assemble, DialectHook, Encoded, Ended, JobParts, ModelAnswer};
use crate::event::Event;
use crate::layer::mcp::McpTarget;
use crate::outcome::{BlockCause, Notes, Termination, Verdict, DEFAULT_BLOCK_REASON};
use crate::process::Job;
use crate::request::HookRequest;
use crate::spec::{Dialect, HookKind, HookSpec, HttpTarget, Program};
use crate::BoxError;

/// What a Claude Code hook keeps on its spec.
#[derive(Debug)]
pub(crate) struct ClaudeHook {
    /// The host of the family whose hook it is (Claude Code's unless a
    /// clone's loader made it).
    pub(crate) family: &'static Family,
    /// The Claude Code event (`PostToolUse`, not the neutral event).
    pub(crate) event: ClaudeEvent,
    /// The project root (`CLAUDE_PROJECT_DIR`).
    pub(crate) project_dir: Box<str>,
    /// The plugin's root (`CLAUDE_PLUGIN_ROOT`), for a plugin's hook.
    pub(crate) plugin_root: Option<Box<str>>,
    /// `if`: the hook runs only for tool calls it matches.
    pub(crate) if_rule: Option<PermissionRule>,
    /// `async`: the call does not wait for it.
    pub(crate) is_async: bool,
    /// `asyncRewake`: its exit 2 wakes the agent.
    pub(crate) rewake: bool,
    /// A model's no on a tool call lets the turn go on (`continueOnBlock`,
    /// and every `agent` handler).
    pub(crate) continue_on_block: bool,
    /// `onFailure: "block"` in its own file (not only the host's policy):
    /// a failure then blocks in Claude Code's words.
    pub(crate) on_failure_block: bool,
}

/// The hook specs of loaded Claude Code handlers, in order. A handler of an
/// event with no neutral point is at [`Event::Named`]: it runs when the host
/// fires that event by name. A handler of a name that is no Claude Code event
/// is left out (its load warning says so). A handler of a type this host
/// cannot run is kept: it is listed, and skipped.
pub fn specs<'a>(
    handlers: impl IntoIterator<Item = &'a Handler>,
    project_dir: &Path,
) -> Vec<HookSpec> {
    let project_dir: Box<str> = project_dir.display().to_string().into();
    handlers
        .into_iter()
        .filter_map(|handler| spec(handler, &project_dir, &CLAUDE_CODE))
        .collect()
}

/// The hook spec of `handler`, a handler of `family`'s host.
pub(crate) fn spec(
    handler: &Handler,
    project_dir: &str,
    family: &'static Family,
) -> Option<HookSpec> {
    let claude_event = handler.claude_event()?;
    // An event with no neutral point runs when the host fires it by name.
    let event = handler.neutral_event.unwrap_or(Event::Named);
    let kind = handler.hook_kind();
    let program = match (&handler.args, handler.shell.as_deref()) {
        (Some(args), _) => Program::Exec(args.clone().into()),
        (None, Some("bash")) => Program::Bash,
        (None, Some(POWERSHELL)) => Program::PowerShell,
        (None, _) => Program::Sh,
    };
    let extra = ClaudeHook {
        family,
        event: claude_event,
        project_dir: project_dir.into(),
        plugin_root: handler
            .plugin_root
            .as_ref()
            .map(|root| root.display().to_string().into()),
        if_rule: handler.if_rule.clone(),
        is_async: handler.is_async,
        rewake: handler.async_rewake,
        continue_on_block: handler.continue_on_block || kind == HookKind::Agent,
        on_failure_block: handler.fail_closed,
    };
    let mut spec = HookSpec::command(event, handler.command.clone().unwrap_or_default())
        .with_source(handler.source.display().to_string(), handler.index)
        .with_timeout(handler.timeout)
        .with_program(program)
        .with_background(handler.is_async)
        // Only a command has a process to keep.
        .with_persistent(handler.persistent && kind == HookKind::Command)
        .with_fail_closed(handler.fail_closed)
        .with_dialect(Arc::new(extra));
    if handler.command.is_none() {
        spec.command = None;
    }
    if kind != HookKind::Command {
        spec = spec.with_kind(kind.clone());
    }
    if let (Some(prompt), HookKind::Prompt | HookKind::Agent) = (&handler.prompt, &kind) {
        spec = spec.with_prompt(prompt.as_str());
        if let Some(model) = &handler.model {
            spec = spec.with_model(model.as_str());
        }
    }
    if let (Some(server), Some(tool), HookKind::McpTool) = (&handler.server, &handler.tool, &kind) {
        let mut target = McpTarget::new(server.as_str(), tool.as_str());
        if let Some(input) = &handler.input {
            target = target.with_input(input.clone());
        }
        spec = spec.with_mcp(target);
    }
    if let (Some(url), HookKind::Http) = (&handler.url, &kind) {
        let mut target = HttpTarget::new(url.as_str());
        for (name, value) in &handler.headers {
            target = target.with_header(name.as_str(), value.as_str());
        }
        for name in &handler.allowed_env_vars {
            target = target.with_allowed_env_var(name.as_str());
        }
        spec = spec.with_http(target);
    }
    if !family.runs_type(&handler.kind) {
        let reason = format!("{} runs no {} handler", family.host, handler.kind);
        spec.disabled = Some(reason.into());
    } else if !super::config::type_runs_at(&handler.kind, &handler.event) {
        spec.disabled = Some(
            format!(
                "{} runs no {} handler at {}",
                family.host, handler.kind, handler.event
            )
            .into(),
        );
    }
    spec.matcher = handler.matcher.clone();
    spec.pattern = handler.pattern.clone();
    Some(spec)
}

impl DialectHook for ClaudeHook {
    fn dialect(&self) -> Dialect {
        self.family.dialect
    }

    fn event_name<'a>(&'a self, _spec: &'a HookSpec) -> &'a str {
        self.event.name()
    }

    fn applies(&self, req: &HookRequest) -> bool {
        applies(self, req)
    }

    fn runs_for(&self, spec: &HookSpec, req: &HookRequest) -> bool {
        runs_for(spec, self, req)
    }

    fn encode(&self, req: &HookRequest, cwd: &str) -> Encoded {
        encode(self, req, cwd)
    }

    fn job(&self, spec: Option<&HookSpec>, leaf: &JobParts<'_>, req: &HookRequest) -> Job {
        let mut encoded = encode(self, req, leaf.cwd);
        if let Some(path) = env_file(self, req) {
            encoded.event_env.push((ENV_FILE_VAR.to_owned(), path));
        }
        assemble(spec, leaf, req, encoded)
    }

    fn finish(
        &self,
        spec: Option<&HookSpec>,
        req: &HookRequest,
        ended: Ended<'_>,
    ) -> Result<(Verdict, Notes), BoxError> {
        let timeout = spec.map(HookSpec::timeout).unwrap_or_default();
        // What its stdout held that Claude Code ignores, for the hook's record.
        let ignored = match &ended {
            Ok(finished) => match finished.termination {
                Termination::Exited(code) => {
                    super::ignored::answer_warnings(self.event.name(), Some(code), &finished.stdout)
                }
                _ => Vec::new(),
            },
            Err(_) => Vec::new(),
        };
        let answer = match &ended {
            Ok(finished) => answer(
                self,
                finished.termination,
                &finished.stdout,
                &finished.stderr,
                timeout,
            ),
            Err(error) => ClaudeAnswer::could_not_start(error),
        };
        let (mut verdict, mut notes) =
            neutral(self, spec.is_some_and(HookSpec::fail_closed), answer);
        if let Verdict::Block {
            reason,
            cause: BlockCause::FailedClosed,
        } = &mut verdict
        {
            if self.on_failure_block {
                *reason = on_failure_reason(&ended);
            }
        }
        read_env_file(req, &mut notes);
        notes.warnings.extend(ignored);
        if let Ok(finished) = ended {
            wake_up(self, finished, &mut notes);
        }
        Ok((verdict, notes))
    }

    fn model_answer(
        &self,
        spec: &HookSpec,
        _req: &HookRequest,
        answer: Result<ModelAnswer, String>,
    ) -> Option<(Verdict, Notes)> {
        let answer = model_answer(self, answer);
        Some(neutral(self, spec.fail_closed(), answer))
    }

    fn http_answer(
        &self,
        spec: &HookSpec,
        response: Result<(u16, &[u8]), String>,
    ) -> Option<(Verdict, Notes)> {
        let answer = http_answer(self, response);
        Some(neutral(self, spec.fail_closed(), answer))
    }

    fn mcp_answer(
        &self,
        spec: &HookSpec,
        text: Result<String, String>,
    ) -> Option<(Verdict, Notes)> {
        // The tool's text is read as a command's stdout on exit 0.
        let answer = match text {
            Ok(text) => answer(
                self,
                Termination::Exited(0),
                text.as_bytes(),
                b"",
                spec.timeout(),
            ),
            Err(error) => ClaudeAnswer::with_error(error),
        };
        Some(neutral(self, spec.fail_closed(), answer))
    }

    fn blocks_where_the_event_drops_them(&self) -> bool {
        // Claude Code's exit-2 table: a deny, a dropped prompt or a
        // prevented action (`TaskCreated`, `PreCompact`, …) takes effect.
        let meaning = self.event.block_meaning();
        meaning.is_honored() && meaning != super::wire::BlockMeaning::FollowUp
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Whether a Claude Code hook is part of a call of `req`: its event is the
/// one the request is under Claude Code's names (`PostToolUseFailure` for a
/// tool that failed, `PostToolUse` otherwise).
fn applies(hook: &ClaudeHook, req: &HookRequest) -> bool {
    event_name(req) == Some(hook.event.name())
}

/// Whether a Claude Code hook runs for `req`: it [applies](applies), its
/// matcher matches that event's subject, and its `if` rule allows it.
fn runs_for(spec: &HookSpec, hook: &ClaudeHook, req: &HookRequest) -> bool {
    if !applies(hook, req) {
        return false;
    }
    // Matchers and `if` rules test the tool's Claude Code name.
    let tool = crate::dialect::tool_name(hook, req);
    spec.pattern()
        .matches(&super::matcher::subject_seen(hook.event, req, tool))
        && if_allows_seen(hook.if_rule.as_ref(), hook.event.name(), req, tool)
}

/// The stdin bytes and the variables of a Claude Code hook's run: the
/// project's (and plugin's) roots, and what the session's env files set.
fn encode(hook: &ClaudeHook, req: &HookRequest, cwd: &str) -> Encoded {
    let mut envelope = Envelope::new(cwd).with_event_name(hook.event.name());
    if !hook.family.tool_use_id {
        envelope = envelope.without_tool_use_id();
    }
    if let Some(tool) = crate::dialect::tool_name(hook, req) {
        envelope = envelope.with_tool_name(tool);
    }
    let stdin = stdin_bytes(req, &envelope);
    let env = (hook.family)
        .env_vars(&hook.project_dir, hook.plugin_root.as_deref())
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    Encoded {
        stdin,
        env,
        ..Default::default()
    }
}

/// At `SessionStart`, `CwdChanged` and `FileChanged`, a new env file for
/// this run, kept in the run's slot for [`read_env_file`]: its path. `None`
/// at other events, for a run outside a chain (no slot), and when the file
/// cannot be made (the hook then runs without one).
fn env_file(hook: &ClaudeHook, req: &HookRequest) -> Option<String> {
    if !takes_env_file(hook.event) {
        return None;
    }
    let slot = req.run_slot()?;
    let file = match EnvFile::create() {
        Ok(file) => file,
        Err(error) => {
            tracing::warn!(%error, "could not make a CLAUDE_ENV_FILE; the hook runs without one");
            return None;
        }
    };
    let path = file.path().display().to_string();
    slot.put_scratch(Box::new(file));
    Some(path)
}

/// Reads the run's env file, if it had one, into `notes` (the outcome's `env`);
/// the file goes away with it.
fn read_env_file(req: &HookRequest, notes: &mut Notes) {
    let Some(file) = req
        .run_slot()
        .and_then(|slot| slot.take_scratch())
        .and_then(|scratch| scratch.downcast::<EnvFile>().ok())
    else {
        return;
    };
    let parsed = file.read();
    // For the agent's shell commands, as in Claude Code; never for the
    // session's later hooks (DIALECTS.md "Round 4").
    notes.env = parsed.vars;
    notes.warnings.extend(parsed.warnings);
}

/// How a Claude Code hook's run ended, as its answer.
fn answer(
    hook: &ClaudeHook,
    termination: Termination,
    stdout: &[u8],
    stderr: &[u8],
    timeout: std::time::Duration,
) -> ClaudeAnswer {
    match termination {
        Termination::Exited(code) => decode(Some(code), stdout, stderr, hook.event.name()),
        Termination::Signaled(_) => decode(None, stdout, stderr, hook.event.name()),
        Termination::TimedOut => ClaudeAnswer::timed_out(timeout),
    }
}

/// The reason a hook with `onFailure: "block"` blocks with when it fails,
/// in Claude Code 2.1.332's words (the host scenario
/// `pre_on_failure_block`): `failed; blocking because onFailure is
/// "block"`, then the hook's stderr on a line of its own; `timed out; …`
/// with nothing after it for a hook past its timeout.
fn on_failure_reason(ended: &Ended<'_>) -> String {
    const WHY: &str = "blocking because onFailure is \"block\"";
    let (what, output) = match ended {
        Ok(finished) if finished.termination == Termination::TimedOut => {
            ("timed out", String::new())
        }
        Ok(finished) => (
            "failed",
            String::from_utf8_lossy(&finished.stderr).trim().to_owned(),
        ),
        Err(error) => (
            "failed",
            crate::dialect::Failure::CouldNotStart(error.to_string()).to_string(),
        ),
    };
    if output.is_empty() {
        format!("{what}; {WHY}")
    } else {
        format!("{what}; {WHY}\n{output}")
    }
}

/// A Claude Code answer in neutral terms: a failure is an `error` record that
/// lets the action proceed (never nanopi's report line), or blocks when the
/// hook fails closed (`onFailure: "block"`, or the host's policy: the spec's
/// [`fail_closed`](HookSpec::fail_closed)); `ask` asks, and `defer` is an ask
/// whose notes say [`deferred`](Notes::deferred) (without its context: Claude
/// Code drops `additionalContext` beside a defer). An `async`
/// hook's decision changes nothing: only its notes count.
fn neutral(hook: &ClaudeHook, fail_closed: bool, answer: ClaudeAnswer) -> (Verdict, Notes) {
    if let Some(error) = answer.error {
        // A hook in the background decides nothing.
        let closed = fail_closed && !hook.is_async;
        return (Verdict::failed(error, closed), Notes::default());
    }
    let mut notes = Notes {
        context: answer.context,
        user_messages: answer.user_messages,
        stop: answer.stop,
        follow_up: answer.follow_up,
        approved: answer.approved,
        // Claude Code's own table says whether its block takes effect here.
        block_honored: (answer.decision == ClaudeDecision::Block).then_some(answer.honored),
        warnings: answer.warnings,
        env: Vec::new(),
        session_title: answer.session_title,
        suppress_original_prompt: answer.suppress_original_prompt,
        initial_user_message: answer.initial_user_message,
        watch_paths: answer.watch_paths,
        updated_permissions: answer.updated_permissions,
        // A rewrite beside an ask is what the person is asked about.
        ask_input: match answer.decision {
            ClaudeDecision::Ask => answer.updated_input.clone(),
            _ => None,
        },
        deferred: answer.decision == ClaudeDecision::Defer,
        wake_up: None,
        ..Notes::default()
    };
    if notes.deferred {
        notes.context.clear();
    }
    let reason = || {
        answer
            .reason
            .clone()
            .unwrap_or_else(|| DEFAULT_BLOCK_REASON.into())
    };
    if hook.is_async {
        notes.stop = None;
        notes.approved = false;
        notes.block_honored = None;
        return (Verdict::Allow, notes);
    }
    let verdict = match answer.decision {
        ClaudeDecision::Block => Verdict::block(reason()),
        ClaudeDecision::Ask => Verdict::ask(reason()),
        ClaudeDecision::Defer => Verdict::ask(DEFERRED),
        _ => match (answer.updated_input, answer.updated_tool_output) {
            (Some(input), _) => Verdict::Transform(input),
            (None, Some(output)) => Verdict::Transform(tool_output_transform(&output)),
            (None, None) => Verdict::Allow,
        },
    };
    (verdict, notes)
}

/// An `asyncRewake` hook that exited 2 wakes the agent: its stderr, else
/// its stdout, is context for the model and the notes' wake-up.
fn wake_up(hook: &ClaudeHook, finished: &crate::process::Finished, notes: &mut Notes) {
    if !hook.rewake || finished.termination != Termination::Exited(2) {
        return;
    }
    let text = [&finished.stderr, &finished.stdout]
        .into_iter()
        .map(|bytes| String::from_utf8_lossy(bytes).trim().to_owned())
        .find(|text| !text.is_empty())
        .unwrap_or_else(|| format!("{} hook exited 2", hook.event.name()));
    notes.context.push(text.clone());
    notes.wake_up = Some(text);
}

/// The reason of a deferred call: Claude Code writes a defer's own reason to
/// its debug log only.
const DEFERRED: &str = "deferred by hook";

/// A model's answer to a Claude Code `prompt` or `agent` hook, as the hook's
/// answer: `ok: true` allows; `ok: false` means at each event what Claude Code
/// makes of it (the reference's table): at `Stop` and `SubagentStop` the agent
/// keeps going with the reason (unless `impossible: true`); at `PreToolUse`
/// and `PostToolUse` a block with the reason that also ends the turn
/// (`continue: false`), unless the hook continues on a block; at
/// `PostToolBatch`, `UserPromptSubmit` and `UserPromptExpansion` a block that
/// ends the turn; at `PostToolUseFailure` the reason goes to the model; at
/// `PermissionRequest`, nothing. The result is read as the same answer written
/// as JSON by a command hook would be.
fn model_answer(hook: &ClaudeHook, answer: Result<ModelAnswer, String>) -> ClaudeAnswer {
    let answer = match answer {
        Ok(answer) => answer,
        Err(error) => return ClaudeAnswer::with_error(error),
    };
    let (ok, impossible) = (answer.ok, answer.impossible);
    let reason = answer.reason.as_deref().unwrap_or("");
    use ClaudeEvent as C;
    let json = match (ok, hook.event) {
        (true, _) | (false, C::PermissionRequest) => serde_json::json!({}),
        (false, C::Stop | C::SubagentStop) if impossible => serde_json::json!({}),
        (false, C::PostToolUseFailure) if reason.trim().is_empty() => serde_json::json!({}),
        (false, C::PostToolUseFailure) => serde_json::json!({
            "hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": reason}
        }),
        (false, C::PreToolUse | C::PostToolUse) if hook.continue_on_block => {
            serde_json::json!({"decision": "block", "reason": reason})
        }
        (
            false,
            C::PreToolUse
            | C::PostToolUse
            | C::PostToolBatch
            | C::UserPromptSubmit
            | C::UserPromptExpansion,
        ) => {
            serde_json::json!({"decision": "block", "reason": reason, "continue": false, "stopReason": reason})
        }
        (false, _) => serde_json::json!({"decision": "block", "reason": reason}),
    };
    decode(Some(0), json.to_string().as_bytes(), b"", hook.event.name())
}

/// A policy server's response to a Claude Code `http` hook, as the hook's
/// answer: a 2xx with an empty body is a command that printed nothing, a 2xx
/// with a JSON object is read as that object on a command's stdout, and
/// anything else (another body, another status, no response) is a failure
/// that lets the action proceed. A status never blocks: a server that means
/// to block answers 2xx with the decision.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
fn http_answer(hook: &ClaudeHook, response: Result<(u16, &[u8]), String>) -> ClaudeAnswer {
    let error = ClaudeAnswer::with_error;
    let (status, body) = match response {
        Ok(response) => response,
        Err(failure) => return error(failure),
    };
    if !(200..300).contains(&status) {
        return error(format!(
            "the policy server answered HTTP {status}{}",
            shown_body(body)
        ));
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return decode(Some(0), b"", b"", hook.event.name());
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => {
            decode(Some(0), text.as_bytes(), b"", hook.event.name())
        }
        _ => error(format!(
            "the policy server answered HTTP {status} with a body that is not a JSON object{}",
            shown_body(body)
        )),
    }
}

/// `: <the body's first 200 characters>`, or nothing for an empty body.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
fn shown_body(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let mut shown: String = text.chars().take(200).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!(": {}", shown.replace(['\n', '\r'], " "))
}
