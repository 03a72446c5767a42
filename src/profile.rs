//! [`Dialect`]: a hook ecosystem's profile, the facts about it that are data
//! (its name, how its hooks combine and answer, its names for tools, its
//! wording of a refusal), read by the layers without naming a dialect.
//!
//! What a dialect does that is not data (read its files, encode a request,
//! decode an answer) lives in its folder under [`dialect`](crate::dialect).

use std::fmt;

use crate::event::{BlockPolicy, Event};

/// The hook ecosystem whose rules a hook follows: its config file, the event
/// names and stdin envelope it sees, how its answer is read, and how several of
/// its hooks at one event combine (see [`dialect`](crate::dialect)).
///
/// Each dialect declares its own constant in its folder (`Dialect::Claude` in
/// `dialect/claude/`), and [`all`](Self::all) lists those the loaders read;
/// the default is nanopi, the dialect of every spec made by hand. Dialects
/// compare and order by name.
///
/// ```
/// use tower_hooks::Dialect;
///
/// assert_eq!(Dialect::default(), Dialect::Nanopi);
/// assert_eq!(Dialect::from_name("claude"), Some(Dialect::Claude));
/// assert!(Dialect::all().contains(&Dialect::Cursor));
/// assert!(Dialect::Claude.runs_hooks_at_once());
/// ```
// Derived comparisons: a constant can stand in a `match`. Names are unique,
// so they compare and order by name first, as by name alone.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dialect {
    name: &'static str,
    at_once: bool,
    answer: AnswerForm,
    tools: Option<&'static ToolNames>,
    refusals: &'static [Refusal],
    group_reason: GroupReason,
    callers_task: bool,
    // Read by the HTTP layer, which only the `http` feature builds.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    http_hooks: bool,
    block_ends_group_in_order: bool,
}

/// How a dialect reads a hook's answer on stdout, as far as the checks that
/// every dialect shares need to know (`dialect::review`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum AnswerForm {
    /// By rules of its own, which leave nothing to check here (nanopi's:
    /// its answer is its last line, cut or not by its own rule).
    Own,
    /// All of stdout is one JSON object, or text that is no answer (Claude
    /// Code, Codex, Cursor, Gemini CLI).
    Object,
    /// The last non-empty line of stdout is the JSON answer
    /// (react-agent-mini).
    LastLine,
    /// All of stdout is the JSON object, else its last line that is one
    /// (Cursor).
    ObjectOrLastLine,
}

/// A dialect's own names for the kinds of tool a host calls by other names
/// (Claude Code's `Bash` for any shell tool): a table, read by one function
/// for every dialect.
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ToolNames {
    /// A shell tool's name.
    pub(crate) shell: Option<&'static str>,
    /// A tool that reads a file.
    pub(crate) read: Option<&'static str>,
    /// A tool that edits a file.
    pub(crate) edit: Option<&'static str>,
    /// A tool that writes a whole file.
    pub(crate) write: Option<&'static str>,
    /// Names a host may use that are already the dialect's own: kept as
    /// they are (Claude Code's `MultiEdit` stays `MultiEdit`).
    pub(crate) own: &'static [&'static str],
}

/// How a dialect makes one reason of the blocks of a group of its hooks that
/// ran at once ([`Dialect::runs_hooks_at_once`]), from their reasons in
/// config order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum GroupReason {
    /// Every reason, joined by the text (Claude Code's: a new line).
    Joined(&'static str),
    /// The first reason; but where a block is the agent's next instruction
    /// (a stop), every reason joined by the text (Codex: a blank line).
    FirstButFollowUpsJoined(&'static str),
}

/// How a dialect words a block at an event, where it words it otherwise
/// than the event does ([`Event::refusal_message`]): the text before and
/// after the reason.
pub(crate) type Refusal = (Event, &'static str, &'static str);

#[allow(non_upper_case_globals)]
impl Dialect {
    /// nanopi v0.12 (`[[hooks.<event>]]` in TOML): the crate's own dialect,
    /// so also that of every hook a program makes by hand and of every
    /// in-process hook. Its folder is `src/dialect/nanopi/`; its constant is
    /// here because a spec made by hand has it.
    pub const Nanopi: Dialect = Dialect::new("nanopi").on_the_callers_task();
}

impl Dialect {
    /// The dialect named `name` (the word of reports), whose hooks at one
    /// event run one after another, each on a task of its own, with no
    /// names of its own for tools and the event's wording of a refusal.
    pub(crate) const fn new(name: &'static str) -> Dialect {
        Dialect {
            name,
            at_once: false,
            answer: AnswerForm::Own,
            tools: None,
            refusals: &[],
            group_reason: GroupReason::Joined("\n"),
            callers_task: false,
            http_hooks: false,
            block_ends_group_in_order: true,
        }
    }

    /// This dialect, whose hooks answer on stdout in `form`: what the
    /// checks every dialect shares look at when a hook fails closed.
    pub(crate) const fn with_answers(self, answer: AnswerForm) -> Dialect {
        Dialect { answer, ..self }
    }

    /// How this dialect's hooks answer on stdout.
    pub(crate) const fn answer_form(self) -> AnswerForm {
        self.answer
    }

    /// This dialect, with the hooks that stand next to each other at an
    /// event run all at once ([`runs_hooks_at_once`](Self::runs_hooks_at_once)).
    pub(crate) const fn with_hooks_at_once(self) -> Dialect {
        Dialect {
            at_once: true,
            ..self
        }
    }

    /// This dialect, which calls the host's tools by the names of `tools`.
    pub(crate) const fn with_tool_names(self, tools: &'static ToolNames) -> Dialect {
        Dialect {
            tools: Some(tools),
            ..self
        }
    }

    /// This dialect, which words a block at the events of `refusals` its
    /// own way.
    pub(crate) const fn with_refusals(self, refusals: &'static [Refusal]) -> Dialect {
        Dialect { refusals, ..self }
    }

    /// This dialect, which makes one reason of a group's blocks as
    /// `group_reason` says.
    pub(crate) const fn with_group_reason(self, group_reason: GroupReason) -> Dialect {
        Dialect {
            group_reason,
            ..self
        }
    }

    /// This dialect, whose hooks run on the caller's task, one after
    /// another (nanopi's), rather than each on a task of its own.
    pub(crate) const fn on_the_callers_task(self) -> Dialect {
        Dialect {
            callers_task: true,
            ..self
        }
    }

    /// This dialect, whose files may hold HTTP hooks.
    pub(crate) const fn with_http_hooks(self) -> Dialect {
        Dialect {
            http_hooks: true,
            ..self
        }
    }

    /// This dialect, where a block in a group run in order lets the rest
    /// of the group run (Gemini CLI's `sequential`); it still stops the
    /// groups after it.
    pub(crate) const fn with_groups_run_to_their_end(self) -> Dialect {
        Dialect {
            block_ends_group_in_order: false,
            ..self
        }
    }

    /// Whether the hooks of this dialect that stand next to each other at a
    /// event run all at once, to completion, and are then merged (Claude
    /// Code's rule), rather than one after another.
    pub const fn runs_hooks_at_once(self) -> bool {
        self.at_once
    }

    /// `nanopi`, `claude`, `cursor` or `agents`: the word reports use.
    pub const fn as_str(self) -> &'static str {
        self.name
    }

    /// Its names for the kinds of tool, when it has any; `None`: its hooks
    /// see the host's names.
    pub(crate) const fn tool_names(self) -> Option<&'static ToolNames> {
        self.tools
    }

    /// How it words a block at `event`, `(before, after)` the reason, when
    /// it words it otherwise than the event does.
    pub(crate) fn refusal(self, event: Event) -> Option<(&'static str, &'static str)> {
        self.refusals
            .iter()
            .find(|(at, _, _)| *at == event)
            .map(|&(_, before, after)| (before, after))
    }

    /// One reason for the blocks of a group of its hooks that ran at once
    /// at `event`, from their `reasons` in config order.
    pub(crate) fn group_block_reason(self, event: Event, reasons: Vec<String>) -> String {
        match self.group_reason {
            GroupReason::FirstButFollowUpsJoined(_)
                if event.block_policy() != BlockPolicy::FollowUp =>
            {
                reasons.into_iter().next().unwrap_or_default()
            }
            GroupReason::Joined(by) | GroupReason::FirstButFollowUpsJoined(by) => reasons.join(by),
        }
    }

    /// Whether a run gets a task of its own, so that the hooks of a group
    /// that runs at once start side by side (nanopi's run one after
    /// another, on the caller's task).
    pub(crate) const fn runs_on_own_task(self) -> bool {
        !self.callers_task
    }

    /// Whether its files may hold HTTP hooks.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) const fn has_http_hooks(self) -> bool {
        self.http_hooks
    }

    /// Whether a block from a hook in a group run in order stops the rest
    /// of its group (it always stops the groups after it).
    pub(crate) const fn block_ends_group_in_order(self) -> bool {
        self.block_ends_group_in_order
    }
}

impl Default for Dialect {
    fn default() -> Self {
        Dialect::Nanopi
    }
}

impl fmt::Debug for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Dialect").field(&self.name).finish()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
