//! The steps of a chain's run: starting a group, driving its members,
//! recording a hook's span and run, and the outcome at the end.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use tower_service::Service;
use tracing::Span;

use crate::event::{Event, TransformScope};
use crate::outcome::{Decision, HookOutcome, HookRecord, Notes, Records, RunSlot, Verdict};
use crate::request::HookRequest;
use crate::spec::HookSpec;

use super::{Member, MemberState, Offload, Slot, State};

/// The group of consecutive hooks of `hooks[from]`'s dialect, which runs them
/// at once. Its background hooks stand in the group's place in the records, and
/// never stop it.
pub(super) fn start_group<S>(
    hooks: &[Slot<S>],
    from: usize,
    request: &HookRequest,
    offload: Option<&Offload<S>>,
    event: Event,
) -> State<S>
where
    S: Service<HookRequest> + Clone,
{
    let end = group_end(hooks, from);
    let members = (from..end)
        .map(|index| {
            let slot = &hooks[index];
            let background = offload.filter(|_| slot.spec.runs_in_background());
            let state = match background {
                _ if !slot.applies(request) => MemberState::Absent,
                _ if !slot.runs_for(request, hooks) => MemberState::Skipped,
                Some(offload) => MemberState::Offloaded(offload.run(slot, request)),
                None => {
                    let (service, span) = slot.parts(event);
                    MemberState::Waiting { service, span }
                }
            };
            Member { index, state }
        })
        .collect();
    State::Group { members, end }
}

/// The end of the group that starts at `hooks[from]`: the run of consecutive
/// hooks of its dialect.
pub(super) fn group_end<S>(hooks: &[Slot<S>], from: usize) -> usize {
    let dialect = hooks[from].spec.dialect();
    from + hooks[from..]
        .iter()
        .take_while(|slot| slot.spec.dialect() == dialect)
        .count()
}

/// Polls a hook's service ready and calls it (both in its span) with the
/// request, tagged with its spec and, for a command hook, a slot for what its
/// process did (an in-process hook costs no slot).
pub(super) fn call_when_ready<S>(
    service: &mut S,
    span: &Span,
    spec: &Arc<HookSpec>,
    request: &HookRequest,
    cx: &mut Context<'_>,
) -> Poll<(S::Future, Option<RunSlot>)>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible>,
{
    let _entered = span.enter();
    let Ok(()) = ready!(service.poll_ready(cx));
    let run = spec.leaves_notes().then(RunSlot::default);
    let mut req = request.clone().with_hook(spec.clone());
    if let Some(run) = &run {
        req = req.with_run_slot(run.clone());
    }
    Poll::Ready((service.call(req), run))
}

/// Polls a running hook in its span.
pub(super) fn poll_hook<F>(future: Pin<&mut F>, span: &Span, cx: &mut Context<'_>) -> Poll<Verdict>
where
    F: Future<Output = Result<Verdict, Infallible>>,
{
    let _entered = span.enter();
    let Ok(verdict) = ready!(future.poll(cx));
    Poll::Ready(verdict)
}

/// Writes what a hook answered, and how long it took, into its span.
pub(super) fn record_span(span: &Span, verdict: &Verdict, duration: Duration) {
    span.record("outcome", verdict.record_outcome().as_str());
    span.record("duration_ms", crate::outcome::millis(duration));
}

/// Records a hook's run, with what its process did, and keeps the notes its
/// leaf left.
pub(super) fn record_run(
    records: &mut Records,
    notes: &mut Option<Box<Notes>>,
    spec: &Arc<HookSpec>,
    verdict: &Verdict,
    duration: Duration,
    slot: Option<RunSlot>,
) {
    let mut warnings = Vec::new();
    if let Some(mut more) = slot.as_ref().and_then(RunSlot::take_notes) {
        // A hook's warnings belong to its record, not to the outcome.
        warnings = std::mem::take(&mut more.warnings);
        if !more.is_empty() {
            match notes {
                Some(mine) => mine.merge(more),
                None => *notes = Some(Box::new(more)),
            }
        }
    }
    let detail = slot.and_then(|slot| slot.take());
    records.push(
        HookRecord::new(spec.clone(), verdict, duration)
            .with_run(detail)
            .with_warnings(warnings),
    );
}

/// Drives every hook of a group: each is polled ready, called, and run to its
/// end. Ready once all are done.
pub(super) fn poll_members<S>(
    members: &mut [Member<S>],
    hooks: &[Slot<S>],
    request: &HookRequest,
    cx: &mut Context<'_>,
) -> Poll<()>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible> + Clone,
{
    let mut pending = false;
    for member in members.iter_mut() {
        let spec = &hooks[member.index].spec;
        pending |= member.poll(spec, request, cx).is_pending();
    }
    if pending {
        Poll::Pending
    } else {
        Poll::Ready(())
    }
}

impl<S> Member<S>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible> + Clone,
{
    /// Drives this member (hook `spec`) as far as it goes: ready once done
    /// (or not run at all).
    fn poll(
        &mut self,
        spec: &Arc<HookSpec>,
        request: &HookRequest,
        cx: &mut Context<'_>,
    ) -> Poll<()> {
        loop {
            match &mut self.state {
                MemberState::Absent
                | MemberState::Skipped
                | MemberState::Offloaded(_)
                | MemberState::Done { .. } => return Poll::Ready(()),
                MemberState::Waiting { service, span } => {
                    let (future, run) = ready!(call_when_ready(service, span, spec, request, cx));
                    let span = std::mem::replace(span, Span::none());
                    self.state = MemberState::Running {
                        future: Box::pin(future),
                        started: Instant::now(),
                        span,
                        run,
                    };
                }
                MemberState::Running {
                    future,
                    started,
                    span,
                    run,
                } => {
                    let verdict = ready!(poll_hook(future.as_mut(), span, cx));
                    let duration = started.elapsed();
                    record_span(span, &verdict, duration);
                    let run = run.take();
                    self.state = MemberState::Done {
                        verdict,
                        duration,
                        run,
                    };
                }
            }
        }
    }
}

pub(super) fn finish(
    event: Event,
    decision: Decision,
    reason: Option<String>,
    request: HookRequest,
    records: Records,
) -> HookOutcome {
    let honored =
        !(decision == Decision::Transform && event.transform_scope() == TransformScope::None);
    let mut records = records;
    // What each hook saw the tool called, by its dialect's rule.
    if request.tool_name().is_some() {
        for record in &mut records {
            let seen =
                crate::dialect::tool_name_seen(crate::dialect::rules(record.spec()), &request);
            record.set_tool_name(seen);
        }
    }
    let arguments: Arc<Value> = request.into_shared_arguments();
    HookOutcome::from_parts(event, decision, honored, reason, arguments, records)
}
