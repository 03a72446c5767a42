//! What a dialect implements to have its configuration files discovered,
//! recognised and loaded: a [`Loader`] in its folder, named once in
//! [`LOADERS`](super::loaders::LOADERS).
//!
//! A load of several files starts one [`Load`] per loader, hands each file to
//! the loader of its format, in file order, and finishes each `Load` after the
//! last file: what a dialect applies over the whole load (Claude Code's
//! switches, dedup and HTTP gates, Cursor's group order) happens there.

use std::path::{Path, PathBuf};

use super::discovery::{ConfigFile, Discovery, Format};
use super::{Config, ConfigError, ConfigWarning};
use crate::dialect::EventNames;
use crate::spec::{HookSpec, Scope};

/// A dialect's configuration files: where they are, how a file of its is
/// recognised, and how one is loaded.
pub(crate) trait Loader: Sync {
    /// Its formats, all of one dialect, the first its main one (Cursor's
    /// loader reads OpenHuman's files too). It is handed every format of
    /// that dialect, these and any a host makes ([`Format::app`]).
    fn formats(&self) -> &'static [Format];

    /// `format`'s standard files for `discovery`, with those of its extra
    /// folders ([`Discovery::folders`]), found or not, in load order.
    fn files(&self, format: Format, discovery: &Discovery) -> Vec<PathBuf>;

    /// Whether `path`, one of its [`files`](Self::files), is a machine-wide
    /// file, which [`Discovery::with_system_files`] can leave out.
    fn is_system_file(&self, path: &Path) -> bool {
        path.starts_with("/etc")
    }

    /// Whether a broken file of its fails the whole load, as nanopi's rule
    /// says, rather than being left out while the other files load (every
    /// other dialect: DIALECTS.md "Round 4").
    fn broken_file_fails_the_load(&self) -> bool {
        false
    }

    /// The scope its dialect gives a file of this name wherever it is
    /// (Claude Code's `managed-settings.json` and `settings.local.json`);
    /// `None` when where the file is decides ([`Scope`]). A file handed to
    /// the load without a scope takes only `managed` from this rule, and is
    /// the user's otherwise.
    fn scope_by_name(&self, _path: &Path) -> Option<Scope> {
        None
    }

    /// The format of the file at `path` when its folder and name say it is
    /// one of this loader's (Codex's `.codex/config.toml`). Every loader is
    /// asked this first, so that it beats a rule that looks at the extension
    /// alone (nanopi's `*.toml`).
    fn detect_by_folder(&self, _path: &Path) -> Option<Format> {
        None
    }

    /// The format of the file at `path` when it is one of this loader's, as
    /// its name says (without reading it). Loaders are asked in the list's
    /// order, before any is asked [`detect_by_reading`](Self::detect_by_reading).
    fn detect(&self, _path: &Path) -> Option<Format> {
        None
    }

    /// The format of the file at `path` when it is one of this loader's, by
    /// what no other loader's name rule claimed: its folders or its content.
    fn detect_by_reading(&self, _path: &Path) -> Option<Format> {
        None
    }

    /// Whether its [`files`](Self::files) include those of a format's extra
    /// folders ([`Discovery::with_folder`]); a folder handed to a format
    /// whose loader reads none is reported when the discovery loads.
    fn reads_folders(&self) -> bool {
        false
    }

    /// Whether it takes any file no loader recognised (Claude Code's, whose
    /// settings files and plugin files have no telling name), in its first
    /// format.
    fn takes_any_file(&self) -> bool {
        false
    }

    /// Its events by name, for a host that fires one by name (`hooks test
    /// --event`); `None` when it has no names of its own to fire by (nanopi's
    /// are [`Event`](crate::Event)'s own; react-agent-mini's are Claude
    /// Code's).
    fn event_names(&self) -> Option<&'static EventNames> {
        None
    }

    /// A load of its files: what it keeps from one file to the next.
    fn start(&self) -> Box<dyn Load>;
}

/// One load of a loader's files, within a load of many files.
pub(crate) trait Load {
    /// Reads `file` (of a format of the loader's dialect) and adds its hooks and
    /// warnings to `ctx`.
    fn load(&mut self, file: &ConfigFile, ctx: &mut LoadCtx<'_>) -> Result<(), ConfigError>;

    /// After the last file: applies what holds over the whole load.
    fn finish(self: Box<Self>, _ctx: &mut LoadCtx<'_>) {}
}

/// What a load is building, and what every loader may read.
#[derive(Debug)]
pub(crate) struct LoadCtx<'a> {
    /// The project root.
    pub(crate) project: &'a Path,
    /// The home folder, when there is one.
    pub(crate) home: Option<&'a Path>,
    /// `~` in nanopi commands: the home folder, else `$HOME`.
    pub(crate) home_text: Option<&'a str>,
    /// The hooks loaded so far, in load order.
    pub(crate) hooks: Vec<HookSpec>,
    /// The warnings so far.
    pub(crate) warnings: Vec<ConfigWarning>,
    /// The malformed entries dropped so far (their files loaded without them).
    pub(crate) errors: Vec<std::sync::Arc<ConfigError>>,
    /// The scope of the file being loaded (while a file loads; its hooks are
    /// stamped with it after).
    pub(crate) scope: Scope,
    /// Whether the project's files get their host's own rule over other
    /// scopes' hooks ([`Discovery::with_project_trusted`]).
    pub(crate) project_trusted: bool,
    /// Why only managed hooks run, when a managed file says so
    /// ([`LoadCtx::allow_managed_hooks_only`]).
    pub(crate) managed_only: Option<String>,
}

impl LoadCtx<'_> {
    /// Appends `config`'s hooks and warnings.
    pub(crate) fn merge(&mut self, config: Config) {
        self.hooks.extend(config.hooks);
        self.warnings.extend(config.warnings);
        self.errors.extend(config.errors);
    }

    /// Appends warnings of `kinds`, each found in the file at `path`.
    pub(crate) fn warn_in(
        &mut self,
        path: &Path,
        kinds: impl IntoIterator<Item = super::ConfigWarningKind>,
    ) {
        self.warnings.extend(
            kinds
                .into_iter()
                .map(|kind| ConfigWarning::in_file(path, kind)),
        );
    }
}
