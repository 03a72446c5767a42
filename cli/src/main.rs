//! `hooks`: load, list, check and try out nanopi v0.12 hook configurations.
//!
//! It runs exactly the stack an agent embeds (the same loader, layers and
//! command runner). The binding contract is `CONTRACT.md`; in short:
//!
//! * `hooks test --event EVENT …` fires one synthetic event and reports what each hook did;
//! * `hooks list` prints every configured hook in execution order;
//! * `hooks check` loads and validates, and says so in one line.
//!
//! Exit status: 0 when the event was evaluated (whatever the decision) or the
//! configuration is fine, 1 when the configuration cannot be loaded, 2 for a
//! usage error.
//!
//! Everything printed for people (tables, reports, errors, warnings, the spec's
//! report lines) has its control and bidi characters escaped (`render::escape`),
//! so a configuration or a hook's output cannot steer the terminal; `--json` is
//! left to serde_json. `--payload-file` and `--audit` take regular files only,
//! as the loader does for configurations (`files`).

mod files;
mod render;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::Value;
use tower::util::option_layer;
use tower::ServiceExt;
use tower_hooks::config::{default_paths, home_dir, Config, ConfigError};
use tower_hooks::protocol::Host;
use tower_hooks::report::Notice;
use tower_hooks::{Event, HookRequest, HookStack, MatcherSubject};
use tower_hooks_layers::audit::AuditLayer;

use crate::files::{FileError, MAX_PAYLOAD_SIZE};
use crate::render::{escape, escape_lines};

const TEST_EXAMPLES: &str = "\
Examples:
  # Would my guard refuse this command?
  hooks test --event tool_execution_start --tool bash --payload '{\"command\":\"rm -rf build/\"}'

  # The same, as the JSON report, against one config file only
  hooks test --json --config ./hooks.toml --event tool_execution_start --tool bash \\
      --payload '{\"command\":\"ls\"}'

  # Feed the payload from a file or stdin
  echo '{\"turn_count\":1,\"prompt\":\"hi\"}' | hooks test --event before_agent_start --payload-file -";

const LIST_EXAMPLES: &str = "\
Examples:
  hooks list
  hooks list --json --config ~/.nanopi/config.toml";

const CHECK_EXAMPLES: &str = "\
Examples:
  hooks check
  hooks check --config ./.nanopi/config.toml";

/// How long `--audit` waits for its writer to flush before exiting anyway.
const AUDIT_SHUTDOWN: std::time::Duration = std::time::Duration::from_secs(5);

/// Load, list, check and try out nanopi v0.12 lifecycle hooks.
#[derive(Debug, Parser)]
#[command(name = "hooks", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Fire one synthetic lifecycle event through the hooks and report what each did.
    #[command(after_help = TEST_EXAMPLES)]
    Test(TestArgs),
    /// Print every configured hook, in execution order.
    #[command(after_help = LIST_EXAMPLES)]
    List(ListArgs),
    /// Load and validate the configuration, and say so in one line.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(ConfigArgs),
}

#[derive(Debug, Args)]
struct ConfigArgs {
    /// Read hooks from FILE only (repeatable, in order) instead of the four default files.
    #[arg(long = "config", value_name = "FILE")]
    configs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct ListArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct TestArgs {
    /// The event, by its snake_case name (tool_execution_start, before_agent_start, …).
    #[arg(long, value_name = "EVENT")]
    event: Event,
    /// The tool name (the two tool events).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// The tool call id.
    #[arg(long, value_name = "ID")]
    tool_call_id: Option<String>,
    /// The session id.
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,
    /// The session working directory the hooks are told about [default: the current directory].
    #[arg(long, value_name = "DIR")]
    cwd: Option<String>,
    /// The event's `arguments` object, as JSON [default: {}].
    #[arg(long, value_name = "JSON", conflicts_with = "payload_file")]
    payload: Option<String>,
    /// Read the `arguments` object from a file, or from stdin with `-`.
    #[arg(long, value_name = "PATH")]
    payload_file: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Turn every hook off, as `nanopi --no-hooks` does.
    #[arg(long)]
    no_hooks: bool,
    /// Print one JSON object instead of a report for people.
    #[arg(long)]
    json: bool,
    /// Append one JSON line per hook run to FILE (an audit log: time, event, tool,
    /// session, hook, decision, reason, duration).
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
}

/// A failure and the exit status it maps to.
enum Failure {
    /// The configuration cannot be loaded: exit 1.
    Config(ConfigError),
    /// Anything else the user can fix in the command line: exit 2.
    Usage(String),
    /// The environment failed us (no runtime, no stdout): exit 1.
    Other(String),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Test(args) => test(args),
        Command::List(args) => list(args),
        Command::Check(args) => check(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Config(err)) => {
            // The message already carries its cause; a TOML error keeps the
            // lines of its excerpt.
            eprintln!(
                "hooks: {}: {}",
                escape(&err.path().display().to_string()),
                escape_lines(&err.kind().to_string())
            );
            ExitCode::from(1)
        }
        Err(Failure::Usage(msg)) => {
            eprintln!("hooks: {}", escape(&msg));
            eprintln!("Try 'hooks --help' for more information.");
            ExitCode::from(2)
        }
        Err(Failure::Other(msg)) => {
            eprintln!("hooks: {}", escape(&msg));
            ExitCode::from(1)
        }
    }
}

/// Loads the configuration the flags name, and prints its warnings.
fn load(args: &ConfigArgs, host: &Host) -> Result<(Config, Vec<PathBuf>), Failure> {
    let paths = if args.configs.is_empty() {
        let cwd = std::env::current_dir()
            .map_err(|e| Failure::Other(format!("cannot read the current directory: {e}")))?;
        default_paths(host, home_dir().as_deref(), &cwd)
    } else {
        args.configs.clone()
    };
    let config = if args.configs.is_empty() {
        Config::load(&paths)
    } else {
        // Files named on the command line must exist.
        paths.iter().try_fold(Config::default(), |mut acc, path| {
            acc.merge(Config::load_file(path)?);
            Ok(acc)
        })
    }
    .map_err(Failure::Config)?;
    for warning in config.warnings() {
        eprintln!("hooks: warning: {}", escape(&warning.to_string()));
    }
    Ok((config, paths))
}

fn test(args: TestArgs) -> Result<(), Failure> {
    let host = Host::default();
    tool_flags_fit_the_event(&args)?;
    let arguments = payload(&args)?;
    let (config, _) = load(&args.config, &host)?;
    let cwd = match args.cwd {
        Some(cwd) => cwd,
        None => std::env::current_dir()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| Failure::Other(format!("cannot read the current directory: {e}")))?,
    };

    let mut req = HookRequest::new(args.event, arguments).with_cwd(cwd);
    if let Some(tool) = args.tool {
        req = req.with_tool_name(tool);
    }
    if let Some(id) = args.tool_call_id {
        req = req.with_tool_call_id(id);
    }
    if let Some(id) = args.session_id {
        req = req.with_session_id(id);
    }

    let (audit, audit_log) = match &args.audit {
        Some(path) => {
            let cannot_open = |e: &dyn std::fmt::Display| {
                Failure::Usage(format!("cannot open the audit log {}: {e}", path.display()))
            };
            let file = files::open_append(path).map_err(|e| match e {
                FileError::NotAFile(_) => cannot_open(&format_args!(
                    "{e}; --audit appends to a regular file (name a new file, or an existing \
                     regular one)"
                )),
                e => cannot_open(&e),
            })?;
            let (layer, log) = AuditLayer::new(file).map_err(|e| cannot_open(&e))?;
            (Some(layer), Some(log))
        }
        None => (None, None),
    };
    // The spec's report lines, byte for byte, except that a control character
    // from a hook's reason or error cannot steer the terminal.
    let prefix = host.name().to_owned();
    let report = move |notice: &Notice<'_>| {
        let line = format!("{}\n", escape(&notice.line(&prefix)));
        // One write, so lines do not interleave; a closed stderr is not worth a panic.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    };
    let stack = HookStack::builder()
        .host(host)
        .report(report)
        .config(&config)
        .no_hooks(args.no_hooks)
        .around_hook(option_layer(audit))
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the async runtime: {e}")))?;
    let outcome = runtime.block_on(async {
        let outcome = stack.oneshot(req).await;
        if let Some(log) = &audit_log {
            // A disk that hangs must not hang the CLI: give the writer a bound.
            if tokio::time::timeout(AUDIT_SHUTDOWN, log.shutdown())
                .await
                .is_err()
            {
                eprintln!(
                    "hooks: warning: the audit log was not flushed within {} s; lines may be \
                     missing",
                    AUDIT_SHUTDOWN.as_secs()
                );
            }
        }
        outcome
    });
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(never) => match never {},
    };
    if let (Some(log), Some(path)) = (&audit_log, &args.audit) {
        let dropped = log.dropped();
        if dropped > 0 {
            let message = format!(
                "the audit log {} dropped {dropped} line{}: {}",
                path.display(),
                if dropped == 1 { "" } else { "s" },
                log.last_error().unwrap_or_default(),
            );
            eprintln!("hooks: warning: {}", escape(&message));
        }
    }

    let text = if args.json {
        serde_json::to_string(&outcome).expect("an outcome always serializes") + "\n"
    } else {
        render::outcome(&outcome, std::io::stdout().is_terminal())
    };
    print(&text)
}

/// `--tool` and `--tool-call-id` only where the spec has a tool: elsewhere they
/// would put a `tool_name` and `NANOPI_TOOL_CALL_ID` where nanopi never does.
fn tool_flags_fit_the_event(args: &TestArgs) -> Result<(), Failure> {
    if args.event.matcher_subject() == MatcherSubject::ToolName {
        return Ok(());
    }
    let flag = match (&args.tool, &args.tool_call_id) {
        (Some(_), _) => "--tool",
        (None, Some(_)) => "--tool-call-id",
        (None, None) => return Ok(()),
    };
    Err(Failure::Usage(format!(
        "{flag} is only for the tool events (tool_execution_start, tool_execution_end): \
         {} has no tool",
        args.event.name()
    )))
}

fn payload(args: &TestArgs) -> Result<Value, Failure> {
    let (bytes, from) = match (&args.payload, &args.payload_file) {
        (Some(text), _) => (text.clone().into_bytes(), "--payload".to_owned()),
        (None, Some(path)) if path == Path::new("-") => {
            let bytes = files::read_capped(std::io::stdin().lock(), MAX_PAYLOAD_SIZE)
                .map_err(|e| Failure::Usage(format!("cannot read the payload from stdin: {e}")))?;
            (bytes, "stdin".to_owned())
        }
        (None, Some(path)) => {
            let bytes = files::read_regular(path, MAX_PAYLOAD_SIZE).map_err(|e| {
                let hint = match e {
                    FileError::NotAFile(_) => {
                        " (to send a payload through a pipe, use --payload-file - and pipe it \
                         to stdin)"
                    }
                    _ => "",
                };
                Failure::Usage(format!(
                    "cannot read the payload file {}: {e}{hint}",
                    path.display()
                ))
            })?;
            (bytes, path.display().to_string())
        }
        (None, None) => return Ok(Value::Object(Default::default())),
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(Failure::Usage(format!(
            "the payload from {from} must be a JSON object (the event's `arguments`)"
        ))),
        Err(e) => Err(Failure::Usage(format!(
            "the payload from {from} is not valid JSON: {e}"
        ))),
    }
}

fn list(args: ListArgs) -> Result<(), Failure> {
    let (config, _) = load(&args.config, &Host::default())?;
    let text = if args.json {
        let entries: Vec<Value> = config.hooks().iter().map(render::spec_json).collect();
        serde_json::to_string_pretty(&entries).expect("JSON values always serialize") + "\n"
    } else {
        render::list(config.hooks())
    };
    print(&text)
}

fn check(args: ConfigArgs) -> Result<(), Failure> {
    let (config, paths) = load(&args, &Host::default())?;
    // The files that were read. Named files all were (or the load failed);
    // discovered ones each once, as the loader reads a file reached through two
    // paths (a symlinked home) once.
    let mut seen = Vec::new();
    let files: Vec<&PathBuf> = paths
        .iter()
        .filter(|p| {
            if !args.configs.is_empty() {
                return true;
            }
            match std::fs::canonicalize(p) {
                Ok(canonical) if seen.contains(&canonical) => false,
                Ok(canonical) => {
                    seen.push(canonical);
                    true
                }
                Err(_) => false,
            }
        })
        .collect();
    let hooks = config.hooks().len();
    let warnings = config.warnings().len();
    let mut line = format!(
        "ok: {hooks} hook{} from {} file{}",
        if hooks == 1 { "" } else { "s" },
        files.len(),
        if files.len() == 1 { "" } else { "s" },
    );
    if warnings > 0 {
        line.push_str(&format!(
            ", {warnings} warning{} (above)",
            if warnings == 1 { "" } else { "s" }
        ));
    }
    if !files.is_empty() {
        let names: Vec<String> = files
            .iter()
            .map(|p| escape(&p.display().to_string()).into_owned())
            .collect();
        line.push_str(&format!(": {}", names.join(", ")));
    }
    print(&(line + "\n"))
}

fn print(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`hooks list | head`) is not worth a complaint.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::Other(format!("cannot write to stdout: {e}"))),
    }
}
