//! Reading one hooks file: the top-level keys and the walk over `hooks`, event
//! by event, group by group, handler by handler.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::fields::{handler_error, RawHandler};
use super::{
    handler_at, Context, Handler, HooksFile, Warning, DEFAULT_TIMEOUT, POWERSHELL,
    PROMPT_SUBMIT_TIMEOUT, PWSH, UNSUPPORTED_TYPES,
};
use crate::config::{invalid_value as invalid, on_path, ConfigErrorKind, ConfigWarningKind};
use crate::dialect::claude::http_url;
use crate::dialect::claude::matcher;
use crate::dialect::claude::rule::{self, PermissionRule};
use crate::dialect::claude::ClaudeEvent;
use crate::event::Event;
use crate::pattern::{Pattern, PatternError};
use crate::process::substitute::Form;
use crate::spec::HookKind;

/// A `true` / `false` top-level key; `null` is as good as absent.
pub(super) fn flag(value: Option<Value>, at: &str) -> Result<Option<bool>, ConfigErrorKind> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(other) => Err(invalid(at, "true or false", &other)),
    }
}

/// serde_json's error, or the one for a top level that is not an object.
pub(super) fn top_level_error(err: serde_json::Error) -> ConfigErrorKind {
    if err.is_data() && err.to_string().starts_with(NOT_AN_OBJECT) {
        let found = err
            .to_string()
            .strip_prefix(NOT_AN_OBJECT)
            .and_then(|rest| rest.split(" at line ").next())
            .unwrap_or("something else")
            .to_owned();
        return ConfigErrorKind::InvalidValue {
            at: "the top level".into(),
            expected: "a JSON object",
            found,
        };
    }
    ConfigErrorKind::InvalidJson(err)
}

const NOT_AN_OBJECT: &str = "top level is not an object: ";

/// A list of strings (`allowedHttpHookUrls`, `allowedEnvVars`) named `at` in
/// errors; absent or null: `None`.
pub(super) fn strings(
    value: Option<Value>,
    at: &str,
) -> Result<Option<Vec<String>>, ConfigErrorKind> {
    let items = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(other) => return Err(invalid(at.to_owned(), "an array of strings", &other)),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s),
            other => Err(invalid(format!("item {i} of {at}"), "a string", &other)),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The top-level keys this dialect reads; the others are skipped unread.
pub(super) struct Top {
    pub(super) hooks: Option<Hooks>,
    pub(super) disable_all_hooks: Option<Value>,
    pub(super) allow_managed_hooks_only: Option<Value>,
    pub(super) allowed_http_hook_urls: Option<Value>,
    pub(super) http_hook_allowed_env_vars: Option<Value>,
}

/// `hooks`: an object, in file order (the order its events are listed in).
pub(super) enum Hooks {
    Events(Vec<(String, Value)>),
    Null,
    Other(Value),
}

impl<'de> Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TopVisitor;

        impl<'de> Visitor<'de> for TopVisitor {
            type Value = Top;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a settings object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
                let mut top = Top {
                    hooks: None,
                    disable_all_hooks: None,
                    allow_managed_hooks_only: None,
                    allowed_http_hook_urls: None,
                    http_hook_allowed_env_vars: None,
                };
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "hooks" => top.hooks = Some(map.next_value::<Hooks>()?),
                        "disableAllHooks" => top.disable_all_hooks = Some(map.next_value()?),
                        "allowManagedHooksOnly" => {
                            top.allow_managed_hooks_only = Some(map.next_value()?)
                        }
                        "allowedHttpHookUrls" => {
                            top.allowed_http_hook_urls = Some(map.next_value()?)
                        }
                        "httpHookAllowedEnvVars" => {
                            top.http_hook_allowed_env_vars = Some(map.next_value()?)
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(top)
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Top, E> {
                Err(not_an_object(&Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Top, E> {
                Err(not_an_object(&Value::from(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Top, E> {
                Err(not_an_object(&Value::Null))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, _seq: A) -> Result<Top, A::Error> {
                Err(not_an_object(&Value::Array(Vec::new())))
            }
        }

        deserializer.deserialize_any(TopVisitor)
    }
}

fn not_an_object<E: de::Error>(value: &Value) -> E {
    E::custom(format_args!(
        "{NOT_AN_OBJECT}{}",
        crate::config::describe_json(value)
    ))
}

impl<'de> Deserialize<'de> for Hooks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HooksVisitor;

        impl<'de> Visitor<'de> for HooksVisitor {
            type Value = Hooks;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of event names")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Hooks, A::Error> {
                crate::config::read::entries_in_order(map).map(Hooks::Events)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Hooks, E> {
                Ok(Hooks::Null)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Hooks, E> {
                Ok(Hooks::Other(Value::from(v)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Hooks, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Hooks::Other(Value::Array(Vec::new())))
            }
        }

        deserializer.deserialize_any(HooksVisitor)
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

    pub(super) fn event(&mut self, event: &str, groups: Value) -> Result<(), ConfigErrorKind> {
        let groups = match groups {
            Value::Null => return Ok(()),
            Value::Array(groups) => groups,
            other => {
                return Err(invalid(
                    format!("hooks.{event}"),
                    "an array of matcher groups",
                    &other,
                ))
            }
        };
        let neutral = matcher::neutral_event(event);
        if neutral.is_none() {
            self.warn(if matcher::is_claude_event(event) {
                ConfigWarningKind::UnfiredEvent {
                    event: event.to_owned(),
                }
            } else {
                ConfigWarningKind::UnknownEvent {
                    event: event.to_owned(),
                    expected: "a Claude Code event",
                    suggestion: crate::suggest::closest(event, matcher::all_events()),
                }
            });
        }
        let mut index = 0;
        for (group, entry) in groups.into_iter().enumerate() {
            let at = || format!("matcher group hooks.{event}[{group}]");
            let Value::Object(mut entry) = entry else {
                return Err(invalid(at(), "an object", &entry));
            };
            let matcher = match entry.remove("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(m)) => Some(m),
                Some(other) => {
                    return Err(invalid(
                        format!("\"matcher\" of {}", at()),
                        "a string",
                        &other,
                    ))
                }
            };
            let handlers = entry.remove("hooks");
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
                    event: event.to_owned(),
                    group,
                    matcher: matcher.clone().unwrap_or_default(),
                });
                pattern = Pattern::Any;
            }
            let handlers = match handlers {
                Some(Value::Array(handlers)) => handlers,
                Some(other) => {
                    return Err(invalid(
                        format!("\"hooks\" of {}", at()),
                        "an array of handlers",
                        &other,
                    ))
                }
                None => {
                    self.drop_entry(ConfigErrorKind::InvalidValue {
                        at: format!("{} (its \"hooks\")", at()),
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
        let field = |name: &str| format!("\"{name}\" of {at}");
        let raw: RawHandler =
            serde_path_to_error::deserialize(&value).map_err(|err| handler_error(&err, &at))?;
        let kind = raw.kind.unwrap_or_else(|| "command".into());
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
        for (key, written) in [
            ("failClosed", raw.fail_closed_camel),
            ("fail_closed", raw.fail_closed_snake),
        ] {
            if written {
                self.warn(ConfigWarningKind::ClaudeFailClosedKey {
                    at: at.clone(),
                    key: key.to_owned(),
                });
            }
        }
        let timeout = match raw.timeout {
            None => default_timeout(event, &kind),
            Some(n) => {
                if let Some(whole) = n.as_u64().filter(|s| *s >= 1000 && s % 1000 == 0) {
                    self.warn(ConfigWarningKind::LongTimeout {
                        at: at.clone(),
                        dialect: "Claude Code",
                        seconds: whole,
                    });
                }
                // A positive timeout too small for the clock is 1 ms, never 0.
                Duration::try_from_secs_f64(n.as_f64().unwrap_or(f64::MAX))
                    .unwrap_or(Duration::MAX)
                    .max(Duration::from_millis(1))
            }
        };
        let if_rule = match raw.if_rule {
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

        match HookKind::from_name(&kind) {
            HookKind::Command => {
                if command.as_deref().is_none_or(|c| c.trim().is_empty()) {
                    return Err(ConfigErrorKind::MissingKey {
                        at,
                        key: "command",
                        needs: "a handler of type \"command\" needs the shell command to \
                                run (with \"args\": the program to start)",
                    });
                }
            }
            HookKind::Http => {
                let Some(url) = url.as_deref().filter(|u| !u.trim().is_empty()) else {
                    return Err(ConfigErrorKind::MissingKey {
                        at,
                        key: "url",
                        needs: "a handler of type \"http\" needs the URL to post the event \
                                to (\"url\": \"http://127.0.0.1:8700/hook\")",
                    });
                };
                if let Err(reason) = http_url::handler_url(url) {
                    return Err(ConfigErrorKind::InvalidUrl {
                        at,
                        url: url.to_owned(),
                        reason,
                    });
                }
                if !cfg!(feature = "http") {
                    self.warn(ConfigWarningKind::UnsupportedType {
                        at: at.clone(),
                        entries: "handlers",
                        kind: kind.clone(),
                        why: "it was built without the tower-hooks feature \"http\"",
                    });
                }
            }
            HookKind::Prompt | HookKind::Agent => {
                self.warn(ConfigWarningKind::ModelHook {
                    at: at.clone(),
                    kind: kind.clone(),
                });
            }
            HookKind::McpTool => {
                for (key, value, needs) in [
                    (
                        "server",
                        &server,
                        "a handler of type \"mcp_tool\" needs the name of the MCP server \
                         (\"server\": \"my_server\")",
                    ),
                    (
                        "tool",
                        &tool,
                        "a handler of type \"mcp_tool\" needs the name of the tool to call \
                         (\"tool\": \"security_scan\")",
                    ),
                ] {
                    if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                        return Err(ConfigErrorKind::MissingKey { at, key, needs });
                    }
                }
                self.warn(ConfigWarningKind::UnsupportedType {
                    at: at.clone(),
                    entries: "handlers",
                    kind: kind.clone(),
                    why: "they run only where the host supplies an MCP client: Builder::mcp",
                });
            }
            other if UNSUPPORTED_TYPES.contains(&other.as_str()) => {
                self.warn(ConfigWarningKind::UnsupportedType {
                    at: at.clone(),
                    entries: "handlers",
                    kind: kind.clone(),
                    why: "only \"command\" and \"http\" run",
                });
            }
            _ => self.warn(ConfigWarningKind::UnknownEntryType {
                at: at.clone(),
                kind: kind.clone(),
                expected: "a Claude Code handler type",
                entry: "handler",
                suggestion: crate::suggest::closest(
                    &kind,
                    std::iter::once("command").chain(UNSUPPORTED_TYPES),
                ),
            }),
        }
        if if_rule.is_some() && !rule::is_tool_event(event) {
            self.warn(ConfigWarningKind::ClaudeIfOnNonToolEvent { at: at.clone() });
        }
        if !type_runs_at(&kind, event) {
            self.warn(ConfigWarningKind::TypeNotOnEvent {
                at: at.clone(),
                dialect: "Claude Code",
                kind: kind.clone(),
                event: event.to_owned(),
            });
        }

        // In exec form the command is the program; otherwise the shell reads it.
        let form = match (&args, shell.as_deref()) {
            (Some(_), _) => Some(Form::Exec),
            (None, Some("bash")) => Some(Form::Bash),
            (None, Some(POWERSHELL)) => None,
            (None, _) => Some(Form::Sh),
        };
        let command = command.map(|c| match form {
            Some(form) => self.ctx.substitute(&c, form).into_owned(),
            None => self.ctx.powershell_refs(&c),
        });
        if form.is_none() && !on_path(PWSH, std::env::var_os("PATH").as_deref()) {
            self.warn(ConfigWarningKind::ShellNotFound {
                at: at.clone(),
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
                at: field("command"),
            });
        }
        if let Some(i) = args.iter().flatten().position(|a| a.contains('\0')) {
            return Err(ConfigErrorKind::NulCharacter {
                at: format!("\"args\"[{i}] of {at}"),
            });
        }

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
