//! `--no-hooks` gates every call site, the session events included (nanopi's
//! rule): for each event of the event table, a hook that leaves a mark and
//! blocks must not run while the switch is on, whether the switch was set on
//! the builder (what `hooks test --no-hooks` does) or flipped at run time on the
//! stack's handle. The events come from [`TABLE`], so a new event is covered
//! without touching this file.

#[path = "../support/mod.rs"]
mod support;

use std::path::Path;

use serde_json::json;
use support::{bounded, shell_quote};
use tower::ServiceExt;
use tower_hooks::event::TABLE;
use tower_hooks::{Decision, Event, HookOutcome, HookRequest, HookSpec, HookStack};

/// A request for `event`; an event fired by name carries a name of its own.
fn request(event: Event) -> HookRequest {
    match event {
        Event::Named => HookRequest::named("GateProbe", json!({})),
        event => HookRequest::new(event, json!({})),
    }
    .with_session_id("gate-session")
}

/// A hook at `event` that appends a line to `marker`, then blocks.
fn marking_hook(event: Event, marker: &Path) -> HookSpec {
    HookSpec::command(
        event,
        format!(
            "echo ran >> {}; echo 'the gate let me run' >&2; exit 2",
            shell_quote(marker)
        ),
    )
}

/// How many times the hook ran.
fn runs(marker: &Path) -> usize {
    std::fs::read_to_string(marker)
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

/// What is wrong with an outcome the gate answered while closed, if anything.
fn closed_gate_leak(outcome: &HookOutcome, marker: &Path, runs_before: usize) -> Option<String> {
    let ran = runs(marker) - runs_before;
    if ran != 0 {
        return Some(format!("the hook ran {ran} time(s)"));
    }
    if !outcome.hooks().is_empty() {
        return Some(format!("{} hook record(s)", outcome.hooks().len()));
    }
    if outcome.decision() != Decision::Allow {
        return Some(format!("decision {:?}, not allow", outcome.decision()));
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_hooks_gates_every_event_of_the_table() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let mut leaks = Vec::new();
        let mut never_ran = Vec::new();
        for info in TABLE.iter() {
            let event = info.event;
            let marker = dir.path().join(format!("{}.ran", info.name));

            // Set on the builder, as the CLI's `--no-hooks` does.
            let closed = HookStack::builder()
                .report(())
                .command_hook(marking_hook(event, &marker))
                .no_hooks(true)
                .build();
            let outcome = closed.oneshot(request(event)).await.unwrap();
            if let Some(leak) = closed_gate_leak(&outcome, &marker, 0) {
                leaks.push(format!("{} (no_hooks on the builder): {leak}", info.name));
            }

            // Open: the same hook runs, so the checks above can see a leak.
            let stack = HookStack::builder()
                .report(())
                .command_hook(marking_hook(event, &marker))
                .build();
            let before = runs(&marker);
            stack.clone().oneshot(request(event)).await.unwrap();
            if runs(&marker) == before {
                never_ran.push(info.name);
                continue;
            }

            // Flipped at run time on the stack's handle, then back.
            stack.gate().set_no_hooks(true);
            let before = runs(&marker);
            let outcome = stack.clone().oneshot(request(event)).await.unwrap();
            if let Some(leak) = closed_gate_leak(&outcome, &marker, before) {
                leaks.push(format!("{} (gate flipped at run time): {leak}", info.name));
            }
            stack.gate().set_no_hooks(false);
            let before = runs(&marker);
            stack.oneshot(request(event)).await.unwrap();
            if runs(&marker) == before {
                leaks.push(format!(
                    "{}: the hook did not run again once the gate reopened",
                    info.name
                ));
            }
        }
        assert!(
            never_ran.is_empty(),
            "with the gate open the hook never ran at {never_ran:?}: the test cannot \
             see a leak there (fix the request or the hook this test builds)"
        );
        assert!(
            leaks.is_empty(),
            "--no-hooks let hooks through at:\n  {}",
            leaks.join("\n  ")
        );
    })
    .await;
}
