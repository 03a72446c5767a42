//! Fuzzes the Gemini CLI decoder: any event, exit code, stdout and stderr.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run gemini_decode -- -dict=fuzz/decode.dict -max_total_time=600`
//!
//! Besides "no panic", it checks the rules of every answer: a failure carries
//! nothing else; a block has a non-blank reason; `ask` only on `BeforeTool`;
//! context only where the event takes it; text that is no JSON object decides
//! by the exit code (0: a message, 1: a warning, another: a block with the
//! text as its reason, where the event takes a decision); no text with an
//! exit other than 0, a signal and a timeout are failures.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::gemini::{decode, GeminiAnswer, GeminiDecision, GeminiEvent};
use tower_hooks::process::Termination;

fn check(event: GeminiEvent, answer: &GeminiAnswer) {
    if let Some(error) = &answer.error {
        assert!(!error.is_empty());
        let bare = GeminiAnswer::failed(error.clone());
        assert_eq!(answer, &bare);
        return;
    }
    if answer.decision == GeminiDecision::Block {
        assert!(!answer.reason.trim().is_empty());
    }
    if answer.decision == GeminiDecision::Ask {
        assert_eq!(event, GeminiEvent::BeforeTool);
    }
    if answer.context.is_some() {
        assert!(matches!(
            event,
            GeminiEvent::BeforeAgent | GeminiEvent::AfterTool | GeminiEvent::SessionStart
        ));
    }
}

fn is_object(text: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => true,
        Ok(serde_json::Value::String(inner)) => matches!(
            serde_json::from_str::<serde_json::Value>(&inner),
            Ok(serde_json::Value::Object(_))
        ),
        _ => false,
    }
}

fuzz_target!(|input: (u8, Option<i32>, &[u8], &[u8])| {
    let (which, code, stdout, stderr) = input;
    let event = GeminiEvent::ALL[usize::from(which) % GeminiEvent::ALL.len()];
    let termination = match code {
        Some(code) => Termination::Exited(code),
        None => Termination::Signaled(9),
    };
    let answer = decode(event, termination, stdout, stderr, None);
    check(event, &answer);

    let Some(code) = code else {
        assert!(answer.error.is_some());
        return;
    };
    let out = String::from_utf8_lossy(stdout);
    let err = String::from_utf8_lossy(stderr);
    let text = match out.trim() {
        "" => err.trim().to_owned(),
        text => text.to_owned(),
    };
    if is_object(&text) {
        assert!(answer.error.is_none());
        return;
    }
    let takes_decision = !matches!(
        event,
        GeminiEvent::SessionStart
            | GeminiEvent::SessionEnd
            | GeminiEvent::PreCompress
            | GeminiEvent::Notification
            | GeminiEvent::BeforeToolSelection
    );
    match (text.is_empty(), code) {
        (true, 0) => assert_eq!(answer, GeminiAnswer::default()),
        (true, _) => assert!(answer.error.is_some()),
        (false, 0) => assert_eq!(answer.user_messages, [text]),
        (false, 1) => assert_eq!(answer.user_messages, [format!("Warning: {text}")]),
        (false, _) => {
            assert_eq!(answer.reason, text);
            assert_eq!(answer.decision == GeminiDecision::Block, takes_decision);
            assert_eq!(answer.ignored_block, !takes_decision);
        }
    }
});
