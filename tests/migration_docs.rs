//! The feature tables of the migration pages (`docs/claude-code.md`,
//! `docs/cursor.md`) cannot drift from the code: every row says `yes`,
//! `partly` or `no`; a `yes` or `partly` names the tests that show it, and
//! each of those tests exists; a `partly` or `no` says why.

use std::path::Path;

use regex::Regex;

/// One row of a `| feature | upstream | here |` table.
#[derive(Debug)]
struct Row {
    line: usize,
    feature: String,
    here: String,
}

/// The cells of a table line, split on the `|` that are not escaped (`\|`
/// stands for a `|` inside a cell).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            _ => cells.last_mut().unwrap().push(c),
        }
    }
    cells.into_iter().map(|c| c.trim().to_owned()).collect()
}

/// The rows of the page's feature table (the one whose header is
/// `feature | upstream | here`).
fn feature_rows(page: &str) -> Vec<Row> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(page))
        .unwrap_or_else(|e| panic!("{page}: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| cells(l) == ["feature", "upstream", "here"])
        .unwrap_or_else(|| panic!("{page} has no `| feature | upstream | here |` table"));
    lines[header + 2..]
        .iter()
        .enumerate()
        .take_while(|(_, l)| l.trim_start().starts_with('|'))
        .map(|(i, l)| {
            let c = cells(l);
            assert_eq!(
                c.len(),
                3,
                "{page}:{}: a row has three cells: {l}",
                header + 3 + i
            );
            Row {
                line: header + 3 + i,
                feature: c[0].clone(),
                here: c[2].clone(),
            }
        })
        .collect()
}

/// Checks every row of `page`; answers how many say yes, partly and no.
fn check(page: &str) -> (usize, usize, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let test_ref = Regex::new(r"`((?:tests|cli/tests|src)/[^`]+\.rs)` `([a-z0-9_]+)`").unwrap();
    let rows = feature_rows(page);
    assert!(rows.len() >= 10, "{page}: only {} rows", rows.len());
    let mut counts = (0, 0, 0);
    for row in &rows {
        let at = format!("{page}:{} ({})", row.line, row.feature);
        let (verdict, rest) = row
            .here
            .split_once(':')
            .unwrap_or_else(|| panic!("{at}: `here` is `yes: …`, `partly: …` or `no: …`"));
        let rest = rest.trim();
        let refs: Vec<(String, String)> = test_ref
            .captures_iter(rest)
            .map(|c| (c[1].to_owned(), c[2].to_owned()))
            .collect();
        // The reason: what is left once the test references are taken out.
        let reason = test_ref.replace_all(rest, "");
        let reason_words = reason
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphabetic))
            .count();
        match verdict.trim() {
            "yes" => {
                counts.0 += 1;
                assert!(!refs.is_empty(), "{at}: a `yes` names its tests");
            }
            "partly" => {
                counts.1 += 1;
                assert!(!refs.is_empty(), "{at}: a `partly` names its tests");
                assert!(reason_words >= 3, "{at}: a `partly` says what is missing");
            }
            "no" => {
                counts.2 += 1;
                assert!(reason_words >= 3, "{at}: a `no` says why");
            }
            other => panic!("{at}: `here` starts with yes, partly or no, not {other:?}"),
        }
        for (file, test) in refs {
            let source = std::fs::read_to_string(root.join(&file))
                .unwrap_or_else(|e| panic!("{at}: {file}: {e}"));
            assert!(
                source.contains(&format!("fn {test}(")),
                "{at}: {file} has no test `{test}`"
            );
        }
    }
    counts
}

#[test]
fn the_cursor_feature_table_names_real_tests_and_reasons() {
    let (yes, partly, no) = check("docs/cursor.md");
    assert!(yes > partly + no, "{yes} yes, {partly} partly, {no} no");
}

#[test]
fn the_claude_code_feature_table_names_real_tests_and_reasons() {
    check("docs/claude-code.md");
}

#[test]
fn cells_split_on_unescaped_bars_only() {
    assert_eq!(
        cells(r"| `curl\|wget` | a | yes: `tests/x.rs` `t` |"),
        ["`curl|wget`", "a", "yes: `tests/x.rs` `t`"]
    );
}
