//! [`HookStack`] and its [`Builder`]: hook specs (plus your layers) in, one `Service` out.
//!
//! ```text
//! Gate ─ Advisory ─ (your layers around the call) ─ Chain ─ per matching hook:
//!     FailOpen ─ (your layers around each hook) ─ Timeout ─ Leaf
//! ```
//!
//! The leaf of a hook is a [`Command`] for `type = "command"` entries, or any
//! in-process `Service<HookRequest, Response = Verdict>` you add with
//! [`Builder::service_hook`]. Layers you add with [`Builder::around_call`] see every
//! call and its [`HookOutcome`]; layers you add with [`Builder::around_hook`]
//! see each hook run and its [`Verdict`] (the request's
//! [`hook()`](HookRequest::hook) says which hook), and errors they raise fail
//! open like a hook that could not be spawned.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tower::ServiceExt;
//! use tower_hooks::{Event, HookRequest, HookSpec, HookStack};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let guard = HookSpec::command(
//!     Event::ToolExecutionStart,
//!     r#"grep -q 'rm -rf' && { echo "no rm -rf here" >&2; exit 2; }; exit 0"#,
//! )
//! .with_matcher("^bash$")
//! .unwrap();
//! let stack = HookStack::builder().command_hook(guard).build();
//!
//! let req = HookRequest::tool_execution_start("bash", json!({"command": "rm -rf build/"}));
//! let outcome = stack.clone().oneshot(req).await.unwrap();
//! assert!(outcome.is_blocked());
//! assert_eq!(outcome.message().unwrap(), "blocked by hook: no rm -rf here");
//!
//! let req = HookRequest::tool_execution_start("read", json!({"path": "rm -rf"}));
//! assert!(!stack.oneshot(req).await.unwrap().is_blocked());
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use pin_project::pin_project;
use tower::util::BoxCloneSyncService;
use tower_layer::{Identity, Layer, Stack};
use tower_service::Service;

use crate::advisory::Advisory;
use crate::chain::Chain;
use crate::command::{BoxFuture, Command, ProcessRunner, Runner};
use crate::fail_open::FailOpen;
use crate::gate::{Gate, GateHandle};
use crate::outcome::{HookOutcome, Verdict};
use crate::protocol::Host;
use crate::report::{Report, SharedReport, StderrReport};
use crate::request::{Deadline, HookRequest};
use crate::spec::HookSpec;
use crate::timeout::Timeout;
use crate::BoxError;

type InProcess = BoxCloneSyncService<HookRequest, Verdict, BoxError>;
type HookFn = Arc<dyn Fn(&HookRequest) -> Verdict + Send + Sync>;

/// The service at the bottom of each hook: a command, or an in-process hook.
#[derive(Clone)]
pub struct Leaf {
    kind: LeafKind,
}

#[derive(Clone)]
enum LeafKind {
    Command(Command),
    InProcess(InProcess),
    /// A plain function: answered in `call`, no box, no timer.
    Function(HookFn),
}

impl fmt::Debug for Leaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            LeafKind::Command(c) => f.debug_tuple("Leaf").field(c).finish(),
            LeafKind::InProcess(_) => f.write_str("Leaf(<in-process>)"),
            LeafKind::Function(_) => f.write_str("Leaf(<function>)"),
        }
    }
}

impl Service<HookRequest> for Leaf {
    type Response = Verdict;
    type Error = BoxError;
    type Future = LeafFuture;

    // poll_ready: pass through to the command or the in-process hook.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        match &mut self.kind {
            LeafKind::Command(c) => c.poll_ready(cx),
            LeafKind::InProcess(s) => s.poll_ready(cx),
            LeafKind::Function(_) => Poll::Ready(Ok(())),
        }
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        match &mut self.kind {
            // A command honors the deadline itself: SIGTERM, grace, SIGKILL.
            LeafKind::Command(c) => LeafFuture::Unbounded {
                future: c.call(req),
            },
            // An in-process hook is dropped at its deadline.
            LeafKind::InProcess(s) => match req.deadline() {
                Some(deadline) => LeafFuture::Bounded {
                    future: s.call(req),
                    deadline,
                    overdue: None,
                },
                None => LeafFuture::Unbounded {
                    future: s.call(req),
                },
            },
            // A function cannot be interrupted: it answers before any deadline.
            LeafKind::Function(f) => LeafFuture::Answered {
                verdict: Some(f(&req)),
            },
        }
    }
}

/// The response future of [`Leaf`].
#[pin_project(project = LeafProj)]
pub enum LeafFuture {
    /// Runs to its own end.
    Unbounded {
        /// The hook's future.
        #[pin]
        future: BoxFuture<'static, Result<Verdict, BoxError>>,
    },
    /// Dropped at the deadline.
    Bounded {
        /// The hook's future.
        #[pin]
        future: BoxFuture<'static, Result<Verdict, BoxError>>,
        /// When it is overdue.
        deadline: Deadline,
        /// The timer, armed at the first `Pending`: a hook that answers at once
        /// costs no timer.
        #[pin]
        overdue: Option<tokio::time::Sleep>,
    },
    /// Answered already.
    Answered {
        /// The answer, until it is taken.
        verdict: Option<Verdict>,
    },
}

impl fmt::Debug for LeafFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LeafFuture")
    }
}

impl Future for LeafFuture {
    type Output = Result<Verdict, BoxError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            LeafProj::Unbounded { future } => future.poll(cx),
            LeafProj::Answered { verdict } => Poll::Ready(Ok(verdict
                .take()
                .expect("LeafFuture polled after completion"))),
            LeafProj::Bounded {
                future,
                deadline,
                mut overdue,
            } => {
                if let Poll::Ready(out) = future.poll(cx) {
                    return Poll::Ready(out);
                }
                if overdue.is_none() {
                    overdue.set(Some(tokio::time::sleep_until(deadline.at)));
                }
                match overdue.as_pin_mut().expect("armed just above").poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Ok(Verdict::timed_out(deadline.timeout))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

/// The per-hook stack below your hook layers.
pub type HookBase = Timeout<Leaf>;

/// One hook with your layers `H` around it.
pub type PerHook<H> = FailOpen<<H as Layer<HookBase>>::Service, SharedReport>;

/// The whole stack's service with your layers `C` around the call and `H` around each hook.
pub type StackService<C, H> =
    Gate<Advisory<<C as Layer<Chain<PerHook<H>>>>::Service, SharedReport>>;

/// The service an agent calls at its eleven call sites. See the [module docs](self).
///
/// It is cheap to clone; clones share the hooks and the `--no-hooks` switch.
#[derive(Clone)]
pub struct HookStack<S = StackService<Identity, Identity>> {
    inner: S,
    gate: GateHandle,
    specs: Arc<[Arc<HookSpec>]>,
}

impl HookStack {
    /// Starts a builder with no hooks, nanopi's names, and reports to stderr.
    pub fn builder() -> Builder {
        Builder::new()
    }
}

impl<S> HookStack<S> {
    /// The `--no-hooks` switch of this stack.
    pub fn gate(&self) -> &GateHandle {
        &self.gate
    }

    /// Every hook in the stack, in the order they were added.
    pub fn specs(&self) -> &[Arc<HookSpec>] {
        &self.specs
    }

    /// The service inside.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// Unwraps the service inside.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S> fmt::Debug for HookStack<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookStack")
            .field("hooks", &self.specs)
            .field("no_hooks", &self.gate.no_hooks())
            .finish_non_exhaustive()
    }
}

impl<S> Service<HookRequest> for HookStack<S>
where
    S: Service<HookRequest, Response = HookOutcome>,
{
    type Response = HookOutcome;
    type Error = S::Error;
    type Future = S::Future;

    // poll_ready: pass through.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        self.inner.call(req)
    }
}

/// An in-process hook always runs: a spec of an unknown `type` becomes `service`.
fn runnable_in_process(spec: HookSpec) -> HookSpec {
    if spec.is_runnable() {
        spec
    } else {
        spec.with_kind("service")
    }
}

enum Source {
    Command,
    InProcess(InProcess),
    Function(HookFn),
}

/// Builds a [`HookStack`]. See the [module docs](self).
pub struct Builder<C = Identity, H = Identity> {
    hooks: Vec<(HookSpec, Source)>,
    report: Option<SharedReport>,
    host: Host,
    runner: Option<Arc<dyn Runner>>,
    gate: GateHandle,
    around_call: C,
    around_hook: H,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// No hooks, nanopi's names, reports to stderr, hooks on.
    pub fn new() -> Self {
        Builder {
            hooks: Vec::new(),
            report: None,
            host: Host::default(),
            runner: None,
            gate: GateHandle::new(false),
            around_call: Identity::new(),
            around_hook: Identity::new(),
        }
    }
}

impl<C, H> Builder<C, H> {
    /// Adds one hook. A `command` hook runs its command; a spec of any other
    /// type is recorded as skipped when its event fires.
    pub fn command_hook(mut self, spec: HookSpec) -> Self {
        self.hooks.push((spec, Source::Command));
        self
    }

    /// Adds hooks, in order (e.g. everything a [`Config`](crate::config::Config) loaded).
    pub fn command_hooks(mut self, specs: impl IntoIterator<Item = HookSpec>) -> Self {
        self.hooks
            .extend(specs.into_iter().map(|spec| (spec, Source::Command)));
        self
    }

    /// Adds every hook of a loaded configuration, in execution order.
    pub fn config(self, config: &crate::config::Config) -> Self {
        self.command_hooks(config.hooks().iter().cloned())
    }

    /// Adds an in-process hook: `service` answers instead of a command. It gets
    /// the same matcher, timeout, chaining and fail-open handling as a command.
    pub fn service_hook<S>(mut self, spec: HookSpec, service: S) -> Self
    where
        S: Service<HookRequest, Response = Verdict> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        let service = tower::ServiceExt::map_err(service, Into::into);
        let spec = runnable_in_process(spec);
        self.hooks
            .push((spec, Source::InProcess(BoxCloneSyncService::new(service))));
        self
    }

    /// Adds an in-process hook from a plain function: it answers at once, so it
    /// costs no allocation and no timer per run (its timeout cannot interrupt it).
    pub fn fn_hook<F>(mut self, spec: HookSpec, f: F) -> Self
    where
        F: Fn(&HookRequest) -> Verdict + Send + Sync + 'static,
    {
        let spec = runnable_in_process(spec);
        self.hooks.push((spec, Source::Function(Arc::new(f))));
        self
    }

    /// Where the two report lines go (default: [`StderrReport`] with the host's name).
    pub fn report(mut self, report: impl Report + 'static) -> Self {
        self.report = Some(Arc::new(report));
        self
    }

    /// The host's names: report prefix, variable names, config folder (default: nanopi's).
    pub fn host(mut self, host: Host) -> Self {
        self.host = host;
        self
    }

    /// Who runs command hooks (default: [`ProcessRunner`]).
    pub fn runner(mut self, runner: impl Runner) -> Self {
        self.runner = Some(Arc::new(runner));
        self
    }

    /// Starts with every hook off (`--no-hooks`).
    pub fn no_hooks(self, no_hooks: bool) -> Self {
        self.gate.set_no_hooks(no_hooks);
        self
    }

    /// Uses an existing `--no-hooks` switch.
    pub fn gate(mut self, handle: GateHandle) -> Self {
        self.gate = handle;
        self
    }

    /// Adds a layer around the whole call, inside the gate and the advisory
    /// layer: it sees every request and its [`HookOutcome`]. Layers added first
    /// sit outermost, as with `ServiceBuilder`.
    pub fn around_call<L>(self, layer: L) -> Builder<Stack<L, C>, H> {
        Builder {
            hooks: self.hooks,
            report: self.report,
            host: self.host,
            runner: self.runner,
            gate: self.gate,
            around_call: Stack::new(layer, self.around_call),
            around_hook: self.around_hook,
        }
    }

    /// Adds a layer around each hook, inside its fail-open layer: it sees each
    /// run's [`Verdict`]. A hook whose matcher does not match is skipped by the
    /// chain before it gets here. Layers added first sit outermost.
    pub fn around_hook<L>(self, layer: L) -> Builder<C, Stack<L, H>> {
        Builder {
            hooks: self.hooks,
            report: self.report,
            host: self.host,
            runner: self.runner,
            gate: self.gate,
            around_call: self.around_call,
            around_hook: Stack::new(layer, self.around_hook),
        }
    }

    /// Assembles the stack.
    pub fn build(self) -> HookStack<StackService<C, H>>
    where
        H: Layer<HookBase>,
        H::Service: Service<HookRequest, Response = Verdict> + Clone,
        <H::Service as Service<HookRequest>>::Error: Into<BoxError>,
        C: Layer<Chain<PerHook<H>>>,
        C::Service: Service<HookRequest, Response = HookOutcome>,
    {
        let report: SharedReport = self
            .report
            .unwrap_or_else(|| Arc::new(StderrReport::new(self.host.name())));
        let runner = self.runner.unwrap_or_else(ProcessRunner::shared);
        let host = Arc::new(self.host);
        let mut specs = Vec::with_capacity(self.hooks.len());
        let mut hooks = Vec::with_capacity(self.hooks.len());
        for (spec, source) in self.hooks {
            let kind = match source {
                Source::InProcess(service) => LeafKind::InProcess(service),
                Source::Function(f) => LeafKind::Function(f),
                Source::Command => LeafKind::Command(Command::with_runner(
                    spec.command_line().unwrap_or_default(),
                    runner.clone(),
                    host.clone(),
                )),
            };
            let base = Timeout::new(Leaf { kind }, spec.timeout());
            let hook = FailOpen::new(self.around_hook.layer(base), report.clone());
            let spec = Arc::new(spec);
            specs.push(spec.clone());
            hooks.push((spec, hook));
        }
        let chain = self.around_call.layer(Chain::new(hooks));
        HookStack {
            inner: Gate::new(Advisory::new(chain, report), self.gate.clone()),
            gate: self.gate,
            specs: specs.into(),
        }
    }
}

impl<C, H> fmt::Debug for Builder<C, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field(
                "hooks",
                &self.hooks.iter().map(|(s, _)| s).collect::<Vec<_>>(),
            )
            .field("host", &self.host)
            .field("no_hooks", &self.gate.no_hooks())
            .finish_non_exhaustive()
    }
}
