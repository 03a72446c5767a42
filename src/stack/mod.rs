//! [`HookStack`] and its [`Builder`]: hook specs (plus your layers) in, one `Service` out.
//!
//! ```text
//! Gate ─ Advisory ─ (your layers around the call) ─ Chain ─ per matching hook:
//!     FailOpen ─ (your layers around each hook) ─ HookTimeout ─ Leaf
//! ```
//!
//! The leaf of a hook is a [`Command`](crate::layer::command::Command) for `type = "command"` entries, or any
//! in-process `Service<HookRequest, Response = Verdict>` you add with
//! [`Builder::service_hook`]. Layers you add with [`Builder::around_call`] see every
//! call and its [`HookOutcome`]; layers you add with [`Builder::around_hook`]
//! see each hook run and its [`Verdict`](crate::Verdict) (the request's
//! [`hook()`](HookRequest::hook) says which hook), and errors they raise follow
//! the hook's failure rule: tower's `Elapsed` is the hook's timeout block, any
//! other error fails open like a hook that could not be spawned (or blocks, for
//! a `fail_closed` hook).
//!
//! A built stack's type names every layer in it; [`HookStack::boxed`] turns it
//! into a [`BoxHookStack`], one type for any stack, to keep in a struct field.
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

mod builder;
mod leaf;

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tower::util::BoxCloneSyncService;
use tower_layer::{Identity, Layer};
use tower_service::Service;

pub use self::builder::Builder;
pub use self::leaf::{Leaf, LeafFuture};

use crate::layer::advisory::Advisory;
use crate::layer::chain::Chain;
use crate::layer::fail_open::FailOpen;
use crate::layer::gate::{Gate, GateHandle};
use crate::layer::timeout::HookTimeout;
use crate::outcome::HookOutcome;
use crate::process::background::Background;
use crate::process::persistent::{Persistent, PersistentLimits};
use crate::process::Job;
use crate::report::SharedReport;
use crate::request::HookRequest;
use crate::spec::HookSpec;

/// The per-hook stack below your [`around_hook`](Builder::around_hook) layers:
/// what their `Layer::layer` receives.
pub type HookBase = HookTimeout<Leaf>;

/// One hook with your layers `H` around it.
pub type PerHook<H> = FailOpen<<H as Layer<HookBase>>::Service, SharedReport>;

/// The whole stack's service with your layers `C` around the call and `H` around each hook.
pub type StackService<C, H> =
    Gate<Advisory<<C as Layer<Chain<PerHook<H>>>>::Service, SharedReport>>;

/// A [`HookStack`] with its service boxed: one type for every stack, whatever
/// layers it was built with, e.g. for a struct field. Made by
/// [`HookStack::boxed`]; it keeps [`gate`](HookStack::gate) and
/// [`specs`](HookStack::specs), and clones share the hooks and the switch.
///
/// `E` is the stack's error type: [`Infallible`] unless a layer you added with
/// [`around_call`](Builder::around_call) can fail (tower's own layers fail
/// with a [`BoxError`](crate::BoxError)).
///
/// ```
/// use tower_hooks::{BoxHookStack, Event, HookSpec, HookStack, Verdict};
///
/// struct Agent {
///     hooks: BoxHookStack,
/// }
///
/// let agent = Agent {
///     hooks: HookStack::builder()
///         .fn_hook(HookSpec::in_process(Event::TurnStart, "tick"), |_req| Verdict::Allow)
///         .around_call(tower::layer::layer_fn(|inner| inner))
///         .build()
///         .boxed(),
/// };
/// assert_eq!(agent.hooks.specs().len(), 1);
/// agent.hooks.gate().set_no_hooks(true);
/// ```
pub type BoxHookStack<E = Infallible> = HookStack<BoxCloneSyncService<HookRequest, HookOutcome, E>>;

/// The service an agent calls at its eleven call sites. See the [module docs](self).
///
/// It is cheap to clone; clones share the hooks and the `--no-hooks` switch.
#[derive(Clone)]
pub struct HookStack<S = StackService<Identity, Identity>> {
    inner: S,
    gate: GateHandle,
    specs: Arc<[Arc<HookSpec>]>,
    background: Background,
    /// The processes of the persistent hooks, each with the job that starts it.
    persistent: Arc<[(Persistent, Job)]>,
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

    /// The executor of this stack's background hooks (Claude Code's `async`
    /// handlers, Cursor's observing events).
    pub fn background(&self) -> &Background {
        &self.background
    }

    /// Stops the stack's background hooks: no new run starts, the ones in
    /// flight get up to `grace` to finish, and the rest are cancelled (their
    /// processes killed). Answers how many were cancelled. Calls made after it
    /// still run their foreground hooks.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower_hooks::HookStack;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let stack = HookStack::builder().build();
    /// assert_eq!(stack.shutdown(Duration::from_secs(1)).await, 0);
    /// # }
    /// ```
    pub async fn shutdown(&self, grace: Duration) -> usize {
        let cancelled = self.background.shutdown(grace).await;
        self.shutdown_persistent().await;
        cancelled
    }

    /// Starts the processes of the persistent hooks now, rather than at the
    /// first event that reaches each: the first events then cost no start.
    /// Each starts as its first event would start it, in the process's
    /// working directory. The first hook that cannot start is the error (the
    /// others are still started).
    ///
    /// ```
    /// use tower_hooks::{Event, HookSpec, HookStack};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
    /// let stack = HookStack::builder()
    ///     .command_hook(HookSpec::command(Event::TurnStart, "cat > /dev/null").with_persistent(true))
    ///     .build();
    /// stack.start_persistent().await?;
    /// stack.shutdown_persistent().await;
    /// # Ok(()) }
    /// ```
    pub async fn start_persistent(&self) -> std::io::Result<()> {
        let mut first_error = None;
        for (hook, job) in self.persistent.iter() {
            if let Err(err) = hook.start(job).await {
                first_error.get_or_insert(err);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Ends the processes of the persistent hooks: each one's stdin is closed,
    /// it gets its grace (1 s) to exit, then `SIGTERM` and `SIGKILL` go to its
    /// group. The next event that reaches one starts it again.
    /// [`shutdown`](Self::shutdown) does this too.
    pub async fn shutdown_persistent(&self) {
        // All at once: each may take its grace and the kill's.
        let mut ends = tokio::task::JoinSet::new();
        for (hook, _) in self.persistent.iter() {
            let hook = hook.clone();
            ends.spawn(async move {
                hook.shutdown(PersistentLimits::default().shutdown_grace)
                    .await
            });
        }
        while ends.join_next().await.is_some() {}
    }

    define_inner_service_accessors!(inner, "service inside", ref_only);

    /// Boxes the service inside: a [`BoxHookStack`], one nameable type for
    /// any stack, with the same hooks, switch and error type.
    pub fn boxed(self) -> BoxHookStack<S::Error>
    where
        S: Service<HookRequest, Response = HookOutcome> + Clone + Send + Sync + 'static,
        S::Future: Send + 'static,
    {
        HookStack {
            inner: BoxCloneSyncService::new(self.inner),
            gate: self.gate,
            specs: self.specs,
            background: self.background,
            persistent: self.persistent,
        }
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
