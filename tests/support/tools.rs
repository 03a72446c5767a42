//! Tools a test needs besides bash: a missing one fails the test, unless
//! the run asked to skip it. Shared with the `hooks` binary's tests.

/// The variable that lets a run skip the tests whose tool is missing: the
/// tools' names, separated by commas (`TOWER_HOOKS_SKIP_MISSING=python3`). CI
/// never sets it, so there a missing tool fails the tests that need it.
pub(crate) const SKIP_MISSING: &str = "TOWER_HOOKS_SKIP_MISSING";

/// Whether `tool` runs here (`tool --version` succeeds). When it does not, the
/// test fails with a message that names the tool and [`SKIP_MISSING`]; only
/// when that variable names the tool does it answer `false`, and the caller
/// returns (skipped, saying so): a green run never hides a test that did not
/// run unless someone asked for it.
pub(crate) fn needs_tool(tool: &str, test: &str) -> bool {
    let runs = std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if runs {
        return true;
    }
    let allowed = std::env::var(SKIP_MISSING).unwrap_or_default();
    if allowed.split(',').any(|t| t.trim() == tool) {
        eprintln!(
            "skipped {test}: it needs {tool}, which is not on PATH ({SKIP_MISSING}={allowed})"
        );
        return false;
    }
    panic!(
        "{test} needs {tool}, which is not on PATH: install {tool}, or set \
         {SKIP_MISSING}={tool} to skip the tests that need it"
    );
}
