//! nanopi v0.12: `[[hooks.<event>]]` in TOML, `bash -c`, one JSON line on stdin,
//! `NANOPI_*` variables, exit 2 or a JSON last line to answer.

mod hook;
pub(crate) mod loader;
mod wire;

pub(crate) use self::hook::NanopiHook;
#[doc(hidden)] // the wire's pure functions, for fuzz targets, benches and property tests
pub use self::wire::{decode, env_vars, last_nonempty_line, stderr_reason, stdin_line, EnvVars};
