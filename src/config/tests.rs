use std::error::Error;
use std::fs;

use super::*;
use crate::pattern::Pattern;

const HOME: Option<&str> = Some("/home/u");

fn load_text(text: &str) -> Result<Config, ConfigError> {
    parse(text, Path::new("/p/.nanopi/config.toml"), HOME)
}

fn error_of(text: &str) -> ConfigError {
    load_text(text).expect_err("the config should not load")
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn turn_start(command: &str) -> String {
    format!("[[hooks.turn_start]]\ncommand = \"{command}\"\n")
}

#[test]
fn retired_keys_name_their_replacement_and_the_file() {
    let cases = [
        ("pre_tool_use", "tool_execution_start"),
        ("post_tool_use", "tool_execution_end"),
        ("user_prompt_submit", "input"),
        ("session_end", "session_shutdown"),
    ];
    for (old, new) in cases {
        let err = error_of(&format!("[[hooks.{old}]]\ncommand = \"true\"\n"));
        assert_eq!(
            err.to_string(),
            format!(
                "/p/.nanopi/config.toml: unknown hook event \"{old}\" \u{2014} renamed to \
                     \"{new}\" in v0.12 (see docs/v0.12-events.md \u{a7}2.1)"
            )
        );
        assert!(matches!(
            err.kind(),
            ConfigErrorKind::RetiredEvent { old: o, new: n } if o == old && n.name() == new
        ));
    }
}

#[test]
fn retired_key_beside_valid_ones_is_still_an_error() {
    let text = format!(
        "{}[[hooks.session_end]]\ncommand = \"x\"\n",
        turn_start("a")
    );
    assert!(matches!(
        error_of(&text).kind(),
        ConfigErrorKind::RetiredEvent {
            new: Event::SessionShutdown,
            ..
        }
    ));
}

#[test]
fn retired_key_in_settings_toml_is_an_error_naming_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".nanopi/config.toml");
    let settings = dir.path().join(".nanopi/settings.toml");
    write(&config, &turn_start("ok"));
    write(&settings, "[hooks]\npre_tool_use = [{ command = \"x\" }]\n");

    let err = load_paths([&config, &settings], HOME).unwrap_err();
    assert_eq!(err.path(), settings);
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{}: ", settings.display())),
        "{message}"
    );
    assert!(
        message.contains(
            "unknown hook event \"pre_tool_use\" \u{2014} renamed to \"tool_execution_start\""
        ),
        "{message}"
    );
}

#[test]
fn typo_keeps_serdes_message_listing_every_event() {
    let err = error_of(&format!(
        "[other]\nx = 1\n{}",
        turn_start("x").replace("turn_start", "turn_startt")
    ));
    assert!(matches!(err.kind(), ConfigErrorKind::Parse(_)));
    let message = err.to_string();
    assert!(message.starts_with("/p/.nanopi/config.toml: "), "{message}");
    assert!(message.contains("line 3, column 9"), "{message}");
    assert!(
        message.contains("unknown field `turn_startt`, expected one of `session_start`"),
        "{message}"
    );
    for event in Event::NANOPI {
        assert!(
            message.contains(&format!("`{}`", event.name())),
            "{message}"
        );
    }
    assert!(!message.contains("renamed"), "{message}");
    assert!(!message.ends_with('\n'), "{message:?}");
}

#[test]
fn camel_case_key_is_an_unknown_field() {
    let message = error_of("[[hooks.ToolExecutionStart]]\ncommand = \"x\"\n").to_string();
    assert!(
        message.contains("unknown field `ToolExecutionStart`, expected one of"),
        "{message}"
    );
    assert!(!message.contains("renamed"), "{message}");
}

#[test]
fn unknown_key_inside_an_entry_is_an_error() {
    let err = error_of("[[hooks.turn_start]]\ncommand = \"x\"\ntimout = 300\n");
    let message = err.to_string();
    assert!(matches!(err.kind(), ConfigErrorKind::Parse(_)));
    assert!(message.contains("line 3, column 1"), "{message}");
    assert!(
        message.contains("unknown field `timout`, expected one of"),
        "{message}"
    );
    assert!(message.contains("`timeout`"), "{message}");
}

#[test]
fn wrongly_typed_value_is_a_parse_error_with_its_position() {
    let message = error_of("[[hooks.turn_start]]\ncommand = \"x\"\ntimeout = \"5s\"\n").to_string();
    assert!(message.contains("line 3, column 11"), "{message}");
    assert!(message.contains("invalid type: string \"5s\""), "{message}");
}

#[test]
fn broken_toml_reports_line_and_column() {
    let err = error_of("[[hooks.turn_start]]\ncommand = \"unterminated\n");
    assert!(matches!(err.kind(), ConfigErrorKind::Parse(_)));
    let message = err.to_string();
    assert!(
        message.starts_with("/p/.nanopi/config.toml: TOML parse error at line 2, column"),
        "{message}"
    );
    assert!(err
        .source()
        .unwrap()
        .downcast_ref::<toml::de::Error>()
        .is_some());
}

#[test]
fn invalid_regex_names_event_index_and_pattern() {
    let text = "[[hooks.tool_execution_start]]\nmatcher = \"^bash$\"\ncommand = \"true\"\n\n\
                    [[hooks.tool_execution_start]]\nmatcher = \"(unclosed\"\ncommand = \"true\"\n";
    let err = error_of(text);
    match err.kind() {
        ConfigErrorKind::InvalidMatcher {
            event,
            index,
            pattern,
            error,
        } => {
            assert_eq!(*event, Event::ToolExecutionStart);
            assert_eq!(*index, 1);
            assert_eq!(pattern, "(unclosed");
            assert_eq!(error.pattern(), "(unclosed");
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.starts_with(
            "/p/.nanopi/config.toml: invalid matcher \"(unclosed\" in \
                 [[hooks.tool_execution_start]] entry 1: "
        ),
        "{message}"
    );
    assert!(message.contains("unclosed group"), "{message}");
    assert!(err.source().is_some());
}

#[test]
fn the_first_bad_matcher_in_the_file_is_named() {
    // tool_execution_end comes after tool_execution_start in the event
    // table, but first in this file.
    let text = "[[hooks.tool_execution_end]]\nmatcher = \"(first\"\ncommand = \"x\"\n\n\
                    [[hooks.tool_execution_start]]\nmatcher = \"[second\"\ncommand = \"x\"\n";
    let err = error_of(text);
    match err.kind() {
        ConfigErrorKind::InvalidMatcher { event, pattern, .. } => {
            assert_eq!(*event, Event::ToolExecutionEnd);
            assert_eq!(pattern, "(first");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_first_bad_entry_in_the_file_is_named_whatever_its_problem() {
    let text = "[[hooks.turn_end]]\ncommand = \"x\"\ntimeout = 0\n\
                    [[hooks.session_start]]\nmatcher = \"*\"\n";
    assert!(matches!(
        error_of(text).kind(),
        ConfigErrorKind::ZeroTimeout {
            event: Event::TurnEnd,
            index: 0
        }
    ));
}

#[test]
fn warnings_come_in_file_order() {
    let text = "[[hooks.turn_end]]\ncommand = \"x\"\ntimeout = 7\n\
                    [[hooks.turn_start]]\ncommand = \"y\"\ntimeout = 8\n";
    let config = load_text(text).unwrap();
    let events: Vec<Event> = config.warnings().iter().filter_map(|w| w.event()).collect();
    assert_eq!(events, [Event::TurnEnd, Event::TurnStart]);
}

#[test]
fn a_long_bad_matcher_is_cut_in_the_message() {
    let pattern = format!("({}", "a".repeat(1 << 20));
    let text =
        format!("[[hooks.tool_execution_start]]\nmatcher = \"{pattern}\"\ncommand = \"x\"\n");
    let err = error_of(&text);
    let message = err.to_string();
    assert!(message.len() < 600, "{} bytes", message.len());
    assert!(
        message.contains(&format!(
            "invalid matcher \"({}\u{2026}\" in",
            "a".repeat(199)
        )),
        "{message}"
    );
    assert!(message.ends_with("error: unclosed group"), "{message}");
    // The error itself keeps the whole pattern.
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::InvalidMatcher { pattern: p, .. } if *p == pattern
    ));
}

#[test]
fn a_short_bad_matcher_keeps_the_regex_explanation() {
    let message = error_of("[[hooks.input]]\nmatcher = \"(x\"\ncommand = \"x\"\n").to_string();
    assert!(
        message.contains("invalid matcher \"(x\" in [[hooks.input]] entry 0: regex parse error:"),
        "{message}"
    );
}

#[test]
fn array_forms_are_rejected_not_read_by_position() {
    for (text, needle) in [
        (
            "hooks = [[{command = \"a\"}], [{command = \"b\"}], [], [], [], [], [], [], [], [], [], [{command = \"extra\"}]]\n",
            "`hooks` is an array, which would be read by position",
        ),
        (
            "[hooks]\nturn_start = [[\"^x$\", \"command\", \"./a.sh\", 3000, false, \"extra\"]]\n",
            "a hook entry is an array, which would be read by position",
        ),
    ] {
        let err = error_of(text);
        assert!(matches!(err.kind(), ConfigErrorKind::Parse(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.contains(needle), "{message}");
        assert!(message.contains("line 1") || message.contains("line 2"), "{message}");
    }
    // Inline tables are tables.
    let config =
        load_text("[hooks]\nturn_start = [{command = \"a\"}, {command = \"b\"}]\n").unwrap();
    assert_eq!(config.hooks().len(), 2);
}

#[test]
fn zero_timeout_is_an_error() {
    let err = error_of("[[hooks.turn_start]]\ncommand = \"x\"\ntimeout = 0\n");
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::ZeroTimeout {
            event: Event::TurnStart,
            index: 0
        }
    ));
    assert_eq!(
        err.to_string(),
        "/p/.nanopi/config.toml: timeout = 0 in [[hooks.turn_start]] entry 0: a hook needs \
             at least 1 ms; the unit is milliseconds (default 5000)"
    );
}

#[test]
fn nul_in_a_command_is_an_error_at_load() {
    let err = error_of("[[hooks.input]]\ncommand = \"echo a\\u0000b\"\n");
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::NulInCommand {
            event: Event::Input,
            index: 0
        }
    ));
    assert!(err.to_string().contains("NUL"), "{err}");
}

#[test]
fn command_hook_without_a_command_is_an_error() {
    for text in [
        "[[hooks.turn_end]]\nmatcher = \"*\"\n",
        "[[hooks.turn_end]]\ntype = \"command\"\n",
    ] {
        let err = error_of(text);
        assert!(matches!(
            err.kind(),
            ConfigErrorKind::MissingCommand {
                event: Event::TurnEnd,
                index: 0
            }
        ));
        let message = err.to_string();
        assert!(
            message.contains("missing command in [[hooks.turn_end]] entry 0"),
            "{message}"
        );
        assert!(message.contains("command = "), "{message}");
    }
}

#[test]
fn short_timeout_loads_with_a_warning() {
    let text = "[[hooks.turn_start]]\ncommand = \"x\"\ntimeout = 5\n\n\
                    [[hooks.turn_start]]\ncommand = \"y\"\ntimeout = 100\n";
    let config = load_text(text).unwrap();
    assert_eq!(config.hooks()[0].timeout(), Duration::from_millis(5));
    let [warning] = config.warnings() else {
        panic!("{:?}", config.warnings());
    };
    assert_eq!(warning.path(), Path::new("/p/.nanopi/config.toml"));
    assert_eq!(warning.event(), Some(Event::TurnStart));
    assert_eq!(warning.index(), Some(0));
    assert_eq!(*warning.kind(), ConfigWarningKind::ShortTimeout { ms: 5 });
    assert_eq!(
        warning.to_string(),
        "/p/.nanopi/config.toml: [[hooks.turn_start]] entry 0: timeout = 5 is 5 \
             milliseconds, not seconds; write 5000 for five seconds"
    );
}

#[test]
fn an_unknown_type_loads_with_a_warning_and_a_guess() {
    let text = "[[hooks.tool_execution_start]]\ntype = \"comand\"\ncommand = \"./guard.sh\"\n\n\
                    [[hooks.tool_execution_start]]\ntype = \"http\"\n\n\
                    [[hooks.tool_execution_start]]\ncommand = \"./ok.sh\"\n";
    let config = load_text(text).unwrap();
    // Loaded and listed as today, never run.
    assert_eq!(config.hooks().len(), 3);
    assert_eq!(config.hooks()[0].kind(), "comand");
    assert!(!config.hooks()[0].is_runnable());
    let warnings: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "/p/.nanopi/config.toml: [[hooks.tool_execution_start]] entry 0: type = \"comand\" \
                 is not a hook type (only \"command\" runs), so this hook never runs; did you \
                 mean \"command\"?",
            "/p/.nanopi/config.toml: [[hooks.tool_execution_start]] entry 1: type = \"http\" \
                 is not a hook type (only \"command\" runs), so this hook never runs",
        ]
    );
    assert_eq!(
        *config.warnings()[0].kind(),
        ConfigWarningKind::UnknownType {
            kind: "comand".into(),
            suggestion: Some("command")
        }
    );
}

#[test]
fn entry_defaults_follow_the_spec() {
    let config = load_text(&turn_start("echo hi")).unwrap();
    let [spec] = config.hooks() else {
        panic!("{config:?}")
    };
    assert_eq!(spec.event(), Event::TurnStart);
    assert_eq!(spec.source(), "/p/.nanopi/config.toml");
    assert_eq!(spec.index(), 0);
    assert_eq!(spec.matcher(), None);
    assert!(matches!(spec.pattern(), Pattern::Any));
    assert_eq!(spec.kind(), "command");
    assert!(spec.is_runnable());
    assert_eq!(spec.command_line(), Some("echo hi"));
    assert_eq!(spec.timeout(), Duration::from_millis(5000));
    assert!(!spec.fail_closed());
}

#[test]
fn every_key_of_an_entry_is_read() {
    let text = "[[hooks.tool_execution_start]]\nmatcher = \"*\"\ntype = \"command\"\n\
                    command = \"g\"\ntimeout = 3000\nfail_closed = true\n";
    let config = load_text(text).unwrap();
    let spec = &config.hooks()[0];
    assert_eq!(spec.matcher(), Some("*"));
    assert!(matches!(spec.pattern(), Pattern::Any));
    assert_eq!(spec.kind(), "command");
    assert_eq!(spec.timeout(), Duration::from_millis(3000));
    assert!(spec.fail_closed());
}

#[test]
fn non_command_type_is_kept_but_not_runnable() {
    let text = "[[hooks.tool_execution_start]]\ntype = \"http\"\ncommand = \"touch x\"\n\n\
                    [[hooks.tool_execution_start]]\ntype = \"wasm\"\n";
    let config = load_text(text).unwrap();
    let [http, wasm] = config.hooks() else {
        panic!("{config:?}")
    };
    assert_eq!(http.kind(), "http");
    assert!(!http.is_runnable());
    assert_eq!(http.command_line(), Some("touch x"));
    assert_eq!(wasm.kind(), "wasm");
    assert_eq!(wasm.index(), 1);
    assert_eq!(wasm.command_line(), None);
}

#[test]
fn other_top_level_tables_are_left_alone() {
    let text = format!(
        "model = \"x\"\n[provider]\nkey = 1\n[plugins.events]\nturn_startt = true\n{}",
        turn_start("a")
    );
    let config = load_text(&text).unwrap();
    assert_eq!(config.hooks().len(), 1);
}

#[test]
fn file_without_hooks_is_empty() {
    assert!(load_text("").unwrap().is_empty());
    assert!(load_text("[model]\nname = \"x\"\n").unwrap().is_empty());
    assert!(load_text("[hooks]\n").unwrap().is_empty());
}

#[test]
fn entries_keep_their_order_and_index_within_an_event() {
    let text = "[[hooks.turn_end]]\ncommand = \"e0\"\n[[hooks.turn_start]]\ncommand = \"s0\"\n\
                    [[hooks.turn_end]]\ncommand = \"e1\"\n[[hooks.turn_start]]\ncommand = \"s1\"\n";
    let config = load_text(text).unwrap();
    let seen: Vec<(Event, usize, &str)> = config
        .hooks()
        .iter()
        .map(|h| (h.event(), h.index(), h.command_line().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [
            (Event::TurnStart, 0, "s0"),
            (Event::TurnStart, 1, "s1"),
            (Event::TurnEnd, 0, "e0"),
            (Event::TurnEnd, 1, "e1"),
        ]
    );
}

#[test]
fn a_named_hook_is_labelled_by_its_name() {
    let text = "[[hooks.input]]\ncommand = \"./a.sh\"\nname = \"prompt-guard\"\n\
                    [[hooks.input]]\ncommand = \"./b.sh\"\n";
    let config = parse(
        text,
        Path::new("/home/u/.nanopi/config.toml"),
        Some("/home/u"),
    )
    .unwrap();
    let [named, unnamed] = config.hooks() else {
        panic!("two hooks");
    };
    assert_eq!(named.name(), Some("prompt-guard"));
    assert_eq!(named.label(), "prompt-guard");
    assert_eq!(unnamed.name(), None);
    // The home directory never shows in a label.
    assert_eq!(unnamed.label(), "~/.nanopi/config.toml:1");
    assert_eq!(unnamed.source(), "/home/u/.nanopi/config.toml");
}

#[test]
fn a_project_file_is_labelled_relative_to_the_project() {
    let cwd = std::env::current_dir().unwrap();
    let source = cwd.join(".nanopi").join("config.toml");
    let config = parse("[[hooks.input]]\ncommand = \"x\"\n", &source, None).unwrap();
    assert_eq!(config.hooks()[0].label(), ".nanopi/config.toml:0");
    let elsewhere = parse(
        "[[hooks.input]]\ncommand = \"x\"\n",
        Path::new("/etc/h.toml"),
        None,
    );
    assert_eq!(elsewhere.unwrap().hooks()[0].label(), "/etc/h.toml:0");
}

#[test]
fn commands_expand_the_home_directory() {
    let text = "[[hooks.input]]\ncommand = \"~/.nanopi/hooks/a.sh $HOME/b ${HOME}/c ./d\"\n";
    let config = load_text(text).unwrap();
    assert_eq!(
        config.hooks()[0].command_line(),
        Some("/home/u/.nanopi/hooks/a.sh /home/u/b /home/u/c ./d")
    );
    let unexpanded = parse(text, Path::new("c.toml"), None).unwrap();
    assert_eq!(
        unexpanded.hooks()[0].command_line(),
        Some("~/.nanopi/hooks/a.sh $HOME/b ${HOME}/c ./d")
    );
}

#[test]
fn four_files_accumulate_in_discovery_order() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let proj = dir.path().join("proj");
    let paths = default_paths(&Host::default(), Some(&home), &proj);
    for (path, name) in paths.iter().zip([
        "home-config",
        "proj-config",
        "home-settings",
        "proj-settings",
    ]) {
        write(path, &turn_start(name));
    }

    let config = load_paths(&paths, HOME).unwrap();
    let seen: Vec<(&str, &str)> = config
        .hooks()
        .iter()
        .map(|h| (h.command_line().unwrap(), h.source()))
        .collect();
    let want: Vec<(&str, String)> = [
        "home-config",
        "proj-config",
        "home-settings",
        "proj-settings",
    ]
    .into_iter()
    .zip(paths.iter().map(|p| p.display().to_string()))
    .collect();
    assert_eq!(seen.len(), 4);
    for ((command, source), (want_command, want_source)) in seen.iter().zip(&want) {
        assert_eq!(command, want_command);
        assert_eq!(source, want_source);
    }
    assert!(config.hooks().iter().all(|h| h.index() == 0));
}

#[test]
fn missing_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let present = dir.path().join("b.toml");
    write(&present, &turn_start("b"));
    let paths = [
        dir.path().join("a.toml"),
        present,
        dir.path().join("nope/c.toml"),
    ];

    let config = load_paths(&paths, HOME).unwrap();
    assert_eq!(config.hooks().len(), 1);
    assert!(load_paths([dir.path().join("none.toml")], HOME)
        .unwrap()
        .is_empty());
}

#[test]
fn a_named_file_that_is_missing_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.toml");
    let err = load_file(&path, HOME).unwrap_err();
    assert_eq!(err.path(), path);
    assert!(matches!(err.kind(), ConfigErrorKind::Io(_)));
    assert!(
        err.to_string().contains(": could not read the file: "),
        "{err}"
    );
}

#[test]
fn a_folder_in_a_files_place_is_an_error_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("config.toml");
    fs::create_dir(&folder).unwrap();
    let err = load_paths([&folder], HOME).unwrap_err();
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::NotAFile {
            what: "a directory"
        }
    ));
    assert_eq!(err.path(), folder);
    assert_eq!(
        err.to_string(),
        format!(
            "{}: refusing to read a directory: a configuration must be a regular file \
                 (remove it, or replace it with one)",
            folder.display()
        )
    );
}

#[test]
fn a_fifo_in_discovery_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("config.toml");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let err = load_paths([&fifo], HOME).unwrap_err();
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::NotAFile { what: "a FIFO" }
    ));
}

#[test]
fn a_symlink_to_dev_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("config.toml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let err = load_file(&link, HOME).unwrap_err();
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::NotAFile {
            what: "a character device"
        }
    ));
}

#[test]
fn a_file_over_one_mib_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mut text = turn_start("a");
    text.push_str(&"#".repeat(MAX_CONFIG_SIZE as usize - text.len()));
    write(&path, &text);
    assert_eq!(load_file(&path, HOME).unwrap().hooks().len(), 1);
    text.push('\n');
    write(&path, &text);
    let err = load_file(&path, HOME).unwrap_err();
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::TooLarge {
            limit: MAX_CONFIG_SIZE
        }
    ));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: refusing to read more than 1 MiB: a configuration is never this large \
                 (check what this file is)",
            path.display()
        )
    );
}

#[test]
fn invalid_utf8_names_the_byte_offset_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    fs::write(&path, b"[[hooks.turn_start]]\ncommand = \"a\xc3(\"\n").unwrap();
    let err = load_file(&path, HOME).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: not valid UTF-8 at byte 33 (line 2): a configuration must be UTF-8 text",
            path.display()
        )
    );
}

#[test]
fn one_file_reached_through_a_symlinked_home_loads_once() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    let home = dir.path().join("home");
    write(&proj.join(".nanopi/config.toml"), &turn_start("once"));
    std::os::unix::fs::symlink(&proj, &home).unwrap();
    let paths = default_paths(&Host::default(), Some(&home), &proj);
    assert_eq!(paths.len(), 4, "textually different paths");
    let config = load_paths(&paths, HOME).unwrap();
    assert_eq!(config.hooks().len(), 1, "{config:?}");
    // The first path it was reached by names it.
    assert_eq!(
        config.hooks()[0].source(),
        home.join(".nanopi/config.toml").display().to_string()
    );
}

#[test]
fn a_home_folder_linked_to_the_projects_loads_once() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    let home = dir.path().join("home");
    write(&proj.join(".nanopi/config.toml"), &turn_start("once"));
    fs::create_dir_all(&home).unwrap();
    std::os::unix::fs::symlink(proj.join(".nanopi"), home.join(".nanopi")).unwrap();
    let paths = default_paths(&Host::default(), Some(&home), &proj);
    assert_eq!(load_paths(&paths, HOME).unwrap().hooks().len(), 1);
}

#[test]
fn the_first_bad_file_stops_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    let bad = dir.path().join("bad.toml");
    write(&good, &turn_start("ok"));
    write(&bad, "[[hooks.turn_start]]\ncommand = \"x\"\ntimeout = 0\n");
    let err = load_paths([&good, &bad, &good], HOME).unwrap_err();
    assert_eq!(err.path(), bad);
}

#[test]
fn default_paths_interleave_home_and_project() {
    let paths = default_paths(
        &Host::default(),
        Some(Path::new("/home/u")),
        Path::new("/p"),
    );
    assert_eq!(
        paths,
        [
            "/home/u/.nanopi/config.toml",
            "/p/.nanopi/config.toml",
            "/home/u/.nanopi/settings.toml",
            "/p/.nanopi/settings.toml",
        ]
        .map(PathBuf::from)
    );
}

#[test]
fn default_paths_without_home_are_the_project_files() {
    let paths = default_paths(&Host::default(), None, Path::new("/p"));
    assert_eq!(
        paths,
        ["/p/.nanopi/config.toml", "/p/.nanopi/settings.toml"].map(PathBuf::from)
    );
}

#[test]
fn default_paths_use_the_hosts_folder_and_a_relative_cwd() {
    let paths = default_paths(&Host::new("myagent"), None, Path::new("."));
    assert_eq!(
        paths,
        ["./.myagent/config.toml", "./.myagent/settings.toml"].map(PathBuf::from)
    );
}

#[test]
fn default_paths_list_a_shared_folder_once() {
    let paths = default_paths(
        &Host::default(),
        Some(Path::new("/home/u")),
        Path::new("/home/u/"),
    );
    assert_eq!(
        paths,
        [
            "/home/u/.nanopi/config.toml",
            "/home/u/.nanopi/settings.toml"
        ]
        .map(PathBuf::from)
    );
}

#[test]
fn merge_appends_hooks_and_warnings_in_order() {
    let mut first = parse(&turn_start("a"), Path::new("a.toml"), None).unwrap();
    let second = parse(
        "[[hooks.turn_start]]\ncommand = \"b\"\ntimeout = 9\n",
        Path::new("b.toml"),
        None,
    )
    .unwrap();
    first.merge(second);
    let commands: Vec<_> = first
        .hooks()
        .iter()
        .map(|h| h.command_line().unwrap())
        .collect();
    assert_eq!(commands, ["a", "b"]);
    assert_eq!(first.warnings().len(), 1);
    assert_eq!(first.warnings()[0].path(), Path::new("b.toml"));
    assert_eq!(first.clone().into_hooks().len(), 2);
    assert!(Config::default().is_empty());
}
