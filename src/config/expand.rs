//! `~`, `$HOME` and `${HOME}` expansion in a hook's command.

use std::borrow::Cow;

use crate::process::substitute::{substitute, Form};

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
/// does not decide *whether* a form expands. The home directory goes in as
/// one piece of the word it sits in, quoted for where it lands, by the one
/// substitution every dialect uses
/// ([`substitute`](crate::process::substitute::substitute), for `bash -c`):
/// when it holds only `[A-Za-z0-9_./-]` it is inserted as it is; otherwise
/// outside quotes it is single-quoted (`~/x` becomes `'/tmp/with space'/x`),
/// inside `"…"` the characters special there get a backslash, inside `'…'`
/// and `$'…'` it is escaped for those quotes. It is never read as shell code.
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
    substitute(command, Form::Bash, |command: &str, i| {
        marker_len(command, i).map(|len| (len, home))
    })
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
    fn an_escaped_dollar_becomes_a_line_continuation_before_the_home() {
        assert_eq!(spaced(r"echo \$HOME"), "echo \\\n'/tmp/with space'");
        assert_eq!(
            bash_words(r"\$HOME", "/tmp/with space"),
            ["/tmp/with space"]
        );
    }

    /// What bash prints for `printf '%s\n' <words>` after expansion with `home`
    /// (exported as `HOME`, as it is for a hook: references the expansion
    /// leaves to bash read it there).
    fn bash_words(words: &str, home: &str) -> Vec<String> {
        let command = expand_home(words, Some(home));
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s\\n' {command}"))
            .env("HOME", home)
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
