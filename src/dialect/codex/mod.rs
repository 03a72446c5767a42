//! OpenAI Codex CLI: `hooks.json` and the `[hooks]` tables of `config.toml`.
//!
//! Codex took Claude Code's file shape and event names and tightened the
//! rest: an answer with a key its event does not take is a failed run, the
//! only rewrite is `permissionDecision: "allow"` with `updatedInput`, exit 2
//! blocks only with a reason on stderr, hooks run under `$SHELL -lc`, all at
//! once, and two identical handlers both run.
//!
//! What a host calls is [`CodexEvent`] and the loader (`Format::Codex` with
//! `Discovery` or `Config::load_files`); the file reader, the matcher and the
//! decoder are public for the crate's fuzz target and tests only.
//!
//! The stdin envelope is Claude Code's for the same event, with Codex's
//! differences (`transcript_path` `null` when unknown, `model`, `turn_id`,
//! compact and without a newline).

#[doc(hidden)] // for the crate's fuzz target and tests; not API
pub mod config;
mod event;
mod hook;
pub(crate) mod loader;
mod matcher;
mod patch;
mod wire;

#[doc(hidden)] // for the crate's fuzz target and tests; not API
pub use self::config::{parse_json, parse_toml, CodexFile, CodexHandler};
pub use self::event::CodexEvent;
#[doc(hidden)] // for the crate's fuzz target and tests; not API
pub use self::hook::PLUGIN_VARS;
#[doc(hidden)] // for the crate's fuzz target and tests; not API
pub use self::matcher::{tool_aliases, CodexMatcher};
#[doc(hidden)] // for the crate's fuzz target and tests; not API
pub use self::wire::{decode, CodexAnswer, CodexDecision, DEFAULT_DENY_MESSAGE};

#[cfg(test)]
mod tests;
