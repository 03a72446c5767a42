//! The one list of every dialect's loader, and what goes through it: a
//! file's format, a discovery's files, a load.

use std::path::{Path, PathBuf};

use super::discovery::{ConfigFile, Discovery, Format};
use super::loader::{Load, LoadCtx, Loader};
use super::{env_home, home_dir, Config, ConfigError};
use crate::dialect::{agents, claude, cursor, nanopi};

/// Every dialect's loader, in the order a file's format is detected
/// ([`Format::detect`]): by its name first, by its content next, and Claude
/// Code's, which takes any file, last. A new dialect is its folder and a line
/// here.
pub(super) static LOADERS: &[&dyn Loader] = &[
    &nanopi::loader::NanopiLoader,
    &agents::loader::AgentsLoader,
    &cursor::loader::CursorLoader,
    &claude::loader::ClaudeLoader,
];

impl Format {
    /// The format of the file at `path`, when no prefix says it: `*.toml` is
    /// nanopi; `hooks.json` in a folder named `.agents` is react-agent-mini's;
    /// a JSON file under a `.openhuman` folder is OpenHuman's; a JSON object with
    /// a top-level `"version"` is Cursor's; any other file is Claude Code's (a
    /// settings file or a plugin's `hooks/hooks.json`).
    ///
    /// Only the Cursor rule reads the file; a file that cannot be read or parsed
    /// is taken for Claude Code's, whose loader then reports the problem.
    pub fn detect(path: &Path) -> Format {
        LOADERS
            .iter()
            .find_map(|loader| loader.detect(path))
            .unwrap_or(Format::Claude)
    }

    /// The position in [`LOADERS`] of the loader that reads this format.
    fn loader(self) -> usize {
        LOADERS
            .iter()
            .position(|loader| loader.formats().contains(&self))
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
    ///   `<workspace>/hooks.json` ([`with_openhuman_workspace`](Self::with_openhuman_workspace)),
    ///   `<project>/.openhuman/hooks.json`;
    /// * react-agent-mini: `<project>/.agents/hooks.json`.
    pub fn files(&self) -> Vec<ConfigFile> {
        let mut files = Vec::new();
        for &format in &self.formats {
            let loader = LOADERS[format.loader()];
            files.extend(
                loader
                    .files(format, self)
                    .into_iter()
                    .filter(|path| self.system_files || !loader.is_system_file(path))
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

pub(super) fn load(
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
    let mut ctx = LoadCtx {
        project,
        home,
        home_text: home_text.as_deref(),
        openhuman,
        hooks: Vec::new(),
        warnings: Vec::new(),
        errors: Vec::new(),
    };
    let mut loads: Vec<Box<dyn Load>> = LOADERS.iter().map(|loader| loader.start()).collect();
    let mut loaded: Vec<PathBuf> = Vec::new();
    for file in files {
        if let Ok(canonical) = std::fs::canonicalize(file.path()) {
            if loaded.contains(&canonical) {
                continue;
            }
            loaded.push(canonical);
        }
        match loads[file.format().loader()].load(file, &mut ctx) {
            Ok(()) => {}
            Err(err) if err.is_not_found() && !must_exist => {}
            Err(err) => return Err(err),
        }
    }
    for load in loads {
        load.finish(&mut ctx);
    }
    label_sources(&mut ctx.hooks, project, home);
    Ok(Config {
        hooks: ctx.hooks,
        warnings: ctx.warnings,
        errors: ctx.errors,
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
