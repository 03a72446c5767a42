//! A Codex handler as a hook of the stack: its spec, whether it runs for a
//! request, the job it starts (`$SHELL -lc`) and how its answer becomes a
//! neutral [`Verdict`] and [`Notes`].

use std::any::Any;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::config::CodexHandler;
use super::event::CodexEvent;
use super::matcher::{tool_aliases, CodexMatcher};
use super::wire::{decode, CodexAnswer, CodexDecision};
use crate::dialect::claude::{stdin_bytes, Envelope, Failure};
use crate::dialect::{assemble, DialectHook, Encoded, Ended, JobParts};
use crate::event::Event;
use crate::outcome::{Notes, Termination, Verdict};
use crate::process::Job;
use crate::request::{HookRequest, ToolKind};
use crate::spec::{Dialect, HookKind, HookSpec, Program};
use crate::BoxError;

/// The variables a plugin's hooks get: its root, twice, and its data folder,
/// twice.
pub const PLUGIN_VARS: [&str; 4] = [
    "PLUGIN_ROOT",
    "CLAUDE_PLUGIN_ROOT",
    "PLUGIN_DATA",
    "CLAUDE_PLUGIN_DATA",
];

/// What a Codex hook keeps on its spec.
#[derive(Debug)]
pub(crate) struct CodexHook {
    /// Its event.
    pub(crate) event: CodexEvent,
    /// Its group's matcher.
    pub(crate) matcher: CodexMatcher,
    /// A plugin's root and data folder.
    pub(crate) plugin: Option<(Box<str>, Box<str>)>,
    /// `async`: the call does not wait, and its decisions change nothing.
    pub(crate) is_async: bool,
}

/// The spec of a loaded handler from the file at `source`; `plugin` is a
/// plugin's root and data folder.
pub(crate) fn spec(
    handler: &CodexHandler,
    source: &Path,
    plugin: Option<(Box<str>, Box<str>)>,
) -> HookSpec {
    let hook = CodexHook {
        event: handler.event,
        matcher: handler.pattern.clone(),
        plugin,
        is_async: handler.is_async,
    };
    let mut spec = HookSpec::command(handler.event.event(), handler.command.as_str())
        .with_source(source.display().to_string(), handler.index)
        .with_timeout(handler.timeout)
        .with_program(Program::Sh)
        .with_background(handler.is_async)
        .with_dialect(Arc::new(hook));
    match handler.kind.as_str() {
        "command" => {}
        "prompt" => spec = spec.with_kind(HookKind::Prompt),
        "agent" => spec = spec.with_kind(HookKind::Agent),
        other => spec = spec.with_kind(HookKind::Other(other.into())),
    }
    if handler.kind != "command" {
        spec = spec.with_disabled(format!(
            "Codex does not run {} handlers yet, so neither does this host",
            handler.kind
        ));
    }
    spec.matcher = handler.matcher.clone();
    spec
}

impl DialectHook for CodexHook {
    fn dialect(&self) -> Dialect {
        Dialect::Codex
    }

    fn event_name<'a>(&'a self, _spec: &'a HookSpec) -> &'a str {
        self.event.name()
    }

    fn applies(&self, req: &HookRequest) -> bool {
        match self.event {
            CodexEvent::Interrupt => {
                req.event() == Event::Named && req.named_event() == Some("Interrupt")
            }
            event if event.event() == Event::Named => false,
            _ => {
                // A Claude Code name fired by the host names Codex's event too;
                // `PostToolUseFailure` is Codex's `PostToolUse`.
                if req.event() == Event::Named {
                    return req.named_event() == Some(self.event.name());
                }
                req.event() == self.event.event()
            }
        }
    }

    fn runs_for(&self, _spec: &HookSpec, req: &HookRequest) -> bool {
        if !self.applies(req) {
            return false;
        }
        let subject = subject(self, req);
        let mut subjects = vec![subject.as_str()];
        subjects.extend_from_slice(tool_aliases(&subject));
        self.matcher.matches(&subjects)
    }

    fn encode(&self, req: &HookRequest, cwd: &str) -> Encoded {
        let env = match &self.plugin {
            Some((root, data)) => [root, root, data, data]
                .iter()
                .zip(PLUGIN_VARS)
                .map(|(value, name)| (name.to_owned(), value.to_string()))
                .collect(),
            None => Vec::new(),
        };
        Encoded {
            stdin: stdin(self, req, cwd),
            env,
            ..Default::default()
        }
    }

    fn job(&self, spec: Option<&HookSpec>, leaf: &JobParts<'_>, req: &HookRequest) -> Job {
        let mut job = assemble(spec, leaf, req, self.encode(req, leaf.cwd));
        // `$SHELL -lc <command>`, a login shell, else `/bin/sh -lc`.
        let shell = leaf
            .env
            .iter()
            .find(|(name, _)| name == "SHELL")
            .map(|(_, value)| value.clone())
            .or_else(|| std::env::var("SHELL").ok())
            .filter(|shell| !shell.is_empty())
            .unwrap_or_else(|| "/bin/sh".into());
        job.program = Program::Exec(Arc::from(["-lc".to_owned(), leaf.command.to_string()]));
        job.command = shell.into();
        job
    }

    fn kind_tool_name(&self, kind: ToolKind, host: &str) -> Option<&'static str> {
        kind_tool_name(kind, host)
    }

    fn group_block_reason(&self, _event: Event, reasons: Vec<String>) -> String {
        if self.event.is_stop() {
            // Every Stop block's reason, one continuation prompt.
            return reasons.join("\n\n");
        }
        // The first block in configured order gives the reason.
        reasons.into_iter().next().unwrap_or_default()
    }

    fn finish(
        &self,
        spec: Option<&HookSpec>,
        _req: &HookRequest,
        ended: Ended<'_>,
    ) -> Result<(Verdict, Notes), BoxError> {
        let answer = match ended {
            Ok(finished) => match finished.termination {
                Termination::Exited(code) => {
                    decode(self.event, Some(code), &finished.stdout, &finished.stderr)
                }
                Termination::Signaled(_) => {
                    decode(self.event, None, &finished.stdout, &finished.stderr)
                }
                Termination::TimedOut => CodexAnswer::failed(format!(
                    "hook timed out after {}s",
                    spec.map(HookSpec::timeout).unwrap_or_default().as_secs()
                )),
            },
            Err(error) => {
                CodexAnswer::failed(Failure::CouldNotStart(error.to_string()).to_string())
            }
        };
        Ok(neutral(
            self,
            spec.is_some_and(HookSpec::fail_closed),
            answer,
        ))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Codex's name for a tool of `kind`: `Bash` for a shell tool,
/// `apply_patch` for an edit or a write; `None` (the host's name) for the
/// others and for a name that is already Codex's.
fn kind_tool_name(kind: ToolKind, host: &str) -> Option<&'static str> {
    if matches!(host, "Bash" | "apply_patch" | "spawn_agent") {
        return None;
    }
    match kind {
        ToolKind::Shell => Some("Bash"),
        ToolKind::Edit | ToolKind::Write => Some("apply_patch"),
        _ => None,
    }
}

/// What a Codex hook's matcher is tested against: the tool's Codex name on
/// the tool events, else the Claude Code subject of the same event
/// (`source`, `trigger`, `agent_type`, `reason`); empty where the matcher
/// is ignored.
fn subject(hook: &CodexHook, req: &HookRequest) -> String {
    let Some(claude) = hook.event.claude() else {
        return String::new();
    };
    let tool = crate::dialect::tool_name(hook, req);
    crate::dialect::claude::matcher::subject_seen(claude, req, tool).into_owned()
}

/// Fields Codex writes that Claude Code does not, `null` when the host
/// gives none.
const CODEX_FIELDS: [&str; 2] = ["model", "turn_id"];

/// The stdin of a Codex hook: Claude Code's envelope of the same event, with
/// Codex's differences: `transcript_path` is `null` when unknown, `model`
/// and `turn_id` are there (`null` when the host gives none), and it is one
/// compact object with no newline after it.
fn stdin(hook: &CodexHook, req: &HookRequest, cwd: &str) -> Vec<u8> {
    let mut envelope = Envelope::new(cwd).with_event_name(hook.event.name());
    let tool = crate::dialect::tool_name(hook, req);
    if let Some(tool) = tool {
        envelope = envelope.with_tool_name(tool);
    }
    let claude = stdin_bytes(req, &envelope);
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(&claude) else {
        // Claude Code's envelope is always one object; keep it as it is.
        let mut bytes = claude;
        while bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        return bytes;
    };
    if object.get("transcript_path").and_then(Value::as_str) == Some("") {
        object.insert("transcript_path".into(), Value::Null);
    }
    for field in CODEX_FIELDS {
        object.entry(field).or_insert(Value::Null);
    }
    if hook.event == CodexEvent::PermissionRequest {
        object.remove("tool_use_id");
    }
    serde_json::to_vec(&object).unwrap_or_default()
}

/// A Codex answer in neutral terms. A failed run lets the action proceed
/// (recorded as an error), or blocks when the hook fails closed by the
/// host's policy. A block at `Stop` / `SubagentStop` keeps the agent going
/// (the event's own rule); `continue: false` there beats every block of the
/// group: the stop is set and the blocks are not honored. An `async` hook's
/// decisions change nothing; its context and messages are kept.
fn neutral(hook: &CodexHook, fail_closed: bool, answer: CodexAnswer) -> (Verdict, Notes) {
    if let Some(error) = answer.error {
        if fail_closed && !hook.is_async {
            return (Verdict::failed_closed(error), Notes::default());
        }
        return (Verdict::failed_open(error), Notes::default());
    }
    let mut notes = Notes {
        context: answer.context,
        user_messages: answer.user_messages,
        stop: answer.stop,
        ..Notes::default()
    };
    if hook.is_async {
        notes.stop = None;
        return (Verdict::Allow, notes);
    }
    let stopped = notes.stop.clone();
    let verdict = match answer.decision {
        CodexDecision::Allow => Verdict::Allow,
        CodexDecision::Rewrite(input) => Verdict::Transform(input),
        CodexDecision::Approve => {
            notes.approved = true;
            Verdict::Allow
        }
        CodexDecision::Block(reason) => {
            if !hook.event.is_stop() {
                // Codex's block takes effect at every event that has one
                // (PostToolUse: the model sees the reason instead of the result).
                notes.block_honored = Some(true);
            }
            Verdict::block(reason)
        }
    };
    match (hook.event, stopped) {
        (event, Some(_)) if event.is_stop() => {
            // `continue: false` outranks every block of the group.
            notes.block_honored = Some(false);
            (verdict, notes)
        }
        (CodexEvent::UserPromptSubmit | CodexEvent::PostToolUse, Some(reason))
            if !matches!(verdict, Verdict::Block { .. }) =>
        {
            // A stop drops the prompt, or replaces the tool result.
            notes.block_honored = Some(true);
            (Verdict::block(reason), notes)
        }
        _ => (verdict, notes),
    }
}
