//! `hooks test --no-hooks` at every nanopi event, the session ones included:
//! a hook that leaves a mark and blocks never runs. The events come from the
//! library's event table, so a new nanopi event is covered here too.

mod support;

use support::{path, Sandbox};
use tower_hooks::event::TABLE;
use tower_hooks::MatcherSubject;

#[test]
fn no_hooks_runs_nothing_at_any_nanopi_event() {
    let s = Sandbox::new();
    let events: Vec<&str> = TABLE
        .iter()
        .filter(|info| info.nanopi)
        .map(|info| info.name)
        .collect();
    let tool_event = |name: &str| {
        TABLE
            .iter()
            .any(|info| info.name == name && info.matcher_subject == MatcherSubject::ToolName)
    };
    assert!(!events.is_empty(), "the event table names no nanopi event");
    let marks = s.dir.path().join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let config: String = events
        .iter()
        .map(|name| {
            let mark = marks
                .join(name)
                .display()
                .to_string()
                .replace('\'', r"'\''");
            let command = format!("echo ran >> '{mark}'; echo blocked >&2; exit 2");
            // A TOML basic string takes JSON's escapes.
            format!(
                "[[hooks.{name}]]\ncommand = {}\n",
                serde_json::json!(command)
            )
        })
        .collect();
    let config = s.write("config.toml", &config);
    let runs = |name: &str| {
        std::fs::read_to_string(marks.join(name))
            .map(|text| text.lines().count())
            .unwrap_or(0)
    };
    let test = |name: &str, no_hooks: bool| {
        let mut args = vec!["test", "--json", "--config", path(&config)];
        args.extend(["--event", name, "--session-id", "s1"]);
        if tool_event(name) {
            args.extend(["--tool", "bash"]);
        }
        if no_hooks {
            args.push("--no-hooks");
        }
        s.run(&args)
    };

    let mut leaks = Vec::new();
    for &name in &events {
        let run = test(name, true);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let answer = run.json();
        if runs(name) != 0
            || answer["hooks"] != serde_json::json!([])
            || answer["decision"] != "allow"
        {
            leaks.push(format!("{name}: {answer}"));
        }
        // Without the switch the same hook runs: the check above can fail.
        let run = test(name, false);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert_eq!(
            runs(name),
            1,
            "{name}: without --no-hooks the hook should run once; {}",
            run.stdout
        );
    }
    assert!(
        leaks.is_empty(),
        "--no-hooks let hooks run at:\n  {}",
        leaks.join("\n  ")
    );
}
