//! [`ServiceBuilderExt`]: this crate's layers as `ServiceBuilder` methods.

#[allow(unused_imports)]
use tower::ServiceBuilder;
#[allow(unused_imports)]
use tower_layer::Stack;

/// Extension trait that adds this crate's layers to [`tower::ServiceBuilder`], one
/// method per layer (each behind its feature).
///
/// It is sealed: only `ServiceBuilder` implements it. A `ServiceBuilder` is itself a
/// layer, so one built with these methods goes straight into
/// [`Builder::around_hook`](tower_hooks::Builder::around_hook) or
/// [`Builder::around_call`](tower_hooks::Builder::around_call). Layers added first
/// sit outermost.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "full")]
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), tower_hooks::BoxError> {
/// use std::sync::Arc;
/// use std::time::Duration;
/// use serde_json::json;
/// use tower::{service_fn, ServiceBuilder, ServiceExt};
/// use tower_hooks::{BoxError, Event, HookRequest, HookSpec, Verdict};
/// use tower_hooks_layers::audit::AuditLayer;
/// use tower_hooks_layers::cache::CacheLayer;
/// use tower_hooks_layers::metrics::MetricsLayer;
/// use tower_hooks_layers::ServiceBuilderExt;
///
/// let sink = Vec::new();
/// let (audit, log) = AuditLayer::new(sink)?;
/// let (metrics, handle) = MetricsLayer::pair();
/// let hook = ServiceBuilder::new()
///     .audit(audit)
///     .metrics(metrics)
///     .cache(CacheLayer::new(Duration::from_secs(60), 64).hooks(["pure:0"]))
///     .service(service_fn(|_req: HookRequest| async { Ok::<_, BoxError>(Verdict::Allow) }));
///
/// // A request as the chain hands it to a hook: tagged with that hook.
/// let spec = Arc::new(HookSpec::in_process(Event::TurnStart, "pure"));
/// let verdict = hook.oneshot(HookRequest::turn_start(1, 0).with_hook(spec)).await?;
/// assert_eq!(verdict, Verdict::Allow);
/// log.shutdown().await;
/// assert_eq!(log.written(), 1);
/// assert_eq!(handle.snapshot().hook(Event::TurnStart, "pure:0").unwrap().counts.allow, 1);
/// # Ok(()) }
/// # #[cfg(not(feature = "full"))] fn main() {}
/// ```
pub trait ServiceBuilderExt<L>: crate::sealed::Sealed<L> + Sized {
    /// Counts and times hook runs. See [`metrics`](crate::metrics).
    #[cfg(feature = "metrics")]
    #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
    fn metrics(
        self,
        layer: crate::metrics::MetricsLayer,
    ) -> ServiceBuilder<Stack<crate::metrics::MetricsLayer, L>>;

    /// Memoises the verdicts of the hooks `layer` opts in. See [`cache`](crate::cache).
    #[cfg(feature = "cache")]
    #[cfg_attr(docsrs, doc(cfg(feature = "cache")))]
    fn cache(
        self,
        layer: crate::cache::CacheLayer,
    ) -> ServiceBuilder<Stack<crate::cache::CacheLayer, L>>;

    /// Writes one audit line per hook run. See [`audit`](crate::audit).
    #[cfg(feature = "audit")]
    #[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
    fn audit(
        self,
        layer: crate::audit::AuditLayer,
    ) -> ServiceBuilder<Stack<crate::audit::AuditLayer, L>>;
}

impl<L> crate::sealed::Sealed<L> for ServiceBuilder<L> {}

impl<L> ServiceBuilderExt<L> for ServiceBuilder<L> {
    #[cfg(feature = "metrics")]
    fn metrics(
        self,
        layer: crate::metrics::MetricsLayer,
    ) -> ServiceBuilder<Stack<crate::metrics::MetricsLayer, L>> {
        self.layer(layer)
    }

    #[cfg(feature = "cache")]
    fn cache(
        self,
        layer: crate::cache::CacheLayer,
    ) -> ServiceBuilder<Stack<crate::cache::CacheLayer, L>> {
        self.layer(layer)
    }

    #[cfg(feature = "audit")]
    fn audit(
        self,
        layer: crate::audit::AuditLayer,
    ) -> ServiceBuilder<Stack<crate::audit::AuditLayer, L>> {
        self.layer(layer)
    }
}
