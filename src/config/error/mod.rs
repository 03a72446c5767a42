//! [`ConfigError`] and [`ConfigWarning`]: what the loader reports, always with the file.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::event::Event;
use crate::pattern::PatternError;

mod warning;

pub use warning::{ConfigWarning, ConfigWarningKind};

/// A configuration file that cannot be loaded: the file, and what is wrong with it.
///
/// Its `Display` is `<path>: <kind>`. See the [module docs](super) for the
/// messages.
#[derive(Debug)]
pub struct ConfigError {
    path: PathBuf,
    kind: ConfigErrorKind,
}

impl ConfigError {
    pub(crate) fn new(path: impl Into<PathBuf>, kind: ConfigErrorKind) -> Self {
        ConfigError {
            path: path.into(),
            kind,
        }
    }

    /// The file that could not be loaded.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong with it.
    pub fn kind(&self) -> &ConfigErrorKind {
        &self.kind
    }

    /// Takes the kind out, dropping the path.
    pub fn into_kind(self) -> ConfigErrorKind {
        self.kind
    }

    pub(crate) fn is_not_found(&self) -> bool {
        matches!(&self.kind, ConfigErrorKind::Io(err) if err.kind() == std::io::ErrorKind::NotFound)
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.kind)
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}

/// What is wrong with a configuration file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The file exists but cannot be read (a missing file is skipped during
    /// discovery).
    #[error("could not read the file: {0}")]
    Io(#[source] std::io::Error),

    /// The path, after following symlinks, is not a regular file: a FIFO, a
    /// device (such as a symlink to `/dev/zero`), a directory or a socket.
    /// Nothing is read from it, so a FIFO cannot hang the load.
    #[error(
        "refusing to read {what}: a configuration must be a regular file \
         (remove it, or replace it with one)"
    )]
    NotAFile {
        /// What it is instead: `a FIFO`, `a character device`, `a directory`, …
        what: &'static str,
    },

    /// The file is larger than [`MAX_CONFIG_SIZE`](super::MAX_CONFIG_SIZE);
    /// no more than that (and one byte) was read.
    #[error(
        "refusing to read more than {}: a configuration is never this large \
         (check what this file is)",
        size(*.limit)
    )]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },

    /// The file is not UTF-8 text.
    #[error("not valid UTF-8 at byte {offset} (line {line}): a configuration must be UTF-8 text")]
    InvalidUtf8 {
        /// The offset of the first byte that is not valid UTF-8, from 0.
        offset: usize,
        /// The line that byte is on, from 1.
        line: usize,
    },

    /// The file is not valid TOML, or does not have the shape of a hook
    /// configuration: an unknown key under `[hooks]` (a typo, a CamelCase
    /// name) or inside an entry, or a value of the wrong type. The message is
    /// the parser's, with its line and column.
    #[error("{}", trim_end(.0))]
    Parse(#[source] toml::de::Error),

    /// A key under `[hooks]` is one of the four event names v0.12 retired.
    #[error(
        "unknown hook event \"{old}\" \u{2014} renamed to \"{new}\" in v0.12 \
         (see docs/v0.12-events.md \u{a7}2.1)"
    )]
    RetiredEvent {
        /// The retired name, as written (`pre_tool_use`).
        old: String,
        /// The event that replaced it.
        new: Event,
    },

    /// An entry's `matcher` is neither `*` nor a valid regex. The message
    /// quotes at most the first 200 characters of the pattern.
    #[error(
        "invalid matcher \"{}\" in [[hooks.{event}]] entry {index}: {}",
        crate::pattern::display_pattern(.pattern),
        .error.explanation()
    )]
    InvalidMatcher {
        /// The event whose list holds the entry.
        event: Event,
        /// The entry's position in that file's list for the event, from 0.
        index: usize,
        /// The matcher as written.
        pattern: String,
        /// Why it does not compile.
        #[source]
        error: PatternError,
    },

    /// An entry says `timeout = 0`.
    #[error(
        "timeout = 0 in [[hooks.{event}]] entry {index}: a hook needs at least 1 ms; \
         the unit is milliseconds (default 5000)"
    )]
    ZeroTimeout {
        /// The event whose list holds the entry.
        event: Event,
        /// The entry's position in that file's list for the event, from 0.
        index: usize,
    },

    /// A `type = "command"` entry (the default type) has no `command`.
    #[error(
        "missing command in [[hooks.{event}]] entry {index}: a hook of type \"command\" \
         needs command = \"<shell command>\", run with bash -c"
    )]
    MissingCommand {
        /// The event whose list holds the entry.
        event: Event,
        /// The entry's position in that file's list for the event, from 0.
        index: usize,
    },

    /// A `command` holds a NUL character, which no process argument can carry.
    #[error(
        "command in [[hooks.{event}]] entry {index} contains a NUL character (\\u0000), \
         which cannot be passed to bash; remove it"
    )]
    NulInCommand {
        /// The event whose list holds the entry.
        event: Event,
        /// The entry's position in that file's list for the event, from 0.
        index: usize,
    },

    /// A value in a JSON configuration (a Claude Code, Cursor, OpenHuman or
    /// react-agent-mini file) has the wrong JSON type, or one no hook can use
    /// (a timeout of 0, a NUL in a command).
    #[error("{at} must be {expected}, not {found}")]
    InvalidValue {
        /// Where the value is, in the terms of its file: `"hooks"`,
        /// `hooks.stop[0].timeout`, or an entry's field with its JSON path,
        /// `"timeout" of PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])`.
        at: String,
        /// What it must be: `a positive number of seconds`.
        expected: &'static str,
        /// What it is: `the string "5s"`.
        found: String,
    },

    /// An entry of a JSON configuration lacks a key it needs (or has it
    /// empty): a `command`, an `http` handler's `url`.
    #[error("{at} has no \"{key}\": {needs}")]
    MissingKey {
        /// The entry, as its file's dialect names it: `hooks.stop[0]`,
        /// `PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])`.
        at: String,
        /// The key: `command`.
        key: &'static str,
        /// What it is for: `a hooks.json entry needs the shell command to run
        /// (with sh -c)`.
        needs: &'static str,
    },

    /// A JSON configuration does not parse. The message is serde_json's,
    /// which ends with the line and column.
    #[error("not valid JSON: {0}")]
    InvalidJson(#[source] serde_json::Error),

    /// A matcher of a JSON configuration that is not a pattern its dialect
    /// reads, or not a regex the `regex` crate compiles (it has no
    /// look-around and no backreferences). The message quotes at most the
    /// first 200 characters of the pattern.
    #[error(
        "invalid matcher \"{}\" in {at}: {}{hint}",
        crate::pattern::display_pattern(.error.pattern()),
        .error.explanation()
    )]
    InvalidPattern {
        /// Where the matcher is: `PreToolUse matcher group 1 (hooks.PreToolUse[1])`.
        at: String,
        /// Why it does not compile; [`PatternError::pattern`] is the matcher as
        /// written.
        #[source]
        error: PatternError,
        /// What the dialect adds for this error (a pointer to the regex
        /// features the `regex` crate lacks), or nothing.
        hint: &'static str,
    },

    /// A rule an entry is limited by (a Claude Code handler's `if`) that
    /// does not read.
    #[error(
        "invalid \"{key}\" rule \"{}\" of {at}: {reason}",
        crate::pattern::display_pattern(.rule)
    )]
    InvalidRule {
        /// The entry, as in [`MissingKey`](Self::MissingKey).
        at: String,
        /// The key that holds the rule: `if`.
        key: &'static str,
        /// The rule as written.
        rule: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// A `command` (or an `args` item) of a JSON configuration holds a NUL
    /// character.
    #[error(
        "{at} contains a NUL character (\\u0000), which no process argument can carry; \
         remove it"
    )]
    NulCharacter {
        /// The field and its entry: `"command" of PreToolUse handler 0 (…)`.
        at: String,
    },

    /// An entry's `url` is not an absolute `http://` or `https://` URL with
    /// a host.
    #[error("\"url\" {url:?} of {at} cannot be posted to: {reason}")]
    InvalidUrl {
        /// The entry, as in [`MissingKey`](Self::MissingKey).
        at: String,
        /// The URL as written.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// toml ends its rendering with a newline; the path prefix and the caller's own
/// line ending frame the message instead.
fn trim_end(err: &toml::de::Error) -> String {
    let mut message = err.to_string();
    message.truncate(message.trim_end().len());
    message
}

/// `limit` bytes for a person: `1 MiB`, or a count of bytes.
fn size(limit: u64) -> String {
    const MIB: u64 = 1 << 20;
    if limit >= MIB && limit % MIB == 0 {
        format!("{} MiB", limit / MIB)
    } else {
        format!("{limit} bytes")
    }
}

/// Something in a configuration file that loads but is probably not what was
/// [`ConfigErrorKind::InvalidValue`] of the JSON value `found` at `at`: the
/// one constructor every JSON dialect's loader uses.
pub(crate) fn invalid_value(
    at: impl Into<String>,
    expected: &'static str,
    found: &serde_json::Value,
) -> ConfigErrorKind {
    ConfigErrorKind::InvalidValue {
        at: at.into(),
        expected,
        found: describe_json(found),
    }
}

/// A JSON value as an error message names it: `the string "5s"` (control
/// characters escaped, a long one cut), `the number 2`, `an array`, … Shared
/// by the loaders of the JSON dialects.
pub(crate) fn describe_json(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!(
            "the string \"{}\"",
            crate::pattern::display_pattern(s).escape_debug()
        ),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests;
