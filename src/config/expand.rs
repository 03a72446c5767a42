//! `~`, `$HOME` and `${HOME}` expansion in a hook's command.

use std::borrow::Cow;

/// Expands the home directory in a hook's `command`, as nanopi does before it
/// hands the command to `bash -c`.
///
/// Three forms are replaced by `home`:
///
/// * `~` at the start of the command or after whitespace, when followed by `/`,
///   whitespace or the end (`~user` and `a~/b` stay as written);
/// * `$HOME` anywhere, unless an identifier character follows (`$HOMEDIR` stays);
/// * `${HOME}` anywhere.
///
/// A relative command is passed on unchanged (the shell resolves it against the
/// process's current directory). Without a home directory the command is
/// returned as written.
///
/// # Quoting
///
/// The forms are found as text, wherever they are, as nanopi finds them: quoting
/// does not decide *whether* a form expands. When `home` holds only
/// `[A-Za-z0-9_./-]` it is inserted as it is. Otherwise it is quoted so that
/// bash reads it back as exactly one unchanged piece of the word it sits in,
/// whatever the quotes around it:
///
/// * outside quotes (and inside `$(…)` or backquotes): single-quoted, each `'`
///   written `'\''` — `~/x` becomes `'/tmp/with space'/x`;
/// * inside `"…"`: `\`, `"`, `$` and `` ` `` get a backslash, nothing else
///   changes (a single quote is literal there) — `"$HOME/x"` becomes
///   `"/tmp/with space/x"`;
/// * inside `'…'`: each `'` is written `'\''`;
/// * inside `$'…'`: `\` and `'` get a backslash.
///
/// The quoting context is found by a small scanner that knows bash's quotes,
/// backslashes, `$(…)`, backquotes and `#` comments (not here-documents,
/// `${…}` operators or `case` patterns inside `$(…)`).
///
/// ```
/// use tower_hooks::config::expand_home;
///
/// let home = Some("/home/u");
/// assert_eq!(expand_home("~/hooks/guard.sh", home), "/home/u/hooks/guard.sh");
/// assert_eq!(expand_home("cat ${HOME}/x $HOME/y", home), "cat /home/u/x /home/u/y");
/// assert_eq!(expand_home("echo $HOMEDIR ~user", home), "echo $HOMEDIR ~user");
/// assert_eq!(expand_home("~/guard.sh", None), "~/guard.sh");
///
/// // A home directory that bash would split is quoted for where it lands.
/// let home = Some("/tmp/with space");
/// assert_eq!(expand_home("~/guard.sh", home), "'/tmp/with space'/guard.sh");
/// assert_eq!(expand_home("cat \"$HOME/a b\"", home), "cat \"/tmp/with space/a b\"");
/// ```
pub fn expand_home<'a>(command: &'a str, home: Option<&str>) -> Cow<'a, str> {
    let Some(home) = home else {
        return Cow::Borrowed(command);
    };
    // Only a home that needs quoting pays for the scanner; a plain one is
    // inserted as text, exactly as before.
    let mut shell = needs_quoting(home).then(Scanner::default);
    let bytes = command.as_bytes();
    let mut out: Option<String> = None;
    // `command[copied..i]` is not yet in `out`. Every marker and every byte the
    // scanner acts on is ASCII, so byte positions found here are always char
    // boundaries.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let Some(len) = marker_len(command, i) else {
            i = match &mut shell {
                Some(shell) => shell.step(bytes, i),
                None => i + 1,
            };
            continue;
        };
        let out = out.get_or_insert_with(|| String::with_capacity(command.len() + home.len()));
        out.push_str(&command[copied..i]);
        match &mut shell {
            Some(shell) => shell.push_home(out, home),
            None => out.push_str(home),
        }
        i += len;
        copied = i;
    }
    match out {
        Some(mut out) => {
            out.push_str(&command[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(command),
    }
}

/// The length of the home marker at `i`, if one starts there.
fn marker_len(command: &str, i: usize) -> Option<usize> {
    let bytes = command.as_bytes();
    match bytes[i] {
        b'~' if tilde_starts_word(bytes, i) && tilde_ends_word(bytes, i + 1) => Some(1),
        b'$' if command[i..].starts_with("${HOME}") => Some("${HOME}".len()),
        b'$' if command[i..].starts_with("$HOME")
            && !bytes.get(i + 5).copied().is_some_and(is_ident) =>
        {
            Some("$HOME".len())
        }
        _ => None,
    }
}

fn tilde_starts_word(bytes: &[u8], i: usize) -> bool {
    i == 0 || bytes[i - 1].is_ascii_whitespace()
}

fn tilde_ends_word(bytes: &[u8], next: usize) -> bool {
    match bytes.get(next) {
        None => true,
        Some(&b) => b == b'/' || b.is_ascii_whitespace(),
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether bash could read `home` as anything but one literal piece of a word.
fn needs_quoting(home: &str) -> bool {
    !home
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
    /// Inside `$'…'`.
    AnsiC,
    /// A `#` comment, up to the end of the line.
    Comment,
}

/// Follows bash's quoting through a command, one byte at a time.
#[derive(Debug)]
struct Scanner {
    /// The innermost frame is last; the outermost is the command itself.
    frames: Vec<Frame>,
    /// The previous byte was an unquoted (or double-quoted) backslash.
    escaped: bool,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            frames: vec![Frame::Unquoted { parens: 0 }],
            escaped: false,
        }
    }
}

impl Scanner {
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

    /// Reads the byte at `i` (not a home marker) and returns where to go on.
    fn step(&mut self, bytes: &[u8], i: usize) -> usize {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        if self.escaped {
            self.escaped = false;
            return i + 1;
        }
        match self.top() {
            Frame::Single => {
                if b == b'\'' {
                    self.pop();
                }
            }
            Frame::AnsiC => match b {
                b'\\' => self.escaped = true,
                b'\'' => self.pop(),
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
                (b'`', _) => self.frames.push(Frame::Backquote),
                _ => {}
            },
            top @ (Frame::Unquoted { .. } | Frame::Backquote) => match (b, next) {
                (b'\\', _) => self.escaped = true,
                (b'\'', _) => self.frames.push(Frame::Single),
                (b'"', _) => self.frames.push(Frame::Double),
                (b'$', Some(b'\'')) => {
                    self.frames.push(Frame::AnsiC);
                    return i + 2;
                }
                (b'$', Some(b'(')) => {
                    self.frames.push(Frame::Unquoted { parens: 0 });
                    return i + 2;
                }
                (b'`', _) if top == Frame::Backquote => self.pop(),
                (b'`', _) => self.frames.push(Frame::Backquote),
                (b'#', _) if word_starts(bytes, i) => self.frames.push(Frame::Comment),
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

    /// Appends `home` quoted for the current frame.
    fn push_home(&mut self, out: &mut String, home: &str) {
        let escaped = std::mem::take(&mut self.escaped);
        let mut text = String::with_capacity(home.len() + 2);
        match self.top() {
            Frame::Unquoted { .. } | Frame::Backquote => {
                let mut rest = home;
                if escaped {
                    // `\$HOME`: the backslash applies to the home's first
                    // character, as with plain text; quote the rest.
                    let first = home.chars().next().map_or(0, char::len_utf8);
                    text.push_str(&home[..first]);
                    rest = &home[first..];
                }
                text.push('\'');
                push_replaced(&mut text, rest, |c| (c == '\'').then_some("'\\''"));
                text.push('\'');
            }
            Frame::Double => push_replaced(&mut text, home, |c| match c {
                '\\' => Some("\\\\"),
                '"' => Some("\\\""),
                '$' => Some("\\$"),
                '`' => Some("\\`"),
                _ => None,
            }),
            Frame::Single => push_replaced(&mut text, home, |c| (c == '\'').then_some("'\\''")),
            Frame::AnsiC => push_replaced(&mut text, home, |c| match c {
                '\\' => Some("\\\\"),
                '\'' => Some("\\'"),
                _ => None,
            }),
            // Nothing in a comment runs.
            Frame::Comment => text.push_str(home),
        }
        // Bash finds the closing backquote before it parses what is inside,
        // undoing one level of `\\`, `\``, `\$` escapes: add one per level.
        for _ in self.frames.iter().filter(|f| **f == Frame::Backquote) {
            let inner = std::mem::take(&mut text);
            push_replaced(&mut text, &inner, |c| match c {
                '\\' => Some("\\\\"),
                '`' => Some("\\`"),
                '$' => Some("\\$"),
                _ => None,
            });
        }
        out.push_str(&text);
    }
}

/// Whether a `#` at `i` starts a word (and so a comment).
fn word_starts(bytes: &[u8], i: usize) -> bool {
    i == 0
        || matches!(
            bytes[i - 1],
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
        )
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
mod tests {
    use super::*;

    const HOME: Option<&str> = Some("/home/u");

    fn expand(command: &str) -> String {
        expand_home(command, HOME).into_owned()
    }

    #[test]
    fn leading_tilde_slash_becomes_home() {
        assert_eq!(
            expand("~/.nanopi/hooks/guard.sh"),
            "/home/u/.nanopi/hooks/guard.sh"
        );
    }

    #[test]
    fn bare_tilde_becomes_home() {
        assert_eq!(expand("~"), "/home/u");
        assert_eq!(expand("ls ~"), "ls /home/u");
        assert_eq!(expand("cd ~ && ls"), "cd /home/u && ls");
    }

    #[test]
    fn tilde_after_whitespace_becomes_home() {
        assert_eq!(expand("bash ~/x.sh ~/y"), "bash /home/u/x.sh /home/u/y");
        assert_eq!(expand("a\t~/b"), "a\t/home/u/b");
    }

    #[test]
    fn tilde_inside_a_word_stays() {
        assert_eq!(expand("a~/b"), "a~/b");
        assert_eq!(expand("x=~/b"), "x=~/b");
        assert_eq!(expand("echo 'a ~b'"), "echo 'a ~b'");
    }

    #[test]
    fn tilde_user_stays() {
        assert_eq!(expand("~root/x.sh"), "~root/x.sh");
    }

    #[test]
    fn dollar_home_becomes_home_anywhere() {
        assert_eq!(expand("$HOME/x.sh"), "/home/u/x.sh");
        assert_eq!(expand("cat a$HOME"), "cat a/home/u");
        assert_eq!(expand("echo \"$HOME\""), "echo \"/home/u\"");
        assert_eq!(expand("$HOME"), "/home/u");
    }

    #[test]
    fn dollar_home_followed_by_an_identifier_stays() {
        assert_eq!(
            expand("echo $HOMEDIR $HOME_2 $HOME1"),
            "echo $HOMEDIR $HOME_2 $HOME1"
        );
    }

    #[test]
    fn braced_home_becomes_home_anywhere() {
        assert_eq!(expand("${HOME}/x.sh"), "/home/u/x.sh");
        assert_eq!(expand("a${HOME}b"), "a/home/ub");
    }

    #[test]
    fn other_variables_stay() {
        assert_eq!(
            expand("$HOM ${HOMEDIR} ${PATH} $"),
            "$HOM ${HOMEDIR} ${PATH} $"
        );
    }

    #[test]
    fn all_forms_expand_in_one_command() {
        assert_eq!(
            expand("~/a ${HOME}/b $HOME/c"),
            "/home/u/a /home/u/b /home/u/c"
        );
    }

    #[test]
    fn relative_command_is_passed_unchanged() {
        assert!(matches!(
            expand_home("./hooks/guard.sh --fast", HOME),
            Cow::Borrowed("./hooks/guard.sh --fast")
        ));
        assert!(matches!(
            expand_home("guard.sh", HOME),
            Cow::Borrowed("guard.sh")
        ));
    }

    #[test]
    fn without_a_home_nothing_expands() {
        for command in ["~/x", "$HOME/x", "${HOME}/x"] {
            assert!(matches!(expand_home(command, None), Cow::Borrowed(c) if c == command));
        }
    }

    #[test]
    fn non_ascii_text_around_a_marker_survives() {
        assert_eq!(expand("échô ~/ü $HOME→"), "échô /home/u/ü /home/u→");
    }

    const SPACED: Option<&str> = Some("/tmp/with space");

    fn spaced(command: &str) -> String {
        expand_home(command, SPACED).into_owned()
    }

    #[test]
    fn a_plain_home_is_never_quoted() {
        for home in ["/home/u", "/h/a-b_c.d/9", "relative/home"] {
            assert_eq!(
                expand_home("~/a \"$HOME/b\" '${HOME}/c' $'~/d'", Some(home)),
                format!("{home}/a \"{home}/b\" '{home}/c' $'~/d'")
            );
        }
    }

    #[test]
    fn an_unquoted_home_with_a_space_is_single_quoted() {
        assert_eq!(
            spaced("~/.nanopi/hooks/guard.sh"),
            "'/tmp/with space'/.nanopi/hooks/guard.sh"
        );
        assert_eq!(
            spaced("$HOME/x ${HOME}/y"),
            "'/tmp/with space'/x '/tmp/with space'/y"
        );
        assert_eq!(spaced("cd ~ && ls"), "cd '/tmp/with space' && ls");
    }

    #[test]
    fn a_single_quote_in_home_is_closed_escaped_and_reopened() {
        assert_eq!(expand_home("~/g.sh", Some("/h/it's")), r"'/h/it'\''s'/g.sh");
        assert_eq!(
            expand_home("echo '$HOME'", Some("/h/it's")),
            r"echo '/h/it'\''s'"
        );
    }

    #[test]
    fn inside_double_quotes_only_the_double_quote_specials_are_escaped() {
        assert_eq!(spaced("cat \"$HOME/a b\""), "cat \"/tmp/with space/a b\"");
        assert_eq!(
            expand_home("\"${HOME}\"", Some(r#"/h/"$x`\'"#)),
            r#""/h/\"\$x\`\\'""#
        );
    }

    #[test]
    fn command_substitution_inside_double_quotes_is_unquoted_again() {
        assert_eq!(
            spaced("echo \"$(cat $HOME/f) $HOME\""),
            "echo \"$(cat '/tmp/with space'/f) /tmp/with space\""
        );
        assert_eq!(
            spaced("echo \"`cat $HOME/f`\" $HOME"),
            "echo \"`cat '/tmp/with space'/f`\" '/tmp/with space'"
        );
    }

    #[test]
    fn quotes_in_a_comment_do_not_confuse_the_scanner() {
        assert_eq!(
            spaced("true # don't\n~/g.sh"),
            "true # don't\n'/tmp/with space'/g.sh"
        );
        // `#` inside a word is not a comment.
        assert_eq!(spaced("echo a#'b' $HOME"), "echo a#'b' '/tmp/with space'");
    }

    #[test]
    fn an_escaped_dollar_keeps_applying_to_the_first_character() {
        assert_eq!(spaced(r"echo \$HOME"), r"echo \/'tmp/with space'");
    }

    /// What bash prints for `printf '%s\n' <words>` after expansion with `home`.
    fn bash_words(words: &str, home: &str) -> Vec<String> {
        let command = expand_home(words, Some(home));
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s\\n' {command}"))
            .env_remove("HOME")
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "{command}: {out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn bash_reads_back_every_awkward_home_unchanged() {
        let words = r#"~/a $HOME/b ${HOME}/c "$HOME/d e" '${HOME}/f' $'$HOME/g' "$(echo $HOME/h)" "`echo ~/i`" "`echo "$HOME/j"`" x\ $HOME"#;
        for home in [
            "/tmp/with space",
            "/h/it's",
            r#"/h/a"b$c`d\e!f"#,
            "/h/*?[x]",
            "/h/tab\there",
            "/h/;rm -rf x;",
            "/h/$(touch pwned)",
            "/h/é ü",
        ] {
            assert_eq!(
                bash_words(words, home),
                [
                    format!("{home}/a"),
                    format!("{home}/b"),
                    format!("{home}/c"),
                    format!("{home}/d e"),
                    format!("{home}/f"),
                    format!("{home}/g"),
                    format!("{home}/h"),
                    format!("{home}/i"),
                    format!("{home}/j"),
                    format!("x {home}"),
                ],
                "home = {home:?}"
            );
        }
    }
}
