//! Cursor and OpenHuman (`hooks.json`, `"version": 1`).
//!
//! * [`config`]: the file, its entries and their fields;
//! * [`CursorEvent`]: the events, the neutral event each fires at, the tool
//!   kind of the derived ones (`beforeShellExecution` fires for a shell tool,
//!   after `preToolUse`), and the observing ones, which run in the background;
//! * [`CursorMatcher`]: names, `MCP:<tool>`, or a regex, and what each event's
//!   matcher is tested against;
//! * the wire: [`stdin_bytes`] (each event's envelope), [`env_vars`] and
//!   [`decode`] (whole stdout, else the last JSON line; exit 2 denies; any
//!   other failure allows, or denies with `failClosed`).
//!
//! Hooks of one `hooks.json` group run one after another: the first deny stops
//! the rest, a deny beats an ask, which beats an allow, the last rewrite wins,
//! and within a group the generic event's hooks run before the derived ones.

#[doc(hidden)] // for the crate's fuzz targets, benches and property tests; not API
pub mod config;
mod event;
pub(crate) mod hook;
pub(crate) mod loader;
#[doc(hidden)] // for the crate's fuzz targets, benches and property tests; not API
pub mod matcher;
mod request;
mod wire;

pub use self::event::CursorEvent;
pub use self::loader::InvalidAppName;
#[doc(hidden)] // for fuzz targets and property tests
pub use self::matcher::{subject, CursorMatcher};
pub use self::request::request;
#[doc(hidden)] // the wire's pure functions, for fuzz targets and property tests
pub use self::wire::{
    decode, env_vars, stdin_bytes, CursorAnswer, CursorPermission, Envelope, VERSION,
};
