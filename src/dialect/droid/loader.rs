//! Factory Droid's files, and the profile of its hooks.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::loader::{Load, Loader};
use crate::config::{Discovery, Format};
use crate::dialect::claude::family::Family;
use crate::dialect::claude::ClaudeEvent;
use crate::profile::ToolNames;
use crate::spec::Dialect;

#[allow(non_upper_case_globals)]
impl Dialect {
    /// Factory Droid (`.factory/hooks.json`, the `hooks` key of
    /// `.factory/settings.json`), whose hooks at an event run all at once.
    pub const Droid: Dialect = Dialect::new("droid")
        .with_hooks_at_once()
        .with_answers(crate::dialect::AnswerForm::Object)
        .with_tool_names(&TOOL_NAMES);
}

#[allow(non_upper_case_globals)]
impl Format {
    /// A Factory Droid `hooks.json` or `settings.json`.
    pub const Droid: Format = Format::new("droid", Dialect::Droid);
}

/// Droid's names for the host's tools: `Execute` for a shell, `Create` for
/// a new file.
const TOOL_NAMES: ToolNames = ToolNames {
    shell: Some("Execute"),
    read: Some("Read"),
    edit: Some("Edit"),
    write: Some("Create"),
    own: &[
        "Execute",
        "Read",
        "Edit",
        "Create",
        "ApplyPatch",
        "Glob",
        "Grep",
        "LS",
        "FetchUrl",
        "WebSearch",
        "Task",
    ],
};

/// The events Droid fires.
const EVENTS: [ClaudeEvent; 9] = [
    ClaudeEvent::PreToolUse,
    ClaudeEvent::PostToolUse,
    ClaudeEvent::Notification,
    ClaudeEvent::UserPromptSubmit,
    ClaudeEvent::Stop,
    ClaudeEvent::SubagentStop,
    ClaudeEvent::PreCompact,
    ClaudeEvent::SessionStart,
    ClaudeEvent::SessionEnd,
];

/// What Droid changes from Claude Code.
pub(crate) static FAMILY: Family = Family {
    dialect: Dialect::Droid,
    host: "Factory Droid",
    event_noun: "a Factory Droid event",
    project_dir_vars: &["FACTORY_PROJECT_DIR"],
    plugin_root_vars: &["DROID_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"],
    events: Some(&EVENTS),
    runs_on: "Factory Droid hooks run on PreToolUse, PostToolUse, Notification, \
              UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionStart and SessionEnd only",
    handler_types: Some(&["command"]),
    default_timeout: Some(Duration::from_secs(60)),
    disable_key: "hooksDisabled",
    tool_use_id: false,
    home_folder: FOLDER,
    legacy_hooks_file: true,
};

/// The folder of Droid's files, in the home directory and in the project.
const FOLDER: &str = ".factory";

/// Factory Droid's [`Loader`].
#[derive(Debug)]
pub(crate) struct DroidLoader;

impl Loader for DroidLoader {
    fn formats(&self) -> &'static [Format] {
        &[Format::Droid]
    }

    /// The user's `hooks.json` and `settings.json`, then the project's
    /// `hooks.json`, legacy `hooks/hooks.json`, `settings.json` and
    /// `settings.local.json`, then each plugin's `hooks/hooks.json`.
    fn files(&self, _: Format, discovery: &Discovery) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if let Some(home) = discovery.home() {
            let user = home.join(FOLDER);
            files.extend([user.join("hooks.json"), user.join("settings.json")]);
        }
        let project = discovery.project().join(FOLDER);
        for file in [
            project.join("hooks.json"),
            project.join("hooks").join("hooks.json"),
            project.join("settings.json"),
            project.join("settings.local.json"),
        ] {
            if !files.contains(&file) {
                files.push(file); // the project is not the home folder
            }
        }
        let plugins = discovery.folders(Format::Droid);
        files.extend(plugins.map(|root| root.join("hooks").join("hooks.json")));
        files
    }

    fn reads_folders(&self) -> bool {
        true
    }

    /// `settings.local.json` is local wherever it is.
    fn scope_by_name(&self, path: &Path) -> Option<crate::Scope> {
        let local = path.file_name()? == "settings.local.json";
        local.then_some(crate::Scope::Local)
    }

    /// `hooks.json`, `settings.json` or `settings.local.json` in a folder
    /// named `.factory`, and `.factory/hooks/hooks.json`.
    fn detect_by_folder(&self, path: &Path) -> Option<Format> {
        let folder = |p: &Path| p.parent().and_then(Path::file_name).map(|n| n == FOLDER);
        let name = path.file_name()?.to_str()?;
        let in_folder = folder(path) == Some(true)
            && matches!(name, "hooks.json" | "settings.json" | "settings.local.json");
        let legacy = name == "hooks.json"
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "hooks")
            && path
                .parent()
                .is_some_and(|hooks| folder(hooks) == Some(true));
        (in_folder || legacy).then_some(Format::Droid)
    }

    fn start(&self) -> Box<dyn Load> {
        crate::dialect::claude::loader::load_of(&FAMILY)
    }
}
