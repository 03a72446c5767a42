//! The cache layer against in-process hooks: what it keeps, for how long, for
//! which hooks, and what it never keeps.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tower::{service_fn, Layer, Service, ServiceExt};
use tower_hooks::{
    BoxError, Event, HookOutcome, HookRequest, HookSpec, HookStack, StartReason, Verdict,
};
use tower_hooks_layers::cache::CacheLayer;

const TTL: Duration = Duration::from_secs(60);

/// A hook service that counts its runs and answers `verdict`.
fn counting(
    verdict: Verdict,
) -> (
    Arc<AtomicUsize>,
    impl Service<HookRequest, Response = Verdict, Error = BoxError, Future: Send> + Clone,
) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let service = service_fn(move |_req: HookRequest| {
        counter.fetch_add(1, Ordering::SeqCst);
        let verdict = verdict.clone();
        async move { Ok::<_, BoxError>(verdict) }
    });
    (runs, service)
}

fn spec(name: &str, index: usize) -> Arc<HookSpec> {
    Arc::new(HookSpec::in_process(Event::ToolExecutionStart, name).with_source(name, index))
}

/// A request as the chain hands it to hook `name:0`.
fn bash(command: &str, hook: &str) -> HookRequest {
    HookRequest::tool_execution_start("bash", json!({ "command": command }))
        .with_tool_call_id(format!("call_{command}"))
        .with_hook(spec(hook, 0))
}

async fn call<S>(service: &S, req: HookRequest) -> Result<Verdict, S::Error>
where
    S: Service<HookRequest, Response = Verdict> + Clone,
{
    service.clone().oneshot(req).await
}

#[tokio::test(start_paused = true)]
async fn identical_requests_run_the_hook_once_within_the_time_to_live() {
    let (runs, hook) = counting(Verdict::block("no"));
    let cache = CacheLayer::new(TTL, 16).hooks(["guard:0"]);
    let handle = cache.handle();
    let hook = cache.layer(hook);

    for i in 0..3 {
        // The tool call id differs each time: not part of the key.
        let req = bash("rm", "guard").with_tool_call_id(format!("call_{i}"));
        assert_eq!(call(&hook, req).await.unwrap(), Verdict::block("no"));
        tokio::time::advance(Duration::from_secs(10)).await;
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!((handle.hits(), handle.misses()), (2, 1));

    // Past the time-to-live, the hook runs again, and its answer is kept anew.
    tokio::time::advance(TTL).await;
    call(&hook, bash("rm", "guard")).await.unwrap();
    call(&hook, bash("rm", "guard")).await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!((handle.hits(), handle.misses()), (3, 2));
}

#[tokio::test]
async fn allows_transforms_and_hook_blocks_are_cached() {
    let transform = Verdict::Transform(json!({"command": "ls -a"}).as_object().unwrap().clone());
    for verdict in [Verdict::Allow, transform, Verdict::block("no")] {
        let (runs, hook) = counting(verdict.clone());
        let hook = CacheLayer::new(TTL, 16).hooks(["guard:0"]).layer(hook);
        assert_eq!(call(&hook, bash("ls", "guard")).await.unwrap(), verdict);
        assert_eq!(call(&hook, bash("ls", "guard")).await.unwrap(), verdict);
        assert_eq!(runs.load(Ordering::SeqCst), 1, "{verdict:?}");
    }
}

#[tokio::test]
async fn timeouts_failures_and_skips_are_never_cached() {
    for verdict in [
        Verdict::timed_out(Duration::from_millis(300)),
        Verdict::failed_closed("no bash"),
        Verdict::failed_open("no bash"),
        Verdict::Skipped,
    ] {
        let cache = CacheLayer::new(TTL, 16).hooks(["guard:0"]);
        let (runs, hook) = counting(verdict.clone());
        let hook = cache.layer(hook);
        assert_eq!(call(&hook, bash("ls", "guard")).await.unwrap(), verdict);
        assert_eq!(call(&hook, bash("ls", "guard")).await.unwrap(), verdict);
        assert_eq!(runs.load(Ordering::SeqCst), 2, "{verdict:?}");
        assert!(cache.handle().is_empty());
    }
}

#[tokio::test]
async fn a_hook_that_cannot_run_is_asked_again() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let failing = service_fn(move |_req: HookRequest| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Err::<Verdict, BoxError>("cannot spawn".into()) }
    });
    let hook = CacheLayer::new(TTL, 16).hooks(["guard:0"]).layer(failing);
    for _ in 0..2 {
        let err = call(&hook, bash("ls", "guard")).await.unwrap_err();
        assert_eq!(err.to_string(), "cannot spawn");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn through_the_stack_a_timeout_runs_again_and_an_answer_does_not() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let hook = service_fn(move |req: HookRequest| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move {
            if req.arguments()["command"] == "sleep" {
                tokio::time::sleep(Duration::from_secs(10)).await;
            }
            Ok::<_, Infallible>(Verdict::Allow)
        }
    });
    let spec = HookSpec::in_process(Event::ToolExecutionStart, "slow")
        .with_timeout(Duration::from_millis(50));
    let stack = HookStack::builder()
        .service_hook(spec, hook)
        .around_hook(CacheLayer::new(TTL, 16).hooks(["slow:0"]))
        .build();
    let run = |command: &'static str| {
        let stack = stack.clone();
        async move {
            let req = HookRequest::tool_execution_start("bash", json!({ "command": command }));
            stack.oneshot(req).await.unwrap()
        }
    };

    for _ in 0..2 {
        let outcome: HookOutcome = run("sleep").await;
        assert_eq!(outcome.reason(), Some("hook timed out after 50 ms"));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    for _ in 0..2 {
        assert!(!run("ls").await.is_blocked());
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn through_the_stack_a_fail_closed_block_is_asked_again() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let failing = service_fn(move |_req: HookRequest| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Err::<Verdict, BoxError>("cannot spawn".into()) }
    });
    let spec = HookSpec::in_process(Event::ToolExecutionStart, "strict").with_fail_closed(true);
    let stack = HookStack::builder()
        .report(())
        .service_hook(spec, failing)
        .around_hook(CacheLayer::new(TTL, 16).when(|_spec: &HookSpec| true))
        .build();
    for _ in 0..2 {
        let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
        let outcome = stack.clone().oneshot(req).await.unwrap();
        assert_eq!(outcome.reason(), Some("hook failed closed: cannot spawn"));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn hooks_not_opted_in_always_run() {
    let cache = CacheLayer::new(TTL, 16).hooks(["guard:0", "other.toml:3"]);
    let (runs, hook) = counting(Verdict::Allow);
    let hook = cache.layer(hook);
    for _ in 0..2 {
        call(&hook, bash("ls", "lint")).await.unwrap();
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!((cache.handle().hits(), cache.handle().misses()), (0, 0));

    // Nothing opted in: a pass-through.
    let (runs, hook) = counting(Verdict::Allow);
    let hook = CacheLayer::new(TTL, 16).layer(hook);
    for _ in 0..2 {
        call(&hook, bash("ls", "guard")).await.unwrap();
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn hooks_are_opted_in_by_name_or_by_predicate() {
    let cache = CacheLayer::new(TTL, 16)
        .hooks(["/etc/hooks.toml:1"])
        .when(|spec: &HookSpec| spec.source().ends_with("pure.toml"));
    let (runs, hook) = counting(Verdict::Allow);
    let hook = cache.layer(hook);
    let at = |source: &str, index: usize| {
        HookRequest::tool_execution_start("bash", json!({"command": "ls"})).with_hook(Arc::new(
            HookSpec::in_process(Event::ToolExecutionStart, source).with_source(source, index),
        ))
    };
    for (source, index, cached) in [
        ("/etc/hooks.toml", 1, true),
        ("/etc/hooks.toml", 0, false),
        ("/home/u/pure.toml", 7, true),
        ("/home/u/other.toml", 7, false),
    ] {
        let before = runs.load(Ordering::SeqCst);
        call(&hook, at(source, index)).await.unwrap();
        call(&hook, at(source, index)).await.unwrap();
        let ran = runs.load(Ordering::SeqCst) - before;
        assert_eq!(ran, if cached { 1 } else { 2 }, "{source}:{index}");
    }
}

#[tokio::test]
async fn a_request_without_a_hook_passes_through() {
    let (runs, hook) = counting(Verdict::Allow);
    let hook = CacheLayer::new(TTL, 16)
        .when(|_spec: &HookSpec| true)
        .layer(hook);
    for _ in 0..2 {
        let req = HookRequest::tool_execution_start("bash", json!({"command": "ls"}));
        call(&hook, req).await.unwrap();
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn another_tool_arguments_event_or_hook_is_another_request() {
    let cache = CacheLayer::new(TTL, 64).when(|_spec: &HookSpec| true);
    let (runs, hook) = counting(Verdict::Allow);
    let hook = cache.layer(hook);
    let base = || bash("ls", "guard");
    let variants: Vec<HookRequest> = vec![
        base(),
        base().with_tool_name("sh"),
        base().with_arguments(json!({"command": "ls", "cwd": "/"})),
        HookRequest::new(Event::ToolExecutionEnd, json!({"command": "ls"}))
            .with_tool_name("bash")
            .with_hook(spec("guard", 0)),
        base().with_hook(spec("guard", 1)),
        base().with_hook(spec("lint", 0)),
    ];
    for req in &variants {
        call(&hook, req.clone()).await.unwrap();
    }
    assert_eq!(runs.load(Ordering::SeqCst), variants.len());
    // …and each of them, asked again, is a hit.
    for req in &variants {
        call(&hook, req.clone()).await.unwrap();
    }
    assert_eq!(runs.load(Ordering::SeqCst), variants.len());
    assert_eq!(cache.handle().hits(), variants.len() as u64);
}

#[tokio::test]
async fn key_order_in_the_arguments_does_not_matter() {
    let (runs, hook) = counting(Verdict::Allow);
    let hook = CacheLayer::new(TTL, 16).hooks(["guard:0"]).layer(hook);
    let with = |args: Value| bash("", "guard").with_arguments(args);
    let a: Value = serde_json::from_str(r#"{"command": "ls", "timeout": 5}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"timeout": 5, "command": "ls"}"#).unwrap();
    call(&hook, with(a)).await.unwrap();
    call(&hook, with(b)).await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn where_the_matcher_tests_the_session_id_it_is_part_of_the_key() {
    // `session_start` hooks match on the session id: a cached "allow" for one
    // session must not answer for a session the matcher skips.
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let spec = HookSpec::in_process(Event::SessionStart, "greeter")
        .with_matcher("^team-")
        .unwrap();
    let stack = HookStack::builder()
        .fn_hook(spec, move |_req: &HookRequest| {
            counter.fetch_add(1, Ordering::SeqCst);
            Verdict::Allow
        })
        .around_hook(CacheLayer::new(TTL, 16).hooks(["greeter:0"]))
        .build();
    let start = |session: &str| {
        let req = HookRequest::session_start(StartReason::Startup).with_session_id(session);
        stack.clone().oneshot(req)
    };
    let outcome = start("team-a").await.unwrap();
    assert_eq!(outcome.hooks()[0].outcome().as_str(), "allow");
    let outcome = start("solo").await.unwrap();
    assert_eq!(outcome.hooks()[0].outcome().as_str(), "skipped");
    start("team-a").await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn capacity_bounds_the_verdicts_held_and_clear_forgets_them() {
    let cache = CacheLayer::new(TTL, 4).when(|_spec: &HookSpec| true);
    let handle = cache.handle();
    let (runs, hook) = counting(Verdict::Allow);
    let hook = cache.layer(hook);
    for i in 0..20 {
        call(&hook, bash(&format!("ls {i}"), "guard"))
            .await
            .unwrap();
    }
    assert_eq!(runs.load(Ordering::SeqCst), 20);
    assert!(handle.len() <= 4, "held {}", handle.len());
    assert!(!handle.is_empty());

    handle.clear();
    assert!(handle.is_empty());
    call(&hook, bash("ls 19", "guard")).await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 21);
}

#[tokio::test]
async fn two_hooks_wrapped_by_one_layer_keep_their_own_verdicts() {
    let cache = CacheLayer::new(TTL, 16).hooks(["guard:0"]);
    let (runs_a, a) = counting(Verdict::Allow);
    let (runs_b, b) = counting(Verdict::block("no"));
    let (a, b) = (cache.layer(a), cache.layer(b));
    assert_eq!(call(&a, bash("ls", "guard")).await.unwrap(), Verdict::Allow);
    assert_eq!(
        call(&b, bash("ls", "guard")).await.unwrap(),
        Verdict::block("no")
    );
    assert_eq!(call(&a, bash("ls", "guard")).await.unwrap(), Verdict::Allow);
    assert_eq!(
        (runs_a.load(Ordering::SeqCst), runs_b.load(Ordering::SeqCst)),
        (1, 1)
    );
    assert_eq!(cache.handle().len(), 2);
}
