//! Codex's files: `hooks.json` and `config.toml` of the user's `~/.codex`
//! and of the project's `.codex`, a plugin's `hooks/hooks.json` given by
//! name, and the `[features] hooks` switch of each layer.

use std::path::{Path, PathBuf};

use crate::config::loader::{Load, LoadCtx, Loader};
use serde_json::{Map, Value};

use crate::config::{ConfigError, ConfigFile, Discovery, Format};
use crate::dialect::{EventNames, FireError};
use crate::event::Event;
use crate::profile::{GroupReason, ToolNames};
use crate::request::HookRequest;
use crate::spec::Dialect;

#[allow(non_upper_case_globals)]
impl Dialect {
    /// OpenAI Codex CLI (`.codex/hooks.json`, `[hooks]` in
    /// `.codex/config.toml`), whose neighbouring hooks at an event run all
    /// at once.
    pub const Codex: Dialect = Dialect::new("codex")
        .with_hooks_at_once()
        .with_answers(crate::dialect::AnswerForm::Object)
        .with_tool_names(&TOOL_NAMES)
        // The first block in configured order gives the reason; at a stop,
        // every block's reason, one continuation prompt.
        .with_group_reason(GroupReason::FirstButFollowUpsJoined("\n\n"));
}

/// Codex's names for the host's tools: `Bash` for a shell tool,
/// `apply_patch` for an edit or a write (whose input the hook sees as
/// Codex's patch); the other tools keep the host's name.
const TOOL_NAMES: ToolNames = ToolNames {
    shell: Some("Bash"),
    read: None,
    edit: Some("apply_patch"),
    write: Some("apply_patch"),
    own: &["Bash", "apply_patch", "spawn_agent"],
};

#[allow(non_upper_case_globals)]
impl Format {
    /// A Codex `hooks.json` or `config.toml`.
    pub const Codex: Format = Format::new("codex", Dialect::Codex);
}

/// The one Codex event Claude Code has no name for: `Interrupt`, fired by
/// name. Every other Codex name is Claude Code's and names the same point,
/// so `hooks test --event PreToolUse` fires Codex hooks too.
static EVENT_NAMES: EventNames = EventNames::new(
    Dialect::Codex,
    "a Codex event",
    "PreToolUse, PermissionRequest, PostToolUse",
    || vec![("Interrupt", Event::Named)],
    interrupt,
);

/// The request of `Interrupt` with its stdin fields: the session id is the
/// request's, the other fields are written as given.
fn interrupt(name: &str, mut fields: Map<String, Value>) -> Result<HookRequest, FireError> {
    if name != "Interrupt" {
        return Err(FireError::no_such_event(name, "a Codex event"));
    }
    fields.remove("hook_event_name");
    let session_id = match fields.remove("session_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id),
        Some(_) => return Err(FireError::invalid("session_id", "a string")),
    };
    let mut req = HookRequest::named(name, Value::Object(Map::new()));
    if let Some(id) = session_id {
        req = req.with_session_id(id);
    }
    Ok(req.with_wire_fields(fields))
}

/// Codex's [`Loader`].
#[derive(Debug)]
pub(crate) struct CodexLoader;

impl Loader for CodexLoader {
    fn formats(&self) -> &'static [Format] {
        &[Format::Codex]
    }

    /// `~/.codex/hooks.json`, `~/.codex/config.toml`, then the project's
    /// two: every layer adds its hooks, none overrides.
    fn files(&self, _: Format, discovery: &Discovery) -> Vec<PathBuf> {
        let layers = discovery
            .home()
            .map(|home| home.join(".codex"))
            .into_iter()
            .chain([discovery.project().join(".codex")]);
        let mut files = Vec::new();
        for layer in layers {
            if files.contains(&layer.join("hooks.json")) {
                continue; // the project is the home folder
            }
            files.push(layer.join("hooks.json"));
            files.push(layer.join("config.toml"));
        }
        files
    }

    /// `hooks.json` or `config.toml` in a folder named `.codex`.
    fn detect_by_folder(&self, path: &Path) -> Option<Format> {
        let in_codex = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|dir| dir == ".codex");
        let named = path
            .file_name()
            .is_some_and(|name| name == "hooks.json" || name == "config.toml");
        (in_codex && named).then_some(Format::Codex)
    }

    fn event_names(&self) -> Option<&'static EventNames> {
        Some(&EVENT_NAMES)
    }

    fn start(&self) -> Box<dyn Load> {
        Box::new(CodexLoad::default())
    }
}

/// A load of Codex files.
#[derive(Debug, Default)]
struct CodexLoad {
    /// Each hook's position in the load, with its file's folder.
    hooks: Vec<(usize, PathBuf)>,
    /// Each folder's `[features] hooks`, the file that said it.
    switches: Vec<(PathBuf, bool, PathBuf)>,
}

impl Load for CodexLoad {
    fn load(&mut self, file: &ConfigFile, ctx: &mut LoadCtx<'_>) -> Result<(), ConfigError> {
        let path = file.path();
        let loaded = super::config::load(path)?;
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        if let Some(on) = loaded.hooks_feature {
            self.switches.push((folder.clone(), on, path.to_path_buf()));
        }
        let plugin = super::config::plugin_root(path).map(|root| {
            let name = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let data = ctx
                .home
                .map(|home| home.join(".codex/plugins/data").join(&name))
                .unwrap_or_else(|| root.join(".data"));
            (
                root.display().to_string().into_boxed_str(),
                data.display().to_string().into_boxed_str(),
            )
        });
        ctx.warn_in(path, loaded.warnings);
        for handler in &loaded.handlers {
            self.hooks.push((ctx.hooks.len(), folder.clone()));
            ctx.hooks
                .push(super::hook::spec(handler, path, plugin.clone()));
        }
        Ok(())
    }

    /// `[features] hooks = false` (or `codex_hooks = false`) turns off the
    /// hooks of its layer, its `hooks.json` included; the last word of a
    /// layer counts.
    fn finish(self: Box<Self>, ctx: &mut LoadCtx<'_>) {
        for (at, folder) in &self.hooks {
            let last = self.switches.iter().rev().find(|(dir, _, _)| dir == folder);
            if let Some((_, false, file)) = last {
                let spec = &mut ctx.hooks[*at];
                if spec.disabled.is_none() {
                    spec.disabled =
                        Some(format!("[features] hooks is false in {}", file.display()).into());
                }
            }
        }
    }
}
