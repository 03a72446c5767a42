//! Shell `if` patterns: a command line split into simple commands, each
//! matched word by word.
//!
//! The rule decides only what it can read. Whatever makes the shell run code
//! that the text does not show as a simple command (a parameter expansion
//! with an operator this reader does not know, arithmetic on names, `eval`,
//! `function`, `coproc`, `trap`, a here-document it cannot close, …) makes the
//! rule match, so the hook runs. Reading the line is `split`'s; this file
//! matches what it read.

use super::glob;
use super::split::{split_command, Simple, Word};

// ---- shell commands --------------------------------------------------------

/// A shell `if` pattern against a command line.
pub(super) fn shell_matches(pattern: &str, command: &str) -> bool {
    let pattern = words_of_pattern(pattern);
    let Ok(commands) = split_command(command) else {
        return true;
    };
    commands
        .iter()
        .any(|simple| simple_matches(&pattern, simple))
}

/// One simple command against the normalised pattern: the command as
/// written, then again after each wrapper that runs the rest in this shell
/// (`command`, `exec`, `builtin`, `time`).
fn simple_matches(pattern: &str, simple: &Simple) -> bool {
    // PS4 is expanded, command substitutions included, at each traced line.
    if simple.words.iter().any(|w| w.text.contains("PS4")) {
        return true;
    }
    let Some(mut words) = simple.meaningful_words() else {
        return false;
    };
    loop {
        if runs_hidden_code(words) || words_match(pattern, words) {
            return true;
        }
        match strip_wrapper(words) {
            Some(rest) if !rest.is_empty() => words = rest,
            _ => return false,
        }
    }
}

/// Programs that run a string as shell code, define code to run later, or
/// evaluate names as arithmetic (where `a[$(…)]` runs a command): a rule
/// cannot read what they run.
const HIDDEN_CODE: [&str; 13] = [
    "eval",
    "function",
    "coproc",
    "trap",
    "let",
    "declare",
    "typeset",
    "local",
    "alias",
    "mapfile",
    "readarray",
    "hash",
    "[[",
];

/// Whether the simple command `words` (from its program on) runs code that
/// its words do not show.
fn runs_hidden_code(words: &[Word]) -> bool {
    let program = words[0].value.as_str();
    let args = &words[1..];
    if HIDDEN_CODE.contains(&program) {
        return true;
    }
    match program {
        // `printf -v NAME` and `test -v NAME` read NAME as a variable, and an
        // array subscript in it as arithmetic.
        "printf" | "test" | "[" => args.iter().any(|w| matches!(w.value.as_str(), "-v" | "-R")),
        // The names `read` and `getopts` assign to, likewise.
        "read" | "getopts" => args.iter().any(|w| w.dynamic || w.value.contains('[')),
        _ => false,
    }
}

/// The words after a wrapper that runs its arguments as a command of this
/// shell, with the wrapper's options skipped; `None` when `words` does not
/// start with one. Other programs that run a command (`env`, `sudo`,
/// `nohup`, `xargs`, `sh -c`) are programs of their own: prefix rules name
/// them.
fn strip_wrapper(words: &[Word]) -> Option<&[Word]> {
    let program = words[0].value.as_str();
    let mut i = 1;
    match program {
        // The `time` keyword takes `-p` alone: `time -rf` runs `-rf`.
        "time" => {
            while words.get(i).is_some_and(|w| w.value == "-p") {
                i += 1;
            }
            if words.get(i).is_some_and(|w| w.value == "--") {
                i += 1;
            }
        }
        "command" | "builtin" => {
            while words.get(i).is_some_and(|w| w.value.starts_with('-')) {
                let done = words[i].value == "--";
                i += 1;
                if done {
                    break;
                }
            }
        }
        "exec" => {
            while let Some(w) = words.get(i).filter(|w| w.value.starts_with('-')) {
                i += 1;
                if w.value == "--" {
                    break;
                }
                // `-a NAME` sets the program's name.
                if w.value.contains('a') {
                    i += 1;
                }
            }
        }
        _ => return None,
    }
    Some(words.get(i..).unwrap_or(&[]))
}

/// Whether a simple command's words, from the program on, match the pattern.
fn words_match(pattern: &str, words: &[Word]) -> bool {
    // A program named by an expansion or a glob is not known until the
    // command runs.
    if words[0].dynamic || words[0].glob {
        return true;
    }
    let first_word = pattern.split(' ').next().unwrap_or("");
    let names_more = pattern.contains(' ');
    let join = |part: fn(&Word) -> &str| words.iter().map(part).collect::<Vec<_>>().join(" ");
    // `/bin/rm` runs `rm`: the program is tested by its file name too.
    let base = words[0]
        .value
        .rsplit_once('/')
        .map(|(_, base)| base)
        .filter(|base| !base.is_empty());
    let mut texts = vec![join(|w| &w.value), join(|w| &w.text)];
    if let Some(base) = base {
        let rest = words[1..].iter().map(|w| w.value.as_str());
        texts.push(
            std::iter::once(base)
                .chain(rest)
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    // The words as the shell reads them, and as written (a pattern may hold
    // quotes too).
    for text in &texts {
        if glob(pattern, text) {
            return true;
        }
        if let Some(prefix) = pattern.strip_suffix(" *") {
            if glob(prefix, text) {
                return true;
            }
        }
    }
    // What an expansion runs is not known until it runs: a rule that names
    // more than the program matches once the program does.
    names_more
        && words.iter().any(|w| w.dynamic || w.glob)
        && (glob(first_word, &words[0].value) || base.is_some_and(|b| glob(first_word, b)))
}

/// The pattern with a trailing `:*` read as ` *` and runs of whitespace as one
/// space.
pub(super) fn words_of_pattern(pattern: &str) -> String {
    let mut normal = pattern.split_whitespace().collect::<Vec<_>>().join(" ");
    if normal.ends_with(":*") {
        normal.truncate(normal.len() - 2);
        normal.push_str(" *");
    }
    normal
}
