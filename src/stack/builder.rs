//! The builder of a [`HookStack`](super::HookStack).

use std::convert::Infallible;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tower::util::BoxCloneSyncService;
use tower_layer::{Identity, Layer, Stack};
use tower_service::Service;

use crate::host::Host;
use crate::layer::advisory::Advisory;
use crate::layer::chain::{Chain, Offload};
use crate::layer::command::Command;
use crate::layer::fail_open::FailOpen;
use crate::layer::gate::{Gate, GateHandle};
use crate::layer::mcp::{McpClient, McpHook};
use crate::layer::model::{Evaluator, ModelHook};
use crate::layer::timeout::HookTimeout;
use crate::outcome::{HookOutcome, RunSlot, Verdict};
use crate::process::background::{Background, BackgroundLimits, Delivery, OnWakeUp, WakeUp};
use crate::process::persistent::{Persistent, PersistentLimits};
use crate::process::{BoxFuture, Job, ProcessRunner, Runner};
use crate::report::{Notice, Report, SharedReport, StderrReport};
use crate::request::HookRequest;
use crate::spec::{FailClosedPolicy, HookKind, HookSpec};
use crate::BoxError;

use super::leaf::{HookFn, InProcess, Leaf, LeafKind};
use super::{HookBase, HookStack, PerHook, StackService};

/// A host's service (an in-process hook, an evaluator, an MCP client), boxed
/// with its error as a [`BoxError`].
fn boxed<S, Req>(service: S) -> BoxCloneSyncService<Req, S::Response, BoxError>
where
    S: Service<Req> + Clone + Send + Sync + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    Req: 'static,
{
    BoxCloneSyncService::new(tower::ServiceExt::map_err(service, Into::into))
}

/// An in-process hook always runs: a spec of an unknown `type` becomes `service`.
fn runnable_in_process(spec: HookSpec) -> HookSpec {
    let mut spec = match spec.hook_kind() {
        HookKind::Command | HookKind::Service => spec,
        _ => spec.with_kind(HookKind::Service),
    };
    spec.attached = true;
    spec
}

enum Source {
    Command,
    InProcess(InProcess),
    Function(HookFn),
}

/// How a stack runs its background hooks.
#[derive(Clone, Default)]
struct BackgroundSetup {
    limits: BackgroundLimits,
    /// Inside the call, which waits for them (`hooks test`).
    wait: bool,
    /// Told when a background hook wakes the agent.
    on_wake_up: Option<OnWakeUp>,
}

/// Builds a [`HookStack`]. See the [module docs](super).
pub struct Builder<C = Identity, H = Identity> {
    settings: Settings,
    around_call: C,
    around_hook: H,
}

/// What a [`Builder`] is told besides its layers: it travels whole when a
/// layer is added.
struct Settings {
    hooks: Vec<(HookSpec, Source)>,
    report: Option<SharedReport>,
    host: Host,
    runner: Option<Arc<dyn Runner>>,
    gate: GateHandle,
    env: Vec<(String, String)>,
    current_dir: Option<PathBuf>,
    background: BackgroundSetup,
    evaluator: Option<Evaluator>,
    mcp: Option<McpClient>,
    fail_closed: FailClosedPolicy,
    #[cfg(feature = "http")]
    http: crate::layer::http::HttpSettings,
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
            settings: Settings {
                hooks: Vec::new(),
                report: None,
                host: Host::default(),
                runner: None,
                gate: GateHandle::new(false),
                env: Vec::new(),
                current_dir: None,
                background: BackgroundSetup::default(),
                evaluator: None,
                mcp: None,
                fail_closed: FailClosedPolicy::default(),
                #[cfg(feature = "http")]
                http: crate::layer::http::HttpSettings::new(),
            },
            around_call: Identity::new(),
            around_hook: Identity::new(),
        }
    }
}

impl<C, H> Builder<C, H> {
    /// Adds one hook. A `command` hook runs its command; a spec of any other
    /// type is recorded as skipped when its event fires.
    pub fn command_hook(mut self, spec: HookSpec) -> Self {
        self.settings.hooks.push((spec, Source::Command));
        self
    }

    /// Adds hooks, in order (e.g. everything a [`Config`](crate::config::Config) loaded).
    pub fn command_hooks(mut self, specs: impl IntoIterator<Item = HookSpec>) -> Self {
        self.settings
            .hooks
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
        let spec = runnable_in_process(spec);
        self.settings
            .hooks
            .push((spec, Source::InProcess(boxed(service))));
        self
    }

    /// Adds an in-process hook from a plain function: it answers at once, so it
    /// costs no allocation and no timer per run (its timeout cannot interrupt it).
    pub fn fn_hook<F>(mut self, spec: HookSpec, f: F) -> Self
    where
        F: Fn(&HookRequest) -> Verdict + Send + Sync + 'static,
    {
        let spec = runnable_in_process(spec);
        self.settings
            .hooks
            .push((spec, Source::Function(Arc::new(f))));
        self
    }

    /// Where the two report lines go (default: [`StderrReport`] with the host's name).
    pub fn report(mut self, report: impl Report + 'static) -> Self {
        self.settings.report = Some(Arc::new(report));
        self
    }

    /// Which hooks fail closed beyond what their configuration says: one
    /// switch for a host that wants no guard to be bypassed by a missing
    /// script, a crash or an answer it cannot read. Decided here, once, for
    /// every hook added before or after; per call it costs nothing.
    ///
    /// ```
    /// use tower_hooks::{Dialect, Event, FailClosedPolicy, HookSpec, HookStack};
    ///
    /// let stack = HookStack::builder()
    ///     .command_hook(HookSpec::command(Event::ToolExecutionStart, "./missing-guard.sh"))
    ///     .fail_closed(FailClosedPolicy::at_blocking_events())
    ///     .build();
    /// assert!(stack.specs()[0].fail_closed());
    /// ```
    pub fn fail_closed(mut self, policy: FailClosedPolicy) -> Self {
        self.settings.fail_closed = policy;
        self
    }

    /// The host's names: report prefix, variable names, config folder (default: nanopi's).
    pub fn host(mut self, host: Host) -> Self {
        self.settings.host = host;
        self
    }

    /// Who runs command hooks (default: [`ProcessRunner`]).
    pub fn runner(mut self, runner: impl Runner) -> Self {
        self.settings.runner = Some(Arc::new(runner));
        self
    }

    /// How many background hooks may run at once and wait (default: 8 and 64);
    /// a run beyond that is dropped and reported, never waited for.
    pub fn background_limits(mut self, limits: BackgroundLimits) -> Self {
        self.settings.background.limits = limits;
        self
    }

    /// The model that answers the model-evaluated hooks (Claude Code's
    /// `prompt` and `agent` handlers): a service from a
    /// [`ModelRequest`](crate::layer::model::ModelRequest) (the prompt, and the
    /// model the handler names) to the model's text. Without one, such hooks are listed and skipped (their load
    /// warning says they do not run). See [`layer::model`](crate::layer::model).
    pub fn evaluator<S>(mut self, evaluator: S) -> Self
    where
        S: Service<crate::layer::model::ModelRequest, Response = String>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        self.settings.evaluator = Some(boxed(evaluator));
        self
    }

    /// The host's MCP client, which runs the MCP tool hooks (Claude Code's
    /// `mcp_tool` handlers): a service from an
    /// [`McpRequest`](crate::layer::mcp::McpRequest) (server, tool,
    /// arguments) to the tool's text output; a tool that answers with an
    /// error is an `Err`. Without one, such hooks are listed and skipped.
    /// See [`layer::mcp`](crate::layer::mcp).
    pub fn mcp<S>(mut self, client: S) -> Self
    where
        S: Service<crate::layer::mcp::McpRequest, Response = String>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        self.settings.mcp = Some(boxed(client));
        self
    }

    /// How the stack's HTTP hooks (Claude Code's `http` handlers) post: the
    /// address guard, the resolver, the longest response read (default:
    /// [`HttpSettings::new`](crate::layer::http::HttpSettings::new)). See
    /// [`layer::http`](crate::layer::http).
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http(mut self, settings: crate::layer::http::HttpSettings) -> Self {
        self.settings.http = settings;
        self
    }

    /// Calls `f` as soon as a background hook wakes the agent (Claude Code's
    /// `asyncRewake` hook that exited 2), with the session and the message,
    /// so that a host whose agent is idle can start a turn. The message
    /// also comes with the session's next call
    /// ([`HookOutcome::wake_up`](crate::HookOutcome::wake_up)), which is
    /// where it arrives when the stack [waits for background
    /// hooks](Self::wait_for_background_hooks) (`f` is then not called).
    pub fn on_wake_up<F>(mut self, f: F) -> Self
    where
        F: Fn(WakeUp) + Send + Sync + 'static,
    {
        self.settings.background.on_wake_up = Some(Arc::new(f));
        self
    }

    /// Runs the hooks that [run in the background](HookSpec::runs_in_background)
    /// inside the call instead, which then waits for them: their records are
    /// complete and their notes come with this call's outcome. Their decisions
    /// still change nothing. For tools that show what every hook did, such as
    /// `hooks test`; an agent leaves this off (the default).
    pub fn wait_for_background_hooks(mut self, wait: bool) -> Self {
        self.settings.background.wait = wait;
        self
    }

    /// Starts with every hook off (`--no-hooks`).
    pub fn no_hooks(self, no_hooks: bool) -> Self {
        self.settings.gate.set_no_hooks(no_hooks);
        self
    }

    /// Uses an existing `--no-hooks` switch.
    pub fn gate(mut self, handle: GateHandle) -> Self {
        self.settings.gate = handle;
        self
    }

    /// Gives every command hook the variable `key`, on top of the environment
    /// they inherit from this process; a later value for the same name
    /// replaces an earlier one. Use it rather than `std::env::set_var`, which
    /// changes the whole process and is unsound once other threads run.
    ///
    /// The protocol variables are exact: a `key` that is one of their names
    /// (the [`host`](Self::host)'s; nanopi's are `NANOPI_EVENT`, `NANOPI_CWD`,
    /// `NANOPI_SESSION_ID`, `NANOPI_TOOL_NAME` and `NANOPI_TOOL_CALL_ID`) is
    /// never passed on: each event sets or removes those itself. A NUL in `value` becomes
    /// U+FFFD; a `key` that is empty or holds `=` or NUL makes every command
    /// hook fail to start (and so fail open, or closed). In-process hooks have
    /// no environment and are not affected.
    ///
    /// ```
    /// use tower::ServiceExt;
    /// use tower_hooks::{Event, HookRequest, HookSpec, HookStack};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let stack = HookStack::builder()
    ///     .env("GUARD_MODE", "strict")
    ///     .command_hook(HookSpec::command(
    ///         Event::Input,
    ///         r#"[ "$GUARD_MODE" = strict ] && { echo "strict mode" >&2; exit 2; }; exit 0"#,
    ///     ))
    ///     .build();
    /// let outcome = stack.oneshot(HookRequest::input("hi")).await.unwrap();
    /// assert_eq!(outcome.reason(), Some("strict mode"));
    /// # }
    /// ```
    pub fn env(self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.envs([(key, value)])
    }

    /// Gives every command hook these variables, as [`env`](Self::env) does.
    pub fn envs<K, V>(mut self, vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        for (key, value) in vars {
            crate::layer::command::set_var(&mut self.settings.env, key.into(), value.into());
        }
        self
    }

    /// Runs every command hook in `dir` rather than in this process's current
    /// directory: relative paths in their commands (a `./hooks/guard.sh`)
    /// resolve there. A relative `dir` is taken from the process's current
    /// directory at each run.
    ///
    /// It does not change what hooks are told the session's directory is (the
    /// payload's `cwd` and `NANOPI_CWD`: see
    /// [`AgentHooks::with_cwd`](crate::AgentHooks::with_cwd)). A `dir` that is
    /// missing or cannot be entered when a hook runs is an error of that run:
    /// the hook fails open with the report line, or closed. In-process hooks
    /// are not affected.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.settings.current_dir = Some(dir.into());
        self
    }

    /// Adds a layer around the whole call, inside the gate and the advisory
    /// layer: it sees every request and its [`HookOutcome`]. Layers added first
    /// sit outermost, as with `ServiceBuilder`.
    ///
    /// The layer is applied once, and the stack is cloned for each call (by
    /// [`AgentHooks`](crate::AgentHooks), [`ToolHooks`](crate::ToolHooks) and
    /// `oneshot` on a clone): the layer's service must be `Clone`, and clones
    /// share whatever it shares between clones (a `ConcurrencyLimit`'s
    /// permits). [`build`](Self::build) requires it, so a service that is not
    /// `Clone` is refused where the stack is built, not at its first call:
    ///
    /// ```compile_fail,E0277
    /// use std::task::{Context, Poll};
    /// use tower::Service;
    /// use tower_hooks::{HookOutcome, HookRequest, HookStack};
    ///
    /// // A layer whose service cannot be cloned.
    /// struct Once<S>(S);
    /// impl<S: Service<HookRequest>> Service<HookRequest> for Once<S> {
    ///     type Response = S::Response;
    ///     type Error = S::Error;
    ///     type Future = S::Future;
    ///     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
    ///         self.0.poll_ready(cx)
    ///     }
    ///     fn call(&mut self, req: HookRequest) -> S::Future {
    ///         self.0.call(req)
    ///     }
    /// }
    ///
    /// // error[E0277]: the trait bound `Once<Chain<…>>: Clone` is not satisfied
    /// let stack = HookStack::builder()
    ///     .around_call(tower::layer::layer_fn(Once))
    ///     .build();
    /// ```
    ///
    /// The layer's error type is the stack's: a layer that can fail makes a
    /// stack that can fail ([`ToolHooks`](crate::ToolHooks) refuses a tool call
    /// when its stack fails).
    pub fn around_call<L>(self, layer: L) -> Builder<Stack<L, C>, H> {
        Builder {
            settings: self.settings,
            around_call: Stack::new(layer, self.around_call),
            around_hook: self.around_hook,
        }
    }

    /// Adds a layer around each hook, inside its fail-open layer: it sees each
    /// run's [`Verdict`]. A hook whose matcher does not match is skipped by the
    /// chain before it gets here. Layers added first sit outermost.
    ///
    /// The layer is applied once per hook, so each hook has its own instance
    /// of the layer's service (the runs of one hook use clones of that
    /// instance). State kept per service is kept per hook: a
    /// `ConcurrencyLimitLayer::new(1)` here lets each hook run once at a time,
    /// and two different hooks still run side by side. For a limit over the
    /// whole stack, use [`around_call`](Self::around_call).
    ///
    /// An error the layer raises follows the hook's failure rule:
    ///
    /// * tower's `Elapsed` (from a `tower::timeout::TimeoutLayer` here, found
    ///   anywhere in the error's `source` chain) is a timeout: the hook
    ///   blocks with `hook timed out after N ms: a timeout layer around it
    ///   stopped it (its own timeout is M ms)`, N being the time that really
    ///   passed (or, at or past its own deadline, with [`Verdict::timed_out`]
    ///   of its spec's `timeout`). A slow guard refuses; it is never allowed
    ///   because a layer gave up on it.
    /// * any other error is a hook that could not run: the action is allowed
    ///   and the report line `nanopi: hook errored; failing open (allow)
    ///   [tool=… matcher=… error=…]` is written, or, for a hook with
    ///   `fail_closed`, it blocks with `hook failed closed: <error>`.
    ///
    /// See [`fail_open`](crate::layer::fail_open).
    pub fn around_hook<L>(self, layer: L) -> Builder<C, Stack<L, H>> {
        Builder {
            settings: self.settings,
            around_call: self.around_call,
            around_hook: Stack::new(layer, self.around_hook),
        }
    }

    /// Assembles the stack.
    pub fn build(self) -> HookStack<StackService<C, H>>
    where
        H: Layer<HookBase>,
        // Each hook's layered service is cloned for every run, and a hook
        // that runs in the background is moved onto the runtime.
        H::Service: Service<HookRequest, Response = Verdict> + Clone + Send + 'static,
        <H::Service as Service<HookRequest>>::Error: Into<BoxError>,
        <H::Service as Service<HookRequest>>::Future: Send + 'static,
        C: Layer<Chain<PerHook<H>>>,
        // The stack is cloned for every call: see `around_call`.
        C::Service: Service<HookRequest, Response = HookOutcome> + Clone,
    {
        let report: SharedReport = self
            .settings
            .report
            .unwrap_or_else(|| Arc::new(StderrReport::new(self.settings.host.name())));
        let mut leaves = Leaves {
            report: report.clone(),
            runner: self.settings.runner.unwrap_or_else(ProcessRunner::shared),
            host: Arc::new(self.settings.host),
            env: self.settings.env.into(),
            current_dir: self.settings.current_dir.map(Into::into),
            evaluator: self.settings.evaluator,
            mcp: self.settings.mcp,
            #[cfg(feature = "http")]
            http: self.settings.http,
            #[cfg(feature = "http")]
            http_leaf: None,
            persistent: Vec::new(),
        };
        let mut specs = Vec::with_capacity(self.settings.hooks.len());
        let mut hooks = Vec::with_capacity(self.settings.hooks.len());
        for (mut spec, source) in self.settings.hooks {
            if self.settings.fail_closed.applies_to(&spec) {
                spec.fail_closed = true;
            }
            let kind = leaves.kind(&mut spec, source);
            let base = HookTimeout::new(Leaf { kind }, spec.timeout());
            let hook = FailOpen::new(self.around_hook.layer(base), report.clone());
            let spec = Arc::new(spec);
            specs.push(spec.clone());
            hooks.push((spec, hook));
        }
        let background = Background::new(self.settings.background.limits);
        let on_wake_up = self.settings.background.on_wake_up.clone();
        // Only a stack with background hooks looks for their notes on each
        // call: the others' calls that run no hook stay as cheap as before.
        let has_background = specs.iter().any(|spec| spec.runs_in_background());
        let offload = (!self.settings.background.wait && has_background).then(|| Offload {
            background: background.clone(),
            start: Box::new(move |hook: PerHook<H>, req: HookRequest| {
                let on_wake_up = on_wake_up.clone();
                Box::pin(run_in_background(hook, req, on_wake_up)) as BoxFuture<'static, Delivery>
            }),
            report: report.clone(),
        });
        let chain = self.around_call.layer(Chain::with_offload(hooks, offload));
        HookStack {
            inner: Gate::new(Advisory::new(chain, report), self.settings.gate.clone()),
            gate: self.settings.gate,
            specs: specs.into(),
            background,
            persistent: leaves.persistent.into(),
        }
    }
}

/// What the leaves of a stack's hooks are made from: the runner, host and
/// environment every command shares, and what answers the hooks that are not
/// commands.
struct Leaves {
    report: SharedReport,
    runner: Arc<dyn Runner>,
    host: Arc<Host>,
    env: Arc<[(String, String)]>,
    current_dir: Option<Arc<Path>>,
    evaluator: Option<Evaluator>,
    mcp: Option<McpClient>,
    #[cfg(feature = "http")]
    http: crate::layer::http::HttpSettings,
    /// One client for all HTTP hooks, made when the first one needs it.
    #[cfg(feature = "http")]
    http_leaf: Option<crate::layer::http::HttpHook>,
    /// The processes of the persistent hooks, each with the job that starts it.
    persistent: Vec<(Persistent, Job)>,
}

impl Leaves {
    /// The leaf that runs `spec`, added from `source`. A hook added as a
    /// command that is of another type is marked attached or not here.
    fn kind(&mut self, spec: &mut HookSpec, source: Source) -> LeafKind {
        let answered = match source {
            Source::Command => self.answer(spec),
            _ => None,
        };
        if matches!(source, Source::Command) && *spec.hook_kind() != HookKind::Command {
            // Attached when something answers for it, or when it fails
            // closed and blocks with why nothing can; else listed and skipped.
            spec.attached = match &answered {
                Some(Ok(_)) => true,
                Some(Err(_)) => spec.fail_closed(),
                None => false,
            };
        }
        match (answered, source) {
            (Some(Ok(kind)), _) => kind,
            (Some(Err(why)), _) if spec.fail_closed() => {
                LeafKind::Function(Arc::new(move |_: &HookRequest| {
                    Verdict::failed_closed(&why)
                }))
            }
            (_, Source::InProcess(service)) => LeafKind::InProcess(service),
            (_, Source::Function(f)) => LeafKind::Function(f),
            (_, Source::Command) => self.command(spec),
        }
    }

    /// What answers for a hook that is not a command: a model, a policy
    /// server, or why nothing can. `None`: a command, or a type nothing
    /// answers (listed and skipped).
    fn answer(&mut self, spec: &HookSpec) -> Option<Result<LeafKind, Arc<str>>> {
        if let Some(why) = &spec.refused {
            return Some(Err(why.clone()));
        }
        if *spec.hook_kind() == HookKind::Command {
            return None;
        }
        if spec.prompt().is_some() {
            return Some(match &self.evaluator {
                Some(evaluator) => Ok(LeafKind::Model(ModelHook::new(evaluator.clone()))),
                None => Err("no model to ask: this host has no evaluator".into()),
            });
        }
        if spec.mcp_target().is_some() {
            return Some(match &self.mcp {
                Some(client) => Ok(LeafKind::Mcp(McpHook::new(client.clone()))),
                None => Err("no MCP client: this host supplies none".into()),
            });
        }
        spec.http_target()?;
        #[cfg(feature = "http")]
        return Some(Ok(LeafKind::Http(
            self.http_leaf
                .get_or_insert_with(|| {
                    crate::layer::http::HttpHook::new(self.http.clone(), self.env.clone())
                })
                .clone(),
        )));
        #[cfg(not(feature = "http"))]
        Some(Err(
            "no HTTP client: this host was built without the tower-hooks feature \"http\"".into(),
        ))
    }

    /// The leaf of a command hook. A persistent hook has a process of its
    /// own, kept with the job an eager start runs.
    fn command(&mut self, spec: &HookSpec) -> LeafKind {
        let process = spec
            .is_persistent()
            .then(|| persistent_runner(spec, &self.report));
        let runner = match &process {
            Some(process) => Arc::new(process.clone()) as Arc<dyn Runner>,
            None => self.runner.clone(),
        };
        let command = Command::with_runner(
            spec.command_line().unwrap_or_default(),
            runner,
            self.host.clone(),
        )
        .with_shared(self.env.clone(), self.current_dir.clone());
        if let Some(process) = process {
            // What an eager start runs: the job of an event with no payload
            // (its input is never sent).
            let probe = HookRequest::new(spec.event(), serde_json::json!({}))
                .with_hook(Arc::new(spec.clone()));
            self.persistent.push((process, command.job(&probe)));
        }
        LeafKind::Command(command)
    }
}

/// The runner of a persistent hook: its own process, which reports once when
/// it crashed too often and each event starts it anew.
fn persistent_runner(spec: &HookSpec, report: &SharedReport) -> Persistent {
    let report = report.clone();
    let command = spec.command_line().unwrap_or_default().to_owned();
    let on_fallback = move |why: &str| {
        report.report(&Notice::PersistentFallback {
            command: &command,
            why,
        });
    };
    Persistent::new(PersistentLimits::default(), Some(Box::new(on_fallback)))
}

/// One background run of a hook: the hook runs as in a call (its layers see
/// it), its decision is dropped, and the notes it leaves go to its session
/// (the empty session when the request has none); a wake-up among them is
/// also told to `on_wake_up` at once.
async fn run_in_background<S>(hook: S, req: HookRequest, on_wake_up: Option<OnWakeUp>) -> Delivery
where
    S: Service<HookRequest, Response = Verdict, Error = Infallible>,
{
    let session: Arc<str> = req.session_id().unwrap_or_default().into();
    let slot = RunSlot::default();
    let req = req.with_run_slot(slot.clone());
    let started = tokio::time::Instant::now();
    let Ok(verdict) = tower::ServiceExt::oneshot(hook, req).await;
    tracing::debug!(
        outcome = verdict.record_outcome().as_str(),
        duration_ms = crate::outcome::millis(started.elapsed()),
        "background hook finished"
    );
    let notes = slot.take_notes()?;
    if let (Some(f), Some(message)) = (on_wake_up, &notes.wake_up) {
        f(WakeUp {
            session_id: session.to_string(),
            message: message.clone(),
        });
    }
    Some((session, notes))
}

impl<C, H> fmt::Debug for Builder<C, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field(
                "hooks",
                &self
                    .settings
                    .hooks
                    .iter()
                    .map(|(s, _)| s)
                    .collect::<Vec<_>>(),
            )
            .field("host", &self.settings.host)
            .field("current_dir", &self.settings.current_dir)
            .field("no_hooks", &self.settings.gate.no_hooks())
            .finish_non_exhaustive()
    }
}
