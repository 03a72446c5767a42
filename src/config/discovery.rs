//! Configuration files of every dialect: which format a file is written in,
//! where each dialect keeps its standard files, and how files of several
//! dialects load into one [`Config`].
//!
//! A host says which dialects it reads and which project it works in with a
//! [`Discovery`]; a tool that is handed file names (the `hooks` CLI's
//! `--config`) reads them with [`ConfigFile::parse`] and [`Config::load_files`].
//! Hooks keep the order of their files, so that a nanopi file between two
//! Claude Code files makes three groups that run in that order.
//!
//! ```
//! use std::path::Path;
//! use tower_hooks::config::{ConfigFile, Discovery, Format};
//!
//! let discovery = Discovery::new("/p")
//!     .with_home(Some("/h".into()))
//!     .format(Format::Claude)
//!     .format(Format::Nanopi);
//! let files = discovery.files();
//! assert_eq!(files[0].path(), Path::new("/h/.claude/settings.json"));
//! assert_eq!(files[0].format(), Format::Claude);
//! assert!(files.iter().any(|f| f.path() == Path::new("/p/.nanopi/config.toml")));
//!
//! // A prefix forces the format; without one it is detected from the name.
//! let forced = ConfigFile::parse("agents:/p/team.json")?;
//! assert_eq!(forced.format(), Format::Agents);
//! assert_eq!(ConfigFile::parse("/p/hooks.toml")?.format(), Format::Nanopi);
//! # Ok::<(), tower_hooks::config::ConfigError>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::read::read_config;
use super::{
    default_paths, env_home, home_dir, load_file, Config, ConfigError, ConfigWarning,
    MAX_CONFIG_SIZE,
};
use crate::dialect::{agents, claude, cursor};
use crate::host::Host;

/// The format of a configuration file: which dialect's loader reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// nanopi's TOML (`config.toml`, `settings.toml`).
    Nanopi,
    /// A Claude Code settings file, or a plugin's `hooks/hooks.json`.
    Claude,
    /// Cursor's `hooks.json` (`"version": 1`).
    Cursor,
    /// OpenHuman's `hooks.json`: Cursor's format with OpenHuman's environment.
    OpenHuman,
    /// react-agent-mini's `.agents/hooks.json`.
    Agents,
}

impl Format {
    /// Every format, in the order of [`name`](Self::name)'s list.
    pub const ALL: [Format; 5] = [
        Format::Nanopi,
        Format::Claude,
        Format::Cursor,
        Format::OpenHuman,
        Format::Agents,
    ];

    /// `nanopi`, `claude`, `cursor`, `openhuman` or `agents`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Nanopi => "nanopi",
            Format::Claude => "claude",
            Format::Cursor => "cursor",
            Format::OpenHuman => "openhuman",
            Format::Agents => "agents",
        }
    }

    /// The format of that [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The format of the file at `path`, when no prefix says it: `*.toml` is
    /// nanopi; `hooks.json` in a folder named `.agents` is react-agent-mini's;
    /// a JSON file under a `.openhuman` folder is OpenHuman's; a JSON object with
    /// a top-level `"version"` is Cursor's; any other file is Claude Code's (a
    /// settings file or a plugin's `hooks/hooks.json`).
    ///
    /// Only the Cursor rule reads the file; a file that cannot be read or parsed
    /// is taken for Claude Code's, whose loader then reports the problem.
    pub fn detect(path: &Path) -> Format {
        if path.extension().is_some_and(|ext| ext == "toml") {
            return Format::Nanopi;
        }
        let parent_is = |name: &str| {
            path.parent()
                .and_then(Path::file_name)
                .is_some_and(|dir| dir == name)
        };
        if path.file_name().is_some_and(|f| f == "hooks.json") && parent_is(".agents") {
            return Format::Agents;
        }
        if path
            .ancestors()
            .skip(1)
            .any(|dir| dir.file_name().is_some_and(|name| name == ".openhuman"))
        {
            return Format::OpenHuman;
        }
        let has_version = read_config(path, MAX_CONFIG_SIZE)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|json| json.get("version").is_some());
        if has_version {
            Format::Cursor
        } else {
            Format::Claude
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One configuration file and its format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    path: PathBuf,
    format: Format,
}

impl ConfigFile {
    /// The file at `path`, in `format`.
    pub fn new(path: impl Into<PathBuf>, format: Format) -> Self {
        ConfigFile {
            path: path.into(),
            format,
        }
    }

    /// The file at `path`, in the format [`Format::detect`] finds.
    pub fn detect(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let format = Format::detect(&path);
        ConfigFile { path, format }
    }

    /// `[FORMAT:]PATH`, as the CLI's `--config` takes it: `claude:`,
    /// `nanopi:`, `cursor:`, `openhuman:` or `agents:` forces the format, and
    /// without one it is detected. A colon after anything else is part of the
    /// path.
    ///
    /// # Errors
    ///
    /// An empty path ([`ConfigErrorKind::Io`](super::ConfigErrorKind::Io) with
    /// [`std::io::ErrorKind::InvalidInput`]).
    pub fn parse(arg: &str) -> Result<ConfigFile, ConfigError> {
        let (format, path) = match arg.split_once(':') {
            Some((prefix, path)) => match Format::from_name(prefix) {
                Some(format) => (Some(format), path),
                None => (None, arg),
            },
            None => (None, arg),
        };
        if path.is_empty() {
            return Err(ConfigError::new(
                arg,
                super::ConfigErrorKind::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "no file named: write [FORMAT:]PATH",
                )),
            ));
        }
        Ok(match format {
            Some(format) => ConfigFile::new(path, format),
            None => ConfigFile::detect(path),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its format.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// Which dialects' standard files a host reads, for which project.
///
/// The files of each format come in the order [`format`](Self::format) was
/// called; within one format, in that dialect's own order (see [`files`](Self::files)).
#[derive(Debug, Clone)]
pub struct Discovery {
    project: PathBuf,
    home: Option<PathBuf>,
    host: Host,
    formats: Vec<Format>,
    claude_plugins: Vec<PathBuf>,
    openhuman_workspace: Option<PathBuf>,
    openhuman_app: cursor::App,
    system_files: bool,
}

impl Discovery {
    /// Discovery for the project rooted at `project`, with `~` from `$HOME` and
    /// no format yet.
    pub fn new(project: impl Into<PathBuf>) -> Self {
        Discovery {
            project: project.into(),
            home: home_dir(),
            host: Host::default(),
            formats: Vec::new(),
            claude_plugins: Vec::new(),
            openhuman_workspace: None,
            openhuman_app: cursor::App::OpenHuman,
            system_files: true,
        }
    }

    /// Sets the home folder (`None`: read no file of the user's).
    pub fn with_home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// Whether the machine-wide files are read: Claude Code's managed settings,
    /// `/etc/cursor/hooks.json`, `/etc/openhuman/hooks.json` (default: yes).
    /// Off, only the project's and the home folder's files are: for a test or
    /// an example that must not depend on the machine.
    pub fn with_system_files(mut self, read: bool) -> Self {
        self.system_files = read;
        self
    }

    /// Sets the host, whose [`config_dir`](Host::config_dir) holds nanopi's files.
    pub fn with_host(mut self, host: Host) -> Self {
        self.host = host;
        self
    }

    /// Reads `format`'s standard files too, after those of the formats named
    /// before it.
    pub fn format(mut self, format: Format) -> Self {
        if !self.formats.contains(&format) {
            self.formats.push(format);
        }
        self
    }

    /// Reads the `hooks/hooks.json` of the Claude Code plugin rooted at `root`,
    /// after the settings files (in the order plugins are added).
    pub fn claude_plugin(mut self, root: impl Into<PathBuf>) -> Self {
        self.claude_plugins.push(root.into());
        self
    }

    /// OpenHuman's workspace folder: its `hooks.json` is read after the
    /// user's `~/.openhuman/hooks.json` and before the project's (its hooks run
    /// in the workspace folder, as every `hooks.json` outside a project runs
    /// in its own folder).
    ///
    /// ```
    /// use std::path::Path;
    /// use tower_hooks::config::{Discovery, Format};
    ///
    /// let files = Discovery::new("/p")
    ///     .with_home(Some("/h".into()))
    ///     .with_system_files(false)
    ///     .with_openhuman_workspace("/h/openhuman-workspace")
    ///     .format(Format::OpenHuman)
    ///     .files();
    /// let paths: Vec<&Path> = files.iter().map(|f| f.path()).collect();
    /// assert_eq!(paths, [
    ///     Path::new("/h/.openhuman/hooks.json"),
    ///     Path::new("/h/openhuman-workspace/hooks.json"),
    ///     Path::new("/p/.openhuman/hooks.json"),
    /// ]);
    /// assert!(files.iter().all(|f| f.format() == Format::OpenHuman));
    /// ```
    pub fn with_openhuman_workspace(mut self, workspace: impl Into<PathBuf>) -> Self {
        self.openhuman_workspace = Some(workspace.into());
        self
    }

    /// The name this host goes by in the OpenHuman family, in place of
    /// `openhuman` (default: [`App::OpenHuman`](cursor::App::OpenHuman)):
    /// [`Format::OpenHuman`] then reads `/etc/<name>/hooks.json`,
    /// `~/.<name>/hooks.json` and `<project>/.<name>/hooks.json`, and their
    /// hooks get `<NAME>_PROJECT_DIR`, `<NAME>_HOOK_EVENT`,
    /// `<NAME>_SESSION_ID`, `<NAME>_VERSION` and `<name>_version` in their
    /// input, where OpenHuman's say `OPENHUMAN`.
    ///
    /// ```
    /// use std::path::Path;
    /// use tower_hooks::config::{Discovery, Format};
    /// use tower_hooks::dialect::cursor::App;
    ///
    /// let files = Discovery::new("/p")
    ///     .with_home(Some("/h".into()))
    ///     .with_openhuman_app(App::named("acme")?)
    ///     .format(Format::OpenHuman)
    ///     .files();
    /// let paths: Vec<&Path> = files.iter().map(|f| f.path()).collect();
    /// assert_eq!(paths, [
    ///     Path::new("/etc/acme/hooks.json"),
    ///     Path::new("/h/.acme/hooks.json"),
    ///     Path::new("/p/.acme/hooks.json"),
    /// ]);
    /// # Ok::<(), tower_hooks::dialect::cursor::InvalidAppName>(())
    /// ```
    pub fn with_openhuman_app(mut self, app: cursor::App) -> Self {
        self.openhuman_app = app;
        self
    }

    /// The project root.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// Every file this discovery reads, found or not, in load order:
    ///
    /// * nanopi: [`default_paths`] (`~/.nanopi/config.toml`, `<project>/.nanopi/config.toml`,
    ///   then the two `settings.toml`);
    /// * Claude Code: [`claude::config::standard_files`] (user, project, local,
    ///   managed), then each plugin's `hooks/hooks.json`;
    /// * Cursor: `/etc/cursor/hooks.json`, `~/.cursor/hooks.json`, `<project>/.cursor/hooks.json`;
    /// * OpenHuman: `/etc/openhuman/hooks.json`, `~/.openhuman/hooks.json`,
    ///   `<workspace>/hooks.json` ([`with_openhuman_workspace`](Self::with_openhuman_workspace)),
    ///   `<project>/.openhuman/hooks.json`;
    /// * react-agent-mini: `<project>/.agents/hooks.json`.
    pub fn files(&self) -> Vec<ConfigFile> {
        let home = self.home.as_deref();
        let mut files = Vec::new();
        for &format in &self.formats {
            let paths = match format {
                Format::Nanopi => default_paths(&self.host, home, &self.project),
                Format::Claude => claude::config::with_plugins(
                    claude::config::standard_files(home, &self.project),
                    &self.claude_plugins,
                ),
                Format::Cursor => app_files("cursor", home, &self.project),
                Format::OpenHuman => {
                    let mut files = app_files(self.openhuman_app.folder(), home, &self.project);
                    if let Some(workspace) = &self.openhuman_workspace {
                        // Before the project's file, the last one.
                        files.insert(files.len() - 1, workspace.join("hooks.json"));
                    }
                    files
                }
                Format::Agents => vec![self.project.join(agents::FILE)],
            };
            files.extend(
                paths
                    .into_iter()
                    .filter(|path| self.system_files || !is_system_file(path))
                    .map(|path| ConfigFile::new(path, format)),
            );
        }
        files
    }

    /// Loads every [file](Self::files) that exists. A missing file is skipped;
    /// the first other problem is returned.
    pub fn load(&self) -> Result<Config, ConfigError> {
        let home = self.home.as_deref();
        load(
            &self.files(),
            &self.project,
            home,
            false,
            self.openhuman_app,
        )
    }
}

/// Whether `path` is one of the machine-wide files.
fn is_system_file(path: &Path) -> bool {
    path == claude::config::managed_settings_path() || path.starts_with("/etc")
}

/// `/etc/<app>/hooks.json`, `~/.<app>/hooks.json`, `<project>/.<app>/hooks.json`.
fn app_files(app: &str, home: Option<&Path>, project: &Path) -> Vec<PathBuf> {
    let dot = format!(".{app}");
    let mut files = vec![Path::new("/etc").join(app).join("hooks.json")];
    files.extend(home.map(|home| home.join(&dot).join("hooks.json")));
    files.push(project.join(&dot).join("hooks.json"));
    files
}

impl Config {
    /// Loads `files`, each by its format, in order, into one configuration.
    /// Every file must exist (unlike [`Discovery::load`], which skips missing
    /// ones). `project` is the project root: `CLAUDE_PROJECT_DIR` and the
    /// `${CLAUDE_PROJECT_DIR}` of Claude Code files.
    ///
    /// A file reached through two paths is loaded once, at the first. Of
    /// identical Claude Code handlers from settings files, the first in load
    /// order runs; each copy stays configured, turned off with the reason
    /// `duplicate of <source>:<index>` ([`HookSpec::disabled`](crate::HookSpec::disabled)).
    /// OpenHuman files are read as OpenHuman's own; a host of that family
    /// under its own name loads through [`Discovery::with_openhuman_app`].
    pub fn load_files(files: &[ConfigFile], project: &Path) -> Result<Config, ConfigError> {
        let openhuman = cursor::App::OpenHuman;
        load(files, project, home_dir().as_deref(), true, openhuman)
    }
}

fn load(
    files: &[ConfigFile],
    project: &Path,
    home: Option<&Path>,
    must_exist: bool,
    openhuman: cursor::App,
) -> Result<Config, ConfigError> {
    let home_text = match home {
        Some(home) => home.to_str().map(str::to_owned),
        None => env_home(),
    };
    let mut config = Config::default();
    let mut loaded: Vec<PathBuf> = Vec::new();
    let mut loading = Loading {
        openhuman,
        claude_handlers: Vec::new(),
        claude_switches: Vec::new(),
        http_gates: Default::default(),
        cursor_sessions: Default::default(),
    };
    for file in files {
        let path = file.path();
        if let Ok(canonical) = std::fs::canonicalize(path) {
            if loaded.contains(&canonical) {
                continue;
            }
            loaded.push(canonical);
        }
        let result = load_one(
            file,
            project,
            home_text.as_deref(),
            &mut config,
            &mut loading,
        );
        match result {
            Ok(()) => {}
            Err(err) if err.is_not_found() && !must_exist => {}
            Err(err) => return Err(err),
        }
    }
    switch_claude_hooks_off(&mut config, &loading, home);
    // Only hooks that may run take part in the dedup: a copy must never be
    // dropped for an original that is itself turned off.
    let handlers: Vec<&(usize, claude::config::Handler)> = loading
        .claude_handlers
        .iter()
        .filter(|(at, _)| config.hooks[*at].disabled.is_none())
        .collect();
    let originals = claude::config::duplicates(handlers.iter().map(|(_, handler)| handler));
    for ((at, _), original) in handlers.iter().zip(originals) {
        if let Some(original) = original {
            config.hooks[*at].disabled =
                Some(format!("duplicate of {}", original.location()).into());
        }
    }
    gate_http_hooks(&mut config, &loading);
    generic_cursor_hooks_first(&mut config.hooks);
    label_sources(&mut config.hooks, project, home);
    Ok(config)
}

/// Gives each hook without a source label one that never shows the home
/// directory: a file in the project relative to the project, one under
/// HOME as `~/…` (nanopi's loader labels its own hooks the same way).
fn label_sources(hooks: &mut [crate::HookSpec], project: &Path, home: Option<&Path>) {
    for spec in hooks.iter_mut().filter(|spec| spec.source_label.is_none()) {
        let source = Path::new(spec.source());
        let label = if let Ok(rest) = source.strip_prefix(project) {
            rest.display().to_string()
        } else if let Some(rest) = home.and_then(|home| source.strip_prefix(home).ok()) {
            Path::new("~").join(rest).display().to_string()
        } else {
            continue;
        };
        spec.source_label = Some(label);
    }
}

/// Applies the settings-level gates of the whole load to each Claude Code
/// `http` handler: one whose URL `allowedHttpHookUrls` does not allow is
/// listed and never runs (with a warning), and its headers read only the
/// variables `httpHookAllowedEnvVars` allows too.
fn gate_http_hooks(config: &mut Config, loading: &Loading) {
    let gates = &loading.http_gates;
    for (at, handler) in &loading.claude_handlers {
        let spec = &mut config.hooks[*at];
        let Some(target) = spec.http_target() else {
            continue;
        };
        if !gates.allows_url(target.url()) {
            let patterns = gates.url_patterns().map_or(0, <[String]>::len);
            let (at, url) = (handler.describe(), target.url().to_owned());
            let kind = if patterns > 0 && claude::http_url::as_requested(&url).is_none() {
                super::ConfigWarningKind::ClaudeHttpUrlNeverAllowed { at, url }
            } else {
                super::ConfigWarningKind::ClaudeHttpUrlNotAllowed { at, url, patterns }
            };
            config
                .warnings
                .push(ConfigWarning::in_file(&handler.source, kind));
            let reason: std::sync::Arc<str> = "its URL is not in allowedHttpHookUrls".into();
            if spec.disabled.is_none() {
                // A fail-closed hook that may not run blocks: never a silent allow.
                if spec.fail_closed() {
                    spec.refused = Some(reason);
                } else {
                    spec.disabled = Some(reason);
                }
            }
            continue;
        }
        let kept = target
            .clone()
            .retain_env_vars(|name| gates.allows_env_var(name));
        if kept != *target {
            *spec = spec.clone().with_http(kept);
        }
    }
}

/// A Claude Code file's switches for the hooks of the whole load.
struct ClaudeSwitches {
    path: PathBuf,
    disable_all_hooks: Option<bool>,
    allow_managed_hooks_only: bool,
}

/// Applies Claude Code's `disableAllHooks` and `allowManagedHooksOnly` to
/// the Claude Code hooks of the load. The `disableAllHooks` that counts is
/// the one of the file of highest precedence that says it
/// ([`claude::config::Scope`]); its `true` turns off every hook but the
/// managed ones, which only a managed file's own `true` turns off.
/// `allowManagedHooksOnly: true` in a managed file turns off every other
/// hook. Each hook turned off says which file did it.
fn switch_claude_hooks_off(config: &mut Config, loading: &Loading, home: Option<&Path>) {
    use claude::config::Scope;
    let scope = |path: &Path| Scope::of(path, home);
    let deciding = [Scope::Managed, Scope::Local, Scope::Project, Scope::User]
        .into_iter()
        .find_map(|wanted| {
            loading
                .claude_switches
                .iter()
                .rev()
                .filter(|file| scope(&file.path) == wanted)
                .find_map(|file| Some((file.disable_all_hooks?, &file.path)))
        });
    let managed_off = loading
        .claude_switches
        .iter()
        .find(|file| scope(&file.path) == Scope::Managed && file.disable_all_hooks == Some(true));
    let managed_only = loading
        .claude_switches
        .iter()
        .find(|file| scope(&file.path) == Scope::Managed && file.allow_managed_hooks_only);
    for (at, handler) in &loading.claude_handlers {
        let managed = scope(&handler.source) == Scope::Managed;
        let reason = match (deciding, managed) {
            (Some((true, _)), true) => managed_off
                .map(|file| format!("disableAllHooks is true in {}", file.path.display())),
            (Some((true, path)), false) => {
                Some(format!("disableAllHooks is true in {}", path.display()))
            }
            _ => None,
        }
        .or_else(|| {
            managed_only
                .filter(|_| !managed)
                .map(|file| format!("allowManagedHooksOnly is true in {}", file.path.display()))
        });
        if let Some(reason) = reason {
            // What the switches say comes before a duplicate's reason.
            config.hooks[*at].disabled = Some(reason.into());
        }
    }
}

/// What a load keeps besides the configuration.
struct Loading {
    /// The Claude Code handlers loaded so far, with the position of their
    /// hook in the configuration, for the dedup across files.
    claude_handlers: Vec<(usize, claude::config::Handler)>,
    /// The hook switches of each Claude Code file, in load order.
    claude_switches: Vec<ClaudeSwitches>,
    /// The `http` handlers' settings-level gates, over every Claude Code file.
    http_gates: claude::config::HttpGates,
    /// The app [`Format::OpenHuman`] files are read as.
    openhuman: cursor::App,
    /// What the Cursor hooks of this configuration share.
    cursor_sessions: std::sync::Arc<cursor::hook::Sessions>,
}

/// Within each run of consecutive Cursor hooks of one point (a group), the
/// hooks of the generic event (`preToolUse`, `postToolUse`) go before those of
/// the events derived by tool kind (`beforeShellExecution`, …), whatever
/// their files' order; each keeps its order among its own.
fn generic_cursor_hooks_first(hooks: &mut [crate::HookSpec]) {
    use crate::spec::Dialect;
    for point in crate::Event::ALL {
        // The positions of the point's hooks, each with whether it is Cursor's.
        let at: Vec<(usize, bool)> = (0..hooks.len())
            .filter(|&i| hooks[i].event() == point)
            .map(|i| (i, hooks[i].dialect() == Dialect::Cursor))
            .collect();
        for run in at.chunk_by(|a, b| a.1 && b.1) {
            if run.len() < 2 || !run[0].1 {
                continue;
            }
            let run: Vec<usize> = run.iter().map(|(i, _)| *i).collect();
            let mut specs: Vec<crate::HookSpec> = run.iter().map(|&i| hooks[i].clone()).collect();
            specs.sort_by_key(cursor::hook::is_derived);
            for (&i, spec) in run.iter().zip(specs) {
                hooks[i] = spec;
            }
        }
    }
}

fn load_one(
    file: &ConfigFile,
    project: &Path,
    home: Option<&str>,
    config: &mut Config,
    loading: &mut Loading,
) -> Result<(), ConfigError> {
    let path = file.path();
    match file.format() {
        Format::Nanopi => config.merge(load_file(path, home)?),
        Format::Claude => {
            let ctx = claude::config::Context::for_file(project, path);
            let loaded = claude::config::load(path, &ctx)?;
            loading.http_gates.add(&loaded);
            loading.claude_switches.push(ClaudeSwitches {
                path: path.to_path_buf(),
                disable_all_hooks: loaded.disable_all_hooks,
                allow_managed_hooks_only: loaded.allow_managed_hooks_only,
            });
            let project_dir = project.display().to_string();
            config.warnings.extend(
                loaded
                    .warnings
                    .into_iter()
                    .map(|w| ConfigWarning::in_file(w.path(), w.kind().clone())),
            );
            for handler in loaded.handlers {
                if let Some(spec) = claude::hook::spec(&handler, &project_dir) {
                    loading.claude_handlers.push((config.hooks.len(), handler));
                    config.hooks.push(spec);
                }
            }
        }
        Format::Agents => {
            let loaded = agents::load(path)?;
            config.hooks.extend(agents::specs(&loaded, path));
            config.warnings.extend(
                loaded
                    .warnings
                    .into_iter()
                    .map(|kind| ConfigWarning::in_file(path, kind)),
            );
        }
        Format::Cursor | Format::OpenHuman => {
            let app = match file.format() {
                Format::OpenHuman => loading.openhuman,
                _ => cursor::App::Cursor,
            };
            let loaded = cursor::config::load(path)?;
            let first_id = config.hooks.len();
            config.hooks.extend(cursor::hook::specs(
                &loaded,
                path,
                app,
                project,
                &loading.cursor_sessions,
                first_id,
            ));
            config.warnings.extend(
                loaded
                    .warnings
                    .into_iter()
                    .map(|kind| ConfigWarning::in_file(path, kind)),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
