//! Where the stack's two report lines go.
//!
//! The specification has the agent say two things on stderr: that an advisory
//! event's block was ignored, and that a hook errored and failed open. The stack
//! hands each to a [`Report`]; the host decides what to do with it.
//!
//! * [`StderrReport`] writes the spec's lines byte for byte (the default);
//! * `()` drops them;
//! * any `Fn(&Notice<'_>)` closure receives them, e.g. to collect them in a test.
//!
//! # Example
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use tower_hooks::report::{Notice, Report};
//! use tower_hooks::Event;
//!
//! let lines = Arc::new(Mutex::new(Vec::new()));
//! let sink = lines.clone();
//! let report = move |notice: &Notice<'_>| sink.lock().unwrap().push(notice.line("nanopi"));
//! report.report(&Notice::AdvisoryBlock { event: Event::TurnStart, reason: "stop" });
//! assert_eq!(
//!     lines.lock().unwrap()[0],
//!     "nanopi: TurnStart hook asked to block; ignored (advisory event) [reason=stop]"
//! );
//! ```

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::sync::Arc;

use crate::event::Event;

/// Something the stack reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice<'a> {
    /// A hook blocked an event that does not enforce blocks; the block was dropped.
    AdvisoryBlock {
        /// The event.
        event: Event,
        /// The hook's reason.
        reason: &'a str,
    },
    /// A hook could not be run and the action was allowed.
    HookErrored {
        /// The tool name, or empty.
        tool: &'a str,
        /// The hook's matcher as written, or `*`.
        matcher: &'a str,
        /// What went wrong.
        error: &'a str,
    },
    /// A persistent hook crashed too often: for the life of its stack, each of
    /// its events now starts a process of its own, sent that one request
    /// (the hook still answers them; none is allowed without it).
    PersistentFallback {
        /// The hook's command.
        command: &'a str,
        /// Why: `it crashed 5 times within 60 s`.
        why: &'a str,
    },
    /// A hook that runs in the background was not started: the stack's
    /// background queue was full. The call went on without it.
    BackgroundDropped {
        /// The hook's matcher as written, or `*`.
        matcher: &'a str,
        /// How many background runs this stack has dropped so far.
        dropped: u64,
    },
}

impl Notice<'_> {
    /// The full line, prefixed with the host name (no trailing newline).
    pub fn line(&self, host: &str) -> String {
        format!("{host}: {self}")
    }
}

impl fmt::Display for Notice<'_> {
    /// The line without its `nanopi: ` prefix. Always one line: a line break in
    /// a field (a multi-line reason, say) becomes a space.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::AdvisoryBlock { event, reason } => write!(
                f,
                "{} hook asked to block; ignored (advisory event) [reason={}]",
                event.camel_name(),
                one_line(reason)
            ),
            Notice::HookErrored {
                tool,
                matcher,
                error,
            } => write!(
                f,
                "hook errored; failing open (allow) [tool={} matcher={} error={}]",
                one_line(tool),
                one_line(matcher),
                one_line(error)
            ),
            Notice::PersistentFallback { command, why } => write!(
                f,
                "persistent hook keeps crashing; each event starts it anew from now on [command={} why={}]",
                one_line(command),
                one_line(why)
            ),
            Notice::BackgroundDropped { matcher, dropped } => write!(
                f,
                "background hook dropped; queue full [matcher={} dropped={dropped}]",
                one_line(matcher)
            ),
        }
    }
}

/// `text` on one line: each line break (`\n`, `\r\n` or `\r`) becomes a space.
/// Borrows when there is none, as in nearly every report.
pub(crate) fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains(['\n', '\r']) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", " ").replace(['\r', '\n'], " "))
}

/// Receives the stack's notices. See the [module docs](self).
// No `'static` supertrait: with one, a future holding an `Arc<dyn Report>`
// cannot be proven `Send` inside an `async` block (a higher-ranked lifetime
// error), so `tokio::spawn(async move { stack.oneshot(req).await })` would not
// compile. Where a reporter is stored, the bound is `Report + 'static`.
pub trait Report: Send + Sync {
    /// Handles one notice.
    fn report(&self, notice: &Notice<'_>);
}

impl Report for () {
    fn report(&self, _notice: &Notice<'_>) {}
}

impl<F> Report for F
where
    F: Fn(&Notice<'_>) + Send + Sync + 'static,
{
    fn report(&self, notice: &Notice<'_>) {
        self(notice)
    }
}

impl<R: Report + ?Sized> Report for Arc<R> {
    fn report(&self, notice: &Notice<'_>) {
        (**self).report(notice)
    }
}

/// A reporter shared by every layer of a stack.
pub type SharedReport = Arc<dyn Report>;

/// Writes each notice to stderr as one line, prefixed with the host name.
#[derive(Debug, Clone)]
pub struct StderrReport {
    host: String,
}

impl StderrReport {
    /// Lines start with `host: `.
    pub fn new(host: impl Into<String>) -> Self {
        StderrReport { host: host.into() }
    }
}

impl Default for StderrReport {
    fn default() -> Self {
        StderrReport::new("nanopi")
    }
}

impl Report for StderrReport {
    fn report(&self, notice: &Notice<'_>) {
        let mut line = notice.line(&self.host);
        line.push('\n');
        // One write, so lines from concurrent hooks do not interleave; a closed
        // stderr is not the hook's problem.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_match_the_spec_byte_for_byte() {
        assert_eq!(
            Notice::AdvisoryBlock {
                event: Event::TurnStart,
                reason: "why"
            }
            .line("nanopi"),
            "nanopi: TurnStart hook asked to block; ignored (advisory event) [reason=why]"
        );
        assert_eq!(
            Notice::HookErrored {
                tool: "bash",
                matcher: "*",
                error: "boom"
            }
            .line("nanopi"),
            "nanopi: hook errored; failing open (allow) [tool=bash matcher=* error=boom]"
        );
    }

    #[test]
    fn line_breaks_in_any_field_become_spaces() {
        assert_eq!(
            Notice::AdvisoryBlock {
                event: Event::TurnEnd,
                reason: "first\nsecond\r\nthird\rfourth"
            }
            .line("nanopi"),
            "nanopi: TurnEnd hook asked to block; ignored (advisory event) \
             [reason=first second third fourth]"
        );
        assert_eq!(
            Notice::HookErrored {
                tool: "ba\nsh",
                matcher: "^a\nb$",
                error: "no\nsuch file"
            }
            .line("nanopi"),
            "nanopi: hook errored; failing open (allow) [tool=ba sh matcher=^a b$ error=no such file]"
        );
    }

    #[test]
    fn one_line_borrows_text_without_a_line_break() {
        assert!(matches!(
            one_line("plain reason"),
            Cow::Borrowed("plain reason")
        ));
        assert_eq!(one_line("a\r\n\nb"), "a  b");
    }
}
