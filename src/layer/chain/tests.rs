use super::*;
use crate::layer::command::Command;
use crate::layer::fail_open::FailOpen;
use crate::outcome::RecordOutcome;
use crate::process::{BoxFuture, Finished, Job, Runner, Termination};
use serde_json::json;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use tower::util::BoxCloneSyncService;
use tower::{service_fn, ServiceExt};

type Hook = BoxCloneSyncService<HookRequest, Verdict, Infallible>;

fn hook<F>(f: F) -> Hook
where
    F: Fn(&HookRequest) -> Verdict + Clone + Send + Sync + 'static,
{
    BoxCloneSyncService::new(service_fn(move |req: HookRequest| {
        let v = f(&req);
        async move { Ok::<_, Infallible>(v) }
    }))
}

fn spec(event: Event, i: usize) -> Arc<HookSpec> {
    Arc::new(HookSpec::in_process(event, "test").with_source("test", i))
}

fn obj(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn outcomes(o: &HookOutcome) -> Vec<RecordOutcome> {
    o.hooks().iter().map(|r| r.outcome()).collect()
}

#[tokio::test]
async fn hooks_run_in_config_order() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let hooks = (0..3).map(|i| {
        let log = log.clone();
        (
            spec(Event::TurnStart, i),
            hook(move |_| {
                log.lock().unwrap().push(i);
                Verdict::Allow
            }),
        )
    });
    let out = Chain::new(hooks)
        .oneshot(HookRequest::turn_start(1, 0))
        .await
        .unwrap();
    assert_eq!(*log.lock().unwrap(), [0, 1, 2]);
    assert_eq!(out.decision(), Decision::Allow);
    assert_eq!(outcomes(&out), [RecordOutcome::Allow; 3]);
}

#[tokio::test]
async fn first_block_stops_the_chain() {
    let ran = Arc::new(AtomicUsize::new(0));
    let ran2 = ran.clone();
    let chain = Chain::new([
        (
            spec(Event::ToolExecutionStart, 0),
            hook(|_| Verdict::block("no")),
        ),
        (
            spec(Event::ToolExecutionStart, 1),
            hook(move |_| {
                ran2.fetch_add(1, Ordering::SeqCst);
                Verdict::Allow
            }),
        ),
    ]);
    let out = chain
        .oneshot(HookRequest::tool_execution_start(
            "bash",
            json!({"command": "x"}),
        ))
        .await
        .unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert_eq!(out.decision(), Decision::Block);
    assert_eq!(out.reason(), Some("no"));
    assert_eq!(
        outcomes(&out),
        [RecordOutcome::Block, RecordOutcome::NotRun]
    );
    assert_eq!(out.message().as_deref(), Some("blocked by hook: no"));
}

#[tokio::test]
async fn transforms_chain_and_feed_the_next_hook() {
    let chain = Chain::new([
        (
            spec(Event::ToolExecutionStart, 0),
            hook(|_| Verdict::Transform(obj(json!({"command": "a"})))),
        ),
        (
            spec(Event::ToolExecutionStart, 1),
            hook(|req| {
                let c = req.arguments()["command"].as_str().unwrap().to_owned();
                Verdict::Transform(obj(json!({ "command": c + "b" })))
            }),
        ),
    ]);
    let out = chain
        .oneshot(HookRequest::tool_execution_start(
            "bash",
            json!({"command": "x"}),
        ))
        .await
        .unwrap();
    assert_eq!(out.decision(), Decision::Transform);
    assert!(out.is_honored());
    assert_eq!(out.arguments(), &json!({"command": "ab"}));
}

#[tokio::test]
async fn block_after_a_transform_keeps_the_transform() {
    let chain = Chain::new([
        (
            spec(Event::TurnStart, 0),
            hook(|_| Verdict::Transform(obj(json!({"turn_count": 9})))),
        ),
        (
            spec(Event::ToolExecutionEnd, 0),
            hook(|_| Verdict::Transform(obj(json!({"content": "clean"})))),
        ),
        (
            spec(Event::ToolExecutionEnd, 1),
            hook(|_| Verdict::block("late")),
        ),
    ]);
    let req =
        HookRequest::tool_execution_end("bash", json!({}), "dirty", false, Default::default());
    let out = chain.oneshot(req).await.unwrap();
    assert_eq!(out.decision(), Decision::Block);
    assert_eq!(out.arguments()["tool_response"]["content"], "clean");
}

#[tokio::test]
async fn transform_on_an_event_without_scope_is_not_honored() {
    let chain = Chain::new([(
        spec(Event::TurnStart, 0),
        hook(|_| Verdict::Transform(obj(json!({"turn_count": 7})))),
    )]);
    let out = chain.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
    assert_eq!(out.decision(), Decision::Transform);
    assert!(!out.is_honored());
    assert_eq!(out.arguments(), &json!({"turn_count": 1, "iteration": 0}));
}

#[tokio::test]
async fn prompt_transform_feeds_only_the_prompt() {
    let chain = Chain::new([
        (
            spec(Event::BeforeAgentStart, 0),
            hook(|_| Verdict::Transform(obj(json!({"prompt": "rewritten", "turn_count": 99})))),
        ),
        (
            spec(Event::BeforeAgentStart, 1),
            hook(|req| {
                assert_eq!(
                    req.arguments(),
                    &json!({"turn_count": 1, "prompt": "rewritten"})
                );
                Verdict::Allow
            }),
        ),
    ]);
    let out = chain
        .oneshot(HookRequest::before_agent_start(1, "hi"))
        .await
        .unwrap();
    assert_eq!(out.prompt(), Some("rewritten"));
    assert_eq!(out.arguments()["turn_count"], 1);
}

#[tokio::test]
async fn hooks_of_other_events_do_not_run() {
    let chain = Chain::new([(spec(Event::TurnEnd, 0), hook(|_| Verdict::block("no")))]);
    let out = chain.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
    assert_eq!(out.decision(), Decision::Allow);
    assert!(out.hooks().is_empty());
}

#[tokio::test]
async fn unrunnable_type_is_skipped_and_recorded() {
    let ran = Arc::new(AtomicUsize::new(0));
    let ran2 = ran.clone();
    let http = Arc::new(
        HookSpec::command(Event::TurnStart, "x")
            .with_kind("http")
            .with_source("f", 0),
    );
    let chain = Chain::new([(
        http,
        hook(move |_| {
            ran2.fetch_add(1, Ordering::SeqCst);
            Verdict::block("no")
        }),
    )]);
    let out = chain.oneshot(HookRequest::turn_start(1, 0)).await.unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert_eq!(outcomes(&out), [RecordOutcome::Skipped]);
}

#[tokio::test]
async fn skipped_and_failed_open_hooks_allow() {
    let chain = Chain::new([
        (spec(Event::Input, 0), hook(|_| Verdict::Skipped)),
        (
            spec(Event::Input, 1),
            hook(|_| Verdict::FailedOpen {
                error: "boom".into(),
            }),
        ),
    ]);
    let out = chain.oneshot(HookRequest::input("x")).await.unwrap();
    assert_eq!(out.decision(), Decision::Allow);
    assert_eq!(
        outcomes(&out),
        [RecordOutcome::Skipped, RecordOutcome::Error]
    );
    assert_eq!(out.hooks()[1].reason(), Some("boom"));
}

/// A command hook whose runner answers `result`, behind a fail-open layer.
fn command_hook(result: fn() -> std::io::Result<Finished>) -> Hook {
    struct Fixed(fn() -> std::io::Result<Finished>);
    impl Runner for Fixed {
        fn run(&self, _job: Job) -> BoxFuture<'static, std::io::Result<Finished>> {
            let result = (self.0)();
            Box::pin(async move { result })
        }
    }
    let command = Command::with_runner("./check.sh", Arc::new(Fixed(result)), Default::default());
    BoxCloneSyncService::new(FailOpen::new(command, ()))
}

fn exited(code: i32, stdout: &str, stderr: &str) -> std::io::Result<Finished> {
    Ok(Finished {
        termination: Termination::Exited(code),
        stdout: stdout.into(),
        stdout_truncated: false,
        stderr: stderr.into(),
    })
}

fn command_spec(fail_closed: bool) -> Arc<HookSpec> {
    Arc::new(HookSpec::command(Event::Input, "./check.sh").with_fail_closed(fail_closed))
}

#[tokio::test]
async fn a_command_hooks_record_keeps_how_its_process_ended() {
    let chain = Chain::new([(
        command_spec(false),
        command_hook(|| exited(1, "checking...\nnot an answer\n", "jq: not found\n")),
    )]);
    let out = chain.oneshot(HookRequest::input("x")).await.unwrap();
    let record = &out.hooks()[0];
    assert_eq!(record.outcome(), RecordOutcome::Allow);
    let run = record.run().expect("a command hook keeps its run");
    assert_eq!(run.exit_code(), Some(1));
    assert_eq!(run.signal(), None);
    assert_eq!(run.stderr(), Some("jq: not found\n"));
    assert_eq!(run.last_stdout_line(), Some("not an answer"));
}

#[tokio::test]
async fn a_failed_closed_record_keeps_the_exit_status_and_stderr() {
    let chain = Chain::new([(
        command_spec(true),
        command_hook(|| exited(127, "", "bash: ./check.sh: No such file or directory\n")),
    )]);
    let out = chain.oneshot(HookRequest::input("x")).await.unwrap();
    let record = &out.hooks()[0];
    assert_eq!(record.outcome(), RecordOutcome::FailedClosed);
    let run = record.run().unwrap();
    assert_eq!(run.exit_code(), Some(127));
    assert!(run.stderr().unwrap().contains("No such file"));
}

#[tokio::test]
async fn a_command_that_could_not_start_is_recorded_as_such() {
    let chain = Chain::new([(
        command_spec(false),
        command_hook(|| Err(std::io::Error::other("bash not found on PATH"))),
    )]);
    let out = chain.oneshot(HookRequest::input("x")).await.unwrap();
    let record = &out.hooks()[0];
    assert_eq!(record.outcome(), RecordOutcome::Error);
    assert_eq!(record.reason(), Some("bash not found on PATH"));
    let run = record.run().unwrap();
    assert!(!run.started());
    assert_eq!(
        (run.exit_code(), run.signal(), run.stderr()),
        (None, None, None)
    );
}

#[tokio::test]
async fn an_in_process_hook_has_no_run() {
    let chain = Chain::new([(spec(Event::Input, 0), hook(|_| Verdict::Allow))]);
    let out = chain.oneshot(HookRequest::input("x")).await.unwrap();
    assert!(out.hooks()[0].run().is_none());
}

#[tokio::test]
async fn each_hook_sees_its_own_spec() {
    // What each hook saw is kept and checked after the call: an assertion
    // inside a hook proves nothing if the hook never runs.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let chain = Chain::new((0..2).map(|i| {
        let seen = seen.clone();
        (
            spec(Event::Input, i),
            hook(move |req| {
                let spec = req.hook().map(|spec| spec.index());
                seen.lock().unwrap().push((i, spec));
                Verdict::Allow
            }),
        )
    }));
    let out = chain.oneshot(HookRequest::input("x")).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), [(0, Some(0)), (1, Some(1))]);
    let records: Vec<_> = out.hooks().iter().map(|r| r.outcome()).collect();
    assert_eq!(records, [RecordOutcome::Allow, RecordOutcome::Allow]);
}
