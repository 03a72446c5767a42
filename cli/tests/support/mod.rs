//! What the `hooks` binary's tests share: a temporary HOME and project, and a
//! run of the binary in the project.

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use tempfile::TempDir;

#[path = "../../../tests/support/tools.rs"]
mod tools;
#[allow(unused_imports)] // each test file uses its own part
pub(crate) use self::tools::needs_tool;

/// A temporary HOME (`home/`) and project directory (`proj/`).
pub(crate) struct Sandbox {
    pub(crate) dir: TempDir,
    pub(crate) home: PathBuf,
    pub(crate) proj: PathBuf,
}

/// What a run of the binary left.
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// Stdout as JSON; a panic that shows both streams when it is not.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\nstderr: {}", self.stdout, self.stderr))
    }
}

impl Sandbox {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let proj = dir.path().join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        Sandbox { dir, home, proj }
    }

    /// Writes `text` at `rel` under the sandbox; scripts (`*.sh`) are made
    /// executable.
    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        if rel.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }

    /// Runs `hooks ARGS` in the project, with HOME the sandbox's and no stdin.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .args(args)
            .current_dir(&self.proj)
            .env("HOME", &self.home)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// A path as the `&str` an argument list wants.
pub(crate) fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}
