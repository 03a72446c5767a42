//! What the core asks of a hook's dialect: the [`DialectHook`] each spec
//! carries, and what a dialect's encoder hands the command leaf. The
//! dialects implement it in their folders (`src/dialect/`); the core names no
//! dialect.

use std::any::Any;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::HookSpec;
use crate::event::Event;
use crate::host::Host;
use crate::outcome::model_answer::ModelAnswer;
use crate::outcome::{Notes, Verdict};
use crate::process::persistent::PROTOCOL_VAR;
use crate::process::{Finished, Job};
use crate::profile::Dialect;
use crate::request::{HookRequest, ToolKind};
use crate::BoxError;

/// What a dialect does with one of its hooks: a crate-private trait object
/// on every [`HookSpec`], so that the layers never name a dialect.
///
/// Each dialect's loader puts its own implementation on the specs it makes
/// (with what it needs: the event's name as written, a Claude Code `if`
/// rule, a Cursor session store); a spec made by hand gets nanopi's.
pub(crate) trait DialectHook: fmt::Debug + Send + Sync + 'static {
    /// The dialect it speaks.
    fn dialect(&self) -> Dialect;

    /// The event as the hook's file names it (`PreToolUse`, `preToolUse`,
    /// `tool_execution_start`).
    fn event_name<'a>(&'a self, spec: &'a HookSpec) -> &'a str {
        spec.event().name()
    }

    /// Whether the hook is part of a call of `req` at all, matcher aside (a
    /// Cursor `beforeShellExecution` hook is not part of a read tool's
    /// call). A hook that is not neither runs nor appears in the records.
    fn applies(&self, _req: &HookRequest) -> bool {
        true
    }

    /// Whether the hook runs for `req`: its matcher, and whatever else its
    /// dialect tests (Claude Code's `if`).
    fn runs_for(&self, spec: &HookSpec, req: &HookRequest) -> bool;

    /// What the hook is given: stdin bytes, variables, a directory.
    fn encode(&self, req: &HookRequest, cwd: &str) -> Encoded;

    /// What a hook that is not a command (a model hook, an HTTP hook) is
    /// given in place of stdin: by default the stdin it would read.
    fn input(&self, req: &HookRequest, cwd: &str) -> Vec<u8> {
        self.encode(req, cwd).stdin
    }

    /// The job that runs the command `spec` of this dialect for `req`.
    fn job(&self, spec: Option<&HookSpec>, leaf: &JobParts<'_>, req: &HookRequest) -> Job {
        assemble(spec, leaf, req, self.encode(req, leaf.cwd))
    }

    /// How a run ended, as the neutral verdict and notes. `Err` is a run
    /// that could not give an answer, for the fail-open layer to report
    /// (nanopi's report line); the other dialects answer every failure
    /// themselves.
    fn finish(
        &self,
        spec: Option<&HookSpec>,
        req: &HookRequest,
        ended: Ended<'_>,
    ) -> Result<(Verdict, Notes), BoxError>;

    /// A model's answer, for a dialect with model-evaluated hooks; `Err` is
    /// an answer that could not be had or read. `None`: this dialect has
    /// none.
    fn model_answer(
        &self,
        _spec: &HookSpec,
        _req: &HookRequest,
        _answer: Result<ModelAnswer, String>,
    ) -> Option<(Verdict, Notes)> {
        None
    }

    /// A policy server's response (`Ok((status, body))` or why none came),
    /// for a dialect with HTTP hooks; `None`: this dialect has none.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    fn http_answer(
        &self,
        _spec: &HookSpec,
        _response: Result<(u16, &[u8]), String>,
    ) -> Option<(Verdict, Notes)> {
        None
    }

    /// An MCP tool's text output (or why none came), for a dialect with MCP
    /// tool hooks; `None`: this dialect has none.
    fn mcp_answer(
        &self,
        _spec: &HookSpec,
        _text: Result<String, String>,
    ) -> Option<(Verdict, Notes)> {
        None
    }

    /// The directory the hook runs in when its dialect decides it; `None`:
    /// the session's working directory.
    fn run_dir(&self) -> Option<&Path> {
        None
    }

    /// Its dialect's own name for a tool of `kind` that the host calls
    /// `host`, when that name is made from the host's (Gemini CLI's
    /// `mcp_<server>_<tool>` for an MCP tool); asked only when its
    /// [table](Dialect::tool_names) has none. `None`: the host's name.
    fn made_tool_name(&self, _kind: ToolKind, _host: &str) -> Option<Arc<str>> {
        None
    }

    /// Whether the hooks of its group run one after another this time,
    /// though its dialect [runs them at once](Dialect::runs_hooks_at_once):
    /// one member that says so is enough (a Gemini CLI definition marked
    /// `sequential`).
    fn runs_group_in_order(&self) -> bool {
        false
    }

    /// What the next hook of its group [run in
    /// order](Self::runs_group_in_order) sees at `event` once this hook
    /// rewrote the arguments with `updated`, where that is not the rewrite
    /// itself: `seen` is what this hook saw. `None` (the default): the
    /// rewritten arguments. Gemini CLI feeds the next `sequential` hook the
    /// `tool_input` merged over what the hook saw, but runs the tool with the
    /// last `tool_input` alone.
    fn chained_arguments(
        &self,
        _event: Event,
        _seen: &Value,
        _updated: &Map<String, Value>,
    ) -> Option<Value> {
        None
    }

    /// Whether a block from this hook takes effect at its event by its
    /// dialect's own rule although the neutral event drops blocks (Gemini
    /// CLI's `AfterTool`, Codex's `PostToolUse`, Claude Code's
    /// `TaskCreated`): there a hook that fails closed blocks too.
    fn blocks_where_the_event_drops_them(&self) -> bool {
        false
    }

    /// The hook as `Any`, for its own dialect's code to read it back.
    fn as_any(&self) -> &dyn Any;
}

/// What the command leaf shares with a dialect that builds a job.
#[derive(Debug)]
pub(crate) struct JobParts<'a> {
    /// The command, as configured.
    pub(crate) command: &'a Arc<str>,
    /// The stack's variables.
    pub(crate) env: &'a [(String, String)],
    /// The leaf's directory, if it has one.
    pub(crate) current_dir: Option<&'a Arc<Path>>,
    /// The host's names.
    pub(crate) host: &'a Host,
    /// The session's working directory (the process's when the request has
    /// none).
    pub(crate) cwd: &'a str,
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

/// An environment value cannot hold NUL, and a tool call id, a session id or a
/// cwd from elsewhere may: with one, spawning fails and the hook would fail open
/// without ever running. Each NUL becomes U+FFFD instead; the stdin line still
/// carries the exact value.
pub(crate) fn env_value(value: &str) -> String {
    value.replace('\0', "\u{fffd}")
}

/// Whether a session variable (a Cursor `sessionStart` hook's `env`) may
/// reach a hook: never one that changes how a program or a shell starts
/// (`LD_*`, `DYLD_*`, `BASH_ENV`, `ENV`, `SHELLOPTS`, `BASHOPTS`, `PS4`,
/// `IFS`, `PROMPT_COMMAND`), for any hook of any dialect.
pub(crate) fn session_var_allowed(name: &str) -> bool {
    const DENIED: [&str; 7] = [
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "IFS",
        "PROMPT_COMMAND",
    ];
    !(name.starts_with("LD_") || name.starts_with("DYLD_") || DENIED.contains(&name))
}

/// The job of a hook whose dialect encoded it: the stack's variables less
/// the dialect's own names, then the hook's and the event's; it runs where
/// its dialect says, by default in the session's working directory.
pub(crate) fn assemble(
    spec: Option<&HookSpec>,
    leaf: &JobParts<'_>,
    req: &HookRequest,
    encoded: Encoded,
) -> Job {
    let Encoded {
        stdin,
        env: dialect_env,
        mut event_env,
        mut session_env,
        dir,
    } = encoded;
    session_env.retain(|(name, _)| session_var_allowed(name));
    // The host's own values of what the session set: a process that
    // outlives the session keeps them.
    let host_env = session_env
        .iter()
        .filter_map(|(name, _)| {
            let value = match leaf.env.iter().find(|(k, _)| k == name) {
                Some((_, value)) => env_value(value),
                None => std::env::var(name).ok()?,
            };
            Some((name.clone(), value))
        })
        .collect();
    event_env.extend(session_env);
    let ours = |k: &String| {
        dialect_env
            .iter()
            .chain(&event_env)
            .any(|(name, _)| name == k)
    };
    let mut env: Vec<(String, String)> = leaf
        .env
        .iter()
        .filter(|(k, _)| !ours(k))
        .map(|(k, v)| (k.clone(), env_value(v)))
        .collect();
    let event_names = event_env.iter().map(|(k, _)| k.clone()).collect();
    env.extend(
        dialect_env
            .into_iter()
            .chain(event_env)
            .map(|(k, v)| (k, env_value(&v))),
    );
    let current_dir = match (dir, req.cwd()) {
        (Some(dir), _) => Some(dir),
        (None, Some(cwd)) => Some(Arc::from(Path::new(cwd))),
        (None, None) => leaf.current_dir.cloned(),
    };
    let mut job = Job::new(
        spec.map(|spec| spec.program().clone()).unwrap_or_default(),
        leaf.command.clone(),
        stdin,
    );
    job.env = env;
    job.env_remove = vec![PROTOCOL_VAR.0.to_owned()];
    job.event_env = event_names;
    job.host_env = host_env;
    job.current_dir = current_dir;
    job.deadline = req.deadline();
    job
}

/// How a hook's run ended: what the process left, or why it could not
/// start.
pub(crate) type Ended<'a> = Result<&'a Finished, std::io::Error>;
