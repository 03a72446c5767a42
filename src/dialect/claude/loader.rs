//! Claude Code's files: the settings files of each scope and the plugins'
//! `hooks/hooks.json`, and what applies over all the files of a load — the
//! switches (`disableAllHooks`, `allowManagedHooksOnly`), the dedup of
//! identical handlers, and the HTTP gates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::config::{self, Handler, HooksFile, HttpGates, Scope};
use super::family::{Family, CLAUDE_CODE};
use crate::config::loader::{Load, LoadCtx, Loader};
use crate::config::trust::Switch;
use crate::config::{ConfigError, ConfigFile, ConfigWarning, ConfigWarningKind, Discovery, Format};
use crate::dialect::EventNames;
use crate::profile::ToolNames;
use crate::spec::Dialect;

#[allow(non_upper_case_globals)]
impl Dialect {
    /// Claude Code and Peri (`settings.json`, a plugin's `hooks/hooks.json`),
    /// whose neighbouring hooks at an event run all at once.
    pub const Claude: Dialect = Dialect::new("claude")
        .with_hooks_at_once()
        .with_answers(crate::dialect::AnswerForm::Object)
        .with_tool_names(&TOOL_NAMES)
        .with_http_hooks();
}

/// Claude Code's names for the host's tools: `Bash`, `Read`, `Edit`,
/// `Write`; a name that is already Claude Code's is kept (`MultiEdit` stays
/// `MultiEdit`).
const TOOL_NAMES: ToolNames = ToolNames {
    shell: Some("Bash"),
    read: Some("Read"),
    edit: Some("Edit"),
    write: Some("Write"),
    own: &["Bash", "Read", "Edit", "MultiEdit", "Write", "NotebookEdit"],
};

#[allow(non_upper_case_globals)]
impl Format {
    /// A Claude Code settings file, or a plugin's `hooks/hooks.json`.
    pub const Claude: Format = Format::new("claude", Dialect::Claude);
}

/// Claude Code's event names, each with the neutral event it fires (react-agent-mini's
/// two are among them).
static EVENT_NAMES: EventNames = EventNames::new(
    Dialect::Claude,
    "a Claude Code (and react-agent-mini) event",
    "PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest",
    || {
        // The events with no neutral point are fired by name (`Event::Named`).
        super::ClaudeEvent::ALL
            .into_iter()
            .map(|event| (event.name(), event.event().unwrap_or(crate::Event::Named)))
            .collect()
    },
    super::request,
);

/// Claude Code's [`Loader`].
#[derive(Debug)]
pub(crate) struct ClaudeLoader;

impl Loader for ClaudeLoader {
    fn formats(&self) -> &'static [Format] {
        &[Format::Claude]
    }

    /// The settings files, then each plugin's: its extra folders
    /// ([`Discovery::with_folder`]) are plugin roots.
    fn files(&self, format: Format, discovery: &Discovery) -> Vec<PathBuf> {
        config::with_plugins(
            config::standard_files(discovery.home(), discovery.project()),
            discovery.folders(format),
        )
    }

    fn reads_folders(&self) -> bool {
        true
    }

    fn is_system_file(&self, path: &Path) -> bool {
        path == config::managed_settings_path() || path.starts_with("/etc")
    }

    /// `managed-settings.json` is managed and `settings.local.json` local,
    /// wherever they are.
    fn scope_by_name(&self, path: &Path) -> Option<crate::Scope> {
        match path.file_name()?.to_str()? {
            "managed-settings.json" => Some(crate::Scope::Managed),
            "settings.local.json" => Some(crate::Scope::Local),
            _ => None,
        }
    }

    /// Any file: a settings file or a plugin's `hooks/hooks.json` (one that
    /// cannot be read is reported by the load).
    fn takes_any_file(&self) -> bool {
        true
    }

    fn event_names(&self) -> Option<&'static EventNames> {
        Some(&EVENT_NAMES)
    }

    fn start(&self) -> Box<dyn Load> {
        load_of(&CLAUDE_CODE)
    }
}

/// A load of the files of `family`'s host: Claude Code's, or a clone's
/// (the `start` of its loader).
pub(crate) fn load_of(family: &'static Family) -> Box<dyn Load> {
    Box::new(ClaudeLoad {
        family,
        handlers: Vec::new(),
        switches: Vec::new(),
        http_gates: HttpGates::default(),
    })
}

/// A load of the files of one host of Claude Code's family.
#[derive(Debug)]
struct ClaudeLoad {
    /// The host whose files they are.
    family: &'static Family,
    /// The handlers loaded so far, with the position of their hook in the
    /// load, for the dedup across files.
    handlers: Vec<(usize, Handler)>,
    /// The hook switches of each file, in load order.
    switches: Vec<Switches>,
    /// The `http` handlers' settings-level gates, over every file.
    http_gates: HttpGates,
}

/// A Claude Code file's switches for the hooks of the whole load.
#[derive(Debug)]
struct Switches {
    path: PathBuf,
    /// The file's scope of trust (not its place in Claude Code's precedence).
    trust: crate::Scope,
    /// The host's switch (`disableAllHooks`), as written.
    disable_all_hooks: Option<bool>,
}

impl Load for ClaudeLoad {
    fn load(&mut self, file: &ConfigFile, ctx: &mut LoadCtx<'_>) -> Result<(), ConfigError> {
        let path = file.path();
        let context = config::Context::for_file_of(ctx.project, path, self.family);
        let loaded = config::load(path, &context)?;
        self.http_gates.add(&loaded);
        self.switches.push(Switches {
            path: path.to_path_buf(),
            trust: ctx.scope,
            disable_all_hooks: self.switch_of(&loaded),
        });
        if loaded.allow_managed_hooks_only {
            ctx.allow_managed_hooks_only(path, ctx.scope, "allowManagedHooksOnly");
        }
        let project_dir = ctx.project.display().to_string();
        ctx.errors.extend(loaded.dropped);
        ctx.warnings.extend(
            loaded
                .warnings
                .into_iter()
                .map(|w| ConfigWarning::in_file(w.path(), w.kind().clone())),
        );
        for handler in loaded.handlers {
            if let Some(spec) = super::hook::spec(&handler, &project_dir, self.family) {
                self.handlers.push((ctx.hooks.len(), handler));
                ctx.hooks.push(spec);
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>, ctx: &mut LoadCtx<'_>) {
        self.switch_hooks_off(ctx);
        self.turn_duplicates_off(ctx);
        self.gate_http_hooks(ctx);
    }
}

impl ClaudeLoad {
    /// The file's value of its host's switch that turns every hook off.
    fn switch_of(&self, file: &HooksFile) -> Option<bool> {
        match self.family.disable_key {
            "hooksDisabled" => file.hooks_disabled,
            _ => file.disable_all_hooks,
        }
    }

    /// Applies `disableAllHooks` to the Claude Code hooks of the load. The
    /// value that counts is the one of the file of highest precedence that
    /// says it ([`Scope`]); its `true` turns off every hook but the managed
    /// ones, which only a managed file's own `true` turns off. The load turns
    /// a hook off only where the deciding file is trusted as much as the hook
    /// (a project's `true` leaves the user's hooks on: `LoadCtx::turn_off`).
    /// `allowManagedHooksOnly` is the load's, for every dialect.
    fn switch_hooks_off(&self, ctx: &mut LoadCtx<'_>) {
        let home = ctx.home;
        let family = self.family;
        let scope = |path: &Path| family.scope_of(path, home);
        let deciding = [Scope::Managed, Scope::Local, Scope::Project, Scope::User]
            .into_iter()
            .find_map(|wanted| {
                self.switches
                    .iter()
                    .rev()
                    .filter(|file| scope(&file.path) == wanted)
                    .find_map(|file| Some((file.disable_all_hooks?, file)))
            });
        let managed_off = self.switches.iter().find(|file| {
            scope(&file.path) == Scope::Managed && file.disable_all_hooks == Some(true)
        });
        for (at, handler) in &self.handlers {
            let managed = scope(&handler.source) == Scope::Managed;
            let by = match (deciding, managed) {
                (Some((true, _)), true) => managed_off,
                (Some((true, file)), false) => Some(file),
                _ => None,
            };
            if let Some(file) = by {
                let key = self.family.disable_key;
                let switch = Switch::new(&file.path, file.trust, key);
                let reason = format!("{key} is true in {}", file.path.display());
                ctx.turn_off(*at, &switch, reason);
            }
        }
    }

    /// Of identical handlers from settings files, the most trusted runs (the
    /// first in load order of those trusted as much); each copy is turned off
    /// with the reason `duplicate of <source>:<index>` ([`config::duplicates`]).
    fn turn_duplicates_off(&self, ctx: &mut LoadCtx<'_>) {
        // Only hooks that may run take part in the dedup: a copy must never be
        // dropped for an original that is itself turned off.
        let handlers: Vec<&(usize, Handler)> = self
            .handlers
            .iter()
            .filter(|(at, _)| ctx.hooks[*at].disabled.is_none())
            .collect();
        let originals = config::duplicates(handlers.iter().map(|(_, handler)| handler));
        // Each set of copies, by the position of its first: that one, then
        // the copies in load order.
        let mut sets: Vec<Vec<usize>> = Vec::new();
        for ((at, _), original) in handlers.iter().zip(originals) {
            let Some(original) = original else { continue };
            let first = handlers
                .iter()
                .find(|(_, h)| std::ptr::eq(h, original))
                .map(|(at, _)| *at);
            match sets.iter_mut().find(|set| Some(set[0]) == first) {
                Some(set) => set.push(*at),
                None => sets.extend(first.map(|first| vec![first, *at])),
            }
        }
        for set in &sets {
            ctx.keep_most_trusted(set);
        }
    }

    /// Applies the settings-level gates of the whole load to each `http`
    /// handler: one whose URL `allowedHttpHookUrls` does not allow is listed
    /// and never runs (with a warning), and its headers read only the
    /// variables `httpHookAllowedEnvVars` allows too.
    fn gate_http_hooks(&self, ctx: &mut LoadCtx<'_>) {
        let gates = &self.http_gates;
        for (at, handler) in &self.handlers {
            let spec = &mut ctx.hooks[*at];
            let Some(target) = spec.http_target() else {
                continue;
            };
            if !gates.allows_url(target.url()) {
                let patterns = gates.url_patterns().map_or(0, <[String]>::len);
                let (at, url) = (handler.describe(), target.url().to_owned());
                let kind = if patterns > 0 && super::http_url::as_requested(&url).is_none() {
                    ConfigWarningKind::HttpUrlNeverAllowed { at, url }
                } else {
                    ConfigWarningKind::HttpUrlNotAllowed { at, url, patterns }
                };
                ctx.warnings
                    .push(ConfigWarning::in_file(&handler.source, kind));
                let reason: Arc<str> = "its URL is not in allowedHttpHookUrls".into();
                if spec.disabled.is_none() {
                    // A fail-closed hook that may not run blocks: never a silent allow.
                    if spec.fail_closed() {
                        spec.refused = Some(reason);
                    } else {
                        spec.disabled = Some(reason);
                    }
                }
                continue;
            }
            let kept = target
                .clone()
                .retain_env_vars(|name| gates.allows_env_var(name));
            if kept != *target {
                *spec = spec.clone().with_http(kept);
            }
        }
    }
}
