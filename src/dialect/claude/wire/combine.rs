//! How the answers of the Claude Code hooks that ran side by side are merged.

use serde_json::{Map, Value};

use super::{ClaudeAnswer, ClaudeDecision};

// --- combination ------------------------------------------------------------

/// The merged answer of one group of Claude Code hooks that ran side by side.
/// See [`combine`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Combined {
    /// The strongest decision of the foreground hooks: block > defer > ask > allow.
    pub decision: ClaudeDecision,
    /// For a block: whether any of the blocks takes effect. `true` otherwise.
    pub honored: bool,
    /// For a block: the reasons of the blocks that decided (the honored ones when
    /// any is honored), joined with a newline in config order. For an ask or a
    /// defer: the asks' reasons, joined likewise. `None` for an allow.
    pub reason: Option<String>,
    /// The tool input after the rewrites: the last foreground `updatedInput` in
    /// config order.
    pub updated_input: Option<Map<String, Value>>,
    /// The tool output after the rewrites: the last foreground
    /// `updatedToolOutput` in config order.
    pub updated_tool_output: Option<Value>,
    /// The position (in the group, from 0) of the answer whose rewrite
    /// (`updated_input` or `updated_tool_output`) won.
    pub rewritten_by: Option<usize>,
    /// The positions of the answers whose rewrites were overridden by a later
    /// one, in config order.
    pub overridden_rewrites: Vec<usize>,
    /// Every answer's context, in config order (background answers included).
    pub context: Vec<String>,
    /// Every answer's user messages, in config order (background answers
    /// included).
    pub user_messages: Vec<String>,
    /// The foreground stop requests' reasons, the non-empty ones joined with a
    /// newline (`Some("")` when every reason is empty).
    pub stop: Option<String>,
    /// The foreground follow-ups joined with a newline, in config order.
    pub follow_up: Option<String>,
}

/// Merges the answers of one group of Claude Code hooks, given in config
/// order (whatever order they finished in) as `(answer, background)` pairs.
///
/// * The decision is the strongest foreground one: block > defer > ask > allow.
///   A background (`async`) hook's decision, rewrites and stop request change
///   nothing; its context and messages are kept.
/// * Contexts and user messages: all of them, in config order.
/// * Rewrites: the last in config order wins; [`Combined::overridden_rewrites`]
///   names the ones it overrode.
/// * Reasons, follow-ups and stop reasons of several hooks are joined with a
///   newline, in config order.
///
/// A failed answer (with an [`error`](ClaudeAnswer#structfield.error)) is an
/// allow with nothing to add.
///
/// ```
/// use tower_hooks::dialect::claude::{combine, decode, ClaudeDecision};
///
/// let ask = decode(Some(0), br#"{"hookSpecificOutput":{"permissionDecision":"ask"}}"#, b"", "PreToolUse");
/// let deny = decode(Some(2), b"", b"no", "PreToolUse");
/// let late = decode(Some(2), b"", b"too late", "PreToolUse");
/// let merged = combine([(&ask, false), (&deny, false), (&late, true)]);
/// assert_eq!(merged.decision, ClaudeDecision::Block);
/// assert_eq!(merged.reason.as_deref(), Some("no"));
/// ```
pub fn combine<'a, I>(answers: I) -> Combined
where
    I: IntoIterator<Item = (&'a ClaudeAnswer, bool)>,
{
    let answers: Vec<(usize, &ClaudeAnswer, bool)> = answers
        .into_iter()
        .enumerate()
        .map(|(i, (answer, background))| (i, answer, background))
        .collect();
    let foreground = || answers.iter().filter(|(_, _, background)| !background);

    let decision = foreground().fold(ClaudeDecision::Allow, |d, (_, a, _)| d.stronger(a.decision));
    let honored = decision != ClaudeDecision::Block
        || foreground().any(|(_, a, _)| a.decision == ClaudeDecision::Block && a.honored);
    let reason = match decision {
        ClaudeDecision::Allow => None,
        ClaudeDecision::Block => joined(
            foreground()
                .filter(|(_, a, _)| a.decision == ClaudeDecision::Block && a.honored == honored)
                .filter_map(|(_, a, _)| a.reason.as_deref()),
        ),
        ClaudeDecision::Ask | ClaudeDecision::Defer => joined(
            foreground()
                .filter(|(_, a, _)| {
                    matches!(a.decision, ClaudeDecision::Ask | ClaudeDecision::Defer)
                })
                .filter_map(|(_, a, _)| a.reason.as_deref()),
        ),
    };

    let rewrites: Vec<usize> = foreground()
        .filter(|(_, a, _)| a.updated_input.is_some() || a.updated_tool_output.is_some())
        .map(|(i, _, _)| *i)
        .collect();
    let rewritten_by = rewrites.last().copied();
    let overridden_rewrites = rewrites
        .split_last()
        .map(|(_, earlier)| earlier.to_vec())
        .unwrap_or_default();
    let updated_input = foreground()
        .rev()
        .find_map(|(_, a, _)| a.updated_input.as_ref())
        .cloned();
    let updated_tool_output = foreground()
        .rev()
        .find_map(|(_, a, _)| a.updated_tool_output.as_ref())
        .cloned();

    let stops: Vec<&str> = foreground()
        .filter_map(|(_, a, _)| a.stop.as_deref())
        .collect();
    let stop = (!stops.is_empty())
        .then(|| joined(stops.iter().copied().filter(|s| !s.is_empty())).unwrap_or_default());

    Combined {
        decision,
        honored,
        reason,
        updated_input,
        updated_tool_output,
        rewritten_by,
        overridden_rewrites,
        context: answers
            .iter()
            .flat_map(|(_, a, _)| a.context.iter().cloned())
            .collect(),
        user_messages: answers
            .iter()
            .flat_map(|(_, a, _)| a.user_messages.iter().cloned())
            .collect(),
        stop,
        follow_up: joined(foreground().filter_map(|(_, a, _)| a.follow_up.as_deref())),
    }
}

/// The texts joined with a newline, or `None` when there are none.
fn joined<'s>(texts: impl Iterator<Item = &'s str>) -> Option<String> {
    let mut out: Option<String> = None;
    for text in texts {
        match &mut out {
            None => out = Some(text.to_owned()),
            Some(all) => {
                all.push('\n');
                all.push_str(text);
            }
        }
    }
    out
}
