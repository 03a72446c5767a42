//! Claude Code's family: the hosts that read Claude Code's hooks files with
//! their own folders, variable names, tool names and a few rules of their
//! own (Factory Droid).
//!
//! One Claude Code core (the file reader, the envelope, the answer reader,
//! the switches and the dedup) serves them all; a [`Family`] says what a host
//! changes. A host of the family is then its folder: its [`Family`], its
//! `Dialect` and `Format` constants, its files, and a line in the loaders'
//! list.

use std::path::Path;
use std::time::Duration;

use super::ClaudeEvent;
use crate::spec::Dialect;

/// What a host of Claude Code's family changes from Claude Code.
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) struct Family {
    /// The dialect its hooks speak (its tool-name table is the one the
    /// matchers and the envelope use).
    pub(crate) dialect: Dialect,
    /// The host's name, in warnings and refusals (`Claude Code`).
    pub(crate) host: &'static str,
    /// What a key of its `hooks` should be, in warnings (`a Claude Code
    /// event`).
    pub(crate) event_noun: &'static str,
    /// The variables that carry the project root to a hook, the host's own
    /// first (`CLAUDE_PROJECT_DIR`).
    pub(crate) project_dir_vars: &'static [&'static str],
    /// The variables that carry a plugin's root to its hooks, the host's
    /// own first (`CLAUDE_PLUGIN_ROOT`).
    pub(crate) plugin_root_vars: &'static [&'static str],
    /// The events the host fires; `None`: every Claude Code event. A
    /// handler of another event is left out with a warning.
    pub(crate) events: Option<&'static [ClaudeEvent]>,
    /// Those events in words, for the warning on another
    /// (`Factory Droid hooks run on PreToolUse, … only`).
    pub(crate) runs_on: &'static str,
    /// The handler types the host runs; `None`: Claude Code's. A handler of
    /// another type is listed and never runs.
    pub(crate) handler_types: Option<&'static [&'static str]>,
    /// The timeout of a command handler that names none; `None`: Claude
    /// Code's, which depends on the event.
    pub(crate) default_timeout: Option<Duration>,
    /// The settings key that turns every hook off (`disableAllHooks`).
    pub(crate) disable_key: &'static str,
    /// Whether the envelope of a tool call carries `tool_use_id`.
    pub(crate) tool_use_id: bool,
    /// The folder under the home directory that holds the host's user
    /// files (`.claude`): a file there is the user's.
    pub(crate) home_folder: &'static str,
    /// Whether `hooks/hooks.json` in the host's own folder
    /// (`.factory/hooks/hooks.json`) is one of its files rather than a
    /// plugin's.
    pub(crate) legacy_hooks_file: bool,
}

/// Claude Code itself.
pub(crate) static CLAUDE_CODE: Family = Family {
    dialect: Dialect::Claude,
    host: "Claude Code",
    event_noun: "a Claude Code event",
    project_dir_vars: &[super::wire::PROJECT_DIR_VAR],
    plugin_root_vars: &[super::wire::PLUGIN_ROOT_VAR],
    events: None,
    runs_on: "",
    handler_types: None,
    default_timeout: None,
    disable_key: "disableAllHooks",
    tool_use_id: true,
    home_folder: ".claude",
    legacy_hooks_file: false,
};

impl Family {
    /// Whether the host fires `event`.
    pub(crate) fn fires(&self, event: ClaudeEvent) -> bool {
        self.events.is_none_or(|events| events.contains(&event))
    }

    /// Whether the host runs handlers of type `kind` (as written).
    pub(crate) fn runs_type(&self, kind: &str) -> bool {
        self.handler_types.is_none_or(|types| types.contains(&kind))
    }

    /// The variables a hook of this host gets on top of the inherited
    /// environment: the project root under each of its names, then a
    /// plugin's root under each of its names.
    pub(crate) fn env_vars<'a>(
        &'static self,
        project_dir: &'a str,
        plugin_root: Option<&'a str>,
    ) -> impl Iterator<Item = (&'static str, &'a str)> + 'a {
        let project = self
            .project_dir_vars
            .iter()
            .map(move |&name| (name, project_dir));
        let plugin = plugin_root
            .into_iter()
            .flat_map(move |root| self.plugin_root_vars.iter().map(move |&name| (name, root)));
        project.chain(plugin)
    }

    /// Claude Code's precedence scope of the file at `path`, with this
    /// host's home folder standing for `~/.claude`.
    pub(crate) fn scope_of(&self, path: &Path, home: Option<&Path>) -> super::config::Scope {
        use super::config::Scope;
        let users = home.is_some_and(|h| path.starts_with(h.join(self.home_folder)));
        match Scope::of(path, home) {
            // The host's own `hooks/hooks.json` stands where its folder is.
            Scope::Plugin if self.plugin_root_of(path).is_none() => {
                if users {
                    Scope::User
                } else {
                    Scope::Project
                }
            }
            Scope::Project if users => Scope::User,
            scope => scope,
        }
    }

    /// The plugin root of the file at `path`, when it is a plugin's
    /// `hooks/hooks.json` for this host: not the host's own legacy file.
    pub(crate) fn plugin_root_of(&self, path: &Path) -> Option<std::path::PathBuf> {
        let root = super::config::plugin_root_of(path)?;
        let own = self.legacy_hooks_file && root.file_name() == Some(self.home_folder.as_ref());
        (!own).then_some(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_fires_every_event_and_runs_every_type() {
        assert!(ClaudeEvent::ALL.into_iter().all(|e| CLAUDE_CODE.fires(e)));
        assert!(["command", "http", "prompt", "agent", "mcp_tool"]
            .into_iter()
            .all(|t| CLAUDE_CODE.runs_type(t)));
    }

    #[test]
    fn env_vars_name_the_project_then_the_plugin() {
        let vars: Vec<_> = CLAUDE_CODE.env_vars("/p", Some("/plug")).collect();
        assert_eq!(
            vars,
            [
                ("CLAUDE_PROJECT_DIR", "/p"),
                ("CLAUDE_PLUGIN_ROOT", "/plug")
            ]
        );
        assert_eq!(CLAUDE_CODE.env_vars("/p", None).count(), 1);
    }
}
