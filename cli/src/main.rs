//! `hooks`: load, list, check and try out nanopi v0.12 hook configurations.
//!
//! It runs exactly the stack an agent embeds (the same loader, layers and
//! command runner). Its contract is `docs/cli.md`; in short:
//!
//! * `hooks test --event EVENT …` fires one synthetic event and reports what each hook did;
//! * `hooks list` prints every configured hook in execution order;
//! * `hooks check` loads and validates, says so in one line, and lists the
//!   files it searched (found or not found);
//! * `hooks replay SESSION…` fires the events of recorded sessions through the
//!   hooks and reports what they would have decided (`replay/`).
//!
//! Exit status: 0 when the event was evaluated (whatever the decision) or the
//! configuration is fine, 1 when the configuration cannot be loaded, 2 for a
//! usage error; with `hooks test --exit-code`, 3 for an honored block (and with
//! `hooks replay --fail-on`, 3 when it found what it looks for).
//!
//! Everything printed for people (tables, reports, errors, warnings, the spec's
//! report lines) has its control and bidi characters escaped (`render::escape`),
//! so a configuration or a hook's output cannot steer the terminal; `--json` is
//! left to serde_json. `--payload-file` and `--audit` take regular files only,
//! as the loader does for configurations (`tower_hooks::config::read`).

mod render;
mod replay;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::{Map, Value};
use tower::util::option_layer;
use tower::ServiceExt;
use tower_hooks::config::read::{open_append, read_capped, read_regular, FileError};
use tower_hooks::config::{
    Config, ConfigError, ConfigFile, ConfigWarning, ConfigWarningKind, Discovery, Format,
};
use tower_hooks::dialect::{EventNames, NamedEvent};
use tower_hooks::report::Notice;
use tower_hooks::{Event, HookOutcome, HookRequest, HookSpec, HookStack, Host, MatcherSubject};
use tower_hooks_layers::audit::AuditLayer;

use crate::render::{escape, escape_lines};

/// The largest payload `--payload-file` reads, from a file or stdin (64 MiB).
const MAX_PAYLOAD_SIZE: u64 = 64 << 20;

const TEST_EXAMPLES: &str = "\
Examples:
  # Would my guard refuse this command?
  hooks test --event tool_execution_start --tool bash --payload '{\"command\":\"rm -rf build/\"}'

  # The same, as the JSON report, against one config file only
  hooks test --json --config ./hooks.toml --event tool_execution_start --tool bash \\
      --payload '{\"command\":\"ls\"}'

  # Feed the payload from a file or stdin
  echo '{\"turn_count\":1,\"prompt\":\"hi\"}' | hooks test --event before_agent_start --payload-file -

  # A Claude Code guard, with the event and payload as Claude Code sends them
  hooks test --config .claude/settings.json --event PreToolUse \
      --payload '{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf /\"}}'

  # In CI: fail (exit 3) when the guard would refuse the command
  hooks test --exit-code --event tool_execution_start --tool bash --payload '{\"command\":\"rm -rf /\"}'";

const LIST_EXAMPLES: &str = "\
Examples:
  hooks list
  hooks list --json --config ~/.nanopi/config.toml
  hooks list --discover nanopi --discover claude --project ~/src/app";

const CHECK_EXAMPLES: &str = "\
Examples:
  hooks check
  hooks check --config ./.nanopi/config.toml";

/// What `hooks --help` says about the tool.
const LONG_ABOUT: &str = "\
Load, list, check and try out the lifecycle hooks of an agent built on tower-hooks
(nanopi v0.12 hooks), outside the agent: `hooks` runs exactly the stack the agent
embeds, with the same configuration loader, layers and command runner.

  hooks check   load and validate the configuration; list the files searched
  hooks list    print every configured hook, in execution order
  hooks test    fire one synthetic event through the hooks and show what each
                did and why: its outcome, how its process ended, its stderr
  hooks replay  fire the events of recorded sessions (Claude Code transcripts,
                RecordLayer records) through the hooks: what they would have
                blocked, asked about or rewritten, and how long they took

Without --config, hooks are read from these files, in this order, all of them
(missing files are skipped): ~/.nanopi/config.toml, ./.nanopi/config.toml,
~/.nanopi/settings.toml, ./.nanopi/settings.toml. --discover claude reads Claude
Code's settings files instead (--discover agents: ./.agents/hooks.json), and
--config takes files of any dialect, detected or named (claude:FILE). Claude Code
hooks run unchanged, next to nanopi's.

Exit status: 0 when the configuration loads (and, for `test`, the event was
evaluated, whatever the decision); 1 when the configuration cannot be loaded;
2 for a usage error; 3 for a block with `hooks test --exit-code`, and for what
`hooks replay --fail-on` looks for.";

/// The exit status of `hooks test --exit-code` when the hooks block.
const BLOCKED: u8 = 3;

/// How long `--audit` waits for its writer to flush before exiting anyway.
const AUDIT_SHUTDOWN: std::time::Duration = std::time::Duration::from_secs(5);

/// Load, list, check and try out nanopi v0.12 lifecycle hooks.
#[derive(Debug, Parser)]
#[command(name = "hooks", version, about, long_about = LONG_ABOUT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Fire one synthetic lifecycle event through the hooks and report what each did.
    #[command(after_help = TEST_EXAMPLES)]
    Test(Box<TestArgs>),
    /// Print every configured hook, in execution order.
    #[command(after_help = LIST_EXAMPLES)]
    List(ListArgs),
    /// Load and validate the configuration, say so in one line, and list the files searched.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(ConfigArgs),
    /// Fire the events of recorded sessions through the hooks and report what they would have done.
    #[command(after_help = replay::REPLAY_EXAMPLES)]
    Replay(Box<replay::ReplayArgs>),
}

#[derive(Debug, Args)]
struct ConfigArgs {
    /// Read hooks from FILE only (repeatable, in order) instead of discovering
    /// files; its dialect is detected unless a prefix names it (the text is
    /// [`config_help`], built from the list of formats).
    #[arg(long = "config", value_name = "[SCOPE=][DIALECT:]FILE", help = config_help())]
    configs: Vec<String>,
    /// Discover this dialect's standard files (the text is
    /// [`discover_help`], built from the list of formats).
    #[arg(long = "discover", value_name = "DIALECT", value_parser = parse_format,
          conflicts_with = "configs", help = discover_help())]
    discover: Vec<Format>,
    /// The project root: where discovery looks, and CLAUDE_PROJECT_DIR
    /// [default: the current directory].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Give the project's files their host's own rule over the hooks of other
    /// scopes (Gemini CLI's hooksConfig.disabled of a user's hook, say). By
    /// default a project file never switches off a user's or a managed hook.
    #[arg(long)]
    trust_project: bool,
}

/// Every format's name, as `--discover` and the `FORMAT:` prefixes take it.
fn format_names(suffix: &str) -> String {
    let names: Vec<String> = Format::all()
        .iter()
        .map(|f| format!("{}{suffix}", f.name()))
        .collect();
    names.join(", ")
}

/// `--config`'s help.
fn config_help() -> String {
    format!(
        "Read hooks from FILE only (repeatable, in order) instead of discovering files. Its \
         dialect is detected (*.toml: nanopi; JSON with \"version\": cursor; \
         .agents/hooks.json: agents; other JSON: claude) unless a prefix names it: {}. Its \
         scope is user (managed for a file named managed-settings.json) unless SCOPE= names \
         it: managed=, user=, local=, project=",
        format_names(":")
    )
}

/// `--discover`'s help.
fn discover_help() -> String {
    format!(
        "Discover this dialect's standard files (repeatable, read in the order given): {} \
         [default: {}]",
        format_names(""),
        Format::default().name()
    )
}

/// A `--discover` value.
fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::all().iter().map(|f| f.name()).collect();
        format!("expected one of: {}", names.join(", "))
    })
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
    /// The event: a nanopi name (tool_execution_start, input, …), a Claude Code
    /// one (PreToolUse, Stop, …) or a Cursor one (preToolUse, stop, …), spelled
    /// exactly.
    // Parsed by `test`, so that a usage error goes through `render::escape`.
    #[arg(long, value_name = "EVENT", long_help = event_help())]
    event: String,
    /// The tool name (the two tool events): what their matchers are tested against.
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
    /// The event's `arguments` object (for a Claude Code name, its stdin
    /// fields), as JSON [default: {}].
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
    /// Make every hook at an event that can block fail closed, in every
    /// dialect: a guard that cannot start, crashes, times out or answers what
    /// cannot be read blocks instead of letting the action through.
    #[arg(long)]
    fail_closed: bool,
    /// Exit 3 when the hooks block and the block is honored (the action would
    /// stop), for scripts and CI; without it, the exit status is 0 whatever the
    /// decision.
    #[arg(long)]
    exit_code: bool,
    /// Answer model-evaluated hooks (Claude Code's `prompt` and `agent`) with
    /// CMD: it reads the prompt on stdin and prints the model's answer
    /// (`{"ok": true}` or `{"ok": false, "reason": "…"}`); run with `sh -c`.
    /// Without it, such hooks are skipped.
    #[arg(long, value_name = "CMD")]
    evaluator_command: Option<String>,
    /// Let HTTP hooks connect to addresses in RANGE (`10.20.0.0/16`), which
    /// the address guard refuses by default (private, link-local, …); repeatable.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "RANGE")]
    http_allow: Vec<tower_hooks::layer::http::IpNet>,
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
        Command::Test(args) => test(*args),
        Command::List(args) => list(args).map(|()| ExitCode::SUCCESS),
        Command::Check(args) => check(args),
        Command::Replay(args) => replay::replay(*args),
    };
    match result {
        Ok(code) => code,
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

/// Where the configuration flags say hooks come from.
enum Files {
    /// Named with `--config`: each must exist.
    Named {
        files: Vec<ConfigFile>,
        project: PathBuf,
        trust_project: bool,
    },
    /// Discovered (`--discover`, or nanopi's files by default): missing
    /// files are skipped.
    Discovered(Box<Discovery>),
}

impl Files {
    /// Every file, in load order (for `check`, found or not).
    fn list(&self) -> Vec<ConfigFile> {
        match self {
            Files::Named { files, .. } => files.clone(),
            Files::Discovered(discovery) => discovery.files(),
        }
    }

    fn is_named(&self) -> bool {
        matches!(self, Files::Named { .. })
    }

    fn load(&self) -> Result<Config, ConfigError> {
        match self {
            Files::Named {
                files,
                project,
                trust_project,
            } => Config::load_files_trusting(files, project, *trust_project),
            Files::Discovered(discovery) => discovery.load(),
        }
    }
}

impl ConfigArgs {
    fn files(&self, host: &Host) -> Result<Files, Failure> {
        let cwd = std::env::current_dir()
            .map_err(|e| Failure::Other(format!("cannot read the current directory: {e}")))?;
        let project = match &self.project {
            Some(dir) => cwd.join(dir),
            None => cwd,
        };
        if !self.configs.is_empty() {
            let files = self
                .configs
                .iter()
                .map(|arg| ConfigFile::parse(arg))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Failure::Config)?;
            return Ok(Files::Named {
                files,
                project,
                trust_project: self.trust_project,
            });
        }
        let formats = if self.discover.is_empty() {
            vec![Format::default()]
        } else {
            self.discover.clone()
        };
        let discovery = Discovery::new(project)
            .with_host(host.clone())
            .with_project_trusted(self.trust_project);
        Ok(Files::Discovered(Box::new(
            formats.into_iter().fold(discovery, Discovery::format),
        )))
    }
}

/// Loads the configuration the flags name, and prints its warnings.
fn load(args: &ConfigArgs, host: &Host) -> Result<(Config, Files), Failure> {
    load_with(args, host, |_| true)
}

/// [`load`], printing the warnings `shown` keeps.
fn load_with(
    args: &ConfigArgs,
    host: &Host,
    shown: impl Fn(&ConfigWarning) -> bool,
) -> Result<(Config, Files), Failure> {
    let files = args.files(host)?;
    hint_undiscovered(args, &files);
    let config = files.load().map_err(Failure::Config)?;
    for error in config.errors() {
        eprintln!(
            "hooks: error: {} (dropped; the rest of the file loads)",
            escape(&error.to_string())
        );
    }
    for error in config.unloaded_files() {
        eprintln!(
            "hooks: error: {} (not loaded: its hooks are missing; the other files load)",
            escape(&error.to_string())
        );
    }
    for warning in config.warnings().iter().filter(|w| shown(w)) {
        eprintln!("hooks: warning: {}", escape(&warning.to_string()));
    }
    Ok((config, files))
}

/// Without `--config` and `--discover` only nanopi's files are read: a line
/// on stderr for each standard file of another dialect that exists for the
/// project or HOME, so that a `hooks check` in a Claude Code project does not
/// pass on `ok: 0 hooks` unnoticed.
fn hint_undiscovered(args: &ConfigArgs, files: &Files) {
    let Files::Discovered(discovery) = files else {
        return;
    };
    if !args.discover.is_empty() {
        return;
    }
    let project = discovery.project();
    let home = tower_hooks::config::home_dir();
    let home = home.as_deref();
    for format in Format::all().into_iter().filter(|f| *f != Format::Nanopi) {
        let others = Discovery::new(project)
            .with_system_files(false)
            .format(format)
            .files();
        for file in others.iter().filter(|f| f.path().is_file()) {
            let shown = match (file.path().strip_prefix(project), home) {
                (Ok(rel), _) => rel.display().to_string(),
                (Err(_), Some(home)) => match file.path().strip_prefix(home) {
                    Ok(rel) => format!("~/{}", rel.display()),
                    Err(_) => file.path().display().to_string(),
                },
                (Err(_), None) => file.path().display().to_string(),
            };
            eprintln!(
                "hooks: hint: found {}; add --discover {} to load it",
                escape(&shown),
                format.name()
            );
        }
    }
}

/// The event `hooks test --event` names, in the dialect of its spelling.
#[derive(Debug, Clone, Copy)]
enum Named {
    /// A nanopi name: the payload is the event's `arguments`.
    Nanopi(Event),
    /// Another dialect's name (Claude Code's, also react-agent-mini's two;
    /// Cursor's, also OpenHuman's): the payload is the event's stdin fields.
    Other(NamedEvent),
}

impl Named {
    fn parse(name: &str) -> Result<Named, Failure> {
        if let Some(event) = Event::from_name(name) {
            return Ok(Named::Nanopi(event));
        }
        if let Some(named) = NamedEvent::find(name) {
            return Ok(Named::Other(named));
        }
        // nanopi's message (with its hint for a CamelCase or retired
        // name), then the names of the other dialects.
        let mut message = name.parse::<Event>().unwrap_err().to_string();
        for names in EventNames::all() {
            message += &format!("; or {}: {}", names.described(), names.names().join(", "));
        }
        Err(Failure::Usage(message))
    }

    fn event(self) -> Event {
        match self {
            Named::Nanopi(event) => event,
            Named::Other(named) => named.event(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Named::Nanopi(event) => event.name(),
            Named::Other(named) => named.name(),
        }
    }
}

/// The long help of `--event`: every name it takes, dialect by dialect.
fn event_help() -> String {
    let nanopi: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
    let mut help = format!(
        "The event, spelled exactly as its dialect spells it. For a nanopi name the payload \
         is the event's `arguments`; for another dialect's, its stdin fields.\n\n\
         nanopi: {}",
        nanopi.join(", ")
    );
    for names in EventNames::all() {
        help += &format!("\n\n{}: {}", names.described(), names.names().join(", "));
    }
    help
}

fn test(args: TestArgs) -> Result<ExitCode, Failure> {
    let host = Host::default();
    let named = Named::parse(&args.event)?;
    let event = named.event();
    tool_flags_fit_the_event(&args, named)?;
    let payload = payload(&args)?;
    // A session event's arguments, as the report shows them: the payload as
    // given (a dialect's `source`, not the neutral `reason` made of it).
    let given = Value::Object(payload.clone());
    let (config, _) = load_with(&args.config, &host, |warning| {
        // With a model at hand, model-evaluated hooks do run.
        !(args.evaluator_command.is_some()
            && matches!(warning.kind(), ConfigWarningKind::ModelHook { .. }))
    })?;
    let cwd = match &args.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| Failure::Other(format!("cannot read the current directory: {e}")))?,
    };
    let mut req = match named {
        Named::Nanopi(_) => {
            let mut req = HookRequest::new(event, Value::Object(payload));
            if let Some(tool) = &args.tool {
                req = req.with_tool_name(tool.as_str());
            }
            if let Some(id) = &args.tool_call_id {
                req = req.with_tool_call_id(id.as_str());
            }
            req
        }
        Named::Other(named) => {
            // The flags fill what the payload leaves out; the payload wins.
            let mut fields = payload;
            for (key, flag) in [
                ("tool_name", &args.tool),
                ("tool_use_id", &args.tool_call_id),
                ("session_id", &args.session_id),
            ] {
                if let Some(value) = flag {
                    fields
                        .entry(key)
                        .or_insert_with(|| Value::String(value.clone()));
                }
            }
            named
                .request(fields)
                .map_err(|e| Failure::Usage(format!("the payload of {}: {e}", named.name())))?
        }
    };
    req = req.with_cwd(cwd);
    if let (Some(id), None) = (&args.session_id, req.session_id()) {
        req = req.with_session_id(id.as_str());
    }
    if event.matcher_subject() == MatcherSubject::ToolName
        && req.tool_name().is_none_or(str::is_empty)
        && !args.no_hooks
    {
        let (missing, hint) = match named {
            Named::Nanopi(_) => ("--tool", "try --tool bash"),
            Named::Other(_) => ("tool name", "give \"tool_name\" in --payload, or --tool"),
        };
        eprintln!(
            "hooks: warning: no {missing} given: the matchers of {} hooks see an empty tool \
             name ({hint})",
            named.name()
        );
    }

    let (audit, audit_log) = match &args.audit {
        Some(path) => {
            let cannot_open = |e: &dyn std::fmt::Display| {
                Failure::Usage(format!("cannot open the audit log {}: {e}", path.display()))
            };
            let file = open_append(path).map_err(|e| match e {
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
    // What the matchers were tested against, for the skipped rows.
    let subject = req.matcher_subject().as_str().to_owned();
    let mut builder = HookStack::builder();
    if args.fail_closed {
        builder = builder.fail_closed(tower_hooks::FailClosedPolicy::at_blocking_events());
    }
    if let Some(command) = &args.evaluator_command {
        builder = builder.evaluator(evaluator(command));
    }
    #[cfg(feature = "http")]
    {
        use tower_hooks::layer::http::{AddressGuard, HttpSettings};
        let guard = args
            .http_allow
            .iter()
            .fold(AddressGuard::new(), |guard, range| guard.allow(*range));
        builder = builder.http(HttpSettings::new().guard(guard));
    }
    let stack = builder
        .host(host)
        .report(report)
        .config(&config)
        .no_hooks(args.no_hooks)
        // Background hooks run here and now, so that their records can be shown.
        .wait_for_background_hooks(true)
        .around_hook(option_layer(audit))
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the async runtime: {e}")))?;
    let outcome = runtime.block_on(async {
        let outcome = stack.clone().oneshot(req).await;
        // Persistent hooks: stdin closed, their grace, then SIGTERM and SIGKILL.
        stack.shutdown_persistent().await;
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
        let json = json_report(&outcome, named, &given);
        serde_json::to_string(&json).expect("JSON values always serialize") + "\n"
    } else {
        let message = message(&outcome, named);
        render::outcome(
            &outcome,
            shown_arguments(&outcome, named, &given),
            named.name(),
            message.as_deref(),
            &subject,
            std::io::stdout().is_terminal(),
        )
    };
    print(&text)?;
    Ok(if args.exit_code && outcome.is_blocked() {
        ExitCode::from(BLOCKED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The JSON report: the outcome's, with the event as named and, for a
/// Claude Code name, the `message` and `arguments` of that dialect.
fn json_report(outcome: &HookOutcome, named: Named, given: &Value) -> Value {
    let mut report = serde_json::to_value(outcome).expect("an outcome always serializes");
    if let (Named::Other(other), Value::Object(map)) = (named, &mut report) {
        map.insert("event".into(), Value::from(other.name()));
        map.insert("message".into(), Value::from(message(outcome, named)));
        if other.event() == Event::ToolExecutionEnd || other.event().is_session_event() {
            let shown = shown_arguments(outcome, named, given).clone();
            map.insert("arguments".into(), shown);
        }
    }
    report
}

/// The arguments the report shows: the outcome's, but for another dialect's
/// event after a tool, the tool's input, and at a session event, the payload
/// as given (a session event's arguments are not rewritten).
fn shown_arguments<'a>(outcome: &'a HookOutcome, named: Named, given: &'a Value) -> &'a Value {
    match named {
        Named::Other(other) if other.event().is_session_event() => given,
        Named::Other(other) if other.event() == Event::ToolExecutionEnd => outcome
            .arguments()
            .get("tool_input")
            .unwrap_or(&Value::Null),
        _ => outcome.arguments(),
    }
}

/// The report's `message` for an honored block: nanopi's own for a nanopi
/// name (`blocked by hook: <reason>` before a tool, whichever dialect
/// blocked); for another dialect's, `blocked by hook: <reason>` before a tool
/// runs, elsewhere the blocking hook's dialect's own wording when it has
/// one, else the reason itself. (The host's own words before a tool are the
/// report's `host_message`.)
fn message(outcome: &HookOutcome, named: Named) -> Option<String> {
    match named {
        Named::Nanopi(Event::ToolExecutionStart) if outcome.is_blocked() => {
            let reason = outcome
                .reason()
                .unwrap_or(tower_hooks::DEFAULT_BLOCK_REASON);
            Event::ToolExecutionStart.refusal_message(reason)
        }
        Named::Nanopi(_) => outcome.message(),
        Named::Other(_) if !outcome.is_blocked() => None,
        Named::Other(other)
            if other.event() != Event::ToolExecutionStart
                && outcome.dialect_message().is_some() =>
        {
            outcome.dialect_message()
        }
        Named::Other(other) => {
            let reason = outcome.reason().unwrap_or_default();
            Some(if other.event() == Event::ToolExecutionStart {
                format!("blocked by hook: {reason}")
            } else {
                reason.to_owned()
            })
        }
    }
}

/// `--evaluator-command`: the model of model-evaluated hooks is a command that
/// reads the prompt on stdin and prints the answer, with the model the handler
/// names in `HOOKS_MODEL`. It runs as a hook does (its own process group,
/// killed when the hook's timeout drops the run).
fn evaluator(
    command: &str,
) -> impl tower::Service<
    tower_hooks::layer::model::ModelRequest,
    Response = String,
    Error = std::io::Error,
    Future = impl std::future::Future<Output = std::io::Result<String>> + Send,
> + Clone
       + Send
       + Sync
       + 'static {
    use tower_hooks::process::{Job, ProcessRunner, Program, Termination};
    let command: std::sync::Arc<str> = command.into();
    tower::service_fn(move |asked: tower_hooks::layer::model::ModelRequest| {
        let mut job = Job::new(Program::Sh, command.clone(), asked.prompt.into_bytes());
        if let Some(model) = asked.model {
            job.env.push(("HOOKS_MODEL".to_owned(), model));
        }
        let run = ProcessRunner::shared().run(job);
        async move {
            let done = run.await?;
            match done.termination {
                Termination::Exited(0) => Ok(String::from_utf8_lossy(&done.stdout).into_owned()),
                other => {
                    let ended = match other {
                        Termination::Exited(code) => format!("exited with status {code}"),
                        Termination::Signaled(signal) => format!("was killed by signal {signal}"),
                        _ => "did not finish".to_owned(),
                    };
                    Err(std::io::Error::other(format!(
                        "the evaluator command {ended}: {}",
                        String::from_utf8_lossy(&done.stderr).trim()
                    )))
                }
            }
        }
    })
}

/// `--tool` and `--tool-call-id` only where the event has a tool: elsewhere
/// they would put a `tool_name` and `NANOPI_TOOL_CALL_ID` where nanopi never does.
fn tool_flags_fit_the_event(args: &TestArgs, named: Named) -> Result<(), Failure> {
    if named.event().matcher_subject() == MatcherSubject::ToolName {
        return Ok(());
    }
    let flag = match (&args.tool, &args.tool_call_id) {
        (Some(_), _) => "--tool",
        (None, Some(_)) => "--tool-call-id",
        (None, None) => return Ok(()),
    };
    let events = match named {
        Named::Nanopi(_) => "tool_execution_start, tool_execution_end",
        Named::Other(other) => other.names().tool_events(),
    };
    Err(Failure::Usage(format!(
        "{flag} is only for the tool events ({events}): {} has no tool",
        named.name()
    )))
}

fn payload(args: &TestArgs) -> Result<Map<String, Value>, Failure> {
    let (bytes, from) = match (&args.payload, &args.payload_file) {
        (Some(text), _) => (text.clone().into_bytes(), "--payload".to_owned()),
        (None, Some(path)) if path == Path::new("-") => {
            let bytes = read_capped(std::io::stdin().lock(), MAX_PAYLOAD_SIZE)
                .map_err(|e| Failure::Usage(format!("cannot read the payload from stdin: {e}")))?;
            (bytes, "stdin".to_owned())
        }
        (None, Some(path)) => {
            let bytes = read_regular(path, MAX_PAYLOAD_SIZE).map_err(|e| {
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
        (None, None) => return Ok(Map::new()),
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Failure::Usage(format!(
            "the payload from {from} must be a JSON object (the event's `arguments`, or \
             for a Claude Code event name its stdin fields)"
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
        let mut text = render::list(config.hooks());
        for error in config.unloaded_files() {
            text.push_str(&format!("not loaded: {}\n", escape(&error.to_string())));
        }
        text
    };
    print(&text)
}

/// `hooks check`: exit 0, or 1 when an entry was dropped (or nothing
/// loads).
fn check(args: ConfigArgs) -> Result<ExitCode, Failure> {
    let (config, files) = load(&args, &Host::default())?;
    let named = files.is_named();
    let paths: Vec<PathBuf> = files
        .list()
        .iter()
        .map(|file| file.path().to_path_buf())
        .collect();
    // Every file searched, and whether it was found. Named files all were (or
    // the load failed); a discovered file reached through two paths (a
    // symlinked home) is read once, through the first.
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::new();
    let searched: Vec<(&PathBuf, Found<'_>)> = paths
        .iter()
        .map(|p| {
            if named {
                return (p, Found::Read);
            }
            let found = match std::fs::canonicalize(p) {
                Ok(canonical) => match seen.iter().find(|(c, _)| *c == canonical) {
                    Some((_, first)) => Found::SameAs(first),
                    None => {
                        seen.push((canonical, p));
                        Found::Read
                    }
                },
                Err(_) => Found::Missing,
            };
            (p, found)
        })
        .collect();
    let files: Vec<&PathBuf> = searched
        .iter()
        .filter(|(_, found)| matches!(found, Found::Read))
        .map(|(p, _)| *p)
        .collect();
    // A guard whose program cannot start fails at every run: say so here.
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let missing = config.missing_programs(&cwd);
    for warning in &missing {
        eprintln!("hooks: warning: {}", escape(&warning.to_string()));
    }
    // The hooks that will run, and those that are off (each shown).
    let (on, off): (Vec<&HookSpec>, Vec<&HookSpec>) =
        config.hooks().iter().partition(|h| h.disabled().is_none());
    for hook in &off {
        eprintln!(
            "hooks: off: {}: {}",
            escape(&hook.label()),
            escape(&render::state(hook, config.hooks()))
        );
    }
    for error in config.unloaded_files() {
        eprintln!("hooks: not loaded: {}", escape(&error.to_string()));
    }
    let hooks = on.len();
    let warnings = config.warnings().len() + missing.len();
    let errors = config.errors().len();
    let unloaded = config.unloaded_files().len();
    let mut line = format!(
        "{}: {hooks} hook{} from {} file{}",
        if errors + unloaded == 0 {
            "ok"
        } else {
            "error"
        },
        if hooks == 1 { "" } else { "s" },
        files.len(),
        if files.len() == 1 { "" } else { "s" },
    );
    if !off.is_empty() {
        line.push_str(&format!(", {} off (above)", off.len()));
    }
    if unloaded > 0 {
        line.push_str(&format!(
            ", {unloaded} file{} not loaded (above)",
            if unloaded == 1 { "" } else { "s" }
        ));
    }
    if errors > 0 {
        line.push_str(&format!(
            ", {errors} entr{} dropped (above)",
            if errors == 1 { "y" } else { "ies" }
        ));
    }
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
    line.push('\n');
    let rows: Vec<(&Path, &str, Option<String>)> = searched
        .iter()
        .map(|(p, found)| {
            let (status, note) = found.describe();
            (p.as_path(), status, note)
        })
        .collect();
    line.push_str(&render::searched(&rows));
    print(&line)?;
    Ok(if errors + unloaded == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Whether `check` found a file it searched.
enum Found<'a> {
    /// Found and read.
    Read,
    /// Not there.
    Missing,
    /// The same file as one read before, through another path: read once.
    SameAs(&'a PathBuf),
}

impl Found<'_> {
    /// `found` or `not found`, and a note.
    fn describe(&self) -> (&'static str, Option<String>) {
        match self {
            Found::Read => ("found", None),
            Found::Missing => ("not found", None),
            Found::SameAs(first) => (
                "found",
                Some(format!("the same file as {}: read once", first.display())),
            ),
        }
    }
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
