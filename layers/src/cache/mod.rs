//! Middleware that memoises the verdicts of the hooks you opt in, for a time-to-live.
//!
//! Put a [`CacheLayer`] around each hook
//! ([`Builder::around_hook`](tower_hooks::Builder::around_hook)) and name the hooks
//! it may answer for, by `source:index` ([`CacheLayer::hooks`]) or by a predicate
//! on their [`HookSpec`] ([`CacheLayer::when`]); every other hook passes through
//! untouched. For an opted-in hook, a request identical to one it answered within
//! the time-to-live gets the same verdict at once, without running the hook.
//!
//! Identical means: the same hook, the same event, the same tool name, the same
//! arguments (compared as their JSON text), and the same matcher subject (which
//! adds the session id on the two session events). The tool call id, the session
//! id elsewhere and the working directory are not part of it.
//!
//! Only answers the hook gave are kept: allow, transform, and a block the hook
//! asked for. A timeout ([`BlockCause::Timeout`]), a fail-closed block, a hook that
//! could not run ([`Verdict::FailedOpen`], or an error from below), and a skipped
//! hook are never cached: the next identical request runs the hook again. The
//! cache holds at most `capacity` verdicts ([quick_cache], S3-FIFO eviction),
//! shared by every hook the layer wraps; a verdict older than the time-to-live is
//! dropped when next looked up.
//!
//! # Example
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use std::sync::Arc;
//! use std::time::Duration;
//! use serde_json::json;
//! use tower::ServiceExt;
//! use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
//! use tower_hooks_layers::cache::CacheLayer;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let runs = Arc::new(AtomicUsize::new(0));
//! let counter = runs.clone();
//! let cache = CacheLayer::new(Duration::from_secs(60), 1024).hooks(["lint:0"]);
//! let handle = cache.handle();
//! let stack = HookStack::builder()
//!     // A pure and (pretend) expensive check of the command line.
//!     .fn_hook(HookSpec::in_process(Event::ToolExecutionStart, "lint"), move |req: &HookRequest| {
//!         counter.fetch_add(1, Ordering::SeqCst);
//!         match req.arguments()["command"].as_str() {
//!             Some(cmd) if cmd.contains("sudo") => Verdict::block("no sudo"),
//!             _ => Verdict::Allow,
//!         }
//!     })
//!     .around_hook(cache)
//!     .build();
//!
//! for command in ["sudo ls", "sudo ls", "ls", "sudo ls"] {
//!     let req = HookRequest::tool_execution_start("bash", json!({ "command": command }));
//!     let blocked = stack.clone().oneshot(req).await.unwrap().is_blocked();
//!     assert_eq!(blocked, command.contains("sudo"));
//! }
//! assert_eq!(runs.load(Ordering::SeqCst), 2); // "sudo ls" once, "ls" once
//! assert_eq!((handle.hits(), handle.misses()), (2, 2));
//! # }
//! ```
//!
//! # Caveats
//!
//! Cache only hooks that are **pure**: whose verdict depends on nothing but the
//! event, the tool name and the arguments. A cached answer is given without
//! running the hook, for up to the time-to-live, so with a hook that is not pure:
//!
//! * anything else it reads — the clock, files, the network, environment
//!   variables, the working directory, the session id, a counter or rate limit —
//!   is read once per time-to-live, not once per call;
//! * what it does besides answering — writing a log, sending a notification — is
//!   done once per time-to-live;
//! * an edit to its script, or to a file it reads, is seen only after the
//!   time-to-live, or after [`CacheHandle::clear`].
//!
//! A cache hit skips the hook's timeout, its process and its report lines, but not
//! the layers outside the cache. Two identical requests in flight at once both run
//! the hook (there is no request coalescing). Each entry keeps its request's
//! arguments as JSON text: mind `capacity` when hooks see large arguments, such as
//! a `tool_execution_end` with a long tool output. If `serde_json`'s
//! `preserve_order` feature is on in your build, objects whose keys come in a
//! different order are different requests (a miss, never a wrong answer).
//!
//! # Order
//!
//! Layers added to [`Builder::around_hook`](tower_hooks::Builder::around_hook)
//! before the cache see cached answers too (an audit log records them, with their
//! short duration); layers added after it see only the runs that were not cached.

mod future;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;
use tower_hooks::{BlockCause, Event, HookRequest, HookSpec, Verdict};
use tower_layer::Layer;
use tower_service::Service;

pub use self::future::ResponseFuture;

/// Memoises the verdicts of opted-in hooks. See the [module docs](self).
///
/// Clones share one cache.
#[derive(Clone)]
pub struct CacheLayer {
    store: Arc<Store>,
    select: Select,
}

impl CacheLayer {
    /// A cache of up to `capacity` verdicts (at least 1), each kept for
    /// `time_to_live`. It answers for no hook until you opt some in with
    /// [`hooks`](Self::hooks) or [`when`](Self::when).
    pub fn new(time_to_live: Duration, capacity: usize) -> Self {
        CacheLayer {
            store: Arc::new(Store {
                entries: quick_cache::sync::Cache::new(capacity.max(1)),
                time_to_live,
                hits: AtomicU64::new(0),
                misses: AtomicU64::new(0),
                next_service: AtomicU64::new(0),
            }),
            select: Select::default(),
        }
    }

    /// Opts in the hooks with these `source:index` names, as `hooks list` shows
    /// them (at every event the source configures them for).
    pub fn hooks<I, T>(mut self, hooks: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        let mut names = self.select.names.to_vec();
        names.extend(hooks.into_iter().map(Into::into));
        self.select.names = names.into();
        self
    }

    /// Opts in every hook whose spec satisfies `predicate`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use tower::{service_fn, Layer, ServiceExt};
    /// use tower_hooks::{BoxError, Event, HookRequest, HookSpec, Verdict};
    /// use tower_hooks_layers::cache::CacheLayer;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// // Every hook configured in a file of checks known to be pure.
    /// let cache = CacheLayer::new(Duration::from_secs(300), 4096)
    ///     .when(|spec: &HookSpec| spec.source().ends_with("/pure-checks.toml"));
    /// let hook = cache.layer(service_fn(|_req: HookRequest| async { Ok::<_, BoxError>(Verdict::Allow) }));
    ///
    /// let spec = HookSpec::in_process(Event::TurnEnd, "x").with_source("/etc/pure-checks.toml", 0);
    /// let req = HookRequest::turn_end(1, 0, false).with_hook(Arc::new(spec));
    /// hook.clone().oneshot(req.clone()).await.unwrap();
    /// hook.oneshot(req).await.unwrap();
    /// assert_eq!(cache.handle().hits(), 1);
    /// # }
    /// ```
    pub fn when<F>(mut self, predicate: F) -> Self
    where
        F: Fn(&HookSpec) -> bool + Send + Sync + 'static,
    {
        let mut predicates = self.select.predicates.to_vec();
        predicates.push(Arc::new(predicate));
        self.select.predicates = predicates.into();
        self
    }

    /// A handle on the cache: hit and miss counts, size, and [`clear`](CacheHandle::clear).
    pub fn handle(&self) -> CacheHandle {
        CacheHandle {
            store: self.store.clone(),
        }
    }
}

impl fmt::Debug for CacheLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CacheLayer")
            .field("store", &self.store)
            .field("select", &self.select)
            .finish()
    }
}

impl<S> Layer<S> for CacheLayer {
    type Service = Cache<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Cache {
            inner,
            store: self.store.clone(),
            select: self.select.clone(),
            // Each wrapped hook gets its own entries; its clones share them.
            service: self.store.next_service.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// Reads and clears the cache of a [`CacheLayer`]. Clones share it.
#[derive(Clone)]
pub struct CacheHandle {
    store: Arc<Store>,
}

impl CacheHandle {
    /// Requests answered from the cache.
    pub fn hits(&self) -> u64 {
        self.store.hits.load(Ordering::Relaxed)
    }

    /// Requests of opted-in hooks that ran the hook (nothing cached, or too old).
    pub fn misses(&self) -> u64 {
        self.store.misses.load(Ordering::Relaxed)
    }

    /// Verdicts held (some may be past their time-to-live, not yet looked up).
    pub fn len(&self) -> usize {
        self.store.entries.len()
    }

    /// Whether no verdict is held.
    pub fn is_empty(&self) -> bool {
        self.store.entries.is_empty()
    }

    /// Forgets every verdict (after editing a cached hook, say).
    pub fn clear(&self) {
        self.store.entries.clear();
    }
}

impl fmt::Debug for CacheHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CacheHandle")
            .field("store", &self.store)
            .finish()
    }
}

/// Answers an opted-in hook from the cache when it can. See the [module docs](self).
#[derive(Clone)]
pub struct Cache<S> {
    inner: S,
    store: Arc<Store>,
    select: Select,
    service: u64,
}

impl<S> Cache<S> {
    /// Wraps `inner`, sharing the cache (and the choice of hooks) of `layer`.
    pub fn new(inner: S, layer: &CacheLayer) -> Self {
        layer.layer(inner)
    }

    define_inner_service_accessors!();

    /// The cache key of `req`, if its hook is opted in.
    fn key(&self, req: &HookRequest) -> Option<Key> {
        let spec = req.hook()?;
        if !self.select.matches(spec) {
            return None;
        }
        Some(Key {
            service: self.service,
            event: req.event(),
            hook: format!("{}:{}", spec.source(), spec.index()).into(),
            tool: req.tool_name().map(Into::into),
            subject: req.matcher_subject().as_str().into(),
            arguments: serde_json::to_string(req.arguments())
                .expect("a JSON value always serializes")
                .into(),
        })
    }
}

impl<S: fmt::Debug> fmt::Debug for Cache<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache")
            .field("inner", &self.inner)
            .field("store", &self.store)
            .field("select", &self.select)
            .finish()
    }
}

impl<S> Service<HookRequest> for Cache<S>
where
    S: Service<HookRequest, Response = Verdict>,
{
    type Response = Verdict;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    // poll_ready: pass through (a hit then answers without calling the inner
    // service, as tower-http's `ValidateRequest` does).
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HookRequest) -> Self::Future {
        let Some(key) = self.key(&req) else {
            return ResponseFuture::bypass(self.inner.call(req));
        };
        if let Some(verdict) = self.store.get(&key) {
            self.store.hits.fetch_add(1, Ordering::Relaxed);
            return ResponseFuture::hit(verdict);
        }
        self.store.misses.fetch_add(1, Ordering::Relaxed);
        ResponseFuture::miss(self.inner.call(req), key, self.store.clone())
    }
}

/// Whether a verdict may be cached: only an answer the hook itself gave.
fn cacheable(verdict: &Verdict) -> bool {
    match verdict {
        Verdict::Allow | Verdict::Transform(_) => true,
        Verdict::Block { cause, .. } => *cause == BlockCause::Hook,
        Verdict::Skipped | Verdict::FailedOpen { .. } => false,
        // An answer of a kind added later is not cached until it is known safe.
        _ => false,
    }
}

/// Which hooks a cache answers for.
#[derive(Clone, Default)]
struct Select {
    names: Arc<[String]>,
    predicates: Arc<[Predicate]>,
}

type Predicate = Arc<dyn Fn(&HookSpec) -> bool + Send + Sync>;

impl Select {
    fn matches(&self, spec: &HookSpec) -> bool {
        let named = self.names.iter().any(|name| {
            name.rsplit_once(':').is_some_and(|(source, index)| {
                source == spec.source() && index.parse() == Ok(spec.index())
            })
        });
        named || self.predicates.iter().any(|p| p(spec))
    }
}

impl fmt::Debug for Select {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Select")
            .field("hooks", &self.names)
            .field("predicates", &self.predicates.len())
            .finish()
    }
}

/// What makes two requests identical, for one wrapped hook.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    service: u64,
    event: Event,
    hook: Box<str>,
    tool: Option<Box<str>>,
    subject: Box<str>,
    arguments: Box<str>,
}

#[derive(Debug)]
struct Entry {
    stored: Instant,
    verdict: Verdict,
}

struct Store {
    entries: quick_cache::sync::Cache<Key, Arc<Entry>>,
    time_to_live: Duration,
    hits: AtomicU64,
    misses: AtomicU64,
    next_service: AtomicU64,
}

impl Store {
    /// A fresh verdict for `key`; a stale one is removed.
    fn get(&self, key: &Key) -> Option<Verdict> {
        let entry = self.entries.get(key)?;
        if entry.stored.elapsed() < self.time_to_live {
            return Some(entry.verdict.clone());
        }
        self.entries.remove_if(key, |e| Arc::ptr_eq(e, &entry));
        None
    }

    fn insert(&self, key: Key, verdict: &Verdict) {
        if cacheable(verdict) {
            let entry = Entry {
                stored: Instant::now(),
                verdict: verdict.clone(),
            };
            self.entries.insert(key, Arc::new(entry));
        }
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("len", &self.entries.len())
            .field("capacity", &self.entries.capacity())
            .field("time_to_live", &self.time_to_live)
            .field("hits", &self.hits.load(Ordering::Relaxed))
            .field("misses", &self.misses.load(Ordering::Relaxed))
            .finish()
    }
}
