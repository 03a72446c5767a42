//! Inspecting a repository one does not trust: a project file full of
//! matchers that compile to huge automata (`\w{1000}` a hundred times) must
//! not make `hooks list` or `hooks check` run for minutes. Each such matcher
//! is a warning that names the file and the matcher, and its group is handled
//! as one whose matcher does not compile, while the file's other hooks load.
//!
//! The runs are bounded generously (a child past [`HANG`] is killed and the
//! test fails): before the bound existed, 100 such matchers took minutes.

mod support;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{Run, Sandbox};

/// How long a run may take before it counts as hung: far above what a busy
/// machine needs for a 10 KB file, far below the minutes such a file used to
/// take.
const HANG: Duration = Duration::from_secs(60);

/// How many hostile matchers a file holds.
const COUNT: usize = 100;

/// The `i`th hostile matcher: each a little different, so that no cache of
/// compiled matchers could hide the cost.
fn hostile(i: usize) -> String {
    format!(r"\w{{{}}}", 1000 + i)
}

/// Runs `hooks ARGS` in the sandbox's project with its HOME, killing the child
/// and failing the test if it runs past [`HANG`].
fn run_bounded(s: &Sandbox, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(args)
        .current_dir(&s.proj)
        .env("HOME", &s.home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).unwrap();
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > HANG {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "hooks {args:?} still ran after {HANG:?}: a matcher's compilation is not bounded"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// The lines of `text` that name `file` and quote `matcher`.
fn lines_about<'t>(text: &'t str, file: &str, matcher: &str) -> Vec<&'t str> {
    let quoted = format!("matcher \"{matcher}\"");
    text.lines()
        .filter(|line| line.contains(file) && line.contains(&quoted))
        .collect()
}

/// Runs `list --json` and `check` for `dialect` and checks what both say:
/// every hostile matcher reported once per run with the file and the words
/// "too big", and the file's one ordinary hook still listed.
fn list_and_check(s: &Sandbox, dialect: &str, file: &str, check_code: i32) -> Run {
    let list = run_bounded(s, &["list", "--json", "--discover", dialect]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let hooks = list.json();
    let commands: Vec<&str> = hooks
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["command"].as_str())
        .collect();
    assert!(commands.contains(&"echo guard"), "{hooks}");

    let check = run_bounded(s, &["check", "--discover", dialect]);
    assert_eq!(check.code, check_code, "{}", check.stderr);

    for (name, run) in [("list", &list), ("check", &check)] {
        for i in [0, COUNT / 2, COUNT - 1] {
            let about = lines_about(&run.stderr, file, &hostile(i));
            assert_eq!(about.len(), 1, "{name}: {}", run.stderr);
            assert!(about[0].contains("too big"), "{name}: {}", about[0]);
            assert!(about[0].contains("1 MiB"), "{name}: {}", about[0]);
        }
        let reported = run.stderr.matches("too big").count();
        assert_eq!(reported, COUNT, "{name}: {}", run.stderr);
    }
    check
}

/// `COUNT` Claude-shaped groups of hostile matchers, then a guard on `Bash`.
fn hostile_groups() -> Vec<Value> {
    let mut groups: Vec<Value> = (0..COUNT)
        .map(|i| {
            json!({"matcher": hostile(i), "hooks": [
                {"type": "command", "command": format!("echo {i}")}]})
        })
        .collect();
    groups.push(json!({"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo guard"}]}));
    groups
}

#[test]
fn a_gemini_file_of_huge_matchers_lists_in_seconds_and_warns_about_each() {
    let s = Sandbox::new();
    let mut groups: Vec<Value> = (0..COUNT)
        .map(|i| {
            json!({"matcher": hostile(i), "hooks": [
                {"type": "command", "command": format!("echo {i}"), "name": format!("h{i}")}]})
        })
        .collect();
    groups.push(json!({"matcher": "run_shell_command", "hooks": [
        {"type": "command", "command": "echo guard", "name": "guard"}]}));
    s.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {"BeforeTool": groups}}).to_string(),
    );
    let check = list_and_check(&s, "gemini", ".gemini/settings.json", 0);
    let line = lines_about(&check.stderr, ".gemini/settings.json", &hostile(7))[0];
    assert!(line.contains("warning"), "{line}");
    assert!(line.contains("hooks.BeforeTool[7]"), "{line}");
    assert!(line.contains("literal tool name"), "{line}");
}

#[test]
fn a_claude_file_of_huge_matchers_drops_each_group_and_keeps_the_rest() {
    let s = Sandbox::new();
    let groups = hostile_groups();
    s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": groups}}).to_string(),
    );
    // Claude Code drops a group whose matcher does not compile, and `check`
    // fails on a dropped entry, as it does for any invalid matcher.
    let check = list_and_check(&s, "claude", ".claude/settings.json", 1);
    let line = lines_about(&check.stderr, ".claude/settings.json", &hostile(7))[0];
    assert!(line.contains("hooks.PreToolUse[7]"), "{line}");
    assert!(line.contains("dropped"), "{line}");
}

#[test]
fn codex_and_cursor_files_of_huge_matchers_warn_and_skip_those_entries() {
    let s = Sandbox::new();
    let groups = hostile_groups();
    s.write(
        "proj/.codex/hooks.json",
        &json!({"hooks": {"PreToolUse": groups}}).to_string(),
    );
    let check = list_and_check(&s, "codex", ".codex/hooks.json", 0);
    let line = lines_about(&check.stderr, ".codex/hooks.json", &hostile(7))[0];
    assert!(line.contains("hooks.PreToolUse[7]"), "{line}");
    assert!(line.contains("Codex skips this group"), "{line}");

    let mut entries: Vec<Value> = (0..COUNT)
        .map(|i| json!({"matcher": hostile(i), "command": format!("echo {i}")}))
        .collect();
    entries.push(json!({"matcher": "Shell", "command": "echo guard"}));
    s.write(
        "proj/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"preToolUse": entries}}).to_string(),
    );
    let check = list_and_check(&s, "cursor", ".cursor/hooks.json", 0);
    let line = lines_about(&check.stderr, ".cursor/hooks.json", &hostile(7))[0];
    assert!(line.contains("hooks.preToolUse[7]"), "{line}");
    assert!(line.contains("selects nothing"), "{line}");
}
