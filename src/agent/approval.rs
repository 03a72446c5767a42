//! Asking a person: what the tool layer hands its approver when a
//! `tool_execution_start` hook answers `ask`, and what it gets back.

use tower::util::BoxCloneSyncService;
use tower::ServiceExt;
use tower_service::Service;

use super::call::ToolCall;
use crate::BoxError;

/// A tool call that a hook said a person must approve, handed to the
/// [approver](super::tool::ToolHooksLayer::with_approver).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The call that runs if it is approved: its arguments are the ones the
    /// hooks left (a transform next to the ask still applies).
    pub call: ToolCall,
    /// Why approval is needed: the asking hook's reason (possibly empty).
    pub reason: String,
}

impl ApprovalRequest {
    /// A request to approve `call`, for `reason`.
    pub fn new(call: ToolCall, reason: impl Into<String>) -> Self {
        ApprovalRequest {
            call,
            reason: reason.into(),
        }
    }
}

/// A person's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run the call.
    Approve,
    /// Do not run it; the model sees `denied by approver: <reason>` as an
    /// error (`denied by approver` when the reason is empty).
    Deny(String),
}

/// The approver, boxed: one type whatever service it is, cheap to clone.
pub(crate) type Approver = BoxCloneSyncService<ApprovalRequest, Approval, BoxError>;

/// Boxes `approver`, its error made a [`BoxError`].
pub(crate) fn boxed<A>(approver: A) -> Approver
where
    A: Service<ApprovalRequest, Response = Approval> + Clone + Send + Sync + 'static,
    A::Error: Into<BoxError>,
    A::Future: Send + 'static,
{
    BoxCloneSyncService::new(approver.map_err(Into::into as fn(A::Error) -> BoxError))
}

/// The text the model sees when the approver denied the call.
pub(crate) fn denial_text(reason: &str) -> String {
    if reason.is_empty() {
        String::from("denied by approver")
    } else {
        format!("denied by approver: {reason}")
    }
}
