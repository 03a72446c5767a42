//! The in-process side of [`MetricsLayer::pair`](super::MetricsLayer::pair).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tower_hooks::{Event, RecordOutcome};

use super::OUTCOMES;

/// How many runs (or calls) ended each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// Allowed.
    pub allow: u64,
    /// Transformed.
    pub transform: u64,
    /// Blocked.
    pub block: u64,
    /// Asked for a person's approval.
    pub ask: u64,
    /// Skipped: the matcher did not match (hooks only).
    pub skipped: u64,
    /// Timed out (hooks only).
    pub timeout: u64,
    /// Failed, and blocked because the hook fails closed (hooks only).
    pub failed_closed: u64,
    /// Could not run and failed open (hooks), or the service below failed (calls).
    pub error: u64,
}

impl Counts {
    /// The count for one outcome (zero for one that is not counted, `not_run`).
    pub fn get(&self, outcome: RecordOutcome) -> u64 {
        match outcome {
            RecordOutcome::Allow => self.allow,
            RecordOutcome::Transform => self.transform,
            RecordOutcome::Block => self.block,
            RecordOutcome::Ask => self.ask,
            RecordOutcome::Skipped => self.skipped,
            RecordOutcome::Timeout => self.timeout,
            RecordOutcome::FailedClosed => self.failed_closed,
            RecordOutcome::Error => self.error,
            _ => 0,
        }
    }

    /// All outcomes together.
    pub fn total(&self) -> u64 {
        OUTCOMES.iter().map(|o| self.get(*o)).sum()
    }

    fn add(&mut self, outcome: RecordOutcome) {
        let slot = match outcome {
            RecordOutcome::Allow => &mut self.allow,
            RecordOutcome::Transform => &mut self.transform,
            RecordOutcome::Block => &mut self.block,
            RecordOutcome::Ask => &mut self.ask,
            RecordOutcome::Skipped => &mut self.skipped,
            RecordOutcome::Timeout => &mut self.timeout,
            RecordOutcome::FailedClosed => &mut self.failed_closed,
            RecordOutcome::Error => &mut self.error,
            _ => return,
        };
        *slot += 1;
    }
}

/// How long runs (or calls) took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Latency {
    /// How many were timed.
    pub count: u64,
    /// Their total duration.
    pub total: Duration,
    /// The shortest (zero when none).
    pub min: Duration,
    /// The longest.
    pub max: Duration,
}

impl Latency {
    /// The mean duration (zero when none).
    pub fn mean(&self) -> Duration {
        match u32::try_from(self.count) {
            Ok(0) => Duration::ZERO,
            Ok(n) => self.total / n,
            Err(_) => Duration::from_secs_f64(self.total.as_secs_f64() / self.count as f64),
        }
    }

    fn add(&mut self, duration: Duration) {
        self.min = if self.count == 0 {
            duration
        } else {
            self.min.min(duration)
        };
        self.max = self.max.max(duration);
        self.total = self.total.saturating_add(duration);
        self.count += 1;
    }
}

/// One hook's numbers at one event.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookStats {
    /// The event.
    pub event: Event,
    /// The hook's [label](tower_hooks::HookSpec::label): its name, or where it
    /// was configured.
    pub hook: String,
    /// Runs by outcome.
    pub counts: Counts,
    /// How long the runs took.
    pub latency: Latency,
}

/// One event's numbers: the calls through the stack.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallStats {
    /// The event.
    pub event: Event,
    /// Calls by the hooks' decision.
    pub counts: Counts,
    /// How long the calls took.
    pub latency: Latency,
}

/// Everything a [`MetricsHandle`](super::MetricsHandle) counted, sorted by event, then hook.
///
/// Its `Display` is a small table, one line per event and per hook.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    calls: Vec<CallStats>,
    hooks: Vec<HookStats>,
}

impl Snapshot {
    /// Per-event call numbers (the layer around the call).
    pub fn calls(&self) -> &[CallStats] {
        &self.calls
    }

    /// Per-hook numbers.
    pub fn hooks(&self) -> &[HookStats] {
        &self.hooks
    }

    /// The numbers of the calls of one event.
    pub fn event(&self, event: Event) -> Option<&CallStats> {
        self.calls.iter().find(|c| c.event == event)
    }

    /// The numbers of one hook (`source:index`) at one event.
    pub fn hook(&self, event: Event, hook: &str) -> Option<&HookStats> {
        self.hooks
            .iter()
            .find(|h| h.event == event && h.hook == hook)
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.hooks.is_empty()
    }
}

impl fmt::Display for Snapshot {
    /// ```text
    /// event                 hook     allow  transform  block  skipped  timeout  failed_closed  error       mean        max
    /// tool_execution_start  *            2          0      1        0        0              0      0      1.2ms      3.0ms
    /// tool_execution_start  guard:0      2          0      1        0        0              0      0      1.0ms      2.9ms
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rows: Vec<(&str, &str, &Counts, &Latency)> = Vec::new();
        for event in Event::ALL {
            if let Some(c) = self.event(event) {
                rows.push((event.name(), "*", &c.counts, &c.latency));
            }
            for h in self.hooks.iter().filter(|h| h.event == event) {
                rows.push((event.name(), &h.hook, &h.counts, &h.latency));
            }
        }
        let event_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(5);
        let hook_w = rows.iter().map(|r| r.1.len()).max().unwrap_or(0).max(4);
        write!(f, "{:event_w$}  {:hook_w$}", "event", "hook")?;
        for outcome in OUTCOMES {
            write!(f, "  {}", outcome.as_str())?;
        }
        writeln!(f, "  {:>9}  {:>9}", "mean", "max")?;
        for (event, hook, counts, latency) in rows {
            write!(f, "{event:event_w$}  {hook:hook_w$}")?;
            for outcome in OUTCOMES {
                let width = outcome.as_str().len();
                write!(f, "  {:>width$}", counts.get(outcome))?;
            }
            writeln!(
                f,
                "  {:>9}  {:>9}",
                format!("{:.1?}", latency.mean()),
                format!("{:.1?}", latency.max)
            )?;
        }
        Ok(())
    }
}

/// Where a paired layer adds up its numbers.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    tables: Mutex<Tables>,
}

#[derive(Debug, Default)]
struct Tables {
    calls: HashMap<Event, (Counts, Latency)>,
    hooks: HashMap<Event, HashMap<String, (Counts, Latency)>>,
}

impl Registry {
    pub(crate) fn hook_run(
        &self,
        event: Event,
        hook: &str,
        outcome: RecordOutcome,
        duration: Duration,
    ) {
        let mut tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        let per_event = tables.hooks.entry(event).or_default();
        // Look up by `&str` first: no allocation once the hook is known.
        if !per_event.contains_key(hook) {
            per_event.insert(hook.to_owned(), Default::default());
        }
        let entry = per_event.get_mut(hook).expect("inserted above");
        entry.0.add(outcome);
        entry.1.add(duration);
    }

    pub(crate) fn call(&self, event: Event, outcome: RecordOutcome, duration: Duration) {
        let mut tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = tables.calls.entry(event).or_default();
        entry.0.add(outcome);
        entry.1.add(duration);
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        let tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        let mut calls: Vec<CallStats> = tables
            .calls
            .iter()
            .map(|(event, (counts, latency))| CallStats {
                event: *event,
                counts: *counts,
                latency: *latency,
            })
            .collect();
        calls.sort_by_key(|c| c.event);
        let mut hooks: Vec<HookStats> = tables
            .hooks
            .iter()
            .flat_map(|(event, hooks)| {
                hooks.iter().map(|(hook, (counts, latency))| HookStats {
                    event: *event,
                    hook: hook.clone(),
                    counts: *counts,
                    latency: *latency,
                })
            })
            .collect();
        hooks.sort_by(|a, b| (a.event, &a.hook).cmp(&(b.event, &b.hook)));
        Snapshot { calls, hooks }
    }

    pub(crate) fn reset(&self) {
        let mut tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        *tables = Tables::default();
    }
}
