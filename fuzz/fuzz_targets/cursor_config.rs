//! Fuzzes the Cursor (and OpenHuman) `hooks.json` parser: any text.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run cursor_config fuzz/corpus/cursor_config fuzz/seeds/cursor_config -- -dict=fuzz/cursor.dict -max_total_time=600`
//!
//! Besides "no panic", it checks that what loads is usable: each entry's key
//! means its event, indexes count 0, 1, 2, … through each key's list, a
//! command hook has a non-blank command without NUL, a positive timeout, a
//! `loop_limit` that is a limit (`0` is stored as none), an omitted matcher
//! that matches everything; a file of another `version` loads nothing, with
//! one warning; the text parses alike compact and pretty-printed; and an error
//! has a message.

#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::cursor::config::{parse, CursorFile};
use tower_hooks::dialect::cursor::{CursorEvent, CursorMatcher};

fn check(file: &CursorFile) {
    let mut next: HashMap<&str, usize> = HashMap::new();
    for entry in &file.entries {
        assert_eq!(CursorEvent::from_loose(&entry.written), Some(entry.event));
        let index = next.entry(entry.written.as_str()).or_default();
        assert_eq!(entry.index, *index, "{entry:?}");
        *index += 1;
        if entry.kind == "command" {
            assert!(!entry.command.trim().is_empty());
        }
        assert!(!entry.command.contains('\0'));
        assert!(!entry.timeout.is_zero(), "{entry:?}");
        assert_ne!(entry.loop_limit, Some(0));
        if entry.matcher.is_none() {
            assert!(matches!(entry.pattern, CursorMatcher::Any));
        }
    }
    let other_version = file
        .warnings
        .iter()
        .any(|w| w.to_string().starts_with("\"version\" is"));
    if other_version {
        assert!(file.entries.is_empty());
        assert_eq!(file.warnings.len(), 1);
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse(text) {
        Ok(file) => {
            check(&file);
            // The same JSON laid out another way loads the same.
            let value: serde_json::Value =
                serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
                    .expect("what loads is JSON");
            for other in [
                serde_json::to_string(&value).unwrap(),
                serde_json::to_string_pretty(&value).unwrap(),
            ] {
                let again = parse(&other).expect("loads again");
                assert_eq!(format!("{again:?}"), format!("{file:?}"));
            }
        }
        Err(err) => assert!(!err.to_string().is_empty()),
    }
});
