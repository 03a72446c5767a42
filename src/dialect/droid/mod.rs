//! Factory Droid: a host of Claude Code's family.
//!
//! Droid reads Claude Code's hooks shape (`{"hooks": {"PreToolUse": [{"matcher":
//! …, "hooks": [{"type": "command", …}]}]}}`) from its own folders, and
//! differs in what its [`Family`](super::claude) says:
//!
//! * files: `~/.factory/hooks.json` and `.factory/hooks.json`, the legacy
//!   `.factory/hooks/hooks.json`, and the `hooks` key of `settings.json`
//!   (`~/.factory/`, `.factory/`, `.factory/settings.local.json`), which is
//!   the one Droid 0.186 reads in practice (`Factory-AI/factory#3`): both are
//!   loaded, and a handler written in both runs once;
//! * the project root in `FACTORY_PROJECT_DIR`, a plugin's root in
//!   `DROID_PLUGIN_ROOT` and `CLAUDE_PLUGIN_ROOT`;
//! * its tools are `Execute`, `Read`, `Edit`, `Create`, `ApplyPatch`, …: a
//!   matcher `Bash` never fires;
//! * nine events (`PreToolUse`, `PostToolUse`, `Notification`,
//!   `UserPromptSubmit`, `Stop`, `SubagentStop`, `PreCompact`,
//!   `SessionStart`, `SessionEnd`); a handler of another Claude Code event
//!   is left out with a warning;
//! * `command` handlers only, 60 seconds when `timeout` is not written;
//! * `hooksDisabled: true` turns the hooks off, under the trust rule every
//!   dialect shares (a project's switch never turns off a user's hook);
//! * no `tool_use_id` in a tool call's envelope.
//!
//! Exit codes, the JSON answer and how the hooks of an event combine are
//! Claude Code's. No Droid binary runs here (it needs a Factory account), so
//! this follows Factory's hooks reference; `docs/droid.md` lists what that
//! leaves open.

pub(crate) mod loader;

#[cfg(test)]
mod tests;
