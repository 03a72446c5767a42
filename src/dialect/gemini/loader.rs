//! Gemini CLI's files: the system defaults, the user's and the project's
//! `settings.json`, the system settings, then the extensions' `hooks/hooks.json`;
//! and what applies over all of them — `hooksConfig.enabled` and
//! `hooksConfig.disabled`, and running each `name:command` once.

use std::path::{Path, PathBuf};

use super::config::{self, GeminiEntry};
use super::hook::{self, GeminiHook};
use crate::config::loader::{Load, LoadCtx, Loader};
use crate::config::trust::Switch;
use crate::config::{ConfigError, ConfigFile, Discovery, Format};
use crate::dialect::EventNames;
use crate::event::Event;
use crate::process::substitute::{placeholders, substitute, Form};
use crate::profile::{Refusal, ToolNames};
use crate::spec::Dialect;

#[allow(non_upper_case_globals)]
impl Dialect {
    /// Google Gemini CLI (`.gemini/settings.json`), whose neighbouring hooks
    /// at an event run all at once, unless one of their definitions is
    /// `sequential`.
    pub const Gemini: Dialect = Dialect::new("gemini")
        .with_hooks_at_once()
        .with_answers(crate::dialect::AnswerForm::Object)
        .with_tool_names(&TOOL_NAMES)
        .with_refusals(&REFUSALS)
        // Gemini CLI runs every hook of a sequential run; a block still wins.
        .with_groups_run_to_their_end();
}

/// Gemini CLI's names for the host's tools.
const TOOL_NAMES: ToolNames = ToolNames {
    shell: Some("run_shell_command"),
    read: Some("read_file"),
    edit: Some("replace"),
    write: Some("write_file"),
    own: &["run_shell_command", "read_file", "write_file", "replace"],
};

/// How Gemini CLI words a block: the model sees the first two in place of
/// the call's and the tool's result; the person sees a prompt's refusal as
/// the reason alone.
const REFUSALS: [Refusal; 3] = [
    (Event::ToolExecutionStart, "Tool execution blocked: ", ""),
    (Event::ToolExecutionEnd, "Tool result blocked: ", ""),
    (Event::Input, "", ""),
];

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
    /// `<project>/.gemini/settings.json`, `/etc/gemini-cli/settings.json`,
    /// then each extension's `hooks/hooks.json` under `~/.gemini/extensions`,
    /// by the extension's name.
    fn files(&self, _: Format, discovery: &Discovery) -> Vec<PathBuf> {
        let home = discovery.home();
        let mut files = vec![Path::new(SYSTEM_DIR).join("system-defaults.json")];
        files.extend(home.map(|home| home.join(".gemini/settings.json")));
        files.push(discovery.project().join(".gemini/settings.json"));
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
    /// The last `hooksConfig.enabled` a file set, as that file's switch.
    enabled: Option<(bool, Switch)>,
    /// `hooksConfig.disabled` of every file: each name, with the file's switch.
    disabled: Vec<(String, Switch)>,
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
            let switch = Switch::new(path, ctx.scope, "hooksConfig.enabled");
            self.enabled = Some((enabled, switch));
        }
        let switch = Switch::new(path, ctx.scope, "hooksConfig.disabled");
        self.disabled.extend(
            loaded
                .disabled
                .into_iter()
                .map(|name| (name, switch.clone())),
        );
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

    /// Turns off what the switches turn off (as far as their files' trust
    /// reaches), and makes the hooks of one `name:command` at an event copies
    /// of one another: of those a call selects, one runs, the most trusted.
    fn finish(self: Box<Self>, ctx: &mut LoadCtx<'_>) {
        // Each `name:command` at an event: its key and its hooks' positions.
        let mut copies: Vec<(String, Vec<usize>)> = Vec::new();
        for at in 0..ctx.hooks.len() {
            let Some(hook) = crate::dialect::extra::<GeminiHook>(&ctx.hooks[at]) else {
                continue;
            };
            let (event, name) = (hook.event.name(), hook.name.clone());
            let command = ctx.hooks[at].command.clone().unwrap_or_default();
            if let Some((false, switch)) = &self.enabled {
                let reason = format!("hooksConfig.enabled is false in {}", switch.file.display());
                if ctx.turn_off(at, switch, reason) {
                    continue;
                }
            }
            let listed = name.as_deref().unwrap_or(&command);
            // The most trusted file that lists it decides.
            let lists = self.disabled.iter().filter(|(n, _)| n == listed);
            if let Some((_, switch)) = lists.max_by_key(|(_, switch)| switch.scope) {
                let reason = format!("{listed:?} is in hooksConfig.disabled");
                if ctx.turn_off(at, switch, reason) {
                    continue;
                }
            }
            let key = format!("{event}\0{}\0{command}", name.as_deref().unwrap_or(""));
            match copies.iter_mut().find(|(k, _)| *k == key) {
                Some((_, at_list)) => at_list.push(at),
                None => copies.push((key, vec![at])),
            }
        }
        for (key, set) in copies.into_iter().filter(|(_, set)| set.len() > 1) {
            mark_copies(ctx, &key, &set);
        }
    }
}

/// The hooks at `set` share one `name:command` (`key`): those whose
/// matchers are written alike are one hook, the most trusted kept; the
/// others are copies the chain tells apart per call, after matching (Gemini
/// CLI's order: the hooks that select the call, then one of each copy).
fn mark_copies(ctx: &mut LoadCtx<'_>, key: &str, set: &[usize]) {
    let mut by_matcher: Vec<Vec<usize>> = Vec::new();
    for &at in set {
        let matcher = ctx.hooks[at].matcher.clone();
        match by_matcher
            .iter_mut()
            .find(|same| ctx.hooks[same[0]].matcher == matcher)
        {
            Some(same) => same.push(at),
            None => by_matcher.push(vec![at]),
        }
    }
    for same in by_matcher.iter().filter(|same| same.len() > 1) {
        ctx.keep_most_trusted(same);
    }
    let key: std::sync::Arc<str> = key.into();
    for &at in set {
        ctx.hooks[at].copy_key = Some(key.clone());
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
