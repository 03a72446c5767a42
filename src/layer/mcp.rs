//! The leaf of an MCP tool hook: Claude Code's `mcp_tool` handlers, which
//! call a tool of an MCP server rather than run a command.
//!
//! The host owns its MCP connections; it hands the stack an [`McpClient`], a
//! `tower::Service` from an [`McpRequest`] (server, tool, arguments) to the
//! tool's text output ([`Builder::mcp`](crate::Builder::mcp)). For each run
//! the handler's `input` is filled from the hook's input, the object a
//! command hook of its dialect would read on stdin: in every string of it,
//! `${path}` (`${tool_input.file_path}`) stands for the value at that dotted
//! path, a string as it is and any other value as JSON text, nothing when the
//! path leads nowhere ([`fill_input`]). The tool's text is then read as the
//! dialect reads a command's stdout on exit 0.
//!
//! A client that fails (the server is not connected, the tool answers
//! `isError: true`: the host's client returns an error for both) or answers
//! past the hook's timeout is a failure that lets the action proceed (an
//! `error` record), unless the hook fails closed.
//!
//! ```
//! use serde_json::json;
//! use tower_hooks::layer::mcp::fill_input;
//!
//! let input = json!({"tool_input": {"file_path": "src/a.rs", "n": 2}});
//! let filled = fill_input(&json!({"path": "${tool_input.file_path}", "why": "n=${tool_input.n}${nope}"}), &input);
//! assert_eq!(filled, json!({"path": "src/a.rs", "why": "n=2"}));
//! ```

use std::fmt;
use std::task::{Context, Poll};

use serde_json::Value;
use tower::util::BoxCloneSyncService;
use tower::ServiceExt;
use tower_service::Service;

use crate::outcome::Verdict;
use crate::process::BoxFuture;
use crate::request::HookRequest;
pub use crate::spec::target::McpRequest;
pub use crate::spec::McpTarget;
use crate::BoxError;

/// What a stack asks the host's MCP client: a tool call in, the tool's text
/// out.
pub type McpClient = BoxCloneSyncService<McpRequest, String, BoxError>;

/// `template` with `${path}` in each of its strings replaced by the value
/// at that dotted path of `input` (an array's items by their index): a
/// string as it is, any other value as JSON text, nothing for a path that
/// leads nowhere. Keys and non-string values stay as written.
pub fn fill_input(template: &Value, input: &Value) -> Value {
    match template {
        Value::String(text) => Value::String(fill_text(text, input)),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill_input(v, input)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| (key.clone(), fill_input(v, input)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn fill_text(text: &str, input: &Value) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let Some(len) = rest[at + 2..].find('}') else {
            break;
        };
        out.push_str(&rest[..at]);
        let path = &rest[at + 2..at + 2 + len];
        match lookup(input, path) {
            Some(Value::String(s)) => out.push_str(s),
            Some(value) => out.push_str(&value.to_string()),
            None => {}
        }
        rest = &rest[at + 2 + len + 1..];
    }
    out.push_str(rest);
    out
}

fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(value, |value, key| match value {
        Value::Object(map) => map.get(key),
        Value::Array(items) => items.get(key.parse::<usize>().ok()?),
        _ => None,
    })
}

/// The leaf of an MCP tool hook. See the [module docs](self).
#[derive(Clone)]
pub struct McpHook {
    client: McpClient,
}

impl fmt::Debug for McpHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("McpHook")
    }
}

impl McpHook {
    /// A leaf that calls tools through `client`.
    pub fn new(client: McpClient) -> Self {
        McpHook { client }
    }
}

impl Service<HookRequest> for McpHook {
    type Response = Verdict;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Verdict, BoxError>>;

    // poll_ready: the client's.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.client.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let client = self.client.clone();
        let client = std::mem::replace(&mut self.client, client);
        Box::pin(async move {
            let spec = req
                .hook()
                .cloned()
                .ok_or("an MCP tool hook runs inside a chain")?;
            let target = spec
                .mcp_target()
                .ok_or("this hook names no MCP tool to call")?;
            let input = crate::dialect::input(&spec, &req);
            let input: Value = serde_json::from_slice(&input).unwrap_or(Value::Null);
            let call = McpRequest {
                server: target.server().to_owned(),
                tool: target.tool().to_owned(),
                input: fill_input(target.input(), &input),
            };
            let called = client.oneshot(call);
            let called = async {
                called.await.map_err(|e| {
                    format!(
                        "the MCP tool {} of {} failed: {e}",
                        target.tool(),
                        target.server()
                    )
                })
            };
            let text = crate::dialect::within_deadline(&req, called).await;
            let answer = crate::dialect::rules(&spec).mcp_answer(&spec, text);
            Ok(crate::dialect::settle(
                &req,
                answer,
                "this dialect has no MCP tool hooks",
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_fill_strings_and_nothing_else() {
        let input = json!({"tool_input": {"files": ["a", "b"], "deep": {"x": null}}, "cwd": "/p"});
        let template = json!({
            "first": "${tool_input.files.0}",
            "list": ["${cwd}/${tool_input.files.1}", 3],
            "null": "${tool_input.deep.x}",
            "open": "${cwd",
            "${cwd}": true
        });
        assert_eq!(
            fill_input(&template, &input),
            json!({"first": "a", "list": ["/p/b", 3], "null": "null", "open": "${cwd", "${cwd}": true})
        );
    }
}
