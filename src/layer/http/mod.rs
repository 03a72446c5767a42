//! The leaf of an HTTP hook (Claude Code's `http` handler): the event is
//! posted to a policy service rather than piped to a command. Feature `http`.
//!
//! Each run posts the hook's dialect envelope, the JSON a command hook of its
//! dialect would read on stdin, to the hook's URL with `Content-Type:
//! application/json` and the hook's headers, whose `$VAR` and `${VAR}` are
//! replaced for the names the hook lists in `allowedEnvVars` (every other name
//! by nothing). The values come from the stack's variables
//! ([`Builder::env`](crate::Builder::env)) and else from this process's
//! environment.
//!
//! | the response                | the hook's answer                                   |
//! |-----------------------------|-----------------------------------------------------|
//! | 2xx, empty body             | no opinion: the action goes ahead                   |
//! | 2xx, a JSON object          | read as that object printed by a command, exit 0    |
//! | 2xx, any other body         | a failure: the action goes ahead, the text is unused |
//! | another status (3xx too)    | a failure                                           |
//! | refused address, no connection, body over the limit | a failure                |
//! | past the hook's timeout     | a failure (Claude Code's "timed out after N s")     |
//!
//! A status never blocks: a server that means to block answers 2xx with the
//! decision (`{"decision": "block", "reason": "…"}`, or `hookSpecificOutput`).
//! A failure is an `error` record that lets the action proceed, or a block
//! for a hook with `onFailure: "block"` ([`HookSpec::fail_closed`]).
//!
//! Every address the URL's host resolves to, and an address written in the
//! URL, goes through the [`AddressGuard`] before any connection; redirects
//! are not followed (a 3xx is a failure), no proxy is used, and the response
//! body is read up to [`HttpSettings::max_response_bytes`] and no further.
//! Host names resolve through the system resolver, or through the
//! [`resolver`](HttpSettings::resolver) the host gives.
//!
//! ```no_run
//! use std::path::Path;
//! use tower_hooks::dialect::claude;
//! use tower_hooks::layer::http::{AddressGuard, HttpSettings};
//! use tower_hooks::HookStack;
//!
//! let settings = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//!     {"type": "http", "url": "http://10.20.0.7:8700/policy", "timeout": 5}
//! ]}]}}"#;
//! let path = Path::new("/p/.claude/settings.json");
//! let file = claude::config::parse(settings, path, &claude::config::Context::new("/p"))?;
//! let stack = HookStack::builder()
//!     // The team's policy service lives on a private network the guard refuses by default.
//!     .http(HttpSettings::new().guard(AddressGuard::new().allow("10.20.0.0/16".parse()?)))
//!     .command_hooks(claude::hook::specs(&file.handlers, Path::new("/p")))
//!     .build();
//! # drop(stack);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A hook of a spec made by hand is read by its dialect: nanopi's hooks have
//! no HTTP form, so such a spec posts nothing and fails (open, or closed when
//! the spec says so) with a message saying so; the Claude Code loader makes
//! the `http` handlers.

mod guard;

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::task::{Context, Poll};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use tower::util::BoxCloneSyncService;
use tower::ServiceExt;
use tower_service::Service;

pub use self::guard::{AddressGuard, Refused};
use crate::layer::fail_open::error_text;
use crate::outcome::Verdict;
use crate::process::BoxFuture;
use crate::request::HookRequest;
use crate::spec::{HookSpec, HttpTarget};
use crate::BoxError;
/// An address range, as [`AddressGuard::allow`] and [`AddressGuard::deny`]
/// take it (`"10.20.0.0/16".parse()`).
pub use ipnet::IpNet;

/// How a stack resolves a host name: a service from the name to its
/// addresses. The default asks the system resolver.
pub type Resolver = BoxCloneSyncService<String, Vec<IpAddr>, BoxError>;

/// The longest response body a hook's answer is read from, by default: 1 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// How a stack runs its HTTP hooks: the address guard, the resolver and the
/// longest response read. Given to [`Builder::http`](crate::Builder::http).
#[derive(Clone)]
pub struct HttpSettings {
    guard: AddressGuard,
    resolver: Option<Resolver>,
    max_response_bytes: usize,
}

impl fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSettings")
            .field("guard", &self.guard)
            .field("resolver", &self.resolver.as_ref().map(|_| "<resolver>"))
            .field("max_response_bytes", &self.max_response_bytes)
            .finish()
    }
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings::new()
    }
}

impl HttpSettings {
    /// The default guard, the system resolver, 1 MiB.
    pub fn new() -> Self {
        HttpSettings {
            guard: AddressGuard::new(),
            resolver: None,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        }
    }

    /// The guard every address goes through (default: [`AddressGuard::new`]).
    pub fn guard(mut self, guard: AddressGuard) -> Self {
        self.guard = guard;
        self
    }

    /// Resolves host names with `resolver` rather than the system resolver:
    /// a service from a host name to its addresses (a DNS-over-HTTPS client,
    /// a fixed table for tests). Its addresses still go through the guard.
    pub fn resolver<S>(mut self, resolver: S) -> Self
    where
        S: Service<String, Response = Vec<IpAddr>> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        let resolver = resolver.map_err(Into::into);
        self.resolver = Some(BoxCloneSyncService::new(resolver));
        self
    }

    /// The longest response body read (default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`]); a longer one is a failure, and is not
    /// read past the limit.
    pub fn max_response_bytes(mut self, max: usize) -> Self {
        self.max_response_bytes = max;
        self
    }
}

/// The leaf of an HTTP hook. See the [module docs](self).
#[derive(Clone)]
pub struct HttpHook {
    shared: Arc<Shared>,
}

struct Shared {
    /// The client, or why it could not be built.
    client: Result<reqwest::Client, String>,
    guard: Arc<AddressGuard>,
    max_response_bytes: usize,
    /// The stack's variables, which headers read before the environment.
    env: Arc<[(String, String)]>,
}

impl fmt::Debug for HttpHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpHook")
            .field("guard", &self.shared.guard)
            .field("max_response_bytes", &self.shared.max_response_bytes)
            .finish()
    }
}

impl HttpHook {
    /// A leaf posting with `settings`; `env` is what headers read first.
    pub fn new(settings: HttpSettings, env: Arc<[(String, String)]>) -> Self {
        let guard = Arc::new(settings.guard);
        let resolver = settings.resolver.unwrap_or_else(system_resolver);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("tower-hooks/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(Guarded {
                resolver,
                guard: guard.clone(),
            }))
            .build()
            .map_err(|e| format!("the HTTP client could not be set up: {e}"));
        HttpHook {
            shared: Arc::new(Shared {
                client,
                guard,
                max_response_bytes: settings.max_response_bytes,
                env,
            }),
        }
    }
}

impl Service<HookRequest> for HttpHook {
    type Response = Verdict;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Verdict, BoxError>>;

    // poll_ready: always ready; each run is one request of a shared client.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let shared = self.shared.clone();
        Box::pin(async move {
            let spec = req
                .hook()
                .cloned()
                .ok_or("an HTTP hook runs inside a chain")?;
            let target = spec
                .http_target()
                .ok_or("this hook has no URL to post to")?;
            if !spec.dialect().has_http_hooks() {
                // Nothing is posted for a dialect that could not read the answer.
                const NONE: &str = "this dialect has no HTTP hooks";
                return Ok(if spec.fail_closed() {
                    Verdict::failed_closed(NONE)
                } else {
                    Verdict::failed_open(NONE)
                });
            }
            let body = crate::dialect::input(&spec, &req);
            let posted = shared.post(&spec, target, body);
            let response = crate::dialect::within_deadline(&req, posted).await;
            let response = response
                .as_ref()
                .map(|(status, body)| (*status, &body[..]))
                .map_err(Clone::clone);
            let answer = crate::dialect::rules(&spec).http_answer(&spec, response);
            Ok(crate::dialect::settle(
                &req,
                answer,
                "this dialect has no HTTP hooks",
            ))
        })
    }
}

impl Shared {
    /// Posts `body` to the hook's URL; the status and the body, or why none.
    async fn post(
        &self,
        spec: &HookSpec,
        target: &HttpTarget,
        body: Vec<u8>,
    ) -> Result<(u16, Vec<u8>), String> {
        let client = self.client.as_ref().map_err(Clone::clone)?;
        let url = url::Url::parse(target.url())
            .map_err(|e| format!("{:?} is not a URL: {e}", target.url()))?;
        // An address in the URL itself is never resolved: judge it here.
        let literal = url
            .host_str()
            .map(|host| host.trim_start_matches('[').trim_end_matches(']'))
            .and_then(|host| host.parse::<IpAddr>().ok());
        if let Some(address) = literal {
            self.guard.check(address).map_err(|refused| {
                format!("refused to connect to {}: {refused}", url_shown(&url))
            })?;
        }
        let headers = headers(target, &self.env)?;
        let response = client
            .post(url.clone())
            .headers(headers)
            .body(body)
            .send()
            .await
            .map_err(|e| format!("could not post to {}: {}", url_shown(&url), error_text(&e)))?;
        let status = response.status().as_u16();
        let body = read_body(response, self.max_response_bytes)
            .await
            .map_err(|e| format!("{} ({})", e, url_shown(&url)))?;
        tracing::debug!(
            hook = spec.label(),
            status,
            bytes = body.len(),
            "HTTP hook answered"
        );
        Ok((status, body))
    }
}

/// The body of `response`, up to `max` bytes; a longer one is an error, and
/// the rest is not read.
async fn read_body(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, String> {
    if response
        .content_length()
        .is_some_and(|len| len > max as u64)
    {
        return Err(format!(
            "the policy server's answer is over {max} bytes; it was not read"
        ));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("the policy server's answer broke off: {}", error_text(&e)))?
    {
        if body.len() + chunk.len() > max {
            return Err(format!(
                "the policy server's answer is over {max} bytes; it was not read"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The URL without its user information, as messages show it.
fn url_shown(url: &reqwest::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string()
}

/// The request's headers: the content type, then the hook's, expanded.
fn headers(target: &HttpTarget, env: &[(String, String)]) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let lookup = |name: &str| {
        env.iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
            .or_else(|| std::env::var(name).ok())
    };
    for (name, value) in target.headers() {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("header {name:?} is not a valid header name"))?;
        let value = expand(value, target.allowed_env_vars(), lookup);
        let value = HeaderValue::from_str(&value).map_err(|_| {
            format!("header {name:?} holds a character no header value can carry (a line break?)")
        })?;
        map.insert(header, value);
    }
    Ok(map)
}

/// `value` with each `$NAME` and `${NAME}` replaced: by `lookup(NAME)` for a
/// name in `allowed` (nothing when it has no value), by nothing for any
/// other name. A `$` that starts no name stays.
///
/// ```
/// use tower_hooks::layer::http::expand;
///
/// let env = |name: &str| (name == "TOKEN").then(|| "s3cret".to_string());
/// let allowed = ["TOKEN".to_string()];
/// assert_eq!(expand("Bearer $TOKEN", &allowed, env), "Bearer s3cret");
/// assert_eq!(expand("Bearer ${TOKEN}!", &allowed, env), "Bearer s3cret!");
/// assert_eq!(expand("$HOME/${USER}", &allowed, env), "/");
/// assert_eq!(expand("costs $5 or ${", &allowed, env), "costs $5 or ${");
/// ```
pub fn expand(value: &str, allowed: &[String], lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, consumed) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) if crate::process::substitute::is_var_name(&braced[..end]) => {
                    (&braced[..end], end + 2)
                }
                _ => ("", 0),
            }
        } else {
            let end = after
                .char_indices()
                .find(|&(i, c)| {
                    !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
                })
                .map_or(after.len(), |(i, _)| i);
            (&after[..end], end)
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.iter().any(|a| a == name) {
            out.push_str(&lookup(name).unwrap_or_default());
        }
        rest = &after[consumed..];
    }
    out.push_str(rest);
    out
}

/// The system resolver (`getaddrinfo`, on tokio's blocking pool).
fn system_resolver() -> Resolver {
    BoxCloneSyncService::new(tower::service_fn(|host: String| async move {
        let addresses = tokio::net::lookup_host((host.as_str(), 0))
            .await
            .map_err(|e| format!("cannot resolve {host:?}: {e}"))?;
        Ok::<_, BoxError>(addresses.map(|a| a.ip()).collect())
    }))
}

/// The resolver reqwest asks: the host's resolver, then the guard.
struct Guarded {
    resolver: Resolver,
    guard: Arc<AddressGuard>,
}

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let resolver = self.resolver.clone();
        let guard = self.guard.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addresses = resolver.oneshot(host.clone()).await?;
            if addresses.is_empty() {
                return Err(format!("{host:?} resolves to no address").into());
            }
            // One refused address refuses the host: a name that answers a
            // public and a private address is no safer for the public one.
            for address in &addresses {
                guard
                    .check(*address)
                    .map_err(|refused| format!("refused to connect to {host}: {refused}"))?;
            }
            let addrs: reqwest::dns::Addrs = Box::new(
                addresses
                    .into_iter()
                    .map(|ip| SocketAddr::new(ip, 0))
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec made by hand for nanopi's dialect, which has no HTTP form,
    /// fails open and posts nothing.
    #[tokio::test]
    async fn a_dialect_without_http_hooks_posts_nothing() {
        use crate::{Event, HookSpec, HookStack, RecordOutcome};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/x", listener.local_addr().unwrap());
        let spec = HookSpec::command(Event::Input, "").with_http(HttpTarget::new(url));
        let stack = HookStack::builder().report(()).command_hook(spec).build();
        let outcome = stack.oneshot(HookRequest::input("hi")).await.unwrap();
        let record = &outcome.hooks()[0];
        assert_eq!(record.outcome(), RecordOutcome::Error);
        assert_eq!(record.reason(), Some("this dialect has no HTTP hooks"));
        // Failing closed, it blocks.
        let spec = HookSpec::command(Event::Input, "")
            .with_http(HttpTarget::new(format!(
                "http://{}/x",
                listener.local_addr().unwrap()
            )))
            .with_fail_closed(true);
        let stack = HookStack::builder().report(()).command_hook(spec).build();
        let outcome = stack.oneshot(HookRequest::input("hi")).await.unwrap();
        assert_eq!(
            outcome.reason(),
            Some("hook failed closed: this dialect has no HTTP hooks")
        );
        assert_eq!(
            listener.accept().unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "no connection was made"
        );
    }

    #[test]
    fn only_allowed_names_are_expanded() {
        let env = |name: &str| match name {
            "TOKEN" => Some("abc".to_string()),
            "SECRET" => Some("leak".to_string()),
            _ => None,
        };
        let allowed = ["TOKEN".to_string(), "UNSET".to_string()];
        assert_eq!(expand("$TOKEN-$SECRET-$UNSET", &allowed, env), "abc--");
        assert_eq!(expand("${TOKEN}${SECRET}x", &allowed, env), "abcx");
        assert_eq!(expand("$TOKEN_2", &allowed, env), "", "the longest name");
        assert_eq!(expand("a$", &allowed, env), "a$");
        assert_eq!(expand("${1x}", &allowed, env), "${1x}");
        assert_eq!(expand("$1", &allowed, env), "$1");
        assert_eq!(expand("é$TOKEN€", &allowed, env), "éabc€");
        assert_eq!(expand("plain", &[], env), "plain");
    }

    #[test]
    fn headers_read_the_stack_variables_first_and_refuse_line_breaks() {
        let env: Vec<(String, String)> = vec![
            ("TH_TEST_TOKEN".into(), "first".into()),
            ("TH_TEST_TOKEN".into(), "second".into()),
        ];
        let target = HttpTarget::new("http://127.0.0.1/")
            .with_header("Authorization", "Bearer $TH_TEST_TOKEN")
            .with_header("Content-Type", "application/vnd.policy+json")
            .with_allowed_env_var("TH_TEST_TOKEN");
        let map = headers(&target, &env).unwrap();
        assert_eq!(map["authorization"], "Bearer second");
        assert_eq!(map["content-type"], "application/vnd.policy+json");

        let broken = HttpTarget::new("http://127.0.0.1/").with_header("X-A", "a\nb");
        assert!(headers(&broken, &[]).unwrap_err().contains("\"X-A\""));
        let bad_name = HttpTarget::new("http://127.0.0.1/").with_header("Bad Name", "v");
        assert!(headers(&bad_name, &[])
            .unwrap_err()
            .contains("not a valid header name"));
    }
}
