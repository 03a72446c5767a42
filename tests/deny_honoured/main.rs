//! "A deny is honoured", as one table over every event of every dialect where
//! a block takes effect: a hook that answers its dialect's deny there gives an
//! outcome that [`is_blocked`](tower_hooks::HookOutcome::is_blocked).
//!
//! The events come from the library, so that a new one is not left out:
//!
//! * nanopi: the rows of the event table that nanopi has and whose block
//!   takes effect ([`BlockPolicy::drops_blocks`]);
//! * Claude Code: every name whose exit-2 meaning is honoured
//!   ([`claude::block_meaning`]), and `PermissionRequest`, where only the
//!   JSON `decision.behavior: "deny"` denies;
//! * Codex: every event that [`CodexEvent::can_block`];
//! * Cursor: every name whose neutral event enforces blocks (its stop events
//!   only ask for a follow-up, they cannot refuse), and `subagentStart`, where
//!   Cursor honours a deny that the neutral event drops;
//! * Gemini CLI: every name whose neutral event keeps blocks, and
//!   `AfterTool`, where Gemini CLI honours a block that the neutral event
//!   drops (Cursor and Gemini CLI expose no rule per name, hence the named
//!   exceptions);
//! * react-agent-mini: every event whose neutral event keeps blocks.
//!
//! Each row is run with exit 2 and a reason on stderr, the deny every dialect
//! reads, and, where the dialect has one, with its JSON deny.

#[path = "../support/mod.rs"]
mod support;

use std::path::Path;

use serde_json::{json, Map, Value};
use support::{bounded, write};
use tower::ServiceExt;
use tower_hooks::config::ConfigFile;
use tower_hooks::dialect::agents::AgentsEvent;
use tower_hooks::dialect::claude;
use tower_hooks::dialect::codex::CodexEvent;
use tower_hooks::dialect::{EventNames, NamedEvent};
use tower_hooks::event::TABLE;
use tower_hooks::{BlockPolicy, Config, Dialect, Event, HookRequest, HookStack};

/// The reason every deny gives.
const REASON: &str = "denied by the table";

/// One row: a dialect's event, and how its hook denies.
struct Row {
    dialect: Dialect,
    event: String,
    /// The hook's shell command.
    command: String,
    /// What the command answers, for messages.
    form: &'static str,
}

/// The shell command that prints `answer` on stdout and exits 0.
fn json_answer(answer: Value) -> String {
    let text = answer.to_string().replace('\'', r"'\''");
    format!("cat > /dev/null; printf '%s\\n' '{text}'")
}

/// The shell command that denies with exit 2 and the reason on stderr.
fn exit_2() -> String {
    format!("cat > /dev/null; echo '{REASON}' >&2; exit 2")
}

/// The names a dialect gives its events, as the library lists them.
fn names_of(dialect: Dialect) -> Vec<&'static str> {
    EventNames::all()
        .into_iter()
        .find(|names| names.dialect() == dialect)
        .unwrap_or_else(|| panic!("the library lists no event names for {dialect}"))
        .names()
}

/// Whether the neutral event that `name` fires at keeps a block.
fn neutral_keeps_blocks(name: &str) -> bool {
    NamedEvent::find(name).is_some_and(|named| !named.event().block_policy().drops_blocks())
}

/// Every row of the table.
fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut row = |dialect, event: &str, command: String, form| {
        rows.push(Row {
            dialect,
            event: event.to_owned(),
            command,
            form,
        })
    };

    for info in TABLE.iter().filter(|info| info.nanopi) {
        if !info.block_policy.drops_blocks() {
            row(Dialect::Nanopi, info.name, exit_2(), "exit 2");
            let deny = json!({"decision": "block", "reason": REASON});
            row(Dialect::Nanopi, info.name, json_answer(deny), "JSON block");
        }
    }

    for name in names_of(Dialect::Claude) {
        if name == "PermissionRequest" {
            let deny = json!({"hookSpecificOutput": {
                "hookEventName": name,
                "decision": {"behavior": "deny", "message": REASON},
            }});
            row(
                Dialect::Claude,
                name,
                json_answer(deny),
                "JSON decision.behavior deny",
            );
        } else if claude::block_meaning(name).is_honored() {
            row(Dialect::Claude, name, exit_2(), "exit 2");
            let deny = if name == "PreToolUse" {
                json!({"hookSpecificOutput": {
                    "hookEventName": name,
                    "permissionDecision": "deny",
                    "permissionDecisionReason": REASON,
                }})
            } else {
                json!({"decision": "block", "reason": REASON})
            };
            row(Dialect::Claude, name, json_answer(deny), "JSON deny");
        }
    }

    for event in CodexEvent::ALL.into_iter().filter(|e| e.can_block()) {
        let name = event.name();
        row(Dialect::Codex, name, exit_2(), "exit 2");
        let deny = match name {
            "PreToolUse" => json!({"hookSpecificOutput": {
                "hookEventName": name,
                "permissionDecision": "deny",
                "permissionDecisionReason": REASON,
            }}),
            "PermissionRequest" => json!({"hookSpecificOutput": {
                "hookEventName": name,
                "decision": {"behavior": "deny", "message": REASON},
            }}),
            _ => json!({"decision": "block", "reason": REASON}),
        };
        row(Dialect::Codex, name, json_answer(deny), "JSON deny");
    }

    for name in names_of(Dialect::Cursor) {
        // Cursor's stop events cannot refuse: they only ever ask for a
        // follow-up, so a follow-up event is no row here.
        let enforced = NamedEvent::find(name)
            .is_some_and(|n| n.event().block_policy() == BlockPolicy::Enforced);
        if enforced || name == "subagentStart" {
            row(Dialect::Cursor, name, exit_2(), "exit 2");
            let deny = if name == "beforeSubmitPrompt" {
                json!({"continue": false, "user_message": REASON})
            } else {
                json!({"permission": "deny", "user_message": REASON, "agent_message": REASON})
            };
            row(Dialect::Cursor, name, json_answer(deny), "JSON deny");
        }
    }

    for name in names_of(Dialect::Gemini) {
        if neutral_keeps_blocks(name) || name == "AfterTool" {
            row(Dialect::Gemini, name, exit_2(), "exit 2");
            let deny = json!({"decision": "deny", "reason": REASON});
            row(Dialect::Gemini, name, json_answer(deny), "JSON deny");
        }
    }

    for event in AgentsEvent::ALL {
        if !event.event().block_policy().drops_blocks() {
            row(Dialect::Agents, event.name(), exit_2(), "exit 2");
            let deny = json!({"decision": "deny", "reason": REASON});
            row(
                Dialect::Agents,
                event.name(),
                json_answer(deny),
                "JSON deny",
            );
        }
    }
    rows
}

/// Writes the project's file of `row`'s dialect with its one hook, and loads it.
fn stack(project: &Path, row: &Row) -> HookStack {
    let command = json!(row.command);
    let (rel, text) = match row.dialect {
        Dialect::Nanopi => (
            ".nanopi/config.toml",
            format!("[[hooks.{}]]\ncommand = {command}\n", row.event),
        ),
        Dialect::Claude => (
            ".claude/settings.json",
            json!({"hooks": {&row.event: [{"hooks": [{"type": "command", "command": command}]}]}})
                .to_string(),
        ),
        Dialect::Codex => (
            ".codex/hooks.json",
            json!({"hooks": {&row.event: [{"hooks": [{"type": "command", "command": command}]}]}})
                .to_string(),
        ),
        Dialect::Cursor => (
            ".cursor/hooks.json",
            json!({"version": 1, "hooks": {&row.event: [{"command": command}]}}).to_string(),
        ),
        Dialect::Gemini => (
            ".gemini/settings.json",
            json!({"hooks": {&row.event: [{"hooks": [{"type": "command", "command": command}]}]}})
                .to_string(),
        ),
        Dialect::Agents => (
            ".agents/hooks.json",
            json!({"hooks": {&row.event: [{"command": command}]}}).to_string(),
        ),
        other => panic!("no config file written for {other} yet: add it to this table"),
    };
    let path = project.join(rel);
    write(&path, &text);
    let file = ConfigFile::detect(&path);
    assert_eq!(
        file.format().dialect(),
        row.dialect,
        "{rel} is read as {}",
        file.format().dialect()
    );
    let config = Config::load_files(&[file], project)
        .unwrap_or_else(|e| panic!("{} {}: {e}", row.dialect, row.event));
    let specs = config.into_hooks();
    assert_eq!(specs.len(), 1, "{} {}: one hook", row.dialect, row.event);
    HookStack::builder()
        .report(())
        .env("SHELL", "/bin/sh")
        .command_hooks(specs)
        .build()
}

/// The request for `row`'s event, with the fields its stdin may want.
fn request(project: &Path, row: &Row) -> HookRequest {
    let cwd = project.display().to_string();
    if row.dialect == Dialect::Nanopi {
        let event: Event = row.event.parse().unwrap();
        let args = json!({"prompt": "hi", "turn_count": 1, "command": "ls"});
        let req = HookRequest::new(event, args).with_cwd(cwd);
        return match event.matcher_subject() {
            tower_hooks::MatcherSubject::ToolName => req.with_tool_name("bash"),
            _ => req,
        };
    }
    let named = NamedEvent::find(&row.event)
        .unwrap_or_else(|| panic!("{}: no dialect names {}", row.dialect, row.event));
    let fields: Map<String, Value> = json!({
        "session_id": "s1",
        "cwd": cwd,
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_response": {"output": "ok"},
        "command": "ls",
        "file_path": "/tmp/x",
        "content": "x",
        "prompt": "hi",
        "agent_id": "a1",
        "agent_type": "general",
        "stop_hook_active": false,
        "last_assistant_message": "done",
        "llm_request": {"model": "m", "messages": []},
        "llm_response": {"candidates": []},
    })
    .as_object()
    .unwrap()
    .clone();
    named
        .request(fields)
        .unwrap_or_else(|e| panic!("{} {}: {e}", row.dialect, row.event))
        .with_cwd(cwd)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_is_honoured_at_every_enforcing_event_of_every_dialect() {
    bounded(async {
        let rows = rows();
        let mut seen: Vec<Dialect> = rows.iter().map(|r| r.dialect).collect();
        seen.dedup();
        for dialect in [
            Dialect::Nanopi,
            Dialect::Claude,
            Dialect::Codex,
            Dialect::Cursor,
            Dialect::Gemini,
            Dialect::Agents,
        ] {
            assert!(
                seen.contains(&dialect),
                "no enforcing event of {dialect} in the table"
            );
        }
        let mut missed = Vec::new();
        for row in &rows {
            let dir = tempfile::tempdir().unwrap();
            let stack = stack(dir.path(), row);
            let outcome = stack.oneshot(request(dir.path(), row)).await.unwrap();
            if !outcome.is_blocked() {
                missed.push(format!(
                    "{} {} ({}): decision {:?}, honoured {}, reason {:?}, hooks run {}",
                    row.dialect,
                    row.event,
                    row.form,
                    outcome.decision(),
                    outcome.is_honored(),
                    outcome.reason(),
                    outcome.hooks().len()
                ));
            }
        }
        assert!(
            missed.is_empty(),
            "a deny was not honoured at {} of {} rows:\n  {}",
            missed.len(),
            rows.len(),
            missed.join("\n  ")
        );
    })
    .await;
}
