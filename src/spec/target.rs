//! Where a hook that is no process goes: an HTTP hook's URL and headers, an
//! MCP tool hook's server, tool and arguments.

use serde_json::Value;

/// Where an HTTP hook (a Claude Code `http` handler) posts its event, and the
/// headers it sends along.
///
/// A header value may name environment variables as `$VAR` or `${VAR}`; only
/// the names in `allowed_env_vars` are replaced by their values, every other
/// one by nothing, so that a hooks file cannot send a secret it was not
/// granted. See [`layer::http`](crate::layer) (feature `http`).
///
/// ```
/// use tower_hooks::HttpTarget;
///
/// let target = HttpTarget::new("http://127.0.0.1:8700/policy")
///     .with_header("Authorization", "Bearer $POLICY_TOKEN")
///     .with_allowed_env_var("POLICY_TOKEN");
/// assert_eq!(target.url(), "http://127.0.0.1:8700/policy");
/// assert_eq!(target.headers()[0].0, "Authorization");
/// assert_eq!(target.allowed_env_vars(), ["POLICY_TOKEN"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    url: String,
    headers: Vec<(String, String)>,
    allowed_env_vars: Vec<String>,
}

impl HttpTarget {
    /// Posts to `url`, with no headers but the content type.
    pub fn new(url: impl Into<String>) -> Self {
        HttpTarget {
            url: url.into(),
            headers: Vec::new(),
            allowed_env_vars: Vec::new(),
        }
    }

    /// Adds a header; `$VAR` and `${VAR}` in `value` are expanded at each run
    /// for the allowed names.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Lets headers read the environment variable `name`.
    pub fn with_allowed_env_var(mut self, name: impl Into<String>) -> Self {
        self.allowed_env_vars.push(name.into());
        self
    }

    /// Keeps only the allowed variables that `keep` accepts (a settings-level
    /// outer limit, Claude Code's `httpHookAllowedEnvVars`).
    pub fn retain_env_vars(mut self, mut keep: impl FnMut(&str) -> bool) -> Self {
        self.allowed_env_vars.retain(|name| keep(name));
        self
    }

    /// The URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The headers, as written.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The environment variables the headers may read.
    pub fn allowed_env_vars(&self) -> &[String] {
        &self.allowed_env_vars
    }
}

/// Which tool an MCP tool hook calls, and with what: a handler's `server`,
/// `tool` and `input` ([`HookSpec::with_mcp`](crate::HookSpec::with_mcp)),
/// the call as written, before its `${path}` are filled.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTarget {
    call: McpRequest,
}

impl McpTarget {
    /// A call of `tool` on `server`, with no arguments.
    pub fn new(server: impl Into<String>, tool: impl Into<String>) -> Self {
        McpTarget {
            call: McpRequest::new(server, tool),
        }
    }

    /// Sets the arguments, whose strings may hold `${path}` ([`fill_input`](crate::layer::mcp::fill_input)).
    pub fn with_input(self, input: Value) -> Self {
        McpTarget {
            call: self.call.with_input(input),
        }
    }

    /// The server.
    pub fn server(&self) -> &str {
        &self.call.server
    }

    /// The tool.
    pub fn tool(&self) -> &str {
        &self.call.tool
    }

    /// The arguments, as written.
    pub fn input(&self) -> &Value {
        &self.call.input
    }
}

/// One call of an MCP tool.
///
/// ```
/// use serde_json::json;
/// use tower_hooks::layer::mcp::McpRequest;
///
/// let call = McpRequest::new("my_server", "security_scan").with_input(json!({"file_path": "a.rs"}));
/// assert_eq!((call.server.as_str(), call.tool.as_str()), ("my_server", "security_scan"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpRequest {
    /// The server, as the handler names it (`plugin:<plugin>:<server>` for a
    /// plugin's own server).
    pub server: String,
    /// The tool to call on it.
    pub tool: String,
    /// Its arguments: the handler's `input`, filled ([`fill_input`](crate::layer::mcp::fill_input)); an
    /// empty object when it has none.
    pub input: Value,
}

impl McpRequest {
    /// A call of `tool` on `server` with no arguments.
    pub fn new(server: impl Into<String>, tool: impl Into<String>) -> Self {
        McpRequest {
            server: server.into(),
            tool: tool.into(),
            input: Value::Object(Default::default()),
        }
    }

    /// Sets its arguments.
    pub fn with_input(mut self, input: Value) -> Self {
        self.input = input;
        self
    }
}
