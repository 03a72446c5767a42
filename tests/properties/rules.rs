//! Claude Code `if` rules and group matchers, generated from their grammar:
//! `Tool` or `Tool(pattern)` with shell, path, domain and tool-name patterns,
//! and matchers that are name lists or regexes. Each generated rule parses into
//! its parts and matches exactly the calls that its documented reading selects,
//! computed here from how the call was built (the simple commands of a command
//! line, the components of a path, the host of a URL), not by asking the rule.
//!
//! Strings drawn from `any::<String>()` almost never form a `Tool(pattern)`
//! rule, so they cannot reach the matching code; these always do.

use proptest::prelude::*;
use regex::Regex;
use serde_json::{json, Value};
use tower_hooks::dialect::claude::matcher::compile;
use tower_hooks::dialect::claude::rule::{if_allows, PermissionRule};
use tower_hooks::HookRequest;

// --- globs, read independently of the code under test -------------------------

/// `^…$` of a glob whose `*` matches `star` (any run of characters, or any
/// run within one path component).
fn glob_regex(glob: &str, star: &str) -> String {
    glob.split('*')
        .map(regex::escape)
        .collect::<Vec<_>>()
        .join(star)
}

fn glob_matches(glob: &str, text: &str) -> bool {
    Regex::new(&format!("^{}$", glob_regex(glob, ".*")))
        .unwrap()
        .is_match(text)
}

// --- shell rules ----------------------------------------------------------------

/// Command words: programs and arguments that rules name, so that they match
/// often. Never `echo` or `true`: those wrap the commands that do not run.
const WORDS: &[&str] = &[
    "git", "commit", "push", "rm", "-rf", "ls", "make", "npm", "test", "-m", "wip", "build/", "x",
];

fn word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(WORDS)
}

/// The words a shell rule names: a program, then words or globs.
#[derive(Debug, Clone)]
struct ShellRule {
    words: Vec<&'static str>,
    /// `None`: the words exactly; `Some(":*")` or `Some(" *")`: a prefix rule.
    prefix: Option<&'static str>,
    /// The spaces between words as written (any run is one space).
    gap: &'static str,
}

impl ShellRule {
    fn pattern(&self) -> String {
        let mut text = self.words.join(self.gap);
        if let Some(suffix) = self.prefix {
            text.push_str(suffix);
        }
        text
    }

    /// Whether it selects one simple command (its words from the program on):
    /// the words with one space between them as a glob, and a rule ending in
    /// ` *` (written so, or as `:*`) also selects the command without it.
    fn selects(&self, command: &[&str]) -> bool {
        let text = command.join(" ");
        let mut glob = self.words.join(" ");
        if self.prefix.is_some() {
            glob.push_str(" *");
        }
        glob_matches(&glob, &text)
            || glob
                .strip_suffix(" *")
                .is_some_and(|bare| glob_matches(bare, &text))
    }
}

fn shell_rule() -> impl Strategy<Value = ShellRule> {
    let later = prop_oneof![4 => word(), 1 => Just("*"), 1 => Just("-*")];
    (
        word(),
        prop::collection::vec(later, 0..3),
        prop::sample::select(vec![None, Some(":*"), Some(" *")]),
        prop::sample::select(vec![" ", "  ", "\t"]),
    )
        .prop_map(|(first, rest, prefix, gap)| ShellRule {
            words: std::iter::once(first).chain(rest).collect(),
            prefix,
            gap,
        })
}

/// A shell rule and a line, the rule often written from one of the line's
/// commands (its first words, some turned into `*`), so that about half the
/// cases match.
fn shell_case() -> impl Strategy<Value = (ShellRule, Line)> {
    line().prop_flat_map(|line| {
        let n = line.parts.len();
        let from = line.clone();
        let taken = (
            0..n,
            1..4usize,
            prop::collection::vec(any::<bool>(), 3),
            shell_rule(),
        )
            .prop_map(move |(at, len, stars, mut rule)| {
                let words = &line_words(&from, at);
                let len = len.min(words.len());
                rule.words = words[..len]
                    .iter()
                    .enumerate()
                    .map(|(i, w)| if i > 0 && stars[i - 1] { "*" } else { *w })
                    .collect();
                rule
            });
        (prop_oneof![shell_rule(), taken], Just(line.clone()))
    })
}

fn line_words(line: &Line, at: usize) -> Vec<&'static str> {
    line.parts[at].0.words.clone()
}

/// One simple command: assignments and a keyword before the program, which the
/// rule does not see.
#[derive(Debug, Clone)]
struct Simple {
    before: Vec<&'static str>,
    words: Vec<&'static str>,
}

fn simple() -> impl Strategy<Value = Simple> {
    let before = prop::sample::select(vec!["A=1", "CI=true", "!", "time"]);
    (
        prop::collection::vec(before, 0..2),
        prop::collection::vec(word(), 1..5),
    )
        .prop_map(|(before, words)| Simple { before, words })
}

/// Where a simple command stands on the line.
#[derive(Debug, Clone, Copy)]
enum Place {
    Plain,
    /// `( … )`: runs.
    Subshell,
    /// `echo $( … )`: runs.
    Substitution,
    /// ``echo ` … ` ``: runs.
    Backquotes,
    /// `echo ' … '`: text, never run.
    SingleQuoted,
    /// `true # …`: a comment, never run.
    Comment,
}

impl Place {
    fn runs(self) -> bool {
        !matches!(self, Place::SingleQuoted | Place::Comment)
    }
}

fn place() -> impl Strategy<Value = Place> {
    prop_oneof![
        6 => Just(Place::Plain),
        1 => Just(Place::Subshell),
        1 => Just(Place::Substitution),
        1 => Just(Place::Backquotes),
        1 => Just(Place::SingleQuoted),
        1 => Just(Place::Comment),
    ]
}

/// A command line: simple commands in their places, and the separators
/// between them.
#[derive(Debug, Clone)]
struct Line {
    parts: Vec<(Simple, Place)>,
    separators: Vec<&'static str>,
    gap: &'static str,
}

impl Line {
    fn text(&self) -> String {
        let mut text = String::new();
        for (i, (simple, place)) in self.parts.iter().enumerate() {
            let words = simple
                .before
                .iter()
                .chain(&simple.words)
                .copied()
                .collect::<Vec<_>>()
                .join(self.gap);
            text.push_str(&match place {
                Place::Plain => words,
                Place::Subshell => format!("({words})"),
                Place::Substitution => format!("echo $({words})"),
                Place::Backquotes => format!("echo `{words}`"),
                Place::SingleQuoted => format!("echo '{words}'"),
                Place::Comment => format!("true # {words}"),
            });
            if i + 1 < self.parts.len() {
                // A comment runs to the end of the line.
                let separator = match place {
                    Place::Comment => "\n",
                    _ => self.separators[i % self.separators.len()],
                };
                text.push_str(separator);
            }
        }
        text
    }

    /// The commands that run, from the program on.
    fn commands(&self) -> impl Iterator<Item = &[&'static str]> {
        self.parts
            .iter()
            .filter(|(_, place)| place.runs())
            .map(|(simple, _)| simple.words.as_slice())
    }
}

fn line() -> impl Strategy<Value = Line> {
    let separator = prop::sample::select(vec![" && ", " || ", "; ", ";", " | ", " & ", "\n"]);
    (
        prop::collection::vec((simple(), place()), 1..5),
        prop::collection::vec(separator, 1..4),
        prop::sample::select(vec![" ", "  ", "\t"]),
    )
        .prop_map(|(parts, separators, gap)| Line {
            parts,
            separators,
            gap,
        })
}

// --- path rules -------------------------------------------------------------------

const COMPONENTS: &[&str] = &["src", "lib", "etc", "a.rs", "b.toml", "x", "ssh"];

fn component() -> impl Strategy<Value = &'static str> {
    prop::sample::select(COMPONENTS)
}

/// A component of a path pattern: a name, a glob within it, or `**`.
fn pattern_component() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        4 => component(),
        1 => prop::sample::select(vec!["*", "*.rs", "b.*", "s*"]),
        1 => Just("**"),
    ]
}

/// How a path pattern is anchored.
#[derive(Debug, Clone, Copy)]
enum Anchor {
    /// No `/`: the file name, at any depth.
    Name,
    /// `/p` or `//p`.
    Root(&'static str),
    /// `p/q`: at the working directory.
    Cwd,
}

#[derive(Debug, Clone)]
struct PathRule {
    anchor: Anchor,
    parts: Vec<&'static str>,
    /// Ends in `/`: everything below.
    below: bool,
}

impl PathRule {
    fn pattern(&self) -> String {
        let body = self.parts.join("/");
        let slash = if self.below { "/" } else { "" };
        match self.anchor {
            Anchor::Name => body,
            Anchor::Root(root) => format!("{root}{body}{slash}"),
            Anchor::Cwd => format!("{body}{slash}"),
        }
    }

    /// Whether it selects `path` (components under `/`), with the working
    /// directory `cwd`.
    fn selects(&self, path: &[&str], cwd: &[&str]) -> bool {
        if let Anchor::Name = self.anchor {
            let name = path.last().copied().unwrap_or("");
            return Regex::new(&format!("^{}$", glob_regex(self.parts[0], ".*")))
                .unwrap()
                .is_match(name);
        }
        let mut parts = self.parts.clone();
        if self.below {
            parts.push("**");
        }
        let base: &[&str] = match self.anchor {
            Anchor::Cwd => cwd,
            _ => &[],
        };
        let regex = base
            .iter()
            .map(|c| format!("/{}", regex::escape(c)))
            .chain(parts.iter().map(|part| match *part {
                "**" => "(?:/[^/]+)*".to_owned(),
                part => format!("/{}", glob_regex(part, "[^/]*")),
            }))
            .collect::<String>();
        Regex::new(&format!("^{regex}$"))
            .unwrap()
            .is_match(&format!("/{}", path.join("/")))
    }
}

fn path_rule() -> impl Strategy<Value = PathRule> {
    prop_oneof![
        (pattern_component().prop_filter("a name", |c| *c != "**")).prop_map(|name| PathRule {
            anchor: Anchor::Name,
            parts: vec![name],
            below: false,
        }),
        (
            prop::sample::select(vec!["/", "//"]),
            prop::collection::vec(pattern_component(), 1..4),
            any::<bool>(),
        )
            .prop_map(|(root, parts, below)| PathRule {
                anchor: Anchor::Root(root),
                parts,
                below,
            }),
        (
            prop::collection::vec(pattern_component(), 2..4),
            any::<bool>()
        )
            .prop_map(|(parts, below)| PathRule {
                anchor: Anchor::Cwd,
                parts,
                below,
            }),
    ]
}

/// A path the rule may well select: its components, each glob written out,
/// under the working directory or another directory.
fn path_for(rule: PathRule, cwd: Vec<&'static str>) -> impl Strategy<Value = Vec<&'static str>> {
    let fill = |part: &'static str| -> BoxedStrategy<Vec<&'static str>> {
        match part {
            "**" => prop::collection::vec(component(), 0..3).boxed(),
            "*" => component().prop_map(|c| vec![c]).boxed(),
            "*.rs" => Just(vec!["a.rs"]).boxed(),
            "b.*" => Just(vec!["b.toml"]).boxed(),
            "s*" => prop::sample::select(vec!["src", "ssh"])
                .prop_map(|c| vec![c])
                .boxed(),
            name => Just(vec![name]).boxed(),
        }
    };
    let filled: Vec<_> = rule.parts.iter().map(|p| fill(p)).collect();
    let base = match rule.anchor {
        Anchor::Cwd => {
            prop_oneof![3 => Just(cwd), 1 => prop::collection::vec(component(), 0..3)].boxed()
        }
        Anchor::Name => prop::collection::vec(component(), 0..3).boxed(),
        Anchor::Root(_) => Just(Vec::new()).boxed(),
    };
    let below = if rule.below {
        prop::collection::vec(component(), 0..3).boxed()
    } else {
        Just(Vec::new()).boxed()
    };
    (base, filled, below).prop_map(|(base, filled, below)| {
        let path: Vec<_> = base
            .into_iter()
            .chain(filled.into_iter().flatten())
            .chain(below)
            .collect();
        if path.is_empty() {
            vec!["x"]
        } else {
            path
        }
    })
}

/// A path rule, a working directory, and a path: random, or written from
/// the rule.
fn path_case() -> impl Strategy<Value = (PathRule, Vec<&'static str>, Vec<&'static str>)> {
    (path_rule(), prop::collection::vec(component(), 0..3)).prop_flat_map(|(rule, cwd)| {
        let path = prop_oneof![
            prop::collection::vec(component(), 1..6),
            path_for(rule.clone(), cwd.clone()),
        ];
        (Just(rule), Just(cwd), path)
    })
}

// --- domain rules -----------------------------------------------------------------

const LABELS: &[&str] = &["example", "docs", "com", "org", "evil", "api"];

fn host() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(LABELS), 1..4).prop_map(|labels| labels.join("."))
}

/// A URL with `host`, in any case, with or without user, port, path, query and
/// fragment; the path and query may hold `@` and another host.
fn url(host: String) -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["https://", "http://", "HTTPS://"]),
        prop::sample::select(vec!["", "user@", "u:p@"]),
        any::<bool>(),
        prop::sample::select(vec!["", ":8080", ":1"]),
        prop::sample::select(vec!["", "/", "/x", "/@evil.org/x", "/a:b"]),
        prop::sample::select(vec!["", "?q=1", "?to=x@evil.org", "#frag"]),
    )
        .prop_map(move |(scheme, user, upper, port, path, query)| {
            let host = if upper {
                host.to_ascii_uppercase()
            } else {
                host.clone()
            };
            format!("{scheme}{user}{host}{port}{path}{query}")
        })
}

/// A domain pattern: a host, or a glob over one.
fn domain() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => host(),
        1 => host().prop_map(|h| format!("*.{h}")),
        1 => host().prop_map(|h| format!("{h}.*")),
        1 => Just("*".to_owned()),
    ]
}

// --- tool names ---------------------------------------------------------------------

const TOOL_NAMES: &[&str] = &[
    "Bash",
    "bash",
    "Edit",
    "Write",
    "mcp__github__create_issue",
    "mcp__github__list",
    "mcp__githubx__create_issue",
    "mcp__git__create_issue",
    "mcp__github",
];

/// The tool part of a rule: a name, a glob, or an MCP server.
fn tool_part() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "Bash",
        "Edit",
        "Write",
        "mcp__github",
        "mcp__git",
        "mcp__github__*",
        "mcp__*",
        "*",
        "mcp__github__create_issue",
    ])
}

/// Whether the tool part `rule` names the tool `name`: the glob, or for
/// `mcp__server` every tool of that server.
fn tool_selects(rule: &str, name: &str) -> bool {
    if glob_matches(rule, name) {
        return true;
    }
    match rule.strip_prefix("mcp__") {
        Some(server) if !server.is_empty() && !server.contains("__") && !server.contains('*') => {
            name.starts_with(&format!("{rule}__"))
        }
        _ => false,
    }
}

// --- properties -----------------------------------------------------------------------

/// A pattern of any of the kinds, with what it is written from.
fn any_pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        shell_rule().prop_map(|r| r.pattern()),
        path_rule().prop_map(|r| r.pattern()),
        domain().prop_map(|d| format!("domain:{d}")),
        // Parentheses and quotes that stay inside the pattern.
        prop::sample::select(vec![
            "echo $(date)",
            "echo \")\"",
            "echo ')('",
            "(cd x && make)",
            "a (b) c",
        ])
        .prop_map(String::from),
    ]
}

fn rule(text: &str) -> PermissionRule {
    match PermissionRule::parse(text) {
        Ok(rule) => rule,
        Err(err) => panic!("{text:?} does not parse: {err}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_rule_of_the_grammar_parses_into_its_tool_and_pattern(
        tool in tool_part(),
        pattern in prop::option::of(any_pattern()),
        space in prop::sample::select(vec!["", " ", "\t"]),
    ) {
        let text = match &pattern {
            Some(pattern) => format!("{space}{tool}({pattern}){space}"),
            None => format!("{space}{tool}{space}"),
        };
        let parsed = rule(&text);
        prop_assert_eq!(parsed.as_str(), text.as_str());
        prop_assert_eq!(parsed.tool(), tool);
        let expected = pattern.as_deref().filter(|p| p.trim() != "*");
        prop_assert_eq!(parsed.pattern(), expected);
    }

    #[test]
    fn two_rules_are_refused_as_one(
        first in (tool_part(), any_pattern()),
        second in (tool_part(), prop::option::of(any_pattern())),
        joint in prop::sample::select(vec![" || ", " && ", ", ", " "]),
    ) {
        let second = match &second.1 {
            Some(pattern) => format!("{}({pattern})", second.0),
            None => second.0.to_owned(),
        };
        let text = format!("{}({}){joint}{second}", first.0, first.1);
        match PermissionRule::parse(&text) {
            Ok(parsed) => prop_assert!(false, "{:?} parsed as {:?}", text, parsed),
            Err(err) => prop_assert_eq!(err.rule(), text.as_str()),
        }
    }

    #[test]
    fn a_shell_rule_matches_a_line_when_one_command_that_runs_matches(
        tool in prop::sample::select(vec!["Bash", "PowerShell"]),
        (shell, line) in shell_case(),
    ) {
        let parsed = rule(&format!("{tool}({})", shell.pattern()));
        let command = line.text();
        let expected = line.commands().any(|words| shell.selects(words));
        let input = json!({ "command": command });
        prop_assert_eq!(
            parsed.matches(tool, &input), expected,
            "rule {:?} on {:?}", parsed.as_str(), command
        );
        // The tool name is part of the rule: another tool never matches.
        prop_assert!(!parsed.matches("Edit", &input));
        let other = if tool == "Bash" { "PowerShell" } else { "Bash" };
        prop_assert!(!parsed.matches(other, &input));
        let call = HookRequest::tool_execution_start(tool, input);
        prop_assert_eq!(if_allows(Some(&parsed), "PreToolUse", &call), expected);
        prop_assert!(!if_allows(Some(&parsed), "Stop", &call));
    }

    #[test]
    fn a_path_rule_matches_by_component(
        (path_rule, cwd, path) in path_case(),
        key in prop::sample::select(vec!["file_path", "notebook_path", "path"]),
    ) {
        let parsed = rule(&format!("Edit({})", path_rule.pattern()));
        let file = format!("/{}", path.join("/"));
        let dir = format!("/{}", cwd.join("/"));
        let expected = path_rule.selects(&path, &cwd);
        let input = json!({ key: file });
        prop_assert_eq!(
            parsed.matches_in("Edit", &input, Some(&dir)), expected,
            "rule {:?} on {:?} in {:?}", parsed.as_str(), file, dir
        );
        let call = HookRequest::tool_execution_start("Edit", input).with_cwd(dir.clone());
        prop_assert_eq!(if_allows(Some(&parsed), "PreToolUse", &call), expected);
    }

    #[test]
    fn a_domain_rule_matches_the_host_of_the_url(
        (pattern, url, host) in (domain(), host(), host()).prop_flat_map(|(pattern, other, fill)| {
            // Half the time the host is the pattern with its `*` written out.
            let host = prop_oneof![Just(other), Just(pattern.replace('*', &fill))];
            (Just(pattern), host).prop_flat_map(|(pattern, host)| {
                (Just(pattern), url(host.clone()), Just(host))
            })
        }),
    ) {
        let parsed = rule(&format!("WebFetch(domain:{pattern})"));
        let expected = glob_matches(&pattern, &host);
        prop_assert_eq!(
            parsed.matches("WebFetch", &json!({ "url": url })), expected,
            "rule {:?} on {:?}", parsed.as_str(), url
        );
    }

    #[test]
    fn the_tool_part_names_tools_by_glob_and_mcp_server(
        tool in tool_part(),
        name in prop::sample::select(TOOL_NAMES),
        input in prop::sample::select(vec![json!({}), json!({"command": "ls"})]),
    ) {
        let parsed = rule(tool);
        prop_assert_eq!(
            parsed.matches(name, &input), tool_selects(tool, name),
            "rule {:?} on {:?}", tool, name
        );
    }

    /// Whatever the call holds, a rule of the grammar answers without panicking.
    #[test]
    fn a_rule_of_the_grammar_never_panics_on_any_input(
        tool in tool_part(),
        pattern in any_pattern(),
        text in any::<String>(),
        tool_name in prop_oneof![prop::sample::select(TOOL_NAMES).prop_map(String::from), any::<String>()],
    ) {
        let parsed = rule(&format!("{tool}({pattern})"));
        for key in ["command", "file_path", "url", "subagent_type"] {
            let input: Value = json!({ key: text });
            let _ = parsed.matches_in(&tool_name, &input, Some(&text));
            let _ = parsed.matches("Bash", &input);
        }
    }
}

// --- group matchers -------------------------------------------------------------------

const NAMES: &[&str] = &[
    "Bash",
    "Edit",
    "Write",
    "NotebookEdit",
    "Read",
    "mcp__github__list",
];

/// A group matcher: names listed with `|` or `,` (and spaces), or a regex.
fn group_matcher() -> impl Strategy<Value = String> {
    let names = prop::collection::vec(prop::sample::select(NAMES), 1..4);
    prop_oneof![
        2 => (names.clone(), prop::sample::select(vec!["|", ",", ", ", " | "]))
            .prop_map(|(names, joint)| names.join(joint)),
        1 => names.clone().prop_map(|names| format!("^({})$", names.join("|"))),
        1 => (prop::sample::select(NAMES), prop::sample::select(vec![".*", "$", ".+", "\\b"]))
            .prop_map(|(name, tail)| format!("{name}{tail}")),
        1 => prop::sample::select(vec!["mcp__.*", "mcp__github__.*", "Edit|.*Write", "^Ba", "Edit.*"])
            .prop_map(String::from),
        1 => prop::sample::select(vec!["", "*"]).prop_map(String::from),
    ]
}

/// The documented reading of a matcher on a tool event.
fn group_selects(matcher: &str, subject: &str) -> bool {
    if matcher.is_empty() || matcher == "*" {
        return true;
    }
    let plain = |c: char| c.is_ascii_alphanumeric() || "_|- ,".contains(c);
    if matcher.chars().all(plain) {
        let names: Vec<&str> = matcher
            .split(['|', ','])
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        return names.is_empty() || names.contains(&subject);
    }
    Regex::new(matcher).unwrap().is_match(subject)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_group_matcher_selects_its_names_or_its_regex_matches(
        matcher in group_matcher(),
        subject in prop_oneof![
            prop::sample::select(NAMES).prop_map(String::from),
            prop::sample::select(vec!["bash", "Editor", "MultiEdit", "mcp__github", ""])
                .prop_map(String::from),
        ],
    ) {
        let pattern = compile("PreToolUse", Some(&matcher)).unwrap();
        prop_assert_eq!(
            pattern.matches(&subject), group_selects(&matcher, &subject),
            "matcher {:?} on {:?}", matcher, subject
        );
    }
}
