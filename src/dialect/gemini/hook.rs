//! A Gemini CLI hook as a hook of the stack: the [`HookSpec`] made from a
//! loaded [`GeminiEntry`], whether it runs for a request, the job it starts
//! and how its answer becomes a neutral [`Verdict`] and [`Notes`].

use std::any::Any;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::config::GeminiEntry;
use super::event::GeminiEvent;
use super::matcher::{GeminiMatcher, CWD_VAR, PROJECT_DIR_VAR, SESSION_ID_VAR};
use super::wire::{decode, stdin_bytes, GeminiAnswer, GeminiDecision};
use crate::dialect::{assemble, DialectHook, Encoded, Ended, JobParts};
use crate::event::Event;
use crate::outcome::{Notes, Verdict};
use crate::process::substitute::{substitute, Form};
use crate::process::Job;
use crate::request::{HookRequest, SeenName, ToolKind};
use crate::spec::{Dialect, HookSpec, Program};
use crate::BoxError;

/// What a Gemini CLI hook keeps on its spec.
#[derive(Debug)]
pub(crate) struct GeminiHook {
    /// The Gemini CLI event (`AfterTool`, not the neutral event).
    pub(crate) event: GeminiEvent,
    /// The definition's matcher.
    pub(crate) matcher: GeminiMatcher,
    /// The definition's `sequential`.
    pub(crate) sequential: bool,
    /// `GEMINI_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`.
    pub(crate) project_dir: Box<str>,
    /// The handler's `env`, added last.
    pub(crate) env: Vec<(String, String)>,
    /// The handler's `name`: what `hooksConfig.disabled` and the dedup know
    /// it by.
    pub(crate) name: Option<String>,
}

/// The hook spec of `entry`, from the file `source`, for the project at
/// `project_dir`; `index` is its position among its event's hooks in the file.
pub(crate) fn spec(entry: &GeminiEntry, source: &str, project_dir: &str, index: usize) -> HookSpec {
    let hook = GeminiHook {
        event: entry.event,
        // Compiled once per definition by the loader.
        matcher: entry.compiled.clone(),
        sequential: entry.sequential,
        project_dir: project_dir.into(),
        env: entry.env.clone(),
        name: entry.name.clone(),
    };
    let mut spec = HookSpec::command(entry.event.point(), entry.command.clone())
        .with_source(source, index)
        .with_timeout(entry.timeout)
        .with_program(Program::Bash)
        .with_dialect(Arc::new(hook));
    if let Some(name) = &entry.name {
        spec = spec.with_name(name.as_str());
    }
    spec.matcher = entry.matcher.clone();
    spec
}

impl DialectHook for GeminiHook {
    fn dialect(&self) -> Dialect {
        Dialect::Gemini
    }

    fn event_name<'a>(&'a self, _spec: &'a HookSpec) -> &'a str {
        self.event.name()
    }

    fn applies(&self, req: &HookRequest) -> bool {
        req.event() == self.event.point()
    }

    fn runs_for(&self, _spec: &HookSpec, req: &HookRequest) -> bool {
        if !self.applies(req) {
            return false;
        }
        match &self.matcher {
            GeminiMatcher::All => true,
            matcher => {
                let seen = crate::dialect::tool_name_seen(self, req);
                matcher.matches(req, seen.as_ref().map(seen_str))
            }
        }
    }

    fn encode(&self, req: &HookRequest, cwd: &str) -> Encoded {
        let seen = crate::dialect::tool_name_seen(self, req);
        let stdin = stdin_bytes(req, self.event, cwd, seen.as_ref().map(seen_str));
        let env = vec![
            (PROJECT_DIR_VAR.to_owned(), self.project_dir.to_string()),
            (
                crate::dialect::claude::PROJECT_DIR_VAR.to_owned(),
                self.project_dir.to_string(),
            ),
        ];
        let mut event_env = vec![
            (CWD_VAR.to_owned(), cwd.to_owned()),
            (
                SESSION_ID_VAR.to_owned(),
                req.session_id().unwrap_or("").to_owned(),
            ),
        ];
        event_env.extend(self.env.iter().cloned());
        Encoded {
            stdin,
            env,
            event_env,
            ..Default::default()
        }
    }

    fn job(&self, spec: Option<&HookSpec>, leaf: &JobParts<'_>, req: &HookRequest) -> Job {
        let vars = [
            (PROJECT_DIR_VAR, &*self.project_dir),
            (crate::dialect::claude::PROJECT_DIR_VAR, &*self.project_dir),
            (CWD_VAR, leaf.cwd),
            (SESSION_ID_VAR, req.session_id().unwrap_or("")),
        ];
        let command = pre_expand(leaf.command, &vars);
        let parts = JobParts {
            command: &command,
            env: leaf.env,
            current_dir: leaf.current_dir,
            host: leaf.host,
            cwd: leaf.cwd,
        };
        assemble(spec, &parts, req, self.encode(req, leaf.cwd))
    }

    fn finish(
        &self,
        spec: Option<&HookSpec>,
        req: &HookRequest,
        ended: Ended<'_>,
    ) -> Result<(Verdict, Notes), BoxError> {
        let timeout = spec.map(HookSpec::timeout);
        let answer = match ended {
            Ok(finished) => decode(
                self.event,
                finished.termination,
                &finished.stdout,
                &finished.stderr,
                timeout,
            ),
            Err(error) => GeminiAnswer::failed(format!("could not start: {error}")),
        };
        Ok(neutral(
            self,
            req,
            spec.is_some_and(HookSpec::fail_closed),
            answer,
        ))
    }

    fn made_tool_name(&self, kind: ToolKind, host: &str) -> Option<Arc<str>> {
        (kind == ToolKind::Mcp).then(|| mcp_name(host)).flatten()
    }

    fn runs_group_in_order(&self) -> bool {
        // The allowed tools of several hooks add up: each hook's are added
        // to what the ones before it left.
        self.sequential || self.event == GeminiEvent::BeforeToolSelection
    }

    fn chained_arguments(
        &self,
        event: Event,
        seen: &Value,
        updated: &Map<String, Value>,
    ) -> Option<Value> {
        // Gemini CLI feeds the next hook of a `sequential` run the
        // `tool_input` merged over what the hook saw; the tool still gets
        // the last `tool_input` alone.
        if event != Event::ToolExecutionStart || self.event != GeminiEvent::BeforeTool {
            return None;
        }
        let mut next = seen.as_object().cloned().unwrap_or_default();
        next.extend(updated.clone());
        Some(Value::Object(next))
    }

    fn blocks_where_the_event_drops_them(&self) -> bool {
        // The model sees the reason instead of the tool's result.
        self.event == GeminiEvent::AfterTool
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn seen_str<'a>(seen: &'a SeenName<'_>) -> &'a str {
    match seen {
        SeenName::Static(name) => name,
        SeenName::Shared(name) => name,
        SeenName::Made(name) => name,
    }
}

/// `mcp_<server>_<tool>` for an MCP tool the host calls `mcp__server__tool`
/// (or `mcp:server:tool`); `None` when it already has Gemini CLI's form.
fn mcp_name(host: &str) -> Option<Arc<str>> {
    let rest = host
        .strip_prefix("mcp__")
        .map(|rest| rest.split("__").collect::<Vec<_>>())
        .or_else(|| {
            host.strip_prefix("mcp:")
                .map(|rest| rest.split(':').collect())
        })?;
    Some(format!("mcp_{}", rest.join("_")).into())
}

/// `command` with each `$NAME` of `vars` (not followed by a character of a
/// name) replaced by its value, quoted for where it lands, as Gemini CLI
/// does before the shell runs; `${NAME}` is left to the shell, which has the
/// same values in its environment.
fn pre_expand(command: &Arc<str>, vars: &[(&str, &str)]) -> Arc<str> {
    let find = |text: &str, i: usize| {
        let rest = text.as_bytes().get(i..)?.strip_prefix(b"$")?;
        vars.iter().find_map(|(name, value)| {
            let after = rest.strip_prefix(name.as_bytes())?;
            let ends = after
                .first()
                .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
            ends.then_some((name.len() + 1, *value))
        })
    };
    match substitute(command, Form::Bash, find) {
        std::borrow::Cow::Borrowed(_) => command.clone(),
        std::borrow::Cow::Owned(expanded) => expanded.into(),
    }
}

/// A Gemini CLI answer in neutral terms: a failure lets the action proceed
/// (an `error` record), or blocks when the hook fails closed; a block at an
/// event that ignores decisions is left to the event's policy (dropped).
fn neutral(
    hook: &GeminiHook,
    req: &HookRequest,
    fail_closed: bool,
    answer: GeminiAnswer,
) -> (Verdict, Notes) {
    if let Some(error) = answer.error {
        return (Verdict::failed(error, fail_closed), Notes::default());
    }
    if answer.warning && fail_closed {
        // A non-blocking error is still an error: it decides nothing.
        let text = answer.user_messages.join("\n");
        return (Verdict::failed(text, true), Notes::default());
    }
    let mut notes = Notes {
        context: answer.context.into_iter().collect(),
        user_messages: answer.user_messages,
        stop: answer.stop,
        ..Notes::default()
    };
    let event = hook.event;
    let verdict = match answer.decision {
        GeminiDecision::Block => {
            match event {
                // The model sees the reason instead of the tool's result.
                GeminiEvent::AfterTool => notes.block_honored = Some(true),
                // The turn is refused: the person sees why.
                GeminiEvent::BeforeAgent => notes.user_messages.push(answer.reason.clone()),
                _ => {}
            }
            Verdict::block(answer.reason)
        }
        GeminiDecision::Ask => Verdict::ask(answer.reason),
        GeminiDecision::Allow
            if answer.ignored_block && event != GeminiEvent::BeforeToolSelection =>
        {
            // Recorded as the block it is, dropped without a report line.
            notes.block_honored = Some(false);
            Verdict::block(answer.reason)
        }
        GeminiDecision::Allow => match rewrite(event, req.arguments(), &answer.specific) {
            Some(arguments) => Verdict::Transform(arguments),
            None => Verdict::Allow,
        },
    };
    (verdict, notes)
}

/// The arguments after the rewrite a hook's `hookSpecificOutput` asks for at
/// `event`, if it asks for one: `tool_input` in place of the tool's input
/// (`BeforeTool`: Gemini CLI runs the tool with it alone, and checks it
/// against the tool's parameters; a `sequential` hook after it sees it
/// merged over the input, see `chained_arguments`); `llm_request` merged
/// shallowly over the model request (`BeforeModel`); an `llm_response` with content in place of the
/// model's (`AfterModel`); `toolConfig` added to the request's
/// (`BeforeToolSelection`: the allowed functions add up, and `NONE` beats
/// `ANY`, which beats `AUTO`).
fn rewrite(
    event: GeminiEvent,
    current: &Value,
    specific: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let mut args = current.as_object().cloned().unwrap_or_default();
    match event {
        GeminiEvent::BeforeTool => {
            let Some(Value::Object(input)) = specific.get("tool_input") else {
                return None;
            };
            args = input.clone();
        }
        GeminiEvent::BeforeModel => {
            let Some(Value::Object(request)) = specific.get("llm_request") else {
                return None;
            };
            merge_into(&mut args, "llm_request", request);
        }
        GeminiEvent::AfterModel => {
            let response = specific.get("llm_response")?;
            let parts = response
                .pointer("/candidates/0/content/parts")
                .and_then(Value::as_array);
            if parts.is_none_or(Vec::is_empty) {
                return None;
            }
            args.insert("llm_response".into(), response.clone());
        }
        GeminiEvent::BeforeToolSelection => {
            let Some(Value::Object(config)) = specific.get("toolConfig") else {
                return None;
            };
            let request = args
                .entry("llm_request")
                .or_insert_with(|| Value::Object(Map::new()));
            if !request.is_object() {
                *request = Value::Object(Map::new());
            }
            let request = request.as_object_mut()?;
            let merged = union(request.get("toolConfig"), config);
            request.insert("toolConfig".into(), Value::Object(merged));
        }
        _ => return None,
    }
    Some(args)
}

/// `args[key]`, an object, with `fields` over it.
fn merge_into(args: &mut Map<String, Value>, key: &str, fields: &Map<String, Value>) {
    let slot = args.entry(key).or_insert_with(|| Value::Object(Map::new()));
    match slot {
        Value::Object(current) => current.extend(fields.clone()),
        other => *other = Value::Object(fields.clone()),
    }
}

/// Two tool configs as one: the union of their `allowedFunctionNames` (in
/// the order first seen), and the stronger `mode`.
fn union(current: Option<&Value>, added: &Map<String, Value>) -> Map<String, Value> {
    let rank = |mode: Option<&str>| match mode {
        Some("NONE") => 3,
        Some("ANY") => 2,
        Some("AUTO") => 1,
        _ => 0,
    };
    let mut out = current
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mode_now = out.get("mode").and_then(Value::as_str).map(str::to_owned);
    let mode_new = added.get("mode").and_then(Value::as_str);
    if rank(mode_new) > rank(mode_now.as_deref()) {
        out.insert("mode".into(), added["mode"].clone());
    }
    let mut names: Vec<Value> = out
        .get("allowedFunctionNames")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for name in added
        .get("allowedFunctionNames")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    if !names.is_empty() || out.contains_key("allowedFunctionNames") {
        out.insert("allowedFunctionNames".into(), Value::Array(names));
    }
    for (key, value) in added {
        if key != "mode" && key != "allowedFunctionNames" {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// Gemini CLI's name for a tool of `kind` the host calls `host`.
    fn kind_tool_name(kind: ToolKind, host: &str) -> Option<&'static str> {
        let names = Dialect::Gemini.tool_names().unwrap();
        crate::dialect::kind_tool_name(names, kind, host)
    }

    #[test]
    fn tool_names() {
        assert_eq!(
            kind_tool_name(ToolKind::Shell, "bash"),
            Some("run_shell_command")
        );
        assert_eq!(kind_tool_name(ToolKind::Edit, "Edit"), Some("replace"));
        assert_eq!(kind_tool_name(ToolKind::Write, "Write"), Some("write_file"));
        assert_eq!(kind_tool_name(ToolKind::Read, "read_file"), None);
        assert_eq!(
            mcp_name("mcp__github__create_issue").as_deref(),
            Some("mcp_github_create_issue")
        );
        assert_eq!(mcp_name("mcp_github_create_issue"), None);
    }

    #[test]
    fn matchers() {
        let req = HookRequest::tool_execution_start("run_shell_command", json!({}));
        let m = |w| GeminiMatcher::new(GeminiEvent::BeforeTool, Some(w));
        assert!(m("shell").matches(&req, Some("run_shell_command")));
        assert!(!m("^shell").matches(&req, Some("run_shell_command")));
        assert!(matches!(m("run_shell_command("), GeminiMatcher::Literal(_)));
        let start = HookRequest::new(Event::SessionStart, json!({"reason": "startup"}));
        let e = |w| GeminiMatcher::new(GeminiEvent::SessionStart, Some(w));
        assert!(e("startup").matches(&start, None));
        assert!(!e("startup|resume").matches(&start, None));
        assert!(matches!(
            GeminiMatcher::new(GeminiEvent::BeforeModel, Some("x")),
            GeminiMatcher::All
        ));
    }

    #[test]
    fn tool_input_replaces_and_requests_merge_shallowly() {
        let cur = json!({"command": "ls", "description": "d"});
        let out = rewrite(
            GeminiEvent::BeforeTool,
            &cur,
            &obj(json!({"tool_input": {"command": "ls -la"}})),
        );
        assert_eq!(Value::Object(out.unwrap()), json!({"command": "ls -la"}));
        assert!(rewrite(
            GeminiEvent::BeforeTool,
            &cur,
            &obj(json!({"tool_input": ["ls"]}))
        )
        .is_none());
        let cur = json!({"llm_request": {"model": "a", "config": {"t": 1}}});
        let out = rewrite(
            GeminiEvent::BeforeModel,
            &cur,
            &obj(json!({"llm_request": {"model": "b"}})),
        );
        assert_eq!(
            Value::Object(out.unwrap()),
            json!({"llm_request": {"model": "b", "config": {"t": 1}}})
        );
        let empty = json!({"llm_response": {"candidates": [{"content": {"parts": []}}]}});
        assert!(rewrite(GeminiEvent::AfterModel, &cur, &obj(empty)).is_none());
    }

    #[test]
    fn tool_configs_add_up() {
        let a = union(
            None,
            &obj(json!({"mode": "ANY", "allowedFunctionNames": ["read_file", "glob"]})),
        );
        let b = union(
            Some(&Value::Object(a)),
            &obj(json!({"mode": "AUTO", "allowedFunctionNames": ["read_file", "grep"]})),
        );
        assert_eq!(
            Value::Object(b),
            json!({"mode": "ANY", "allowedFunctionNames": ["read_file", "glob", "grep"]})
        );
    }

    #[test]
    fn project_dir_tokens_are_expanded_as_one_word() {
        let cmd: Arc<str> =
            "$GEMINI_PROJECT_DIR/hooks/x.sh $GEMINI_PROJECT_DIRX ${GEMINI_CWD}".into();
        let out = pre_expand(&cmd, &[("GEMINI_PROJECT_DIR", "/my proj")]);
        assert_eq!(
            &*out,
            "'/my proj'/hooks/x.sh $GEMINI_PROJECT_DIRX ${GEMINI_CWD}"
        );
    }
}
