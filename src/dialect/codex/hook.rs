//! A Codex handler as a hook of the stack: its spec, whether it runs for a
//! request, the job it starts (`$SHELL -lc`) and how its answer becomes a
//! neutral [`Verdict`] and [`Notes`].

use std::any::Any;
use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::config::CodexHandler;
use super::event::CodexEvent;
use super::matcher::{tool_aliases, CodexMatcher};
use super::patch;
use super::wire::{decode, CodexAnswer, CodexDecision};
use crate::dialect::claude::{stdin_bytes, Envelope};
use crate::dialect::Failure;
use crate::dialect::{assemble, DialectHook, Encoded, Ended, JobParts};
use crate::event::Event;
use crate::outcome::{Notes, Termination, Verdict};
use crate::process::Job;
use crate::request::HookRequest;
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
        // The name and its aliases, tested in place: a skip allocates nothing.
        let subject = subject(self, req);
        let aliases = tool_aliases(&subject);
        self.matcher
            .matches_any(std::iter::once(&*subject).chain(aliases.iter().copied()))
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

    fn finish(
        &self,
        spec: Option<&HookSpec>,
        req: &HookRequest,
        ended: Ended<'_>,
    ) -> Result<(Verdict, Notes), BoxError> {
        let mut answer = match ended {
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
        let tool = crate::dialect::tool_name(self, req);
        let rewritten = match &mut answer.decision {
            CodexDecision::Rewrite(input) => host_input(tool, req, input),
            _ => Ok(()),
        };
        if let Err(error) = rewritten {
            // Codex refuses the call with the error as its result (the hook
            // itself completed): the rewrite the hook asked for cannot run,
            // and the call as it was is not what the hook allowed.
            answer.decision = CodexDecision::Block(error);
        }
        Ok(neutral(
            self,
            spec.is_some_and(HookSpec::fail_closed),
            answer,
        ))
    }

    fn blocks_where_the_event_drops_them(&self) -> bool {
        // The model sees the reason instead of the tool's result.
        self.event == CodexEvent::PostToolUse
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The call's arguments as a patch, where the hook sees `apply_patch` for
/// a host's edit or write tool of another shape.
fn as_patch(tool: Option<&str>, req: &HookRequest) -> Option<String> {
    let args = req.arguments();
    let input = match req.event() {
        // After the call, the arguments hold the input beside the result.
        Event::ToolExecutionEnd => args.get("tool_input")?,
        _ => args,
    };
    (tool == Some("apply_patch") && patch::needs_patch(input))
        .then(|| patch::to_patch(input))
        .flatten()
}

/// A rewrite's `updatedInput` made the host's arguments: Codex's shell and
/// patch tools take one string, `command`, and a patch written for a host
/// tool of another shape is read back into that tool's arguments. The error
/// is what the model is told of a rewrite that cannot run.
fn host_input(
    tool: Option<&str>,
    req: &HookRequest,
    input: &mut Map<String, Value>,
) -> Result<(), String> {
    if !matches!(tool, Some("Bash" | "apply_patch")) {
        return Ok(());
    }
    let Some(command) = input.get("command").and_then(Value::as_str) else {
        // Codex 0.171's own words (the host scenario
        // `pre_rewrite_without_command_refuses_the_call`).
        return Err("hook returned updatedInput without string field `command`".into());
    };
    if let Some(sent) = as_patch(tool, req) {
        let host = req.tool_name().unwrap_or_default();
        *input = patch::from_patch(command, &sent, req.arguments()).map_err(|why| {
            format!(
                "hook returned an apply_patch updatedInput that the {host} tool cannot take: {why}"
            )
        })?;
    }
    Ok(())
}

/// What a Codex hook's matcher is tested against: the tool's Codex name on
/// the tool events, else the Claude Code subject of the same event
/// (`source`, `trigger`, `agent_type`, `reason`); empty where the matcher
/// is ignored.
fn subject<'r>(hook: &CodexHook, req: &'r HookRequest) -> Cow<'r, str> {
    let Some(claude) = hook.event.claude() else {
        return Cow::Borrowed("");
    };
    let tool = crate::dialect::tool_name(hook, req);
    crate::dialect::claude::matcher::subject_seen(claude, req, tool)
}

/// The fields that open a Codex envelope, in the order Codex 0.171 writes
/// them (the `stdin_key_order` host scenario); the event's own fields
/// follow, in Claude Code's order but for [`TAIL`].
const HEAD: [&str; 7] = [
    "session_id",
    "turn_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "model",
    "permission_mode",
];

/// The fields a Codex envelope ends with, in Codex's order: a tool call's
/// id after its input and result, a stop's flag before its last message.
const TAIL: [&str; 3] = ["tool_use_id", "stop_hook_active", "last_assistant_message"];

/// Whether Codex writes `key` of the head at `event`, when the host gave
/// no value: `turn_id` only on events inside a turn, `model` and
/// `permission_mode` not at SessionEnd.
fn in_head(event: CodexEvent, key: &str) -> bool {
    match key {
        "turn_id" => !matches!(event, CodexEvent::SessionStart | CodexEvent::SessionEnd),
        "model" | "permission_mode" => event != CodexEvent::SessionEnd,
        _ => true,
    }
}

/// The stdin of a Codex hook: Claude Code's envelope of the same event, with
/// Codex's differences: the head's order, `transcript_path` `null` when
/// unknown, `model` and `turn_id` there (`null` when the host gives none),
/// Codex's `apply_patch` input for another host's edit, and one compact
/// object with no newline after it.
fn stdin(hook: &CodexHook, req: &HookRequest, cwd: &str) -> Vec<u8> {
    let mut envelope = Envelope::new(cwd).with_event_name(hook.event.name());
    let tool = crate::dialect::tool_name(hook, req);
    if let Some(tool) = tool {
        envelope = envelope.with_tool_name(tool);
    }
    let mut claude = stdin_bytes(req, &envelope);
    while claude.last() == Some(&b'\n') {
        claude.pop();
    }
    let Ok(Fields(mut fields)) = serde_json::from_slice::<Fields>(&claude) else {
        // Claude Code's envelope is always one object; keep it as it is.
        return claude;
    };
    if hook.event == CodexEvent::PermissionRequest {
        fields.retain(|(key, _)| key != "tool_use_id");
    }
    if let Some(patch) = as_patch(tool, req) {
        // Another host's edit or write, as Codex's `apply_patch` takes it.
        if let Some((_, input)) = fields.iter_mut().find(|(key, _)| key == "tool_input") {
            *input = serde_json::json!({ "command": patch });
        }
    }
    let mut take = |key: &str| {
        let at = fields.iter().position(|(k, _)| k == key)?;
        Some(fields.remove(at).1)
    };
    let mut head: Vec<(String, Value)> = Vec::with_capacity(HEAD.len());
    for key in HEAD {
        let value = match take(key) {
            Some(Value::String(path)) if key == "transcript_path" && path.is_empty() => Value::Null,
            Some(value) if !value.is_null() => value,
            _ if !in_head(hook.event, key) => continue,
            _ => Value::Null,
        };
        head.push((key.to_owned(), value));
    }
    let tail: Vec<(String, Value)> = TAIL
        .iter()
        .filter_map(|&key| Some((key.to_owned(), take(key)?)))
        .collect();
    let fields = fields.into_iter().chain(tail);
    // The head, then the event's fields in the order Claude Code writes them.
    let mut out = vec![b'{'];
    for (i, (key, value)) in head.into_iter().chain(fields).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend(serde_json::to_vec(&key).unwrap_or_default());
        out.push(b':');
        out.extend(serde_json::to_vec(&value).unwrap_or_default());
    }
    out.push(b'}');
    out
}

/// A JSON object's fields in the order they are written.
struct Fields(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Fields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// A Codex answer in neutral terms. A failed run lets the action proceed
/// (recorded as an error), or blocks when the hook fails closed by the
/// host's policy. A block at `Stop` / `SubagentStop` keeps the agent going
/// (the event's own rule); `continue: false` there beats every block of the
/// group: the stop is set and the blocks are not honored. An `async` hook's
/// decisions change nothing; its context and messages are kept.
fn neutral(hook: &CodexHook, fail_closed: bool, answer: CodexAnswer) -> (Verdict, Notes) {
    if let Some(error) = answer.error {
        let closed = fail_closed && !hook.is_async;
        return (Verdict::failed(error, closed), Notes::default());
    }
    let mut notes = Notes {
        context: answer.context,
        user_messages: answer.user_messages,
        stop: answer.stop,
        updated_permissions: answer.updated_permissions,
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
            if hook.event == CodexEvent::UserPromptSubmit {
                // The person is told why the prompt was refused; the model
                // never sees it.
                notes.user_messages.push(reason.clone());
            }
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
        (CodexEvent::PostToolUse, Some(reason)) => {
            // `continue: false` after a tool replaces its result with the
            // reason, and the turn goes on (Codex 0.171, seen by the
            // `post_continue_false` scenario): no stop.
            notes.stop = None;
            notes.block_honored = Some(true);
            match verdict {
                Verdict::Block { .. } => (verdict, notes),
                _ => (Verdict::block(reason), notes),
            }
        }
        (CodexEvent::UserPromptSubmit, Some(reason))
            if !matches!(verdict, Verdict::Block { .. }) =>
        {
            // A stop drops the prompt.
            notes.block_honored = Some(true);
            (Verdict::block(reason), notes)
        }
        _ => (verdict, notes),
    }
}
