//! Why a command hook gave no answer.

use std::io;

/// Why a command hook failed to produce an answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The process could not be started or driven.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// It exited with a status other than 0 or 2 (reported only for fail-closed
    /// hooks), with the start of what it wrote to stderr: bash's own message for
    /// a missing script (127), a missing interpreter (126 or 127, by bash
    /// version) or a script that is not executable (126).
    #[error("exited with status {code}{}", stderr_suffix(.stderr))]
    Status {
        /// The exit status.
        code: i32,
        /// The start of its stderr, trimmed (empty when it wrote nothing).
        stderr: String,
    },
    /// A signal ended it (reported only for fail-closed hooks).
    #[error("killed by signal {0}")]
    Signal(i32),
    /// Its answer, the last non-empty line of stdout, is longer than the tail
    /// the runner keeps, so it cannot be read: an error rather than an allow, so
    /// that a block or a redaction too long to read is never silently dropped.
    #[error("its answer (the last line of stdout) is longer than the {kept} bytes kept")]
    AnswerTooLong {
        /// How many bytes of stdout were kept.
        kept: usize,
    },
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}
