//! Cursor's and OpenHuman's files: `hooks.json` in `/etc/<app>`, `~/.<app>`
//! and `<project>/.<app>`, where the app is `cursor`, `openhuman` or the name
//! an OpenHuman-family host goes by ([`App`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::hook::{self, Sessions};
use super::App;
use crate::config::loader::{Load, LoadCtx, Loader};
use crate::config::read::{read_config, MAX_CONFIG_SIZE};
use crate::config::{ConfigError, ConfigFile, ConfigWarning, Discovery, Format};
use crate::dialect::EventNames;
use crate::spec::{Dialect, HookSpec};

#[allow(non_upper_case_globals)]
impl Dialect {
    /// Cursor and OpenHuman (`hooks.json` with `"version": 1`).
    pub const Cursor: Dialect = Dialect::new("cursor");
}

#[allow(non_upper_case_globals)]
impl Format {
    /// Cursor's `hooks.json` (`"version": 1`).
    pub const Cursor: Format = Format::new("cursor", Dialect::Cursor);
    /// OpenHuman's `hooks.json`: Cursor's dialect, with OpenHuman's (or the
    /// [app](App) a host names) folders and environment.
    pub const OpenHuman: Format = Format::new("openhuman", Dialect::Cursor);
}

/// Cursor's (and OpenHuman's) event names, each with the neutral event it fires.
static EVENT_NAMES: EventNames = EventNames::new(
    Dialect::Cursor,
    "a Cursor (and OpenHuman) event",
    "preToolUse, postToolUse and the events of a kind of tool",
    || {
        super::CursorEvent::ALL
            .into_iter()
            .map(|event| (event.name(), event.event()))
            .collect()
    },
    super::request,
);

/// Cursor's [`Loader`], which reads OpenHuman's files too.
#[derive(Debug)]
pub(crate) struct CursorLoader;

impl Loader for CursorLoader {
    fn formats(&self) -> &'static [Format] {
        &[Format::Cursor, Format::OpenHuman]
    }

    fn files(&self, format: Format, discovery: &Discovery) -> Vec<PathBuf> {
        let (home, project) = (discovery.home(), discovery.project());
        if format != Format::OpenHuman {
            return app_files(App::Cursor.folder(), home, project);
        }
        let mut files = app_files(discovery.openhuman_app().folder(), home, project);
        if let Some(workspace) = discovery.openhuman_workspace() {
            // Before the project's file, the last one.
            files.insert(files.len() - 1, workspace.join("hooks.json"));
        }
        files
    }

    /// A JSON file under a `.openhuman` folder is OpenHuman's; a JSON object
    /// with a top-level `"version"` is Cursor's (the only rule that reads the
    /// file: one that cannot be read or parsed is not Cursor's).
    fn detect_by_reading(&self, path: &Path) -> Option<Format> {
        if path
            .ancestors()
            .skip(1)
            .any(|dir| dir.file_name().is_some_and(|name| name == ".openhuman"))
        {
            return Some(Format::OpenHuman);
        }
        let has_version = read_config(path, MAX_CONFIG_SIZE)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|json| json.get("version").is_some());
        has_version.then_some(Format::Cursor)
    }

    fn start(&self) -> Box<dyn Load> {
        Box::new(CursorLoad::default())
    }

    fn event_names(&self) -> Option<&'static EventNames> {
        Some(&EVENT_NAMES)
    }
}

/// `/etc/<app>/hooks.json`, `~/.<app>/hooks.json`, `<project>/.<app>/hooks.json`.
fn app_files(app: &str, home: Option<&Path>, project: &Path) -> Vec<PathBuf> {
    let dot = format!(".{app}");
    let mut files = vec![Path::new("/etc").join(app).join("hooks.json")];
    files.extend(home.map(|home| home.join(&dot).join("hooks.json")));
    files.push(project.join(&dot).join("hooks.json"));
    files
}

/// A load of Cursor and OpenHuman files.
#[derive(Debug, Default)]
struct CursorLoad {
    /// What the Cursor hooks of this configuration share.
    sessions: Arc<Sessions>,
}

impl Load for CursorLoad {
    fn load(&mut self, file: &ConfigFile, ctx: &mut LoadCtx<'_>) -> Result<(), ConfigError> {
        let path = file.path();
        let app = match file.format() {
            Format::OpenHuman => ctx.openhuman,
            _ => App::Cursor,
        };
        let loaded = super::config::load(path)?;
        let first_id = ctx.hooks.len();
        ctx.hooks.extend(hook::specs(
            &loaded,
            path,
            app,
            ctx.project,
            &self.sessions,
            first_id,
        ));
        ctx.warnings.extend(
            loaded
                .warnings
                .into_iter()
                .map(|kind| ConfigWarning::in_file(path, kind)),
        );
        Ok(())
    }

    fn finish(self: Box<Self>, ctx: &mut LoadCtx<'_>) {
        generic_hooks_first(&mut ctx.hooks);
    }
}

/// Within each run of consecutive Cursor hooks of one point (a group), the
/// hooks of the generic event (`preToolUse`, `postToolUse`) go before those of
/// the events derived by tool kind (`beforeShellExecution`, …), whatever
/// their files' order; each keeps its order among its own.
fn generic_hooks_first(hooks: &mut [HookSpec]) {
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
            let mut specs: Vec<HookSpec> = run.iter().map(|&i| hooks[i].clone()).collect();
            specs.sort_by_key(hook::is_derived);
            for (&i, spec) in run.iter().zip(specs) {
                hooks[i] = spec;
            }
        }
    }
}
