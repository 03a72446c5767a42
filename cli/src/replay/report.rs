//! What a replay found: counts and times per hook, the events the hooks would
//! have blocked, asked about or rewritten, and, with `--against`, the decisions
//! that differ. Printed as tables for people or as one JSON object.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{json, Value};
use tower_hooks::{dialect, HookOutcome, HookRequest, RecordOutcome};

use super::event::ReplayEvent;
use super::session::{describe_skip, Skips};
use crate::render::escape;

/// Which configuration a hook belongs to.
pub(crate) const MAIN: usize = 0;
/// The `--against` configuration.
pub(crate) const AGAINST: usize = 1;

/// How many flagged events or differences the report for people lists.
const SHOWN: usize = 50;

/// A subject longer than this is cut, with `…`.
const SUBJECT_CHARS: usize = 160;

/// One hook's runs.
#[derive(Debug, Default)]
pub(crate) struct HookTally {
    label: String,
    event: String,
    runs: u64,
    block: u64,
    ask: u64,
    rewrite: u64,
    errors: u64,
    /// Each run's duration, in microseconds.
    micros: Vec<u32>,
    /// The last error's reason: what to look at first.
    last_error: Option<String>,
}

/// An event the hooks would have blocked, asked about or rewritten.
#[derive(Debug)]
pub(crate) struct Flagged {
    session: String,
    time: Option<String>,
    /// The number of the session file's line it comes from.
    line: u64,
    /// The tool call's id, as the file gives it.
    tool_use_id: Option<String>,
    event: &'static str,
    subject: String,
    decision: &'static str,
    reason: Option<String>,
    hooks: Vec<String>,
    /// What a rewrite made of the arguments.
    rewritten: Option<Value>,
}

/// An event on which the two configurations decide differently.
#[derive(Debug)]
pub(crate) struct Difference {
    session: String,
    time: Option<String>,
    line: u64,
    tool_use_id: Option<String>,
    event: &'static str,
    subject: String,
    decision: &'static str,
    reason: Option<String>,
    against: &'static str,
    against_reason: Option<String>,
    /// The parts of the effect that differ, by name.
    differs: Vec<&'static str>,
    effect: Effect,
    against_effect: Effect,
}

/// Everything an event's outcome does to the session: what `--against`
/// compares.
#[derive(Debug, PartialEq)]
struct Effect {
    decision: &'static str,
    /// Whether the decision takes effect at this event.
    honored: bool,
    /// A hook's request that the agent stop (`continue: false`), with its reason.
    stop: Option<String>,
    /// The instruction to keep going (a block at a stop, a follow-up field).
    follow_up: Option<String>,
    /// Text added to the model's context.
    context: Vec<String>,
    /// The arguments the agent carries on with.
    arguments: Value,
}

impl Effect {
    fn of(outcome: &HookOutcome) -> Self {
        Effect {
            decision: outcome.decision().as_str(),
            honored: outcome.is_honored(),
            stop: outcome.stop().map(str::to_owned),
            follow_up: outcome.follow_up().map(str::to_owned),
            context: outcome.context().to_vec(),
            arguments: outcome.arguments().clone(),
        }
    }

    /// The names of the parts in which `self` and `other` differ.
    fn differences(&self, other: &Effect) -> Vec<&'static str> {
        let mut differs = Vec::new();
        if self.decision != other.decision {
            differs.push("decision");
        }
        if self.honored != other.honored {
            differs.push("honored");
        }
        if self.stop != other.stop {
            differs.push("stop");
        }
        if self.follow_up != other.follow_up {
            differs.push("follow_up");
        }
        if self.context != other.context {
            differs.push("context");
        }
        if self.arguments != other.arguments {
            differs.push("arguments");
        }
        differs
    }

    fn json(&self) -> Value {
        json!({
            "decision": self.decision,
            "honored": self.honored,
            "stop": self.stop,
            "follow_up": self.follow_up,
            "context": self.context,
            "arguments": self.arguments,
        })
    }

    /// One part, for people.
    fn show(&self, part: &str) -> String {
        let text = |t: &Option<String>| match t {
            Some(t) => format!("{t:?}"),
            None => "none".to_owned(),
        };
        match part {
            "decision" => self.decision.to_owned(),
            "honored" => if self.honored {
                "honored"
            } else {
                "not honored"
            }
            .to_owned(),
            "stop" => text(&self.stop),
            "follow_up" => text(&self.follow_up),
            "context" => format!("{:?}", self.context),
            _ => self.arguments.to_string(),
        }
    }
}

/// Everything counted, for one session or, merged, for the whole replay.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) sessions: u64,
    /// Files that could not be replayed (and were named in a warning).
    pub(crate) sessions_skipped: u64,
    pub(crate) events: u64,
    /// Events of calls that `--chain` knows never happened (their call was blocked).
    pub(crate) not_reached: u64,
    pub(crate) skips: Skips,
    /// Tool calls forgotten before their result came, to bound the memory
    /// kept for them.
    pub(crate) forgotten_calls: u64,
    /// Per configuration and hook (source, event as written, index): its runs.
    hooks: BTreeMap<(usize, String, String, usize), HookTally>,
    /// The time the main configuration's hooks took, all events together.
    pub(crate) added: Duration,
    flagged: Vec<Flagged>,
    differences: Vec<Difference>,
    /// Whether a call was blocked (honored), whatever `SHOWN` keeps.
    pub(crate) blocked: u64,
}

impl Tally {
    /// Counts the runs of one configuration's hooks on one event.
    pub(crate) fn runs(&mut self, config: usize, outcome: &HookOutcome) {
        for record in outcome.hooks() {
            let bucket = match record.outcome() {
                RecordOutcome::Skipped | RecordOutcome::NotRun => continue,
                RecordOutcome::Block => Some(0),
                RecordOutcome::Ask => Some(1),
                RecordOutcome::Transform => Some(2),
                RecordOutcome::Allow => None,
                _ => Some(3),
            };
            let spec = record.spec();
            let event = dialect::event_as_written(spec);
            let key = (
                config,
                spec.source().to_owned(),
                event.to_owned(),
                spec.index(),
            );
            let tally = self.hooks.entry(key).or_insert_with(|| HookTally {
                label: spec.label(),
                event: event.to_owned(),
                ..HookTally::default()
            });
            tally.runs += 1;
            match bucket {
                Some(0) => tally.block += 1,
                Some(1) => tally.ask += 1,
                Some(2) => tally.rewrite += 1,
                Some(_) => {
                    tally.errors += 1;
                    tally.last_error = record.reason().map(str::to_owned);
                }
                None => {}
            }
            let micros = u32::try_from(record.duration().as_micros()).unwrap_or(u32::MAX);
            tally.micros.push(micros);
        }
    }

    /// Notes the main configuration's outcome when it is not a plain allow.
    pub(crate) fn flag(&mut self, event: &ReplayEvent, outcome: &HookOutcome) {
        let decision = outcome.decision().as_str();
        if decision == "allow" {
            return;
        }
        if outcome.is_blocked() {
            self.blocked += 1;
        }
        let hooks = outcome
            .hooks()
            .iter()
            .filter(|r| {
                matches!(
                    r.outcome(),
                    RecordOutcome::Block | RecordOutcome::Ask | RecordOutcome::Transform
                ) || r.outcome().is_block()
            })
            .map(|r| r.spec().label())
            .collect();
        self.flagged.push(Flagged {
            session: event.session.to_string(),
            time: event.time.as_deref().map(str::to_owned),
            line: event.line,
            tool_use_id: event.request.tool_call_id().map(str::to_owned),
            event: event.name,
            subject: subject(&event.request),
            decision,
            reason: outcome.reason().map(str::to_owned),
            hooks,
            rewritten: (decision == "transform").then(|| outcome.arguments().clone()),
        });
    }

    /// Notes a difference between the two configurations' whole effect
    /// (decision, honored, stop, follow-up, context, arguments), if there is one.
    pub(crate) fn compare(&mut self, event: &ReplayEvent, main: &HookOutcome, other: &HookOutcome) {
        let (effect, against_effect) = (Effect::of(main), Effect::of(other));
        let differs = effect.differences(&against_effect);
        if differs.is_empty() {
            return;
        }
        self.differences.push(Difference {
            differs,
            effect,
            against_effect,
            session: event.session.to_string(),
            time: event.time.as_deref().map(str::to_owned),
            line: event.line,
            tool_use_id: event.request.tool_call_id().map(str::to_owned),
            event: event.name,
            subject: subject(&event.request),
            decision: main.decision().as_str(),
            reason: main.reason().map(str::to_owned),
            against: other.decision().as_str(),
            against_reason: other.reason().map(str::to_owned),
        });
    }

    pub(crate) fn flagged(&self) -> usize {
        self.flagged.len()
    }

    pub(crate) fn differences(&self) -> usize {
        self.differences.len()
    }

    /// Adds `other` (one session's tally) to this one.
    pub(crate) fn merge(&mut self, other: Tally) {
        self.sessions += other.sessions;
        self.sessions_skipped += other.sessions_skipped;
        self.events += other.events;
        self.not_reached += other.not_reached;
        self.forgotten_calls += other.forgotten_calls;
        for (kind, n) in other.skips {
            *self.skips.entry(kind).or_default() += n;
        }
        for (key, theirs) in other.hooks {
            let ours = self.hooks.entry(key).or_insert_with(|| HookTally {
                label: theirs.label.clone(),
                event: theirs.event.clone(),
                ..HookTally::default()
            });
            ours.runs += theirs.runs;
            ours.block += theirs.block;
            ours.ask += theirs.ask;
            ours.rewrite += theirs.rewrite;
            ours.errors += theirs.errors;
            ours.micros.extend(theirs.micros);
            if theirs.last_error.is_some() {
                ours.last_error = theirs.last_error;
            }
        }
        self.added += other.added;
        self.blocked += other.blocked;
        self.flagged.extend(other.flagged);
        self.differences.extend(other.differences);
    }

    /// Sorts what was found by session and time, so that a run with `--jobs`
    /// reports in the same order as one without.
    fn sort(&mut self) {
        self.flagged
            .sort_by(|a, b| (&a.session, &a.time, a.line).cmp(&(&b.session, &b.time, b.line)));
        self.differences
            .sort_by(|a, b| (&a.session, &a.time, a.line).cmp(&(&b.session, &b.time, b.line)));
        for tally in self.hooks.values_mut() {
            tally.micros.sort_unstable();
        }
    }

    /// The JSON report.
    pub(crate) fn json(mut self, against: bool) -> Value {
        self.sort();
        let hooks: Vec<Value> = self
            .hooks
            .iter()
            .map(|((config, ..), t)| {
                json!({
                    "config": if *config == MAIN { "config" } else { "against" },
                    "hook": t.label,
                    "event": t.event,
                    "runs": t.runs,
                    "block": t.block,
                    "ask": t.ask,
                    "rewrite": t.rewrite,
                    "errors": t.errors,
                    "p50_ms": ms(percentile(&t.micros, 50)),
                    "p95_ms": ms(percentile(&t.micros, 95)),
                    "max_ms": ms(t.micros.last().copied().unwrap_or(0)),
                    "last_error": t.last_error,
                })
            })
            .collect();
        let flagged: Vec<Value> = self
            .flagged
            .iter()
            .map(|f| {
                json!({
                    "session": f.session,
                    "time": f.time,
                    "line": f.line,
                    "tool_use_id": f.tool_use_id,
                    "event": f.event,
                    "subject": f.subject,
                    "decision": f.decision,
                    "reason": f.reason,
                    "hooks": f.hooks,
                    "arguments": f.rewritten,
                })
            })
            .collect();
        let mut report = json!({
            "sessions": {"replayed": self.sessions, "skipped": self.sessions_skipped},
            "events": {"replayed": self.events, "not_reached": self.not_reached},
            "skipped_lines": self.skips,
            "forgotten_calls": self.forgotten_calls,
            "added_ms": self.added.as_secs_f64() * 1000.0,
            "hooks": hooks,
            "flagged": flagged,
        });
        if against {
            report["differences"] = self
                .differences
                .iter()
                .map(|d| {
                    json!({
                        "session": d.session,
                        "time": d.time,
                        "line": d.line,
                        "tool_use_id": d.tool_use_id,
                        "differs": d.differs,
                        "effect": d.effect.json(),
                        "against_effect": d.against_effect.json(),
                        "event": d.event,
                        "subject": d.subject,
                        "decision": d.decision,
                        "reason": d.reason,
                        "against": d.against,
                        "against_reason": d.against_reason,
                    })
                })
                .collect();
        }
        report
    }

    /// The report for people: the summary, the table of hooks, then the
    /// flagged events (or, with `--against`, only the differences).
    pub(crate) fn text(mut self, against: bool) -> String {
        self.sort();
        let mut out = String::new();
        let _ = write!(
            out,
            "replayed {} event{} from {} session file{}",
            self.events,
            plural(self.events),
            self.sessions,
            plural(self.sessions)
        );
        if self.sessions_skipped > 0 {
            let _ = write!(out, " ({} skipped: above)", self.sessions_skipped);
        }
        let _ = writeln!(
            out,
            "; the hooks would have added {}",
            human(self.added.as_secs_f64() * 1000.0)
        );
        if self.not_reached > 0 {
            let _ = writeln!(
                out,
                "{} event{} not replayed: their tool call was blocked (--chain)",
                self.not_reached,
                plural(self.not_reached)
            );
        }
        if self.forgotten_calls > 0 {
            let _ = writeln!(
                out,
                "{} unanswered tool call{} forgotten (more than {} waiting, or {} MiB of their \
                 input): a later result of one is counted as unpaired",
                self.forgotten_calls,
                plural(self.forgotten_calls),
                super::transcript::MAX_PENDING_CALLS,
                super::transcript::MAX_PENDING_BYTES >> 20
            );
        }
        let skipped: u64 = self.skips.values().sum();
        if skipped > 0 {
            let _ = writeln!(out, "{skipped} line{} skipped:", plural(skipped));
            for (kind, n) in &self.skips {
                let _ = writeln!(out, "  {n:>6}  {}", describe_skip(kind));
            }
        }
        out.push('\n');
        if self.hooks.is_empty() {
            out.push_str("no hook ran\n");
        } else {
            let mut rows = Vec::new();
            for ((config, ..), t) in &self.hooks {
                let mut row = Vec::new();
                if against {
                    row.push(if *config == MAIN { "config" } else { "against" }.to_owned());
                }
                row.extend([
                    escape(&t.label).into_owned(),
                    escape(&t.event).into_owned(),
                    t.runs.to_string(),
                    t.block.to_string(),
                    t.ask.to_string(),
                    t.rewrite.to_string(),
                    t.errors.to_string(),
                    human(ms(percentile(&t.micros, 50))),
                    human(ms(percentile(&t.micros, 95))),
                    human(ms(t.micros.last().copied().unwrap_or(0))),
                ]);
                rows.push(row);
            }
            let mut header = vec![];
            if against {
                header.push("CONFIG");
            }
            header.extend([
                "HOOK", "EVENT", "RUNS", "BLOCK", "ASK", "REWRITE", "ERRORS", "P50", "P95", "MAX",
            ]);
            out.push_str(&crate::render::table(&header, &rows));
            for t in self.hooks.values() {
                if let Some(error) = &t.last_error {
                    let _ = writeln!(
                        out,
                        "{}: {} error{}, the last: {}",
                        escape(&t.label),
                        t.errors,
                        plural(t.errors),
                        escape(error)
                    );
                }
            }
        }
        if against {
            out.push('\n');
            if self.differences.is_empty() {
                out.push_str("no decision differs between the two configurations\n");
            } else {
                let n = self.differences.len();
                let _ = writeln!(
                    out,
                    "{n} {} (--against's decision → this configuration's):",
                    if n == 1 {
                        "decision differs"
                    } else {
                        "decisions differ"
                    }
                );
                for d in self.differences.iter().take(SHOWN) {
                    // Each side's reason stands beside its own decision.
                    let why = |reason: Option<&str>| {
                        reason
                            .map(|r| format!(" ({})", escape(r)))
                            .unwrap_or_default()
                    };
                    let _ = write!(
                        out,
                        "  {}  {}  {}  {}: {}{} → {}{}",
                        escape(&d.session),
                        escape(d.time.as_deref().unwrap_or("-")),
                        d.event,
                        escape(&d.subject),
                        d.against,
                        why(d.against_reason.as_deref()),
                        d.decision,
                        why(d.reason.as_deref()),
                    );
                    for part in d.differs.iter().filter(|p| **p != "decision") {
                        let _ = write!(
                            out,
                            "; {}: {} → {}",
                            part.replace('_', "-"),
                            escape(&cut(&d.against_effect.show(part))),
                            escape(&cut(&d.effect.show(part)))
                        );
                    }
                    let _ = writeln!(out, "{}", place(d.line, d.tool_use_id.as_deref()));
                }
                more(&mut out, n);
            }
            return out;
        }
        out.push('\n');
        if self.flagged.is_empty() {
            out.push_str("no event was blocked, asked about or rewritten\n");
        } else {
            let n = self.flagged.len();
            let _ = writeln!(
                out,
                "{n} event{} blocked, asked about or rewritten:",
                plural(n as u64)
            );
            for f in self.flagged.iter().take(SHOWN) {
                let _ = write!(
                    out,
                    "  {}  {}  {}  {}: {}",
                    escape(&f.session),
                    escape(f.time.as_deref().unwrap_or("-")),
                    f.event,
                    escape(&f.subject),
                    f.decision
                );
                if let Some(reason) = &f.reason {
                    let _ = write!(out, " ({})", escape(reason));
                }
                if let Some(arguments) = &f.rewritten {
                    let _ = write!(out, " → {}", escape(&cut(&arguments.to_string())));
                }
                let _ = writeln!(
                    out,
                    " [{}]{}",
                    escape(&f.hooks.join(", ")),
                    place(f.line, f.tool_use_id.as_deref())
                );
            }
            more(&mut out, n);
        }
        out
    }
}

/// Where an event is in its file, for people: `  (line 12, tool call toolu_1)`.
fn place(line: u64, tool_use_id: Option<&str>) -> String {
    match tool_use_id {
        Some(id) => format!("  (line {line}, tool call {})", escape(id)),
        None => format!("  (line {line})"),
    }
}

fn more(out: &mut String, n: usize) {
    if n > SHOWN {
        let _ = writeln!(out, "  … and {} more (--json lists all)", n - SHOWN);
    }
}

/// What an event is about, in one line: the tool and its command or file,
/// the prompt, or the event's name.
pub(crate) fn subject(request: &HookRequest) -> String {
    let args = request.arguments();
    let text = match request.tool_name() {
        Some(tool) => {
            let input = args.get("tool_input").unwrap_or(args);
            let what = ["command", "file_path", "path", "url", "pattern"]
                .iter()
                .find_map(|key| input.get(key).and_then(Value::as_str))
                .map(str::to_owned)
                .unwrap_or_else(|| input.to_string());
            format!("{tool}: {what}")
        }
        None => match args.get("prompt").and_then(Value::as_str) {
            Some(prompt) => prompt.to_owned(),
            None => request.event().name().to_owned(),
        },
    };
    cut(&text)
}

/// `text` cut to [`SUBJECT_CHARS`] characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(SUBJECT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The `p`th percentile of sorted values (nearest rank); 0 when empty.
fn percentile(sorted: &[u32], p: usize) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (sorted.len() * p).div_ceil(100).max(1);
    sorted[rank - 1]
}

fn ms(micros: u32) -> f64 {
    f64::from(micros) / 1000.0
}

/// Milliseconds as people read them: `42 µs`, `1.4 ms`, `12 ms`, `3.2 s`.
fn human(ms: f64) -> String {
    if ms < 1.0 {
        format!("{:.0} µs", ms * 1000.0)
    } else if ms < 10.0 {
        format!("{ms:.1} ms")
    } else if ms < 10_000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_in_the_unit_that_fits() {
        assert_eq!(human(0.042), "42 µs");
        assert_eq!(human(1.44), "1.4 ms");
        assert_eq!(human(120.4), "120 ms");
        assert_eq!(human(12_345.0), "12.3 s");
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&values, 50), 50);
        assert_eq!(percentile(&values, 95), 95);
        assert_eq!(percentile(&[7], 95), 7);
        assert_eq!(percentile(&[], 50), 0);
        assert_eq!(percentile(&[1, 2, 3], 50), 2);
    }

    #[test]
    fn subjects_name_the_tool_and_what_it_acts_on() {
        let req = HookRequest::tool_execution_start("Bash", json!({"command": "rm -rf /"}));
        assert_eq!(subject(&req), "Bash: rm -rf /");
        let req = HookRequest::tool_execution_end(
            "Read",
            json!({"file_path": "/a"}),
            "x",
            false,
            Duration::ZERO,
        );
        assert_eq!(subject(&req), "Read: /a");
        assert_eq!(subject(&HookRequest::input("hi")), "hi");
        let long = "é".repeat(500);
        assert_eq!(
            subject(&HookRequest::input(long)).chars().count(),
            SUBJECT_CHARS + 1
        );
    }
}
