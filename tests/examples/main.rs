//! The examples print what their text says: each runs here, and its output is asserted.

#[path = "../support/mod.rs"]
mod support;

/// A transcript's two questions: whether it has a line, and where (a
/// missing line fails with the whole transcript).
fn finders<'a>(
    lines: &'a [String],
    text: &'a str,
) -> (impl Fn(&str) -> bool + 'a, impl Fn(&str) -> usize + 'a) {
    let has = move |line: &str| lines.iter().any(|l| l == line);
    let position = move |line: &str| {
        lines
            .iter()
            .position(|l| l == line)
            .unwrap_or_else(|| panic!("no line {line:?} in:\n{text}"))
    };
    (has, position)
}

// `main` and the printing helpers are the example's own; the test calls `run`.
#[allow(dead_code)]
#[path = "../../examples/custom_layer.rs"]
mod custom_layer;

/// The transcript says that the project's file whose path ends with `file`
/// was loaded, gave no warning, and that the session is `summary` (`<n> hooks,
/// session <id>`).
fn assert_loaded_without_warning(lines: &[String], file: &str, summary: &str) {
    let text = lines.join("\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("loaded  ") && l.ends_with(file)),
        "{text}"
    );
    assert!(!text.contains("warning:"), "{text}");
    assert!(lines.iter().any(|l| l == summary), "{text}");
}

/// The first three columns (kind, matcher, outcome) of each of the
/// transcript's `hook <kind>` lines.
fn hook_columns<'a>(lines: &'a [String], kind: &str) -> Vec<Vec<&'a str>> {
    let start = format!("hook {kind}");
    lines
        .iter()
        .filter(|l| l.trim_start().starts_with(&start))
        .map(|l| l.split_whitespace().skip(1).take(3).collect())
        .collect()
}

#[tokio::test]
async fn custom_layer_per_hook_layers_see_only_the_hooks_that_run() {
    let report = custom_layer::run().await.unwrap();

    let outcomes: Vec<&str> = report.outcomes.iter().map(|line| line.trim_end()).collect();
    assert_eq!(
        outcomes,
        [
            "turn_start             allow     -          [first-turn (in-process): allow]",
            "tool_execution_start   allow     -          [guard (bash): allow, slow (bash): allow]",
            "tool_execution_start   block     no rm -rf  [guard (bash): block, slow (bash): not_run]",
            "tool_execution_start   allow     -          [guard (bash): skipped, slow (bash): allow]",
            "turn_end               allow     -          []",
            "turn_start             allow     -          [first-turn (in-process): skipped]",
        ]
    );

    let summary = |measured: &[custom_layer::Measured]| -> Vec<String> {
        measured
            .iter()
            .map(|m| format!("{}: {}", m.label, m.answers))
            .collect()
    };
    // Around the call: every event, whatever its hooks did.
    assert_eq!(
        summary(&report.per_call),
        [
            "tool_execution_start: allow ×2, block ×1",
            "turn_end: allow ×1",
            "turn_start: allow ×2",
        ]
    );
    // Around each hook: only the runs. The guard is skipped for `read` and the
    // slow hook does not run after the block, so each has two runs of three
    // calls; the in-process hook runs on turn 1 only.
    assert_eq!(
        summary(&report.per_hook),
        [
            "tool_execution_start guard (bash) (matcher ^bash$): allow ×1, block ×1",
            "tool_execution_start slow (bash) (matcher *): allow ×2",
            "turn_start first-turn (in-process) (matcher ^1$): allow ×1",
        ]
    );
    // The slow hook sleeps 50 ms in each of its runs.
    let slow = &report.per_hook[1];
    assert!(
        slow.mean >= std::time::Duration::from_millis(50),
        "{slow:?}"
    );
}

#[allow(dead_code)]
#[path = "../../examples/claude_code.rs"]
mod claude_code;

#[tokio::test]
async fn claude_code_hooks_deny_rewrite_and_send_the_agent_back_once() {
    let transcript = claude_code::run(claude_code::Transcript::default())
        .await
        .unwrap();
    let lines = transcript.lines();
    let text = lines.join("\n");
    let (has, _) = finders(&lines, &text);

    // The project's settings file was found, with no warning.
    assert_loaded_without_warning(
        &lines,
        "/.claude/settings.json",
        "5 hooks, session demo-claude-0001",
    );

    // SessionStart's hook set DEPLOY_TARGET through CLAUDE_ENV_FILE: the host
    // got it (later hooks do not), and the deploy guard read the target the
    // hook left in the project.
    assert!(has("     env    : DEPLOY_TARGET=staging"), "{text}");
    // The host's `deploy` tool is `mcp__ops__deploy` to Claude Code hooks:
    // their matcher selects it, and the guard lets only staging through.
    assert!(
        has("model  < (error) blocked by hook: this session deploys to staging, not to production"),
        "{text}"
    );
    assert!(
        has("tool   : deploy pretends to deploy to staging"),
        "{text}"
    );
    assert!(!text.contains("deploy to production"), "{text}");

    // A safe command runs as the model wrote it.
    assert!(has("tool   : Bash pretends to run `ls`"), "{text}");

    // `rm -rf /` never reaches the tool; the model sees the guard's reason.
    let reason = "rm -rf is not allowed in this project: delete the files you mean by name";
    assert!(
        has(&format!("model  < (error) blocked by hook: {reason}")),
        "{text}"
    );
    assert!(!text.contains("pretends to run `rm -rf"), "{text}");

    // `npm install` runs as `npm ci`; the rewriter's reason is for the user.
    assert!(has("     => transform: command = \"npm ci\""), "{text}");
    assert!(
        has("     user   : npm install was rewritten to npm ci"),
        "{text}"
    );
    assert!(has("tool   : Bash pretends to run `npm ci`"), "{text}");
    assert!(!text.contains("pretends to run `npm install`"), "{text}");

    // The rewriter's `if` keeps it from running for other commands.
    let npm_ci: Vec<&str> = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("hook npm-ci.sh"))
        .map(|l| l.split_whitespace().nth(3).unwrap())
        .collect();
    assert_eq!(
        npm_ci,
        [
            "skipped",
            "skipped",
            "transform",
            "skipped",
            "skipped",
            "skipped"
        ],
        "{text}"
    );

    // The Stop hook sends the agent back once; the tests run; then it stops.
    let stops: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("agent  : stop -> "))
        .collect();
    assert_eq!(
        stops,
        ["keep going: run the tests first", "finish"],
        "{text}"
    );
    let sent_back = lines.iter().position(|l| l.contains("keep going")).unwrap();
    let tests = lines
        .iter()
        .position(|l| l == "tool   : Bash pretends to run `npm test`")
        .unwrap();
    let finish = lines
        .iter()
        .position(|l| l == "agent  : stop -> finish")
        .unwrap();
    assert!(sent_back < tests && tests < finish, "{text}");
    // The second stop tells the hook it was sent back.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("── Stop ") && l.contains("\"stop_hook_active\":true")),
        "{text}"
    );
}

// Like `claude_code`, it loads `examples/support/mod.rs` as its own `support`.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/codex.rs"]
mod codex;

#[tokio::test]
async fn codex_hooks_add_context_deny_rewrite_and_send_the_agent_back_once() {
    let transcript = codex::run(codex::Transcript::default()).await.unwrap();
    let lines = transcript.lines();
    let text = lines.join("\n");
    let (has, _) = finders(&lines, &text);

    // hooks.json and config.toml were both found, with no warning.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("loaded  ") && l.ends_with("/.codex/config.toml")),
        "{text}"
    );
    assert_loaded_without_warning(
        &lines,
        "/.codex/hooks.json",
        "4 hooks, session demo-codex-0001",
    );

    // Plain text at UserPromptSubmit is context for the model.
    assert!(
        has("     context: You are on branch main; the release is frozen, keep changes small."),
        "{text}"
    );
    // `rm -rf /` is denied in JSON, the forced push by exit 2 and stderr.
    let reason = "rm -rf is not allowed in this project: delete the files you mean by name";
    assert!(
        has(&format!("model  < (error) blocked by hook: {reason}")),
        "{text}"
    );
    assert!(
        has("model  < (error) blocked by hook: force pushes are for the release manager"),
        "{text}"
    );
    assert!(!text.contains("pretends to run `rm -rf") && !text.contains("pretends to run `git"));
    // `npm install` runs as `npm ci`, and the model gets the rewriter's context.
    assert!(has("     => transform: command = \"npm ci\""), "{text}");
    assert!(has("tool   : Bash pretends to run `npm ci`"), "{text}");
    // The Stop gate from config.toml sends the agent back once.
    let stops: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("agent  : stop -> "))
        .collect();
    assert_eq!(
        stops,
        ["keep going: run the tests first", "finish"],
        "{text}"
    );
}

// Like `claude_code`, it loads `examples/support/mod.rs` as its own `support`.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/cursor.rs"]
mod cursor;

#[tokio::test]
async fn cursor_hooks_deny_format_in_the_background_and_follow_up_once() {
    let transcript = cursor::run(cursor::Transcript::default()).await.unwrap();
    let lines = transcript.lines();
    let text = lines.join("\n");
    let (has, position) = finders(&lines, &text);

    // The project's hooks.json was found, with no warning.
    assert_loaded_without_warning(
        &lines,
        "/.cursor/hooks.json",
        "5 hooks, session demo-cursor-0001",
    );

    // The shell guard's regex selects only `rm -rf` and `curl`: `ls` runs.
    assert!(has("tool   : Shell pretends to run `ls`"), "{text}");
    // `rm -rf` is denied by JSON after a log line, `curl` by exit 2 and
    // stderr; neither reaches the tool.
    let rm = "rm -rf is not allowed in this project: delete the files you mean by name";
    assert!(
        has(&format!("model  < (error) blocked by hook: {rm}")),
        "{text}"
    );
    assert!(
        has("     user   : guard-shell.sh refused an rm -rf"),
        "{text}"
    );
    let curl = "downloads go through the package manager here, not curl";
    assert!(
        has(&format!("model  < (error) blocked by hook: {curl}")),
        "{text}"
    );
    assert!(!text.contains("pretends to run `rm -rf"), "{text}");
    assert!(!text.contains("pretends to run `curl"), "{text}");
    let guard: Vec<&str> = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("hook guard-shell.sh"))
        .map(|l| l.split_whitespace().nth(4).unwrap())
        .collect();
    assert_eq!(
        guard,
        ["skipped", "block", "block", "skipped", "skipped"],
        "{text}"
    );

    // `.env` is never read.
    assert!(
        has("model  < (error) blocked by hook: .env holds secrets: ask the user for the value you need"),
        "{text}"
    );
    assert!(!text.contains("pretends to read .env"), "{text}");

    // The host's `ship` is `Deploy` to Cursor's hooks: the guard refuses it.
    assert!(
        has("model  < (error) blocked by hook: deploys go through CI, not the agent"),
        "{text}"
    );

    // The edit comes back while the formatter still runs in the background,
    // without its context; the session's next call brings that context.
    let formatter = lines
        .iter()
        .find(|l| l.trim_start().starts_with("hook format.sh"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        formatter.ends_with("allow       0 ms  started in the background"),
        "{text}"
    );
    let edited = position("model  < edited src/main.rs");
    assert_eq!(
        lines[edited + 1],
        "agent  : the edit is done; background hooks still running: 1",
        "{text}"
    );
    let context =
        "model  + src/main.rs was reformatted by rustfmt: read it again before you edit it";
    let build = position("tool   : Shell pretends to run `cargo build`");
    assert!(edited < build && build < position(context), "{text}");
    assert_eq!(lines.iter().filter(|l| *l == context).count(), 1, "{text}");

    // The stop hook asks twice; `loop_limit: 1` lets one follow-up through.
    let stops: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("agent  : stop -> "))
        .collect();
    assert_eq!(
        stops,
        ["keep going: run the tests before you stop", "finish"],
        "{text}"
    );
    let tests = position("tool   : Shell pretends to run `cargo test`");
    assert!(
        position("agent  : stop -> keep going: run the tests before you stop") < tests
            && tests < position("agent  : stop -> finish"),
        "{text}"
    );
    assert!(
        has("agent  : shutdown: 0 background hooks cancelled"),
        "{text}"
    );

    // The scripts ran from the project root, where they wrote their log.
    let log = position("\n## .cursor/hooks.log");
    assert_eq!(
        lines[log + 1..],
        [
            "format.sh: would run rustfmt on src/main.rs",
            "tests-first.sh: stop with loop_count 0",
            "tests-first.sh: stop with loop_count 1",
        ],
        "{text}"
    );
}

#[allow(dead_code)]
#[path = "../../examples/persistent.rs"]
mod persistent;

/// The example's four runs (each guard one-shot and persistent) over a few
/// calls: `run` itself fails unless every call got its expected decision.
async fn persistent_guard_runs(calls: usize, in_flight: usize) {
    // One of its guards is a Python script.
    if !support::has_python3("the persistent example") {
        return;
    }
    let report = persistent::run(calls, in_flight).await.unwrap();
    assert_eq!(report.commands.len(), calls);
    let labels: Vec<&str> = report.runs.iter().map(|r| r.label).collect();
    assert_eq!(
        labels,
        [
            "python3 one-shot",
            "python3 persistent",
            "bash one-shot",
            "bash persistent"
        ]
    );

    // The same decisions from the four, some of each kind.
    let first = &report.runs[0].decisions;
    assert_eq!(first.len(), calls);
    for run in &report.runs {
        assert_eq!(&run.decisions, first, "{}", run.label);
    }
    let refused: Vec<(&str, &str)> = report
        .commands
        .iter()
        .zip(first)
        .filter_map(|(command, reason)| Some((command.as_str(), reason.as_deref()?)))
        .collect();
    assert!(
        refused.contains(&(
            "rm -rf build-1/",
            "rm -rf is not allowed: delete the files you mean by name"
        )),
        "{refused:?}"
    );
    assert!(
        refused.len() > calls / 4 && refused.len() < calls / 2,
        "{refused:?}"
    );
    assert!(
        !refused
            .iter()
            .any(|(command, _)| command.starts_with("grep")),
        "{refused:?}"
    );

    // Persistent is faster than one-shot, for each guard; and each persistent
    // guard exited when its stdin was closed, within the 1 s grace.
    for pair in report.runs.chunks(2) {
        let [one_shot, persistent] = pair else {
            unreachable!()
        };
        assert!(!one_shot.persistent && persistent.persistent);
        assert!(
            persistent.elapsed < one_shot.elapsed,
            "{}: {:?}, {}: {:?}",
            persistent.label,
            persistent.elapsed,
            one_shot.label,
            one_shot.elapsed
        );
        assert!(
            persistent.shutdown < std::time::Duration::from_secs(1),
            "{}: {:?}",
            persistent.label,
            persistent.shutdown
        );
    }
}

#[tokio::test]
async fn persistent_guard_answers_as_its_one_shot_run_does_and_faster() {
    persistent_guard_runs(50, 1).await;
}

#[tokio::test]
async fn persistent_guard_answers_every_call_with_many_in_flight() {
    // More than the 16 a persistent hook takes at once: the rest wait for room.
    persistent_guard_runs(48, 24).await;
}

// Like `claude_code`, it loads `examples/support/mod.rs` as its own `support`.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/model_hook.rs"]
mod model_hook;

#[tokio::test]
async fn model_hook_prompts_deny_a_command_and_send_the_agent_back_once() {
    let transcript = model_hook::run(model_hook::Transcript::default())
        .await
        .unwrap();
    let lines = transcript.lines();
    let text = lines.join("\n");
    let (has, position) = finders(&lines, &text);

    // The project's settings file was found; with an evaluator, the prompt
    // handlers' load warnings do not apply, and no other warning came.
    assert_loaded_without_warning(
        &lines,
        "/.claude/settings.json",
        "2 hooks, session demo-model-0001",
    );

    // The PreToolUse prompt has the hook's input where `$ARGUMENTS` was.
    let asked: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("judge  < "))
        .collect();
    assert_eq!(asked.len(), 6, "{text}");
    assert!(
        asked[1].starts_with(
            "Is this shell command safe to run in a CI sandbox? {…,\"hook_event_name\":\
             \"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf /\"}"
        ),
        "{text}"
    );
    assert!(
        asked[1].contains("\"tool_use_id\":\"toolu_02\"} Answer with"),
        "{text}"
    );
    // The Stop prompt has no placeholder: the input comes after a blank line.
    assert!(
        asked[3].starts_with("The agent wants to stop.")
            && asked[3].ends_with(
                "\\n\\n{…,\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"I was not \
                 allowed to clear out the old files; the build passes.\",\"stop_hook_active\":false}"
            ),
        "{text}"
    );

    // The safe commands run; `rm -rf /` never reaches the tool, and the model
    // sees the stand-in's reason.
    let reason = "`rm -rf /` deletes files recursively: remove the paths you mean by name";
    assert!(
        has(&format!("model  < (error) blocked by hook: {reason}")),
        "{text}"
    );
    assert!(!text.contains("pretends to run `rm -rf"), "{text}");
    assert!(has("tool   : Bash pretends to run `ls`"), "{text}");
    assert!(has("tool   : Bash pretends to run `cargo build`"), "{text}");
    let hooks = hook_columns(&lines, "prompt");
    assert_eq!(
        hooks,
        [
            ["prompt", "Bash", "allow"],
            ["prompt", "Bash", "block"],
            ["prompt", "Bash", "allow"],
            ["prompt", "*", "block"],
            ["prompt", "Bash", "allow"],
            ["prompt", "*", "allow"],
        ],
        "{text}"
    );

    // The Stop hook's `ok: false`, found in the text around it, sends the
    // agent back once; the tests run; the next stop (`stop_hook_active`) ends.
    let stops: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("agent  : stop -> "))
        .collect();
    assert_eq!(
        stops,
        ["keep going: run the tests before you stop", "finish"],
        "{text}"
    );
    let tests = position("tool   : Bash pretends to run `cargo test`");
    assert!(
        position("agent  : stop -> keep going: run the tests before you stop") < tests
            && tests < position("agent  : stop -> finish"),
        "{text}"
    );
    assert!(asked[5].ends_with("\"stop_hook_active\":true}"), "{text}");

    // Where a real model plugs in: the prompt goes out in a request body and
    // the reply's text comes back.
    let sent = std::sync::Arc::new(std::sync::Mutex::new(None));
    let log = sent.clone();
    let model = model_hook::real_model("m", move |body: serde_json::Value| {
        *log.lock().unwrap() = Some(body);
        async {
            Ok(serde_json::json!({"content": [
                {"type": "text", "text": "Fine."},
                {"type": "text", "text": "{\"ok\": true}"}
            ]}))
        }
    });
    let asked = tower_hooks::layer::model::ModelRequest::new("Safe? {}");
    let answer = tower::ServiceExt::oneshot(model.clone(), asked.clone())
        .await
        .unwrap();
    assert_eq!(answer, "Fine.\n{\"ok\": true}");
    let body = sent.lock().unwrap().take().unwrap();
    assert_eq!(body["model"], "m");
    assert_eq!(body["messages"][0]["content"], "Safe? {}");
    // A handler that names its model is asked with that one.
    tower::ServiceExt::oneshot(model, asked.with_model("haiku"))
        .await
        .unwrap();
    let body = sent.lock().unwrap().take().unwrap();
    assert_eq!(body["model"], "haiku");
}

// Like `claude_code`, it loads `examples/support/mod.rs` as its own `support`.
#[cfg(feature = "http")]
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/http_policy.rs"]
mod http_policy;

#[cfg(feature = "http")]
#[tokio::test]
async fn http_policy_server_allows_denies_asks_and_fails_open() {
    let transcript = http_policy::run(http_policy::Transcript::default())
        .await
        .unwrap();
    let lines = transcript.lines();
    let text = lines.join("\n");
    let (has, _) = finders(&lines, &text);

    // The server listens on loopback only; the settings file, with its
    // `allowedHttpHookUrls`, was found and loaded without a warning.
    assert!(
        lines.iter().any(|l| {
            l.strip_prefix("server : listening on http://127.0.0.1:")
                .is_some_and(|rest| rest.ends_with("/policy"))
        }),
        "{text}"
    );
    assert_loaded_without_warning(
        &lines,
        "/.claude/settings.json",
        "1 hooks, session demo-http-0001",
    );

    // What the server got, in order: the hook's input with the right token
    // (expanded from `$POLICY_TOKEN`), then the stale one.
    let served: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("server : POST /policy"))
        .collect();
    assert_eq!(
        served,
        [
            " PreToolUse Bash `ls` (token ok) -> 200 empty body",
            " PreToolUse Bash `rm -rf build/` (token ok) -> 200 deny",
            " PreToolUse Bash `git push --force origin main` (token ok) -> 200 ask",
            " PreToolUse Bash `git status` (token ok) -> 500 the policy store is unavailable",
            ", a wrong bearer token -> 401 wrong token",
        ],
        "{text}"
    );

    // Each call's hook record: an empty 2xx allows, the JSON decisions block
    // and ask, a 500 and a 401 are errors.
    let records = hook_columns(&lines, "http");
    assert_eq!(
        records,
        [
            ["http", "Bash", "allow"],
            ["http", "Bash", "block"],
            ["http", "Bash", "ask"],
            ["http", "Bash", "error"],
            ["http", "Bash", "error"],
        ],
        "{text}"
    );

    // `ls` runs; `rm -rf` never reaches the tool, and the model sees the
    // server's reason.
    assert!(has("tool   : Bash pretends to run `ls`"), "{text}");
    let reason = "rm -rf is against the team policy: delete the files you mean by name";
    assert!(
        has(&format!("model  < (error) blocked by hook: {reason}")),
        "{text}"
    );
    assert!(!text.contains("pretends to run `rm -rf"), "{text}");

    // The force push is asked about; the stand-in person says no.
    assert!(
        has("     => ask: a force push rewrites shared history: a person must confirm it"),
        "{text}"
    );
    assert!(
        has("model  < (error) denied by approver: not before the team has seen the rewritten history"),
        "{text}"
    );
    assert!(!text.contains("pretends to run `git push"), "{text}");

    // A 500 is an `error` record with the status and the body's text, and
    // the call goes ahead; so is a 401, for the agent with the stale token.
    let error_record = |ending: &str| {
        lines
            .iter()
            .position(|l| l.starts_with("     hook http Bash   error ") && l.ends_with(ending))
            .unwrap_or_else(|| panic!("no error record ending {ending:?} in:\n{text}"))
    };
    for (ending, command) in [
        (
            "the policy server answered HTTP 500: the policy store is unavailable",
            "git status",
        ),
        ("the policy server answered HTTP 401: wrong token", "ls"),
    ] {
        let failed = error_record(ending);
        assert_eq!(lines[failed + 1], "     => allow", "{text}");
        assert_eq!(
            lines[failed + 2],
            format!("tool   : Bash pretends to run `{command}`"),
            "{text}"
        );
    }
}

// Like `claude_code`, it loads `examples/support/mod.rs` as its own `support`.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/gemini.rs"]
mod gemini;

#[tokio::test]
async fn gemini_hooks_add_context_redact_deny_rewrite_and_send_the_agent_back_once() {
    let transcript = gemini::run(gemini::Transcript::default()).await.unwrap();
    let lines = transcript.lines();
    let text = lines.join("\n");
    let (has, position) = finders(&lines, &text);

    // The settings file, comments and all, was found with no warning.
    assert_loaded_without_warning(
        &lines,
        "/.gemini/settings.json",
        "4 hooks, session demo-gemini-0001",
    );

    // BeforeAgent's additionalContext goes to the model.
    assert!(
        has("     model  + You are on branch main; open a pull request for any change."),
        "{text}"
    );

    // AfterModel replaced the response that showed the key.
    assert!(
        has("user   < \"The key in .env is [redacted]; I will clean up and install now.\""),
        "{text}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("user   <") && l.contains("sk-live")),
        "{text}"
    );

    // The guard sees the host's Bash as run_shell_command: rm -rf never runs,
    // npm install runs as npm ci.
    let reason = "rm -rf is not allowed in this project: delete the files you mean by name";
    assert!(
        has(&format!(
            "model  < (error) Tool execution blocked: {reason}"
        )),
        "{text}"
    );
    assert!(!text.contains("pretends to run `rm -rf"), "{text}");
    assert!(has("     => transform: command = \"npm ci\""), "{text}");
    assert!(
        has("     user   : npm install was rewritten to npm ci"),
        "{text}"
    );
    assert!(has("tool   : Bash pretends to run `npm ci`"), "{text}");

    // AfterAgent sends the agent back once; the tests run; then it stops.
    let sent_back = position("agent  : stop -> keep going: run the tests first");
    let tests = position("tool   : Bash pretends to run `npm test`");
    let finish = position("agent  : stop -> finish");
    assert!(sent_back < tests && tests < finish, "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("── AfterAgent ") && l.contains("\"stop_hook_active\":true")),
        "{text}"
    );
}

// Like `claude_code`, it loads `examples/support/mod.rs` as its own `support`.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/mixed.rs"]
mod mixed;

#[tokio::test]
async fn a_mixed_project_runs_four_dialects_through_one_stack_each_seeing_its_own_tool_name() {
    let transcript = mixed::run(mixed::Transcript::default()).await.unwrap();
    let lines = transcript.lines();
    let text = lines.join("\n");
    let (has, _) = finders(&lines, &text);
    assert!(!text.contains("warning:"), "{text}");
    for file in [
        "/.nanopi/config.toml",
        "/.claude/settings.json",
        "/.codex/hooks.json",
        "/.gemini/settings.json",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("loaded  ") && l.ends_with(file)),
            "{file}: {text}"
        );
    }
    assert!(has("4 hooks, session demo-mixed-0001"), "{text}");
    // `ls` passes all four, each seeing its own name for the host's `bash`.
    for (dialect, name) in [
        ("nanopi", "bash"),
        ("claude", "Bash"),
        ("codex", "Bash"),
        ("gemini", "run_shell_command"),
    ] {
        let line = format!("     hook {dialect:<7} saw {name:<18} allow");
        assert!(lines.iter().any(|l| l.starts_with(&line)), "{line}: {text}");
    }
    assert!(has("model  < src/\\nCargo.toml\\n"), "{text}");
    // Each guard refuses its own command, in its own host's words.
    for refusal in [
        "blocked by hook: nanopi: no sudo",
        "blocked by hook: claude: no rm -rf",
        "blocked by hook: codex: no force push",
        "Tool execution blocked: gemini: no curl",
    ] {
        assert!(
            has(&format!("model  < (error) {refusal}")),
            "{refusal}: {text}"
        );
    }
}
