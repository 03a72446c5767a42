//! nanopi's wire protocol, as pure functions: what a hook is given and how its answer is read.
//!
//! A hook gets one JSON line on stdin and a few environment variables; it answers
//! with its exit code, stdout and stderr. Nothing here does I/O.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower_hooks::dialect::nanopi::{decode, stdin_line};
//! use tower_hooks::{HookRequest, Verdict};
//!
//! let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"})).with_cwd("/p");
//! assert_eq!(
//!     stdin_line(&req, "/p"),
//!     b"{\"event\":\"tool_execution_start\",\"tool_name\":\"bash\",\"arguments\":{\"command\":\"ls\"},\"cwd\":\"/p\"}\n"
//! );
//! assert_eq!(decode(Some(2), b"", b"no\n"), Verdict::block("no"));
//! assert_eq!(decode(Some(1), b"", b"oops"), Verdict::Allow);
//! ```

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::host::EnvNames;
pub use crate::outcome::last_nonempty_line;
use crate::outcome::{Verdict, DEFAULT_BLOCK_REASON};
use crate::request::HookRequest;

#[derive(Serialize)]
struct Line<'a> {
    event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    arguments: &'a Value,
    cwd: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
}

/// The line written to a hook's stdin: one JSON object and a newline.
///
/// `cwd` is the session's working directory (the request's, or the process's when
/// the request has none).
pub fn stdin_line(req: &HookRequest, cwd: &str) -> Vec<u8> {
    let line = Line {
        event: req.event().name(),
        tool_name: req.tool_name(),
        tool_call_id: req.tool_call_id(),
        arguments: req.arguments(),
        cwd,
        session_id: req.session_id(),
    };
    let mut out = Vec::with_capacity(256);
    // Serializing plain strings and a `Value` into a Vec cannot fail.
    serde_json::to_writer(&mut out, &line).expect("a JSON value always serializes");
    out.push(b'\n');
    out
}

/// The variables a hook gets on top of the inherited environment, in a fixed
/// order: event, cwd, then session id, tool name and tool call id where they apply.
pub fn env_vars<'a>(req: &'a HookRequest, names: &'a EnvNames, cwd: &'a str) -> EnvVars<'a> {
    let event = req.event();
    let vars = [
        Some((names.event.as_str(), event.camel_name())),
        Some((names.cwd.as_str(), cwd)),
        req.session_id().map(|id| (names.session_id.as_str(), id)),
        (!event.is_session_event())
            .then(|| (names.tool_name.as_str(), req.tool_name().unwrap_or(""))),
        req.tool_call_id()
            .map(|id| (names.tool_call_id.as_str(), id)),
    ];
    EnvVars { vars, next: 0 }
}

/// The iterator [`env_vars`] returns: `(name, value)` pairs, no allocation.
#[derive(Debug, Clone)]
pub struct EnvVars<'a> {
    vars: [Option<(&'a str, &'a str)>; 5],
    next: usize,
}

impl<'a> Iterator for EnvVars<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        while self.next < self.vars.len() {
            let i = self.next;
            self.next += 1;
            if let Some(pair) = self.vars[i] {
                return Some(pair);
            }
        }
        None
    }
}

/// Reads a hook's answer.
///
/// * exit code 2: a block; the reason is stderr without its trailing newline, or
///   `blocked by hook` when stderr is empty;
/// * otherwise the last non-empty stdout line, when it is a JSON object:
///   `"decision":"block"` blocks with its `reason` (and wins over `updated_input`);
///   an object `updated_input` (alias `hookSpecificOutput`) transforms;
/// * anything else allows.
///
/// `code` is `None` when the hook was ended by a signal.
pub fn decode(code: Option<i32>, stdout: &[u8], stderr: &[u8]) -> Verdict {
    if code == Some(2) {
        return Verdict::block(stderr_reason(stderr));
    }
    let Some(line) = last_nonempty_line(stdout) else {
        return Verdict::Allow;
    };
    let Ok(Value::Object(mut answer)) = serde_json::from_slice::<Value>(line) else {
        return Verdict::Allow;
    };
    if answer.get("decision").and_then(Value::as_str) == Some("block") {
        let reason = match answer.remove("reason") {
            Some(Value::String(s)) if !s.trim().is_empty() => s,
            None | Some(Value::Null) | Some(Value::String(_)) => DEFAULT_BLOCK_REASON.to_owned(),
            Some(other) => other.to_string(),
        };
        return Verdict::block(reason);
    }
    let updated = match answer.remove("updated_input") {
        Some(value) => Some(value),
        None => answer.remove("hookSpecificOutput"),
    };
    match updated {
        Some(Value::Object(obj)) => Verdict::Transform(obj),
        _ => Verdict::Allow,
    }
}

/// The reason of an exit-2 block: stderr, lossily decoded, without trailing newlines.
pub fn stderr_reason(stderr: &[u8]) -> String {
    let text: Cow<'_, str> = String::from_utf8_lossy(stderr);
    let trimmed = text.trim_end_matches(['\n', '\r']);
    if trimmed.trim().is_empty() {
        DEFAULT_BLOCK_REASON.to_owned()
    } else {
        trimmed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::host::Host;
    use crate::request::{CompactionReason, StartReason};
    use serde_json::json;

    fn line_of(req: &HookRequest) -> Value {
        let raw = stdin_line(req, "/work");
        assert_eq!(raw.last(), Some(&b'\n'));
        assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
        serde_json::from_slice(&raw).unwrap()
    }

    #[test]
    fn stdin_line_carries_every_field() {
        let req = HookRequest::tool_execution_start("bash", json!({"command": "rm -rf /"}))
            .with_tool_call_id("call_abc")
            .with_session_id("019");
        assert_eq!(
            line_of(&req),
            json!({"event": "tool_execution_start", "tool_name": "bash", "tool_call_id": "call_abc",
                   "arguments": {"command": "rm -rf /"}, "cwd": "/work", "session_id": "019"})
        );
    }

    #[test]
    fn stdin_line_omits_absent_fields() {
        let v = line_of(&HookRequest::turn_start(1, 0));
        let obj = v.as_object().unwrap();
        assert!(!obj.contains_key("tool_name"));
        assert!(!obj.contains_key("tool_call_id"));
        assert!(!obj.contains_key("session_id"));
        assert_eq!(obj["cwd"], "/work");
    }

    #[test]
    fn stdin_line_escapes_newlines_in_values() {
        let req = HookRequest::input("two\nlines");
        let raw = stdin_line(&req, "/w");
        assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    fn env_of(req: &HookRequest) -> Vec<(String, String)> {
        let host = Host::default();
        env_vars(req, host.env_names(), "/w")
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn env_on_a_tool_event() {
        let req = HookRequest::tool_execution_start("bash", json!({}))
            .with_tool_call_id("c1")
            .with_session_id("s1");
        assert_eq!(
            env_of(&req),
            pairs(&[
                ("NANOPI_EVENT", "ToolExecutionStart"),
                ("NANOPI_CWD", "/w"),
                ("NANOPI_SESSION_ID", "s1"),
                ("NANOPI_TOOL_NAME", "bash"),
                ("NANOPI_TOOL_CALL_ID", "c1"),
            ])
        );
    }

    #[test]
    fn env_on_a_turn_event_has_an_empty_tool_name() {
        let req = HookRequest::turn_end(1, 0, false).with_session_id("s1");
        assert_eq!(
            env_of(&req),
            pairs(&[
                ("NANOPI_EVENT", "TurnEnd"),
                ("NANOPI_CWD", "/w"),
                ("NANOPI_SESSION_ID", "s1"),
                ("NANOPI_TOOL_NAME", ""),
            ])
        );
    }

    #[test]
    fn env_on_session_events_has_no_tool_name() {
        for req in [
            HookRequest::session_start(StartReason::Startup),
            HookRequest::session_compact(CompactionReason::Manual),
        ] {
            let env = env_of(&req);
            assert!(env.iter().all(|(k, _)| k != "NANOPI_TOOL_NAME"), "{env:?}");
            assert!(env.iter().all(|(k, _)| k != "NANOPI_SESSION_ID"), "{env:?}");
        }
    }

    #[test]
    fn env_event_is_camel_case_for_every_event() {
        for event in Event::NANOPI {
            let req = HookRequest::new(event, json!({}));
            assert_eq!(env_of(&req)[0].1, event.camel_name());
        }
    }

    #[test]
    fn exit_2_blocks_with_stderr() {
        assert_eq!(
            decode(Some(2), b"", b"refusing: touches production\n"),
            Verdict::block("refusing: touches production")
        );
        assert_eq!(decode(Some(2), b"", b""), Verdict::block("blocked by hook"));
        assert_eq!(
            decode(Some(2), b"", b"\n"),
            Verdict::block("blocked by hook")
        );
        assert_eq!(decode(Some(2), b"", b"a\nb\r\n"), Verdict::block("a\nb"));
    }

    #[test]
    fn exit_2_wins_over_stdout() {
        assert_eq!(
            decode(Some(2), br#"{"updated_input":{"a":1}}"#, b"no"),
            Verdict::block("no")
        );
    }

    #[test]
    fn last_nonempty_stdout_line_decides() {
        let out = b"checking...\n{\"decision\":\"block\",\"reason\":\"why\"}\n\n  \n";
        assert_eq!(decode(Some(0), out, b""), Verdict::block("why"));
        let out = b"{\"decision\":\"block\",\"reason\":\"why\"}\nnot json\n";
        assert_eq!(decode(Some(0), out, b""), Verdict::Allow);
    }

    #[test]
    fn block_wins_over_updated_input() {
        let out = br#"{"decision":"block","reason":"no","updated_input":{"command":"ls"}}"#;
        assert_eq!(decode(Some(0), out, b""), Verdict::block("no"));
    }

    #[test]
    fn json_block_without_reason_gets_the_default() {
        assert_eq!(
            decode(Some(0), br#"{"decision":"block"}"#, b""),
            Verdict::block("blocked by hook")
        );
    }

    #[test]
    fn updated_input_transforms_with_or_without_allow() {
        let want = Verdict::Transform(json!({"command": "ls -la"}).as_object().unwrap().clone());
        assert_eq!(
            decode(
                Some(0),
                br#"{"decision":"allow","updated_input":{"command":"ls -la"}}"#,
                b""
            ),
            want
        );
        assert_eq!(
            decode(Some(0), br#"{"updated_input":{"command":"ls -la"}}"#, b""),
            want
        );
        assert_eq!(
            decode(
                Some(0),
                br#"{"hookSpecificOutput":{"command":"ls -la"}}"#,
                b""
            ),
            want
        );
    }

    #[test]
    fn non_object_updated_input_is_ignored() {
        for out in [
            &br#"{"updated_input":"ls"}"#[..],
            br#"{"updated_input":null}"#,
            br#"{"updated_input":[1]}"#,
            br#"{"hookSpecificOutput":3}"#,
        ] {
            assert_eq!(decode(Some(0), out, b""), Verdict::Allow);
        }
    }

    #[test]
    fn everything_else_allows() {
        assert_eq!(decode(Some(0), b"", b""), Verdict::Allow);
        assert_eq!(decode(Some(1), b"", b"nope"), Verdict::Allow);
        assert_eq!(decode(Some(0), b"{not json", b""), Verdict::Allow);
        assert_eq!(decode(Some(0), b"[1,2]", b""), Verdict::Allow);
        assert_eq!(decode(Some(0), b"\xff\xfe", b""), Verdict::Allow);
        assert_eq!(decode(None, b"", b""), Verdict::Allow);
        assert_eq!(
            decode(Some(0), br#"{"decision":"deny"}"#, b""),
            Verdict::Allow
        );
    }

    #[test]
    fn exit_1_with_a_json_block_still_blocks() {
        // Only exit 2 is special; any other exit reads stdout.
        assert_eq!(
            decode(Some(1), br#"{"decision":"block","reason":"r"}"#, b""),
            Verdict::block("r")
        );
    }
}
