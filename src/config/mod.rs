//! Loads hook specs from nanopi's TOML configuration files.
//!
//! Hooks are read from four files, and all four accumulate, in this order (see
//! [`default_paths`]): `~/.nanopi/config.toml`, `./.nanopi/config.toml`,
//! `~/.nanopi/settings.toml`, `./.nanopi/settings.toml`. A missing file is
//! skipped; any other problem stops the load with a [`ConfigError`] that names
//! the file. Only the `[hooks]` table is read; every other key belongs to the
//! host and is left alone.
//!
//! ```toml
//! [[hooks.tool_execution_start]]
//! matcher = "^bash$"                    # regex on the subject; "*" or omitted = all
//! type    = "command"                   # the default; other types load but never run
//! command = "~/.nanopi/hooks/guard.sh"  # ~, $HOME, ${HOME} expand
//! timeout = 3000                        # milliseconds; default 5000; expiry = block
//! fail_closed = false                   # block instead of allow when it cannot run
//! name = "bash-guard"                   # how metrics, audit and the CLI call it
//! persistent = false                    # one process answers every event
//! ```
//!
//! Each entry becomes a [`HookSpec`] whose source is the file and whose index is
//! its position in that file's list for the event. Hooks keep file order, then
//! entry order; the chain picks out each event's hooks itself.
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//! use tower_hooks::config::Config;
//! use tower_hooks::Event;
//!
//! let text = r#"
//! [model]
//! name = "not ours: left alone"
//!
//! [[hooks.tool_execution_start]]
//! matcher = "^bash$"
//! command = "./guard.sh"
//! timeout = 3000
//!
//! [[hooks.turn_end]]
//! command = "echo done"
//! "#;
//! let config = Config::from_str_with_source(text, "/p/.nanopi/config.toml")?;
//!
//! let hooks = config.hooks();
//! assert_eq!(hooks.len(), 2);
//! assert_eq!(hooks[0].event(), Event::ToolExecutionStart);
//! assert_eq!(hooks[0].matcher(), Some("^bash$"));
//! assert_eq!(hooks[0].timeout(), Duration::from_millis(3000));
//! assert_eq!(hooks[0].source(), "/p/.nanopi/config.toml");
//! assert_eq!(hooks[1].command_line(), Some("echo done"));
//! assert_eq!(hooks[1].timeout(), Duration::from_millis(5000));
//! assert!(config.warnings().is_empty());
//!
//! let err = Config::from_str_with_source("[[hooks.pre_tool_use]]\ncommand = \"x\"\n", "old.toml")
//!     .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "old.toml: unknown hook event \"pre_tool_use\" \u{2014} renamed to \
//!      \"tool_execution_start\" in v0.12 (see docs/v0.12-events.md \u{a7}2.1)",
//! );
//! # Ok::<(), tower_hooks::config::ConfigError>(())
//! ```
//!
//! # Errors
//!
//! Every [`ConfigError`] renders as `<path>: <message>`; the messages are:
//!
//! * a file that exists but cannot be read ([`ConfigErrorKind::Io`]):
//!   `could not read the file: <io error>`;
//! * a path that is not a regular file once symlinks are followed
//!   ([`ConfigErrorKind::NotAFile`]): `refusing to read a FIFO: a configuration
//!   must be a regular file (remove it, or replace it with one)` (likewise `a
//!   character device`, `a directory`, …) — nothing is read from it;
//! * a file over [`MAX_CONFIG_SIZE`] ([`ConfigErrorKind::TooLarge`]): `refusing
//!   to read more than 1 MiB: a configuration is never this large (check what
//!   this file is)`;
//! * bytes that are not UTF-8 ([`ConfigErrorKind::InvalidUtf8`]): `not valid
//!   UTF-8 at byte 33 (line 2): a configuration must be UTF-8 text`;
//! * TOML that does not parse, a value of the wrong type, or an unknown key under
//!   `[hooks]` (a typo such as `turn_startt`, a CamelCase name such as
//!   `ToolExecutionStart`) or inside an entry (`timout`)
//!   ([`ConfigErrorKind::Parse`]): the parser's own message with its line and
//!   column, e.g. ``unknown field `turn_startt`, expected one of `session_start`, …``;
//!   an array where a table belongs (`hooks = [[…]]`, `turn_start = [["^x$", …]]`),
//!   which serde would read by position, is one of these too: ``hooks` is an
//!   array, which would be read by position: …``;
//! * one of the four names v0.12 retired ([`ConfigErrorKind::RetiredEvent`]):
//!   `unknown hook event "pre_tool_use" — renamed to "tool_execution_start" in v0.12
//!   (see docs/v0.12-events.md §2.1)`, likewise `post_tool_use` →
//!   `tool_execution_end`, `user_prompt_submit` → `input`, `session_end` →
//!   `session_shutdown`;
//! * a matcher that is not a valid regex ([`ConfigErrorKind::InvalidMatcher`]):
//!   `invalid matcher "(unclosed" in [[hooks.tool_execution_start]] entry 1: <regex error>`
//!   (a pattern over 200 characters is cut there, with `…`, and only the last line
//!   of the regex error is kept);
//! * `timeout = 0` ([`ConfigErrorKind::ZeroTimeout`]): `timeout = 0 in
//!   [[hooks.turn_start]] entry 0: a hook needs at least 1 ms; the unit is
//!   milliseconds (default 5000)`;
//! * a command hook without a command ([`ConfigErrorKind::MissingCommand`]):
//!   `missing command in [[hooks.turn_start]] entry 0: a hook of type "command"
//!   needs command = "<shell command>", run with bash -c`;
//! * a command with a NUL character in it ([`ConfigErrorKind::NulInCommand`]).
//!
//! Entry indexes count from 0 within one file's list for one event, as in
//! [`HookSpec::index`]. When a file has several problems, the one reported is the
//! first in the file. A file that loads may still carry [`ConfigWarning`]s,
//! such as a timeout under 100 ms (`timeout = 5 is 5 milliseconds, not seconds;
//! write 5000 for five seconds`). The library never prints either.

pub(crate) mod derived;
mod discovery;
mod duplicate_keys;
mod error;
mod expand;
pub(crate) mod loader;
pub(crate) mod loaders;
mod programs;
pub(crate) use programs::on_path;

pub(crate) use self::duplicate_keys::duplicate_keys;
#[doc(hidden)] // bounded file reading for the `hooks` CLI; not API
pub mod read;
mod schema;
pub(crate) mod trust;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use self::discovery::{ConfigFile, Discovery, Format};
pub(crate) use self::error::{describe_json, invalid_value};
pub use self::error::{ConfigError, ConfigErrorKind, ConfigWarning, ConfigWarningKind};
pub use self::expand::expand_home;
pub use self::read::MAX_CONFIG_SIZE;

use self::read::read_config;

use crate::event::{Event, RETIRED_NAMES};
use crate::host::Host;
use crate::spec::{HookSpec, DEFAULT_TIMEOUT};

/// A timeout under this many milliseconds earns a [`ConfigWarningKind::ShortTimeout`].
const SHORT_TIMEOUT_MS: u64 = 100;

/// The four files hooks are read from, in execution order:
/// `~/<dir>/config.toml`, `./<dir>/config.toml`, `~/<dir>/settings.toml`,
/// `./<dir>/settings.toml`, where `<dir>` is [`Host::config_dir`] (`.nanopi`).
///
/// `./` is `cwd`, joined onto (absolute when `cwd` is). Without a home directory
/// the two home files are left out. When `home` and `cwd` are the same folder,
/// each file is listed once, in its first position, so its hooks do not run twice
/// (the paths are compared as written; [`Config::load`] also skips a file it
/// already loaded through another path, such as a symlink).
///
/// ```
/// use std::path::{Path, PathBuf};
/// use tower_hooks::config::default_paths;
/// use tower_hooks::Host;
///
/// let paths = default_paths(&Host::default(), Some(Path::new("/home/u")), Path::new("/p"));
/// assert_eq!(
///     paths,
///     [
///         PathBuf::from("/home/u/.nanopi/config.toml"),
///         PathBuf::from("/p/.nanopi/config.toml"),
///         PathBuf::from("/home/u/.nanopi/settings.toml"),
///         PathBuf::from("/p/.nanopi/settings.toml"),
///     ]
/// );
/// ```
pub fn default_paths(host: &Host, home: Option<&Path>, cwd: &Path) -> Vec<PathBuf> {
    let dir = host.config_dir();
    let mut paths = Vec::with_capacity(4);
    for file in ["config.toml", "settings.toml"] {
        for base in home.into_iter().chain([cwd]) {
            let path = base.join(&dir).join(file);
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

/// `~` for discovery: `$HOME`, unless it is unset or empty.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

/// The hooks of one or more configuration files, and what looked wrong in them.
///
/// See the [module docs](self) for an example.
#[derive(Debug, Clone, Default)]
pub struct Config {
    hooks: Vec<HookSpec>,
    warnings: Vec<ConfigWarning>,
    errors: Vec<Arc<ConfigError>>,
    unloaded: Vec<Arc<ConfigError>>,
}

impl Config {
    /// Loads the four [default files](default_paths), with `~` taken from
    /// `$HOME` and `.` from the process's current directory.
    ///
    /// Without `$HOME` (or with it empty) only the project files are read; if
    /// the current directory cannot be determined, `.` is used as it is.
    pub fn load_default(host: &Host) -> Result<Config, ConfigError> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Config::load(default_paths(host, home_dir().as_deref(), &cwd))
    }

    /// Loads `paths` in order and accumulates their hooks. A file that does not
    /// exist is skipped; the first other problem is returned. A file reached
    /// by two paths (the same canonical path, e.g. through a symlinked `$HOME`)
    /// is loaded once, at the first. Each file must be a regular file of at
    /// most [`MAX_CONFIG_SIZE`] bytes.
    ///
    /// `~`, `$HOME` and `${HOME}` in commands expand to `$HOME` (see
    /// [`expand_home`]).
    pub fn load<I>(paths: I) -> Result<Config, ConfigError>
    where
        I: IntoIterator,
        I::Item: AsRef<Path>,
    {
        load_paths(paths, env_home().as_deref())
    }

    /// Loads one file that must exist: unlike [`Config::load`], a missing file
    /// is an error ([`ConfigErrorKind::Io`]). Like there, it must be a regular
    /// file of at most [`MAX_CONFIG_SIZE`] bytes.
    pub fn load_file(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        load_file(path.as_ref(), env_home().as_deref())
    }

    /// Parses the text of one file; `source` names it in errors, warnings and
    /// each [`HookSpec::source`]. Commands expand as in [`Config::load`].
    pub fn from_str_with_source(
        text: &str,
        source: impl AsRef<Path>,
    ) -> Result<Config, ConfigError> {
        parse(text, source.as_ref(), env_home().as_deref())
    }

    /// Every hook, in execution order: file order, then entry order.
    pub fn hooks(&self) -> &[HookSpec] {
        &self.hooks
    }

    /// What loaded but looks wrong, in file order.
    pub fn warnings(&self) -> &[ConfigWarning] {
        &self.warnings
    }

    /// The malformed entries that were left out while the rest of their file
    /// loaded, in file order (a Claude Code matcher group whose matcher does
    /// not compile, say): errors, not warnings, since a hook meant to run
    /// does not. `hooks check` exits 1 when there is any.
    ///
    /// ```
    /// use tower_hooks::config::{Config, ConfigFile, Format};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("settings.json");
    /// std::fs::write(&path, r#"{"hooks": {"PreToolUse": [
    ///     {"matcher": "(Bash", "hooks": [{"type": "command", "command": "a.sh"}]},
    ///     {"matcher": "Read", "hooks": [{"type": "command", "command": "b.sh"}]}]}}"#)?;
    /// let config = Config::load_files(&[ConfigFile::new(&path, Format::Claude)], dir.path())?;
    /// assert_eq!(config.hooks().len(), 1, "the second group loads");
    /// assert!(config.errors()[0].to_string().contains("invalid matcher \"(Bash\""));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn errors(&self) -> &[Arc<ConfigError>] {
        &self.errors
    }

    /// The files that could not be read or parsed, left out whole while the
    /// other files loaded: a broken project file never unloads the user's or
    /// the administrator's hooks. Their hooks are missing; `hooks check`
    /// names each and exits 1. [`Discovery::load`] leaves out every broken
    /// file so; [`Config::load_files`] does when its files are of several
    /// scopes, and fails on the first broken file when they are all of one.
    ///
    /// ```
    /// use tower_hooks::config::{Config, ConfigFile, Format};
    /// use tower_hooks::Scope;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let (guard, broken) = (dir.path().join("managed.json"), dir.path().join("project.json"));
    /// std::fs::write(&guard, r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "g.sh"}]}]}}"#)?;
    /// std::fs::write(&broken, r#"{"hooks": {"PreToolUse": "x"}}"#)?;
    /// let files = [
    ///     ConfigFile::new(&guard, Format::Claude).with_scope(Scope::Managed),
    ///     ConfigFile::new(&broken, Format::Claude).with_scope(Scope::Project),
    /// ];
    /// let config = Config::load_files(&files, dir.path())?;
    /// assert_eq!(config.hooks().len(), 1, "the managed guard loads");
    /// assert!(config.unloaded_files()[0].to_string().contains("project.json"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn unloaded_files(&self) -> &[Arc<ConfigError>] {
        &self.unloaded
    }

    /// Takes the hooks out, dropping the warnings.
    pub fn into_hooks(self) -> Vec<HookSpec> {
        self.hooks
    }

    /// Whether no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// A warning for each command hook at an event that can block whose
    /// program cannot be started: a script that is missing or not
    /// executable, a program not on `PATH`, or an interpreter's script that
    /// is missing (`python3 ~/.claude/hooks/gone.py`). Such a guard exits
    /// with the shell's 127 at every run and, unless it fails closed, lets
    /// every action through. Relative paths are resolved against the
    /// directory the hook runs in: `cwd` (the session's), or the one its
    /// dialect gives it (a Cursor hook's `hooks.json` folder). A command whose program only the shell can
    /// resolve (an expansion, a builtin, a compound command) is not judged.
    /// `hooks check` prints these.
    ///
    /// ```
    /// use tower_hooks::config::Config;
    ///
    /// let config = Config::from_str_with_source(
    ///     "[[hooks.tool_execution_start]]\ncommand = \"./no-such-guard.sh\"\n",
    ///     "hooks.toml",
    /// )?;
    /// let warnings = config.missing_programs(std::path::Path::new("/"));
    /// assert!(warnings[0].to_string().contains("./no-such-guard.sh"));
    /// # Ok::<(), tower_hooks::ConfigError>(())
    /// ```
    pub fn missing_programs(&self, cwd: &Path) -> Vec<ConfigWarning> {
        let path = std::env::var_os("PATH");
        self.hooks
            .iter()
            .filter(|spec| {
                *spec.hook_kind() == crate::HookKind::Command
                    && spec.disabled().is_none()
                    && !spec.runs_in_background()
                    && spec.block_takes_effect()
            })
            .filter_map(|spec| {
                let dir = spec.run_dir().unwrap_or(cwd);
                let missing = programs::missing_program(spec, dir, path.as_deref())?;
                Some(ConfigWarning::in_file(
                    spec.source(),
                    ConfigWarningKind::MissingProgram {
                        hook: spec.location(),
                        event: spec.event_as_written().to_owned(),
                        blocks: programs::blocks_when_it_cannot_start(spec, &missing),
                        program: missing.program,
                        why: missing.why,
                    },
                ))
            })
            .collect()
    }

    /// Appends `other`'s hooks, warnings and errors after this one's:
    /// `other` runs later.
    pub fn merge(&mut self, other: Config) {
        self.hooks.extend(other.hooks);
        self.warnings.extend(other.warnings);
        self.errors.extend(other.errors);
    }
}

/// `$HOME` for command expansion; unset, empty or not UTF-8 means none.
fn env_home() -> Option<String> {
    std::env::var("HOME").ok().filter(|home| !home.is_empty())
}

fn load_paths<I>(paths: I, home: Option<&str>) -> Result<Config, ConfigError>
where
    I: IntoIterator,
    I::Item: AsRef<Path>,
{
    let mut config = Config::default();
    let mut loaded: Vec<PathBuf> = Vec::new();
    for path in paths {
        let path = path.as_ref();
        // One file reached by two paths (a symlinked `$HOME`, a `~/.nanopi`
        // that links to `./.nanopi`) is loaded once, at its first path.
        if let Ok(canonical) = std::fs::canonicalize(path) {
            if loaded.contains(&canonical) {
                continue;
            }
            loaded.push(canonical);
        }
        match load_file(path, home) {
            Ok(file) => config.merge(file),
            Err(err) if err.is_not_found() => {}
            Err(err) => return Err(err),
        }
    }
    Ok(config)
}

/// Reads the nanopi file at `path`, with `~` in its commands as `home`.
pub(crate) fn load_file(path: &Path, home: Option<&str>) -> Result<Config, ConfigError> {
    let text = read_config(path, MAX_CONFIG_SIZE).map_err(|kind| ConfigError::new(path, kind))?;
    parse(&text, path, home)
}

fn parse(text: &str, source: &Path, home: Option<&str>) -> Result<Config, ConfigError> {
    let error = |kind| ConfigError::new(source, kind);

    // The retired names are found before serde runs, so that they get their
    // own message rather than serde's "unknown field".
    let table: toml::Table = text
        .parse()
        .map_err(|err| error(ConfigErrorKind::Parse(err)))?;
    if let Some((old, new)) = retired_event(&table) {
        return Err(error(ConfigErrorKind::RetiredEvent {
            old: old.to_owned(),
            new,
        }));
    }
    // Parsed again from the text, not from `table`, so that serde's errors keep
    // their line and column.
    let file: schema::File =
        toml::from_str(text).map_err(|err| error(ConfigErrorKind::Parse(err)))?;

    let mut config = Config::default();
    let Some(hooks) = file.hooks else {
        return Ok(config);
    };
    // Entries are built in the order they appear in the file, so that the
    // first problem reported is the first in the file (and warnings come in
    // file order); the hooks then go back to execution order.
    let mut entries: Vec<(usize, Event, usize, schema::Entry)> = hooks
        .into_lists()
        .into_iter()
        .flat_map(|(event, list)| {
            list.into_iter().enumerate().map(move |(index, entry)| {
                let start = entry.span().start;
                (start, event, index, entry.into_inner().0)
            })
        })
        .collect();
    entries.sort_by_key(|(start, ..)| *start);
    for (_, event, index, entry) in entries {
        let spec = build(event, index, entry, source, home, &mut config.warnings).map_err(error)?;
        config.hooks.push(spec);
    }
    config
        .hooks
        .sort_by_key(|spec| (spec.event().index(), spec.index()));
    Ok(config)
}

fn retired_event(table: &toml::Table) -> Option<(&'static str, Event)> {
    let hooks = table.get("hooks")?.as_table()?;
    RETIRED_NAMES
        .iter()
        .find(|(old, _)| hooks.contains_key(*old))
        .copied()
}

/// `path` as labels show it: `~/…` under `$HOME`, relative under the current
/// directory (the project), else as it is.
fn source_label(path: &Path, home: Option<&str>) -> String {
    if let Some(rest) = home.and_then(|home| path.strip_prefix(home).ok()) {
        return Path::new("~").join(rest).display().to_string();
    }
    let cwd = std::env::current_dir().ok();
    if let Some(rest) = cwd.as_deref().and_then(|cwd| path.strip_prefix(cwd).ok()) {
        return rest.display().to_string();
    }
    path.display().to_string()
}

fn build(
    event: Event,
    index: usize,
    entry: schema::Entry,
    source: &Path,
    home: Option<&str>,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<HookSpec, ConfigErrorKind> {
    let kind = entry.kind.as_deref().unwrap_or("command");
    if kind != "command" {
        // It loads and is listed (the specification skips it), but a typo in
        // `type` must not silently turn a guard off.
        warnings.push(ConfigWarning::new(
            source,
            event,
            index,
            ConfigWarningKind::UnknownType {
                kind: kind.to_owned(),
                suggestion: crate::suggest::closest(kind, ["command"]),
            },
        ));
    }
    let command = entry
        .command
        .as_deref()
        .map(|command| expand_home(command, home).into_owned());
    if kind == "command" && command.is_none() {
        return Err(ConfigErrorKind::MissingCommand { event, index });
    }
    if command.as_deref().is_some_and(|c| c.contains('\0')) {
        return Err(ConfigErrorKind::NulInCommand { event, index });
    }

    let timeout = match entry.timeout {
        None => DEFAULT_TIMEOUT,
        Some(0) => return Err(ConfigErrorKind::ZeroTimeout { event, index }),
        Some(ms) => {
            if ms < SHORT_TIMEOUT_MS {
                warnings.push(ConfigWarning::new(
                    source,
                    event,
                    index,
                    ConfigWarningKind::ShortTimeout { ms },
                ));
            }
            Duration::from_millis(ms)
        }
    };

    let has_command = command.is_some();
    let mut spec = HookSpec::command(event, command.unwrap_or_default())
        .with_source(source.display().to_string(), index)
        .with_source_label(source_label(source, home))
        .with_timeout(timeout)
        .with_fail_closed(entry.fail_closed)
        .with_persistent(entry.persistent);
    if let Some(name) = entry.name {
        spec = spec.with_name(name);
    }
    if !has_command {
        // A `type` other than "command" may come without one; it never runs.
        spec.command = None;
    }
    if kind != "command" {
        spec = spec.with_kind(crate::HookKind::from_name(kind));
    }
    if let Some(matcher) = entry.matcher {
        spec = spec.with_matcher(matcher.as_str()).map_err(|error| {
            ConfigErrorKind::InvalidMatcher {
                event,
                index,
                pattern: matcher,
                error,
            }
        })?;
    }
    Ok(spec)
}

#[cfg(test)]
mod tests;
