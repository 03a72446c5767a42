//! What `hooks` prints for people, and the `list --json` entries.

use serde_json::{json, Value};
use tower_hooks::outcome::millis;
use tower_hooks::{HookOutcome, HookSpec};

/// One `list --json` entry.
pub(crate) fn spec_json(spec: &HookSpec) -> Value {
    json!({
        "event": spec.event().name(),
        "source": spec.source(),
        "index": spec.index(),
        "matcher": spec.matcher(),
        "type": spec.kind(),
        "command": spec.command_line(),
        "timeout_ms": millis(spec.timeout()),
        "fail_closed": spec.fail_closed(),
    })
}

/// Left-aligned columns, two spaces apart; the last column is not padded.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
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

fn one_line(text: &str) -> String {
    text.replace('\n', "\u{23ce}")
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
                s.event().name().to_owned(),
                format!("{}:{}", s.source(), s.index()),
                s.matcher().unwrap_or("*").to_owned(),
                s.kind().to_owned(),
                format!("{} ms", millis(s.timeout())),
                if s.fail_closed() { "closed" } else { "open" }.to_owned(),
                one_line(s.command_line().unwrap_or("")),
            ]
        })
        .collect();
    table(
        &[
            "EVENT", "SOURCE", "MATCHER", "TYPE", "TIMEOUT", "FAILS", "COMMAND",
        ],
        &rows,
    )
}

/// The `hooks test` report.
pub(crate) fn outcome(outcome: &HookOutcome, color: bool) -> String {
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
            "{} (dropped: {} does not enforce blocks)",
            paint("33", "block"),
            outcome.event().name()
        ),
        ("transform", false) => format!(
            "transform (ignored: {} takes no transforms)",
            outcome.event().name()
        ),
        (d, _) => paint("32", d),
    };
    let mut out = String::new();
    out.push_str(&format!("event      {}\n", outcome.event().name()));
    out.push_str(&format!("decision   {decision}\n"));
    if let Some(reason) = outcome.reason() {
        out.push_str(&format!("reason     {}\n", one_line(reason)));
    }
    if let Some(message) = outcome.message() {
        out.push_str(&format!("message    {}\n", one_line(&message)));
    }
    out.push_str(&format!("arguments  {}\n", outcome.arguments()));
    out.push('\n');
    if outcome.hooks().is_empty() {
        out.push_str("no hook ran for this event\n");
        return out;
    }
    let rows: Vec<Vec<String>> = outcome
        .hooks()
        .iter()
        .map(|r| {
            vec![
                format!("{}:{}", r.spec().source(), r.spec().index()),
                r.spec().matcher().unwrap_or("*").to_owned(),
                r.outcome().as_str().to_owned(),
                format!("{} ms", millis(r.duration())),
                one_line(r.reason().unwrap_or("")),
            ]
        })
        .collect();
    out.push_str(&table(
        &["HOOK", "MATCHER", "OUTCOME", "DURATION", "REASON"],
        &rows,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns_and_trims_the_end() {
        let t = table(
            &["A", "BB"],
            &[vec!["xxx".into(), "y".into()], vec!["z".into(), "".into()]],
        );
        assert_eq!(t, "A    BB\nxxx  y\nz\n");
    }
}
