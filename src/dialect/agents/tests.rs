use super::*;
use serde_json::json;

fn hook(event: AgentsEvent, index: usize, matcher: Option<&str>, command: &str) -> AgentsHook {
    AgentsHook {
        event,
        index,
        matcher: matcher.map(str::to_owned),
        command: command.into(),
        timeout: DEFAULT_TIMEOUT,
        deny_on_failure: false,
        persistent: false,
    }
}

fn error_of(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

// --- the file -----------------------------------------------------------

#[test]
fn the_bare_and_the_wrapped_form_read_alike() {
    let events = json!({
        "PostToolUse": [{"matcher": "*", "command": "./log.sh"}],
        "PreToolUse": [{"matcher": "Bash", "command": "./a.sh"}, {"command": "./b.sh"}],
    });
    let bare = parse(&events.to_string()).unwrap();
    let wrapped = parse(&json!({"hooks": events, "description": "x"}).to_string()).unwrap();
    assert_eq!(bare, wrapped);
    assert_eq!(
        bare.hooks,
        [
            hook(AgentsEvent::PreToolUse, 0, Some("Bash"), "./a.sh"),
            hook(AgentsEvent::PreToolUse, 1, None, "./b.sh"),
            hook(AgentsEvent::PostToolUse, 0, None, "./log.sh"),
        ]
    );
    assert!(bare.warnings.is_empty());
}

#[test]
fn entries_carry_their_fields() {
    let file = parse(
        r#"{"PreToolUse": [{"matcher": "Write", "command": "x", "timeoutMs": 300,
                                "denyOnFailure": true, "persistent": true, "extra": [1]}]}"#,
    )
    .unwrap();
    let h = &file.hooks[0];
    assert_eq!(h.matcher.as_deref(), Some("Write"));
    assert_eq!(h.timeout, Duration::from_millis(300));
    assert!(h.deny_on_failure && h.persistent);
    let file =
        parse(r#"{"PreToolUse": [{"command": "x", "timeoutMs": 2.5, "denyOnFailure": null}]}"#)
            .unwrap();
    assert_eq!(file.hooks[0].timeout, Duration::from_millis(3));
    assert!(!file.hooks[0].deny_on_failure);
}

#[test]
fn the_matcher_is_an_exact_name_or_every_tool() {
    for matcher in [json!("*"), json!(""), Value::Null] {
        let text = json!({"PreToolUse": [{"matcher": matcher, "command": "x"}]}).to_string();
        let h = &parse(&text).unwrap().hooks[0];
        assert_eq!(h.matcher, None);
        assert_eq!(h.matcher_str(), "*");
        assert!(h.matches("Bash") && h.matches("mcp__x__y"));
    }
    let h = hook(AgentsEvent::PreToolUse, 0, Some("Bash"), "x");
    assert!(h.matches("Bash"));
    assert!(!h.matches("bash") && !h.matches("BashOutput") && !h.matches(""));
    // No regex: `Edit|Write` is one odd name.
    let h = hook(AgentsEvent::PreToolUse, 0, Some("Edit|Write"), "x");
    assert!(!h.matches("Edit"));
}

#[test]
fn bad_json_is_an_error_with_its_line_and_column() {
    let err = parse("{\n  \"PreToolUse\": [\n    {\"command\": \"x\",}\n  ]\n}").unwrap_err();
    assert!(matches!(err, ConfigErrorKind::InvalidJson(_)), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("line 3 column"), "{message}");
}

#[test]
fn an_entry_without_a_command_is_an_error_naming_it() {
    assert_eq!(
        error_of(r#"{"hooks": {"PreToolUse": [{"command": "x"}, {"matcher": "Bash"}]}}"#),
        "PreToolUse entry 1 (hooks.PreToolUse[1]) has no \"command\": a react-agent-mini hook \
             needs the shell command to run (with sh -c)"
    );
    for command in [json!(""), json!("  "), Value::Null] {
        let text = json!({"PostToolUse": [{"command": command}]}).to_string();
        assert!(
            matches!(parse(&text), Err(ConfigErrorKind::MissingKey { .. })),
            "{text}"
        );
    }
}

#[test]
fn values_of_the_wrong_type_are_errors_naming_the_field() {
    for (text, want) in [
        ("[]", "the file must be a JSON object of events, not an array"),
        (r#"{"hooks": []}"#, "\"hooks\" must be an object of events, not an array"),
        (
            r#"{"PreToolUse": {"command": "x"}}"#,
            "\"PreToolUse\" (PreToolUse) must be an array of hook entries, not an object",
        ),
        (
            r#"{"PreToolUse": ["./x.sh"]}"#,
            "PreToolUse entry 0 (PreToolUse[0]) must be an object with a \"command\", not the string \"./x.sh\"",
        ),
        (
            r#"{"PreToolUse": [{"command": "x", "timeoutMs": "5s"}]}"#,
            "\"timeoutMs\" of PreToolUse entry 0 (PreToolUse[0]) must be a positive number of \
                 milliseconds, not the string \"5s\"",
        ),
        (
            r#"{"PreToolUse": [{"command": "x", "timeoutMs": 0}]}"#,
            "\"timeoutMs\" of PreToolUse entry 0 (PreToolUse[0]) must be a positive number of \
                 milliseconds, not the number 0",
        ),
        (
            r#"{"PreToolUse": [{"command": "x", "timeoutMs": -5}]}"#,
            "\"timeoutMs\" of PreToolUse entry 0 (PreToolUse[0]) must be a positive number of \
                 milliseconds, not the number -5",
        ),
        (
            r#"{"PreToolUse": [{"command": "x", "denyOnFailure": "yes"}]}"#,
            "\"denyOnFailure\" of PreToolUse entry 0 (PreToolUse[0]) must be true or false, not the string \"yes\"",
        ),
        (
            r#"{"PostToolUse": [{"command": "x", "persistent": 1}]}"#,
            "\"persistent\" of PostToolUse entry 0 (PostToolUse[0]) must be true or false, not the number 1",
        ),
        (
            r#"{"PreToolUse": [{"command": "x", "matcher": ["Bash"]}]}"#,
            "\"matcher\" of PreToolUse entry 0 (PreToolUse[0]) must be a tool name or \"*\", not an array",
        ),
        (
            r#"{"PreToolUse": [{"command": 5}]}"#,
            "\"command\" of PreToolUse entry 0 (PreToolUse[0]) must be a shell command, not the number 5",
        ),
        (
            r#"{"PreToolUse": [{"command": "a\u0000b"}]}"#,
            "\"command\" of PreToolUse entry 0 (PreToolUse[0]) must be a command without NUL \
                 characters (\\u0000), not a string with one",
        ),
    ] {
        assert_eq!(error_of(text), want, "{text}");
    }
}

#[test]
fn other_events_are_warnings_never_errors() {
    let file = parse(
        r#"{"PreToolUse": [{"command": "x"}], "Stop": [{"command": "y"}], "preToolUse": 3,
                "post_tool_use": []}"#,
    )
    .unwrap();
    assert_eq!(file.hooks.len(), 1);
    // In file order when serde_json keeps it, else sorted: compare sorted.
    let mut warnings: Vec<String> = file.warnings.iter().map(ToString::to_string).collect();
    warnings.sort();
    assert_eq!(
        warnings,
        [
            "\"Stop\": react-agent-mini hooks run on PreToolUse and PostToolUse only, so the \
                 hooks listed under it never run",
            "\"post_tool_use\": react-agent-mini hooks run on PreToolUse and PostToolUse only, \
                 so the hooks listed under it never run; did you mean \"PostToolUse\"?",
            "\"preToolUse\": react-agent-mini hooks run on PreToolUse and PostToolUse only, so \
                 the hooks listed under it never run; did you mean \"PreToolUse\"?",
        ]
    );
    assert_eq!(parse("{}").unwrap(), AgentsFile::default());
    assert_eq!(
        parse(r#"{"PreToolUse": null}"#).unwrap(),
        AgentsFile::default()
    );
}

#[test]
fn load_reads_the_file_and_names_it_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.json");
    std::fs::write(
        &path,
        r#"{"PreToolUse": [{"matcher": "Bash", "command": "true"}]}"#,
    )
    .unwrap();
    assert_eq!(load(&path).unwrap().hooks.len(), 1);
    std::fs::write(&path, r#"{"PreToolUse": [{}]}"#).unwrap();
    let err = load(&path).unwrap_err();
    assert_eq!(err.path(), path);
    assert!(err
        .to_string()
        .starts_with(&format!("{}: PreToolUse entry 0", path.display())));
    std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
    assert!(matches!(
        load(&path).unwrap_err().kind(),
        ConfigErrorKind::InvalidUtf8 { offset: 7, line: 1 }
    ));
    let missing = load(&dir.path().join("nope.json")).unwrap_err();
    assert!(missing.is_not_found());
    assert!(matches!(
        load(dir.path()).unwrap_err().kind(),
        ConfigErrorKind::NotAFile { .. }
    ));
}

// --- the envelope -------------------------------------------------------

#[test]
fn before_a_tool_the_envelope_has_the_event_the_tool_and_its_input() {
    let req = HookRequest::tool_execution_start("Bash", json!({"command": "bun test"}))
        .with_session_id("s1")
        .with_tool_call_id("c1")
        .with_cwd("/w");
    let line = stdin_line(&req).unwrap();
    assert_eq!(
        line,
        b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"bun test\"}}\n"
    );
}

#[test]
fn after_a_tool_the_envelope_adds_its_result() {
    for is_error in [false, true] {
        let req = HookRequest::tool_execution_end(
            "Read",
            json!({"file_path": "a.txt"}),
            "two\nlines",
            is_error,
            Duration::from_millis(5),
        );
        let line = stdin_line(&req).unwrap();
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            v,
            json!({"hook_event_name": "PostToolUse", "tool_name": "Read",
                   "tool_input": {"file_path": "a.txt"}, "tool_result": "two\nlines",
                   "tool_is_error": is_error})
        );
    }
    let odd = HookRequest::new(Event::ToolExecutionEnd, json!({})).with_tool_name("t");
    let v: Value = serde_json::from_slice(&stdin_line(&odd).unwrap()).unwrap();
    assert_eq!(v["tool_input"], json!({}));
    assert_eq!(v["tool_result"], "");
    assert_eq!(v["tool_is_error"], false);
}

#[test]
fn other_points_have_no_envelope() {
    for event in Event::ALL {
        let req = HookRequest::new(event, json!({}));
        let want = matches!(event, Event::ToolExecutionStart | Event::ToolExecutionEnd);
        assert_eq!(stdin_line(&req).is_some(), want, "{event}");
    }
    assert_eq!(AgentsEvent::at(Event::Input), None);
    assert_eq!(
        AgentsEvent::at(Event::ToolExecutionEnd),
        Some(AgentsEvent::PostToolUse)
    );
}

// --- the answer ---------------------------------------------------------

const PRE: AgentsEvent = AgentsEvent::PreToolUse;
const POST: AgentsEvent = AgentsEvent::PostToolUse;

fn denied(reason: &str) -> AgentsAnswer {
    AgentsAnswer::deny(PRE, reason.into())
}

#[test]
fn exit_2_denies_with_stderr_else_stdout() {
    assert_eq!(
        decode(PRE, Some(2), b"out", b"Bash blocked by policy\n", false),
        denied("Bash blocked by policy")
    );
    assert_eq!(
        decode(PRE, Some(2), b"  from stdout\n", b" \n", false),
        denied("from stdout")
    );
    assert_eq!(
        decode(PRE, Some(2), b"", b"", false),
        denied("blocked by hook")
    );
}

#[test]
fn a_last_stdout_line_that_says_deny_denies() {
    let out = b"checking\n{\"decision\":\"deny\",\"reason\":\"json says no\"}\n\n";
    assert_eq!(
        decode(PRE, Some(0), out, b"", false),
        denied("json says no")
    );
    for line in [
        json!({"permissionDecision": "deny", "permissionDecisionReason": "p"}),
        json!({"behavior": "deny", "message": "p"}),
        json!({"decision": "allow", "behavior": "deny", "reason": "", "message": "p"}),
    ] {
        let out = line.to_string();
        assert_eq!(
            decode(PRE, Some(0), out.as_bytes(), b"", false),
            denied("p"),
            "{line}"
        );
    }
    // `reason` comes first.
    let out =
        json!({"decision": "deny", "message": "m", "permissionDecisionReason": "p", "reason": "r"});
    assert_eq!(
        decode(PRE, Some(0), out.to_string().as_bytes(), b"", false),
        denied("r")
    );
    let out = json!({"decision": "deny"}).to_string();
    assert_eq!(
        decode(PRE, Some(0), out.as_bytes(), b"", false),
        denied("blocked by hook")
    );
}

#[test]
fn anything_else_on_exit_0_allows() {
    for out in [
        &b""[..],
        b"ok\n",
        b"{\"decision\":\"deny\"}\nlater line\n",
        b"{\"decision\":\"allow\"}",
        b"{\"decision\":\"block\"}",
        b"{\"hookSpecificOutput\":{\"permissionDecision\":\"deny\"}}",
        b"{\"decision\":\"Deny\"}",
        b"[\"deny\"]",
        b"\xff\xfe",
    ] {
        assert_eq!(
            decode(PRE, Some(0), out, b"no", false),
            AgentsAnswer::allow()
        );
    }
}

#[test]
fn a_failure_allows_with_an_error_unless_deny_on_failure() {
    let a = decode(PRE, Some(1), b"{\"decision\":\"deny\"}", b"broken\n", false);
    assert_eq!(a.decision, AgentsDecision::Allow);
    assert_eq!(a.error.as_deref(), Some("exited with status 1: broken"));
    let a = decode(PRE, Some(1), b"", b"broken\n", true);
    assert_eq!(a.decision, AgentsDecision::Deny);
    assert!(a.honored);
    assert_eq!(a.reason.as_deref(), Some("exited with status 1: broken"));
    assert_eq!(a.error, a.reason);
    let a = decode(PRE, None, b"", b"", false);
    assert_eq!(a.error.as_deref(), Some("killed by a signal"));
    let a = failed(PRE, &Failure::TimedOut(Duration::from_millis(300)), true);
    assert_eq!(a.decision, AgentsDecision::Deny);
    assert_eq!(a.reason.as_deref(), Some("timed out after 300 ms"));
    let a = failed(PRE, &Failure::CouldNotStart("no sh".into()), false);
    assert_eq!(a.decision, AgentsDecision::Allow);
    assert_eq!(a.error.as_deref(), Some("could not start: no sh"));
}

#[test]
fn post_tool_use_only_observes() {
    let a = decode(POST, Some(2), b"", b"too late", false);
    assert_eq!(a.decision, AgentsDecision::Deny);
    assert!(!a.honored);
    let a = decode(POST, Some(0), b"{\"decision\":\"deny\"}", b"", false);
    assert!(!a.honored);
    let a = decode(POST, Some(1), b"", b"", true);
    assert_eq!(a.decision, AgentsDecision::Allow);
    assert!(a.error.is_some());
}

#[test]
fn event_names_round_trip() {
    for event in AgentsEvent::ALL {
        assert_eq!(AgentsEvent::from_name(event.name()), Some(event));
        assert_eq!(AgentsEvent::at(event.event()), Some(event));
    }
    assert_eq!(AgentsEvent::from_name("preToolUse"), None);
}

#[test]
fn an_entrys_other_keys_and_the_wrapped_files_other_keys_are_left_alone() {
    let file = parse(
        r#"{"version": 2, "hooks": {"PreToolUse": [{"command": "x", "description": "guard",
            "retries": [1, 2], "timeoutMs": null}]}}"#,
    )
    .unwrap();
    assert_eq!(file.hooks, [hook(AgentsEvent::PreToolUse, 0, None, "x")]);
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
}

#[test]
fn of_several_faults_the_first_met_is_reported_with_its_place() {
    // PostToolUse comes first in the file and in key order, so its fault is
    // met before PreToolUse's two.
    let err = error_of(
        r#"{"PostToolUse": [{"command": "x", "persistent": 1}],
            "PreToolUse": [{"command": 5, "timeoutMs": "5s"}]}"#,
    );
    assert_eq!(
        err,
        "\"persistent\" of PostToolUse entry 0 (PostToolUse[0]) must be true or false, not the \
         number 1"
    );
}
