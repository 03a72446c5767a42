use serde_json::{json, Value};

use super::*;
use crate::config::ConfigErrorKind;

const PATH: &str = "/p/.claude/settings.json";

fn ctx() -> Context {
    Context::new("/p")
}

/// Loads a file built with `json!`, whose objects list their keys sorted.
fn load_json(value: Value) -> HooksFile {
    load_text(&value.to_string())
}

/// Loads a file as written, its events in the order given.
fn load_text(text: &str) -> HooksFile {
    parse(text, Path::new(PATH), &ctx()).unwrap()
}

fn error_of(text: &str) -> String {
    parse(text, Path::new(PATH), &ctx())
        .unwrap_err()
        .to_string()
}

fn error_json(value: Value) -> String {
    error_of(&value.to_string())
}

fn cmd(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

fn warnings(file: &HooksFile) -> Vec<String> {
    file.warnings.iter().map(ToString::to_string).collect()
}

#[test]
fn handlers_carry_their_fields() {
    let file = load_json(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "command",
            "command": "./guard.sh",
            "timeout": 5,
            "async": true,
            "shell": "bash",
            "if": "Bash(rm *)",
            "statusMessage": "checking",
            "once": true,
            "persistent": true,
            "someFutureField": {"ignored": true}
        }]}]}}),
    );
    let [h] = &file.handlers[..] else {
        panic!("{:?}", file.handlers)
    };
    assert_eq!(h.source, Path::new(PATH));
    assert_eq!(h.event, "PreToolUse");
    assert_eq!(h.neutral_event, Some(Event::ToolExecutionStart));
    assert_eq!(h.matcher.as_deref(), Some("Bash"));
    assert!(h.pattern.matches("Bash"));
    assert!(!h.pattern.matches("Edit"));
    assert_eq!(h.kind, "command");
    assert_eq!(h.command.as_deref(), Some("./guard.sh"));
    assert_eq!(h.args, None);
    assert_eq!(h.shell.as_deref(), Some("bash"));
    assert_eq!(h.timeout, Duration::from_secs(5));
    assert!(h.is_async && h.once && h.persistent);
    assert_eq!(h.if_rule.as_ref().map(|r| r.as_str()), Some("Bash(rm *)"));
    assert_eq!(h.status_message.as_deref(), Some("checking"));
    assert!(h.is_runnable());
    assert!(!h.is_plugin());
    assert!(file.warnings.is_empty());
}

#[test]
fn other_top_level_keys_are_left_alone() {
    let file = load_json(json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(ls)"]},
        "env": {"A": 1},
        "hooks": {"Stop": [{"hooks": [cmd("true")]}]}
    }));
    assert_eq!(file.handlers.len(), 1);
    assert!(file.warnings.is_empty());
    // A file with no hooks at all loads empty.
    assert!(load_json(json!({"model": "opus"})).handlers.is_empty());
    assert!(load_json(json!({"hooks": null})).handlers.is_empty());
    assert!(load_json(json!({})).handlers.is_empty());
}

#[test]
fn the_index_counts_through_the_matcher_groups() {
    let file = load_text(
        r#"{"hooks": {
              "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"},
                                              {"type": "command", "command": "a.sh"}]},
                {"matcher": "Edit", "hooks": [{"type": "command", "command": "b.sh"}]}
              ],
              "PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]
            }}"#,
    );
    let got: Vec<(&str, usize, usize, usize)> = file
        .handlers
        .iter()
        .map(|h| (h.event.as_str(), h.index, h.group, h.position))
        .collect();
    assert_eq!(
        got,
        [
            ("PreToolUse", 0, 0, 0),
            ("PreToolUse", 1, 0, 1),
            ("PreToolUse", 2, 1, 0),
            ("PostToolUse", 0, 0, 0)
        ]
    );
    assert_eq!(
        file.handlers[2].describe(),
        "PreToolUse handler 2 (hooks.PreToolUse[1].hooks[0])"
    );
    assert_eq!(file.handlers[2].location(), format!("{PATH}:2"));
}

#[test]
fn a_plugin_file_counts_through_groups_and_substitutes_both_roots() {
    let path = Path::new("/t/plug/hooks/hooks.json");
    let text = r#"{"description": "a test plugin", "hooks": {
            "PreToolUse": [
              {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"},
                {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/a.sh"}]},
              {"matcher": "Edit", "hooks": [
                {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/hooks/b.sh"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#;
    let file = parse(text, path, &Context::for_file("/t/proj", path)).unwrap();
    let got: Vec<(&str, usize, Option<&str>)> = file
        .handlers
        .iter()
        .map(|h| (h.event.as_str(), h.index, h.command.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("PreToolUse", 0, Some("true")),
            ("PreToolUse", 1, Some("/t/plug/scripts/a.sh")),
            ("PreToolUse", 2, Some("/t/proj/hooks/b.sh")),
            ("PostToolUse", 0, Some("true")),
        ]
    );
    assert!(file.handlers.iter().all(Handler::is_plugin));
}

#[test]
fn events_keep_their_file_order() {
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"command": "a"}]}],
                       "PreToolUse": [{"hooks": [{"command": "b"}]}],
                       "Notification": [{"hooks": [{"command": "c"}]}]}}"#;
    let file = parse(text, Path::new(PATH), &ctx()).unwrap();
    let events: Vec<&str> = file.handlers.iter().map(|h| h.event.as_str()).collect();
    assert_eq!(events, ["Stop", "PreToolUse", "Notification"]);
}

#[test]
fn a_handler_without_a_type_is_a_command() {
    let file = load_json(json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}));
    assert_eq!(file.handlers[0].kind, "command");
    assert!(file.warnings.is_empty());
}

#[test]
fn timeouts_are_seconds_with_per_event_defaults() {
    let file = load_text(
        r#"{"hooks": {
              "PreToolUse": [{"hooks": [{"command": "a"}, {"command": "b", "timeout": 1.5}]}],
              "UserPromptSubmit": [{"hooks": [{"command": "c"}, {"command": "d", "timeout": 90}]}],
              "Stop": [{"hooks": [{"type": "prompt", "prompt": "ok?"}, {"type": "agent", "prompt": "x"}]}]
            }}"#,
    );
    let timeouts: Vec<Duration> = file.handlers.iter().map(|h| h.timeout).collect();
    assert_eq!(
        timeouts,
        [
            Duration::from_secs(600),
            Duration::from_millis(1500),
            Duration::from_secs(30),
            Duration::from_secs(90),
            Duration::from_secs(30),
            Duration::from_secs(60),
        ]
    );
    assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(600));
}

#[test]
fn a_huge_timeout_saturates() {
    let file = load_json(json!({"hooks": {"Stop": [{"hooks": [
        {"command": "x", "timeout": 1e300}]}]}}));
    assert_eq!(file.handlers[0].timeout, Duration::MAX);
}

#[test]
fn a_timeout_in_milliseconds_is_a_warning() {
    let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"command": "x", "timeout": 5000}, {"command": "y", "timeout": 1800}]}]}}));
    assert_eq!(file.handlers[0].timeout, Duration::from_secs(5000));
    assert_eq!(
        warnings(&file),
        [format!(
            "{PATH}: PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): \"timeout\": 5000 is \
                 5000 seconds; Claude Code timeouts are in seconds, not milliseconds (write 5 for \
                 5 seconds)"
        )]
    );
}

#[test]
fn wrong_timeouts_are_errors() {
    assert_eq!(
        error_json(
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            cmd("a"), {"type": "command", "command": "x", "timeout": "30"}]}]}})
        ),
        format!(
            "{PATH}: \"timeout\" of PreToolUse handler 1 (hooks.PreToolUse[0].hooks[1]) must \
                 be a positive number of seconds, not the string \"30\""
        )
    );
    for bad in [json!(0), json!(-1), json!(true), json!([1])] {
        let err =
            error_json(json!({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": bad}]}]}}));
        assert!(
            err.contains(
                "\"timeout\" of Stop handler 0 (hooks.Stop[0].hooks[0]) must be a \
                     positive number of seconds"
            ),
            "{err}"
        );
    }
}

#[test]
fn other_wrong_types_are_errors_naming_the_place() {
    let cases = [
        (
            json!({"hooks": []}),
            "\"hooks\" must be an object of event names, not an array",
        ),
        (
            json!({"hooks": {"PreToolUse": {"matcher": "Bash"}}}),
            "hooks.PreToolUse must be an array of matcher groups, not an object",
        ),
        (
            json!({"hooks": {"PreToolUse": ["Bash"]}}),
            "matcher group hooks.PreToolUse[0] must be an object, not the string \"Bash\"",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"matcher": 1, "hooks": []}]}}),
            "\"matcher\" of matcher group hooks.PreToolUse[0] must be a string, not the number 1",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"hooks": {"command": "x"}}]}}),
            "\"hooks\" of matcher group hooks.PreToolUse[0] must be an array of handlers, not an object",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"hooks": ["echo hi"]}]}}),
            "PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be an object, not the \
                 string \"echo hi\"",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"hooks": [{"command": ["a"]}]}]}}),
            "\"command\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be a \
                 string, not an array",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "args": "b"}]}]}}),
            "\"args\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be an array \
                 of strings, not the string \"b\"",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "args": ["b", 2]}]}]}}),
            "\"args\"[1] of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be a \
                 string, not the number 2",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "async": "yes"}]}]}}),
            "\"async\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be true or \
                 false, not the string \"yes\"",
        ),
        (
            json!({"disableAllHooks": "true"}),
            "\"disableAllHooks\" must be true or false, not the string \"true\"",
        ),
    ];
    for (value, message) in cases {
        assert_eq!(error_json(value), format!("{PATH}: {message}"));
    }
}

#[test]
fn a_top_level_that_is_not_an_object_is_an_error() {
    assert_eq!(
        error_of("[1, 2]"),
        format!("{PATH}: the top level must be a JSON object, not an array")
    );
    assert_eq!(
        error_of("\"hooks\""),
        format!("{PATH}: the top level must be a JSON object, not the string \"hooks\"")
    );
}

#[test]
fn malformed_json_names_the_line_and_column() {
    let text = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n  }\n}\n";
    let err = parse(text, Path::new(PATH), &ctx()).unwrap_err();
    assert!(
        matches!(err.kind(), ConfigErrorKind::InvalidJson(_)),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!("{PATH}: not valid JSON: expected value at line 4 column 3")
    );
    assert!(error_of("").contains("EOF while parsing a value at line 1 column 0"));
    assert!(error_of("{\"hooks\": {}} trailing").contains("trailing characters at line 1"));
    // Trailing commas and comments are not JSON either.
    assert!(error_of("{\"hooks\": {},}").contains("not valid JSON"));
    assert!(error_of("// c\n{}").contains("not valid JSON"));
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let file = parse("\u{feff}{\"hooks\": {}}", Path::new(PATH), &ctx()).unwrap();
    assert!(file.handlers.is_empty());
}

/// The errors of the entries `text` dropped.
fn dropped(file: &HooksFile) -> Vec<String> {
    file.dropped.iter().map(ToString::to_string).collect()
}

#[test]
fn a_command_handler_without_a_command_is_dropped_alone() {
    let expected = format!(
        "{PATH}: PreToolUse handler 1 (hooks.PreToolUse[1].hooks[0]) has no \"command\": a \
             handler of type \"command\" needs the shell command to run (with \"args\": the \
             program to start)"
    );
    for handler in [
        json!({"type": "command"}),
        json!({"type": "command", "command": "  "}),
        json!({"type": "command", "args": ["a"]}),
        json!({"timeout": 3}),
    ] {
        let value = json!({"hooks": {"PreToolUse": [
            {"hooks": [cmd("true")]}, {"matcher": "Bash", "hooks": [handler, cmd("after")]}]}});
        let file = parse(&value.to_string(), Path::new(PATH), &ctx()).unwrap();
        assert_eq!(dropped(&file), std::slice::from_ref(&expected));
        let kept: Vec<_> = file
            .handlers
            .iter()
            .map(|h| (h.command.as_deref().unwrap(), h.index))
            .collect();
        // The numbering of the rest does not move.
        assert_eq!(kept, [("true", 0), ("after", 2)]);
    }
}

#[test]
fn a_group_without_hooks_is_dropped_and_the_rest_loads() {
    let value = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash"}, {"matcher": "Read", "hooks": [cmd("read.sh")]}],
        "Stop": [{"hooks": [cmd("stop.sh")]}]}});
    let file = parse(&value.to_string(), Path::new(PATH), &ctx()).unwrap();
    assert_eq!(
        dropped(&file),
        [format!(
            "{PATH}: matcher group hooks.PreToolUse[0] (its \"hooks\") must be an array of \
             handlers, not nothing: the group has no \"hooks\""
        )]
    );
    let commands: Vec<_> = file
        .handlers
        .iter()
        .map(|h| h.command.as_deref().unwrap())
        .collect();
    assert_eq!(commands, ["read.sh", "stop.sh"]);
    assert!(file.warnings.is_empty());
}

#[test]
fn exec_form_args_are_kept_and_substituted() {
    let ctx = Context::new("/p").with_plugin_root("/plug");
    let text = json!({"hooks": {"PreToolUse": [{"hooks": [{
        "type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/check",
        "args": ["--project", "${CLAUDE_PROJECT_DIR}", "${CLAUDE_PLUGIN_DATA}"]}]}]}});
    let file = parse(&text.to_string(), Path::new("/plug/hooks/hooks.json"), &ctx).unwrap();
    let h = &file.handlers[0];
    assert_eq!(h.command.as_deref(), Some("/plug/bin/check"));
    assert_eq!(
        h.args.as_deref(),
        Some(
            &[
                "--project".into(),
                "/p".into(),
                "${CLAUDE_PLUGIN_DATA}".into()
            ][..]
        )
    );
    assert!(h.is_plugin());
    assert_eq!(h.plugin_root.as_deref(), Some(Path::new("/plug")));
}

#[test]
fn substitution_replaces_the_braced_placeholders_only() {
    let ctx = Context::new("/p")
        .with_plugin_root("/plug")
        .with_plugin_data("/data");
    assert_eq!(
        ctx.substitute(
            "'${CLAUDE_PLUGIN_ROOT}/scripts/env.sh' '${CLAUDE_PROJECT_DIR}' ${CLAUDE_PLUGIN_DATA}/x",
            Form::Sh
        ),
        "'/plug/scripts/env.sh' '/p' /data/x"
    );
    assert_eq!(
        ctx.substitute("${CLAUDE_PROJECT_DIR}${CLAUDE_PROJECT_DIR}", Form::Sh),
        "/p/p"
    );
    for unchanged in [
        "$CLAUDE_PROJECT_DIR/x",
        "${CLAUDE_PROJECT_DIRX}",
        "${CLAUDE_OTHER}",
        "echo hi",
    ] {
        assert_eq!(ctx.substitute(unchanged, Form::Sh), unchanged);
    }
    assert!(matches!(
        ctx.substitute("echo hi", Form::Sh),
        Cow::Borrowed(_)
    ));
    // A settings file has no plugin root: the placeholder stays for the shell.
    assert_eq!(
        Context::new("/p").substitute("${CLAUDE_PLUGIN_ROOT}/a", Form::Sh),
        "${CLAUDE_PLUGIN_ROOT}/a"
    );
}

#[test]
fn commands_are_substituted_when_loaded() {
    let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
        cmd("\"${CLAUDE_PROJECT_DIR}\"/.claude/hooks/guard.sh")]}]}}));
    assert_eq!(
        file.handlers[0].command.as_deref(),
        Some("\"/p\"/.claude/hooks/guard.sh")
    );
}

#[test]
fn the_plugin_root_is_the_folder_above_hooks() {
    let path = Path::new("/x/plug/hooks/hooks.json");
    assert_eq!(plugin_root_of(path).as_deref(), Some(Path::new("/x/plug")));
    let ctx = Context::for_file("/p", path);
    assert_eq!(ctx.plugin_root.as_deref(), Some(Path::new("/x/plug")));
    assert_eq!(ctx.project_dir, Path::new("/p"));
    for other in [
        "/p/.claude/settings.json",
        "/p/.agents/hooks.json",
        "/p/.cursor/hooks.json",
        "hooks.json",
        "/hooks/other.json",
    ] {
        assert_eq!(plugin_root_of(Path::new(other)), None, "{other}");
    }
    assert_eq!(
        plugin_root_of(Path::new("hooks/hooks.json")).as_deref(),
        Some(Path::new(""))
    );
}

#[test]
fn disable_all_hooks_is_read_and_the_handlers_too() {
    // Whether the switch counts is decided over the whole load
    // (config::discovery), so the file's handlers are still read.
    let file = load_json(json!({"disableAllHooks": true,
        "hooks": {"PreToolUse": [{"hooks": [cmd("touch ran")]}], "TaskCreated": []}}));
    assert!(file.disabled);
    assert_eq!(file.disable_all_hooks, Some(true));
    assert_eq!(file.handlers.len(), 1);
    let on = load_json(json!({"disableAllHooks": false,
        "hooks": {"PreToolUse": [{"hooks": [cmd("touch ran")]}]}}));
    assert!(!on.disabled);
    assert_eq!(on.disable_all_hooks, Some(false));
    assert_eq!(on.handlers.len(), 1);
    // A disabled file's broken hooks cannot fail the load: it has none.
    let broken = load_json(json!({"disableAllHooks": true, "hooks": {"PreToolUse": 3}}));
    assert!(broken.disabled);
    assert!(broken.handlers.is_empty());
}

#[test]
fn an_event_fired_by_name_only_is_a_warning_naming_file_and_event() {
    let file = load_text(
        r#"{"hooks": {
              "TaskCreated": [{"hooks": [{"type": "command", "command": "true"}]}],
              "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
            }}"#,
    );
    assert_eq!(
        warnings(&file),
        [format!(
            "{PATH}: hooks.TaskCreated: TaskCreated has no point in the neutral lifecycle: \
                 its hooks run only when the host fires the event by name"
        )]
    );
    let task = &file.handlers[0];
    assert_eq!(task.neutral_event, None);
    // It runs when the host fires TaskCreated by name.
    assert!(task.is_runnable());
    assert!(file.handlers[1].is_runnable());
}

#[test]
fn an_unknown_event_is_a_warning_with_a_suggestion() {
    let file = load_text(
        r#"{"hooks": {
              "PreToolUsee": [{"hooks": [{"command": "true"}]}],
              "pre_tool_use": [{"hooks": [{"command": "true"}]}],
              "Banana": [{"matcher": "x", "hooks": [{"command": "true"}]}]
            }}"#,
    );
    assert_eq!(
        warnings(&file),
        [
            format!(
                "{PATH}: hooks.PreToolUsee: \"PreToolUsee\" is not a Claude Code event, so its \
                     hooks never run; did you mean \"PreToolUse\"?"
            ),
            format!(
                "{PATH}: hooks.pre_tool_use: \"pre_tool_use\" is not a Claude Code event, so \
                     its hooks never run; did you mean \"PreToolUse\"?"
            ),
            format!(
                "{PATH}: hooks.Banana: \"Banana\" is not a Claude Code event, so its hooks \
                     never run"
            ),
        ]
    );
    assert!(file.handlers.iter().all(|h| h.neutral_event.is_none()));
}

#[test]
fn unsupported_handler_types_load_with_a_warning() {
    let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "mcp_tool", "server": "s", "tool": "t"},
        {"type": "prompt", "prompt": "is this safe? $ARGUMENTS"},
        {"type": "agent", "prompt": "check"},
        {"type": "mcp_tool", "server": "s", "tool": "t"},
        {"type": "comand", "command": "x"},
        {"type": "shell", "command": "x"}
    ]}]}}));
    assert_eq!(file.handlers.len(), 6);
    assert!(file.handlers.iter().all(|h| !h.is_runnable()));
    assert_eq!(file.handlers[0].command, None);
    let w = warnings(&file);
    assert_eq!(
        w[0],
        format!(
            "{PATH}: PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): handlers of type \
                 \"mcp_tool\" are not runnable by this host (they run only where the host \
                 supplies an MCP client: Builder::mcp), so this one never runs"
        )
    );
    assert!(w[1].contains("handler 1") && w[1].contains("\"prompt\" is answered by a model"));
    assert!(w[2].contains("handler 2") && w[2].contains("\"agent\" is answered by a model"));
    assert_eq!(
        file.handlers[1].prompt.as_deref(),
        Some("is this safe? $ARGUMENTS")
    );
    assert!(w[3].contains("handler 3") && w[3].contains("\"mcp_tool\" are not runnable"));
    assert_eq!(
        w[4],
        format!(
            "{PATH}: PreToolUse handler 4 (hooks.PreToolUse[0].hooks[4]): type \"comand\" is \
                 not a Claude Code handler type, so this handler never runs; did you mean \
                 \"command\"?"
        )
    );
    assert!(w[5].ends_with("so this handler never runs"), "{}", w[5]);
}

#[test]
fn a_look_around_matcher_is_an_error_naming_file_event_group_and_pattern() {
    let file = parse(
        &json!({"hooks": {"PreToolUse": [
            {"hooks": [cmd("true")]},
            {"matcher": "^(?!Read)", "hooks": [cmd("guard.sh"), cmd("other.sh")]},
            {"matcher": "Read", "hooks": [cmd("read.sh")]}]}})
        .to_string(),
        Path::new(PATH),
        &ctx(),
    )
    .unwrap();
    // The group is dropped; the groups around it load, numbered as written.
    let kept: Vec<_> = file
        .handlers
        .iter()
        .map(|h| (h.command.as_deref().unwrap(), h.index))
        .collect();
    assert_eq!(kept, [("true", 0), ("read.sh", 3)]);
    let [err] = &file.dropped[..] else {
        panic!("{:?}", file.dropped)
    };
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "{PATH}: invalid matcher \"^(?!Read)\" in PreToolUse matcher group 1 \
                 (hooks.PreToolUse[1]): "
        )),
        "{message}"
    );
    assert!(message.contains("look-around"), "{message}");
    assert!(
        message.ends_with("neither look-around nor backreferences)"),
        "{message}"
    );
    let ConfigErrorKind::InvalidPattern { at, error, .. } = err.kind() else {
        panic!("{err:?}")
    };
    assert_eq!(
        (at.as_str(), error.pattern()),
        (
            "PreToolUse matcher group 1 (hooks.PreToolUse[1])",
            "^(?!Read)"
        )
    );
}

#[test]
fn a_long_invalid_matcher_is_cut_in_the_message() {
    let matcher = format!("({}", "a".repeat(5000));
    let file = load_json(json!({"hooks": {"PreToolUse": [
        {"matcher": matcher, "hooks": [cmd("true")]}]}}));
    let message = dropped(&file).concat();
    assert!(message.len() < 1000, "{}", message.len());
    assert!(message.contains('\u{2026}'));
}

#[test]
fn a_matcher_on_an_event_without_one_is_ignored_with_a_warning() {
    let file = load_json(json!({"hooks": {"Stop": [
        {"matcher": "Bash", "hooks": [cmd("true")]},
        {"matcher": "*", "hooks": [cmd("true")]}]}}));
    assert!(file
        .handlers
        .iter()
        .all(|h| matches!(h.pattern, Pattern::Any)));
    assert_eq!(file.handlers[0].matcher.as_deref(), Some("Bash"));
    assert_eq!(
        warnings(&file),
        [format!(
            "{PATH}: hooks.Stop[0]: matcher \"Bash\" is ignored: Stop has no matcher, so the \
                 group's hooks run every time"
        )]
    );
}

#[test]
fn an_if_rule_is_parsed_and_checked() {
    let file = load_json(json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "x", "if": "Bash(git commit:*)"}]}],
        "Stop": [{"hooks": [{"command": "y", "if": "Bash(ls)"}]}]
    }}));
    let rule = file.handlers[0].if_rule.as_ref().unwrap();
    assert!(rule.matches("Bash", &json!({"command": "cd r && git commit -m x"})));
    assert_eq!(
        warnings(&file),
        [format!(
            "{PATH}: Stop handler 0 (hooks.Stop[0].hooks[0]): \"if\" is only tested on tool \
                 events (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, \
                 PermissionDenied), so this handler never runs"
        )]
    );
    let err = error_json(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"command": "x", "if": "Bash(git *) || Edit(*)"}]}]}}));
    assert!(
        err.starts_with(&format!(
            "{PATH}: invalid \"if\" rule \"Bash(git *) || Edit(*)\" of PreToolUse handler 0 \
                 (hooks.PreToolUse[0].hooks[0]): one rule only"
        )),
        "{err}"
    );
}

#[test]
fn a_nul_in_a_command_is_an_error() {
    let err = error_json(json!({"hooks": {"Stop": [{"hooks": [{"command": "a\u{0}b"}]}]}}));
    assert_eq!(
        err,
        format!(
            "{PATH}: \"command\" of Stop handler 0 (hooks.Stop[0].hooks[0]) contains a NUL \
                 character (\\u0000), which no process argument can carry; remove it"
        )
    );
    let err = error_json(
        json!({"hooks": {"Stop": [{"hooks": [{"command": "a", "args": ["ok", "\u{0}"]}]}]}}),
    );
    assert!(err.contains("\"args\"[1] of Stop handler 0"), "{err}");
}

#[test]
fn a_repeated_event_key_keeps_its_last_value() {
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"command": "first"}]}],
                       "Notification": [{"hooks": [{"command": "n"}]}],
                       "Stop": [{"hooks": [{"command": "second"}]}]}}"#;
    let file = parse(text, Path::new(PATH), &ctx()).unwrap();
    let commands: Vec<&str> = file
        .handlers
        .iter()
        .filter_map(|h| h.command.as_deref())
        .collect();
    assert_eq!(commands, ["second", "n"]);
}

#[test]
fn standard_files_come_in_load_order() {
    let files = standard_files(Some(Path::new("/h")), Path::new("/p"));
    assert_eq!(
        files,
        [
            PathBuf::from("/h/.claude/settings.json"),
            PathBuf::from("/p/.claude/settings.json"),
            PathBuf::from("/p/.claude/settings.local.json"),
            managed_settings_path(),
        ]
    );
    assert_eq!(standard_files(None, Path::new("/p")).len(), 3);
    let all = with_plugins(files, ["/plug/a", "/plug/b"]);
    assert_eq!(all[4], Path::new("/plug/a/hooks/hooks.json"));
    assert_eq!(all[5], Path::new("/plug/a/.claude-plugin/plugin.json"));
    assert_eq!(all[6], Path::new("/plug/b/hooks/hooks.json"));
    assert_eq!(all[7], Path::new("/plug/b/.claude-plugin/plugin.json"));
    if !cfg!(target_os = "macos") {
        assert_eq!(
            managed_settings_path(),
            Path::new("/etc/claude-code/managed-settings.json")
        );
    }
}

#[test]
fn load_all_skips_missing_files_and_finds_plugin_roots() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("proj");
    let plugin = dir.path().join("plug");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(plugin.join("hooks")).unwrap();
    let hooks =
        |command: &str| json!({"hooks": {"PreToolUse": [{"hooks": [cmd(command)]}]}}).to_string();
    std::fs::write(home.join(".claude/settings.json"), hooks("user")).unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        hooks("${CLAUDE_PROJECT_DIR}/local"),
    )
    .unwrap();
    std::fs::write(
        plugin.join("hooks/hooks.json"),
        hooks("${CLAUDE_PLUGIN_ROOT}/p"),
    )
    .unwrap();
    let mut files = standard_files(Some(&home), &project);
    files.pop(); // the machine's managed file is not the test's
    let files = with_plugins(files, [&plugin]);
    let loaded = load_all(&files, &project).unwrap();
    let commands: Vec<String> = loaded
        .iter()
        .flat_map(|f| &f.handlers)
        .filter_map(|h| h.command.clone())
        .collect();
    assert_eq!(
        commands,
        [
            "user".to_owned(),
            format!("{}/local", project.display()),
            format!("{}/p", plugin.display()),
        ]
    );
    assert_eq!(loaded[2].plugin_root.as_deref(), Some(plugin.as_path()));
    assert!(loaded[2].handlers[0].is_plugin());
}

#[test]
fn load_reports_unreadable_files_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let err = load(dir.path(), &ctx()).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ConfigErrorKind::NotAFile {
                what: "a directory"
            }
        ),
        "{err:?}"
    );
    let path = dir.path().join("settings.json");
    std::fs::write(&path, b"{\"hooks\": \"\xff\"}").unwrap();
    let err = load(&path, &ctx()).unwrap_err();
    assert!(err.to_string().starts_with(&path.display().to_string()));
    assert!(matches!(
        err.kind(),
        ConfigErrorKind::InvalidUtf8 {
            offset: 11,
            line: 1
        }
    ));
    let missing = load(&dir.path().join("none.json"), &ctx()).unwrap_err();
    assert!(missing.is_not_found());
}

fn settings(path: &str, value: Value) -> HooksFile {
    parse(&value.to_string(), Path::new(path), &ctx()).unwrap()
}

#[test]
fn identical_handlers_in_settings_files_run_once() {
    let user = settings(
        "/h/.claude/settings.json",
        json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [cmd("true")]},
            {"matcher": "Bash", "hooks": [cmd("echo once >> log")]}]}}),
    );
    let project = settings(
        PATH,
        json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [cmd("echo once >> log")]}]}}),
    );
    let all: Vec<&Handler> = user.handlers.iter().chain(&project.handlers).collect();
    let originals = duplicates(all.iter().copied());
    assert!(originals[0].is_none() && originals[1].is_none());
    let original = originals[2].expect("a duplicate");
    assert_eq!(original.location(), "/h/.claude/settings.json:1");
}

#[test]
fn duplicates_within_one_file_count_too() {
    let file = settings(
        PATH,
        json!({"hooks": {"Stop": [{"hooks": [cmd("x"), cmd("x")]}, {"hooks": [cmd("x")]}]}}),
    );
    let originals = duplicates(&file.handlers);
    assert!(originals[0].is_none());
    assert_eq!(originals[1].map(|h| h.index), Some(0));
    assert_eq!(originals[2].map(|h| h.index), Some(0));
}

#[test]
fn duplicates_compare_the_expanded_command() {
    let a = settings(
        "/h/.claude/settings.json",
        json!({"hooks": {"Stop": [{"hooks": [cmd("${CLAUDE_PROJECT_DIR}/x")]}]}}),
    );
    let b = settings(PATH, json!({"hooks": {"Stop": [{"hooks": [cmd("/p/x")]}]}}));
    let all: Vec<&Handler> = a.handlers.iter().chain(&b.handlers).collect();
    assert!(duplicates(all.iter().copied())[1].is_some());
}

#[test]
fn handlers_that_differ_where_it_counts_are_not_duplicates() {
    let base = json!({"type": "command", "command": "x"});
    let variants = [
        json!({"type": "command", "command": "y"}),
        json!({"type": "command", "command": "x", "args": ["a"]}),
        json!({"type": "command", "command": "x", "shell": "bash"}),
        json!({"type": "command", "command": "x", "async": true}),
        json!({"type": "command", "command": "x", "persistent": true}),
        json!({"type": "command", "command": "x", "if": "Bash(ls)"}),
        json!({"type": "command", "command": "x", "timeout": 0.001}),
        json!({"type": "command", "command": "x", "once": true}),
        json!({"type": "command", "command": "x", "onFailure": "block"}),
    ];
    for variant in variants {
        let file = settings(
            PATH,
            json!({"hooks": {"PreToolUse": [{"hooks": [base.clone(), variant.clone()]}]}}),
        );
        assert!(duplicates(&file.handlers)[1].is_none(), "{variant}");
    }
    // Another event, another matcher.
    let file = settings(
        PATH,
        json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [base.clone()]},
                           {"matcher": "Edit", "hooks": [base.clone()]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [base.clone()]}]}}),
    );
    assert!(duplicates(&file.handlers).iter().all(Option::is_none));
    // Status messages do not count; "", "*" and no matcher are one.
    let file = settings(
        PATH,
        json!({"hooks": {"PreToolUse": [
            {"hooks": [base.clone()]},
            {"matcher": "*", "hooks": [{"command": "x", "statusMessage": "s"}]},
            {"matcher": "", "hooks": [base.clone()]}]}}),
    );
    let originals = duplicates(&file.handlers);
    assert!(originals[1].is_some() && originals[2].is_some());
}

#[test]
fn plugin_copies_never_dedup() {
    let value = json!({"hooks": {"Stop": [{"hooks": [cmd("x")]}]}});
    let user = settings("/h/.claude/settings.json", value.clone());
    let plugin = parse(
        &value.to_string(),
        Path::new("/plug/hooks/hooks.json"),
        &Context::for_file("/p", Path::new("/plug/hooks/hooks.json")),
    )
    .unwrap();
    let project = settings(PATH, value);
    let all: Vec<&Handler> = plugin
        .handlers
        .iter()
        .chain(&plugin.handlers)
        .chain(&user.handlers)
        .chain(&project.handlers)
        .collect();
    let originals = duplicates(all.iter().copied());
    assert!(originals[0].is_none() && originals[1].is_none() && originals[2].is_none());
    assert_eq!(
        originals[3].map(Handler::location),
        Some("/h/.claude/settings.json:0".to_owned())
    );
}

#[test]
fn mcp_tool_handlers_are_the_same_by_their_server_tool_and_input() {
    let file = settings(
        PATH,
        json!({"hooks": {"Stop": [{"hooks": [
            {"type": "mcp_tool", "server": "s", "tool": "t"},
            {"type": "mcp_tool", "server": "s", "tool": "t"},
            {"type": "mcp_tool", "server": "s", "tool": "t", "input": {"a": "${cwd}"}},
            {"type": "mcp_tool", "server": "s", "tool": "u"},
            {"type": "mcp_tool", "server": "r", "tool": "t"}]}]}}),
    );
    let originals = duplicates(&file.handlers);
    assert_eq!(originals[1].map(|h| h.index), Some(0));
    assert!(originals.iter().skip(2).all(Option::is_none));
    assert_eq!(file.handlers[2].input, Some(json!({"a": "${cwd}"})));
}

#[test]
fn an_mcp_tool_handler_without_its_server_or_tool_is_dropped() {
    let file = settings(
        PATH,
        json!({"hooks": {"Stop": [{"hooks": [
            {"type": "mcp_tool", "tool": "t"},
            {"type": "mcp_tool", "server": "s"},
            {"type": "mcp_tool", "server": "s", "tool": "t"}]}]}}),
    );
    assert_eq!(file.handlers.len(), 1);
    assert_eq!(file.dropped.len(), 2);
    assert!(
        file.dropped[0].to_string().contains("\"server\""),
        "{}",
        file.dropped[0]
    );
    assert!(
        file.dropped[1].to_string().contains("\"tool\""),
        "{}",
        file.dropped[1]
    );
}

#[test]
fn http_handlers_are_the_same_by_their_url() {
    let file = settings(
        PATH,
        json!({"hooks": {"Stop": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:1/a"},
            {"type": "http", "url": "http://127.0.0.1:1/a", "statusMessage": "s"},
            {"type": "http", "url": "http://127.0.0.1:1/b"},
            {"type": "command", "command": "http://127.0.0.1:1/a"},
            {"type": "http", "url": "http://127.0.0.1:1/a", "headers": {"X": "y"}}]}]}}),
    );
    let originals = duplicates(&file.handlers);
    assert!(originals[0].is_none());
    assert_eq!(originals[1].map(|h| h.index), Some(0), "the same URL");
    assert!(originals[2].is_none());
    assert!(
        originals[3].is_none(),
        "a command is never the same as an HTTP hook"
    );
    assert!(originals[4].is_none(), "other headers make another hook");
    let file = settings(
        PATH,
        json!({"hooks": {"Stop": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:1/a"},
            {"type": "http", "url": "http://127.0.0.1:1/a", "timeout": 0.001}]}]}}),
    );
    assert!(
        duplicates(&file.handlers)[1].is_none(),
        "another timeout makes another hook"
    );
}

/// A copy that fails closed, or sends other headers, is not the same
/// handler: a project's plain copy cannot shadow a managed guard.
#[test]
fn copies_that_fail_closed_or_send_other_headers_are_other_handlers() {
    let url = "http://127.0.0.1:1/a";
    let project = settings(
        "/p/.claude/settings.json",
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": url}]}]}}),
    );
    let managed = settings(
        "/etc/claude-code/managed-settings.json",
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "http", "url": url, "onFailure": "block"},
            {"type": "http", "url": url, "headers": {"Authorization": "Bearer $T"},
             "allowedEnvVars": ["T"]},
            {"type": "http", "url": url}
        ]}]}}),
    );
    let all: Vec<&Handler> = project.handlers.iter().chain(&managed.handlers).collect();
    let originals = duplicates(all.iter().copied());
    assert!(originals[1].is_none(), "the fail-closed copy runs");
    assert!(originals[2].is_none(), "the copy with a token runs");
    assert_eq!(
        originals[3].map(|h| h.source.as_path()),
        Some(Path::new("/p/.claude/settings.json"))
    );
}

#[test]
fn http_handlers_load_with_their_url_headers_and_variables() {
    let file = load_json(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "http", "url": "http://127.0.0.1:8700/policy",
             "headers": {"Authorization": "Bearer $TOKEN", "X-Team": "core"},
             "allowedEnvVars": ["TOKEN"], "timeout": 5, "onFailure": "block"}
        ]}]}}),
    );
    let h = &file.handlers[0];
    assert_eq!(h.kind, "http");
    assert_eq!(h.url.as_deref(), Some("http://127.0.0.1:8700/policy"));
    assert_eq!(
        h.headers,
        [
            ("Authorization".to_string(), "Bearer $TOKEN".to_string()),
            ("X-Team".to_string(), "core".to_string())
        ]
    );
    assert_eq!(h.allowed_env_vars, ["TOKEN"]);
    assert_eq!(h.timeout, Duration::from_secs(5));
    assert!(h.fail_closed);
    assert_eq!(h.is_runnable(), cfg!(feature = "http"));
    let w = warnings(&file);
    if cfg!(feature = "http") {
        assert!(w.is_empty(), "{w:?}");
    } else {
        assert_eq!(
            w,
            [format!(
                "{PATH}: PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): handlers of \
                     type \"http\" are not runnable by this host (it was built without the \
                     tower-hooks feature \"http\"), so this one never runs"
            )]
        );
    }
    // The default timeout is a command's: 600 s, 30 on UserPromptSubmit.
    let file = load_json(json!({"hooks": {
        "Stop": [{"hooks": [{"type": "http", "url": "https://policy.example/x"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "http", "url": "https://policy.example/x"}]}]
    }}));
    assert_eq!(file.handlers[0].timeout, DEFAULT_TIMEOUT);
    assert_eq!(file.handlers[1].timeout, PROMPT_SUBMIT_TIMEOUT);
    assert!(!file.handlers[0].fail_closed);
}

#[test]
fn a_type_claude_code_does_not_run_at_an_event_is_listed_and_never_runs() {
    let file = load_json(json!({"hooks": {
        "SessionStart": [{"hooks": [{"type": "http", "url": "http://127.0.0.1/x"},
                                    {"type": "command", "command": "true"}]}],
        "SessionEnd": [{"hooks": [{"type": "prompt", "prompt": "ok?"}]}],
        "Stop": [{"hooks": [{"type": "agent", "prompt": "done?"}]}]
    }}));
    let w = warnings(&file);
    let not_here: Vec<&String> = w.iter().filter(|w| w.contains("runs no handler")).collect();
    assert_eq!(
        not_here,
        // (json! orders the events by name.)
        [
            &format!(
                "{PATH}: SessionEnd handler 0 (hooks.SessionEnd[0].hooks[0]): Claude Code \
                     runs no handler of type \"prompt\" at SessionEnd, so this one never runs; \
                     use a \"command\" handler there"
            ),
            &format!(
                "{PATH}: SessionStart handler 0 (hooks.SessionStart[0].hooks[0]): Claude \
                     Code runs no handler of type \"http\" at SessionStart, so this one never \
                     runs; use a \"command\" handler there"
            ),
        ]
    );
    let specs = crate::dialect::claude::hook::specs(&file.handlers, Path::new("/p"));
    let disabled: Vec<Option<&str>> = specs.iter().map(|s| s.disabled()).collect();
    assert_eq!(
        disabled,
        [
            Some("Claude Code runs no prompt handler at SessionEnd"),
            Some("Claude Code runs no http handler at SessionStart"),
            None,
            None
        ]
    );
}

/// Without the feature `http`, an `http` handler is listed and skipped,
/// unless it fails closed: then it blocks, never a silent allow.
#[cfg(not(feature = "http"))]
#[tokio::test]
async fn without_the_feature_an_http_handler_is_skipped_or_blocks_when_it_fails_closed() {
    use tower::ServiceExt;
    let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "http", "url": "http://127.0.0.1:9/x"},
        {"type": "http", "url": "http://127.0.0.1:9/y", "onFailure": "block"}
    ]}]}}));
    let specs = crate::dialect::claude::hook::specs(&file.handlers, Path::new("/p"));
    let call = |spec: crate::HookSpec| async move {
        let stack = crate::HookStack::builder()
            .report(())
            .command_hook(spec)
            .build();
        let req = crate::HookRequest::tool_execution_start("Bash", json!({"command": "ls"}));
        stack.oneshot(req).await.unwrap()
    };
    let skipped = call(specs[0].clone()).await;
    assert!(!skipped.is_blocked());
    assert_eq!(skipped.hooks()[0].outcome(), crate::RecordOutcome::Skipped);
    let blocked = call(specs[1].clone()).await;
    assert!(blocked.is_blocked());
    assert_eq!(
        blocked.reason(),
        Some(
            "hook failed closed: no HTTP client: this host was built without the \
                 tower-hooks feature \"http\""
        )
    );
}

#[test]
fn broken_http_handlers_are_errors_that_say_what_to_write() {
    let cases = [
        (
            json!({"type": "http"}),
            "has no \"url\": a handler of type \"http\" needs the URL",
        ),
        (json!({"type": "http", "url": " "}), "has no \"url\""),
        (
            json!({"type": "http", "url": "ftp://x/y"}),
            "\"url\" \"ftp://x/y\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) \
                 cannot be posted to: it must start with http:// or https://",
        ),
        (
            json!({"type": "http", "url": "http:///x"}),
            "it has no host",
        ),
        (
            json!({"type": "http", "url": "http://a b/"}),
            "a space or a control character",
        ),
        (
            json!({"type": "http", "url": "http://h/", "headers": ["X"]}),
            "\"headers\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be an \
                 object of header names and string values",
        ),
        (
            json!({"type": "http", "url": "http://h/", "headers": {"host": "other"}}),
            "\"headers\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be \
                 headers the HTTP client does not set itself (not Host, Content-Length, \
                 Transfer-Encoding or Connection), not \"host\"",
        ),
        (
            json!({"type": "http", "url": "http://h/", "headers": {"X": 1}}),
            "\"headers\".\"X\" of PreToolUse handler 0",
        ),
        (
            json!({"type": "http", "url": "http://h/", "allowedEnvVars": "TOKEN"}),
            "\"allowedEnvVars\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must \
                 be an array of strings",
        ),
        (
            json!({"type": "http", "url": "http://h/", "allowedEnvVars": [1]}),
            "item 0 of \"allowedEnvVars\" of PreToolUse handler 0",
        ),
        (
            json!({"type": "http", "url": "http://h/", "onFailure": "deny"}),
            "\"onFailure\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must be \
                 \"block\" or \"allow\"",
        ),
    ];
    for (handler, expected) in cases {
        let text = json!({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}).to_string();
        let err = parse(&text, Path::new(PATH), &ctx())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(PATH), "{err}");
        assert!(err.contains(expected), "{err}\n  wanted: {expected}");
    }
    for (top, expected) in [
        (
            json!({"allowedHttpHookUrls": "http://x/*"}),
            "\"allowedHttpHookUrls\" must be an array of strings",
        ),
        (
            json!({"httpHookAllowedEnvVars": [true]}),
            "item 0 of \"httpHookAllowedEnvVars\" must be a string",
        ),
    ] {
        let err = parse(&top.to_string(), Path::new(PATH), &ctx())
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{err}\n  wanted: {expected}");
    }
}

#[test]
fn http_gates_add_up_over_files_and_an_empty_list_blocks_all() {
    let a = settings(
        "/h/.claude/settings.json",
        json!({"allowedHttpHookUrls": ["https://policy.example.com/*"],
               "httpHookAllowedEnvVars": ["TOKEN"]}),
    );
    let b = settings(
        "/p/.claude/settings.json",
        json!({"disableAllHooks": true, "allowedHttpHookUrls": ["http://localhost:*/hook"]}),
    );
    assert!(b.disabled, "a disabled file still has its gates");
    let gates = HttpGates::of([&a, &b]);
    assert!(gates.allows_url("https://policy.example.com/v1"));
    assert!(gates.allows_url("http://localhost:8700/hook"));
    assert!(!gates.allows_url("http://localhost:8700/other"));
    assert!(!gates.allows_url("https://policy.example.com.evil/x"));
    assert!(gates.allows_env_var("TOKEN") && !gates.allows_env_var("HOME"));

    let none = settings(PATH, json!({"hooks": {}}));
    assert_eq!(HttpGates::of([&none]), HttpGates::default());
    assert!(HttpGates::of([&none]).allows_url("http://anything/"));
    let empty = settings(PATH, json!({"allowedHttpHookUrls": []}));
    assert!(!HttpGates::of([&empty]).allows_url("http://127.0.0.1/"));
    assert_eq!(HttpGates::of([&empty]).url_patterns(), Some(&[][..]));
    let star = settings(PATH, json!({"allowedHttpHookUrls": ["*"]}));
    assert!(HttpGates::of([&star]).allows_url("http://10.0.0.1/"));
}

/// A `*` port stays in the port: a path elsewhere never gets in through a
/// query or a fragment that holds the allowed path.
#[test]
fn a_star_port_does_not_swallow_the_path() {
    let mut gates = HttpGates::default();
    gates.add_urls(["http://127.0.0.1:*/allow*"]);
    assert!(gates.allows_url("http://127.0.0.1:18700/allow"));
    assert!(gates.allows_url("http://127.0.0.1:18700/allowed/x?y=1"));
    for url in [
        "http://127.0.0.1:18700/deny?/allow",
        "http://127.0.0.1:18700?/allow",
        "http://127.0.0.1:18700#/allow",
        "http://127.0.0.1:18700/deny#/allow",
        "http://127.0.0.1:18700/?/allow",
        "http://127.0.0.1:18700/allowed%2F..%2Fdeny",
    ] {
        assert!(!gates.allows_url(url), "{url}");
    }
    // Nor does a `*` in the host reach a port, a path or a query.
    let mut gates = HttpGates::default();
    gates.add_urls(["https://*.example.com/hooks/*"]);
    assert!(gates.allows_url("https://a.example.com/hooks/x"));
    for url in [
        "https://evil.test?.example.com/hooks/x",
        "https://evil.test/.example.com/hooks/x",
        "https://a.example.com:8443/hooks/x",
        "https://a.example.com/other?/hooks/x",
    ] {
        assert!(!gates.allows_url(url), "{url}");
    }
}

#[test]
fn each_handler_field_of_the_wrong_type_is_an_error_at_its_place() {
    let at = "PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0])";
    for (extra, place, rest) in [
        (
            json!({"shell": 1}),
            "\"shell\"",
            "must be a string, not the number 1",
        ),
        (
            json!({"once": "yes"}),
            "\"once\"",
            "must be true or false, not the string \"yes\"",
        ),
        (
            json!({"asyncRewake": 0}),
            "\"asyncRewake\"",
            "must be true or false, not the number 0",
        ),
        (
            json!({"continueOnBlock": []}),
            "\"continueOnBlock\"",
            "must be true or false, not an array",
        ),
        (
            json!({"statusMessage": {}}),
            "\"statusMessage\"",
            "must be a string, not an object",
        ),
        (
            json!({"args": "ls"}),
            "\"args\"",
            "must be an array of strings, not the string \"ls\"",
        ),
        (
            json!({"allowedEnvVars": ["A", 1]}),
            "item 1 of \"allowedEnvVars\"",
            "must be a string, not the number 1",
        ),
        (
            json!({"headers": {"X-A": true}}),
            "\"headers\".\"X-A\"",
            "must be a string, not true",
        ),
        (
            json!({"headers": ["X-A"]}),
            "\"headers\"",
            "must be an object of header names and string values, not an array",
        ),
        (
            json!({"onFailure": 1}),
            "\"onFailure\"",
            "must be a string, not the number 1",
        ),
        (
            json!({"onFailure": "deny"}),
            "\"onFailure\"",
            "must be \"block\" or \"allow\", not the string \"deny\"",
        ),
        (
            json!({"if": false}),
            "\"if\"",
            "must be a string, not false",
        ),
    ] {
        let mut handler = cmd("./guard.sh");
        for (key, value) in extra.as_object().unwrap() {
            handler[key] = value.clone();
        }
        let message = error_json(json!({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}));
        assert_eq!(
            message,
            format!("{PATH}: {place} of {at} {rest}"),
            "{extra}"
        );
    }
}

#[test]
fn a_cursor_fail_closed_key_warns_whatever_its_value_and_null_fields_are_absent() {
    let mut handler = cmd("./guard.sh");
    handler["failClosed"] = Value::Null;
    handler["fail_closed"] = json!("yes");
    for key in [
        "once",
        "shell",
        "headers",
        "allowedEnvVars",
        "onFailure",
        "timeout",
        "if",
    ] {
        handler[key] = Value::Null;
    }
    let file = load_json(json!({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}));
    let warnings = warnings(&file);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("\"failClosed\" is not a Claude Code key"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("\"fail_closed\" is not a Claude Code key"),
        "{warnings:?}"
    );
    let handler = &file.handlers[0];
    assert!(!handler.once && !handler.fail_closed && handler.if_rule.is_none());
    assert!(handler.headers.is_empty() && handler.allowed_env_vars.is_empty());
}

// What the reading of the top level and the matcher groups does with
// duplicate keys, nulls, odd shapes and several faults in one file.

#[test]
fn a_top_level_key_written_twice_keeps_its_last_value() {
    let file = load_text(r#"{"disableAllHooks": 1, "disableAllHooks": true}"#);
    assert!(file.disabled);
    let handlers = |text: &str| -> Vec<(String, String)> {
        load_text(text)
            .handlers
            .iter()
            .map(|h| (h.event.clone(), h.command.clone().unwrap()))
            .collect()
    };
    let pairs = |list: [(&str, &str); 2]| list.map(|(e, c)| (e.to_owned(), c.to_owned()));
    assert_eq!(
        handlers(
            r#"{"hooks": {"Stop": [{"hooks": [{"command": "a"}]}]},
                "hooks": {"PreToolUse": [{"hooks": [{"command": "b"}]}],
                          "Stop": [{"hooks": [{"command": "c"}]}]}}"#
        ),
        pairs([("PreToolUse", "b"), ("Stop", "c")])
    );
    // An event written twice: its last groups, where it first stood.
    assert_eq!(
        handlers(
            r#"{"hooks": {"Stop": [{"hooks": [{"command": "a"}]}],
                          "PreToolUse": [{"hooks": [{"command": "b"}]}],
                          "Stop": [{"hooks": [{"command": "c"}]}]}}"#
        ),
        pairs([("Stop", "c"), ("PreToolUse", "b")])
    );
}

#[test]
fn top_level_faults_are_reported_in_a_fixed_order() {
    // Written in the reverse of the order they are checked in: each time,
    // the first one checked of those left is the one reported.
    let mut keys = vec![
        (
            "hooks",
            "\"hooks\" must be an object of event names, not the number 1",
        ),
        (
            "allowManagedHooksOnly",
            "\"allowManagedHooksOnly\" must be true or false, not the number 1",
        ),
        (
            "disableAllHooks",
            "\"disableAllHooks\" must be true or false, not the number 1",
        ),
        (
            "httpHookAllowedEnvVars",
            "\"httpHookAllowedEnvVars\" must be an array of strings, not the number 1",
        ),
        (
            "allowedHttpHookUrls",
            "\"allowedHttpHookUrls\" must be an array of strings, not the number 1",
        ),
    ];
    while let Some((_, expected)) = keys.last() {
        let text = format!(
            "{{{}}}",
            keys.iter()
                .map(|(key, _)| format!("\"{key}\": 1"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert_eq!(error_of(&text), format!("{PATH}: {expected}"), "{text}");
        keys.pop();
    }
    assert_eq!(
        error_json(json!({"allowedHttpHookUrls": ["a", 2]})),
        format!("{PATH}: item 1 of \"allowedHttpHookUrls\" must be a string, not the number 2")
    );
}

#[test]
fn null_top_level_values_are_as_good_as_absent() {
    let file = load_json(json!({"hooks": null, "disableAllHooks": null,
        "allowManagedHooksOnly": null, "allowedHttpHookUrls": null,
        "httpHookAllowedEnvVars": null}));
    assert!(!file.disabled && file.disable_all_hooks.is_none());
    assert!(!file.allow_managed_hooks_only);
    assert!(file.allowed_http_hook_urls.is_none() && file.http_hook_allowed_env_vars.is_none());
    // An event whose groups are null is skipped without a word, even one
    // that is no Claude Code event.
    let file = load_json(json!({"hooks": {"Bogus": null, "Stop": null}}));
    assert!(file.handlers.is_empty() && file.warnings.is_empty());
}

#[test]
fn top_levels_that_are_no_object_are_named_as_soon_as_seen() {
    for (text, found) in [
        ("null", "null"),
        ("true", "true"),
        ("5 x", "the number 5"),
        ("[1,", "an array"),
        ("[}", "an array"),
    ] {
        assert_eq!(
            error_of(text),
            format!("{PATH}: the top level must be a JSON object, not {found}"),
            "{text}"
        );
    }
}

#[test]
fn group_faults_are_reported_in_a_fixed_order() {
    let group = |g: Value| error_json(json!({"hooks": {"PreToolUse": [g]}}));
    // The matcher's type before the handlers', whatever the key order.
    assert_eq!(
        error_of(r#"{"hooks": {"PreToolUse": [{"hooks": 5, "matcher": 5}]}}"#),
        format!(
            "{PATH}: \"matcher\" of matcher group hooks.PreToolUse[0] must be a string, not the \
             number 5"
        )
    );
    // A matcher that does not compile drops its group, whatever its hooks.
    let file = load_text(
        r#"{"hooks": {"PreToolUse": [{"hooks": 5, "matcher": "(?=x)"},
                                     {"matcher": "(", "hooks": [{"command": "a"}]},
                                     {"hooks": [{"command": "b"}]}]}}"#,
    );
    assert_eq!(file.dropped.len(), 2);
    assert_eq!(file.handlers.len(), 1);
    // The index counts the dropped group's handlers, not a hooks that is no
    // array.
    assert_eq!(file.handlers[0].index, 1);
    // `"hooks": null` is a wrong type, not a missing key.
    assert_eq!(
        group(json!({"hooks": null})),
        format!(
            "{PATH}: \"hooks\" of matcher group hooks.PreToolUse[0] must be an array of \
             handlers, not null"
        )
    );
    // A group written as an array is no group.
    assert_eq!(
        group(json!(["Bash", [cmd("a")]])),
        format!("{PATH}: matcher group hooks.PreToolUse[0] must be an object, not an array")
    );
    // A fault in a handler of an earlier group comes before the next
    // group's, and an earlier event's before a later one's.
    assert_eq!(
        error_json(json!({"hooks": {"PreToolUse": [
            {"hooks": [{"command": "x", "timeout": "s"}]}, {"matcher": 1}]}})),
        format!(
            "{PATH}: \"timeout\" of PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]) must \
             be a positive number of seconds, not the string \"s\""
        )
    );
    assert_eq!(
        error_of(
            r#"{"hooks": {"Stop": [{"hooks": [{"command": "x", "async": 1}]}], "PreToolUse": 5}}"#
        ),
        format!(
            "{PATH}: \"async\" of Stop handler 0 (hooks.Stop[0].hooks[0]) must be true or \
             false, not the number 1"
        )
    );
    assert_eq!(
        error_of(
            r#"{"hooks": {"PreToolUse": 5, "Stop": [{"hooks": [{"command": "x", "async": 1}]}]}}"#
        ),
        format!("{PATH}: hooks.PreToolUse must be an array of matcher groups, not the number 5")
    );
}
