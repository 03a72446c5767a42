//! How a hook failed to answer, worded once for every dialect.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

/// Why a hook ended without an answer. Its `Display` is the `error` of the
/// record: `exited with status 1: <first stderr line>`, `killed by a signal`,
/// `timed out after 2 s`, `could not start: <why>`: Claude Code's texts, which
/// the other dialects' failures use too.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The hook exited with a status that is neither 0 nor 2.
    Exited {
        /// The exit status.
        code: i32,
        /// The first non-blank line of its stderr, shortened; empty when none.
        stderr_head: String,
    },
    /// The hook was ended by a signal.
    Signaled {
        /// The first non-blank line of its stderr, shortened; empty when none.
        stderr_head: String,
    },
    /// The hook ran past its timeout.
    TimedOut(Duration),
    /// The hook could not be started.
    CouldNotStart(String),
}

/// The longest stderr head a [`Failure`] quotes, in characters.
const STDERR_HEAD_CHARS: usize = 200;

impl Failure {
    /// The failure of a hook that ended with `code` (`None`: a signal) and
    /// printed `stderr`.
    pub fn exited(code: Option<i32>, stderr: &[u8]) -> Self {
        let stderr_head = stderr_head(stderr);
        match code {
            Some(code) => Failure::Exited { code, stderr_head },
            None => Failure::Signaled { stderr_head },
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, head) = match self {
            Failure::Exited { code, stderr_head } => (
                Cow::Owned(format!("exited with status {code}")),
                stderr_head,
            ),
            Failure::Signaled { stderr_head } => (Cow::Borrowed("killed by a signal"), stderr_head),
            Failure::TimedOut(timeout) => {
                let ms = timeout.as_millis();
                return if ms % 1000 == 0 && ms > 0 {
                    write!(f, "timed out after {} s", ms / 1000)
                } else {
                    write!(f, "timed out after {ms} ms")
                };
            }
            Failure::CouldNotStart(why) => return write!(f, "could not start: {why}"),
        };
        if head.is_empty() {
            f.write_str(&what)
        } else {
            write!(f, "{what}: {head}")
        }
    }
}

/// The first non-blank stderr line, trimmed and cut to [`STDERR_HEAD_CHARS`].
fn stderr_head(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    match line.char_indices().nth(STDERR_HEAD_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}
