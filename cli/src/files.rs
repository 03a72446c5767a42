//! The files `hooks test` reads and writes besides the configuration:
//! `--payload-file` and `--audit`, by the loader's rules
//! ([`tower_hooks::config::read`]).

pub(crate) use tower_hooks::config::read::{open_append, read_capped, read_regular, FileError};

/// The largest payload `--payload-file` reads, from a file or stdin (64 MiB).
pub(crate) const MAX_PAYLOAD_SIZE: u64 = 64 << 20;
