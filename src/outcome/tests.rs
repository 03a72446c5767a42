use super::*;
use crate::spec::HookSpec;
use serde_json::json;

#[test]
fn notes_merge_in_order_and_join_their_texts() {
    let mut notes = Notes {
        context: vec!["a".into()],
        stop: Some("first".into()),
        ..Notes::default()
    };
    notes.merge(Notes {
        context: vec!["b".into()],
        user_messages: vec!["hi".into()],
        stop: Some("second".into()),
        follow_up: Some("go on".into()),
        approved: true,
        block_honored: Some(false),
        ..Notes::default()
    });
    assert!(notes.approved);
    assert_eq!(notes.block_honored, Some(false));
    assert_eq!(notes.context, ["a", "b"]);
    assert_eq!(notes.user_messages, ["hi"]);
    assert_eq!(notes.stop.as_deref(), Some("first\nsecond"));
    assert_eq!(notes.follow_up.as_deref(), Some("go on"));
    assert!(!notes.is_empty());
    assert!(Notes::default().is_empty());
}

#[test]
fn a_block_at_the_agents_stop_is_the_follow_up() {
    let spec = Arc::new(HookSpec::in_process(Event::Stop, "keep-going"));
    let rec = HookRecord::new(spec, &Verdict::block("run the tests"), Duration::ZERO);
    let out = HookOutcome::from_parts(
        Event::Stop,
        Decision::Block,
        true,
        Some("run the tests".into()),
        Arc::new(json!({})),
        [rec].into_iter().collect(),
    );
    assert_eq!(out.follow_up(), Some("run the tests"));
    assert_eq!(out.message().as_deref(), Some("run the tests"));
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["follow_up"], "run the tests");
    assert_eq!(json["context"], json!([]));
    assert_eq!(json["user_messages"], json!([]));
    assert_eq!(json["stop"], Value::Null);
    assert_eq!(json["hooks"][0]["dialect"], "nanopi");
}

#[test]
fn message_only_for_an_honored_block() {
    let spec = Arc::new(HookSpec::command(Event::ToolExecutionStart, "x"));
    let rec = HookRecord::new(spec, &Verdict::block("no"), Duration::from_millis(4));
    let mut out = HookOutcome::from_parts(
        Event::ToolExecutionStart,
        Decision::Block,
        true,
        Some("no".into()),
        Arc::new(json!({})),
        [rec].into_iter().collect(),
    );
    assert_eq!(out.message().as_deref(), Some("blocked by hook: no"));
    out.drop_decision();
    assert_eq!(out.message(), None);
    assert!(!out.is_blocked());
}

#[test]
fn serializes_to_the_contract_shape() {
    let spec = Arc::new(
        HookSpec::command(Event::ToolExecutionStart, "x")
            .with_matcher("^bash$")
            .unwrap()
            .with_source("/h/.nanopi/config.toml", 0),
    );
    let rec = HookRecord::new(spec, &Verdict::block("why"), Duration::from_millis(4));
    let out = HookOutcome::from_parts(
        Event::ToolExecutionStart,
        Decision::Block,
        true,
        Some("why".into()),
        Arc::new(json!({"command": "rm"})),
        [rec].into_iter().collect(),
    );
    assert_eq!(
        serde_json::to_value(&out).unwrap(),
        json!({
            "event": "tool_execution_start", "decision": "block", "honored": true,
            "reason": "why", "message": "blocked by hook: why",
            "host_message": "blocked by hook: why",
            "arguments": {"command": "rm"},
            "context": [], "user_messages": [], "stop": null, "follow_up": null,
            "deferred": false, "env": {},
            "hooks": [{"dialect": "nanopi", "scope": "user", "event": "tool_execution_start", "source": "/h/.nanopi/config.toml", "index": 0, "name": null, "matcher": "^bash$",
                       "outcome": "block", "outcome_detail": "block", "reason": "why",
                       "duration_ms": 4, "exit": null, "signal": null, "stderr": null,
                       "persistent": false, "tool_name": null, "warnings": []}]
        })
    );
}

fn finished(termination: Termination, stdout: &[u8], stderr: &[u8]) -> RunDetail {
    RunDetail::ended(termination, stdout, stderr)
}

fn record_with(verdict: &Verdict, run: Option<RunDetail>) -> Value {
    let spec = Arc::new(HookSpec::command(Event::Input, "x").with_source("f", 0));
    let rec = HookRecord::new(spec, verdict, Duration::ZERO).with_run(run.map(Box::new));
    serde_json::to_value(&rec).unwrap()
}

#[test]
fn a_record_shows_how_the_process_ended_and_its_stderr() {
    let exited = finished(
        Termination::Exited(1),
        b"checking...\nnot json\r\n\n",
        b"lint: command not found\n",
    );
    assert_eq!(exited.exit_code(), Some(1));
    assert_eq!(exited.signal(), None);
    assert_eq!(exited.last_stdout_line(), Some("not json"));
    let json = record_with(&Verdict::Allow, Some(exited));
    assert_eq!(json["outcome"], "allow");
    assert_eq!(json["exit"], 1);
    assert_eq!(json["signal"], Value::Null);
    assert_eq!(json["stderr"], "lint: command not found\n");

    let killed = finished(Termination::Signaled(9), b"", b"");
    let json = record_with(&Verdict::Allow, Some(killed));
    assert_eq!((&json["exit"], &json["signal"]), (&Value::Null, &json!(9)));
    assert_eq!(json["stderr"], "");

    // Could not start: no exit, no signal, no stderr; the reason says why.
    let json = record_with(
        &Verdict::failed_open("bash not found on PATH"),
        Some(RunDetail::not_started()),
    );
    assert_eq!(json["outcome"], "error");
    assert_eq!(json["reason"], "bash not found on PATH");
    assert_eq!(
        (&json["exit"], &json["signal"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(json["stderr"], Value::Null);
}

#[test]
fn the_stderr_kept_is_the_first_4_kib_on_a_character_boundary() {
    let mut stderr = vec![b'a'; RUN_DETAIL_LIMIT - 1];
    stderr.extend_from_slice("\u{e9}tail".as_bytes());
    let detail = finished(Termination::Exited(0), b"", &stderr);
    let kept = detail.stderr().unwrap();
    assert_eq!(kept.len(), RUN_DETAIL_LIMIT - 1);
    assert!(kept.bytes().all(|b| b == b'a'));
    let short = finished(Termination::Exited(0), b"", b"\xff!");
    assert_eq!(short.stderr(), Some("\u{fffd}!"));
}

#[test]
fn timeout_and_failed_closed_have_their_own_words_and_fold_into_block() {
    let timeout = Verdict::timed_out(Duration::from_millis(300));
    let failed_closed = Verdict::failed_closed("exited with status 1");
    assert_eq!(timeout.record_outcome(), RecordOutcome::Timeout);
    assert_eq!(failed_closed.record_outcome(), RecordOutcome::FailedClosed);
    for (verdict, word) in [(&timeout, "timeout"), (&failed_closed, "failed_closed")] {
        let json = record_with(verdict, None);
        // The contract's six words in `outcome`, the vocabulary in `outcome_detail`.
        assert_eq!(json["outcome"], "block");
        assert_eq!(json["outcome_detail"], word);
    }
    let words: Vec<&str> = RecordOutcome::ALL.iter().map(|o| o.as_str()).collect();
    assert_eq!(
        words,
        [
            "skipped",
            "allow",
            "transform",
            "block",
            "ask",
            "timeout",
            "failed_closed",
            "error",
            "not_run"
        ]
    );
    let folded: Vec<&str> = RecordOutcome::ALL
        .iter()
        .map(|o| o.folded().as_str())
        .collect();
    assert_eq!(
        folded,
        [
            "skipped",
            "allow",
            "transform",
            "block",
            "ask",
            "block",
            "block",
            "error",
            "not_run"
        ]
    );
}

#[test]
fn transform_takes_any_json_object_and_refuses_the_rest() {
    assert_eq!(
        Verdict::transform(json!({"a": 1})),
        Ok(Verdict::Transform(
            json!({"a": 1}).as_object().unwrap().clone()
        ))
    );
    for (value, kind) in [
        (json!(null), "null"),
        (json!([1]), "an array"),
        (json!(3), "a number"),
        (json!(true), "a boolean"),
    ] {
        let err = Verdict::transform(value.clone()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("updated_input must be a JSON object, not {kind}")
        );
        assert_eq!(err.into_value(), value);
    }
}

/// Records live inline in every outcome, which every layer moves on every
/// call: the idle paths pay for each byte (`benches/overhead.rs`, `idle/*`).
#[test]
fn records_and_outcomes_stay_small() {
    assert!(std::mem::size_of::<HookRecord>() <= 48);
    assert!(std::mem::size_of::<HookOutcome>() <= 104);
}
