//! The service that runs an event's hooks one after another, in config order.
//!
//! * a hook whose type is not runnable is skipped;
//! * a hook whose [`Pattern`](crate::pattern::Pattern) does not match the event's
//!   subject is skipped: the chain tests the pattern itself, so a skipped hook's
//!   service is never called (and costs no clone, no allocation);
//! * a transform feeds the next hook, within the event's
//!   [`TransformScope`]: rewrites chain;
//! * the first block stops the chain; the hooks after it are recorded as not run.
//!
//! The [`Chain`] answers one [`HookOutcome`] with one [`HookRecord`] per hook
//! configured for the event. It sets `honored = false` for a transform on an event
//! that ignores transforms; blocks on events that drop them are the
//! [`Advisory`](crate::layer::advisory) layer's business.
//!
//! Each hook is any `Service<HookRequest, Response = Verdict, Error = Infallible>`
//! (put a [`FailOpen`](crate::layer::fail_open) around anything that can fail). An event
//! with no hooks costs a table lookup and allocates nothing.
//!
//! # Example
//!
//! ```
//! use std::convert::Infallible;
//! use std::sync::Arc;
//! use serde_json::json;
//! use tower::{service_fn, util::BoxCloneSyncService, ServiceExt};
//! use tower_hooks::layer::chain::Chain;
//! use tower_hooks::{Decision, Event, HookRequest, HookSpec, RecordOutcome, Verdict};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! type Hook = BoxCloneSyncService<HookRequest, Verdict, Infallible>;
//! let rewrite: Hook = BoxCloneSyncService::new(service_fn(|req: HookRequest| async move {
//!     let cmd = req.arguments()["command"].as_str().unwrap_or("").to_owned();
//!     Ok(Verdict::transform(json!({"command": cmd + " --dry-run"})).unwrap())
//! }));
//! let guard: Hook = BoxCloneSyncService::new(service_fn(|req: HookRequest| async move {
//!     // Sees the rewritten arguments.
//!     assert_eq!(req.arguments()["command"], "deploy --dry-run");
//!     Ok(Verdict::Allow)
//! }));
//! let spec = |i| Arc::new(HookSpec::in_process(Event::ToolExecutionStart, "demo").with_source("demo", i));
//! let chain = Chain::new([(spec(0), rewrite), (spec(1), guard)]);
//!
//! let outcome = chain
//!     .oneshot(HookRequest::tool_execution_start("bash", json!({"command": "deploy"})))
//!     .await
//!     .unwrap();
//! assert_eq!(outcome.decision(), Decision::Transform);
//! assert_eq!(outcome.arguments(), &json!({"command": "deploy --dry-run"}));
//! assert_eq!(outcome.hooks()[1].outcome(), RecordOutcome::Allow);
//! # }
//! ```

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use pin_project::pin_project;
use serde_json::Value;
use tokio::time::Instant;
use tower_service::Service;
use tracing::Span;

use crate::event::{Event, TransformScope};
use crate::outcome::{Decision, HookOutcome, HookRecord, Notes, Records, RunSlot, Verdict};
use crate::process::background::{Background, Delivery};
use crate::process::BoxFuture;
use crate::report::{Notice, SharedReport};
use crate::request::{apply_transform, HookRequest};
use crate::spec::HookSpec;

struct Slot<S> {
    spec: Arc<HookSpec>,
    service: S,
}

/// Runs the hooks of each event in order. See the [module docs](self).
pub struct Chain<S> {
    // One `Arc`: a stack is cloned for every call.
    table: Arc<Table<S>>,
}

/// What a chain and its clones share.
struct Table<S> {
    events: [Box<[Slot<S>]>; Event::COUNT],
    offload: Option<Offload<S>>,
}

impl<S> Clone for Chain<S> {
    fn clone(&self) -> Self {
        Chain {
            table: self.table.clone(),
        }
    }
}

/// Where a chain sends the hooks that [run in the
/// background](HookSpec::runs_in_background), and where what they leave waits
/// for a later call of their session.
pub(crate) struct Offload<S> {
    pub(crate) background: Background,
    /// The future of one background run of a hook's service for a request
    /// (already tagged with the hook): it runs the hook and delivers its notes.
    pub(crate) start: Box<dyn Fn(S, HookRequest) -> BoxFuture<'static, Delivery> + Send + Sync>,
    pub(crate) report: SharedReport,
}

impl<S: Clone> Offload<S> {
    /// Hands `slot`'s hook to the background, and answers its record in this call.
    fn run(&self, slot: &Slot<S>, request: &HookRequest) -> HookRecord {
        let req = request.clone().with_hook(slot.spec.clone());
        let started = self
            .background
            .submit((self.start)(slot.service.clone(), req));
        let started = match started {
            true => Ok(()),
            false if self.background.is_shut_down() => Err("not started: the stack is shut down"),
            false => {
                self.report.report(&Notice::BackgroundDropped {
                    matcher: slot.spec.matcher().unwrap_or("*"),
                    dropped: self.background.dropped(),
                });
                Err("dropped: the background queue is full")
            }
        };
        HookRecord::offloaded(slot.spec.clone(), started)
    }

    /// What background runs left for `request`'s session, if anything.
    fn take_notes(&self, request: &HookRequest) -> Option<Notes> {
        self.background
            .take_notes(request.session_id().unwrap_or_default())
    }
}

impl<S> Chain<S> {
    /// A chain of these hooks; each runs for its spec's event, in the order given.
    pub fn new(hooks: impl IntoIterator<Item = (Arc<HookSpec>, S)>) -> Self {
        Chain::with_offload(hooks, None)
    }

    /// A chain that sends the hooks that run in the background to `offload`
    /// (without one, they run inside the call, which waits for them).
    pub(crate) fn with_offload(
        hooks: impl IntoIterator<Item = (Arc<HookSpec>, S)>,
        offload: Option<Offload<S>>,
    ) -> Self {
        let mut per_event: [Vec<Slot<S>>; Event::COUNT] = Default::default();
        for (spec, service) in hooks {
            per_event[spec.event().index()].push(Slot { spec, service });
        }
        Chain {
            table: Arc::new(Table {
                events: per_event.map(Vec::into_boxed_slice),
                offload,
            }),
        }
    }

    /// The hooks configured for `event`, in execution order.
    pub fn specs(&self, event: Event) -> impl Iterator<Item = &Arc<HookSpec>> {
        self.table.events[event.index()]
            .iter()
            .map(|slot| &slot.spec)
    }

    /// Whether no hook is configured for any event.
    pub fn is_empty(&self) -> bool {
        self.table.events.iter().all(|hooks| hooks.is_empty())
    }
}

impl<S> fmt::Debug for Chain<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for slot in self.table.events.iter().flat_map(|hooks| hooks.iter()) {
            list.entry(&slot.spec);
        }
        list.finish()
    }
}

impl<S> Slot<S> {
    /// Whether this hook runs for `req`: a runnable type whose pattern matches.
    fn runs_for(&self, req: &HookRequest) -> bool {
        self.spec.is_runnable() && crate::dialect::runs_for(&self.spec, req)
    }

    /// Whether this hook is part of a call of `req` at all (a hook of another
    /// event of its dialect at the same point is not, and leaves no record).
    fn applies(&self, req: &HookRequest) -> bool {
        crate::dialect::applies(&self.spec, req)
    }

    fn skipped(&self) -> HookRecord {
        HookRecord::skipped(self.spec.clone())
    }

    /// The state of a hook about to run: a clone of its service and its span.
    fn waiting(&self, event: Event) -> State<S>
    where
        S: Service<HookRequest> + Clone,
    {
        let (service, span) = self.parts(event);
        State::Waiting { service, span }
    }

    /// A clone of the hook's service, and the span of its run.
    fn parts(&self, event: Event) -> (S, Span)
    where
        S: Clone,
    {
        let span = tracing::debug_span!(
            "hook",
            event = event.name(),
            source = self.spec.source(),
            index = self.spec.index(),
            matcher = self.spec.matcher().unwrap_or("*"),
            pid = tracing::field::Empty,
            exit_status = tracing::field::Empty,
            outcome = tracing::field::Empty,
            duration_ms = tracing::field::Empty,
        );
        (self.service.clone(), span)
    }
}

impl<S> Service<HookRequest> for Chain<S>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible> + Clone,
{
    type Response = HookOutcome;
    type Error = Infallible;
    type Future = ResponseFuture<S>;

    // poll_ready: always ready; each hook is polled ready inside the future,
    // on a clone taken just before its call.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let hooks = &self.table.events[req.event().index()];
        // The hooks before the first one that runs are skipped; when none runs,
        // the answer is ready now and nothing is allocated.
        let first = hooks.iter().position(|slot| slot.runs_for(&req));
        let records: Records = hooks[..first.unwrap_or(hooks.len())]
            .iter()
            .filter(|slot| slot.applies(&req))
            .map(Slot::skipped)
            .collect();
        let Some(first) = first else {
            let notes = self.table.offload.as_ref().and_then(|o| o.take_notes(&req));
            let mut outcome = finish(req.event(), Decision::Allow, None, req, records);
            if let Some(notes) = notes {
                outcome.add_notes(notes);
            }
            return ResponseFuture {
                kind: Kind::Ready {
                    outcome: Some(outcome),
                },
            };
        };
        let event = req.event();
        // Its matcher was just tested: it is the one to run first, unless its
        // dialect runs a group at once (the loop starts the group from it).
        let state = if hooks[first].spec.dialect().runs_hooks_at_once()
            || (hooks[first].spec.runs_in_background() && self.table.offload.is_some())
        {
            State::Idle
        } else {
            hooks[first].waiting(event)
        };
        ResponseFuture {
            kind: Kind::Running {
                run: Box::pin(Run {
                    table: self.table.clone(),
                    event,
                    next: first,
                    request: Some(req),
                    decision: Decision::Allow,
                    reason: None,
                    records,
                    notes: None,
                    mark: None,
                    state,
                }),
            },
        }
    }
}

/// The response future of [`Chain`].
///
/// Small on purpose, since it is moved on every call: a call that runs no hook
/// is answered at once; one that does keeps its state in one box.
#[pin_project]
pub struct ResponseFuture<S: Service<HookRequest>> {
    #[pin]
    kind: Kind<S>,
}

#[pin_project(project = KindProj)]
enum Kind<S: Service<HookRequest>> {
    Ready { outcome: Option<HookOutcome> },
    Running { run: Pin<Box<Run<S>>> },
}

/// A call that runs at least one hook.
#[pin_project]
struct Run<S: Service<HookRequest>> {
    table: Arc<Table<S>>,
    event: Event,
    next: usize,
    request: Option<HookRequest>,
    decision: Decision,
    reason: Option<String>,
    records: Records,
    /// What hooks left besides their verdicts (only hooks of other dialects do).
    notes: Option<Box<Notes>>,
    /// When the last hook finished: the next one's start, saving a clock read.
    mark: Option<Instant>,
    #[pin]
    state: State<S>,
}

#[pin_project(project = StateProj)]
enum State<S: Service<HookRequest>> {
    /// Between hooks.
    Idle,
    /// The hook's service is not ready yet.
    Waiting { service: S, span: Span },
    /// The hook is running.
    Running {
        #[pin]
        future: S::Future,
        started: Instant,
        span: Span,
        /// Where a command hook's leaf leaves what its process did.
        run: Option<RunSlot>,
    },
    /// A group of hooks of a dialect that runs them all at once (Claude
    /// Code's), from `next` up to `end`: each to completion, then merged.
    Group { members: Vec<Member<S>>, end: usize },
}

/// One hook of a group running at once.
struct Member<S: Service<HookRequest>> {
    index: usize,
    state: MemberState<S>,
}

enum MemberState<S: Service<HookRequest>> {
    /// Not part of this call (another event of its dialect): no record.
    Absent,
    /// Its matcher did not match: recorded as skipped, never called.
    Skipped,
    /// Handed to the background: this record is its part in the call.
    Offloaded(HookRecord),
    Waiting {
        service: S,
        span: Span,
    },
    Running {
        future: Pin<Box<S::Future>>,
        started: Instant,
        span: Span,
        run: Option<RunSlot>,
    },
    Done {
        verdict: Verdict,
        duration: std::time::Duration,
        run: Option<RunSlot>,
    },
}

impl<S: Service<HookRequest>> fmt::Debug for ResponseFuture<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Ready { .. } => f.write_str("ResponseFuture(ready)"),
            Kind::Running { run } => f
                .debug_struct("ResponseFuture")
                .field("event", &run.event)
                .field("next", &run.next)
                .field("decision", &run.decision)
                .finish_non_exhaustive(),
        }
    }
}

impl<S> Future for ResponseFuture<S>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible> + Clone,
{
    type Output = Result<HookOutcome, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Ready { outcome } => Poll::Ready(Ok(outcome
                .take()
                .expect("chain future polled after completion"))),
            KindProj::Running { run } => run.as_mut().poll(cx),
        }
    }
}

impl<S> Future for Run<S>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible> + Clone,
{
    type Output = Result<HookOutcome, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let hooks = &this.table.events[this.event.index()];
        let offload = this.table.offload.as_ref();
        loop {
            let request = this
                .request
                .as_mut()
                .expect("chain future polled after completion");
            match this.state.as_mut().project() {
                StateProj::Idle => {
                    let Some(slot) = hooks.get(*this.next) else {
                        let delivered = offload.and_then(|o| o.take_notes(request));
                        let request = this.request.take().expect("checked above");
                        let mut outcome = finish(
                            *this.event,
                            *this.decision,
                            this.reason.take(),
                            request,
                            std::mem::take(this.records),
                        );
                        // What earlier background runs left comes first.
                        if let Some(notes) = delivered {
                            outcome.add_notes(notes);
                        }
                        if let Some(notes) = this.notes.take() {
                            outcome.add_notes(*notes);
                        }
                        return Poll::Ready(Ok(outcome));
                    };
                    if let Some(offload) = offload.filter(|_| slot.spec.runs_in_background()) {
                        if slot.runs_for(request) {
                            this.records.push(offload.run(slot, request));
                        } else if slot.applies(request) {
                            this.records.push(slot.skipped());
                        }
                        *this.next += 1;
                        continue;
                    }
                    let dialect = slot.spec.dialect();
                    if dialect.runs_hooks_at_once() {
                        // The whole run of consecutive hooks of this dialect.
                        // Its background hooks stand in the group's place in
                        // the records, and never stop it.
                        let end = *this.next
                            + hooks[*this.next..]
                                .iter()
                                .take_while(|slot| slot.spec.dialect() == dialect)
                                .count();
                        let members = (*this.next..end)
                            .map(|index| {
                                let slot = &hooks[index];
                                let background = offload.filter(|_| slot.spec.runs_in_background());
                                let state = match background {
                                    _ if !slot.applies(request) => MemberState::Absent,
                                    _ if !slot.runs_for(request) => MemberState::Skipped,
                                    Some(offload) => {
                                        MemberState::Offloaded(offload.run(slot, request))
                                    }
                                    None => {
                                        let (service, span) = slot.parts(*this.event);
                                        MemberState::Waiting { service, span }
                                    }
                                };
                                Member { index, state }
                            })
                            .collect();
                        this.state.set(State::Group { members, end });
                        continue;
                    }
                    if !slot.runs_for(request) {
                        if slot.applies(request) {
                            this.records.push(slot.skipped());
                        }
                        *this.next += 1;
                        continue;
                    }
                    this.state.set(slot.waiting(*this.event));
                }
                StateProj::Group { members, end } => {
                    if poll_members(members, hooks, request, cx).is_pending() {
                        return Poll::Pending;
                    }
                    let end = *end;
                    let members = std::mem::take(members);
                    let mut merged = Merged::default();
                    for member in members {
                        let slot = &hooks[member.index];
                        let (verdict, duration, run) = match member.state {
                            MemberState::Done {
                                verdict,
                                duration,
                                run,
                            } => (verdict, duration, run),
                            MemberState::Offloaded(record) => {
                                this.records.push(record);
                                continue;
                            }
                            MemberState::Absent => continue,
                            _ => {
                                this.records.push(slot.skipped());
                                continue;
                            }
                        };
                        record_run(
                            this.records,
                            this.notes,
                            &slot.spec,
                            &verdict,
                            duration,
                            run,
                        );
                        merged.add(verdict);
                    }
                    *this.next = end;
                    if let Some(reason) = merged.block {
                        *this.decision = Decision::Block;
                        *this.reason = Some(reason);
                        for slot in hooks[end..].iter().filter(|s| s.applies(request)) {
                            this.records.push(HookRecord::not_run(slot.spec.clone()));
                        }
                        *this.next = hooks.len();
                    } else {
                        if let Some(reason) = merged.ask {
                            if *this.decision != Decision::Ask {
                                *this.decision = Decision::Ask;
                                *this.reason = Some(reason);
                            }
                        }
                        if let Some(updated) = merged.transform {
                            if *this.decision != Decision::Ask {
                                *this.decision = Decision::Transform;
                            }
                            if let Some(next) =
                                apply_transform(*this.event, request.arguments(), updated)
                            {
                                request.set_shared_arguments(Arc::new(next));
                            }
                        }
                    }
                    *this.mark = None;
                    this.state.set(State::Idle);
                }
                StateProj::Waiting { service, span } => {
                    let (future, run) = {
                        let _entered = span.enter();
                        match service.poll_ready(cx) {
                            Poll::Pending => return Poll::Pending,
                            Poll::Ready(Ok(())) => {}
                        }
                        let spec = hooks[*this.next].spec.clone();
                        // Only a command hook has a process to tell about: an
                        // in-process hook costs no slot.
                        let run = spec.leaves_notes().then(RunSlot::default);
                        let mut req = request.clone().with_hook(spec);
                        if let Some(run) = &run {
                            req = req.with_run_slot(run.clone());
                        }
                        (service.call(req), run)
                    };
                    let span = std::mem::replace(span, Span::none());
                    this.state.set(State::Running {
                        future,
                        started: this.mark.unwrap_or_else(Instant::now),
                        span,
                        run,
                    });
                }
                StateProj::Running {
                    future,
                    started,
                    span,
                    run,
                } => {
                    let verdict = {
                        let _entered = span.enter();
                        match future.poll(cx) {
                            Poll::Pending => return Poll::Pending,
                            Poll::Ready(Ok(verdict)) => verdict,
                        }
                    };
                    let now = Instant::now();
                    let duration = now.saturating_duration_since(*started);
                    *this.mark = Some(now);
                    span.record("outcome", verdict.record_outcome().as_str());
                    span.record("duration_ms", crate::outcome::millis(duration));
                    record_run(
                        this.records,
                        this.notes,
                        &hooks[*this.next].spec,
                        &verdict,
                        duration,
                        run.take(),
                    );
                    *this.next += 1;
                    match verdict {
                        Verdict::Block { reason, .. } => {
                            *this.decision = Decision::Block;
                            *this.reason = Some(reason);
                            for slot in hooks[*this.next..].iter().filter(|s| s.applies(request)) {
                                this.records.push(HookRecord::not_run(slot.spec.clone()));
                            }
                            *this.next = hooks.len();
                        }
                        Verdict::Transform(updated) => {
                            // An ask stays an ask; the rewrite still applies.
                            if *this.decision != Decision::Ask {
                                *this.decision = Decision::Transform;
                            }
                            if let Some(next) =
                                apply_transform(*this.event, request.arguments(), updated)
                            {
                                request.set_shared_arguments(Arc::new(next));
                            }
                        }
                        Verdict::Ask { reason } => {
                            // Approval is needed; later hooks still run, and a
                            // block from one of them wins.
                            if *this.decision != Decision::Ask {
                                *this.decision = Decision::Ask;
                                *this.reason = Some(reason);
                            }
                        }
                        Verdict::Allow | Verdict::Skipped | Verdict::FailedOpen { .. } => {}
                    }
                    this.state.set(State::Idle);
                }
            }
        }
    }
}

/// Records a hook's run, with what its process did, and keeps the notes its
/// leaf left.
fn record_run(
    records: &mut Records,
    notes: &mut Option<Box<Notes>>,
    spec: &Arc<HookSpec>,
    verdict: &Verdict,
    duration: std::time::Duration,
    slot: Option<RunSlot>,
) {
    if let Some(more) = slot.as_ref().and_then(RunSlot::take_notes) {
        match notes {
            Some(mine) => mine.merge(more),
            None => *notes = Some(Box::new(more)),
        }
    }
    let detail = slot.and_then(|slot| slot.take());
    records.push(HookRecord::new(spec.clone(), verdict, duration).with_run(detail));
}

/// Drives every hook of a group: each is polled ready, called, and run to its
/// end. Ready once all are done.
fn poll_members<S>(
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
        loop {
            match &mut member.state {
                MemberState::Absent
                | MemberState::Skipped
                | MemberState::Offloaded(_)
                | MemberState::Done { .. } => break,
                MemberState::Waiting { service, span } => {
                    let _entered = span.enter();
                    if service.poll_ready(cx).is_pending() {
                        pending = true;
                        break;
                    }
                    let spec = hooks[member.index].spec.clone();
                    let run = spec.leaves_notes().then(RunSlot::default);
                    let mut req = request.clone().with_hook(spec);
                    if let Some(run) = &run {
                        req = req.with_run_slot(run.clone());
                    }
                    let future = Box::pin(service.call(req));
                    drop(_entered);
                    let span = std::mem::replace(span, Span::none());
                    member.state = MemberState::Running {
                        future,
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
                    let verdict = {
                        let _entered = span.enter();
                        match future.as_mut().poll(cx) {
                            Poll::Pending => {
                                pending = true;
                                break;
                            }
                            Poll::Ready(Ok(verdict)) => verdict,
                        }
                    };
                    let duration = started.elapsed();
                    span.record("outcome", verdict.record_outcome().as_str());
                    span.record("duration_ms", crate::outcome::millis(duration));
                    let run = run.take();
                    member.state = MemberState::Done {
                        verdict,
                        duration,
                        run,
                    };
                }
            }
        }
    }
    if pending {
        Poll::Pending
    } else {
        Poll::Ready(())
    }
}

/// The answers of a group that ran at once, merged: a block beats an ask,
/// which beats an allow; block reasons are joined on new lines in config order;
/// the last rewrite in config order wins.
#[derive(Default)]
struct Merged {
    block: Option<String>,
    ask: Option<String>,
    transform: Option<serde_json::Map<String, Value>>,
}

impl Merged {
    fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Block { reason, .. } => match &mut self.block {
                Some(all) => {
                    all.push('\n');
                    all.push_str(&reason);
                }
                None => self.block = Some(reason),
            },
            Verdict::Ask { reason } => {
                self.ask.get_or_insert(reason);
            }
            Verdict::Transform(updated) => self.transform = Some(updated),
            Verdict::Allow | Verdict::Skipped | Verdict::FailedOpen { .. } => {}
        }
    }
}

fn finish(
    event: Event,
    decision: Decision,
    reason: Option<String>,
    request: HookRequest,
    records: Records,
) -> HookOutcome {
    let honored =
        !(decision == Decision::Transform && event.transform_scope() == TransformScope::None);
    let arguments: Arc<Value> = request.into_shared_arguments();
    HookOutcome::from_parts(event, decision, honored, reason, arguments, records)
}

#[cfg(test)]
mod tests;
