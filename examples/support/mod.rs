//! What the example sessions share: how they set up a project, play a
//! session and print its transcript.
//!
//! Each example uses a part of this module, hence the `dead_code` allowance.

#![allow(dead_code)]

use std::convert::Infallible;
use std::error::Error;
use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tower::{Service, ServiceExt};
use tower_hooks::config::{Discovery, Format};
use tower_hooks::dialect::claude::event_name;
use tower_hooks::report::Notice;
use tower_hooks::stack::Builder;
use tower_hooks::{
    AgentHooks, Decision, HookOutcome, HookRecord, HookRequest, RecordOutcome, StopDecision,
    ToolCall, ToolResult,
};

/// Exits with a usage line when the example is given an argument: it takes none.
pub(crate) fn no_arguments(example: &str) {
    if let Some(arg) = std::env::args().nth(1) {
        eprintln!("unknown argument {arg:?}\nusage: cargo run --example {example}");
        std::process::exit(2);
    }
}

/// An example's `main`: it takes no argument, and plays `run`'s session into
/// a transcript that prints its lines.
pub(crate) async fn play<F, Fut>(example: &str, run: F) -> Result<(), Box<dyn Error>>
where
    F: FnOnce(Transcript) -> Fut,
    Fut: Future<Output = Result<Transcript, Box<dyn Error>>>,
{
    no_arguments(example);
    run(Transcript::printed()).await?;
    Ok(())
}

/// An example's agent: the stack `builder` makes, reporting into the
/// transcript, for session `session` in `cwd`. Every outcome of an event with
/// hooks goes to `print`, with the stack's report lines (a background hook
/// dropped, a hook that failed open) under it rather than on stderr.
pub(crate) fn agent(
    out: &Transcript,
    builder: Builder,
    session: &str,
    cwd: &str,
    print: fn(&Transcript, &HookRequest, &HookOutcome),
) -> AgentHooks {
    let notices = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = notices.clone();
    let stack = builder
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("agent")))
        .build();
    let seen = out.clone();
    AgentHooks::new(stack)
        .with_session_id(session)
        .with_cwd(cwd)
        .on_outcome(move |req, outcome| {
            print(&seen, req, outcome);
            for line in notices.lock().unwrap().drain(..) {
                seen.say(format!("     {line}"));
            }
        })
}

/// Writes a project's hooks folder, as its users keep it: `<project>/<folder>/<config>`
/// and the scripts, executable, in `<project>/<folder>/hooks/`.
pub(crate) fn write_project(
    project: &Path,
    folder: &str,
    (config_name, config): (&str, &str),
    scripts: &[(&str, &str)],
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;

    let folder = project.join(folder);
    std::fs::create_dir_all(folder.join("hooks"))?;
    std::fs::write(folder.join(config_name), config)?;
    for (name, text) in scripts {
        let path = folder.join("hooks").join(name);
        std::fs::write(&path, text)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// Where an example looks for hooks files: the project's own, in `format`'s
/// dialect; not the user's (no home) nor the machine's, so that it runs the
/// same everywhere.
pub(crate) fn project_discovery(project: &Path, format: Format) -> Discovery {
    Discovery::new(project)
        .with_home(None)
        .with_system_files(false)
        .format(format)
}

/// A fake `Bash` tool's answer to `call`: it says the command it pretends to
/// run, and answers with the command's output in `outputs`, or an error for a
/// command it has no output for. Nothing is executed.
pub(crate) fn pretend_bash(
    out: &Transcript,
    call: &ToolCall,
    outputs: &[(&str, &str)],
) -> ToolResult {
    let command = call.arguments["command"].as_str().unwrap_or_default();
    out.say(format!("tool   : Bash pretends to run `{command}`"));
    match outputs.iter().find(|(known, _)| *known == command) {
        Some((_, output)) => ToolResult::ok(*output),
        None => ToolResult::error(format!("sh: {command}: not run by this fake tool")),
    }
}

/// The lines of a session's transcript, kept for the test and printed as they
/// come when asked to.
#[derive(Clone, Default)]
pub(crate) struct Transcript {
    lines: Arc<Mutex<Vec<String>>>,
    print: bool,
}

impl Transcript {
    /// A transcript that prints each line too.
    pub(crate) fn printed() -> Self {
        Transcript {
            print: true,
            ..Transcript::default()
        }
    }

    /// Adds a line.
    pub(crate) fn say(&self, line: impl Into<String>) {
        let line = line.into();
        if self.print {
            println!("{line}");
        }
        self.lines.lock().unwrap().push(line);
    }

    /// Every line so far (for `tests/examples`).
    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// Which of `discovery`'s files were there, and how many hooks they hold.
    pub(crate) fn loaded(
        &self,
        discovery: &tower_hooks::config::Discovery,
        hooks: usize,
        session: &str,
    ) {
        for file in discovery.files() {
            if file.path().is_file() {
                self.say(format!("loaded  {}", file.path().display()));
            }
        }
        self.say(format!("{hooks} hooks, session {session}"));
    }

    /// One tool call the model asks for, through the hooks: what the model sees
    /// (and the hooks' context beside it).
    pub(crate) async fn call_tool<S>(
        &self,
        tools: &mut S,
        call: ToolCall,
    ) -> Result<ToolResult, Box<dyn Error>>
    where
        S: Service<ToolCall, Response = ToolResult, Error = Infallible>,
    {
        self.say(format!(
            "model  > {} {} [{}]",
            call.name, call.arguments, call.call_id
        ));
        let result = tools.ready().await?.call(call).await?;
        let error = if result.is_error() { " (error)" } else { "" };
        self.say(format!(
            "model  <{error} {}",
            result.content().escape_debug()
        ));
        for note in result.context() {
            self.say(format!("model  + {note}"));
        }
        Ok(result)
    }

    /// The model stops, saying `last_message`. While a stop hook sends it
    /// back, it makes the call `follow_up(n)` (its `n`th, from 1) on `tool`,
    /// and stops again saying what the tests printed.
    pub(crate) async fn stop_until_done<S>(
        &self,
        hooks: &AgentHooks,
        tool: &mut S,
        mut last_message: String,
        follow_up: impl Fn(usize) -> ToolCall,
    ) -> Result<(), Box<dyn Error>>
    where
        S: Service<ToolCall, Response = ToolResult, Error = Infallible>,
    {
        let mut follow_ups = 0;
        loop {
            self.say(format!("model  > {last_message}"));
            match hooks.stop(last_message.as_str()).await? {
                StopDecision::Finish => {
                    self.say("agent  : stop -> finish");
                    return Ok(());
                }
                StopDecision::KeepGoing(instruction) => {
                    self.say(format!("agent  : stop -> keep going: {instruction}"));
                    // The instruction is the model's next input: here, it runs the tests.
                    follow_ups += 1;
                    let result = self.call_tool(tool, follow_up(follow_ups)).await?;
                    last_message = format!("The tests ran: {}", result.content().trim_end());
                }
            }
        }
    }

    /// One Bash call the model asks for, through the hooks: what the model sees.
    pub(crate) async fn call_bash<S>(
        &self,
        bash: &mut S,
        id: &str,
        command: &str,
    ) -> Result<ToolResult, Box<dyn Error>>
    where
        S: Service<ToolCall, Response = ToolResult, Error = Infallible>,
    {
        let call = ToolCall::new("Bash", id, json!({ "command": command }));
        self.call_tool(bash, call).await
    }

    /// The user's prompt through the hooks: the prompt the model gets, or
    /// `None` when a hook refused it (the refusal is said).
    pub(crate) async fn prompt(
        &self,
        hooks: &mut tower_hooks::AgentHooks,
        typed: &str,
    ) -> Result<Option<String>, std::convert::Infallible> {
        self.say(format!("user   > {typed}"));
        Ok(match hooks.prompt(typed).await? {
            tower_hooks::PromptDecision::Proceed(prompt) => {
                self.say(format!("model  < {prompt}"));
                Some(prompt)
            }
            tower_hooks::PromptDecision::Refused(message) => {
                self.say(format!("agent  ! {message}"));
                None
            }
        })
    }
}

/// The head of an event in a transcript: `── <event> <tool> [<call id>]`, the
/// tool and the call id where the request has them.
pub(crate) fn event_head(event: &str, req: &HookRequest) -> String {
    let mut head = format!("── {event}");
    if let Some(tool) = req.tool_name() {
        head.push_str(&format!(" {tool}"));
    }
    if let Some(id) = req.tool_call_id() {
        head.push_str(&format!(" [{id}]"));
    }
    head
}

/// [`event_head`] with the event's Claude Code name (the library's own name
/// for an event Claude Code has no name for).
pub(crate) fn claude_event_head(req: &HookRequest) -> String {
    event_head(event_name(req).unwrap_or(req.event().name()), req)
}

/// `head`, then the request's arguments shortened to 160 characters.
pub(crate) fn with_arguments(head: &str, req: &HookRequest) -> String {
    format!("{head} {}", shorten(&req.arguments().to_string(), 160))
}

/// How long a hook took, as a transcript's duration cell shows it: empty for
/// a hook that did not run.
pub(crate) fn took(hook: &HookRecord) -> String {
    match hook.outcome() {
        RecordOutcome::Skipped | RecordOutcome::NotRun => String::new(),
        _ => format!("{} ms", hook.duration().as_millis()),
    }
}

/// A hook's line under its event: its type (in a column `type_width` wide),
/// matcher, outcome, duration and reason.
pub(crate) fn hook_line(hook: &HookRecord, type_width: usize) -> String {
    let line = format!(
        "     hook {:<type_width$} {:<6} {:<7} {:>6}  {}",
        hook.spec().kind(),
        hook.spec().matcher().unwrap_or("*"),
        hook.outcome().as_str(),
        took(hook),
        hook.reason().unwrap_or("")
    );
    line.trim_end().to_owned()
}

/// A script hook's line under its event: the script's `name` and the hook's
/// matcher (in columns `widths` wide), outcome, duration and reason.
pub(crate) fn script_line(name: &str, hook: &HookRecord, widths: (usize, usize)) -> String {
    let (name_width, matcher_width) = widths;
    let line = format!(
        "     hook {name:<name_width$} {:<matcher_width$} {:<9} {:>6}  {}",
        hook.spec().matcher().unwrap_or("*"),
        hook.outcome().as_str(),
        took(hook),
        hook.reason().unwrap_or("")
    );
    line.trim_end().to_owned()
}

/// The call's decision as a transcript says it: a follow-up's instruction, a
/// block's message, what a transform changed, or the decision's name.
pub(crate) fn decision(req: &HookRequest, outcome: &HookOutcome) -> String {
    match (outcome.follow_up(), outcome.message(), outcome.decision()) {
        (Some(instruction), ..) => format!("keep going: {instruction}"),
        (None, Some(message), _) => format!("block: {message}"),
        (None, None, Decision::Transform) => format!(
            "transform: {}",
            changed(req.arguments(), outcome.arguments())
        ),
        (None, None, decision) => decision.as_str().to_owned(),
    }
}

/// What a transform changed, as `key = value` of the top-level keys that differ.
pub(crate) fn changed(before: &Value, after: &Value) -> String {
    let (Some(before), Some(after)) = (before.as_object(), after.as_object()) else {
        return after.to_string();
    };
    let keys: Vec<String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k} = {}", shorten(&v.to_string(), 100)))
        .collect();
    keys.join(", ")
}

/// `text`, cut to `max` characters with `…` when longer.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(max - 1).collect();
    short.push('…');
    short
}
