//! Fuzzes the Gemini CLI settings parser: any text, comments included.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run gemini_config fuzz/corpus/gemini_config fuzz/seeds/gemini_config -- -dict=fuzz/gemini.dict -max_total_time=600`
//!
//! Besides "no panic", it checks that what loads is usable: a hook has a
//! non-blank command without NUL, a timeout of at least a millisecond, a
//! matcher that is trimmed and neither empty nor `*` when it has one, and its
//! place names its event; the text loads alike with a comment before it, and
//! compact or pretty-printed when it is plain JSON; an error has a message.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::gemini::config::{parse, GeminiFile};

fn check(file: &GeminiFile) {
    for entry in &file.entries {
        assert!(!entry.command.trim().is_empty());
        assert!(!entry.command.contains('\0'));
        assert!(entry.timeout.as_millis() >= 1, "{entry:?}");
        if let Some(matcher) = &entry.matcher {
            assert_eq!(matcher.trim(), matcher);
            assert!(!matcher.is_empty() && matcher != "*");
        }
        assert!(entry.at().starts_with(&format!("hooks.{}[", entry.event.name())));
        assert!(entry.key().ends_with(&entry.command));
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse(text) {
        Ok(file) => {
            check(&file);
            if !text.starts_with('\u{feff}') {
                let commented = format!("// a comment\n/* and another */{text}");
                let again = parse(&commented).expect("a comment changes nothing");
                // Warnings name lines, which the comment moved: count them.
                let gist = |f: &GeminiFile| {
                    format!("{:?}", (&f.entries, f.enabled, &f.disabled, f.warnings.len()))
                };
                assert_eq!(gist(&again), gist(&file));
            }
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
                for other in [
                    serde_json::to_string(&value).unwrap(),
                    serde_json::to_string_pretty(&value).unwrap(),
                ] {
                    let again = parse(&other).expect("loads again");
                    assert_eq!(format!("{:?}", again.entries), format!("{:?}", file.entries));
                }
            }
        }
        Err(err) => assert!(!err.to_string().is_empty()),
    }
});
