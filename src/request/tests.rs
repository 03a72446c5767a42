use std::time::Duration;

use super::*;
use serde_json::json;

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

#[test]
fn a_changed_text_drops_structured_content_unless_the_transform_sets_it() {
    let end = |structured: Value| {
        let mut req = HookRequest::tool_execution_end(
            "t",
            json!({}),
            "text",
            false,
            std::time::Duration::ZERO,
        );
        req.set_response_field("structured_content", structured);
        req.arguments().clone()
    };
    let apply = |updated: Value| {
        apply_transform(Event::ToolExecutionEnd, &end(json!({"k": 1})), obj(updated)).unwrap()
            ["tool_response"]
            .clone()
    };
    let kept = apply(json!({"content": "text", "is_error": true}));
    assert_eq!(kept["structured_content"], json!({"k": 1}));
    let dropped = apply(json!({"content": "[redacted]"}));
    assert_eq!(dropped.get("structured_content"), None);
    assert_eq!(dropped["content"], "[redacted]");
    let replaced = apply(json!({"content": "[redacted]", "structured_content": {"k": 2}}));
    assert_eq!(replaced["structured_content"], json!({"k": 2}));
    let removed = apply(json!({"structured_content": null}));
    assert_eq!(removed.get("structured_content"), None);
    assert_eq!(removed["content"], "text");
}

#[test]
fn typed_constructors_write_the_spec_shapes() {
    let r = HookRequest::session_start(StartReason::Resume);
    assert_eq!(*r.arguments(), json!({"reason": "resume"}));
    let r = HookRequest::session_shutdown(ShutdownReason::Quit);
    assert_eq!(*r.arguments(), json!({"reason": "quit"}));
    let r = HookRequest::session_compact(CompactionReason::Manual);
    assert_eq!(*r.arguments(), json!({"reason": "manual"}));
    let r = HookRequest::session_before_compact(CompactionReason::Threshold);
    assert_eq!(*r.arguments(), json!({"reason": "threshold"}));
    let r = HookRequest::before_agent_start(3, "hi");
    assert_eq!(*r.arguments(), json!({"turn_count": 3, "prompt": "hi"}));
    let r = HookRequest::input("hi");
    assert_eq!(*r.arguments(), json!({"prompt": "hi"}));
    let r = HookRequest::turn_start(1, 2);
    assert_eq!(*r.arguments(), json!({"turn_count": 1, "iteration": 2}));
    let r = HookRequest::turn_end(1, 2, true);
    assert_eq!(
        *r.arguments(),
        json!({"turn_count": 1, "iteration": 2, "had_tool_calls": true})
    );
    let r = HookRequest::message_end(4, 42);
    assert_eq!(
        *r.arguments(),
        json!({"turn_count": 4, "response_length": 42})
    );
    let r = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
    assert_eq!(r.tool_name(), Some("bash"));
    assert_eq!(*r.arguments(), json!({"command": "ls"}));
    let r = HookRequest::tool_execution_end(
        "bash",
        json!({"command": "ls"}),
        "out",
        false,
        Duration::from_millis(123),
    );
    assert_eq!(
        *r.arguments(),
        json!({"tool_input": {"command": "ls"},
               "tool_response": {"content": "out", "is_error": false, "duration_ms": 123}})
    );
}

#[test]
fn every_reason_has_its_wire_value() {
    let start: Vec<_> = [
        StartReason::Startup,
        StartReason::New,
        StartReason::Resume,
        StartReason::Fork,
        StartReason::Import,
    ]
    .iter()
    .map(|r| r.as_str())
    .collect();
    assert_eq!(start, ["startup", "new", "resume", "fork", "import"]);
    let stop: Vec<_> = [
        ShutdownReason::Quit,
        ShutdownReason::New,
        ShutdownReason::Resume,
        ShutdownReason::Fork,
        ShutdownReason::Import,
    ]
    .iter()
    .map(|r| r.as_str())
    .collect();
    assert_eq!(stop, ["quit", "new", "resume", "fork", "import"]);
}

#[test]
fn matcher_subject_follows_the_event() {
    let r = HookRequest::tool_execution_start("bash", json!({}));
    assert_eq!(r.matcher_subject().as_str(), "bash");
    let r = HookRequest::session_start(StartReason::Startup).with_session_id("019x");
    assert_eq!(r.matcher_subject().as_str(), "019x");
    let r = HookRequest::session_compact(CompactionReason::Manual).with_session_id("019x");
    assert_eq!(r.matcher_subject().as_str(), "manual");
    let r = HookRequest::before_agent_start(1, "hi");
    assert_eq!(r.matcher_subject().as_str(), "1");
    let r = HookRequest::message_end(7, 0);
    assert_eq!(r.matcher_subject().as_str(), "7");
    let r = HookRequest::input("anything");
    assert_eq!(r.matcher_subject().as_str(), "");
    let r = HookRequest::new(Event::TurnStart, json!({"turn_count": -3}));
    assert_eq!(r.matcher_subject().as_str(), "-3");
}

#[test]
fn arguments_transform_replaces_the_whole_object() {
    let next = apply_transform(
        Event::ToolExecutionStart,
        &json!({"command": "rm", "extra": 1}),
        obj(json!({"command": "ls"})),
    );
    assert_eq!(next, Some(json!({"command": "ls"})));
}

#[test]
fn prompt_transform_takes_only_the_prompt() {
    let next = apply_transform(
        Event::BeforeAgentStart,
        &json!({"turn_count": 1, "prompt": "hi"}),
        obj(json!({"prompt": "new", "turn_count": 99})),
    );
    assert_eq!(next, Some(json!({"turn_count": 1, "prompt": "new"})));
    let next = apply_transform(
        Event::Input,
        &json!({"prompt": "hi"}),
        obj(json!({"prompt": 5})),
    );
    assert_eq!(next, Some(json!({"prompt": "hi"})));
}

#[test]
fn tool_result_transform_reads_top_level_fields() {
    let cur = json!({"tool_input": {"a": 1},
                     "tool_response": {"content": "x", "is_error": false, "duration_ms": 5}});
    let next = apply_transform(
        Event::ToolExecutionEnd,
        &cur,
        obj(json!({"content": "[redacted]", "is_error": true})),
    );
    assert_eq!(
        next,
        Some(json!({"tool_input": {"a": 1},
                    "tool_response": {"content": "[redacted]", "is_error": true, "duration_ms": 5}}))
    );
    // Nested the way the payload arrives: not honored.
    let next = apply_transform(
        Event::ToolExecutionEnd,
        &cur,
        obj(json!({"tool_response": {"content": "nested"}})),
    );
    assert_eq!(next, Some(cur));
}

#[test]
fn events_without_transform_scope_ignore_transforms() {
    for event in [Event::TurnStart, Event::SessionStart, Event::MessageEnd] {
        assert_eq!(apply_transform(event, &json!({}), Map::new()), None);
    }
}
