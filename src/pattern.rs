//! [`Pattern`]: a hook's matcher, compiled.
//!
//! `*` or an omitted matcher matches everything; any other matcher is a regex
//! searched anywhere in the event's subject, except that `^name$` and
//! `^(name|name)$` with plain names are compared as strings, where that gives
//! `Regex::is_match`'s answer. The chain and the [`Matcher`](crate::layer::matcher)
//! layer both test hooks with it.
//!
//! Every regex read from a hook file, in every dialect, is compiled here
//! (`compile_regex`), under bounds that no real matcher comes near: a
//! compiled form of at most [`MATCHER_SIZE_LIMIT`] bytes, a lazy DFA cache of
//! at most as much, and at most [`MATCHER_NEST_LIMIT`] nested groups. Past the
//! size bound the `regex` crate stops compiling and answers an error, so a
//! file of hostile matchers (`\w{1000}` a hundred times) loads in a moment
//! instead of minutes, and each such matcher is handled as its dialect handles
//! one that does not compile.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use regex::{Regex, RegexBuilder};

/// The most a matcher's compiled regex may take, in bytes (1 MiB).
///
/// For scale: a Unicode class such as `\w` or `\pL` compiles to about
/// 50 KB, `\w{10}` to 0.5 MB, `.{1000}` to just under 1 MB; the matchers of
/// real hook files (`Edit|Write`, `mcp__github__.*`, `(?i)rm\s+-rf`) take a
/// few KB. Compiling up to the bound takes some milliseconds.
pub const MATCHER_SIZE_LIMIT: usize = 1 << 20;

/// How deeply a matcher's groups and classes may nest (64).
pub const MATCHER_NEST_LIMIT: u32 = 64;

/// Compiles a regex read from a hook file under the bounds
/// ([`MATCHER_SIZE_LIMIT`], [`MATCHER_NEST_LIMIT`]). A regex over the size
/// bound is [`regex::Error::CompiledTooBig`] (see [`is_too_big`]).
pub(crate) fn compile_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(MATCHER_SIZE_LIMIT)
        .dfa_size_limit(MATCHER_SIZE_LIMIT)
        .nest_limit(MATCHER_NEST_LIMIT)
        .build()
}

/// Whether `error` says the regex compiles to more than the bound.
pub(crate) fn is_too_big(error: &regex::Error) -> bool {
    matches!(error, regex::Error::CompiledTooBig(_))
}

/// Why a matcher over the bound is refused, and what to write instead: the
/// message every dialect gives for it.
pub(crate) const TOO_BIG: &str = "the matcher is too big: compiled, it would take more than \
     1 MiB, the bound on a matcher; a counted repetition of a Unicode class is the usual \
     cause (\\w alone is about 50 KB): write [A-Za-z0-9_] or (?-u:\\w) for \\w, or repeat less";

/// A compiled matcher: everything, exact names, or a regex.
#[derive(Clone)]
#[non_exhaustive]
pub enum Pattern {
    /// `*`, or no matcher at all.
    Any,
    /// An anchored list of plain names, `^bash$` or `^(bash|write)$`: the
    /// commonest matchers, answered by comparing strings.
    Exact(Arc<[Box<str>]>),
    /// A regex searched in the subject. Shared: a cloned `Regex` would get a
    /// fresh cache pool and allocate on its first search.
    Regex(Arc<Regex>),
}

impl Pattern {
    /// Compiles a matcher as written in a config file.
    pub fn new(matcher: &str) -> Result<Self, PatternError> {
        if matcher == "*" {
            return Ok(Pattern::Any);
        }
        if let Some(names) = exact_names(matcher) {
            return Ok(Pattern::Exact(names));
        }
        compile_regex(matcher)
            .map(|re| Pattern::Regex(Arc::new(re)))
            .map_err(|error| PatternError {
                pattern: matcher.to_owned(),
                error,
            })
    }

    /// Whether the hook fires for `subject`.
    pub fn matches(&self, subject: &str) -> bool {
        match self {
            Pattern::Any => true,
            Pattern::Exact(names) => names.iter().any(|name| **name == *subject),
            Pattern::Regex(re) => re.is_match(subject),
        }
    }
}

/// The names of a matcher that is `^name$` or `^(name|name…)$` with plain names
/// (ASCII letters, digits, `_`, `-`, none special outside a class): there `^` and
/// `$` anchor the whole subject, so matching is string equality.
///
/// An alternation must be grouped: `^bash|zsh$` is `(^bash)|(zsh$)`, "starts
/// with bash or ends with zsh", which `bashx` and `ohmyzsh` match. Anything
/// else is left to the regex, so the answer is always `Regex::is_match`'s.
fn exact_names(matcher: &str) -> Option<Arc<[Box<str>]>> {
    let inner = matcher.strip_prefix('^')?.strip_suffix('$')?;
    let names = match inner.strip_prefix('(') {
        Some(group) => group.strip_suffix(')')?,
        // Ungrouped, `|` would split the anchors between the alternatives.
        None if inner.contains('|') => return None,
        None => inner,
    };
    let plain = |name: &str| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    let names: Vec<Box<str>> = names.split('|').map(Box::from).collect();
    names.iter().all(|name| plain(name)).then(|| names.into())
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Any => f.write_str("Any"),
            Pattern::Exact(names) => f.debug_tuple("Exact").field(names).finish(),
            Pattern::Regex(re) => f.debug_tuple("Regex").field(&re.as_str()).finish(),
        }
    }
}

/// A matcher that is not a valid regex.
#[derive(Debug, Clone)]
pub struct PatternError {
    pattern: String,
    error: regex::Error,
}

impl PatternError {
    /// The matcher as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The regex error.
    pub fn regex_error(&self) -> &regex::Error {
        &self.error
    }

    /// Whether the matcher is a valid regex whose compiled form would take
    /// more than [`MATCHER_SIZE_LIMIT`] bytes.
    pub fn is_too_big(&self) -> bool {
        is_too_big(&self.error)
    }

    /// The regex's explanation, bounded for a message: in full for a matcher of
    /// at most 200 characters; for a longer one only its last line (`error:
    /// unclosed group`), since the full text quotes the whole matcher.
    /// A matcher over the bound says so, with what to write instead.
    pub fn explanation(&self) -> String {
        if self.is_too_big() {
            return TOO_BIG.to_owned();
        }
        let message = self.error.to_string();
        if self.pattern.chars().nth(DISPLAY_CHARS).is_none() {
            return message;
        }
        let last = message.rsplit('\n').next().unwrap_or_default();
        display_pattern(last).into_owned()
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_too_big() {
            return write!(
                f,
                "matcher {:?} is too big: compiled, it would take more than {} KiB",
                display_pattern(&self.pattern),
                MATCHER_SIZE_LIMIT >> 10
            );
        }
        write!(
            f,
            "matcher {:?} is not a valid regex",
            display_pattern(&self.pattern)
        )
    }
}

impl std::error::Error for PatternError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// How many characters of a matcher a message quotes.
pub(crate) const DISPLAY_CHARS: usize = 200;

/// A matcher cut for a message: its first [`DISPLAY_CHARS`] characters and `…`
/// when it is longer, so that a 1 MiB matcher does not make a 1 MB message.
pub(crate) fn display_pattern(pattern: &str) -> Cow<'_, str> {
    match pattern.char_indices().nth(DISPLAY_CHARS) {
        Some((end, _)) => Cow::Owned(format!("{}\u{2026}", &pattern[..end])),
        None => Cow::Borrowed(pattern),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_plain_names_compare_exactly_like_the_regex() {
        let subjects = [
            "bash", "bash2", "xbash", "write", "Bash", "", "bash\n", "a-b_c",
        ];
        for matcher in ["^bash$", "^(bash|write)$", "^a-b_c$", "^(x)$"] {
            let fast = Pattern::new(matcher).unwrap();
            assert!(matches!(fast, Pattern::Exact(_)), "{matcher}");
            let re = Regex::new(matcher).unwrap();
            for subject in subjects {
                assert_eq!(
                    fast.matches(subject),
                    re.is_match(subject),
                    "{matcher} vs {subject:?}"
                );
            }
        }
    }

    #[test]
    fn anything_else_stays_a_regex() {
        for matcher in [
            "bash",
            "^bash",
            "bash$",
            "^ba.h$",
            "^(bash|wr+ite)$",
            "^()$",
            "^(a|)$",
            "^(a)(b)$",
            "^$",
            "^bash|zsh$",
            "^a|b$",
            "^a|(b)$",
            "^(a)|(b)$",
            "^(a|b)|c$",
        ] {
            assert!(
                matches!(Pattern::new(matcher).unwrap(), Pattern::Regex(_)),
                "{matcher}"
            );
        }
    }

    #[test]
    fn an_ungrouped_alternation_keeps_its_regex_meaning() {
        // `^bash|zsh$` is "starts with bash, or ends with zsh", not {bash, zsh}.
        let pattern = Pattern::new("^bash|zsh$").unwrap();
        for subject in ["bash", "zsh", "bashx", "bash_background", "ohmyzsh"] {
            assert!(pattern.matches(subject), "{subject}");
        }
        for subject in ["xbash", "zshx", "", "sh"] {
            assert!(!pattern.matches(subject), "{subject}");
        }
        let grouped = Pattern::new("^(bash|zsh)$").unwrap();
        assert!(matches!(grouped, Pattern::Exact(_)));
        for subject in ["bashx", "bash_background", "ohmyzsh"] {
            assert!(!grouped.matches(subject), "{subject}");
        }
    }

    #[test]
    fn a_long_matcher_is_cut_in_messages() {
        // An unclosed group after 1 MiB: the regex error quotes the whole matcher.
        let matcher = format!("({}", "a".repeat(1 << 20));
        let err = Pattern::new(&matcher).unwrap_err();
        assert_eq!(err.pattern(), matcher);
        let message = err.to_string();
        let quoted = format!("\"({}\u{2026}\"", "a".repeat(DISPLAY_CHARS - 1));
        assert_eq!(message, format!("matcher {quoted} is not a valid regex"));
        assert_eq!(err.explanation(), "error: unclosed group");

        // A short one is quoted whole, with the regex's full explanation.
        let err = Pattern::new("(unclosed").unwrap_err();
        assert_eq!(
            err.to_string(),
            "matcher \"(unclosed\" is not a valid regex"
        );
        assert_eq!(err.explanation(), err.regex_error().to_string());
    }

    #[test]
    fn display_pattern_cuts_on_a_char_boundary() {
        let exact = "é".repeat(DISPLAY_CHARS);
        assert!(matches!(display_pattern(&exact), Cow::Borrowed(_)));
        let long = "é".repeat(DISPLAY_CHARS + 1);
        let cut = display_pattern(&long);
        assert_eq!(cut.chars().count(), DISPLAY_CHARS + 1);
        assert_eq!(cut, format!("{}\u{2026}", "é".repeat(DISPLAY_CHARS)));
    }

    #[test]
    fn a_matcher_over_the_bound_is_an_error_that_says_it_is_too_big() {
        for matcher in [r"\w{1000}", r"(\w{100}){100}", r"\pL{500}", r".{2000}"] {
            let err = Pattern::new(matcher).unwrap_err();
            assert!(err.is_too_big(), "{matcher}: {:?}", err.regex_error());
            assert_eq!(err.pattern(), matcher);
            assert_eq!(
                err.to_string(),
                format!(
                    "matcher {matcher:?} is too big: compiled, it would take more than 1024 KiB"
                )
            );
            assert!(err.explanation().starts_with("the matcher is too big"));
        }
        // A plain syntax error is not "too big".
        assert!(!Pattern::new("(unclosed").unwrap_err().is_too_big());
    }

    #[test]
    fn real_matchers_stay_well_inside_the_bound() {
        for matcher in [
            r"\w",
            r"\w{10}",
            r".{500}",
            r"\S{64}",
            r"[^\s]{200}",
            r"(?i)(password|secret|token|api[_-]?key)\s*[:=]\s*\S{8,}",
            r"mcp__github__.*",
            r"Edit|Write|MultiEdit|NotebookEdit",
            r"git\s+push\s+(-f|--force)",
            r"[A-Za-z0-9+/]{40,}",
        ] {
            Pattern::new(matcher).unwrap_or_else(|e| panic!("{matcher}: {e}"));
        }
    }

    #[test]
    fn groups_nested_past_the_limit_are_refused() {
        let nested = |depth: usize| format!("{}a{}", "(".repeat(depth), ")".repeat(depth));
        Pattern::new(&nested(MATCHER_NEST_LIMIT as usize - 1)).unwrap();
        let err = Pattern::new(&nested(1000)).unwrap_err();
        assert!(err.regex_error().to_string().contains("nest"), "{err:?}");
    }

    #[test]
    fn invalid_regex_is_an_error_naming_the_pattern() {
        let err = Pattern::new("(unclosed").unwrap_err();
        assert_eq!(err.pattern(), "(unclosed");
        assert!(err.to_string().contains("(unclosed"));
    }
}
