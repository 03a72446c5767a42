//! `CLAUDE_ENV_FILE`: the file a Claude Code hook at `SessionStart`,
//! `CwdChanged` or `FileChanged` writes `export NAME=value` lines to, and
//! what the session keeps of them.
//!
//! Each run gets a file of its own, in a directory of its own (mode 0700,
//! the file 0600), made when its job is built and removed once the run is
//! over. After the hook ends its lines are read: the assignments become the
//! outcome's environment ([`Notes::env`]), for the agent's shell commands as
//! in Claude Code, and never reach the session's later hooks (a project's
//! hook must not set `PATH` for the administrator's guard); any other line
//! is left out with a warning in the hook's record.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::wire::{PLUGIN_ROOT_VAR, PROJECT_DIR_VAR};
use super::ClaudeEvent;
use crate::process::substitute::is_var_name;

/// The variable that names the file.
pub(crate) const ENV_FILE_VAR: &str = "CLAUDE_ENV_FILE";

/// The most of an env file that is read: 64 KiB.
const MAX_ENV_FILE: u64 = 64 * 1024;

/// Whether a hook at `event` gets an env file.
pub(crate) const fn takes_env_file(event: ClaudeEvent) -> bool {
    matches!(
        event,
        ClaudeEvent::SessionStart | ClaudeEvent::CwdChanged | ClaudeEvent::FileChanged
    )
}

/// A run's env file; dropping it removes the file and its directory.
#[derive(Debug)]
pub(crate) struct EnvFile {
    dir: PathBuf,
    file: PathBuf,
}

impl EnvFile {
    /// Makes an empty env file in a new private directory under the system's
    /// temporary directory.
    pub(crate) fn create() -> std::io::Result<EnvFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // A name that exists already (another process's) is never reused:
        // the directory is made new, or another name is tried.
        let mut tries = 0;
        let dir = loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!(
                "tower-hooks-env-{}-{n}-{stamp:x}",
                std::process::id()
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => break dir,
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && tries < 8 => {
                    tries += 1;
                }
                Err(err) => return Err(err),
            }
        };
        let file = dir.join("env");
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&file)
            .and_then(|mut f| f.flush());
        let env_file = EnvFile { dir, file };
        made.map(|()| env_file)
    }

    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        &self.file
    }

    /// What the hook wrote, read as [`parse`] reads it; nothing when the
    /// file is gone or unreadable.
    pub(crate) fn read(&self) -> Parsed {
        let mut text = Vec::new();
        let read = std::fs::File::open(&self.file)
            .and_then(|f| f.take(MAX_ENV_FILE).read_to_end(&mut text));
        match read {
            Ok(_) => parse(&String::from_utf8_lossy(&text)),
            Err(_) => Parsed::default(),
        }
    }
}

impl Drop for EnvFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The variables of an env file, and the lines that were left out.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// The assignments, in file order; a later one of a name replaces it.
    pub(crate) vars: Vec<(String, String)>,
    /// One warning per line left out.
    pub(crate) warnings: Vec<String>,
}

/// Reads env file lines: `export NAME=value` and `NAME=value`, with one
/// level of matching quotes (`'…'` or `"…"`) taken off the value and nothing
/// expanded. Blank lines and `#` comments are skipped; any other line, a
/// name that is not a shell name, and the variables the dialect sets itself
/// are left out with a warning.
pub(crate) fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let assignment = line
            .strip_prefix("export")
            .filter(|rest| rest.starts_with([' ', '\t']))
            .map_or(line, str::trim_start);
        let shown: String = line.chars().take(80).collect();
        let Some((name, value)) = assignment.split_once('=') else {
            parsed.warnings.push(format!(
                "CLAUDE_ENV_FILE line {}: {shown:?} is not NAME=value; ignored",
                number + 1
            ));
            continue;
        };
        if !is_var_name(name) {
            parsed.warnings.push(format!(
                "CLAUDE_ENV_FILE line {}: {name:?} is not a variable name; ignored",
                number + 1
            ));
            continue;
        }
        if [PROJECT_DIR_VAR, PLUGIN_ROOT_VAR, ENV_FILE_VAR].contains(&name) {
            parsed.warnings.push(format!(
                "CLAUDE_ENV_FILE line {}: {name} is set by the host; ignored",
                number + 1
            ));
            continue;
        }
        let value = unquote(value).replace('\0', "\u{fffd}");
        match parsed.vars.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value,
            None => parsed.vars.push((name.to_owned(), value)),
        }
    }
    parsed
}

/// `value` without one level of matching quotes around it.
fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_are_read_with_one_level_of_quotes_and_nothing_expanded() {
        let parsed = parse(
            "export NODE_ENV=production\n\
             PATH_EXTRA='/opt/x bin'\n\
             \n\
             # a comment\n\
             export GREETING=\"say \\\"hi\\\"\"\n\
             HOME_COPY=$HOME\n\
             NESTED=\"'kept'\"\n\
             export NODE_ENV=test\n",
        );
        assert_eq!(
            parsed.vars,
            [
                ("NODE_ENV".to_owned(), "test".to_owned()),
                ("PATH_EXTRA".to_owned(), "/opt/x bin".to_owned()),
                ("GREETING".to_owned(), "say \\\"hi\\\"".to_owned()),
                ("HOME_COPY".to_owned(), "$HOME".to_owned()),
                ("NESTED".to_owned(), "'kept'".to_owned()),
            ]
        );
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    }

    #[test]
    fn other_lines_are_left_out_with_a_warning() {
        let parsed = parse(
            "source ~/.nvm/nvm.sh\n\
             export 1BAD=x\n\
             export CLAUDE_PROJECT_DIR=/elsewhere\n\
             OK=1\n",
        );
        assert_eq!(parsed.vars, [("OK".to_owned(), "1".to_owned())]);
        assert_eq!(parsed.warnings.len(), 3, "{:?}", parsed.warnings);
        assert!(parsed.warnings[0].starts_with("CLAUDE_ENV_FILE line 1: "));
        assert!(parsed.warnings[1].contains("\"1BAD\" is not a variable name"));
        assert!(parsed.warnings[2].contains("CLAUDE_PROJECT_DIR is set by the host"));
    }

    #[test]
    fn an_env_file_is_private_and_removed_with_its_directory() {
        use std::os::unix::fs::PermissionsExt;
        let file = EnvFile::create().unwrap();
        let path = file.path().to_path_buf();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        std::fs::write(&path, "A=1\n").unwrap();
        assert_eq!(file.read().vars, [("A".to_owned(), "1".to_owned())]);
        drop(file);
        assert!(!path.parent().unwrap().exists());
    }
}
