//! The same hook through each real host and through tower-hooks, in one run.
//!
//! Run with: `cargo bench --bench hosts` (the table: `python3 benches/report.py`,
//! section "Real hosts, side by side" of BENCHMARKS.md). The hosts are the
//! pinned ones of `conformance/hosts/pins.json`, installed under
//! `target/hosts/<name>-<version>/` or under `$HOOKS_HOSTS_CACHE` (what
//! `conformance/hosts/run.py --cache` installs); a host that is not there is
//! skipped with a note saying how to install it.
//!
//! The hook is one `PreToolUse` (Gemini CLI: `BeforeTool`) command hook for
//! the shell tool running [`HOOK`] under bash; its "idle" twin is the same
//! hook with a matcher that does not match the shell tool.
//!
//! * `hosts/floor` and `hosts/tower_hooks`: `bash -c HOOK` started with the
//!   runner's own spawn primitive (`support::spawn_floor_of`), against one
//!   `Bash` call through a `HookStack` loaded from a Claude Code settings file
//!   holding the hook, each timed with the other run between its iterations;
//!   `hosts/tower_hooks_idle`: the stack whose hook does not match.
//! * `hosts/claude_{none,hook,idle}` and `hosts/codex_{none,hook,idle}`: one
//!   whole headless session (`claude -p`, `codex exec`) against the scripted
//!   model server of `conformance/hosts/model_server.py` (started before the
//!   timing, stopped after), whose one turn makes [`K`] shell calls; without
//!   hooks, with the hook, with the idle hook. The hook's cost per call is
//!   `(hook − none) / K`, the idle hook's `(idle − none) / K`.
//! * `hosts/gemini_{none,hook,idle}`: one `BeforeTool` event fired through
//!   Gemini CLI's own `HookSystem` (the pinned `@google/gemini-cli-core`,
//!   driven by `conformance/hosts/gemini_bench.mjs`, one process per variant
//!   started before the timing), without hooks, with the hook, with the idle
//!   hook: the hook's cost per event is `hook − none`.
//!
//! Every variant is run once before it is timed and checked with a twin of
//! the hook that writes a line: the hook ran once per call (or not at all
//! for the idle one), and every shell call ran. A session that goes wrong
//! while timed (a shell call that did not run) stops the bench.

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use std::ffi::CString;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode};
use serde_json::{json, Value};
use tower::ServiceExt;
use tower_hooks::config::{Config, ConfigFile};
use tower_hooks::dialect::nanopi::stdin_line;
use tower_hooks::{HookRequest, HookStack};

mod support;
use support::{bench_interleaved, check_allows, command_hook, current_thread, request};

/// The hook every host runs: it reads its event and allows.
const HOOK: &str = "cat >/dev/null; exit 0";
/// Its twin for the checks before timing: the same, and a line in the marker.
const HOOK_CHECKED: &str = "cat >/dev/null; echo hook >> \"$HOOKS_BENCH_MARKER\"; exit 0";
/// Shell calls in the one scripted turn of a host's session.
const K: usize = 4;
/// Bound on one host session: a host that hangs stops the bench.
const SESSION_BOUND: Duration = Duration::from_secs(120);

/// The variants of a host's run: no hooks, the hook, the hook not matching.
const VARIANTS: [Variant; 3] = [Variant::None, Variant::Hook, Variant::Idle];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Variant {
    None,
    Hook,
    Idle,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::None => "none",
            Variant::Hook => "hook",
            Variant::Idle => "idle",
        }
    }

    /// How many hook lines a checked run of `calls` calls writes.
    fn hook_lines(self, calls: usize) -> usize {
        if self == Variant::Hook {
            calls
        } else {
            0
        }
    }
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Whether the command line's filter (criterion's positional argument, if
/// any) can select an id starting with `prefix`: a host's setup (its model
/// server, its checked runs) is skipped when none of its ids would run.
fn selected(prefix: &str) -> bool {
    const VALUED: &[&str] = &[
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--output-format",
        "--plotting-backend",
        "--color",
        "-c",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut filters = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if VALUED.contains(&arg.as_str()) {
            i += 2;
            continue;
        }
        if !arg.starts_with('-') {
            filters.push(arg.clone());
        }
        i += 1;
    }
    // A filter is a regular expression over the ids; a plain word is
    // enough here (`claude`, `hosts/codex`, `tower_hooks`).
    filters.is_empty()
        || filters
            .iter()
            .any(|f| prefix.contains(f.as_str()) || f.contains(prefix))
}

/// Where a pinned host is installed, with its version; or why it is not
/// (the note names what to install).
fn installed(name: &str, binary: &str) -> Result<(PathBuf, String), String> {
    let pins: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("conformance/hosts/pins.json")).unwrap(),
    )
    .unwrap();
    let pin = &pins[name];
    let (npm, version) = (
        pin["npm"].as_str().unwrap(),
        pin["version"].as_str().unwrap(),
    );
    let cache = std::env::var_os("HOOKS_HOSTS_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/hosts"));
    let dir = cache.join(format!("{name}-{version}"));
    if dir.join(binary).exists() {
        return Ok((dir, version.to_owned()));
    }
    Err(format!(
        "{npm}@{version} is not installed under {} (HOOKS_HOSTS_CACHE or target/hosts): \
         install it with `python3 conformance/hosts/run.py --host {name} --cache {}` \
         (npm from the npm registry), or \
         `npm install --prefix {} {npm}@{version}`",
        dir.display(),
        cache.display(),
        dir.display(),
    ))
}

fn skip(id: &str, why: &str) {
    println!("{id}: skipped: {why}");
}

fn bash_path() -> PathBuf {
    let path = std::env::var_os("PATH").expect("PATH is set");
    std::env::split_paths(&path)
        .map(|dir| dir.join("bash"))
        .find(|candidate| candidate.is_file())
        .expect("bash is on PATH")
}

/// The scripted model server of the hosts' scenarios on 127.0.0.1, answering
/// `turns` in order; killed when dropped.
struct ModelServer {
    child: Child,
    port: u16,
}

impl ModelServer {
    fn start(dir: &Path, turns: &Value) -> Self {
        let script = dir.join("turns.json");
        std::fs::write(&script, turns.to_string()).unwrap();
        let portfile = dir.join("port");
        let child = Command::new("python3")
            .arg(repo().join("conformance/hosts/model_server.py"))
            .args([&script, &dir.join("requests.jsonl"), &portfile])
            .stdin(Stdio::null())
            .stderr(File::create(dir.join("model_server.err")).unwrap())
            .spawn()
            .expect("python3 runs the model server");
        let mut server = ModelServer { child, port: 0 };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !portfile.exists() {
            let dead = server.child.try_wait().unwrap().is_some();
            assert!(
                !dead && Instant::now() < deadline,
                "the model server did not start: {}",
                std::fs::read_to_string(dir.join("model_server.err")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server.port = std::fs::read_to_string(&portfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        server
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A turn of [`K`] shell calls, each writing a line to `marker`, then a final
/// answer; repeated for every session one server answers (the server hands
/// its turns out in order, one per request that offers tools).
fn turns(call: impl Fn(&str) -> Value, marker: &Path, sessions: usize) -> Value {
    let command = format!("echo call >> {}", marker.display());
    let tools: Vec<Value> = (0..K).map(|_| call(&command)).collect();
    let pair = [json!({"tools": tools}), json!({"text": "done"})];
    Value::Array(pair.iter().cycle().take(2 * sessions).cloned().collect())
}

/// One headless session of a host: its command line, environment and
/// directory, and the marker its calls write to.
struct Session {
    argv: Vec<String>,
    env: Vec<(String, String)>,
    cwd: PathBuf,
    marker: PathBuf,
    log: PathBuf,
}

impl Session {
    /// Runs it once, timed from spawn to exit, its whole process group
    /// killed after; checks that its [`K`] calls ran (and the hook lines,
    /// for a checked run).
    fn run(&self, hook_lines: Option<usize>) -> Duration {
        std::fs::write(&self.marker, "").unwrap();
        let mut command = Command::new(&self.argv[0]);
        command
            .args(&self.argv[1..])
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(File::create(self.log.with_extension("out")).unwrap())
            .stderr(File::create(self.log.with_extension("err")).unwrap());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let start = Instant::now();
        let mut child = command.spawn().unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > SESSION_BOUND {
                hung(&mut child);
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let took = start.elapsed();
        let group = nix::unistd::Pid::from_raw(child.id() as i32);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let marker = std::fs::read_to_string(&self.marker).unwrap();
        let calls = marker.lines().filter(|l| *l == "call").count();
        let hooks = marker.lines().filter(|l| *l == "hook").count();
        let ok =
            status.success() && calls == K && hook_lines.is_none_or(|expected| hooks == expected);
        assert!(
            ok,
            "a session of `{}` in {} went wrong (exit {status:?}; {calls} of {K} calls ran, \
             {hooks} hook lines, expected {hook_lines:?}); its output: {}\n{}",
            self.argv.join(" "),
            self.cwd.display(),
            std::fs::read_to_string(self.log.with_extension("out")).unwrap_or_default(),
            std::fs::read_to_string(self.log.with_extension("err")).unwrap_or_default(),
        );
        took
    }
}

/// Kills a session that went past [`SESSION_BOUND`], with its process group,
/// and stops the bench.
fn hung(child: &mut Child) -> ! {
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    let status = child.wait().unwrap();
    panic!("a host session hung: killed after {SESSION_BOUND:?} ({status:?})");
}

/// Settings of a host's hook file: `PreToolUse` for `matcher` running `command`.
fn pre_tool_use(matcher: &str, command: &str, extra: Value) -> Value {
    let mut handler = json!({"type": "command", "command": command});
    handler
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [handler]}]}})
}

/// The hook file of `variant` (none for [`Variant::None`]), checked or not.
fn hook_file(variant: Variant, checked: bool, extra: Value) -> Option<Value> {
    let command = if checked { HOOK_CHECKED } else { HOOK };
    match variant {
        Variant::None => None,
        Variant::Hook => Some(pre_tool_use("Bash", command, extra)),
        Variant::Idle => Some(pre_tool_use("Write", command, extra)),
    }
}

fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// Criterion's settings for a group of whole host sessions (0.5 to 1.5 s
/// each): thirty samples of one session (a session varies by more than a
/// hook costs, so more samples than the faster ids get).
fn slow_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(30)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(10));
    group
}

/// Times each of a host's three variants (a session each iteration), each
/// checked first.
fn bench_sessions(
    group: &mut BenchmarkGroup<'_, WallTime>,
    host: &str,
    sessions: &[(Variant, Session, Session)],
) {
    for (variant, timed, checked) in sessions {
        checked.run(Some(variant.hook_lines(K)));
        timed.run(None);
        group.bench_function(format!("{host}_{}", variant.name()), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| timed.run(None)).sum())
        });
    }
}

/// The base environment of a host run: PATH and locale, HOME in the sandbox,
/// and the marker the checked hook writes to.
fn base_env(home: &Path, marker: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| ["PATH", "LANG", "LC_ALL", "TERM", "TMPDIR"].contains(&k.as_str()))
        .collect();
    env.push(("HOME".into(), home.display().to_string()));
    env.push(("HOOKS_BENCH_MARKER".into(), marker.display().to_string()));
    env
}

/// A sandbox for one variant of a host's run, checked or not:
/// `ROOT/<variant>[-checked]/{home,proj}`.
fn sandbox(root: &Path, variant: Variant, checked: bool) -> (PathBuf, PathBuf, PathBuf) {
    let dir = root.join(format!(
        "{}{}",
        variant.name(),
        if checked { "-checked" } else { "" }
    ));
    let (home, proj) = (dir.join("home"), dir.join("proj"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    (dir, home, proj)
}

/// Claude Code: `claude -p` against the model server, the hook in the user's
/// settings, under bash (`"shell": "bash"`) as the floor runs it.
fn claude(c: &mut Criterion) {
    const BINARY: &str = "node_modules/@anthropic-ai/claude-code-linux-x64/claude";
    if !selected("hosts/claude_") {
        return;
    }
    let (install, _) = match installed("claude", BINARY) {
        Ok(found) => found,
        Err(why) => return skip("hosts/claude_*", &why),
    };
    let root = tempfile::tempdir().unwrap();
    let marker = root.path().join("marker");
    let call = |command: &str| json!({"name": "Bash", "input": {"command": command, "description": "mark"}});
    // Enough turns for every session of the run (criterion's and the checks).
    let server = ModelServer::start(root.path(), &turns(call, &marker, 10_000));
    bench_variants(c, "claude", |variant, checked| {
        let (dir, home, proj) = sandbox(root.path(), variant, checked);
        if let Some(file) = hook_file(variant, checked, json!({"shell": "bash"})) {
            write_json(&home.join(".claude/settings.json"), &file);
        }
        let mut env = base_env(&home, &marker);
        for (k, v) in [
            (
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", server.port),
            ),
            ("ANTHROPIC_API_KEY", "sk-ant-loopback".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_TELEMETRY", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("DISABLE_ERROR_REPORTING", "1".into()),
        ] {
            env.push((k.into(), v));
        }
        Session {
            argv: [
                install.join(BINARY).display().to_string().as_str(),
                "-p",
                "go",
                "--allowedTools",
                "Bash",
                "--output-format",
                "json",
                "--max-turns",
                "4",
            ]
            .map(String::from)
            .to_vec(),
            env,
            cwd: proj,
            marker: marker.clone(),
            log: dir.join("session"),
        }
    });
    drop(server);
}

/// Benches `host`'s sessions of every variant, each made by `session`
/// twice: the timed one, and the checked twin whose hook writes a line.
fn bench_variants(c: &mut Criterion, host: &str, session: impl Fn(Variant, bool) -> Session) {
    let sessions: Vec<_> = VARIANTS
        .into_iter()
        .map(|variant| (variant, session(variant, false), session(variant, true)))
        .collect();
    let mut group = slow_group(c, "hosts");
    bench_sessions(&mut group, host, &sessions);
    group.finish();
}

/// Codex: `codex exec` against the model server (a Responses API provider),
/// the hook in `$CODEX_HOME/hooks.json`, run by Codex under `$SHELL -lc`
/// with bash as the shell.
fn codex(c: &mut Criterion) {
    const BINARY: &str =
        "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
    if !selected("hosts/codex_") {
        return;
    }
    let (install, _) = match installed("codex", BINARY) {
        Ok(found) => found,
        Err(why) => return skip("hosts/codex_*", &why),
    };
    let root = tempfile::tempdir().unwrap();
    let marker = root.path().join("marker");
    let call = |command: &str| json!({"name": "exec_command", "input": {"cmd": command}});
    let server = ModelServer::start(root.path(), &turns(call, &marker, 10_000));
    let bash = bash_path().display().to_string();
    bench_variants(c, "codex", |variant, checked| {
        let (dir, home, proj) = sandbox(root.path(), variant, checked);
        let codex_home = home.join(".codex");
        if let Some(file) = hook_file(variant, checked, json!({})) {
            write_json(&codex_home.join("hooks.json"), &file);
        }
        std::fs::create_dir_all(&codex_home).unwrap();
        std::fs::write(
            codex_home.join("config.toml"),
            format!(
                "model_provider = \"mock\"\nmodel = \"gpt-5\"\napproval_policy = \"never\"\n\
                         sandbox_mode = \"danger-full-access\"\n\n[model_providers.mock]\n\
                         name = \"mock\"\nbase_url = \"http://127.0.0.1:{}/v1\"\n\
                         wire_api = \"responses\"\nrequires_openai_auth = false\n",
                server.port
            ),
        )
        .unwrap();
        let mut env = base_env(&home, &marker);
        env.push(("CODEX_HOME".into(), codex_home.display().to_string()));
        env.push(("OPENAI_API_KEY".into(), "dummy".into()));
        env.push(("SHELL".into(), bash.clone()));
        Session {
            argv: [
                install.join(BINARY).display().to_string().as_str(),
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust",
                "--color",
                "never",
                "go",
            ]
            .map(String::from)
            .to_vec(),
            env,
            cwd: proj,
            marker: marker.clone(),
            log: dir.join("session"),
        }
    });
    drop(server);
}

/// A `gemini_bench.mjs` process: Gemini CLI's HookSystem loaded with one
/// project's settings, firing BeforeTool events on request.
struct GeminiDriver {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl GeminiDriver {
    fn start(install: &Path, proj: &Path, env: &[(String, String)]) -> Self {
        let mut child = Command::new("node")
            .arg(repo().join("conformance/hosts/gemini_bench.mjs"))
            .arg(proj)
            .current_dir(install)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs the Gemini CLI driver");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        GeminiDriver {
            child,
            stdin,
            stdout,
        }
    }

    /// Fires `n` BeforeTool events; the time they took, as the driver measured it.
    fn fire(&mut self, n: u64) -> Duration {
        writeln!(self.stdin.as_mut().unwrap(), "{n}").unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let ns: u64 = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("the Gemini CLI driver answered {line:?}"));
        Duration::from_nanos(ns)
    }
}

impl Drop for GeminiDriver {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Gemini CLI: BeforeTool through its own HookSystem, the hook in the
/// project's `.gemini/settings.json`, run by Gemini under `bash -c`.
fn gemini(c: &mut Criterion) {
    const PACKAGE: &str = "node_modules/@google/gemini-cli-core/package.json";
    if !selected("hosts/gemini_") {
        return;
    }
    let (install, _) = match installed("gemini", PACKAGE) {
        Ok(found) => found,
        Err(why) => return skip("hosts/gemini_*", &why),
    };
    if Command::new("node").arg("--version").output().is_err() {
        return skip(
            "hosts/gemini_*",
            "node is not installed (apt-get install nodejs)",
        );
    }
    let root = tempfile::tempdir().unwrap();
    let marker = root.path().join("marker");
    let mut group = c.benchmark_group("hosts");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    for variant in VARIANTS {
        let mut drivers = [false, true].map(|checked| {
            let (_, home, proj) = sandbox(root.path(), variant, checked);
            let mut file = hook_file(variant, checked, json!({}));
            if let Some(file) = &mut file {
                // Gemini's names: BeforeTool, and its shell tool.
                let hooks = file["hooks"].as_object_mut().unwrap();
                let mut definitions = hooks.remove("PreToolUse").unwrap();
                let matcher = &mut definitions[0]["matcher"];
                if matcher == "Bash" {
                    *matcher = json!("run_shell_command");
                }
                hooks.insert("BeforeTool".into(), definitions);
                write_json(&proj.join(".gemini/settings.json"), file);
            }
            let env = base_env(&home, &marker);
            GeminiDriver::start(&install, &proj, &env)
        });
        // The checked twin: 3 events, a hook line each (or none).
        std::fs::write(&marker, "").unwrap();
        drivers[1].fire(3);
        let hooks = std::fs::read_to_string(&marker).unwrap().lines().count();
        assert_eq!(
            hooks,
            variant.hook_lines(3),
            "Gemini CLI's HookSystem ran the {} hook {hooks} times for 3 events",
            variant.name()
        );
        let [timed, _] = &mut drivers;
        timed.fire(1);
        group.bench_function(format!("gemini_{}", variant.name()), |b| {
            b.iter_custom(|iters| timed.fire(iters))
        });
    }
    group.finish();
}

/// A stack loaded from a Claude Code settings file in `dir` holding the hook
/// (or its idle twin), as a host loads it.
fn tower_hooks_stack(dir: &Path, variant: Variant) -> HookStack {
    let file = hook_file(variant, false, json!({"shell": "bash"})).unwrap();
    let path = dir.join(".claude/settings.json");
    write_json(&path, &file);
    let config = Config::load_files(&[ConfigFile::detect(&path)], dir).unwrap();
    HookStack::builder().config(&config).build()
}

/// tower-hooks: the floor, the hook, the idle hook.
fn tower_hooks(c: &mut Criterion) {
    if !selected("hosts/tower_hooks") && !selected("hosts/floor") {
        return;
    }
    let rt = current_thread();
    let dir = tempfile::tempdir().unwrap();
    let hook_dir = dir.path().join("hook");
    let idle_dir = dir.path().join("idle");
    let stack = tower_hooks_stack(&hook_dir, Variant::Hook);
    let idle = tower_hooks_stack(&idle_dir, Variant::Idle);
    // The 200-byte call of the other benches, as Claude Code's `Bash`, in a
    // directory that exists (Claude Code hooks run in the session's).
    let base = request();
    let req = HookRequest::tool_execution_start("Bash", base.arguments().clone())
        .with_tool_call_id("toolu_0123456789")
        .with_session_id("019a2b3c-7000-8000")
        .with_cwd(hook_dir.display().to_string());
    rt.block_on(check_allows(stack.clone(), req.clone(), 1));
    let outcome = rt.block_on(idle.clone().oneshot(req.clone())).unwrap();
    assert!(
        outcome.hooks().iter().all(|h| h.run().is_none()) && !outcome.is_blocked(),
        "the idle hook ran: {outcome:?}"
    );
    let line = stdin_line(&base, "/work/project");
    let script = CString::new(HOOK).unwrap();

    let mut group = c.benchmark_group("hosts");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    let floor = || support::spawn_floor_of(&script, &line);
    let hook = || command_hook(stack.clone(), req.clone());
    bench_interleaved(&mut group, "floor", &rt, floor, hook);
    bench_interleaved(&mut group, "tower_hooks", &rt, hook, floor);
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("tower_hooks_idle", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let outcome = idle.clone().oneshot(req.clone()).await.unwrap();
                    std::hint::black_box(outcome);
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, tower_hooks, gemini, claude, codex);
criterion_main!(benches);
