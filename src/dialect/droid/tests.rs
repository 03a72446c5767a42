use std::path::Path;

use crate::config::Format;
use crate::dialect::claude::config::Scope;

use super::loader::FAMILY;

#[test]
fn a_factory_folder_makes_a_droid_file() {
    for path in [
        "/p/.factory/hooks.json",
        "/p/.factory/settings.json",
        "/p/.factory/settings.local.json",
        "/p/.factory/hooks/hooks.json",
    ] {
        assert_eq!(Format::detect(Path::new(path)), Format::Droid, "{path}");
    }
    // A plugin's hooks file and Claude Code's settings stay Claude Code's.
    assert_eq!(
        Format::detect(Path::new("/x/plug/hooks/hooks.json")),
        Format::Claude
    );
    assert_eq!(
        Format::detect(Path::new("/p/.claude/settings.json")),
        Format::Claude
    );
    assert_eq!(
        Format::detect(Path::new("/p/factory/hooks.json")),
        Format::Claude
    );
}

#[test]
fn the_legacy_hooks_file_is_droids_own_and_a_plugins_is_a_plugins() {
    let home = Some(Path::new("/h"));
    let scope = |path: &str| FAMILY.scope_of(Path::new(path), home);
    assert_eq!(scope("/p/.factory/hooks/hooks.json"), Scope::Project);
    assert_eq!(scope("/h/.factory/hooks/hooks.json"), Scope::User);
    assert_eq!(scope("/h/.factory/settings.json"), Scope::User);
    assert_eq!(scope("/p/.factory/settings.local.json"), Scope::Local);
    assert_eq!(scope("/x/plug/hooks/hooks.json"), Scope::Plugin);
    assert_eq!(
        FAMILY.plugin_root_of(Path::new("/p/.factory/hooks/hooks.json")),
        None
    );
    assert_eq!(
        FAMILY
            .plugin_root_of(Path::new("/x/plug/hooks/hooks.json"))
            .as_deref(),
        Some(Path::new("/x/plug"))
    );
}

#[test]
fn droid_gives_a_hook_its_own_variables_and_claudes_plugin_alias() {
    let vars: Vec<_> = FAMILY.env_vars("/p", Some("/plug")).collect();
    assert_eq!(
        vars,
        [
            ("FACTORY_PROJECT_DIR", "/p"),
            ("DROID_PLUGIN_ROOT", "/plug"),
            ("CLAUDE_PLUGIN_ROOT", "/plug"),
        ]
    );
}
