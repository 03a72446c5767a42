use super::*;

const VAR: &str = "CLAUDE_PROJECT_DIR";

fn sub(command: &str, form: Form, path: &str) -> String {
    let vars = [(VAR, path)];
    substitute(command, form, placeholders(&vars)).into_owned()
}

/// The arguments `printf '%s\0'` receives from `words` (with
/// `${CLAUDE_PROJECT_DIR}` standing for `path`) under `form`'s shell, run in a
/// fresh directory with the variable exported, as the runner does; panics
/// when anything else ran there (a file appeared).
fn shell_args(form: Form, words: &str, path: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let command = sub(&format!("printf '%s\\0' {words}"), form, path);
    let shell = if form == Form::Bash { "bash" } else { "sh" };
    let out = std::process::Command::new(shell)
        .arg("-c")
        .arg(&command)
        .current_dir(dir.path())
        .env(VAR, path)
        .output()
        .expect("the shell runs");
    assert!(out.status.success(), "{command:?}: {out:?}");
    let made: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(made.is_empty(), "{command:?} ran something: {made:?}");
    let mut args: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .map(str::to_owned)
        .collect();
    assert_eq!(args.pop().as_deref(), Some(""));
    args
}

const HOSTILE: [&str; 11] = [
    "x; touch PWNED #",
    "My Project",
    "q\"$(touch PWNED)\"",
    "it's",
    "a'b\"c$d`e\\f!g",
    "$(touch PWNED)",
    "`touch PWNED`",
    "new\nline; touch PWNED",
    "\\",
    "/é ü *?[x]",
    "",
];

#[test]
fn every_quoting_context_reads_back_the_exact_path_under_sh_and_bash() {
    let words = r#"${CLAUDE_PROJECT_DIR}/a "${CLAUDE_PROJECT_DIR}/b c" '${CLAUDE_PROJECT_DIR}/d' x${CLAUDE_PROJECT_DIR}y "$(printf %s "${CLAUDE_PROJECT_DIR}/e")" "`printf %s ${CLAUDE_PROJECT_DIR}/f`" \${CLAUDE_PROJECT_DIR} "\${CLAUDE_PROJECT_DIR}""#;
    for form in [Form::Sh, Form::Bash] {
        for path in HOSTILE {
            assert_eq!(
                shell_args(form, words, path),
                [
                    format!("{path}/a"),
                    format!("{path}/b c"),
                    format!("{path}/d"),
                    format!("x{path}y"),
                    format!("{path}/e"),
                    format!("{path}/f"),
                    path.to_owned(),
                    format!("\\{path}"),
                ],
                "{form:?}, path = {path:?}"
            );
        }
    }
}

#[test]
fn bash_ansi_c_quotes_read_back_the_exact_path() {
    for path in HOSTILE {
        assert_eq!(
            shell_args(
                Form::Bash,
                r"$'${CLAUDE_PROJECT_DIR}\tz' $'\${CLAUDE_PROJECT_DIR}'",
                path
            ),
            [format!("{path}\tz"), format!("\\{path}")],
            "path = {path:?}"
        );
    }
}

#[test]
fn an_escaped_reference_in_double_quotes_cannot_unescape_the_path() {
    // Pasted as text, `"\${X}"` with X = `$(touch PWNED)` gave `"\\$(touch PWNED)"`.
    assert_eq!(
        sub(r#""\${CLAUDE_PROJECT_DIR}""#, Form::Sh, "$(touch PWNED)"),
        "\"\\\\\\$(touch PWNED)\""
    );
}

#[test]
fn a_plain_path_goes_in_as_text_everywhere() {
    let command = "${CLAUDE_PROJECT_DIR}/a '${CLAUDE_PROJECT_DIR}' # ${CLAUDE_PROJECT_DIR}\ncat <<E\n${CLAUDE_PROJECT_DIR}\nE";
    assert_eq!(
        sub(command, Form::Sh, "/p/a-b_c.9"),
        command.replace("${CLAUDE_PROJECT_DIR}", "/p/a-b_c.9")
    );
}

#[test]
fn exec_form_takes_the_path_as_it_is() {
    assert_eq!(
        sub("--dir=${CLAUDE_PROJECT_DIR}/x", Form::Exec, "a b'\"$(x)"),
        "--dir=a b'\"$(x)/x"
    );
}

#[test]
fn text_without_a_reference_is_borrowed() {
    let vars = [(VAR, "/a b")];
    assert!(matches!(
        substitute(
            "echo $CLAUDE_PROJECT_DIR ${CLAUDE_PROJECT_DIRX}",
            Form::Sh,
            placeholders(&vars)
        ),
        Cow::Borrowed(_)
    ));
}

#[test]
fn a_path_with_a_new_line_stays_out_of_a_comment() {
    assert_eq!(
        sub(
            "true # ${CLAUDE_PROJECT_DIR}\n${CLAUDE_PROJECT_DIR}",
            Form::Sh,
            "a\nb"
        ),
        "true # ${CLAUDE_PROJECT_DIR}\n'a\nb'"
    );
    assert_eq!(
        sub("true # ${CLAUDE_PROJECT_DIR}", Form::Sh, "a b"),
        "true # a b"
    );
}

#[test]
fn what_the_scanner_cannot_follow_is_left_to_the_shell() {
    for command in [
        "cat <<EOF\n${CLAUDE_PROJECT_DIR}\nEOF",
        "echo $((1 << 2)) ${CLAUDE_PROJECT_DIR}",
        "echo $'a' ${CLAUDE_PROJECT_DIR}",
        "echo \"${x:-\"a\"}\" ${CLAUDE_PROJECT_DIR}",
        "x=$(case a in a) echo ;; esac) ${CLAUDE_PROJECT_DIR}",
        "echo `echo \"`\" ${CLAUDE_PROJECT_DIR}",
    ] {
        assert_eq!(sub(command, Form::Sh, "a b"), command, "{command:?}");
    }
    // Before the point where it stops, paths go in.
    assert_eq!(
        sub(
            "${CLAUDE_PROJECT_DIR} <<E\n${CLAUDE_PROJECT_DIR}\nE",
            Form::Sh,
            "a b"
        ),
        "'a b' <<E\n${CLAUDE_PROJECT_DIR}\nE"
    );
}

#[test]
fn a_here_document_left_to_the_shell_still_gets_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = "new\nEOF\ntouch PWNED\n";
    let command = sub("cat <<EOF\n${CLAUDE_PROJECT_DIR}\nEOF", Form::Sh, path);
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(dir.path())
        .env(VAR, path)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{path}\n"));
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

#[test]
fn bash_reads_here_strings_and_ansi_c_quotes() {
    assert_eq!(
        sub(
            "cat <<< ${CLAUDE_PROJECT_DIR} $'${CLAUDE_PROJECT_DIR}'",
            Form::Bash,
            "a'b"
        ),
        r"cat <<< 'a'\''b' $'a\'b'"
    );
}

#[test]
fn a_path_never_changes_the_quoting_after_it() {
    let templates = [
        "a ${CLAUDE_PROJECT_DIR}",
        "a \"${CLAUDE_PROJECT_DIR}",
        "a '${CLAUDE_PROJECT_DIR}",
        "a \"$(b ${CLAUDE_PROJECT_DIR}",
        "a `b \"${CLAUDE_PROJECT_DIR}",
        "a \"`b ${CLAUDE_PROJECT_DIR}",
        "a \\${CLAUDE_PROJECT_DIR}",
        "a # ${CLAUDE_PROJECT_DIR}",
    ];
    for template in templates {
        for form in [Form::Sh, Form::Bash] {
            let plain = quoting_at_end(&sub(template, form, "/p"), form);
            assert!(plain.is_some(), "{template:?}");
            for path in HOSTILE {
                assert_eq!(
                    quoting_at_end(&sub(template, form, path), form),
                    plain,
                    "{template:?} with {path:?}"
                );
            }
        }
    }
}

#[test]
fn quoting_at_end_follows_each_construct() {
    use Quoting::*;
    let at = |c: &str| quoting_at_end(c, Form::Bash);
    assert_eq!(at("a"), Some(vec![Unquoted]));
    assert_eq!(at("a \"b"), Some(vec![Unquoted, Double]));
    assert_eq!(at("a $'b\\'"), Some(vec![Unquoted, AnsiC]));
    assert_eq!(at("$(a (b)"), Some(vec![Unquoted, Substitution(0)]));
    assert_eq!(at("$(a (b"), Some(vec![Unquoted, Substitution(1)]));
    assert_eq!(at("`a"), Some(vec![Unquoted, Backquote]));
    assert_eq!(at("# x '"), Some(vec![Unquoted, Comment]));
    assert_eq!(at("# x '\n'"), Some(vec![Unquoted, Single]));
    assert_eq!(at("${a} ${#} ${a:-x}"), None);
    assert_eq!(quoting_at_end("a", Form::Exec), None);
}

#[test]
fn a_dollar_before_a_reference_cannot_start_an_expansion_with_the_path() {
    assert_eq!(
        sub("a$${CLAUDE_PROJECT_DIR}", Form::Bash, "'x"),
        r#"a$""''\''x'"#
    );
    assert_eq!(
        sub("\"$${CLAUDE_PROJECT_DIR}\"", Form::Sh, "(x)"),
        r#""$""(x)""#
    );
    for form in [Form::Sh, Form::Bash] {
        for path in ["(touch PWNED)", "{x}", "\\';touch PWNED;'", "x y"] {
            let args = shell_args(
                form,
                "\"$${CLAUDE_PROJECT_DIR}\" $${CLAUDE_PROJECT_DIR}",
                path,
            );
            assert_eq!(args[0], format!("${path}"), "{form:?} {path:?}");
            // bash reads the unquoted `$""` as an empty translated string.
            let bare = match form {
                Form::Bash => path.to_owned(),
                _ => format!("${path}"),
            };
            assert_eq!(args[1], bare, "{form:?} {path:?}");
        }
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Command text made of the pieces the scanner acts on.
    fn command() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "${CLAUDE_PROJECT_DIR}",
            "${CLAUDE_PROJECT_DIR}",
            "$HOME",
            "~",
            " ",
            "\"",
            "'",
            "`",
            "\\",
            "$",
            "$(",
            "(",
            ")",
            "${",
            "}",
            "<<",
            "<",
            "#",
            "\n",
            ";",
            "case",
            "a",
            "é",
        ]);
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    fn path() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            " ", "'", "\"", "`", "\\", "$", "(", ")", "{", "}", "#", "\n", ";", "<<", "a", "/",
            "é", "case",
        ]);
        prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// What the `substitution` fuzz target checks: a path never changes
        /// the quoting context after it. (Where the scanner cannot follow
        /// the command itself, a plain path can still go in as text, so only
        /// the contexts both outputs have are compared.)
        #[test]
        fn a_path_ends_where_a_plain_path_ends(command in command(), path in path()) {
            for form in [Form::Sh, Form::Bash] {
                let with_path = quoting_at_end(&sub(&command, form, &path), form);
                let plain = quoting_at_end(&sub(&command, form, "/p"), form);
                if quoting_at_end(&command, form).is_some() || (with_path.is_some() && plain.is_some()) {
                    prop_assert_eq!(
                        &with_path, &plain,
                        "{:?}: {:?}", form, sub(&command, form, &path)
                    );
                }
            }
            let home = |home| quoting_at_end(&crate::config::expand_home(&command, Some(home)), Form::Bash);
            if quoting_at_end(&command, Form::Bash).is_some() {
                prop_assert_eq!(home(&path), home("/p"));
            }
            prop_assert_eq!(sub(&command, Form::Exec, &path), command.replace("${CLAUDE_PROJECT_DIR}", &path));
        }
    }
}
