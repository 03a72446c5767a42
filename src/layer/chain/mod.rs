//! The service that runs an event's hooks one after another, in config order.
//!
//! * a hook whose type is not runnable is skipped;
//! * a hook whose [`Pattern`](crate::pattern::Pattern) does not match the event's
//!   subject is skipped: the chain tests the pattern itself, so a skipped hook's
//!   service is never called (and costs no clone, no allocation);
//! * a transform feeds the next hook, within the event's
//!   [`TransformScope`](crate::event::TransformScope): rewrites chain;
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
use std::task::{ready, Context, Poll};
use std::time::Duration;

use pin_project::pin_project;
use tokio::time::Instant;
use tower_service::Service;
use tracing::Span;

use crate::event::Event;
use crate::outcome::{Decision, HookOutcome, HookRecord, Notes, Records, RunSlot, Verdict};
use crate::process::background::{Background, Delivery};
use crate::process::BoxFuture;
use crate::report::{Notice, SharedReport};
use crate::request::{apply_transform, HookRequest};
use crate::spec::HookSpec;

use self::merge::{merge, Decided, Merged, Then};
use self::step::{
    call_when_ready, finish, group_end, poll_hook, poll_members, record_run, record_span,
    start_group,
};

mod merge;
mod step;

struct Slot<S> {
    spec: Arc<HookSpec>,
    service: S,
    /// The copies of this hook ([`HookSpec`]'s copy key) that outrank it: more
    /// trusted, or as trusted and before it. It runs only when none of them
    /// is selected by the call (empty for almost every hook).
    outranked_by: Box<[usize]>,
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
            per_event[spec.event().index()].push(Slot {
                spec,
                service,
                outranked_by: Box::default(),
            });
        }
        for slots in &mut per_event {
            rank_copies(slots);
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

/// Gives each hook of one event the copies that outrank it: of copies a
/// call selects, only the most trusted runs (the first of those trusted as
/// much), so a copy in a less trusted file never stands in for a guard.
fn rank_copies<S>(slots: &mut [Slot<S>]) {
    for at in 0..slots.len() {
        let Some(key) = slots[at].spec.copy_key.clone() else {
            continue;
        };
        let scope = slots[at].spec.scope();
        let outranked_by: Box<[usize]> = (0..slots.len())
            .filter(|&other| other != at && slots[other].spec.copy_key.as_ref() == Some(&key))
            .filter(|&other| {
                let theirs = slots[other].spec.scope();
                theirs > scope || (theirs == scope && other < at)
            })
            .collect();
        slots[at].outranked_by = outranked_by;
    }
}

impl<S> Slot<S> {
    /// Whether this hook runs for `req`: a runnable type whose pattern
    /// matches, and no copy of it among `hooks` that outranks it does.
    fn runs_for(&self, req: &HookRequest, hooks: &[Slot<S>]) -> bool {
        self.selects(req)
            && !self
                .outranked_by
                .iter()
                .any(|&other| hooks[other].selects(req))
    }

    /// Whether this hook would run for `req` on its own: a runnable type
    /// whose pattern matches.
    fn selects(&self, req: &HookRequest) -> bool {
        self.spec.is_runnable() && crate::dialect::runs_for(&self.spec, req)
    }

    /// Whether this hook is part of a call of `req` at all (a hook of another
    /// event of its dialect at the same neutral event is not, and leaves no record).
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
        let first = hooks.iter().position(|slot| slot.runs_for(&req, hooks));
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
                    decided: Decided::default(),
                    records,
                    notes: None,
                    mark: None,
                    in_order_until: 0,
                    stop_at: None,
                    recheck: Vec::new(),
                    rechecking: false,
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
#[pin_project(project = RunProj)]
struct Run<S: Service<HookRequest>> {
    table: Arc<Table<S>>,
    event: Event,
    next: usize,
    request: Option<HookRequest>,
    decided: Decided,
    records: Records,
    /// What hooks left besides their verdicts (only hooks of other dialects do).
    notes: Option<Box<Notes>>,
    /// When the last hook finished: the next one's start, saving a clock read.
    mark: Option<Instant>,
    /// The hooks before this index that would run at once run one after
    /// another ([`runs_group_in_order`](crate::dialect::DialectHook::runs_group_in_order)).
    in_order_until: usize,
    /// Where a block that let the rest of its group run stops the call.
    stop_at: Option<usize>,
    /// The hooks to run again on rewritten arguments before the call goes
    /// ahead: more trusted than the hook that rewrote them, passed before it.
    recheck: Vec<usize>,
    /// Whether the hook at `next` runs again ([`recheck`](Self::recheck)).
    rechecking: bool,
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
        duration: Duration,
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
                .field("decision", &run.decided.decision)
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
            KindProj::Ready { outcome } => {
                Poll::Ready(Ok(outcome.take().expect(POLLED_AFTER_COMPLETION)))
            }
            KindProj::Running { run } => run.as_mut().poll(cx),
        }
    }
}

impl<S> Future for Run<S>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible> + Clone,
{
    type Output = Result<HookOutcome, Infallible>;

    /// One step per state: between hooks the run picks the next one (or a
    /// group); a waiting hook is called once its service is ready; a running
    /// hook's verdict, or a finished group's, is [merged](merge) in.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        loop {
            match this.state.as_mut().project() {
                StateProj::Idle => {
                    if let Some(outcome) = this.start_next() {
                        return Poll::Ready(Ok(outcome));
                    }
                }
                StateProj::Waiting { service, span } => {
                    let spec = &this.table.events[this.event.index()][*this.next].spec;
                    let request = this.request.as_ref().expect(POLLED_AFTER_COMPLETION);
                    let (future, run) = ready!(call_when_ready(service, span, spec, request, cx));
                    let span = std::mem::replace(span, Span::none());
                    let started = this.mark.unwrap_or_else(Instant::now);
                    this.state.set(State::Running {
                        future,
                        started,
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
                    let verdict = ready!(poll_hook(future, span, cx));
                    let now = Instant::now();
                    let duration = now.saturating_duration_since(*started);
                    record_span(span, &verdict, duration);
                    let run = run.take();
                    *this.mark = Some(now);
                    this.hook_done(verdict, duration, run);
                    this.state.set(State::Idle);
                }
                StateProj::Group { members, end } => {
                    let hooks = &this.table.events[this.event.index()];
                    let request = this.request.as_ref().expect(POLLED_AFTER_COMPLETION);
                    ready!(poll_members(members, hooks, request, cx));
                    let (members, end) = (std::mem::take(members), *end);
                    this.group_done(members, end);
                    this.state.set(State::Idle);
                }
            }
        }
    }
}

const POLLED_AFTER_COMPLETION: &str = "chain future polled after completion";

impl<S> RunProj<'_, S>
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible> + Clone,
{
    /// Between hooks: the outcome when none is left; otherwise the hook at
    /// `next` is handed to the background, started (alone or with its group),
    /// or passed over.
    fn start_next(&mut self) -> Option<HookOutcome> {
        let hooks = &self.table.events[self.event.index()];
        let offload = self.table.offload.as_ref();
        let request = self.request.as_ref().expect(POLLED_AFTER_COMPLETION);
        if std::mem::take(self.rechecking) {
            // A hook run again is done: on to the next one, if any.
            *self.next = hooks.len();
        }
        if self.stop_at.is_some_and(|at| *self.next >= at) {
            // A block earlier in a group that ran to its end stops what follows.
            for slot in hooks[*self.next..].iter().filter(|s| s.applies(request)) {
                self.records.push(HookRecord::not_run(slot.spec.clone()));
            }
            *self.next = hooks.len();
        }
        let Some(slot) = hooks.get(*self.next) else {
            return self.recheck_or_finish();
        };
        if let Some(offload) = offload.filter(|_| slot.spec.runs_in_background()) {
            if slot.runs_for(request, hooks) {
                self.records.push(offload.run(slot, request));
            } else if slot.applies(request) {
                self.records.push(slot.skipped());
            }
            *self.next += 1;
        } else if slot.spec.dialect().runs_hooks_at_once() && *self.next >= *self.in_order_until {
            let end = group_end(hooks, *self.next);
            let in_order = hooks[*self.next..end].iter().any(|s| {
                crate::dialect::rules(&s.spec).runs_group_in_order() && s.runs_for(request, hooks)
            });
            if in_order {
                // One member asks for its group to run one hook after another.
                *self.in_order_until = end;
            } else {
                let group = start_group(hooks, *self.next, request, offload, *self.event);
                self.state.set(group);
            }
        } else if slot.runs_for(request, hooks) {
            self.state.set(slot.waiting(*self.event));
        } else {
            if slot.applies(request) {
                self.records.push(slot.skipped());
            }
            *self.next += 1;
        }
        None
    }

    /// The outcome of the run, with what background runs and the hooks left.
    fn finish(&mut self) -> HookOutcome {
        let request = self.request.take().expect(POLLED_AFTER_COMPLETION);
        let delivered = self
            .table
            .offload
            .as_ref()
            .and_then(|o| o.take_notes(&request));
        let Decided { decision, reason } = std::mem::take(self.decided);
        let records = std::mem::take(self.records);
        let mut outcome = finish(*self.event, decision, reason, request, records);
        // What earlier background runs left comes first.
        if let Some(notes) = delivered {
            outcome.add_notes(notes);
        }
        if let Some(notes) = self.notes.take() {
            outcome.add_notes(*notes);
        }
        outcome
    }

    /// Records the hook at `next`, which answered `verdict`, and merges it in.
    fn hook_done(&mut self, verdict: Verdict, duration: Duration, run: Option<RunSlot>) {
        let at = *self.next;
        let spec = &self.table.events[self.event.index()][at].spec;
        record_run(self.records, self.notes, spec, &verdict, duration, run);
        if *self.rechecking {
            // Run again on rewritten arguments: its verdict counts. An ask
            // on the new arguments is what the person is asked, not the ask
            // about the old ones. Its own rewrite sends the hooks trusted
            // more than it round again (every hook has run by now); each
            // such round reaches only more trusted hooks, so it ends.
            if let (Verdict::Ask { reason }, Decision::Ask) = (&verdict, self.decided.decision) {
                self.decided.reason = Some(reason.clone());
            }
            let every = self.table.events[self.event.index()].len();
            self.settle(verdict, Some((every, spec.scope())));
            return;
        }
        let by = Some((at + 1, spec.scope()));
        // In a group run one hook after another, a block may leave the rest
        // of the group to run (Gemini CLI's `sequential`).
        let in_group = *self.next < *self.in_order_until;
        let rest_of_group = in_group && !spec.dialect().block_ends_group_in_order();
        // What the next hook of the group sees, when its dialect chains a
        // rewrite otherwise than it applies it (Gemini CLI's `sequential`).
        let chained = match &verdict {
            Verdict::Transform(updated) if in_group && *self.next + 1 < *self.in_order_until => {
                let request = self.request.as_ref().expect(POLLED_AFTER_COMPLETION);
                crate::dialect::rules(spec).chained_arguments(
                    *self.event,
                    request.chained_arguments(),
                    updated,
                )
            }
            _ => None,
        };
        *self.next += 1;
        if rest_of_group && matches!(verdict, Verdict::Block { .. }) {
            let end = *self.in_order_until;
            *self.stop_at = Some(self.stop_at.map_or(end, |at| at.min(end)));
            let (decided, _) = merge(std::mem::take(self.decided), verdict);
            *self.decided = decided;
        } else {
            self.settle(verdict, by);
        }
        if in_group {
            // Set after the rewrite, which drops the one before; the group's
            // last hook leaves none for the hooks after the group.
            let request = self.request.as_mut().expect(POLLED_AFTER_COMPLETION);
            if chained.is_some() || *self.next >= *self.in_order_until {
                request.set_chained_arguments(chained);
            }
        }
    }

    /// Records the members of a group that ran at once (from `next` up to
    /// `end`), and merges their answers in.
    fn group_done(&mut self, members: Vec<Member<S>>, end: usize) {
        let hooks = &self.table.events[self.event.index()];
        let mut merged = Merged::default();
        // The least trusted of the members that rewrote: whom a rewrite is by.
        let mut rewriter: Option<crate::Scope> = None;
        for member in members {
            let slot = &hooks[member.index];
            match member.state {
                MemberState::Done {
                    verdict,
                    duration,
                    run,
                } => {
                    if matches!(verdict, Verdict::Transform(_)) {
                        let scope = slot.spec.scope();
                        rewriter = Some(rewriter.map_or(scope, |least| least.min(scope)));
                    }
                    record_run(
                        self.records,
                        self.notes,
                        &slot.spec,
                        &verdict,
                        duration,
                        run,
                    );
                    merged.add(verdict);
                }
                MemberState::Offloaded(record) => self.records.push(record),
                MemberState::Absent => {}
                _ => self.records.push(slot.skipped()),
            }
        }
        // The group's dialect makes one reason of its blocks.
        let dialect = hooks[*self.next].spec.dialect();
        let event = *self.event;
        // Its members all saw the old arguments: the more trusted of them run
        // again, as the more trusted hooks before the group do.
        let by = rewriter.map(|scope| (end, scope));
        *self.next = end;
        for verdict in merged.into_verdicts(|reasons| dialect.group_block_reason(event, reasons)) {
            self.settle(verdict, by);
        }
        *self.mark = None;
    }

    /// [Merges](merge) `verdict` into the run's decision and does what it
    /// asks: the arguments rewritten, or the hooks from `next` on recorded as
    /// not run. `by` is where the hooks that saw the old arguments end (after
    /// the hook, or the group, that answered `verdict`) and how far the hook
    /// that rewrote them is trusted: a rewrite sends the more trusted hooks
    /// before that point round again ([`recheck_after`](Self::recheck_after)).
    fn settle(&mut self, verdict: Verdict, by: Option<(usize, crate::Scope)>) {
        let (decided, then) = merge(std::mem::take(self.decided), verdict);
        *self.decided = decided;
        let request = self.request.as_mut().expect(POLLED_AFTER_COMPLETION);
        match then {
            Then::Next => {}
            Then::Rewrite(updated) => {
                if let Some(next) = apply_transform(*self.event, request.arguments(), updated) {
                    request.set_shared_arguments(Arc::new(next));
                    if let Some((from, scope)) = by {
                        self.recheck_after(from, scope);
                    }
                }
            }
            Then::Stop => {
                let hooks = &self.table.events[self.event.index()];
                if !*self.rechecking {
                    for slot in hooks[*self.next..].iter().filter(|s| s.applies(request)) {
                        self.records.push(HookRecord::not_run(slot.spec.clone()));
                    }
                }
                *self.next = hooks.len();
                self.recheck.clear();
            }
        }
    }

    /// A hook of `scope` rewrote the arguments that the hooks before `from`
    /// saw: every one of them trusted more runs again on the new arguments
    /// before the call goes ahead, once, whether it ran on the old ones or
    /// its matcher passed them by (DIALECTS.md "Round 4": a rewrite never
    /// skips a guard).
    fn recheck_after(&mut self, from: usize, scope: crate::Scope) {
        let hooks = &self.table.events[self.event.index()];
        for (at, slot) in hooks[..from].iter().enumerate() {
            let spec = &slot.spec;
            if spec.scope() > scope && !spec.runs_in_background() && !self.recheck.contains(&at) {
                self.recheck.push(at);
            }
        }
    }

    /// After the last hook: the next hook to run again is started, or the
    /// run's outcome answered.
    fn recheck_or_finish(&mut self) -> Option<HookOutcome> {
        let Some(again) = self.next_recheck() else {
            return Some(self.finish());
        };
        let slot = &self.table.events[self.event.index()][again];
        *self.next = again;
        *self.rechecking = true;
        self.state.set(slot.waiting(*self.event));
        None
    }

    /// The next hook to run again that the rewritten call selects.
    fn next_recheck(&mut self) -> Option<usize> {
        let hooks = &self.table.events[self.event.index()];
        let request = self.request.as_ref().expect(POLLED_AFTER_COMPLETION);
        while !self.recheck.is_empty() {
            let at = self.recheck.remove(0);
            if hooks[at].runs_for(request, hooks) {
                return Some(at);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
