//! Where Claude Code's hooks files are: the standard files, their [`Scope`], the
//! managed path and a plugin's root.

use std::path::{Path, PathBuf};

/// The plugin root of a plugin's hooks file: `<plugin>` for
/// `<plugin>/hooks/hooks.json` and for its manifest
/// `<plugin>/.claude-plugin/plugin.json` (whose `hooks` may declare hooks
/// too); `None` for any other path.
///
/// ```
/// use std::path::Path;
/// use tower_hooks::dialect::claude::config::plugin_root_of;
///
/// assert_eq!(plugin_root_of(Path::new("/x/plug/hooks/hooks.json")).as_deref(), Some(Path::new("/x/plug")));
/// assert_eq!(plugin_root_of(Path::new("/x/plug/.claude-plugin/plugin.json")).as_deref(), Some(Path::new("/x/plug")));
/// assert_eq!(plugin_root_of(Path::new("/p/.claude/settings.json")), None);
/// assert_eq!(plugin_root_of(Path::new("/p/.agents/hooks.json")), None);
/// ```
pub fn plugin_root_of(path: &Path) -> Option<PathBuf> {
    let folder = match path.file_name()?.to_str()? {
        HOOKS_FILE => HOOKS_FOLDER,
        MANIFEST_FILE => MANIFEST_FOLDER,
        _ => return None,
    };
    let dir = path.parent()?;
    if dir.file_name()? != folder {
        return None;
    }
    Some(dir.parent()?.to_path_buf())
}

/// Whether `path` is a plugin's manifest, `<plugin>/.claude-plugin/plugin.json`.
pub(crate) fn is_plugin_manifest(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == MANIFEST_FILE) && plugin_root_of(path).is_some()
}

/// A plugin's hooks file, `hooks/hooks.json` under its root.
const HOOKS_FOLDER: &str = "hooks";
const HOOKS_FILE: &str = "hooks.json";
/// A plugin's manifest, `.claude-plugin/plugin.json` under its root.
const MANIFEST_FOLDER: &str = ".claude-plugin";
const MANIFEST_FILE: &str = "plugin.json";

/// The hooks file of the plugin at `root`: `<root>/hooks/hooks.json`.
pub(crate) fn plugin_hooks_file(root: &Path) -> PathBuf {
    root.join(HOOKS_FOLDER).join(HOOKS_FILE)
}

/// Where a Claude Code hooks file stands in Claude Code's precedence, which
/// decides `disableAllHooks` over a whole load: managed > local > project >
/// user. Plugins' hooks files (and manifests) take no part in it; their hooks are turned off
/// with the others'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// A plugin's `hooks/hooks.json`.
    Plugin,
    /// `~/.claude/settings.json` (any settings file under `~/.claude`).
    User,
    /// `<project>/.claude/settings.json`, and any other settings file.
    Project,
    /// `settings.local.json`.
    Local,
    /// `managed-settings.json`, wherever it is (the platform's own path is
    /// [`managed_settings_path`]).
    Managed,
}

impl Scope {
    /// The scope of the file at `path`, with `home` the user's home
    /// directory.
    ///
    /// ```
    /// use std::path::Path;
    /// use tower_hooks::dialect::claude::config::Scope;
    ///
    /// let home = Some(Path::new("/h"));
    /// assert_eq!(Scope::of(Path::new("/etc/claude-code/managed-settings.json"), home), Scope::Managed);
    /// assert_eq!(Scope::of(Path::new("/p/.claude/settings.local.json"), home), Scope::Local);
    /// assert_eq!(Scope::of(Path::new("/p/.claude/settings.json"), home), Scope::Project);
    /// assert_eq!(Scope::of(Path::new("/h/.claude/settings.json"), home), Scope::User);
    /// assert_eq!(Scope::of(Path::new("/x/plug/hooks/hooks.json"), home), Scope::Plugin);
    /// ```
    pub fn of(path: &Path, home: Option<&Path>) -> Scope {
        let name = path.file_name().and_then(|name| name.to_str());
        if name == Some("managed-settings.json") || path == managed_settings_path() {
            Scope::Managed
        } else if plugin_root_of(path).is_some() {
            Scope::Plugin
        } else if name == Some("settings.local.json") {
            Scope::Local
        } else if home.is_some_and(|home| path.starts_with(home.join(".claude"))) {
            Scope::User
        } else {
            Scope::Project
        }
    }
}

/// The managed settings file of this platform.
pub fn managed_settings_path() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")
    } else {
        PathBuf::from("/etc/claude-code/managed-settings.json")
    }
}

/// The standard settings files, in the order their hooks run: the user's
/// `~/.claude/settings.json`, the project's `.claude/settings.json` and
/// `.claude/settings.local.json`, then the managed file
/// ([`managed_settings_path`]). Without a home directory the user file is
/// left out. Plugins' `hooks/hooks.json` files come after these, in the order
/// the host enables the plugins ([`with_plugins`]).
///
/// Claude Code runs the hooks of every file (they accumulate; no file
/// replaces another), so the order is only the order of the records.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use tower_hooks::dialect::claude::config::standard_files;
///
/// let files = standard_files(Some(Path::new("/h")), Path::new("/p"));
/// assert_eq!(files[..3], [
///     PathBuf::from("/h/.claude/settings.json"),
///     PathBuf::from("/p/.claude/settings.json"),
///     PathBuf::from("/p/.claude/settings.local.json"),
/// ]);
/// ```
pub fn standard_files(home: Option<&Path>, project: &Path) -> Vec<PathBuf> {
    let mut files = Vec::with_capacity(4);
    if let Some(home) = home {
        files.push(home.join(".claude").join("settings.json"));
    }
    files.push(project.join(".claude").join("settings.json"));
    files.push(project.join(".claude").join("settings.local.json"));
    files.push(managed_settings_path());
    files
}

/// `files` followed by the hooks files of each plugin root in `plugins`, in
/// order: its `hooks/hooks.json`, then its manifest
/// `.claude-plugin/plugin.json`, whose `hooks` may declare more (inline, or
/// as paths of more hooks files).
pub fn with_plugins<I>(mut files: Vec<PathBuf>, plugins: I) -> Vec<PathBuf>
where
    I: IntoIterator,
    I::Item: AsRef<Path>,
{
    for root in plugins {
        let root = root.as_ref();
        files.push(plugin_hooks_file(root));
        files.push(root.join(MANIFEST_FOLDER).join(MANIFEST_FILE));
    }
    files
}
