//! Whether the program a command hook starts can be found: the most common
//! way a guard silently stops guarding is a script that moved, lost its
//! execute bit, or names an interpreter that is not installed (the shell
//! then exits 127, which every dialect but a fail-closed one lets through).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::spec::{HookSpec, Program};

/// Why a hook's program cannot be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MissingProgram {
    /// The program or script, as the command names it.
    pub(crate) program: String,
    /// `not found`, `not executable`, `not on PATH`.
    pub(crate) why: &'static str,
}

/// Programs whose next word is a script they run: the script must exist.
const INTERPRETERS: [&str; 14] = [
    "sh", "bash", "dash", "zsh", "ksh", "python", "python3", "node", "perl", "ruby", "php", "deno",
    "bun", "pwsh",
];

/// Words after which the next word is the program (`exec ./guard.sh`).
const PREFIXES: [&str; 4] = ["exec", "command", "nohup", "time"];

/// What the shell reads as the first words of `command`: the program and,
/// when it is an interpreter, its script. `None` where the words cannot be
/// told without running the shell (an expansion, a glob, a compound
/// command, a builtin), so that nothing is reported that might be fine.
fn program_words(command: &str) -> Option<Vec<String>> {
    let mut words = Words { rest: command };
    let mut program = loop {
        let word = words.next()??;
        // Leading assignments (`FOO=1 ./guard.sh`) are not the program.
        if let Some((name, _)) = word.split_once('=') {
            let is_name = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if is_name {
                continue;
            }
        }
        if PREFIXES.contains(&word.as_str()) {
            continue;
        }
        break word;
    };
    if is_shell_word(&program) {
        return None;
    }
    if program == "env" {
        program = loop {
            let word = words.next()??;
            if !word.contains('=') && !word.starts_with('-') {
                break word;
            }
        };
    }
    let mut found = vec![program];
    let name = Path::new(&found[0]).file_name().and_then(OsStr::to_str);
    if name.is_some_and(|name| INTERPRETERS.contains(&name)) {
        if let Some(Some(script)) = words.next() {
            if !script.starts_with('-') {
                found.push(script);
            }
        }
    }
    Some(found)
}

/// Shell reserved words and the builtins a hook might start with: they are
/// not programs to look up.
fn is_shell_word(word: &str) -> bool {
    matches!(
        word,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "for"
            | "while"
            | "until"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "function"
            | "select"
            | "!"
            | "{"
            | "}"
            | "[["
            | "]]"
            | "["
            | "test"
            | "echo"
            | "printf"
            | "true"
            | "false"
            | ":"
            | "."
            | "source"
            | "eval"
            | "set"
            | "export"
            | "cd"
            | "read"
            | "exit"
            | "return"
            | "trap"
            | "unset"
            | "local"
            | "declare"
            | "typeset"
            | "shift"
            | "wait"
            | "ulimit"
            | "umask"
    )
}

/// The words of a shell command, quotes removed, up to the first operator.
/// A word is `None` when it holds something only the shell can resolve.
struct Words<'a> {
    rest: &'a str,
}

impl Words<'_> {
    /// The next word; `None` at the end of the simple command.
    fn next(&mut self) -> Option<Option<String>> {
        let text = self.rest.trim_start_matches([' ', '\t']);
        let mut word = String::new();
        let mut decidable = true;
        let mut chars = text.char_indices().peekable();
        let mut end = text.len();
        let mut quoted = false;
        while let Some((i, c)) = chars.next() {
            match c {
                ' ' | '\t' => {
                    end = i;
                    break;
                }
                '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' if word.is_empty() && !quoted => {
                    return None;
                }
                '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => {
                    end = i;
                    break;
                }
                '#' if word.is_empty() && !quoted => return None,
                '\\' => match chars.next() {
                    Some((_, '\n')) | None => {}
                    Some((_, next)) => word.push(next),
                },
                '\'' => {
                    quoted = true;
                    loop {
                        match chars.next() {
                            Some((_, '\'')) => break,
                            Some((_, c)) => word.push(c),
                            None => return Some(None),
                        }
                    }
                }
                '"' => {
                    quoted = true;
                    loop {
                        match chars.next() {
                            Some((_, '"')) => break,
                            Some((_, '\\')) => match chars.next() {
                                Some((_, c @ ('$' | '`' | '"' | '\\'))) => word.push(c),
                                Some((_, '\n')) => {}
                                Some((_, c)) => {
                                    word.push('\\');
                                    word.push(c);
                                }
                                None => return Some(None),
                            },
                            Some((_, '$' | '`')) => decidable = false,
                            Some((_, c)) => word.push(c),
                            None => return Some(None),
                        }
                    }
                }
                '$' | '`' | '*' | '?' | '[' => decidable = false,
                '~' if word.is_empty() && !quoted => decidable = false,
                c => word.push(c),
            }
        }
        if word.is_empty() && !quoted {
            return None;
        }
        self.rest = &text[end..];
        Some(decidable.then_some(word))
    }
}

/// Why `spec`'s program cannot be started from `cwd` with `path` (the
/// `PATH` variable) to search; `None` when it can, or when that cannot be
/// told without running it.
pub(crate) fn missing_program(
    spec: &HookSpec,
    cwd: &Path,
    path: Option<&OsStr>,
) -> Option<MissingProgram> {
    let command = spec.command_line()?;
    let words = match spec.program() {
        Program::Exec(_) => vec![command.to_owned()],
        Program::Bash | Program::Sh => program_words(&with_hook_vars(spec, command, cwd))?,
        // PowerShell reads its command differently; a missing `pwsh` is
        // reported when the file loads.
        Program::PowerShell => return None,
    };
    let program = &words[0];
    let missing = |program: &str, why| {
        Some(MissingProgram {
            program: program.to_owned(),
            why,
        })
    };
    if program.contains('/') {
        let file = cwd.join(program);
        if !file.is_file() {
            return missing(program, "not found");
        }
        if !is_executable(&file) {
            return missing(program, "not executable");
        }
    } else if !on_path(program, path) {
        return missing(program, "not on PATH");
    }
    match words.get(1) {
        Some(script) if !cwd.join(script).is_file() => missing(script, "not found"),
        _ => None,
    }
}

/// Whether `spec`'s dialect answers a run whose program cannot start (the
/// shell's exit 127, or 126, with its line on stderr) with a block, asked of
/// the dialect itself: Gemini CLI reads any other exit with text as a block,
/// the others as a failure that lets the action through.
pub(crate) fn blocks_when_it_cannot_start(spec: &HookSpec, missing: &MissingProgram) -> bool {
    let code = if missing.why == "not executable" {
        126
    } else {
        127
    };
    let finished = crate::process::Finished {
        termination: crate::outcome::Termination::Exited(code),
        stdout: Vec::new(),
        stdout_truncated: false,
        stderr: format!("sh: 1: {}: {}\n", missing.program, missing.why).into_bytes(),
    };
    let probe = crate::request::HookRequest::new(spec.event(), serde_json::json!({}));
    matches!(
        crate::dialect::rules(spec).finish(Some(spec), &probe, Ok(&finished)),
        Ok((crate::outcome::Verdict::Block { .. }, _))
    )
}

/// `command` with each `$NAME`, `${NAME}` or `"$NAME"` of a variable that
/// the hook's dialect sets for it (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`,
/// a plugin's root, …) written out, as the shell will read it, so that
/// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh` is judged like the path it
/// names. A value the shell would read as more than a plain word is left as
/// the variable (and the command is then not judged).
fn with_hook_vars(spec: &HookSpec, command: &str, cwd: &Path) -> String {
    let host = crate::host::Host::default();
    let configured: std::sync::Arc<str> = command.into();
    let cwd_text = cwd.to_string_lossy();
    let parts = crate::dialect::JobParts {
        command: &configured,
        env: &[],
        current_dir: None,
        host: &host,
        cwd: &cwd_text,
    };
    let probe = crate::request::HookRequest::new(spec.event(), serde_json::json!({}));
    let job = crate::dialect::rules(spec).job(Some(spec), &parts, &probe);
    let plain = |value: &str| {
        !value.is_empty()
            && !value.contains(|c: char| c.is_whitespace() || "\"'`$\\*?[]{}()<>|&;!~#".contains(c))
    };
    let mut text = command.to_owned();
    for (name, value) in job.env.iter().filter(|(_, value)| plain(value)) {
        for form in [
            format!("\"${{{name}}}\""),
            format!("\"${name}\""),
            format!("${{{name}}}"),
        ] {
            text = text.replace(&form, value);
        }
        // `$NAME` alone, not the start of a longer name.
        let bare = format!("${name}");
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&bare) {
            let after = &rest[at + bare.len()..];
            out.push_str(&rest[..at]);
            if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                out.push_str(&bare);
            } else {
                out.push_str(value);
            }
            rest = after;
        }
        out.push_str(rest);
        text = out;
    }
    text
}

/// Whether `program` is an executable file in one of the directories of
/// `path` (a `PATH` value).
pub(crate) fn on_path(program: &str, path: Option<&OsStr>) -> bool {
    let Some(path) = path else {
        return false;
    };
    std::env::split_paths(path)
        .map(|dir: PathBuf| dir.join(program))
        .any(|file| file.is_file() && is_executable(&file))
}

#[cfg(unix)]
fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    file.metadata()
        .is_ok_and(|meta| meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(file: &Path) -> bool {
    file.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Event;

    fn words(command: &str) -> Option<Vec<String>> {
        program_words(command)
    }

    #[test]
    fn the_program_is_the_first_word_with_quotes_removed() {
        let one = |w: &str| Some(vec![w.to_owned()]);
        assert_eq!(words("./guard.sh --strict"), one("./guard.sh"));
        assert_eq!(words("'/p/my dir'/guard.sh"), one("/p/my dir/guard.sh"));
        assert_eq!(words("\"/p/a b/g\" x"), one("/p/a b/g"));
        assert_eq!(words("FOO=1 BAR='x y' /bin/g"), one("/bin/g"));
        assert_eq!(words("exec ./g; echo"), one("./g"));
        assert_eq!(words("env -i A=1 jq ."), one("jq"));
        assert_eq!(words("./g|jq"), one("./g"));
        assert_eq!(
            words("python3 -u x.py"),
            Some(vec!["python3".to_owned()]),
            "an option is not the script"
        );
        assert_eq!(
            words("bash '/h/.claude/hooks/check.sh' a"),
            Some(vec!["bash".into(), "/h/.claude/hooks/check.sh".into()])
        );
    }

    #[test]
    fn what_only_the_shell_can_resolve_is_not_judged() {
        for command in [
            "$HOOK",
            "\"$CLAUDE_PROJECT_DIR\"/g.sh",
            "`which g`",
            "./g*",
            "~/g.sh",
            "if true; then x; fi",
            "echo hi",
            "(./g)",
            "# nothing",
            "",
        ] {
            assert_eq!(words(command), None, "{command}");
        }
        assert_eq!(
            words("bash $SCRIPT"),
            Some(vec!["bash".to_owned()]),
            "an interpreter whose script is an expansion is judged alone"
        );
    }

    #[test]
    fn missing_and_unexecutable_programs_and_scripts_are_found() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("tower-hooks-programs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        let exe = dir.join("bin/ok");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let plain = dir.join("plain.sh");
        std::fs::write(&plain, "exit 0\n").unwrap();
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
        let path = dir.join("bin").into_os_string();
        let check = |command: &str| {
            let spec =
                HookSpec::command(Event::ToolExecutionStart, command).with_program(Program::Sh);
            missing_program(&spec, &dir, Some(&path)).map(|m| (m.program, m.why))
        };
        assert_eq!(check("bin/ok"), None);
        assert_eq!(check("ok --flag"), None);
        assert_eq!(check("ok plain.sh"), None, "ok is no interpreter");
        assert_eq!(check("./gone.sh"), Some(("./gone.sh".into(), "not found")));
        assert_eq!(
            check("./plain.sh"),
            Some(("./plain.sh".into(), "not executable"))
        );
        assert_eq!(
            check("jq-nowhere ."),
            Some(("jq-nowhere".into(), "not on PATH"))
        );
        let sh = |command: &str| {
            let spec = HookSpec::command(Event::ToolExecutionStart, command);
            let path = std::env::var_os("PATH");
            missing_program(&spec, &dir, path.as_deref()).map(|m| (m.program, m.why))
        };
        assert_eq!(
            sh("sh plain.sh"),
            None,
            "an interpreter needs no execute bit"
        );
        assert_eq!(sh("sh gone.sh"), Some(("gone.sh".into(), "not found")));
        let exec = HookSpec::command(
            Event::ToolExecutionStart,
            dir.join("nope").display().to_string(),
        )
        .with_program(Program::Exec(Vec::new().into()));
        assert_eq!(
            missing_program(&exec, &dir, Some(&path)).map(|m| m.why),
            Some("not found")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
