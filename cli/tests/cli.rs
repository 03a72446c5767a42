//! The `hooks` binary against its contract (docs/cli.md): exit codes, the JSON report, the exact
//! stderr lines, and every configuration error as a user sees it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use tempfile::TempDir;

/// A temporary HOME and project directory.
struct Sandbox {
    _dir: TempDir,
    home: PathBuf,
    proj: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let proj = dir.path().join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        Sandbox {
            _dir: dir,
            home,
            proj,
        }
    }

    /// Writes `text` to `~/.nanopi/<file>` (home) or `./.nanopi/<file>` (project).
    fn config(&self, home: bool, file: &str, text: &str) -> PathBuf {
        let dir = if home { &self.home } else { &self.proj }.join(".nanopi");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(file);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn project(&self, text: &str) -> PathBuf {
        self.config(false, "config.toml", text)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hooks"));
        cmd.args(args)
            .current_dir(&self.proj)
            .env("HOME", &self.home)
            .stdin(Stdio::null());
        cmd
    }

    fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command(args).output().unwrap())
    }

    fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        Run::from(child.wait_with_output().unwrap())
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", self.stdout))
    }
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

const GUARD: &str = r#"
[[hooks.tool_execution_start]]
matcher = "^bash$"
command = '''echo "refused: $(cat)" >/dev/null; echo "refused by guard" >&2; exit 2'''
timeout = 3000
"#;

#[test]
fn test_prints_the_contract_json_report() {
    let s = Sandbox::new();
    let cfg = s.project(GUARD);
    let r = s.run(&[
        "test",
        "--json",
        "--event",
        "tool_execution_start",
        "--tool",
        "bash",
        "--payload",
        r#"{"command":"rm -rf build/"}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = r.json();
    let hooks = report["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 1);
    assert!(hooks[0]["duration_ms"].is_u64());
    let mut report = report.clone();
    report["hooks"][0]["duration_ms"] = json!(0);
    assert_eq!(
        report,
        json!({
            "event": "tool_execution_start",
            "decision": "block",
            "honored": true,
            "reason": "refused by guard",
            "message": "blocked by hook: refused by guard",
            "host_message": "blocked by hook: refused by guard",
            "arguments": {"command": "rm -rf build/"},
            "context": [], "user_messages": [], "stop": null, "follow_up": null,
            "deferred": false, "env": {},
            "hooks": [{"dialect": "nanopi", "scope": "project", "event": "tool_execution_start", "source": path_str(&cfg), "index": 0, "name": null, "matcher": "^bash$",
                       "outcome": "block", "outcome_detail": "block",
                       "reason": "refused by guard", "duration_ms": 0,
                       "exit": 2, "signal": null, "stderr": "refused by guard\n",
                       "persistent": false, "tool_name": "bash", "warnings": []}]
        })
    );
}

#[test]
fn test_exits_zero_whatever_the_decision() {
    let s = Sandbox::new();
    s.project(GUARD);
    for payload in [r#"{"command":"ls"}"#, r#"{"command":"rm -rf /"}"#] {
        let r = s.run(&[
            "test",
            "--event",
            "tool_execution_start",
            "--tool",
            "bash",
            "--payload",
            payload,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
}

#[test]
fn human_report_is_a_table() {
    let s = Sandbox::new();
    s.project(GUARD);
    let r = s.run(&["test", "--event", "tool_execution_start", "--tool", "bash"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("decision   block"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("message    blocked by hook: refused by guard"),
        "{}",
        r.stdout
    );
    let header = r
        .stdout
        .lines()
        .find(|l| l.starts_with("HOOK"))
        .expect("a table header");
    for column in ["MATCHER", "OUTCOME", "DURATION", "REASON"] {
        assert!(header.contains(column), "{header}");
    }
    // The project's file is shown relative to the project.
    assert!(r.stdout.contains(".nanopi/config.toml:0"), "{}", r.stdout);
}

#[test]
fn advisory_block_is_reported_byte_for_byte() {
    let s = Sandbox::new();
    s.project("[[hooks.turn_start]]\ncommand = 'echo stop >&2; exit 2'\n");
    let r = s.run(&[
        "test",
        "--json",
        "--event",
        "turn_start",
        "--payload",
        r#"{"turn_count":1,"iteration":0}"#,
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stderr,
        "nanopi: TurnStart hook asked to block; ignored (advisory event) [reason=stop]\n"
    );
    assert_eq!(r.json()["honored"], false);
    assert_eq!(r.json()["message"], Value::Null);
}

#[test]
fn spawn_failure_is_reported_byte_for_byte() {
    let s = Sandbox::new();
    s.project("[[hooks.tool_execution_start]]\nmatcher = '^bash$'\ncommand = 'exit 2'\n");
    let empty = s.home.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let r = Run::from(
        s.command(&[
            "test",
            "--json",
            "--event",
            "tool_execution_start",
            "--tool",
            "bash",
        ])
        .env("PATH", &empty)
        .output()
        .unwrap(),
    );
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stderr,
        "nanopi: hook errored; failing open (allow) [tool=bash matcher=^bash$ error=bash not found on PATH]\n"
    );
    assert_eq!(r.json()["decision"], "allow");
    assert_eq!(r.json()["hooks"][0]["outcome"], "error");
}

#[test]
fn no_hooks_runs_nothing() {
    let s = Sandbox::new();
    let marker = s.home.join("ran");
    s.project(&format!(
        "[[hooks.input]]\ncommand = 'touch {}; exit 2'\n",
        marker.display()
    ));
    let r = s.run(&[
        "test",
        "--json",
        "--no-hooks",
        "--event",
        "input",
        "--payload",
        r#"{"prompt":"x"}"#,
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(r.json()["decision"], "allow");
    assert_eq!(r.json()["hooks"], json!([]));
    assert!(!marker.exists());
}

#[test]
fn payload_file_dash_reads_stdin() {
    let s = Sandbox::new();
    s.project("[[hooks.before_agent_start]]\ncommand = '''echo '{\"updated_input\":{\"prompt\":\"new\"}}' '''\n");
    let r = s.run_with_stdin(
        &[
            "test",
            "--json",
            "--event",
            "before_agent_start",
            "--payload-file",
            "-",
        ],
        r#"{"turn_count":1,"prompt":"old"}"#,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.json()["arguments"],
        json!({"turn_count": 1, "prompt": "new"})
    );
}

#[test]
fn unknown_event_is_a_usage_error_listing_the_eleven() {
    let s = Sandbox::new();
    let r = s.run(&["test", "--event", "pre_tool_use"]);
    assert_eq!(r.code, 2);
    for name in [
        "session_start",
        "session_shutdown",
        "before_agent_start",
        "input",
        "turn_start",
        "tool_execution_start",
        "tool_execution_end",
        "turn_end",
        "message_end",
        "session_before_compact",
        "session_compact",
    ] {
        assert!(r.stderr.contains(name), "{}", r.stderr);
    }
}

#[test]
fn bad_payloads_are_usage_errors() {
    let s = Sandbox::new();
    let r = s.run(&["test", "--event", "input", "--payload", "{nope"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not valid JSON"), "{}", r.stderr);
    let r = s.run(&["test", "--event", "input", "--payload", "[1]"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("must be a JSON object"), "{}", r.stderr);
}

/// Runs `hooks check` on a project config and expects exit 1 with `needles` on stderr.
fn config_error(text: &str, needles: &[&str]) -> String {
    let s = Sandbox::new();
    let cfg = s.project(text);
    let r = s.run(&["check"]);
    assert_eq!(r.code, 1, "stdout={} stderr={}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(&path_str(&cfg)),
        "the error must name the file: {}",
        r.stderr
    );
    for needle in needles {
        assert!(
            r.stderr.contains(needle),
            "missing {needle:?} in {}",
            r.stderr
        );
    }
    // The same error stops `test` and `list` too.
    for args in [&["list"][..], &["test", "--event", "input"][..]] {
        assert_eq!(s.run(args).code, 1, "{args:?}");
    }
    r.stderr
}

#[test]
fn retired_keys_name_their_replacement() {
    for (old, new) in [
        ("pre_tool_use", "tool_execution_start"),
        ("post_tool_use", "tool_execution_end"),
        ("user_prompt_submit", "input"),
        ("session_end", "session_shutdown"),
    ] {
        let text = format!("[[hooks.{old}]]\ncommand = 'true'\n");
        config_error(
            &text,
            &[&format!(
                "unknown hook event \"{old}\" \u{2014} renamed to \"{new}\" in v0.12 (see docs/v0.12-events.md \u{a7}2.1)"
            )],
        );
    }
}

#[test]
fn typo_keeps_serdes_message() {
    let err = config_error(
        "[[hooks.turn_startt]]\ncommand = 'true'\n",
        &["turn_startt", "expected one of"],
    );
    assert!(!err.contains("renamed"));
}

#[test]
fn unknown_key_in_an_entry_is_an_error() {
    config_error(
        "[[hooks.turn_start]]\ncommand = 'true'\ntimout = 300\n",
        &["timout"],
    );
}

#[test]
fn invalid_regex_names_event_index_and_pattern() {
    config_error(
        "[[hooks.tool_execution_start]]\ncommand = 'true'\n[[hooks.tool_execution_start]]\nmatcher = '(unclosed'\ncommand = 'true'\n",
        &["(unclosed", "tool_execution_start", "entry 1"],
    );
}

#[test]
fn broken_toml_gives_line_and_column() {
    config_error(
        "[[hooks.turn_start]]\ncommand = 'true\n",
        &["line 2", "column"],
    );
}

#[test]
fn zero_timeout_is_an_error() {
    config_error(
        "[[hooks.turn_start]]\ncommand = 'true'\ntimeout = 0\n",
        &["timeout = 0"],
    );
}

#[test]
fn short_timeout_loads_with_a_warning() {
    let s = Sandbox::new();
    let cfg = s.project("[[hooks.turn_start]]\ncommand = 'true'\ntimeout = 5\n");
    for args in [&["check"][..], &["list"][..]] {
        let r = s.run(args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stderr.contains("warning"), "{}", r.stderr);
        assert!(r.stderr.contains("timeout = 5"), "{}", r.stderr);
        assert!(r.stderr.contains(&path_str(&cfg)), "{}", r.stderr);
    }
}

#[test]
fn explicit_config_that_does_not_exist_is_an_error() {
    let s = Sandbox::new();
    let r = s.run(&["check", "--config", "nope.toml"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("nope.toml"), "{}", r.stderr);
}

#[test]
fn explicit_configs_replace_the_default_files() {
    let s = Sandbox::new();
    s.project("[[hooks.turn_start]]\ncommand = 'exit 2'\n");
    let other = s.home.join("other.toml");
    std::fs::write(&other, "[[hooks.turn_end]]\ncommand = 'true'\n").unwrap();
    let r = s.run(&["list", "--json", "--config", other.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let list = r.json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["event"], "turn_end");
}

#[test]
fn list_json_shows_every_hook_in_execution_order() {
    let s = Sandbox::new();
    let home_cfg = s.config(
        true,
        "config.toml",
        "[[hooks.tool_execution_start]]\nmatcher = '^bash$'\ncommand = '~/hooks/guard.sh'\ntimeout = 3000\nfail_closed = true\n",
    );
    let legacy = s.config(
        false,
        "settings.toml",
        "[[hooks.turn_end]]\ntype = 'http'\n",
    );
    let r = s.run(&["list", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.json(),
        json!([
            {"dialect": "nanopi", "scope": "user", "event": "tool_execution_start", "source": path_str(&home_cfg),
             "index": 0, "matcher": "^bash$", "type": "command",
             "command": format!("{}/hooks/guard.sh", s.home.display()),
             "timeout_ms": 3000, "fail_closed": true, "name": null, "disabled": null,
             "persistent": false, "url": null},
            // A nanopi entry of another type has no URL: it is listed and skipped.
            {"dialect": "nanopi", "scope": "project", "event": "turn_end", "source": path_str(&legacy), "index": 0,
             "matcher": null, "type": "http", "command": null, "timeout_ms": 5000,
             "fail_closed": false, "name": null, "disabled": null, "persistent": false,
             "url": null},
        ])
    );
}

#[test]
fn list_prints_a_table_for_people() {
    let s = Sandbox::new();
    s.project(GUARD);
    let r = s.run(&["list"]);
    assert_eq!(r.code, 0);
    let mut lines = r.stdout.lines();
    let header = lines.next().unwrap();
    for column in ["EVENT", "SOURCE", "MATCHER", "TIMEOUT", "COMMAND"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(lines.next().unwrap().starts_with("tool_execution_start"));
}

#[test]
fn check_says_so_in_one_line() {
    let s = Sandbox::new();
    s.project(GUARD);
    let r = s.run(&["check"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The verdict is the first line; the files searched follow.
    let first = r.stdout.lines().next().unwrap();
    assert!(first.starts_with("ok: 1 hook from 1 file"), "{}", r.stdout);
    assert_eq!(r.stdout.lines().nth(1), Some("searched:"), "{}", r.stdout);
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    let s = Sandbox::new();
    for sub in ["test", "list", "check"] {
        let r = s.run(&[sub, "--help"]);
        assert_eq!(r.code, 0);
        assert!(r.stdout.contains("Examples:"), "{sub}: {}", r.stdout);
    }
}

// --- Issue 10: a home that needs quoting (item 4) ---

/// A sandbox whose HOME folder is called `home_name`, with `~/.nanopi/hooks/guard.sh`
/// that blocks with the reason `guarded`.
fn sandbox_with_home(home_name: &str) -> Sandbox {
    let s = Sandbox::new();
    let home = s.home.with_file_name(home_name);
    std::fs::create_dir_all(home.join(".nanopi/hooks")).unwrap();
    let guard = home.join(".nanopi/hooks/guard.sh");
    std::fs::write(&guard, "#!/usr/bin/env bash\necho guarded >&2\nexit 2\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o755)).unwrap();
    Sandbox { home, ..s }
}

#[test]
fn a_home_with_a_space_or_quote_still_runs_the_guard() {
    for home_name in ["with space", "it's \"here\" $x"] {
        let s = sandbox_with_home(home_name);
        for command in [
            "~/.nanopi/hooks/guard.sh",
            "$HOME/.nanopi/hooks/guard.sh",
            "${HOME}/.nanopi/hooks/guard.sh",
            "\"$HOME/.nanopi/hooks/guard.sh\"",
            "\"$(echo ~/.nanopi/hooks/guard.sh)\"",
            "true # it's fine\n~/.nanopi/hooks/guard.sh",
            "'$HOME/.nanopi/hooks/guard.sh'",
        ] {
            s.project(&format!(
                "[[hooks.tool_execution_start]]\nmatcher = '^bash$'\ncommand = '''{command}'''\n"
            ));
            let r = s.run(&[
                "test",
                "--json",
                "--event",
                "tool_execution_start",
                "--tool",
                "bash",
            ]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            let report = r.json();
            assert_eq!(
                (report["decision"].as_str(), report["reason"].as_str()),
                (Some("block"), Some("guarded")),
                "home {home_name:?}, command {command}: {report}"
            );
        }
    }
}

#[test]
fn a_plain_home_is_listed_exactly_as_before() {
    let s = Sandbox::new();
    s.project("[[hooks.input]]\ncommand = '''~/a \"$HOME/b\" ${HOME}/c'''\n");
    let r = s.run(&["list", "--json"]);
    let home = s.home.display();
    assert_eq!(
        r.json()[0]["command"],
        format!("{home}/a \"{home}/b\" {home}/c")
    );
}

// --- Issue 10: files that are not regular files, or too big (item 7) ---

/// Runs `hooks args…` and gives it `limit` to finish, under a 2 GiB address
/// space so that a regression reading `/dev/zero` cannot take the machine down.
fn run_bounded(s: &Sandbox, args: &[&str], limit: std::time::Duration) -> Run {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg("ulimit -v 2097152 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_hooks"))
        .args(args)
        .current_dir(&s.proj)
        .env("HOME", &s.home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("hooks {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Run::from(child.wait_with_output().unwrap())
}

const BOUND: std::time::Duration = std::time::Duration::from_secs(10);

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_fifo_as_the_project_config_fails_at_once() {
    let s = Sandbox::new();
    let cfg = s.proj.join(".nanopi/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    mkfifo(&cfg);
    for args in [
        &["list"][..],
        &["check"][..],
        &["test", "--event", "input"][..],
    ] {
        let r = run_bounded(&s, args, BOUND);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "hooks: {}: refusing to read a FIFO: a configuration must be a regular file \
                 (remove it, or replace it with one)\n",
                cfg.display()
            )
        );
    }
}

#[test]
fn a_config_linked_to_dev_zero_is_refused() {
    let s = Sandbox::new();
    let dir = s.home.join(".nanopi");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("config.toml")).unwrap();
    for args in [&["list"][..], &["check"][..]] {
        let r = run_bounded(&s, args, BOUND);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("config.toml: refusing to read a character device: "),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn a_config_over_one_mib_is_refused() {
    let s = Sandbox::new();
    let mut text = String::from("[[hooks.input]]\ncommand = 'true'\n");
    text.push_str(&"#".repeat((1 << 20) + 1 - text.len()));
    let cfg = s.project(&text);
    let r = run_bounded(&s, &["check"], BOUND);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "hooks: {}: refusing to read more than 1 MiB: a configuration is never this large \
             (check what this file is)\n",
            cfg.display()
        )
    );
    // One byte less loads.
    text.pop();
    s.project(&text);
    assert_eq!(s.run(&["check"]).code, 0);
}

#[test]
fn a_payload_file_must_be_a_regular_file_of_at_most_64_mib() {
    let s = Sandbox::new();
    let fifo = s.home.join("payload.fifo");
    mkfifo(&fifo);
    let zero = s.home.join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let big = s.home.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    for (path, why) in [
        (&fifo, "it is a FIFO, not a regular file (to send a payload through a pipe, use --payload-file - and pipe it to stdin)"),
        (&zero, "it is a character device, not a regular file (to send a payload through a pipe, use --payload-file - and pipe it to stdin)"),
        (&big, "it is larger than 64 MiB"),
    ] {
        let r = run_bounded(
            &s,
            &["test", "--event", "input", "--payload-file", path.to_str().unwrap()],
            BOUND,
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(
            r.stderr.lines().next().unwrap(),
            format!("hooks: cannot read the payload file {}: {why}", path.display())
        );
    }
}

// --- Issue 10: nothing printed for people can steer the terminal (item 8) ---

fn assert_no_raw_controls(text: &str) {
    for c in text.chars() {
        assert!(
            c == '\n'
                || !(c.is_control()
                    || ('\u{202a}'..='\u{202e}').contains(&c)
                    || ('\u{2066}'..='\u{2069}').contains(&c)),
            "raw {c:?} in {text:?}"
        );
    }
}

#[test]
fn list_escapes_control_characters_in_commands_and_matchers() {
    let s = Sandbox::new();
    s.project(
        "[[hooks.tool_execution_start]]\nmatcher = \"^ba\\u202Esh$\"\n\
         command = \"curl -s x | sh\\r\\u001b[2K./lint.sh\\u009b\\u2066\"\n",
    );
    let r = s.run(&["list"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_no_raw_controls(&r.stdout);
    assert!(
        r.stdout
            .contains(r"curl -s x | sh\r\x1b[2K./lint.sh\u{009b}\u{2066}"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(r"^ba\u{202e}sh$"), "{}", r.stdout);
    // JSON keeps the real characters, as JSON.
    let r = s.run(&["list", "--json"]);
    assert_eq!(
        r.json()[0]["command"],
        "curl -s x | sh\r\u{1b}[2K./lint.sh\u{9b}\u{2066}"
    );
}

#[test]
fn test_escapes_control_characters_in_reasons_and_report_lines() {
    let s = Sandbox::new();
    s.project(
        "[[hooks.tool_execution_start]]\ncommand = '''printf 'evil\\r\\033[2Kdecision   allow' >&2; exit 2'''\n\
         [[hooks.turn_start]]\ncommand = '''printf 'a\\033[31mb\\007c\\342\\200\\256d' >&2; exit 2'''\n",
    );
    let r = s.run(&["test", "--event", "tool_execution_start", "--tool", "bash"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_no_raw_controls(&r.stdout);
    assert!(
        r.stdout
            .contains(r"reason     evil\r\x1b[2Kdecision   allow"),
        "{}",
        r.stdout
    );
    let r = s.run(&[
        "test",
        "--event",
        "turn_start",
        "--payload",
        r#"{"turn_count":1}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "nanopi: TurnStart hook asked to block; ignored (advisory event) \
         [reason=a\\x1b[31mb\\x07c\\u{202e}d]\n"
    );
    assert_no_raw_controls(&r.stdout);
}

#[test]
fn config_errors_and_warnings_escape_control_characters() {
    let s = Sandbox::new();
    // A raw ESC in a comment: TOML refuses it, and its excerpt quotes the line.
    s.project("[[hooks.input]]\ncommand = 'true' # \u{1b}[2J\u{1b}]0;pwned\u{7}\n");
    let r = s.run(&["check"]);
    assert_eq!(r.code, 1);
    assert_no_raw_controls(&r.stderr);
    assert!(
        r.stderr.contains(r"\x1b[2J\x1b]0;pwned\x07"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.lines().count() > 1,
        "the excerpt keeps its lines: {}",
        r.stderr
    );

    // A file name with controls, in a warning and in `check`'s line.
    let named = s.home.join("a\u{1b}[31m\rb.toml");
    std::fs::write(&named, "[[hooks.input]]\ncommand = 'true'\ntimeout = 5\n").unwrap();
    let r = s.run(&["check", "--config", named.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_no_raw_controls(&r.stderr);
    assert_no_raw_controls(&r.stdout);
    assert!(r.stderr.contains(r"a\x1b[31m\rb.toml"), "{}", r.stderr);
    assert!(r.stdout.contains(r"a\x1b[31m\rb.toml"), "{}", r.stdout);
}

// --- Issue 10: the first bad matcher in the file (item 11) ---

#[test]
fn the_first_bad_matcher_in_the_file_is_named() {
    let err = config_error(
        "[[hooks.session_compact]]\nmatcher = '(first'\ncommand = 'true'\n\
         [[hooks.tool_execution_start]]\nmatcher = '[second'\ncommand = 'true'\n",
        &["invalid matcher \"(first\" in [[hooks.session_compact]] entry 0"],
    );
    assert!(!err.contains("second"), "{err}");
}

// --- Issue 10: smaller holes (item 14) ---

#[test]
fn a_home_that_is_the_project_through_a_symlink_loads_its_file_once() {
    let s = Sandbox::new();
    s.project("[[hooks.input]]\ncommand = 'true'\n");
    let link = s.home.with_file_name("home-link");
    std::os::unix::fs::symlink(&s.proj, &link).unwrap();
    let run = |args: &[&str]| Run::from(s.command(args).env("HOME", &link).output().unwrap());
    let r = run(&["list", "--json"]);
    assert_eq!(r.json().as_array().unwrap().len(), 1, "{}", r.stdout);
    let r = run(&["check"]);
    assert!(
        r.stdout.starts_with("ok: 1 hook from 1 file: "),
        "{}",
        r.stdout
    );
}

#[test]
fn a_home_nanopi_folder_linked_to_the_projects_loads_its_file_once() {
    let s = Sandbox::new();
    s.project("[[hooks.input]]\ncommand = 'true'\n");
    std::os::unix::fs::symlink(s.proj.join(".nanopi"), s.home.join(".nanopi")).unwrap();
    let r = s.run(&["list", "--json"]);
    assert_eq!(r.json().as_array().unwrap().len(), 1, "{}", r.stdout);
}

#[test]
fn array_forms_of_hooks_are_rejected() {
    config_error(
        "hooks = [[{command = 'a'}], [{command = 'b'}]]\n",
        &[
            "`hooks` is an array, which would be read by position",
            "line 1",
        ],
    );
    config_error(
        "[hooks]\ninput = [['*', 'command', 'true', 3000, false, 'dropped']]\n",
        &[
            "a hook entry is an array, which would be read by position",
            "line 2",
        ],
    );
}

#[test]
fn invalid_utf8_names_the_byte_and_line() {
    let s = Sandbox::new();
    let cfg = s.proj.join(".nanopi/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, b"# ok\n[[hooks.input]]\ncommand = 'ech\xffo'\n").unwrap();
    let r = s.run(&["check"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        format!(
            "hooks: {}: not valid UTF-8 at byte 35 (line 3): a configuration must be UTF-8 text\n",
            cfg.display()
        )
    );
}

#[test]
fn tool_flags_on_an_event_without_a_tool_are_usage_errors() {
    let s = Sandbox::new();
    for (args, flag, event) in [
        (&["--tool", "bash"][..], "--tool", "turn_start"),
        (
            &["--tool-call-id", "call_1"][..],
            "--tool-call-id",
            "session_start",
        ),
    ] {
        let mut argv = vec!["test", "--event", event];
        argv.extend_from_slice(args);
        let r = s.run(&argv);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.starts_with(&format!(
                "hooks: {flag} is only for the tool events (tool_execution_start, \
                 tool_execution_end): {event} has no tool\n"
            )),
            "{}",
            r.stderr
        );
    }
    // Still fine where there is a tool.
    for event in ["tool_execution_start", "tool_execution_end"] {
        let r = s.run(&[
            "test",
            "--event",
            event,
            "--tool",
            "bash",
            "--tool-call-id",
            "c",
        ]);
        assert_eq!(r.code, 0, "{event}: {}", r.stderr);
    }
}

// --- Issue 11: seeing why (items 5, 6 and 7) ---

/// `hooks test --json` of `tool_execution_start` with `--tool bash`.
fn test_json(s: &Sandbox, extra: &[&str]) -> Run {
    let mut argv = vec![
        "test",
        "--json",
        "--event",
        "tool_execution_start",
        "--tool",
        "bash",
    ];
    argv.extend_from_slice(extra);
    s.run(&argv)
}

#[test]
fn a_hook_that_exits_1_shows_its_exit_status_stderr_and_last_stdout_line() {
    let s = Sandbox::new();
    s.project(
        "[[hooks.tool_execution_start]]\ncommand = \"echo checking; echo 'not json'; \
         echo './guard.sh: line 3: jq: command not found' >&2; exit 1\"\n",
    );
    let r = test_json(&s, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hook = &r.json()["hooks"][0];
    assert_eq!(hook["outcome"], "allow");
    assert_eq!(hook["exit"], 1);
    assert_eq!(hook["signal"], Value::Null);
    assert_eq!(
        hook["stderr"],
        "./guard.sh: line 3: jq: command not found\n"
    );

    let r = s.run(&["test", "--event", "tool_execution_start", "--tool", "bash"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let header = r.stdout.lines().find(|l| l.starts_with("HOOK")).unwrap();
    assert!(header.contains("ENDED"), "{header}");
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with(".nanopi/config.toml:0 "))
        .unwrap();
    assert!(row.contains("allow") && row.contains("exit 1"), "{row}");
    let details =
        "\n.nanopi/config.toml:0 (exit 1)\n  stderr  ./guard.sh: line 3: jq: command not found\n  \
         stdout  not json (last line)\n  note    exit 1 allows: only exit 2, or \
         {\"decision\":\"block\"} as the last stdout line, blocks\n";
    assert!(r.stdout.ends_with(&details), "{}", r.stdout);
}

#[test]
fn a_hook_killed_by_a_signal_shows_the_signal() {
    let s = Sandbox::new();
    s.project("[[hooks.tool_execution_start]]\ncommand = 'kill -9 $$'\n");
    let r = test_json(&s, &[]);
    let hook = &r.json()["hooks"][0];
    assert_eq!(hook["outcome"], "allow");
    assert_eq!((&hook["exit"], &hook["signal"]), (&Value::Null, &json!(9)));
    assert_eq!(hook["stderr"], "");
    let r = s.run(&["test", "--event", "tool_execution_start", "--tool", "bash"]);
    assert!(r.stdout.contains("signal 9"), "{}", r.stdout);
}

#[test]
fn a_hook_that_could_not_start_says_so() {
    let s = Sandbox::new();
    s.project("[[hooks.tool_execution_start]]\ncommand = 'exit 2'\n");
    let empty = s.home.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let run = |json: bool| {
        let mut argv = vec!["test", "--event", "tool_execution_start", "--tool", "bash"];
        if json {
            argv.push("--json");
        }
        Run::from(s.command(&argv).env("PATH", &empty).output().unwrap())
    };
    let report = run(true).json();
    let hook = &report["hooks"][0];
    assert_eq!(hook["outcome"], "error");
    assert_eq!(hook["reason"], "bash not found on PATH");
    for field in ["exit", "signal", "stderr"] {
        assert_eq!(hook[field], Value::Null, "{field}");
    }
    let r = run(false);
    assert!(r.stdout.contains("could not start"), "{}", r.stdout);
}

#[test]
fn the_report_keeps_the_first_4_kib_of_stderr_and_nulls_for_a_hook_that_did_not_run() {
    let s = Sandbox::new();
    s.project(
        "[[hooks.tool_execution_start]]\ncommand = 'head -c 10000 /dev/zero | tr \"\\\\0\" e >&2'\n\n\
         [[hooks.tool_execution_start]]\nmatcher = '^read$'\ncommand = 'true'\n",
    );
    let r = test_json(&s, &[]);
    let hooks = r.json()["hooks"].clone();
    assert_eq!(hooks[0]["stderr"], "e".repeat(4096));
    assert_eq!(hooks[0]["exit"], 0);
    // A skipped hook did not run: nothing to say.
    assert_eq!(hooks[1]["outcome"], "skipped");
    for field in ["exit", "signal", "stderr"] {
        assert_eq!(hooks[1][field], Value::Null, "{field}");
    }
}

#[test]
fn check_lists_the_files_it_searched_found_or_not() {
    let s = Sandbox::new();
    let cfg = s.project(GUARD);
    let r = s.run(&["check"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let home = s.home.join(".nanopi");
    let proj = cfg.parent().unwrap();
    let want = format!(
        "searched:\n  not found  {}\n  found      {}\n  not found  {}\n  not found  {}\n",
        home.join("config.toml").display(),
        cfg.display(),
        home.join("settings.toml").display(),
        proj.join("settings.toml").display(),
    );
    assert!(r.stdout.ends_with(&want), "{}", r.stdout);

    // Named files were all read.
    let r = s.run(&["check", "--config", cfg.to_str().unwrap()]);
    assert!(
        r.stdout
            .ends_with(&format!("searched:\n  found      {}\n", cfg.display())),
        "{}",
        r.stdout
    );
}

#[test]
fn an_unknown_type_is_a_warning_and_the_hook_is_listed_but_never_runs() {
    let s = Sandbox::new();
    let marker = s.home.join("ran");
    let cfg = s.project(&format!(
        "[[hooks.tool_execution_start]]\ntype = 'comand'\ncommand = 'touch {}; exit 2'\n",
        marker.display()
    ));
    let warning = format!(
        "hooks: warning: {}: [[hooks.tool_execution_start]] entry 0: type = \"comand\" is not \
         a hook type (only \"command\" runs), so this hook never runs; did you mean \"command\"?\n",
        cfg.display()
    );
    let r = s.run(&["check"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stderr, warning);
    assert!(
        r.stdout
            .starts_with("ok: 1 hook from 1 file, 1 warning (above)"),
        "{}",
        r.stdout
    );
    let r = s.run(&["list", "--json"]);
    assert_eq!(r.json()[0]["type"], "comand");
    let r = test_json(&s, &[]);
    assert_eq!(r.stderr, warning);
    assert_eq!(r.json()["hooks"][0]["outcome"], "skipped");
    assert!(!marker.exists());
}

#[test]
fn a_camel_case_or_misspelled_event_suggests_the_snake_case_name() {
    let s = Sandbox::new();
    for (given, meant) in [
        ("ToolExecutionStart", "tool_execution_start"),
        ("tool_exection_start", "tool_execution_start"),
        ("BeforeAgentStart", "before_agent_start"),
    ] {
        let r = s.run(&["test", "--event", given]);
        assert_eq!(r.code, 2);
        assert!(
            r.stderr.starts_with(&format!(
                "hooks: unknown hook event \"{given}\" (did you mean \"{meant}\"?); expected one of: "
            )),
            "{}",
            r.stderr
        );
    }
    // The name is escaped like everything else printed for people.
    let r = s.run(&["test", "--event", "Turn\u{1b}[2JStart"]);
    assert_eq!(r.code, 2);
    assert_no_raw_controls(&r.stderr);
}

#[test]
fn a_tool_event_without_a_tool_warns_that_matchers_see_an_empty_name() {
    let s = Sandbox::new();
    s.project(GUARD);
    let warning = "hooks: warning: no --tool given: the matchers of tool_execution_start \
                   hooks see an empty tool name (try --tool bash)\n";
    let r = s.run(&["test", "--json", "--event", "tool_execution_start"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stderr, warning);
    assert_eq!(r.json()["hooks"][0]["outcome"], "skipped");
    // With a tool, or on an event without one, no warning.
    assert_eq!(test_json(&s, &[]).stderr, "");
    assert_eq!(s.run(&["test", "--event", "input"]).stderr, "");
}

#[test]
fn skipped_rows_show_the_subject_that_was_tested() {
    let s = Sandbox::new();
    s.project(
        "[[hooks.tool_execution_start]]\nmatcher = '^bash$'\ncommand = 'true'\n\n\
         [[hooks.turn_start]]\nmatcher = '^1$'\ncommand = 'true'\n",
    );
    let r = s.run(&["test", "--event", "tool_execution_start", "--tool", "read"]);
    assert!(
        r.stdout
            .contains("matcher did not match tool name \"read\""),
        "{}",
        r.stdout
    );
    let r = s.run(&[
        "test",
        "--event",
        "turn_start",
        "--payload",
        r#"{"turn_count":7,"iteration":0}"#,
    ]);
    assert!(
        r.stdout.contains("matcher did not match turn count \"7\""),
        "{}",
        r.stdout
    );
    // A subject with control characters is escaped.
    let r = s.run(&[
        "test",
        "--event",
        "tool_execution_start",
        "--tool",
        "re\u{1b}[2Jad",
    ]);
    assert_no_raw_controls(&r.stdout);
    assert!(r.stdout.contains(r"re\x1b[2Jad"), "{}", r.stdout);
}

#[test]
fn exit_code_makes_an_honored_block_exit_3() {
    let s = Sandbox::new();
    s.project(&format!(
        "{GUARD}\n[[hooks.turn_start]]\ncommand = 'echo stop >&2; exit 2'\n"
    ));
    let code = |args: &[&str]| s.run(args).code;
    let bash = ["--event", "tool_execution_start", "--tool", "bash"];
    assert_eq!(code(&[&["test", "--exit-code"][..], &bash].concat()), 3);
    assert_eq!(
        code(&[&["test", "--json", "--exit-code"][..], &bash].concat()),
        3
    );
    // Without the flag, 0 whatever the decision.
    assert_eq!(code(&[&["test"][..], &bash].concat()), 0);
    // Not a block, or a block the event drops: 0.
    let read = ["--event", "tool_execution_start", "--tool", "read"];
    assert_eq!(code(&[&["test", "--exit-code"][..], &read].concat()), 0);
    assert_eq!(code(&["test", "--exit-code", "--event", "turn_start"]), 0);
    assert_eq!(
        code(&[&["test", "--exit-code", "--no-hooks"][..], &bash].concat()),
        0
    );
    // The usage status is unchanged.
    assert_eq!(code(&["test", "--exit-code", "--event", "nope"]), 2);
    let r = s.run(&["test", "--help"]);
    assert!(r.stdout.contains("--exit-code"), "{}", r.stdout);
    assert!(r.stdout.contains("Exit 3"), "{}", r.stdout);
}

#[test]
fn help_describes_the_tool() {
    let s = Sandbox::new();
    let r = s.run(&["--help"]);
    assert_eq!(r.code, 0);
    for needle in [
        "outside the agent",
        "hooks check",
        "hooks list",
        "hooks test",
        "~/.nanopi/config.toml",
        "Exit status: 0",
        "3 for a block with `hooks test --exit-code`",
    ] {
        assert!(r.stdout.contains(needle), "{needle}: {}", r.stdout);
    }
}

#[test]
fn a_timeout_and_a_fail_closed_block_have_the_same_word_everywhere() {
    let s = Sandbox::new();
    for (entry, word) in [
        ("command = 'sleep 5'\ntimeout = 200\n", "timeout"),
        ("command = 'exit 1'\nfail_closed = true\n", "failed_closed"),
    ] {
        s.project(&format!("[[hooks.tool_execution_start]]\n{entry}"));
        let audit = s.home.join(format!("{word}.jsonl"));
        let r = test_json(&s, &["--audit", audit.to_str().unwrap()]);
        let hook = &r.json()["hooks"][0];
        // The contract fixes `outcome` to its six words: a timeout and a
        // fail-closed failure are blocks there.
        assert_eq!(hook["outcome"], "block");
        assert_eq!(hook["outcome_detail"], word);
        let line: Value =
            serde_json::from_str(std::fs::read_to_string(&audit).unwrap().trim()).unwrap();
        assert_eq!(line["decision"], word);
        let r = s.run(&["test", "--event", "tool_execution_start", "--tool", "bash"]);
        let row = r.stdout.lines().find(|l| l.contains(":0 ")).unwrap();
        assert!(row.contains(&format!(" {word} ")), "{row}");
    }
}

#[test]
fn rows_of_hooks_that_did_not_run_say_why() {
    let s = Sandbox::new();
    s.project(&format!(
        "[[hooks.tool_execution_start]]\ntype = 'http'\n\n{GUARD}\n\
         [[hooks.tool_execution_start]]\ncommand = 'true'\n"
    ));
    let r = s.run(&["test", "--event", "tool_execution_start", "--tool", "bash"]);
    let row = |index: usize| {
        r.stdout
            .lines()
            .find(|l| l.contains(&format!(":{index} ")))
            .unwrap()
            .to_owned()
    };
    assert!(
        row(0).ends_with("type \"http\" does not run"),
        "{}",
        r.stdout
    );
    assert!(row(2).contains(" not_run "), "{}", r.stdout);
    assert!(
        row(2).ends_with("  an earlier hook blocked"),
        "{}",
        r.stdout
    );
}

/// A hook's `name` names it in `list` (JSON and table), in the `test` table and
/// report, and in the audit log; unnamed hooks keep `file:index`, their file shown
/// relative to `~` or to the project, never with the home directory spelled out.
#[test]
fn a_named_hook_is_shown_by_its_name_and_no_label_holds_the_home_directory() {
    let s = Sandbox::new();
    s.config(
        true,
        "config.toml",
        "[[hooks.tool_execution_start]]\nname = 'bash-guard'\ncommand = 'exit 0'\n\
         [[hooks.tool_execution_start]]\ncommand = 'exit 0'\n",
    );
    let r = s.run(&["list", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names: Vec<Value> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].clone())
        .collect();
    assert_eq!(names, [json!("bash-guard"), Value::Null]);

    let r = s.run(&["list"]);
    assert!(
        r.stdout.contains("bash-guard (~/.nanopi/config.toml:0)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("~/.nanopi/config.toml:1"), "{}", r.stdout);

    let log = s.home.join("audit.jsonl");
    let log_arg = log.display().to_string();
    let r = s.run(&[
        "test",
        "--event",
        "tool_execution_start",
        "--tool",
        "bash",
        "--audit",
        &log_arg,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("bash-guard (~/.nanopi/config.toml:0)"),
        "{}",
        r.stdout
    );
    let audit = std::fs::read_to_string(&log).unwrap();
    let hooks: Vec<String> = audit
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["hook"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(hooks, ["bash-guard", "~/.nanopi/config.toml:1"]);
    assert!(!audit.contains(&s.home.display().to_string()), "{audit}");
}
