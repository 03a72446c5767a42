//! The feature tables of the migration pages (`docs/claude-code.md`,
//! `docs/cursor.md`) cannot drift from the code: every row says `yes`,
//! `partly` or `no`; a `yes` or `partly` names the tests that show it, and
//! each of those tests exists; a `partly` or `no` says why.
//!
//! The pages of the hosts that `conformance/hosts/` runs for real
//! (`docs/claude-code.md`, `docs/codex.md`, `docs/gemini.md`) also tie each
//! row to that host: it names the host scenarios that show it (a backquoted
//! `claude/<name>`, each a file `conformance/hosts/scenarios/claude/<name>.json`)
//! or says `host: none (why)`. Whether the row's word agrees with how those
//! scenarios came out is checked by the host run itself
//! (`conformance/hosts/doc_rows.py`), which needs the hosts installed.

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
/// `feature | … | here`: `upstream` in the middle, or the host's name).
fn feature_rows(page: &str) -> Vec<Row> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(page))
        .unwrap_or_else(|e| panic!("{page}: {e}"));
    rows_of(page, &text)
}

/// The feature table's rows of `text`, the page `page`.
fn rows_of(page: &str, text: &str) -> Vec<Row> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| {
            let c = cells(l);
            l.trim_start().starts_with('|') && c.len() == 3 && c[0] == "feature" && c[2] == "here"
        })
        .unwrap_or_else(|| panic!("{page} has no `| feature | … | here |` table"));
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

/// Every other page with a feature table, whose host does not run here
/// (`docs/droid.md`, and the page of each dialect added after it): its rows
/// name tests. A page of a host that `conformance/hosts/` runs ties its rows
/// to scenarios instead (below).
#[test]
fn every_other_feature_table_names_real_tests_and_reasons() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut pages: Vec<String> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    let host_pages = ["docs/claude-code.md", "docs/codex.md", "docs/gemini.md"];
    let mut checked = 0;
    for page in pages.iter().filter(|p| !host_pages.contains(&p.as_str())) {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(page)).unwrap();
        let has_table = text.lines().any(|l| {
            let c = cells(l);
            l.trim_start().starts_with('|') && c.len() == 3 && c[0] == "feature" && c[2] == "here"
        });
        if has_table {
            check(page);
            checked += 1;
        }
    }
    assert!(checked >= 1, "the Cursor page at least: {checked}");
}

#[test]
fn cells_split_on_unescaped_bars_only() {
    assert_eq!(
        cells(r"| `curl\|wget` | a | yes: `tests/x.rs` `t` |"),
        ["`curl|wget`", "a", "yes: `tests/x.rs` `t`"]
    );
}

/// What is wrong with the host side of the rows of `page` (text `text`),
/// whose host is `host`: one line each, naming the row's line. Every row
/// starts with `yes:`, `partly:` or `no:`; it names one host scenario at
/// least, each of them a file under `scenarios` (`<host>/<name>.json`), or
/// it says `host: none (why)`.
fn host_row_problems(page: &str, text: &str, host: &str, scenarios: &Path) -> Vec<String> {
    let reference = Regex::new(r"`(claude|codex|gemini)/([a-z0-9_]+)`").unwrap();
    let none = Regex::new(r"host: none \(([^)]*)\)").unwrap();
    let mut problems = Vec::new();
    for row in rows_of(page, text) {
        let at = format!("{page}:{} ({})", row.line, row.feature);
        let word = row.here.split_once(':').map(|(w, _)| w.trim());
        if !matches!(word, Some("yes" | "partly" | "no")) {
            problems.push(format!(
                "{at}: `here` starts with `yes:`, `partly:` or `no:`"
            ));
        }
        let named: Vec<(String, String)> = reference
            .captures_iter(&row.here)
            .map(|c| (c[1].to_owned(), c[2].to_owned()))
            .collect();
        for (of, name) in &named {
            if of != host {
                problems.push(format!(
                    "{at}: names `{of}/{name}`, a scenario of another host than {host}"
                ));
            } else if !scenarios.join(of).join(format!("{name}.json")).is_file() {
                problems.push(format!(
                    "{at}: names `{of}/{name}`, but conformance/hosts/scenarios/{of}/{name}.json does not exist"
                ));
            }
        }
        let why = none.captures(&row.here).map(|c| {
            c[1].split_whitespace()
                .filter(|w| w.chars().any(char::is_alphabetic))
                .count()
        });
        match (named.is_empty(), why) {
            (true, None) => problems.push(format!(
                "{at}: names no `{host}/<scenario>` and does not say `host: none (why)`"
            )),
            (true, Some(words)) if words < 3 => {
                problems.push(format!("{at}: `host: none (…)` says why in a few words"))
            }
            (false, Some(_)) => {
                problems.push(format!("{at}: names scenarios and says `host: none` too"))
            }
            _ => {}
        }
    }
    problems
}

/// [`host_row_problems`] for one of the repository's pages.
fn check_host_rows(page: &str, host: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
    let problems = host_row_problems(page, &text, host, &root.join("conformance/hosts/scenarios"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_claude_code_row_names_a_host_scenario_or_says_why_none() {
    check_host_rows("docs/claude-code.md", "claude");
}

#[test]
fn every_codex_row_names_a_host_scenario_or_says_why_none() {
    check_host_rows("docs/codex.md", "codex");
}

#[test]
fn every_gemini_row_names_a_host_scenario_or_says_why_none() {
    check_host_rows("docs/gemini.md", "gemini");
}

#[test]
fn a_host_row_with_a_missing_scenario_or_no_reason_is_named_by_its_line() {
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/hosts/scenarios");
    let page = "| feature | upstream | here |\n| --- | --- | --- |\n\
                | a | x | yes: host: `claude/pre_exit_0_allows` |\n\
                | b | x | yes: host: `claude/no_such_scenario` |\n\
                | c | x | no: not here |\n\
                | d | x | partly: host: none (plugins) |\n\
                | e | x | maybe: host: `codex/pre_exit_0_allows` |\n";
    let problems = host_row_problems("page.md", page, "claude", &scenarios);
    assert_eq!(problems.len(), 5, "{problems:#?}");
    assert!(
        problems[0].starts_with("page.md:4 (b): names `claude/no_such_scenario`"),
        "{problems:#?}"
    );
    assert!(
        problems[1].starts_with("page.md:5 (c): names no"),
        "{problems:#?}"
    );
    assert!(
        problems[2].starts_with("page.md:6 (d): `host: none (…)` says why"),
        "{problems:#?}"
    );
    assert!(
        problems[3].starts_with("page.md:7 (e): `here` starts with"),
        "{problems:#?}"
    );
    assert!(problems[4].contains("another host"), "{problems:#?}");
}
