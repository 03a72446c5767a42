//! Cursor's and OpenHuman's files: `hooks.json` in `/etc/<app>`, `~/.<app>`
//! and `<project>/.<app>`, where the app is the format's name: `cursor`,
//! `openhuman` or the name an OpenHuman-family host goes by ([`Format::app`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::hook::{self, Sessions};
use crate::config::loader::{Load, LoadCtx, Loader};
use crate::config::read::{read_config, MAX_CONFIG_SIZE};
use crate::config::{ConfigError, ConfigFile, Discovery, Format};
use crate::dialect::EventNames;
use crate::profile::ToolNames;
use crate::spec::{Dialect, HookSpec};

#[allow(non_upper_case_globals)]
impl Dialect {
    /// Cursor and OpenHuman (`hooks.json` with `"version": 1`).
    pub const Cursor: Dialect = Dialect::new("cursor")
        .with_answers(crate::dialect::AnswerForm::ObjectOrLastLine)
        .with_tool_names(&TOOL_NAMES);
}

/// Cursor's names for the host's tools: `Shell`, `Read`, and `Write` for an
/// edit too; Cursor's own names (`TabRead`, `TabWrite`) are kept.
const TOOL_NAMES: ToolNames = ToolNames {
    shell: Some("Shell"),
    read: Some("Read"),
    edit: Some("Write"),
    write: Some("Write"),
    own: &["Shell", "Read", "Write", "TabRead", "TabWrite"],
};

#[allow(non_upper_case_globals)]
impl Format {
    /// Cursor's `hooks.json` (`"version": 1`).
    pub const Cursor: Format = Format::new("cursor", Dialect::Cursor);
    /// OpenHuman's `hooks.json`: Cursor's dialect, with OpenHuman's folders
    /// and environment.
    pub const OpenHuman: Format = Format::new("openhuman", Dialect::Cursor);

    /// The format of a host of the OpenHuman family that goes by `name`:
    /// Cursor's dialect, read from `/etc/<name>/hooks.json`,
    /// `~/.<name>/hooks.json` and `<project>/.<name>/hooks.json`, whose hooks
    /// get `<NAME>_PROJECT_DIR`, `<NAME>_HOOK_EVENT`, `<NAME>_SESSION_ID`,
    /// `<NAME>_VERSION` and `<name>_version` in their input, where
    /// OpenHuman's say `OPENHUMAN`. `cursor` and `openhuman` are
    /// [`Format::Cursor`] and [`Format::OpenHuman`].
    ///
    /// ```
    /// use std::path::Path;
    /// use tower_hooks::config::{Discovery, Format};
    /// use tower_hooks::Dialect;
    ///
    /// let acme = Format::app("acme")?;
    /// assert_eq!((acme.name(), acme.dialect()), ("acme", Dialect::Cursor));
    /// assert_eq!(Format::app("openhuman")?, Format::OpenHuman);
    /// assert!(Format::app("Acme Corp").is_err());
    /// assert!(Format::app("").is_err());
    /// // Another dialect's format keeps its name.
    /// let taken = Format::app("claude").unwrap_err();
    /// assert!(taken.to_string().contains("is the name of another format"));
    ///
    /// let files = Discovery::new("/p")
    ///     .with_home(Some("/h".into()))
    ///     .format(acme)
    ///     .files();
    /// let paths: Vec<&Path> = files.iter().map(|f| f.path()).collect();
    /// assert_eq!(paths, [
    ///     Path::new("/etc/acme/hooks.json"),
    ///     Path::new("/h/.acme/hooks.json"),
    ///     Path::new("/p/.acme/hooks.json"),
    /// ]);
    /// # Ok::<(), tower_hooks::dialect::cursor::InvalidAppName>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A name that is not lowercase ASCII letters, digits and `_` starting
    /// with a letter, which could not name a folder and variables; or the
    /// name of a format of another dialect (`claude`, `codex`, …), which a
    /// file prefix, a report and `--discover` would mistake for that format.
    pub fn app(name: &'static str) -> Result<Format, InvalidAppName> {
        let mut chars = name.chars();
        let valid = chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !valid {
            return Err(InvalidAppName {
                name: name.to_owned(),
                taken: false,
            });
        }
        let taken = Format::all()
            .into_iter()
            .any(|format| format.name() == name && format.dialect() != Dialect::Cursor);
        if taken {
            return Err(InvalidAppName {
                name: name.to_owned(),
                taken: true,
            });
        }
        Ok(Format::new(name, Dialect::Cursor))
    }
}

/// A name [`Format::app`] refuses, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct InvalidAppName {
    name: String,
    taken: bool,
}

impl InvalidAppName {
    /// The name refused.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn message(&self) -> String {
        let name = &self.name;
        if self.taken {
            format!(
                "app name {name:?} is the name of another format: name the host something \
                 else (\"acme\")"
            )
        } else {
            format!(
                "app name {name:?} cannot name a folder and variables: use lowercase ASCII \
                 letters, digits and '_', starting with a letter (\"acme\")"
            )
        }
    }
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

    /// The app's standard files, with the `hooks.json` of each extra folder
    /// ([`Discovery::with_folder`]: an OpenHuman workspace) before the
    /// project's, the last one.
    fn files(&self, format: Format, discovery: &Discovery) -> Vec<PathBuf> {
        let mut files = app_files(format.name(), discovery.home(), discovery.project());
        let project = files.pop();
        files.extend(discovery.folders(format).map(|dir| dir.join("hooks.json")));
        files.extend(project);
        files
    }

    fn reads_folders(&self) -> bool {
        true
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
        let loaded = super::config::load(path)?;
        let first_id = ctx.hooks.len();
        ctx.hooks.extend(hook::specs(
            &loaded,
            path,
            file.format(),
            ctx.project,
            &self.sessions,
            first_id,
        ));
        ctx.warn_in(path, loaded.warnings);
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
