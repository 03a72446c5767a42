use super::*;
use crate::request::{CompactionReason, ShutdownReason, StartReason};
use serde_json::json;

// --- the envelope -------------------------------------------------------

#[test]
fn only_an_explicit_allow_approves() {
    let ok = |json: Value, event: &str| {
        decode(Some(0), json.to_string().as_bytes(), b"", event).approved
    };
    let pre = |d: &str| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": d}});
    assert!(ok(pre("allow"), "PreToolUse"));
    assert!(!ok(pre("ask"), "PreToolUse"));
    assert!(!ok(pre("deny"), "PreToolUse"));
    assert!(!ok(json!({}), "PreToolUse"));
    assert!(!ok(json!({"decision": "approve"}), "PreToolUse"));
    let permission = |b: &str| json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": b}}});
    assert!(ok(permission("allow"), "PermissionRequest"));
    assert!(!ok(permission("deny"), "PermissionRequest"));
    assert!(!decode(Some(0), b"", b"", "PermissionRequest").approved);
}

fn envelope_of(req: &HookRequest, envelope: &Envelope<'_>) -> Value {
    let raw = stdin_bytes(req, envelope);
    assert_eq!(raw.last(), Some(&b'\n'));
    assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
    serde_json::from_slice(&raw).unwrap()
}

fn stdin_of(req: &HookRequest) -> Value {
    envelope_of(req, &Envelope::new("/w"))
}

fn keys_in_order(req: &HookRequest, envelope: &Envelope<'_>) -> Vec<String> {
    // Read the keys in the order they were written (serde_json's Map may sort).
    let raw = String::from_utf8(stdin_bytes(req, envelope)).unwrap();
    let value: Value = serde_json::from_str(&raw).unwrap();
    let mut keys: Vec<(usize, String)> = value
        .as_object()
        .unwrap()
        .keys()
        .map(|k| (raw.find(&format!("\"{k}\":")).unwrap(), k.clone()))
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

#[test]
fn pre_tool_use_envelope_has_the_common_fields_first_then_the_tool() {
    let req = HookRequest::tool_execution_start("Bash", json!({"command": "ls"}))
        .with_tool_call_id("toolu_1")
        .with_session_id("s1");
    let envelope = Envelope::new("/w")
        .with_transcript_path("/t.jsonl")
        .with_permission_mode("plan");
    assert_eq!(
        envelope_of(&req, &envelope),
        json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/w",
               "permission_mode": "plan", "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"})
    );
    assert_eq!(
        keys_in_order(&req, &envelope),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "permission_mode",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id"
        ]
    );
}

#[test]
fn envelope_defaults_and_never_carries_nanopi_fields() {
    // The conformance suite's mixed case: Claude's envelope, not nanopi's.
    let v = stdin_of(&HookRequest::tool_execution_start(
        "Bash",
        json!({"command": "ls"}),
    ));
    let obj = v.as_object().unwrap();
    assert_eq!(obj["session_id"], "");
    assert_eq!(obj["transcript_path"], "");
    assert_eq!(obj["permission_mode"], "default");
    assert!(!obj.contains_key("event"));
    assert!(!obj.contains_key("arguments"));
    assert!(!obj.contains_key("tool_use_id"));
}

#[test]
fn newlines_in_values_stay_escaped_on_one_line() {
    let req = HookRequest::input("two\nlines\u{2028}");
    let raw = stdin_bytes(&req, &Envelope::new("/w"));
    assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
}

fn ended(is_error: bool) -> HookRequest {
    HookRequest::tool_execution_end(
        "Read",
        json!({"file_path": "a.txt"}),
        if is_error { "ENOENT: a.txt" } else { "hello" },
        is_error,
        Duration::from_millis(12),
    )
    .with_tool_call_id("toolu_2")
}

#[test]
fn a_tool_that_succeeded_fires_post_tool_use_with_its_response() {
    let req = ended(false);
    assert_eq!(event_name(&req), Some("PostToolUse"));
    let v = stdin_of(&req);
    assert_eq!(v["hook_event_name"], "PostToolUse");
    assert_eq!(v["tool_name"], "Read");
    assert_eq!(v["tool_input"], json!({"file_path": "a.txt"}));
    assert_eq!(v["tool_use_id"], "toolu_2");
    assert_eq!(v["tool_response"], json!({"content": "hello"}));
    assert_eq!(v["duration_ms"], 12);
    assert!(v.get("error").is_none());
}

#[test]
fn structured_content_is_the_tool_response_when_there_is_one() {
    let mut req = ended(false);
    req.set_response_field("structured_content", json!({"rows": 3}));
    assert_eq!(stdin_of(&req)["tool_response"], json!({"rows": 3}));
}

#[test]
fn a_tool_that_failed_fires_post_tool_use_failure_with_the_error() {
    let req = ended(true);
    assert_eq!(event_name(&req), Some("PostToolUseFailure"));
    let v = stdin_of(&req);
    assert_eq!(v["hook_event_name"], "PostToolUseFailure");
    assert_eq!(v["error"], "ENOENT: a.txt");
    assert_eq!(v["tool_use_id"], "toolu_2");
    assert!(v.get("tool_response").is_none());
}

#[test]
fn permission_request_has_the_tool_but_no_tool_use_id() {
    let req = HookRequest::permission_request("Bash", json!({"command": "kubectl delete pod x"}))
        .with_tool_call_id("toolu_3");
    let v = stdin_of(&req);
    assert_eq!(v["hook_event_name"], "PermissionRequest");
    assert_eq!(v["tool_input"]["command"], "kubectl delete pod x");
    assert!(v.get("tool_use_id").is_none());
}

#[test]
fn user_prompt_submit_has_the_prompt() {
    let v = stdin_of(&HookRequest::input("fix the bug"));
    assert_eq!(v["hook_event_name"], "UserPromptSubmit");
    assert_eq!(v["prompt"], "fix the bug");
}

#[test]
fn session_start_reasons_become_sources() {
    for (reason, source) in [
        (StartReason::Startup, "startup"),
        (StartReason::New, "clear"),
        (StartReason::Resume, "resume"),
        (StartReason::Fork, "fork"),
        (StartReason::Import, "resume"),
    ] {
        let v = stdin_of(&HookRequest::session_start(reason));
        assert_eq!(v["hook_event_name"], "SessionStart");
        assert_eq!(v["source"], source, "{reason:?}");
        assert!(v.get("reason").is_none());
    }
}

#[test]
fn shutdown_reasons_become_session_end_reasons() {
    for (reason, claude) in [
        (ShutdownReason::Quit, "prompt_input_exit"),
        (ShutdownReason::New, "clear"),
        (ShutdownReason::Resume, "resume"),
        (ShutdownReason::Fork, "other"),
        (ShutdownReason::Import, "resume"),
    ] {
        let v = stdin_of(&HookRequest::session_shutdown(reason));
        assert_eq!(v["hook_event_name"], "SessionEnd");
        assert_eq!(v["reason"], claude, "{reason:?}");
    }
}

#[test]
fn compaction_reasons_become_triggers() {
    let v = stdin_of(&HookRequest::session_before_compact(
        CompactionReason::Threshold,
    ));
    assert_eq!(v["hook_event_name"], "PreCompact");
    assert_eq!(v["trigger"], "auto");
    assert_eq!(v["custom_instructions"], "");
    assert!(v.get("reason").is_none());
    let v = stdin_of(&HookRequest::session_compact(CompactionReason::Manual));
    assert_eq!(v["hook_event_name"], "PostCompact");
    assert_eq!(v["trigger"], "manual");
    assert!(v.get("custom_instructions").is_none());
    let req = HookRequest::new(
        Event::SessionBeforeCompact,
        json!({"reason": "manual", "custom_instructions": "keep the plan"}),
    );
    assert_eq!(stdin_of(&req)["custom_instructions"], "keep the plan");
}

#[test]
fn an_unknown_reason_passes_through() {
    let req = HookRequest::new(Event::SessionStart, json!({"reason": "compact"}));
    assert_eq!(stdin_of(&req)["source"], "compact");
}

#[test]
fn stop_and_subagent_fields_are_written_as_given() {
    let v = stdin_of(&HookRequest::stop(true, "done"));
    assert_eq!(v["hook_event_name"], "Stop");
    assert_eq!(v["stop_hook_active"], true);
    assert_eq!(v["last_assistant_message"], "done");
    let v = stdin_of(&HookRequest::new(Event::Stop, json!({})));
    assert_eq!(v["stop_hook_active"], false);
    let v = stdin_of(&HookRequest::subagent_stop(
        "a1", "Explore", false, "found it",
    ));
    assert_eq!(v["hook_event_name"], "SubagentStop");
    assert_eq!(v["agent_id"], "a1");
    assert_eq!(v["agent_type"], "Explore");
    assert_eq!(v["stop_hook_active"], false);
    let v = stdin_of(&HookRequest::subagent_start("a1", "Plan"));
    assert_eq!(v["hook_event_name"], "SubagentStart");
    assert_eq!(v["agent_type"], "Plan");
    let v = stdin_of(&HookRequest::notification(
        "needs you",
        Some("t"),
        "idle_prompt",
    ));
    assert_eq!(v["hook_event_name"], "Notification");
    assert_eq!(v["message"], "needs you");
    assert_eq!(v["title"], "t");
    assert_eq!(v["notification_type"], "idle_prompt");
    let v = stdin_of(&HookRequest::stop_failure("rate_limit", "429"));
    assert_eq!(v["hook_event_name"], "StopFailure");
    assert_eq!(v["error"], "rate_limit");
    let v = stdin_of(&HookRequest::instructions_loaded(
        "/p/CLAUDE.md",
        "Project",
        "session_start",
    ));
    assert_eq!(v["hook_event_name"], "InstructionsLoaded");
    assert_eq!(v["load_reason"], "session_start");
    let v = stdin_of(&HookRequest::post_tool_batch(
        json!([{"tool_name": "Read"}]),
    ));
    assert_eq!(v["hook_event_name"], "PostToolBatch");
    assert_eq!(v["tool_calls"][0]["tool_name"], "Read");
}

#[test]
fn the_subagent_of_the_call_is_written_unless_the_event_has_its_own() {
    let req = HookRequest::tool_execution_start("Bash", json!({}));
    let v = envelope_of(&req, &Envelope::new("/w").with_agent("a9", "Explore"));
    assert_eq!(v["agent_id"], "a9");
    assert_eq!(v["agent_type"], "Explore");
    let req = HookRequest::subagent_start("a1", "Plan");
    let v = envelope_of(&req, &Envelope::new("/w").with_agent("a9", "Explore"));
    assert_eq!(v["agent_id"], "a1");
    assert_eq!(v["agent_type"], "Plan");
}

#[test]
fn given_fields_replace_the_engines_in_place_and_extend_it() {
    let req = HookRequest::tool_execution_end(
        "Bash",
        json!({"command": "ls"}),
        "x",
        false,
        Duration::ZERO,
    );
    let fields = json!({"tool_response": {"stdout": "x", "stderr": ""}, "transcript_path": "/real",
                        "is_interrupt": false});
    let fields = fields.as_object().unwrap();
    let envelope = Envelope::new("/w").with_fields(fields);
    let v = envelope_of(&req, &envelope);
    assert_eq!(v["tool_response"], json!({"stdout": "x", "stderr": ""}));
    assert_eq!(v["transcript_path"], "/real");
    assert_eq!(v["is_interrupt"], false);
    let keys = keys_in_order(&req, &envelope);
    assert_eq!(keys[1], "transcript_path");
    assert_eq!(keys.last().map(String::as_str), Some("is_interrupt"));
    assert_eq!(keys.len(), v.as_object().unwrap().len());
}

#[test]
fn an_event_fired_by_name_carries_its_raw_fields() {
    let fields = json!({"task_id": "t1", "task_subject": "ship it"});
    let fields = fields.as_object().unwrap();
    let req = HookRequest::new(Event::Notification, json!({})).with_session_id("s");
    let envelope = Envelope::new("/w")
        .with_event_name("TaskCreated")
        .with_fields(fields);
    assert_eq!(
        envelope_of(&req, &envelope),
        json!({"session_id": "s", "transcript_path": "", "cwd": "/w", "permission_mode": "default",
               "hook_event_name": "TaskCreated", "task_id": "t1", "task_subject": "ship it"})
    );
}

#[test]
fn a_point_without_a_claude_event_has_no_name() {
    for req in [
        HookRequest::turn_start(1, 0),
        HookRequest::turn_end(1, 0, false),
        HookRequest::before_agent_start(1, "hi"),
        HookRequest::message_end(1, 3),
        HookRequest::agent_thought("hmm"),
    ] {
        assert_eq!(event_name(&req), None, "{req:?}");
    }
    for event in Event::ALL {
        let req = HookRequest::new(event, json!({}));
        assert_eq!(event_name(&req), event.claude_names().first().copied());
    }
}

#[test]
fn env_has_the_project_and_the_plugin_root() {
    let vars: Vec<_> = env_vars("/p", Some("/plug")).collect();
    assert_eq!(
        vars,
        [
            ("CLAUDE_PROJECT_DIR", "/p"),
            ("CLAUDE_PLUGIN_ROOT", "/plug")
        ]
    );
    let vars: Vec<_> = env_vars("/p", None).collect();
    assert_eq!(vars, [("CLAUDE_PROJECT_DIR", "/p")]);
}

// --- the answer ---------------------------------------------------------

fn json_answer(answer: Value, event: &str) -> ClaudeAnswer {
    decode(Some(0), answer.to_string().as_bytes(), b"", event)
}

fn pre(fields: Value) -> Value {
    let mut specific = json!({"hookEventName": "PreToolUse"});
    specific
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    json!({ "hookSpecificOutput": specific })
}

fn block(reason: &str, honored: bool) -> ClaudeAnswer {
    ClaudeAnswer {
        decision: ClaudeDecision::Block,
        honored,
        reason: Some(reason.into()),
        ..ClaudeAnswer::default()
    }
}

#[test]
fn pretty_printed_and_compact_json_decode_alike() {
    let answer = json!({"systemMessage": "heads up",
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                               "permissionDecisionReason": "pretty no", "additionalContext": "ctx"}});
    let compact = serde_json::to_vec(&answer).unwrap();
    let mut pretty = b"\n  ".to_vec();
    pretty.extend(serde_json::to_vec_pretty(&answer).unwrap());
    pretty.extend(b"\n\n");
    let a = decode(Some(0), &compact, b"", "PreToolUse");
    assert_eq!(a, decode(Some(0), &pretty, b"", "PreToolUse"));
    assert_eq!(a.decision, ClaudeDecision::Block);
    assert_eq!(a.reason.as_deref(), Some("pretty no"));
    assert_eq!(a.context, ["ctx"]);
    assert_eq!(a.user_messages, ["heads up"]);
}

#[test]
fn invalid_json_on_exit_0_is_plain_text() {
    let out = br#"{"hookSpecificOutput": {"permissionDecision": "deny"}"#;
    assert_eq!(
        decode(Some(0), out, b"", "PreToolUse"),
        ClaudeAnswer::default()
    );
    let a = decode(Some(0), out, b"", "UserPromptSubmit");
    assert_eq!(a.context, [String::from_utf8_lossy(out)]);
    assert_eq!(a.decision, ClaudeDecision::Allow);
    // Two objects are not one answer; an array or a string is no object.
    for out in [
        &br#"{"decision":"block"}{"decision":"block"}"#[..],
        b"[1]",
        b"\"x\"",
    ] {
        assert_eq!(
            decode(Some(0), out, b"", "PreToolUse"),
            ClaudeAnswer::default()
        );
    }
}

#[test]
fn plain_stdout_is_context_on_prompt_and_session_start_only() {
    for event in ["UserPromptSubmit", "SessionStart", "UserPromptExpansion"] {
        let a = decode(Some(0), b"current branch: main\n", b"", event);
        assert_eq!(a.context, ["current branch: main"], "{event}");
    }
    for event in ["PreToolUse", "PostToolUse", "Stop", "Notification"] {
        let a = decode(Some(0), b"current branch: main\n", b"", event);
        assert_eq!(a, ClaudeAnswer::default(), "{event}");
    }
    assert_eq!(
        decode(Some(0), b"  \n", b"", "UserPromptSubmit"),
        ClaudeAnswer::default()
    );
}

#[test]
fn exit_2_blocks_with_stderr_whatever_stdout_says() {
    let allow = pre(json!({"permissionDecision": "allow"})).to_string();
    let a = decode(
        Some(2),
        allow.as_bytes(),
        b"rm is not allowed here\n",
        "PreToolUse",
    );
    assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
    assert_eq!(a.reason.as_deref(), Some("rm is not allowed here"));
    assert!(!a.approved);
    assert_eq!(a.warnings.len(), 1, "{:?}", a.warnings);
    assert_eq!(
        decode(Some(2), b"this is stdout\n", b"", "PreToolUse"),
        block("No stderr output", true)
    );
    assert_eq!(
        decode(Some(2), b"", b" \n", "PreToolUse"),
        block("No stderr output", true)
    );
    assert_eq!(
        decode(Some(2), b"", b"a\nb\r\n", "PreToolUse")
            .reason
            .as_deref(),
        Some("a\nb")
    );
}

#[test]
fn exit_2_takes_its_reason_from_the_json_answers_own_block() {
    // permissionDecision deny, with and without a reason.
    let deny =
        pre(json!({"permissionDecision": "deny", "permissionDecisionReason": "json says no"}));
    let a = decode(
        Some(2),
        deny.to_string().as_bytes(),
        b"stderr says no",
        "PreToolUse",
    );
    assert_eq!(a, block("json says no", true));
    let deny = pre(json!({"permissionDecision": "deny"}));
    let a = decode(
        Some(2),
        deny.to_string().as_bytes(),
        b"stderr says no",
        "PreToolUse",
    );
    assert_eq!(a, block("stderr says no", true));
    // A top-level block, at an event where the reason is the follow-up.
    let stop = json!({"decision": "block", "reason": "run the tests"});
    let a = decode(Some(2), stop.to_string().as_bytes(), b"later", "Stop");
    assert_eq!(a.follow_up.as_deref(), Some("run the tests"));
    assert_eq!(a.reason.as_deref(), Some("run the tests"));
    // PermissionRequest: the JSON's deny is honored, with its message.
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": "not on prod"}}});
    let a = decode(
        Some(2),
        deny.to_string().as_bytes(),
        b"no",
        "PermissionRequest",
    );
    assert_eq!(a, block("not on prod", true));
}

#[test]
fn exit_2_keeps_the_json_answers_other_fields() {
    let answer = json!({"systemMessage": "heads up", "continue": false, "stopReason": "halt",
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
            "additionalContext": "the rule is in AGENTS.md", "updatedInput": {"command": "ls"}}});
    let a = decode(
        Some(2),
        answer.to_string().as_bytes(),
        b"no rm\n",
        "PreToolUse",
    );
    assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
    assert_eq!(a.reason.as_deref(), Some("no rm"));
    assert_eq!(a.context, ["the rule is in AGENTS.md"]);
    assert_eq!(a.user_messages, ["heads up"]);
    assert_eq!(a.stop.as_deref(), Some("halt"));
    assert_eq!(a.updated_input, None, "a block rewrites nothing");
    assert!(!a.approved);

    // JSON that breaks the schema is left out: stderr's block alone.
    let broken = json!({"systemMessage": 3, "hookSpecificOutput": {"additionalContext": "x"}});
    let a = decode(
        Some(2),
        broken.to_string().as_bytes(),
        b"no rm",
        "PreToolUse",
    );
    assert_eq!(
        (a.decision, a.reason.as_deref()),
        (ClaudeDecision::Block, Some("no rm"))
    );
    assert!(a.context.is_empty() && a.user_messages.is_empty());
    assert!(
        a.warnings[0].contains("systemMessage must be a string"),
        "{:?}",
        a.warnings
    );
}

#[test]
fn any_other_exit_is_a_non_blocking_error() {
    let a = decode(Some(1), b"", b"lint crashed\nat line 3\n", "PreToolUse");
    assert_eq!(a.decision, ClaudeDecision::Allow);
    assert_eq!(
        a.error.as_deref(),
        Some("exited with status 1: lint crashed")
    );
    assert!(a.is_error());
    assert_eq!(
        decode(Some(127), b"", b"", "PreToolUse").error.as_deref(),
        Some("exited with status 127")
    );
    assert_eq!(
        decode(None, b"", b"\n  boom \n", "Stop").error.as_deref(),
        Some("killed by a signal: boom")
    );
    // Plain text, and JSON that breaks the schema, are no answer.
    for stdout in [&b"deny\n"[..], b"{not json", br#"{"decision": "maybe"}"#] {
        let a = decode(Some(1), stdout, b"", "PreToolUse");
        assert!(a.is_error(), "{a:?}");
        assert_eq!(a.decision, ClaudeDecision::Allow);
    }
    // A signal is not an exit: what the hook printed is not read.
    let deny = pre(json!({"permissionDecision": "deny"})).to_string();
    assert!(decode(None, deny.as_bytes(), b"", "PreToolUse").is_error());
}

#[test]
fn any_other_exit_with_a_json_answer_decides_as_exit_0() {
    let deny = pre(json!({"permissionDecision": "deny", "permissionDecisionReason": "no"}));
    for code in [1, 3, 127] {
        let a = decode(
            Some(code),
            deny.to_string().as_bytes(),
            b"oops",
            "PreToolUse",
        );
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (ClaudeDecision::Block, Some("no"))
        );
        assert!(!a.is_error());
        assert!(
            a.warnings[0].contains(&format!("status {code}")),
            "{:?}",
            a.warnings
        );
    }
    let rewrite = pre(json!({"updatedInput": {"command": "ls"}}));
    let a = decode(Some(1), rewrite.to_string().as_bytes(), b"", "PreToolUse");
    assert_eq!(
        a.updated_input.map(Value::Object),
        Some(json!({"command": "ls"}))
    );
    let a = decode(
        Some(1),
        br#"{"decision": "block", "reason": "again"}"#,
        b"",
        "Stop",
    );
    assert_eq!(a.follow_up.as_deref(), Some("again"));
}

#[test]
fn stop_additional_context_keeps_the_agent_going_without_a_block() {
    for event in ["Stop", "SubagentStop"] {
        let answer = json!({"hookSpecificOutput": {"hookEventName": event,
            "additionalContext": "the tests still fail"}});
        let a = json_answer(answer, event);
        assert_eq!(a.decision, ClaudeDecision::Allow, "{event}");
        assert_eq!(a.follow_up.as_deref(), Some("the tests still fail"));
        assert!(a.context.is_empty() && !a.is_error() && a.reason.is_none());
    }
    // With a block too, both are the instruction.
    let answer = json!({"decision": "block", "reason": "fix lint",
        "hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "see CI"}});
    let a = json_answer(answer, "Stop");
    assert_eq!(a.decision, ClaudeDecision::Block);
    assert_eq!(a.follow_up.as_deref(), Some("fix lint\nsee CI"));
    // Exit 2 keeps it as well.
    let answer =
        json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "see CI"}});
    let a = decode(Some(2), answer.to_string().as_bytes(), b"fix lint", "Stop");
    assert_eq!(a.follow_up.as_deref(), Some("fix lint\nsee CI"));
    // Blank text is no instruction.
    let answer = json!({"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": " "}});
    assert_eq!(json_answer(answer, "Stop"), ClaudeAnswer::default());
}

#[test]
fn a_long_stderr_line_is_shortened_in_the_error() {
    let long = "x".repeat(500);
    let error = decode(Some(1), b"", long.as_bytes(), "PreToolUse")
        .error
        .unwrap();
    assert_eq!(
        error.chars().count(),
        "exited with status 1: ".len() + 200 + 1
    );
    assert!(error.ends_with('…'));
}

#[test]
fn every_failure_has_one_shape() {
    assert_eq!(
        ClaudeAnswer::timed_out(Duration::from_secs(2))
            .error
            .as_deref(),
        Some("timed out after 2 s")
    );
    assert_eq!(
        ClaudeAnswer::timed_out(Duration::from_millis(1500))
            .error
            .as_deref(),
        Some("timed out after 1500 ms")
    );
    assert_eq!(
        ClaudeAnswer::could_not_start("No such file or directory")
            .error
            .as_deref(),
        Some("could not start: No such file or directory")
    );
    let a = ClaudeAnswer::timed_out(Duration::from_secs(1));
    assert_eq!(a.decision, ClaudeDecision::Allow);
    assert!(a.honored && a.context.is_empty() && a.reason.is_none());
}

#[test]
fn continue_false_sets_stop_and_leaves_the_decision() {
    let a = json_answer(
        json!({"continue": false, "stopReason": "budget exhausted"}),
        "PreToolUse",
    );
    assert_eq!(a.stop.as_deref(), Some("budget exhausted"));
    assert_eq!(a.decision, ClaudeDecision::Allow);
    assert_eq!(a.reason, None);
    let a = json_answer(json!({"continue": false}), "Stop");
    assert_eq!(a.stop.as_deref(), Some(""));
    let a = json_answer(
        json!({"continue": false, "decision": "block", "reason": "more"}),
        "Stop",
    );
    assert_eq!(a.stop.as_deref(), Some(""));
    assert_eq!(a.decision, ClaudeDecision::Block);
    assert_eq!(json_answer(json!({"continue": true}), "Stop").stop, None);
}

#[test]
fn system_message_is_a_user_message_not_context() {
    let a = json_answer(json!({"systemMessage": "heads up: prod"}), "PreToolUse");
    assert_eq!(a.user_messages, ["heads up: prod"]);
    assert!(a.context.is_empty());
    assert_eq!(a.decision, ClaudeDecision::Allow);
}

#[test]
fn permission_decisions_on_pre_tool_use() {
    let a = json_answer(
        pre(json!({"permissionDecision": "deny", "permissionDecisionReason": "use trash"})),
        "PreToolUse",
    );
    assert_eq!(a, block("use trash", true));
    let a = json_answer(pre(json!({"permissionDecision": "deny"})), "PreToolUse");
    assert_eq!(a.reason.as_deref(), Some("Blocked by hook"));

    let a = json_answer(
        pre(json!({"permissionDecision": "allow", "permissionDecisionReason": "read-only"})),
        "PreToolUse",
    );
    assert_eq!(a.decision, ClaudeDecision::Allow);
    assert_eq!(a.reason, None);
    assert_eq!(a.user_messages, ["read-only"]);

    let a = json_answer(
        pre(json!({"permissionDecision": "ask", "permissionDecisionReason": "pushes"})),
        "PreToolUse",
    );
    assert_eq!(a.decision, ClaudeDecision::Ask);
    assert_eq!(a.reason.as_deref(), Some("pushes"));
    assert_eq!(a.user_messages, ["pushes"]);

    let a = json_answer(
        pre(json!({"permissionDecision": "defer", "permissionDecisionReason": "ignored"})),
        "PreToolUse",
    );
    assert_eq!(a.decision, ClaudeDecision::Defer);
    assert_eq!(a.reason, None);
    assert!(a.user_messages.is_empty());
}

#[test]
fn updated_input_replaces_the_input_unless_denied_or_deferred() {
    let new = json!({"command": "rm -rf ./build"});
    for decision in [Some("allow"), Some("ask"), None] {
        let mut fields = json!({"updatedInput": new});
        if let Some(d) = decision {
            fields["permissionDecision"] = json!(d);
        }
        let a = json_answer(pre(fields), "PreToolUse");
        assert_eq!(
            a.updated_input.map(Value::Object),
            Some(new.clone()),
            "{decision:?}"
        );
    }
    for decision in ["deny", "defer"] {
        let a = json_answer(
            pre(json!({"permissionDecision": decision, "updatedInput": new})),
            "PreToolUse",
        );
        assert_eq!(a.updated_input, None, "{decision}");
    }
}

#[test]
fn additional_context_goes_to_the_model_where_the_event_takes_it() {
    for event in [
        "PreToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
    ] {
        let a = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": "ticket ABC-1"}}),
            event,
        );
        assert_eq!(a.context, ["ticket ABC-1"], "{event}");
    }
    for event in ["Stop", "Notification", "SessionEnd", "PermissionRequest"] {
        let a = json_answer(
            json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": "x"}}),
            event,
        );
        assert!(a.context.is_empty(), "{event}");
    }
    // At top level it is nothing.
    let a = json_answer(json!({"additionalContext": "x"}), "UserPromptSubmit");
    assert!(a.context.is_empty());
}

#[test]
fn legacy_decisions_on_pre_tool_use() {
    let a = json_answer(
        json!({"decision": "approve", "reason": "fine"}),
        "PreToolUse",
    );
    assert_eq!(a.decision, ClaudeDecision::Allow);
    assert_eq!(a.user_messages, ["fine"]);
    let a = json_answer(
        json!({"decision": "block", "reason": "old no"}),
        "PreToolUse",
    );
    assert_eq!(a, block("old no", true));
    // With a permissionDecision too, the stronger one decides, with its reason.
    let mut both = pre(json!({"permissionDecision": "allow", "permissionDecisionReason": "ok"}));
    both["decision"] = json!("block");
    both["reason"] = json!("top no");
    assert_eq!(json_answer(both, "PreToolUse"), block("top no", true));
    let mut both = pre(json!({"permissionDecision": "ask", "permissionDecisionReason": "sure?"}));
    both["decision"] = json!("approve");
    let a = json_answer(both, "PreToolUse");
    assert_eq!(a.decision, ClaudeDecision::Ask);
    assert_eq!(a.reason.as_deref(), Some("sure?"));
}

#[test]
fn what_a_block_means_depends_on_the_event() {
    let json_block =
        |event: &str| json_answer(json!({"decision": "block", "reason": "because"}), event);
    let exit_2 = |event: &str| decode(Some(2), b"", b"because", event);
    for answer_of in [&json_block as &dyn Fn(&str) -> ClaudeAnswer, &exit_2] {
        let a = answer_of("UserPromptSubmit");
        assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
        assert_eq!(a.user_messages, ["because"]);
        assert!(a.context.is_empty() && a.follow_up.is_none());

        for event in ["Stop", "SubagentStop"] {
            let a = answer_of(event);
            assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
            assert_eq!(a.follow_up.as_deref(), Some("because"));
            assert_eq!(a.reason.as_deref(), Some("because"));
        }

        for event in ["PostToolUse", "PostToolUseFailure"] {
            let a = answer_of(event);
            assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, false));
            assert_eq!(a.context, ["because"]);
        }

        let a = answer_of("PreCompact");
        assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
        assert!(a.context.is_empty() && a.user_messages.is_empty());

        for event in [
            "SessionStart",
            "SessionEnd",
            "Notification",
            "SubagentStart",
            "StopFailure",
        ] {
            let a = answer_of(event);
            if a.decision == ClaudeDecision::Block {
                assert!(!a.honored, "{event}");
            }
        }
        let a = answer_of("SessionStart");
        assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, false));
    }
}

#[test]
fn a_stop_block_without_reason_follows_up_with_the_default() {
    let a = json_answer(json!({"decision": "block"}), "Stop");
    assert_eq!(a.follow_up.as_deref(), Some("Blocked by hook"));
}

#[test]
fn permission_request_denies_only_by_its_decision_object() {
    let answer = |decision: Value| {
        json_answer(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}),
            "PermissionRequest",
        )
    };
    let a = answer(json!({"behavior": "deny", "message": "not on prod"}));
    assert_eq!(a, block("not on prod", true));
    let a = answer(json!({"behavior": "deny"}));
    assert_eq!(a.reason.as_deref(), Some("Blocked by hook"));
    let a = answer(json!({"behavior": "deny", "message": "stop it", "interrupt": true}));
    assert_eq!(a.stop.as_deref(), Some("stop it"));
    assert_eq!(a.decision, ClaudeDecision::Block);
    let a = answer(json!({"behavior": "allow", "updatedInput": {"command": "ls"}}));
    assert_eq!(a.decision, ClaudeDecision::Allow);
    assert_eq!(
        a.updated_input.map(Value::Object),
        Some(json!({"command": "ls"}))
    );

    // Exit 2 and a top-level block are recorded, not honored.
    assert_eq!(
        decode(Some(2), b"", b"no", "PermissionRequest"),
        block("no", false)
    );
    let a = json_answer(
        json!({"decision": "block", "reason": "no"}),
        "PermissionRequest",
    );
    assert_eq!(a, block("no", false));
    // A permissionDecision is not PermissionRequest's field.
    let a = json_answer(
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "permissionDecision": "deny"}}),
        "PermissionRequest",
    );
    assert_eq!(a, ClaudeAnswer::default());
    // A decision object needs a behavior.
    assert!(answer(json!({"message": "x"})).is_error());
    assert!(answer(json!({"behavior": "ask"})).is_error());
}

#[test]
fn updated_tool_output_rewrites_post_tool_use_only() {
    let a = json_answer(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"content": "[redacted]"}}}),
        "PostToolUse",
    );
    assert_eq!(
        a.updated_tool_output,
        Some(json!({"content": "[redacted]"}))
    );
    let a = json_answer(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "x"}}),
        "PostToolUse",
    );
    assert_eq!(a.updated_tool_output, Some(json!("x")));
    let a = json_answer(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "updatedToolOutput": "x"}}),
        "PostToolUseFailure",
    );
    assert_eq!(a.updated_tool_output, None);
}

#[test]
fn an_answer_that_breaks_the_schema_is_an_error() {
    for (answer, event) in [
        (json!({"continue": "no"}), "PreToolUse"),
        (json!({"systemMessage": 5}), "PreToolUse"),
        (json!({"decision": "deny"}), "Stop"),
        (json!({"reason": ["a"]}), "Stop"),
        (json!({"hookSpecificOutput": "deny"}), "PreToolUse"),
        (pre(json!({"permissionDecision": "Deny"})), "PreToolUse"),
        (pre(json!({"updatedInput": "ls"})), "PreToolUse"),
        (pre(json!({"additionalContext": 1})), "PreToolUse"),
        (pre(json!({"permissionDecision": "deny"})), "PostToolUse"),
    ] {
        let a = json_answer(answer.clone(), event);
        assert!(a.is_error(), "{answer} at {event}: {a:?}");
        assert!(a.error.as_deref().unwrap().starts_with("invalid answer: "));
        assert_eq!(a.decision, ClaudeDecision::Allow);
        assert!(a.user_messages.is_empty() && a.context.is_empty());
    }
    let a = json_answer(pre(json!({"permissionDecision": "deny"})), "PostToolUse");
    assert_eq!(
        a.error.as_deref(),
        Some("invalid answer: hookSpecificOutput.hookEventName is \"PreToolUse\", but the event is \"PostToolUse\"")
    );
    // null is absent; a missing hookEventName is accepted.
    let a = json_answer(
        json!({"reason": null, "systemMessage": null,
               "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "r"}}),
        "PreToolUse",
    );
    assert_eq!(a, block("r", true));
    // Unknown fields are someone else's business.
    assert_eq!(
        json_answer(json!({"suppressOutput": true, "x": [1]}), "PreToolUse"),
        ClaudeAnswer::default()
    );
}

#[test]
fn some_events_discard_parts_of_the_answer() {
    let everything =
        json!({"continue": false, "systemMessage": "m", "decision": "block", "reason": "r"});
    for event in ["SessionEnd", "InstructionsLoaded", "StopFailure"] {
        assert_eq!(
            json_answer(everything.clone(), event),
            ClaudeAnswer::default(),
            "{event}"
        );
    }
    let a = json_answer(everything.clone(), "Notification");
    assert!(a.user_messages.is_empty() && a.stop.is_none());
    let a = json_answer(everything.clone(), "PreCompact");
    assert!(a.user_messages.is_empty() && a.stop.is_none());
    assert_eq!((a.decision, a.honored), (ClaudeDecision::Block, true));
    let a = json_answer(everything, "TaskCreated");
    assert_eq!(a.user_messages, ["m"]);
    assert_eq!(a.stop, None);
}

#[test]
fn bytes_that_are_not_utf8_never_panic() {
    for out in [
        &b"\xff\xfe{"[..],
        b"{\"systemMessage\":\"\xff\"}",
        b"\xc3",
        b"{\xff}",
    ] {
        for exit in [Some(0), Some(1), Some(2), None] {
            for event in ["PreToolUse", "UserPromptSubmit", "Weird"] {
                let _ = decode(exit, out, out, event);
            }
        }
    }
    let a = decode(Some(0), b"\xff ok", b"", "SessionStart");
    assert_eq!(a.context, ["\u{fffd} ok"]);
    let deep = format!("{}{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    assert_eq!(
        decode(Some(0), deep.as_bytes(), b"", "PreToolUse"),
        ClaudeAnswer::default()
    );
}

#[test]
fn tool_output_rewrites_become_neutral_transforms() {
    assert_eq!(
        Value::Object(tool_output_transform(&json!({"content": "x"}))),
        json!({"content": "x"})
    );
    assert_eq!(
        Value::Object(tool_output_transform(&json!("x"))),
        json!({"content": "x"})
    );
    assert_eq!(
        Value::Object(tool_output_transform(&json!({"content": "x", "rows": 1}))),
        json!({"structured_content": {"content": "x", "rows": 1}})
    );
    assert_eq!(
        Value::Object(tool_output_transform(&json!([1]))),
        json!({"structured_content": [1]})
    );
}

// --- combination ------------------------------------------------------

fn with(decision: ClaudeDecision, reason: Option<&str>) -> ClaudeAnswer {
    ClaudeAnswer {
        decision,
        reason: reason.map(str::to_owned),
        ..ClaudeAnswer::default()
    }
}

fn fg(answers: &[ClaudeAnswer]) -> Combined {
    combine(answers.iter().map(|a| (a, false)))
}

#[test]
fn deny_beats_defer_beats_ask_beats_allow() {
    use ClaudeDecision::*;
    let order = [Allow, Ask, Defer, Block];
    for (i, &weaker) in order.iter().enumerate() {
        for &stronger in &order[i..] {
            for pair in [[weaker, stronger], [stronger, weaker]] {
                let answers: Vec<_> = pair.iter().map(|&d| with(d, None)).collect();
                assert_eq!(fg(&answers).decision, stronger, "{pair:?}");
            }
        }
    }
    assert_eq!(fg(&[]).decision, Allow);
    assert!(fg(&[]).honored);
}

#[test]
fn the_reasons_of_several_blocks_are_joined_in_config_order() {
    let merged = fg(&[
        with(ClaudeDecision::Allow, None),
        block("first says no", true),
        with(ClaudeDecision::Ask, Some("sure?")),
        block("second says no", true),
    ]);
    assert_eq!(merged.decision, ClaudeDecision::Block);
    assert!(merged.honored);
    assert_eq!(
        merged.reason.as_deref(),
        Some("first says no\nsecond says no")
    );
    let asks = fg(&[
        with(ClaudeDecision::Ask, Some("a")),
        with(ClaudeDecision::Defer, None),
        with(ClaudeDecision::Ask, Some("b")),
    ]);
    assert_eq!(asks.decision, ClaudeDecision::Defer);
    assert_eq!(asks.reason.as_deref(), Some("a\nb"));
    assert_eq!(fg(&[with(ClaudeDecision::Allow, None)]).reason, None);
}

#[test]
fn an_honored_block_decides_over_ones_that_are_not() {
    let merged = fg(&[block("exit 2", false), block("behavior deny", true)]);
    assert!(merged.honored);
    assert_eq!(merged.reason.as_deref(), Some("behavior deny"));
    let merged = fg(&[block("a", false), block("b", false)]);
    assert!(!merged.honored);
    assert_eq!(merged.reason.as_deref(), Some("a\nb"));
}

#[test]
fn follow_ups_of_several_stop_hooks_are_joined() {
    let a = decode(Some(2), b"", b"run the tests", "Stop");
    let b = json_answer(json!({"decision": "block", "reason": "and lint"}), "Stop");
    let merged = fg(&[a, ClaudeAnswer::default(), b]);
    assert_eq!(merged.follow_up.as_deref(), Some("run the tests\nand lint"));
    assert_eq!(merged.reason, merged.follow_up);
}

#[test]
fn context_and_messages_are_kept_in_config_order() {
    let one = json_answer(
        json!({"systemMessage": "m1", "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "first"}}),
        "PreToolUse",
    );
    let two = json_answer(
        json!({"systemMessage": "m2", "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "second"}}),
        "PreToolUse",
    );
    let three = json_answer(
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "third"}}),
        "PreToolUse",
    );
    let merged = combine([(&one, false), (&two, true), (&three, false)]);
    assert_eq!(merged.context, ["first", "second", "third"]);
    assert_eq!(merged.user_messages, ["m1", "m2"]);
}

#[test]
fn the_last_rewrite_in_config_order_wins_and_says_whom_it_overrode() {
    let rewrite = |command: &str| {
        json_answer(
            pre(json!({"permissionDecision": "allow", "updatedInput": {"command": command}})),
            "PreToolUse",
        )
    };
    let answers = [
        rewrite("ls -a"),
        ClaudeAnswer::default(),
        rewrite("ls -l"),
        rewrite("ls -al"),
    ];
    let merged = fg(&answers);
    assert_eq!(
        merged.updated_input.map(Value::Object),
        Some(json!({"command": "ls -al"}))
    );
    assert_eq!(merged.rewritten_by, Some(3));
    assert_eq!(merged.overridden_rewrites, [0, 2]);
    // A background hook's rewrite changes nothing.
    let merged = combine([(&answers[0], false), (&answers[3], true)]);
    assert_eq!(
        merged.updated_input.map(Value::Object),
        Some(json!({"command": "ls -a"}))
    );
    assert_eq!(merged.rewritten_by, Some(0));
    assert!(merged.overridden_rewrites.is_empty());
    let one = json_answer(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "a"}}),
        "PostToolUse",
    );
    let two = json_answer(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "b"}}),
        "PostToolUse",
    );
    let merged = fg(&[one, two]);
    assert_eq!(merged.updated_tool_output, Some(json!("b")));
    assert_eq!(merged.overridden_rewrites, [0]);
}

#[test]
fn background_decisions_and_stops_change_nothing() {
    let deny = block("late no", true);
    let stop = json_answer(
        json!({"continue": false, "stopReason": "halt"}),
        "PreToolUse",
    );
    let merged = combine([(&deny, true), (&stop, true)]);
    assert_eq!(merged.decision, ClaudeDecision::Allow);
    assert!(merged.honored);
    assert_eq!(merged.reason, None);
    assert_eq!(merged.stop, None);
}

#[test]
fn stop_reasons_are_kept() {
    let halt = |reason: Option<&str>| {
        let mut answer = json!({"continue": false});
        if let Some(r) = reason {
            answer["stopReason"] = json!(r);
        }
        json_answer(answer, "PreToolUse")
    };
    assert_eq!(
        fg(&[halt(Some("a")), halt(None), halt(Some("b"))])
            .stop
            .as_deref(),
        Some("a\nb")
    );
    assert_eq!(fg(&[halt(None)]).stop.as_deref(), Some(""));
    assert_eq!(fg(&[ClaudeAnswer::default()]).stop, None);
}

#[test]
fn a_failed_hook_adds_nothing_to_the_merge() {
    let merged = fg(&[
        ClaudeAnswer::timed_out(Duration::from_secs(2)),
        with(ClaudeDecision::Ask, Some("sure?")),
    ]);
    assert_eq!(merged.decision, ClaudeDecision::Ask);
    assert!(merged.context.is_empty());
}

#[test]
fn block_meanings_of_the_events_this_host_fires() {
    use BlockMeaning::*;
    for (event, meaning) in [
        ("PreToolUse", Deny),
        ("UserPromptSubmit", DropPrompt),
        ("Stop", FollowUp),
        ("SubagentStop", FollowUp),
        ("PostToolUse", Feedback),
        ("PostToolUseFailure", Feedback),
        ("PreCompact", Prevent),
        ("PostToolBatch", Prevent),
        ("PermissionRequest", NotHonored),
        ("SessionStart", NotHonored),
        ("SessionEnd", NotHonored),
        ("PostCompact", NotHonored),
        ("Notification", NotHonored),
        ("SubagentStart", NotHonored),
        ("StopFailure", NotHonored),
        ("InstructionsLoaded", NotHonored),
        ("NoSuchEvent", NotHonored),
    ] {
        assert_eq!(block_meaning(event), meaning, "{event}");
    }
}

#[test]
fn fields_for_the_hosts_own_features_are_handed_over() {
    let start = json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
        "sessionTitle": "Fix the build", "initialUserMessage": "run make",
        "watchPaths": ["/p/.env", "/p/package.json"]}});
    let a = json_answer(start, "SessionStart");
    assert_eq!(a.session_title.as_deref(), Some("Fix the build"));
    assert_eq!(a.initial_user_message.as_deref(), Some("run make"));
    assert_eq!(
        a.watch_paths.as_deref(),
        Some(&["/p/.env".to_owned(), "/p/package.json".to_owned()][..])
    );

    let prompt = json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
        "sessionTitle": "t", "suppressOriginalPrompt": true}});
    let a = json_answer(prompt, "UserPromptSubmit");
    assert_eq!(a.session_title.as_deref(), Some("t"));
    assert!(a.suppress_original_prompt);

    let cwd = json!({"hookSpecificOutput": {"hookEventName": "FileChanged", "watchPaths": []}});
    assert_eq!(
        json_answer(cwd, "FileChanged").watch_paths,
        Some(Vec::new())
    );

    let update = json!({"type": "addRules", "rules": [{"toolName": "Bash"}],
        "behavior": "allow", "destination": "session"});
    let allow = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedPermissions": [update.clone()]}}});
    let a = json_answer(allow, "PermissionRequest");
    assert!(a.approved);
    assert_eq!(a.updated_permissions, [update]);

    // Where the event has no such field, it is not read; of the wrong type,
    // the answer breaks the schema.
    let elsewhere = json!({"hookSpecificOutput": {"hookEventName": "Stop", "sessionTitle": "x"}});
    assert_eq!(json_answer(elsewhere, "Stop"), ClaudeAnswer::default());
    let wrong =
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": "/p"}});
    assert_eq!(
        json_answer(wrong, "SessionStart").error.as_deref(),
        Some("invalid answer: hookSpecificOutput.watchPaths must be an array of strings")
    );
}

#[test]
fn a_block_without_reason_has_claude_codes_own_words() {
    // What Claude Code 2.1.332 sends to the model (conformance/hosts
    // scenarios *_without_reason and *_exit_2_empty_stderr).
    let deny = pre(json!({"permissionDecision": "deny"}));
    assert_eq!(
        json_answer(deny, "PreToolUse").reason.as_deref(),
        Some("Blocked by hook")
    );
    for event in ["PreToolUse", "PostToolUse", "Stop"] {
        let a = json_answer(json!({"decision": "block"}), event);
        assert_eq!(a.reason.as_deref(), Some("Blocked by hook"), "{event}");
        let a = decode(Some(2), b"", b"", event);
        assert_eq!(a.reason.as_deref(), Some("No stderr output"), "{event}");
    }
}

/// `PreSkillShellCommand` (Claude Code 2.1.332): `allow` adds nothing; a
/// deny, an ask, a defer or any `updatedInput` (never applied) keeps the
/// skill's command from running; exit 2 does too.
#[test]
fn pre_skill_shell_command_refuses_on_anything_but_allow() {
    const E: &str = "PreSkillShellCommand";
    let specific = |fields: Value| {
        let mut out = json!({"hookEventName": E});
        out.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        json!({ "hookSpecificOutput": out })
    };
    let allow = json_answer(specific(json!({"permissionDecision": "allow"})), E);
    assert_eq!(allow.decision, ClaudeDecision::Allow);
    for refusing in [
        json!({"permissionDecision": "deny", "permissionDecisionReason": "not in skills"}),
        json!({"permissionDecision": "ask", "permissionDecisionReason": "not in skills"}),
        json!({"permissionDecision": "defer", "permissionDecisionReason": "not in skills"}),
        json!({"updatedInput": {"command": "true"}, "permissionDecisionReason": "not in skills"}),
    ] {
        let answer = json_answer(specific(refusing.clone()), E);
        assert_eq!(answer.decision, ClaudeDecision::Block, "{refusing}");
        assert_eq!(
            answer.reason.as_deref(),
            Some("not in skills"),
            "{refusing}"
        );
        assert!(answer.honored, "{refusing}");
    }
    let exit_2 = decode(Some(2), b"", b"no skills here\n", E);
    assert_eq!(exit_2.decision, ClaudeDecision::Block);
    assert_eq!(super::block_meaning(E), BlockMeaning::Deny);
    assert_eq!(
        crate::dialect::claude::matcher::subject_field(E),
        Some("tool_name")
    );
}
