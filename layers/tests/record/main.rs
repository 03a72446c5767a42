//! The session record: what `RecordLayer` writes is what `RecordedRequest`
//! reads back, field for field, and what it cannot read it names.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::dialect::claude;
use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
use tower_hooks_layers::record::{LineError, RecordLayer, RecordedRequest, RECORD_VERSION};

/// A writer whose bytes the test can read.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn records(&self) -> Vec<RecordedRequest> {
        let bytes = self.0.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|line| RecordedRequest::from_line(line.as_bytes()).unwrap())
            .collect()
    }
}

/// A writer that always fails, as a full disk does.
struct Full;

impl std::io::Write for Full {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("no space left on device"))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Err(std::io::Error::other("no space left on device"))
    }
}

/// What the inner hook saw of a tool's output.
type Seen = Arc<Mutex<Vec<Value>>>;

fn stack(record: RecordLayer, seen: Seen) -> impl Clone + tower::Service<HookRequest> {
    HookStack::builder()
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionEnd, "observer"),
            move |req: &HookRequest| {
                seen.lock()
                    .unwrap()
                    .push(req.arguments()["tool_response"].clone());
                Verdict::Allow
            },
        )
        .around_call(record)
        .build()
}

#[tokio::test]
async fn every_call_is_written_and_reads_back_as_the_same_request() {
    let buffer = Buffer::default();
    let (record, handle) = RecordLayer::new(buffer.clone());
    let stack = stack(record, Seen::default());
    let fields = json!({
        "session_id": "s-1",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
        "transcript_path": "/t/s-1.jsonl",
    });
    let claude = claude::request("PreToolUse", fields.as_object().unwrap().clone())
        .unwrap()
        .with_cwd("/home/u/app");
    let prompt = HookRequest::input("hello").with_session_id("s-1");
    for req in [claude.clone(), prompt] {
        let _ = stack.clone().oneshot(req).await;
    }
    handle.flush().unwrap();
    assert_eq!(handle.written(), 2);
    assert_eq!(handle.failed(), 0);

    let records = buffer.records();
    assert_eq!(records.len(), 2);
    let first = &records[0];
    assert_eq!(first.kind, "hook_request");
    assert_eq!(first.v, RECORD_VERSION);
    assert_eq!(first.event, "tool_execution_start");
    assert_eq!(first.tool_call_id.as_deref(), Some("toolu_1"));
    assert_eq!(first.wire["transcript_path"], "/t/s-1.jsonl");
    assert!(
        first.time.ends_with('Z') && first.time.len() == 24,
        "{}",
        first.time
    );
    let again = first.to_request().unwrap();
    assert_eq!(again.event(), claude.event());
    assert_eq!(again.tool_name(), Some("Bash"));
    assert_eq!(again.tool_call_id(), Some("toolu_1"));
    assert_eq!(again.session_id(), Some("s-1"));
    assert_eq!(again.cwd(), Some("/home/u/app"));
    assert_eq!(again.arguments(), claude.arguments());
    assert_eq!(again.wire_fields(), claude.wire_fields());
    assert_eq!(records[1].event, "input");
    assert_eq!(records[1].arguments, json!({"prompt": "hello"}));
    assert!(records[1].tool_name.is_none());
}

#[tokio::test]
async fn redaction_changes_the_record_and_not_what_hooks_see() {
    let buffer = Buffer::default();
    let (record, handle) = RecordLayer::new(buffer.clone());
    let tools = Arc::new(Mutex::new(Vec::new()));
    let named = tools.clone();
    let record = record.redact_tool_output(move |tool, output| {
        named.lock().unwrap().push(tool.to_owned());
        output["content"] = json!("[redacted]");
    });
    let seen = Seen::default();
    let stack = stack(record, seen.clone());
    let end = HookRequest::tool_execution_end(
        "bash",
        json!({"command": "env"}),
        "TOKEN=s3cret",
        false,
        Default::default(),
    );
    let start = HookRequest::tool_execution_start("bash", json!({"command": "TOKEN=x env"}));
    for req in [start, end] {
        let _ = stack.clone().oneshot(req).await;
    }
    handle.flush().unwrap();
    let records = buffer.records();
    // Only the tool's output goes through the hook; a command is written as it is.
    assert_eq!(records[0].arguments["command"], "TOKEN=x env");
    assert_eq!(
        records[1].arguments["tool_response"]["content"],
        "[redacted]"
    );
    assert_eq!(*tools.lock().unwrap(), ["bash"]);
    assert_eq!(seen.lock().unwrap()[0]["content"], "TOKEN=s3cret");
}

#[tokio::test]
async fn a_failing_writer_never_fails_the_call_and_is_counted() {
    let (record, handle) = RecordLayer::new(Full);
    let seen = Seen::default();
    let stack = stack(record, seen.clone());
    // More than the buffer holds, so that writes reach the failing writer.
    let big = "x".repeat(20_000);
    for _ in 0..3 {
        let req = HookRequest::tool_execution_end(
            "bash",
            json!({}),
            big.clone(),
            false,
            Default::default(),
        );
        assert!(stack.clone().oneshot(req).await.is_ok());
    }
    assert_eq!(seen.lock().unwrap().len(), 3);
    assert!(handle.flush().is_err());
    assert!(handle.failed() >= 1, "{}", handle.failed());
    assert!(handle
        .last_error()
        .unwrap()
        .contains("no space left on device"));
}

#[test]
fn lines_that_are_not_records_say_why() {
    let good =
        RecordedRequest::from_request(&HookRequest::input("hi"), std::time::SystemTime::now())
            .to_line();
    assert!(RecordedRequest::from_line(good.trim_end().as_bytes()).is_ok());

    let cut = &good.as_bytes()[..good.len() / 2];
    let cases: [(&[u8], &str, &str); 5] = [
        (cut, "not_json", "cut short"),
        (b"[1,2]", "not_an_object", "not a JSON object"),
        (
            br#"{"type":"summary","summary":"x"}"#,
            "unknown_type",
            "unknown record type \"summary\"",
        ),
        (
            br#"{"type":"hook_request","v":9,"time":"","event":"input"}"#,
            "newer_version",
            "upgrade",
        ),
        (
            br#"{"type":"hook_request","v":1,"time":"","event":"input","arguments":{},"session_id":7}"#,
            "invalid",
            "not a valid record",
        ),
    ];
    for (line, kind, says) in cases {
        let err = RecordedRequest::from_line(line).unwrap_err();
        assert_eq!(err.kind(), kind, "{err}");
        assert!(err.to_string().contains(says), "{err}");
    }
    let unknown = RecordedRequest::from_line(
        br#"{"type":"hook_request","v":1,"time":"","event":"tool_exploded","arguments":{}}"#,
    )
    .unwrap();
    let err = unknown.to_request().unwrap_err();
    assert!(matches!(err, LineError::UnknownEvent(ref name) if name == "tool_exploded"));
}
