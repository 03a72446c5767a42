//! The `hooks` binary against CONTRACT.md: exit codes, the JSON report, the exact
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
            "arguments": {"command": "rm -rf build/"},
            "hooks": [{"source": path_str(&cfg), "index": 0, "matcher": "^bash$",
                       "outcome": "block", "reason": "refused by guard", "duration_ms": 0}]
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
    let cfg = s.project(GUARD);
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
    assert!(
        r.stdout.contains(&format!("{}:0", cfg.display())),
        "{}",
        r.stdout
    );
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
            {"event": "tool_execution_start", "source": path_str(&home_cfg), "index": 0,
             "matcher": "^bash$", "type": "command",
             "command": format!("{}/hooks/guard.sh", s.home.display()),
             "timeout_ms": 3000, "fail_closed": true},
            {"event": "turn_end", "source": path_str(&legacy), "index": 0, "matcher": null,
             "type": "http", "command": null, "timeout_ms": 5000, "fail_closed": false},
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
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    assert!(
        r.stdout.starts_with("ok: 1 hook from 1 file"),
        "{}",
        r.stdout
    );
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
