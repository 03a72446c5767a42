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

use super::{home_dir, ConfigError};
use crate::host::Host;
use crate::spec::{Dialect, Scope};

/// The format of a configuration file: which dialect's loader reads it.
///
/// Each dialect's folder declares its formats (`Format::Claude`; Cursor's
/// declares `Format::Cursor` and `Format::OpenHuman`, both of
/// [`Dialect::Cursor`](crate::Dialect::Cursor): OpenHuman is Cursor under
/// another app's name, and [`Format::app`] names another host of that
/// family), and [`all`](Self::all) lists the built-in ones in the loaders'
/// order. The default is nanopi's.
///
/// ```
/// use tower_hooks::config::Format;
/// use tower_hooks::Dialect;
///
/// assert_eq!(Format::from_name("openhuman"), Some(Format::OpenHuman));
/// assert_eq!(Format::OpenHuman.dialect(), Dialect::Cursor);
/// assert_eq!(Format::default(), Format::Nanopi);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    name: &'static str,
    dialect: Dialect,
}

impl Format {
    /// The format named `name`, read by `dialect`'s loader.
    pub(crate) const fn new(name: &'static str, dialect: Dialect) -> Format {
        Format { name, dialect }
    }

    /// `nanopi`, `claude`, `cursor`, `openhuman`, `agents`, …: its name, and
    /// (for one of [`all`](Self::all)) its prefix on a [`ConfigFile::parse`]
    /// argument. A [named](Format::app) OpenHuman-family format's is the
    /// host's name (`acme`).
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The dialect its hooks speak.
    pub const fn dialect(self) -> Dialect {
        self.dialect
    }

    /// The format of [`all`](Self::all) of that [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::all().into_iter().find(|f| f.name() == name)
    }
}

impl Default for Format {
    fn default() -> Self {
        Format::Nanopi
    }
}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Format").field(&self.name).finish()
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One configuration file, its format and, when known, its [`Scope`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    path: PathBuf,
    format: Format,
    scope: Option<Scope>,
}

impl ConfigFile {
    /// The file at `path`, in `format`, of no named scope (see
    /// [`scope`](Self::scope)).
    pub fn new(path: impl Into<PathBuf>, format: Format) -> Self {
        ConfigFile {
            path: path.into(),
            format,
            scope: None,
        }
    }

    /// The file at `path`, in the format [`Format::detect`] finds.
    pub fn detect(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let format = Format::detect(&path);
        ConfigFile::new(path, format)
    }

    /// This file, of `scope`: its hooks are trusted as far as that scope is.
    pub fn with_scope(mut self, scope: Scope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// The scope it was given: by [`Discovery`], from where the file is, or
    /// by [`with_scope`](Self::with_scope). A file of no named scope loads as
    /// [`Scope::User`], unless its dialect calls a file of that name
    /// machine-wide (Claude Code's `managed-settings.json`).
    pub fn scope(&self) -> Option<Scope> {
        self.scope
    }

    /// `[SCOPE=][FORMAT:]PATH`, as the CLI's `--config` takes it: `managed=`,
    /// `user=`, `local=` or `project=` names the scope; `claude:`, `nanopi:`,
    /// `cursor:`, `openhuman:`, `agents:`, `codex:` or `gemini:` forces the
    /// format, and without one it is detected. An `=` or a colon after anything
    /// else is part of the path.
    ///
    /// ```
    /// use tower_hooks::config::{ConfigFile, Format};
    /// use tower_hooks::Scope;
    ///
    /// let file = ConfigFile::parse("project=gemini:/p/.gemini/settings.json")?;
    /// assert_eq!((file.scope(), file.format()), (Some(Scope::Project), Format::Gemini));
    /// assert_eq!(ConfigFile::parse("/p/a=b.toml")?.scope(), None);
    /// # Ok::<(), tower_hooks::config::ConfigError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An empty path ([`ConfigErrorKind::Io`](super::ConfigErrorKind::Io) with
    /// [`std::io::ErrorKind::InvalidInput`]).
    pub fn parse(arg: &str) -> Result<ConfigFile, ConfigError> {
        let (scope, rest) = match arg.split_once('=') {
            Some((prefix, rest)) => match Scope::from_name(prefix) {
                Some(scope) => (Some(scope), rest),
                None => (None, arg),
            },
            None => (None, arg),
        };
        let mut file = ConfigFile::parse_format(arg, rest)?;
        file.scope = scope;
        Ok(file)
    }

    /// `[FORMAT:]PATH` (`rest` of the argument `arg`).
    fn parse_format(arg: &str, rest: &str) -> Result<ConfigFile, ConfigError> {
        let (format, path) = match rest.split_once(':') {
            Some((prefix, path)) => match Format::from_name(prefix) {
                Some(format) => (Some(format), path),
                None => (None, rest),
            },
            None => (None, rest),
        };
        if path.is_empty() {
            return Err(ConfigError::new(
                arg,
                super::ConfigErrorKind::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "no file named: write [SCOPE=][FORMAT:]PATH",
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
    pub(super) project: PathBuf,
    pub(super) home: Option<PathBuf>,
    pub(super) host: Host,
    pub(super) formats: Vec<Format>,
    pub(super) folders: Vec<(Format, PathBuf)>,
    pub(super) system_files: bool,
    pub(super) project_trusted: bool,
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
            folders: Vec::new(),
            system_files: true,
            project_trusted: false,
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

    /// Whether the project's files get their host's own power over the hooks
    /// of other scopes (default: no; the CLI's `--trust-project`).
    ///
    /// By default a file never weakens a hook of higher trust
    /// ([`Scope`]): a project file's disable switch (Claude Code's
    /// `disableAllHooks`, Gemini CLI's `hooksConfig.disabled` or `enabled`, …)
    /// turns off the project's own hooks only, and `hooks check` warns of each
    /// hook it could not switch off. Trusted, a project file switches off what
    /// its host lets it (Gemini CLI lets a trusted folder disable a user's
    /// hook by name). Managed hooks stay out of a project file's reach either
    /// way. Every project file is read either way: whether a folder's hooks
    /// run at all is the host's choice of files.
    ///
    /// ```
    /// use tower_hooks::config::{Discovery, Format};
    ///
    /// let discovery = Discovery::new("/p").format(Format::Gemini);
    /// assert!(!discovery.project_trusted());
    /// assert!(discovery.with_project_trusted(true).project_trusted());
    /// ```
    pub fn with_project_trusted(mut self, trusted: bool) -> Self {
        self.project_trusted = trusted;
        self
    }

    /// Whether the project folder is trusted ([`with_project_trusted`](Self::with_project_trusted)).
    pub fn project_trusted(&self) -> bool {
        self.project_trusted
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

    /// An extra folder `format`'s loader reads, besides its standard files
    /// (in the order folders are added):
    ///
    /// * [`Format::Claude`]: the root of a Claude Code plugin, whose
    ///   `hooks/hooks.json` and the hooks its `.claude-plugin/plugin.json`
    ///   declares are read after the settings files;
    /// * [`Format::OpenHuman`] (and any format of Cursor's dialect, such as a
    ///   [named](Format::app) host of the OpenHuman family): a workspace, whose
    ///   `hooks.json` is read after the user's and before the project's (its
    ///   hooks run in the workspace folder, as every `hooks.json` outside a
    ///   project runs in its own folder).
    ///
    /// The other formats have no extra folders. [`load`](Self::load) warns
    /// of a folder that is not read: one for a format the discovery does not
    /// read, or for a format without extra folders.
    ///
    /// ```
    /// use std::path::Path;
    /// use tower_hooks::config::{Discovery, Format};
    ///
    /// let files = Discovery::new("/p")
    ///     .with_home(Some("/h".into()))
    ///     .with_system_files(false)
    ///     .with_folder(Format::OpenHuman, "/h/openhuman-workspace")
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
    pub fn with_folder(mut self, format: Format, folder: impl Into<PathBuf>) -> Self {
        self.folders.push((format, folder.into()));
        self
    }

    /// The project root.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// The home folder, when there is one.
    pub(crate) fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// The host, whose [`config_dir`](Host::config_dir) holds nanopi's files.
    pub(crate) fn host(&self) -> &Host {
        &self.host
    }

    /// `format`'s extra folders ([`with_folder`](Self::with_folder)), in the
    /// order they were added.
    pub(crate) fn folders(&self, format: Format) -> impl Iterator<Item = &Path> {
        self.folders
            .iter()
            .filter(move |(of, _)| *of == format)
            .map(|(_, folder)| folder.as_path())
    }
}

#[cfg(test)]
mod tests;
