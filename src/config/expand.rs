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
/// Nothing else changes: quoting is not interpreted, and a relative command is
/// passed on unchanged (the shell resolves it against the process's current
/// directory). Without a home directory the command is returned as written.
///
/// ```
/// use tower_hooks::config::expand_home;
///
/// let home = Some("/home/u");
/// assert_eq!(expand_home("~/hooks/guard.sh", home), "/home/u/hooks/guard.sh");
/// assert_eq!(expand_home("cat ${HOME}/x $HOME/y", home), "cat /home/u/x /home/u/y");
/// assert_eq!(expand_home("echo $HOMEDIR ~user", home), "echo $HOMEDIR ~user");
/// assert_eq!(expand_home("~/guard.sh", None), "~/guard.sh");
/// ```
pub fn expand_home<'a>(command: &'a str, home: Option<&str>) -> Cow<'a, str> {
    let Some(home) = home else {
        return Cow::Borrowed(command);
    };
    let bytes = command.as_bytes();
    let mut out: Option<String> = None;
    // `command[copied..i]` is not yet in `out`. Every marker is ASCII, so byte
    // positions found here are always char boundaries.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let len = match bytes[i] {
            b'~' if tilde_starts_word(bytes, i) && tilde_ends_word(bytes, i + 1) => 1,
            b'$' if command[i..].starts_with("${HOME}") => "${HOME}".len(),
            b'$' if command[i..].starts_with("$HOME")
                && !bytes.get(i + 5).copied().is_some_and(is_ident) =>
            {
                "$HOME".len()
            }
            _ => {
                i += 1;
                continue;
            }
        };
        let out = out.get_or_insert_with(|| String::with_capacity(command.len() + home.len()));
        out.push_str(&command[copied..i]);
        out.push_str(home);
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
}
