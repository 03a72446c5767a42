//! Fuzzes the Claude Code settings parser: any text, as a settings file and as
//! a plugin's `hooks/hooks.json`.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run claude_settings -- -dict=fuzz/claude.dict -max_total_time=600`
//!
//! Besides "no panic", it checks that a failure is a `ConfigError` naming the
//! file, and that what loads is usable: a positive timeout, a command on every
//! command handler (without a NUL), indexes counted 0, 1, 2, … through each
//! event's groups, the point the event table gives the event, a match-all
//! pattern where a Claude Code event has no matcher, the file as each
//! handler's source, warnings that start with the file, a dedup that never
//! takes a plugin's handler as a copy or an original, and for `http`
//! handlers a URL the `url` crate reads, with a scheme and a host, which the
//! settings' allowlist judges without panicking: a URL it allows has no user
//! information or backslash, the client's writing of it is allowed too, and
//! a query or fragment never stands in for the path.

#![no_main]

use std::collections::HashMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tower_hooks::dialect::claude::config::{duplicates, parse, Context, HooksFile, HttpGates};
use tower_hooks::dialect::claude::matcher;
use tower_hooks::Pattern;

const SETTINGS: &str = "/fuzz/proj/.claude/settings.json";
const PLUGIN: &str = "/fuzz/plug/hooks/hooks.json";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for source in [SETTINGS, PLUGIN] {
        let path = Path::new(source);
        let ctx = Context::for_file("/fuzz/proj", path);
        match parse(text, path, &ctx) {
            Ok(file) => {
                assert_eq!(file.path, path);
                assert_eq!(file.plugin_root.is_some(), source == PLUGIN);
                if file.disabled {
                    assert!(file.handlers.is_empty());
                }
                let mut next: HashMap<&str, usize> = HashMap::new();
                for handler in &file.handlers {
                    assert_eq!(handler.source, path);
                    assert_eq!(handler.is_plugin(), source == PLUGIN);
                    assert!(!handler.timeout.is_zero());
                    assert_eq!(handler.neutral_event, matcher::neutral_event(&handler.event));
                    let expected = next.entry(handler.event.as_str()).or_default();
                    assert_eq!(handler.index, *expected, "{}", handler.describe());
                    *expected += 1;
                    if matcher::is_claude_event(&handler.event)
                        && !matcher::has_subject(&handler.event)
                    {
                        assert!(matches!(handler.pattern, Pattern::Any));
                    }
                    if handler.kind == "command" {
                        let command = handler.command.as_deref().expect("a command");
                        assert!(!command.trim().is_empty());
                        assert!(!command.contains('\0'));
                    }
                    for arg in handler.args.iter().flatten() {
                        assert!(!arg.contains('\0'));
                    }
                    if handler.kind == "http" {
                        check_http_url(&file, handler.url.as_deref().expect("a url"));
                    }
                }
                for warning in &file.warnings {
                    assert!(warning.to_string().starts_with(&format!("{source}: ")));
                }
                for (handler, original) in file.handlers.iter().zip(duplicates(&file.handlers)) {
                    if let Some(original) = original {
                        assert!(!handler.is_plugin() && !original.is_plugin());
                        assert_eq!(original.event, handler.event);
                        assert!(original.index < handler.index);
                    }
                }
            }
            Err(err) => {
                let shown = err.to_string();
                assert!(shown.starts_with(&format!("{source}: ")), "{shown}");
                assert_eq!(err.path(), path);
            }
        }
    }
});

/// The URL of an `http` handler that loaded, and what the settings' allowlist
/// makes of it.
fn check_http_url(file: &HooksFile, text: &str) {
    let url = url::Url::parse(text).expect("a URL the client reads");
    assert!(matches!(url.scheme(), "http" | "https"), "{text}");
    assert!(url.host_str().is_some_and(|h| !h.is_empty()), "{text}");
    let gates = HttpGates::of([file]);
    let Some(patterns) = gates.url_patterns() else {
        assert!(gates.allows_url(text));
        return;
    };
    if gates.allows_url(text) {
        // Requested where its text says.
        assert!(url.username().is_empty() && url.password().is_none(), "{text}");
        assert!(!text.contains('\\'), "{text}");
        // The list judges the URL that is requested: the client's own
        // writing of it is allowed as well.
        assert!(gates.allows_url(url.as_str()), "{text} as {url}");
    }
    // Without a pattern that says something of a query or fragment, neither
    // ever stands in for the path: the URL with its path hidden behind a `?`
    // or a `#` is allowed only where the URL without them is.
    if patterns.iter().any(|p| p.contains(['?', '#'])) {
        return;
    }
    let mut bare = url.clone();
    bare.set_query(None);
    bare.set_fragment(None);
    let bare_allowed = gates.allows_url(bare.as_str());
    let mut root = bare.clone();
    root.set_path("/");
    for hidden in [
        text.to_owned(),
        format!("{root}?{}", url.path()),
        format!("{root}#{}", url.path()),
        format!("{bare}?{}", url.path()),
    ] {
        if gates.allows_url(&hidden) {
            let hidden_bare = url::Url::parse(&hidden).map(|mut u| {
                u.set_query(None);
                u.set_fragment(None);
                u
            });
            let hidden_bare = hidden_bare.expect("an allowed URL parses");
            assert!(
                gates.allows_url(hidden_bare.as_str()),
                "{hidden} is allowed and {hidden_bare} is not (bare {bare}: {bare_allowed})"
            );
        }
    }
}
