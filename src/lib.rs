#![doc = include_str!("docs/crate.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

// First: its macros are in scope in the modules below.
#[macro_use]
mod macros;

pub mod agent;
pub mod config;
pub mod dialect;
pub mod event;
pub mod host;
pub mod layer;
pub mod outcome;
pub mod pattern;
pub mod process;
mod profile;
pub mod report;
pub mod request;
pub mod spec;
pub mod stack;
mod suggest;
mod sync;

pub use crate::agent::tool::{ToolCall, ToolHooks, ToolHooksLayer, ToolResult};
pub use crate::agent::{
    AgentHooks, Approval, ApprovalRequest, PermissionDecision, PromptDecision, StopDecision,
    ToolDecision,
};
pub use crate::config::{Config, ConfigError};
pub use crate::event::{BlockPolicy, Event, MatcherSubject, TransformScope, UnknownEvent};
pub use crate::host::Host;
pub use crate::outcome::{
    BlockCause, Decision, HookOutcome, HookRecord, NotAnObject, Notes, RecordOutcome, RunDetail,
    Verdict, DEFAULT_BLOCK_REASON,
};
pub use crate::pattern::{Pattern, PatternError};
pub use crate::request::{
    CompactionReason, Deadline, HookRequest, ShutdownReason, StartReason, ToolKind,
};
pub use crate::spec::{
    Dialect, FailClosedPolicy, HookKind, HookSpec, HttpTarget, Scope, DEFAULT_TIMEOUT,
};
pub use crate::stack::{BoxHookStack, Builder, HookStack};

/// The boxed error type of hook services below the fail-open layer.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
