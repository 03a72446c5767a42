//! OpenAI Codex CLI: `hooks.json` and the `[hooks]` tables of `config.toml`.
//!
//! Codex took Claude Code's file shape and event names and tightened the
//! rest: an answer with a key its event does not take is a failed run, the
//! only rewrite is `permissionDecision: "allow"` with `updatedInput`, exit 2
//! blocks only with a reason on stderr, hooks run under `$SHELL -lc`, all at
//! once, and two identical handlers both run.
//!
//! * [`config`]: the files, read into [`CodexHandler`]s ([`parse_json`],
//!   [`parse_toml`]);
//! * [`CodexMatcher`]: the matcher rule, and [`tool_aliases`]: `apply_patch`
//!   answers `Edit` and `Write`, `spawn_agent` answers `Agent`;
//! * [`decode`]: a finished run, read by the event's strict schema into a
//!   [`CodexAnswer`].
//!
//! The stdin envelope is Claude Code's for the same event, with Codex's
//! differences (`transcript_path` `null` when unknown, `model`, `turn_id`,
//! compact and without a newline).

pub mod config;
mod event;
mod hook;
pub(crate) mod loader;
mod matcher;
mod wire;

pub use self::config::{parse_json, parse_toml, CodexFile, CodexHandler};
pub use self::event::CodexEvent;
pub use self::hook::PLUGIN_VARS;
pub use self::matcher::{tool_aliases, CodexMatcher};
pub use self::wire::{decode, CodexAnswer, CodexDecision, DEFAULT_DENY_MESSAGE};

#[cfg(test)]
mod tests;
