use std::error::Error;

use super::*;

fn short(ms: u64) -> String {
    ConfigWarningKind::ShortTimeout { ms }.to_string()
}

#[test]
fn short_timeout_spells_small_second_counts() {
    assert_eq!(
        short(5),
        "timeout = 5 is 5 milliseconds, not seconds; write 5000 for five seconds"
    );
    assert_eq!(
        short(1),
        "timeout = 1 is 1 millisecond, not seconds; write 1000 for one second"
    );
    assert_eq!(
        short(30),
        "timeout = 30 is 30 milliseconds, not seconds; write 30000 for 30 seconds"
    );
}

#[test]
fn warning_names_file_event_and_entry() {
    let warning = ConfigWarning::new(
        "/h/.nanopi/config.toml",
        Event::TurnStart,
        0,
        ConfigWarningKind::ShortTimeout { ms: 5 },
    );
    assert_eq!(
        warning.to_string(),
        "/h/.nanopi/config.toml: [[hooks.turn_start]] entry 0: timeout = 5 is 5 \
             milliseconds, not seconds; write 5000 for five seconds"
    );
}

#[test]
fn retired_event_message_is_nanopis_byte_for_byte() {
    let kind = ConfigErrorKind::RetiredEvent {
        old: "pre_tool_use".into(),
        new: Event::ToolExecutionStart,
    };
    assert_eq!(
        kind.to_string(),
        "unknown hook event \"pre_tool_use\" \u{2014} renamed to \"tool_execution_start\" \
             in v0.12 (see docs/v0.12-events.md \u{a7}2.1)"
    );
}

#[test]
fn error_display_puts_the_path_first() {
    let err = ConfigError::new(
        "/p/.nanopi/config.toml",
        ConfigErrorKind::ZeroTimeout {
            event: Event::Input,
            index: 2,
        },
    );
    assert_eq!(
        err.to_string(),
        "/p/.nanopi/config.toml: timeout = 0 in [[hooks.input]] entry 2: a hook needs at \
             least 1 ms; the unit is milliseconds (default 5000)"
    );
}

#[test]
fn sizes_read_in_mib_when_whole() {
    assert_eq!(size(1 << 20), "1 MiB");
    assert_eq!(size(1000), "1000 bytes");
}

#[test]
fn io_error_is_the_source() {
    let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
    let err = ConfigError::new("/x", ConfigErrorKind::Io(io));
    assert_eq!(err.to_string(), "/x: could not read the file: denied");
    let source = err.source().expect("a source");
    assert!(source.downcast_ref::<std::io::Error>().is_some());
    assert!(!err.is_not_found());
}
