//! [`ConfigError`] and [`ConfigWarning`]: what the loader reports, always with the file.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::event::Event;
use crate::pattern::PatternError;

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
/// meant. The library never prints it; the caller decides.
///
/// Its `Display` is `<path>: [[hooks.<event>]] entry <index>: <kind>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    path: PathBuf,
    event: Event,
    index: usize,
    kind: ConfigWarningKind,
}

impl ConfigWarning {
    pub(crate) fn new(
        path: impl Into<PathBuf>,
        event: Event,
        index: usize,
        kind: ConfigWarningKind,
    ) -> Self {
        ConfigWarning {
            path: path.into(),
            event,
            index,
            kind,
        }
    }

    /// The file holding the entry.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The event whose list holds the entry.
    pub fn event(&self) -> Event {
        self.event
    }

    /// The entry's position in that file's list for the event, from 0.
    pub fn index(&self) -> usize {
        self.index
    }

    /// What looks wrong.
    pub fn kind(&self) -> &ConfigWarningKind {
        &self.kind
    }
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: [[hooks.{}]] entry {}: {}",
            self.path.display(),
            self.event,
            self.index,
            self.kind
        )
    }
}

/// What looks wrong in an entry that loads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigWarningKind {
    /// `timeout` is under 100 ms: most likely seconds written where
    /// milliseconds are meant.
    ShortTimeout {
        /// The timeout as written, in milliseconds.
        ms: u64,
    },
    /// `type` is not `"command"`: the entry loads (the specification skips it),
    /// but it never runs. Most likely a typo.
    UnknownType {
        /// The type as written.
        kind: String,
        /// `"command"`, when the type is a close misspelling of it.
        suggestion: Option<&'static str>,
    },
}

impl fmt::Display for ConfigWarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigWarningKind::UnknownType {
                ref kind,
                suggestion,
            } => {
                write!(
                    f,
                    "type = {kind:?} is not a hook type (only \"command\" runs), so this hook \
                     never runs"
                )?;
                match suggestion {
                    Some(known) => write!(f, "; did you mean {known:?}?"),
                    None => Ok(()),
                }
            }
            ConfigWarningKind::ShortTimeout { ms } => {
                let unit = if ms == 1 {
                    "millisecond"
                } else {
                    "milliseconds"
                };
                write!(
                    f,
                    "timeout = {ms} is {ms} {unit}, not seconds; write {}",
                    ms * 1000
                )?;
                match spelled(ms) {
                    Some("one") => f.write_str(" for one second"),
                    Some(words) => write!(f, " for {words} seconds"),
                    None => write!(f, " for {ms} seconds"),
                }
            }
        }
    }
}

fn spelled(n: u64) -> Option<&'static str> {
    const WORDS: [&str; 10] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    WORDS.get(usize::try_from(n).ok()?.checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    fn short(ms: u64) -> String {
        ConfigWarningKind::ShortTimeout { ms }.to_string()
    }

    #[test]
    fn short_timeout_spells_small_second_counts() {
        assert_eq!(
            short(5),
            "timeout = 5 is 5 milliseconds, not seconds; write 5000 for five seconds"
        );
        assert_eq!(
            short(1),
            "timeout = 1 is 1 millisecond, not seconds; write 1000 for one second"
        );
        assert_eq!(
            short(30),
            "timeout = 30 is 30 milliseconds, not seconds; write 30000 for 30 seconds"
        );
    }

    #[test]
    fn warning_names_file_event_and_entry() {
        let warning = ConfigWarning::new(
            "/h/.nanopi/config.toml",
            Event::TurnStart,
            0,
            ConfigWarningKind::ShortTimeout { ms: 5 },
        );
        assert_eq!(
            warning.to_string(),
            "/h/.nanopi/config.toml: [[hooks.turn_start]] entry 0: timeout = 5 is 5 \
             milliseconds, not seconds; write 5000 for five seconds"
        );
    }

    #[test]
    fn retired_event_message_is_nanopis_byte_for_byte() {
        let kind = ConfigErrorKind::RetiredEvent {
            old: "pre_tool_use".into(),
            new: Event::ToolExecutionStart,
        };
        assert_eq!(
            kind.to_string(),
            "unknown hook event \"pre_tool_use\" \u{2014} renamed to \"tool_execution_start\" \
             in v0.12 (see docs/v0.12-events.md \u{a7}2.1)"
        );
    }

    #[test]
    fn error_display_puts_the_path_first() {
        let err = ConfigError::new(
            "/p/.nanopi/config.toml",
            ConfigErrorKind::ZeroTimeout {
                event: Event::Input,
                index: 2,
            },
        );
        assert_eq!(
            err.to_string(),
            "/p/.nanopi/config.toml: timeout = 0 in [[hooks.input]] entry 2: a hook needs at \
             least 1 ms; the unit is milliseconds (default 5000)"
        );
    }

    #[test]
    fn sizes_read_in_mib_when_whole() {
        assert_eq!(size(1 << 20), "1 MiB");
        assert_eq!(size(1000), "1000 bytes");
    }

    #[test]
    fn io_error_is_the_source() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let err = ConfigError::new("/x", ConfigErrorKind::Io(io));
        assert_eq!(err.to_string(), "/x: could not read the file: denied");
        let source = err.source().expect("a source");
        assert!(source.downcast_ref::<std::io::Error>().is_some());
        assert!(!err.is_not_found());
    }
}
