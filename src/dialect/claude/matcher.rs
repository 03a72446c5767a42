//! Claude Code matchers: how a group's `matcher` string becomes a [`Pattern`],
//! and what it is tested against at each event.
//!
//! A matcher is read in one of three ways, by the characters it holds:
//!
//! * omitted, `""` or `"*"`: every subject;
//! * only ASCII letters, digits, `_`, `-`, spaces, `,` and `|`: one exact name,
//!   or a list of exact names split on `|` and `,` with the spaces around each
//!   name trimmed (`"Edit|Write"`, `"Edit, Write"`);
//! * anything else: a regex searched anywhere in the subject, case-sensitive
//!   (`"Edit.*"` matches `NotebookEdit`; `"^Edit$"` only `Edit`).
//!
//! `StopFailure` and `FileChanged` take a narrower exact set (no `-`, space or
//! `,`), and `FileChanged` matchers are always literal file names split on `|`.
//!
//! Claude Code compiles the regex as JavaScript; this host uses the `regex`
//! crate, which has no look-around and no backreferences. A matcher it cannot
//! compile is an error when the file loads, never a hook that silently never
//! fires.
//!
//! What the matcher is tested against, the *subject*, depends on the event
//! ([`subject`]): the tool name on tool events, how the session started on
//! `SessionStart`, and so on. Events that have no subject (`Stop`,
//! `UserPromptSubmit`, `PostToolBatch`, …) ignore their matchers, as Claude
//! Code does: the file loader compiles such a matcher to [`Pattern::Any`] and
//! warns.
//!
//! # Example
//!
//! ```
//! use tower_hooks::dialect::claude::matcher::{compile, subject};
//! use tower_hooks::HookRequest;
//!
//! let pattern = compile("PreToolUse", Some("Edit|Write"))?;
//! let req = HookRequest::tool_execution_start("Write", serde_json::json!({"file_path": "/a"}));
//! assert!(pattern.matches(&subject("PreToolUse", &req)));
//! assert!(!pattern.matches("NotebookEdit"));
//!
//! assert!(compile("PreToolUse", Some("Edit.*"))?.matches("NotebookEdit"));
//! assert!(compile("PreToolUse", Some("^(?!Read)")).is_err());
//! # Ok::<(), tower_hooks::PatternError>(())
//! ```

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::ClaudeEvent;
use crate::event::Event;
use crate::pattern::{Pattern, PatternError};
use crate::request::HookRequest;

/// Compiles the matcher of a group of the Claude Code event `event` (as
/// written in the file) into a [`Pattern`].
///
/// See the [module docs](self) for the three readings. Matchers on events
/// without a subject are compiled too (so that an invalid one is still
/// reported); the loader replaces them with [`Pattern::Any`].
pub fn compile(event: &str, matcher: Option<&str>) -> Result<Pattern, PatternError> {
    let Some(matcher) = matcher else {
        return Ok(Pattern::Any);
    };
    if matcher.is_empty() || matcher == "*" {
        return Ok(Pattern::Any);
    }
    let event = ClaudeEvent::from_name(event);
    if event == Some(ClaudeEvent::FileChanged) {
        return Ok(names(matcher, &['|']));
    }
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '|');
    let exact = if event == Some(ClaudeEvent::StopFailure) {
        matcher.chars().all(plain)
    } else {
        matcher
            .chars()
            .all(|c| plain(c) || matches!(c, '-' | ' ' | ','))
    };
    if exact {
        return Ok(names(matcher, &['|', ',']));
    }
    // Never `*` here, so `Pattern::new` reads it as a regex (with its shortcut
    // for `^name$` and `^(a|b)$`, which answers exactly as the regex would).
    Pattern::new(matcher)
}

/// The exact names of a matcher of plain names: split, trimmed, empty names
/// dropped. A matcher that names nothing (`" "`, `"|"`) matches everything,
/// as an empty matcher does.
fn names(matcher: &str, separators: &[char]) -> Pattern {
    let names: Vec<Box<str>> = matcher
        .split(separators)
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(Box::from)
        .collect();
    if names.is_empty() {
        return Pattern::Any;
    }
    Pattern::Exact(Arc::from(names))
}

/// What a Claude Code event's matcher is tested against: the request field
/// that holds its subject, or `None` for an event whose matcher is ignored.
///
/// Events this host fires and events it does not (which a host may still fire
/// by name with raw fields) are both listed, so that a raw `ConfigChange` is
/// matched on its `source` as in Claude Code.
pub fn subject_field(event: &str) -> Option<&'static str> {
    ClaudeEvent::from_name(event).and_then(ClaudeEvent::subject_field)
}

/// Whether a matcher on the Claude Code event `event` means anything. Claude
/// Code ignores the matcher of the others (`UserPromptSubmit`, `Stop`,
/// `PostToolBatch`, `TaskCreated`, …) and runs their hooks every time.
pub fn has_subject(event: &str) -> bool {
    subject_field(event).is_some()
}

/// The subject of the Claude Code event `event_name` for `req`: what its
/// matchers are tested against. Empty when the event has none, or when the
/// request lacks the fact.
///
/// The subject is read from the neutral request, in the values a Claude Code
/// hook sees:
///
/// * tool events and `PermissionRequest`: the tool name (the request's, else
///   its `tool_name` argument);
/// * `SessionStart`: `source`, else the neutral `reason` as Claude Code names
///   it ([`session_start_source`]);
/// * `SessionEnd`: the neutral `reason` as Claude Code names it
///   ([`session_end_reason`]);
/// * `PreCompact` / `PostCompact`: `trigger`, else the neutral `reason`
///   (`threshold` → `auto`, `manual` → `manual`; [`compaction_trigger`]);
/// * `Notification`: `notification_type`; `SubagentStart` / `SubagentStop`:
///   `agent_type`; `StopFailure`: `error`; `InstructionsLoaded`:
///   `load_reason`;
/// * `FileChanged` (fired by name): the file name of `file_path`;
/// * other events fired by name: the field of [`subject_field`].
///
/// ```
/// use tower_hooks::dialect::claude::matcher::subject;
/// use tower_hooks::{CompactionReason, HookRequest, StartReason};
///
/// assert_eq!(subject("SessionStart", &HookRequest::session_start(StartReason::New)), "clear");
/// let compact = HookRequest::session_before_compact(CompactionReason::Threshold);
/// assert_eq!(subject("PreCompact", &compact), "auto");
/// assert_eq!(subject("Stop", &HookRequest::stop(false, "done")), "");
/// ```
pub fn subject<'a>(event_name: &str, req: &'a HookRequest) -> Cow<'a, str> {
    match ClaudeEvent::from_name(event_name) {
        Some(event) => subject_of(event, req),
        None => Cow::Borrowed(""),
    }
}

/// [`subject`] of a known event.
pub(crate) fn subject_of(event: ClaudeEvent, req: &HookRequest) -> Cow<'_, str> {
    subject_seen(event, req, req.tool_name())
}

/// [`subject_of`], with `tool` as the tool's name (the one Claude Code hooks
/// see, which may differ from the host's).
pub(crate) fn subject_seen<'a>(
    event: ClaudeEvent,
    req: &'a HookRequest,
    tool: Option<&'a str>,
) -> Cow<'a, str> {
    let arguments = req.arguments();
    match event {
        ClaudeEvent::PreToolUse
        | ClaudeEvent::PostToolUse
        | ClaudeEvent::PostToolUseFailure
        | ClaudeEvent::PermissionRequest
        | ClaudeEvent::PermissionDenied => match tool {
            Some(name) => Cow::Borrowed(name),
            None => Cow::Borrowed(str_of(arguments, "tool_name")),
        },
        ClaudeEvent::SessionStart => match arguments.get("source") {
            Some(Value::String(source)) => Cow::Borrowed(source.as_str()),
            _ => Cow::Borrowed(session_start_source(str_of(arguments, "reason"))),
        },
        ClaudeEvent::SessionEnd => Cow::Borrowed(session_end_reason(str_of(arguments, "reason"))),
        ClaudeEvent::PreCompact | ClaudeEvent::PostCompact => match arguments.get("trigger") {
            Some(Value::String(trigger)) => Cow::Borrowed(trigger.as_str()),
            _ => Cow::Borrowed(compaction_trigger(str_of(arguments, "reason"))),
        },
        ClaudeEvent::FileChanged => {
            let path = str_of(arguments, "file_path");
            Cow::Borrowed(path.rsplit('/').next().unwrap_or(path))
        }
        other => match other.subject_field() {
            Some(name) => Cow::Borrowed(str_of(arguments, name)),
            None => Cow::Borrowed(""),
        },
    }
}

fn str_of<'a>(arguments: &'a Value, key: &str) -> &'a str {
    arguments.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The `source` a Claude Code `SessionStart` hook sees for a neutral
/// `session_start` reason: `startup` → `startup`, `new` → `clear` (a fresh
/// session in the same process, as Claude Code's `/clear`), `resume` and
/// `import` → `resume`, `fork` → `fork`. Anything else (a Claude Code value
/// given as it is) passes through.
pub fn session_start_source(reason: &str) -> &str {
    match reason {
        "new" => "clear",
        "import" => "resume",
        other => other,
    }
}

/// The `reason` a Claude Code `SessionEnd` hook sees for a neutral
/// `session_shutdown` reason: `quit` → `prompt_input_exit` (the user left the
/// agent), `new` → `clear`, `resume` and `import` → `resume` (the session is
/// left for another one), `fork` → `other`. Anything else (a Claude Code value
/// given as it is) passes through. The stdin envelope says the same.
pub fn session_end_reason(reason: &str) -> &str {
    match reason {
        "quit" => "prompt_input_exit",
        "new" => "clear",
        "import" => "resume",
        "fork" => "other",
        other => other,
    }
}

/// The `trigger` a Claude Code `PreCompact` / `PostCompact` hook sees for a
/// neutral compaction reason: `threshold` → `auto`; `manual` and anything
/// else pass through.
pub fn compaction_trigger(reason: &str) -> &str {
    match reason {
        "threshold" => "auto",
        other => other,
    }
}

/// The neutral event of a Claude Code event name ([`ClaudeEvent::event`]);
/// `None` for an event this host does not fire, and for a name that is no
/// Claude Code event.
pub fn neutral_event(event: &str) -> Option<Event> {
    ClaudeEvent::from_name(event).and_then(ClaudeEvent::event)
}

/// Claude Code events that this host does not fire (they have no neutral
/// event). A file may configure them: they load with a warning. The events
/// this host fires are the ones [`Event::claude_names`] lists, not here.
pub const UNFIRED_EVENTS: &[&str] = &super::event::UNFIRED_NAMES;

/// Whether `event` is a Claude Code event name, fired by this host or not.
pub fn is_claude_event(event: &str) -> bool {
    ClaudeEvent::from_name(event).is_some()
}

/// Every Claude Code event name: the fired ones first, in table order.
pub(crate) fn all_events() -> impl Iterator<Item = &'static str> {
    ClaudeEvent::ALL.into_iter().map(ClaudeEvent::name)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::request::{CompactionReason, ShutdownReason, StartReason};

    fn pre(matcher: &str) -> Pattern {
        compile("PreToolUse", Some(matcher)).unwrap()
    }

    #[test]
    fn omitted_empty_and_star_match_everything() {
        for pattern in [
            compile("PreToolUse", None).unwrap(),
            pre(""),
            pre("*"),
            pre(" "),
            pre("|"),
        ] {
            assert!(matches!(pattern, Pattern::Any), "{pattern:?}");
            assert!(pattern.matches("mcp__github__create_issue"));
            assert!(pattern.matches(""));
        }
    }

    #[test]
    fn plain_names_are_exact_and_split_on_bars_and_commas() {
        let pattern = pre("Edit|Write");
        assert!(matches!(pattern, Pattern::Exact(_)));
        assert!(pattern.matches("Edit"));
        assert!(pattern.matches("Write"));
        assert!(!pattern.matches("Writ"));
        assert!(!pattern.matches("NotebookEdit"));
        assert!(!pattern.matches("Edit|Write"));

        let spaced = pre(" Edit , Write| Read ");
        for name in ["Edit", "Write", "Read"] {
            assert!(spaced.matches(name), "{name}");
        }
        assert!(!spaced.matches(" Edit "));
    }

    #[test]
    fn a_single_name_is_never_a_prefix() {
        let pattern = pre("Writ");
        assert!(!pattern.matches("Write"));
        assert!(pattern.matches("Writ"));
    }

    #[test]
    fn hyphenated_names_are_exact() {
        let pattern = compile("SubagentStart", Some("code-reviewer")).unwrap();
        assert!(matches!(pattern, Pattern::Exact(_)));
        assert!(pattern.matches("code-reviewer"));
        assert!(!pattern.matches("my-code-reviewer"));
        assert!(pre("mcp__brave-search").matches("mcp__brave-search"));
        assert!(!pre("mcp__brave-search").matches("mcp__brave-search__web"));
    }

    #[test]
    fn matchers_are_case_sensitive() {
        assert!(!pre("bash").matches("Bash"));
        assert!(pre("Bash").matches("Bash"));
        assert!(!pre("^bash$").matches("Bash"));
        assert!(!pre("ba.h").matches("Bash"));
    }

    #[test]
    fn other_characters_make_an_unanchored_regex() {
        let pattern = pre("Edit.*");
        assert!(matches!(pattern, Pattern::Regex(_)));
        assert!(pattern.matches("NotebookEdit"));
        assert!(pattern.matches("Edit"));
        assert!(!pattern.matches("Write"));

        let mcp = pre("mcp__memory__.*");
        assert!(mcp.matches("mcp__memory__create_entities"));
        assert!(!mcp.matches("mcp__github__create_issue"));
        // Exact, so it names no tool: the documented trap.
        assert!(!pre("mcp__memory").matches("mcp__memory__create_entities"));
    }

    #[test]
    fn an_anchored_name_is_answered_like_the_regex() {
        let pattern = pre("^Edit$");
        assert!(pattern.matches("Edit"));
        assert!(!pattern.matches("NotebookEdit"));
        assert!(pre("^(Edit|Write)$").matches("Write"));
    }

    #[test]
    fn look_around_is_an_error_naming_the_pattern() {
        let err = compile("PreToolUse", Some("^(?!Read)")).unwrap_err();
        assert_eq!(err.pattern(), "^(?!Read)");
        assert!(err.regex_error().to_string().contains("look-around"));
        assert!(compile("PreToolUse", Some("(a)\\1")).is_err());
        assert!(compile("PreToolUse", Some("(unclosed")).is_err());
    }

    #[test]
    fn stop_failure_takes_the_narrow_exact_set() {
        let exact = compile("StopFailure", Some("rate_limit|overloaded")).unwrap();
        assert!(matches!(exact, Pattern::Exact(_)));
        assert!(exact.matches("overloaded"));
        // A comma is not a separator there: the matcher is a regex.
        let regex = compile("StopFailure", Some("rate_limit,overloaded")).unwrap();
        assert!(matches!(regex, Pattern::Regex(_)));
        assert!(!regex.matches("overloaded"));
    }

    #[test]
    fn file_changed_matchers_are_literal_file_names() {
        let pattern = compile("FileChanged", Some(".envrc|.env")).unwrap();
        assert!(pattern.matches(".env"));
        assert!(pattern.matches(".envrc"));
        assert!(!pattern.matches("x.envrc"));
        let req = HookRequest::new(Event::SessionStart, json!({"file_path": "/p/.envrc"}));
        assert_eq!(subject("FileChanged", &req), ".envrc");
    }

    #[test]
    fn tool_events_are_matched_on_the_tool_name() {
        let start = HookRequest::tool_execution_start("Bash", json!({"command": "ls"}));
        assert_eq!(subject("PreToolUse", &start), "Bash");
        let end = HookRequest::tool_execution_end(
            "Edit",
            json!({}),
            "ok",
            false,
            Duration::from_millis(3),
        );
        assert_eq!(subject("PostToolUse", &end), "Edit");
        assert_eq!(subject("PostToolUseFailure", &end), "Edit");
        let permission = HookRequest::permission_request("Bash", json!({"command": "ls"}));
        assert_eq!(subject("PermissionRequest", &permission), "Bash");
        // Raw Claude fields, fired by name.
        let raw = HookRequest::new(Event::PermissionRequest, json!({"tool_name": "Write"}));
        assert_eq!(subject("PermissionRequest", &raw), "Write");
        assert_eq!(
            subject("PermissionDenied", &raw),
            "Write",
            "an unfired tool event is still matched on its tool name"
        );
    }

    #[test]
    fn session_start_is_matched_on_its_source() {
        let cases = [
            (StartReason::Startup, "startup"),
            (StartReason::New, "clear"),
            (StartReason::Resume, "resume"),
            (StartReason::Fork, "fork"),
            (StartReason::Import, "resume"),
        ];
        for (reason, source) in cases {
            let req = HookRequest::session_start(reason);
            assert_eq!(subject("SessionStart", &req), source, "{reason:?}");
        }
        let raw = HookRequest::new(Event::SessionStart, json!({"source": "compact"}));
        assert_eq!(subject("SessionStart", &raw), "compact");
    }

    #[test]
    fn session_end_is_matched_on_its_reason() {
        let cases = [
            (ShutdownReason::Quit, "prompt_input_exit"),
            (ShutdownReason::New, "clear"),
            (ShutdownReason::Resume, "resume"),
            (ShutdownReason::Fork, "other"),
            (ShutdownReason::Import, "resume"),
        ];
        for (reason, claude) in cases {
            let req = HookRequest::session_shutdown(reason);
            assert_eq!(subject("SessionEnd", &req), claude, "{reason:?}");
        }
        let raw = HookRequest::new(Event::SessionShutdown, json!({"reason": "logout"}));
        assert_eq!(subject("SessionEnd", &raw), "logout");
    }

    #[test]
    fn compaction_is_matched_on_its_trigger() {
        let auto = HookRequest::session_before_compact(CompactionReason::Threshold);
        let manual = HookRequest::session_compact(CompactionReason::Manual);
        assert_eq!(subject("PreCompact", &auto), "auto");
        assert_eq!(subject("PostCompact", &manual), "manual");
        let raw = HookRequest::new(Event::SessionCompact, json!({"trigger": "manual"}));
        assert_eq!(subject("PostCompact", &raw), "manual");
    }

    #[test]
    fn the_other_subjects_are_their_fields() {
        let notification = HookRequest::notification("hi", None, "idle_prompt");
        assert_eq!(subject("Notification", &notification), "idle_prompt");
        let start = HookRequest::subagent_start("a1", "Explore");
        assert_eq!(subject("SubagentStart", &start), "Explore");
        let stop = HookRequest::subagent_stop("a1", "Plan", false, "done");
        assert_eq!(subject("SubagentStop", &stop), "Plan");
        let failure = HookRequest::stop_failure("rate_limit", "429");
        assert_eq!(subject("StopFailure", &failure), "rate_limit");
        let loaded = HookRequest::instructions_loaded("/p/CLAUDE.md", "Project", "session_start");
        assert_eq!(subject("InstructionsLoaded", &loaded), "session_start");
        let config = HookRequest::new(Event::SessionStart, json!({"source": "user_settings"}));
        assert_eq!(subject("ConfigChange", &config), "user_settings");
    }

    #[test]
    fn events_without_a_subject_have_an_empty_one() {
        assert_eq!(subject("Stop", &HookRequest::stop(false, "done")), "");
        assert_eq!(subject("UserPromptSubmit", &HookRequest::input("hi")), "");
        assert_eq!(
            subject("PostToolBatch", &HookRequest::post_tool_batch(json!([]))),
            ""
        );
        for event in ["Stop", "UserPromptSubmit", "PostToolBatch", "TaskCreated"] {
            assert!(!has_subject(event), "{event}");
        }
        // A missing fact is an empty subject too.
        let bare = HookRequest::new(Event::Notification, json!({}));
        assert_eq!(subject("Notification", &bare), "");
    }

    #[test]
    fn points_come_from_the_event_table() {
        assert_eq!(neutral_event("PreToolUse"), Some(Event::ToolExecutionStart));
        assert_eq!(neutral_event("PostToolUse"), Some(Event::ToolExecutionEnd));
        assert_eq!(
            neutral_event("PostToolUseFailure"),
            Some(Event::ToolExecutionEnd)
        );
        assert_eq!(neutral_event("UserPromptSubmit"), Some(Event::Input));
        assert_eq!(neutral_event("SessionEnd"), Some(Event::SessionShutdown));
        assert_eq!(neutral_event("TaskCreated"), None);
        assert_eq!(neutral_event("pre_tool_use"), None);
        assert_eq!(neutral_event("preToolUse"), None, "case-sensitive");
    }

    #[test]
    fn unfired_events_are_not_in_the_table() {
        for event in UNFIRED_EVENTS {
            assert_eq!(
                neutral_event(event),
                None,
                "{event} has a point now: drop it from the list"
            );
            assert!(is_claude_event(event));
        }
        assert!(!is_claude_event("PreToolUsee"));
        assert!(all_events().any(|e| e == "PreToolUse"));
    }

    #[test]
    fn every_fired_event_with_a_subject_is_known_to_subject_field() {
        for event in all_events() {
            let documented_without = [
                "UserPromptSubmit",
                "PostToolBatch",
                "Stop",
                "TeammateIdle",
                "TaskCreated",
                "TaskCompleted",
                "WorktreeCreate",
                "WorktreeRemove",
                "MessageDisplay",
                "CwdChanged",
                "PreModelSwitch",
                "PostModelSwitch",
            ];
            assert_eq!(
                has_subject(event),
                !documented_without.contains(&event),
                "{event}"
            );
        }
    }

    proptest! {
        #[test]
        fn classification_never_panics(matcher in any::<String>(), subject in any::<String>()) {
            for event in ["PreToolUse", "StopFailure", "FileChanged"] {
                if let Ok(pattern) = compile(event, Some(&matcher)) {
                    let _ = pattern.matches(&subject);
                }
            }
        }

        #[test]
        fn plain_matchers_always_compile(matcher in "[A-Za-z0-9_ ,|-]{0,40}") {
            let pattern = compile("PreToolUse", Some(&matcher)).unwrap();
            prop_assert!(!matches!(pattern, Pattern::Regex(_)));
        }
    }
}
