//! Bad input everywhere, as properties: the protocol decoder (any exit code, any
//! stdout and stderr bytes), the stdin encoder (any JSON round-trips), the job a
//! command hook is spawned with (any strings give a spawnable environment), the
//! config loader (any text, any bytes, and any well-formed config loading as
//! written) and the matcher. Nothing panics, and the spec's rules hold on every
//! input.
//!
//! The `fuzz/` targets cover the decoder and the loader for much longer runs.
//! Claude Code's `if` rules and group matchers, generated from their grammar,
//! are in [`rules`]; the trust model over mixed-scope, mixed-dialect
//! configurations in [`trust`].

mod rules;
mod trust;

use std::path::Path;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tower_hooks::config::{expand_home, Config, ConfigErrorKind};
use tower_hooks::dialect::nanopi::{decode, env_vars, stdin_line};
use tower_hooks::layer::command::Command;
use tower_hooks::Host;
use tower_hooks::{BlockCause, Event, HookRequest, HookSpec, Pattern, Verdict};

mod substitution;

const DEFAULT_REASON: &str = "blocked by hook";

// --- strategies -------------------------------------------------------------

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        // Binary fractions print exactly, so they parse back to the same f64.
        (-1_000_000i32..1_000_000).prop_map(|n| json!(f64::from(n) / 8.0)),
        any::<String>().prop_map(Value::String),
        // Strings that look like the protocol, and ones that break lines.
        prop::sample::select(vec!["block", "allow", "\n", "a\r\nb", "\u{2028}", "\0", ""])
            .prop_map(|s| Value::String(s.to_owned())),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(
        prop_oneof![any::<String>(), "[a-z_]{1,12}"],
        json_value(),
        0..6,
    )
    .prop_map(|m| m.into_iter().collect())
}

/// Any exit code but 2, or a signal (`None`).
fn not_2() -> impl Strategy<Value = Option<i32>> {
    prop_oneof![
        Just(None),
        Just(Some(0)),
        Just(Some(1)),
        any::<i32>()
            .prop_filter("not 2", |c| *c != 2)
            .prop_map(Some),
    ]
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

/// One stdout line without its newline: garbage, text, or an answer.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        bytes(64).prop_map(|mut b| {
            b.retain(|&c| c != b'\n');
            b
        }),
        "[ -~]{0,40}".prop_map(String::into_bytes),
        answer().prop_map(|v| v.to_string().into_bytes()),
    ]
}

/// A JSON answer of any shape the spec talks about, and some it does not.
fn answer() -> impl Strategy<Value = Value> {
    (
        prop::option::of(prop_oneof![
            Just(json!("block")),
            Just(json!("allow")),
            json_value()
        ]),
        prop::option::of(json_value()),
        prop::option::of(prop_oneof![
            json_object().prop_map(Value::Object),
            json_value()
        ]),
        any::<bool>(),
    )
        .prop_map(|(decision, reason, updated, alias)| {
            let mut answer = Map::new();
            if let Some(d) = decision {
                answer.insert("decision".into(), d);
            }
            if let Some(r) = reason {
                answer.insert("reason".into(), r);
            }
            if let Some(u) = updated {
                let key = if alias {
                    "hookSpecificOutput"
                } else {
                    "updated_input"
                };
                answer.insert(key.into(), u);
            }
            Value::Object(answer)
        })
}

/// Blank lines as the decoder sees them (ASCII whitespace only).
fn blank() -> impl Strategy<Value = Vec<u8>> {
    "[ \t\r\x0c]{0,4}".prop_map(String::into_bytes)
}

fn join(lines: &[Vec<u8>]) -> Vec<u8> {
    lines.join(&b'\n')
}

/// The reason the spec gives a block with this `reason` field.
fn expected_reason(reason: Option<&Value>) -> String {
    match reason {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        None | Some(Value::Null) | Some(Value::String(_)) => DEFAULT_REASON.to_owned(),
        Some(other) => other.to_string(),
    }
}

// --- the decoder ------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decoding_any_output_answers_allow_transform_or_a_hook_block(
        code in any::<Option<i32>>(),
        stdout in prop_oneof![bytes(512), prop::collection::vec(line(), 0..6).prop_map(|l| join(&l))],
        stderr in bytes(256),
    ) {
        match decode(code, &stdout, &stderr) {
            Verdict::Allow | Verdict::Transform(_) => {}
            Verdict::Block { reason, cause, .. } => {
                prop_assert_eq!(cause, BlockCause::Hook);
                prop_assert!(!reason.is_empty());
            }
            other => prop_assert!(false, "decode answered {:?}", other),
        }
    }

    #[test]
    fn exit_2_blocks_with_stderr_without_its_trailing_newlines_or_the_default(
        stdout in prop::collection::vec(line(), 0..4).prop_map(|l| join(&l)),
        stderr in prop_oneof![
            bytes(256),
            "[ -~]{0,40}(\n|\r\n){0,3}".prop_map(String::into_bytes),
            "[ \t\r\n]{0,5}".prop_map(String::into_bytes),
        ],
    ) {
        let text = String::from_utf8_lossy(&stderr);
        let trimmed = text.trim_end_matches(['\n', '\r']);
        let want = if trimmed.trim().is_empty() { DEFAULT_REASON } else { trimmed };
        // Whatever stdout says.
        prop_assert_eq!(decode(Some(2), &stdout, &stderr), Verdict::block(want));
    }

    #[test]
    fn only_the_last_non_empty_stdout_line_decides(
        code in not_2(),
        above in prop::collection::vec(line(), 0..5),
        last in line().prop_filter("not blank", |l| !l.iter().all(u8::is_ascii_whitespace)),
        below in prop::collection::vec(blank(), 0..3),
        stderr in bytes(64),
    ) {
        let mut lines = above;
        lines.push(last.clone());
        lines.extend(below);
        let stdout = join(&lines);
        prop_assert_eq!(decode(code, &stdout, &stderr), decode(Some(0), &last, b""));
    }

    #[test]
    fn a_block_answer_blocks_with_its_reason_even_beside_updated_input(
        code in not_2(),
        above in prop::collection::vec(line(), 0..3),
        reason in prop::option::of(json_value()),
        updated in prop::option::of(json_object()),
        extra in json_object(),
    ) {
        let mut answer = extra;
        answer.insert("decision".into(), json!("block"));
        answer.remove("reason");
        if let Some(r) = &reason {
            answer.insert("reason".into(), r.clone());
        }
        if let Some(u) = updated {
            answer.insert("updated_input".into(), Value::Object(u));
        }
        let mut lines = above;
        lines.push(Value::Object(answer).to_string().into_bytes());
        let want = expected_reason(reason.as_ref());
        prop_assert_eq!(decode(code, &join(&lines), b""), Verdict::block(want));
    }

    #[test]
    fn an_object_updated_input_transforms_with_or_without_allow(
        code in not_2(),
        updated in json_object(),
        alias in any::<bool>(),
        decision in prop::option::of(prop_oneof![
            Just(json!("allow")),
            json_value().prop_filter("not block", |d| d != "block"),
        ]),
    ) {
        let key = if alias { "hookSpecificOutput" } else { "updated_input" };
        let mut answer = Map::new();
        answer.insert(key.into(), Value::Object(updated.clone()));
        if let Some(d) = decision {
            answer.insert("decision".into(), d);
        }
        let stdout = format!("log\n{}\n", Value::Object(answer));
        prop_assert_eq!(decode(code, stdout.as_bytes(), b""), Verdict::Transform(updated));
    }

    #[test]
    fn a_non_object_updated_input_allows(
        code in not_2(),
        updated in json_value().prop_filter("not an object", |v| !v.is_object()),
        alias in any::<bool>(),
    ) {
        let key = if alias { "hookSpecificOutput" } else { "updated_input" };
        let stdout = json!({ key: updated }).to_string();
        prop_assert_eq!(decode(code, stdout.as_bytes(), b""), Verdict::Allow);
    }

    #[test]
    fn a_last_line_that_is_not_a_json_object_allows(
        code in not_2(),
        last in prop_oneof![
            line(),
            json_value().prop_map(|v| v.to_string().into_bytes()),
        ].prop_filter("not an object", |l| {
            !matches!(serde_json::from_slice::<Value>(l), Ok(Value::Object(_)))
        }),
        stderr in bytes(64),
    ) {
        let mut stdout = br#"{"decision":"block","reason":"not the last line"}"#.to_vec();
        stdout.push(b'\n');
        stdout.extend_from_slice(&last);
        let want = if last.iter().all(u8::is_ascii_whitespace) {
            // A blank last line: the block above it is the last non-empty one.
            Verdict::block("not the last line")
        } else {
            Verdict::Allow
        };
        prop_assert_eq!(decode(code, &stdout, &stderr), want);
    }
}

// --- the stdin encoder --------------------------------------------------------

fn event() -> impl Strategy<Value = Event> {
    prop::sample::select(Event::NANOPI.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn stdin_line_is_one_line_that_parses_back_to_the_same_fields(
        event in event(),
        arguments in json_value(),
        tool_name in prop::option::of(any::<String>()),
        tool_call_id in prop::option::of(any::<String>()),
        session_id in prop::option::of(any::<String>()),
        cwd in any::<String>(),
    ) {
        let mut req = HookRequest::new(event, arguments.clone());
        if let Some(t) = &tool_name {
            req = req.with_tool_name(t.as_str());
        }
        if let Some(t) = &tool_call_id {
            req = req.with_tool_call_id(t.as_str());
        }
        if let Some(s) = &session_id {
            req = req.with_session_id(s.as_str());
        }
        let line = stdin_line(&req, &cwd);

        prop_assert_eq!(line.last(), Some(&b'\n'));
        prop_assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let parsed: Value = serde_json::from_slice(&line).expect("the line is JSON");
        let mut want = json!({"event": event.name(), "arguments": arguments, "cwd": cwd});
        for (key, value) in [
            ("tool_name", tool_name),
            ("tool_call_id", tool_call_id),
            ("session_id", session_id),
        ] {
            if let Some(value) = value {
                want[key] = json!(value);
            }
        }
        prop_assert_eq!(parsed, want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_job_always_has_a_spawnable_environment_and_the_exact_stdin_line(
        event in event(),
        arguments in json_value(),
        tool_name in any::<String>(),
        tool_call_id in any::<String>(),
        session_id in any::<String>(),
        cwd in any::<String>(),
    ) {
        let req = HookRequest::new(event, arguments)
            .with_tool_name(tool_name.as_str())
            .with_tool_call_id(tool_call_id.as_str())
            .with_session_id(session_id.as_str())
            .with_cwd(cwd.as_str());
        let job = Command::new("true").job(&req);
        prop_assert_eq!(&job.stdin, &stdin_line(&req, &cwd));
        let host = Host::default();
        let want: Vec<_> = env_vars(&req, host.env_names(), &cwd)
            .map(|(k, v)| (k.to_owned(), v.replace('\0', "\u{fffd}")))
            .collect();
        prop_assert_eq!(&job.env, &want);
        for (name, value) in &job.env {
            prop_assert!(!name.contains('\0') && !name.contains('=') && !value.contains('\0'));
        }
    }
}

// --- the config loader --------------------------------------------------------

const SOURCE: &str = "/p/.nanopi/config.toml";

fn check_load(result: Result<Config, tower_hooks::ConfigError>, path: &Path) {
    match result {
        Ok(config) => {
            for hook in config.hooks() {
                assert_eq!(Path::new(hook.source()), path);
                assert!(!hook.timeout().is_zero());
            }
        }
        Err(err) => {
            let shown = err.to_string();
            let prefix = format!("{}: ", path.display());
            assert!(shown.starts_with(&prefix), "{shown}");
            assert_eq!(err.path(), path);
        }
    }
}

/// Text built from TOML and hook-config pieces, so that it often parses.
fn toml_like() -> impl Strategy<Value = String> {
    let header = prop_oneof![
        prop::sample::select(Event::NANOPI.to_vec())
            .prop_map(|e| format!("[[hooks.{}]]", e.name())),
        prop::sample::select(vec![
            "[hooks]",
            "[[hooks.pre_tool_use]]",
            "[[hooks.session_end]]",
            "[[hooks.ToolExecutionStart]]",
            "[model]",
            "[[hooks]]",
            "hooks = 1",
            "[hooks.input]",
        ])
        .prop_map(str::to_owned),
    ];
    let key = prop::sample::select(vec![
        "matcher",
        "command",
        "timeout",
        "type",
        "fail_closed",
        "timout",
        "name",
    ]);
    let value = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        Just("0".to_owned()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<String>().prop_map(|s| format!("{s:?}")),
        prop::sample::select(vec![
            "\"*\"",
            "\"^bash$\"",
            "\"(unclosed\"",
            "\"command\"",
            "\"webhook\"",
            "\"~/g.sh $HOME ${HOME}\"",
            "[1, 2]",
            "{ a = 1 }",
            "1.5",
            "1979-05-27",
            "'''x'''",
        ])
        .prop_map(str::to_owned),
    ];
    let entry = prop_oneof![
        header,
        (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
        any::<String>(),
    ];
    prop::collection::vec(entry, 0..12).prop_map(|lines| lines.join("\n"))
}

/// One hook entry to write into a config: `(matcher, command, timeout, fail_closed)`.
type Entry = (Option<String>, String, u64, Option<bool>);

fn entry() -> impl Strategy<Value = Entry> {
    (
        prop::option::of(prop_oneof![
            Just("*".to_owned()),
            Just("^bash$".to_owned()),
            Just("^(read|write)$".to_owned()),
            any::<String>().prop_map(|s| regex::escape(&s)),
        ]),
        prop_oneof![
            any::<String>(),
            Just("~/.nanopi/hooks/guard.sh".to_owned()),
            Just("cat ${HOME}/x $HOME/y".to_owned()),
        ],
        1..=1_000_000_000u64,
        prop::option::of(any::<bool>()),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn loading_any_text_answers_hooks_or_an_error_naming_the_file(text in any::<String>()) {
        check_load(Config::from_str_with_source(&text, SOURCE), Path::new(SOURCE));
    }

    #[test]
    fn loading_toml_like_text_answers_hooks_or_an_error_naming_the_file(text in toml_like()) {
        check_load(Config::from_str_with_source(&text, SOURCE), Path::new(SOURCE));
    }

    #[test]
    fn a_well_formed_config_loads_as_written(
        lists in prop::collection::vec((event(), prop::collection::vec(entry(), 1..3)), 0..4),
    ) {
        // Each event once, in the order generated; the loader runs them in
        // `Event::NANOPI` order, each list in its own order.
        let mut lists = lists;
        lists.sort_by_key(|(event, _)| event.index());
        lists.dedup_by_key(|(event, _)| *event);

        let mut hooks = toml::Table::new();
        for (event, entries) in &lists {
            let tables = entries.iter().map(|(matcher, command, timeout, fail_closed)| {
                let mut t = toml::Table::new();
                if let Some(m) = matcher {
                    t.insert("matcher".into(), m.clone().into());
                }
                t.insert("command".into(), command.clone().into());
                t.insert("timeout".into(), toml::Value::Integer(*timeout as i64));
                if let Some(f) = fail_closed {
                    t.insert("fail_closed".into(), (*f).into());
                }
                toml::Value::Table(t)
            });
            hooks.insert(event.name().into(), toml::Value::Array(tables.collect()));
        }
        let mut file = toml::Table::new();
        file.insert("hooks".into(), toml::Value::Table(hooks));
        let text = toml::to_string(&file).unwrap();

        let config = Config::from_str_with_source(&text, SOURCE)
            .unwrap_or_else(|err| panic!("{err}\n{text}"));
        let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
        let want: Vec<_> = lists
            .iter()
            .flat_map(|(event, entries)| entries.iter().enumerate().map(move |(i, e)| (*event, i, e)))
            .collect();
        prop_assert_eq!(config.hooks().len(), want.len());
        for (hook, (event, index, (matcher, command, timeout, fail_closed))) in
            config.hooks().iter().zip(want)
        {
            prop_assert_eq!(hook.event(), event);
            prop_assert_eq!(hook.index(), index);
            prop_assert_eq!(hook.source(), SOURCE);
            prop_assert_eq!(hook.matcher(), matcher.as_deref());
            let expanded = expand_home(command, home.as_deref());
            prop_assert_eq!(hook.command_line(), Some(&*expanded));
            prop_assert_eq!(hook.timeout(), Duration::from_millis(*timeout));
            prop_assert_eq!(hook.fail_closed(), fail_closed.unwrap_or(false));
        }
    }

    #[test]
    fn an_invalid_matcher_is_an_error_naming_the_file_event_and_entry(
        event in event(),
        matcher in prop_oneof![any::<String>(), "[()\\[\\]{}*+?.^$|\\\\a]{1,8}"]
            .prop_filter("not a valid matcher", |m| Pattern::new(m).is_err()),
    ) {
        let mut entry = toml::Table::new();
        entry.insert("matcher".into(), matcher.clone().into());
        entry.insert("command".into(), "true".into());
        let list = toml::Value::Array(vec![toml::Value::Table(entry)]);
        let hooks = toml::Table::from_iter([(event.name().to_owned(), list)]);
        let file = toml::Table::from_iter([("hooks".to_owned(), toml::Value::Table(hooks))]);
        let text = toml::to_string(&file).unwrap();
        let err = Config::from_str_with_source(&text, SOURCE).unwrap_err();
        prop_assert!(err.to_string().starts_with(&format!("{SOURCE}: invalid matcher ")), "{}", err);
        let is_invalid_matcher = matches!(
            err.kind(),
            ConfigErrorKind::InvalidMatcher { event: e, index: 0, pattern, .. }
                if *e == event && *pattern == matcher
        );
        prop_assert!(is_invalid_matcher, "{:?}", err.kind());
    }
}

proptest! {
    // Each case writes a file.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn loading_any_bytes_from_a_file_answers_hooks_or_an_error_naming_the_file(
        data in prop_oneof![bytes(512), toml_like().prop_map(String::into_bytes)],
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, &data).unwrap();
        check_load(Config::load_file(&path), &path);
        check_load(Config::load([&path]), &path);
    }
}

// --- the matcher --------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_matcher_compiles_or_is_refused_without_panicking(
        matcher in prop_oneof![any::<String>(), "[()\\[\\]{}*+?.^$|\\\\a-c0-9,]{0,12}"],
        subject in any::<String>(),
    ) {
        let pattern = Pattern::new(&matcher);
        prop_assert_eq!(
            pattern.is_ok(),
            matcher == "*" || regex::Regex::new(&matcher).is_ok()
        );
        if let Ok(pattern) = pattern {
            let _ = pattern.matches(&subject);
        }
        prop_assert_eq!(
            HookSpec::command(Event::ToolExecutionStart, "x").with_matcher(matcher.as_str()).is_ok(),
            matcher == "*" || regex::Regex::new(&matcher).is_ok()
        );
    }

    #[test]
    fn star_and_an_omitted_matcher_match_every_subject(subject in any::<String>()) {
        prop_assert!(Pattern::new("*").unwrap().matches(&subject));
        prop_assert!(HookSpec::command(Event::ToolExecutionStart, "x").pattern().matches(&subject));
    }

    #[test]
    fn an_escaped_name_matches_itself(name in any::<String>()) {
        let pattern = Pattern::new(&regex::escape(&name)).unwrap();
        prop_assert!(pattern.matches(&name));
        let anchored = Pattern::new(&format!("^{}$", regex::escape(&name))).unwrap();
        prop_assert!(anchored.matches(&name));
        let longer = name.clone() + "x";
        prop_assert!(!anchored.matches(&longer));
    }
}

/// Name-like pieces: plain names, and ones a fast path must not take for plain.
const PIECES: &[&str] = &[
    "", "a", "b", "ab", "bash", "zsh", "a-b", "a_b", "A", "\u{e9}", "a.b", "a*", "\\d", "[a]",
];

fn piece() -> impl Strategy<Value = String> {
    prop::sample::select(PIECES).prop_map(String::from)
}

/// Matchers: anchored alternations grouped, ungrouped, half-grouped or nested
/// (the shapes a fast path looks for, hence the weight), and free text over the
/// regex metacharacters.
fn matcher_like() -> impl Strategy<Value = String> {
    let prefix = prop_oneof![
        3 => Just("^"),
        3 => Just("^("),
        1 => prop::sample::select(vec!["", "(", "^(?:", "^((", "^(?i)", "\\^", "^\\("]),
    ];
    let suffix = prop_oneof![
        3 => Just("$"),
        3 => Just(")$"),
        1 => prop::sample::select(vec!["", ")", "))$", ")$|a", "$)", "\\$", ")\n$", "\\)$"]),
    ];
    prop_oneof![
        4 => (prefix, prop::collection::vec(piece(), 1..4), suffix)
            .prop_map(|(p, names, s)| format!("{p}{}{s}", names.join("|"))),
        1 => r"[-_abz^$|().*\\\[\]]{0,10}",
        1 => prop::collection::vec(
            prop::sample::select(vec![
                "^", "$", "|", "(", ")", ".", "*", "\\", "[", "]", "a", "b", "bash", "zsh", "-",
                "_", "?:",
            ]),
            0..8,
        )
        .prop_map(|tokens| tokens.concat()),
    ]
}

/// A matcher, and subjects near it: its own words alone or with something
/// before or after (`bashx`, `ohmyzsh`), and short strings over the same
/// letters with line breaks.
fn matcher_and_subjects() -> impl Strategy<Value = (String, Vec<String>)> {
    matcher_like().prop_flat_map(|matcher| {
        let mut words: Vec<String> = matcher
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .map(String::from)
            .collect();
        words.push(String::new());
        let affix = || prop::sample::select(vec!["", "", "x", "a", "_", "\n", "ohmy"]);
        let near = (affix(), prop::sample::select(words), affix())
            .prop_map(|(before, word, after)| format!("{before}{word}{after}"));
        let subject = prop_oneof![3 => near, 1 => "[abzhsx_\\-\n^$|()]{0,6}", 1 => piece()];
        (Just(matcher), prop::collection::vec(subject, 1..8))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    // Issue 10, item 1: `^bash|zsh$` was compared as the name set {bash, zsh}.
    #[test]
    fn a_matcher_answers_exactly_as_its_regex_does(
        (matcher, subjects) in matcher_and_subjects(),
    ) {
        if let Ok(re) = regex::Regex::new(&matcher) {
            let pattern = Pattern::new(&matcher).unwrap();
            for subject in &subjects {
                prop_assert_eq!(
                    pattern.matches(subject),
                    re.is_match(subject),
                    "matcher {:?} ({:?}) on {:?}", matcher, pattern, subject
                );
            }
        }
    }
}

// --- the Claude Code and react-agent-mini decoders ----------------------------

/// A text field of a dialect's answer: usually a string, sometimes any JSON
/// value.
fn text() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => "[ -~]{0,12}".prop_map(Value::String),
        1 => json_value(),
    ]
    .boxed()
}

/// One of `words`, usually; sometimes any JSON value.
fn one_of(words: &'static [&'static str]) -> BoxedStrategy<Value> {
    prop_oneof![
        4 => prop::sample::select(words.to_vec()).prop_map(|w| json!(w)),
        1 => json_value(),
    ]
    .boxed()
}

mod dialects {
    use super::{bytes, json_object, json_value, one_of, text};
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};
    use tower_hooks::dialect::agents::{self, AgentsDecision, AgentsEvent};
    use tower_hooks::dialect::claude::{
        self, block_meaning, exit2_reason, ClaudeAnswer, ClaudeDecision, Envelope,
    };
    use tower_hooks::{Event, HookRequest};

    const CLAUDE_EVENTS: [&str; 13] = [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "SessionStart",
        "SessionEnd",
        "Stop",
        "SubagentStop",
        "PermissionRequest",
        "PreCompact",
        "Notification",
        "TaskCreated",
        "NoSuchEvent",
    ];

    fn claude_event() -> impl Strategy<Value = &'static str> {
        prop::sample::select(CLAUDE_EVENTS.to_vec())
    }

    /// Inserts each present field.
    fn object(fields: Vec<(&'static str, Option<Value>)>) -> Value {
        let map: Map<String, Value> = fields
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect();
        Value::Object(map)
    }

    /// A Claude Code answer: Claude Code's fields with values of the right
    /// shape and of any shape, and unknown fields.
    fn claude_json(event: &'static str) -> BoxedStrategy<Value> {
        let decision_object = (
            prop::option::of(one_of(&["allow", "deny", "ask"])),
            prop::option::of(text()),
            prop::option::of(prop_oneof![Just(json!(true)), json_value()]),
            prop::option::of(json_object().prop_map(Value::Object)),
        )
            .prop_map(|(behavior, message, interrupt, input)| {
                object(vec![
                    ("behavior", behavior),
                    ("message", message),
                    ("interrupt", interrupt),
                    ("updatedInput", input),
                ])
            })
            .boxed();
        let specific = (
            prop::option::of(prop_oneof![4 => Just(json!(event)), 1 => text()]),
            prop::option::of(one_of(&["allow", "deny", "ask", "defer"])),
            prop::option::of(text()),
            prop::option::of(prop_oneof![
                json_object().prop_map(Value::Object),
                json_value()
            ]),
            prop::option::of(text()),
            prop::option::of(json_value()),
            prop::option::of(prop_oneof![decision_object, json_value()]),
        )
            .prop_map(
                |(name, decision, reason, input, context, output, behavior)| {
                    object(vec![
                        ("hookEventName", name),
                        ("permissionDecision", decision),
                        ("permissionDecisionReason", reason),
                        ("updatedInput", input),
                        ("additionalContext", context),
                        ("updatedToolOutput", output),
                        ("decision", behavior),
                    ])
                },
            )
            .boxed();
        (
            prop::option::of(prop_oneof![
                Just(json!(false)),
                Just(json!(true)),
                json_value()
            ]),
            prop::option::of(text()),
            prop::option::of(text()),
            prop::option::of(one_of(&["block", "approve"])),
            prop::option::of(text()),
            prop::option::of(prop_oneof![4 => specific, 1 => json_value()]),
            json_object(),
        )
            .prop_map(
                |(go_on, stop_reason, message, decision, reason, specific, mut extra)| {
                    let known = object(vec![
                        ("continue", go_on),
                        ("stopReason", stop_reason),
                        ("systemMessage", message),
                        ("decision", decision),
                        ("reason", reason),
                        ("hookSpecificOutput", specific),
                    ]);
                    if let Value::Object(known) = known {
                        extra.extend(known);
                    }
                    Value::Object(extra)
                },
            )
            .boxed()
    }

    fn event_and_answer() -> BoxedStrategy<(&'static str, Value)> {
        claude_event()
            .prop_flat_map(|event| (Just(event), claude_json(event)))
            .boxed()
    }

    fn whitespace() -> impl Strategy<Value = Vec<u8>> {
        "[ \t\r\n]{0,4}".prop_map(String::into_bytes)
    }

    /// What must hold of any answer at `event`.
    fn check_answer(answer: &ClaudeAnswer, event: &str) -> Result<(), TestCaseError> {
        if answer.is_error() {
            prop_assert_eq!(answer.decision, ClaudeDecision::Allow);
            prop_assert!(answer.honored && answer.context.is_empty());
            prop_assert!(answer.user_messages.is_empty() && answer.stop.is_none());
            prop_assert!(answer.updated_input.is_none() && answer.follow_up.is_none());
        }
        match answer.decision {
            ClaudeDecision::Block => {
                let reason = answer.reason.as_deref().unwrap_or("");
                prop_assert!(!reason.is_empty());
                if event != "PermissionRequest" {
                    prop_assert_eq!(answer.honored, block_meaning(event).is_honored());
                }
                prop_assert!(answer.updated_input.is_none());
            }
            _ => prop_assert!(answer.honored),
        }
        if let Some(follow_up) = &answer.follow_up {
            prop_assert!(event == "Stop" || event == "SubagentStop");
            // A block's reason first; `additionalContext` keeps the agent
            // going without a block.
            match (answer.decision, &answer.reason) {
                (ClaudeDecision::Block, Some(reason)) => {
                    prop_assert!(follow_up.starts_with(reason.as_str()))
                }
                _ => prop_assert!(!follow_up.trim().is_empty()),
            }
        }
        if matches!(answer.decision, ClaudeDecision::Ask | ClaudeDecision::Defer) {
            prop_assert_eq!(event, "PreToolUse");
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn the_claude_decoder_never_panics_on_any_bytes(
            exit in prop_oneof![Just(Some(0)), Just(Some(2)), any::<Option<i32>>()],
            stdout in prop_oneof![bytes(256), event_and_answer().prop_map(|(_, a)| a.to_string().into_bytes())],
            stderr in bytes(128),
            event in claude_event(),
        ) {
            let answer = claude::decode(exit, &stdout, &stderr, event);
            check_answer(&answer, event)?;
            // What stdout says read as on exit 0.
            let as_exit_0 = claude::decode(Some(0), &stdout, b"", event);
            match exit {
                Some(2) => {
                    prop_assert_eq!(answer.decision, ClaudeDecision::Block);
                    // stderr, or the reason of the JSON answer's own block.
                    let own = (as_exit_0.decision == ClaudeDecision::Block)
                        .then_some(as_exit_0.reason.clone())
                        .flatten();
                    prop_assert!(
                        answer.reason == Some(exit2_reason(&stderr)) || answer.reason == own,
                        "{:?}", answer.reason
                    );
                }
                Some(0) => {}
                // A JSON answer decides as on exit 0, and says so.
                Some(_) if !answer.is_error() => {
                    prop_assert!(!as_exit_0.is_error());
                    prop_assert_eq!(answer.decision, as_exit_0.decision);
                    prop_assert_eq!(answer.warnings.len(), as_exit_0.warnings.len() + 1);
                }
                _ => {
                    prop_assert_eq!(answer.decision, ClaudeDecision::Allow);
                    let error = answer.error.unwrap_or_default();
                    prop_assert!(
                        error.starts_with("exited with status ") || error.starts_with("killed by a signal"),
                        "{}", error
                    );
                }
            }
        }

        #[test]
        fn pretty_and_compact_json_decode_alike(
            (event, answer) in event_and_answer(),
            before in whitespace(),
            after in whitespace(),
        ) {
            let compact = serde_json::to_vec(&answer).unwrap();
            let mut pretty = before;
            pretty.extend(serde_json::to_vec_pretty(&answer).unwrap());
            pretty.extend(after);
            let decoded = claude::decode(Some(0), &compact, b"", event);
            prop_assert_eq!(&decoded, &claude::decode(Some(0), &pretty, b"", event));
            check_answer(&decoded, event)?;
        }

        #[test]
        fn the_claude_envelope_is_one_json_line_for_any_arguments(
            event in prop::sample::select(Event::ALL.to_vec()),
            arguments in json_value(),
            fields in json_object(),
            tool in "[ -~]{0,8}",
        ) {
            let req = HookRequest::new(event, arguments).with_tool_name(tool);
            let raw = claude::stdin_bytes(&req, &Envelope::new("/w").with_fields(&fields));
            prop_assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
            prop_assert_eq!(raw.last(), Some(&b'\n'));
            let v: Value = serde_json::from_slice(&raw).unwrap();
            for (key, value) in &fields {
                prop_assert_eq!(&v[key.as_str()], value);
            }
        }

        #[test]
        fn the_agents_decoder_never_panics_and_denies_only_as_told(
            exit in prop_oneof![Just(Some(0)), Just(Some(2)), any::<Option<i32>>()],
            stdout in prop_oneof![
                bytes(128),
                json_object().prop_map(|o| Value::Object(o).to_string().into_bytes()),
                (prop::sample::select(vec!["decision", "permissionDecision", "behavior"]), json_value())
                    .prop_map(|(k, reason)| json!({k: "deny", "reason": reason}).to_string().into_bytes()),
            ],
            stderr in bytes(64),
            pre in any::<bool>(),
            deny_on_failure in any::<bool>(),
        ) {
            let event = if pre { AgentsEvent::PreToolUse } else { AgentsEvent::PostToolUse };
            let answer = agents::decode(event, exit, &stdout, &stderr, deny_on_failure);
            if answer.decision == AgentsDecision::Deny {
                prop_assert!(!answer.reason.unwrap_or_default().is_empty());
                prop_assert_eq!(answer.honored, pre);
            }
            match exit {
                Some(2) => prop_assert_eq!(answer.decision, AgentsDecision::Deny),
                Some(0) => prop_assert!(answer.error.is_none()),
                _ => {
                    prop_assert!(answer.error.is_some());
                    prop_assert_eq!(answer.decision == AgentsDecision::Deny, pre && deny_on_failure);
                }
            }
        }

        #[test]
        fn the_agents_loader_never_panics_on_any_text(text in prop_oneof![
            "\\PC{0,64}",
            json_value().prop_map(|v| v.to_string()),
            json_object().prop_map(|o| json!({"PreToolUse": [Value::Object(o)]}).to_string()),
        ]) {
            if let Ok(file) = agents::parse(&text) {
                for hook in &file.hooks {
                    prop_assert!(!hook.command.trim().is_empty());
                    prop_assert!(!hook.timeout.is_zero());
                }
            }
        }
    }
}

// --- the Cursor and OpenHuman decoder, envelope and hooks.json parser ---------

mod cursor {
    use super::{bytes, json_object, json_value, one_of, text};
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};
    use tower_hooks::config::Format;
    use tower_hooks::dialect::cursor::config::{self, parse, CursorFile};
    use tower_hooks::dialect::cursor::{
        decode, stdin_bytes, CursorAnswer, CursorEvent, CursorMatcher, CursorPermission, Envelope,
    };
    use tower_hooks::HookRequest;

    const DEFAULT_REASON: &str = "blocked by hook";

    /// Inserts each present field.
    fn object(fields: Vec<(&'static str, Option<Value>)>) -> Map<String, Value> {
        fields
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect()
    }

    /// `snake` or `camel`, chosen by the flag.
    fn spelled(camel: bool, snake: &'static str, camel_case: &'static str) -> &'static str {
        if camel {
            camel_case
        } else {
            snake
        }
    }

    /// A Cursor answer: its fields in either spelling, with values of the
    /// right shape and of any shape, and unknown fields.
    fn cursor_json() -> BoxedStrategy<Value> {
        (
            prop::option::of(one_of(&["allow", "deny", "ask", "Deny", "block"])),
            prop::option::of(text()),
            prop::option::of(text()),
            prop::option::of(text()),
            prop::option::of(text()),
            prop::option::of(prop_oneof![
                json_object().prop_map(Value::Object),
                json_value()
            ]),
            prop::option::of(prop_oneof![
                Just(json!(false)),
                Just(json!(true)),
                json_value()
            ]),
            prop::option::of(prop_oneof![
                json_object().prop_map(Value::Object),
                json_value()
            ]),
            any::<bool>(),
            json_object(),
        )
            .prop_map(
                |(
                    permission,
                    user,
                    agent,
                    follow,
                    context,
                    input,
                    go_on,
                    env,
                    camel,
                    mut extra,
                )| {
                    let known = object(vec![
                        ("permission", permission),
                        (spelled(camel, "user_message", "userMessage"), user),
                        (spelled(camel, "agent_message", "agentMessage"), agent),
                        (
                            spelled(camel, "followup_message", "followupMessage"),
                            follow,
                        ),
                        (
                            spelled(camel, "additional_context", "additionalContext"),
                            context,
                        ),
                        (spelled(camel, "updated_input", "updatedInput"), input),
                        ("continue", go_on),
                        ("env", env),
                    ]);
                    extra.extend(known);
                    Value::Object(extra)
                },
            )
            .boxed()
    }

    /// A log line a hook may print before its answer (no newline in it).
    fn log_line() -> BoxedStrategy<String> {
        prop_oneof![
            "[ -~]{0,40}",
            Just("{not json".to_owned()),
            Just("{\"permission\": \"deny\"}".to_owned()),
            Just("[1, 2]".to_owned()),
        ]
        .boxed()
    }

    /// What must hold of any answer.
    fn check_answer(answer: &CursorAnswer) -> Result<(), TestCaseError> {
        if let Some(error) = &answer.error {
            prop_assert!(!error.is_empty());
            prop_assert!(answer.permission.is_none() && !answer.stop);
            prop_assert!(answer.user_message.is_none() && answer.agent_message.is_none());
            prop_assert!(answer.updated_input.is_none() && answer.additional_context.is_none());
            prop_assert!(answer.followup_message.is_none() && answer.env.is_none());
        }
        match answer.reason() {
            Some(reason) => {
                prop_assert_eq!(answer.permission, Some(CursorPermission::Deny));
                prop_assert!(!reason.trim().is_empty());
            }
            None => prop_assert_ne!(answer.permission, Some(CursorPermission::Deny)),
        }
        if let Some(follow_up) = &answer.followup_message {
            prop_assert!(!follow_up.trim().is_empty());
        }
        Ok(())
    }

    /// The reason exit 2 gives: stderr, else stdout, else the default.
    fn exit2_reason(stdout: &[u8], stderr: &[u8]) -> String {
        [stderr, stdout]
            .into_iter()
            .map(|b| String::from_utf8_lossy(b).trim().to_owned())
            .find(|t| !t.is_empty())
            .unwrap_or_else(|| DEFAULT_REASON.to_owned())
    }

    fn logged(logs: &[String], answer: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in logs {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(answer);
        out.push(b'\n');
        out
    }

    // --- hooks.json strategies ---

    /// Event keys: exact names, loose spellings, aliases, and unknown ones.
    fn event_key() -> BoxedStrategy<String> {
        let exact: Vec<String> = CursorEvent::ALL
            .iter()
            .map(|e| e.name().to_owned())
            .collect();
        prop_oneof![
            4 => prop::sample::select(exact),
            2 => prop::sample::select(vec![
                "PreToolUse", "pre_tool_use", "BEFORE-SHELL-EXECUTION", "UserPromptSubmit",
                "Notification", "sessionStop", "beforeMcpExecution", "SubagentStop",
            ])
            .prop_map(str::to_owned),
            1 => "[a-zA-Z_]{0,16}",
        ]
        .boxed()
    }

    fn timeout_value() -> BoxedStrategy<Value> {
        prop_oneof![
            4 => (1u32..3600).prop_map(|n| json!(n)),
            2 => (1u32..1000).prop_map(|n| json!(f64::from(n) / 8.0)),
            1 => prop::sample::select(vec![
                json!(0), json!(-1), json!(0.0), json!(1e-3), json!(1e-10), json!(5e-324),
                json!(1e300), json!(u64::MAX), json!("5"), json!("5s"), json!(null),
            ]),
            1 => json_value(),
        ]
        .boxed()
    }

    fn matcher_value() -> BoxedStrategy<Value> {
        one_of(&[
            "*",
            "",
            "Shell",
            "Shell|Bash",
            "MCP:create_issue",
            "curl|wget",
            "^Sh",
            "(",
            "[a-",
            "rm -rf",
            "a{99999}",
            "\\",
            "Bash(git *)",
        ])
    }

    /// One entry of a `hooks.json`, with fields of the right type and of any
    /// type, or not an object at all.
    fn entry_value() -> BoxedStrategy<Value> {
        let flag = || {
            prop::option::of(
                prop_oneof![4 => any::<bool>().prop_map(Value::Bool), 1 => json_value()],
            )
        };
        let fields = (
            prop::option::of(prop_oneof![
                4 => "[ -~]{0,16}".prop_map(Value::String),
                1 => prop::sample::select(vec!["", "  ", "a\u{0}b", "\n"]).prop_map(|s| json!(s)),
                1 => json_value(),
            ]),
            prop::option::of(one_of(&["command", "prompt", "agent"])),
            prop::option::of(matcher_value()),
            prop::option::of(timeout_value()),
            (flag(), flag(), flag(), flag()),
            prop::option::of(prop_oneof![
                3 => (0u64..10).prop_map(|n| json!(n)),
                1 => prop::sample::select(vec![
                    json!(null), json!(-1), json!(1.5), json!(u64::MAX), json!("3"),
                ]),
                1 => json_value(),
            ]),
            prop::option::of(text()),
            json_object(),
        )
            .prop_map(
                |(
                    command,
                    kind,
                    matcher,
                    timeout,
                    (closed, closed_snake, enabled, persistent),
                    limit,
                    model,
                    mut extra,
                )| {
                    extra.extend(object(vec![
                        ("command", command),
                        ("type", kind),
                        ("matcher", matcher),
                        ("timeout", timeout),
                        ("failClosed", closed),
                        ("fail_closed", closed_snake),
                        ("enabled", enabled),
                        ("persistent", persistent),
                        ("loop_limit", limit),
                        ("model", model),
                    ]));
                    Value::Object(extra)
                },
            );
        prop_oneof![8 => fields, 1 => json_value()].boxed()
    }

    /// A whole `hooks.json`: mostly the right shape, sometimes not.
    fn file_value() -> BoxedStrategy<Value> {
        let hooks = prop_oneof![
            6 => prop::collection::btree_map(
                event_key(),
                prop_oneof![6 => prop::collection::vec(entry_value(), 0..4).prop_map(Value::Array), 1 => json_value()],
                0..4,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
            1 => json_value(),
        ];
        let version = prop::option::of(prop_oneof![
            6 => Just(json!(1)),
            1 => Just(json!(1.0)),
            1 => Just(json!(2)),
            1 => Just(json!("1")),
            1 => json_value(),
        ]);
        (version, prop::option::of(hooks), json_object())
            .prop_map(|(version, hooks, mut extra)| {
                extra.extend(object(vec![("version", version), ("hooks", hooks)]));
                Value::Object(extra)
            })
            .boxed()
    }

    /// What must hold of any `hooks.json` that loads.
    fn check_file(file: &CursorFile) -> Result<(), TestCaseError> {
        let mut next: std::collections::HashMap<&str, usize> = Default::default();
        for entry in &file.entries {
            prop_assert_eq!(CursorEvent::from_loose(&entry.written), Some(entry.event));
            let index = next.entry(entry.written.as_str()).or_default();
            prop_assert_eq!(entry.index, *index);
            *index += 1;
            if entry.kind == "command" {
                prop_assert!(!entry.command.trim().is_empty());
            }
            prop_assert!(!entry.command.contains('\0'));
            prop_assert!(
                !entry.timeout.is_zero(),
                "a loaded timeout of zero: {:?} from {:?}",
                entry.timeout,
                entry
            );
            prop_assert_ne!(entry.loop_limit, Some(0));
            if entry.matcher.is_none() {
                prop_assert!(matches!(entry.pattern, CursorMatcher::Any));
            }
        }
        let other_version = file
            .warnings
            .iter()
            .any(|w| w.to_string().starts_with("\"version\" is"));
        if other_version {
            prop_assert!(file.entries.is_empty());
            prop_assert_eq!(file.warnings.len(), 1);
        }
        Ok(())
    }

    /// The keys of a JSON object, in order, duplicates kept.
    struct Keys(Vec<String>);

    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_map(Visit)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn the_cursor_decoder_never_panics_on_any_bytes(
            exit in prop_oneof![Just(Some(0)), Just(Some(2)), any::<Option<i32>>()],
            stdout in prop_oneof![
                bytes(256),
                cursor_json().prop_map(|a| a.to_string().into_bytes()),
                (prop::collection::vec(log_line(), 0..4), cursor_json())
                    .prop_map(|(logs, a)| logged(&logs, a.to_string().as_bytes())),
            ],
            stderr in bytes(128),
        ) {
            let answer = decode(exit, &stdout, &stderr);
            check_answer(&answer)?;
            match exit {
                Some(2) => {
                    prop_assert_eq!(answer.permission, Some(CursorPermission::Deny));
                    prop_assert!(answer.error.is_none());
                    prop_assert_eq!(answer.reason(), Some(exit2_reason(&stdout, &stderr)));
                }
                Some(0) => {
                    if let Some(error) = &answer.error {
                        prop_assert!(error.starts_with("stdout holds no JSON answer"), "{}", error);
                    }
                }
                _ => {
                    let error = answer.error.clone().unwrap_or_default();
                    prop_assert!(
                        error.starts_with("exited with status ") || error.starts_with("killed by a signal"),
                        "{}", error
                    );
                }
            }
        }

        #[test]
        fn a_cursor_answer_decodes_alike_compact_pretty_and_after_log_lines(
            answer in cursor_json(),
            logs in prop::collection::vec(log_line(), 0..4),
            before in "[ \t\r\n]{0,4}",
            after in "[ \t\r\n]{0,4}",
        ) {
            let compact = serde_json::to_vec(&answer).unwrap();
            let mut pretty = before.into_bytes();
            pretty.extend(serde_json::to_vec_pretty(&answer).unwrap());
            pretty.extend(after.into_bytes());
            let decoded = decode(Some(0), &compact, b"");
            prop_assert!(decoded.error.is_none(), "{:?}", decoded.error);
            prop_assert_eq!(&decoded, &decode(Some(0), &pretty, b""));
            prop_assert_eq!(&decoded, &decode(Some(0), &logged(&logs, &compact), b""));
            check_answer(&decoded)?;
            // A deny's reason is the agent's message, else the user's, else the default.
            if decoded.permission == Some(CursorPermission::Deny) {
                let first = ["agent_message", "agentMessage", "user_message", "userMessage"]
                    .iter()
                    .filter_map(|k| answer.get(*k).and_then(Value::as_str))
                    .next();
                if let Some(text) = first.filter(|t| !t.trim().is_empty()) {
                    let reason = decoded.reason();
                    prop_assert_eq!(reason.as_deref(), Some(text));
                }
            }
        }

        #[test]
        fn exit_2_always_denies_with_a_non_empty_reason(
            stdout in prop_oneof![bytes(64), "[ \t\r\n]{0,4}".prop_map(String::into_bytes),
                cursor_json().prop_map(|a| a.to_string().into_bytes())],
            stderr in prop_oneof![bytes(64), "[ \t\r\n\u{a0}\u{2003}\u{85}]{0,4}".prop_map(String::into_bytes)],
        ) {
            let answer = decode(Some(2), &stdout, &stderr);
            prop_assert_eq!(answer.permission, Some(CursorPermission::Deny));
            prop_assert!(answer.error.is_none());
            let reason = answer.reason().unwrap_or_default();
            prop_assert!(!reason.trim().is_empty(), "{:?}", reason);
        }

        #[test]
        fn the_cursor_envelope_is_one_json_line_with_unique_keys(
            event in prop::sample::select(CursorEvent::ALL.to_vec()),
            arguments in json_value(),
            tool in "[ -~]{0,8}",
            session in prop::option::of("[ -~]{0,8}"),
            fields in prop::option::of(json_object()),
            loop_count in any::<u32>(),
            openhuman in any::<bool>(),
        ) {
            let mut req = HookRequest::new(event.event(), arguments).with_tool_name(tool);
            if let Some(session) = session {
                req = req.with_session_id(session);
            }
            if let Some(fields) = fields.clone() {
                req = req.with_wire_fields(fields);
            }
            let format = if openhuman { Format::OpenHuman } else { Format::Cursor };
            let envelope = Envelope { format, cwd: "/w", project: "/p", loop_count };
            let raw = stdin_bytes(event, &req, &envelope);
            prop_assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), 1);
            prop_assert_eq!(raw.last(), Some(&b'\n'));
            let v: Value = serde_json::from_slice(&raw).unwrap();
            let fields = fields.unwrap_or_default();
            if !fields.contains_key("hook_event_name") {
                prop_assert_eq!(&v["hook_event_name"], event.name());
            }
            for (key, value) in &fields {
                prop_assert_eq!(&v[key.as_str()], value);
            }
            let Keys(keys) = serde_json::from_slice(&raw).unwrap();
            let mut unique = keys.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(
                unique.len(), keys.len(),
                "duplicate keys in the {} envelope: {:?}", event.name(), keys
            );
        }

        #[test]
        fn the_cursor_config_parser_never_panics_on_any_text(text in prop_oneof![
            "\\PC{0,64}",
            json_value().prop_map(|v| v.to_string()),
            file_value().prop_map(|v| v.to_string()),
        ]) {
            match parse(&text) {
                Ok(file) => check_file(&file)?,
                Err(err) => prop_assert!(!err.to_string().is_empty()),
            }
        }

        #[test]
        fn the_cursor_config_parser_reads_json_ish_values_alike_however_laid_out(
            value in file_value(),
        ) {
            let compact = parse(&value.to_string());
            let pretty = parse(&serde_json::to_string_pretty(&value).unwrap());
            match (&compact, &pretty) {
                (Ok(a), Ok(b)) => {
                    check_file(a)?;
                    prop_assert_eq!(format!("{:?}", a), format!("{:?}", b));
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                _ => prop_assert!(false, "{:?} vs {:?}", compact, pretty),
            }
        }

        #[test]
        fn a_well_formed_cursor_config_loads_as_written(
            entries in prop::collection::vec(
                (
                    prop::sample::select(CursorEvent::ALL.to_vec()),
                    "[a-z][a-z ./_-]{0,15}",
                    prop::option::of(prop::sample::select(vec!["*", "Shell|Bash", "MCP:x", "^rm", "curl|wget"])),
                    // Whole seconds, fractions, and positive numbers too small
                    // for a nanosecond: any positive number of seconds.
                    prop::option::of(prop_oneof![
                        6 => (1u32..3600).prop_map(|n| json!(n)),
                        2 => (1u32..1000).prop_map(|n| json!(f64::from(n) / 8.0)),
                        1 => prop::sample::select(vec![json!(1e-10), json!(4e-10), json!(5e-324)]),
                    ]),
                    any::<bool>(),
                    prop::option::of(0u32..10),
                    any::<bool>(),
                ),
                0..8,
            ),
        ) {
            let mut hooks = Map::new();
            for (event, command, matcher, timeout, fail_closed, limit, enabled) in &entries {
                let mut entry = json!({"command": command, "failClosed": fail_closed, "enabled": enabled});
                if let Some(m) = matcher {
                    entry["matcher"] = json!(m);
                }
                if let Some(t) = timeout {
                    entry["timeout"] = json!(t);
                }
                if let Some(l) = limit {
                    entry["loop_limit"] = json!(l);
                }
                hooks
                    .entry(event.name().to_owned())
                    .or_insert_with(|| json!([]))
                    .as_array_mut()
                    .unwrap()
                    .push(entry);
            }
            let file = parse(&json!({"version": 1, "hooks": hooks}).to_string()).unwrap();
            // The only warning: a matcher where the event has nothing to match.
            let ignored = entries
                .iter()
                .filter(|(event, _, matcher, ..)| {
                    !event.has_subject() && matcher.is_some_and(|m| m != "*")
                })
                .count();
            prop_assert_eq!(file.warnings.len(), ignored, "{:?}", file.warnings);
            let all_ignored_matchers = file.warnings.iter().all(|w| {
                matches!(w, tower_hooks::config::ConfigWarningKind::IgnoredEntryMatcher { .. })
            });
            prop_assert!(all_ignored_matchers, "{:?}", file.warnings);
            prop_assert_eq!(file.entries.len(), entries.len());
            check_file(&file)?;
            for entry in &file.entries {
                let written = &hooks[entry.event.name()][entry.index];
                prop_assert_eq!(entry.written.as_str(), entry.event.name());
                prop_assert_eq!(entry.kind.as_str(), "command");
                prop_assert_eq!(&json!(entry.command), &written["command"]);
                prop_assert_eq!(entry.fail_closed, written["failClosed"] == json!(true));
                prop_assert_eq!(entry.enabled, written["enabled"] == json!(true));
                prop_assert_eq!(entry.matcher.as_deref(), written["matcher"].as_str());
                match written.get("timeout").and_then(Value::as_f64) {
                    None => prop_assert_eq!(entry.timeout, config::DEFAULT_TIMEOUT),
                    Some(secs) if secs >= 1e-9 => {
                        prop_assert_eq!(entry.timeout, std::time::Duration::from_secs_f64(secs));
                    }
                    // Less than a nanosecond: any positive timeout will do (see check_file).
                    Some(_) => {}
                }
                let limit = match written.get("loop_limit").and_then(Value::as_u64) {
                    None => Some(config::DEFAULT_LOOP_LIMIT),
                    Some(0) => None,
                    Some(n) => Some(n as u32),
                };
                prop_assert_eq!(entry.loop_limit, limit);
            }
        }
    }
}
