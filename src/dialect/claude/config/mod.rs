//! Claude Code hooks files: where they are, what a handler says, and which
//! handlers are copies of one another.
//!
//! A settings file (`~/.claude/settings.json`, `<project>/.claude/settings.json`,
//! `<project>/.claude/settings.local.json`, the managed
//! `/etc/claude-code/managed-settings.json`), a plugin's `hooks/hooks.json`
//! and a plugin's manifest `.claude-plugin/plugin.json` share one shape
//! (a manifest's `hooks` may instead name more hooks files, by their paths
//! from the plugin root):
//!
//! ```json
//! {
//!   "hooks": {
//!     "PreToolUse": [
//!       {
//!         "matcher": "Bash",
//!         "hooks": [{ "type": "command", "command": "${CLAUDE_PROJECT_DIR}/guard.sh", "timeout": 30 }]
//!       }
//!     ]
//!   }
//! }
//! ```
//!
//! Under `hooks`, each event holds a list of *matcher groups*, and each group a
//! `matcher` and a list of *handlers*. `parse` turns a file into one
//! [`Handler`] per handler, numbered through the event's groups in order (the
//! first handler of the second group follows the last of the first), plus
//! [`Warning`]s. Every other top-level key belongs to Claude Code's other
//! settings and is left alone. `disableAllHooks` and, in the managed file,
//! `allowManagedHooksOnly` are read here and applied over the whole load
//! after Claude Code's precedence ([`Scope`]): a project's `true` turns off
//! the user's hooks too, a local `false` turns them back on, and only the
//! managed file's own `true` turns off managed hooks.
//!
//! # Handlers
//!
//! * `type`: `command` runs. `http` runs when the crate is built with the
//!   feature `http` (`layer::http`), and otherwise loads and is reported as
//!   not runnable. `prompt` and `agent` (with their `prompt`) are answered by
//!   a model: they run on a stack that has one
//!   ([`Builder::evaluator`](crate::Builder::evaluator)), with a warning that
//!   says so. `mcp_tool` (with its `server`, `tool` and `input`) calls a tool
//!   through the host's MCP client ([`Builder::mcp`](crate::Builder::mcp)),
//!   with a warning that says it runs only there; any other type is reported
//!   as unknown. A handler without `type` is a
//!   command handler.
//! * `command`: the shell command (shell form, run with `sh -c`, with bash
//!   when `shell` is `"bash"`, with `pwsh -NoProfile -NonInteractive
//!   -Command` when it is `"powershell"`, with a warning when no `pwsh` is on
//!   `PATH`), or with `args` the program to start (exec form, no shell;
//!   `args` are its arguments). A command handler without a command is an
//!   error. In a PowerShell command, `${CLAUDE_PROJECT_DIR}` and
//!   `${CLAUDE_PLUGIN_ROOT}` become `${env:CLAUDE_PROJECT_DIR}` and
//!   `${env:CLAUDE_PLUGIN_ROOT}`, the variables the runner exports.
//! * `url` (required for `http`: an absolute `http://` or `https://` URL),
//!   `headers` (an object of names and string values, in which `$VAR` and
//!   `${VAR}` are expanded at each run for the names of `allowedEnvVars`
//!   only) and `allowedEnvVars`, for an `http` handler. At the top level of a
//!   settings file, `allowedHttpHookUrls` (URL patterns, `*` for any run of
//!   characters; an empty list blocks every HTTP hook) and
//!   `httpHookAllowedEnvVars` (the outer limit of every `allowedEnvVars`)
//!   add up over the files of a load ([`HttpGates`]); a handler whose URL
//!   they do not allow is listed, with a warning, and never runs.
//! * `model`, for a `prompt` or `agent` handler: the model the evaluator is
//!   asked to use ([`ModelRequest`](crate::layer::model::ModelRequest)).
//! * `continueOnBlock`, for a `prompt` handler: a model's no at `PreToolUse`
//!   or `PostToolUse` refuses the call and lets the turn go on, where by
//!   default it also ends the turn (as Claude Code does since v2.1.210; an
//!   `agent` handler always goes on).
//! * `onFailure`: `"block"` makes a run that fails (it cannot start or
//!   connect, times out, answers what cannot be read) block the action;
//!   `"allow"`, the default, lets it proceed.
//! * `timeout`: **seconds**, a positive number (`1.5` is allowed); by default
//!   600, 30 on `UserPromptSubmit`, 30 for `prompt` and 60 for `agent`
//!   handlers (Claude Code's own defaults).
//! * `async`; `asyncRewake`, which runs in the background too, and whose exit
//!   2 wakes the agent: its stderr (else its stdout) comes with the session's
//!   next call as context and as [`Notes::wake_up`](crate::Notes::wake_up),
//!   and reaches the host's [`Builder::on_wake_up`](crate::Builder::on_wake_up)
//!   as soon as the hook ends; `if`, `statusMessage`, `once` (honoured by Claude Code in skill files
//!   only; kept as written), and `persistent`, a tower-hooks extension: one
//!   long-lived process answers every event.
//! * Other keys are ignored, so that files written for newer Claude Code
//!   versions still load.
//!
//! `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}`
//! are replaced in `command` and in each `args` item, wherever they appear
//! ([`Context::substitute`]), each path as one word that is never shell code:
//! in a shell command it is quoted for where it lands (a project directory
//! named `x; touch pwned` or `my "proj"` is that directory), in exec form it
//! goes in as it is. The runner also exports them. The unbraced
//! `$CLAUDE_PROJECT_DIR` is left to the shell, which reads it from the
//! environment, so single quotes keep it literal as the user wrote it. A
//! placeholder with no value (the plugin root in a settings file) stays.
//!
//! # Errors and warnings
//!
//! Errors are [`ConfigError`]s naming the file: JSON that does not parse (with
//! the line and column), a value of the wrong type (naming the event, the
//! handler's index and its JSON path), an `if` that is not one permission
//! rule, a NUL character in a command, an `http` handler without a `url` or
//! with one that is not an `http(s)://` URL. Three malformed entries are
//! dropped instead, as Claude Code drops them, and the rest of the file loads:
//! a matcher group whose matcher the `regex` crate cannot compile, a group
//! without `hooks`, and a command handler without a command; their errors are
//! kept in [`HooksFile::dropped`]. Warnings name the file too: an event
//! this host does not fire, a key that is no Claude Code event, a handler type
//! this host cannot run, a handler type Claude Code does not run at its event
//! ([`type_runs_at`]; the handler is listed and never runs), `if` on an event that is not a tool event (such a
//! handler never runs), a matcher on an event that has none (ignored), a
//! timeout that looks like milliseconds.
//!
//! # Example
//!
//! ```
//! use std::path::Path;
//! use std::time::Duration;
//! use tower_hooks::dialect::claude::config::{parse, Context};
//! use tower_hooks::Event;
//!
//! let text = r#"{
//!   "model": "not ours",
//!   "hooks": {
//!     "PreToolUse": [
//!       {"matcher": "Bash", "hooks": [
//!         {"type": "command", "command": "true"},
//!         {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/guard.sh", "timeout": 30}
//!       ]},
//!       {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt.sh"}]}
//!     ],
//!     "TaskCreated": [{"hooks": [{"type": "command", "command": "true"}]}]
//!   }
//! }"#;
//! let path = Path::new("/p/.claude/settings.json");
//! let file = parse(text, path, &Context::new("/p"))?;
//!
//! let guard = &file.handlers[1];
//! assert_eq!((guard.event.as_str(), guard.index), ("PreToolUse", 1));
//! assert_eq!(guard.neutral_event, Some(Event::ToolExecutionStart));
//! assert_eq!(guard.command.as_deref(), Some("/p/guard.sh"));
//! assert_eq!(guard.timeout, Duration::from_secs(30));
//! assert_eq!(file.handlers[2].index, 2, "counted through the matcher groups");
//! assert_eq!(file.handlers[0].timeout, Duration::from_secs(600));
//! assert_eq!(file.handlers[3].neutral_event, None);
//! assert_eq!(
//!     file.warnings[0].to_string(),
//!     "/p/.claude/settings.json: hooks.TaskCreated: TaskCreated has no point in the \
//!      neutral lifecycle: its hooks run only when the host fires the event by name",
//! );
//!
//! let err = parse("{\"hooks\": {", path, &Context::new("/p")).unwrap_err();
//! assert!(err.to_string().contains("line 1 column 11"), "{err}");
//! # Ok::<(), tower_hooks::ConfigError>(())
//! ```

use super::family::{Family, CLAUDE_CODE};
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::rule::PermissionRule;
use super::wire;
use super::ClaudeEvent;
use crate::config::read::read_config;
use crate::config::{ConfigError, ConfigWarningKind, MAX_CONFIG_SIZE};
use crate::event::Event;
use crate::pattern::Pattern;
use crate::process::substitute::{placeholders, substitute, Form};
use crate::spec::HookKind;

mod dedup;
mod fields;
mod files;
mod http_gates;
mod parse;

use crate::config::invalid_value as invalid;
pub use dedup::duplicates;
pub use files::{managed_settings_path, plugin_root_of, standard_files, with_plugins, Scope};
pub use http_gates::HttpGates;
pub use parse::type_runs_at;
use parse::Reader;

/// The timeout of a command handler that names none: 600 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The timeout of a command handler on `UserPromptSubmit` that names none: 30
/// seconds.
pub const PROMPT_SUBMIT_TIMEOUT: Duration = Duration::from_secs(30);

/// The handler types Claude Code has besides `command`: `prompt` and `agent`
/// run with a model ([`Builder::evaluator`](crate::Builder::evaluator)),
/// `http` with the feature `http`, `mcp_tool` with an MCP client
/// ([`Builder::mcp`](crate::Builder::mcp)).
pub const UNSUPPORTED_TYPES: [&str; 4] = ["http", "prompt", "agent", "mcp_tool"];

/// What `${CLAUDE_*}` placeholders stand for in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Context {
    /// The project root: `${CLAUDE_PROJECT_DIR}`.
    pub project_dir: PathBuf,
    /// A plugin's root, for its `hooks/hooks.json`: `${CLAUDE_PLUGIN_ROOT}`.
    /// `None` for a settings file. A plugin's handlers are never deduplicated
    /// (see [`duplicates`]).
    pub plugin_root: Option<PathBuf>,
    /// A plugin's data directory, when the host has one: `${CLAUDE_PLUGIN_DATA}`.
    pub plugin_data: Option<PathBuf>,
    /// The host of Claude Code's family whose file it is, for the words of
    /// its warnings (Claude Code's unless a clone's loader says otherwise).
    pub(crate) family: &'static Family,
}

impl Default for Context {
    fn default() -> Self {
        Context::new(PathBuf::new())
    }
}

impl Context {
    /// The context of a settings file in the project `project_dir`.
    pub fn new(project_dir: impl Into<PathBuf>) -> Self {
        Context {
            project_dir: project_dir.into(),
            plugin_root: None,
            plugin_data: None,
            family: &CLAUDE_CODE,
        }
    }

    /// The context of the file at `path`: a plugin file when it is a
    /// `hooks/hooks.json` ([`plugin_root_of`]), a settings file otherwise.
    pub fn for_file(project_dir: impl Into<PathBuf>, path: &Path) -> Self {
        Context::for_file_of(project_dir, path, &CLAUDE_CODE)
    }

    /// The context of the file at `path` of `family`'s host: a plugin's
    /// when it is one of that host's ([`Family::plugin_root_of`]).
    pub(crate) fn for_file_of(
        project_dir: impl Into<PathBuf>,
        path: &Path,
        family: &'static Family,
    ) -> Self {
        Context {
            plugin_root: family.plugin_root_of(path),
            family,
            ..Context::new(project_dir)
        }
    }

    /// Sets the plugin root (the file is a plugin's).
    pub fn with_plugin_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.plugin_root = Some(root.into());
        self
    }

    /// Sets the plugin data directory.
    pub fn with_plugin_data(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugin_data = Some(dir.into());
        self
    }

    /// `text` with `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_PLUGIN_ROOT}` and
    /// `${CLAUDE_PLUGIN_DATA}` replaced by their paths, read as `form` says:
    /// in a shell command each path is one piece of the word it sits in,
    /// quoted for where it lands and never shell code; in exec form (a
    /// program and its `args`, or a prompt) it goes in as it is. See
    /// [`substitute`](crate::process::substitute) for the rules. A
    /// placeholder without a value stays as written, and so do the unbraced
    /// forms (`$CLAUDE_PROJECT_DIR`), which the shell expands from the
    /// environment.
    ///
    /// ```
    /// use tower_hooks::dialect::claude::config::Context;
    /// use tower_hooks::process::substitute::Form;
    ///
    /// let ctx = Context::new("/p").with_plugin_root("/plug");
    /// assert_eq!(
    ///     ctx.substitute("${CLAUDE_PLUGIN_ROOT}/a.sh '${CLAUDE_PROJECT_DIR}' $CLAUDE_PROJECT_DIR", Form::Sh),
    ///     "/plug/a.sh '/p' $CLAUDE_PROJECT_DIR",
    /// );
    /// // A project directory whose name is shell code stays a name.
    /// let ctx = Context::new("/x; touch pwned #");
    /// assert_eq!(ctx.substitute("${CLAUDE_PROJECT_DIR}/guard.sh", Form::Sh), "'/x; touch pwned #'/guard.sh");
    /// assert_eq!(ctx.substitute("${CLAUDE_PROJECT_DIR}", Form::Exec), "/x; touch pwned #");
    /// ```
    pub fn substitute<'a>(&self, text: &'a str, form: Form) -> Cow<'a, str> {
        if !text.contains("${CLAUDE_") {
            return Cow::Borrowed(text);
        }
        let project_dir = self.project_dir.to_string_lossy();
        let plugin_root = self.plugin_root.as_deref().map(Path::to_string_lossy);
        let plugin_data = self.plugin_data.as_deref().map(Path::to_string_lossy);
        let vars: Vec<(&str, &str)> = [
            (wire::PROJECT_DIR_VAR, Some(&project_dir)),
            (wire::PLUGIN_ROOT_VAR, plugin_root.as_ref()),
            (PLUGIN_DATA_VAR, plugin_data.as_ref()),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?.as_ref())))
        .collect();
        substitute(text, form, placeholders(&vars))
    }
}

impl Context {
    /// `command` for PowerShell: `${CLAUDE_PROJECT_DIR}` and
    /// `${CLAUDE_PLUGIN_ROOT}` become PowerShell's references to the variables
    /// the runner exports (`${env:CLAUDE_PROJECT_DIR}`), which PowerShell
    /// expands as values and never reads as code. `${CLAUDE_PLUGIN_DATA}`,
    /// which is not exported, stays as written.
    fn powershell_refs(&self, command: &str) -> String {
        let mut out = command.replace(
            concat!("${", "CLAUDE_PROJECT_DIR", "}"),
            concat!("${env:", "CLAUDE_PROJECT_DIR", "}"),
        );
        if self.plugin_root.is_some() {
            out = out.replace(
                concat!("${", "CLAUDE_PLUGIN_ROOT", "}"),
                concat!("${env:", "CLAUDE_PLUGIN_ROOT", "}"),
            );
        }
        out
    }
}

/// `shell` naming PowerShell, which runs as `pwsh -NoProfile
/// -NonInteractive -Command <command>`.
pub(crate) const POWERSHELL: &str = "powershell";

/// The program a `"shell": "powershell"` handler starts.
const PWSH: &str = "pwsh";

/// The plugin data directory's placeholder name: `${CLAUDE_PLUGIN_DATA}`.
const PLUGIN_DATA_VAR: &str = "CLAUDE_PLUGIN_DATA";

/// One handler of a Claude Code hooks file, as plain data.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Handler {
    /// The file it comes from.
    pub source: PathBuf,
    /// The plugin root, for a plugin's handler (never deduplicated).
    pub plugin_root: Option<PathBuf>,
    /// The event, as written (`PreToolUse`): a name this host does not know
    /// stays as it is ([`claude_event`](Self::claude_event) is `None`).
    pub event: String,
    /// The neutral event it fires at; `None` for an event this host does not fire.
    pub neutral_event: Option<Event>,
    /// Its matcher group's position in the event's list, from 0.
    pub group: usize,
    /// Its position within the group, from 0.
    pub position: usize,
    /// Its position counted through the event's matcher groups in order, from 0.
    pub index: usize,
    /// The group's matcher, as written.
    pub matcher: Option<String>,
    /// The compiled matcher ([`Pattern::Any`] on an event that has no matcher).
    pub pattern: Pattern,
    /// `type`, as written (`command` when the file has none).
    pub kind: String,
    /// `command`, after `${CLAUDE_*}` substitution.
    pub command: Option<String>,
    /// `args` (exec form: no shell), after substitution.
    pub args: Option<Vec<String>>,
    /// `shell` (`bash`, `powershell`), as written; ignored with `args`.
    pub shell: Option<String>,
    /// `timeout`, or the default of the event and type.
    pub timeout: Duration,
    /// `async` (or `asyncRewake`): runs in the background.
    pub is_async: bool,
    /// `asyncRewake`: runs in the background, and its exit 2 wakes the
    /// agent ([`Notes::wake_up`](crate::Notes::wake_up)).
    pub async_rewake: bool,
    /// `if`, parsed.
    pub if_rule: Option<PermissionRule>,
    /// `statusMessage`.
    pub status_message: Option<String>,
    /// `once`, as written (Claude Code honours it in skill files only).
    pub once: bool,
    /// `persistent` (a tower-hooks extension): one long-lived process.
    pub persistent: bool,
    /// `prompt`, for a `prompt` or `agent` handler: what a model is asked
    /// (`$ARGUMENTS` stands for the hook's input).
    pub prompt: Option<String>,
    /// `model`, for a `prompt` or `agent` handler: the model to ask, as
    /// written ([`ModelRequest::model`](crate::layer::model::ModelRequest::model)).
    pub model: Option<String>,
    /// `server`, for an `mcp_tool` handler: the MCP server to call.
    pub server: Option<String>,
    /// `tool`, for an `mcp_tool` handler: the tool to call on it.
    pub tool: Option<String>,
    /// `input`, for an `mcp_tool` handler: the tool's arguments, whose
    /// strings may hold `${path}` of the hook's input
    /// ([`fill_input`](crate::layer::mcp::fill_input)).
    pub input: Option<serde_json::Value>,
    /// `url`, for an `http` handler: where the event is posted.
    pub url: Option<String>,
    /// `headers`, for an `http` handler, in file order, as written (`$VAR`
    /// is expanded at each run, for the allowed names only).
    pub headers: Vec<(String, String)>,
    /// `allowedEnvVars`, for an `http` handler: the variables its headers
    /// may read.
    pub allowed_env_vars: Vec<String>,
    /// `onFailure: "block"`: a run that fails (cannot start or connect, times
    /// out, answers what cannot be read) blocks rather than lets the action
    /// proceed.
    pub fail_closed: bool,
    /// `continueOnBlock`, for a `prompt` handler: a model's no on a tool call
    /// refuses the call and the turn goes on, rather than ending the turn
    /// (an `agent` handler always goes on).
    pub continue_on_block: bool,
}

impl Handler {
    /// Its event, when it is one this host knows ([`event`](Self::event) is
    /// the name as written).
    pub fn claude_event(&self) -> Option<ClaudeEvent> {
        ClaudeEvent::from_name(&self.event)
    }

    /// Whether this host can run it: a `command` handler of a Claude Code
    /// event (one with no neutral point runs when the host fires it by
    /// name), or an `http` one when the crate is built with the `http`
    /// feature.
    pub fn is_runnable(&self) -> bool {
        let kind = self.hook_kind();
        let runs = kind == HookKind::Command || (kind == HookKind::Http && cfg!(feature = "http"));
        runs && self.claude_event().is_some()
    }

    /// Its `type` ([`kind`](Self::kind) as a [`HookKind`]).
    pub fn hook_kind(&self) -> HookKind {
        HookKind::from_name(&self.kind)
    }

    /// Whether it comes from a plugin's hooks file.
    pub fn is_plugin(&self) -> bool {
        self.plugin_root.is_some()
    }

    /// `<source>:<index>`, as a duplicate's reason names it.
    pub fn location(&self) -> String {
        format!("{}:{}", self.source.display(), self.index)
    }

    /// `<event> handler <index> (hooks.<event>[<group>].hooks[<position>])`, as
    /// errors and warnings name it.
    pub fn describe(&self) -> String {
        handler_at(&self.event, self.index, self.group, self.position)
    }
}

fn handler_at(event: &str, index: usize, group: usize, position: usize) -> String {
    format!("{event} handler {index} (hooks.{event}[{group}].hooks[{position}])")
}

/// Something in a Claude Code hooks file that loads but probably does not do
/// what was meant. Its `Display` is `<path>: <kind>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    path: PathBuf,
    kind: ConfigWarningKind,
}

impl Warning {
    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What looks wrong.
    pub fn kind(&self) -> &ConfigWarningKind {
        &self.kind
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.kind)
    }
}

/// One Claude Code hooks file, loaded.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HooksFile {
    /// The file.
    pub path: PathBuf,
    /// The plugin root, for a plugin's `hooks/hooks.json`.
    pub plugin_root: Option<PathBuf>,
    /// `"disableAllHooks": true` in this file. Whether it turns hooks off is
    /// decided over the whole load, after Claude Code's precedence
    /// ([`Scope`]): a file of higher precedence may say `false`. The file's
    /// handlers are read all the same; if they cannot be read, `handlers` is
    /// empty and the file still loads.
    pub disabled: bool,
    /// `disableAllHooks` as written, `None` when the file does not say.
    pub disable_all_hooks: Option<bool>,
    /// `hooksDisabled` as written (Factory Droid's switch), `None` when the
    /// file does not say.
    pub hooks_disabled: Option<bool>,
    /// `"allowManagedHooksOnly": true`: in the managed file, only managed
    /// hooks run.
    pub allow_managed_hooks_only: bool,
    /// Its handlers, event by event in file order, each event's in order.
    pub handlers: Vec<Handler>,
    /// `allowedHttpHookUrls`: the URL patterns (`*` is any run of characters)
    /// that `http` handlers may post to; `None` when the file has no such
    /// key. The lists of all files add up ([`HttpGates`]).
    pub allowed_http_hook_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`: the outer limit on every `http` handler's
    /// `allowedEnvVars`; `None` when the file has no such key.
    pub http_hook_allowed_env_vars: Option<Vec<String>>,
    /// What loads but looks wrong, in file order.
    pub warnings: Vec<Warning>,
    /// The malformed entries left out, in file order, as Claude Code drops
    /// them while the rest of the file loads: a matcher group whose matcher
    /// the `regex` crate cannot compile, a group without `hooks`, a command
    /// handler without a command. Each error names the file and the entry.
    pub dropped: Vec<std::sync::Arc<ConfigError>>,
}

/// Reads and parses the Claude Code hooks file at `path` (a regular file of
/// at most [`MAX_CONFIG_SIZE`] bytes of UTF-8).
///
/// A missing file is an error too,
/// [`ConfigErrorKind::Io`](crate::config::ConfigErrorKind::Io) with
/// [`std::io::ErrorKind::NotFound`]; [`load_all`] skips those.
pub fn load(path: &Path, ctx: &Context) -> Result<HooksFile, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    match (files::is_plugin_manifest(path), &ctx.plugin_root) {
        (true, Some(root)) => match manifest_hooks(&text, path, root)? {
            Some(hooks) => parse(&hooks, path, ctx),
            None => parse(&text, path, ctx),
        },
        _ => parse(&text, path, ctx),
    }
}

/// The hooks a plugin's manifest declares, as the text of a hooks file:
/// `None` when its own text is one (no `hooks`, or an object of events;
/// text that is no JSON object is left to [`parse`] to report). `hooks` may
/// also wrap the events in a `hooks` object, as a hooks file does, or name
/// hooks files by their paths from the plugin root (one string or a list);
/// `hooks/hooks.json`, which loads anyway, is not read twice.
fn manifest_hooks(text: &str, path: &Path, root: &Path) -> Result<Option<String>, ConfigError> {
    use serde_json::{Map, Value};
    let error = |kind| ConfigError::new(path, kind);
    let Ok(Value::Object(mut manifest)) =
        serde_json::from_str::<Value>(text.strip_prefix('\u{feff}').unwrap_or(text))
    else {
        return Ok(None);
    };
    let paths: Vec<String> = match manifest.remove("hooks") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(mut events)) => {
            return Ok(match events.remove("hooks") {
                Some(inner @ Value::Object(_)) if events.is_empty() => {
                    Some(serde_json::json!({ "hooks": inner }).to_string())
                }
                _ => None,
            })
        }
        Some(Value::String(one)) => vec![one],
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Value::String(one) => Ok(one),
                other => Err(error(invalid(
                    "an item of \"hooks\"",
                    "the path of a hooks file from the plugin root",
                    &other,
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(error(invalid(
                "\"hooks\"",
                "an object of event names, or the path of a hooks file (or a list of them)",
                &other,
            )))
        }
    };
    let mut events = Map::new();
    for one in paths {
        let file = root.join(&one);
        // `./hooks/hooks.json` is the same path: `.` components compare equal.
        if file == files::plugin_hooks_file(root) {
            continue;
        }
        let text =
            read_config(&file, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(&file, kind))?;
        let value: Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
            .map_err(|err| {
                ConfigError::new(&file, crate::config::ConfigErrorKind::InvalidJson(err))
            })?;
        let Some(Value::Object(more)) = value.get("hooks") else {
            continue;
        };
        for (event, groups) in more {
            match (events.get_mut(event), groups) {
                (Some(Value::Array(all)), Value::Array(groups)) => {
                    all.extend(groups.iter().cloned())
                }
                _ => {
                    events.insert(event.clone(), groups.clone());
                }
            }
        }
    }
    Ok(Some(serde_json::json!({ "hooks": events }).to_string()))
}

/// Loads each file of `paths` that exists, in order, each with the context
/// [`Context::for_file`] gives it in `project_dir`. The first error stops
/// the load.
pub fn load_all<I>(paths: I, project_dir: &Path) -> Result<Vec<HooksFile>, ConfigError>
where
    I: IntoIterator,
    I::Item: AsRef<Path>,
{
    let mut files = Vec::new();
    for path in paths {
        let path = path.as_ref();
        match load(path, &Context::for_file(project_dir, path)) {
            Ok(file) => files.push(file),
            Err(err) if err.is_not_found() => {}
            Err(err) => return Err(err),
        }
    }
    Ok(files)
}

/// Parses the text of a Claude Code hooks file found at `path` (named in
/// errors, warnings and each handler's `source`). See the [module docs](self).
pub fn parse(text: &str, path: &Path, ctx: &Context) -> Result<HooksFile, ConfigError> {
    let error = |kind| ConfigError::new(path, kind);
    // A byte-order mark is not JSON, but editors write one.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (switches, events) = parse::read_top(text).map_err(error)?;
    let mut file = HooksFile {
        path: path.to_path_buf(),
        plugin_root: ctx.plugin_root.clone(),
        warnings: crate::config::duplicate_keys(text)
            .into_iter()
            .map(|kind| Warning {
                path: path.to_path_buf(),
                kind,
            })
            .collect(),
        disabled: switches.disable_all_hooks == Some(true),
        disable_all_hooks: switches.disable_all_hooks,
        hooks_disabled: switches
            .hooks_disabled
            .as_ref()
            .and_then(serde_json::Value::as_bool),
        allow_managed_hooks_only: switches.allow_managed_hooks_only == Some(true),
        handlers: Vec::new(),
        dropped: Vec::new(),
        allowed_http_hook_urls: switches.allowed_http_hook_urls,
        http_hook_allowed_env_vars: switches.http_hook_allowed_env_vars,
    };
    let Some(events) = events else {
        return Ok(file);
    };
    let mut reader = Reader {
        path,
        ctx,
        file: &mut file,
    };
    for (event, groups) in events {
        if let Err(kind) = reader.event(&event, groups) {
            // A file that turns its hooks off still loads when they cannot
            // be read, as it did before disableAllHooks was decided over
            // the whole load; it simply has none.
            if !file.disabled {
                return Err(error(kind));
            }
            file.handlers.clear();
            file.warnings.clear();
            file.dropped.clear();
            break;
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests;
