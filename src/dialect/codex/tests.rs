use std::path::Path;

use serde_json::json;

use super::config::{parse_json, parse_toml, plugin_root};
use super::event::CodexEvent as E;
use super::matcher::CodexMatcher;
use super::wire::{decode, CodexDecision};
use crate::config::{ConfigErrorKind, ConfigWarningKind, Format};
use crate::request::HookRequest;

fn ok(event: E, stdout: &str) -> super::CodexAnswer {
    decode(event, Some(0), stdout.as_bytes(), b"")
}

fn hso(event: &str, fields: serde_json::Value) -> String {
    let mut object = json!({"hookEventName": event});
    object
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    json!({ "hookSpecificOutput": object }).to_string()
}

#[test]
fn a_codex_folder_wins_over_the_toml_extension_rule() {
    assert_eq!(
        Format::detect(Path::new("/p/.codex/config.toml")),
        Format::Codex
    );
    assert_eq!(
        Format::detect(Path::new("/p/.codex/hooks.json")),
        Format::Codex
    );
    assert_eq!(
        Format::detect(Path::new("/p/.nanopi/config.toml")),
        Format::Nanopi
    );
    assert_eq!(
        Format::detect(Path::new("/p/codex/hooks.json")),
        Format::Claude
    );
}

#[test]
fn pre_tool_use_deny_needs_a_reason_and_allow_needs_updated_input() {
    let deny = hso(
        "PreToolUse",
        json!({"permissionDecision": "deny", "permissionDecisionReason": "no"}),
    );
    assert_eq!(
        ok(E::PreToolUse, &deny).decision,
        CodexDecision::Block("no".into())
    );
    let bare = hso(
        "PreToolUse",
        json!({"permissionDecision": "deny", "permissionDecisionReason": " "}),
    );
    assert!(ok(E::PreToolUse, &bare).error.is_some());
    let rewrite = hso(
        "PreToolUse",
        json!({"permissionDecision": "allow", "updatedInput": {"command": "ls"}}),
    );
    let want = json!({"command": "ls"}).as_object().unwrap().clone();
    assert_eq!(
        ok(E::PreToolUse, &rewrite).decision,
        CodexDecision::Rewrite(want)
    );
    for failing in [
        hso("PreToolUse", json!({"permissionDecision": "allow"})),
        hso("PreToolUse", json!({"permissionDecision": "ask"})),
        hso("PreToolUse", json!({"updatedInput": {"command": "ls"}})),
        hso("PreToolUse", json!({"permissionDecisionReason": "why"})),
        hso("Stop", json!({})),
        json!({"decision": "approve"}).to_string(),
        json!({"continue": false}).to_string(),
        json!({"suppressOutput": true}).to_string(),
        json!({"additionalContext": "top level"}).to_string(),
        json!({"reason": "alone"}).to_string(),
    ] {
        assert!(ok(E::PreToolUse, &failing).error.is_some(), "{failing}");
    }
}

#[test]
fn suppress_output_is_taken_at_the_stop_events_and_refused_at_the_tool_events() {
    // What Codex 0.171 does (conformance/hosts/scenarios/codex/stop_suppress_output
    // and post_suppress_output_refused run it).
    let suppress = json!({"suppressOutput": true}).to_string();
    for event in [E::Stop, E::SubagentStop] {
        let answer = ok(event, &suppress);
        assert_eq!(answer.error, None, "{event:?}");
        assert_eq!(answer.decision, CodexDecision::Allow, "{event:?}");
    }
    for event in [E::PreToolUse, E::PermissionRequest, E::PostToolUse] {
        assert!(ok(event, &suppress).error.is_some(), "{event:?}");
    }
}

#[test]
fn permission_request_deny_uses_its_message_and_allow_approves() {
    let deny = hso(
        "PermissionRequest",
        json!({"decision": {"behavior": "deny"}}),
    );
    assert_eq!(
        ok(E::PermissionRequest, &deny).decision,
        CodexDecision::Block(super::DEFAULT_DENY_MESSAGE.into())
    );
    let allow = hso(
        "PermissionRequest",
        json!({"decision": {"behavior": "allow"}}),
    );
    assert_eq!(
        ok(E::PermissionRequest, &allow).decision,
        CodexDecision::Approve
    );
    let reserved = hso(
        "PermissionRequest",
        json!({"decision": {"behavior": "allow", "updatedInput": {}}}),
    );
    assert!(ok(E::PermissionRequest, &reserved).error.is_some());
    // Codex takes `updatedPermissions` beside an allow (its sources; the
    // event does not fire in a headless run to see it).
    let rules = json!([{"type": "addRules", "rules": [{"toolName": "Bash"}]}]);
    let granting = hso(
        "PermissionRequest",
        json!({"decision": {"behavior": "allow", "updatedPermissions": rules}}),
    );
    let answer = ok(E::PermissionRequest, &granting);
    assert_eq!(answer.decision, CodexDecision::Approve);
    assert_eq!(
        answer.updated_permissions,
        rules.as_array().unwrap().clone()
    );
    let denying = hso(
        "PermissionRequest",
        json!({"decision": {"behavior": "deny", "updatedPermissions": []}}),
    );
    assert!(ok(E::PermissionRequest, &denying).error.is_some());
}

#[test]
fn plain_text_per_event_and_text_that_looks_like_json() {
    assert_eq!(ok(E::SessionStart, "  hello \n").context, ["hello"]);
    assert_eq!(ok(E::SubagentStart, "hi").context, ["hi"]);
    assert!(ok(E::PreToolUse, "fine").context.is_empty());
    assert!(ok(E::PreToolUse, "fine").error.is_none());
    assert!(ok(E::Stop, "fine").error.is_some());
    assert!(ok(E::SubagentStop, "fine").error.is_some());
    assert!(ok(E::UserPromptSubmit, "[ticket] open").error.is_some());
    assert!(ok(E::UserPromptSubmit, "[1, 2]").error.is_some());
}

#[test]
fn exit_codes() {
    let block = decode(E::PostToolUse, Some(2), b"ignored", b" bad \n");
    assert_eq!(block.decision, CodexDecision::Block("bad".into()));
    assert!(decode(E::PreToolUse, Some(2), b"{}", b"").error.is_some());
    assert!(decode(E::SessionStart, Some(2), b"", b"why")
        .error
        .is_some());
    assert_eq!(
        decode(E::PreToolUse, Some(1), b"", b"x").error.as_deref(),
        Some("hook exited with code 1")
    );
    assert!(decode(E::PreToolUse, None, b"", b"").error.is_some());
}

#[test]
fn stop_block_and_continue_false() {
    let answer = ok(E::Stop, r#"{"decision": "block", "reason": "go on"}"#);
    assert_eq!(answer.decision, CodexDecision::Block("go on".into()));
    assert!(ok(E::Stop, r#"{"decision": "block"}"#).error.is_some());
    let halt = ok(
        E::Stop,
        r#"{"continue": false, "stopReason": "done", "systemMessage": "bye"}"#,
    );
    assert_eq!(halt.stop.as_deref(), Some("done"));
    assert_eq!(halt.user_messages, ["bye"]);
    // SubagentStart parses continue:false and ignores it.
    assert_eq!(ok(E::SubagentStart, r#"{"continue": false}"#).stop, None);
}

#[test]
fn matchers_read_by_codex_rule() {
    let names = CodexMatcher::new(E::PreToolUse, Some("mcp__memory")).unwrap();
    assert!(!names.matches(&["mcp__memory__create_entities"]));
    let regex = CodexMatcher::new(E::PreToolUse, Some("mcp__memory__.*")).unwrap();
    assert!(regex.matches(&["mcp__memory__create_entities"]));
    assert!(CodexMatcher::new(E::UserPromptSubmit, Some("[")).is_ok());
}

#[test]
fn files_load_both_forms_with_their_rules() {
    let file = parse_json(
        &json!({"description": "x", "hooks": {
            "SessionEnd": [{"hooks": [{"command": "a"}, {"command": "b", "timeout": 60}]}],
            "PreToolUse": [{"matcher": "(", "hooks": [{"command": "c"}]}],
            "Notification": [{"hooks": [{"command": "d"}]}],
            "Stop": [{"hooks": [{"command": "e", "timout": 5}]}],
        }})
        .to_string(),
    )
    .unwrap();
    let timeouts: Vec<u64> = file.handlers.iter().map(|h| h.timeout.as_secs()).collect();
    assert_eq!(
        timeouts,
        [1, 3, 600],
        "SessionEnd: 1 s by default, 3 s at most"
    );
    assert!(file
        .warnings
        .iter()
        .any(|w| matches!(w, ConfigWarningKind::InvalidMatcher { .. })));
    assert!(file.warnings.iter().any(
        |w| matches!(w, ConfigWarningKind::UnknownEvent { event, .. } if event == "Notification")
    ));
    assert!(file
        .warnings
        .iter()
        .any(|w| w.to_string().contains("hooks.Stop[0].hooks[0].timout")));

    let err = parse_json(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}"#).unwrap_err();
    assert!(
        matches!(err, ConfigErrorKind::MissingKey { key: "command", .. }),
        "{err}"
    );
    let err = parse_json(r#"{"hooks": {"Stop": {}}}"#).unwrap_err();
    assert!(err.to_string().contains("hooks.Stop"), "{err}");
    let err = parse_json(r#"{"hooks": {"Stop": [{"hooks": [{"command": 5}]}]}}"#).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("hooks.Stop[0].hooks[0].command must be"),
        "{err}"
    );
    let err = parse_json(r#"{"hooks": {}, "version": 1}"#).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the top-level key \"version\" must be absent"),
        "{err}"
    );
    assert!(parse_json("[]")
        .unwrap_err()
        .to_string()
        .starts_with("the top level must be"));

    let toml = parse_toml(
        "[features]\ncodex_hooks = false\n[hooks.state.\"x\"]\ntrusted_hash = \"sha256:0\"\n\
         [[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\n\
         command = \"./g.sh\"\ntimeoutSec = 7\nasync = true\n",
    )
    .unwrap();
    assert_eq!(toml.hooks_feature, Some(false));
    assert_eq!(toml.handlers.len(), 1);
    assert_eq!(toml.handlers[0].timeout.as_secs(), 7);
    assert!(toml.handlers[0].is_async);
    assert!(parse_toml("[[hooks.Stop]\n").is_err());
}

#[test]
fn a_plugin_is_the_folder_above_hooks() {
    assert_eq!(
        plugin_root(Path::new("/x/plug/hooks/hooks.json")).as_deref(),
        Some(Path::new("/x/plug"))
    );
    assert_eq!(plugin_root(Path::new("/p/.codex/hooks.json")), None);
}

#[tokio::test]
async fn the_envelope_opens_with_codex_fields_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".codex/hooks.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        json!({"hooks": {"PermissionRequest": [{"hooks": [{"command": "true"}]}]}}).to_string(),
    )
    .unwrap();
    let config =
        crate::config::Config::load_files(&[crate::config::ConfigFile::detect(&path)], dir.path())
            .unwrap();
    let spec = &config.hooks()[0];
    let req = HookRequest::new(crate::Event::PermissionRequest, json!({"command": "ls"}))
        .with_tool_name("bash")
        .with_tool_call_id("t-1");
    let stdin = crate::dialect::input(spec, &req);
    let text = String::from_utf8(stdin).unwrap();
    assert!(
        text.starts_with(r#"{"session_id":"","turn_id":null,"transcript_path":null,"cwd":"#),
        "{text}"
    );
    assert!(
        text.contains(r#""model":null,"permission_mode":"default","tool_name":"Bash""#),
        "{text}"
    );
    assert!(
        !text.contains("tool_use_id") && !text.ends_with('\n'),
        "{text}"
    );
}
