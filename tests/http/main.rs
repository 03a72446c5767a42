//! HTTP hooks (Claude Code's `http` handlers, feature `http`) against a real
//! policy server on the loopback interface ([`server`]): the response table,
//! `onFailure: "block"`, what the server receives, header expansion, the
//! settings-level allowlists, the SSRF guard and `async: true`.
//!
//! Every request of these tests goes to `127.0.0.1` or `::1`. The guard tests
//! that hand the stack private addresses always list a loopback address
//! first, where a server counts connections: a client that skipped the guard
//! would connect there (and fail the test) rather than leave the machine.

mod server;

use std::convert::Infallible;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::config::{Config, ConfigFile};
use tower_hooks::layer::http::{AddressGuard, HttpSettings};
use tower_hooks::{BlockCause, Decision, HookOutcome, HookRequest, HookStack, RecordOutcome};

use server::{Reply, Server};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A project in a temporary folder whose `.claude/settings.json` is `settings`.
struct Project {
    dir: tempfile::TempDir,
    settings: PathBuf,
}

impl Project {
    fn new(settings: &Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, settings.to_string()).unwrap();
        Project {
            dir,
            settings: path,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn config(&self) -> Config {
        Config::load_files(&[ConfigFile::detect(&self.settings)], self.root()).unwrap()
    }
}

/// `{"hooks": {event: [{"hooks": handlers}]}}`.
fn settings(event: &str, handlers: Vec<Value>) -> Value {
    json!({"hooks": {event: [{"hooks": handlers}]}})
}

/// An `http` handler posting to `url`, with `extra` fields laid over it.
fn http(url: &str, extra: Value) -> Value {
    let mut handler = json!({"type": "http", "url": url});
    if let Value::Object(extra) = extra {
        for (key, value) in extra {
            handler[key] = value;
        }
    }
    handler
}

/// The stack of a configuration, posting with `http`.
fn stack(config: &Config, http: HttpSettings) -> HookStack {
    HookStack::builder()
        .report(())
        .http(http)
        .config(config)
        .build()
}

/// A stack of one handler of `event`, with the default HTTP settings. The
/// project is returned so that its folder lives as long as the stack.
fn one_hook(event: &str, handler: Value) -> (Project, HookStack) {
    one_hook_with(event, handler, HttpSettings::new())
}

fn one_hook_with(event: &str, handler: Value, http: HttpSettings) -> (Project, HookStack) {
    let project = Project::new(&settings(event, vec![handler]));
    let config = project.config();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let stack = stack(&config, http);
    (project, stack)
}

/// A `Bash` tool call, as `PreToolUse` sees it.
fn bash(command: &str) -> HookRequest {
    HookRequest::tool_execution_start("Bash", json!({"command": command}))
        .with_session_id("s-http")
        .with_cwd("/work/project")
}

/// Calls the stack, bounded so that a hang fails the test rather than CI.
async fn call(stack: &HookStack, req: HookRequest) -> HookOutcome {
    tokio::time::timeout(Duration::from_secs(30), stack.clone().oneshot(req))
        .await
        .expect("the call ended within 30 s")
        .unwrap()
}

/// The only record of an outcome: its outcome and its reason.
fn only_record(outcome: &HookOutcome) -> (RecordOutcome, Option<String>) {
    let [record] = outcome.hooks() else {
        panic!("one record expected: {outcome:?}")
    };
    (record.outcome(), record.reason().map(str::to_owned))
}

/// Each record of an outcome: its outcome and its reason.
fn records(outcome: &HookOutcome) -> Vec<(RecordOutcome, Option<&str>)> {
    outcome
        .hooks()
        .iter()
        .map(|r| (r.outcome(), r.reason()))
        .collect()
}

/// Asserts that the call went ahead, unchanged, with one `error` record
/// whose reason is `reason`.
fn assert_failed_open(outcome: &HookOutcome, reason: &str) {
    assert_eq!(
        only_record(outcome),
        (RecordOutcome::Error, Some(reason.to_owned())),
        "{outcome:?}"
    );
    assert_eq!(outcome.decision(), Decision::Allow, "{outcome:?}");
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.reason(), None);
    assert!(outcome.context().is_empty(), "{outcome:?}");
    assert!(outcome.user_messages().is_empty(), "{outcome:?}");
}

/// A port where nothing listens: a listener's, after it is dropped.
async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    port
}

/// A resolver that answers `addresses` for every name, and keeps the names
/// it was asked.
#[derive(Clone)]
struct FixedResolver {
    addresses: Vec<IpAddr>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl tower::Service<String> for FixedResolver {
    type Response = Vec<IpAddr>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Vec<IpAddr>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, host: String) -> Self::Future {
        self.asked.lock().unwrap().push(host);
        std::future::ready(Ok(self.addresses.clone()))
    }
}

/// A [`FixedResolver`] of `addresses`, and the names it is asked.
fn fixed_resolver(addresses: Vec<IpAddr>) -> (FixedResolver, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let resolver = FixedResolver {
        addresses,
        asked: asked.clone(),
    };
    (resolver, asked)
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// Waits a little for connections still in flight to be accepted, then
/// answers how many the server accepted.
async fn settled_connections(server: &Server) -> usize {
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.connections()
}

/// Calls a stack of one `PreToolUse` handler posting to `url`, with
/// `settings`, with a `Bash` `ls`, and asserts that the only record is an
/// `error`: the outcome, and the record's reason. `case` names the case in a
/// failure.
async fn error_record(url: &str, settings: HttpSettings, case: &str) -> (HookOutcome, String) {
    let (_project, stack) = one_hook_with("PreToolUse", http(url, json!({})), settings);
    let outcome = call(&stack, bash("ls")).await;
    let (record, reason) = only_record(&outcome);
    assert_eq!(record, RecordOutcome::Error, "{case}: {outcome:?}");
    let reason = reason.expect("an error record has a reason");
    (outcome, reason)
}

// ---------------------------------------------------------------------------
// 1. The response table
// ---------------------------------------------------------------------------

/// 2xx with an empty body: no opinion, the action goes ahead unchanged.
#[tokio::test]
async fn an_empty_2xx_allows() {
    for status in [200, 204] {
        let server = Server::start(move |_| Reply::text(status, "")).await;
        let (_project, stack) = one_hook("PreToolUse", http(&server.url("/policy"), json!({})));
        let outcome = call(&stack, bash("ls")).await;
        assert_eq!(
            only_record(&outcome),
            (RecordOutcome::Allow, None),
            "{status}"
        );
        assert_eq!(outcome.decision(), Decision::Allow);
        assert_eq!(outcome.arguments(), &json!({"command": "ls"}));
        assert!(outcome.context().is_empty());
        let requests = server.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].path, "/policy");
    }
}

/// 2xx with a deny, in either of Claude Code's forms, blocks with its reason.
#[tokio::test]
async fn a_2xx_deny_blocks_with_its_reason() {
    let answers = [
        (
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "rm -rf is not allowed here"}}),
            "rm -rf is not allowed here",
        ),
        (
            json!({"decision": "block", "reason": "the policy says no"}),
            "the policy says no",
        ),
    ];
    for (answer, reason) in answers {
        let server = Server::start(move |req| {
            // Deny only what the policy is about: the envelope is read.
            if req.json.as_ref().unwrap()["tool_input"]["command"] == "rm -rf /" {
                Reply::json(answer.clone())
            } else {
                Reply::empty()
            }
        })
        .await;
        let (_project, stack) = one_hook("PreToolUse", http(&server.url("/policy"), json!({})));
        let refused = call(&stack, bash("rm -rf /")).await;
        assert_eq!(
            only_record(&refused),
            (RecordOutcome::Block, Some(reason.to_owned()))
        );
        assert!(refused.is_blocked(), "{refused:?}");
        assert_eq!(refused.decision(), Decision::Block);
        assert_eq!(refused.reason(), Some(reason));
        assert_eq!(refused.hooks()[0].block_cause(), Some(BlockCause::Hook));

        let allowed = call(&stack, bash("ls")).await;
        assert_eq!(only_record(&allowed), (RecordOutcome::Allow, None));
        assert_eq!(server.requests().len(), 2);
    }
}

/// 2xx with `updatedInput` rewrites the tool call's arguments.
#[tokio::test]
async fn a_2xx_updated_input_transforms_the_arguments() {
    let server = Server::start(|req| {
        let command = req.json.as_ref().unwrap()["tool_input"]["command"]
            .as_str()
            .unwrap()
            .to_owned();
        Reply::json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": format!("{command} --dry-run")}}}))
    })
    .await;
    let (_project, stack) = one_hook("PreToolUse", http(&server.url("/rewrite"), json!({})));
    let outcome = call(&stack, bash("make deploy")).await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Transform, None));
    assert_eq!(outcome.decision(), Decision::Transform);
    assert!(!outcome.is_blocked());
    assert_eq!(
        outcome.arguments(),
        &json!({"command": "make deploy --dry-run"})
    );
    assert!(outcome.is_approved(), "permissionDecision allow approves");
}

/// 2xx with `additionalContext` on `UserPromptSubmit` (and `PreToolUse`)
/// hands it to the model, as a command's JSON would.
#[tokio::test]
async fn a_2xx_additional_context_reaches_the_model() {
    let server = Server::start(|req| {
        let event = req.json.as_ref().unwrap()["hook_event_name"]
            .as_str()
            .unwrap()
            .to_owned();
        Reply::json(json!({"hookSpecificOutput": {"hookEventName": event,
            "additionalContext": format!("policy context for {event}")}}))
    })
    .await;
    let (_project, stack) = one_hook("UserPromptSubmit", http(&server.url("/ctx"), json!({})));
    let outcome = call(
        &stack,
        HookRequest::input("fix the bug").with_session_id("s"),
    )
    .await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    assert_eq!(outcome.context(), ["policy context for UserPromptSubmit"]);
    assert_eq!(outcome.decision(), Decision::Allow);
    assert_eq!(outcome.prompt(), Some("fix the bug"));
    let body = server.requests()[0].json.clone().unwrap();
    assert_eq!(body["hook_event_name"], "UserPromptSubmit");
    assert_eq!(body["prompt"], "fix the bug");

    let (_project, stack) = one_hook("PreToolUse", http(&server.url("/ctx"), json!({})));
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    assert_eq!(outcome.context(), ["policy context for PreToolUse"]);
}

/// Another status is a failure: an `error` record naming the status (and
/// the start of the body), and the action goes ahead. A status never blocks.
#[tokio::test]
async fn a_non_2xx_status_is_an_error_that_allows() {
    let server = Server::start(|req| match req.path.as_str() {
        "/500" => Reply::text(500, "policy engine crashed"),
        "/403" => Reply::json(json!({"decision": "block", "reason": "nope"})).with_status(403),
        _ => Reply::text(404, ""),
    })
    .await;
    let rows = [
        (
            "/500",
            "the policy server answered HTTP 500: policy engine crashed",
        ),
        (
            "/403",
            r#"the policy server answered HTTP 403: {"decision":"block","reason":"nope"}"#,
        ),
        ("/404", "the policy server answered HTTP 404"),
    ];
    for (path, reason) in rows {
        let (_project, stack) = one_hook("PreToolUse", http(&server.url(path), json!({})));
        let outcome = call(&stack, bash("rm -rf /")).await;
        assert_failed_open(&outcome, reason);
        assert_eq!(outcome.arguments(), &json!({"command": "rm -rf /"}));
    }
    assert_eq!(server.requests().len(), 3);
}

/// 2xx with a body that is not JSON is a failure, and its text is not used
/// (not even on `UserPromptSubmit`, where a command's plain stdout is
/// context); 2xx with JSON that is not an object is a failure too.
#[tokio::test]
async fn a_2xx_body_that_is_not_a_json_object_is_an_error() {
    let server = Server::start(|req| match req.path.as_str() {
        "/garbage" => Reply::text(200, "all good, go ahead"),
        "/array" => Reply::text(200, "[1]"),
        "/string" => Reply::text(200, r#""deny""#),
        "/number" => Reply::text(200, "42"),
        "/html" => Reply::text(200, "<html>\n<b>oops</b>\n</html>"),
        _ => Reply::text(200, "{\"decision\": \"block\""),
    })
    .await;
    let not_an_object = "the policy server answered HTTP 200 with a body that is not a JSON object";
    let rows = [
        ("/garbage", ": all good, go ahead"),
        ("/array", ": [1]"),
        ("/string", r#": "deny""#),
        ("/number", ": 42"),
        ("/html", ": <html> <b>oops</b> </html>"),
        ("/truncated", r#": {"decision": "block""#),
    ];
    for event in ["PreToolUse", "UserPromptSubmit"] {
        for (path, shown) in rows {
            let (_project, stack) = one_hook(event, http(&server.url(path), json!({})));
            let req = match event {
                "PreToolUse" => bash("ls"),
                _ => HookRequest::input("hello"),
            };
            let outcome = call(&stack, req).await;
            assert_failed_open(&outcome, &format!("{not_an_object}{shown}"));
        }
    }
}

/// A redirect is not followed: the server sees one request, and the 3xx is
/// a failure.
#[tokio::test]
async fn a_redirect_is_not_followed() {
    let server = Server::start(|req| match req.path.as_str() {
        "/redirect" => Reply::text(302, "").with_header("location", "/elsewhere"),
        "/permanent" => Reply::text(308, "").with_header("location", "/elsewhere"),
        _ => Reply::json(json!({"decision": "block", "reason": "followed"})),
    })
    .await;
    for (path, status) in [("/redirect", 302), ("/permanent", 308)] {
        let (_project, stack) = one_hook("PreToolUse", http(&server.url(path), json!({})));
        let outcome = call(&stack, bash("ls")).await;
        assert_failed_open(
            &outcome,
            &format!("the policy server answered HTTP {status}"),
        );
    }
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/redirect", "/permanent"]);
}

/// Calls a stack of one `PreToolUse` handler posting to `url` with a
/// `timeout` of 1 s, and asserts that the call ended at the timeout, long
/// before `late` (when the server would be done), and went ahead.
async fn assert_timed_out_after_1_s(url: &str, late: &str) {
    let (_project, stack) = one_hook("PreToolUse", http(url, json!({"timeout": 1})));
    let started = Instant::now();
    let outcome = tokio::time::timeout(Duration::from_secs(4), stack.clone().oneshot(bash("ls")))
        .await
        .unwrap_or_else(|_| panic!("the call ended long before {late}"))
        .unwrap();
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
    assert_failed_open(&outcome, "timed out after 1 s");
}

/// A server slower than the hook's timeout: Claude Code's "timed out after
/// N s", the action goes ahead, and the call ends at the timeout, not when the
/// server answers.
#[tokio::test]
async fn a_server_past_the_timeout_is_an_error_at_the_timeout() {
    let server = Server::start(|_| {
        Reply::json(json!({"decision": "block", "reason": "too late"}))
            .after(Duration::from_secs(5))
    })
    .await;
    assert_timed_out_after_1_s(&server.url("/slow"), "the server's 5 s").await;
    assert_eq!(server.requests().len(), 1, "the request was sent");
}

/// The timeout bounds the whole exchange: a server that sends its headers at
/// once and then its body a byte every 300 ms is cut off at the timeout too.
#[tokio::test]
async fn a_body_that_dribbles_past_the_timeout_is_an_error_at_the_timeout() {
    let server = Server::start(|_| Reply::streamed(64, 1).paced(Duration::from_millis(300))).await;
    assert_timed_out_after_1_s(&server.url("/dribble"), "the body's 19 s").await;
}

/// A body over the limit is a failure naming the limit, whether it is
/// streamed without a length (8 MiB, read no further than the limit) or
/// announced with a `Content-Length` over it.
#[tokio::test]
async fn an_answer_over_the_limit_is_an_error() {
    let server = Server::start(|req| match req.path.as_str() {
        "/streamed" => Reply::streamed(8 * 1024 * 1024, 64 * 1024),
        _ => Reply::bytes(200, vec![b' '; 2 * 1024 * 1024]),
    })
    .await;
    for path in ["/streamed", "/announced"] {
        let (_project, stack) = one_hook("PreToolUse", http(&server.url(path), json!({})));
        let started = Instant::now();
        let outcome = call(&stack, bash("ls")).await;
        assert!(started.elapsed() < Duration::from_secs(20));
        assert_failed_open(
            &outcome,
            &format!(
                "the policy server's answer is over 1048576 bytes; it was not read ({})",
                server.url(path)
            ),
        );
    }
}

/// `max_response_bytes` sets the limit: 2 KiB is refused (with a length or
/// streamed), 512 bytes are read.
#[tokio::test]
async fn max_response_bytes_sets_the_limit() {
    /// A `PreToolUse` answer of exactly `len` bytes whose context is padding,
    /// and that context.
    fn answer_of(len: usize) -> (Vec<u8>, String) {
        let with = |context: &str| {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "additionalContext": context}})
            .to_string()
        };
        let context = "x".repeat(len - with("").len());
        let body = with(&context);
        assert_eq!(body.len(), len);
        (body.into_bytes(), context)
    }
    let server = Server::start(|req| match req.path.as_str() {
        "/2k" => Reply::bytes(200, answer_of(2048).0),
        "/2k-streamed" => Reply::streamed(2048, 256),
        "/1k" => Reply::bytes(200, answer_of(1024).0),
        _ => Reply::bytes(200, answer_of(512).0),
    })
    .await;
    let limited = || HttpSettings::new().max_response_bytes(1024);
    for path in ["/2k", "/2k-streamed"] {
        let (_project, stack) =
            one_hook_with("PreToolUse", http(&server.url(path), json!({})), limited());
        let outcome = call(&stack, bash("ls")).await;
        assert_failed_open(
            &outcome,
            &format!(
                "the policy server's answer is over 1024 bytes; it was not read ({})",
                server.url(path)
            ),
        );
    }
    for (path, len) in [("/512", 512), ("/1k", 1024)] {
        let (_project, stack) =
            one_hook_with("PreToolUse", http(&server.url(path), json!({})), limited());
        let outcome = call(&stack, bash("ls")).await;
        assert_eq!(
            only_record(&outcome),
            (RecordOutcome::Allow, None),
            "{path}"
        );
        assert_eq!(outcome.context(), [answer_of(len).1], "{path}");
    }
}

/// Nothing listens: a failure, and the action goes ahead.
#[tokio::test]
async fn a_refused_connection_is_an_error() {
    let port = closed_port().await;
    let url = format!("http://127.0.0.1:{port}/policy");
    let (_project, stack) = one_hook("PreToolUse", http(&url, json!({})));
    let outcome = call(&stack, bash("rm -rf /")).await;
    let (record, reason) = only_record(&outcome);
    assert_eq!(record, RecordOutcome::Error, "{outcome:?}");
    let reason = reason.unwrap();
    assert!(
        reason.starts_with(&format!("could not post to {url}: ")),
        "{reason}"
    );
    assert!(reason.contains("Connection refused"), "{reason}");
    assert_eq!(outcome.decision(), Decision::Allow);
    assert!(!outcome.is_blocked());
}

/// The user information of a URL (`user:password@`) is sent, but never shown
/// in a message: the module's `url_shown` strips it from what it writes.
#[tokio::test]
async fn credentials_in_the_url_stay_out_of_messages() {
    let server = Server::start(|_| Reply::text(503, "")).await;
    let with_credentials = |port: u16| format!("http://alice:s3cr3t-pw@127.0.0.1:{port}/policy");
    let (_project, stack) = one_hook(
        "PreToolUse",
        http(&with_credentials(server.port()), json!({})),
    );
    let outcome = call(&stack, bash("ls")).await;
    assert_failed_open(&outcome, "the policy server answered HTTP 503");
    // Sent as basic authentication.
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Basic YWxpY2U6czNjcjN0LXB3")
    );

    let port = closed_port().await;
    let (_project, stack) = one_hook("PreToolUse", http(&with_credentials(port), json!({})));
    let outcome = call(&stack, bash("ls")).await;
    let (record, reason) = only_record(&outcome);
    assert_eq!(record, RecordOutcome::Error);
    let reason = reason.unwrap();
    assert!(
        reason.starts_with(&format!(
            "could not post to http://127.0.0.1:{port}/policy: "
        )),
        "{reason}"
    );
    assert!(
        !reason.contains("s3cr3t-pw"),
        "the password leaked: {reason}"
    );
    assert!(!reason.contains("alice"), "the user name leaked: {reason}");
}

// ---------------------------------------------------------------------------
// 2. onFailure: "block"
// ---------------------------------------------------------------------------

/// With `onFailure: "block"` the same failures block.
#[tokio::test]
async fn on_failure_block_makes_failures_block() {
    let server = Server::start(|req| match req.path.as_str() {
        "/500" => Reply::text(500, "boom"),
        "/garbage" => Reply::text(200, "fine"),
        _ => Reply::empty().after(Duration::from_secs(5)),
    })
    .await;
    let port = closed_port().await;
    let refused_url = format!("http://127.0.0.1:{port}/policy");
    let rows = [
        (
            server.url("/500"),
            "hook failed closed: the policy server answered HTTP 500: boom".to_owned(),
        ),
        (
            server.url("/garbage"),
            "hook failed closed: the policy server answered HTTP 200 with a body that is not a \
             JSON object: fine"
                .to_owned(),
        ),
        (
            server.url("/slow"),
            "hook failed closed: timed out after 1 s".to_owned(),
        ),
    ];
    for (url, reason) in rows {
        let (_project, stack) = one_hook(
            "PreToolUse",
            http(&url, json!({"timeout": 1, "onFailure": "block"})),
        );
        let started = Instant::now();
        let outcome = call(&stack, bash("ls")).await;
        assert!(started.elapsed() < Duration::from_secs(4), "{url}");
        assert_eq!(
            only_record(&outcome),
            (RecordOutcome::FailedClosed, Some(reason.clone())),
            "{url}"
        );
        assert!(outcome.is_blocked(), "{outcome:?}");
        assert_eq!(outcome.reason(), Some(reason.as_str()));
        assert_eq!(
            outcome.hooks()[0].block_cause(),
            Some(BlockCause::FailedClosed)
        );
    }

    let (_project, stack) = one_hook(
        "PreToolUse",
        http(&refused_url, json!({"onFailure": "block"})),
    );
    let outcome = call(&stack, bash("ls")).await;
    assert!(outcome.is_blocked(), "{outcome:?}");
    let reason = outcome.reason().unwrap();
    assert!(
        reason.starts_with(&format!(
            "hook failed closed: could not post to {refused_url}: "
        )),
        "{reason}"
    );
    assert_eq!(only_record(&outcome).0, RecordOutcome::FailedClosed);

    // A success of a fail-closed hook is a success.
    let ok = Server::allowing().await;
    let (_project, stack) = one_hook(
        "PreToolUse",
        http(&ok.url("/"), json!({"onFailure": "block"})),
    );
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
}

// ---------------------------------------------------------------------------
// 3. What the server receives
// ---------------------------------------------------------------------------

/// The server gets a POST of `application/json` whose body is the Claude
/// envelope, byte for byte what a command hook of the same group reads on
/// its stdin.
#[tokio::test]
async fn the_server_receives_the_envelope_a_command_reads_on_stdin() {
    let server = Server::allowing().await;
    let dir = tempfile::tempdir().unwrap();
    let stdin_copy = dir.path().join("stdin.json");
    let command = format!("cat > '{}'", stdin_copy.display());
    let project = Project::new(&settings(
        "PreToolUse",
        vec![
            http(&server.url("/policy?team=core"), json!({})),
            json!({"type": "command", "command": command}),
        ],
    ));
    let config = project.config();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let stack = stack(&config, HttpSettings::new());
    // The session's folder, where the command runs: it must exist.
    let cwd = project.root().display().to_string();
    let req = HookRequest::tool_execution_start(
        "Bash",
        json!({"command": "git status", "description": "Show the tree"}),
    )
    .with_session_id("session-42")
    .with_tool_call_id("toolu_01")
    .with_cwd(cwd.as_str());
    let outcome = call(&stack, req).await;
    let records = records(&outcome);
    assert_eq!(
        records,
        [(RecordOutcome::Allow, None), (RecordOutcome::Allow, None)]
    );

    let [received] = &server.requests()[..] else {
        panic!("one request expected: {:?}", server.requests())
    };
    assert_eq!(received.method, "POST");
    assert_eq!(received.path, "/policy?team=core");
    assert_eq!(received.header("content-type"), Some("application/json"));
    assert_eq!(
        received.header("content-length"),
        Some(received.body.len().to_string().as_str())
    );
    let stdin = std::fs::read(&stdin_copy).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&received.body),
        String::from_utf8_lossy(&stdin),
        "the body is what a command reads on stdin"
    );
    let body = received.json.clone().expect("the body is JSON");
    assert_eq!(body["hook_event_name"], "PreToolUse");
    assert_eq!(body["tool_name"], "Bash");
    assert_eq!(
        body["tool_input"],
        json!({"command": "git status", "description": "Show the tree"})
    );
    assert_eq!(body["tool_use_id"], "toolu_01");
    assert_eq!(body["session_id"], "session-42");
    assert_eq!(body["cwd"], cwd.as_str());
    assert!(body.get("transcript_path").is_some(), "{body}");
    assert!(body.get("permission_mode").is_some(), "{body}");
}

/// Each event posts its own envelope: `Stop` with its fields.
#[tokio::test]
async fn each_event_posts_its_own_envelope() {
    let server = Server::allowing().await;
    let (_project, stack) = one_hook("Stop", http(&server.url("/stop"), json!({})));
    let outcome = call(
        &stack,
        HookRequest::stop(false, "All done.").with_session_id("s9"),
    )
    .await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    let body = server.requests()[0].json.clone().unwrap();
    assert_eq!(body["hook_event_name"], "Stop");
    assert_eq!(body["session_id"], "s9");
    assert_eq!(body["stop_hook_active"], false);
    assert!(body.get("tool_name").is_none(), "{body}");
}

// ---------------------------------------------------------------------------
// 4. Header expansion
// ---------------------------------------------------------------------------

const HEADERS: &str = r#"{"Authorization": "Bearer $TH_HTTP_TOKEN", "X-Other": "${TH_HTTP_SECRET}-x", "X-Team": "core"}"#;

/// A stack of one `PreToolUse` handler with [`HEADERS`], whose variables
/// come from the stack (never from `std::env::set_var`).
fn header_stack(server: &Server, top: Value) -> (Project, HookStack) {
    let mut file = settings(
        "PreToolUse",
        vec![http(
            &server.url("/headers"),
            json!({"headers": serde_json::from_str::<Value>(HEADERS).unwrap(),
                   "allowedEnvVars": ["TH_HTTP_TOKEN"]}),
        )],
    );
    if let Value::Object(top) = top {
        for (key, value) in top {
            file[key] = value;
        }
    }
    let project = Project::new(&file);
    let config = project.config();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let stack = HookStack::builder()
        .report(())
        .env("TH_HTTP_TOKEN", "tok-3f9a")
        .env("TH_HTTP_SECRET", "do-not-send")
        .config(&config)
        .build();
    (project, stack)
}

/// `$VAR` and `${VAR}` expand for the names of `allowedEnvVars`, from the
/// stack's variables; any other name expands to nothing.
#[tokio::test]
async fn headers_expand_the_allowed_variables_only() {
    let server = Server::allowing().await;
    let (_project, stack) = header_stack(&server, json!({}));
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    let received = &server.requests()[0];
    assert_eq!(received.header("authorization"), Some("Bearer tok-3f9a"));
    assert_eq!(received.header("x-other"), Some("-x"));
    assert_eq!(received.header("x-team"), Some("core"));
    assert_eq!(received.header("content-type"), Some("application/json"));
    assert!(
        !received
            .headers
            .iter()
            .any(|(_, v)| v.contains("do-not-send")),
        "{:?}",
        received.headers
    );
}

/// A settings-level `httpHookAllowedEnvVars: []` lets no header read any
/// variable, whatever the handler allows.
#[tokio::test]
async fn an_empty_http_hook_allowed_env_vars_blanks_every_variable() {
    let server = Server::allowing().await;
    let (_project, stack) = header_stack(&server, json!({"httpHookAllowedEnvVars": []}));
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    let received = &server.requests()[0];
    // "Bearer " (its trailing space is not part of a header value on the wire).
    assert_eq!(
        received.header("authorization").map(str::trim_end),
        Some("Bearer")
    );
    assert_eq!(received.header("x-other"), Some("-x"));
    assert_eq!(received.header("x-team"), Some("core"));
    assert!(
        !received
            .headers
            .iter()
            .any(|(_, v)| v.contains("tok-3f9a") || v.contains("do-not-send")),
        "{:?}",
        received.headers
    );

    // A list naming the variable keeps it.
    let server = Server::allowing().await;
    let (_project, stack) = header_stack(
        &server,
        json!({"httpHookAllowedEnvVars": ["TH_HTTP_TOKEN"]}),
    );
    call(&stack, bash("ls")).await;
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer tok-3f9a")
    );
}

// ---------------------------------------------------------------------------
// 5. allowedHttpHookUrls
// ---------------------------------------------------------------------------

/// Only URLs matching `allowedHttpHookUrls` run: another is listed, skipped
/// with the reason, never posted to, and the load warns about it.
#[tokio::test]
async fn allowed_http_hook_urls_decides_which_hooks_run() {
    let server = Server::start(|req| {
        Reply::json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "additionalContext": format!("from {}", req.path)}}))
    })
    .await;
    let allowed = server.url("/allowed/x");
    let other = server.url("/other");
    let mut file = settings(
        "PreToolUse",
        vec![http(&allowed, json!({})), http(&other, json!({}))],
    );
    file["allowedHttpHookUrls"] = json!([format!("http://127.0.0.1:{}/allowed*", server.port())]);
    let project = Project::new(&file);
    let config = project.config();
    let warnings: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [format!(
            "{}: PreToolUse handler 1 (hooks.PreToolUse[0].hooks[1]): {other:?} matches no \
             pattern of \"allowedHttpHookUrls\", so this hook never runs; add a pattern for it \
             (\"*\" is any run of characters)",
            project.settings.display()
        )]
    );
    assert_eq!(config.hooks()[0].disabled(), None);
    assert_eq!(
        config.hooks()[1].disabled(),
        Some("its URL is not in allowedHttpHookUrls")
    );

    let stack = stack(&config, HttpSettings::new());
    let outcome = call(&stack, bash("ls")).await;
    let records = records(&outcome);
    assert_eq!(
        records,
        [
            (RecordOutcome::Allow, None),
            (
                RecordOutcome::Skipped,
                Some("its URL is not in allowedHttpHookUrls")
            ),
        ]
    );
    assert_eq!(outcome.context(), ["from /allowed/x"]);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/allowed/x"]);
}

/// `allowedHttpHookUrls: []` blocks every HTTP hook: none is posted to; one
/// that fails closed blocks the call.
#[tokio::test]
async fn an_empty_allowed_http_hook_urls_blocks_every_http_hook() {
    let server = Server::allowing().await;
    let url = server.url("/policy");
    let mut file = settings(
        "PreToolUse",
        vec![http(&url, json!({"onFailure": "block"}))],
    );
    file["allowedHttpHookUrls"] = json!([]);
    let project = Project::new(&file);
    let config = project.config();
    let warnings: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [format!(
            "{}: PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): {url:?} is blocked: \
             \"allowedHttpHookUrls\" is an empty list, which blocks every HTTP hook, so this one \
             never runs",
            project.settings.display()
        )]
    );
    // It fails closed: a hook the settings keep from running blocks, rather
    // than let every call through unguarded (a project file cannot switch a
    // guard off by emptying the list).
    let closed = stack(&config, HttpSettings::new());
    let outcome = call(&closed, bash("rm -rf /")).await;
    assert!(outcome.is_blocked(), "{outcome:?}");
    assert_eq!(
        outcome.reason(),
        Some("hook failed closed: its URL is not in allowedHttpHookUrls")
    );
    // The same hook failing open is listed and skipped.
    let mut file = settings("PreToolUse", vec![http(&url, json!({}))]);
    file["allowedHttpHookUrls"] = json!([]);
    let project = Project::new(&file);
    let stack_open = stack(&project.config(), HttpSettings::new());
    let outcome = call(&stack_open, bash("rm -rf /")).await;
    assert_eq!(
        only_record(&outcome),
        (
            RecordOutcome::Skipped,
            Some("its URL is not in allowedHttpHookUrls".to_owned())
        )
    );
    assert!(!outcome.is_blocked(), "a hook that never runs never fails");
    assert!(server.requests().is_empty());
    assert_eq!(settled_connections(&server).await, 0);
}

/// A URL whose text matches the pattern but whose path leaves it through a
/// dot segment (`/allowed/../admin`) must not reach `/admin`: the allowlist
/// has to judge the URL that is posted to.
#[tokio::test]
async fn allowed_http_hook_urls_is_not_escaped_by_dot_segments() {
    let server = Server::allowing().await;
    let sneaky = server.url("/allowed/../admin");
    let mut file = settings("PreToolUse", vec![http(&sneaky, json!({}))]);
    file["allowedHttpHookUrls"] = json!([format!("http://127.0.0.1:{}/allowed/*", server.port())]);
    let project = Project::new(&file);
    let config = project.config();
    let stack = stack(&config, HttpSettings::new());
    call(&stack, bash("ls")).await;
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert!(
        paths.iter().all(|p| p.starts_with("/allowed/")),
        "a hook allowed only under /allowed/ posted to {paths:?}"
    );
}

/// A pattern with `*` in the authority (`http://localhost:*`, the form the
/// crate's own `HttpGates` example uses for a local daemon) must not let a
/// hook reach another host by writing the allowed prefix as user information:
/// `http://localhost:1@attacker.example.test:<port>/` posts to
/// `attacker.example.test`. (The resolver maps every name to 127.0.0.1 and
/// records which name the client looked up.)
#[tokio::test]
async fn allowed_http_hook_urls_is_not_escaped_through_user_information() {
    let server = Server::allowing().await;
    let sneaky = format!(
        "http://localhost:1@attacker.example.test:{}/exfiltrate",
        server.port()
    );
    let mut file = settings("PreToolUse", vec![http(&sneaky, json!({}))]);
    file["allowedHttpHookUrls"] = json!(["http://localhost:*"]);
    let project = Project::new(&file);
    let config = project.config();
    let (resolver, asked) = fixed_resolver(vec![ip("127.0.0.1")]);
    let stack = stack(&config, HttpSettings::new().resolver(resolver));
    let outcome = call(&stack, bash("ls")).await;
    let asked = asked.lock().unwrap().clone();
    assert!(
        asked.iter().all(|host| host == "localhost"),
        "a hook allowed only on localhost looked up {asked:?} and posted {:?}; its record: {:?}",
        server
            .requests()
            .iter()
            .map(|r| r.path.clone())
            .collect::<Vec<_>>(),
        only_record(&outcome)
    );
    assert!(server.requests().is_empty());
}

/// A `*` port never reaches past the port: under `http://127.0.0.1:*/allow*`,
/// a URL whose path is elsewhere and whose query or fragment holds `/allow`
/// (`/deny?/allow` posts to `/deny`, `?/allow` and `#/allow` to `/`) is
/// listed, skipped and never posted to; the URL whose path is allowed is.
#[tokio::test]
async fn a_star_port_in_allowed_http_hook_urls_does_not_swallow_the_path() {
    let server = Server::allowing().await;
    let port = server.port();
    let sneaky = [
        format!("http://127.0.0.1:{port}/deny?/allow"),
        format!("http://127.0.0.1:{port}?/allow"),
        format!("http://127.0.0.1:{port}#/allow"),
        format!("http://127.0.0.1:{port}/deny#/allow"),
    ];
    let allowed = server.url("/allowed/x?y=1");
    let mut handlers: Vec<Value> = sneaky.iter().map(|url| http(url, json!({}))).collect();
    handlers.push(http(&allowed, json!({})));
    let mut file = settings("PreToolUse", handlers);
    file["allowedHttpHookUrls"] = json!(["http://127.0.0.1:*/allow*"]);
    let project = Project::new(&file);
    let config = project.config();
    let warnings: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    for url in &sneaky {
        assert!(
            warnings
                .iter()
                .any(|w| w.contains(&format!("{url:?} matches no pattern"))),
            "{url}: {warnings:?}"
        );
    }
    let stack = stack(&config, HttpSettings::new());
    let outcome = call(&stack, bash("rm -rf /")).await;
    let skipped = (
        RecordOutcome::Skipped,
        Some("its URL is not in allowedHttpHookUrls"),
    );
    assert_eq!(
        records(&outcome),
        [
            skipped,
            skipped,
            skipped,
            skipped,
            (RecordOutcome::Allow, None)
        ]
    );
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/allowed/x?y=1"]);
}

/// The allowlist judges the URL the client requests: a host the client
/// reads as `127.0.0.1` (`0x7f.0.0.1`) is that host for the pattern too, and
/// the server receives the path the pattern was matched against.
#[tokio::test]
async fn allowed_http_hook_urls_judges_the_url_that_is_requested() {
    let server = Server::allowing().await;
    let port = server.port();
    let url = format!("http://0x7f.0.0.1:{port}/allowed/caf%C3%A9");
    let escaped = format!("http://127.0.0.1:{port}/allowed%2F..%2Fadmin");
    let mut file = settings(
        "PreToolUse",
        vec![http(&url, json!({})), http(&escaped, json!({}))],
    );
    file["allowedHttpHookUrls"] = json!([format!("http://127.0.0.1:{port}/allowed/*")]);
    let project = Project::new(&file);
    let config = project.config();
    assert_eq!(config.hooks()[0].disabled(), None);
    assert_eq!(
        config.hooks()[1].disabled(),
        Some("its URL is not in allowedHttpHookUrls"),
        "an encoded slash would name another path to a server that decodes it"
    );
    let warnings: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&format!(
            "{escaped:?} has user information, a backslash or a \".\" or \"..\" segment, or \
             an encoded \"/\" or \"\\\" in its path, so it would not be requested where its \
             text says"
        )),
        "{warnings:?}"
    );
    let stack = stack(&config, HttpSettings::new());
    call(&stack, bash("ls")).await;
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/allowed/caf%C3%A9"]);
}

// ---------------------------------------------------------------------------
// 6. The SSRF guard
// ---------------------------------------------------------------------------

/// Every private address of the guard's table is refused when the hook's
/// host resolves to it, before any connection, with a message naming it.
#[tokio::test]
async fn the_guard_refuses_each_private_address_a_host_resolves_to() {
    // Listed after the loopback address of a counting server, so that a
    // client that skipped the guard would connect there.
    let decoy = Server::allowing().await;
    let rows = [
        ("10.0.0.1", "a private address (10.0.0.0/8)"),
        ("172.16.0.1", "a private address (172.16.0.0/12)"),
        ("192.168.1.1", "a private address (192.168.0.0/16)"),
        ("100.64.0.1", "a shared (CGNAT) address (100.64.0.0/10)"),
        (
            "169.254.169.254",
            "the cloud metadata address (169.254.169.254/32)",
        ),
        ("0.0.0.0", "an unspecified address (0.0.0.0/8)"),
        ("224.0.0.1", "a multicast address (224.0.0.0/4)"),
        ("fd00::1", "a unique-local address (fc00::/7)"),
        ("fe80::1", "a link-local address (fe80::/10)"),
        ("::ffff:10.0.0.1", "a private address (10.0.0.0/8)"),
        // IPv6 special-purpose blocks: Teredo, benchmarking, discard-only,
        // and SIIT, judged by the IPv4 address inside.
        ("2001::1", "a Teredo tunnel address (2001::/32)"),
        ("2001:2::1", "a benchmarking address (2001:2::/48)"),
        ("100::1", "a discard-only address (100::/64)"),
        ("::ffff:0:a00:1", "a private address (10.0.0.0/8)"),
    ];
    let url = format!("http://policy.internal.test:{}/x", decoy.port());
    for (address, what) in rows {
        let (resolver, asked) = fixed_resolver(vec![ip("127.0.0.1"), ip(address)]);
        let settings = HttpSettings::new().resolver(resolver);
        let (outcome, reason) = error_record(&url, settings, address).await;
        assert!(
            reason.starts_with(&format!("could not post to {url}: ")),
            "{address}: {reason}"
        );
        assert!(
            reason.ends_with(&format!(
                "refused to connect to policy.internal.test: {address} is {what}"
            )),
            "{address}: {reason}"
        );
        assert!(!outcome.is_blocked());
        assert_eq!(
            *asked.lock().unwrap(),
            ["policy.internal.test"],
            "{address}: the resolver is asked once"
        );
    }
    assert_eq!(settled_connections(&decoy).await, 0);
    assert!(decoy.requests().is_empty());
}

/// A refused address is never connected to: with loopback denied, a real
/// server behind the name's address (or written in the URL) accepts no
/// connection at all.
#[tokio::test]
async fn a_refused_address_is_never_connected_to() {
    let server = Server::allowing().await;
    let no_loopback = || AddressGuard::new().deny("127.0.0.0/8".parse().unwrap());

    // Through a resolver.
    let (resolver, asked) = fixed_resolver(vec![ip("127.0.0.1")]);
    let url = format!("http://policy.internal.test:{}/x", server.port());
    let settings = HttpSettings::new().guard(no_loopback()).resolver(resolver);
    let (_, reason) = error_record(&url, settings, "through a resolver").await;
    assert!(
        reason.ends_with(
            "refused to connect to policy.internal.test: 127.0.0.1 is in a range this host \
             refuses (127.0.0.0/8)"
        ),
        "{reason}"
    );
    assert_eq!(*asked.lock().unwrap(), ["policy.internal.test"]);
    assert_eq!(settled_connections(&server).await, 0);

    // An address written in the URL is judged before any request, and no
    // resolver is asked.
    let (resolver, asked) = fixed_resolver(vec![ip("127.0.0.1")]);
    let url = server.url("/");
    let (_project, stack) = one_hook_with(
        "PreToolUse",
        http(&url, json!({})),
        HttpSettings::new().guard(no_loopback()).resolver(resolver),
    );
    let outcome = call(&stack, bash("ls")).await;
    assert_failed_open(
        &outcome,
        &format!(
            "refused to connect to {url}: 127.0.0.1 is in a range this host refuses \
             (127.0.0.0/8)"
        ),
    );
    assert!(asked.lock().unwrap().is_empty());
    assert_eq!(settled_connections(&server).await, 0);
    assert!(server.requests().is_empty());

    // The same server under the default guard is reached: the count works.
    let (_project, stack) = one_hook("PreToolUse", http(&url, json!({})));
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    assert_eq!(server.connections(), 1);
}

/// Other spellings of a literal address are judged as the address they are:
/// an IPv4-mapped IPv6 literal, a decimal and a hexadecimal IPv4.
#[tokio::test]
async fn every_spelling_of_a_literal_address_is_judged() {
    let server = Server::allowing().await;
    let port = server.port();
    let guard = || AddressGuard::new().deny("127.0.0.0/8".parse().unwrap());
    for url in [
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f.0.0.1:{port}/"),
        format!("http://127.1:{port}/"),
    ] {
        let (_, reason) = error_record(&url, HttpSettings::new().guard(guard()), &url).await;
        assert!(
            reason.starts_with("refused to connect to http://"),
            "{url}: {reason}"
        );
        assert!(
            reason.ends_with("is in a range this host refuses (127.0.0.0/8)"),
            "{url}: {reason}"
        );
    }
    assert_eq!(settled_connections(&server).await, 0);
}

/// The default guard lets loopback through: `localhost`, resolved by the
/// system resolver, reaches a local policy daemon; so do `::1` and the
/// loopback literal.
#[tokio::test]
async fn the_default_guard_allows_loopback() {
    let server =
        Server::start(|_| Reply::json(json!({"decision": "block", "reason": "local"}))).await;
    let (_project, stack) = one_hook(
        "PreToolUse",
        http(
            &format!("http://localhost:{}/policy", server.port()),
            json!({}),
        ),
    );
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(
        only_record(&outcome),
        (RecordOutcome::Block, Some("local".to_owned()))
    );
    assert!(outcome.is_blocked());
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        server.requests()[0]
            .header("host")
            .map(|h| h.starts_with("localhost:")),
        Some(true)
    );

    let (_project, stack) = one_hook("PreToolUse", http(&server.url("/policy"), json!({})));
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(only_record(&outcome).0, RecordOutcome::Block);
    assert_eq!(server.requests().len(), 2);

    // ::1, when this machine has IPv6 loopback.
    if let Ok(v6) = tokio::net::TcpListener::bind("[::1]:0").await {
        drop(v6);
        let server6 = Server::start_v6(|_| Reply::empty()).await;
        let url = format!("http://[::1]:{}/policy", server6.port());
        let (_project, stack) = one_hook("PreToolUse", http(&url, json!({})));
        let outcome = call(&stack, bash("ls")).await;
        assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
        assert_eq!(server6.requests().len(), 1);
    }
}

/// One refused address among allowed ones refuses the whole host: with
/// loopback (allowed, as a public address would be) and a private address,
/// the hook is refused and the loopback server never sees a connection.
#[tokio::test]
async fn one_refused_address_among_allowed_ones_refuses_the_host() {
    let server = Server::allowing().await;
    let url = format!("http://policy.internal.test:{}/x", server.port());
    for addresses in [
        vec![ip("127.0.0.1"), ip("10.0.0.1")],
        vec![ip("127.0.0.1"), ip("::1"), ip("169.254.169.254")],
    ] {
        let refused = addresses.last().copied().unwrap();
        let (resolver, asked) = fixed_resolver(addresses.clone());
        let settings = HttpSettings::new().resolver(resolver);
        let (_, reason) = error_record(&url, settings, &format!("{addresses:?}")).await;
        assert!(
            reason.contains(&format!(
                "refused to connect to policy.internal.test: {refused} is "
            )),
            "{addresses:?}: {reason}"
        );
        assert_eq!(*asked.lock().unwrap(), ["policy.internal.test"]);
    }
    assert_eq!(settled_connections(&server).await, 0);

    // The same resolver with the loopback address alone reaches the server.
    let (resolver, _) = fixed_resolver(vec![ip("127.0.0.1")]);
    let (_project, stack) = one_hook_with(
        "PreToolUse",
        http(&url, json!({})),
        HttpSettings::new().resolver(resolver),
    );
    let outcome = call(&stack, bash("ls")).await;
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        server.requests()[0].header("host"),
        Some(format!("policy.internal.test:{}", server.port()).as_str())
    );
}

/// A resolver that fails, or answers no address, is a failure of the hook,
/// and nothing is connected to.
#[tokio::test]
async fn a_failing_or_empty_resolver_is_an_error() {
    let server = Server::allowing().await;
    let url = format!("http://policy.internal.test:{}/x", server.port());
    let (resolver, asked) = fixed_resolver(Vec::new());
    let settings = HttpSettings::new().resolver(resolver);
    let (_, reason) = error_record(&url, settings, "no address").await;
    assert!(
        reason.ends_with("\"policy.internal.test\" resolves to no address"),
        "{reason}"
    );
    assert_eq!(asked.lock().unwrap().len(), 1);

    let failing = tower::service_fn(|host: String| async move {
        Err::<Vec<IpAddr>, _>(format!("no such host: {host}"))
    });
    let settings = HttpSettings::new().resolver(failing);
    let (_, reason) = error_record(&url, settings, "a failing resolver").await;
    assert!(
        reason.ends_with("no such host: policy.internal.test"),
        "{reason}"
    );
    assert_eq!(settled_connections(&server).await, 0);
}

// ---------------------------------------------------------------------------
// 7. async: true
// ---------------------------------------------------------------------------

/// An `async: true` HTTP hook runs in the background: the call does not wait,
/// and its deny changes nothing. A stack that waits for background hooks
/// runs it inside the call, and its context comes with the outcome.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_http_hook_runs_in_the_background() {
    let server = Server::start(|_| {
        Reply::json(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "too late",
            "additionalContext": "audit: logged"}}))
        .after(Duration::from_millis(1500))
    })
    .await;
    let handler = http(&server.url("/audit"), json!({"async": true}));

    // Not waited for.
    let (_project, stack) = one_hook("PreToolUse", handler.clone());
    let started = Instant::now();
    let outcome = call(&stack, bash("rm -rf /")).await;
    assert!(
        started.elapsed() < Duration::from_millis(1200),
        "the call waited for the async hook: {:?}",
        started.elapsed()
    );
    assert_eq!(
        only_record(&outcome),
        (
            RecordOutcome::Allow,
            Some("started in the background".to_owned())
        )
    );
    assert!(!outcome.is_blocked());
    assert!(outcome.context().is_empty());
    let posted = async {
        while server.requests().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), posted)
        .await
        .expect("the background hook posted");
    assert_eq!(server.requests()[0].path, "/audit");
    assert_eq!(stack.shutdown(Duration::from_secs(10)).await, 0);

    // Waited for: inside the call, its context with this outcome, its deny
    // still changing nothing.
    let project = Project::new(&settings("PreToolUse", vec![handler]));
    let config = project.config();
    let stack = HookStack::builder()
        .report(())
        .wait_for_background_hooks(true)
        .config(&config)
        .build();
    let started = Instant::now();
    let outcome = call(&stack, bash("rm -rf /")).await;
    assert!(started.elapsed() >= Duration::from_millis(1400));
    assert_eq!(only_record(&outcome), (RecordOutcome::Allow, None));
    assert!(!outcome.is_blocked(), "{outcome:?}");
    assert_eq!(outcome.context(), ["audit: logged"]);
    assert_eq!(server.requests().len(), 2);
}

// ---------------------------------------------------------------------------
// 8. Hostile servers below HTTP

/// A raw TCP server on 127.0.0.1 that answers every connection with `answer`,
/// which writes what it likes; how many bytes it wrote is counted.
async fn raw_server<F, Fut>(answer: F) -> (u16, Arc<std::sync::atomic::AtomicUsize>)
where
    F: Fn(tokio::net::TcpStream, Arc<std::sync::atomic::AtomicUsize>) -> Fut
        + Send
        + Sync
        + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = written.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer(stream, count.clone()));
        }
    });
    (port, written)
}

/// A server that sends a status line and then header lines without end is
/// cut off by the client's header limit, long before the hook's timeout:
/// an error that lets the action proceed, with memory bounded by that limit.
#[tokio::test]
async fn endless_headers_are_an_error_well_before_the_timeout() {
    use tokio::io::AsyncWriteExt;
    let (port, written) = raw_server(|mut stream, written| async move {
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\n").await;
        let line = format!("X-Flood: {}\r\n", "a".repeat(1000));
        while stream.write_all(line.as_bytes()).await.is_ok() {
            written.fetch_add(line.len(), std::sync::atomic::Ordering::Relaxed);
        }
    })
    .await;
    let url = format!("http://127.0.0.1:{port}/flood");
    let (_project, stack) = one_hook("PreToolUse", http(&url, json!({"timeout": 20})));
    let started = Instant::now();
    let outcome = call(&stack, bash("ls")).await;
    let (record, reason) = only_record(&outcome);
    assert_eq!(record, RecordOutcome::Error, "{outcome:?}");
    assert!(!outcome.is_blocked());
    let reason = reason.unwrap();
    assert!(reason.starts_with("could not post to "), "{reason}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "cut off by the limit, not the 20 s timeout: {:?}",
        started.elapsed()
    );
    // The client stopped reading: what the server got out is bounded (the
    // header limit and the socket buffers), not 20 s of flooding.
    let sent = written.load(std::sync::atomic::Ordering::Relaxed);
    assert!(sent < 64 * 1024 * 1024, "{sent} bytes");
}

/// A server that accepts the connection and never reads or answers: the
/// hook's timeout ends the run, and the call with it.
#[tokio::test]
async fn a_server_that_accepts_and_never_answers_times_out() {
    let (port, _) = raw_server(|stream, _| async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(stream);
    })
    .await;
    assert_timed_out_after_1_s(
        &format!("http://127.0.0.1:{port}/silent"),
        "the server's 60 s",
    )
    .await;
}
