//! Google Gemini CLI (`.gemini/settings.json`, an extension's
//! `hooks/hooks.json`).
//!
//! * [`config`]: the settings files, read with their comments, and the
//!   `hooksConfig` switches;
//! * [`GeminiEvent`]: the events, the neutral event each fires at (three of
//!   them are the model points no other dialect has:
//!   [`Event::ModelRequest`](crate::Event::ModelRequest),
//!   [`Event::ModelResponse`](crate::Event::ModelResponse),
//!   [`Event::ToolSelection`](crate::Event::ToolSelection)), and how a
//!   matcher is read there;
//! * [`stdin_bytes`] and [`decode`]: what a hook reads, and how its exit
//!   status and output are read (stdout, else stderr; a JSON object on any
//!   exit; text on an exit other than 0 and 1 blocks).
//!
//! These are pure: no process runs, and only [`config::load`] reads a file.

#[doc(hidden)] // for fuzz targets and tests; not API
pub mod config;
mod event;
pub(crate) mod hook;
pub(crate) mod loader;
mod matcher;
mod request;
mod wire;

pub use self::event::GeminiEvent;
#[doc(hidden)] // for tests; not API
pub use self::matcher::{CWD_VAR, PROJECT_DIR_VAR, SESSION_ID_VAR};
pub use self::request::request;
#[doc(hidden)] // the wire's pure functions, for fuzz targets and tests; not API
pub use self::wire::{decode, stdin_bytes, GeminiAnswer, GeminiDecision, NO_REASON};
