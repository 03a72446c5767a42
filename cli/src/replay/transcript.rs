//! Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`)
//! read as the hook events Claude Code fired while writing them.
//!
//! The format is not a versioned API, so the reader is lenient: it reads the
//! lines that carry a prompt, a tool call, a tool result or the end of a turn,
//! passes over the other kinds it knows (summaries, system notes, progress, file
//! snapshots), and counts every line it could not use.
//!
//! | transcript | event |
//! | --- | --- |
//! | a `user` line whose content is text, typed in the main conversation | `UserPromptSubmit` |
//! | a `tool_use` block of an `assistant` line (a subagent's too) | `PreToolUse` |
//! | a `tool_result` block of a `user` line | `PostToolUse`, or `PostToolUseFailure` with `is_error` |
//! | an `assistant` line of the main conversation with `stop_reason: "end_turn"` | `Stop` |
//!
//! A subagent's lines (`isSidechain: true`) give its tool calls and results,
//! not prompts or stops: its "prompt" is the main agent's message, and its end
//! is not the session's. A text that a compaction injected, or a line marked
//! `isMeta`, is not a prompt either.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};
use tower_hooks::dialect::claude;

use super::event::{ReplayEvent, Selection};
use tower_hooks::Event;

/// The line types this reader knows and has no event for.
const PASSED_OVER: &[&str] = &[
    "summary",
    "system",
    "progress",
    "file-history-snapshot",
    "permission-mode",
];

/// The most tool calls kept waiting for their result; past it the oldest is
/// forgotten (and counted).
pub(crate) const MAX_PENDING_CALLS: usize = 1024;

/// The most bytes of tool input (as JSON) kept for calls waiting for their
/// result; past it the oldest calls are forgotten (and counted).
pub(crate) const MAX_PENDING_BYTES: usize = 4 << 20;

/// How a prompt injected by a compaction begins.
const COMPACTION: &str = "This session is being continued from a previous conversation";

/// Whether a transcript's first object looks like a Claude Code line.
pub(crate) fn recognizes(line: &Map<String, Value>) -> bool {
    line.contains_key("sessionId")
        || (line.contains_key("uuid") && line.contains_key("type"))
        || matches!(line.get("type").and_then(Value::as_str), Some(t) if PASSED_OVER.contains(&t))
}

/// One transcript's reading state.
#[derive(Debug)]
pub(crate) struct Transcript {
    /// The file, as hooks get it in `transcript_path`: the scratch copy.
    path: String,
    /// The directory every event's `cwd` names, whatever the line says: the
    /// scratch project directory.
    cwd: Arc<str>,
    /// The session id when a line has none: the file's stem.
    stem: Arc<str>,
    /// Tool calls without their result yet: id → (tool name, input, its
    /// size as JSON).
    calls: HashMap<String, (String, Value, usize)>,
    /// The ids of `calls`, oldest first.
    order: VecDeque<String>,
    /// The sizes of `calls`' inputs, together.
    pending_bytes: usize,
    /// Calls forgotten unanswered to keep `calls` within its bounds.
    pub(crate) forgotten: u64,
    /// The number of the line being read.
    number: u64,
}

impl Transcript {
    /// The reader of a transcript that hooks are told is at `path`, run in `cwd`.
    pub(crate) fn new(path: &Path, stem: Arc<str>, cwd: Arc<str>) -> Self {
        Transcript {
            path: path.to_string_lossy().into_owned(),
            cwd,
            stem,
            calls: HashMap::new(),
            order: VecDeque::new(),
            pending_bytes: 0,
            forgotten: 0,
            number: 0,
        }
    }

    /// The events of line `number`, appended to `out`; the kind of skip for
    /// a line that cannot be read.
    pub(crate) fn line(
        &mut self,
        number: u64,
        line: Map<String, Value>,
        wanted: &Selection,
        out: &mut VecDeque<ReplayEvent>,
    ) -> Result<(), &'static str> {
        self.number = number;
        let kind = line.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "user" => self.user(&line, wanted, out),
            "assistant" => self.assistant(&line, wanted, out),
            k if PASSED_OVER.contains(&k) => Ok(()),
            _ => Err("unknown_type"),
        }
    }

    fn user(
        &mut self,
        line: &Map<String, Value>,
        wanted: &Selection,
        out: &mut VecDeque<ReplayEvent>,
    ) -> Result<(), &'static str> {
        let sidechain = flag(line, "isSidechain");
        let typed = !sidechain && !flag(line, "isMeta") && !flag(line, "isCompactSummary");
        match line.get("message").and_then(|m| m.get("content")) {
            Some(Value::String(text)) => {
                if typed && wanted.has(Event::Input) && !text.starts_with(COMPACTION) {
                    self.prompt(line, text, out)?;
                }
                Ok(())
            }
            Some(Value::Array(blocks)) => {
                let mut texts = Vec::new();
                let mut results = false;
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_result") => {
                            results = true;
                            self.result(line, block, wanted, out)?;
                        }
                        Some("text") => {
                            texts.extend(block.get("text").and_then(Value::as_str));
                        }
                        _ => {}
                    }
                }
                let text = texts.join("\n");
                if typed
                    && !results
                    && !text.is_empty()
                    && wanted.has(Event::Input)
                    && !text.starts_with(COMPACTION)
                {
                    self.prompt(line, &text, out)?;
                }
                Ok(())
            }
            _ => Err("invalid"),
        }
    }

    fn assistant(
        &mut self,
        line: &Map<String, Value>,
        wanted: &Selection,
        out: &mut VecDeque<ReplayEvent>,
    ) -> Result<(), &'static str> {
        let message = line.get("message").ok_or("invalid")?;
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.as_slice(),
            Some(Value::String(_)) => &[],
            _ => return Err("invalid"),
        };
        let mut texts = Vec::new();
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let (Some(id), Some(name)) = (
                        block.get("id").and_then(Value::as_str),
                        block.get("name").and_then(Value::as_str),
                    ) else {
                        return Err("invalid");
                    };
                    let input = block.get("input").cloned().unwrap_or(Value::Null);
                    if wanted.has(Event::ToolExecutionStart) {
                        let mut fields = self.common(line);
                        fields.insert("tool_name".into(), name.into());
                        fields.insert("tool_input".into(), input.clone());
                        fields.insert("tool_use_id".into(), id.into());
                        self.push("PreToolUse", line, fields, out)?;
                    }
                    self.wait_for(id, name, input);
                }
                Some("text") => texts.extend(block.get("text").and_then(Value::as_str)),
                _ => {}
            }
        }
        let ended = message.get("stop_reason").and_then(Value::as_str) == Some("end_turn");
        if ended && !flag(line, "isSidechain") && wanted.has(Event::Stop) {
            let mut fields = self.common(line);
            fields.insert("stop_hook_active".into(), false.into());
            fields.insert("last_assistant_message".into(), texts.join("\n").into());
            self.push("Stop", line, fields, out)?;
        }
        Ok(())
    }

    /// A `tool_result` block: the event after the tool, for the call it answers.
    fn result(
        &mut self,
        line: &Map<String, Value>,
        block: &Value,
        wanted: &Selection,
        out: &mut VecDeque<ReplayEvent>,
    ) -> Result<(), &'static str> {
        let id = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .ok_or("invalid")?;
        let call = self.answered(id);
        if !wanted.has(Event::ToolExecutionEnd) {
            return Ok(());
        }
        let (name, input) = call.ok_or("unpaired_result")?;
        let text = match block.get("content") {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .map(|part| match part.get("type").and_then(Value::as_str) {
                    Some("text") => part.get("text").and_then(Value::as_str).unwrap_or(""),
                    Some("image") => "[image]",
                    _ => "",
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let mut fields = self.common(line);
        fields.insert("tool_name".into(), name.into());
        fields.insert("tool_input".into(), input);
        fields.insert("tool_use_id".into(), id.into());
        let event = if failed {
            fields.insert("error".into(), text.into());
            "PostToolUseFailure"
        } else {
            fields.insert("tool_response".into(), text.into());
            "PostToolUse"
        };
        self.push(event, line, fields, out)
    }

    /// Keeps a call until its result, forgetting the oldest calls past
    /// [`MAX_PENDING_CALLS`] or [`MAX_PENDING_BYTES`].
    fn wait_for(&mut self, id: &str, name: &str, input: Value) {
        let size = json_size(&input) + name.len() + id.len();
        if let Some((_, _, old)) = self.calls.remove(id) {
            self.pending_bytes -= old;
            self.order.retain(|waiting| waiting != id);
        }
        if size > MAX_PENDING_BYTES {
            // Too big to keep even alone: forgotten at once.
            self.forgotten += 1;
            return;
        }
        while self.order.len() >= MAX_PENDING_CALLS || self.pending_bytes + size > MAX_PENDING_BYTES
        {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some((_, _, bytes)) = self.calls.remove(&oldest) {
                self.pending_bytes -= bytes;
            }
            self.forgotten += 1;
        }
        self.pending_bytes += size;
        self.order.push_back(id.to_owned());
        self.calls
            .insert(id.to_owned(), (name.to_owned(), input, size));
    }

    /// The call `id` answers, no longer waiting.
    fn answered(&mut self, id: &str) -> Option<(String, Value)> {
        let (name, input, bytes) = self.calls.remove(id)?;
        self.pending_bytes -= bytes;
        if let Some(at) = self.order.iter().position(|waiting| waiting == id) {
            self.order.remove(at);
        }
        Some((name, input))
    }

    fn prompt(
        &self,
        line: &Map<String, Value>,
        text: &str,
        out: &mut VecDeque<ReplayEvent>,
    ) -> Result<(), &'static str> {
        let mut fields = self.common(line);
        fields.insert("prompt".into(), text.into());
        self.push("UserPromptSubmit", line, fields, out)
    }

    /// The fields every Claude Code hook gets, from the line.
    fn common(&self, line: &Map<String, Value>) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("session_id".into(), self.session(line).as_ref().into());
        fields.insert("transcript_path".into(), self.path.clone().into());
        // The recorded directory is never handed on: a hook that writes
        // where the session ran writes in the scratch directory.
        fields.insert("cwd".into(), self.cwd.as_ref().into());
        if let Some(mode) = line.get("permissionMode").filter(|m| m.is_string()) {
            fields.insert("permission_mode".into(), mode.clone());
        }
        fields
    }

    fn session(&self, line: &Map<String, Value>) -> Arc<str> {
        match line.get("sessionId").and_then(Value::as_str) {
            Some(id) if id != &*self.stem => id.into(),
            _ => self.stem.clone(),
        }
    }

    fn push(
        &self,
        event: &'static str,
        line: &Map<String, Value>,
        fields: Map<String, Value>,
        out: &mut VecDeque<ReplayEvent>,
    ) -> Result<(), &'static str> {
        let request = claude::request(event, fields)
            .map_err(|_| "invalid")?
            .with_cwd(self.cwd.clone());
        out.push_back(ReplayEvent {
            request,
            name: event,
            session: self.session(line),
            time: line.get("timestamp").and_then(Value::as_str).map(Arc::from),
            line: self.number,
        });
        Ok(())
    }
}

/// The length of `value` written as JSON, without writing it anywhere.
fn json_size(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

fn flag(line: &Map<String, Value>, key: &str) -> bool {
    line.get(key).and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(lines: &[Value], wanted: &Selection) -> (Vec<ReplayEvent>, Vec<&'static str>) {
        let mut transcript = Transcript::new(
            Path::new("/t/s-1.jsonl"),
            "s-1".into(),
            "/scratch/project".into(),
        );
        let mut out = VecDeque::new();
        let mut skips = Vec::new();
        for (number, line) in (1..).zip(lines) {
            let Value::Object(map) = line.clone() else {
                panic!()
            };
            if let Err(kind) = transcript.line(number, map, wanted, &mut out) {
                skips.push(kind);
            }
        }
        (out.into(), skips)
    }

    fn base(kind: &str, sidechain: bool) -> Value {
        json!({"type": kind, "uuid": "u", "sessionId": "s-1", "cwd": "/home/u/app",
               "timestamp": "2026-11-29T10:00:00.000Z", "isSidechain": sidechain})
    }

    fn with(mut line: Value, message: Value) -> Value {
        line["message"] = message;
        line
    }

    #[test]
    fn prompts_calls_results_and_stops_become_claude_events() {
        let lines = [
            with(
                base("user", false),
                json!({"role": "user", "content": "fix the build"}),
            ),
            with(
                base("assistant", false),
                json!({"content": [
                    {"type": "text", "text": "running it"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}},
                ], "stop_reason": "tool_use"}),
            ),
            with(
                base("user", false),
                json!({"content": [{"type": "tool_result", "tool_use_id": "t1",
                                    "content": [{"type": "text", "text": "make: *** Error 2"}],
                                    "is_error": true}]}),
            ),
            with(
                base("assistant", true),
                json!({"content": [{"type": "tool_use", "id": "t2", "name": "Read",
                                    "input": {"file_path": "/a"}}], "stop_reason": "end_turn"}),
            ),
            with(base("user", true), json!({"content": "subagent task"})),
            with(
                base("assistant", false),
                json!({"content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn"}),
            ),
            json!({"type": "summary", "summary": "x", "leafUuid": "u"}),
            json!({"type": "brand-new-kind", "uuid": "u"}),
        ];
        let (events, skips) = read(&lines, &Selection::all());
        let names: Vec<&str> = events.iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            [
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUseFailure",
                "PreToolUse",
                "Stop"
            ]
        );
        assert_eq!(skips, ["unknown_type"]);
        assert_eq!(events[0].request.arguments()["prompt"], "fix the build");
        assert_eq!(events[1].request.tool_name(), Some("Bash"));
        assert_eq!(events[1].request.tool_call_id(), Some("t1"));
        // The recorded directory is mapped to the scratch project.
        assert_eq!(events[1].request.cwd(), Some("/scratch/project"));
        assert_eq!(events[1].line, 2);
        assert_eq!(&*events[1].session, "s-1");
        assert_eq!(
            events[2].request.arguments()["tool_response"]["content"],
            "make: *** Error 2"
        );
        assert_eq!(
            events[2].request.arguments()["tool_response"]["is_error"],
            true
        );
        assert_eq!(events[3].request.tool_name(), Some("Read"));
        assert_eq!(
            events[4].request.arguments()["last_assistant_message"],
            "done"
        );

        // The default: only the events that decide.
        let (events, _) = read(&lines, &Selection::deciding());
        let names: Vec<&str> = events.iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            ["UserPromptSubmit", "PreToolUse", "PreToolUse", "Stop"]
        );
    }

    #[test]
    fn injected_text_is_not_a_prompt_and_a_result_without_its_call_is_counted() {
        let lines = [
            with(
                base("user", false),
                json!({"content": format!("{COMPACTION} that ran out of context.")}),
            ),
            {
                let mut meta = with(base("user", false), json!({"content": "<command>"}));
                meta["isMeta"] = json!(true);
                meta
            },
            with(
                base("user", false),
                json!({"content": [{"type": "tool_result", "tool_use_id": "gone", "content": "x"}]}),
            ),
            with(base("user", false), json!(null)),
        ];
        let (events, skips) = read(&lines, &Selection::all());
        assert!(events.is_empty());
        assert_eq!(skips, ["unpaired_result", "invalid"]);
    }
}
