//! Dialects: the config files, event names, stdin envelope, answer format and
//! combination rule of each hook ecosystem.
//!
//! Each dialect is data plus pure functions: its names for the neutral points
//! ([`Event`](crate::Event)), its loader (file → [`HookSpec`](crate::HookSpec)s),
//! its encoder (request → stdin bytes and environment) and its decoder (exit
//! code, stdout and stderr → [`Verdict`](crate::Verdict)). The layers stay
//! dialect-blind.

pub mod agents;
pub mod claude;
pub mod nanopi;
