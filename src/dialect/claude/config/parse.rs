//! Reading one hooks file: the top-level keys and the walk over `hooks`, event
//! by event, group by group, handler by handler.

use std::path::Path;
use std::time::Duration;

use serde::de::value::MapDeserializer;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

use super::fields::{
    handler_error, Group, Groups, Handlers, InOrder, RawGroup, RawHandler, Switches, Top, Written,
    AN_OBJECT, A_FLAG, A_JSON_OBJECT, A_STRING, GROUPS, HANDLERS, STRINGS, SWITCHES,
};
use super::{
    handler_at, Context, Handler, HooksFile, Warning, DEFAULT_TIMEOUT, POWERSHELL,
    PROMPT_SUBMIT_TIMEOUT, PWSH, UNSUPPORTED_TYPES,
};
use crate::config::derived::Refused;
use crate::config::{invalid_value as invalid, on_path, ConfigErrorKind, ConfigWarningKind};
use crate::dialect::claude::http_url;
use crate::dialect::claude::matcher;
use crate::dialect::claude::rule::{self, PermissionRule};
use crate::dialect::claude::ClaudeEvent;
use crate::event::Event;
use crate::pattern::{Pattern, PatternError};
use crate::process::substitute::{evaluated_twice, evaluated_twice_exec, Form, References};
use crate::spec::HookKind;

/// The events of `hooks`, in file order, each with its matcher groups as
/// written.
pub(super) type Events = Vec<(String, Value)>;

/// Reads the top level of a file's text: the [`SWITCHES`] checked in their
/// order, then `hooks` (`None` when absent or null).
pub(super) fn read_top(text: &str) -> Result<(Switches, Option<Events>), ConfigErrorKind> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Top(mut top) = serde_path_to_error::deserialize(&mut de).map_err(top_level_error)?;
    de.end().map_err(ConfigErrorKind::InvalidJson)?;
    // Fed to the derived type in the order of SWITCHES, so that its first
    // fault is the one reported, wherever the file wrote the keys.
    let switches = SWITCHES
        .into_iter()
        .filter_map(|key| Some((key, top.remove(key)?.into_value())));
    let switches: Switches =
        serde_path_to_error::deserialize(MapDeserializer::<_, serde_json::Error>::new(switches))
            .map_err(|err| {
                let Some(refused) = Refused::read(&err, &[STRINGS, A_STRING, A_FLAG]) else {
                    return unexpected(&err, &err.path().to_string());
                };
                let place = match refused.path.iter().collect::<Vec<_>>().as_slice() {
                    [Segment::Map { key }, Segment::Seq { index }] => {
                        format!("item {index} of \"{key}\"")
                    }
                    [Segment::Map { key }] => format!("\"{key}\""),
                    _ => refused.path.to_string(),
                };
                refused.at(place)
            })?;
    let events = match top.remove("hooks") {
        None | Some(Written::Other(Value::Null)) => None,
        Some(Written::Shaped(InOrder(events))) => Some(events),
        Some(Written::Other(other)) => {
            return Err(invalid("\"hooks\"", "an object of event names", &other))
        }
    };
    Ok((switches, events))
}

/// serde_json's error, or the one for a top level that is not an object.
fn top_level_error(err: serde_path_to_error::Error<serde_json::Error>) -> ConfigErrorKind {
    let Some(mut refused) = Refused::read(&err, &[A_JSON_OBJECT]) else {
        return ConfigErrorKind::InvalidJson(err.into_inner());
    };
    // Read from the text, the message ends with where the value stands.
    let (line, column) = (err.inner().line(), err.inner().column());
    let place = format!(" at line {line} column {column}");
    if let Some(found) = refused.found.strip_suffix(&place) {
        refused.found = found.to_owned();
    }
    refused.at("the top level".into())
}

/// `value` read as a `T`: a refused value is placed at `at`, or for one of
/// its keys, `"key" of at`.
fn read<T: DeserializeOwned>(value: Value, at: &str) -> Result<T, ConfigErrorKind> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let Some(refused) = Refused::read(&err, &[GROUPS, AN_OBJECT, A_STRING, HANDLERS]) else {
            return unexpected(&err, at);
        };
        let place = match refused.path.iter().next() {
            Some(Segment::Map { key }) => format!("\"{key}\" of {at}"),
            _ => at.to_owned(),
        };
        refused.at(place)
    })
}

/// An error of serde's own, where every check is a refusal.
fn unexpected(err: &serde_path_to_error::Error<serde_json::Error>, at: &str) -> ConfigErrorKind {
    ConfigErrorKind::InvalidValue {
        at: at.to_owned(),
        expected: "a Claude Code setting",
        found: err.inner().to_string(),
    }
}

/// How many handlers a group's `hooks` value holds (0 unless an array).
fn count(handlers: &Option<Value>) -> usize {
    match handlers {
        Some(Value::Array(handlers)) => handlers.len(),
        _ => 0,
    }
}

/// Walks the `hooks` object of one file.
pub(super) struct Reader<'a> {
    pub(super) path: &'a Path,
    pub(super) ctx: &'a Context,
    pub(super) file: &'a mut HooksFile,
}

impl Reader<'_> {
    fn warn(&mut self, kind: ConfigWarningKind) {
        self.file.warnings.push(Warning {
            path: self.path.to_path_buf(),
            kind,
        });
    }

    /// Drops a malformed entry: the error is kept with the file, which
    /// loads without it.
    fn drop_entry(&mut self, kind: ConfigErrorKind) {
        self.file
            .dropped
            .push(std::sync::Arc::new(crate::config::ConfigError::new(
                self.path, kind,
            )));
    }

    /// Reads an event's key: `None` for an event of Claude Code's that this
    /// host of the family does not fire (its handlers are left out, with one
    /// warning), else its neutral point, with a warning for an event that has
    /// none or is no event at all.
    fn event_key(&mut self, event: &str) -> Option<Option<Event>> {
        let family = self.ctx.family;
        if ClaudeEvent::from_name(event).is_some_and(|e| !family.fires(e)) {
            self.warn(ConfigWarningKind::UnsupportedEvent {
                event: event.to_owned(),
                runs_on: family.runs_on,
                suggestion: None,
            });
            return None;
        }
        let neutral = matcher::neutral_event(event);
        if neutral.is_none() {
            self.warn(if matcher::is_claude_event(event) {
                ConfigWarningKind::UnfiredEvent {
                    event: event.to_owned(),
                }
            } else {
                ConfigWarningKind::UnknownEvent {
                    event: event.to_owned(),
                    expected: family.event_noun,
                    suggestion: crate::suggest::closest(event, matcher::all_events()),
                }
            });
        }
        Some(neutral)
    }

    pub(super) fn event(&mut self, event: &str, groups: Value) -> Result<(), ConfigErrorKind> {
        let Groups(Some(groups)) = read(groups, &format!("hooks.{event}"))? else {
            return Ok(());
        };
        let Some(neutral) = self.event_key(event) else {
            return Ok(());
        };
        let mut index = 0;
        for (group, entry) in groups.into_iter().enumerate() {
            let at = format!("matcher group hooks.{event}[{group}]");
            // The matcher's type is checked here; the handlers' only once
            // the matcher compiled.
            let Group(RawGroup {
                matcher,
                hooks: handlers,
            }) = read(entry, &at)?;
            // As in Claude Code, a group whose matcher cannot compile is
            // dropped, and the rest of the file loads.
            let mut pattern = match matcher::compile(event, matcher.as_deref()) {
                Ok(pattern) => pattern,
                Err(error) => {
                    index += count(&handlers);
                    let hint = regex_hint(&error);
                    self.drop_entry(ConfigErrorKind::InvalidPattern {
                        at: format!("{event} matcher group {group} (hooks.{event}[{group}])"),
                        error,
                        hint,
                    });
                    continue;
                }
            };
            // (A key that is no Claude Code event keeps its matcher: its
            // warning is that the event is unknown.)
            if matcher::is_claude_event(event)
                && !matcher::has_subject(event)
                && !matches!(pattern, Pattern::Any)
            {
                self.warn(ConfigWarningKind::IgnoredMatcher {
                    at: format!("hooks.{event}[{group}]"),
                    event: event.to_owned(),
                    matcher: matcher.clone().unwrap_or_default(),
                });
                pattern = Pattern::Any;
            }
            let handlers = match handlers {
                Some(handlers) => read::<Handlers>(handlers, &format!("\"hooks\" of {at}"))?.0,
                None => {
                    self.drop_entry(ConfigErrorKind::InvalidValue {
                        at: format!("{at} (its \"hooks\")"),
                        expected: "an array of handlers",
                        found: "nothing: the group has no \"hooks\"".into(),
                    });
                    continue;
                }
            };
            for (position, handler) in handlers.into_iter().enumerate() {
                let slot = Slot {
                    event,
                    neutral,
                    group,
                    position,
                    index,
                    matcher: matcher.as_deref(),
                    pattern: &pattern,
                };
                index += 1;
                match self.handler(slot, handler) {
                    Ok(handler) => self.file.handlers.push(handler),
                    // A command handler without a command, or an MCP tool
                    // handler without its server or tool, is dropped alone.
                    Err(
                        kind @ ConfigErrorKind::MissingKey {
                            key: "command" | "server" | "tool",
                            ..
                        },
                    ) => {
                        self.drop_entry(kind);
                    }
                    Err(kind) => return Err(kind),
                }
            }
        }
        Ok(())
    }

    fn handler(&mut self, slot: Slot<'_>, value: Value) -> Result<Handler, ConfigErrorKind> {
        let Slot {
            event,
            neutral,
            group,
            position,
            index,
            matcher,
            pattern,
        } = slot;
        let at = handler_at(event, index, group, position);
        if !value.is_object() {
            return Err(invalid(at, "an object", &value));
        }
        let mut raw: RawHandler =
            serde_path_to_error::deserialize(&value).map_err(|err| handler_error(&err, &at))?;
        let kind = raw.kind.take().unwrap_or_else(|| "command".into());
        self.warn_fail_closed_keys(&at, &raw);
        let timeout = self.timeout(&at, event, &kind, raw.timeout.take());
        let if_rule = match raw.if_rule.take() {
            None => None,
            Some(text) => match PermissionRule::parse(&text) {
                Ok(rule) => Some(rule),
                Err(err) => {
                    return Err(ConfigErrorKind::InvalidRule {
                        at,
                        key: "if",
                        rule: text,
                        reason: err.reason(),
                    })
                }
            },
        };

        self.check_type(&at, &kind, &raw)?;
        self.warn_not_run_at(&at, event, &kind, if_rule.is_some());

        let RawHandler {
            command,
            args,
            shell,
            is_async,
            rewake,
            once,
            persistent,
            continue_on_block,
            status_message,
            prompt,
            model,
            server,
            tool,
            input,
            url,
            headers,
            allowed_env_vars,
            fail_closed,
            ..
        } = raw;
        let (command, args) = self.command_and_args(&at, command, args, shell.as_deref())?;

        Ok(Handler {
            source: self.path.to_path_buf(),
            plugin_root: self.ctx.plugin_root.clone(),
            event: event.to_owned(),
            neutral_event: neutral,
            group,
            position,
            index,
            matcher: matcher.map(str::to_owned),
            pattern: pattern.clone(),
            kind,
            command,
            prompt: prompt.map(|p| self.ctx.substitute(&p, Form::Exec).into_owned()),
            model,
            server,
            tool,
            input: input.map(Value::Object),
            url,
            headers: headers.0,
            allowed_env_vars: allowed_env_vars.unwrap_or_default(),
            fail_closed,
            continue_on_block,
            args,
            shell,
            timeout,
            is_async: is_async || rewake,
            async_rewake: rewake,
            if_rule,
            status_message,
            once,
            persistent,
        })
    }

    /// Warns of each key of another dialect for failing closed (Cursor's
    /// `failClosed`, `fail_closed`): Claude Code ignores it, so the handler
    /// fails open.
    fn warn_fail_closed_keys(&mut self, at: &str, raw: &RawHandler) {
        for (key, written) in [
            ("failClosed", raw.fail_closed_camel),
            ("fail_closed", raw.fail_closed_snake),
        ] {
            if written {
                self.warn(ConfigWarningKind::IgnoredFailClosedKey {
                    at: at.to_owned(),
                    key: key.to_owned(),
                    dialect: self.ctx.family.host,
                    instead: "\"onFailure\": \"block\"",
                });
            }
        }
    }

    /// Warns of a handler that never runs at its event: a rule (`if`) on an
    /// event where it is never tested, or a type the event does not run.
    fn warn_not_run_at(&mut self, at: &str, event: &str, kind: &str, has_rule: bool) {
        if has_rule && !rule::is_tool_event(event) {
            self.warn(ConfigWarningKind::RuleOnNonToolEvent {
                at: at.to_owned(),
                key: "if",
                tool_events: "PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, \
                          PermissionDenied",
            });
        }
        if !type_runs_at(kind, event) {
            self.warn(ConfigWarningKind::TypeNotOnEvent {
                at: at.to_owned(),
                dialect: self.ctx.family.host,
                kind: kind.to_owned(),
                event: event.to_owned(),
            });
        }
    }

    /// A handler's timeout: its type's default at its event when none is
    /// written, else the seconds written, with a warning when they look like
    /// milliseconds.
    fn timeout(
        &mut self,
        at: &str,
        event: &str,
        kind: &str,
        written: Option<serde_json::Number>,
    ) -> Duration {
        match written {
            None => {
                (self.ctx.family.default_timeout).unwrap_or_else(|| default_timeout(event, kind))
            }
            Some(n) => {
                if let Some(whole) = n.as_u64().filter(|s| *s >= 1000 && s % 1000 == 0) {
                    self.warn(ConfigWarningKind::LongTimeout {
                        at: at.to_owned(),
                        dialect: self.ctx.family.host,
                        seconds: whole,
                    });
                }
                // A positive timeout too small for the clock is 1 ms, never 0.
                Duration::try_from_secs_f64(n.as_f64().unwrap_or(f64::MAX))
                    .unwrap_or(Duration::MAX)
                    .max(Duration::from_millis(1))
            }
        }
    }

    /// Checks a handler against its type: the keys the type needs, and a
    /// warning for a type this host does not run.
    fn check_type(
        &mut self,
        at: &str,
        kind: &str,
        raw: &RawHandler,
    ) -> Result<(), ConfigErrorKind> {
        match HookKind::from_name(kind) {
            HookKind::Command => {
                if raw.command.as_deref().is_none_or(|c| c.trim().is_empty()) {
                    return Err(ConfigErrorKind::MissingKey {
                        at: at.to_owned(),
                        key: "command",
                        needs: "a handler of type \"command\" needs the shell command to \
                                run (with \"args\": the program to start)",
                    });
                }
            }
            HookKind::Http => {
                let Some(url) = raw.url.as_deref().filter(|u| !u.trim().is_empty()) else {
                    return Err(ConfigErrorKind::MissingKey {
                        at: at.to_owned(),
                        key: "url",
                        needs: "a handler of type \"http\" needs the URL to post the event \
                                to (\"url\": \"http://127.0.0.1:8700/hook\")",
                    });
                };
                if let Err(reason) = http_url::handler_url(url) {
                    return Err(ConfigErrorKind::InvalidUrl {
                        at: at.to_owned(),
                        url: url.to_owned(),
                        reason,
                    });
                }
                if !cfg!(feature = "http") {
                    self.warn(ConfigWarningKind::UnsupportedType {
                        at: at.to_owned(),
                        entries: "handlers",
                        kind: kind.to_owned(),
                        why: "it was built without the tower-hooks feature \"http\"",
                    });
                }
            }
            HookKind::Prompt | HookKind::Agent => {
                self.warn(ConfigWarningKind::ModelHook {
                    at: at.to_owned(),
                    kind: kind.to_owned(),
                });
            }
            HookKind::McpTool => {
                for (key, value, needs) in [
                    (
                        "server",
                        &raw.server,
                        "a handler of type \"mcp_tool\" needs the name of the MCP server \
                         (\"server\": \"my_server\")",
                    ),
                    (
                        "tool",
                        &raw.tool,
                        "a handler of type \"mcp_tool\" needs the name of the tool to call \
                         (\"tool\": \"security_scan\")",
                    ),
                ] {
                    if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                        return Err(ConfigErrorKind::MissingKey {
                            at: at.to_owned(),
                            key,
                            needs,
                        });
                    }
                }
                self.warn(ConfigWarningKind::UnsupportedType {
                    at: at.to_owned(),
                    entries: "handlers",
                    kind: kind.to_owned(),
                    why: "they run only where the host supplies an MCP client: Builder::mcp",
                });
            }
            other if UNSUPPORTED_TYPES.contains(&other.as_str()) => {
                self.warn(ConfigWarningKind::UnsupportedType {
                    at: at.to_owned(),
                    entries: "handlers",
                    kind: kind.to_owned(),
                    why: "only \"command\" and \"http\" run",
                });
            }
            _ => self.warn(ConfigWarningKind::UnknownEntryType {
                at: at.to_owned(),
                kind: kind.to_owned(),
                expected: "a Claude Code handler type",
                entry: "handler",
                suggestion: crate::suggest::closest(
                    kind,
                    std::iter::once("command").chain(UNSUPPORTED_TYPES),
                ),
            }),
        }
        Ok(())
    }

    /// A command handler's command and arguments with the paths put in,
    /// with a warning for a path a second evaluation would read as code, or
    /// for a PowerShell that is not on PATH.
    fn command_and_args(
        &mut self,
        at: &str,
        command: Option<String>,
        args: Option<Vec<String>>,
        shell: Option<&str>,
    ) -> Result<(Option<String>, Option<Vec<String>>), ConfigErrorKind> {
        // In exec form the command is the program; otherwise the shell reads it.
        let form = match (&args, shell) {
            (Some(_), _) => Some(Form::Exec),
            (None, Some("bash")) => Some(Form::Bash),
            (None, Some(POWERSHELL)) => None,
            (None, _) => Some(Form::Sh),
        };
        // A path put in is one word for the shell that runs the command, but
        // not for a second evaluation the command hands it to (`sh -c`, `eval`).
        let refs = References {
            names: &[
                "CLAUDE_PROJECT_DIR",
                "CLAUDE_PLUGIN_ROOT",
                "CLAUDE_PLUGIN_DATA",
            ],
            bare_substituted: false,
        };
        let twice = match (command.as_deref(), args.as_deref(), form) {
            (Some(program), Some(args), Some(Form::Exec)) => {
                evaluated_twice_exec(program, args, refs)
            }
            (Some(command), None, Some(_)) => evaluated_twice(command, refs),
            _ => None,
        };
        if let Some(found) = twice {
            self.warn(ConfigWarningKind::EvaluatedTwice {
                at: at.to_owned(),
                reference: found.reference,
                evaluator: found.evaluator,
            });
        }
        let command = command.map(|c| match form {
            Some(form) => self.ctx.substitute(&c, form).into_owned(),
            None => self.ctx.powershell_refs(&c),
        });
        if form.is_none() && !on_path(PWSH, std::env::var_os("PATH").as_deref()) {
            self.warn(ConfigWarningKind::ShellNotFound {
                at: at.to_owned(),
                shell: PWSH.to_owned(),
            });
        }
        let args = args.map(|args| {
            args.iter()
                .map(|a| self.ctx.substitute(a, Form::Exec).into_owned())
                .collect::<Vec<_>>()
        });
        if command.as_deref().is_some_and(|c| c.contains('\0')) {
            return Err(ConfigErrorKind::NulCharacter {
                at: format!("\"command\" of {at}"),
            });
        }
        if let Some(i) = args.iter().flatten().position(|a| a.contains('\0')) {
            return Err(ConfigErrorKind::NulCharacter {
                at: format!("\"args\"[{i}] of {at}"),
            });
        }
        Ok((command, args))
    }
}

/// Whether Claude Code runs a handler of type `kind` at `event`: `prompt` and
/// `agent` handlers only at the events where a model's yes or no means
/// something, `http` ones everywhere but `SessionStart` and `Setup`. A
/// command, an unknown type, or an event that is no Claude Code event: yes
/// (their own warnings say what is wrong).
///
/// ```
/// use tower_hooks::dialect::claude::config::type_runs_at;
///
/// assert!(type_runs_at("prompt", "PreToolUse"));
/// assert!(!type_runs_at("prompt", "SessionEnd"));
/// assert!(type_runs_at("http", "SessionEnd"));
/// assert!(!type_runs_at("http", "SessionStart"));
/// assert!(type_runs_at("command", "SessionStart"));
/// ```
pub fn type_runs_at(kind: &str, event: &str) -> bool {
    let Some(event) = ClaudeEvent::from_name(event) else {
        return true;
    };
    match kind {
        "prompt" | "agent" => event.takes_model_hooks(),
        "http" => !matches!(event, ClaudeEvent::SessionStart | ClaudeEvent::Setup),
        _ => true,
    }
}

/// Where a handler stands, and its group's matcher.
#[derive(Clone, Copy)]
struct Slot<'a> {
    event: &'a str,
    neutral: Option<Event>,
    group: usize,
    position: usize,
    index: usize,
    matcher: Option<&'a str>,
    pattern: &'a Pattern,
}

/// The default timeout of a handler of type `kind` on `event`, as Claude Code
/// has them.
fn default_timeout(event: &str, kind: &str) -> Duration {
    match (kind, ClaudeEvent::from_name(event)) {
        ("prompt", _) => Duration::from_secs(30),
        ("agent", _) => Duration::from_secs(60),
        (_, Some(ClaudeEvent::UserPromptSubmit)) => PROMPT_SUBMIT_TIMEOUT,
        (_, Some(ClaudeEvent::MessageDisplay)) => Duration::from_secs(10),
        _ => DEFAULT_TIMEOUT,
    }
}

/// A pointer for the regex features JavaScript has and the `regex` crate does
/// not, which Claude Code matchers written for JavaScript sometimes use.
fn regex_hint(error: &PatternError) -> &'static str {
    let message = error.regex_error().to_string();
    if message.contains("look-around") || message.contains("backreferences") {
        " (Claude Code matchers are JavaScript regexes; this host compiles them with \
         Rust's regex crate, which has neither look-around nor backreferences)"
    } else {
        ""
    }
}
