//! Helpers shared by the integration tests (`#[path = "../support/mod.rs"] mod support;`).
//!
//! Each test binary uses a part of this module, hence the `dead_code` allowance.

#![allow(dead_code)]

// ---------------------------------------------------------------------------
// Process hygiene: what the hostile, cancellation and load suites measure.
// Linux only: everything here reads /proc.
// ---------------------------------------------------------------------------

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::Pid;
use tower_hooks::report::Notice;
use tower_hooks::{HookSpec, HookStack};

/// A stack of these hooks whose report lines are collected rather than printed.
pub(crate) fn collecting_stack(specs: Vec<HookSpec>) -> (HookStack, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stack = HookStack::builder()
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")))
        .command_hooks(specs)
        .build();
    (stack, lines)
}

/// Polls `done` every 10 ms until it holds or `limit` has passed; answers whether it held.
pub(crate) fn settle(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// How long a test that spawns hooks may run before it fails: generous, so a
/// busy machine never trips it; a bug that hangs (a lost answer, a timeout read
/// in the wrong unit) fails the test instead of stalling the suite.
pub(crate) const TEST_BOUND: Duration = Duration::from_secs(120);

/// Runs a test body, failing the test if it is not done within [`TEST_BOUND`]
/// of real time.
///
/// The bound is kept by a thread of its own on the wall clock, not by tokio's
/// timer: a test on paused time (`start_paused`) is bounded the same way, and
/// its clock is left alone. A body that blocks its runtime thread so that the
/// panic cannot even be raised aborts the test binary 30 s later, after
/// printing which test hung.
pub(crate) async fn bounded<F: std::future::Future>(body: F) -> F::Output {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    const ABORT_GRACE: Duration = Duration::from_secs(30);

    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    // Dropped when this function returns or unwinds: the watchdog then stops.
    let (done, finished) = channel::<()>();
    let (expired, expiry) = tokio::sync::oneshot::channel::<()>();
    let watched = test.clone();
    std::thread::Builder::new()
        .name(format!("bound of {test}"))
        .spawn(move || {
            if finished.recv_timeout(TEST_BOUND) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let _ = expired.send(());
            if finished.recv_timeout(ABORT_GRACE) == Err(RecvTimeoutError::Timeout) {
                eprintln!(
                    "{watched} is still running {}s after its bound of {}s and its runtime \
                     does not answer: aborting the test binary",
                    ABORT_GRACE.as_secs(),
                    TEST_BOUND.as_secs()
                );
                std::process::abort();
            }
        })
        .expect("a watchdog thread");
    tokio::pin!(body);
    let output = tokio::select! {
        biased;
        output = &mut body => output,
        Ok(()) = expiry => panic!(
            "{test} did not finish within {}s: a hook run or a wait in it hangs",
            TEST_BOUND.as_secs()
        ),
    };
    drop(done);
    output
}

mod tools;
#[allow(unused_imports)] // each test binary uses its own part
pub(crate) use self::tools::{needs_tool, SKIP_MISSING};

/// Whether python3 runs here: see [`needs_tool`].
pub(crate) fn has_python3(test: &str) -> bool {
    needs_tool("python3", test)
}

/// [`settle`] without blocking the runtime: polls `done` every 10 ms until it
/// holds or `limit` has passed; answers whether it held.
pub(crate) async fn settle_async(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A file that hooks append pids to (`echo $$ >> "$file"`), in its own temp dir.
pub(crate) struct PidFile {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl PidFile {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("pids");
        PidFile { dir, path }
    }

    /// The path, shell-quoted, to paste into a hook's command.
    pub(crate) fn quoted(&self) -> String {
        shell_quote(&self.path)
    }

    /// The temp dir, for the test's other files.
    pub(crate) fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Every pid written so far, in order.
    pub(crate) fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(&self.path)
            .unwrap_or_default()
            .split_whitespace()
            .map(|p| p.parse().expect("a pid"))
            .collect()
    }

    /// Waits (bounded) until at least `n` pids are written, and answers them.
    pub(crate) fn wait_for(&self, n: usize, limit: Duration) -> Vec<i32> {
        assert!(
            settle(limit, || self.pids().len() >= n),
            "the hook wrote {:?}, wanted {n} pids",
            self.pids()
        );
        self.pids()
    }
}

/// `'…'`-quotes a path for bash.
pub(crate) fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// The one-letter state of a process (`R`, `S`, `Z`, …) and its parent, or
/// `None` once it is gone.
pub(crate) fn proc_state(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: read after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Every process whose process group is `pgid`: `(pid, state, ppid)`.
pub(crate) fn group_members(pgid: i32) -> Vec<(i32, char, i32)> {
    let mut members = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return members;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        // state, ppid, pgrp
        if fields.len() > 2 && fields[2].parse() == Ok(pgid) {
            let state = fields[0].chars().next().unwrap_or('?');
            members.push((pid, state, fields[1].parse().unwrap_or(0)));
        }
    }
    members
}

/// Whether a signal to group `pgid` finds nobody (`kill(-pgid, 0)` fails with `ESRCH`).
pub(crate) fn group_is_empty(pgid: i32) -> bool {
    let pid = Pid::from_raw(pgid).expect("a positive pgid");
    rustix::process::test_kill_process_group(pid) == Err(Errno::SRCH)
}

/// Asserts that hook process group `pgid` is gone and that every process in
/// `pids` is gone or a zombie.
///
/// A killed grandchild is re-parented to init, which reaps it when it gets to
/// it (within about two seconds here); until then the zombie keeps the group
/// alive for `kill(-pgid, 0)`. So this waits (bounded) for `ESRCH`, and if init
/// is slower than that, accepts a group whose only members are zombies that are
/// not this process's children: nothing is running, and nothing is ours to reap.
pub(crate) fn assert_no_process_left(pgid: i32, pids: &[i32]) {
    let me = std::process::id() as i32;
    if !settle(Duration::from_secs(5), || group_is_empty(pgid)) {
        let members = group_members(pgid);
        for (pid, state, ppid) in &members {
            assert!(
                *state == 'Z' && *ppid != me,
                "process {pid} of hook group {pgid} is left behind (state {state}, parent {ppid}); \
                 group: {members:?}"
            );
        }
    }
    for &pid in pids {
        if let Some((state, ppid)) = proc_state(pid) {
            assert!(
                state == 'Z' && ppid != me,
                "process {pid} (hook group {pgid}) is left behind: state {state}, parent {ppid}"
            );
        }
    }
}

/// How many descriptors this process has open.
pub(crate) fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

/// The children of this process (live or zombie), over all its threads.
pub(crate) fn children() -> Vec<i32> {
    let mut pids = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return pids;
    };
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        pids.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// A `kB` field of /proc/self/status (`VmRSS`, `VmHWM`), in bytes.
pub(crate) fn vm_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| {
            let rest = line.strip_prefix(field)?.strip_prefix(':')?;
            rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()
        })
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
        * 1024
}

/// Bytes as MiB, for messages.
pub(crate) fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The peak resident memory of this process, watched from `start`: the peak
/// (`VmHWM`) is reset to the current size where the kernel allows it, else
/// measured from the peak so far.
pub(crate) struct PeakMemory {
    base: u64,
    reset: bool,
}

impl PeakMemory {
    pub(crate) fn start() -> Self {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        let rss = vm_bytes("VmRSS");
        let peak = vm_bytes("VmHWM");
        PeakMemory {
            base: if reset { rss } else { peak },
            reset,
        }
    }

    /// Asserts that the peak grew by less than `bound` bytes since `start`;
    /// `what` says what an unbounded growth would mean.
    pub(crate) fn assert_grew_less_than(&self, bound: u64, what: &str) {
        let peak = vm_bytes("VmHWM");
        assert!(
            peak < self.base + bound,
            "peak RSS {:.1} MiB, from {:.1} MiB (reset: {}){what}",
            mib(peak),
            mib(self.base),
            self.reset
        );
    }
}

// ---------------------------------------------------------------------------
// Files: what the dialect suites write into their projects.
// ---------------------------------------------------------------------------

/// Writes `text` at `path`, making its folders.
pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes an executable script at `path`.
pub(crate) fn script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    write(path, text);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
