//! `hooks test` runs Claude Code `http` handlers for real, against a policy
//! server on the loopback interface (the library's test server), through the
//! same address guard as a library stack.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

#[allow(dead_code)]
#[path = "../../tests/http/server.rs"]
mod server;

use server::{Reply, Server};

/// A project whose `.claude/settings.json` holds `settings`.
fn project(settings: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, settings.to_string()).unwrap();
    dir
}

/// Runs `hooks` in `dir` (off the runtime's workers, which serve the server).
async fn hooks(dir: PathBuf, args: &[&str]) -> (i32, Value, String) {
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(&args)
            .current_dir(&dir)
            .env("HOME", &dir)
            .env("POLICY_TOKEN", "t0k3n")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr)
}

/// `hooks test` of a Claude Code `Bash` call of `command`, with a JSON report.
fn test_bash(command: &str) -> Vec<String> {
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": command}}).to_string();
    [
        "test",
        "--event",
        "PreToolUse",
        "--discover",
        "claude",
        "--project",
        ".",
        "--json",
        "--payload",
        &payload,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// The report of a run whose one hook failed and let the call go ahead.
fn an_error_that_allows((code, report, stderr): (i32, Value, String)) -> Value {
    assert_eq!(
        (code, &report["decision"]),
        (0, &json!("allow")),
        "{report}\n{stderr}"
    );
    assert_eq!(report["hooks"][0]["outcome"], "error", "{report}");
    report
}

fn http_hook(url: String) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
        "type": "http", "url": url, "timeout": 10,
        "headers": {"Authorization": "Bearer $POLICY_TOKEN"},
        "allowedEnvVars": ["POLICY_TOKEN"]
    }]}]}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_test_posts_the_event_and_shows_the_servers_decision() {
    let server = Server::start(|req| {
        let command = req.json.as_ref().unwrap()["tool_input"]["command"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        if req.header("authorization") != Some("Bearer t0k3n") {
            return Reply::text(401, "who are you?");
        }
        if command.contains("rm -rf") {
            Reply::json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "policy: no rm -rf"}}))
        } else {
            Reply::empty()
        }
    })
    .await;
    let dir = project(&http_hook(format!(
        "http://127.0.0.1:{}/check",
        server.port()
    )));
    let root = dir.path().to_path_buf();
    let test = |command: &str| {
        let root = root.clone();
        let args = test_bash(command);
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            hooks(root, &[&args[..], &["--exit-code"]].concat()).await
        }
    };
    let (code, report, stderr) = test("rm -rf build/").await;
    assert_eq!(code, 3, "{report}\n{stderr}");
    assert_eq!(report["decision"], "block", "{report}");
    assert_eq!(report["reason"], "policy: no rm -rf");
    assert_eq!(report["hooks"][0]["outcome"], "block");

    let (code, report, _) = test("ls").await;
    assert_eq!(
        (code, &report["decision"]),
        (0, &json!("allow")),
        "{report}"
    );

    let seen = server.requests();
    assert_eq!(seen.len(), 2);
    let body = seen[0].json.as_ref().unwrap();
    assert_eq!(body["hook_event_name"], "PreToolUse");
    assert_eq!(body["tool_input"]["command"], "rm -rf build/");
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path, "/check");

    // `list` shows where it posts.
    let (_, list, _) = hooks(
        root.clone(),
        &["list", "--discover", "claude", "--project", ".", "--json"],
    )
    .await;
    assert_eq!(list[0]["type"], "http");
    assert_eq!(
        list[0]["url"],
        format!("http://127.0.0.1:{}/check", server.port())
    );
    assert_eq!(list[0]["command"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_server_is_an_error_and_a_private_address_is_refused_unconnected() {
    let server = Server::start(|_| Reply::text(500, "database down")).await;
    let dir = project(&http_hook(format!(
        "http://127.0.0.1:{}/check",
        server.port()
    )));
    let args = test_bash("ls");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = an_error_that_allows(hooks(dir.path().to_path_buf(), &args).await);
    assert!(
        report["hooks"][0]
            .to_string()
            .contains("HTTP 500: database down"),
        "{report}"
    );

    // The guard refuses a private address before any connection: nothing
    // leaves the machine, and the report says why.
    let dir = project(&http_hook("http://10.0.0.1:9/check".to_owned()));
    let report = an_error_that_allows(hooks(dir.path().to_path_buf(), &args).await);
    let text = report["hooks"][0].to_string();
    assert!(
        text.contains("refused to connect to http://10.0.0.1:9/check: 10.0.0.1 is a private address (10.0.0.0/8)"),
        "{report}"
    );

    // `--http-allow` takes ranges only.
    let (code, _, stderr) = hooks(
        dir.path().to_path_buf(),
        &[
            "test",
            "--event",
            "PreToolUse",
            "--http-allow",
            "10.0.0.0/33",
        ],
    )
    .await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--http-allow"), "{stderr}");
}
