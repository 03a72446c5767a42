//! Each hook run gets a `tracing` span carrying what a person debugging a hook
//! wants: event, source, index, matcher, pid, exit status, duration, outcome.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tower::ServiceExt;
use tower_hooks::{Event, HookRequest, HookSpec, HookStack, Verdict};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

type Fields = BTreeMap<String, String>;

/// Collects the fields of every `hook` span, as they are created and recorded.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<BTreeMap<u64, Fields>>>);

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _ctx: Context<'_, S>) {
        if attrs.metadata().name() == "hook" {
            let mut fields = Fields::new();
            attrs.record(&mut Collect(&mut fields));
            self.0.lock().unwrap().insert(id.into_u64(), fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some(fields) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Collect(fields));
        }
    }
}

async fn spans_of(stack: HookStack, req: HookRequest) -> Vec<Fields> {
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    stack.oneshot(req).await.unwrap();
    let collected = spans.0.lock().unwrap();
    collected.values().cloned().collect()
}

#[tokio::test(flavor = "current_thread")]
async fn a_command_hook_span_records_pid_exit_status_duration_and_outcome() {
    let stack = HookStack::builder()
        .command_hook(
            HookSpec::command(Event::ToolExecutionStart, "echo no >&2; exit 2")
                .with_matcher("^bash$")
                .unwrap()
                .with_source("/etc/hooks.toml", 3),
        )
        .build();
    let spans = spans_of(stack, HookRequest::tool_execution_start("bash", json!({}))).await;
    assert_eq!(spans.len(), 1, "{spans:?}");
    let span = &spans[0];
    assert_eq!(span["event"], "tool_execution_start");
    assert_eq!(span["source"], "/etc/hooks.toml");
    assert_eq!(span["index"], "3");
    assert_eq!(span["matcher"], "^bash$");
    assert!(span["pid"].parse::<u32>().is_ok(), "{span:?}");
    assert_eq!(span["exit_status"], "2");
    assert_eq!(span["outcome"], "block");
    assert!(span["duration_ms"].parse::<u64>().is_ok(), "{span:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn skipped_hooks_get_no_span_and_in_process_ones_have_no_pid() {
    let stack = HookStack::builder()
        .command_hook(
            HookSpec::command(Event::ToolExecutionStart, "exit 2")
                .with_matcher("^read$")
                .unwrap(),
        )
        .fn_hook(
            HookSpec::in_process(Event::ToolExecutionStart, "allow"),
            |_| Verdict::Allow,
        )
        .build();
    let spans = spans_of(stack, HookRequest::tool_execution_start("bash", json!({}))).await;
    assert_eq!(spans.len(), 1, "{spans:?}");
    assert_eq!(spans[0]["source"], "allow");
    assert_eq!(spans[0]["matcher"], "*");
    assert_eq!(spans[0]["outcome"], "allow");
    assert!(!spans[0].contains_key("pid"), "{:?}", spans[0]);
}
