//! The one rule of trust every dialect's load goes through: no file of lower
//! trust ([`Scope`]) weakens a hook of higher trust.
//!
//! A loader never turns a hook off itself: it asks the load
//! ([`LoadCtx::turn_off`]) on behalf of the file whose switch says so, and the
//! load refuses when the hook is trusted more than that file (with a warning
//! naming both). A managed file that allows only managed hooks
//! ([`LoadCtx::allow_managed_hooks_only`]) turns off every other hook of every
//! dialect once every file is read ([`managed_only`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::loader::LoadCtx;
use super::{ConfigWarning, ConfigWarningKind};
use crate::spec::Scope;

/// The file whose switch asks for hooks to be turned off, and the switch.
#[derive(Debug, Clone)]
pub(crate) struct Switch {
    /// The file that says it.
    pub(crate) file: PathBuf,
    /// That file's scope.
    pub(crate) scope: Scope,
    /// The key that says it, as the file writes it (`hooksConfig.disabled`).
    pub(crate) key: &'static str,
}

impl Switch {
    /// The switch `key` of the file at `file`, of `scope`.
    pub(crate) fn new(file: &Path, scope: Scope, key: &'static str) -> Switch {
        Switch {
            file: file.to_path_buf(),
            scope,
            key,
        }
    }
}

impl LoadCtx<'_> {
    /// Turns off the hook at `at` (its position in the load) for `reason`,
    /// as `switch` asks, unless the hook is trusted more than the switch's
    /// file: then it stays on and a warning names the file, the key and the
    /// hook. A project's file reaches further when the project is trusted
    /// ([`Discovery::with_project_trusted`](super::Discovery::with_project_trusted)):
    /// as far as its loader asks, which is the host's own rule. The first
    /// reason given stays. Answers whether the hook is off.
    pub(crate) fn turn_off(
        &mut self,
        at: usize,
        switch: &Switch,
        reason: impl Into<Arc<str>>,
    ) -> bool {
        let hook = &self.hooks[at];
        let reaches = hook.scope() <= switch.scope
            || (self.project_trusted && switch.scope == Scope::Project);
        if !reaches {
            let kind = ConfigWarningKind::SwitchRefused {
                key: switch.key,
                hook: hook.label(),
                hook_scope: hook.scope(),
                file_scope: switch.scope,
            };
            self.warnings
                .push(ConfigWarning::in_file(&switch.file, kind));
            return false;
        }
        let spec = &mut self.hooks[at];
        if spec.disabled.is_none() {
            spec.disabled = Some(reason.into());
        }
        true
    }

    /// Records that the file at `file` (of `scope`), through `key`, allows
    /// only managed hooks. Only a managed file's word counts; any other's
    /// is a warning that names it.
    pub(crate) fn allow_managed_hooks_only(
        &mut self,
        file: &Path,
        scope: Scope,
        key: &'static str,
    ) {
        if scope == Scope::Managed {
            if self.managed_only.is_none() {
                self.managed_only = Some(format!("{key} is true in {}", file.display()));
            }
        } else {
            let kind = ConfigWarningKind::ManagedOnlyIgnored { key, scope };
            self.warnings.push(ConfigWarning::in_file(file, kind));
        }
    }
}

/// What applies over the whole load once every file is read, before the
/// loaders finish: a managed file that allows only managed hooks turns off
/// every other hook, whatever its dialect, each with that file as the reason.
pub(crate) fn managed_only(ctx: &mut LoadCtx<'_>) {
    let Some(reason) = ctx.managed_only.take() else {
        return;
    };
    let reason: Arc<str> = reason.into();
    for spec in ctx.hooks.iter_mut() {
        if spec.scope() < Scope::Managed && spec.disabled.is_none() {
            spec.disabled = Some(reason.clone());
        }
    }
}

impl LoadCtx<'_> {
    /// Of `copies`, hooks of the load (by position) that do the same for the
    /// same calls, the most trusted runs, the first of them where several are
    /// trusted as much; each other one is turned off as `duplicate of
    /// <label>`. A copy never stands in for a hook trusted more than it.
    pub(crate) fn keep_most_trusted(&mut self, copies: &[usize]) {
        let Some(&keeper) = copies
            .iter()
            .rev()
            .max_by_key(|&&at| self.hooks[at].scope())
        else {
            return;
        };
        // The report's `source:index` of the kept hook; labels are the CLI's.
        let kept = &self.hooks[keeper];
        let reason: Arc<str> = format!("duplicate of {}:{}", kept.source(), kept.index()).into();
        for &at in copies.iter().filter(|&&at| at != keeper) {
            let spec = &mut self.hooks[at];
            if spec.disabled.is_none() {
                spec.disabled = Some(reason.clone());
            }
        }
    }
}
