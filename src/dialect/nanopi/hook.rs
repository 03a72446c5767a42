//! nanopi as a hook of the stack: the dialect of every hook made by hand.

use std::any::Any;

use super::wire::{decode, env_vars, stdin_line};
use crate::dialect::failure::answer_is_cut;
use crate::dialect::{env_value, DialectHook, Encoded, Ended, JobParts};
use crate::outcome::{Notes, Termination, Verdict};
use crate::process::persistent::PROTOCOL_VAR;
use crate::process::{CommandError, Job, Program};
use crate::request::HookRequest;
use crate::spec::{Dialect, HookSpec};
use crate::BoxError;

/// nanopi's rules: the matcher against the event's subject, `bash -c`, one
/// JSON line on stdin, the host's `*_EVENT`… variables, exit 2 or a JSON last
/// line; a run that gives no answer is an error for the fail-open layer to
/// report (nanopi's report line) or, for a fail-closed hook, to block on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NanopiHook;

impl DialectHook for NanopiHook {
    fn dialect(&self) -> Dialect {
        Dialect::Nanopi
    }

    fn runs_for(&self, spec: &HookSpec, req: &HookRequest) -> bool {
        spec.pattern().matches(req.matcher_subject().as_str())
    }

    fn encode(&self, req: &HookRequest, cwd: &str) -> Encoded {
        Encoded {
            stdin: stdin_line(req, cwd),
            ..Encoded::default()
        }
    }

    /// A model or HTTP hook of nanopi's is given the event's arguments.
    fn input(&self, req: &HookRequest, _cwd: &str) -> Vec<u8> {
        req.arguments().to_string().into_bytes()
    }

    fn job(&self, _spec: Option<&HookSpec>, leaf: &JobParts<'_>, req: &HookRequest) -> Job {
        let names = leaf.host.env_names();
        // The caller's variables first, less any protocol name: those are exact.
        // One allocation: the caller's variables plus the five of the protocol.
        let mut env: Vec<(String, String)> = Vec::with_capacity(leaf.env.len() + 5);
        env.extend(
            leaf.env
                .iter()
                .filter(|(k, _)| !names.iter().any(|name| name == k))
                .map(|(k, v)| (k.clone(), env_value(v))),
        );
        let extra = env.len();
        env.extend(env_vars(req, names, leaf.cwd).map(|(k, v)| (k.to_owned(), env_value(v))));
        // A one-shot run is never told it speaks the persistent protocol,
        // whatever the host's environment holds.
        let env_remove = names
            .iter()
            .filter(|name| !env[extra..].iter().any(|(k, _)| k == name))
            .map(str::to_owned)
            .chain([PROTOCOL_VAR.0.to_owned()])
            .collect();
        // The protocol's variables all belong to the event.
        let event_env = env[extra..].iter().map(|(k, _)| k.clone()).collect();
        let mut job = Job::new(
            Program::Bash,
            leaf.command.clone(),
            stdin_line(req, leaf.cwd),
        );
        job.env = env;
        job.env_remove = env_remove;
        job.event_env = event_env;
        job.current_dir = leaf.current_dir.cloned();
        job.deadline = req.deadline();
        job
    }

    fn finish(
        &self,
        spec: Option<&HookSpec>,
        req: &HookRequest,
        ended: Ended<'_>,
    ) -> Result<(Verdict, Notes), BoxError> {
        let finished = match ended {
            Ok(finished) => finished,
            Err(error) => return Err(CommandError::Io(error).into()),
        };
        let fail_closed = spec.is_some_and(HookSpec::fail_closed);
        let verdict = match finished.termination {
            Termination::TimedOut => {
                let timeout = req.deadline().map(|d| d.timeout).unwrap_or_default();
                Verdict::timed_out(timeout)
            }
            Termination::Exited(code) => {
                if fail_closed && code != 0 && code != 2 {
                    let stderr = stderr_excerpt(&finished.stderr);
                    return Err(CommandError::Status { code, stderr }.into());
                }
                // Exit 2 answers with stderr; stdout does not matter.
                if code != 2 && answer_is_cut(finished) {
                    let kept = finished.stdout.len();
                    return Err(CommandError::AnswerTooLong { kept }.into());
                }
                decode(Some(code), &finished.stdout, &finished.stderr)
            }
            Termination::Signaled(signal) => {
                if fail_closed {
                    return Err(CommandError::Signal(signal).into());
                }
                if answer_is_cut(finished) {
                    let kept = finished.stdout.len();
                    return Err(CommandError::AnswerTooLong { kept }.into());
                }
                decode(None, &finished.stdout, &finished.stderr)
            }
        };
        Ok((verdict, Notes::default()))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// How much of stderr a fail-closed reason quotes.
const STDERR_EXCERPT: usize = 300;

/// The start of a failed hook's stderr, for its fail-closed reason: lossily
/// decoded, on one line, trimmed, at most [`STDERR_EXCERPT`] bytes (then `…`).
fn stderr_excerpt(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.len() <= STDERR_EXCERPT {
        return text;
    }
    let mut end = STDERR_EXCERPT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_excerpt_is_one_bounded_line() {
        assert_eq!(stderr_excerpt(b"a\n  b\r\n\n"), "a b");
        assert_eq!(stderr_excerpt(b"\xff oops"), "\u{fffd} oops");
        let long = "\u{e9}".repeat(400);
        let excerpt = stderr_excerpt(long.as_bytes());
        assert!(excerpt.ends_with('\u{2026}'));
        assert!(excerpt.len() <= STDERR_EXCERPT + '\u{2026}'.len_utf8());
    }
}
