//! Fuzzes the Codex loader and decoder: any text as a `hooks.json` and as a
//! `config.toml`, and any exit code, stdout and stderr at every Codex event.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run codex -- -max_total_time=600`
//!
//! Besides "no panic", it checks the decoder's rules: a failed run carries
//! nothing else; exit 2 blocks with the trimmed stderr or fails; any other
//! non-zero exit or a signal fails; a block always has a reason; on exit 0 a
//! JSON object decodes the same compact and pretty-printed. A file that
//! loads has handlers with a command (or a type that never runs) and a
//! timeout of at least one second.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::codex::{
    decode, parse_json, parse_toml, CodexAnswer, CodexDecision, CodexEvent,
};

fuzz_target!(|input: (bool, Option<i32>, u8, &[u8], &[u8])| {
    let (as_file, code, which, stdout, stderr) = input;
    if as_file {
        let text = String::from_utf8_lossy(stdout);
        for file in [parse_json(&text), parse_toml(&text)].into_iter().flatten() {
            for handler in &file.handlers {
                assert!(handler.timeout.as_secs() >= 1);
                assert!(handler.kind != "command" || !handler.command.trim().is_empty());
            }
        }
        return;
    }
    let event = CodexEvent::ALL[usize::from(which) % CodexEvent::ALL.len()];
    let answer = decode(event, code, stdout, stderr);
    if let Some(error) = &answer.error {
        assert!(!error.is_empty());
        assert_eq!(answer, CodexAnswer::failed(error.clone()));
    }
    if let CodexDecision::Block(reason) = &answer.decision {
        assert!(!reason.trim().is_empty());
        assert!(event.can_block());
    }
    match code {
        Some(0) => {
            if let Ok(value @ serde_json::Value::Object(_)) =
                serde_json::from_slice::<serde_json::Value>(stdout.trim_ascii())
            {
                let compact = serde_json::to_vec(&value).unwrap();
                let pretty = serde_json::to_vec_pretty(&value).unwrap();
                let a = decode(event, Some(0), &compact, b"");
                assert_eq!(a, decode(event, Some(0), &pretty, b""));
            }
        }
        Some(2) => {
            let reason = String::from_utf8_lossy(stderr).trim().to_owned();
            if reason.is_empty() || !event.can_block() {
                assert!(answer.error.is_some());
            } else {
                assert_eq!(answer.decision, CodexDecision::Block(reason));
            }
        }
        _ => assert!(answer.error.is_some()),
    }
});
