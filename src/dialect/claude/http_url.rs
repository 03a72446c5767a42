//! The URLs of `http` handlers and the patterns of `allowedHttpHookUrls`, read
//! by the `url` crate: the parser the HTTP client requests with, so that the
//! URL a pattern is matched against is the URL that is posted to.

use std::cell::RefCell;

use url::{ParseError, Position, SyntaxViolation, Url};

use super::glob::glob;

/// `text` as the `url` crate reads it, with what it had to overlook.
fn read(text: &str) -> (Result<Url, ParseError>, Vec<SyntaxViolation>) {
    let seen = RefCell::new(Vec::new());
    let record = |violation| seen.borrow_mut().push(violation);
    let url = Url::options()
        .syntax_violation_callback(Some(&record))
        .parse(text);
    (url, seen.into_inner())
}

/// Whether `text` starts with `prefix`, ignoring ASCII case.
fn starts_with_ignoring_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
}

/// The URL an `http` handler posts to: an absolute `http://` or `https://` URL
/// with a host, without spaces or control characters; or what is wrong with
/// it.
pub(crate) fn handler_url(text: &str) -> Result<Url, &'static str> {
    checked(text).map(|(url, _)| url)
}

/// [`handler_url`], with what the `url` crate overlooked to read it.
fn checked(text: &str) -> Result<(Url, Vec<SyntaxViolation>), &'static str> {
    if !starts_with_ignoring_case(text, "http://") && !starts_with_ignoring_case(text, "https://") {
        return Err("it must start with http:// or https://");
    }
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("it holds a space or a control character");
    }
    let (url, violations) = read(text);
    let url = url.map_err(|err| match err {
        ParseError::EmptyHost => "it has no host",
        ParseError::InvalidPort => "its port is not a number from 0 to 65535",
        ParseError::InvalidIpv4Address | ParseError::InvalidIpv6Address => {
            "its host is not a valid IP address"
        }
        ParseError::IdnaError | ParseError::InvalidDomainCharacter => {
            "its host is not a valid domain name"
        }
        _ => "it is not a URL",
    })?;
    // `http:///x` reads as `http://x/`: more slashes than the two, and no host
    // where the text has one.
    if violations.contains(&SyntaxViolation::ExpectedDoubleSlash) {
        return Err("it has no host");
    }
    Ok((url, violations))
}

/// The URL requested for `text`, when it is requested where its text says:
/// none for a URL with user information (`http://localhost:1@elsewhere/` goes
/// to `elsewhere`), a backslash (read as `/`), a `.` or `..` path segment,
/// however encoded (`/allowed/../admin` asks for `/admin`), or an encoded `/`
/// or `\` in its path (`%2F`, `%5C`: a server that decodes them sees other
/// segments than the text has).
pub(crate) fn as_requested(text: &str) -> Option<Url> {
    let (url, violations) = checked(text).ok()?;
    let misread = violations.iter().any(|violation| {
        matches!(
            violation,
            SyntaxViolation::Backslash
                | SyntaxViolation::EmbeddedCredentials
                | SyntaxViolation::UnencodedAtSign
                | SyntaxViolation::ExpectedDoubleSlash
                | SyntaxViolation::C0SpaceIgnored
                | SyntaxViolation::TabOrNewlineIgnored
        )
    });
    if misread || !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    // The `url` crate removes dot segments without a word: look for them in
    // the text, up to its query. (The text has no backslash here, so `/` is
    // the only separator.)
    let before_query = text.split(['?', '#']).next().unwrap_or(text);
    let dot_segment = before_query.split('/').any(|segment| {
        let segment = segment.to_ascii_lowercase().replace("%2e", ".");
        segment == "." || segment == ".."
    });
    let path = url.path().to_ascii_lowercase();
    if dot_segment || path.contains("%2f") || path.contains("%5c") {
        return None;
    }
    Some(url)
}

/// A pattern of `allowedHttpHookUrls`, in parts: `*` alone allows every URL;
/// otherwise `scheme://host[:port][/path][?query]`, where `*` in each part is
/// any run of characters within that part.
#[derive(Debug)]
pub(crate) enum UrlPattern {
    /// `*`: every URL.
    Any,
    /// The pattern as it reads for each scheme its scheme part allows.
    Parts(Vec<Parts>),
}

/// A pattern read for one scheme.
#[derive(Debug)]
pub(crate) struct Parts {
    scheme: &'static str,
    /// The host as the `url` crate writes it (lower case, IDNA, an IPv4
    /// address in dotted decimal, an IPv6 one in brackets), `*` kept.
    host: String,
    /// The port; none for any (`:*`).
    port: Option<u16>,
    /// The path, normalised as the `url` crate normalises a URL's; none for
    /// any path and anything after it (a pattern that ends with `*` in its
    /// host or port, as `http://localhost:*`).
    path: Option<String>,
    /// The query and fragment as written (`?…#…`), empty for none.
    beyond: String,
}

impl UrlPattern {
    /// Reads `pattern`; none when it is no URL pattern (it then matches
    /// nothing).
    pub(crate) fn parse(pattern: &str) -> Option<UrlPattern> {
        if pattern == "*" {
            return Some(UrlPattern::Any);
        }
        let (scheme, rest) = pattern.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        // The `url` crate reads no `*` port: take it off before it reads the
        // rest, and compare ports here.
        let authority_end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
        let (authority, after) = rest.split_at(authority_end);
        let (host, any_port) = match authority.strip_suffix(":*") {
            Some(host) => (host, true),
            None => (authority, false),
        };
        // A `*` that ends the pattern in its authority stands for the rest of
        // the URL, as it does in the text: `http://localhost:*`, `http://*`.
        let open_end = after.is_empty() && authority.ends_with('*');
        let mut parts = Vec::new();
        for known in ["http", "https"] {
            if !glob(&scheme, known) {
                continue;
            }
            let (url, violations) = read(&format!("{known}://{host}{after}"));
            let url = url.ok()?;
            // A pattern with user information names no host a request goes to.
            if violations.iter().any(|v| {
                matches!(
                    v,
                    SyntaxViolation::EmbeddedCredentials | SyntaxViolation::UnencodedAtSign
                )
            }) {
                return None;
            }
            let port = if any_port || open_end {
                None
            } else {
                Some(url.port_or_known_default()?)
            };
            parts.push(Parts {
                scheme: known,
                host: url.host_str()?.to_owned(),
                port,
                path: (!open_end).then(|| url.path().to_owned()),
                beyond: url[Position::AfterPath..].to_owned(),
            });
        }
        if parts.is_empty() {
            return None;
        }
        Some(UrlPattern::Parts(parts))
    }

    /// Whether the pattern allows `url` (a URL [`as_requested`] returned):
    /// scheme, host, port and path each match their part of the pattern; a
    /// query or fragment matches the pattern's, and without one in the
    /// pattern only a pattern whose path ends with `*` allows one. A query or
    /// fragment never stands in for a path: `http://h:*/allow*` does not
    /// allow `http://h:1/deny?/allow`.
    pub(crate) fn matches(&self, url: &Url) -> bool {
        let UrlPattern::Parts(parts) = self else {
            return true;
        };
        let Some(host) = url.host_str() else {
            return false;
        };
        let beyond = &url[Position::AfterPath..];
        parts.iter().any(|parts| {
            parts.scheme == url.scheme()
                && glob(&parts.host, host)
                && parts
                    .port
                    .is_none_or(|port| Some(port) == url.port_or_known_default())
                && parts.path.as_deref().is_none_or(|path| {
                    glob(path, url.path())
                        && if parts.beyond.is_empty() {
                            beyond.is_empty() || path.ends_with('*')
                        } else {
                            glob(&parts.beyond, beyond)
                        }
                })
        })
    }
}

/// The host of a URL a tool is given (`WebFetch`'s `url`), lower case, as the
/// `url` crate reads it; none when it reads no host.
pub(crate) fn host_of(text: &str) -> Option<String> {
    Url::parse(text).ok()?.host_str().map(|host| {
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned()
    })
}

/// A domain pattern (`*.example.com`) as the `url` crate writes a host: lower
/// case, an international name in its ASCII form (`*` kept).
pub(crate) fn domain_pattern(pattern: &str) -> String {
    match url::Host::parse(pattern) {
        Ok(host) => host
            .to_string()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned(),
        Err(_) => pattern.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allows(pattern: &str, url: &str) -> bool {
        let pattern = UrlPattern::parse(pattern).expect(pattern);
        as_requested(url).is_some_and(|url| pattern.matches(&url))
    }

    #[test]
    fn a_star_port_never_swallows_the_path() {
        let pattern = "http://127.0.0.1:*/allow*";
        assert!(allows(pattern, "http://127.0.0.1:18700/allow"));
        assert!(allows(pattern, "http://127.0.0.1:18700/allowed/x"));
        assert!(allows(pattern, "http://127.0.0.1:18700/allow?x=1"));
        for url in [
            "http://127.0.0.1:18700/deny?/allow",
            "http://127.0.0.1:18700?/allow",
            "http://127.0.0.1:18700#/allow",
            "http://127.0.0.1:18700/deny#/allow",
            "http://127.0.0.1:18700/?/allow",
            "http://127.0.0.1:18700/deny/allow",
        ] {
            assert!(!allows(pattern, url), "{url}");
        }
    }

    #[test]
    fn a_query_or_fragment_needs_the_pattern_to_allow_one() {
        assert!(allows("http://h/hook", "http://h/hook"));
        assert!(!allows("http://h/hook", "http://h/hook?x"));
        assert!(!allows("http://h/hook", "http://h/hook#x"));
        assert!(allows("http://h/hook?v=*", "http://h/hook?v=2"));
        assert!(!allows("http://h/hook?v=*", "http://h/hook"));
        assert!(!allows("http://h/hook?v=*", "http://h/other?v=2"));
        assert!(!allows("http://h/*?v=1", "http://h/x?v=2"));
    }

    #[test]
    fn scheme_host_and_port_are_compared_apart() {
        assert!(allows("http://localhost:*", "http://localhost:8700/hook?x"));
        assert!(!allows("http://localhost:*", "https://localhost:8700/"));
        assert!(!allows("http://localhost:*", "http://localhost.evil/"));
        // A default port is the same port written or not.
        assert!(allows("https://h.example/x", "https://h.example:443/x"));
        assert!(allows("https://h.example:443/x", "https://h.example/x"));
        assert!(!allows("https://h.example/x", "https://h.example:8443/x"));
        // A wildcard host matches hosts, never a port or a path.
        let sub = "https://*.example.com/allowed/*";
        assert!(allows(sub, "https://a.b.example.com/allowed/x"));
        assert!(!allows(sub, "https://policy.example.com:6379/allowed/x"));
        assert!(!allows(sub, "https://evil.test#.example.com/allowed/x"));
        assert!(!allows(sub, "https://evil.test/.example.com/allowed/x"));
        assert!(!allows(sub, "https://evil.test?.example.com/allowed/x"));
        // Hosts compare as the client reads them.
        assert!(allows("http://127.0.0.1:*/", "http://0x7f.0.0.1:9/"));
        assert!(allows("https://*.Example.COM/", "https://A.example.com/"));
        assert!(allows("http://bücher.de/", "http://xn--bcher-kva.de/"));
        assert!(allows("http://[::1]:*/x", "http://[0:0::1]:9/x"));
        // A wildcard scheme.
        assert!(allows("http*://h/x", "https://h/x"));
        assert!(allows("*://h:*/x", "http://h:1/x"));
        assert!(allows("*", "http://anything.example/x?y#z"));
    }

    #[test]
    fn a_url_not_requested_where_its_text_says_matches_nothing() {
        for url in [
            "http://localhost:1@elsewhere.example/",
            "http://@localhost/",
            "http://localhost\\@elsewhere/",
            "http://localhost/allowed/../admin",
            "http://localhost/allowed/%2E%2e/admin",
            "http://localhost/allowed/.%2E",
            "http://localhost/allowed/./x",
            "http://localhost/allowed%2F..%2Fadmin",
            "http://localhost/allowed%5c..%5cadmin",
        ] {
            assert!(as_requested(url).is_none(), "{url}");
            assert!(!allows("*", url), "{url}");
        }
        // A dot inside a segment, or after the path, is not a dot segment.
        assert!(allows("*", "http://localhost/a.b/..c/x?../y"));
    }

    #[test]
    fn handler_urls_say_what_is_wrong() {
        assert!(handler_url("HTTPS://h/").is_ok());
        for (url, reason) in [
            ("ftp://x/y", "it must start with http:// or https://"),
            ("http:h/x", "it must start with http:// or https://"),
            ("http:///x", "it has no host"),
            ("http://:80/", "it has no host"),
            ("http://a b/", "it holds a space or a control character"),
            (
                "http://h:70000/",
                "its port is not a number from 0 to 65535",
            ),
            ("http://[::1/", "its host is not a valid IP address"),
        ] {
            assert_eq!(handler_url(url).unwrap_err(), reason, "{url}");
        }
    }

    #[test]
    fn a_pattern_that_is_no_url_pattern_matches_nothing() {
        for pattern in [
            "",
            "localhost*",
            "ftp://h/",
            "http://user@h/",
            "http://h:x/",
        ] {
            assert!(UrlPattern::parse(pattern).is_none(), "{pattern}");
        }
    }

    #[test]
    fn web_fetch_hosts_are_read_by_the_url_crate() {
        assert_eq!(
            host_of("http://user@EXAMPLE.com:8080/").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            host_of("https://evil.test#@example.com/").as_deref(),
            Some("evil.test")
        );
        assert_eq!(
            host_of("https://evil.test\\@example.com/").as_deref(),
            Some("evil.test")
        );
        assert_eq!(host_of("https://[::1]/").as_deref(), Some("::1"));
        assert_eq!(host_of("not a url"), None);
        assert_eq!(domain_pattern("*.Bücher.DE"), "*.xn--bcher-kva.de");
    }
}
