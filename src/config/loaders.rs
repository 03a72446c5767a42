//! The one list of every dialect's loader, and what goes through it: a
//! file's format, a discovery's files, a load.
//!
//! What a dialect provides, all in its folder `src/dialect/<name>/`:
//!
//! * its [`Dialect`] constant and its [`Format`] constants (in an
//!   `impl Dialect` / `impl Format` block of its `loader.rs`);
//! * a [`Loader`]: its formats, its standard files, how a file of its is
//!   recognised (by name, by reading, or as the format of any file), and a
//!   [`Load`] that turns one file into specs and warnings and finishes the
//!   whole load;
//! * a `DialectHook` on each spec it makes (its encoder, decoder, matcher,
//!   and what it does with a model's or a server's answer);
//! * optionally, its [`EventNames`](crate::dialect::EventNames): the names a
//!   host fires its events by, and the request each name and its stdin
//!   fields make (`hooks test --event`);
//! * its errors and warnings, in the dialect-neutral kinds of
//!   [`ConfigErrorKind`](super::ConfigErrorKind) and
//!   [`ConfigWarningKind`](super::ConfigWarningKind), each worded with where
//!   in its file the problem is.
//!
//! Then it is one line in [`LOADERS`] (beside its `pub mod` line in
//! `src/dialect/mod.rs`); nothing else outside its folder names it.

use std::path::{Path, PathBuf};

use super::discovery::{ConfigFile, Discovery, Format};
use super::loader::{Load, LoadCtx, Loader};
use super::{env_home, home_dir, Config, ConfigError, ConfigWarning, ConfigWarningKind};
use crate::dialect::{agents, claude, codex, cursor, droid, gemini, nanopi, EventNames};
use crate::spec::{Dialect, Scope};

/// Every dialect's loader. A new dialect is its folder and a line here.
///
/// The order is that of [`Format::all`] and [`Dialect::all`](crate::Dialect::all)
/// (the CLI's `--discover` names, `hooks test --event`'s list), and the
/// order in which the loaders are asked a file's format
/// ([`Format::detect`]).
pub(crate) static LOADERS: &[&dyn Loader] = &[
    &nanopi::loader::NanopiLoader,
    &claude::loader::ClaudeLoader,
    &cursor::loader::CursorLoader,
    &agents::loader::AgentsLoader,
    &codex::loader::CodexLoader,
    &gemini::loader::GeminiLoader,
    &droid::loader::DroidLoader,
];

impl Dialect {
    /// Every dialect a configuration file can be written in, in the order of
    /// the loaders' list (nanopi first).
    pub fn all() -> Vec<Dialect> {
        let mut all: Vec<Dialect> = Vec::new();
        for format in Format::all() {
            if !all.contains(&format.dialect()) {
                all.push(format.dialect());
            }
        }
        all
    }

    /// The dialect whose [`as_str`](Self::as_str) is `name`.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::all().into_iter().find(|d| d.as_str() == name)
    }
}

impl EventNames {
    /// The names of every dialect that has its own, in the loaders' order.
    pub fn all() -> Vec<EventNames> {
        LOADERS
            .iter()
            .filter_map(|loader| loader.event_names())
            .copied()
            .collect()
    }
}

impl Format {
    /// Every format, in the order of the loaders' list: `nanopi`, `claude`,
    /// `cursor`, `openhuman`, `agents`, `codex`, `gemini`.
    pub fn all() -> Vec<Format> {
        LOADERS
            .iter()
            .flat_map(|loader| loader.formats().iter().copied())
            .collect()
    }

    /// The format of the file at `path`, when no prefix says it: `*.toml` is
    /// nanopi; `hooks.json` in a folder named `.agents` is react-agent-mini's;
    /// a JSON file under a `.openhuman` folder is OpenHuman's; a JSON object with
    /// a top-level `"version"` is Cursor's; any other file is Claude Code's (a
    /// settings file or a plugin's `hooks/hooks.json`).
    ///
    /// Every loader is asked by name first (`Loader::detect`), then by
    /// reading (`Loader::detect_by_reading`), each time in the list's order,
    /// so a name rule wins over one that reads the file. Only the Cursor rule
    /// reads the file; a file that cannot be read or parsed is taken for
    /// Claude Code's, whose loader then reports the problem.
    pub fn detect(path: &Path) -> Format {
        let by_folder = LOADERS.iter().find_map(|l| l.detect_by_folder(path));
        let by_name = || LOADERS.iter().find_map(|loader| loader.detect(path));
        let by_reading = || LOADERS.iter().find_map(|l| l.detect_by_reading(path));
        let any = || {
            LOADERS
                .iter()
                .find(|loader| loader.takes_any_file())
                .and_then(|loader| loader.formats().first().copied())
        };
        by_folder
            .or_else(by_name)
            .or_else(by_reading)
            .or_else(any)
            .unwrap_or_default()
    }

    /// The position in [`LOADERS`] of the loader that reads this format: the
    /// one of its dialect (a [named](Format::app) OpenHuman-family format is
    /// in no loader's list).
    fn loader(self) -> usize {
        LOADERS
            .iter()
            .position(|loader| loader.formats()[0].dialect() == self.dialect())
            .expect("every format has a loader")
    }
}

impl Discovery {
    /// Every file this discovery reads, found or not, in load order:
    ///
    /// * nanopi: [`default_paths`](super::default_paths) (`~/.nanopi/config.toml`, `<project>/.nanopi/config.toml`,
    ///   then the two `settings.toml`);
    /// * Claude Code: [`claude::config::standard_files`] (user, project, local,
    ///   managed), then each plugin's `hooks/hooks.json`;
    /// * Cursor: `/etc/cursor/hooks.json`, `~/.cursor/hooks.json`, `<project>/.cursor/hooks.json`;
    /// * OpenHuman: `/etc/openhuman/hooks.json`, `~/.openhuman/hooks.json`,
    ///   the `hooks.json` of each workspace ([`with_folder`](Self::with_folder)),
    ///   `<project>/.openhuman/hooks.json` (a [host of that family](Format::app)
    ///   under its own name: the same files in its folders);
    /// * react-agent-mini: `<project>/.agents/hooks.json`.
    pub fn files(&self) -> Vec<ConfigFile> {
        let mut files = Vec::new();
        for &format in &self.formats {
            let loader = LOADERS[format.loader()];
            for path in loader.files(format, self) {
                let system = loader.is_system_file(&path);
                if system && !self.system_files {
                    continue;
                }
                let scope = loader.scope_by_name(&path).unwrap_or_else(|| {
                    Scope::by_place(&path, system, &self.project, self.home.as_deref())
                });
                files.push(ConfigFile::new(path, format).with_scope(scope));
            }
        }
        files
    }

    /// Loads every [file](Self::files) that exists. A missing file is skipped;
    /// the first other problem is returned. A folder handed to
    /// [`with_folder`](Self::with_folder) that no format of the discovery
    /// reads is a warning ([`ConfigWarningKind::UnreadFolder`](super::ConfigWarningKind::UnreadFolder)).
    pub fn load(&self) -> Result<Config, ConfigError> {
        let home = self.home.as_deref();
        let mut config = load(&self.files(), &self.project, home, self.options())?;
        config.warnings.extend(self.unread_folders());
        Ok(config)
    }

    /// A warning for each extra folder whose format this discovery does not
    /// read, or whose loader reads no folders.
    fn unread_folders(&self) -> Vec<ConfigWarning> {
        self.folders
            .iter()
            .filter_map(|(format, folder)| {
                let format_read = self.formats.contains(format);
                let read = format_read && LOADERS[format.loader()].reads_folders();
                (!read).then(|| {
                    let kind = ConfigWarningKind::UnreadFolder {
                        format: *format,
                        format_read,
                    };
                    ConfigWarning::in_file(folder, kind)
                })
            })
            .collect()
    }
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
    /// Each file's hooks get the variables of its format: `OPENHUMAN_*` for
    /// [`Format::OpenHuman`], `ACME_*` for [`Format::app("acme")`](Format::app).
    pub fn load_files(files: &[ConfigFile], project: &Path) -> Result<Config, ConfigError> {
        Config::load_files_trusting(files, project, false)
    }

    /// [`load_files`](Self::load_files), with the project's files given their
    /// host's own rule over the hooks of other scopes when `project_trusted`
    /// ([`Discovery::with_project_trusted`]).
    pub fn load_files_trusting(
        files: &[ConfigFile],
        project: &Path,
        project_trusted: bool,
    ) -> Result<Config, ConfigError> {
        let options = Options {
            must_exist: true,
            project_trusted,
        };
        load(files, project, home_dir().as_deref(), options)
    }
}

/// How a load treats its files.
#[derive(Debug, Clone, Copy)]
pub(super) struct Options {
    /// A file that does not exist is an error (else it is skipped).
    pub(super) must_exist: bool,
    /// [`Discovery::with_project_trusted`].
    pub(super) project_trusted: bool,
}

impl Discovery {
    fn options(&self) -> Options {
        Options {
            must_exist: false,
            project_trusted: self.project_trusted,
        }
    }
}

pub(super) fn load(
    files: &[ConfigFile],
    project: &Path,
    home: Option<&Path>,
    options: Options,
) -> Result<Config, ConfigError> {
    let home_text = match home {
        Some(home) => home.to_str().map(str::to_owned),
        None => env_home(),
    };
    let mut ctx = LoadCtx {
        project,
        home,
        home_text: home_text.as_deref(),
        hooks: Vec::new(),
        warnings: Vec::new(),
        errors: Vec::new(),
        scope: Scope::User,
        project_trusted: options.project_trusted,
        managed_only: None,
    };
    let mut unloaded = Vec::new();
    let mut loads: Vec<Box<dyn Load>> = LOADERS.iter().map(|loader| loader.start()).collect();
    let mut loaded: Vec<PathBuf> = Vec::new();
    for file in files {
        if let Ok(canonical) = std::fs::canonicalize(file.path()) {
            if loaded.contains(&canonical) {
                continue;
            }
            loaded.push(canonical);
        }
        let loader = LOADERS[file.format().loader()];
        ctx.scope = file
            .scope()
            .unwrap_or_else(|| named_scope(loader, file.path()));
        let (first, warnings) = (ctx.hooks.len(), ctx.warnings.len());
        match loads[file.format().loader()].load(file, &mut ctx) {
            Ok(()) => {}
            Err(err) if err.is_not_found() && !options.must_exist => {}
            Err(err)
                if !loader.broken_file_fails_the_load()
                    && (!options.must_exist || isolates(files, file, ctx.scope)) =>
            {
                // A broken file takes none of its hooks in, and no other
                // file's out (DIALECTS.md "Round 4").
                ctx.hooks.truncate(first);
                ctx.warnings.truncate(warnings);
                unloaded.push(std::sync::Arc::new(err));
                continue;
            }
            Err(err) => return Err(err),
        }
        for spec in &mut ctx.hooks[first..] {
            spec.scope = ctx.scope;
        }
    }
    label_sources(&mut ctx.hooks, project, home);
    // Managed-only first: the dialects' switches and dedup then see which
    // hooks may run at all.
    super::trust::managed_only(&mut ctx);
    for load in loads {
        load.finish(&mut ctx);
    }
    label_sources(&mut ctx.hooks, project, home);
    Ok(Config {
        hooks: ctx.hooks,
        warnings: ctx.warnings,
        errors: ctx.errors,
        unloaded,
    })
}

/// The scope of a file handed to the load without one: `managed` when its
/// dialect calls a file of that name machine-wide, else the user's.
fn named_scope(loader: &dyn Loader, path: &Path) -> Scope {
    match loader.scope_by_name(path) {
        Some(Scope::Managed) => Scope::Managed,
        _ => Scope::User,
    }
}

/// Whether a broken `file` (of `scope`), one of named files, is left out
/// while the rest loads: when another file of the load is of another scope,
/// which the broken one must not unload. Named files all of one scope fail
/// together, as one file; a discovery's broken file is always left out.
fn isolates(files: &[ConfigFile], file: &ConfigFile, scope: Scope) -> bool {
    files.iter().any(|other| {
        other.path() != file.path()
            && other
                .scope()
                .unwrap_or_else(|| named_scope(LOADERS[other.format().loader()], other.path()))
                != scope
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{EventNames, NamedEvent};
    use crate::spec::Dialect;

    /// Each loader brings what the rest of the crate and the CLI ask the list
    /// for, and no two loaders claim the same dialect, format or event name.
    #[test]
    fn every_loader_provides_a_dialect_its_formats_and_its_names() {
        let mut dialects = Vec::new();
        let mut formats = Vec::new();
        for loader in LOADERS {
            let own = loader.formats();
            assert!(!own.is_empty());
            let dialect = own[0].dialect();
            assert!(own.iter().all(|f| f.dialect() == dialect), "{own:?}");
            assert!(!dialects.contains(&dialect), "{dialect} twice");
            dialects.push(dialect);
            for format in own {
                assert!(!formats.contains(&format.name()), "{format} twice");
                formats.push(format.name());
                assert_eq!(Format::from_name(format.name()), Some(*format));
            }
            assert_eq!(Dialect::from_name(dialect.as_str()), Some(dialect));
            if let Some(names) = loader.event_names() {
                assert_eq!(names.dialect(), dialect);
                assert!(!names.names().is_empty());
                for name in names.names() {
                    // nanopi's names are asked first; no other dialect's
                    // name may hide behind one, or behind another's.
                    assert!(crate::Event::from_name(name).is_none(), "{name}");
                    assert_eq!(NamedEvent::find(name).unwrap().dialect(), dialect);
                }
            }
        }
        assert_eq!(Dialect::all(), dialects);
        assert_eq!(dialects[0], Dialect::default());
        assert_eq!(
            EventNames::all().len(),
            LOADERS.iter().filter(|l| l.event_names().is_some()).count()
        );
        // Exactly one loader takes the files no other recognises.
        assert_eq!(LOADERS.iter().filter(|l| l.takes_any_file()).count(), 1);
    }
}
