//! `hooks replay`: fire the events of recorded sessions through a configuration
//! and report what its hooks would have decided, and how long they would have
//! taken.
//!
//! Sessions are streamed: a file is read one line at a time (lines over
//! [`lines::MAX_LINE`] are skipped and counted), each event is fired as soon as
//! it is read, and only the counts, the timings and the flagged events stay.
//! Up to `--jobs` sessions are replayed at once, on one thread (the hooks are
//! processes; the waiting is theirs).
//!
//! Hooks never reach the real project: they run in a scratch directory
//! ([`scratch`]), told it is the project and the session's directory, with
//! the transcript copied there.
//!
//! History is not changed: a rewrite is reported, and the next event still
//! carries what really happened, unless `--chain` feeds the outcome of a tool
//! call forward to that call's later events.

mod event;
mod lines;
mod report;
mod scratch;
mod session;
mod transcript;

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use serde_json::Value;
use tower::ServiceExt;
use tower_hooks::config::{Config, ConfigFile};
use tower_hooks::{
    BoxHookStack, Dialect, Event, HookOutcome, HookRequest, HookSpec, HookStack, Host,
};

use self::event::{ReplayEvent, Selection};
use self::report::{Tally, AGAINST, MAIN};
use self::scratch::Scratch;
use self::session::SessionReader;
use crate::render::escape;
use crate::{load, print, ConfigArgs, Failure, Files, Named};

/// The exit status of `--fail-on` when it finds what it looks for.
const FOUND: u8 = 3;

/// How often the progress line on a terminal is redrawn.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

pub(crate) const REPLAY_EXAMPLES: &str = "\
Examples:
  # What would today's guards have done to my Claude Code sessions of this project?
  hooks replay --discover claude ~/.claude/projects/-home-me-src-app/

  # Would the new guard block calls the old one let through? (exit 3 if any decision differs)
  hooks replay --config new/settings.json --against old/settings.json \\
      --fail-on change ~/.claude/projects/-home-me-src-app/

  # A session recorded with RecordLayer, tool results included, as JSON for CI
  hooks replay --config hooks.toml --events tool_execution_end --json session.jsonl";

/// What `--fail-on` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOn {
    /// A call the hooks would have blocked.
    Block,
    /// A decision that differs from `--against`'s (without it: any block, ask or rewrite).
    Change,
}

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// Session files (Claude Code transcripts, RecordLayer records; told apart
    /// by content) or directories: every *.jsonl file under a directory is a session.
    #[arg(value_name = "SESSION", required = true)]
    sessions: Vec<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Also replay through this configuration (repeatable, as --config) and
    /// report only the events on which the two decide differently.
    #[arg(long = "against", value_name = "[DIALECT:]FILE")]
    against: Vec<String>,
    /// Also replay these events (comma-separated, repeatable; nanopi, Claude
    /// Code or Cursor names, e.g. PostToolUse). By default only the events that
    /// decide are replayed: before a tool, a permission prompt, a prompt, a stop.
    #[arg(long, value_name = "EVENT,…", value_delimiter = ',')]
    events: Vec<String>,
    /// Feed each tool call's outcome forward within its session: a rewritten
    /// input is what the call's later events see, and a blocked call has none.
    #[arg(long)]
    chain: bool,
    /// Replay up to N sessions at once.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Exit 3 when a call would have been blocked (block) or a decision
    /// differs from --against's (change; without --against, any block, ask or
    /// rewrite).
    #[arg(long, value_name = "WHAT")]
    fail_on: Option<FailOn>,
    /// Make the scratch directory the hooks run in inside DIR [default: the
    /// system's temporary directory]. It is new, and removed afterwards.
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
    /// Copy DIR (a project) into the scratch directory, for hooks that read
    /// the project's files [default: the hooks' project directory is empty].
    /// The real project is never touched.
    #[arg(long, value_name = "DIR")]
    project_copy: Option<PathBuf>,
    /// Print one JSON object instead of the report for people.
    #[arg(long)]
    json: bool,
}

/// What every session's replay shares.
struct Context {
    main: BoxHookStack<std::convert::Infallible>,
    against: Option<BoxHookStack<std::convert::Infallible>>,
    wanted: Selection,
    chain: bool,
    /// Where the hooks run, and what they are told the project is.
    scratch: Scratch,
    /// The scratch project directory: every request's working directory and
    /// `cwd`, whatever the session recorded.
    project: Arc<str>,
    /// Events replayed so far, for the progress line.
    events: AtomicU64,
}

pub(crate) fn replay(args: ReplayArgs) -> Result<ExitCode, Failure> {
    let host = Host::default();
    let mut wanted = Selection::deciding();
    for name in args.events.iter().filter(|n| !n.is_empty()) {
        wanted.add(Named::parse(name)?.event());
    }
    let sessions = sessions(&args.sessions)?;
    let (config, files) = load(&args.config, &host)?;
    let against = match args.against.is_empty() {
        true => None,
        false => Some(load_against(&args)?),
    };
    let scratch = Scratch::new(args.workdir.as_deref(), args.project_copy.as_deref())?;
    let main_hooks = rebased(&files, &config, &scratch)?;
    let against_hooks = match &against {
        Some((config, files)) => Some(rebased(files, config, &scratch)?),
        None => None,
    };
    let project = scratch.project().to_path_buf();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the async runtime: {e}")))?;
    let tally = runtime.block_on(async {
        let context = Arc::new(Context {
            main: stack(main_hooks, &host, &project),
            against: against_hooks.map(|hooks| stack(hooks, &host, &project)),
            wanted,
            chain: args.chain,
            project: project.to_string_lossy().as_ref().into(),
            scratch,
            events: AtomicU64::new(0),
        });
        let tally = run(&context, sessions, usize::from(args.jobs)).await;
        context.main.shutdown_persistent().await;
        if let Some(against) = &context.against {
            against.shutdown_persistent().await;
        }
        tally
    });
    let (blocked, flagged, differences) = (tally.blocked, tally.flagged(), tally.differences());
    let has_against = against.is_some();
    let text = if args.json {
        serde_json::to_string(&tally.json(has_against)).expect("JSON values always serialize")
            + "\n"
    } else {
        tally.text(has_against)
    };
    print(&text)?;
    let found = match args.fail_on {
        None => false,
        Some(FailOn::Block) => blocked > 0,
        Some(FailOn::Change) if has_against => differences > 0,
        Some(FailOn::Change) => flagged > 0,
    };
    Ok(if found {
        ExitCode::from(FOUND)
    } else {
        ExitCode::SUCCESS
    })
}

/// The `--against` configuration: the files it names, in order.
fn load_against(args: &ReplayArgs) -> Result<(Config, Files), Failure> {
    let files = args
        .against
        .iter()
        .map(|arg| ConfigFile::parse(arg))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::Config)?;
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::Other(format!("cannot read the current directory: {e}")))?;
    let project = args
        .config
        .project
        .as_ref()
        .map_or(cwd.clone(), |dir| cwd.join(dir));
    let config = Config::load_files(&files, &project).map_err(Failure::Config)?;
    for warning in config.warnings() {
        eprintln!(
            "hooks: warning: --against: {}",
            escape(&warning.to_string())
        );
    }
    let files = Files::Named {
        files,
        project,
        trust_project: false,
    };
    Ok((config, files))
}

/// The hooks of the configuration `files` loaded (`loaded`, from the real
/// project), loaded again with the scratch project as their project: that is
/// what `${CLAUDE_PROJECT_DIR}`, `CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`,
/// `CURSOR_PROJECT_DIR` and the like name. A Cursor `hooks.json`, whose hooks
/// run in its project's root or its own folder, is loaded from a copy in the
/// scratch directory. Each hook keeps the label the real load gives it.
fn rebased(files: &Files, loaded: &Config, scratch: &Scratch) -> Result<Vec<HookSpec>, Failure> {
    let (list, real, trusted) = match files {
        Files::Named {
            files,
            project,
            trust_project,
        } => (files.clone(), project.clone(), *trust_project),
        Files::Discovered(discovery) => (
            discovery
                .files()
                .into_iter()
                .filter(|file| file.path().exists())
                .collect(),
            discovery.project().to_path_buf(),
            discovery.project_trusted(),
        ),
    };
    let real = std::path::absolute(&real).unwrap_or(real);
    let unloaded: Vec<&Path> = loaded.unloaded_files().iter().map(|e| e.path()).collect();
    // The copies made, and the files they stand for.
    let mut originals: HashMap<String, PathBuf> = HashMap::new();
    let mut list_here = Vec::new();
    for file in list {
        if unloaded.contains(&file.path()) {
            continue;
        }
        let folder = file.path().parent().unwrap_or(Path::new(""));
        let cursor_folder = folder.file_name().is_some_and(|name| name == ".cursor");
        if file.format().dialect() != Dialect::Cursor || !cursor_folder {
            list_here.push(file);
            continue;
        }
        let in_project = std::path::absolute(folder).is_ok_and(|f| f == real.join(".cursor"));
        let copy_folder = if in_project {
            scratch.project().join(".cursor")
        } else {
            scratch
                .new_dir("config")
                .map_err(|e| Failure::Other(format!("cannot make a scratch directory: {e}")))?
                .join(".cursor")
        };
        let name = file.path().file_name().unwrap_or_default();
        let copy = copy_folder.join(name);
        let text = tower_hooks::config::read::read_regular(
            file.path(),
            tower_hooks::config::MAX_CONFIG_SIZE,
        )
        .and_then(|text| {
            std::fs::create_dir_all(&copy_folder)
                .and_then(|()| std::fs::write(&copy, text))
                .map_err(tower_hooks::config::read::FileError::Io)
        });
        if let Err(e) = text {
            return Err(Failure::Other(format!(
                "cannot copy {} into the scratch directory: {e}",
                file.path().display()
            )));
        }
        originals.insert(
            copy.to_string_lossy().into_owned(),
            file.path().to_path_buf(),
        );
        let mut moved = ConfigFile::new(copy, file.format());
        if let Some(scope) = file.scope() {
            moved = moved.with_scope(scope);
        }
        list_here.push(moved);
    }
    let config = Config::load_files_trusting(&list_here, scratch.project(), trusted)
        .map_err(Failure::Config)?;
    let home = tower_hooks::config::home_dir();
    Ok(config
        .into_hooks()
        .into_iter()
        .map(|spec| {
            let original = originals
                .get(spec.source())
                .cloned()
                .unwrap_or_else(|| PathBuf::from(spec.source()));
            let unlabelled = spec.location() == format!("{}:{}", spec.source(), spec.index());
            if !unlabelled && original == Path::new(spec.source()) {
                return spec;
            }
            let label = match original.strip_prefix(&real) {
                Ok(rest) => rest.display().to_string(),
                Err(_) => match home.as_deref().map(|h| original.strip_prefix(h)) {
                    Some(Ok(rest)) => Path::new("~").join(rest).display().to_string(),
                    _ => original.display().to_string(),
                },
            };
            spec.with_source_label(label)
        })
        .collect())
}

/// The stack a replay fires through: the configuration's hooks, run in
/// `project` (the scratch one) with `HOOKS_REPLAY=1`, background hooks
/// waited for (so that their runs are counted), and no report lines (a hook
/// that fails open is counted as an error instead).
fn stack(
    hooks: Vec<HookSpec>,
    host: &Host,
    project: &Path,
) -> BoxHookStack<std::convert::Infallible> {
    let builder = HookStack::builder()
        .host(host.clone())
        .command_hooks(hooks)
        .env("HOOKS_REPLAY", "1")
        .current_dir(project)
        .wait_for_background_hooks(true)
        .report(|_: &tower_hooks::report::Notice<'_>| {});
    #[cfg(feature = "http")]
    let builder = builder.http(tower_hooks::layer::http::HttpSettings::new());
    builder.build().boxed()
}

/// The session files the arguments name, directories walked (in name
/// order). Each must be a regular file (after links): a FIFO or a device
/// would never end, or never begin.
fn sessions(args: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for arg in args {
        let meta = std::fs::metadata(arg).map_err(|e| {
            Failure::Usage(format!(
                "cannot read the session {}: {e} (name a session file, or a directory of them)",
                arg.display()
            ))
        })?;
        if !meta.is_dir() && !meta.is_file() {
            return Err(not_a_file(arg, &meta));
        }
        if meta.is_dir() {
            let before = files.len();
            walk(arg, &mut files).map_err(|e| {
                Failure::Usage(format!("cannot read the directory {}: {e}", arg.display()))
            })?;
            if files.len() == before {
                return Err(Failure::Usage(format!(
                    "{} holds no session file (hooks replay reads the *.jsonl files under a \
                     directory)",
                    arg.display()
                )));
            }
        } else {
            files.push(arg.clone());
        }
    }
    Ok(files)
}

/// Every `*.jsonl` file under `dir`; symbolic links to directories are not followed.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            let meta = std::fs::metadata(&path)?;
            if !meta.is_file() {
                return Err(std::io::Error::other(not_a_file_text(&path, &meta)));
            }
            files.push(path);
        }
    }
    Ok(())
}

fn not_a_file(path: &Path, meta: &std::fs::Metadata) -> Failure {
    Failure::Usage(not_a_file_text(path, meta))
}

fn not_a_file_text(path: &Path, meta: &std::fs::Metadata) -> String {
    let what = tower_hooks::config::read::file_kind(meta);
    format!(
        "the session {} is {what}, not a regular file (hooks replay reads regular files only; \
         remove it or name the sessions one by one)",
        path.display()
    )
}

/// Replays `sessions`, up to `jobs` at once, and adds up what they found.
async fn run(context: &Arc<Context>, sessions: Vec<PathBuf>, jobs: usize) -> Tally {
    let total = sessions.len();
    let progress = std::io::stderr().is_terminal();
    let mut last_drawn = Instant::now();
    let mut pending = sessions.into_iter();
    let mut running = tokio::task::JoinSet::new();
    let mut tally = Tally::default();
    let mut done = 0;
    loop {
        while running.len() < jobs {
            let Some(path) = pending.next() else { break };
            let context = context.clone();
            running.spawn(async move { replay_session(&context, &path).await });
        }
        let next = if progress {
            tokio::time::timeout(PROGRESS_EVERY, running.join_next()).await
        } else {
            Ok(running.join_next().await)
        };
        match next {
            Ok(None) => break,
            Ok(Some(Ok(session))) => {
                done += 1;
                tally.merge(session);
            }
            Ok(Some(Err(panicked))) => std::panic::resume_unwind(panicked.into_panic()),
            Err(_elapsed) => {}
        }
        if progress && last_drawn.elapsed() >= PROGRESS_EVERY {
            last_drawn = Instant::now();
            let events = context.events.load(Ordering::Relaxed);
            let _ = write!(
                std::io::stderr(),
                "\rhooks replay: {done}/{total} sessions, {events} events\x1b[K"
            );
        }
    }
    if progress {
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
    tally
}

/// Replays one session file, its hooks told the transcript is a copy of it
/// in the scratch directory (removed when the session is done).
async fn replay_session(context: &Context, path: &Path) -> Tally {
    let copy = match context.scratch.copy_session(path) {
        Ok(copy) => copy,
        Err(e) => return skipped(path, &session::OpenError::from(e)),
    };
    let tally = replay_copied(context, path, &copy).await;
    scratch::remove_copy(&copy);
    tally
}

async fn replay_copied(context: &Context, path: &Path, copy: &Path) -> Tally {
    let mut tally = Tally::default();
    let mut reader = match SessionReader::open(path, copy, context.project.clone()) {
        Ok(reader) => reader,
        Err(e) => return skipped(path, &e),
    };
    // --chain: what became of each tool call so far (its rewritten input, or
    // `None` for a blocked call).
    let mut calls: HashMap<String, Option<Value>> = HashMap::new();
    let mut read_any = false;
    loop {
        let event = match reader.next_event(&context.wanted) {
            Ok(Some(event)) => event,
            Ok(None) => break,
            Err(e) if !read_any => return skipped(path, &e),
            Err(e) => {
                eprintln!(
                    "hooks: warning: {}: {}; the rest of this session is not replayed",
                    escape(&path.display().to_string()),
                    escape(&e.to_string())
                );
                break;
            }
        };
        read_any = true;
        let Some(mut event) = chained(context, &mut calls, event) else {
            tally.not_reached += 1;
            continue;
        };
        event.request = event.request.with_cwd(context.project.clone());
        let started = Instant::now();
        let outcome = fire(&context.main, event.request.clone()).await;
        tally.added += started.elapsed();
        tally.events += 1;
        context.events.fetch_add(1, Ordering::Relaxed);
        tally.runs(MAIN, &outcome);
        tally.flag(&event, &outcome);
        if let Some(against) = &context.against {
            let other = fire(against, event.request.clone()).await;
            tally.runs(AGAINST, &other);
            tally.compare(&event, &outcome, &other);
        }
        if context.chain {
            remember(&mut calls, &event.request, &outcome);
        }
    }
    tally.sessions = 1;
    let skipped: u64 = reader.skips.values().sum();
    if skipped > 0 {
        eprintln!(
            "hooks: warning: {}: {skipped} line{} skipped (counted in the report)",
            escape(&path.display().to_string()),
            if skipped == 1 { "" } else { "s" }
        );
    }
    tally.skips = std::mem::take(&mut reader.skips);
    tally.forgotten_calls = reader.forgotten_calls();
    tally
}

/// A file that could not be replayed: a warning, and a count.
fn skipped(path: &Path, error: &session::OpenError) -> Tally {
    eprintln!(
        "hooks: warning: {}: {}; skipped",
        escape(&path.display().to_string()),
        escape(&error.to_string())
    );
    let mut tally = Tally::default();
    tally.sessions_skipped = 1;
    tally
}

async fn fire(stack: &BoxHookStack<std::convert::Infallible>, request: HookRequest) -> HookOutcome {
    match stack.clone().oneshot(request).await {
        Ok(outcome) => outcome,
        Err(never) => match never {},
    }
}

/// With `--chain`, `event` as the session would have seen it after the
/// outcomes so far: `None` when its tool call was blocked, its `tool_input`
/// rewritten when the call's input was. Without, `event` as recorded.
fn chained(
    context: &Context,
    calls: &mut HashMap<String, Option<Value>>,
    mut event: ReplayEvent,
) -> Option<ReplayEvent> {
    if !context.chain || event.request.event() == Event::ToolExecutionStart {
        return Some(event);
    }
    let Some(id) = event.request.tool_call_id() else {
        return Some(event);
    };
    let fate = if event.request.event() == Event::ToolExecutionEnd {
        calls.remove(id)
    } else {
        calls.get(id).cloned()
    };
    match fate {
        None => Some(event),
        Some(None) => None,
        Some(Some(input)) => {
            let mut arguments = event.request.arguments().clone();
            match event.request.event() {
                Event::ToolExecutionEnd => arguments["tool_input"] = input,
                _ => arguments = input,
            }
            event.request = event.request.with_arguments(arguments);
            Some(event)
        }
    }
}

/// With `--chain`, what a tool call's later events must see.
fn remember(
    calls: &mut HashMap<String, Option<Value>>,
    request: &HookRequest,
    outcome: &HookOutcome,
) {
    if request.event() != Event::ToolExecutionStart {
        return;
    }
    let Some(id) = request.tool_call_id() else {
        return;
    };
    if outcome.is_blocked() {
        calls.insert(id.to_owned(), None);
    } else if outcome.arguments() != request.arguments() {
        calls.insert(id.to_owned(), Some(outcome.arguments().clone()));
    }
}
