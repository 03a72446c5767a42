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

/// The variables are written by hand on every call; they must read as
/// serde_json's own map writes them: keys sorted, the last value of a name,
/// every string escaped.
#[test]
fn the_request_lines_variables_are_what_a_json_map_of_them_writes() {
    let env: Vec<(String, String)> = [
        ("Z_LAST", "z"),
        ("MINE", "not sent"),
        (
            "A_FIRST",
            "quote \" backslash \\ newline \n tab \t nul-free \u{1} é ☃",
        ),
        ("NANOPI_EVENT", "first"),
        ("NANOPI_EVENT", "second wins"),
        ("B_EMPTY", ""),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let event_env: Vec<String> = ["Z_LAST", "A_FIRST", "NANOPI_EVENT", "B_EMPTY", "ABSENT"]
        .map(str::to_owned)
        .to_vec();
    let job = Job {
        program: super::super::Program::Bash,
        command: "x".into(),
        stdin: b"  {\"a\":1}\n".to_vec(),
        env: env.clone(),
        env_remove: Vec::new(),
        event_env: event_env.clone(),
        host_env: Vec::new(),
        current_dir: None,
        deadline: None,
    };
    let map: serde_json::Map<String, Value> = env
        .iter()
        .filter(|(k, _)| event_env.contains(k))
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let expected = format!(
        "{{\"id\":42,\"input\":{{\"a\":1}},\"env\":{}}}\n",
        Value::Object(map)
    );
    assert_eq!(String::from_utf8(request_line(42, &job)).unwrap(), expected);
    assert!(
        expected.contains("\"NANOPI_EVENT\":\"second wins\""),
        "{expected}"
    );
    assert!(
        expected.find("A_FIRST") < expected.find("B_EMPTY"),
        "{expected}"
    );
    let empty = Job {
        event_env: Vec::new(),
        ..job
    };
    assert!(String::from_utf8(request_line(1, &empty))
        .unwrap()
        .ends_with(",\"env\":{}}\n"));
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
