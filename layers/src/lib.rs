//! Optional [tower] layers for [`tower_hooks`]: metrics, caching, audit and session records.
//!
//! Each is a `Layer` you add in one line, around the whole call or around each
//! hook, with [`Builder::around_call`] / [`Builder::around_hook`] or in your own
//! `ServiceBuilder` (this crate's [`ServiceBuilderExt`] names them):
//!
//! ```text
//! agent ── HookStack ── Gate ─ Advisory ─ (around_call: metrics) ─ Chain ─ per matching hook:
//!                                           FailOpen ─ (around_hook: audit ─ cache) ─ HookTimeout ─ Leaf
//! ```
//!
//! | module | feature | what it does | where it goes |
//! | --- | --- | --- | --- |
//! | [`metrics`] | `metrics` | counts and times hook runs, per event and per hook, through the [`metrics`](https://docs.rs/metrics) facade and an in-process snapshot | around the call (or each hook) |
//! | [`cache`] | `cache` | memoises the verdicts of the hooks you opt in, for a time-to-live | around each hook |
//! | [`audit`] | `audit` | appends one JSON line per hook run to a file, off the hot path | around each hook |
//! | [`record`] | `record` | writes every request the stack sees as one JSON line, for `hooks replay` | around the call |
//!
//! Every layer is behind its own cargo feature; `full` turns on all four.
//!
//! # Example
//!
//! All three on one stack:
//!
//! ```
//! # #[cfg(feature = "full")]
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use serde_json::json;
//! use tower::{ServiceBuilder, ServiceExt};
//! use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
//! use tower_hooks_layers::audit::AuditLayer;
//! use tower_hooks_layers::cache::CacheLayer;
//! use tower_hooks_layers::metrics::MetricsLayer;
//! use tower_hooks_layers::ServiceBuilderExt;
//!
//! let dir = tempfile::tempdir()?;
//! let (metrics, snapshot) = MetricsLayer::pair();
//! let (audit, audit_log) = AuditLayer::open(dir.path().join("audit.jsonl"))?;
//! let cache = CacheLayer::new(Duration::from_secs(60), 1024).hooks(["lint:0"]);
//!
//! let stack = HookStack::builder()
//!     .fn_hook(HookSpec::in_process(Event::ToolExecutionStart, "lint"), |_req: &HookRequest| {
//!         Verdict::Allow
//!     })
//!     .around_call(metrics)
//!     .around_hook(ServiceBuilder::new().audit(audit).cache(cache))
//!     .build();
//!
//! for _ in 0..2 {
//!     let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
//!     assert!(!stack.clone().oneshot(req).await?.is_blocked());
//! }
//! audit_log.shutdown().await;
//!
//! let counts = snapshot.snapshot().hook(Event::ToolExecutionStart, "lint:0").unwrap().counts;
//! assert_eq!(counts.allow, 2);
//! assert_eq!(audit_log.written(), 2);
//! # Ok(()) }
//! # #[cfg(not(feature = "full"))] fn main() {}
//! ```
//!
//! [`Builder::around_call`]: tower_hooks::Builder::around_call
//! [`Builder::around_hook`]: tower_hooks::Builder::around_hook
//! [tower]: https://docs.rs/tower

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
// The module table above links every module; a build without all of them has gaps.
#![cfg_attr(not(feature = "full"), allow(rustdoc::broken_intra_doc_links))]

// First: its macro is in scope in the modules below.
#[cfg(any(
    feature = "audit",
    feature = "cache",
    feature = "metrics",
    feature = "record"
))]
#[macro_use]
mod macros;

#[cfg(any(feature = "audit", feature = "record"))]
mod time;

mod builder;

#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub mod audit;

#[cfg(feature = "cache")]
#[cfg_attr(docsrs, doc(cfg(feature = "cache")))]
pub mod cache;

#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub mod metrics;

#[cfg(feature = "record")]
#[cfg_attr(docsrs, doc(cfg(feature = "record")))]
pub mod record;

pub use crate::builder::ServiceBuilderExt;

// The README's example runs as a doc test, so that it cannot drift.
#[cfg(all(doctest, feature = "full"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

mod sealed {
    #[allow(unreachable_pub)]
    pub trait Sealed<T> {}
}
