use super::*;
use crate::config::loaders::{load, Options, LOADERS};
use crate::config::{Config, ConfigWarningKind};
use crate::Event;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tower-hooks-discovery-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn formats_are_detected_from_the_name_and_the_version_key() {
    let dir = tmp("detect");
    let cursor = dir.join("team-hooks.json");
    write(&cursor, r#"{"version": 1, "hooks": {}}"#);
    let settings = dir.join("settings.json");
    write(&settings, r#"{"hooks": {}}"#);
    assert_eq!(Format::detect(&cursor), Format::Cursor);
    assert_eq!(Format::detect(&settings), Format::Claude);
    assert_eq!(Format::detect(&dir.join("a.toml")), Format::Nanopi);
    assert_eq!(
        Format::detect(Path::new("/p/.agents/hooks.json")),
        Format::Agents
    );
    assert_eq!(
        Format::detect(Path::new("/p/.openhuman/hooks.json")),
        Format::OpenHuman
    );
    // Not readable: taken for Claude Code's, whose loader says why.
    assert_eq!(
        Format::detect(Path::new("/nonexistent/hooks/hooks.json")),
        Format::Claude
    );
}

#[test]
fn a_name_rule_wins_over_a_rule_that_reads_the_file() {
    // Cursor's loader comes before react-agent-mini's in the list, but its
    // rules (an `.openhuman` folder, a `"version"` key) are asked only when
    // no loader knows the file by its name.
    let dir = tmp("detect-order");
    let agents = dir.join(".openhuman/.agents/hooks.json");
    write(&agents, r#"{"version": 1, "PreToolUse": []}"#);
    assert_eq!(Format::detect(&agents), Format::Agents);
    let toml = dir.join(".openhuman/hooks.toml");
    write(&toml, "");
    assert_eq!(Format::detect(&toml), Format::Nanopi);
}

#[test]
fn every_format_has_one_loader_and_a_name_of_its_own() {
    let names: Vec<&str> = Format::all().iter().map(|f| f.name()).collect();
    // The first in the loaders' order; a dialect added later is a line at
    // the end of the list and needs no change here.
    assert_eq!(
        names[..7],
        [
            "nanopi",
            "claude",
            "cursor",
            "openhuman",
            "agents",
            "codex",
            "gemini"
        ]
    );
    for (at, name) in names.iter().enumerate() {
        assert!(!names[..at].contains(name), "{name} twice");
        assert_eq!(Format::from_name(name).map(Format::name), Some(*name));
    }
    for format in Format::all() {
        let loaders = LOADERS
            .iter()
            .filter(|loader| loader.formats().contains(&format))
            .count();
        assert_eq!(loaders, 1, "{format}");
        assert_eq!(Format::from_name(format.name()), Some(format));
    }
    assert_eq!(Format::OpenHuman.dialect(), crate::Dialect::Cursor);
}

#[test]
fn a_prefix_forces_the_format_and_other_colons_are_part_of_the_path() {
    let file = ConfigFile::parse("claude:/x/a.toml").unwrap();
    assert_eq!(
        (file.path(), file.format()),
        (Path::new("/x/a.toml"), Format::Claude)
    );
    let file = ConfigFile::parse("/x/odd:name.toml").unwrap();
    assert_eq!(
        (file.path(), file.format()),
        (Path::new("/x/odd:name.toml"), Format::Nanopi)
    );
    let err = ConfigFile::parse("claude:").unwrap_err();
    assert!(err.to_string().contains("[FORMAT:]PATH"), "{err}");
}

#[test]
fn discovery_lists_files_in_the_order_of_the_formats() {
    let files = Discovery::new("/p")
        .with_home(Some("/h".into()))
        .format(Format::Agents)
        .format(Format::Cursor)
        .files();
    let paths: Vec<&Path> = files.iter().map(ConfigFile::path).collect();
    assert_eq!(
        paths,
        [
            Path::new("/p/.agents/hooks.json"),
            Path::new("/etc/cursor/hooks.json"),
            Path::new("/h/.cursor/hooks.json"),
            Path::new("/p/.cursor/hooks.json"),
        ]
    );
    let local = Discovery::new("/p")
        .with_home(None)
        .with_system_files(false)
        .format(Format::Claude)
        .format(Format::Cursor)
        .files();
    let paths: Vec<&Path> = local.iter().map(ConfigFile::path).collect();
    assert_eq!(
        paths,
        [
            Path::new("/p/.claude/settings.json"),
            Path::new("/p/.claude/settings.local.json"),
            Path::new("/p/.cursor/hooks.json"),
        ]
    );
}

/// Each extra folder is read by its own format only, in the order added: a
/// plugin root by Claude Code's, workspaces by the OpenHuman family's (a
/// named host's too), before the project's file.
#[test]
fn extra_folders_belong_to_the_format_they_were_added_for() {
    let acme = Format::app("acme").unwrap();
    let files = Discovery::new("/p")
        .with_home(Some("/h".into()))
        .with_system_files(false)
        .with_folder(Format::OpenHuman, "/w1")
        .with_folder(Format::Claude, "/plugin")
        .with_folder(acme, "/acme-ws")
        .with_folder(Format::OpenHuman, "/w2")
        .with_folder(Format::Agents, "/ignored")
        .format(Format::Claude)
        .format(Format::OpenHuman)
        .format(acme)
        .format(Format::Cursor)
        .format(Format::Agents)
        .files();
    let listed: Vec<(&Path, Format)> = files.iter().map(|f| (f.path(), f.format())).collect();
    let at = |path| (Path::new(path), Format::Claude);
    let oh = |path| (Path::new(path), Format::OpenHuman);
    assert_eq!(
        listed,
        [
            at("/h/.claude/settings.json"),
            at("/p/.claude/settings.json"),
            at("/p/.claude/settings.local.json"),
            at("/plugin/hooks/hooks.json"),
            at("/plugin/.claude-plugin/plugin.json"),
            oh("/h/.openhuman/hooks.json"),
            oh("/w1/hooks.json"),
            oh("/w2/hooks.json"),
            oh("/p/.openhuman/hooks.json"),
            (Path::new("/h/.acme/hooks.json"), acme),
            (Path::new("/acme-ws/hooks.json"), acme),
            (Path::new("/p/.acme/hooks.json"), acme),
            (Path::new("/h/.cursor/hooks.json"), Format::Cursor),
            (Path::new("/p/.cursor/hooks.json"), Format::Cursor),
            (Path::new("/p/.agents/hooks.json"), Format::Agents),
        ]
    );
}

/// A folder the load does not read is a warning naming the folder, its
/// format and what to do: one for a format the discovery does not read (an
/// OpenHuman workspace where the host reads its own name's format), one for
/// a format without extra folders.
#[test]
fn a_folder_no_format_reads_is_a_warning() {
    let dir = tmp("unread-folders");
    let acme = Format::app("acme").unwrap();
    let config = Discovery::new(&dir)
        .with_home(None)
        .with_system_files(false)
        .with_folder(Format::OpenHuman, dir.join("ws"))
        .with_folder(acme, dir.join("acme-ws"))
        .with_folder(Format::Agents, dir.join("agents"))
        .with_folder(Format::Claude, dir.join("plugin"))
        .format(acme)
        .format(Format::Agents)
        .format(Format::Claude)
        .load()
        .unwrap();
    let warnings: Vec<(&Path, &ConfigWarningKind)> = config
        .warnings()
        .iter()
        .map(|w| (w.path(), w.kind()))
        .collect();
    assert_eq!(
        warnings,
        [
            (
                dir.join("ws").as_path(),
                &ConfigWarningKind::UnreadFolder {
                    format: Format::OpenHuman,
                    format_read: false,
                }
            ),
            (
                dir.join("agents").as_path(),
                &ConfigWarningKind::UnreadFolder {
                    format: Format::Agents,
                    format_read: true,
                }
            ),
        ]
    );
    let text: Vec<String> = config.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        text[0],
        format!(
            "{}: a folder for the openhuman format, which this discovery does not read, so \
             nothing in it is read; add the format to the discovery (.format) or hand the \
             folder to the format it belongs to",
            dir.join("ws").display()
        )
    );
    assert!(
        text[1].ends_with("the agents format reads no extra folder, so nothing in this one is read (Claude Code's takes a plugin's root, the Cursor family's a workspace)"),
        "{}",
        text[1]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mixed_files_keep_their_order_and_claude_copies_are_turned_off() {
    let dir = tmp("mixed");
    let handler =
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo once"}]}]}}"#;
    let user = dir.join("home/.claude/settings.json");
    let nanopi = dir.join("proj/.nanopi/config.toml");
    let project = dir.join("proj/.claude/settings.json");
    write(&user, handler);
    write(
        &nanopi,
        "[[hooks.tool_execution_start]]\ncommand = \"true\"\n",
    );
    write(&project, handler);
    let files = [
        ConfigFile::detect(&user),
        ConfigFile::detect(&nanopi),
        ConfigFile::detect(&project),
    ];
    let config = Config::load_files(&files, &dir.join("proj")).unwrap();
    let hooks = config.hooks();
    let dialects: Vec<&str> = hooks.iter().map(|h| h.dialect().as_str()).collect();
    assert_eq!(dialects, ["claude", "nanopi", "claude"]);
    assert!(hooks.iter().all(|h| h.event() == Event::ToolExecutionStart));
    assert_eq!(hooks[0].disabled(), None);
    assert_eq!(
        hooks[2].disabled(),
        Some(format!("duplicate of {}:0", user.display()).as_str())
    );
    assert!(!hooks[2].is_runnable());
}

/// A settings file with one PreToolUse command handler, and `extra`
/// top-level keys.
fn settings(command: &str, extra: &str) -> String {
    format!(
        r#"{{{extra} "hooks": {{"PreToolUse": [{{"hooks": [
                {{"type": "command", "command": "{command}"}}]}}]}}}}"#
    )
}

/// Loads `files` (path, text) as Claude Code files with home `dir/home`
/// and project `dir/proj`; each hook's command and why it is off.
fn switched(dir: &Path, files: &[(&str, String)]) -> Vec<(String, Option<String>)> {
    let mut list = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        write(&path, text);
        list.push(ConfigFile::new(path, Format::Claude));
    }
    let home = dir.join("home");
    let config = load(&list, &dir.join("proj"), Some(&home), EXPLICIT).unwrap();
    config
        .hooks()
        .iter()
        .map(|h| {
            let reason = h
                .disabled()
                .map(|r| r.replace(&*dir.to_string_lossy(), "D"));
            (h.command_line().unwrap_or_default().to_owned(), reason)
        })
        .collect()
}

const USER: &str = "home/.claude/settings.json";
const PROJECT: &str = "proj/.claude/settings.json";
const LOCAL: &str = "proj/.claude/settings.local.json";
const MANAGED: &str = "etc/managed-settings.json";

#[test]
fn disable_all_hooks_is_decided_after_precedence() {
    let dir = tmp("disable-all");
    let off = |file: &str| Some(format!("disableAllHooks is true in D/{file}"));
    // A project's true turns the user's hooks off too, never the managed ones.
    let hooks = switched(
        &dir,
        &[
            (USER, settings("user", "")),
            (PROJECT, settings("project", r#""disableAllHooks": true,"#)),
            (MANAGED, settings("managed", "")),
        ],
    );
    assert_eq!(
        hooks,
        [
            ("user".into(), off(PROJECT)),
            ("project".into(), off(PROJECT)),
            ("managed".into(), None),
        ]
    );
    // A local false outranks the project's true; the user's true is outranked too.
    let hooks = switched(
        &dir,
        &[
            (USER, settings("user", r#""disableAllHooks": true,"#)),
            (PROJECT, settings("project", r#""disableAllHooks": true,"#)),
            (LOCAL, settings("local", r#""disableAllHooks": false,"#)),
        ],
    );
    assert!(hooks.iter().all(|(_, off)| off.is_none()), "{hooks:?}");
    // Only the managed file's own true turns the managed hooks off.
    let hooks = switched(
        &dir,
        &[
            (USER, settings("user", "")),
            (MANAGED, settings("managed", r#""disableAllHooks": true,"#)),
        ],
    );
    assert_eq!(
        hooks,
        [
            ("user".into(), off(MANAGED)),
            ("managed".into(), off(MANAGED))
        ]
    );
}

#[test]
fn allow_managed_hooks_only_keeps_the_managed_copy_of_a_duplicate() {
    let dir = tmp("managed-only");
    let hooks = switched(
        &dir,
        &[
            (USER, settings("guard", "")),
            (PROJECT, settings("other", "")),
            (
                MANAGED,
                settings("guard", r#""allowManagedHooksOnly": true,"#),
            ),
        ],
    );
    let only = Some(format!("allowManagedHooksOnly is true in D/{MANAGED}"));
    // The user's copy would be the original of the managed guard; it is
    // off, so the managed one runs rather than being its duplicate.
    assert_eq!(
        hooks,
        [
            ("guard".into(), only.clone()),
            ("other".into(), only),
            ("guard".into(), None),
        ]
    );
}

#[test]
fn a_copy_that_differs_in_any_behaviour_is_not_a_duplicate() {
    let dir = tmp("dedup-fields");
    let handler = |extra: &str| {
        format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [
                    {{"type": "command", "command": "guard"{extra}}}]}}]}}}}"#
        )
    };
    for extra in [
        r#", "timeout": 0.001"#,
        r#", "async": true"#,
        r#", "shell": "bash""#,
        r#", "once": true"#,
        r#", "if": "Bash(git *)""#,
        r#", "onFailure": "block""#,
    ] {
        let hooks = switched(&dir, &[(PROJECT, handler(extra)), (MANAGED, handler(""))]);
        assert!(
            hooks.iter().all(|(_, off)| off.is_none()),
            "{extra}: {hooks:?}"
        );
    }
    // Equal in everything: the project's copy is the managed guard's
    // duplicate, never the other way round (the more trusted one runs).
    let hooks = switched(&dir, &[(PROJECT, handler("")), (MANAGED, handler(""))]);
    assert_eq!(hooks[0].1, Some(format!("duplicate of D/{MANAGED}:0")));
    assert_eq!(hooks[1].1, None);
}

#[test]
fn labels_of_every_dialect_never_show_the_home_directory() {
    let dir = tmp("labels");
    let (home, project) = (dir.join("home"), dir.join("home/proj"));
    let claude =
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#;
    let cursor = r#"{"version": 1, "hooks": {"preToolUse": [{"command": "true"}]}}"#;
    let files = [
        (home.join(".claude/settings.json"), claude, Format::Claude),
        (
            project.join(".claude/settings.json"),
            claude,
            Format::Claude,
        ),
        (home.join(".cursor/hooks.json"), cursor, Format::Cursor),
        (project.join(".cursor/hooks.json"), cursor, Format::Cursor),
        (dir.join("elsewhere/settings.json"), claude, Format::Claude),
    ];
    let list: Vec<ConfigFile> = files
        .iter()
        .map(|(path, text, format)| {
            write(path, text);
            ConfigFile::new(path, *format)
        })
        .collect();
    let config = load(&list, &project, Some(&home), EXPLICIT).unwrap();
    let labels: Vec<String> = config.hooks().iter().map(|h| h.label()).collect();
    assert_eq!(
        labels,
        [
            "~/.claude/settings.json:0".to_owned(),
            ".claude/settings.json:0".to_owned(),
            "~/.cursor/hooks.json:0".to_owned(),
            ".cursor/hooks.json:0".to_owned(),
            format!("{}:0", dir.join("elsewhere/settings.json").display()),
        ]
    );
}

#[test]
fn the_http_gates_of_all_files_apply_to_every_http_hook() {
    let dir = tmp("http-gates");
    let user = dir.join("home/.claude/settings.json");
    let project = dir.join("proj/.claude/settings.json");
    write(
        &user,
        r#"{"allowedHttpHookUrls": ["http://127.0.0.1:*/ok*"],
                "httpHookAllowedEnvVars": ["TOKEN", "TEAM"]}"#,
    );
    write(
        &project,
        r#"{"hooks": {"PreToolUse": [{"hooks": [
                {"type": "http", "url": "http://127.0.0.1:8700/ok/check",
                 "headers": {"A": "$TOKEN $HOME"}, "allowedEnvVars": ["TOKEN", "HOME"]},
                {"type": "http", "url": "http://10.0.0.1:8700/ok/check"},
                {"type": "command", "command": "true"},
                {"type": "http", "url": "http://127.0.0.1:1@evil.example/ok/x"}
            ]}]}}"#,
    );
    let files = [ConfigFile::detect(&user), ConfigFile::detect(&project)];
    let config = Config::load_files(&files, &dir.join("proj")).unwrap();
    let hooks = config.hooks();
    assert_eq!(hooks.len(), 4);
    assert!(
        hooks[3].disabled().is_some(),
        "user information never matches"
    );
    let allowed = hooks[0].http_target().unwrap();
    assert_eq!(hooks[0].disabled(), None);
    assert_eq!(
        allowed.allowed_env_vars(),
        ["TOKEN"],
        "HOME is not in httpHookAllowedEnvVars"
    );
    assert_eq!(allowed.headers()[0].1, "$TOKEN $HOME");
    assert_eq!(
        hooks[1].disabled(),
        Some("its URL is not in allowedHttpHookUrls")
    );
    assert_eq!(hooks[2].disabled(), None);
    let warnings: Vec<String> = config.warnings().iter().map(|w| w.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with(&project.display().to_string())
                && w.contains("PreToolUse handler 1 (hooks.PreToolUse[0].hooks[1])")
                && w.contains("\"http://10.0.0.1:8700/ok/check\" matches no pattern")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("PreToolUse handler 3")
            && w.contains("has user information, a backslash or a \".\" or \"..\" segment")),
        "{warnings:?}"
    );

    // An empty list, in any file, blocks every HTTP hook that no other
    // file's pattern allows.
    write(&user, r#"{"allowedHttpHookUrls": []}"#);
    let config = Config::load_files(&files, &dir.join("proj")).unwrap();
    assert!(config.hooks()[..2].iter().all(|h| h.disabled().is_some()));
    assert!(config.warnings().iter().any(|w| w
        .to_string()
        .contains("is an empty list, which blocks every HTTP hook")));
}

#[test]
fn named_files_must_exist_and_discovered_ones_may_not() {
    let dir = tmp("missing");
    let missing = [ConfigFile::new(dir.join("nope.json"), Format::Claude)];
    let err = Config::load_files(&missing, &dir).unwrap_err();
    assert!(err.is_not_found());
    let config = Discovery::new(&dir)
        .with_home(None)
        .format(Format::Claude)
        .format(Format::Agents)
        .load()
        .unwrap();
    assert!(config.is_empty());
}

#[test]
fn cursor_files_load_with_generic_hooks_first_in_each_group() {
    let dir = tmp("cursor");
    let shell_first = dir.join("a.json");
    write(
        &shell_first,
        r#"{"version": 1, "hooks": {"beforeShellExecution": [{"command": "a-shell"}]}}"#,
    );
    let generic = dir.join("b.json");
    write(
        &generic,
        r#"{"version": 1, "hooks": {"preToolUse": [{"command": "b-pre"}]}}"#,
    );
    let other = dir.join("c.json");
    write(
        &other,
        r#"{"version": 2, "hooks": {"stop": [{"command": "x"}]}}"#,
    );
    let files = [
        ConfigFile::detect(&shell_first),
        ConfigFile::detect(&generic),
        ConfigFile::detect(&other),
    ];
    let config = Config::load_files(&files, &dir).unwrap();
    let commands: Vec<&str> = config
        .hooks()
        .iter()
        .map(|h| h.command_line().unwrap())
        .collect();
    assert_eq!(commands, ["b-pre", "a-shell"]);
    assert!(config
        .hooks()
        .iter()
        .all(|h| h.dialect() == crate::Dialect::Cursor));
    let [warning] = config.warnings() else {
        panic!("{:?}", config.warnings())
    };
    assert_eq!(warning.path(), other);
    assert!(warning.to_string().contains("version"), "{warning}");
}

#[test]
fn an_app_name_must_name_a_folder_and_no_other_dialects_format() {
    assert_eq!(
        Format::app("Acme Corp").unwrap_err().to_string(),
        "app name \"Acme Corp\" cannot name a folder and variables: use lowercase ASCII \
         letters, digits and '_', starting with a letter (\"acme\")"
    );
    for taken in ["nanopi", "claude", "agents", "codex", "gemini"] {
        let err = Format::app(taken).unwrap_err();
        assert_eq!(err.name(), taken);
        assert_eq!(
            err.to_string(),
            format!(
                "app name {taken:?} is the name of another format: name the host something \
                 else (\"acme\")"
            )
        );
    }
    assert_eq!(Format::app("cursor").unwrap(), Format::Cursor);
    assert_eq!(Format::app("openhuman").unwrap(), Format::OpenHuman);
}

/// A load of named files, as `Config::load_files` makes it.
const EXPLICIT: Options = Options {
    must_exist: true,
    project_trusted: false,
};
