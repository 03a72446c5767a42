//! Run with: cargo run --example mixed
//!
//! One project, four hook ecosystems, one stack. The example makes a
//! throwaway project holding a nanopi `.nanopi/config.toml`, a Claude Code
//! `.claude/settings.json`, a Codex `.codex/hooks.json` and a Gemini CLI
//! `.gemini/settings.json` (from `examples/hooks/mixed/`), finds all four with
//! one `Discovery`, and sends a fake shell tool's calls through a
//! `ToolHooksLayer` built from them. The host calls its shell tool `bash`;
//! each hook sees its own ecosystem's name for it (`bash`, `Bash`, `Bash`,
//! `run_shell_command`), and each guard refuses one command:
//!
//! * nanopi refuses `sudo` (exit 2, reason on stderr);
//! * Claude Code refuses `rm -rf` (exit 2);
//! * Codex refuses a forced push (exit 2 with a reason on stderr);
//! * Gemini CLI refuses `curl` (`{"decision": "deny"}` on stdout).
//!
//! The same project runs through one CLI call, in its folder (with
//! `SHELL=/bin/sh` for Codex): `hooks test --discover nanopi --discover claude
//! --discover codex --discover gemini --event PreToolUse --tool bash --payload
//! '{"tool_input": {"command": "curl x"}}'` is blocked by the Gemini CLI hook.
//! The scripts need nothing but `sh` and `grep`. `tests/examples` runs it and
//! asserts its output.

#[path = "support/mod.rs"]
mod support;

use std::convert::Infallible;
use std::error::Error;

use serde_json::json;
use tower::{service_fn, ServiceBuilder};

pub(crate) use self::support::Transcript;
use tower_hooks::config::{Discovery, Format};
use tower_hooks::{AgentHooks, HookStack, ToolCall};

const FILES: [(&str, &str); 4] = [
    (
        ".nanopi/config.toml",
        include_str!("hooks/mixed/config.toml"),
    ),
    (
        ".claude/settings.json",
        include_str!("hooks/mixed/settings.claude.json"),
    ),
    (
        ".codex/hooks.json",
        include_str!("hooks/mixed/hooks.codex.json"),
    ),
    (
        ".gemini/settings.json",
        include_str!("hooks/mixed/settings.gemini.json"),
    ),
];

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    support::play("mixed", run).await
}

/// Plays the calls into `out`. The project folder is removed at the end.
pub(crate) async fn run(out: Transcript) -> Result<Transcript, Box<dyn Error>> {
    let dir = tempfile::Builder::new()
        .prefix("tower-hooks-mixed-")
        .tempdir()?;
    let project = dir.path();
    for (path, text) in FILES {
        let path = project.join(path);
        std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
        std::fs::write(path, text)?;
    }

    // One discovery, four dialects, each with its own standard files (the
    // user's and the machine's left out, so the example is the same anywhere).
    let discovery = [Format::Claude, Format::Codex, Format::Gemini]
        .into_iter()
        .fold(
            Discovery::new(project)
                .with_home(None)
                .with_system_files(false)
                .format(Format::Nanopi),
            Discovery::format,
        );
    let config = discovery.load()?;
    for warning in config.warnings() {
        out.say(format!("warning: {warning}"));
    }
    out.say("tower-hooks example: nanopi, Claude Code, Codex and Gemini CLI hooks in one stack");
    out.loaded(&discovery, config.hooks().len(), "demo-mixed-0001");

    // Codex runs `$SHELL -lc`: a plain `sh` keeps the example the same on
    // every machine.
    let stack = HookStack::builder()
        .config(&config)
        .env("SHELL", "/bin/sh")
        .build();
    let cwd = project.display().to_string();
    let seen = out.clone();
    let hooks = AgentHooks::new(stack)
        .with_session_id("demo-mixed-0001")
        .with_cwd(cwd.as_str())
        .on_outcome(move |_req, outcome| {
            for hook in outcome.hooks() {
                seen.say(format!(
                    "     hook {:<7} saw {:<18} {:<7} {}",
                    hook.spec().dialect().as_str(),
                    hook.tool_name().unwrap_or("-"),
                    hook.outcome().as_str(),
                    hook.reason().unwrap_or("")
                ));
            }
        });
    let tool_out = out.clone();
    let mut bash = ServiceBuilder::new()
        .layer(hooks.tool_layer())
        .service(service_fn(move |call: ToolCall| {
            let result = support::pretend_bash(&tool_out, &call, &[("ls", "src/\nCargo.toml\n")]);
            async move { Ok::<_, Infallible>(result) }
        }));

    for (n, command) in [
        "ls",
        "sudo ls",
        "rm -rf build",
        "git push --force",
        "curl https://example.test",
    ]
    .into_iter()
    .enumerate()
    {
        let call = ToolCall::new("bash", format!("call_{n}"), json!({ "command": command }));
        out.call_tool(&mut bash, call).await?;
    }
    drop(dir);
    Ok(out)
}
