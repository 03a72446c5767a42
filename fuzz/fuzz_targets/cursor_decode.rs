//! Fuzzes the Cursor (and OpenHuman) decoder: any exit code, any stdout and
//! stderr bytes.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run cursor_decode -- -dict=fuzz/decode.dict -max_total_time=600`
//!
//! Besides "no panic", it checks the rules of every answer: exit 2 denies with
//! stderr, else stdout, else `blocked by hook`, whatever stdout says; any other
//! non-zero exit or a signal is a failure that carries nothing else; on exit 0,
//! a JSON object decodes the same compact, pretty-printed and after log lines;
//! a deny always has a non-blank reason, and only a deny has one.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::cursor::{decode, CursorAnswer, CursorPermission};

fn check(answer: &CursorAnswer) {
    if let Some(error) = &answer.error {
        assert!(!error.is_empty());
        assert!(answer.permission.is_none() && !answer.stop);
        assert!(answer.user_message.is_none() && answer.agent_message.is_none());
        assert!(answer.updated_input.is_none() && answer.additional_context.is_none());
        assert!(answer.followup_message.is_none() && answer.env.is_none());
    }
    match answer.reason() {
        Some(reason) => {
            assert_eq!(answer.permission, Some(CursorPermission::Deny));
            assert!(!reason.trim().is_empty());
        }
        None => assert_ne!(answer.permission, Some(CursorPermission::Deny)),
    }
    if let Some(follow_up) = &answer.followup_message {
        assert!(!follow_up.trim().is_empty());
    }
}

fuzz_target!(|input: (Option<i32>, &[u8], &[u8])| {
    let (code, stdout, stderr) = input;
    let answer = decode(code, stdout, stderr);
    check(&answer);

    match code {
        Some(2) => {
            assert_eq!(answer.permission, Some(CursorPermission::Deny));
            assert!(answer.error.is_none());
            let expected = [stderr, stdout]
                .into_iter()
                .map(|b| String::from_utf8_lossy(b).trim().to_owned())
                .find(|t| !t.is_empty())
                .unwrap_or_else(|| "blocked by hook".to_owned());
            assert_eq!(answer.reason(), Some(expected));
        }
        Some(0) => {
            if let Some(error) = &answer.error {
                assert!(error.starts_with("stdout holds no JSON answer"), "{error}");
            }
            // A JSON object decodes the same however it is laid out, and
            // after log lines.
            if let Ok(value @ serde_json::Value::Object(_)) =
                serde_json::from_slice::<serde_json::Value>(stdout.trim_ascii())
            {
                let compact = serde_json::to_vec(&value).unwrap();
                let pretty = serde_json::to_vec_pretty(&value).unwrap();
                let mut logged = b"checking...\n3 files\n".to_vec();
                logged.extend_from_slice(&compact);
                logged.push(b'\n');
                let a = decode(Some(0), &compact, b"");
                assert!(a.error.is_none());
                assert_eq!(a, decode(Some(0), &pretty, b""));
                assert_eq!(a, decode(Some(0), &logged, b""));
                assert_eq!(a, answer);
            }
        }
        _ => {
            let error = answer.error.as_deref().unwrap_or("");
            assert!(
                error.starts_with("exited with status ") || error.starts_with("killed by a signal"),
                "{error}"
            );
        }
    }
});
