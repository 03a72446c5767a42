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

    /// A value in a react-agent-mini `.agents/hooks.json` has the wrong JSON
    /// type, or one no hook can use (a `timeoutMs` of 0, a NUL in a command).
    #[error("{at} must be {expected}, not {found}")]
    AgentsInvalidValue {
        /// Where the value is: `the file`, `"PreToolUse"`, or an entry's field
        /// with its JSON path: `"timeoutMs" of PreToolUse entry 2 (PreToolUse[2])`.
        at: String,
        /// What it must be: `a positive number of milliseconds`.
        expected: &'static str,
        /// What it is: `the string "5s"`.
        found: String,
    },

    /// A value in a Cursor or OpenHuman `hooks.json` has the wrong JSON type, or
    /// one no hook can use.
    #[error("{at} must be {expected}, not {found}")]
    CursorInvalidValue {
        /// Where the value is, as a JSON path: `hooks.stop[0].timeout`.
        at: String,
        /// What it must be: `a positive number of seconds`.
        expected: &'static str,
        /// What it is: `the string "5s"`.
        found: String,
    },

    /// A Cursor or OpenHuman entry has no `command`, or a blank one.
    #[error(
        "{at} has no \"command\": a hooks.json entry needs the shell command to run \
         (with sh -c)"
    )]
    CursorMissingCommand {
        /// The entry, as a JSON path: `hooks.stop[0]`.
        at: String,
    },

    /// A react-agent-mini entry has no `command`, or a blank one.
    #[error(
        "{at} has no \"command\": a react-agent-mini hook needs the shell command to run \
         (with sh -c)"
    )]
    AgentsMissingCommand {
        /// The entry and its JSON path: `PreToolUse entry 0 (hooks.PreToolUse[0])`.
        at: String,
    },

    /// A JSON configuration (a Claude Code settings file, a plugin's
    /// `hooks/hooks.json`) does not parse. The message is serde_json's, which
    /// ends with the line and column.
    #[error("not valid JSON: {0}")]
    InvalidJson(#[source] serde_json::Error),

    /// A value in a Claude Code hooks file has the wrong JSON type, or a value
    /// no hook can use (a timeout of 0 seconds).
    #[error("{at} must be {expected}, not {found}")]
    ClaudeInvalidValue {
        /// Where the value is: `"hooks"`, `hooks.PreToolUse`, or a handler's
        /// field with the event, the handler's index and its JSON path:
        /// `"timeout" of PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])`.
        at: String,
        /// What it must be: `a number of seconds`.
        expected: &'static str,
        /// What it is: `the string "30"`.
        found: String,
    },

    /// A Claude Code handler of type `command` has no `command`, or an empty one.
    #[error(
        "{at} has no \"command\": a handler of type \"command\" needs the shell command \
         to run (with \"args\": the program to start)"
    )]
    ClaudeMissingCommand {
        /// The handler: its event, its index through the event's matcher groups
        /// and its JSON path, `PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])`.
        at: String,
    },

    /// A Claude Code matcher that is not a list of names and not a regex the
    /// `regex` crate compiles (it has no look-around and no backreferences). The
    /// message quotes at most the first 200 characters of the pattern.
    #[error(
        "invalid matcher \"{}\" in {event} matcher group {group} (hooks.{event}[{group}]): {}{}",
        crate::pattern::display_pattern(.error.pattern()),
        .error.explanation(),
        regex_hint(.error)
    )]
    ClaudeInvalidMatcher {
        /// The event, as written.
        event: String,
        /// The matcher group's position in the event's list, from 0.
        group: usize,
        /// Why it does not compile; [`PatternError::pattern`] is the matcher as
        /// written.
        #[source]
        error: PatternError,
    },

    /// A Claude Code handler's `if` is not one permission rule `Tool(pattern)`.
    #[error(
        "invalid \"if\" rule \"{}\" of {at}: {reason}",
        crate::pattern::display_pattern(.rule)
    )]
    ClaudeInvalidIf {
        /// The handler, as in [`ClaudeMissingCommand`](Self::ClaudeMissingCommand).
        at: String,
        /// The rule as written.
        rule: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// A Claude Code `command` or `args` item holds a NUL character.
    #[error(
        "{at} contains a NUL character (\\u0000), which no process argument can carry; \
         remove it"
    )]
    ClaudeNulCharacter {
        /// The field and its handler: `"command" of PreToolUse handler 0 (…)`.
        at: String,
    },

    /// A Claude Code handler of type `http` has no `url`, or an empty one.
    #[error(
        "{at} has no \"url\": a handler of type \"http\" needs the URL to post the \
         event to (\"url\": \"http://127.0.0.1:8700/hook\")"
    )]
    ClaudeMissingUrl {
        /// The handler, as in [`ClaudeMissingCommand`](Self::ClaudeMissingCommand).
        at: String,
    },

    /// A Claude Code `http` handler's `url` is not an absolute `http://` or
    /// `https://` URL with a host.
    #[error("\"url\" {url:?} of {at} cannot be posted to: {reason}")]
    ClaudeInvalidUrl {
        /// The handler, as in [`ClaudeMissingCommand`](Self::ClaudeMissingCommand).
        at: String,
        /// The URL as written.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// A pointer for the regex features JavaScript has and the `regex` crate does
/// not, which Claude Code matchers written for JavaScript sometimes use.
fn regex_hint(error: &PatternError) -> &'static str {
    let message = error.regex_error().to_string();
    if message.contains("look-around") || message.contains("backreferences") {
        " (Claude Code matchers are JavaScript regexes; this host compiles them with \
         Rust's regex crate, which has neither look-around nor backreferences)"
    } else {
        ""
    }
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
/// Its `Display` is `<path>: [[hooks.<event>]] entry <index>: <kind>` for an
/// entry of a nanopi file, and `<path>: <kind>` for the other dialects, whose
/// warnings say where in the file they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    path: PathBuf,
    entry: Option<(Event, usize)>,
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
            entry: Some((event, index)),
            kind,
        }
    }

    /// A warning about a file as a whole, or about a place in it that `kind`
    /// names itself (the Claude Code, react-agent-mini and Cursor loaders).
    pub(crate) fn in_file(path: impl Into<PathBuf>, kind: ConfigWarningKind) -> Self {
        ConfigWarning {
            path: path.into(),
            entry: None,
            kind,
        }
    }

    /// The file holding the entry.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The nanopi event whose list holds the entry; `None` for a warning of
    /// another dialect's file.
    pub fn event(&self) -> Option<Event> {
        self.entry.map(|(event, _)| event)
    }

    /// The entry's position in that file's list for the event, from 0; `None`
    /// for a warning of another dialect's file.
    pub fn index(&self) -> Option<usize> {
        self.entry.map(|(_, index)| index)
    }

    /// What looks wrong.
    pub fn kind(&self) -> &ConfigWarningKind {
        &self.kind
    }
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.entry {
            Some((event, index)) => write!(
                f,
                "{}: [[hooks.{event}]] entry {index}: {}",
                self.path.display(),
                self.kind
            ),
            None => write!(f, "{}: {}", self.path.display(), self.kind),
        }
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
    /// A key of a react-agent-mini `.agents/hooks.json` that is not one of its
    /// two events, `PreToolUse` and `PostToolUse`: its entries never run.
    AgentsUnsupportedEvent {
        /// The key, as written.
        event: String,
        /// `PreToolUse` or `PostToolUse`, when the key differs from it only in
        /// case, `_` or `-`.
        suggestion: Option<&'static str>,
    },
    /// A Claude Code event this host never fires (`TaskCreated`,
    /// `ConfigChange`, …): its hooks load, and never run.
    ClaudeUnfiredEvent {
        /// The event, as written.
        event: String,
    },
    /// A key under a Claude Code file's `hooks` that is no Claude Code event.
    ClaudeUnknownEvent {
        /// The key, as written.
        event: String,
        /// The event it is a close misspelling of.
        suggestion: Option<&'static str>,
    },
    /// A Claude Code handler type this host cannot run yet (`http`, `prompt`,
    /// `agent`, `mcp_tool`): the handler loads and never runs.
    ClaudeUnsupportedType {
        /// The handler: `PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])`.
        at: String,
        /// The type as written.
        kind: String,
    },
    /// A Claude Code `http` handler whose URL no pattern of the settings'
    /// `allowedHttpHookUrls` matches: it is listed and never runs.
    ClaudeHttpUrlNotAllowed {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
        /// The URL.
        url: String,
        /// How many patterns the settings allow (0: every HTTP hook is blocked).
        patterns: usize,
    },
    /// A Claude Code `http` handler whose URL would not be requested where
    /// its text says (it has user information, a backslash, a `.` or `..`
    /// path segment, or an encoded `/` or `\` in its path), under settings
    /// that set `allowedHttpHookUrls`: no pattern allows such a URL, so the
    /// hook is listed and never runs.
    ClaudeHttpUrlNeverAllowed {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
        /// The URL.
        url: String,
    },
    /// A Claude Code `prompt` or `agent` handler, or a Cursor `prompt` entry:
    /// a model answers it, so it runs only on a stack that has one
    /// ([`Builder::evaluator`](crate::Builder::evaluator)), and is skipped
    /// elsewhere (blocks, when it fails closed).
    ModelHook {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
        /// The type as written.
        kind: String,
    },
    /// A Claude Code handler `type` that Claude Code does not have.
    ClaudeUnknownType {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
        /// The type as written.
        kind: String,
        /// `"command"`, when the type is a close misspelling of it.
        suggestion: Option<&'static str>,
    },
    /// A key written twice in one JSON object: the last one counts and the
    /// first is ignored without a word, as serde_json and the peers read it.
    DuplicateKey {
        /// The object: `the top level`, or its path (`hooks.Stop[0]`).
        at: String,
        /// The key.
        key: String,
        /// Line and column (from 1) of the first.
        first: (usize, usize),
        /// Line and column of the one that counts.
        second: (usize, usize),
    },
    /// A command hook at an event that can block whose program cannot be
    /// started ([`Config::missing_programs`](crate::config::Config::missing_programs)):
    /// at every run it fails, and unless it fails closed the action goes on.
    MissingProgram {
        /// The hook, as `source:index`.
        hook: String,
        /// Its event, as its file names it.
        event: String,
        /// The program or script, as the command names it.
        program: String,
        /// `not found`, `not executable` or `not on PATH`.
        why: &'static str,
    },
    /// A Claude Code handler with `failClosed` or `fail_closed`, which are not
    /// Claude Code keys (Cursor's are): ignored, so the handler fails open.
    /// Claude Code's own key is `"onFailure": "block"`.
    ClaudeFailClosedKey {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
        /// The key as written.
        key: String,
    },
    /// A Claude Code handler with `if` on an event that is not a tool event:
    /// Claude Code tests `if` on tool events only, so the handler never runs.
    ClaudeIfOnNonToolEvent {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
    },
    /// A Claude Code handler of a type Claude Code does not run at its event
    /// (a `prompt` handler at `SessionEnd`, an `http` one at `SessionStart`):
    /// it is listed and never runs.
    ClaudeTypeNotOnEvent {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
        /// The type as written.
        kind: String,
        /// The event, as written.
        event: String,
    },
    /// A matcher on a Claude Code event that has no matcher (`Stop`,
    /// `UserPromptSubmit`, …): ignored, as Claude Code ignores it, so the
    /// group's hooks run every time.
    ClaudeIgnoredMatcher {
        /// The event, as written.
        event: String,
        /// The matcher group's position in the event's list, from 0.
        group: usize,
        /// The matcher as written.
        matcher: String,
    },
    /// A Claude Code `timeout` of a whole number of thousands of seconds: most
    /// likely milliseconds written where seconds are meant.
    ClaudeLongTimeout {
        /// The handler, as in [`ClaudeUnsupportedType`](Self::ClaudeUnsupportedType).
        at: String,
        /// The timeout as written, in seconds.
        seconds: u64,
    },
    /// A Cursor or OpenHuman `hooks.json` whose `version` is not 1: the file
    /// is skipped.
    CursorOtherVersion {
        /// The version as written: `the number 2`.
        found: String,
    },
    /// A key under a `hooks.json`'s `hooks` that is no Cursor event, however
    /// spelled: its entries never run.
    CursorUnknownEvent {
        /// The key, as written.
        event: String,
        /// The event it is a close misspelling of.
        suggestion: Option<&'static str>,
    },
    /// A Cursor matcher the `regex` crate cannot compile: the entry selects
    /// nothing.
    CursorInvalidMatcher {
        /// The entry, as a JSON path: `hooks.preToolUse[0]`.
        at: String,
        /// The matcher as written.
        matcher: String,
        /// Why it does not compile.
        error: String,
    },
    /// A Cursor entry of a type this host does not run (`prompt`): it is
    /// listed, and never runs.
    CursorUnsupportedType {
        /// The entry, as a JSON path.
        at: String,
        /// The type as written.
        kind: String,
    },
}

impl fmt::Display for ConfigWarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigWarningKind::AgentsUnsupportedEvent {
                ref event,
                suggestion,
            } => {
                write!(
                    f,
                    "{event:?}: react-agent-mini hooks run on PreToolUse and PostToolUse only, \
                     so the hooks listed under it never run"
                )?;
                match suggestion {
                    Some(known) => write!(f, "; did you mean {known:?}?"),
                    None => Ok(()),
                }
            }
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
            ConfigWarningKind::ClaudeUnfiredEvent { ref event } => write!(
                f,
                "hooks.{event}: {event} is a Claude Code event this host does not fire, \
                 so its hooks never run"
            ),
            ConfigWarningKind::ClaudeUnknownEvent {
                ref event,
                suggestion,
            } => {
                write!(
                    f,
                    "hooks.{event}: {event:?} is not a Claude Code event, so its hooks never run"
                )?;
                match suggestion {
                    Some(known) => write!(f, "; did you mean {known:?}?"),
                    None => Ok(()),
                }
            }
            ConfigWarningKind::ClaudeUnsupportedType { ref at, ref kind } if kind == "http" => {
                write!(
                    f,
                    "{at}: handlers of type \"http\" are not runnable by this host (it was \
                     built without the tower-hooks feature \"http\"), so this one never runs"
                )
            }
            ConfigWarningKind::ClaudeUnsupportedType { ref at, ref kind } => write!(
                f,
                "{at}: handlers of type {kind:?} are not runnable by this host (only \
                 \"command\" and \"http\" run), so this one never runs"
            ),
            ConfigWarningKind::ClaudeHttpUrlNotAllowed {
                ref at,
                ref url,
                patterns: 0,
            } => write!(
                f,
                "{at}: {url:?} is blocked: \"allowedHttpHookUrls\" is an empty list, which \
                 blocks every HTTP hook, so this one never runs"
            ),
            ConfigWarningKind::ClaudeHttpUrlNotAllowed {
                ref at, ref url, ..
            } => write!(
                f,
                "{at}: {url:?} matches no pattern of \"allowedHttpHookUrls\", so this hook \
                 never runs; add a pattern for it (\"*\" is any run of characters)"
            ),
            ConfigWarningKind::ClaudeHttpUrlNeverAllowed { ref at, ref url } => write!(
                f,
                "{at}: {url:?} has user information, a backslash or a \".\" or \"..\" \
                 segment, or an encoded \"/\" or \"\\\" in its path, so it would not be \
                 requested where its text says, and no pattern of \"allowedHttpHookUrls\" \
                 allows it: this hook never runs; write the URL as it is requested"
            ),
            ConfigWarningKind::ModelHook { ref at, ref kind } => write!(
                f,
                "{at}: a handler of type {kind:?} is answered by a model, so it runs only where \
                 the host supplies one (hooks test --evaluator-command CMD), and is skipped \
                 otherwise"
            ),
            ConfigWarningKind::ClaudeUnknownType {
                ref at,
                ref kind,
                suggestion,
            } => {
                write!(
                    f,
                    "{at}: type {kind:?} is not a Claude Code handler type, so this handler \
                     never runs"
                )?;
                match suggestion {
                    Some(known) => write!(f, "; did you mean {known:?}?"),
                    None => Ok(()),
                }
            }
            ConfigWarningKind::ClaudeTypeNotOnEvent {
                ref at,
                ref kind,
                ref event,
            } => write!(
                f,
                "{at}: Claude Code runs no handler of type {kind:?} at {event}, so this one \
                 never runs; use a \"command\" handler there"
            ),
            ConfigWarningKind::DuplicateKey {
                ref at,
                ref key,
                first,
                second,
            } => write!(
                f,
                "{at}: key {key:?} is written twice (line {} column {} and line {} column {}); \
                 only the second counts, so remove one",
                first.0, first.1, second.0, second.1
            ),
            ConfigWarningKind::MissingProgram {
                ref hook,
                ref event,
                ref program,
                why,
            } => write!(
                f,
                "{event} hook {hook}: {program:?} is {why}, so this guard fails at every run \
                 and lets the action through unless it fails closed; fix the path or the \
                 execute bit (chmod +x)"
            ),
            ConfigWarningKind::ClaudeFailClosedKey { ref at, ref key } => write!(
                f,
                "{at}: {key:?} is not a Claude Code key and is ignored, so this handler fails \
                 open; write \"onFailure\": \"block\" to make a failure block"
            ),
            ConfigWarningKind::ClaudeIfOnNonToolEvent { ref at } => write!(
                f,
                "{at}: \"if\" is only tested on tool events (PreToolUse, PostToolUse, \
                 PostToolUseFailure, PermissionRequest, PermissionDenied), so this handler \
                 never runs"
            ),
            ConfigWarningKind::ClaudeIgnoredMatcher {
                ref event,
                group,
                ref matcher,
            } => write!(
                f,
                "hooks.{event}[{group}]: matcher \"{}\" is ignored: {event} has no matcher, \
                 so the group's hooks run every time",
                crate::pattern::display_pattern(matcher)
            ),
            ConfigWarningKind::ClaudeLongTimeout { ref at, seconds } => write!(
                f,
                "{at}: \"timeout\": {seconds} is {seconds} seconds; Claude Code timeouts are \
                 in seconds, not milliseconds (write {} for {} seconds)",
                seconds / 1000,
                seconds / 1000
            ),
            ConfigWarningKind::CursorOtherVersion { ref found } => write!(
                f,
                "\"version\" is {found}; only version 1 is read, so this file's hooks never run"
            ),
            ConfigWarningKind::CursorUnknownEvent {
                ref event,
                suggestion,
            } => {
                write!(
                    f,
                    "hooks.{event}: {event:?} is not a Cursor hook event, so its hooks never run"
                )?;
                match suggestion {
                    Some(known) => write!(f, "; did you mean {known:?}?"),
                    None => Ok(()),
                }
            }
            ConfigWarningKind::CursorInvalidMatcher {
                ref at,
                ref matcher,
                ref error,
            } => write!(
                f,
                "{at}: matcher \"{}\" is not a valid regex ({error}), so this hook never runs",
                crate::pattern::display_pattern(matcher)
            ),
            ConfigWarningKind::CursorUnsupportedType { ref at, ref kind } => write!(
                f,
                "{at}: hooks of type {kind:?} are not runnable by this host (only \"command\" \
                 runs), so this one never runs"
            ),
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
