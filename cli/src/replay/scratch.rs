//! Where a replay's hooks run: a new scratch directory, removed afterwards,
//! that stands in for everything a hook could otherwise reach of the real
//! project (DIALECTS.md "Replay never touches the real project").
//!
//! ```text
//! hooks-replay-XXXXXX/
//!   project/            the project directory: every hook's working directory,
//!                       every event's `cwd`, CLAUDE_PROJECT_DIR and the other
//!                       dialects' project variables. Empty, or a copy of
//!                       --project-copy DIR.
//!   transcripts/N/F     a copy of the session file being replayed: its
//!                       `transcript_path`.
//!   config/N/.cursor/   a copy of a Cursor `hooks.json` (Cursor runs a hook
//!                       in its file's folder or the project root).
//! ```

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use tempfile::TempDir;
use tower_hooks::config::read::{open_regular, FileError};

use crate::render::escape;
use crate::Failure;

/// The scratch directory of one replay.
#[derive(Debug)]
pub(crate) struct Scratch {
    dir: TempDir,
    project: PathBuf,
    next: AtomicU64,
}

impl Scratch {
    /// A new scratch directory in `parent` (the system's temporary directory
    /// by default), its project directory empty or a copy of `copy`.
    pub(crate) fn new(parent: Option<&Path>, copy: Option<&Path>) -> Result<Self, Failure> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("hooks-replay-");
        let dir = match parent {
            Some(parent) => builder.tempdir_in(parent).map_err(|e| {
                Failure::Usage(format!(
                    "cannot make a scratch directory in {} (--workdir): {e}",
                    parent.display()
                ))
            })?,
            None => builder.tempdir().map_err(|e| {
                Failure::Other(format!("cannot make a scratch working directory: {e}"))
            })?,
        };
        // Absolute and without links, so that every path handed to a hook
        // names the scratch directory itself.
        let root = std::fs::canonicalize(dir.path()).map_err(|e| {
            Failure::Other(format!(
                "cannot read the scratch directory {}: {e}",
                dir.path().display()
            ))
        })?;
        let project = root.join("project");
        std::fs::create_dir(&project)
            .map_err(|e| Failure::Other(format!("cannot make {}: {e}", project.display())))?;
        if let Some(from) = copy {
            copy_project(from, &project, &root)?;
        }
        Ok(Scratch {
            dir,
            project,
            next: AtomicU64::new(0),
        })
    }

    /// The project directory hooks are given.
    pub(crate) fn project(&self) -> &Path {
        &self.project
    }

    /// A new empty directory of the scratch directory, under `kind`.
    pub(crate) fn new_dir(&self, kind: &str) -> io::Result<PathBuf> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let dir = self.root().join(kind).join(n.to_string());
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    }

    fn root(&self) -> &Path {
        self.project.parent().unwrap_or(self.dir.path())
    }

    /// Copies the session file at `session` into the scratch directory: the
    /// `transcript_path` its hooks get. The directory it is in goes with
    /// [`remove_copy`].
    pub(crate) fn copy_session(&self, session: &Path) -> Result<PathBuf, FileError> {
        let dir = self.new_dir("transcripts").map_err(FileError::Io)?;
        let name = session
            .file_name()
            .map_or_else(|| "session.jsonl".into(), ToOwned::to_owned);
        let to = dir.join(name);
        copy_regular(session, &to)?;
        Ok(to)
    }
}

/// Removes the directory a [`Scratch::copy_session`] copy is in.
pub(crate) fn remove_copy(copy: &Path) {
    if let Some(dir) = copy.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Copies the regular file at `from` to `to` (its permissions too), reading
/// it by the rules of the configuration reader: a FIFO or a device is
/// refused, never opened for a blocking read.
fn copy_regular(from: &Path, to: &Path) -> Result<(), FileError> {
    let mut source = open_regular(from)?;
    let mode = source.metadata().map_err(FileError::Io)?.permissions();
    let mut target = std::fs::File::create(to).map_err(FileError::Io)?;
    io::copy(&mut source, &mut target).map_err(FileError::Io)?;
    target.set_permissions(mode).map_err(FileError::Io)?;
    Ok(())
}

/// `--project-copy DIR`: copies `from` into `to`, leaving out what a copy
/// could not hold without reaching outside it (a link out of `from`), or
/// without hanging (a FIFO, a socket, a device): each is named in a warning.
fn copy_project(from: &Path, to: &Path, scratch: &Path) -> Result<(), Failure> {
    let meta = std::fs::metadata(from).map_err(|e| {
        Failure::Usage(format!(
            "cannot read {} (--project-copy): {e}; name the project directory to copy",
            from.display()
        ))
    })?;
    if !meta.is_dir() {
        return Err(Failure::Usage(format!(
            "{} is not a directory (--project-copy names the project directory to copy)",
            from.display()
        )));
    }
    let from = std::fs::canonicalize(from).map_err(|e| {
        Failure::Usage(format!(
            "cannot read {} (--project-copy): {e}",
            from.display()
        ))
    })?;
    let mut left_out = Vec::new();
    copy_dir(&from, &from, to, scratch, &mut left_out).map_err(|(path, e)| {
        Failure::Other(format!(
            "cannot copy {} into the scratch directory (--project-copy): {e}",
            path.display()
        ))
    })?;
    if !left_out.is_empty() {
        let shown: Vec<String> = left_out
            .iter()
            .take(5)
            .map(|(path, why)| format!("{} ({why})", path.display()))
            .collect();
        eprintln!(
            "hooks: warning: --project-copy: {} entr{} not copied: {}{}",
            left_out.len(),
            if left_out.len() == 1 { "y" } else { "ies" },
            escape(&shown.join(", ")),
            if left_out.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        );
    }
    Ok(())
}

type CopyError = (PathBuf, io::Error);

fn copy_dir(
    root: &Path,
    from: &Path,
    to: &Path,
    scratch: &Path,
    left_out: &mut Vec<(PathBuf, &'static str)>,
) -> Result<(), CopyError> {
    let at = |e: io::Error| (from.to_path_buf(), e);
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .map_err(at)?
        .collect::<Result<_, _>>()
        .map_err(at)?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| (path.clone(), e))?;
        if kind.is_dir() {
            // A scratch directory made inside the project (--workdir .) is
            // not copied into itself.
            if path == scratch {
                continue;
            }
            std::fs::create_dir(&target).map_err(|e| (target.clone(), e))?;
            copy_dir(root, &path, &target, scratch, left_out)?;
        } else if kind.is_file() {
            copy_regular(&path, &target).map_err(|e| match e {
                FileError::Io(e) => (path.clone(), e),
                other => (path.clone(), io::Error::other(other.to_string())),
            })?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(&path).map_err(|e| (path.clone(), e))?;
            if stays_inside(root, from, &link) {
                std::os::unix::fs::symlink(&link, &target).map_err(|e| (target.clone(), e))?;
            } else {
                left_out.push((path, "a link out of the project"));
            }
        } else {
            left_out.push((path, "not a regular file, a directory or a link"));
        }
    }
    Ok(())
}

/// Whether the link `link`, found in the directory `dir` of `root`, names a
/// path inside `root`, read as written: a relative link that never climbs
/// above `root`.
fn stays_inside(root: &Path, dir: &Path, link: &Path) -> bool {
    if link.is_absolute() {
        return false;
    }
    let Ok(base) = dir.strip_prefix(root) else {
        return false;
    };
    let mut depth = base.components().count();
    for component in link.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_stays_inside_only_when_it_never_climbs_out() {
        let root = Path::new("/p");
        assert!(stays_inside(root, Path::new("/p/a"), Path::new("../b")));
        assert!(stays_inside(root, Path::new("/p"), Path::new("./b/c")));
        assert!(!stays_inside(root, Path::new("/p"), Path::new("../b")));
        assert!(!stays_inside(
            root,
            Path::new("/p/a"),
            Path::new("../../p/b")
        ));
        assert!(!stays_inside(root, Path::new("/p/a"), Path::new("/p/b")));
    }
}
