//! `hooks test --audit FILE`: one JSON line per hook run, appended, and nothing
//! else about the run changes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

const CONFIG: &str = r#"
[[hooks.tool_execution_start]]
command = "exit 0"

[[hooks.tool_execution_start]]
matcher = "^read$"
command = "exit 0"

[[hooks.tool_execution_start]]
matcher = "^bash$"
command = "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0"
"#;

struct Sandbox {
    dir: TempDir,
    config: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("hooks.toml");
        std::fs::write(&config, CONFIG).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Sandbox { dir, config }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `hooks test --json` of `command` through the bash tool, plus `extra` flags.
    fn command(&self, command: &str, extra: &[&str]) -> Command {
        let payload = serde_json::json!({ "command": command }).to_string();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hooks"));
        cmd.args(["test", "--json", "--config"])
            .arg(&self.config)
            .args(["--event", "tool_execution_start", "--tool", "bash"])
            .args(["--tool-call-id", "call_1", "--session-id", "019abc"])
            .args(["--payload", &payload])
            .args(extra)
            .current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .stdin(Stdio::null());
        cmd
    }

    /// Runs [`Sandbox::command`] to its end.
    fn test(&self, command: &str, extra: &[&str]) -> Output {
        self.command(command, extra).output().unwrap()
    }
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The JSON report without its durations, which vary from run to run.
fn report(out: &Output) -> Value {
    let mut report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for hook in report["hooks"].as_array_mut().unwrap() {
        hook.as_object_mut().unwrap().remove("duration_ms");
    }
    report
}

#[test]
fn audit_appends_one_line_per_hook_run_and_changes_nothing_else() {
    let s = Sandbox::new();
    let log = s.path("audit.jsonl");
    let log_arg = log.display().to_string();

    let plain = s.test("rm -rf /", &[]);
    let audited = s.test("rm -rf /", &["--audit", &log_arg]);
    assert_eq!(audited.status.code(), Some(0));
    assert_eq!(report(&audited), report(&plain));
    assert_eq!(audited.stderr, plain.stderr);
    assert_eq!(report(&audited)["decision"], "block");

    // The hook whose matcher did not match did not run: two lines, not three.
    let got = lines(&log);
    assert_eq!(got.len(), 2);
    // The hook's label: the file relative to the project (the current directory).
    for (line, (index, decision, reason)) in got.iter().zip([
        (0, "allow", Value::Null),
        (2, "block", Value::from("no rm -rf here")),
    ]) {
        assert_eq!(line["event"], "tool_execution_start");
        assert_eq!(line["tool"], "bash");
        assert_eq!(line["tool_call_id"], "call_1");
        assert_eq!(line["session"], "019abc");
        assert_eq!(line["hook"], format!("hooks.toml:{index}"));
        assert_eq!(line["decision"], decision);
        assert_eq!(line["reason"], reason);
        assert!(line["duration_ms"].is_u64());
        assert!(line["time"].as_str().unwrap().ends_with('Z'));
    }

    // A second run appends.
    s.test("ls", &["--audit", &log_arg]);
    let got = lines(&log);
    assert_eq!(got.len(), 4);
    assert_eq!(got[3]["decision"], "allow");
    assert_eq!(got[3]["hook"], "hooks.toml:2");
}

#[test]
fn no_hooks_writes_no_line() {
    let s = Sandbox::new();
    let log = s.path("audit.jsonl");
    let out = s.test(
        "rm -rf /",
        &["--no-hooks", "--audit", &log.display().to_string()],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "");
}

#[test]
fn an_audit_log_that_cannot_be_opened_is_a_usage_error() {
    let s = Sandbox::new();
    let log = s.path("no/such/dir/audit.jsonl");
    let out = s.test("ls", &["--audit", &log.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "hooks: cannot open the audit log {}: ",
            log.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_warns_and_the_run_still_succeeds() {
    // A file size limit of 0 makes every write to the log fail (EFBIG, with
    // SIGXFSZ ignored), as a full disk does; nothing else here writes a file.
    let s = Sandbox::new();
    let plain = s.test("rm -rf /", &[]);
    let log = s.path("audit.jsonl");
    let command = s.command("rm -rf /", &["--audit", log.to_str().unwrap()]);
    let hooks = command.get_program().to_owned();
    let args: Vec<_> = command.get_args().map(ToOwned::to_owned).collect();
    let out = Command::new("bash")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0 && exec \"$0\" \"$@\"")
        .arg(hooks)
        .args(args)
        .current_dir(s.dir.path())
        .env("HOME", s.path("home"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(report(&out), report(&plain));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "hooks: warning: the audit log {} dropped 2 lines: cannot write: ",
            log.display()
        )),
        "{stderr}"
    );
}

/// Runs `hooks test` with `--audit path`, giving it 10 s to finish.
fn test_bounded(s: &Sandbox, path: &Path) -> Output {
    let mut child = s
        .command("ls", &["--audit", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("hooks test --audit {} still ran after 10 s", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn an_audit_log_that_is_a_fifo_is_refused_at_once() {
    let s = Sandbox::new();
    let fifo = s.path("audit.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = test_bounded(&s, &fifo);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "hooks: cannot open the audit log {}: it is a FIFO, not a regular file; --audit \
             appends to a regular file (name a new file, or an existing regular one)\n",
            fifo.display()
        )),
        "{stderr}"
    );
}

#[test]
fn an_audit_log_that_is_not_a_regular_file_is_refused() {
    let s = Sandbox::new();
    let link = s.path("audit.jsonl");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    for (path, what) in [
        (link, "a character device"),
        (s.path("home"), "a directory"),
    ] {
        let out = test_bounded(&s, &path);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with(&format!(
                "hooks: cannot open the audit log {}: it is {what}, not a regular file; ",
                path.display()
            )),
            "{stderr}"
        );
    }
}
