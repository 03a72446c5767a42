#![doc = include_str!("docs/crate.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod advisory;
pub mod agent;
pub mod chain;
pub mod command;
pub mod config;
pub mod event;
pub mod fail_open;
pub mod gate;
pub mod matcher;
pub mod outcome;
pub mod protocol;
pub mod report;
pub mod request;
pub mod spec;
pub mod stack;
mod suggest;
pub mod timeout;
pub mod tool;

pub use crate::agent::{AgentHooks, PromptDecision, ToolDecision};
pub use crate::config::{Config, ConfigError};
pub use crate::event::{BlockPolicy, Event, MatcherSubject, TransformScope, UnknownEvent};
pub use crate::matcher::{Pattern, PatternError};
pub use crate::outcome::{
    BlockCause, Decision, HookOutcome, HookRecord, NotAnObject, RecordOutcome, RunDetail, Verdict,
    DEFAULT_BLOCK_REASON,
};
pub use crate::request::{CompactionReason, Deadline, HookRequest, ShutdownReason, StartReason};
pub use crate::spec::{HookSpec, DEFAULT_TIMEOUT};
pub use crate::stack::{BoxHookStack, Builder, HookStack};
pub use crate::tool::{ToolCall, ToolHooks, ToolHooksLayer, ToolResult};

/// The boxed error type of hook services below the fail-open layer.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
