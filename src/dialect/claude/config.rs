//! Claude Code hooks files: where they are, what a handler says, and which
//! handlers are copies of one another.
//!
//! A settings file (`~/.claude/settings.json`, `<project>/.claude/settings.json`,
//! `<project>/.claude/settings.local.json`, the managed
//! `/etc/claude-code/managed-settings.json`) and a plugin's `hooks/hooks.json`
//! share one shape:
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
//! `matcher` and a list of *handlers*. [`parse`] turns a file into one
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
//!   says so. `mcp_tool` loads and is reported as not runnable by this host;
//!   any other type is reported as unknown. A handler without `type` is a
//!   command handler.
//! * `command`: the shell command (shell form, run with `sh -c`, or with bash
//!   when `shell` is `"bash"`), or with `args` the program to start (exec form,
//!   no shell; `args` are its arguments). A command handler without a command
//!   is an error.
//! * `url` (required for `http`: an absolute `http://` or `https://` URL),
//!   `headers` (an object of names and string values, in which `$VAR` and
//!   `${VAR}` are expanded at each run for the names of `allowedEnvVars`
//!   only) and `allowedEnvVars`, for an `http` handler. At the top level of a
//!   settings file, `allowedHttpHookUrls` (URL patterns, `*` for any run of
//!   characters; an empty list blocks every HTTP hook) and
//!   `httpHookAllowedEnvVars` (the outer limit of every `allowedEnvVars`)
//!   add up over the files of a load ([`HttpGates`]); a handler whose URL
//!   they do not allow is listed, with a warning, and never runs.
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
//! * `async`, `asyncRewake` (read as `async`: this host has no wake-up),
//!   `if`, `statusMessage`, `once` (honoured by Claude Code in skill files
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
//! handler's index and its JSON path), a command handler without a command, a
//! matcher the `regex` crate cannot compile, an `if` that is not one permission
//! rule, a NUL character in a command, an `http` handler without a `url` or
//! with one that is not an `http(s)://` URL. Warnings name the file too: an event
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
//! assert_eq!(guard.point, Some(Event::ToolExecutionStart));
//! assert_eq!(guard.command.as_deref(), Some("/p/guard.sh"));
//! assert_eq!(guard.timeout, Duration::from_secs(30));
//! assert_eq!(file.handlers[2].index, 2, "counted through the matcher groups");
//! assert_eq!(file.handlers[0].timeout, Duration::from_secs(600));
//! assert_eq!(file.handlers[3].point, None);
//! assert_eq!(
//!     file.warnings[0].to_string(),
//!     "/p/.claude/settings.json: hooks.TaskCreated: TaskCreated is a Claude Code event \
//!      this host does not fire, so its hooks never run",
//! );
//!
//! let err = parse("{\"hooks\": {", path, &Context::new("/p")).unwrap_err();
//! assert!(err.to_string().contains("line 1 column 11"), "{err}");
//! # Ok::<(), tower_hooks::ConfigError>(())
//! ```

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::http_url;
use super::matcher;
use super::rule::{self, PermissionRule};
use super::wire;
use crate::config::read::read_config;
use crate::config::{ConfigError, ConfigErrorKind, ConfigWarningKind, MAX_CONFIG_SIZE};
use crate::event::Event;
use crate::pattern::Pattern;
use crate::process::substitute::{placeholders, substitute, Form};

/// The timeout of a command handler that names none: 600 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The timeout of a command handler on `UserPromptSubmit` that names none: 30
/// seconds.
pub const PROMPT_SUBMIT_TIMEOUT: Duration = Duration::from_secs(30);

/// The handler types Claude Code has besides `command`: `prompt` and `agent`
/// run with a model ([`Builder::evaluator`](crate::Builder::evaluator)),
/// `http` with the feature `http`; `mcp_tool` this host cannot run yet.
pub const UNSUPPORTED_TYPES: [&str; 4] = ["http", "prompt", "agent", "mcp_tool"];

/// What `${CLAUDE_*}` placeholders stand for in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
}

impl Context {
    /// The context of a settings file in the project `project_dir`.
    pub fn new(project_dir: impl Into<PathBuf>) -> Self {
        Context {
            project_dir: project_dir.into(),
            plugin_root: None,
            plugin_data: None,
        }
    }

    /// The context of the file at `path`: a plugin file when it is a
    /// `hooks/hooks.json` ([`plugin_root_of`]), a settings file otherwise.
    pub fn for_file(project_dir: impl Into<PathBuf>, path: &Path) -> Self {
        Context {
            plugin_root: plugin_root_of(path),
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

/// The plugin data directory's placeholder name: `${CLAUDE_PLUGIN_DATA}`.
const PLUGIN_DATA_VAR: &str = "CLAUDE_PLUGIN_DATA";

/// The plugin root of a plugin's hooks file: `<plugin>` for
/// `<plugin>/hooks/hooks.json`; `None` for any other path.
///
/// ```
/// use std::path::Path;
/// use tower_hooks::dialect::claude::config::plugin_root_of;
///
/// assert_eq!(plugin_root_of(Path::new("/x/plug/hooks/hooks.json")).as_deref(), Some(Path::new("/x/plug")));
/// assert_eq!(plugin_root_of(Path::new("/p/.claude/settings.json")), None);
/// assert_eq!(plugin_root_of(Path::new("/p/.agents/hooks.json")), None);
/// ```
pub fn plugin_root_of(path: &Path) -> Option<PathBuf> {
    if path.file_name()? != "hooks.json" {
        return None;
    }
    let hooks = path.parent()?;
    if hooks.file_name()? != "hooks" {
        return None;
    }
    Some(hooks.parent()?.to_path_buf())
}

/// Where a Claude Code hooks file stands in Claude Code's precedence, which
/// decides `disableAllHooks` over a whole load: managed > local > project >
/// user. Plugins' hooks files take no part in it; their hooks are turned off
/// with the others'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// A plugin's `hooks/hooks.json`.
    Plugin,
    /// `~/.claude/settings.json` (any settings file under `~/.claude`).
    User,
    /// `<project>/.claude/settings.json`, and any other settings file.
    Project,
    /// `settings.local.json`.
    Local,
    /// `managed-settings.json`, wherever it is (the platform's own path is
    /// [`managed_settings_path`]).
    Managed,
}

impl Scope {
    /// The scope of the file at `path`, with `home` the user's home
    /// directory.
    ///
    /// ```
    /// use std::path::Path;
    /// use tower_hooks::dialect::claude::config::Scope;
    ///
    /// let home = Some(Path::new("/h"));
    /// assert_eq!(Scope::of(Path::new("/etc/claude-code/managed-settings.json"), home), Scope::Managed);
    /// assert_eq!(Scope::of(Path::new("/p/.claude/settings.local.json"), home), Scope::Local);
    /// assert_eq!(Scope::of(Path::new("/p/.claude/settings.json"), home), Scope::Project);
    /// assert_eq!(Scope::of(Path::new("/h/.claude/settings.json"), home), Scope::User);
    /// assert_eq!(Scope::of(Path::new("/x/plug/hooks/hooks.json"), home), Scope::Plugin);
    /// ```
    pub fn of(path: &Path, home: Option<&Path>) -> Scope {
        let name = path.file_name().and_then(|name| name.to_str());
        if name == Some("managed-settings.json") || path == managed_settings_path() {
            Scope::Managed
        } else if plugin_root_of(path).is_some() {
            Scope::Plugin
        } else if name == Some("settings.local.json") {
            Scope::Local
        } else if home.is_some_and(|home| path.starts_with(home.join(".claude"))) {
            Scope::User
        } else {
            Scope::Project
        }
    }
}

/// The managed settings file of this platform.
pub fn managed_settings_path() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")
    } else {
        PathBuf::from("/etc/claude-code/managed-settings.json")
    }
}

/// The standard settings files, in the order their hooks run: the user's
/// `~/.claude/settings.json`, the project's `.claude/settings.json` and
/// `.claude/settings.local.json`, then the managed file
/// ([`managed_settings_path`]). Without a home directory the user file is
/// left out. Plugins' `hooks/hooks.json` files come after these, in the order
/// the host enables the plugins ([`with_plugins`]).
///
/// Claude Code runs the hooks of every file (they accumulate; no file
/// replaces another), so the order is only the order of the records.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use tower_hooks::dialect::claude::config::standard_files;
///
/// let files = standard_files(Some(Path::new("/h")), Path::new("/p"));
/// assert_eq!(files[..3], [
///     PathBuf::from("/h/.claude/settings.json"),
///     PathBuf::from("/p/.claude/settings.json"),
///     PathBuf::from("/p/.claude/settings.local.json"),
/// ]);
/// ```
pub fn standard_files(home: Option<&Path>, project: &Path) -> Vec<PathBuf> {
    let mut files = Vec::with_capacity(4);
    if let Some(home) = home {
        files.push(home.join(".claude").join("settings.json"));
    }
    files.push(project.join(".claude").join("settings.json"));
    files.push(project.join(".claude").join("settings.local.json"));
    files.push(managed_settings_path());
    files
}

/// `files` followed by the hooks file of each plugin root in `plugins`
/// (`<root>/hooks/hooks.json`), in order.
pub fn with_plugins<I>(mut files: Vec<PathBuf>, plugins: I) -> Vec<PathBuf>
where
    I: IntoIterator,
    I::Item: AsRef<Path>,
{
    files.extend(
        plugins
            .into_iter()
            .map(|root| root.as_ref().join("hooks").join("hooks.json")),
    );
    files
}

/// One handler of a Claude Code hooks file, as plain data.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Handler {
    /// The file it comes from.
    pub source: PathBuf,
    /// The plugin root, for a plugin's handler (never deduplicated).
    pub plugin_root: Option<PathBuf>,
    /// The event, as written (`PreToolUse`).
    pub event: String,
    /// The neutral point it fires at; `None` for an event this host does not fire.
    pub point: Option<Event>,
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
    /// Whether this host can run it: a `command` handler of an event it
    /// fires, or an `http` one when the crate is built with the `http` feature.
    pub fn is_runnable(&self) -> bool {
        let runs = self.kind == "command" || (self.kind == "http" && cfg!(feature = "http"));
        runs && self.point.is_some()
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
}

/// Reads and parses the Claude Code hooks file at `path` (a regular file of
/// at most [`MAX_CONFIG_SIZE`] bytes of UTF-8).
///
/// A missing file is an error too, [`ConfigErrorKind::Io`] with
/// [`std::io::ErrorKind::NotFound`]; [`load_all`] skips those.
pub fn load(path: &Path, ctx: &Context) -> Result<HooksFile, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    parse(&text, path, ctx)
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
    let top: Top = serde_json::from_str(text).map_err(|err| error(top_level_error(err)))?;
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
        disabled: false,
        disable_all_hooks: None,
        allow_managed_hooks_only: false,
        handlers: Vec::new(),
        allowed_http_hook_urls: strings(top.allowed_http_hook_urls, "\"allowedHttpHookUrls\"")
            .map_err(error)?,
        http_hook_allowed_env_vars: strings(
            top.http_hook_allowed_env_vars,
            "\"httpHookAllowedEnvVars\"",
        )
        .map_err(error)?,
    };
    file.disable_all_hooks = flag(top.disable_all_hooks, "\"disableAllHooks\"").map_err(error)?;
    file.disabled = file.disable_all_hooks == Some(true);
    file.allow_managed_hooks_only = flag(top.allow_managed_hooks_only, "\"allowManagedHooksOnly\"")
        .map_err(error)?
        == Some(true);
    let events = match top.hooks {
        None | Some(Hooks::Null) => return Ok(file),
        Some(Hooks::Other(other)) => {
            return Err(error(invalid(
                "\"hooks\"".into(),
                "an object of event names",
                &other,
            )))
        }
        Some(Hooks::Events(events)) => events,
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
            break;
        }
    }
    Ok(file)
}

/// A `true` / `false` top-level key; `null` is as good as absent.
fn flag(value: Option<Value>, at: &str) -> Result<Option<bool>, ConfigErrorKind> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(other) => Err(invalid(at.into(), "true or false", &other)),
    }
}

/// serde_json's error, or the one for a top level that is not an object.
fn top_level_error(err: serde_json::Error) -> ConfigErrorKind {
    if err.is_data() && err.to_string().starts_with(NOT_AN_OBJECT) {
        let found = err
            .to_string()
            .strip_prefix(NOT_AN_OBJECT)
            .and_then(|rest| rest.split(" at line ").next())
            .unwrap_or("something else")
            .to_owned();
        return ConfigErrorKind::ClaudeInvalidValue {
            at: "the top level".into(),
            expected: "a JSON object",
            found,
        };
    }
    ConfigErrorKind::InvalidJson(err)
}

const NOT_AN_OBJECT: &str = "top level is not an object: ";

/// A list of strings (`allowedHttpHookUrls`, `allowedEnvVars`) named `at` in
/// errors; absent or null: `None`.
fn strings(value: Option<Value>, at: &str) -> Result<Option<Vec<String>>, ConfigErrorKind> {
    let items = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(other) => return Err(invalid(at.to_owned(), "an array of strings", &other)),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s),
            other => Err(invalid(format!("item {i} of {at}"), "a string", &other)),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The top-level keys this dialect reads; the others are skipped unread.
struct Top {
    hooks: Option<Hooks>,
    disable_all_hooks: Option<Value>,
    allow_managed_hooks_only: Option<Value>,
    allowed_http_hook_urls: Option<Value>,
    http_hook_allowed_env_vars: Option<Value>,
}

/// `hooks`: an object, in file order (the order its events are listed in).
enum Hooks {
    Events(Vec<(String, Value)>),
    Null,
    Other(Value),
}

impl<'de> Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TopVisitor;

        impl<'de> Visitor<'de> for TopVisitor {
            type Value = Top;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a settings object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
                let mut top = Top {
                    hooks: None,
                    disable_all_hooks: None,
                    allow_managed_hooks_only: None,
                    allowed_http_hook_urls: None,
                    http_hook_allowed_env_vars: None,
                };
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "hooks" => top.hooks = Some(map.next_value::<Hooks>()?),
                        "disableAllHooks" => top.disable_all_hooks = Some(map.next_value()?),
                        "allowManagedHooksOnly" => {
                            top.allow_managed_hooks_only = Some(map.next_value()?)
                        }
                        "allowedHttpHookUrls" => {
                            top.allowed_http_hook_urls = Some(map.next_value()?)
                        }
                        "httpHookAllowedEnvVars" => {
                            top.http_hook_allowed_env_vars = Some(map.next_value()?)
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(top)
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Top, E> {
                Err(not_an_object(&Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Top, E> {
                Err(not_an_object(&Value::Null))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, _seq: A) -> Result<Top, A::Error> {
                Err(not_an_object(&Value::Array(Vec::new())))
            }
        }

        deserializer.deserialize_any(TopVisitor)
    }
}

fn not_an_object<E: de::Error>(value: &Value) -> E {
    E::custom(format_args!(
        "{NOT_AN_OBJECT}{}",
        crate::config::describe_json(value)
    ))
}

impl<'de> Deserialize<'de> for Hooks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HooksVisitor;

        impl<'de> Visitor<'de> for HooksVisitor {
            type Value = Hooks;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of event names")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Hooks, A::Error> {
                crate::config::read::entries_in_order(map).map(Hooks::Events)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Hooks, E> {
                Ok(Hooks::Null)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Hooks, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Hooks::Other(Value::Array(Vec::new())))
            }
        }

        deserializer.deserialize_any(HooksVisitor)
    }
}

fn invalid(at: String, expected: &'static str, found: &Value) -> ConfigErrorKind {
    ConfigErrorKind::ClaudeInvalidValue {
        at,
        expected,
        found: crate::config::describe_json(found),
    }
}

/// Walks the `hooks` object of one file.
struct Reader<'a> {
    path: &'a Path,
    ctx: &'a Context,
    file: &'a mut HooksFile,
}

impl Reader<'_> {
    fn warn(&mut self, kind: ConfigWarningKind) {
        self.file.warnings.push(Warning {
            path: self.path.to_path_buf(),
            kind,
        });
    }

    fn event(&mut self, event: &str, groups: Value) -> Result<(), ConfigErrorKind> {
        let groups = match groups {
            Value::Null => return Ok(()),
            Value::Array(groups) => groups,
            other => {
                return Err(invalid(
                    format!("hooks.{event}"),
                    "an array of matcher groups",
                    &other,
                ))
            }
        };
        let point = matcher::point(event);
        if point.is_none() {
            self.warn(if matcher::is_claude_event(event) {
                ConfigWarningKind::ClaudeUnfiredEvent {
                    event: event.to_owned(),
                }
            } else {
                ConfigWarningKind::ClaudeUnknownEvent {
                    event: event.to_owned(),
                    suggestion: crate::suggest::closest(event, matcher::all_events()),
                }
            });
        }
        let mut index = 0;
        for (group, entry) in groups.into_iter().enumerate() {
            let at = || format!("matcher group hooks.{event}[{group}]");
            let Value::Object(mut entry) = entry else {
                return Err(invalid(at(), "an object", &entry));
            };
            let matcher = match entry.remove("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(m)) => Some(m),
                Some(other) => {
                    return Err(invalid(
                        format!("\"matcher\" of {}", at()),
                        "a string",
                        &other,
                    ))
                }
            };
            let mut pattern = matcher::compile(event, matcher.as_deref()).map_err(|error| {
                ConfigErrorKind::ClaudeInvalidMatcher {
                    event: event.to_owned(),
                    group,
                    error,
                }
            })?;
            // (A key that is no Claude Code event keeps its matcher: its
            // warning is that the event is unknown.)
            if matcher::is_claude_event(event)
                && !matcher::has_subject(event)
                && !matches!(pattern, Pattern::Any)
            {
                self.warn(ConfigWarningKind::ClaudeIgnoredMatcher {
                    event: event.to_owned(),
                    group,
                    matcher: matcher.clone().unwrap_or_default(),
                });
                pattern = Pattern::Any;
            }
            let handlers = match entry.remove("hooks") {
                Some(Value::Array(handlers)) => handlers,
                Some(other) => {
                    return Err(invalid(
                        format!("\"hooks\" of {}", at()),
                        "an array of handlers",
                        &other,
                    ))
                }
                None => {
                    return Err(ConfigErrorKind::ClaudeInvalidValue {
                        at: format!("{} (its \"hooks\")", at()),
                        expected: "an array of handlers",
                        found: "nothing: the group has no \"hooks\"".into(),
                    })
                }
            };
            for (position, handler) in handlers.into_iter().enumerate() {
                let slot = Slot {
                    event,
                    point,
                    group,
                    position,
                    index,
                    matcher: matcher.as_deref(),
                    pattern: &pattern,
                };
                let handler = self.handler(slot, handler)?;
                self.file.handlers.push(handler);
                index += 1;
            }
        }
        Ok(())
    }

    fn handler(&mut self, slot: Slot<'_>, value: Value) -> Result<Handler, ConfigErrorKind> {
        let Slot {
            event,
            point,
            group,
            position,
            index,
            matcher,
            pattern,
        } = slot;
        let at = handler_at(event, index, group, position);
        let Value::Object(mut fields) = value else {
            return Err(invalid(at, "an object", &value));
        };
        let field = |name: &str| format!("\"{name}\" of {at}");
        let kind = take_string(&mut fields, "type", &field)?.unwrap_or_else(|| "command".into());
        let command = take_string(&mut fields, "command", &field)?;
        let args = match fields.remove("args") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => {
                let mut args = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(arg) => args.push(arg),
                        other => {
                            return Err(invalid(
                                format!("\"args\"[{i}] of {at}"),
                                "a string",
                                &other,
                            ))
                        }
                    }
                }
                Some(args)
            }
            Some(other) => return Err(invalid(field("args"), "an array of strings", &other)),
        };
        let shell = take_string(&mut fields, "shell", &field)?;
        let is_async = take_bool(&mut fields, "async", &field)?;
        let rewake = take_bool(&mut fields, "asyncRewake", &field)?;
        let once = take_bool(&mut fields, "once", &field)?;
        let persistent = take_bool(&mut fields, "persistent", &field)?;
        let continue_on_block = take_bool(&mut fields, "continueOnBlock", &field)?;
        let status_message = take_string(&mut fields, "statusMessage", &field)?;
        let prompt = take_string(&mut fields, "prompt", &field)?;
        let url = take_string(&mut fields, "url", &field)?;
        let headers = match fields.remove("headers") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(map)) => {
                let mut headers = Vec::with_capacity(map.len());
                for (name, value) in map {
                    const FRAMING: [&str; 4] =
                        ["host", "content-length", "transfer-encoding", "connection"];
                    if FRAMING.contains(&name.to_ascii_lowercase().as_str()) {
                        return Err(ConfigErrorKind::ClaudeInvalidValue {
                            at: format!("\"headers\" of {at}"),
                            expected: "headers the HTTP client does not set itself (not Host, \
                                       Content-Length, Transfer-Encoding or Connection)",
                            found: format!("{name:?}"),
                        });
                    }
                    match value {
                        Value::String(value) => headers.push((name, value)),
                        other => {
                            return Err(invalid(
                                format!("\"headers\".{name:?} of {at}"),
                                "a string",
                                &other,
                            ))
                        }
                    }
                }
                headers
            }
            Some(other) => {
                return Err(invalid(
                    field("headers"),
                    "an object of header names and string values",
                    &other,
                ))
            }
        };
        let allowed_env_vars =
            strings(fields.remove("allowedEnvVars"), &field("allowedEnvVars"))?.unwrap_or_default();
        let fail_closed = match take_string(&mut fields, "onFailure", &field)?.as_deref() {
            None | Some("allow") => false,
            Some("block") => true,
            Some(other) => {
                return Err(invalid(
                    field("onFailure"),
                    "\"block\" or \"allow\"",
                    &Value::String(other.to_owned()),
                ))
            }
        };
        for key in ["failClosed", "fail_closed"] {
            if fields.contains_key(key) {
                self.warn(ConfigWarningKind::ClaudeFailClosedKey {
                    at: at.clone(),
                    key: key.to_owned(),
                });
            }
        }
        let timeout = match fields.remove("timeout") {
            None | Some(Value::Null) => default_timeout(event, &kind),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(seconds) if seconds > 0.0 => {
                    if let Some(whole) = n.as_u64().filter(|s| *s >= 1000 && s % 1000 == 0) {
                        self.warn(ConfigWarningKind::ClaudeLongTimeout {
                            at: at.clone(),
                            seconds: whole,
                        });
                    }
                    // A positive timeout too small for the clock is 1 ms, never 0.
                    Duration::try_from_secs_f64(seconds)
                        .unwrap_or(Duration::MAX)
                        .max(Duration::from_millis(1))
                }
                _ => {
                    return Err(invalid(
                        field("timeout"),
                        "a positive number of seconds",
                        &Value::Number(n),
                    ))
                }
            },
            Some(other) => {
                return Err(invalid(
                    field("timeout"),
                    "a positive number of seconds",
                    &other,
                ))
            }
        };
        let if_rule = match take_string(&mut fields, "if", &field)? {
            None => None,
            Some(text) => match PermissionRule::parse(&text) {
                Ok(rule) => Some(rule),
                Err(err) => {
                    return Err(ConfigErrorKind::ClaudeInvalidIf {
                        at,
                        rule: text,
                        reason: err.reason(),
                    })
                }
            },
        };

        match kind.as_str() {
            "command" => {
                if command.as_deref().is_none_or(|c| c.trim().is_empty()) {
                    return Err(ConfigErrorKind::ClaudeMissingCommand { at });
                }
            }
            "http" => {
                let Some(url) = url.as_deref().filter(|u| !u.trim().is_empty()) else {
                    return Err(ConfigErrorKind::ClaudeMissingUrl { at });
                };
                if let Err(reason) = http_url::handler_url(url) {
                    return Err(ConfigErrorKind::ClaudeInvalidUrl {
                        at,
                        url: url.to_owned(),
                        reason,
                    });
                }
                if !cfg!(feature = "http") {
                    self.warn(ConfigWarningKind::ClaudeUnsupportedType {
                        at: at.clone(),
                        kind: kind.clone(),
                    });
                }
            }
            "prompt" | "agent" => {
                self.warn(ConfigWarningKind::ModelHook {
                    at: at.clone(),
                    kind: kind.clone(),
                });
            }
            other if UNSUPPORTED_TYPES.contains(&other) => {
                self.warn(ConfigWarningKind::ClaudeUnsupportedType {
                    at: at.clone(),
                    kind: kind.clone(),
                });
            }
            _ => self.warn(ConfigWarningKind::ClaudeUnknownType {
                at: at.clone(),
                kind: kind.clone(),
                suggestion: crate::suggest::closest(
                    &kind,
                    std::iter::once("command").chain(UNSUPPORTED_TYPES),
                ),
            }),
        }
        if if_rule.is_some() && !rule::is_tool_event(event) {
            self.warn(ConfigWarningKind::ClaudeIfOnNonToolEvent { at: at.clone() });
        }
        if !type_runs_at(&kind, event) {
            self.warn(ConfigWarningKind::ClaudeTypeNotOnEvent {
                at: at.clone(),
                kind: kind.clone(),
                event: event.to_owned(),
            });
        }

        // In exec form the command is the program; otherwise the shell reads it.
        let form = match (&args, shell.as_deref()) {
            (Some(_), _) => Form::Exec,
            (None, Some("bash")) => Form::Bash,
            (None, _) => Form::Sh,
        };
        let command = command.map(|c| self.ctx.substitute(&c, form).into_owned());
        let args = args.map(|args| {
            args.iter()
                .map(|a| self.ctx.substitute(a, Form::Exec).into_owned())
                .collect::<Vec<_>>()
        });
        if command.as_deref().is_some_and(|c| c.contains('\0')) {
            return Err(ConfigErrorKind::ClaudeNulCharacter {
                at: field("command"),
            });
        }
        if let Some(i) = args.iter().flatten().position(|a| a.contains('\0')) {
            return Err(ConfigErrorKind::ClaudeNulCharacter {
                at: format!("\"args\"[{i}] of {at}"),
            });
        }

        Ok(Handler {
            source: self.path.to_path_buf(),
            plugin_root: self.ctx.plugin_root.clone(),
            event: event.to_owned(),
            point,
            group,
            position,
            index,
            matcher: matcher.map(str::to_owned),
            pattern: pattern.clone(),
            kind,
            command,
            prompt: prompt.map(|p| self.ctx.substitute(&p, Form::Exec).into_owned()),
            url,
            headers,
            allowed_env_vars,
            fail_closed,
            continue_on_block,
            args,
            shell,
            timeout,
            is_async: is_async || rewake,
            if_rule,
            status_message,
            once,
            persistent,
        })
    }
}

/// Whether Claude Code runs a handler of type `kind` at `event`: `prompt` and
/// `agent` handlers only at the events where a model's yes or no means
/// something, `http` ones everywhere but `SessionStart` and `Setup`. A
/// command, an unknown type, or an event that is no Claude Code event: yes
/// (their own warnings say what is wrong).
///
/// ```
/// use tower_hooks::dialect::claude::config::type_runs_at;
///
/// assert!(type_runs_at("prompt", "PreToolUse"));
/// assert!(!type_runs_at("prompt", "SessionEnd"));
/// assert!(type_runs_at("http", "SessionEnd"));
/// assert!(!type_runs_at("http", "SessionStart"));
/// assert!(type_runs_at("command", "SessionStart"));
/// ```
pub fn type_runs_at(kind: &str, event: &str) -> bool {
    const MODEL_EVENTS: [&str; 13] = [
        "PermissionDenied",
        "PermissionRequest",
        "PostToolBatch",
        "PostToolUse",
        "PostToolUseFailure",
        "PreToolUse",
        "Stop",
        "SubagentStop",
        "TaskCompleted",
        "TaskCreated",
        "TeammateIdle",
        "UserPromptExpansion",
        "UserPromptSubmit",
    ];
    if !matcher::is_claude_event(event) {
        return true;
    }
    match kind {
        "prompt" | "agent" => MODEL_EVENTS.contains(&event),
        "http" => !matches!(event, "SessionStart" | "Setup"),
        _ => true,
    }
}

/// The settings-level gates of `http` handlers, added up over the files of a
/// load (Claude Code merges them across its settings files):
/// `allowedHttpHookUrls`, the URL patterns handlers may post to, and
/// `httpHookAllowedEnvVars`, the outer limit on what their headers may read.
/// A gate no file sets lets everything through; a gate set to an empty list
/// lets nothing through.
///
/// ```
/// use tower_hooks::dialect::claude::config::HttpGates;
///
/// let mut gates = HttpGates::default();
/// assert!(gates.allows_url("https://anything.example/x"));
/// gates.add_urls(["https://policy.example.com/*", "http://127.0.0.1:*"]);
/// assert!(gates.allows_url("https://policy.example.com/v1/check"));
/// assert!(gates.allows_url("http://127.0.0.1:8700/hook"));
/// assert!(!gates.allows_url("https://evil.example/policy.example.com/"));
///
/// gates.add_env_vars(Vec::<String>::new());
/// assert!(!gates.allows_env_var("HOME"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpGates {
    urls: Option<Vec<String>>,
    env_vars: Option<Vec<String>>,
}

impl HttpGates {
    /// The gates of `files`, added up.
    pub fn of<'a>(files: impl IntoIterator<Item = &'a HooksFile>) -> Self {
        let mut gates = HttpGates::default();
        for file in files {
            gates.add(file);
        }
        gates
    }

    /// Adds a file's gates.
    pub fn add(&mut self, file: &HooksFile) {
        if let Some(urls) = &file.allowed_http_hook_urls {
            self.add_urls(urls.iter().cloned());
        }
        if let Some(names) = &file.http_hook_allowed_env_vars {
            self.add_env_vars(names.iter().cloned());
        }
    }

    /// Adds URL patterns (and sets the gate, even with none).
    pub fn add_urls<S: Into<String>>(&mut self, patterns: impl IntoIterator<Item = S>) {
        self.urls
            .get_or_insert_with(Vec::new)
            .extend(patterns.into_iter().map(Into::into));
    }

    /// Adds variable names (and sets the gate, even with none).
    pub fn add_env_vars<S: Into<String>>(&mut self, names: impl IntoIterator<Item = S>) {
        self.env_vars
            .get_or_insert_with(Vec::new)
            .extend(names.into_iter().map(Into::into));
    }

    /// Whether an `http` handler may post to `url`: no file set
    /// `allowedHttpHookUrls`, or one of its patterns allows the URL.
    ///
    /// The URL and each pattern are read by the `url` crate, the parser the
    /// HTTP client requests with, and compared part by part: the scheme, the
    /// host (`*` for any run of characters), the port (`:*` for any) and the
    /// path, normalised as the client normalises it, each against its own
    /// part of the pattern. So a `*` written for a port or a subdomain stays
    /// in its part: it never swallows a path, a `?` or a `#` and names
    /// another host or path. A query or fragment in the URL needs one in the
    /// pattern that matches it, or a pattern whose path ends with `*`; it
    /// never stands in for the path (`http://127.0.0.1:*/allow*` does not
    /// allow `http://127.0.0.1:8700/deny?/allow`). A pattern that ends with
    /// `*` in its host or port (`http://localhost:*`) allows every path of
    /// the hosts and ports it names; `*` alone allows every URL. A pattern
    /// that is no URL pattern (`localhost*`) allows nothing.
    ///
    /// A URL whose request would go elsewhere than its text says is matched
    /// by none: one with user information (`http://localhost:1@elsewhere/`
    /// goes to `elsewhere`), a backslash, a `.` or `..` path segment, however
    /// encoded (`/allowed/../admin` asks for `/admin`), or an encoded `/` or
    /// `\` in its path.
    ///
    /// ```
    /// use tower_hooks::dialect::claude::config::HttpGates;
    ///
    /// let mut gates = HttpGates::default();
    /// gates.add_urls(["http://localhost:*", "https://*.example.com/allowed/*"]);
    /// assert!(gates.allows_url("http://localhost:8700/hook"));
    /// assert!(gates.allows_url("https://policy.example.com/allowed/check"));
    /// assert!(!gates.allows_url("http://localhost:1@elsewhere.example:80/x"));
    /// assert!(!gates.allows_url("https://policy.example.com/allowed/../admin"));
    /// assert!(!gates.allows_url("https://policy.example.com/allowed/%2E%2e/admin"));
    /// assert!(!gates.allows_url("https://evil.test#.example.com/allowed/x"));
    /// assert!(!gates.allows_url("https://policy.example.com:6379/.example.com/allowed/x"));
    ///
    /// gates.add_urls(["http://127.0.0.1:*/allow*"]);
    /// assert!(gates.allows_url("http://127.0.0.1:8700/allowed"));
    /// assert!(!gates.allows_url("http://127.0.0.1:8700/deny?/allow"));
    /// assert!(!gates.allows_url("http://127.0.0.1:8700#/allow"));
    /// ```
    pub fn allows_url(&self, url: &str) -> bool {
        let Some(patterns) = &self.urls else {
            return true;
        };
        let Some(url) = http_url::as_requested(url) else {
            return false;
        };
        patterns
            .iter()
            .filter_map(|pattern| http_url::UrlPattern::parse(pattern))
            .any(|pattern| pattern.matches(&url))
    }

    /// Whether a header may read the variable `name` (when its handler lists
    /// it in `allowedEnvVars`).
    pub fn allows_env_var(&self, name: &str) -> bool {
        self.env_vars
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }

    /// The URL patterns, if a file set any.
    pub fn url_patterns(&self) -> Option<&[String]> {
        self.urls.as_deref()
    }
}

/// Where a handler stands, and its group's matcher.
#[derive(Clone, Copy)]
struct Slot<'a> {
    event: &'a str,
    point: Option<Event>,
    group: usize,
    position: usize,
    index: usize,
    matcher: Option<&'a str>,
    pattern: &'a Pattern,
}

/// The default timeout of a handler of type `kind` on `event`, as Claude Code
/// has them.
fn default_timeout(event: &str, kind: &str) -> Duration {
    match (kind, event) {
        ("prompt", _) => Duration::from_secs(30),
        ("agent", _) => Duration::from_secs(60),
        (_, "UserPromptSubmit") => PROMPT_SUBMIT_TIMEOUT,
        (_, "MessageDisplay") => Duration::from_secs(10),
        _ => DEFAULT_TIMEOUT,
    }
}

fn take_string(
    fields: &mut Map<String, Value>,
    name: &str,
    at: &dyn Fn(&str) -> String,
) -> Result<Option<String>, ConfigErrorKind> {
    match fields.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(at(name), "a string", &other)),
    }
}

fn take_bool(
    fields: &mut Map<String, Value>,
    name: &str,
    at: &dyn Fn(&str) -> String,
) -> Result<bool, ConfigErrorKind> {
    match fields.remove(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(b),
        Some(other) => Err(invalid(at(name), "true or false", &other)),
    }
}

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
    timeout: Duration,
    is_async: bool,
    persistent: bool,
    fail_closed: bool,
    continue_on_block: bool,
    once: bool,
}

impl<'a> Key<'a> {
    fn of(handler: &'a Handler) -> Option<Self> {
        // An `mcp_tool` handler's own fields are not read, so two of them
        // cannot be told apart: they never dedup.
        if handler.is_plugin() || !matches!(&*handler.kind, "command" | "http" | "prompt" | "agent")
        {
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
            timeout: handler.timeout,
            is_async: handler.is_async,
            persistent: handler.persistent,
            fail_closed: handler.fail_closed,
            continue_on_block: handler.continue_on_block,
            once: handler.once,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PATH: &str = "/p/.claude/settings.json";

    fn ctx() -> Context {
        Context::new("/p")
    }

    /// Loads a file built with `json!`, whose objects list their keys sorted.
    fn load_json(value: Value) -> HooksFile {
        load_text(&value.to_string())
    }

    /// Loads a file as written, its events in the order given.
    fn load_text(text: &str) -> HooksFile {
        parse(text, Path::new(PATH), &ctx()).unwrap()
    }

    fn error_of(text: &str) -> String {
        parse(text, Path::new(PATH), &ctx())
            .unwrap_err()
            .to_string()
    }

    fn error_json(value: Value) -> String {
        error_of(&value.to_string())
    }

    fn cmd(command: &str) -> Value {
        json!({"type": "command", "command": command})
    }

    fn warnings(file: &HooksFile) -> Vec<String> {
        file.warnings.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn handlers_carry_their_fields() {
        let file = load_json(
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
                "type": "command",
                "command": "./guard.sh",
                "timeout": 5,
                "async": true,
                "shell": "bash",
                "if": "Bash(rm *)",
                "statusMessage": "checking",
                "once": true,
                "persistent": true,
                "someFutureField": {"ignored": true}
            }]}]}}),
        );
        let [h] = &file.handlers[..] else {
            panic!("{:?}", file.handlers)
        };
        assert_eq!(h.source, Path::new(PATH));
        assert_eq!(h.event, "PreToolUse");
        assert_eq!(h.point, Some(Event::ToolExecutionStart));
        assert_eq!(h.matcher.as_deref(), Some("Bash"));
        assert!(h.pattern.matches("Bash"));
        assert!(!h.pattern.matches("Edit"));
        assert_eq!(h.kind, "command");
        assert_eq!(h.command.as_deref(), Some("./guard.sh"));
        assert_eq!(h.args, None);
        assert_eq!(h.shell.as_deref(), Some("bash"));
        assert_eq!(h.timeout, Duration::from_secs(5));
        assert!(h.is_async && h.once && h.persistent);
        assert_eq!(h.if_rule.as_ref().map(|r| r.as_str()), Some("Bash(rm *)"));
        assert_eq!(h.status_message.as_deref(), Some("checking"));
        assert!(h.is_runnable());
        assert!(!h.is_plugin());
        assert!(file.warnings.is_empty());
    }

    #[test]
    fn other_top_level_keys_are_left_alone() {
        let file = load_json(json!({
            "model": "opus",
            "permissions": {"allow": ["Bash(ls)"]},
            "env": {"A": 1},
            "hooks": {"Stop": [{"hooks": [cmd("true")]}]}
        }));
        assert_eq!(file.handlers.len(), 1);
        assert!(file.warnings.is_empty());
        // A file with no hooks at all loads empty.
        assert!(load_json(json!({"model": "opus"})).handlers.is_empty());
        assert!(load_json(json!({"hooks": null})).handlers.is_empty());
        assert!(load_json(json!({})).handlers.is_empty());
    }

    #[test]
    fn the_index_counts_through_the_matcher_groups() {
        let file = load_text(
            r#"{"hooks": {
              "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"},
                                              {"type": "command", "command": "a.sh"}]},
                {"matcher": "Edit", "hooks": [{"type": "command", "command": "b.sh"}]}
              ],
              "PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]
            }}"#,
        );
        let got: Vec<(&str, usize, usize, usize)> = file
            .handlers
            .iter()
            .map(|h| (h.event.as_str(), h.index, h.group, h.position))
            .collect();
        assert_eq!(
            got,
            [
                ("PreToolUse", 0, 0, 0),
                ("PreToolUse", 1, 0, 1),
                ("PreToolUse", 2, 1, 0),
                ("PostToolUse", 0, 0, 0)
            ]
        );
        assert_eq!(
            file.handlers[2].describe(),
            "PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])"
        );
        assert_eq!(file.handlers[2].location(), format!("{PATH}:2"));
    }

    #[test]
    fn a_plugin_file_counts_through_groups_and_substitutes_both_roots() {
        let path = Path::new("/t/plug/hooks/hooks.json");
        let text = r#"{"description": "a test plugin", "hooks": {
            "PreToolUse": [
              {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"},
                {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/a.sh"}]},
              {"matcher": "Edit", "hooks": [
                {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/hooks/b.sh"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#;
        let file = parse(text, path, &Context::for_file("/t/proj", path)).unwrap();
        let got: Vec<(&str, usize, Option<&str>)> = file
            .handlers
            .iter()
            .map(|h| (h.event.as_str(), h.index, h.command.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("PreToolUse", 0, Some("true")),
                ("PreToolUse", 1, Some("/t/plug/scripts/a.sh")),
                ("PreToolUse", 2, Some("/t/proj/hooks/b.sh")),
                ("PostToolUse", 0, Some("true")),
            ]
        );
        assert!(file.handlers.iter().all(Handler::is_plugin));
    }

    #[test]
    fn events_keep_their_file_order() {
        let text = r#"{"hooks": {"Stop": [{"hooks": [{"command": "a"}]}],
                       "PreToolUse": [{"hooks": [{"command": "b"}]}],
                       "Notification": [{"hooks": [{"command": "c"}]}]}}"#;
        let file = parse(text, Path::new(PATH), &ctx()).unwrap();
        let events: Vec<&str> = file.handlers.iter().map(|h| h.event.as_str()).collect();
        assert_eq!(events, ["Stop", "PreToolUse", "Notification"]);
    }

    #[test]
    fn a_handler_without_a_type_is_a_command() {
        let file = load_json(json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}));
        assert_eq!(file.handlers[0].kind, "command");
        assert!(file.warnings.is_empty());
    }

    #[test]
    fn timeouts_are_seconds_with_per_event_defaults() {
        let file = load_text(
            r#"{"hooks": {
              "PreToolUse": [{"hooks": [{"command": "a"}, {"command": "b", "timeout": 1.5}]}],
              "UserPromptSubmit": [{"hooks": [{"command": "c"}, {"command": "d", "timeout": 90}]}],
              "Stop": [{"hooks": [{"type": "prompt", "prompt": "ok?"}, {"type": "agent", "prompt": "x"}]}]
            }}"#,
        );
        let timeouts: Vec<Duration> = file.handlers.iter().map(|h| h.timeout).collect();
        assert_eq!(
            timeouts,
            [
                Duration::from_secs(600),
                Duration::from_millis(1500),
                Duration::from_secs(30),
                Duration::from_secs(90),
                Duration::from_secs(30),
                Duration::from_secs(60),
            ]
        );
        assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(600));
    }

    #[test]
    fn a_huge_timeout_saturates() {
        let file = load_json(json!({"hooks": {"Stop": [{"hooks": [
            {"command": "x", "timeout": 1e300}]}]}}));
        assert_eq!(file.handlers[0].timeout, Duration::MAX);
    }

    #[test]
    fn a_timeout_in_milliseconds_is_a_warning() {
        let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
            {"command": "x", "timeout": 5000}, {"command": "y", "timeout": 1800}]}]}}));
        assert_eq!(file.handlers[0].timeout, Duration::from_secs(5000));
        assert_eq!(
            warnings(&file),
            [format!(
                "{PATH}: PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): \"timeout\": 5000 is \
                 5000 seconds; Claude Code timeouts are in seconds, not milliseconds (write 5 for \
                 5 seconds)"
            )]
        );
    }

    #[test]
    fn wrong_timeouts_are_errors() {
        assert_eq!(
            error_json(
                json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                cmd("a"), {"type": "command", "command": "x", "timeout": "30"}]}]}})
            ),
            format!(
                "{PATH}: \"timeout\" of PreToolUse handler 1 (hooks.PreToolUse[0].hooks[1]) must \
                 be a positive number of seconds, not the string \"30\""
            )
        );
        for bad in [json!(0), json!(-1), json!(true), json!([1])] {
            let err = error_json(
                json!({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": bad}]}]}}),
            );
            assert!(
                err.contains(
                    "\"timeout\" of Stop handler 0 (hooks.Stop[0].hooks[0]) must be a \
                     positive number of seconds"
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn other_wrong_types_are_errors_naming_the_place() {
        let cases = [
            (
                json!({"hooks": []}),
                "\"hooks\" must be an object of event names, not an array",
            ),
            (
                json!({"hooks": {"PreToolUse": {"matcher": "Bash"}}}),
                "hooks.PreToolUse must be an array of matcher groups, not an object",
            ),
            (
                json!({"hooks": {"PreToolUse": ["Bash"]}}),
                "matcher group hooks.PreToolUse[0] must be an object, not the string \"Bash\"",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"matcher": 1, "hooks": []}]}}),
                "\"matcher\" of matcher group hooks.PreToolUse[0] must be a string, not the number 1",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"hooks": {"command": "x"}}]}}),
                "\"hooks\" of matcher group hooks.PreToolUse[0] must be an array of handlers, not an object",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"matcher": "Bash"}]}}),
                "matcher group hooks.PreToolUse[0] (its \"hooks\") must be an array of handlers, \
                 not nothing: the group has no \"hooks\"",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"hooks": ["echo hi"]}]}}),
                "PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be an object, not the \
                 string \"echo hi\"",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"hooks": [{"command": ["a"]}]}]}}),
                "\"command\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be a \
                 string, not an array",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "args": "b"}]}]}}),
                "\"args\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be an array \
                 of strings, not the string \"b\"",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "args": ["b", 2]}]}]}}),
                "\"args\"[1] of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be a \
                 string, not the number 2",
            ),
            (
                json!({"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "async": "yes"}]}]}}),
                "\"async\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be true or \
                 false, not the string \"yes\"",
            ),
            (
                json!({"disableAllHooks": "true"}),
                "\"disableAllHooks\" must be true or false, not the string \"true\"",
            ),
        ];
        for (value, message) in cases {
            assert_eq!(error_json(value), format!("{PATH}: {message}"));
        }
    }

    #[test]
    fn a_top_level_that_is_not_an_object_is_an_error() {
        assert_eq!(
            error_of("[1, 2]"),
            format!("{PATH}: the top level must be a JSON object, not an array")
        );
        assert_eq!(
            error_of("\"hooks\""),
            format!("{PATH}: the top level must be a JSON object, not the string \"hooks\"")
        );
    }

    #[test]
    fn malformed_json_names_the_line_and_column() {
        let text = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n  }\n}\n";
        let err = parse(text, Path::new(PATH), &ctx()).unwrap_err();
        assert!(
            matches!(err.kind(), ConfigErrorKind::InvalidJson(_)),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("{PATH}: not valid JSON: expected value at line 4 column 3")
        );
        assert!(error_of("").contains("EOF while parsing a value at line 1 column 0"));
        assert!(error_of("{\"hooks\": {}} trailing").contains("trailing characters at line 1"));
        // Trailing commas and comments are not JSON either.
        assert!(error_of("{\"hooks\": {},}").contains("not valid JSON"));
        assert!(error_of("// c\n{}").contains("not valid JSON"));
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let file = parse("\u{feff}{\"hooks\": {}}", Path::new(PATH), &ctx()).unwrap();
        assert!(file.handlers.is_empty());
    }

    #[test]
    fn a_command_handler_needs_a_command() {
        let expected = format!(
            "{PATH}: PreToolUse handler 1 (hooks.PreToolUse[1].hooks[0]) has no \"command\": a \
             handler of type \"command\" needs the shell command to run (with \"args\": the \
             program to start)"
        );
        for handler in [
            json!({"type": "command"}),
            json!({"type": "command", "command": "  "}),
            json!({"type": "command", "args": ["a"]}),
            json!({"timeout": 3}),
        ] {
            let value = json!({"hooks": {"PreToolUse": [
                {"hooks": [cmd("true")]}, {"matcher": "Bash", "hooks": [handler]}]}});
            assert_eq!(error_json(value), expected);
        }
    }

    #[test]
    fn exec_form_args_are_kept_and_substituted() {
        let ctx = Context::new("/p").with_plugin_root("/plug");
        let text = json!({"hooks": {"PreToolUse": [{"hooks": [{
            "type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/check",
            "args": ["--project", "${CLAUDE_PROJECT_DIR}", "${CLAUDE_PLUGIN_DATA}"]}]}]}});
        let file = parse(&text.to_string(), Path::new("/plug/hooks/hooks.json"), &ctx).unwrap();
        let h = &file.handlers[0];
        assert_eq!(h.command.as_deref(), Some("/plug/bin/check"));
        assert_eq!(
            h.args.as_deref(),
            Some(
                &[
                    "--project".into(),
                    "/p".into(),
                    "${CLAUDE_PLUGIN_DATA}".into()
                ][..]
            )
        );
        assert!(h.is_plugin());
        assert_eq!(h.plugin_root.as_deref(), Some(Path::new("/plug")));
    }

    #[test]
    fn substitution_replaces_the_braced_placeholders_only() {
        let ctx = Context::new("/p")
            .with_plugin_root("/plug")
            .with_plugin_data("/data");
        assert_eq!(
            ctx.substitute(
                "'${CLAUDE_PLUGIN_ROOT}/scripts/env.sh' '${CLAUDE_PROJECT_DIR}' ${CLAUDE_PLUGIN_DATA}/x",
                Form::Sh
            ),
            "'/plug/scripts/env.sh' '/p' /data/x"
        );
        assert_eq!(
            ctx.substitute("${CLAUDE_PROJECT_DIR}${CLAUDE_PROJECT_DIR}", Form::Sh),
            "/p/p"
        );
        for unchanged in [
            "$CLAUDE_PROJECT_DIR/x",
            "${CLAUDE_PROJECT_DIRX}",
            "${CLAUDE_OTHER}",
            "echo hi",
        ] {
            assert_eq!(ctx.substitute(unchanged, Form::Sh), unchanged);
        }
        assert!(matches!(
            ctx.substitute("echo hi", Form::Sh),
            Cow::Borrowed(_)
        ));
        // A settings file has no plugin root: the placeholder stays for the shell.
        assert_eq!(
            Context::new("/p").substitute("${CLAUDE_PLUGIN_ROOT}/a", Form::Sh),
            "${CLAUDE_PLUGIN_ROOT}/a"
        );
    }

    #[test]
    fn commands_are_substituted_when_loaded() {
        let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
            cmd("\"${CLAUDE_PROJECT_DIR}\"/.claude/hooks/guard.sh")]}]}}));
        assert_eq!(
            file.handlers[0].command.as_deref(),
            Some("\"/p\"/.claude/hooks/guard.sh")
        );
    }

    #[test]
    fn the_plugin_root_is_the_folder_above_hooks() {
        let path = Path::new("/x/plug/hooks/hooks.json");
        assert_eq!(plugin_root_of(path).as_deref(), Some(Path::new("/x/plug")));
        let ctx = Context::for_file("/p", path);
        assert_eq!(ctx.plugin_root.as_deref(), Some(Path::new("/x/plug")));
        assert_eq!(ctx.project_dir, Path::new("/p"));
        for other in [
            "/p/.claude/settings.json",
            "/p/.agents/hooks.json",
            "/p/.cursor/hooks.json",
            "hooks.json",
            "/hooks/other.json",
        ] {
            assert_eq!(plugin_root_of(Path::new(other)), None, "{other}");
        }
        assert_eq!(
            plugin_root_of(Path::new("hooks/hooks.json")).as_deref(),
            Some(Path::new(""))
        );
    }

    #[test]
    fn disable_all_hooks_is_read_and_the_handlers_too() {
        // Whether the switch counts is decided over the whole load
        // (config::discovery), so the file's handlers are still read.
        let file = load_json(json!({"disableAllHooks": true,
            "hooks": {"PreToolUse": [{"hooks": [cmd("touch ran")]}], "TaskCreated": []}}));
        assert!(file.disabled);
        assert_eq!(file.disable_all_hooks, Some(true));
        assert_eq!(file.handlers.len(), 1);
        let on = load_json(json!({"disableAllHooks": false,
            "hooks": {"PreToolUse": [{"hooks": [cmd("touch ran")]}]}}));
        assert!(!on.disabled);
        assert_eq!(on.disable_all_hooks, Some(false));
        assert_eq!(on.handlers.len(), 1);
        // A disabled file's broken hooks cannot fail the load: it has none.
        let broken = load_json(json!({"disableAllHooks": true, "hooks": {"PreToolUse": 3}}));
        assert!(broken.disabled);
        assert!(broken.handlers.is_empty());
    }

    #[test]
    fn an_unfired_event_is_a_warning_naming_file_and_event() {
        let file = load_text(
            r#"{"hooks": {
              "TaskCreated": [{"hooks": [{"type": "command", "command": "true"}]}],
              "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
            }}"#,
        );
        assert_eq!(
            warnings(&file),
            [format!(
                "{PATH}: hooks.TaskCreated: TaskCreated is a Claude Code event this host does not \
                 fire, so its hooks never run"
            )]
        );
        let task = &file.handlers[0];
        assert_eq!(task.point, None);
        assert!(!task.is_runnable());
        assert!(file.handlers[1].is_runnable());
    }

    #[test]
    fn an_unknown_event_is_a_warning_with_a_suggestion() {
        let file = load_text(
            r#"{"hooks": {
              "PreToolUsee": [{"hooks": [{"command": "true"}]}],
              "pre_tool_use": [{"hooks": [{"command": "true"}]}],
              "Banana": [{"matcher": "x", "hooks": [{"command": "true"}]}]
            }}"#,
        );
        assert_eq!(
            warnings(&file),
            [
                format!(
                    "{PATH}: hooks.PreToolUsee: \"PreToolUsee\" is not a Claude Code event, so its \
                     hooks never run; did you mean \"PreToolUse\"?"
                ),
                format!(
                    "{PATH}: hooks.pre_tool_use: \"pre_tool_use\" is not a Claude Code event, so \
                     its hooks never run; did you mean \"PreToolUse\"?"
                ),
                format!(
                    "{PATH}: hooks.Banana: \"Banana\" is not a Claude Code event, so its hooks \
                     never run"
                ),
            ]
        );
        assert!(file.handlers.iter().all(|h| h.point.is_none()));
    }

    #[test]
    fn unsupported_handler_types_load_with_a_warning() {
        let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "mcp_tool", "server": "s", "tool": "t"},
            {"type": "prompt", "prompt": "is this safe? $ARGUMENTS"},
            {"type": "agent", "prompt": "check"},
            {"type": "mcp_tool", "server": "s", "tool": "t"},
            {"type": "comand", "command": "x"},
            {"type": "shell", "command": "x"}
        ]}]}}));
        assert_eq!(file.handlers.len(), 6);
        assert!(file.handlers.iter().all(|h| !h.is_runnable()));
        assert_eq!(file.handlers[0].command, None);
        let w = warnings(&file);
        assert_eq!(
            w[0],
            format!(
                "{PATH}: PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): handlers of type \
                 \"mcp_tool\" are not runnable by this host (only \"command\" and \"http\" run), \
                 so this one never runs"
            )
        );
        assert!(w[1].contains("handler 1") && w[1].contains("\"prompt\" is answered by a model"));
        assert!(w[2].contains("handler 2") && w[2].contains("\"agent\" is answered by a model"));
        assert_eq!(
            file.handlers[1].prompt.as_deref(),
            Some("is this safe? $ARGUMENTS")
        );
        assert!(w[3].contains("handler 3") && w[3].contains("\"mcp_tool\" are not runnable"));
        assert_eq!(
            w[4],
            format!(
                "{PATH}: PreToolUse handler 4 (hooks.PreToolUse[0].hooks[4]): type \"comand\" is \
                 not a Claude Code handler type, so this handler never runs; did you mean \
                 \"command\"?"
            )
        );
        assert!(w[5].ends_with("so this handler never runs"), "{}", w[5]);
    }

    #[test]
    fn a_look_around_matcher_is_an_error_naming_file_event_group_and_pattern() {
        let err = parse(
            &json!({"hooks": {"PreToolUse": [
                {"hooks": [cmd("true")]},
                {"matcher": "^(?!Read)", "hooks": [cmd("true")]}]}})
            .to_string(),
            Path::new(PATH),
            &ctx(),
        )
        .unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(&format!(
                "{PATH}: invalid matcher \"^(?!Read)\" in PreToolUse matcher group 1 \
                 (hooks.PreToolUse[1]): "
            )),
            "{message}"
        );
        assert!(message.contains("look-around"), "{message}");
        assert!(
            message.ends_with("neither look-around nor backreferences)"),
            "{message}"
        );
        let ConfigErrorKind::ClaudeInvalidMatcher {
            event,
            group,
            error,
        } = err.kind()
        else {
            panic!("{err:?}")
        };
        assert_eq!(
            (event.as_str(), *group, error.pattern()),
            ("PreToolUse", 1, "^(?!Read)")
        );
    }

    #[test]
    fn a_long_invalid_matcher_is_cut_in_the_message() {
        let matcher = format!("({}", "a".repeat(5000));
        let message = error_json(json!({"hooks": {"PreToolUse": [
            {"matcher": matcher, "hooks": [cmd("true")]}]}}));
        assert!(message.len() < 1000, "{}", message.len());
        assert!(message.contains('\u{2026}'));
    }

    #[test]
    fn a_matcher_on_an_event_without_one_is_ignored_with_a_warning() {
        let file = load_json(json!({"hooks": {"Stop": [
            {"matcher": "Bash", "hooks": [cmd("true")]},
            {"matcher": "*", "hooks": [cmd("true")]}]}}));
        assert!(file
            .handlers
            .iter()
            .all(|h| matches!(h.pattern, Pattern::Any)));
        assert_eq!(file.handlers[0].matcher.as_deref(), Some("Bash"));
        assert_eq!(
            warnings(&file),
            [format!(
                "{PATH}: hooks.Stop[0]: matcher \"Bash\" is ignored: Stop has no matcher, so the \
                 group's hooks run every time"
            )]
        );
    }

    #[test]
    fn an_if_rule_is_parsed_and_checked() {
        let file = load_json(json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "x", "if": "Bash(git commit:*)"}]}],
            "Stop": [{"hooks": [{"command": "y", "if": "Bash(ls)"}]}]
        }}));
        let rule = file.handlers[0].if_rule.as_ref().unwrap();
        assert!(rule.matches("Bash", &json!({"command": "cd r && git commit -m x"})));
        assert_eq!(
            warnings(&file),
            [format!(
                "{PATH}: Stop handler 0 (hooks.Stop[0].hooks[0]): \"if\" is only tested on tool \
                 events (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, \
                 PermissionDenied), so this handler never runs"
            )]
        );
        let err = error_json(json!({"hooks": {"PreToolUse": [{"hooks": [
            {"command": "x", "if": "Bash(git *) || Edit(*)"}]}]}}));
        assert!(
            err.starts_with(&format!(
                "{PATH}: invalid \"if\" rule \"Bash(git *) || Edit(*)\" of PreToolUse handler 0 \
                 (hooks.PreToolUse[0].hooks[0]): one rule only"
            )),
            "{err}"
        );
    }

    #[test]
    fn a_nul_in_a_command_is_an_error() {
        let err = error_json(json!({"hooks": {"Stop": [{"hooks": [{"command": "a\u{0}b"}]}]}}));
        assert_eq!(
            err,
            format!(
                "{PATH}: \"command\" of Stop handler 0 (hooks.Stop[0].hooks[0]) contains a NUL \
                 character (\\u0000), which no process argument can carry; remove it"
            )
        );
        let err = error_json(
            json!({"hooks": {"Stop": [{"hooks": [{"command": "a", "args": ["ok", "\u{0}"]}]}]}}),
        );
        assert!(err.contains("\"args\"[1] of Stop handler 0"), "{err}");
    }

    #[test]
    fn a_repeated_event_key_keeps_its_last_value() {
        let text = r#"{"hooks": {"Stop": [{"hooks": [{"command": "first"}]}],
                       "Notification": [{"hooks": [{"command": "n"}]}],
                       "Stop": [{"hooks": [{"command": "second"}]}]}}"#;
        let file = parse(text, Path::new(PATH), &ctx()).unwrap();
        let commands: Vec<&str> = file
            .handlers
            .iter()
            .filter_map(|h| h.command.as_deref())
            .collect();
        assert_eq!(commands, ["second", "n"]);
    }

    #[test]
    fn standard_files_come_in_load_order() {
        let files = standard_files(Some(Path::new("/h")), Path::new("/p"));
        assert_eq!(
            files,
            [
                PathBuf::from("/h/.claude/settings.json"),
                PathBuf::from("/p/.claude/settings.json"),
                PathBuf::from("/p/.claude/settings.local.json"),
                managed_settings_path(),
            ]
        );
        assert_eq!(standard_files(None, Path::new("/p")).len(), 3);
        let all = with_plugins(files, ["/plug/a", "/plug/b"]);
        assert_eq!(all[4], Path::new("/plug/a/hooks/hooks.json"));
        assert_eq!(all[5], Path::new("/plug/b/hooks/hooks.json"));
        if !cfg!(target_os = "macos") {
            assert_eq!(
                managed_settings_path(),
                Path::new("/etc/claude-code/managed-settings.json")
            );
        }
    }

    #[test]
    fn load_all_skips_missing_files_and_finds_plugin_roots() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        let plugin = dir.path().join("plug");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(plugin.join("hooks")).unwrap();
        let hooks = |command: &str| {
            json!({"hooks": {"PreToolUse": [{"hooks": [cmd(command)]}]}}).to_string()
        };
        std::fs::write(home.join(".claude/settings.json"), hooks("user")).unwrap();
        std::fs::write(
            project.join(".claude/settings.local.json"),
            hooks("${CLAUDE_PROJECT_DIR}/local"),
        )
        .unwrap();
        std::fs::write(
            plugin.join("hooks/hooks.json"),
            hooks("${CLAUDE_PLUGIN_ROOT}/p"),
        )
        .unwrap();
        let mut files = standard_files(Some(&home), &project);
        files.pop(); // the machine's managed file is not the test's
        let files = with_plugins(files, [&plugin]);
        let loaded = load_all(&files, &project).unwrap();
        let commands: Vec<String> = loaded
            .iter()
            .flat_map(|f| &f.handlers)
            .filter_map(|h| h.command.clone())
            .collect();
        assert_eq!(
            commands,
            [
                "user".to_owned(),
                format!("{}/local", project.display()),
                format!("{}/p", plugin.display()),
            ]
        );
        assert_eq!(loaded[2].plugin_root.as_deref(), Some(plugin.as_path()));
        assert!(loaded[2].handlers[0].is_plugin());
    }

    #[test]
    fn load_reports_unreadable_files_with_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let err = load(dir.path(), &ctx()).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ConfigErrorKind::NotAFile {
                    what: "a directory"
                }
            ),
            "{err:?}"
        );
        let path = dir.path().join("settings.json");
        std::fs::write(&path, b"{\"hooks\": \"\xff\"}").unwrap();
        let err = load(&path, &ctx()).unwrap_err();
        assert!(err.to_string().starts_with(&path.display().to_string()));
        assert!(matches!(
            err.kind(),
            ConfigErrorKind::InvalidUtf8 {
                offset: 11,
                line: 1
            }
        ));
        let missing = load(&dir.path().join("none.json"), &ctx()).unwrap_err();
        assert!(missing.is_not_found());
    }

    fn settings(path: &str, value: Value) -> HooksFile {
        parse(&value.to_string(), Path::new(path), &ctx()).unwrap()
    }

    #[test]
    fn identical_handlers_in_settings_files_run_once() {
        let user = settings(
            "/h/.claude/settings.json",
            json!({"hooks": {"PreToolUse": [
                {"matcher": "Bash", "hooks": [cmd("true")]},
                {"matcher": "Bash", "hooks": [cmd("echo once >> log")]}]}}),
        );
        let project = settings(
            PATH,
            json!({"hooks": {"PreToolUse": [
                {"matcher": "Bash", "hooks": [cmd("echo once >> log")]}]}}),
        );
        let all: Vec<&Handler> = user.handlers.iter().chain(&project.handlers).collect();
        let originals = duplicates(all.iter().copied());
        assert!(originals[0].is_none() && originals[1].is_none());
        let original = originals[2].expect("a duplicate");
        assert_eq!(original.location(), "/h/.claude/settings.json:1");
    }

    #[test]
    fn duplicates_within_one_file_count_too() {
        let file = settings(
            PATH,
            json!({"hooks": {"Stop": [{"hooks": [cmd("x"), cmd("x")]}, {"hooks": [cmd("x")]}]}}),
        );
        let originals = duplicates(&file.handlers);
        assert!(originals[0].is_none());
        assert_eq!(originals[1].map(|h| h.index), Some(0));
        assert_eq!(originals[2].map(|h| h.index), Some(0));
    }

    #[test]
    fn duplicates_compare_the_expanded_command() {
        let a = settings(
            "/h/.claude/settings.json",
            json!({"hooks": {"Stop": [{"hooks": [cmd("${CLAUDE_PROJECT_DIR}/x")]}]}}),
        );
        let b = settings(PATH, json!({"hooks": {"Stop": [{"hooks": [cmd("/p/x")]}]}}));
        let all: Vec<&Handler> = a.handlers.iter().chain(&b.handlers).collect();
        assert!(duplicates(all.iter().copied())[1].is_some());
    }

    #[test]
    fn handlers_that_differ_where_it_counts_are_not_duplicates() {
        let base = json!({"type": "command", "command": "x"});
        let variants = [
            json!({"type": "command", "command": "y"}),
            json!({"type": "command", "command": "x", "args": ["a"]}),
            json!({"type": "command", "command": "x", "shell": "bash"}),
            json!({"type": "command", "command": "x", "async": true}),
            json!({"type": "command", "command": "x", "persistent": true}),
            json!({"type": "command", "command": "x", "if": "Bash(ls)"}),
            json!({"type": "command", "command": "x", "timeout": 0.001}),
            json!({"type": "command", "command": "x", "once": true}),
            json!({"type": "command", "command": "x", "onFailure": "block"}),
        ];
        for variant in variants {
            let file = settings(
                PATH,
                json!({"hooks": {"PreToolUse": [{"hooks": [base.clone(), variant.clone()]}]}}),
            );
            assert!(duplicates(&file.handlers)[1].is_none(), "{variant}");
        }
        // Another event, another matcher.
        let file = settings(
            PATH,
            json!({"hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [base.clone()]},
                               {"matcher": "Edit", "hooks": [base.clone()]}],
                "PostToolUse": [{"matcher": "Bash", "hooks": [base.clone()]}]}}),
        );
        assert!(duplicates(&file.handlers).iter().all(Option::is_none));
        // Status messages do not count; "", "*" and no matcher are one.
        let file = settings(
            PATH,
            json!({"hooks": {"PreToolUse": [
                {"hooks": [base.clone()]},
                {"matcher": "*", "hooks": [{"command": "x", "statusMessage": "s"}]},
                {"matcher": "", "hooks": [base.clone()]}]}}),
        );
        let originals = duplicates(&file.handlers);
        assert!(originals[1].is_some() && originals[2].is_some());
    }

    #[test]
    fn plugin_copies_never_dedup() {
        let value = json!({"hooks": {"Stop": [{"hooks": [cmd("x")]}]}});
        let user = settings("/h/.claude/settings.json", value.clone());
        let plugin = parse(
            &value.to_string(),
            Path::new("/plug/hooks/hooks.json"),
            &Context::for_file("/p", Path::new("/plug/hooks/hooks.json")),
        )
        .unwrap();
        let project = settings(PATH, value);
        let all: Vec<&Handler> = plugin
            .handlers
            .iter()
            .chain(&plugin.handlers)
            .chain(&user.handlers)
            .chain(&project.handlers)
            .collect();
        let originals = duplicates(all.iter().copied());
        assert!(originals[0].is_none() && originals[1].is_none() && originals[2].is_none());
        assert_eq!(
            originals[3].map(Handler::location),
            Some("/h/.claude/settings.json:0".to_owned())
        );
    }

    #[test]
    fn handlers_that_cannot_run_never_dedup() {
        let file = settings(
            PATH,
            json!({"hooks": {"Stop": [{"hooks": [
                {"type": "mcp_tool", "server": "s", "tool": "t"},
                {"type": "mcp_tool", "server": "s", "tool": "t"}]}]}}),
        );
        assert!(duplicates(&file.handlers).iter().all(Option::is_none));
    }

    #[test]
    fn http_handlers_are_the_same_by_their_url() {
        let file = settings(
            PATH,
            json!({"hooks": {"Stop": [{"hooks": [
                {"type": "http", "url": "http://127.0.0.1:1/a"},
                {"type": "http", "url": "http://127.0.0.1:1/a", "statusMessage": "s"},
                {"type": "http", "url": "http://127.0.0.1:1/b"},
                {"type": "command", "command": "http://127.0.0.1:1/a"},
                {"type": "http", "url": "http://127.0.0.1:1/a", "headers": {"X": "y"}}]}]}}),
        );
        let originals = duplicates(&file.handlers);
        assert!(originals[0].is_none());
        assert_eq!(originals[1].map(|h| h.index), Some(0), "the same URL");
        assert!(originals[2].is_none());
        assert!(
            originals[3].is_none(),
            "a command is never the same as an HTTP hook"
        );
        assert!(originals[4].is_none(), "other headers make another hook");
        let file = settings(
            PATH,
            json!({"hooks": {"Stop": [{"hooks": [
                {"type": "http", "url": "http://127.0.0.1:1/a"},
                {"type": "http", "url": "http://127.0.0.1:1/a", "timeout": 0.001}]}]}}),
        );
        assert!(
            duplicates(&file.handlers)[1].is_none(),
            "another timeout makes another hook"
        );
    }

    /// A copy that fails closed, or sends other headers, is not the same
    /// handler: a project's plain copy cannot shadow a managed guard.
    #[test]
    fn copies_that_fail_closed_or_send_other_headers_are_other_handlers() {
        let url = "http://127.0.0.1:1/a";
        let project = settings(
            "/p/.claude/settings.json",
            json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": url}]}]}}),
        );
        let managed = settings(
            "/etc/claude-code/managed-settings.json",
            json!({"hooks": {"PreToolUse": [{"hooks": [
                {"type": "http", "url": url, "onFailure": "block"},
                {"type": "http", "url": url, "headers": {"Authorization": "Bearer $T"},
                 "allowedEnvVars": ["T"]},
                {"type": "http", "url": url}
            ]}]}}),
        );
        let all: Vec<&Handler> = project.handlers.iter().chain(&managed.handlers).collect();
        let originals = duplicates(all.iter().copied());
        assert!(originals[1].is_none(), "the fail-closed copy runs");
        assert!(originals[2].is_none(), "the copy with a token runs");
        assert_eq!(
            originals[3].map(|h| h.source.as_path()),
            Some(Path::new("/p/.claude/settings.json"))
        );
    }

    #[test]
    fn http_handlers_load_with_their_url_headers_and_variables() {
        let file = load_json(
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "http", "url": "http://127.0.0.1:8700/policy",
                 "headers": {"Authorization": "Bearer $TOKEN", "X-Team": "core"},
                 "allowedEnvVars": ["TOKEN"], "timeout": 5, "onFailure": "block"}
            ]}]}}),
        );
        let h = &file.handlers[0];
        assert_eq!(h.kind, "http");
        assert_eq!(h.url.as_deref(), Some("http://127.0.0.1:8700/policy"));
        assert_eq!(
            h.headers,
            [
                ("Authorization".to_string(), "Bearer $TOKEN".to_string()),
                ("X-Team".to_string(), "core".to_string())
            ]
        );
        assert_eq!(h.allowed_env_vars, ["TOKEN"]);
        assert_eq!(h.timeout, Duration::from_secs(5));
        assert!(h.fail_closed);
        assert_eq!(h.is_runnable(), cfg!(feature = "http"));
        let w = warnings(&file);
        if cfg!(feature = "http") {
            assert!(w.is_empty(), "{w:?}");
        } else {
            assert_eq!(
                w,
                [format!(
                    "{PATH}: PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): handlers of \
                     type \"http\" are not runnable by this host (it was built without the \
                     tower-hooks feature \"http\"), so this one never runs"
                )]
            );
        }
        // The default timeout is a command's: 600 s, 30 on UserPromptSubmit.
        let file = load_json(json!({"hooks": {
            "Stop": [{"hooks": [{"type": "http", "url": "https://policy.example/x"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "http", "url": "https://policy.example/x"}]}]
        }}));
        assert_eq!(file.handlers[0].timeout, DEFAULT_TIMEOUT);
        assert_eq!(file.handlers[1].timeout, PROMPT_SUBMIT_TIMEOUT);
        assert!(!file.handlers[0].fail_closed);
    }

    #[test]
    fn a_type_claude_code_does_not_run_at_an_event_is_listed_and_never_runs() {
        let file = load_json(json!({"hooks": {
            "SessionStart": [{"hooks": [{"type": "http", "url": "http://127.0.0.1/x"},
                                        {"type": "command", "command": "true"}]}],
            "SessionEnd": [{"hooks": [{"type": "prompt", "prompt": "ok?"}]}],
            "Stop": [{"hooks": [{"type": "agent", "prompt": "done?"}]}]
        }}));
        let w = warnings(&file);
        let not_here: Vec<&String> = w.iter().filter(|w| w.contains("runs no handler")).collect();
        assert_eq!(
            not_here,
            // (json! orders the events by name.)
            [
                &format!(
                    "{PATH}: SessionEnd handler 0 (hooks.SessionEnd[0].hooks[0]): Claude Code \
                     runs no handler of type \"prompt\" at SessionEnd, so this one never runs; \
                     use a \"command\" handler there"
                ),
                &format!(
                    "{PATH}: SessionStart handler 0 (hooks.SessionStart[0].hooks[0]): Claude \
                     Code runs no handler of type \"http\" at SessionStart, so this one never \
                     runs; use a \"command\" handler there"
                ),
            ]
        );
        let specs = crate::dialect::claude::hook::specs(&file.handlers, Path::new("/p"));
        let disabled: Vec<Option<&str>> = specs.iter().map(|s| s.disabled()).collect();
        assert_eq!(
            disabled,
            [
                Some("Claude Code runs no prompt handler at SessionEnd"),
                Some("Claude Code runs no http handler at SessionStart"),
                None,
                None
            ]
        );
    }

    /// Without the feature `http`, an `http` handler is listed and skipped,
    /// unless it fails closed: then it blocks, never a silent allow.
    #[cfg(not(feature = "http"))]
    #[tokio::test]
    async fn without_the_feature_an_http_handler_is_skipped_or_blocks_when_it_fails_closed() {
        use tower::ServiceExt;
        let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:9/x"},
            {"type": "http", "url": "http://127.0.0.1:9/y", "onFailure": "block"}
        ]}]}}));
        let specs = crate::dialect::claude::hook::specs(&file.handlers, Path::new("/p"));
        let call = |spec: crate::HookSpec| async move {
            let stack = crate::HookStack::builder()
                .report(())
                .command_hook(spec)
                .build();
            let req = crate::HookRequest::tool_execution_start("Bash", json!({"command": "ls"}));
            stack.oneshot(req).await.unwrap()
        };
        let skipped = call(specs[0].clone()).await;
        assert!(!skipped.is_blocked());
        assert_eq!(skipped.hooks()[0].outcome(), crate::RecordOutcome::Skipped);
        let blocked = call(specs[1].clone()).await;
        assert!(blocked.is_blocked());
        assert_eq!(
            blocked.reason(),
            Some(
                "hook failed closed: no HTTP client: this host was built without the \
                 tower-hooks feature \"http\""
            )
        );
    }

    #[test]
    fn broken_http_handlers_are_errors_that_say_what_to_write() {
        let cases = [
            (
                json!({"type": "http"}),
                "has no \"url\": a handler of type \"http\" needs the URL",
            ),
            (json!({"type": "http", "url": " "}), "has no \"url\""),
            (
                json!({"type": "http", "url": "ftp://x/y"}),
                "\"url\" \"ftp://x/y\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) \
                 cannot be posted to: it must start with http:// or https://",
            ),
            (
                json!({"type": "http", "url": "http:///x"}),
                "it has no host",
            ),
            (
                json!({"type": "http", "url": "http://a b/"}),
                "a space or a control character",
            ),
            (
                json!({"type": "http", "url": "http://h/", "headers": ["X"]}),
                "\"headers\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be an \
                 object of header names and string values",
            ),
            (
                json!({"type": "http", "url": "http://h/", "headers": {"host": "other"}}),
                "\"headers\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be \
                 headers the HTTP client does not set itself (not Host, Content-Length, \
                 Transfer-Encoding or Connection), not \"host\"",
            ),
            (
                json!({"type": "http", "url": "http://h/", "headers": {"X": 1}}),
                "\"headers\".\"X\" of PreToolUse handler 0",
            ),
            (
                json!({"type": "http", "url": "http://h/", "allowedEnvVars": "TOKEN"}),
                "\"allowedEnvVars\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must \
                 be an array of strings",
            ),
            (
                json!({"type": "http", "url": "http://h/", "allowedEnvVars": [1]}),
                "item 0 of \"allowedEnvVars\" of PreToolUse handler 0",
            ),
            (
                json!({"type": "http", "url": "http://h/", "onFailure": "deny"}),
                "\"onFailure\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be \
                 \"block\" or \"allow\"",
            ),
        ];
        for (handler, expected) in cases {
            let text = json!({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}).to_string();
            let err = parse(&text, Path::new(PATH), &ctx())
                .unwrap_err()
                .to_string();
            assert!(err.starts_with(PATH), "{err}");
            assert!(err.contains(expected), "{err}\n  wanted: {expected}");
        }
        for (top, expected) in [
            (
                json!({"allowedHttpHookUrls": "http://x/*"}),
                "\"allowedHttpHookUrls\" must be an array of strings",
            ),
            (
                json!({"httpHookAllowedEnvVars": [true]}),
                "item 0 of \"httpHookAllowedEnvVars\" must be a string",
            ),
        ] {
            let err = parse(&top.to_string(), Path::new(PATH), &ctx())
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{err}\n  wanted: {expected}");
        }
    }

    #[test]
    fn http_gates_add_up_over_files_and_an_empty_list_blocks_all() {
        let a = settings(
            "/h/.claude/settings.json",
            json!({"allowedHttpHookUrls": ["https://policy.example.com/*"],
                   "httpHookAllowedEnvVars": ["TOKEN"]}),
        );
        let b = settings(
            "/p/.claude/settings.json",
            json!({"disableAllHooks": true, "allowedHttpHookUrls": ["http://localhost:*/hook"]}),
        );
        assert!(b.disabled, "a disabled file still has its gates");
        let gates = HttpGates::of([&a, &b]);
        assert!(gates.allows_url("https://policy.example.com/v1"));
        assert!(gates.allows_url("http://localhost:8700/hook"));
        assert!(!gates.allows_url("http://localhost:8700/other"));
        assert!(!gates.allows_url("https://policy.example.com.evil/x"));
        assert!(gates.allows_env_var("TOKEN") && !gates.allows_env_var("HOME"));

        let none = settings(PATH, json!({"hooks": {}}));
        assert_eq!(HttpGates::of([&none]), HttpGates::default());
        assert!(HttpGates::of([&none]).allows_url("http://anything/"));
        let empty = settings(PATH, json!({"allowedHttpHookUrls": []}));
        assert!(!HttpGates::of([&empty]).allows_url("http://127.0.0.1/"));
        assert_eq!(HttpGates::of([&empty]).url_patterns(), Some(&[][..]));
        let star = settings(PATH, json!({"allowedHttpHookUrls": ["*"]}));
        assert!(HttpGates::of([&star]).allows_url("http://10.0.0.1/"));
    }

    /// A `*` port stays in the port: a path elsewhere never gets in through a
    /// query or a fragment that holds the allowed path.
    #[test]
    fn a_star_port_does_not_swallow_the_path() {
        let mut gates = HttpGates::default();
        gates.add_urls(["http://127.0.0.1:*/allow*"]);
        assert!(gates.allows_url("http://127.0.0.1:18700/allow"));
        assert!(gates.allows_url("http://127.0.0.1:18700/allowed/x?y=1"));
        for url in [
            "http://127.0.0.1:18700/deny?/allow",
            "http://127.0.0.1:18700?/allow",
            "http://127.0.0.1:18700#/allow",
            "http://127.0.0.1:18700/deny#/allow",
            "http://127.0.0.1:18700/?/allow",
            "http://127.0.0.1:18700/allowed%2F..%2Fdeny",
        ] {
            assert!(!gates.allows_url(url), "{url}");
        }
        // Nor does a `*` in the host reach a port, a path or a query.
        let mut gates = HttpGates::default();
        gates.add_urls(["https://*.example.com/hooks/*"]);
        assert!(gates.allows_url("https://a.example.com/hooks/x"));
        for url in [
            "https://evil.test?.example.com/hooks/x",
            "https://evil.test/.example.com/hooks/x",
            "https://a.example.com:8443/hooks/x",
            "https://a.example.com/other?/hooks/x",
        ] {
            assert!(!gates.allows_url(url), "{url}");
        }
    }
}
