//! [`ConfigWarning`]: what loads but is probably not what was meant.

use std::fmt;
use std::path::{Path, PathBuf};

use super::super::discovery::Format;
use crate::event::Event;

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
    /// A file's disable switch names a hook trusted more than the file
    /// ([`Scope`](crate::Scope)): the hook stays on.
    SwitchRefused {
        /// The switch, as the file writes it (`hooksConfig.disabled`).
        key: &'static str,
        /// The hook it could not switch off, by its label.
        hook: String,
        /// That hook's scope.
        hook_scope: crate::Scope,
        /// The file's scope.
        file_scope: crate::Scope,
    },
    /// A file that is not managed says only managed hooks may run: only a
    /// managed file's word counts.
    ManagedOnlyIgnored {
        /// The key, as the file writes it (`allowManagedHooksOnly`).
        key: &'static str,
        /// The file's scope.
        scope: crate::Scope,
    },
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
    /// A key of a JSON configuration that names an event its dialect has no
    /// hooks for (react-agent-mini runs `PreToolUse` and `PostToolUse`
    /// only): its entries never run.
    UnsupportedEvent {
        /// The key, as written.
        event: String,
        /// The events the dialect runs: `react-agent-mini hooks run on
        /// PreToolUse and PostToolUse only`.
        runs_on: &'static str,
        /// The event the key differs from only in case, `_` or `-`.
        suggestion: Option<&'static str>,
    },
    /// An event of a JSON configuration's dialect with no neutral point
    /// (Claude Code's `TaskCreated`, `ConfigChange`, …): its hooks load, and
    /// run only when the host fires the event by name
    /// ([`HookRequest::named`](crate::HookRequest::named)).
    UnfiredEvent {
        /// The event, as written.
        event: String,
    },
    /// A key under a JSON configuration's `hooks` that is no event of its
    /// dialect, however spelled: its entries never run.
    UnknownEvent {
        /// The key, as written.
        event: String,
        /// What it is not: `a Claude Code event`, `a Cursor hook event`.
        expected: &'static str,
        /// The event it is a close misspelling of.
        suggestion: Option<&'static str>,
    },
    /// An entry of a type this host cannot run (Claude Code's `http`
    /// without the `http` feature, its `mcp_tool`; Cursor's `prompt`): it
    /// loads, is listed, and never runs.
    UnsupportedType {
        /// The entry: `PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])`,
        /// `hooks.stop[0]`.
        at: String,
        /// What its dialect calls an entry, in the plural: `handlers`, `hooks`.
        entries: &'static str,
        /// The type as written.
        kind: String,
        /// Why it cannot run here: `only "command" runs`.
        why: &'static str,
    },
    /// A Claude Code `http` handler whose URL no pattern of the settings'
    /// `allowedHttpHookUrls` matches: it is listed and never runs.
    HttpUrlNotAllowed {
        /// The handler, as in [`UnsupportedType`](Self::UnsupportedType).
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
    HttpUrlNeverAllowed {
        /// The handler, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The URL.
        url: String,
    },
    /// A Claude Code `prompt` or `agent` handler, or a Cursor `prompt` entry:
    /// a model answers it, so it runs only on a stack that has one
    /// ([`Builder::evaluator`](crate::Builder::evaluator)), and is skipped
    /// elsewhere (blocks, when it fails closed).
    ModelHook {
        /// The handler, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The type as written.
        kind: String,
    },
    /// An entry of a JSON configuration whose `type` its dialect does not
    /// have (a Claude Code handler's): it loads and never runs.
    UnknownEntryType {
        /// The entry, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The type as written.
        kind: String,
        /// What it is not: `a Claude Code handler type`.
        expected: &'static str,
        /// What its dialect calls an entry: `handler`.
        entry: &'static str,
        /// The type it is a close misspelling of.
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
        /// Whether the hook's dialect reads the shell's answer to a program
        /// that cannot start (exit 127 or 126, a line on stderr) as a block,
        /// as Gemini CLI does: then every call is refused, instead of let
        /// through.
        blocks: bool,
    },
    /// A handler with another dialect's key for failing closed (a Claude
    /// Code handler with Cursor's `failClosed` or `fail_closed`): ignored, so
    /// the handler fails open.
    IgnoredFailClosedKey {
        /// The handler, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The key as written.
        key: String,
        /// The handler's dialect, as a message names it: `Claude Code`.
        dialect: &'static str,
        /// What its dialect writes instead: `"onFailure": "block"`.
        instead: &'static str,
    },
    /// A handler whose rule (Claude Code's `if`) is on an event where its
    /// dialect never tests it, so the handler never runs.
    RuleOnNonToolEvent {
        /// The handler, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The rule's key: `if`.
        key: &'static str,
        /// The events the rule is tested on, as a message lists them.
        tool_events: &'static str,
    },
    /// An entry of a type its dialect does not run at its event (a Claude
    /// Code `prompt` handler at `SessionEnd`, an `http` one at
    /// `SessionStart`): it is listed and never runs.
    TypeNotOnEvent {
        /// The entry, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The dialect, as a message names it: `Claude Code`.
        dialect: &'static str,
        /// The type as written.
        kind: String,
        /// The event, as written.
        event: String,
    },
    /// A matcher on an event that has no matcher (Claude Code's `Stop`,
    /// `UserPromptSubmit`, …): ignored, as its dialect ignores it, so the
    /// group's hooks run every time.
    IgnoredMatcher {
        /// Where the matcher is, in its dialect's words (`hooks.Stop[0]`).
        at: String,
        /// The event, as written.
        event: String,
        /// The matcher as written.
        matcher: String,
    },
    /// A `timeout` in seconds that is a whole number of thousands (a
    /// Claude Code handler's): most likely milliseconds written where
    /// seconds are meant.
    LongTimeout {
        /// The entry, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The dialect whose timeouts are in seconds: `Claude Code`.
        dialect: &'static str,
        /// The timeout as written, in seconds.
        seconds: u64,
    },
    /// A handler whose `shell` names a shell that is not on `PATH` (Claude
    /// Code's `"shell": "powershell"` needs `pwsh`): it loads, and every run
    /// fails to start, which lets the action go on unless it fails closed.
    ShellNotFound {
        /// The entry, as in [`UnsupportedType`](Self::UnsupportedType).
        at: String,
        /// The program looked for: `pwsh`.
        shell: String,
    },
    /// A JSON configuration whose `version` is not one this host reads (a
    /// Cursor or OpenHuman `hooks.json` of another version than 1): the file
    /// is skipped.
    OtherVersion {
        /// The version as written: `the number 2`.
        found: String,
    },
    /// A key of a JSON configuration's entry that its dialect does not read
    /// (a Codex handler's): it changes nothing. Most likely a typo.
    UnknownKey {
        /// The key with its entry, as a JSON path: `hooks.Stop[0].hooks[1].timout`.
        at: String,
        /// What it is not: `a key of a Codex matcher group or handler`.
        expected: &'static str,
    },
    /// A matcher of a JSON configuration that its dialect warns about
    /// rather than refuses (Cursor's): a regex the `regex` crate cannot
    /// compile, so the entry selects nothing.
    InvalidMatcher {
        /// The entry, as a JSON path: `hooks.preToolUse[0]`.
        at: String,
        /// The matcher as written.
        matcher: String,
        /// Why it does not compile.
        error: String,
    },
    /// A matcher whose regex would compile to more than
    /// [`MATCHER_SIZE_LIMIT`](crate::pattern::MATCHER_SIZE_LIMIT) bytes
    /// (`\w{1000}`): it is not compiled, and its entry is handled as one whose
    /// matcher does not compile in its dialect (a Codex group or a Cursor
    /// entry never runs; a Gemini CLI definition's matcher is compared as a
    /// literal tool name). A Claude Code group over the bound is dropped, and
    /// a nanopi entry refused, as with any invalid matcher.
    MatcherTooBig {
        /// The entry, as a JSON path: `hooks.BeforeTool[0]`.
        at: String,
        /// The matcher as written.
        matcher: String,
        /// What that means for the entry: `so this group never runs`.
        effect: &'static str,
    },
    /// A command that hands a path or value its dialect puts in
    /// (`${CLAUDE_PROJECT_DIR}`, Gemini CLI's `$GEMINI_SESSION_ID`) to a
    /// second evaluation: the script of `sh -c`, the words of `eval`, the
    /// program of `python3 -c`. The value is one word for the shell that runs
    /// the command, but the inner reader parses it as code, so a directory
    /// whose name holds `$(…)` or `;` would run there.
    EvaluatedTwice {
        /// The entry, in its dialect's words: `PreToolUse handler 1
        /// (hooks.PreToolUse[0].hooks[0])`, `hooks.BeforeTool[0].hooks[0]`.
        at: String,
        /// The reference as written.
        reference: String,
        /// What reads it again: `sh -c`, `eval`.
        evaluator: String,
    },
    /// A matcher on an entry whose event has nothing to match (Cursor's
    /// `sessionStart`, `sessionEnd`, `preCompact`): ignored, so the hook runs
    /// every time.
    IgnoredEntryMatcher {
        /// The entry, as a JSON path: `hooks.sessionStart[0]`.
        at: String,
        /// The event, as written.
        event: String,
        /// The matcher as written.
        matcher: String,
    },
    /// A folder handed to [`Discovery::with_folder`](crate::config::Discovery::with_folder)
    /// that the load does not read (the warning's path is the folder): its
    /// format is not one the discovery reads, or reads no extra folders.
    UnreadFolder {
        /// The format it was handed for.
        format: Format,
        /// Whether the discovery reads that format (then the format has no
        /// extra folders).
        format_read: bool,
    },
}

impl fmt::Display for ConfigWarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ConfigWarningKind as K;
        match self {
            K::UnsupportedEvent { .. }
            | K::UnknownType { .. }
            | K::UnfiredEvent { .. }
            | K::UnknownEvent { .. }
            | K::UnknownEntryType { .. }
            | K::UnknownKey { .. }
            | K::OtherVersion { .. } => self.fmt_unknown_name(f),
            K::UnsupportedType { .. }
            | K::HttpUrlNotAllowed { .. }
            | K::HttpUrlNeverAllowed { .. }
            | K::ModelHook { .. }
            | K::TypeNotOnEvent { .. } => self.fmt_not_runnable(f),
            K::IgnoredMatcher { .. }
            | K::InvalidMatcher { .. }
            | K::MatcherTooBig { .. }
            | K::IgnoredEntryMatcher { .. }
            | K::RuleOnNonToolEvent { .. } => self.fmt_matcher(f),
            K::MissingProgram { .. }
            | K::ShellNotFound { .. }
            | K::EvaluatedTwice { .. }
            | K::IgnoredFailClosedKey { .. } => self.fmt_failing_command(f),
            K::LongTimeout { .. } | K::ShortTimeout { .. } => self.fmt_timeout(f),
            K::SwitchRefused { .. }
            | K::ManagedOnlyIgnored { .. }
            | K::UnreadFolder { .. }
            | K::DuplicateKey { .. } => self.fmt_file(f),
        }
    }
}

// The text of each theme of warning. `Display::fmt` picks the theme, so each
// match below meets only its own variants.
impl ConfigWarningKind {
    /// A name the dialect does not know: an event, a type, a key or a version.
    fn fmt_unknown_name(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigWarningKind::UnsupportedEvent {
                ref event,
                runs_on,
                suggestion,
            } => {
                write!(
                    f,
                    "{event:?}: {runs_on}, so the hooks listed under it never run"
                )?;
                did_you_mean(f, suggestion)
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
                did_you_mean(f, suggestion)
            }
            ConfigWarningKind::UnfiredEvent { ref event } => write!(
                f,
                "hooks.{event}: {event} has no point in the neutral lifecycle: its hooks \
                 run only when the host fires the event by name"
            ),
            ConfigWarningKind::UnknownEvent {
                ref event,
                expected,
                suggestion,
            } => {
                write!(
                    f,
                    "hooks.{event}: {event:?} is not {expected}, so its hooks never run"
                )?;
                did_you_mean(f, suggestion)
            }
            ConfigWarningKind::UnknownEntryType {
                ref at,
                ref kind,
                expected,
                entry,
                suggestion,
            } => {
                write!(
                    f,
                    "{at}: type {kind:?} is not {expected}, so this {entry} never runs"
                )?;
                did_you_mean(f, suggestion)
            }
            ConfigWarningKind::UnknownKey { ref at, expected } => {
                write!(f, "{at} is not {expected}, so it changes nothing")
            }
            ConfigWarningKind::OtherVersion { ref found } => write!(
                f,
                "\"version\" is {found}; only version 1 is read, so this file's hooks never run"
            ),
            _ => unreachable!("Display::fmt sends {self:?} elsewhere"),
        }
    }

    /// A handler that loads but that this host does not run.
    fn fmt_not_runnable(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigWarningKind::UnsupportedType {
                ref at,
                entries,
                ref kind,
                why,
            } => write!(
                f,
                "{at}: {entries} of type {kind:?} are not runnable by this host ({why}), so \
                 this one never runs"
            ),
            ConfigWarningKind::HttpUrlNotAllowed {
                ref at,
                ref url,
                patterns: 0,
            } => write!(
                f,
                "{at}: {url:?} is blocked: \"allowedHttpHookUrls\" is an empty list, which \
                 blocks every HTTP hook, so this one never runs"
            ),
            ConfigWarningKind::HttpUrlNotAllowed {
                ref at, ref url, ..
            } => write!(
                f,
                "{at}: {url:?} matches no pattern of \"allowedHttpHookUrls\", so this hook \
                 never runs; add a pattern for it (\"*\" is any run of characters)"
            ),
            ConfigWarningKind::HttpUrlNeverAllowed { ref at, ref url } => write!(
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
            ConfigWarningKind::TypeNotOnEvent {
                ref at,
                dialect,
                ref kind,
                ref event,
            } => write!(
                f,
                "{at}: {dialect} runs no handler of type {kind:?} at {event}, so this one \
                 never runs; use a \"command\" handler there"
            ),
            _ => unreachable!("Display::fmt sends {self:?} elsewhere"),
        }
    }

    /// A matcher or rule that is ignored, invalid or never tested.
    fn fmt_matcher(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigWarningKind::RuleOnNonToolEvent {
                ref at,
                key,
                tool_events,
            } => write!(
                f,
                "{at}: {key:?} is only tested on tool events ({tool_events}), so this handler \
                 never runs"
            ),
            ConfigWarningKind::IgnoredMatcher {
                ref at,
                ref event,
                ref matcher,
            } => write!(
                f,
                "{at}: matcher \"{}\" is ignored: {event} has no matcher, so the group's hooks \
                 run every time",
                crate::pattern::display_pattern(matcher)
            ),
            ConfigWarningKind::InvalidMatcher {
                ref at,
                ref matcher,
                ref error,
            } => write!(
                f,
                "{at}: matcher \"{}\" is not a valid regex ({error}), so this hook never runs",
                crate::pattern::display_pattern(matcher)
            ),
            ConfigWarningKind::MatcherTooBig {
                ref at,
                ref matcher,
                effect,
            } => write!(
                f,
                "{at}: matcher \"{}\" is not compiled, {effect}: {}",
                crate::pattern::display_pattern(matcher),
                crate::pattern::TOO_BIG
            ),
            ConfigWarningKind::IgnoredEntryMatcher {
                ref at,
                ref event,
                ref matcher,
            } => write!(
                f,
                "{at}: matcher \"{}\" is ignored: {event} has nothing to match, so this hook \
                 runs every time",
                crate::pattern::display_pattern(matcher)
            ),
            _ => unreachable!("Display::fmt sends {self:?} elsewhere"),
        }
    }

    /// A command that fails at every run, or fails open where closed was meant.
    fn fmt_failing_command(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigWarningKind::MissingProgram {
                ref hook,
                ref event,
                ref program,
                why,
                blocks,
            } => {
                let then = if blocks {
                    "its dialect reads that failure as a block, so this hook refuses every \
                     call it sees"
                } else {
                    "this guard fails at every run and lets the action through unless it \
                     fails closed"
                };
                write!(
                    f,
                    "{event} hook {hook}: {program:?} is {why}, so {then}; fix the path or the \
                     execute bit (chmod +x)"
                )
            }
            ConfigWarningKind::IgnoredFailClosedKey {
                ref at,
                ref key,
                dialect,
                instead,
            } => write!(
                f,
                "{at}: {key:?} is not a {dialect} key and is ignored, so this handler fails \
                 open; write {instead} to make a failure block"
            ),
            ConfigWarningKind::ShellNotFound { ref at, ref shell } => write!(
                f,
                "{at}: {shell:?} is not on PATH, so this handler fails to start at every run \
                 and lets the action through unless it fails closed; install it or drop \
                 \"shell\""
            ),
            ConfigWarningKind::EvaluatedTwice {
                ref at,
                ref reference,
                ref evaluator,
            } => write!(
                f,
                "{at}: the command hands {reference} to `{evaluator}`, which reads it as code \
                 a second time, so a directory or value whose name holds `$(…)`, `;` or a \
                 quote would run as a command there; pass it as an argument instead \
                 (sh -c '\"$1\"/x.sh' sh \"{reference}\") and keep it out of the text \
                 `{evaluator}` reads"
            ),
            _ => unreachable!("Display::fmt sends {self:?} elsewhere"),
        }
    }

    /// A timeout most likely written in the wrong unit.
    fn fmt_timeout(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigWarningKind::LongTimeout {
                ref at,
                dialect,
                seconds,
            } => write!(
                f,
                "{at}: \"timeout\": {seconds} is {seconds} seconds; {dialect} timeouts are \
                 in seconds, not milliseconds (write {} for {} seconds)",
                seconds / 1000,
                seconds / 1000
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
            _ => unreachable!("Display::fmt sends {self:?} elsewhere"),
        }
    }

    /// Something about the file as a whole: its scope, its folder, a key written twice.
    fn fmt_file(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
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
            ConfigWarningKind::SwitchRefused {
                key,
                ref hook,
                hook_scope,
                file_scope,
            } => {
                write!(
                    f,
                    "{key} cannot switch off {hook}, a {hook_scope} hook: a {file_scope} file \
                     never turns off a hook trusted more than it, so {hook} still runs"
                )?;
                if file_scope == crate::Scope::Project {
                    f.write_str(
                        " (to give the project's files their host's own rule, trust the \
                         project: --trust-project, Discovery::with_project_trusted)",
                    )?;
                }
                Ok(())
            }
            ConfigWarningKind::ManagedOnlyIgnored { key, scope } => write!(
                f,
                "{key} counts only in a managed file, and this is a {scope} file: every hook \
                 still runs (an administrator sets it in the machine-wide file)"
            ),
            ConfigWarningKind::UnreadFolder {
                format,
                format_read: false,
            } => write!(
                f,
                "a folder for the {format} format, which this discovery does not read, so \
                 nothing in it is read; add the format to the discovery (.format) or hand \
                 the folder to the format it belongs to"
            ),
            ConfigWarningKind::UnreadFolder {
                format,
                format_read: true,
            } => write!(
                f,
                "the {format} format reads no extra folder, so nothing in this one is read \
                 (Claude Code's takes a plugin's root, the Cursor family's a workspace)"
            ),
            _ => unreachable!("Display::fmt sends {self:?} elsewhere"),
        }
    }
}

/// The hint after a misspelt name, when a known one is close to it.
fn did_you_mean(f: &mut fmt::Formatter<'_>, suggestion: Option<&str>) -> fmt::Result {
    match suggestion {
        Some(known) => write!(f, "; did you mean {known:?}?"),
        None => Ok(()),
    }
}

fn spelled(n: u64) -> Option<&'static str> {
    const WORDS: [&str; 10] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    WORDS.get(usize::try_from(n).ok()?.checked_sub(1)?).copied()
}
