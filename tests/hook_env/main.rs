//! What a command hook's process gets from the builder: extra variables
//! (`Builder::env`) and a working directory (`Builder::current_dir`), with
//! real bash.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::report::Notice;
use tower_hooks::{Builder, Event, HookOutcome, HookRequest, HookSpec, HookStack};

/// Runs `req` through a stack made by `build`; answers the outcome and the report lines.
async fn run(
    build: impl FnOnce(Builder) -> Builder,
    req: HookRequest,
) -> (HookOutcome, Vec<String>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let builder = HookStack::builder()
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")));
    let outcome = build(builder).build().oneshot(req).await.unwrap();
    let lines = lines.lock().unwrap().clone();
    (outcome, lines)
}

/// `'…'`-quotes a path for bash.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// The `NUL`-separated output of `env -0`, as pairs.
fn read_env(path: &Path) -> Vec<(String, String)> {
    std::fs::read(path)
        .unwrap()
        .split(|&b| b == 0)
        .filter_map(|kv| {
            let kv = String::from_utf8_lossy(kv);
            kv.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn builder_variables_reach_command_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let command = format!(
        r#"printf '%s|%s' "$GUARD_MODE" "$LEVEL" > {}"#,
        quoted(&out)
    );
    let (outcome, lines) = run(
        |b| {
            b.env("GUARD_MODE", "strict")
                .envs([("LEVEL", "1"), ("LEVEL", "2")])
                .command_hook(HookSpec::command(Event::TurnStart, command))
        },
        HookRequest::turn_start(1, 0),
    )
    .await;
    assert!(!outcome.is_blocked());
    assert!(lines.is_empty(), "{lines:?}");
    assert_eq!(std::fs::read_to_string(out).unwrap(), "strict|2");
}

#[tokio::test]
async fn protocol_variables_cannot_be_overridden() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env");
    let command = format!("env -0 > {}", quoted(&out));
    run(
        |b| {
            b.env("NANOPI_EVENT", "Forged")
                .env("NANOPI_CWD", "/forged")
                .env("NANOPI_SESSION_ID", "forged")
                .env("NANOPI_TOOL_NAME", "forged")
                .env("NANOPI_TOOL_CALL_ID", "forged")
                .env("ALSO_SET", "yes")
                .command_hook(HookSpec::command(Event::SessionStart, command))
        },
        HookRequest::session_start(tower_hooks::StartReason::Startup).with_cwd("/p"),
    )
    .await;
    let env = read_env(&out);
    let all = |k: &str| {
        env.iter()
            .filter(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(all("NANOPI_EVENT"), ["SessionStart"]);
    assert_eq!(all("NANOPI_CWD"), ["/p"]);
    // Not set by a session_start without a session id or a tool: absent.
    assert!(all("NANOPI_SESSION_ID").is_empty());
    assert!(all("NANOPI_TOOL_NAME").is_empty());
    assert!(all("NANOPI_TOOL_CALL_ID").is_empty());
    assert_eq!(all("ALSO_SET"), ["yes"]);
}

#[tokio::test]
async fn command_hooks_run_in_the_builders_directory() {
    let dir = tempfile::tempdir().unwrap();
    // A quote in the name, to check the quoting.
    let work = dir.path().join("it's here");
    std::fs::create_dir(&work).unwrap();
    let out = dir.path().join("pwd");
    let stdin = dir.path().join("stdin");
    let command = format!("pwd > {}; cat > {}", quoted(&out), quoted(&stdin));
    let (outcome, lines) = run(
        |b| {
            b.current_dir(&work)
                .command_hook(HookSpec::command(Event::TurnStart, command))
        },
        HookRequest::turn_start(1, 0).with_cwd("/session"),
    )
    .await;
    assert!(!outcome.is_blocked());
    assert!(lines.is_empty(), "{lines:?}");
    let pwd = std::fs::read_to_string(out).unwrap();
    assert_eq!(
        Path::new(pwd.trim_end()).canonicalize().unwrap(),
        work.canonicalize().unwrap()
    );
    // The payload still carries the session's directory.
    let line: Value = serde_json::from_str(&std::fs::read_to_string(stdin).unwrap()).unwrap();
    assert_eq!(line["cwd"], json!("/session"));
}

#[tokio::test]
async fn relative_commands_resolve_in_that_directory_and_bash_still_says_line_1() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("guard.sh");
    std::fs::write(
        &script,
        "#!/usr/bin/env bash\necho refused by guard.sh >&2\nexit 2\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (outcome, _) = run(
        |b| {
            b.current_dir(dir.path())
                .command_hook(HookSpec::command(Event::Input, "./guard.sh"))
        },
        HookRequest::input("x"),
    )
    .await;
    assert_eq!(outcome.reason(), Some("refused by guard.sh"));

    let (outcome, _) = run(
        |b| {
            b.current_dir(dir.path()).command_hook(HookSpec::command(
                Event::Input,
                r#"echo "line $LINENO" >&2; exit 2"#,
            ))
        },
        HookRequest::input("x"),
    )
    .await;
    assert_eq!(outcome.reason(), Some("line 1"));
}

#[tokio::test]
async fn a_missing_directory_fails_open_with_the_report_line() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let (outcome, lines) = run(
        |b| {
            b.current_dir(&gone).command_hook(
                HookSpec::command(Event::ToolExecutionStart, "exit 2")
                    .with_matcher("^bash$")
                    .unwrap(),
            )
        },
        HookRequest::tool_execution_start("bash", json!({})),
    )
    .await;
    assert!(!outcome.is_blocked());
    assert_eq!(
        lines,
        [format!(
            "nanopi: hook errored; failing open (allow) [tool=bash matcher=^bash$ \
             error=the hook's working directory {}: No such file or directory (os error 2)]",
            gone.display()
        )]
    );
}

#[tokio::test]
async fn a_missing_directory_blocks_a_fail_closed_hook() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a file");
    std::fs::write(&file, "").unwrap();
    let (outcome, lines) = run(
        |b| {
            b.current_dir(&file).command_hook(
                HookSpec::command(Event::ToolExecutionStart, "exit 0").with_fail_closed(true),
            )
        },
        HookRequest::tool_execution_start("bash", json!({})),
    )
    .await;
    assert!(outcome.is_blocked());
    assert_eq!(
        outcome.reason().map(str::to_owned),
        Some(format!(
            "hook failed closed: the hook's working directory {}: not a directory",
            file.display()
        ))
    );
    assert!(lines.is_empty(), "{lines:?}");
}
