//! Fuzzes the config loader: any text, as the contents of one config file.
//!
//! Run with: `RUSTC_BOOTSTRAP=1 cargo fuzz run load_config -- -dict=fuzz/config.dict -max_total_time=600`
//!
//! Besides "no panic", it checks that a failure is a `ConfigError` that names
//! the file, and that what loads is usable: a positive timeout, a compiled
//! matcher, the file as each hook's source.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tower_hooks::config::Config;
use tower_hooks::Pattern;

const SOURCE: &str = "/fuzz/.nanopi/config.toml";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::from_str_with_source(text, SOURCE) {
        Ok(config) => {
            for hook in config.hooks() {
                assert_eq!(hook.source(), SOURCE);
                assert!(!hook.timeout().is_zero());
                if let Some(matcher) = hook.matcher() {
                    assert!(Pattern::new(matcher).is_ok());
                }
                if hook.kind() == "command" {
                    assert!(hook.command_line().is_some());
                }
            }
            for warning in config.warnings() {
                assert!(warning.to_string().starts_with(SOURCE));
            }
        }
        Err(err) => {
            let shown = err.to_string();
            assert!(shown.starts_with(&format!("{SOURCE}: ")), "{shown}");
            assert_eq!(err.path(), std::path::Path::new(SOURCE));
        }
    }
});
