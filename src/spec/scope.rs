//! [`Scope`]: how far a hook is trusted, from where its file is.

use std::fmt;
use std::path::Path;

/// How far a hook is trusted, decided by where its file is: the one rule of
/// trust that every dialect shares.
///
/// From least to most trusted: `project` (a file a repository can carry),
/// `local` (a project's untracked file, such as Claude Code's
/// `settings.local.json`), `user` (under the home folder, and the plugins and
/// extensions the user installed) and `managed` (a machine-wide file an
/// administrator installs). Scopes order by trust, so `a < b` reads "`a` is
/// trusted less than `b`".
///
/// A file never weakens a hook of higher trust: no disable switch, copy,
/// rewrite or session variable from a file of a lower scope turns off,
/// replaces, outruns or changes the input of a hook of a higher one. The
/// loaders decide each file's scope ([`Discovery`](crate::config::Discovery)
/// from where the file is; a [`ConfigFile`](crate::config::ConfigFile) may
/// name it), and the load applies the rule in one place for every dialect.
/// A hook made in code is [`Scope::User`] unless it says otherwise
/// ([`HookSpec::with_scope`](crate::HookSpec::with_scope)).
///
/// ```
/// use tower_hooks::Scope;
///
/// assert!(Scope::Project < Scope::Local);
/// assert!(Scope::Local < Scope::User);
/// assert!(Scope::User < Scope::Managed);
/// assert_eq!(Scope::from_name("managed"), Some(Scope::Managed));
/// assert_eq!(Scope::Local.to_string(), "local");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Scope {
    /// A file a repository can carry: the least trusted.
    Project,
    /// A project's own untracked file.
    Local,
    /// The user's files, and the plugins and extensions the user installed.
    #[default]
    User,
    /// A machine-wide file an administrator installs: the most trusted.
    Managed,
}

impl Scope {
    /// Every scope, from least to most trusted.
    pub const ALL: [Scope; 4] = [Scope::Project, Scope::Local, Scope::User, Scope::Managed];

    /// `project`, `local`, `user` or `managed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
            Scope::Managed => "managed",
        }
    }

    /// The scope named `name` ([`as_str`](Self::as_str)).
    pub fn from_name(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == name)
    }

    /// The scope of a file at `path` by where it is, for a loader that has no
    /// rule of its own: a machine-wide file (`system`) is `managed`; else the
    /// nearer of the project and the home folder that holds it decides
    /// (`project` or `user`: a project inside the home folder is the
    /// project, a home folder inside the project is the user's); a file in
    /// neither is the `user`'s (a plugin or a workspace the user named).
    pub(crate) fn by_place(
        path: &Path,
        system: bool,
        project: &Path,
        home: Option<&Path>,
    ) -> Scope {
        if system {
            return Scope::Managed;
        }
        let depth = |root: &Path| path.starts_with(root).then(|| root.components().count());
        match (depth(project), home.and_then(depth)) {
            (Some(p), Some(h)) if h > p => Scope::User,
            (Some(_), _) => Scope::Project,
            _ => Scope::User,
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearer_root_decides_a_files_place() {
        let (project, home) = (Path::new("/h/p"), Some(Path::new("/h")));
        let by = |path: &str| Scope::by_place(Path::new(path), false, project, home);
        assert_eq!(by("/h/p/.claude/settings.json"), Scope::Project);
        assert_eq!(by("/h/.claude/settings.json"), Scope::User);
        assert_eq!(by("/opt/plugin/hooks/hooks.json"), Scope::User);
        // A home folder inside the project (a test's layout) is the user's.
        let inner = Some(Path::new("/h/p/home"));
        let scope = Scope::by_place(Path::new("/h/p/home/.x"), false, project, inner);
        assert_eq!(scope, Scope::User);
        assert_eq!(
            Scope::by_place(Path::new("/h/p/x"), true, project, home),
            Scope::Managed
        );
    }
}
