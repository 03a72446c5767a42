//! The `hooks` binary with Claude Code handler options that need more than a
//! settings file: a shell of their own (`"shell": "powershell"`), the model
//! of a `prompt` handler.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;
use support::{path, Run, Sandbox};

/// Runs `hooks ARGS` in the sandbox's project with `PATH` set to `search`.
fn run_with_path(s: &Sandbox, search: &str, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(args)
        .current_dir(&s.proj)
        .env("HOME", &s.home)
        .env("PATH", search)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A stand-in for PowerShell that writes its arguments, one a line, next to
/// the project and answers with a block.
const FAKE_PWSH: &str = r#"#!/bin/sh
printf '%s\n' "$@" > "$CLAUDE_PROJECT_DIR/pwsh-argv"
echo '{"decision": "block", "reason": "pwsh said no"}'
"#;

fn powershell_settings(s: &Sandbox) -> std::path::PathBuf {
    s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "command",
            "shell": "powershell",
            "command": "& ${CLAUDE_PROJECT_DIR}/guard.ps1 | Write-Output"
        }]}]}})
        .to_string(),
    )
}

fn system_path() -> String {
    std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
}

#[test]
fn a_powershell_handler_runs_under_pwsh_with_its_flags() {
    let s = Sandbox::new();
    let settings = powershell_settings(&s);
    s.write("bin/pwsh.sh", FAKE_PWSH);
    let bin = s.dir.path().join("bin");
    std::fs::rename(bin.join("pwsh.sh"), bin.join("pwsh")).unwrap();
    let search = format!("{}:{}", bin.display(), system_path());
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let r = run_with_path(
        &s,
        &search,
        &[
            "test",
            "--json",
            "--config",
            path(&settings),
            "--event",
            "PreToolUse",
            "--payload",
            &payload.to_string(),
        ],
    );
    let report = r.json();
    assert_eq!(report["decision"], "block", "{}", r.stderr);
    assert_eq!(report["reason"], "pwsh said no");
    let argv = std::fs::read_to_string(s.proj.join("pwsh-argv")).unwrap();
    assert_eq!(
        argv.lines().collect::<Vec<_>>(),
        [
            "-NoProfile",
            "-NonInteractive",
            "-Command",
            "& ${env:CLAUDE_PROJECT_DIR}/guard.ps1 | Write-Output",
        ],
    );
    let checked = run_with_path(&s, &search, &["check", "--config", path(&settings)]);
    assert!(
        !checked.stderr.contains("not on PATH"),
        "{}",
        checked.stderr
    );
}

#[test]
fn a_powershell_handler_loads_with_a_warning_without_pwsh() {
    let s = Sandbox::new();
    let settings = powershell_settings(&s);
    let empty = s.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let search = format!("{}:{}", empty.display(), no_pwsh_path());
    let r = run_with_path(&s, &search, &["check", "--config", path(&settings)]);
    assert!(
        r.stderr.contains(
            "PreToolUse handler 0 (hooks.PreToolUse[0].hooks[0]): \"pwsh\" is not on PATH"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("1 hook"), "{}\n{}", r.stdout, r.stderr);
}

/// The system's `PATH` without the directories that hold a `pwsh`.
fn no_pwsh_path() -> String {
    std::env::split_paths(&system_path())
        .filter(|dir| !Path::new(dir).join("pwsh").exists())
        .map(|dir| dir.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

#[test]
fn the_evaluator_command_reads_the_handlers_model_in_hooks_model() {
    let s = Sandbox::new();
    let settings = s.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "prompt", "prompt": "Safe? $ARGUMENTS", "model": "claude-haiku-4-5"}
        ]}]}})
        .to_string(),
    );
    let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let r = s.run(&[
        "test",
        "--json",
        "--config",
        path(&settings),
        "--event",
        "PreToolUse",
        "--payload",
        &payload.to_string(),
        "--evaluator-command",
        r#"echo "{\"ok\": false, \"reason\": \"asked ${HOOKS_MODEL:-no model}\"}""#,
    ]);
    let report = r.json();
    assert_eq!(report["decision"], "block", "{}", r.stderr);
    assert_eq!(report["reason"], "asked claude-haiku-4-5");
}
