//! Fuzzes the protocol decoder: any exit code, any stdout and stderr bytes.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run decode -- -max_total_time=600`
//!
//! Besides "no panic", it checks the spec's rules on every input:
//! exit 2 blocks with stderr (or `blocked by hook`) whatever stdout says;
//! otherwise the verdict depends only on the last non-empty stdout line.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::nanopi::{decode, last_nonempty_line, stderr_reason};
use tower_hooks::{BlockCause, Verdict};

fuzz_target!(|input: (Option<i32>, &[u8], &[u8])| {
    let (code, stdout, stderr) = input;
    let verdict = decode(code, stdout, stderr);

    if code == Some(2) {
        let reason = stderr_reason(stderr);
        assert!(!reason.is_empty());
        assert!(!reason.ends_with('\n'));
        assert_eq!(verdict, Verdict::block(reason));
        return;
    }

    // Only the last non-empty stdout line counts: the same line alone, with no
    // stderr and any other non-2 exit code, decodes the same.
    let line = last_nonempty_line(stdout).unwrap_or(b"");
    let other_code = if code == Some(0) { None } else { Some(0) };
    assert_eq!(verdict, decode(other_code, line, b""));
    let mut padded = b"log line\n\n".to_vec();
    padded.extend_from_slice(line);
    padded.extend_from_slice(b"\n  \n");
    assert_eq!(verdict, decode(code, &padded, stderr));

    match &verdict {
        Verdict::Block { reason, cause, .. } => {
            assert_eq!(*cause, BlockCause::Hook);
            assert!(!reason.is_empty());
            let answer: serde_json::Value = serde_json::from_slice(line).expect("a block is JSON");
            assert_eq!(answer["decision"], "block");
        }
        Verdict::Transform(_) => {
            let answer: serde_json::Value =
                serde_json::from_slice(line).expect("a transform is JSON");
            assert_ne!(answer["decision"], "block");
        }
        Verdict::Allow => {}
        other => panic!("decode answered {other:?}"),
    }
});
