//! Paths substituted into hook commands, read back by real shells: for any
//! path (spaces, quotes, `$`, `;`, backquotes, new lines, non-ASCII) in each
//! quoting context, the command gets exactly that path as one argument, and
//! nothing else runs (no canary file appears). Claude Code's placeholders
//! under `sh -c` and `bash -c`, nanopi's `~` and `$HOME` under `bash -c`,
//! each with the variable exported as the runner exports it.

use std::path::Path;
use std::process::Command;

use proptest::prelude::*;
use tower_hooks::config::expand_home;
use tower_hooks::dialect::claude::config::Context;
use tower_hooks::process::substitute::{quoting_at_end, Form};

/// Pieces a hostile or unlucky directory name is made of.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            " ", "'", "\"", "$", ";", "`", "\n", "\\", "é", "ü", "日本", "*", "?", "[a]", "#",
            "(", ")", "{", "}", "!", "&", "|", "<", ">", "\t", "~", "-", "=", "%", "$HOME",
            "$(touch canary)", "`touch canary`", "; touch canary #", "'; touch canary; '",
            "\"; touch canary; \"", "\\\"$(touch canary)\\\"", "\nEOF\ntouch canary\n",
        ])
        .prop_map(str::to_owned),
        2 => "[a-z/._]{1,4}",
        1 => any::<char>().prop_filter("no NUL", |c| *c != '\0').prop_map(String::from),
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..6).prop_map(|pieces| format!("/{}", pieces.concat()))
}

/// `(words, what printf gets from them)` for each quoting context, with `P`
/// standing for the reference in `words` and for the path in the arguments.
const CONTEXTS: [(&str, &[&str]); 10] = [
    ("P/a", &["P/a"]),
    ("\"P/b c\"", &["P/b c"]),
    ("'P/d'", &["P/d"]),
    ("xPy", &["xPy"]),
    ("\"$(printf %s \"P/e\")\"", &["P/e"]),
    ("\"`printf %s P/f`\"", &["P/f"]),
    ("\\P", &["P"]),
    ("\"\\P\"", &["\\P"]),
    ("P \"P\" 'P'", &["P", "P", "P"]),
    ("\"$P\"", &["$P"]),
];

/// Runs `printf '%s\0' <command words>` under `shell` in a fresh directory
/// with `var` exported as `path`, and returns the arguments printf got;
/// fails when anything else ran (a file appeared in the directory).
fn printed(shell: &str, words: &str, var: &str, path: &str) -> Result<Vec<String>, TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(shell)
        .arg("-c")
        .arg(format!("printf '%s\\0' {words}"))
        .current_dir(dir.path())
        .env(var, path)
        .output()
        .expect("the shell starts");
    prop_assert!(out.status.success(), "{} -c {:?}: {:?}", shell, words, out);
    prop_assert!(
        no_canary(dir.path()),
        "{} -c {:?} ran something",
        shell,
        words
    );
    let mut args: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .map(str::to_owned)
        .collect();
    let last = args.pop();
    prop_assert_eq!(last.as_deref(), Some(""));
    Ok(args)
}

fn no_canary(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// `${CLAUDE_PROJECT_DIR}` in every quoting context, under `sh -c` and
    /// `bash -c` (`"shell": "bash"`).
    #[test]
    fn a_claude_project_directory_reaches_the_command_as_exactly_one_word(
        path in path(),
        context in 0..CONTEXTS.len(),
    ) {
        let (words, expected) = CONTEXTS[context];
        let words = words.replace('P', "${CLAUDE_PROJECT_DIR}");
        let expected: Vec<String> = expected.iter().map(|e| e.replace('P', &path)).collect();
        let ctx = Context::new(&path);
        for (form, shell) in [(Form::Sh, "sh"), (Form::Bash, "bash")] {
            let command = ctx.substitute(&words, form);
            prop_assert_eq!(
                printed(shell, &command, "CLAUDE_PROJECT_DIR", &path)?,
                expected.clone(),
                "{} -c {:?}", shell, command
            );
            // The path never opens or closes a quote.
            let plain = Context::new("/p");
            let plain = plain.substitute(&words, form);
            prop_assert_eq!(quoting_at_end(&command, form), quoting_at_end(&plain, form));
        }
        // Exec form: the argument is the text with the path in it.
        let arg = ctx.substitute("--dir=${CLAUDE_PROJECT_DIR}/x", Form::Exec);
        prop_assert_eq!(arg, format!("--dir={path}/x"));
    }

    /// nanopi's `~`, `$HOME` and `${HOME}` under `bash -c`.
    #[test]
    fn a_nanopi_home_reaches_the_command_as_exactly_one_word(
        home in path(),
        (context, form) in prop::sample::select(home_cases()),
    ) {
        let (words, expected) = CONTEXTS[context];
        let words = words.replace('P', form);
        let expected: Vec<String> = expected.iter().map(|e| e.replace('P', &home)).collect();
        let command = expand_home(&words, Some(&home));
        prop_assert_eq!(printed("bash", &command, "HOME", &home)?, expected, "bash -c {:?}", command);
    }
}

/// Each context with each spelling of the home directory, but `~` only at the
/// start of a word (the only place it expands) and `$HOME` not before a
/// letter (`$HOMEy` is another variable).
fn home_cases() -> Vec<(usize, &'static str)> {
    let mut cases = vec![(0, "~")];
    for (i, (words, _)) in CONTEXTS.iter().enumerate() {
        cases.push((i, "${HOME}"));
        if !words.contains("Py") {
            cases.push((i, "$HOME"));
        }
    }
    cases
}
