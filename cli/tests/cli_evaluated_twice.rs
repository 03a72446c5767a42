//! `hooks check` warns about a command that hands a path the host puts in
//! (`${CLAUDE_PROJECT_DIR}`, Gemini CLI's `$GEMINI_SESSION_ID`) to a second
//! evaluation (`sh -c`, `eval`): the path is one word for the shell that runs
//! the command, but the inner shell reads it as code, so a repository cloned
//! into a directory named `$(…)` would run it.

mod support;

use serde_json::json;
use support::Sandbox;

fn claude(command: &str) -> String {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command}]}]}})
    .to_string()
}

/// The warning lines of `check`'s stderr about a second evaluation.
fn twice_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("reads it as code a second time"))
        .collect()
}

#[test]
fn check_warns_about_a_project_dir_handed_to_sh_c_and_names_the_file_and_hook() {
    let s = Sandbox::new();
    s.write(
        "proj/.claude/settings.json",
        &claude(r#"sh -c "${CLAUDE_PROJECT_DIR}/x.sh""#),
    );
    let check = s.run(&["check", "--discover", "claude"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let lines = twice_lines(&check.stderr);
    assert_eq!(lines.len(), 1, "{}", check.stderr);
    let line = lines[0];
    assert!(line.contains("warning"), "{line}");
    assert!(line.contains(".claude/settings.json"), "{line}");
    assert!(line.contains("hooks.PreToolUse[0].hooks[0]"), "{line}");
    assert!(line.contains("${CLAUDE_PROJECT_DIR}"), "{line}");
    assert!(line.contains("`sh -c`"), "{line}");
    assert!(line.contains(r#"sh -c '"$1"/x.sh' sh"#), "{line}");
}

#[test]
fn the_path_passed_as_an_argument_draws_no_warning() {
    let s = Sandbox::new();
    s.write(
        "proj/.claude/settings.json",
        &claude(r#"sh -c '"$1"/x.sh' sh "${CLAUDE_PROJECT_DIR}""#),
    );
    let check = s.run(&["check", "--discover", "claude"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(twice_lines(&check.stderr).is_empty(), "{}", check.stderr);
}

#[test]
fn check_warns_about_a_gemini_session_id_handed_to_eval() {
    let s = Sandbox::new();
    s.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [
            {"type": "command", "command": "eval 'echo $GEMINI_SESSION_ID >> /tmp/log'"}]}]}})
        .to_string(),
    );
    let check = s.run(&["check", "--discover", "gemini"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let lines = twice_lines(&check.stderr);
    assert_eq!(lines.len(), 1, "{}", check.stderr);
    let line = lines[0];
    assert!(line.contains(".gemini/settings.json"), "{line}");
    assert!(line.contains("hooks.BeforeTool[0].hooks[0]"), "{line}");
    assert!(line.contains("$GEMINI_SESSION_ID"), "{line}");
    assert!(line.contains("`eval`"), "{line}");
}
