//! Commands that hand a path to a second evaluation.
//!
//! [`substitute`](super::substitute) makes a path one word for the shell that
//! runs the command. A command can still pass that word to something that
//! reads it as code once more: the script of `sh -c "${CLAUDE_PROJECT_DIR}/x.sh"`,
//! the words of `eval`, the program of `python3 -c`. The inner reader gets the
//! path as it is, so a directory named `$(touch pwned)` or `x; rm -rf ~` runs
//! there. No quoting done for the outer shell can prevent that: the fix is in
//! the command (pass the path as an argument, `sh -c '"$1"/x.sh' sh
//! "${CLAUDE_PROJECT_DIR}"`). [`evaluated_twice`] finds such commands so that
//! the loaders can warn about them.
//!
//! The reading is a sketch of the shell's: words and simple commands are split
//! outside quotes, `$(…)` and backquotes are followed; a here-document, a
//! pipe into a shell (`echo … | sh`) and commands inside `$(…)` are not
//! looked into.

/// A reference a command hands to a second evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reevaluated {
    /// The reference as written: `${CLAUDE_PROJECT_DIR}`, `$GEMINI_SESSION_ID`.
    pub(crate) reference: String,
    /// What reads it again: `sh -c`, `eval`.
    pub(crate) evaluator: String,
}

/// How a dialect's references are written, and which form it substitutes
/// itself (the other is the shell's own variable, from the environment).
#[derive(Debug, Clone, Copy)]
pub(crate) struct References<'n> {
    /// The variable names: `CLAUDE_PROJECT_DIR`.
    pub(crate) names: &'n [&'n str],
    /// `true`: the dialect replaces `$NAME` (Gemini CLI); `false`: it
    /// replaces `${NAME}` (Claude Code).
    pub(crate) bare_substituted: bool,
}

impl References<'_> {
    /// The reference starting at byte `i` of `text`, and whether the dialect
    /// substitutes it (rather than the shell expanding it).
    fn at(&self, text: &str, i: usize) -> Option<(usize, bool)> {
        let rest = text.as_bytes().get(i..)?.strip_prefix(b"$")?;
        self.names.iter().find_map(|name| {
            if let Some(after) = rest.strip_prefix(b"{") {
                let after = after.strip_prefix(name.as_bytes())?;
                return after
                    .starts_with(b"}")
                    .then_some((name.len() + 3, !self.bare_substituted));
            }
            let after = rest.strip_prefix(name.as_bytes())?;
            let ends = after
                .first()
                .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
            ends.then_some((name.len() + 1, self.bare_substituted))
        })
    }
}

/// The first reference of `refs` in `command` (a command for `sh -c` or
/// `bash -c`) that a second evaluation reads as code. A reference the
/// dialect substitutes counts wherever it is in the inner code; one the outer
/// shell expands counts unless it is in single quotes (then the inner shell
/// expands it, once).
pub(crate) fn evaluated_twice(command: &str, refs: References<'_>) -> Option<Reevaluated> {
    let lexed = lex(command);
    for words in &lexed.commands {
        let literals: Vec<&str> = words.iter().map(|w| w.literal.as_str()).collect();
        if let Some((evaluator, code)) = code_words(&literals) {
            for word in &words[code] {
                for i in word.start..word.end {
                    let Some((len, substituted)) = refs.at(command, i) else {
                        continue;
                    };
                    if substituted || !lexed.single_quoted[i] {
                        return Some(Reevaluated {
                            reference: command[i..i + len].to_owned(),
                            evaluator,
                        });
                    }
                }
            }
        }
    }
    None
}

/// [`evaluated_twice`] for exec form: `program` started without a shell with
/// `args`, each of which the dialect substitutes as it is.
pub(crate) fn evaluated_twice_exec(
    program: &str,
    args: &[String],
    refs: References<'_>,
) -> Option<Reevaluated> {
    let literals: Vec<&str> = std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .collect();
    if let Some((evaluator, code)) = code_words(&literals) {
        for word in &literals[code] {
            for i in 0..word.len() {
                // Only what the dialect puts in: no shell expands the rest
                // before the evaluator reads it.
                if let Some((len, true)) = refs.at(word, i) {
                    return Some(Reevaluated {
                        reference: word[i..i + len].to_owned(),
                        evaluator,
                    });
                }
            }
        }
    }
    None
}

/// Shells whose `-c` takes a script.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish",
];

/// Interpreters whose option takes a program, with the option's letters and
/// long forms.
const INTERPRETERS: &[(&str, &[char], &[&str])] = &[
    ("python", &['c'], &[]),
    ("python3", &['c'], &[]),
    ("python2", &['c'], &[]),
    ("node", &['e', 'p'], &["--eval", "--print"]),
    ("perl", &['e', 'E'], &[]),
    ("ruby", &['e'], &[]),
];

/// Words that run the command after them (and their options): `env`,
/// `sudo`, `xargs`, …, and the reserved words a command can follow.
const WRAPPERS: &[&str] = &[
    "env", "sudo", "doas", "exec", "command", "builtin", "nohup", "time", "nice", "timeout",
    "stdbuf", "setsid", "xargs", "busybox", "if", "then", "else", "elif", "do", "while", "until",
    "!", "{",
];

/// Whether `word` is an assignment, `NAME=value`.
fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| super::is_var_name(name))
}

/// The evaluator of a simple command `words`, if its program is one: what
/// it is called, and the range of words it reads as code.
fn code_words(words: &[&str]) -> Option<(String, std::ops::Range<usize>)> {
    let base = |word: &str| word.rsplit('/').next().unwrap_or(word).to_owned();
    // The program: past assignments, and past wrappers with their options
    // and numbers (`timeout 5`, `nice -n 5`).
    let mut k = 0;
    while let Some(word) = words.get(k) {
        if is_assignment(word) {
            k += 1;
            continue;
        }
        if !WRAPPERS.contains(&base(word).as_str()) {
            break;
        }
        k += 1;
        while words.get(k).is_some_and(|w| {
            w.starts_with('-')
                || is_assignment(w)
                || w.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        }) {
            k += 1;
        }
    }
    let name = base(words.get(k)?);
    if name == "eval" {
        return Some(("eval".to_owned(), k + 1..words.len()));
    }
    let (letters, long): (&[char], &[&str]) = if SHELLS.contains(&name.as_str()) {
        (&['c'], &[])
    } else {
        let (_, letters, long) = INTERPRETERS.iter().find(|(n, ..)| *n == name)?;
        (letters, long)
    };
    let mut j = k + 1;
    while let Some(option) = words.get(j) {
        let rest = option
            .strip_prefix('-')
            .or_else(|| option.strip_prefix('+'))?;
        if rest.is_empty() || *option == "--" {
            return None;
        }
        j += 1;
        if long.contains(option) || (!rest.starts_with('-') && rest.contains(letters)) {
            return (j < words.len()).then(|| (format!("{name} {option}"), j..j + 1));
        }
        // `-o pipefail`, `+O extglob`: the option's value is no script.
        if matches!(*option, "-o" | "+o" | "-O" | "+O") {
            j += 1;
        }
    }
    None
}

/// A word of a command: where it is, and its text with quotes taken off
/// (roughly: the inside of `$(…)` is dropped).
#[derive(Debug)]
struct Word {
    start: usize,
    end: usize,
    literal: String,
}

/// A command split into simple commands of words, and which of its bytes are
/// inside single quotes.
#[derive(Debug)]
struct Lexed {
    commands: Vec<Vec<Word>>,
    single_quoted: Vec<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Single,
    Double,
    Substitution(u32),
    Backquote,
}

fn lex(command: &str) -> Lexed {
    let bytes = command.as_bytes();
    let mut single_quoted = vec![false; bytes.len()];
    let mut commands: Vec<Vec<Word>> = vec![Vec::new()];
    let mut frames: Vec<Frame> = Vec::new();
    let mut word: Option<(usize, Vec<u8>)> = None;
    let end_word = |word: &mut Option<(usize, Vec<u8>)>, commands: &mut Vec<Vec<Word>>, end| {
        if let Some((start, literal)) = word.take() {
            let literal = String::from_utf8_lossy(&literal).into_owned();
            commands
                .last_mut()
                .expect("there is always a command")
                .push(Word {
                    start,
                    end,
                    literal,
                });
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        match frames.last().copied() {
            None => match b {
                b' ' | b'\t' => end_word(&mut word, &mut commands, i),
                b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' => {
                    end_word(&mut word, &mut commands, i);
                    if !matches!(b, b'<' | b'>') {
                        commands.push(Vec::new());
                    }
                }
                b'#' if word.is_none() => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                _ => {
                    let (_, literal) = word.get_or_insert_with(|| (i, Vec::new()));
                    match b {
                        b'\\' => {
                            if let Some(n) = next {
                                literal.push(n);
                                i += 1;
                            }
                        }
                        b'\'' => frames.push(Frame::Single),
                        b'"' => frames.push(Frame::Double),
                        b'`' => frames.push(Frame::Backquote),
                        b'$' if next == Some(b'(') => {
                            frames.push(Frame::Substitution(1));
                            i += 1;
                        }
                        b'$' if next == Some(b'\'') => {
                            frames.push(Frame::Single);
                            i += 1;
                        }
                        _ => literal.push(b),
                    }
                }
            },
            Some(frame) => {
                if framed_byte(
                    frame,
                    &mut frames,
                    &mut word,
                    &mut single_quoted[i],
                    b,
                    next,
                ) {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    end_word(&mut word, &mut commands, bytes.len());
    Lexed {
        commands,
        single_quoted,
    }
}

/// Reads byte `b` inside `frame`, the innermost quotes, `$(…)` or
/// backquotes: the frames it opens or closes, and what it adds to the word's
/// text (`quoted`: whether it is inside single quotes). Whether it takes the
/// next byte too (an escape, the `(` of `$(`).
fn framed_byte(
    frame: Frame,
    frames: &mut Vec<Frame>,
    word: &mut Option<(usize, Vec<u8>)>,
    quoted: &mut bool,
    b: u8,
    next: Option<u8>,
) -> bool {
    match frame {
        Frame::Single => {
            if b == b'\'' {
                frames.pop();
            } else {
                *quoted = true;
                push_literal(word, frames, b);
            }
        }
        Frame::Double => match b {
            b'\\' => {
                if let Some(n) = next {
                    push_literal(word, frames, n);
                    return true;
                }
            }
            b'"' => {
                frames.pop();
            }
            b'`' => frames.push(Frame::Backquote),
            b'$' if next == Some(b'(') => {
                frames.push(Frame::Substitution(1));
                return true;
            }
            _ => push_literal(word, frames, b),
        },
        Frame::Substitution(depth) => match b {
            b'\\' => return true,
            b'\'' => frames.push(Frame::Single),
            b'"' => frames.push(Frame::Double),
            b'`' => frames.push(Frame::Backquote),
            b'(' => *frames.last_mut().expect("a frame") = Frame::Substitution(depth + 1),
            b')' if depth == 1 => {
                frames.pop();
            }
            b')' => *frames.last_mut().expect("a frame") = Frame::Substitution(depth - 1),
            _ => {}
        },
        Frame::Backquote => match b {
            b'\\' => return true,
            b'`' => {
                frames.pop();
            }
            _ => {}
        },
    }
    false
}

/// Adds `b` to the word's text, unless it is inside a `$(…)` or backquotes.
fn push_literal(word: &mut Option<(usize, Vec<u8>)>, frames: &[Frame], b: u8) {
    let inside_code = frames
        .iter()
        .any(|f| matches!(f, Frame::Substitution(_) | Frame::Backquote));
    if let Some((_, literal)) = word {
        if !inside_code {
            literal.push(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: References<'static> = References {
        names: &["CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT"],
        bare_substituted: false,
    };
    const GEMINI: References<'static> = References {
        names: &["GEMINI_PROJECT_DIR", "GEMINI_SESSION_ID"],
        bare_substituted: true,
    };

    fn found(command: &str, refs: References<'_>) -> Option<(String, String)> {
        evaluated_twice(command, refs).map(|r| (r.reference, r.evaluator))
    }

    #[test]
    fn a_path_in_the_script_of_a_second_shell_is_found() {
        let cases = [
            (r#"sh -c "${CLAUDE_PROJECT_DIR}/x.sh""#, "sh -c"),
            (r#"bash -lc '${CLAUDE_PROJECT_DIR}/x.sh'"#, "bash -lc"),
            (
                r#"cd /tmp && /bin/zsh -ec "cd ${CLAUDE_PROJECT_DIR}; make""#,
                "zsh -ec",
            ),
            (
                r#"env -i bash -o pipefail -c "${CLAUDE_PROJECT_DIR}/x""#,
                "bash -c",
            ),
            (r#"eval "${CLAUDE_PROJECT_DIR}/x.sh""#, "eval"),
            (r#"eval echo ${CLAUDE_PROJECT_DIR}"#, "eval"),
            (
                r#"python3 -c "open('${CLAUDE_PROJECT_DIR}/f')""#,
                "python3 -c",
            ),
            (
                r#"X=1 sudo -E timeout 5 bash -c "${CLAUDE_PROJECT_DIR}/x""#,
                "bash -c",
            ),
            (
                r#"if sh -c "test -d ${CLAUDE_PROJECT_DIR}"; then :; fi"#,
                "sh -c",
            ),
            (
                r#"echo "$(bash -c x)" | xargs sh -c "${CLAUDE_PROJECT_DIR}/x""#,
                "sh -c",
            ),
            // The shell's own variable, expanded by the outer shell first.
            (r#"sh -c "$CLAUDE_PROJECT_DIR/x.sh""#, "sh -c"),
        ];
        for (command, evaluator) in cases {
            let (_, by) = found(command, CLAUDE).unwrap_or_else(|| panic!("{command}"));
            assert_eq!(by, evaluator, "{command}");
        }
        let (reference, by) = found("eval 'echo $GEMINI_SESSION_ID'", GEMINI).unwrap();
        assert_eq!(
            (reference.as_str(), by.as_str()),
            ("$GEMINI_SESSION_ID", "eval")
        );
    }

    #[test]
    fn a_path_passed_as_an_argument_or_read_once_is_not() {
        for command in [
            r#"${CLAUDE_PROJECT_DIR}/x.sh"#,
            r#"sh -c '"$1"/x.sh' sh "${CLAUDE_PROJECT_DIR}""#,
            r#"sh "${CLAUDE_PROJECT_DIR}/x.sh""#,
            // Single-quoted, the variable is the inner shell's to expand.
            r#"sh -c 'cd "$CLAUDE_PROJECT_DIR" && make'"#,
            r#"bash -c 'true'; cat "${CLAUDE_PROJECT_DIR}/f""#,
            r#"echo "eval" "${CLAUDE_PROJECT_DIR}" # sh -c ${CLAUDE_PROJECT_DIR}"#,
            r#"grep -c x "${CLAUDE_PROJECT_DIR}/f""#,
            r#"printf '%s' sh -c "${CLAUDE_PROJECT_DIR}""#,
            r#"sh -c "$CLAUDE_PROJECT_DIRX""#,
        ] {
            assert_eq!(found(command, CLAUDE), None, "{command}");
        }
        // Gemini CLI leaves `${NAME}` to the shell: in single quotes, the
        // inner one expands it once.
        assert_eq!(found("eval 'echo ${GEMINI_SESSION_ID}'", GEMINI), None);
    }

    #[test]
    fn exec_form_arguments_are_read_too() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let r = evaluated_twice_exec("/bin/sh", &args(&["-c", "${CLAUDE_PROJECT_DIR}/x"]), CLAUDE)
            .unwrap();
        assert_eq!(r.evaluator, "sh -c");
        let safe = args(&["-c", "\"$1\"/x", "sh", "${CLAUDE_PROJECT_DIR}"]);
        assert_eq!(evaluated_twice_exec("sh", &safe, CLAUDE), None);
    }
}
