//! Gemini CLI's files: the system defaults, the user's and the project's
//! `settings.json`, the system settings, then the extensions' `hooks/hooks.json`;
//! and what applies over all of them — `hooksConfig.enabled` and
//! `hooksConfig.disabled`, and running each `name:command` once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::config::{self, GeminiEntry};
use super::hook::{self, GeminiHook};
use crate::config::loader::{Load, LoadCtx, Loader};
use crate::config::{ConfigError, ConfigFile, Discovery, Format};
use crate::dialect::EventNames;
use crate::process::substitute::{placeholders, substitute, Form};
use crate::spec::Dialect;

#[allow(non_upper_case_globals)]
impl Dialect {
    /// Google Gemini CLI (`.gemini/settings.json`), whose neighbouring hooks
    /// at an event run all at once, unless one of their definitions is
    /// `sequential`.
    pub const Gemini: Dialect = Dialect::new("gemini").with_hooks_at_once();
}

#[allow(non_upper_case_globals)]
impl Format {
    /// A Gemini CLI `settings.json`, or an extension's `hooks/hooks.json`.
    pub const Gemini: Format = Format::new("gemini", Dialect::Gemini);
}

/// Gemini CLI's event names, each with the neutral event it fires.
/// `SessionStart`, `SessionEnd` and `Notification` are Claude Code's names
/// too, for the same points and with the same fields: Claude Code's list
/// answers them.
static EVENT_NAMES: EventNames = EventNames::new(
    Dialect::Gemini,
    "a Gemini CLI event",
    "BeforeTool, AfterTool",
    || {
        super::GeminiEvent::ALL
            .into_iter()
            .filter(|event| !SHARED_WITH_CLAUDE.contains(event))
            .map(|event| (event.name(), event.point()))
            .collect()
    },
    super::request,
);

/// The events Gemini CLI names as Claude Code does.
const SHARED_WITH_CLAUDE: [super::GeminiEvent; 3] = [
    super::GeminiEvent::SessionStart,
    super::GeminiEvent::SessionEnd,
    super::GeminiEvent::Notification,
];

/// The folder of Gemini CLI's machine-wide files.
const SYSTEM_DIR: &str = "/etc/gemini-cli";

/// Gemini CLI's [`Loader`].
#[derive(Debug)]
pub(crate) struct GeminiLoader;

impl Loader for GeminiLoader {
    fn formats(&self) -> &'static [Format] {
        &[Format::Gemini]
    }

    /// `/etc/gemini-cli/system-defaults.json`, `~/.gemini/settings.json`,
    /// `<project>/.gemini/settings.json` (when the project is trusted:
    /// [`Discovery::with_project_trusted`]), `/etc/gemini-cli/settings.json`,
    /// then each extension's `hooks/hooks.json` under `~/.gemini/extensions`,
    /// by the extension's name.
    fn files(&self, _: Format, discovery: &Discovery) -> Vec<PathBuf> {
        let home = discovery.home();
        let mut files = vec![Path::new(SYSTEM_DIR).join("system-defaults.json")];
        files.extend(home.map(|home| home.join(".gemini/settings.json")));
        // A project's hooks count only in a trusted folder.
        if discovery.project_trusted() {
            files.push(discovery.project().join(".gemini/settings.json"));
        }
        files.push(Path::new(SYSTEM_DIR).join("settings.json"));
        if let Some(home) = home {
            let mut extensions: Vec<PathBuf> = std::fs::read_dir(home.join(".gemini/extensions"))
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|entry| entry.path().join("hooks/hooks.json"))
                .filter(|path| path.is_file())
                .collect();
            extensions.sort();
            files.extend(extensions);
        }
        files
    }

    /// A `settings.json` (or an extension's `hooks/hooks.json`) under a
    /// folder named `.gemini`.
    fn detect(&self, path: &Path) -> Option<Format> {
        let name = path.file_name()?;
        let under_gemini = path
            .ancestors()
            .skip(1)
            .any(|dir| dir.file_name().is_some_and(|n| n == ".gemini"));
        (under_gemini && (name == "settings.json" || is_extension_file(path)))
            .then_some(Format::Gemini)
    }

    fn event_names(&self) -> Option<&'static EventNames> {
        Some(&EVENT_NAMES)
    }

    fn start(&self) -> Box<dyn Load> {
        Box::new(GeminiLoad::default())
    }
}

/// Whether `path` is an extension's `hooks/hooks.json`.
fn is_extension_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "hooks.json")
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == "hooks")
}

/// A load of Gemini CLI files.
#[derive(Debug, Default)]
struct GeminiLoad {
    /// The last `hooksConfig.enabled` a file set, and that file.
    enabled: Option<(bool, PathBuf)>,
    /// `hooksConfig.disabled` of every file.
    disabled: HashSet<String>,
}

impl Load for GeminiLoad {
    fn load(&mut self, file: &ConfigFile, ctx: &mut LoadCtx<'_>) -> Result<(), ConfigError> {
        let path = file.path();
        let mut loaded = config::load(path)?;
        if is_extension_file(path) {
            let root = path.parent().and_then(Path::parent).unwrap_or(path);
            substitute_paths(&mut loaded.entries, root, ctx.project);
        }
        if let Some(enabled) = loaded.enabled {
            self.enabled = Some((enabled, path.to_owned()));
        }
        self.disabled.extend(loaded.disabled);
        let source = path.display().to_string();
        let project = ctx.project.display().to_string();
        // Each hook's index counts through its event's hooks in the file.
        for (i, entry) in loaded.entries.iter().enumerate() {
            let index = loaded.entries[..i]
                .iter()
                .filter(|e| e.event == entry.event)
                .count();
            ctx.hooks.push(hook::spec(entry, &source, &project, index));
        }
        ctx.warn_in(path, loaded.warnings);
        Ok(())
    }

    /// Turns off what the switches turn off, and every copy of a
    /// `name:command` at an event after its first.
    fn finish(self: Box<Self>, ctx: &mut LoadCtx<'_>) {
        let mut seen: Vec<(&'static str, String, String)> = Vec::new();
        for spec in ctx.hooks.iter_mut() {
            let Some(hook) = crate::dialect::extra::<GeminiHook>(spec) else {
                continue;
            };
            let (event, name) = (hook.event.name(), hook.name.clone());
            if let Some((false, file)) = &self.enabled {
                spec.disabled =
                    Some(format!("hooksConfig.enabled is false in {}", file.display()).into());
                continue;
            }
            let command = spec.command.clone().unwrap_or_default();
            let listed = name.as_deref().unwrap_or(&command);
            if self.disabled.contains(listed) {
                spec.disabled = Some(format!("{listed:?} is in hooksConfig.disabled").into());
                continue;
            }
            let key = format!("{}:{command}", name.as_deref().unwrap_or(""));
            if let Some((_, _, first)) = seen.iter().find(|(e, k, _)| *e == event && *k == key) {
                spec.disabled = Some(format!("duplicate of {first}").into());
                continue;
            }
            seen.push((event, key, format!("{}:{}", spec.source(), spec.index())));
        }
    }
}

/// Replaces `${extensionPath}`, `${workspacePath}`, `${/}` and
/// `${pathSeparator}` in an extension's commands, each path as one word
/// (never read as shell code), and in its `env` values as they are.
fn substitute_paths(entries: &mut [GeminiEntry], root: &Path, project: &Path) {
    let (root, project) = (root.display().to_string(), project.display().to_string());
    let vars = [
        ("extensionPath", root.as_str()),
        ("workspacePath", project.as_str()),
        ("/", "/"),
        ("pathSeparator", "/"),
    ];
    for entry in entries {
        entry.command = substitute(&entry.command, Form::Bash, placeholders(&vars)).into_owned();
        for (_, value) in &mut entry.env {
            *value = substitute(value, Form::Exec, placeholders(&vars)).into_owned();
        }
    }
}
