//! Paths put into hook commands as one word, never as shell code for the
//! shell that runs the command.
//!
//! Every dialect names a few directories in its commands: Claude Code's
//! `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_PLUGIN_ROOT}` and
//! `${CLAUDE_PLUGIN_DATA}`, nanopi's `~`, `$HOME` and `${HOME}`. [`substitute`]
//! is the one function that replaces them, for every dialect. The rule:
//!
//! * in a command for a shell ([`Form::Sh`], [`Form::Bash`]) the path is one
//!   piece of the word it sits in: outside quotes it goes in quoted (as if
//!   double-quoted: nothing in it expands, and it is not split), inside `"…"`
//!   it is escaped for there, inside `'…'` (and bash's `$'…'`) it is the path; a directory named `x; touch pwned`,
//!   `my "proj"` or `a b` is that directory, and nothing in it runs in the
//!   shell that runs the command (a command that hands it on to a second
//!   evaluation, `sh -c "${CLAUDE_PROJECT_DIR}/x.sh"` or `eval`, has that inner
//!   shell read it as code: no quoting can prevent that, so the loaders warn
//!   about such commands, see `twice`);
//! * in exec form ([`Form::Exec`], one argument of a program started without a
//!   shell) the path goes in as it is.
//!
//! A path made only of `[A-Za-z0-9_./-]`, with at least one `/`, reads the
//! same in every quoting context, so it goes in as plain text, wherever it
//! is.
//!
//! # Example
//!
//! ```
//! use tower_hooks::process::substitute::{placeholders, substitute, Form};
//!
//! let vars = [("CLAUDE_PROJECT_DIR", "/p/x; touch pwned")];
//! let find = placeholders(&vars);
//! assert_eq!(
//!     substitute("${CLAUDE_PROJECT_DIR}/guard.sh", Form::Sh, &find),
//!     "'/p/x; touch pwned'/guard.sh",
//! );
//! assert_eq!(
//!     substitute("'${CLAUDE_PROJECT_DIR}/a b'", Form::Sh, &find),
//!     "'/p/x; touch pwned/a b'",
//! );
//! assert_eq!(
//!     substitute("--dir=${CLAUDE_PROJECT_DIR}", Form::Exec, &find),
//!     "--dir=/p/x; touch pwned",
//! );
//! ```
//!
//! # Caveats
//!
//! The quoting context is found by a small scanner that follows quotes,
//! backslashes, `$(…)`, backquotes and `#` comments. Where it cannot be sure
//! what the shell will read (a `<<`, which starts a here-document or is an
//! arithmetic shift, a `case` command, a `${…}` with an operator, `$'…'`
//! under `sh`, where dash and bash disagree, a quote inside backquotes that
//! holds another backquote, or a backslash inside backquotes before `\`,
//! `$`, `` ` `` or `"`, which the shell unescapes before it reads quotes),
//! it stops replacing: the references from there on stay as written, and the
//! shell expands them from the environment (which holds the same paths: the
//! runner exports `HOME`, `CLAUDE_PROJECT_DIR` and `CLAUDE_PLUGIN_ROOT`; not
//! yet `CLAUDE_PLUGIN_DATA`). That is never code either. Likewise a path is not
//! put where it would need such escapes (inside backquotes, a path holding
//! `\`, `$`, `` ` `` or `"`), nor into a `#` comment when it holds a new
//! line, which would end the comment: those references stay as written (a
//! `$` reference outside quotes in double quotes, so that it stays one word).

use std::borrow::Cow;

mod twice;
pub(crate) use twice::{evaluated_twice, evaluated_twice_exec, References};

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
pub(crate) fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How the text a path goes into is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Form {
    /// A command for `sh -c`: a POSIX shell, dash or bash.
    Sh,
    /// A command for `bash -c`.
    Bash,
    /// One argument of a program started without a shell.
    Exec,
}

/// A quoting context, as the scanner sees it at some point of a command
/// ([`quoting_at_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Quoting {
    /// Outside quotes, in the command itself.
    Unquoted,
    /// Inside a `$(…)` (outside quotes in it), with its count of open `(`.
    Substitution(u32),
    /// Inside backquotes.
    Backquote,
    /// Inside `"…"`.
    Double,
    /// Inside `'…'`.
    Single,
    /// Inside bash's `$'…'`.
    AnsiC,
    /// In a `#` comment.
    Comment,
}

/// The `${NAME}` references to each of `vars` (`(NAME, path)` pairs), as a
/// finder for [`substitute`]. Only the braced form is a reference: `$NAME`
/// is left to the shell.
///
/// ```
/// use tower_hooks::process::substitute::placeholders;
///
/// let vars = [("A", "/a"), ("AB", "/ab")];
/// let find = placeholders(&vars);
/// assert_eq!(find("x${AB}", 1), Some((5, "/ab")));
/// assert_eq!(find("x$AB", 1), None);
/// ```
pub fn placeholders<'v>(
    vars: &'v [(&'v str, &'v str)],
) -> impl Fn(&str, usize) -> Option<(usize, &'v str)> + 'v {
    move |text, i| {
        let rest = text.as_bytes().get(i..)?.strip_prefix(b"${")?;
        vars.iter().find_map(|(name, value)| {
            let after = rest.strip_prefix(name.as_bytes())?;
            after.starts_with(b"}").then_some((name.len() + 3, *value))
        })
    }
}

/// `text` with each reference replaced by its path, read as `form` says (see
/// the [module docs](self)).
///
/// `find(text, i)` answers, for a byte position `i` of `text`, the length of
/// the reference that starts there and the path it stands for, or `None`
/// ([`placeholders`] makes one for `${NAME}` references). A reference always
/// starts with an ASCII byte. Text without a reference is borrowed.
pub fn substitute<'a, 'v>(
    text: &'a str,
    form: Form,
    find: impl Fn(&str, usize) -> Option<(usize, &'v str)>,
) -> Cow<'a, str> {
    // A first look: no reference, nothing to do; only plain paths (or exec
    // form), plain text.
    let mut any = false;
    let mut quoting = false;
    let mut i = 0;
    while i < text.len() {
        match find(text, i) {
            Some((len, path)) => {
                any = true;
                quoting |= needs_quoting(path);
                i += len.max(1);
            }
            None => i += 1,
        }
    }
    if !any {
        return Cow::Borrowed(text);
    }
    let shell = match form {
        Form::Exec => None,
        Form::Sh | Form::Bash if !quoting => None,
        Form::Sh => Some(Scanner::new(false)),
        Form::Bash => Some(Scanner::new(true)),
    };
    Cow::Owned(replace(text, shell, &find))
}

/// The quoting context at the end of `command`, as [`substitute`] sees it
/// for `form`, innermost last; `None` where it stops replacing (see the
/// [caveats](self#caveats)) or for [`Form::Exec`].
///
/// A path put in by [`substitute`] never changes it: the command with any
/// path ends where it ends with a plain one.
///
/// ```
/// use tower_hooks::process::substitute::{quoting_at_end, Form, Quoting};
///
/// assert_eq!(quoting_at_end("echo \"a $(b '", Form::Sh).unwrap(),
///            [Quoting::Unquoted, Quoting::Double, Quoting::Substitution(0), Quoting::Single]);
/// assert_eq!(quoting_at_end("cat <<EOF", Form::Sh), None);
/// ```
pub fn quoting_at_end(command: &str, form: Form) -> Option<Vec<Quoting>> {
    let mut scanner = match form {
        Form::Exec => return None,
        Form::Sh => Scanner::new(false),
        Form::Bash => Scanner::new(true),
    };
    let bytes = command.as_bytes();
    let mut i = 0;
    while i < bytes.len() && !scanner.lost {
        i = scanner.step(bytes, i);
    }
    if scanner.lost {
        return None;
    }
    Some(
        scanner
            .frames
            .iter()
            .enumerate()
            .map(|(depth, frame)| match *frame {
                Frame::Unquoted { .. } if depth == 0 => Quoting::Unquoted,
                Frame::Unquoted { parens } => Quoting::Substitution(parens),
                Frame::Backquote => Quoting::Backquote,
                Frame::Double => Quoting::Double,
                Frame::Single => Quoting::Single,
                Frame::AnsiC => Quoting::AnsiC,
                Frame::Comment => Quoting::Comment,
            })
            .collect(),
    )
}

fn replace<'v>(
    text: &str,
    mut shell: Option<Scanner>,
    find: &impl Fn(&str, usize) -> Option<(usize, &'v str)>,
) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 32);
    // `text[copied..i]` is not yet in `out`. References start with an ASCII
    // byte and every byte the scanner acts on is ASCII, so the positions
    // found here are char boundaries.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let Some((len, path)) = find(text, i).filter(|(len, _)| *len > 0) else {
            i = match &mut shell {
                Some(shell) if !shell.lost => shell.step(bytes, i),
                _ => i + 1,
            };
            continue;
        };
        out.push_str(&text[copied..i]);
        match &mut shell {
            None => out.push_str(path),
            Some(shell) => {
                if !shell.push_path(&mut out, path) {
                    shell.push_written(&mut out, &text[i..i + len]);
                }
            }
        }
        i += len;
        copied = i;
    }
    out.push_str(&text[copied..]);
    out
}

/// Whether a shell could read `path` as anything but one literal piece of a
/// word. A plain path holds a `/`, so that it is never a reserved word
/// (`case`, `done`) where it stands alone.
fn needs_quoting(path: &str) -> bool {
    !path.contains('/')
        || !path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-'))
}

/// Where the scanner is: the innermost quoting construct at the current byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Unquoted: the command itself or the inside of a `$(…)`, with its count
    /// of open parentheses.
    Unquoted { parens: u32 },
    /// Inside backquotes (unquoted text; a backquote closes it).
    Backquote,
    /// Inside `"…"`.
    Double,
    /// Inside `'…'`.
    Single,
    /// Inside `$'…'` (bash).
    AnsiC,
    /// A `#` comment, up to the end of the line.
    Comment,
}

/// Follows a shell's quoting through a command, one byte at a time.
#[derive(Debug)]
struct Scanner {
    /// The innermost frame is last; the outermost is the command itself.
    frames: Vec<Frame>,
    /// The previous byte was an unquoted (or double-quoted) backslash.
    escaped: bool,
    /// `bash -c` rather than `sh -c`: `$'…'` is a quote.
    bash: bool,
    /// The scanner met what it cannot follow: no path goes in from here on.
    lost: bool,
    /// The previous byte was a `$` that starts nothing by itself (outside
    /// single quotes): a path right after it must not make it start
    /// something (`$(`, `${`, `$'`, `$name`).
    after_dollar: bool,
}

impl Scanner {
    fn new(bash: bool) -> Self {
        Scanner {
            frames: vec![Frame::Unquoted { parens: 0 }],
            escaped: false,
            bash,
            lost: false,
            after_dollar: false,
        }
    }

    fn top(&self) -> Frame {
        *self
            .frames
            .last()
            .expect("the outermost frame is never popped")
    }

    fn pop(&mut self) {
        if self.frames.len() > 1 {
            self.frames.pop();
        }
    }

    fn in_backquotes(&self) -> bool {
        self.frames.contains(&Frame::Backquote)
    }

    /// Reads the byte at `i` (not a reference) and returns where to go on.
    fn step(&mut self, bytes: &[u8], i: usize) -> usize {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        self.after_dollar = false;
        if self.escaped {
            self.escaped = false;
            return i + 1;
        }
        if b == b'\\' && self.in_backquotes() && next.is_some_and(|n| b"\\$`\"".contains(&n)) {
            // The shell undoes these escapes once per level of backquotes
            // before it reads the quotes (and `\"` only sometimes).
            self.lost = true;
            return i + 1;
        }
        match self.top() {
            Frame::Single => match b {
                b'\'' => self.pop(),
                // Inside backquotes the backquote is found before the quote.
                b'`' if self.in_backquotes() => self.lost = true,
                _ => {}
            },
            Frame::AnsiC => match b {
                b'\\' => self.escaped = true,
                b'\'' => self.pop(),
                b'`' if self.in_backquotes() => self.lost = true,
                _ => {}
            },
            Frame::Comment => {
                if b == b'\n' {
                    self.pop();
                }
            }
            Frame::Double => match (b, next) {
                (b'\\', _) => self.escaped = true,
                (b'"', _) => self.pop(),
                (b'$', Some(b'(')) => {
                    self.frames.push(Frame::Unquoted { parens: 0 });
                    return i + 2;
                }
                (b'$', Some(b'{')) => return self.braces(bytes, i),
                (b'`', _) if self.in_backquotes() => self.lost = true,
                (b'`', _) => self.frames.push(Frame::Backquote),
                (b'$', _) => self.after_dollar = true,
                _ => {}
            },
            top @ (Frame::Unquoted { .. } | Frame::Backquote) => match (b, next) {
                (b'\\', _) => self.escaped = true,
                (b'\'', _) => self.frames.push(Frame::Single),
                (b'"', _) => self.frames.push(Frame::Double),
                (b'$', Some(b'\'')) if self.bash => {
                    self.frames.push(Frame::AnsiC);
                    return i + 2;
                }
                // dash reads `$'…'` as `$` and `'…'`, bash as an escaped
                // string: which one `sh` is is not known here.
                (b'$', Some(b'\'')) => self.lost = true,
                (b'$', Some(b'(')) => {
                    self.frames.push(Frame::Unquoted { parens: 0 });
                    return i + 2;
                }
                (b'$', Some(b'{')) => return self.braces(bytes, i),
                (b'<', Some(b'<')) if self.bash && bytes.get(i + 2) == Some(&b'<') => {
                    // bash's here-string `<<<`: an operator like `<`.
                    return i + 3;
                }
                // A here-document (its body is found by lines) or a shift.
                (b'<', Some(b'<')) => self.lost = true,
                (b'`', _) if top == Frame::Backquote => self.pop(),
                (b'`', _) => self.frames.push(Frame::Backquote),
                (b'#', _) if word_starts(bytes, i) => self.frames.push(Frame::Comment),
                // `case` patterns close parentheses that were never opened.
                (b'c', _) if word_starts(bytes, i) && is_word(bytes, i, b"case") => {
                    self.lost = true;
                }
                (b'$', _) => self.after_dollar = true,
                (b'(', _) => {
                    if let Some(Frame::Unquoted { parens }) = self.frames.last_mut() {
                        *parens += 1;
                    }
                }
                (b')', _) => match self.frames.last_mut() {
                    Some(Frame::Unquoted { parens }) if *parens > 0 => *parens -= 1,
                    // The end of a `$(…)` (never of the command itself).
                    Some(Frame::Unquoted { .. }) => self.pop(),
                    _ => {}
                },
                _ => {}
            },
        }
        i + 1
    }

    /// At a `${`: a plain `${NAME}` is skipped; one with an operator
    /// (`${x:-"…"}`), whose quotes shells read differently, loses the
    /// scanner.
    fn braces(&mut self, bytes: &[u8], i: usize) -> usize {
        let inner = &bytes[i + 2..];
        let len = inner
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let len = if len == 0 && inner.first().is_some_and(|b| b"@*#?$!-".contains(b)) {
            1
        } else {
            len
        };
        if len > 0 && inner.get(len) == Some(&b'}') {
            i + 2 + len + 1
        } else {
            self.lost = true;
            i + 1
        }
    }

    /// Appends a reference that stays as `written`, for the shell to expand:
    /// where the scanner knows it is outside quotes, a `$` reference is
    /// double-quoted so that it stays one word.
    fn push_written(&self, out: &mut String, written: &str) {
        let unquoted = matches!(self.top(), Frame::Unquoted { .. } | Frame::Backquote);
        if !self.lost && !self.escaped && unquoted && written.starts_with('$') {
            out.push('"');
            out.push_str(written);
            out.push('"');
        } else {
            out.push_str(written);
        }
    }

    /// Appends `path` quoted for the current frame; `false` (and nothing
    /// appended) where it cannot go in safely.
    fn push_path(&mut self, out: &mut String, path: &str) -> bool {
        if self.lost {
            return false;
        }
        if self.in_backquotes() && path.contains(['\\', '$', '`', '"']) {
            // Inside backquotes these would need escapes that the shell
            // undoes level by level: leave the reference to the shell.
            return false;
        }
        let escaped = std::mem::take(&mut self.escaped);
        let mut text = String::with_capacity(path.len() + 4);
        if std::mem::take(&mut self.after_dollar) {
            // `$${X}`: an empty `""` ends what the `$` could start, so the
            // path cannot become `$(…)` or `$'…'`.
            text.push_str("\"\"");
        }
        match self.top() {
            Frame::Unquoted { .. } | Frame::Backquote => {
                if escaped {
                    // `\${X}`: the backslash before the reference becomes a
                    // line continuation, which the shell removes.
                    text.push('\n');
                }
                text.push('\'');
                push_replaced(&mut text, path, |c| (c == '\'').then_some("'\\''"));
                text.push('\'');
            }
            Frame::Double => {
                if escaped {
                    // `"\${X}"`: a backslash before a character that is not
                    // special in double quotes stays, as with a plain path;
                    // pair it so that it cannot escape the path's first.
                    text.push('\\');
                }
                push_replaced(&mut text, path, double_quote_special);
            }
            Frame::Single => push_replaced(&mut text, path, |c| (c == '\'').then_some("'\\''")),
            Frame::AnsiC => {
                if escaped {
                    // Pair the backslash before the reference: a literal `\`.
                    text.push('\\');
                }
                push_replaced(&mut text, path, |c| match c {
                    '\\' => Some("\\\\"),
                    '\'' => Some("\\'"),
                    _ => None,
                });
            }
            // Nothing in a comment runs, but a new line would end it.
            Frame::Comment if path.contains('\n') => return false,
            Frame::Comment => text.push_str(path),
        }
        out.push_str(&text);
        true
    }
}

fn double_quote_special(c: char) -> Option<&'static str> {
    match c {
        '\\' => Some("\\\\"),
        '"' => Some("\\\""),
        '$' => Some("\\$"),
        '`' => Some("\\`"),
        _ => None,
    }
}

/// Whether a word starts at `i` (a `#` there starts a comment).
fn word_starts(bytes: &[u8], i: usize) -> bool {
    i == 0
        || matches!(
            bytes[i - 1],
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
        )
}

/// Whether the word at `i` is exactly `word`.
fn is_word(bytes: &[u8], i: usize, word: &[u8]) -> bool {
    bytes[i..].starts_with(word)
        && bytes.get(i + word.len()).is_none_or(|b| {
            matches!(
                b,
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
            )
        })
}

fn push_replaced(out: &mut String, text: &str, replace: impl Fn(char) -> Option<&'static str>) {
    for c in text.chars() {
        match replace(c) {
            Some(with) => out.push_str(with),
            None => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests;
