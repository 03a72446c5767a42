//! Middleware that skips a hook whose matcher does not match the event's subject.
//!
//! The subject depends on the event (see [`MatcherSubject`](crate::MatcherSubject)):
//! the tool name, the session id, the turn count, the compaction reason, or the
//! empty string for `input`. `*` or an omitted matcher matches everything; any
//! other matcher is a regex searched anywhere in the subject. A skipped hook is
//! never called: nothing is spawned.
//!
//! Inside a [`HookStack`](crate::HookStack) the [`Chain`](crate::chain) tests each
//! hook's [`Pattern`] itself, before it touches the hook's service, so that a
//! skipped hook costs nothing more; [`Matcher`] is the same rule as a layer, for a
//! hook service used on its own.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower::{service_fn, ServiceBuilder, ServiceExt};
//! use tower_hooks::matcher::{MatcherLayer, Pattern};
//! use tower_hooks::{HookRequest, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let hook = ServiceBuilder::new()
//!     .layer(MatcherLayer::new(Pattern::new("^bash$").unwrap()))
//!     .service(service_fn(|_req: HookRequest| async { Ok::<_, std::convert::Infallible>(Verdict::block("no")) }));
//!
//! let read = HookRequest::tool_execution_start("read", json!({"path": "a"}));
//! assert_eq!(hook.clone().oneshot(read).await.unwrap(), Verdict::Skipped);
//!
//! let bash = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
//! assert_eq!(hook.oneshot(bash).await.unwrap(), Verdict::block("no"));
//! # }
//! ```

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use pin_project::pin_project;
use regex::Regex;
use tower_layer::Layer;
use tower_service::Service;

use crate::outcome::Verdict;
use crate::request::HookRequest;

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
        Regex::new(matcher)
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

    /// The regex's explanation, bounded for a message: in full for a matcher of
    /// at most 200 characters; for a longer one only its last line (`error:
    /// unclosed group`), since the full text quotes the whole matcher.
    pub fn explanation(&self) -> String {
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

/// Skips the inner hook when the pattern does not match. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Matcher<S> {
    inner: S,
    pattern: Pattern,
}

impl<S> Matcher<S> {
    /// Wraps `inner`.
    pub fn new(inner: S, pattern: Pattern) -> Self {
        Matcher { inner, pattern }
    }

    /// A layer that wraps services with this pattern.
    pub fn layer(pattern: Pattern) -> MatcherLayer {
        MatcherLayer::new(pattern)
    }

    /// The inner service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The inner service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the inner service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S> Service<HookRequest> for Matcher<S>
where
    S: Service<HookRequest, Response = Verdict>,
{
    type Response = Verdict;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    // poll_ready: pass through (the match depends on the request).
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let matched = self.pattern.matches(req.matcher_subject().as_str());
        if matched {
            ResponseFuture {
                kind: Kind::Called {
                    future: self.inner.call(req),
                },
            }
        } else {
            ResponseFuture {
                kind: Kind::Skipped,
            }
        }
    }
}

/// Applies [`Matcher`] to services. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct MatcherLayer {
    pattern: Pattern,
}

impl MatcherLayer {
    /// A layer with this pattern.
    pub fn new(pattern: Pattern) -> Self {
        MatcherLayer { pattern }
    }
}

impl<S> Layer<S> for MatcherLayer {
    type Service = Matcher<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Matcher::new(inner, self.pattern.clone())
    }
}

/// The response future of [`Matcher`].
#[pin_project]
#[derive(Debug)]
pub struct ResponseFuture<F> {
    #[pin]
    kind: Kind<F>,
}

#[pin_project(project = KindProj)]
#[derive(Debug)]
enum Kind<F> {
    Called {
        #[pin]
        future: F,
    },
    Skipped,
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Verdict, E>>,
{
    type Output = Result<Verdict, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Called { future } => future.poll(cx),
            KindProj::Skipped => Poll::Ready(Ok(Verdict::Skipped)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tower::{service_fn, ServiceExt};

    fn counting(
        calls: Arc<AtomicUsize>,
    ) -> impl Service<HookRequest, Response = Verdict, Error = Infallible> + Clone {
        service_fn(move |_req: HookRequest| {
            calls.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, Infallible>(Verdict::Allow) }
        })
    }

    async fn run(pattern: &str, req: HookRequest) -> (Verdict, usize) {
        let calls = Arc::new(AtomicUsize::new(0));
        let svc = Matcher::new(counting(calls.clone()), Pattern::new(pattern).unwrap());
        let v = svc.oneshot(req).await.unwrap();
        (v, calls.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn skipped_hook_does_not_run() {
        let req = HookRequest::tool_execution_start("read", json!({}));
        assert_eq!(run("^bash$", req).await, (Verdict::Skipped, 0));
    }

    #[tokio::test]
    async fn star_matches_everything() {
        let req = HookRequest::input("x");
        assert_eq!(run("*", req).await, (Verdict::Allow, 1));
    }

    #[tokio::test]
    async fn regex_is_searched_not_anchored() {
        let req = HookRequest::tool_execution_start("mcp__github__push", json!({}));
        assert_eq!(run("github", req).await, (Verdict::Allow, 1));
    }

    #[tokio::test]
    async fn turn_count_matcher_scopes_to_the_first_turn() {
        assert_eq!(
            run("^1$", HookRequest::before_agent_start(1, "hi")).await.1,
            1
        );
        assert_eq!(
            run("^1$", HookRequest::before_agent_start(12, "hi"))
                .await
                .1,
            0
        );
    }

    #[tokio::test]
    async fn input_matcher_sees_the_empty_string() {
        assert_eq!(run("hello", HookRequest::input("hello world")).await.1, 0);
        assert_eq!(run("^$", HookRequest::input("hello world")).await.1, 1);
    }

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
    fn invalid_regex_is_an_error_naming_the_pattern() {
        let err = Pattern::new("(unclosed").unwrap_err();
        assert_eq!(err.pattern(), "(unclosed");
        assert!(err.to_string().contains("(unclosed"));
    }
}
