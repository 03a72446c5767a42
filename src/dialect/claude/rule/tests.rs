use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::shell::words_of_pattern;
use super::*;

fn rule(text: &str) -> PermissionRule {
    PermissionRule::parse(text).unwrap()
}

fn bash(rule_text: &str, command: &str) -> bool {
    rule(rule_text).matches("Bash", &json!({ "command": command }))
}

#[test]
fn a_rule_is_a_tool_and_an_optional_pattern() {
    let r = rule("Bash(git commit:*)");
    assert_eq!(r.tool(), "Bash");
    assert_eq!(r.pattern(), Some("git commit:*"));
    assert_eq!(r.as_str(), "Bash(git commit:*)");
    assert_eq!(rule("Edit").pattern(), None);
    assert_eq!(rule("Edit(*)").pattern(), None);
    assert_eq!(rule("Bash(echo $(date))").pattern(), Some("echo $(date)"));
    assert_eq!(rule("Bash(echo \")\")").pattern(), Some("echo \")\""));
}

#[test]
fn malformed_rules_are_errors() {
    for text in [
        "",
        "  ",
        "Bash(",
        "Bash(git",
        "Bash()",
        "Bash(a) || Edit(b)",
        "Bash(a), Edit(b)",
        "(git *)",
        "Bash (git *)",
        "Bash(x) trailing",
        "Bash git",
    ] {
        let err = PermissionRule::parse(text).unwrap_err();
        assert_eq!(err.rule(), text);
        assert!(
            err.to_string().starts_with("invalid permission rule"),
            "{err}"
        );
    }
}

#[test]
fn the_tool_name_must_match_exactly() {
    assert!(!rule("Bash").matches("bash", &json!({"command": "ls"})));
    assert!(rule("Bash").matches("Bash", &json!({"command": "ls"})));
    assert!(!rule("Bash(ls)").matches("Edit", &json!({"command": "ls"})));
    assert!(rule("mcp__github__*").matches("mcp__github__create_issue", &json!({})));
    assert!(rule("mcp__github").matches("mcp__github__create_issue", &json!({})));
    assert!(!rule("mcp__github").matches("mcp__githubx__create_issue", &json!({})));
    assert!(!rule("mcp__git").matches("mcp__github__create_issue", &json!({})));
}

#[test]
fn star_matches_any_run_of_characters() {
    assert!(bash("Bash(git * main)", "git push origin main"));
    assert!(bash("Bash(* --version)", "cargo --version"));
    assert!(!bash("Bash(* --version)", "cargo --help"));
    assert!(bash("Bash(rm *)", "rm -rf build"));
    assert!(!bash("Bash(rm *)", "rmdir build"));
    assert!(bash("Bash(npm test)", "npm test"));
    assert!(!bash("Bash(npm test)", "npm test --watch"));
}

#[test]
fn a_trailing_colon_star_is_a_trailing_space_star() {
    for text in ["Bash(git commit:*)", "Bash(git commit *)"] {
        assert!(bash(text, "git commit -m wip"), "{text}");
        assert!(!bash(text, "git commit-tree x"), "{text}");
        assert!(!bash(text, "git status"), "{text}");
    }
    // Only at the end: elsewhere the colon is literal.
    assert!(!bash("Bash(git:* push)", "git push"));
    assert!(bash("Bash(git:* push)", "git:x push"));
}

#[test]
fn a_prefix_rule_also_matches_the_bare_command() {
    assert!(bash("Bash(git commit:*)", "git commit"));
    assert!(bash("Bash(git commit *)", "git commit"));
    assert!(bash("Bash(ls:*)", "ls"));
    assert!(!bash("Bash(git commit:*)", "git"));
}

#[test]
fn each_subcommand_is_tested() {
    let r = "Bash(git commit:*)";
    assert!(bash(r, "cd repo && git commit -m wip"));
    assert!(bash(r, "make || git commit -am fix"));
    assert!(bash(r, "make; git commit"));
    assert!(bash(r, "echo x | git commit -F -"));
    assert!(bash(r, "make & git commit"));
    assert!(bash(r, "make\ngit commit"));
    assert!(!bash(r, "git status && git push"));
    assert!(!bash(r, "echo 'git commit'"));
    assert!(!bash(r, "echo \"a && git commit\""));
}

#[test]
fn redirections_do_not_split_a_command() {
    assert!(bash("Bash(make *)", "make test 2>&1"));
    assert!(bash("Bash(make *)", "make test &> log"));
    assert!(!bash("Bash(log)", "make test &> log"));
}

#[test]
fn leading_assignments_and_keywords_are_ignored() {
    assert!(bash(
        "Bash(git commit:*)",
        "GIT_AUTHOR_NAME=x git commit -m y"
    ));
    assert!(bash("Bash(git commit:*)", "A=1 B=\"two words\" git commit"));
    assert!(bash("Bash(npm test)", "CI=1 npm test"));
    assert!(bash(
        "Bash(git commit:*)",
        "if true; then git commit -m x; fi"
    ));
    assert!(bash("Bash(rm *)", "! rm -rf x"));
    // An assignment alone runs nothing.
    assert!(!bash("Bash(FOO*)", "FOO=bar"));
}

#[test]
fn substitutions_and_subshells_are_tested_too() {
    assert!(bash("Bash(rm *)", "echo $(rm -rf /)"));
    assert!(bash("Bash(rm *)", "echo `rm -rf /`"));
    assert!(bash("Bash(rm *)", "echo \"$(rm -rf /)\""));
    assert!(bash("Bash(git commit:*)", "(cd repo && git commit)"));
    assert!(bash("Bash(git commit:*)", "{ git commit; }"));
    assert!(!bash("Bash(rm *)", "echo '$(rm -rf /)'"));
}

#[test]
fn an_expansion_matches_once_the_program_does() {
    assert!(bash("Bash(git push *)", "git $SUBCOMMAND origin"));
    assert!(bash("Bash(git push *)", "git \"$(echo push)\" origin"));
    assert!(bash("Bash(git push *)", "$GIT push"));
    assert!(!bash("Bash(git push *)", "echo $HOME"));
    // A rule naming only the program is decided by the text.
    assert!(!bash("Bash(git)", "git $X"));
}

#[test]
fn the_command_word_is_read_as_the_shell_reads_it() {
    for command in [
        "\\rm -rf /",
        "'rm' -rf /",
        "\"rm\" -rf /",
        "r\"\"m -rf /",
        "r''m -rf /",
        "\"r\"'m' -rf /",
        "r\\m -rf /",
        "$'rm' -rf /",
        "FOO=1 'rm' -rf /",
        "ls && \\rm -rf /",
        "echo $(\"rm\" -rf /)",
    ] {
        assert!(bash("Bash(rm *)", command), "{command}");
        assert!(bash("Bash(rm -rf *)", command), "{command}");
    }
    // The arguments too.
    assert!(bash("Bash(rm -rf /)", "rm '-rf' \"/\""));
    assert!(bash("Bash(git push:*)", "git \"push\" origin"));
    // Other programs are still other programs.
    assert!(!bash("Bash(rm *)", "'ls' -l"));
    assert!(!bash("Bash(rm *)", "\"rmdir\" x"));
}

#[test]
fn an_undecidable_command_word_runs_the_hook() {
    for command in [
        "$x -rf /",
        "${x} -rf /",
        "$(echo rm) -rf /",
        "`echo rm` -rf /",
        "\"$x\" -rf /",
        "r* -rf /",
        "r? -rf /",
        "[r]m -rf /",
        "$'\\x72m' -rf /",
        "$\"rm\" -rf /",
    ] {
        assert!(bash("Bash(rm *)", command), "{command}");
    }
    // Quoted glob characters are text.
    assert!(!bash("Bash(rm *)", "'r*' x"));
    assert!(!bash("Bash(rm *)", "\"r?\" x"));
}

#[test]
fn an_unsplittable_command_runs_the_hook() {
    for command in [
        "echo 'unclosed",
        "echo \"unclosed",
        "echo $(unclosed",
        "echo `unclosed",
        "echo ${unclosed",
        "echo )",
        "trailing \\",
    ] {
        assert!(bash("Bash(git commit:*)", command), "{command}");
    }
    let deep = format!("{}x{}", "$(".repeat(100), ")".repeat(100));
    assert!(bash("Bash(git commit:*)", &deep));
    // No command string: nothing to test, so the hook runs.
    assert!(rule("Bash(rm *)").matches("Bash", &json!({})));
}

/// What an `if` rule answers, from an attacker's side: each command that
/// runs `rm` (or that the rule cannot read) matches `Bash(rm *)`, so the
/// hook runs; plain commands keep answering "no match". (pattern, command,
/// expected)
const IF_RULE_TABLE: &[(&str, &str, bool)] = &[
    // A parameter expansion with a command or a brace inside.
    ("Bash(rm *)", "echo ${x:-{}; rm -rf / #}", true),
    ("Bash(rm *)", "echo ${x:-$(rm -rf /)}", true),
    ("Bash(rm *)", "${x:=$(rm x)}", true),
    ("Bash(rm *)", "${x/$(rm x)/}", true),
    ("Bash(rm *)", "${x#$(rm x)}", true),
    ("Bash(rm *)", "echo \"${x:-$(rm x)}\"", true),
    ("Bash(rm *)", "echo ${x:-\"}\"}; rm x", true),
    ("Bash(rm *)", "echo ${!x}", true),
    ("Bash(rm *)", "echo ${x@P}", true),
    ("Bash(rm *)", "echo ${a[i]}", true),
    ("Bash(rm *)", "echo ${x:i}", true),
    // Code the shell runs from a string, or defines to run later.
    ("Bash(rm *)", "function f { rm x; }; f", true),
    ("Bash(rm *)", "coproc rm x", true),
    ("Bash(rm *)", "eval 'rm -rf /'", true),
    ("Bash(rm *)", "eval \"$(cat cmd)\"", true),
    ("Bash(rm *)", "builtin eval 'rm x'", true),
    ("Bash(rm *)", "trap 'rm -rf /' EXIT", true),
    (
        "Bash(rm *)",
        "shopt -s expand_aliases; alias q='rm -rf /'\nq",
        true,
    ),
    ("Bash(rm *)", "hash -p /bin/rm ls; ls -rf /", true),
    ("Bash(rm *)", "PS4='$(rm x)'; set -x; ls", true),
    ("Bash(rm *)", "mapfile -C 'rm x' -c 1 < f", true),
    // Arithmetic evaluates names, and a name may hold `a[$(rm x)]`.
    ("Bash(rm *)", "x=$(cat f); echo $((x))", true),
    ("Bash(rm *)", "((x))", true),
    ("Bash(rm *)", "echo $[x]", true),
    ("Bash(rm *)", "let x", true),
    ("Bash(rm *)", "declare -i y; y=x", true),
    ("Bash(rm *)", "[[ $x -eq 1 ]]", true),
    ("Bash(rm *)", "[ -v 'a[$(rm x)]' ]", true),
    ("Bash(rm *)", "test -v \"$x\"", true),
    ("Bash(rm *)", "printf -v 'a[$(rm x)]' 1", true),
    ("Bash(rm *)", "read 'a[$(rm x)]' <<< 1", true),
    ("Bash(rm *)", "b[x]=1", true),
    ("Bash(rm *)", "echo $((1 + 2 * (3 - 1)))", false),
    ("Bash(rm *)", "(( 1 < 2 )) && ls", false),
    // Substitutions, nested and in every spelling.
    ("Bash(rm *)", "echo $(echo $(rm x))", true),
    ("Bash(rm *)", "echo `echo \\`rm x\\``", true),
    ("Bash(rm *)", "echo \"`\\\"rm\\\" -rf /`\"", true),
    ("Bash(rm *)", "cat <(rm x)", true),
    ("Bash(rm *)", "tee >(rm x) < f", true),
    ("Bash(rm *)", "cat <<< \"$(rm x)\"", true),
    ("Bash(rm *)", "diff <(ls a) <(ls b)", false),
    // Here-documents: an unquoted one expands `$(…)`, a `#` there is text.
    ("Bash(rm *)", "cat <<EOF\n#$(rm x)\nEOF", true),
    ("Bash(rm *)", "cat <<-EOF\n\t#`rm x`\n\tEOF", true),
    ("Bash(rm *)", "cat <<EOF\nx\\\nEOF\n#$(rm x)\nEOF", true),
    ("Bash(rm *)", "cat <<'EOF'\n#$(rm x)\nEOF", false),
    ("Bash(rm *)", "bash <<'EOF'\nrm -rf /\nEOF", true),
    ("Bash(rm *)", "cat <<EOF", true),
    (
        "Bash(rm *)",
        "cat <<EOF > notes.md\nhello $USER\nEOF",
        false,
    ),
    (
        "Bash(rm *)",
        "git commit -m \"$(cat <<'EOF'\nfix: it's done\nEOF\n)\"",
        false,
    ),
    (
        "Bash(git commit:*)",
        "git commit -m \"$(cat <<'EOF'\nfix: it's done\nEOF\n)\"",
        true,
    ),
    // Groups, subshells and compound commands are read through.
    ("Bash(rm *)", "{ rm x; }", true),
    ("Bash(rm *)", "( rm x )", true),
    ("Bash(rm *)", "if true; then rm x; fi", true),
    ("Bash(rm *)", "while true; do rm x; done", true),
    ("Bash(rm *)", "for f in a b; do rm \"$f\"; done", true),
    ("Bash(rm *)", "case x in x) rm x;; esac", true),
    ("Bash(rm *)", "case x in (x) rm x;; esac", true),
    ("Bash(rm *)", "[[ -f x ]] && rm x", true),
    ("Bash(rm *)", "f() { rm x; }; f", true),
    // Wrappers that run the rest in this shell are read through.
    ("Bash(rm *)", "exec rm x", true),
    ("Bash(rm *)", "exec -a ls rm x", true),
    ("Bash(rm *)", "command rm x", true),
    ("Bash(rm *)", "command -p rm x", true),
    ("Bash(rm *)", "time rm x", true),
    ("Bash(rm *)", "time -p rm x", true),
    ("Bash(rm *)", "! rm x", true),
    ("Bash(command *)", "command rm x", true),
    // Other programs that run a command are programs: prefix rules stay
    // prefix rules.
    ("Bash(rm *)", "env rm x", false),
    ("Bash(rm *)", "sudo rm x", false),
    ("Bash(rm *)", "nohup rm x", false),
    ("Bash(rm *)", "xargs rm < list", false),
    ("Bash(sudo *)", "sudo rm x", true),
    // The program by its path, redirections anywhere, brace expansion.
    ("Bash(rm *)", "/bin/rm -rf /", true),
    ("Bash(rm -rf *)", "/usr/bin/rm -rf /", true),
    ("Bash(rm *)", ">/dev/null rm -rf /", true),
    ("Bash(rm *)", "2>/dev/null rm -rf /", true),
    ("Bash(rm *)", "rm>/dev/null -rf /", true),
    ("Bash(rm -rf *)", "rm 2>&1 -rf /", true),
    ("Bash(rm *)", "{rm,-rf,/}", true),
    ("Bash(rm *)", "ls /bin/rm", false),
    // Plain commands keep answering "no match".
    ("Bash(rm *)", "git status", false),
    ("Bash(rm *)", "ls -la | grep x && echo ok", false),
    ("Bash(rm *)", "cargo test 2>&1 | tail -5", false),
    ("Bash(rm *)", "echo ${HOME} $# $?", false),
    ("Bash(rm *)", "echo \"${x:-default}\"", false),
    ("Bash(rm *)", "cd \"${DIR%/*}\" && ls ${f##*/}", false),
    ("Bash(rm *)", "for f in *.rs; do wc -l \"$f\"; done", false),
    ("Bash(rm *)", "[ -f x ] && echo ok", false),
    ("Bash(rm *)", "find . -name '*.rs' | xargs wc -l", false),
    ("Bash(rm *)", "echo \"rm -rf /\" # rm", false),
    ("Bash(make test)", "make test 2>&1", true),
];

#[test]
fn the_if_rule_table() {
    let mut wrong = Vec::new();
    for &(pattern, command, expected) in IF_RULE_TABLE {
        if bash(pattern, command) != expected {
            wrong.push(format!("{pattern} on {command:?}: expected {expected}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn comments_are_not_commands() {
    assert!(!bash("Bash(rm *)", "ls # rm -rf /"));
    assert!(bash("Bash(rm *)", "ls # note\nrm -rf x"));
    assert!(!bash("Bash(rm *)", "echo a#rm"));
}

#[test]
fn whitespace_is_normalised() {
    assert!(bash("Bash(git  commit *)", "  git   commit   -m x  "));
    assert!(bash("Bash(git commit *)", "git\tcommit"));
}

#[test]
fn power_shell_commands_are_shell_commands() {
    let r = rule("PowerShell(Remove-Item *)");
    assert!(r.matches(
        "PowerShell",
        &json!({"command": "cd x; Remove-Item -Recurse y"})
    ));
}

fn edit(rule_text: &str, path: &str) -> bool {
    rule(rule_text).matches("Edit", &json!({ "file_path": path }))
}

#[test]
fn a_file_name_pattern_matches_at_any_depth() {
    assert!(edit("Edit(*.rs)", "/p/src/lib.rs"));
    assert!(edit("Edit(*.rs)", "/lib.rs"));
    assert!(!edit("Edit(*.rs)", "/p/src/lib.rsx"));
    assert!(!edit("Edit(*.rs)", "/p/src.rs/lib.toml"));
    assert!(edit("Edit(Cargo.toml)", "/p/Cargo.toml"));
    assert!(!edit("Edit(Cargo.toml)", "/p/Cargo.toml.bak"));
}

#[test]
fn a_relative_path_pattern_is_anchored_at_the_cwd_when_known() {
    let r = rule("Edit(src/**)");
    let input = json!({"file_path": "/p/src/a/b.rs"});
    assert!(r.matches_in("Edit", &input, Some("/p")));
    assert!(r.matches_in("Edit", &input, Some("/p/")));
    assert!(!r.matches_in("Edit", &json!({"file_path": "/p/lib/src/a.rs"}), Some("/p")));
    assert!(!r.matches_in("Edit", &input, Some("/q")));
    // Without a cwd it may start anywhere.
    assert!(r.matches("Edit", &json!({"file_path": "/p/lib/src/a.rs"})));
    assert!(!r.matches("Edit", &json!({"file_path": "/p/lib/a.rs"})));
    assert!(rule("Edit(**/src/**)").matches_in(
        "Edit",
        &json!({"file_path": "/p/lib/src/a.rs"}),
        Some("/p")
    ));
}

#[test]
fn star_stays_in_one_component_and_double_star_spans() {
    assert!(edit("Edit(/etc/*)", "/etc/hosts"));
    assert!(!edit("Edit(/etc/*)", "/etc/ssh/sshd_config"));
    assert!(edit("Edit(/etc/**)", "/etc/ssh/sshd_config"));
    assert!(edit("Edit(//etc/**)", "/etc/ssh/sshd_config"));
    assert!(edit("Edit(/etc/)", "/etc/ssh/sshd_config"));
    assert!(edit("Edit(/etc/**/*.conf)", "/etc/a/b/x.conf"));
    assert!(edit("Edit(/etc/**/*.conf)", "/etc/x.conf"));
    assert!(!edit("Edit(/etc/**/*.conf)", "/usr/etc/x.conf"));
    let many = format!("/{}x", "**/".repeat(50));
    assert!(!edit(&format!("Edit({many})"), &"/a".repeat(60)));
}

#[test]
fn other_path_fields_are_used_when_file_path_is_missing() {
    let r = rule("NotebookEdit(*.ipynb)");
    assert!(r.matches("NotebookEdit", &json!({"notebook_path": "/p/a.ipynb"})));
    assert!(rule("Grep(src/**)").matches("Grep", &json!({"pattern": "x", "path": "/p/src/a"})));
}

#[test]
fn web_fetch_domains_match_the_host() {
    let r = rule("WebFetch(domain:*.example.com)");
    assert!(r.matches("WebFetch", &json!({"url": "https://docs.example.com/x?y"})));
    assert!(!r.matches("WebFetch", &json!({"url": "https://example.org/x"})));
    assert!(rule("WebFetch(domain:example.com)")
        .matches("WebFetch", &json!({"url": "http://user@EXAMPLE.com:8080/"})));
}

/// The host is the one the URL is fetched from: a backslash ends the
/// authority (`https://evil.test\@example.com/` goes to `evil.test`), and a
/// URL whose host cannot be read runs the hook.
#[test]
fn web_fetch_domains_are_the_host_the_url_goes_to() {
    let guard = rule("WebFetch(domain:evil.test)");
    for url in [
        "https://evil.test\\@example.com/",
        "https://EVIL.test#@example.com/",
        "https://evil.test?@example.com/",
        "https://user:pw@evil.test:8443/x",
    ] {
        assert!(guard.matches("WebFetch", &json!({ "url": url })), "{url}");
    }
    assert!(!guard.matches("WebFetch", &json!({"url": "https://example.com/evil.test"})));
    assert!(guard.matches("WebFetch", &json!({"url": "no url at all"})));
    assert!(rule("WebFetch(domain:*.bücher.de)")
        .matches("WebFetch", &json!({"url": "https://www.xn--bcher-kva.de/"})));
}

#[test]
fn a_subagent_type_is_matched() {
    let r = rule("Agent(Explore)");
    assert!(r.matches("Agent", &json!({"subagent_type": "Explore", "prompt": "x"})));
    assert!(!r.matches("Agent", &json!({"subagent_type": "Plan", "prompt": "x"})));
}

#[test]
fn a_pattern_with_nothing_to_test_runs_the_hook() {
    assert!(rule("mcp__x__y(anything)").matches("mcp__x__y", &json!({"a": 1})));
}

#[test]
fn if_never_runs_on_other_events() {
    let r = rule("Bash");
    let stop = HookRequest::stop(false, "done");
    assert!(!if_allows(Some(&r), "Stop", &stop));
    assert!(!if_allows(
        Some(&r),
        "UserPromptSubmit",
        &HookRequest::input("x")
    ));
    assert!(if_allows(
        None,
        "UserPromptSubmit",
        &HookRequest::input("x")
    ));
    for event in TOOL_EVENTS {
        assert!(is_tool_event(event));
    }
    assert!(!is_tool_event("Stop"));
}

#[test]
fn if_reads_the_tool_input_of_each_tool_event() {
    let r = rule("Bash(rm *)");
    let start = HookRequest::tool_execution_start("Bash", json!({"command": "rm x"}));
    assert!(if_allows(Some(&r), "PreToolUse", &start));
    let end = HookRequest::tool_execution_end(
        "Bash",
        json!({"command": "rm x"}),
        "",
        false,
        Duration::ZERO,
    );
    assert!(if_allows(Some(&r), "PostToolUse", &end));
    let other =
        HookRequest::tool_execution_end("Bash", json!({"command": "ls"}), "", true, Duration::ZERO);
    assert!(!if_allows(Some(&r), "PostToolUseFailure", &other));
    let permission = HookRequest::permission_request("Bash", json!({"command": "rm x"}));
    assert!(if_allows(Some(&r), "PermissionRequest", &permission));
    let raw = HookRequest::new(
        crate::Event::PermissionRequest,
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    assert!(!if_allows(Some(&r), "PermissionDenied", &raw));
    let edit = HookRequest::tool_execution_start("Edit", json!({"file_path": "/p/src/a.rs"}))
        .with_cwd("/p");
    assert!(if_allows(
        Some(&rule("Edit(src/*.rs)")),
        "PreToolUse",
        &edit
    ));
    assert!(!if_allows(
        Some(&rule("Edit(lib/*.rs)")),
        "PreToolUse",
        &edit
    ));
}

#[test]
fn glob_handles_stars_anywhere() {
    assert!(glob("*", ""));
    assert!(glob("a*b*c", "aXXbYYc"));
    assert!(!glob("a*b*c", "aXXbYY"));
    assert!(glob("**a", "a"));
    assert!(glob("é*", "été"));
    assert!(!glob("", "x"));
    assert!(glob("a*a", "a*a"));
    assert!(!glob("ab*ba", "aba"), "the two ends may not overlap");
    assert!(glob("*ab*ab*", "xabyab"));
    assert!(!glob("*ab*ab*", "xaby"));
    assert!(glob("x**y", "xy"));
}

/// Both sides come from hooks files: matching is linear, so a pattern
/// and a text built to make a backtracking matcher take minutes answer at
/// once (the bound only catches a hang).
#[test]
fn glob_is_linear_on_hostile_input() {
    let pattern = format!("http://h/*{}b*", "a".repeat(100_000));
    let text = format!("http://h/{}", "a".repeat(200_000));
    let started = std::time::Instant::now();
    assert!(!glob(&pattern, &text));
    assert!(glob(&pattern, &format!("{text}b")));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// `word` spelled as a shell would read back: each character bare,
/// backslashed, single- or double-quoted, with empty quotes anywhere.
fn spelled(word: &'static str) -> impl Strategy<Value = String> {
    let spellings: Vec<_> = word
        .chars()
        .map(|c| {
            prop::sample::select(vec![
                format!("{c}"),
                format!("{c}"),
                format!("\\{c}"),
                format!("'{c}'"),
                format!("\"{c}\""),
                format!("{c}''"),
                format!("\"\"{c}"),
            ])
        })
        .collect();
    spellings.prop_map(|parts| parts.concat())
}

/// One simple command, spelled, and its words as the shell reads them.
fn simple_command() -> impl Strategy<Value = (String, Vec<String>)> {
    let word = prop::sample::select(vec!["rm", "ls", "git", "push", "-rf", "/", "x", "rmdir"]);
    (
        prop::option::of(Just("FOO=1 ")),
        prop::collection::vec(word, 1..4),
    )
        .prop_flat_map(|(assignment, words)| {
            let spellings: Vec<_> = words.iter().map(|w| spelled(w)).collect();
            (Just(assignment), Just(words), spellings)
        })
        .prop_map(|(assignment, words, spellings)| {
            let text = format!("{}{}", assignment.unwrap_or(""), spellings.join(" "));
            (text, words.into_iter().map(str::to_owned).collect())
        })
}

proptest! {
    /// The linear matcher answers what a regex of the same glob answers.
    #[test]
    fn glob_agrees_with_a_regex(pattern in "[ab*]{0,8}", text in "[ab]{0,10}") {
        let regex = format!(
            "^{}$",
            pattern.split('*').map(regex::escape).collect::<Vec<_>>().join(".*")
        );
        let expected = regex::Regex::new(&regex).unwrap().is_match(&text);
        prop_assert_eq!(glob(&pattern, &text), expected, "{} / {}", pattern, text);
    }
}

proptest! {
    #[test]
    fn rules_and_commands_never_panic(text in any::<String>(), command in any::<String>()) {
        if let Ok(r) = PermissionRule::parse(&text) {
            let _ = r.matches("Bash", &json!({ "command": command }));
            let _ = r.matches_in("Edit", &json!({ "file_path": command }), Some("/p"));
            let _ = r.matches("WebFetch", &json!({ "url": command }));
        }
        let _ = shell_matches(&text, &command);
    }

    /// Commands from a small shell grammar: each word spelled with
    /// random quotes and backslashes, leading assignments, several
    /// commands joined by `&&`, `||`, `;`, `|`. A rule matches exactly
    /// when one command's words, read as the shell reads them, match it.
    #[test]
    fn a_rule_reads_quoted_words_as_the_shell_does(
        commands in prop::collection::vec(simple_command(), 1..4),
        separators in prop::collection::vec(prop::sample::select(vec![" && ", " || ", "; ", " | ", "\n"]), 3),
        rule_text in prop::sample::select(vec!["Bash(rm *)", "Bash(rm -rf *)", "Bash(git push:*)", "Bash(ls)"]),
    ) {
        let mut command = String::new();
        for (i, (spelled, _)) in commands.iter().enumerate() {
            if i > 0 {
                command.push_str(separators[i - 1]);
            }
            command.push_str(spelled);
        }
        let pattern = words_of_pattern(rule(rule_text).pattern().unwrap());
        let expected = commands.iter().any(|(_, words)| {
            let text = words.join(" ");
            glob(&pattern, &text)
                || pattern.strip_suffix(" *").is_some_and(|prefix| glob(prefix, &text))
        });
        prop_assert_eq!(bash(rule_text, &command), expected, "{}", command);
    }

    /// A program named by an expansion or a glob always runs the hook.
    #[test]
    fn an_expanded_program_always_runs_the_hook(
        program in prop::sample::select(vec!["$x", "${x}", "$(x)", "`x`", "r*", "?m", "[r]m", "\"$x\""]),
        (args, _) in simple_command(),
    ) {
        let command = format!("{} {}", program, args);
        prop_assert!(bash("Bash(rm *)", &command), "{}", command);
    }
    #[test]
    fn shell_like_commands_never_panic(command in "[a-z $()`'\"|&;<>#{}=\\\\\n]{0,60}") {
        let _ = shell_matches("git commit *", &command);
    }
}
