//! How a hook failed to answer, worded once for every dialect.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use crate::outcome::last_nonempty_line;
use crate::outcome::{Notes, Verdict};
use crate::process::Finished;

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

pub(crate) use crate::profile::AnswerForm;

/// What makes a hook's stdout none of its dialect's answers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unreadable {
    /// More than the kept bytes were printed, and the answer was cut.
    TooLong(usize),
    /// A NUL byte.
    Nul,
    /// It starts as JSON and does not parse.
    Broken,
    /// JSON that is not an object (`null`, `12`, `true`, a list).
    NotAnObject,
    /// Text, then a JSON answer on a line of its own: a login shell's
    /// greeting, or a log line, before the answer.
    TextBefore,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreadable::TooLong(kept) => write!(
                f,
                "printed more than the {kept} bytes of stdout kept for an answer; \
                 the answer was not read"
            ),
            Unreadable::Nul => f.write_str("stdout holds a NUL byte: it is no answer"),
            Unreadable::Broken => f.write_str("stdout starts as JSON and does not parse"),
            Unreadable::NotAnObject => f.write_str("stdout is JSON but not an object"),
            Unreadable::TextBefore => f.write_str(
                "text came before the JSON answer on stdout (a login shell's greeting, \
                 or a log line), so the answer was not read; print only the JSON object, \
                 and logs to stderr",
            ),
        }
    }
}

/// What is wrong with `finished`'s stdout as an answer of `form`, if anything.
/// A rewrite was read from a whole JSON object: only a cut can be wrong with it.
fn unreadable(form: AnswerForm, finished: &Finished, rewrite: bool) -> Option<Unreadable> {
    let stdout = finished.stdout.as_slice();
    let whole = stdout.trim_ascii();
    let last = last_line(stdout);
    let cut = match form {
        AnswerForm::Own => return None,
        AnswerForm::Object => finished.stdout_truncated,
        AnswerForm::LastLine => answer_is_cut(finished),
        AnswerForm::ObjectOrLastLine => {
            answer_is_cut(finished) || (finished.stdout_truncated && !is_object(last))
        }
    };
    if cut {
        return Some(Unreadable::TooLong(stdout.len()));
    }
    if rewrite {
        return None;
    }
    if stdout.contains(&0) {
        return Some(Unreadable::Nul);
    }
    let answer = match form {
        AnswerForm::LastLine => last,
        AnswerForm::ObjectOrLastLine if is_object(last) => return None,
        _ => whole,
    };
    let json = || serde_json::from_slice::<serde_json::Value>(answer);
    match answer.first() {
        Some(b'{' | b'[') => {
            return match json() {
                Ok(serde_json::Value::Object(_)) => None,
                Ok(_) => Some(Unreadable::NotAnObject),
                Err(_) => Some(Unreadable::Broken),
            }
        }
        Some(b'n' | b't' | b'f' | b'-' | b'0'..=b'9') if json().is_ok() => {
            return Some(Unreadable::NotAnObject)
        }
        _ => {}
    }
    (form == AnswerForm::Object && is_object(last) && last.len() < whole.len())
        .then_some(Unreadable::TextBefore)
}

/// Whether `line` is one JSON object.
fn is_object(line: &[u8]) -> bool {
    line.first() == Some(&b'{')
        && matches!(
            serde_json::from_slice::<serde_json::Value>(line),
            Ok(serde_json::Value::Object(_))
        )
}

/// The last non-empty line of `bytes`, trimmed.
fn last_line(bytes: &[u8]) -> &[u8] {
    last_nonempty_line(bytes).map_or(&[], <[u8]>::trim_ascii)
}

/// The checks every dialect shares, after its own reading of a run
/// (DIALECTS.md "Round 4", failing closed without gaps). A block or an ask
/// stands. Otherwise, an answer cut by the stdout bound is a failure that
/// names the bound (blocking when the hook fails closed), never "no
/// opinion"; any other stdout that is none of the dialect's answers blocks
/// when the hook fails closed, and is a warning on the hook's record when it
/// does not.
pub(crate) fn review(
    form: AnswerForm,
    finished: &Finished,
    fail_closed: bool,
    verdict: Verdict,
    mut notes: Notes,
) -> (Verdict, Notes) {
    if matches!(
        verdict,
        Verdict::Block { .. } | Verdict::Ask { .. } | Verdict::FailedOpen { .. }
    ) {
        return (verdict, notes);
    }
    let rewrite = matches!(verdict, Verdict::Transform(_));
    match unreadable(form, finished, rewrite) {
        None => (verdict, notes),
        Some(problem @ Unreadable::TooLong(_)) => (
            Verdict::failed(problem.to_string(), fail_closed),
            Notes::default(),
        ),
        Some(problem) if fail_closed => {
            (Verdict::failed(problem.to_string(), true), Notes::default())
        }
        Some(problem) => {
            notes.warnings.push(problem.to_string());
            (verdict, notes)
        }
    }
}

/// Whether the kept tail of stdout lost the start of its last non-empty line
/// (or holds no such line at all, so the answer was in what was dropped).
pub(crate) fn answer_is_cut(finished: &Finished) -> bool {
    if !finished.stdout_truncated {
        return false;
    }
    match last_nonempty_line(&finished.stdout) {
        // The line is complete when a newline before it was kept.
        Some(line) => line.as_ptr() == finished.stdout.as_ptr(),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Termination;

    fn finished(stdout: &[u8], truncated: bool) -> Finished {
        Finished {
            termination: Termination::Exited(0),
            stdout: stdout.to_vec(),
            stdout_truncated: truncated,
            stderr: Vec::new(),
        }
    }

    #[test]
    fn each_form_reads_what_is_no_answer() {
        use AnswerForm::{LastLine, Object, ObjectOrLastLine, Own};
        let greeting = b"Welcome!\n{\"decision\":\"block\"}\n";
        for (form, stdout, truncated, found) in [
            (Own, &b"\0{"[..], true, None),
            (Object, b"", false, None),
            (Object, b"checking...\n", false, None),
            (Object, b"{\"a\":1}", false, None),
            (Object, b"{\n  \"a\": 1\n}\n", false, None),
            (Object, b"{\"a\":1}", true, Some(Unreadable::TooLong(7))),
            (Object, b"{\"decision\":", false, Some(Unreadable::Broken)),
            (Object, b"null", false, Some(Unreadable::NotAnObject)),
            (Object, b"12\n", false, Some(Unreadable::NotAnObject)),
            (Object, b"[1]", false, Some(Unreadable::NotAnObject)),
            (Object, b"{}\0", false, Some(Unreadable::Nul)),
            (Object, greeting, false, Some(Unreadable::TextBefore)),
            // Cursor reads a JSON last line after log lines; a kept tail
            // whose last line is a whole object is its answer.
            (ObjectOrLastLine, greeting, false, None),
            (ObjectOrLastLine, b"x\n{\"a\":1}\n", true, None),
            (
                ObjectOrLastLine,
                b"{\"a\":",
                true,
                Some(Unreadable::TooLong(5)),
            ),
            (
                ObjectOrLastLine,
                b"{\"a\":",
                false,
                Some(Unreadable::Broken),
            ),
            // react-agent-mini: the last line decides.
            (LastLine, greeting, false, None),
            (LastLine, b"log\n{\"a\":", false, Some(Unreadable::Broken)),
            (LastLine, b"{\"a\":1}", true, Some(Unreadable::TooLong(7))),
        ] {
            let text = String::from_utf8_lossy(stdout);
            assert_eq!(
                unreadable(form, &finished(stdout, truncated), false),
                found,
                "{form:?} {text:?} truncated={truncated}"
            );
        }
    }

    #[test]
    fn a_block_stands_and_a_cut_answer_is_a_failure_that_names_the_limit() {
        let cut = finished(b"{\"a\":1}", true);
        let (verdict, _) = review(
            AnswerForm::Object,
            &cut,
            false,
            Verdict::block("no"),
            Notes::default(),
        );
        assert!(matches!(verdict, Verdict::Block { .. }));
        let (verdict, _) = review(
            AnswerForm::Object,
            &cut,
            false,
            Verdict::Allow,
            Notes::default(),
        );
        match verdict {
            Verdict::FailedOpen { error } => assert!(error.contains("7 bytes"), "{error}"),
            other => panic!("{other:?}"),
        }
        let (verdict, _) = review(
            AnswerForm::Object,
            &cut,
            true,
            Verdict::Allow,
            Notes::default(),
        );
        assert!(matches!(verdict, Verdict::Block { .. }));
        // Without the switch, text before the answer is a warning only.
        let noisy = finished(b"hi\n{\"a\":1}", false);
        let (verdict, notes) = review(
            AnswerForm::Object,
            &noisy,
            false,
            Verdict::Allow,
            Notes::default(),
        );
        assert_eq!(verdict, Verdict::Allow);
        assert_eq!(notes.warnings.len(), 1);
    }
}
