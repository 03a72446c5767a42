//! Fuzzes the Claude Code decoder: any exit code, any stdout and stderr bytes,
//! at any of the events this host fires.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run claude_decode -- -max_total_time=600`
//!
//! Besides "no panic", it checks the rules of every answer: exit 2 blocks with
//! stderr (or `blocked by hook`) whatever stdout says; any other non-zero exit or
//! a signal is an error that allows and adds nothing; on exit 0, a JSON object
//! decodes the same compact and pretty-printed; a failed answer carries nothing
//! else; a block always has a reason and is honored where the event says so.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::claude::{block_meaning, decode, exit2_reason, ClaudeDecision};

const EVENTS: [&str; 16] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "SubagentStop",
    "SubagentStart",
    "PermissionRequest",
    "PostToolBatch",
    "PreCompact",
    "PostCompact",
    "Notification",
    "StopFailure",
    "InstructionsLoaded",
];

fuzz_target!(|input: (Option<i32>, u8, &[u8], &[u8])| {
    let (code, which, stdout, stderr) = input;
    let event = EVENTS[usize::from(which) % EVENTS.len()];
    let answer = decode(code, stdout, stderr, event);

    if let Some(error) = &answer.error {
        assert!(!error.is_empty());
        assert_eq!(answer.decision, ClaudeDecision::Allow);
        assert!(answer.context.is_empty() && answer.user_messages.is_empty());
        assert!(answer.stop.is_none() && answer.follow_up.is_none());
        assert!(answer.updated_input.is_none() && answer.updated_tool_output.is_none());
    }
    if answer.decision == ClaudeDecision::Block {
        assert!(!answer.reason.as_deref().unwrap_or("").is_empty());
        if event != "PermissionRequest" {
            assert_eq!(answer.honored, block_meaning(event).is_honored());
        }
    } else {
        assert!(answer.honored);
    }

    match code {
        Some(2) => {
            assert_eq!(answer.decision, ClaudeDecision::Block);
            assert_eq!(answer.reason, Some(exit2_reason(stderr)));
        }
        Some(0) => {
            // A JSON object decodes the same however it is laid out.
            if let Ok(value @ serde_json::Value::Object(_)) =
                serde_json::from_slice::<serde_json::Value>(stdout.trim_ascii())
            {
                let compact = serde_json::to_vec(&value).unwrap();
                let pretty = serde_json::to_vec_pretty(&value).unwrap();
                let a = decode(Some(0), &compact, b"", event);
                assert_eq!(a, decode(Some(0), &pretty, b"", event));
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
