//! Shell `if` patterns: a command line split into simple commands, each
//! matched word by word.

use super::glob;

// ---- shell commands --------------------------------------------------------

/// A shell `if` pattern against a command line.
pub(super) fn shell_matches(pattern: &str, command: &str) -> bool {
    let pattern = words_of_pattern(pattern);
    let Ok(commands) = split_command(command) else {
        return true;
    };
    let first_word = pattern.split(' ').next().unwrap_or("");
    let names_more = pattern.contains(' ');
    commands.iter().any(|simple| {
        let Some(words) = simple.meaningful_words() else {
            return false;
        };
        // A program named by an expansion or a glob is not known until the
        // command runs.
        if words[0].dynamic || words[0].glob {
            return true;
        }
        let join = |part: fn(&Word) -> &str| words.iter().map(part).collect::<Vec<_>>().join(" ");
        // The words as the shell reads them, and as written (a pattern may
        // hold quotes too).
        for text in [join(|w| &w.value), join(|w| &w.text)] {
            if glob(&pattern, &text) {
                return true;
            }
            if let Some(prefix) = pattern.strip_suffix(" *") {
                if glob(prefix, &text) {
                    return true;
                }
            }
        }
        // What an expansion runs is not known until it runs: a rule that names
        // more than the program matches once the program does.
        names_more && words.iter().any(|w| w.dynamic || w.glob) && glob(first_word, &words[0].value)
    })
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

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    /// As written, quotes kept.
    text: String,
    /// As the shell reads it: quotes and backslashes removed (`'rm'`, `\rm`,
    /// `r""m` are `rm`); an expansion stays as written.
    value: String,
    /// Holds an expansion outside single quotes: `$x`, `${x}`, `$(…)`,
    /// backquotes, or a `$'…'` / `$"…"` that shells read differently.
    dynamic: bool,
    /// Holds an unquoted glob character (`*`, `?`, `[`).
    glob: bool,
}

/// One simple command: its words, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Simple {
    words: Vec<Word>,
}

/// Shell words that start a command without being it.
const KEYWORDS: [&str; 16] = [
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time",
    "case", "esac", "in",
];

impl Simple {
    /// The words from the program on: leading `VAR=value` assignments and shell
    /// keywords dropped. `None` when nothing is left.
    fn meaningful_words(&self) -> Option<&[Word]> {
        let start = self
            .words
            .iter()
            .position(|w| !is_assignment(&w.text) && !KEYWORDS.contains(&w.text.as_str()))?;
        Some(&self.words[start..])
    }
}

/// `NAME=…` with a shell name before the `=`.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A command line that cannot be split: an unclosed quote, `$(`, `${` or
/// backquote, a `)` without its `(`, a trailing backslash, or nesting too deep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unsplittable;

/// How deep `$(…)`, `(…)` and backquotes may nest before the line counts as
/// unsplittable.
const MAX_DEPTH: usize = 32;

/// Splits a command line into its simple commands, the ones inside
/// substitutions and subshells included (after the command that holds them).
fn split_command(command: &str) -> Result<Vec<Simple>, Unsplittable> {
    let chars: Vec<char> = command.chars().collect();
    let mut splitter = Splitter {
        chars: &chars,
        i: 0,
        out: Vec::new(),
    };
    splitter.list(End::Eof, 0)?;
    Ok(splitter.out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    Paren,
    Backquote,
}

struct Splitter<'a> {
    chars: &'a [char],
    i: usize,
    out: Vec<Simple>,
}

/// The simple command being read, and its word.
#[derive(Default)]
struct Current {
    simple: Simple,
    word: String,
    value: String,
    dynamic: bool,
    glob: bool,
    in_word: bool,
}

impl Current {
    fn end_word(&mut self) {
        if self.in_word {
            self.simple.words.push(Word {
                text: std::mem::take(&mut self.word),
                value: std::mem::take(&mut self.value),
                dynamic: self.dynamic,
                glob: self.glob,
            });
        }
        self.in_word = false;
        self.dynamic = false;
        self.glob = false;
    }

    fn end_command(&mut self, out: &mut Vec<Simple>) {
        self.end_word();
        let simple = std::mem::take(&mut self.simple);
        if !simple.words.is_empty() {
            out.push(simple);
        }
    }

    /// Adds `c` to the word as written.
    fn push(&mut self, c: char) {
        self.word.push(c);
        self.in_word = true;
    }

    /// Adds `c` to the word as the shell reads it.
    fn lit(&mut self, c: char) {
        self.value.push(c);
    }

    /// Adds an unquoted `c`, written and read alike.
    fn unquoted(&mut self, c: char) {
        self.push(c);
        self.lit(c);
        self.glob |= matches!(c, '*' | '?' | '[');
    }
}

impl Splitter<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    /// Reads simple commands until `end`, pushing each to `out`.
    fn list(&mut self, end: End, depth: usize) -> Result<(), Unsplittable> {
        if depth > MAX_DEPTH {
            return Err(Unsplittable);
        }
        let mut cur = Current::default();
        // Commands found inside this command's substitutions, pushed after it.
        let mut inner: Vec<Simple> = Vec::new();
        loop {
            let Some(c) = self.peek(0) else {
                if end != End::Eof {
                    return Err(Unsplittable);
                }
                cur.end_command(&mut self.out);
                self.out.append(&mut inner);
                return Ok(());
            };
            self.i += 1;
            match c {
                ' ' | '\t' | '\r' => cur.end_word(),
                '\n' | ';' => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                }
                '#' if !cur.in_word => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\\' => match self.peek(0) {
                    None => return Err(Unsplittable),
                    Some('\n') => self.i += 1,
                    Some(next) => {
                        cur.push('\\');
                        cur.push(next);
                        cur.lit(next);
                        self.i += 1;
                    }
                },
                '\'' => {
                    cur.push('\'');
                    loop {
                        let Some(q) = self.peek(0) else {
                            return Err(Unsplittable);
                        };
                        self.i += 1;
                        cur.push(q);
                        if q == '\'' {
                            break;
                        }
                        cur.lit(q);
                    }
                }
                '"' => {
                    cur.push('"');
                    self.double_quoted(&mut cur, &mut inner, depth)?;
                }
                '`' if end == End::Backquote => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    return Ok(());
                }
                '`' => self.backquoted(&mut cur, &mut inner, depth)?,
                '$' => self.dollar(&mut cur, &mut inner, depth)?,
                '&' if cur.word.ends_with(['>', '<']) || self.peek(0) == Some('>') => {
                    cur.unquoted('&');
                }
                '&' | '|' => {
                    if self.peek(0) == Some(c) || (c == '|' && self.peek(0) == Some('&')) {
                        self.i += 1;
                    }
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                }
                '(' if !cur.in_word => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    self.list(End::Paren, depth + 1)?;
                }
                ')' if end == End::Paren => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    return Ok(());
                }
                ')' => return Err(Unsplittable),
                c => cur.unquoted(c),
            }
        }
    }

    /// After an opening `"`: up to and including the closing one.
    fn double_quoted(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unsplittable> {
        loop {
            let Some(c) = self.peek(0) else {
                return Err(Unsplittable);
            };
            self.i += 1;
            match c {
                '"' => {
                    cur.push('"');
                    return Ok(());
                }
                '\\' => {
                    let Some(next) = self.peek(0) else {
                        return Err(Unsplittable);
                    };
                    self.i += 1;
                    cur.push('\\');
                    cur.push(next);
                    // Only these lose their backslash in double quotes.
                    match next {
                        '\n' => {}
                        '$' | '`' | '"' | '\\' => cur.lit(next),
                        _ => {
                            cur.lit('\\');
                            cur.lit(next);
                        }
                    }
                }
                '`' => self.backquoted(cur, inner, depth)?,
                // `$'` and `$"` are a plain `$` in double quotes.
                '$' if matches!(self.peek(0), Some('\'' | '"')) => {
                    cur.push('$');
                    cur.lit('$');
                }
                '$' => self.dollar(cur, inner, depth)?,
                c => {
                    cur.push(c);
                    cur.lit(c);
                }
            }
        }
    }

    /// After a `` ` ``: the command inside, up to the closing one.
    fn backquoted(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unsplittable> {
        let start = self.i;
        let mut nested = Splitter {
            chars: self.chars,
            i: self.i,
            out: Vec::new(),
        };
        nested.list(End::Backquote, depth + 1)?;
        self.i = nested.i;
        inner.append(&mut nested.out);
        cur.push('`');
        cur.word.extend(&self.chars[start..self.i]);
        cur.dynamic = true;
        Ok(())
    }

    /// After a `$`: a substitution, an expansion, `$'…'`, or a plain `$`.
    fn dollar(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unsplittable> {
        let start = self.i - 1;
        // Whether this is an expansion (its value is known only when it runs).
        let expansion = match self.peek(0) {
            Some('(') => {
                self.i += 1;
                let mut nested = Splitter {
                    chars: self.chars,
                    i: self.i,
                    out: Vec::new(),
                };
                nested.list(End::Paren, depth + 1)?;
                self.i = nested.i;
                inner.append(&mut nested.out);
                true
            }
            Some('{') => {
                let mut level = 0usize;
                loop {
                    let Some(c) = self.peek(0) else {
                        return Err(Unsplittable);
                    };
                    self.i += 1;
                    match c {
                        '{' => level += 1,
                        '}' => {
                            level -= 1;
                            if level == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                true
            }
            Some('\'') => {
                self.i += 1;
                let mut text = String::new();
                let mut escapes = false;
                loop {
                    let Some(c) = self.peek(0) else {
                        return Err(Unsplittable);
                    };
                    self.i += 1;
                    match c {
                        '\\' if self.peek(0).is_some() => {
                            self.i += 1;
                            escapes = true;
                        }
                        '\'' => break,
                        c => text.push(c),
                    }
                }
                // An escape stands for what bash says (and dash reads
                // `$'…'` otherwise): undecidable here.
                cur.value.push_str(&text);
                escapes
            }
            // bash translates `$"…"`; dash reads `$` and `"…"`.
            Some('"') => true,
            Some(c) if c.is_ascii_alphanumeric() || "_?@#$!*-".contains(c) => {
                self.i += 1;
                if c.is_ascii_alphabetic() || c == '_' {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        self.i += 1;
                    }
                }
                true
            }
            _ => {
                cur.lit('$');
                false
            }
        };
        let written = &self.chars[start..self.i];
        cur.word.extend(written);
        if expansion && self.chars.get(start + 1) != Some(&'\'') {
            cur.value.extend(written);
        }
        cur.dynamic |= expansion;
        cur.in_word = true;
        Ok(())
    }
}
