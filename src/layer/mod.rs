//! The layers of the stack, one module each, and the command leaf at its bottom.
//!
//! ```text
//! Gate ─ Advisory ─ (your layers around the call) ─ Chain ─ per matching hook:
//!     FailOpen ─ (your layers around each hook) ─ HookTimeout ─ Command (or a model,
//!     HTTP or MCP tool hook)
//! ```
//!
//! Each is dialect-blind: what differs per dialect comes from the hook's spec.

pub mod advisory;
pub mod chain;
pub mod command;
pub mod fail_open;
pub mod gate;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
pub mod matcher;
pub mod mcp;
pub mod model;
pub mod timeout;
