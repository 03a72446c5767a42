//! The settings-level gates of `http` handlers, added up over a load.

use super::HooksFile;
use crate::dialect::claude::http_url;

/// The settings-level gates of `http` handlers, added up over the files of a
/// load (Claude Code merges them across its settings files):
/// `allowedHttpHookUrls`, the URL patterns handlers may post to, and
/// `httpHookAllowedEnvVars`, the outer limit on what their headers may read.
/// A gate no file sets lets everything through; a gate set to an empty list
/// lets nothing through.
///
/// ```
/// use tower_hooks::dialect::claude::config::HttpGates;
///
/// let mut gates = HttpGates::default();
/// assert!(gates.allows_url("https://anything.example/x"));
/// gates.add_urls(["https://policy.example.com/*", "http://127.0.0.1:*"]);
/// assert!(gates.allows_url("https://policy.example.com/v1/check"));
/// assert!(gates.allows_url("http://127.0.0.1:8700/hook"));
/// assert!(!gates.allows_url("https://evil.example/policy.example.com/"));
///
/// gates.add_env_vars(Vec::<String>::new());
/// assert!(!gates.allows_env_var("HOME"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpGates {
    urls: Option<Vec<String>>,
    env_vars: Option<Vec<String>>,
}

impl HttpGates {
    /// The gates of `files`, added up.
    pub fn of<'a>(files: impl IntoIterator<Item = &'a HooksFile>) -> Self {
        let mut gates = HttpGates::default();
        for file in files {
            gates.add(file);
        }
        gates
    }

    /// Adds a file's gates.
    pub fn add(&mut self, file: &HooksFile) {
        if let Some(urls) = &file.allowed_http_hook_urls {
            self.add_urls(urls.iter().cloned());
        }
        if let Some(names) = &file.http_hook_allowed_env_vars {
            self.add_env_vars(names.iter().cloned());
        }
    }

    /// Adds URL patterns (and sets the gate, even with none).
    pub fn add_urls<S: Into<String>>(&mut self, patterns: impl IntoIterator<Item = S>) {
        self.urls
            .get_or_insert_with(Vec::new)
            .extend(patterns.into_iter().map(Into::into));
    }

    /// Adds variable names (and sets the gate, even with none).
    pub fn add_env_vars<S: Into<String>>(&mut self, names: impl IntoIterator<Item = S>) {
        self.env_vars
            .get_or_insert_with(Vec::new)
            .extend(names.into_iter().map(Into::into));
    }

    /// Whether an `http` handler may post to `url`: no file set
    /// `allowedHttpHookUrls`, or one of its patterns allows the URL.
    ///
    /// The URL and each pattern are read by the `url` crate, the parser the
    /// HTTP client requests with, and compared part by part: the scheme, the
    /// host (`*` for any run of characters), the port (`:*` for any) and the
    /// path, normalised as the client normalises it, each against its own
    /// part of the pattern. So a `*` written for a port or a subdomain stays
    /// in its part: it never swallows a path, a `?` or a `#` and names
    /// another host or path. A query or fragment in the URL needs one in the
    /// pattern that matches it, or a pattern whose path ends with `*`; it
    /// never stands in for the path (`http://127.0.0.1:*/allow*` does not
    /// allow `http://127.0.0.1:8700/deny?/allow`). A pattern that ends with
    /// `*` in its host or port (`http://localhost:*`) allows every path of
    /// the hosts and ports it names; `*` alone allows every URL. A pattern
    /// that is no URL pattern (`localhost*`) allows nothing.
    ///
    /// A URL whose request would go elsewhere than its text says is matched
    /// by none: one with user information (`http://localhost:1@elsewhere/`
    /// goes to `elsewhere`), a backslash, a `.` or `..` path segment, however
    /// encoded (`/allowed/../admin` asks for `/admin`), or an encoded `/` or
    /// `\` in its path.
    ///
    /// ```
    /// use tower_hooks::dialect::claude::config::HttpGates;
    ///
    /// let mut gates = HttpGates::default();
    /// gates.add_urls(["http://localhost:*", "https://*.example.com/allowed/*"]);
    /// assert!(gates.allows_url("http://localhost:8700/hook"));
    /// assert!(gates.allows_url("https://policy.example.com/allowed/check"));
    /// assert!(!gates.allows_url("http://localhost:1@elsewhere.example:80/x"));
    /// assert!(!gates.allows_url("https://policy.example.com/allowed/../admin"));
    /// assert!(!gates.allows_url("https://policy.example.com/allowed/%2E%2e/admin"));
    /// assert!(!gates.allows_url("https://evil.test#.example.com/allowed/x"));
    /// assert!(!gates.allows_url("https://policy.example.com:6379/.example.com/allowed/x"));
    ///
    /// gates.add_urls(["http://127.0.0.1:*/allow*"]);
    /// assert!(gates.allows_url("http://127.0.0.1:8700/allowed"));
    /// assert!(!gates.allows_url("http://127.0.0.1:8700/deny?/allow"));
    /// assert!(!gates.allows_url("http://127.0.0.1:8700#/allow"));
    /// ```
    pub fn allows_url(&self, url: &str) -> bool {
        let Some(patterns) = &self.urls else {
            return true;
        };
        let Some(url) = http_url::as_requested(url) else {
            return false;
        };
        patterns
            .iter()
            .filter_map(|pattern| http_url::UrlPattern::parse(pattern))
            .any(|pattern| pattern.matches(&url))
    }

    /// Whether a header may read the variable `name` (when its handler lists
    /// it in `allowedEnvVars`).
    pub fn allows_env_var(&self, name: &str) -> bool {
        self.env_vars
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }

    /// The URL patterns, if a file set any.
    pub fn url_patterns(&self) -> Option<&[String]> {
        self.urls.as_deref()
    }
}
