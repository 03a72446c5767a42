//! Run with: cargo run --example agent
//!
//! A scripted agent (no model, no network) runs one whole session through the
//! hooks of `examples/agent.toml`, wired with `AgentHooks` at the agent's call
//! sites and `ToolHooksLayer` around its (fake) tool service: the session
//! starts, a hook rewrites the first prompt, the model asks for two tool calls
//! (the guard refuses `rm -rf`, the redactor strips a token from the other
//! one's output), the turn ends, the user compacts by hand (a hook's block is
//! only reported there), and the session quits. The transcript shows each
//! event, each hook's decision and duration, and what the model sees. Run it
//! again with `-- --no-hooks` to watch the same session with every hook off.

#[path = "support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::error::Error;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tower::{service_fn, Service, ServiceBuilder, ServiceExt};

use self::support::{changed, event_head, shorten, took, with_arguments};
use tower_hooks::report::Notice;
use tower_hooks::{
    AgentHooks, CompactionReason, Config, Decision, HookOutcome, HookRequest, HookStack,
    PromptDecision, ShutdownReason, StartReason, ToolCall, ToolResult,
};

const USAGE: &str = "usage: cargo run --example agent [-- --no-hooks]";

fn main() -> Result<(), Box<dyn Error>> {
    let mut no_hooks = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--no-hooks" => no_hooks = true,
            _ => {
                eprintln!("unknown argument {arg:?}\n{USAGE}");
                std::process::exit(2);
            }
        }
    }
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(session(&examples, no_hooks))
}

/// What the scripted model does in each iteration of the agent loop.
struct Step {
    tool_calls: Vec<ToolCall>,
}

async fn session(examples: &Path, no_hooks: bool) -> Result<(), Box<dyn Error>> {
    let config_path = &examples.join("agent.toml");
    let config = Config::load_file(config_path)?;
    for warning in config.warnings() {
        println!("warning: {warning}");
    }

    // The stack's report lines (an advisory block, a hook that failed open) are
    // collected and printed under the event they belong to.
    let notices = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = notices.clone();
    // The commands in agent.toml start with "$TOWER_HOOKS_EXAMPLES/…": the
    // hooks get that variable (and bash finds the scripts from any directory)
    // without touching this process's own environment.
    let scripts = examples.join("hooks");
    let stack = HookStack::builder()
        .config(&config)
        .env("TOWER_HOOKS_EXAMPLES", scripts.to_string_lossy())
        .no_hooks(no_hooks)
        .report(move |n: &Notice<'_>| sink.lock().unwrap().push(n.line("nanopi")))
        .build();

    let cwd = std::env::current_dir()?.display().to_string();
    let mut hooks = AgentHooks::new(stack)
        .with_session_id("demo-0001")
        .with_cwd(cwd.as_str())
        .on_outcome(move |req, outcome| {
            print_event(req, outcome, no_hooks);
            for line in notices.lock().unwrap().drain(..) {
                println!("     {line}");
            }
        });

    // The agent's own tool, wrapped like any tower service.
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(service_fn(fake_bash));

    println!("tower-hooks example agent: one scripted session, no model, no network");
    println!(
        "config {} ({} hooks), hooks {}, session demo-0001 in {cwd}",
        config_path.display(),
        config.hooks().len(),
        if no_hooks { "OFF (--no-hooks)" } else { "on" },
    );

    println!("\n## the session starts");
    hooks.session_start(StartReason::Startup).await?;

    println!("\n## turn 1");
    let typed = "clean up the build folder, then show me the deploy settings";
    println!("user   > {typed}");
    let prompt = match hooks.prompt(typed).await? {
        PromptDecision::Proceed(prompt) => prompt,
        PromptDecision::Refused(message) => {
            println!("agent  ! {message}");
            return Ok(());
        }
    };
    println!("model  < {prompt}");

    let script = [
        Step {
            tool_calls: vec![
                ToolCall::new("bash", "call_1", json!({"command": "rm -rf build/"})),
                ToolCall::new("bash", "call_2", json!({"command": "cat deploy.env"})),
            ],
        },
        Step { tool_calls: vec![] },
    ];
    let mut results = Vec::new();
    for (iteration, step) in (0u64..).zip(script) {
        hooks.turn_start(iteration).await?;
        let had_tool_calls = !step.tool_calls.is_empty();
        for call in step.tool_calls {
            println!(
                "model  > {} {} [{}]",
                call.name, call.arguments, call.call_id
            );
            let result = bash.ready().await?.call(call).await?;
            let error = if result.is_error() { " (error)" } else { "" };
            println!("model  <{error} {}", result.content().escape_debug());
            results.push(result);
        }
        hooks.turn_end(iteration, had_tool_calls).await?;
    }
    let answer = answer(&results);
    println!("model  > {answer}");
    hooks.message_end(answer.len() as u64).await?;

    println!("\n## the user types /compact");
    hooks
        .session_before_compact(CompactionReason::Manual)
        .await?;
    println!("agent  : compacting the context (a session always compacts)");
    hooks.session_compact(CompactionReason::Manual).await?;

    println!("\n## the user quits");
    hooks.session_shutdown(ShutdownReason::Quit).await?;
    Ok(())
}

/// The tool: pretends to run a shell command. Nothing is executed.
async fn fake_bash(call: ToolCall) -> Result<ToolResult, Infallible> {
    let command = call.arguments["command"].as_str().unwrap_or_default();
    println!("tool   : bash pretends to run `{command}`");
    tokio::time::sleep(Duration::from_millis(20)).await;
    Ok(match command {
        "cat deploy.env" => {
            ToolResult::ok("DEPLOY_TARGET=staging\nGITHUB_TOKEN=ghp_FAKEexampleTOKEN0123456789\n")
        }
        "rm -rf build/" => ToolResult::ok("removed build/"),
        other => ToolResult::error(format!("bash: {other}: command not found")),
    })
}

/// The scripted model's final answer, from what its tools told it.
fn answer(results: &[ToolResult]) -> String {
    let cleanup = match results.first() {
        Some(r) if r.is_error() => "I was not allowed to remove build/",
        _ => "I removed build/",
    };
    let token = match results.get(1) {
        Some(r) if r.content().contains("ghp_") => {
            "its GitHub token is ghp_… (shown in full above!)"
        }
        _ => "its GitHub token was redacted",
    };
    format!("{cleanup}. deploy.env targets staging; {token}.")
}

/// One event of the transcript: the payload, each hook, the decision.
fn print_event(req: &HookRequest, outcome: &HookOutcome, no_hooks: bool) {
    let head = event_head(req.event().name(), req);
    println!("{}", with_arguments(&head, req));
    if no_hooks {
        println!("     (hooks off: nothing ran)");
        return;
    }
    if outcome.hooks().is_empty() {
        println!("     (no hook for this event)");
    }
    for hook in outcome.hooks() {
        let name = hook_name(hook.spec().command_line().unwrap_or(hook.spec().source()));
        let matcher = hook.spec().matcher().unwrap_or("*");
        let line = format!(
            "     hook {:<28} {:<9} {:<9} {:>6}  {}",
            shorten(&name, 28),
            matcher,
            hook.outcome().as_str(),
            took(hook),
            hook.reason().unwrap_or("")
        );
        println!("{}", line.trim_end());
    }
    if outcome.hooks().is_empty() {
        return;
    }
    let decision = match (outcome.message(), outcome.decision(), outcome.is_honored()) {
        (Some(message), ..) => format!("block: {message}"),
        (None, decision, false) => format!("{} (not honored at this event)", decision.as_str()),
        (None, Decision::Transform, true) => format!(
            "transform: {}",
            changed(req.arguments(), outcome.arguments())
        ),
        (None, decision, true) => decision.as_str().to_owned(),
    };
    println!("     => {decision}");
}

/// `"$TOWER_HOOKS_EXAMPLES/guard.sh"` → `guard.sh`; inline commands as written.
fn hook_name(command: &str) -> String {
    let script = command.trim_matches('"');
    match script.strip_prefix("$TOWER_HOOKS_EXAMPLES/") {
        Some(file) => file.to_owned(),
        None => command.to_owned(),
    }
}
