use serde_json::Value;

use super::pipes::parse_answer;
use super::*;

#[test]
fn answers_are_read_strictly() {
    let (id, a) = parse_answer(r#"{"id": 3, "exit": 2, "stderr": "no"}"#).unwrap();
    assert_eq!(
        (id, a.exit, a.stdout.as_str(), a.stderr.as_str()),
        (3, 2, "", "no")
    );
    for bad in [
        r#"{"id": "3"}"#,
        r#"{"id": 3.0}"#,
        r#"{"id": -1}"#,
        r#"{"id": 3, "exit": "0"}"#,
        r#"{"id": 3, "stdout": 5}"#,
        r#"[1]"#,
        "garbage",
    ] {
        assert!(parse_answer(bad).is_none(), "{bad}");
    }
}

#[test]
fn the_request_line_carries_the_input_and_the_per_event_variables() {
    let mut job = Job {
        program: super::super::Program::Bash,
        command: "x".into(),
        stdin: b"{\"event\":\"turn_start\"}\n".to_vec(),
        env: vec![
            ("MINE".into(), "1".into()),
            ("NANOPI_EVENT".into(), "turn_start".into()),
        ],
        env_remove: Vec::new(),
        event_env: vec!["NANOPI_EVENT".into()],
        host_env: Vec::new(),
        current_dir: None,
        deadline: None,
    };
    let line = request_line(7, &job);
    assert_eq!(
        String::from_utf8(line).unwrap(),
        "{\"id\":7,\"input\":{\"event\":\"turn_start\"},\"env\":{\"NANOPI_EVENT\":\"turn_start\"}}\n"
    );
    job.stdin.clear();
    let line: Value = serde_json::from_slice(&request_line(1, &job)).unwrap();
    assert_eq!(line["input"], serde_json::json!({}));
}

#[tokio::test]
async fn a_dropped_call_leaves_no_request_behind() {
    let hook = Persistent::new(PersistentLimits::default(), None);
    // Reads its requests and never answers.
    let job = Job::new(
        super::super::Program::Sh,
        "cat > /dev/null",
        b"{}\n".to_vec(),
    );
    let call = hook.run(job);
    assert!(tokio::time::timeout(Duration::from_millis(300), call)
        .await
        .is_err());
    {
        let live = hook.inner.live.lock().await;
        let live = live.as_ref().expect("the process runs");
        assert!(lock(&live.waiters).is_empty());
    }
    hook.shutdown(Duration::from_millis(100)).await;
}
