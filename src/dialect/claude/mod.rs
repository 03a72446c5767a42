//! Claude Code (and Peri, which copies it).
//!
//! The configuration side:
//!
//! * [`config`]: the settings files and plugins' `hooks/hooks.json`, where they
//!   are, how a file becomes [`Handler`](config::Handler)s, the `${CLAUDE_*}`
//!   placeholders, and which handlers are copies of others;
//! * [`matcher`]: how a group's `matcher` is read, and what it is tested
//!   against at each event;
//! * [`rule`]: the `if` permission rules (`Bash(git commit:*)`, `Edit(*.rs)`).
//!
//! The events, the neutral event each fires at and their rules are
//! [`ClaudeEvent`]'s.
//!
//! These are pure: no process runs, and only [`config::load`] and
//! [`config::load_all`] read files.

#[doc(hidden)] // for the crate's fuzz targets, benches and property tests; not API
pub mod config;
mod event;
pub(crate) mod family;
mod glob;
#[doc(hidden)] // for the crate's fuzz targets, benches and property tests; not API
pub mod hook;
pub(crate) mod http_url;
mod ignored;
pub(crate) mod loader;
#[doc(hidden)] // for the crate's fuzz targets, benches and property tests; not API
pub mod matcher;
mod request;
#[doc(hidden)] // for the crate's fuzz targets, benches and property tests; not API
pub mod rule;
mod session;

mod wire;

pub use self::event::ClaudeEvent;
pub use self::request::request;
#[doc(no_inline)]
pub use crate::dialect::FireError;

pub use self::wire::event_name;
#[doc(hidden)] // the wire's pure functions, for fuzz targets, benches and property tests
pub use self::wire::{
    block_meaning, combine, decode, env_vars, exit2_reason, stdin_bytes, tool_output_transform,
    BlockMeaning, ClaudeAnswer, ClaudeDecision, Combined, Envelope, Failure, PLUGIN_ROOT_VAR,
    PROJECT_DIR_VAR,
};
