//! Persistent hooks (`HookSpec::with_persistent`) through the whole stack, with
//! real processes: one long-lived process per hook, one JSON line per event on
//! its stdin, one JSON line per answer on its stdout, in any order (see
//! `tower_hooks::process::persistent`).
//!
//! The hooks are small python3 and bash scripts written into a temp dir; they
//! log what they receive into that dir, where the tests read it back. Without
//! python3 the tests of Python hooks fail, naming it, unless
//! `TOWER_HOOKS_SKIP_MISSING=python3` skips them. Each
//! test bounds its calls generously: a time bound only catches a hang.
//!
//! Most tests share the process; the ones that measure it (memory, open
//! descriptors, children) take [`EXCLUSIVE`] for writing, so that nothing else
//! runs while they measure.

#[path = "../support/mod.rs"]
mod support;

use std::collections::BTreeSet;
use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::config::{Config, ConfigFile};
use tower_hooks::dialect::nanopi::stdin_line;
use tower_hooks::{
    BlockCause, Decision, Dialect, Event, HookOutcome, HookRequest, HookSpec, HookStack,
    RecordOutcome,
};

use support::{
    assert_no_process_left, children, collecting_stack, mib, shell_quote, vm_bytes, PeakMemory,
};

/// The longest any single call may take (beyond what the test itself waits
/// for) before it counts as a hang.
const BOUND: Duration = Duration::from_secs(30);

/// What a time bound adds to a hook's timeout.
const SLACK: Duration = Duration::from_secs(5);

/// Read: the test shares the process. Write: the test measures the process
/// (memory, descriptors, children) and runs alone.
static EXCLUSIVE: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// The real python3 (not a version manager's shim, which costs ~150 ms a start),
/// or `None` on a machine without one.
fn find_python() -> Option<&'static str> {
    static PYTHON: OnceLock<Option<String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let out = std::process::Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .ok()
                .filter(|out| out.status.success())?;
            let path = String::from_utf8(out.stdout).ok()?.trim().to_owned();
            (!path.is_empty()).then_some(path)
        })
        .as_deref()
}

/// The real python3; only called by tests that began with `needs_python!()`.
fn python() -> &'static str {
    find_python().expect("checked by needs_python!")
}

/// The tests whose hooks are Python scripts need python3 (the rest of the
/// suite needs only bash): without it such a test fails, naming python3 and
/// the variable that skips it (`support::needs_tool`), which CI never sets.
macro_rules! needs_python {
    () => {
        if find_python().is_none() && !support::has_python3("this test") {
            return;
        }
    };
}

fn write_executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A hook script in a temp dir of its own; its command passes it that dir,
/// where it logs.
struct Hook {
    dir: tempfile::TempDir,
    command: String,
}

impl Hook {
    fn python(body: &str) -> Hook {
        Hook::new("hook.py", &format!("#!{}\n{body}", python()))
    }

    fn bash(body: &str) -> Hook {
        Hook::new("hook.sh", &format!("#!/usr/bin/env bash\n{body}"))
    }

    fn new(name: &str, text: &str) -> Hook {
        let dir = tempfile::tempdir().expect("a temp dir");
        let command = Hook::script_in(dir.path(), name, text);
        Hook { dir, command }
    }

    /// Writes another script into the same dir; answers its command.
    fn add_python(&self, name: &str, body: &str) -> String {
        Hook::script_in(self.dir.path(), name, &format!("#!{}\n{body}", python()))
    }

    fn script_in(dir: &Path, name: &str, text: &str) -> String {
        let path = dir.join(name);
        write_executable(&path, text);
        format!("{} {}", shell_quote(&path), shell_quote(dir))
    }

    /// This hook as a persistent `tool_execution_start` hook.
    fn spec(&self, timeout: Duration) -> HookSpec {
        HookSpec::command(Event::ToolExecutionStart, self.command.clone())
            .with_persistent(true)
            .with_timeout(timeout)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The lines of a log file (none when it does not exist yet).
    fn lines(&self, name: &str) -> Vec<String> {
        std::fs::read_to_string(self.path(name))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn json_lines(&self, name: &str) -> Vec<Value> {
        self.lines(name)
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {l:?}: {e}")))
            .collect()
    }

    /// One entry per process start: `{"pid", "pgid", "protocol", "nanopi", …}`.
    fn starts(&self) -> Vec<Value> {
        self.json_lines("starts")
    }

    /// `(pid, pgid)` of every start of a bash hook (its `pids` file).
    fn bash_starts(&self) -> Vec<(i32, i32)> {
        self.lines("pids")
            .iter()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                let pid = it.next()?.parse().ok()?;
                let pgid = it.next()?.parse().ok()?;
                Some((pid, pgid))
            })
            .collect()
    }
}

fn pid_of(start: &Value) -> (i32, i32) {
    let n = |k: &str| {
        start[k]
            .as_i64()
            .unwrap_or_else(|| panic!("{k} in {start}")) as i32
    };
    (n("pid"), n("pgid"))
}

/// The general-purpose persistent hook: logs its start and every request, and
/// answers as the request's arguments say (`exit`, `stdout`, `stderr` are
/// copied into the answer); the command `hang` is never answered, `die` exits
/// mid-request, `flood` writes `mib` MiB without a newline, `close_stdout`
/// closes its stdout and stays, `stderr_mib` writes that many MiB to its own
/// stderr without a newline first, `sleep` waits before answering, and
/// `then_exit` exits right after answering.
const ECHO: &str = r#"
import json, os, sys, time

LOG = sys.argv[1]

def append(name, text):
    with open(os.path.join(LOG, name), "a") as f:
        f.write(text + "\n")

append("starts", json.dumps({
    "pid": os.getpid(),
    "pgid": os.getpgid(0),
    "protocol": os.environ.get("HOOK_PROTOCOL"),
    "nanopi": sorted(k for k in os.environ if k.startswith("NANOPI_")),
    "project_dir": os.environ.get("CLAUDE_PROJECT_DIR"),
}))

for raw in sys.stdin.buffer:
    append("requests", raw.decode().rstrip("\n"))
    req = json.loads(raw)
    rid = req["id"]
    args = req["input"].get("arguments") or req["input"].get("tool_input") or {}
    cmd = args.get("command", "")
    append("served", "%d %d" % (os.getpid(), rid))
    if cmd == "hang":
        continue
    if cmd == "die":
        os._exit(3)
    if cmd == "flood":
        sys.stdout.flush()
        chunk = b"x" * 65536
        for _ in range(args["mib"] * 16):
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
        time.sleep(60)
        continue
    if cmd == "close_stdout":
        sys.stdout.flush()
        os.close(1)
        time.sleep(60)
        continue
    if "stderr_mib" in args:
        sys.stderr.buffer.write(b"e" * (args["stderr_mib"] << 20))
        sys.stderr.flush()
    if "sleep" in args:
        time.sleep(args["sleep"])
    answer = {"id": rid}
    for key in ("exit", "stdout", "stderr"):
        if key in args:
            answer[key] = args[key]
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    if args.get("then_exit"):
        os._exit(0)
    if args.get("then_close_stdout"):
        os.close(1)
        time.sleep(60)
"#;

/// The one-shot counterpart of [`ECHO`]: keeps its stdin and its protocol
/// variables, then prints and exits as the arguments say.
const ONESHOT: &str = r#"
import json, os, sys

LOG = sys.argv[1]
data = sys.stdin.buffer.read()
with open(os.path.join(LOG, "oneshot-stdin"), "wb") as f:
    f.write(data)
with open(os.path.join(LOG, "oneshot-env"), "w") as f:
    json.dump({k: v for k, v in os.environ.items()
               if k.startswith("NANOPI_") or k == "HOOK_PROTOCOL"}, f)
args = json.loads(data).get("arguments") or {}
sys.stdout.write(args.get("stdout", ""))
sys.stderr.write(args.get("stderr", ""))
sys.stdout.flush()
sys.stderr.flush()
sys.exit(args.get("exit", 0))
"#;

/// Records `$$` and its process group in `pids` (bash).
const BASH_START: &str = r#"
dir=$1
read -r -a stat < /proc/$$/stat
echo "$$ ${stat[4]}" >> "$dir/pids"
"#;

/// A guard in bash, which answers one request after another: it refuses any
/// command with `rm -rf` (exit 2), allows the rest, and logs `<pid> <id>
/// <command>` in `served` for each request it reads. `die` exits without
/// answering; `die-when-another-waits` does so once the next request is on its
/// stdin; `hang` never answers; `flood` writes 3 MB without a newline.
const GUARD: &str = r#"
while IFS= read -r line; do
  id=${line#'{"id":'}
  id=${id%%,*}
  cmd=${line#*'"command":"'}
  cmd=${cmd%%'"'*}
  echo "$$ $id $cmd" >> "$dir/served"
  case $cmd in
    die) exit 3 ;;
    die-when-another-waits)
      until read -r -t 0; do sleep 0.01; done
      exit 3 ;;
    hang) sleep 1000 ;;
    flood) head -c 3000000 /dev/zero | tr '\0' x; sleep 1000 ;;
    *"rm -rf"*) printf '{"id":%s,"exit":2,"stderr":"guard: no %s"}\n' "$id" "$cmd" ;;
    *) printf '{"id":%s}\n' "$id" ;;
  esac
done
"#;

/// The lines of `served` ([`GUARD`]'s log) as `(pid, command)`.
fn served_by(hook: &Hook) -> Vec<(i32, String)> {
    hook.lines("served")
        .iter()
        .map(|l| {
            let mut it = l.splitn(3, ' ');
            let pid = it.next().unwrap().parse().unwrap();
            let _id = it.next();
            (pid, it.next().unwrap_or_default().to_owned())
        })
        .collect()
}

/// A `tool_execution_start` call of the `bash` tool with these arguments.
fn bash_call(arguments: Value) -> HookRequest {
    HookRequest::tool_execution_start("bash", arguments).with_cwd("/w")
}

fn cmd(command: &str) -> HookRequest {
    bash_call(json!({ "command": command }))
}

/// Calls the stack (a clone), bounded by [`BOUND`].
fn call(stack: &HookStack, req: HookRequest) -> impl Future<Output = HookOutcome> + Send + 'static {
    let stack = stack.clone();
    async move {
        tokio::time::timeout(BOUND, stack.oneshot(req))
            .await
            .unwrap_or_else(|_| panic!("the call did not return within {BOUND:?}"))
            .unwrap()
    }
}

use support::settle_async as wait_until;

/// What a call decided, and what the one hook's record says.
#[derive(Debug, PartialEq)]
struct Summary {
    decision: Decision,
    reason: Option<String>,
    arguments: Value,
    record: RecordOutcome,
    cause: Option<BlockCause>,
    exit: Option<i32>,
    stderr: Option<String>,
}

fn summary(o: &HookOutcome) -> Summary {
    let record = &o.hooks()[0];
    Summary {
        decision: o.decision(),
        reason: o.reason().map(str::to_owned),
        arguments: o.arguments().clone(),
        record: record.outcome(),
        cause: record.block_cause(),
        exit: record.run().and_then(|r| r.exit_code()),
        stderr: record.run().and_then(|r| r.stderr()).map(str::to_owned),
    }
}

fn assert_timed_out(o: &HookOutcome, timeout: Duration) {
    let reason = format!("hook timed out after {} ms", timeout.as_millis());
    assert_eq!(o.decision(), Decision::Block, "{o:?}");
    assert_eq!(o.reason(), Some(reason.as_str()), "{o:?}");
    assert_eq!(o.hooks()[0].outcome(), RecordOutcome::Timeout, "{o:?}");
    assert_eq!(o.hooks()[0].block_cause(), Some(BlockCause::Timeout));
}

/// A fail-open failure: allowed, recorded as an error.
fn assert_failed_open(o: &HookOutcome) {
    assert_eq!(o.decision(), Decision::Allow, "{o:?}");
    assert!(!o.is_blocked());
    assert_eq!(o.hooks()[0].outcome(), RecordOutcome::Error, "{o:?}");
}

const ERRORED: &str = "nanopi: hook errored; failing open (allow) [tool=bash matcher=* error=";

// --- 1. the round trip --------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_decode_as_a_one_shot_run_would_and_one_process_serves_every_event() {
    support::bounded(async {
    needs_python!();
    let _shared = EXCLUSIVE.read().await;
    let hook = Hook::python(ECHO);
    let oneshot = hook.add_python("oneshot.py", ONESHOT);
    let timeout = Duration::from_secs(10);
    let (persistent, p_lines) = collecting_stack(vec![hook.spec(timeout)]);
    let (one_shot, o_lines) =
        collecting_stack(vec![
            HookSpec::command(Event::ToolExecutionStart, oneshot).with_timeout(timeout)
        ]);

    let transform = r#"{"updated_input":{"command":"ls -la"}}"#;
    let cases: Vec<(Value, Decision, Option<&str>)> = vec![
        (json!({"command": "ls"}), Decision::Allow, None),
        (
            json!({"command": "rm -rf /", "exit": 2, "stderr": "no rm here\n"}),
            Decision::Block,
            Some("no rm here"),
        ),
        (
            json!({"command": "x", "exit": 2, "stdout": "{\"decision\":\"allow\"}"}),
            Decision::Block,
            Some("blocked by hook"),
        ),
        (
            json!({"command": "x", "stdout": "checking\u{2026}\n{\"decision\":\"block\",\"reason\":\"json says no\"}\n\n"}),
            Decision::Block,
            Some("json says no"),
        ),
        (
            json!({"command": "ls", "stdout": transform}),
            Decision::Transform,
            None,
        ),
        (
            json!({"command": "x", "exit": 1, "stderr": "oops"}),
            Decision::Allow,
            None,
        ),
        (
            json!({"command": "x", "exit": 3, "stdout": "{\"decision\":\"block\",\"reason\":\"late\"}"}),
            Decision::Block,
            Some("late"),
        ),
        (
            json!({"command": "x", "stdout": "{\"decision\":\"block\"}\nnot json at the end\n"}),
            Decision::Allow,
            None,
        ),
    ];
    for (args, decision, reason) in cases {
        let req = bash_call(args.clone())
            .with_session_id("s-1")
            .with_tool_call_id("call-1");
        let p = call(&persistent, req.clone()).await;
        let o = call(&one_shot, req.clone()).await;
        assert_eq!(
            summary(&p),
            summary(&o),
            "persistent vs one-shot for {args}"
        );
        assert_eq!(p.decision(), decision, "{args}: {p:?}");
        assert_eq!(p.reason(), reason, "{args}: {p:?}");
        if decision == Decision::Transform {
            assert_eq!(p.arguments()["command"], "ls -la", "{p:?}");
        }

        // The `input` the process read is the one-shot stdin, byte for byte.
        let expected = stdin_line(&req, "/w");
        let one_shot_stdin = std::fs::read(hook.path("oneshot-stdin")).unwrap();
        assert_eq!(one_shot_stdin, expected, "the one-shot hook's stdin");
        let raw = hook.lines("requests").pop().expect("a request line");
        let expected_text = std::str::from_utf8(expected.trim_ascii()).unwrap();
        assert!(
            raw.contains(&format!("\"input\":{expected_text}")),
            "{raw} does not carry {expected_text} verbatim"
        );
        let line: Value = serde_json::from_str(&raw).unwrap();
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["env", "id", "input"], "{raw}");
        assert!(line["id"].is_u64(), "{raw}");
        assert_eq!(
            line["input"],
            serde_json::from_slice::<Value>(&expected).unwrap()
        );
        // `env` holds the per-event variables a one-shot run gets.
        let one_shot_env: Value =
            serde_json::from_str(&std::fs::read_to_string(hook.path("oneshot-env")).unwrap())
                .unwrap();
        assert_eq!(line["env"], one_shot_env);
        assert_eq!(
            line["env"],
            json!({
                "NANOPI_EVENT": "ToolExecutionStart",
                "NANOPI_CWD": "/w",
                "NANOPI_SESSION_ID": "s-1",
                "NANOPI_TOOL_NAME": "bash",
                "NANOPI_TOOL_CALL_ID": "call-1",
            })
        );
    }

    // One process serves many events.
    for i in 0..20 {
        let o = call(&persistent, cmd(&format!("ls {i}"))).await;
        assert_eq!(o.decision(), Decision::Allow, "{o:?}");
    }
    let starts = hook.starts();
    assert_eq!(starts.len(), 1, "one process for every event: {starts:?}");
    let (pid, pgid) = pid_of(&starts[0]);
    let served = hook.lines("served");
    assert_eq!(served.len(), 28);
    let mut last_id = 0;
    for line in &served {
        let (p, id) = line.split_once(' ').unwrap();
        assert_eq!(p.parse::<i32>().unwrap(), pid, "{served:?}");
        let id: u64 = id.parse().unwrap();
        assert!(id > last_id, "ids are unique and increasing: {served:?}");
        last_id = id;
    }
    // Its environment: the protocol's name, none of the per-event variables
    // (which the one-shot run does get, and without the protocol's name).
    assert_eq!(starts[0]["protocol"], "lines/1");
    assert_eq!(starts[0]["nanopi"], json!([]));
    let one_shot_env: Value =
        serde_json::from_str(&std::fs::read_to_string(hook.path("oneshot-env")).unwrap()).unwrap();
    assert!(
        one_shot_env.get("HOOK_PROTOCOL").is_none(),
        "{one_shot_env}"
    );
    assert!(one_shot_env.get("NANOPI_EVENT").is_some(), "{one_shot_env}");

    assert!(p_lines.lock().unwrap().is_empty(), "{:?}", p_lines.lock());
    assert!(o_lines.lock().unwrap().is_empty(), "{:?}", o_lines.lock());

    tokio::time::timeout(SLACK, persistent.shutdown(Duration::from_secs(1)))
        .await
        .expect("shutdown returns");
    assert_no_process_left(pgid, &[pid]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_written_just_before_the_process_exits_still_counts() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        // The process writes its answer and exits at once: the answer races the
        // exit. Many rounds, so that a lost answer shows. A fresh stack each
        // round: crashes would otherwise add up to the disable rule.
        for round in 0..60 {
            let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(10))]);
            let req = bash_call(json!({
                "command": "x", "exit": 2, "stderr": "answered", "then_exit": true
            }));
            let o = call(&stack, req).await;
            assert_eq!(
                (o.decision(), o.reason()),
                (Decision::Block, Some("answered")),
                "round {round}: the answer was written before the exit; {o:?}; report {:?}",
                lines.lock().unwrap()
            );
        }
    })
    .await;
}

// --- 2. out of order -------------------------------------------------------------

/// Holds requests until it has two, then answers them last first.
const SWAP: &str = r#"
import json, os, sys

LOG = sys.argv[1]

def append(name, text):
    with open(os.path.join(LOG, name), "a") as f:
        f.write(text + "\n")

append("starts", json.dumps({"pid": os.getpid(), "pgid": os.getpgid(0)}))
held = []
for raw in sys.stdin.buffer:
    req = json.loads(raw)
    held.append(req)
    append("received", str(req["id"]))
    if len(held) == 2:
        for r in reversed(held):
            append("answered", str(r["id"]))
            cmd = r["input"]["arguments"]["command"]
            sys.stdout.write(json.dumps({"id": r["id"], "exit": 2, "stderr": "answer to " + cmd}) + "\n")
            sys.stdout.flush()
        held = []
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_in_any_order_reach_their_own_requests() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(SWAP);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(10))]);
        for (a, b) in [("first", "second"), ("third", "fourth")] {
            let (x, y) = tokio::join!(call(&stack, cmd(a)), call(&stack, cmd(b)));
            assert_eq!(x.reason(), Some(format!("answer to {a}").as_str()), "{x:?}");
            assert_eq!(y.reason(), Some(format!("answer to {b}").as_str()), "{y:?}");
        }
        let received = hook.lines("received");
        let answered = hook.lines("answered");
        assert_eq!(received.len(), 4);
        for pair in 0..2 {
            let got = &received[pair * 2..pair * 2 + 2];
            let sent = &answered[pair * 2..pair * 2 + 2];
            assert_eq!(
                sent,
                [got[1].clone(), got[0].clone()],
                "answered last first"
            );
        }
        assert_eq!(hook.starts().len(), 1);
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

/// Each round, reads as many requests as the file `perm-<round>` names
/// positions, logs their ids in `received-<round>` as they came, then answers
/// them in that file's order (positions in arrival order), logging each id
/// in `answered-<round>`.
const PERMUTE: &str = r#"
round=0
while read -r -a perm < "$dir/perm-$round"; do
  ids=()
  cmds=()
  while (( ${#ids[@]} < ${#perm[@]} )); do
    IFS= read -r line || exit 0
    id=${line#'{"id":'}
    id=${id%%,*}
    cmd=${line#*'"command":"'}
    cmd=${cmd%%'"'*}
    ids+=("$id")
    cmds+=("$cmd")
    echo "$id" >> "$dir/received-$round"
  done
  for i in "${perm[@]}"; do
    echo "${ids[i]}" >> "$dir/answered-$round"
    printf '{"id":%s,"exit":2,"stderr":"answer to %s"}\n' "${ids[i]}" "${cmds[i]}"
  done
  round=$((round + 1))
done
"#;

/// A permutation of `0..n`, drawn from `seed` (xorshift64, Fisher–Yates):
/// the same every run.
fn permutation(n: usize, seed: &mut u64) -> Vec<usize> {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        perm.swap(i, j);
    }
    perm
}

/// Twelve requests in flight, answered in a random order, each round another:
/// every answer reaches its own request (an exact reversal alone would not
/// catch answers routed to the newest request, or the oldest).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_in_a_random_order_reach_their_own_requests() {
    support::bounded(async {
        const ROUNDS: usize = 8;
        const IN_FLIGHT: usize = 12;
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::bash(&format!("{BASH_START}{PERMUTE}"));
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        let perms: Vec<Vec<usize>> = (0..ROUNDS)
            .map(|_| permutation(IN_FLIGHT, &mut seed))
            .collect();
        for (round, perm) in perms.iter().enumerate() {
            let identity: Vec<usize> = (0..IN_FLIGHT).collect();
            let reversed: Vec<usize> = (0..IN_FLIGHT).rev().collect();
            assert!(*perm != identity && *perm != reversed, "{perm:?}");
            let text: Vec<String> = perm.iter().map(usize::to_string).collect();
            std::fs::write(hook.path(&format!("perm-{round}")), text.join(" ") + "\n").unwrap();
        }
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(20))]);
        for (round, perm) in perms.iter().enumerate() {
            let calls: Vec<_> = (0..IN_FLIGHT)
                .map(|i| {
                    let command = format!("r{round}-c{i}");
                    let call = tokio::spawn(call(&stack, cmd(&command)));
                    (command, call)
                })
                .collect();
            for (command, call) in calls {
                let o = call.await.unwrap();
                assert_eq!(
                    o.reason(),
                    Some(format!("answer to {command}").as_str()),
                    "round {round}: {o:?}"
                );
            }
            // It answered in the drawn order.
            let received = hook.lines(&format!("received-{round}"));
            let answered = hook.lines(&format!("answered-{round}"));
            let want: Vec<&String> = perm.iter().map(|&i| &received[i]).collect();
            assert_eq!(answered.iter().collect::<Vec<_>>(), want, "round {round}");
        }
        assert_eq!(hook.bash_starts().len(), 1, "one process answered them all");
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

// --- 3. garbage ------------------------------------------------------------------

/// Before each real answer, every kind of line that is not one.
const GARBAGE: &str = r#"
import json, os, sys

LOG = sys.argv[1]
with open(os.path.join(LOG, "starts"), "a") as f:
    f.write(json.dumps({"pid": os.getpid(), "pgid": os.getpgid(0)}) + "\n")
out = sys.stdout.buffer
for raw in sys.stdin.buffer:
    rid = json.loads(raw)["id"]
    lines = [
        b"this is not json",
        b"",
        b"   ",
        b"[1, 2, 3]",
        b"null",
        b'"a string"',
        b'{"exit": 2, "stderr": "no id"}',
        b'{"id": null, "exit": 2, "stderr": "a null id"}',
        ('{"id": "%d", "exit": 2, "stderr": "a string id"}' % rid).encode(),
        ('{"id": %d.0, "exit": 2, "stderr": "a float id"}' % rid).encode(),
        ('{"id": %d, "exit": 2, "stderr": "a negative id"}' % -rid).encode(),
        b'{"id": 18446744073709551616, "exit": 2, "stderr": "an id past u64"}',
        ('{"id": %d, "exit": 2, "stderr": "an unknown id"}' % (rid + 1000)).encode(),
        ('{"id": %d, "exit": "2", "stderr": "a string exit"}' % rid).encode(),
        ('{"id": %d, "exit": 2.5, "stderr": "a float exit"}' % rid).encode(),
        ('{"id": %d, "exit": 4294967298, "stderr": "an exit past i32"}' % rid).encode(),
        ('{"id": %d, "exit": 2, "stderr": 5}' % rid).encode(),
        ('{"id": %d, "exit": 2, "stdout": ["x"]}' % rid).encode(),
        ('{"id": %d, "exit": 2, "stderr": "cut short"' % rid).encode(),
        b"\xff\xfe" + ('{"id": %d, "exit": 2, "stderr": "after bad utf-8"}' % rid).encode(),
        b"y" * (512 * 1024),
        ('{"id": %d, "exit": 2, "stderr": "the real answer"}' % rid).encode(),
        ('{"id": %d, "exit": 0}' % rid).encode(),
    ]
    out.write(b"\n".join(lines) + b"\n")
    out.flush()
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_that_are_no_answer_are_ignored() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(GARBAGE);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(10))]);
        for i in 0..3 {
            let o = call(&stack, cmd(&format!("ls {i}"))).await;
            assert_eq!(o.decision(), Decision::Block, "{o:?}");
            assert_eq!(o.reason(), Some("the real answer"), "{o:?}");
            assert_eq!(o.hooks()[0].outcome(), RecordOutcome::Block);
        }
        assert_eq!(hook.starts().len(), 1, "garbage does not end the process");
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_larger_than_a_pipe_arrive_whole_and_one_at_a_time() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(20))]);
        let big = |c: char| {
            bash_call(json!({
                "command": format!("big {c}"),
                "payload": c.to_string().repeat(2 << 20),
                "exit": 2,
                "stderr": format!("got {c}"),
            }))
        };
        let (a, b, c) = tokio::join!(
            call(&stack, big('a')),
            call(&stack, big('b')),
            call(&stack, big('c'))
        );
        for (o, c) in [(a, 'a'), (b, 'b'), (c, 'c')] {
            assert_eq!(
                o.reason(),
                Some(format!("got {c}").as_str()),
                "{:?}",
                o.reason()
            );
        }
        let requests = hook.json_lines("requests");
        assert_eq!(requests.len(), 3);
        for line in requests {
            let command = line["input"]["arguments"]["command"]
                .as_str()
                .unwrap()
                .to_owned();
            let c = command.chars().last().unwrap();
            assert_eq!(
                line["input"],
                serde_json::from_slice::<Value>(&stdin_line(&big(c), "/w")).unwrap()
            );
        }
        assert_eq!(hook.starts().len(), 1);
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_variable_is_exact_even_when_the_stack_sets_one() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let stack = HookStack::builder()
            .report(())
            .env("HOOK_PROTOCOL", "not-this")
            .env("MINE", "1")
            .command_hook(hook.spec(Duration::from_secs(10)))
            .build();
        assert_eq!(call(&stack, cmd("ls")).await.decision(), Decision::Allow);
        let (pid, _) = pid_of(&hook.starts()[0]);
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let entries: Vec<String> = environ
            .split(|b| *b == 0)
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect();
        let protocol: Vec<&String> = entries
            .iter()
            .filter(|e| e.starts_with("HOOK_PROTOCOL="))
            .collect();
        assert_eq!(
            protocol,
            ["HOOK_PROTOCOL=lines/1"],
            "its environment holds {protocol:?}"
        );
        assert!(entries.iter().any(|e| e == "MINE=1"), "{entries:?}");
        assert!(
            !entries.iter().any(|e| e.starts_with("NANOPI_")),
            "{entries:?}"
        );
    })
    .await;
}

// --- 4. timeouts -----------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_request_times_out_and_the_next_event_gets_a_new_process() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let timeout = Duration::from_millis(1000);
        let (stack, lines) = collecting_stack(vec![hook.spec(timeout)]);

        assert_eq!(call(&stack, cmd("ok")).await.decision(), Decision::Allow);
        let (pid, pgid) = pid_of(&hook.starts()[0]);

        let started = Instant::now();
        let o = call(&stack, cmd("hang")).await;
        let elapsed = started.elapsed();
        assert_timed_out(&o, timeout);
        assert!(
            elapsed >= timeout - Duration::from_millis(50) && elapsed < timeout + SLACK,
            "{elapsed:?}"
        );
        assert_no_process_left(pgid, &[pid]);

        let o = call(
            &stack,
            bash_call(json!({"command": "again", "exit": 2, "stderr": "a new process"})),
        )
        .await;
        assert_eq!(o.reason(), Some("a new process"), "{o:?}");
        let starts = hook.starts();
        assert_eq!(starts.len(), 2, "{starts:?}");
        let (new_pid, new_pgid) = pid_of(&starts[1]);
        assert_ne!(new_pid, pid);
        let last = hook.lines("served").pop().unwrap();
        assert!(last.starts_with(&format!("{new_pid} ")), "{last}");
        // A timeout is a block, not a report line.
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());

        drop(stack);
        assert_no_process_left(new_pgid, &[new_pid]);
    })
    .await;
}

/// Another request's timeout kills the process: a request in flight on it
/// goes again on a fresh process, and the guard answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_sends_the_other_requests_in_flight_to_a_fresh_process() {
    support::bounded(async {
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::bash(&format!("{BASH_START}{GUARD}"));
        let timeout = Duration::from_millis(3000);
        let (stack, lines) = collecting_stack(vec![hook.spec(timeout)]);

        let hang = tokio::spawn(call(&stack, cmd("hang")));
        assert!(
            wait_until(BOUND, || hook.lines("served").len() == 1).await,
            "the hook never read the first request"
        );
        // The second request's deadline is later than the first's: it waits in
        // the process's stdin while the first hangs, and has time left when the
        // first times out.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let rm = call(&stack, cmd("rm -rf /")).await;
        let hang = hang.await.unwrap();
        assert_timed_out(&hang, timeout);
        assert_eq!(rm.decision(), Decision::Block, "{rm:?}");
        assert_eq!(rm.reason(), Some("guard: no rm -rf /"), "{rm:?}");
        assert_eq!(rm.hooks()[0].outcome(), RecordOutcome::Block, "{rm:?}");
        let starts = hook.bash_starts();
        assert_eq!(starts.len(), 2, "{starts:?}");
        let served = served_by(&hook);
        assert_eq!(
            served,
            [
                (starts[0].0, "hang".to_owned()),
                (starts[1].0, "rm -rf /".to_owned())
            ],
            "the second process answered it"
        );
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
        assert_no_process_left(starts[0].1, &[starts[0].0]);
        drop(stack);
        assert_no_process_left(starts[1].1, &[starts[1].0]);
    })
    .await;
}

// --- 5. crashes ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_dies_mid_request_fails_open_and_the_next_event_restarts_it() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(10))]);

        let o = call(&stack, cmd("die")).await;
        assert_failed_open(&o);
        {
            let lines = lines.lock().unwrap();
            assert_eq!(lines.len(), 1, "{lines:?}");
            assert!(lines[0].starts_with(ERRORED), "{lines:?}");
        }
        let (pid, pgid) = pid_of(&hook.starts()[0]);
        assert_no_process_left(pgid, &[pid]);

        let started = Instant::now();
        let o = call(
            &stack,
            bash_call(json!({"command": "x", "exit": 2, "stderr": "back again"})),
        )
        .await;
        assert!(started.elapsed() < SLACK, "{:?}", started.elapsed());
        assert_eq!(o.reason(), Some("back again"), "{o:?}");
        let starts = hook.starts();
        assert_eq!(starts.len(), 2, "{starts:?}");
        assert_ne!(pid_of(&starts[1]).0, pid);
        assert_eq!(lines.lock().unwrap().len(), 1, "{:?}", lines.lock());

        // Fail-closed: the same crash blocks, without a report line.
        let hook = Hook::python(ECHO);
        let (stack, lines) = collecting_stack(vec![hook
            .spec(Duration::from_secs(10))
            .with_fail_closed(true)]);
        let o = call(&stack, cmd("die")).await;
        assert_eq!(o.decision(), Decision::Block, "{o:?}");
        assert_eq!(o.hooks()[0].outcome(), RecordOutcome::FailedClosed, "{o:?}");
        assert_eq!(o.hooks()[0].block_cause(), Some(BlockCause::FailedClosed));
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_closes_its_stdout_is_a_crash_not_a_timeout() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let timeout = Duration::from_secs(20);
        let (stack, lines) = collecting_stack(vec![hook.spec(timeout)]);
        let started = Instant::now();
        let o = call(&stack, cmd("close_stdout")).await;
        assert_failed_open(&o);
        assert!(started.elapsed() < timeout, "{:?}", started.elapsed());
        assert_eq!(lines.lock().unwrap().len(), 1, "{:?}", lines.lock());
        let (pid, pgid) = pid_of(&hook.starts()[0]);
        assert_no_process_left(pgid, &[pid]);
        assert_answers_from_process(&stack, &hook, 2).await;
    })
    .await;
}

/// The process closes its stdout between two events, after it answered the
/// first, and stays: it is ended for that (a crash) before any event goes to
/// it, and the next event is answered by a fresh process; no event fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_closes_its_stdout_between_events_is_restarted_for_the_next() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(20))]);
        let first = bash_call(json!({
            "command": "x", "exit": 2, "stderr": "first", "then_close_stdout": true
        }));
        let o = call(&stack, first).await;
        assert_eq!(o.reason(), Some("first"), "{o:?}");
        // Ended while no event is in flight: nothing else would end it for a
        // minute.
        let (pid, pgid) = pid_of(&hook.starts()[0]);
        assert_no_process_left(pgid, &[pid]);
        assert_answers_from_process(&stack, &hook, 2).await;
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

/// A call whose request the hook has read, and whose caller then keeps its
/// future without polling it (as a `select!` loop does with a branch it is not
/// waiting on), holds up no other call: the other's answer comes at once, not
/// at its timeout. (A design where the waiting call reads the pipe itself
/// failed this: the unpolled call held the turn to read.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_left_unpolled_holds_up_no_other_call() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let timeout = Duration::from_secs(20);
        let (stack, lines) = collecting_stack(vec![hook.spec(timeout)]);
        // Warm: the process runs.
        assert_answers_from_process(&stack, &hook, 1).await;
        let mut left = Box::pin(call(&stack, cmd("hang")));
        let polled = tokio::time::timeout(BOUND, async {
            tokio::select! {
                _ = &mut left => panic!("the hanging request was answered"),
                true = wait_until(BOUND, || hook.lines("served").len() == 2) => {}
            }
        });
        polled
            .await
            .expect("the hook never read the hanging request");
        // `left` is alive and not polled from here on.
        let started = Instant::now();
        let o = call(
            &stack,
            bash_call(json!({"command": "y", "exit": 2, "stderr": "not held up"})),
        )
        .await;
        assert_eq!(o.reason(), Some("not held up"), "{o:?}");
        assert!(started.elapsed() < timeout / 2, "{:?}", started.elapsed());
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
        drop(left);
    })
    .await;
}

/// The hook answers again, from its `n`th process.
async fn assert_answers_from_process(stack: &HookStack, hook: &Hook, n: usize) {
    let o = call(
        stack,
        bash_call(json!({"command": "x", "exit": 2, "stderr": "restarted"})),
    )
    .await;
    assert_eq!(o.reason(), Some("restarted"), "{o:?}");
    assert_eq!(hook.starts().len(), n);
}

/// The process dies while it answers one request: that request fails (its
/// own failure), and a request that was waiting on the process's stdin goes
/// again on a fresh process, where the guard refuses it. (Before, it failed
/// open with the other: `rm -rf /` was allowed.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_sends_the_other_requests_in_flight_to_a_fresh_process() {
    support::bounded(async {
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::bash(&format!("{BASH_START}{GUARD}"));
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(10))]);

        let dies = tokio::spawn(call(&stack, cmd("die-when-another-waits")));
        assert!(
            wait_until(BOUND, || hook.lines("served").len() == 1).await,
            "the hook never read the first request"
        );
        let rm = call(&stack, cmd("rm -rf /")).await;
        let dies = dies.await.unwrap();
        assert_failed_open(&dies);
        assert_eq!(rm.decision(), Decision::Block, "{rm:?}");
        assert_eq!(rm.reason(), Some("guard: no rm -rf /"), "{rm:?}");
        let starts = hook.bash_starts();
        assert_eq!(starts.len(), 2, "{starts:?}");
        assert_eq!(
            served_by(&hook),
            [
                (starts[0].0, "die-when-another-waits".to_owned()),
                (starts[1].0, "rm -rf /".to_owned())
            ]
        );
        // One report line: the request that crashed it.
        let lines = lines.lock().unwrap().clone();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with(ERRORED), "{lines:?}");
        assert!(lines[0].contains("ended before it answered"), "{lines:?}");
        assert_no_process_left(starts[0].1, &[starts[0].0]);
        drop(stack);
        assert_no_process_left(starts[1].1, &[starts[1].0]);
    })
    .await;
}

// --- 6. bounded memory -----------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_without_a_newline_ends_the_process_and_memory_stays_bounded() {
    support::bounded(async {
        needs_python!();
        let _exclusive = EXCLUSIVE.write().await;
        let hook = Hook::python(ECHO);
        let timeout = Duration::from_secs(20);
        let (stack, lines) = collecting_stack(vec![hook.spec(timeout)]);
        assert_eq!(call(&stack, cmd("ok")).await.decision(), Decision::Allow);
        let (pid, pgid) = pid_of(&hook.starts()[0]);

        let memory = PeakMemory::start();
        let o = call(&stack, bash_call(json!({"command": "flood", "mib": 256}))).await;
        // Ended for its line, not at its timeout: an error, failing open.
        assert_failed_open(&o);
        {
            let lines = lines.lock().unwrap();
            assert_eq!(lines.len(), 1, "{lines:?}");
            assert!(lines[0].starts_with(ERRORED), "{lines:?}");
        }
        memory.assert_grew_less_than(64 << 20, "");
        assert_no_process_left(pgid, &[pid]);
        assert_answers_from_process(&stack, &hook, 2).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_on_the_hooks_own_stderr_keeps_memory_bounded() {
    support::bounded(async {
        needs_python!();
        let _exclusive = EXCLUSIVE.write().await;
        let hook = Hook::python(ECHO);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(30))]);
        assert_eq!(call(&stack, cmd("ok")).await.decision(), Decision::Allow);

        let memory = PeakMemory::start();
        // 128 MiB on its stderr, without a newline, then an answer.
        let o = call(
            &stack,
            bash_call(json!({
                "command": "x", "stderr_mib": 128, "exit": 2, "stderr": "after the flood"
            })),
        )
        .await;
        memory.assert_grew_less_than(
            64 << 20,
            ": what the hook writes on its stderr is kept without bound",
        );
        assert_eq!(o.reason(), Some("after the flood"), "{o:?}");
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

/// A process ended for an answer line too long says so, with the limit; the
/// next event gets a fresh process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_line_too_long_is_named_with_its_limit() {
    support::bounded(async {
    let _shared = EXCLUSIVE.read().await;
    let hook = Hook::bash(&format!("{BASH_START}{GUARD}"));
    let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(20))]);
    let o = call(&stack, cmd("flood")).await;
    assert_failed_open(&o);
    let want = format!(
        "{ERRORED}the persistent hook wrote an answer line longer than 1048576 bytes (the limit) and was ended]"
    );
    assert_eq!(*lines.lock().unwrap(), [want]);
    let o = call(&stack, cmd("rm -rf /tmp/x")).await;
    assert_eq!(o.reason(), Some("guard: no rm -rf /tmp/x"), "{o:?}");
    let starts = hook.bash_starts();
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert_no_process_left(starts[0].1, &[starts[0].0]);
    })
    .await;
}

// --- 7. shutdown -----------------------------------------------------------------

/// Ignores SIGTERM and the end of its stdin; has a child that ignores SIGTERM.
const STUBBORN: &str = r#"
trap '' TERM
sleep 1000 &
echo "$! 0" >> "$dir/pids"
while true; do
  if IFS= read -r line; then
    id=${line#'{"id":'}
    id=${id%%,*}
    printf '{"id":%s}\n' "$id"
  else
    sleep 0.05
  fi
done
"#;

/// Exits at the end of its stdin, leaving a child that ignores SIGTERM.
const LINGERING_CHILD: &str = r#"
trap '' TERM
sleep 1000 &
echo "$! 0" >> "$dir/pids"
while IFS= read -r line; do
  id=${line#'{"id":'}
  id=${id%%,*}
  printf '{"id":%s}\n' "$id"
done
exit 0
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_a_hook_that_ignores_the_end_of_stdin_and_sigterm() {
    support::bounded(async {
        let _shared = EXCLUSIVE.read().await;
        for (name, body) in [("stubborn", STUBBORN), ("lingering child", LINGERING_CHILD)] {
            let hook = Hook::bash(&format!("{BASH_START}{body}"));
            let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(10))]);
            assert_eq!(call(&stack, cmd("ls")).await.decision(), Decision::Allow);
            let starts = hook.bash_starts();
            let (leader, pgid) = starts[0];
            let child = starts[1].0;

            let started = Instant::now();
            tokio::time::timeout(
                Duration::from_secs(6),
                stack.shutdown(Duration::from_secs(1)),
            )
            .await
            .unwrap_or_else(|_| panic!("{name}: shutdown did not return within 6 s"));
            let elapsed = started.elapsed();
            assert_no_process_left(pgid, &[leader, child]);
            assert!(elapsed < Duration::from_secs(6), "{name}: {elapsed:?}");

            // The next event starts it again; dropping the stack ends that one.
            assert_eq!(call(&stack, cmd("ls")).await.decision(), Decision::Allow);
            let starts = hook.bash_starts();
            assert_eq!(starts.len(), 4, "{name}: {starts:?}");
            let (leader, pgid) = starts[2];
            let child = starts[3].0;
            assert!(
                lines.lock().unwrap().is_empty(),
                "{name}: {:?}",
                lines.lock()
            );
            drop(stack);
            assert_no_process_left(pgid, &[leader, child]);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_persistent_ends_the_process_and_a_request_in_flight_fails() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(20))]);
        let pending = tokio::spawn(call(&stack, cmd("hang")));
        assert!(wait_until(BOUND, || hook.lines("served").len() == 1).await);
        let (pid, pgid) = pid_of(&hook.starts()[0]);
        tokio::time::timeout(SLACK, stack.shutdown_persistent())
            .await
            .expect("shutdown_persistent returns");
        assert_no_process_left(pgid, &[pid]);
        let o = tokio::time::timeout(SLACK, pending)
            .await
            .expect("the request in flight ends with its process")
            .unwrap();
        assert_failed_open(&o);
        assert_eq!(lines.lock().unwrap().len(), 1, "{:?}", lines.lock());
    })
    .await;
}

// --- 8. a crash loop ---------------------------------------------------------------

/// Reads one request and exits without answering.
const CRASHER: &str = r#"
IFS= read -r line
exit 0
"#;

/// After five crashes within a minute each event gets a process of its own,
/// sent that one request: the guard still refuses `rm -rf /` (before, the
/// hook was disabled and every event allowed), and the switch is told once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_keeps_crashing_still_guards_with_a_process_per_event() {
    support::bounded(async {
    let _shared = EXCLUSIVE.read().await;
    let hook = Hook::bash(&format!("{BASH_START}{GUARD}"));
    let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(10))]);
    for _ in 0..8 {
        let o = call(&stack, cmd("die")).await;
        assert_failed_open(&o);
    }
    for round in 0..3 {
        let o = call(&stack, cmd("rm -rf /")).await;
        assert_eq!(o.decision(), Decision::Block, "round {round}: {o:?}");
        assert_eq!(o.reason(), Some("guard: no rm -rf /"), "{o:?}");
        let o = call(&stack, cmd("ls")).await;
        assert_eq!(o.decision(), Decision::Allow, "round {round}: {o:?}");
        assert_eq!(o.hooks()[0].outcome(), RecordOutcome::Allow, "{o:?}");
    }
    // A process for each of those events, each sent one request.
    let starts = hook.bash_starts();
    assert_eq!(starts.len(), 14, "{starts:?}");
    let served = served_by(&hook);
    assert_eq!(served.len(), 14, "{served:?}");
    for (n, (pid, _)) in served.iter().enumerate() {
        assert_eq!(
            *pid, starts[n].0,
            "request {n} on a process of its own: {served:?}"
        );
    }
    let lines = lines.lock().unwrap().clone();
    let want = format!(
        "nanopi: persistent hook keeps crashing; each event starts it anew from now on [command={} why=it crashed 5 times within 60 s]",
        hook.command
    );
    let told: Vec<&String> = lines.iter().filter(|l| !l.starts_with(ERRORED)).collect();
    assert_eq!(told, [&want], "{lines:?}");
    assert_eq!(
        lines.iter().position(|l| *l == want),
        Some(5),
        "told at the sixth event, after five crashes: {lines:?}"
    );
    assert_eq!(lines.len(), 9, "one line for each `die`: {lines:?}");
    for (pid, pgid) in starts {
        assert_no_process_left(pgid, &[pid]);
    }
    tokio::time::timeout(SLACK, stack.shutdown(Duration::from_secs(1)))
        .await
        .expect("shutdown returns");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_looping_hook_fails_open_even_when_its_backoff_outlasts_its_timeout() {
    support::bounded(async {
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::bash(&format!("{BASH_START}{CRASHER}"));
        // Backoffs of 100, 200, 400 and 800 ms: the last two are longer than this.
        let timeout = Duration::from_millis(300);
        let (stack, _lines) = collecting_stack(vec![hook.spec(timeout)]);
        let mut outcomes = Vec::new();
        for _ in 0..6 {
            outcomes.push(summary(&call(&stack, cmd("ls")).await));
        }
        // A crashed hook's event fails as one that could not run (allow, here);
        // the wait before a restart is not the hook running past its timeout.
        for (i, o) in outcomes.iter().enumerate() {
            assert_eq!(o.record, RecordOutcome::Error, "call {i}: {outcomes:#?}");
        }
    })
    .await;
}

// --- 9. backpressure -------------------------------------------------------------

/// Holds every request until the file `release` appears, then answers all.
/// Logs each id it reads, and the most it held unanswered at once.
const HOLD: &str = r#"
import json, os, select, sys

LOG = sys.argv[1]
release = os.path.join(LOG, "release")
buf = b""
held = []
most = 0
released = False
while True:
    ready, _, _ = select.select([0], [], [], 0.02)
    if ready:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            rid = json.loads(line)["id"]
            held.append(rid)
            most = max(most, len(held))
            with open(os.path.join(LOG, "seen"), "a") as f:
                f.write("%d\n" % rid)
            with open(os.path.join(LOG, "most"), "w") as f:
                f.write("%d\n" % most)
    if not released and os.path.exists(release):
        released = True
    if released and held:
        sys.stdout.write("".join(json.dumps({"id": rid}) + "\n" for rid in held))
        sys.stdout.flush()
        held = []
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_requests_in_flight_make_the_seventeenth_wait() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(HOLD);
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(60))]);
        let calls: Vec<_> = (0..17)
            .map(|i| tokio::spawn(call(&stack, cmd(&format!("c{i}")))))
            .collect();
        assert!(
            wait_until(BOUND, || hook.lines("seen").len() >= 16).await,
            "the hook saw {:?}",
            hook.lines("seen")
        );
        // Time for a seventeenth to arrive, if it could.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let seen = hook.lines("seen");
        assert_eq!(seen.len(), 16, "at most 16 in flight: {seen:?}");
        let done = calls.iter().filter(|c| c.is_finished()).count();
        assert_eq!(done, 0, "nothing is answered yet");

        std::fs::write(hook.path("release"), "").unwrap();
        for c in calls {
            let o = tokio::time::timeout(BOUND, c)
                .await
                .expect("released calls finish")
                .unwrap();
            assert_eq!(o.decision(), Decision::Allow, "{o:?}");
            assert_eq!(o.hooks()[0].outcome(), RecordOutcome::Allow, "{o:?}");
        }
        let seen = hook.lines("seen");
        assert_eq!(seen.len(), 17, "{seen:?}");
        assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), 17, "{seen:?}");
        assert_eq!(hook.lines("most"), ["16"], "the most unanswered at once");
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

// --- 10. load --------------------------------------------------------------------

/// Answers by the command `c<n>`: a block for n % 3 == 0, a transform for
/// n % 3 == 1, an allow otherwise.
const LOAD: &str = r#"
import json, os, sys

LOG = sys.argv[1]
with open(os.path.join(LOG, "starts"), "a") as f:
    f.write(json.dumps({"pid": os.getpid(), "pgid": os.getpgid(0)}) + "\n")
out = sys.stdout
for raw in sys.stdin.buffer:
    req = json.loads(raw)
    cmd = req["input"]["arguments"]["command"]
    n = int(cmd[1:])
    if n % 3 == 0:
        answer = {"id": req["id"], "exit": 2, "stderr": cmd}
    elif n % 3 == 1:
        answer = {"id": req["id"], "stdout": json.dumps({"updated_input": {"command": cmd + "!"}})}
    else:
        answer = {"id": req["id"]}
    out.write(json.dumps(answer) + "\n")
    out.flush()
"#;

/// Whether `o` is what [`LOAD`] answers for event `n`.
fn load_answer_is_right(n: usize, o: &HookOutcome) -> bool {
    let command = format!("c{n}");
    match n % 3 {
        0 => o.decision() == Decision::Block && o.reason() == Some(command.as_str()),
        1 => {
            o.decision() == Decision::Transform
                && o.arguments()["command"] == format!("{command}!").as_str()
        }
        _ => o.decision() == Decision::Allow && o.arguments()["command"] == command.as_str(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_events_64_at_once_through_one_process_leave_nothing_behind() {
    support::bounded(async {
        needs_python!();
        const EVENTS: usize = 10_000;
        const IN_FLIGHT: usize = 64;
        let _exclusive = EXCLUSIVE.write().await;
        let hook = Hook::python(LOAD);
        let children_before = children();
        let fds_before = hook_fds();
        let (stack, lines) = collecting_stack(vec![hook.spec(Duration::from_secs(30))]);
        assert!(load_answer_is_right(2, &call(&stack, cmd("c2")).await));
        let rss_before = vm_bytes("VmRSS");

        let started = Instant::now();
        let mut workers = tokio::task::JoinSet::new();
        for w in 0..IN_FLIGHT {
            let stack = stack.clone();
            workers.spawn(async move {
                let mut wrong = Vec::new();
                let mut done = 0;
                for n in (w..EVENTS).step_by(IN_FLIGHT) {
                    let o = call(&stack, cmd(&format!("c{n}"))).await;
                    if !load_answer_is_right(n, &o) {
                        wrong.push(format!("c{n}: {o:?}"));
                    }
                    done += 1;
                }
                (done, wrong)
            });
        }
        let (done, wrong) = tokio::time::timeout(Duration::from_secs(120), async {
            let mut done = 0;
            let mut wrong = Vec::new();
            while let Some(worker) = workers.join_next().await {
                let (d, w) = worker.unwrap();
                done += d;
                wrong.extend(w);
            }
            (done, wrong)
        })
        .await
        .expect("10,000 events finish within 120 s");
        let elapsed = started.elapsed();
        eprintln!("{EVENTS} events, {IN_FLIGHT} at once: {elapsed:?}");
        assert_eq!(done, EVENTS);
        assert!(
            wrong.is_empty(),
            "{} wrong answers, e.g. {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(3)]
        );
        let starts = hook.starts();
        assert_eq!(starts.len(), 1, "one process served them all: {starts:?}");
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
        let rss_after = vm_bytes("VmRSS");
        assert!(
            rss_after < rss_before + (64 << 20),
            "RSS grew from {:.1} MiB to {:.1} MiB",
            mib(rss_before),
            mib(rss_after)
        );

        let (pid, pgid) = pid_of(&starts[0]);
        tokio::time::timeout(SLACK, stack.shutdown(Duration::from_secs(1)))
            .await
            .expect("shutdown returns");
        drop(stack);
        assert_no_process_left(pgid, &[pid]);
        let no_new_children = wait_until(SLACK, || {
            children()
                .iter()
                .all(|child| children_before.contains(child))
        })
        .await;
        assert!(
            no_new_children,
            "children left: {:?} (before: {children_before:?})",
            children()
        );
        let fds_back = wait_until(SLACK, || hook_fds() <= fds_before).await;
        assert!(
            fds_back,
            "{} pipes and pidfds open, {fds_before} before: {:?}",
            hook_fds(),
            fd_targets()
        );
    })
    .await;
}

/// What this process's descriptors point to.
fn fd_targets() -> Vec<String> {
    std::fs::read_dir("/proc/self/fd")
        .map(|dir| {
            dir.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                .map(|target| target.display().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The descriptors a hook's run holds (its pipes, the pidfd that watches it),
/// which a leak would leave open. The other tests' runtimes, started while
/// they wait for the lock this test holds, open descriptors of other kinds.
fn hook_fds() -> usize {
    fd_targets()
        .iter()
        .filter(|t| t.starts_with("pipe:") || t.contains("pidfd"))
        .count()
}

// --- 11. dialects ----------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_handler_gets_the_envelope_and_its_pretty_printed_answer_denies() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let hook = Hook::python(ECHO);
        let project = hook.dir.path().join("project");
        let settings = project.join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        let one_shot_stdin = hook.path("claude-oneshot-stdin");
        let one_shot = format!("cat > {}", shell_quote(&one_shot_stdin));
        std::fs::write(
            &settings,
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": hook.command, "persistent": true, "timeout": 10},
                {"type": "command", "command": one_shot, "timeout": 10},
            ]}]}})
            .to_string(),
        )
        .unwrap();
        let config = Config::load_files(&[ConfigFile::detect(&settings)], &project).unwrap();
        let specs = config.into_hooks();
        assert_eq!(specs.len(), 2, "{specs:?}");
        assert_eq!(specs[0].dialect(), Dialect::Claude);
        assert!(specs[0].is_persistent());
        assert!(!specs[1].is_persistent());
        let (stack, lines) = collecting_stack(specs);

        let deny = serde_json::to_string_pretty(&json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "rm -rf is not allowed here"
            }
        }))
        .unwrap()
            + "\n";
        assert!(deny.lines().count() > 3, "pretty-printed: {deny}");
        let project_text = project.to_str().unwrap();
        let req = HookRequest::tool_execution_start(
            "Bash",
            json!({"command": "rm -rf build", "stdout": deny}),
        )
        .with_cwd(project_text)
        .with_session_id("sess-1")
        .with_tool_call_id("toolu_1");
        let o = call(&stack, req).await;
        assert!(o.is_blocked(), "{o:?}");
        assert_eq!(o.reason(), Some("rm -rf is not allowed here"), "{o:?}");

        let line = hook.json_lines("requests").pop().expect("a request line");
        assert_eq!(
            line["env"],
            json!({}),
            "a Claude Code hook has no per-event variables"
        );
        let envelope: Value =
            serde_json::from_slice(&std::fs::read(&one_shot_stdin).unwrap()).unwrap();
        assert_eq!(line["input"], envelope, "the one-shot handler's stdin");
        assert_eq!(line["input"]["hook_event_name"], "PreToolUse");
        assert_eq!(line["input"]["tool_name"], "Bash");
        assert_eq!(line["input"]["tool_input"]["command"], "rm -rf build");
        assert_eq!(line["input"]["tool_use_id"], "toolu_1");
        assert_eq!(line["input"]["session_id"], "sess-1");
        assert!(line["input"].get("event").is_none() && line["input"].get("arguments").is_none());

        let starts = hook.starts();
        assert_eq!(starts[0]["protocol"], "lines/1");
        assert_eq!(starts[0]["project_dir"], project_text);
        assert_eq!(starts[0]["nanopi"], json!([]));

        let allowed = HookRequest::tool_execution_start("Bash", json!({"command": "ls"}))
            .with_cwd(project_text);
        let o = call(&stack, allowed).await;
        assert!(!o.is_blocked(), "{o:?}");
        assert_eq!(hook.starts().len(), 1, "the same process");

        // Its crash is the dialect's failure: an error record, never nanopi's line.
        let dies = HookRequest::tool_execution_start("Bash", json!({"command": "die"}))
            .with_cwd(project_text);
        let o = call(&stack, dies).await;
        assert!(!o.is_blocked(), "{o:?}");
        let record = o
            .hooks()
            .iter()
            .find(|r| r.spec().is_persistent())
            .expect("the persistent handler's record");
        assert_eq!(record.outcome(), RecordOutcome::Error, "{o:?}");
        assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock());
    })
    .await;
}

// ---------------------------------------------------------------- twins

/// A shim that makes any one-shot hook persistent: for each request it runs
/// the one-shot command (its first argument) under `bash -c`, with the
/// request's input on stdin and its per-event variables in the environment,
/// and answers with what that run did.
const SHIM: &str = r#"
import json, os, subprocess, sys
command = sys.argv[1]
for line in sys.stdin:
    req = json.loads(line)
    env = dict(os.environ)
    env.update(req["env"])
    # Compact, as the engine writes it: the hook reads the same bytes.
    stdin = json.dumps(req["input"], separators=(",", ":"), ensure_ascii=False) + "\n"
    run = subprocess.run(["bash", "-c", command], input=stdin,
                         capture_output=True, text=True, env=env)
    sys.stdout.write(json.dumps({"id": req["id"], "exit": run.returncode,
                                 "stdout": run.stdout, "stderr": run.stderr}) + "\n")
    sys.stdout.flush()
"#;

/// The hook scripts of the nanopi conformance suite's kinds, one per line of
/// behaviour: what a persistent twin must decide exactly as the one-shot hook.
const ONE_SHOT_HOOKS: [&str; 12] = [
    "true",
    r#"echo "refused: $NANOPI_EVENT" >&2; exit 2"#,
    "exit 2",
    r#"echo "crashed" >&2; exit 1"#,
    r#"echo '{"decision":"block","reason":"json says no"}'"#,
    r#"echo 'log line'; echo '{"decision":"block","reason":"after a log line"}'"#,
    r#"echo '{"decision":"block"}'; echo 'but then more text'"#,
    r#"echo '{"updated_input":{"command":"ls -la"}}'"#,
    r#"echo '{"updated_input":{"prompt":"rewritten"}}'"#,
    r#"echo '{"updated_input":{"content":"[redacted]","is_error":false}}'"#,
    r#"grep -q '"tool_name":"bash"' && { echo "saw bash in $NANOPI_TOOL_NAME" >&2; exit 2; }; exit 0"#,
    r#"read -r line; case "$line" in *'"turn_count":1'*) echo '{"decision":"block","reason":"first turn"}';; esac"#,
];

/// The events those hooks fire on: each kind of block policy and transform scope.
fn twin_requests() -> Vec<HookRequest> {
    vec![
        HookRequest::tool_execution_start("bash", json!({"command": "rm -rf /"}))
            .with_tool_call_id("call_1")
            .with_session_id("s1"),
        HookRequest::tool_execution_end(
            "bash",
            json!({"command": "cat .env"}),
            "SECRET=1",
            false,
            Duration::from_millis(3),
        ),
        HookRequest::input("hello"),
        HookRequest::before_agent_start(1, "hello"),
        HookRequest::turn_start(1, 0),
        HookRequest::session_start(tower_hooks::StartReason::Startup),
    ]
}

/// What must match between a one-shot hook and its persistent twin.
fn decided(o: &HookOutcome) -> (Decision, bool, Option<String>, Value, Vec<RecordOutcome>) {
    (
        o.decision(),
        o.is_honored(),
        o.reason().map(str::to_owned),
        o.arguments().clone(),
        o.hooks().iter().map(|r| r.outcome()).collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persistent_twin_decides_as_its_one_shot_hook_does() {
    support::bounded(async {
        needs_python!();
        let _shared = EXCLUSIVE.read().await;
        let dir = tempfile::tempdir().unwrap();
        let shim = dir.path().join("shim.py");
        write_executable(&shim, &format!("#!{}\n{SHIM}", python()));
        for (n, hook) in ONE_SHOT_HOOKS.iter().enumerate() {
            let spec = |event: tower_hooks::Event, command: String| {
                HookSpec::command(event, command).with_timeout(Duration::from_secs(10))
            };
            let twin_command =
                format!("exec {} {}", support::shell_quote(&shim), shell_words(hook));
            for req in twin_requests() {
                let event = req.event();
                let one_shot = HookStack::builder()
                    .report(())
                    .command_hook(spec(event, (*hook).to_owned()))
                    .build();
                let twin = HookStack::builder()
                    .report(())
                    .command_hook(spec(event, twin_command.clone()).with_persistent(true))
                    .build();
                let want = decided(&call(&one_shot, req.clone()).await);
                let got = decided(&call(&twin, req).await);
                assert_eq!(got, want, "hook {n} ({hook}) at {event}");
                twin.shutdown(Duration::from_secs(1)).await;
            }
        }
    })
    .await;
}

/// `text` as one single-quoted shell word.
fn shell_words(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `HookStack::start_persistent` starts the process before any event, and the
/// first event is served by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_eager_start_runs_the_process_before_the_first_event() {
    support::bounded(async {
    let _shared = EXCLUSIVE.read().await;
    let dir = tempfile::tempdir().unwrap();
    let started = dir.path().join("started");
    let script = dir.path().join("hook.sh");
    write_executable(
        &script,
        &format!(
            "#!/bin/bash\necho $$ >> {}\nwhile IFS= read -r line; do\n  id=${{line#*\\\"id\\\":}}; id=${{id%%,*}}\n  printf '{{\"id\":%s}}\\n' \"$id\"\ndone\n",
            support::shell_quote(&started)
        ),
    );
    let stack = HookStack::builder()
        .report(())
        .command_hook(
            HookSpec::command(Event::ToolExecutionStart, support::shell_quote(&script))
                .with_persistent(true),
        )
        .build();
    stack.start_persistent().await.unwrap();
    assert!(
        wait_until(SLACK, || started.exists()).await,
        "the process did not start"
    );
    let outcome = call(&stack, cmd("ls")).await;
    assert_eq!(outcome.decision(), Decision::Allow, "{outcome:?}");
    assert_eq!(outcome.hooks()[0].outcome(), RecordOutcome::Allow);
    let pids = std::fs::read_to_string(&started).unwrap();
    assert_eq!(pids.lines().count(), 1, "started more than once: {pids}");
    stack.shutdown(Duration::from_secs(1)).await;
    })
    .await;
}
