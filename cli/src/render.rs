//! What `hooks` prints for people, and the `list --json` entries.
//!
//! Everything printed for people goes through [`escape`] (or [`escape_lines`]),
//! so that a configuration or a hook's output cannot steer the terminal: a
//! `\r`, an ESC sequence or a bidi override shows as an escape instead. JSON
//! output is left to serde_json, which escapes C0 controls itself.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};
use tower_hooks::process::Termination;
use tower_hooks::{dialect, Dialect};
use tower_hooks::{HookOutcome, HookRecord, HookSpec, MatcherSubject, RecordOutcome, RunDetail};

/// One `list --json` entry.
pub(crate) fn spec_json(spec: &HookSpec) -> Value {
    json!({
        "dialect": spec.dialect().as_str(),
        "scope": spec.scope().as_str(),
        "event": dialect::event_as_written(spec),
        "source": spec.source(),
        "index": spec.index(),
        "matcher": spec.matcher(),
        "type": spec.kind(),
        "command": spec.command_line(),
        "url": spec.http_target().map(|target| without_credentials(target.url())),
        "timeout_ms": millis(spec.timeout()),
        "fail_closed": spec.fail_closed(),
        "name": spec.name(),
        "disabled": spec.disabled(),
        "persistent": spec.is_persistent(),
    })
}

/// How a table names a hook: where it was configured (`~/…` or relative to the
/// project), after its name when it has one.
fn hook_cell(spec: &HookSpec) -> String {
    match spec.name() {
        Some(name) => format!("{} ({})", one_line(name), one_line(&spec.location())),
        None => one_line(&spec.location()),
    }
}

/// Left-aligned columns, two spaces apart; the last column is not padded.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let last = row.len() - 1;
        for (i, cell) in row.iter().enumerate() {
            out.push_str(cell);
            if i < last {
                let pad = widths[i] - cell.chars().count() + 2;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    out
}

/// Whether `c` could make a terminal show something else than the text: a C0
/// control (tab and newline included), DEL, a C1 control, or a bidi embedding,
/// override or isolate (U+202A–U+202E, U+2066–U+2069).
fn steers_the_terminal(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` on one line with nothing that steers the terminal: `\n`, `\r` and
/// `\t` are written as those two characters, any other C0 control and DEL as
/// `\xHH`, a C1 control or bidi control as `\u{HHHH}`. Everything else
/// (backslashes included) is left as it is.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(steers_the_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' || c == '\x7f' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if steers_the_terminal(c) => {
                let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`escape`] for a message of several lines (a TOML error with its excerpt):
/// each line is escaped and the line breaks stay.
pub(crate) fn escape_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| escape(line.strip_suffix('\r').unwrap_or(line)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn one_line(text: &str) -> String {
    escape(text).into_owned()
}

/// What a hook runs, as the table's last column shows it: the command, an
/// HTTP hook's URL or a model hook's prompt.
fn what_runs(spec: &HookSpec) -> Cow<'_, str> {
    if let Some(target) = spec.http_target() {
        return without_credentials(target.url());
    }
    Cow::Borrowed(spec.command_line().or(spec.prompt()).unwrap_or(""))
}

/// A URL with its user information (`user:password@`) shown as `***@`, so
/// that listing the hooks does not print a password.
fn without_credentials(url: &str) -> Cow<'_, str> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Cow::Borrowed(url);
    };
    let authority_end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => Cow::Owned(format!("{scheme}://***{}", &rest[at..])),
        None => Cow::Borrowed(url),
    }
}

/// The `hooks list` table.
pub(crate) fn list(specs: &[HookSpec]) -> String {
    if specs.is_empty() {
        return "no hooks configured\n".to_owned();
    }
    let rows: Vec<Vec<String>> = specs
        .iter()
        .map(|s| {
            vec![
                one_line(dialect::event_as_written(s)),
                s.dialect().as_str().to_owned(),
                s.scope().as_str().to_owned(),
                hook_cell(s),
                one_line(s.matcher().unwrap_or("*")),
                if s.is_persistent() {
                    format!("{} (persistent)", one_line(s.kind()))
                } else {
                    one_line(s.kind())
                },
                format!("{} ms", millis(s.timeout())),
                if s.fail_closed() { "closed" } else { "open" }.to_owned(),
                one_line(&what_runs(s)),
                one_line(&state(s, specs)),
            ]
        })
        .collect();
    table(
        &[
            "EVENT", "DIALECT", "SCOPE", "SOURCE", "MATCHER", "TYPE", "TIMEOUT", "FAILS",
            "COMMAND", "STATE",
        ],
        &rows,
    )
}

/// Whether a hook runs, as `hooks list` and `hooks check` show it: `on`,
/// `duplicate of <label>` (the label of the hook kept, among `all`, never an
/// absolute path under HOME or the project), or `disabled: <why>`.
pub(crate) fn state(spec: &HookSpec, all: &[HookSpec]) -> String {
    match spec.disabled() {
        None => "on".to_owned(),
        Some(why) => match why.strip_prefix("duplicate of ") {
            Some(kept) => {
                let label = all
                    .iter()
                    .find(|h| format!("{}:{}", h.source(), h.index()) == kept)
                    .map_or_else(|| kept.to_owned(), HookSpec::location);
                format!("duplicate of {label}")
            }
            None => format!("disabled: {why}"),
        },
    }
}

/// The files `hooks check` searched, under its summary line.
pub(crate) fn searched(files: &[(&Path, &str, Option<String>)]) -> String {
    let mut out = String::from("searched:\n");
    for (path, status, note) in files {
        let _ = write!(
            out,
            "  {status:<9}  {}",
            one_line(&path.display().to_string())
        );
        if let Some(note) = note {
            let _ = write!(out, " ({})", one_line(note));
        }
        out.push('\n');
    }
    out
}

/// How a command hook's process ended, for the `ENDED` column.
fn ended(run: &RunDetail) -> String {
    match run.termination() {
        None => "could not start".to_owned(),
        Some(Termination::Exited(code)) => format!("exit {code}"),
        Some(Termination::Signaled(signal)) => format!("signal {signal}"),
        Some(Termination::TimedOut) => "killed at timeout".to_owned(),
        Some(_) => "ended".to_owned(),
    }
}

/// The `REASON` cell: the record's reason; for a skipped hook, why it was
/// skipped, with the subject its matcher was tested against; for a hook not
/// run, why.
fn reason_cell(record: &HookRecord, event_subject: MatcherSubject, subject: &str) -> String {
    match record.outcome() {
        RecordOutcome::Skipped => {}
        RecordOutcome::NotRun => return "an earlier hook blocked".to_owned(),
        _ => return one_line(record.reason().unwrap_or("")),
    }
    let spec = record.spec();
    if let Some(reason) = spec.disabled() {
        return one_line(reason);
    }
    if !spec.is_runnable() {
        return format!("type \"{}\" does not run", one_line(spec.kind()));
    }
    let what = match event_subject {
        MatcherSubject::ToolName => "tool name ",
        MatcherSubject::SessionId => "session id ",
        MatcherSubject::TurnCount => "turn count ",
        MatcherSubject::CompactionReason => "reason ",
        _ => "",
    };
    let tested = format!("\"{}\"", one_line(subject));
    if spec.dialect() != Dialect::Nanopi {
        // Its dialect has rules of its own (Claude Code's `if`, the event a
        // failed tool fires) and subjects of its own (a session event's
        // `source`, not nanopi's session id): name the subject only where
        // it is the tool, by the name this hook saw.
        return match (event_subject, record.tool_name()) {
            (MatcherSubject::ToolName, Some(seen)) => format!(
                "its matcher or rules did not select it for tool name \"{}\"",
                one_line(seen)
            ),
            (MatcherSubject::ToolName, None) => {
                format!("its matcher or rules did not select it for tool name {tested}")
            }
            _ => "its matcher or rules did not select it".to_owned(),
        };
    }
    if what.is_empty() {
        format!("matcher did not match {tested} (this event has no matcher subject)")
    } else {
        format!("matcher did not match {what}{tested}")
    }
}

/// Why a command hook that ran allowed, when the reason is easy to miss.
fn allow_note(run: &RunDetail) -> Option<String> {
    match run.termination()? {
        Termination::Exited(code) if code != 0 && code != 2 => Some(format!(
            "exit {code} allows: only exit 2, or {{\"decision\":\"block\"}} as the last stdout \
             line, blocks"
        )),
        Termination::Signaled(signal) => Some(format!(
            "signal {signal} ended it, and a hook that ends without an answer allows"
        )),
        Termination::Exited(0) => {
            let line = run.last_stdout_line()?;
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(_)) => None,
                _ => Some(
                    "its last stdout line is not a JSON object, so it answers nothing (allow)"
                        .to_owned(),
                ),
            }
        }
        _ => None,
    }
}

/// How many lines of a hook's stderr the report for people shows.
const STDERR_LINES: usize = 5;

/// What a command hook's process left behind, under the table: its stderr,
/// its last stdout line, and a note when it allowed for a reason easy to miss.
fn run_details(out: &mut String, record: &HookRecord, run: &RunDetail) {
    let mut lines: Vec<(&str, String)> = Vec::new();
    let stderr = run.stderr().unwrap_or("");
    let stderr_lines: Vec<&str> = stderr
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .collect();
    for (i, line) in stderr_lines.iter().take(STDERR_LINES).enumerate() {
        lines.push((if i == 0 { "stderr" } else { "" }, one_line(line)));
    }
    if stderr_lines.len() > STDERR_LINES {
        lines.push((
            "",
            format!("… ({} more lines)", stderr_lines.len() - STDERR_LINES),
        ));
    }
    // nanopi reads the last stdout line; other dialects read stdout their own
    // way (Claude Code the whole of it), so neither the line nor the note
    // about it applies to them.
    let nanopi = record.spec().dialect() == Dialect::Nanopi;
    if let Some(line) = run.last_stdout_line().filter(|_| nanopi) {
        lines.push(("stdout", format!("{} (last line)", one_line(line))));
    }
    if nanopi && record.outcome() == RecordOutcome::Allow {
        if let Some(note) = allow_note(run) {
            lines.push(("note", note));
        }
    }
    // What its dialect ignored (an exit status a Claude Code JSON answer
    // overrode, say).
    for warning in record.warnings() {
        lines.push(("note", one_line(warning)));
    }
    if lines.is_empty() {
        return;
    }
    let spec = record.spec();
    let _ = writeln!(out, "\n{} ({})", hook_cell(spec), ended(run));
    for (label, text) in lines {
        let _ = writeln!(out, "  {label:<6}  {text}");
    }
}

/// The `hooks test` report for the event named `event`; `message` is the
/// text the agent shows for an honored block, and `subject` what the matchers
/// were tested against.
pub(crate) fn outcome(
    outcome: &HookOutcome,
    arguments: &serde_json::Value,
    event: &str,
    message: Option<&str>,
    subject: &str,
    color: bool,
) -> String {
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    };
    let decision = outcome.decision().as_str();
    let decision = match (decision, outcome.is_honored()) {
        ("block", true) => paint("1;31", "block"),
        ("block", false) => format!(
            "{} (dropped: {event} does not enforce blocks)",
            paint("33", "block"),
        ),
        ("transform", false) => format!("transform (ignored: {event} takes no transforms)"),
        (d, _) => paint("32", d),
    };
    let mut out = String::new();
    out.push_str(&format!("event      {}\n", one_line(event)));
    out.push_str(&format!("decision   {decision}\n"));
    if let Some(reason) = outcome.reason() {
        out.push_str(&format!("reason     {}\n", one_line(reason)));
    }
    if let Some(message) = message {
        out.push_str(&format!("message    {}\n", one_line(message)));
    }
    for (label, texts) in [
        ("context", outcome.context()),
        ("to user", outcome.user_messages()),
    ] {
        for text in texts {
            out.push_str(&format!("{label:<10} {}\n", one_line(text)));
        }
    }
    for (label, text) in [("stop", outcome.stop()), ("follow-up", outcome.follow_up())] {
        if let Some(text) = text {
            out.push_str(&format!("{label:<10} {}\n", one_line(text)));
        }
    }
    for (name, value) in outcome.env() {
        out.push_str(&format!(
            "{:<10} {}\n",
            "env",
            one_line(&format!("{name}={value}"))
        ));
    }
    out.push_str(&format!(
        "arguments  {}\n",
        one_line(&arguments.to_string())
    ));
    out.push('\n');
    if outcome.hooks().is_empty() {
        out.push_str("no hook ran for this event\n");
        return out;
    }
    let event_subject = outcome.event().matcher_subject();
    let rows: Vec<Vec<String>> = outcome
        .hooks()
        .iter()
        .map(|r| {
            vec![
                hook_cell(r.spec()),
                one_line(r.spec().matcher().unwrap_or("*")),
                r.outcome().as_str().to_owned(),
                format!("{} ms", millis(r.duration())),
                r.run().map(ended).unwrap_or_default(),
                reason_cell(r, event_subject, subject),
            ]
        })
        .collect();
    out.push_str(&table(
        &["HOOK", "MATCHER", "OUTCOME", "DURATION", "ENDED", "REASON"],
        &rows,
    ));
    // A block the hook asked for says why in its reason, unless its
    // dialect ignored part of what it did; the others may not.
    for record in outcome.hooks() {
        match record.run() {
            Some(run)
                if record.outcome() != RecordOutcome::Block || !record.warnings().is_empty() =>
            {
                run_details(&mut out, record, run);
            }
            _ => {}
        }
    }
    out
}

/// A duration in whole milliseconds, saturating.
fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_listed_without_their_credentials() {
        assert_eq!(
            without_credentials("https://bot:s3cret@policy.example/x?a=b@c"),
            "https://***@policy.example/x?a=b@c"
        );
        assert_eq!(
            without_credentials("http://127.0.0.1:8700/p@q"),
            "http://127.0.0.1:8700/p@q"
        );
        let spec = HookSpec::command(tower_hooks::Event::Input, "")
            .with_http(tower_hooks::HttpTarget::new("http://u:p@h/"));
        assert_eq!(spec_json(&spec)["url"], "http://***@h/");
        assert_eq!(what_runs(&spec), "http://***@h/");
    }

    #[test]
    fn table_aligns_columns_and_trims_the_end() {
        let t = table(
            &["A", "BB"],
            &[vec!["xxx".into(), "y".into()], vec!["z".into(), "".into()]],
        );
        assert_eq!(t, "A    BB\nxxx  y\nz\n");
    }

    #[test]
    fn escape_writes_out_every_control_and_bidi_character() {
        assert_eq!(escape("./lint.sh"), "./lint.sh");
        assert!(matches!(escape("plain \\ text é"), Cow::Borrowed(_)));
        assert_eq!(
            escape("a\nb\rc\td\x1b[2Je\x07f\x7fg\u{9b}h\u{0}"),
            r"a\nb\rc\td\x1b[2Je\x07f\x7fg\u{009b}h\x00"
        );
        assert_eq!(
            escape("\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}"),
            r"\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}"
        );
        // Neighbours of the ranges stay.
        assert_eq!(
            escape("\u{2029}\u{202f}\u{2065}\u{206a}\u{a0}"),
            "\u{2029}\u{202f}\u{2065}\u{206a}\u{a0}"
        );
    }

    #[test]
    fn escape_lines_keeps_line_breaks_only() {
        assert_eq!(
            escape_lines("line 1\r\n2 | a\x1b]0;x\x07\n  |"),
            "line 1\n2 | a\\x1b]0;x\\x07\n  |"
        );
    }
}
