//! How the verdicts of a chain's hooks make one decision: pure, no futures.
//!
//! A run of hooks one after another [merges](merge) each verdict in as it
//! comes; a group that ran at once is [`Merged`] first, then merged in as a
//! block alone, or as an ask and then a rewrite.

use serde_json::{Map, Value};

use crate::outcome::{Decision, Verdict};

/// What the hooks that ran so far decided, taken together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Decided {
    pub(super) decision: Decision,
    /// The reason of the block, or of the first ask.
    pub(super) reason: Option<String>,
}

impl Default for Decided {
    fn default() -> Self {
        Decided {
            decision: Decision::Allow,
            reason: None,
        }
    }
}

/// What a run does after a verdict is merged in.
#[derive(Debug, PartialEq)]
pub(super) enum Then {
    /// On to the next hook.
    Next,
    /// On to the next hook, with the request's arguments rewritten by this
    /// `updated_input` (within the event's [`TransformScope`](crate::TransformScope)).
    Rewrite(Map<String, Value>),
    /// The chain stops: the hooks after this one do not run.
    Stop,
}

/// Merges a hook's verdict into what the hooks before it decided: a block wins
/// and stops the chain; the first ask gives the reason, and later hooks still
/// run (a block from one of them wins); a rewrite makes the decision a
/// transform, unless it is an ask or a block (they stay; the rewrite still
/// applies).
pub(super) fn merge(decided: Decided, verdict: Verdict) -> (Decided, Then) {
    let Decided { decision, reason } = decided;
    match verdict {
        // After a block (only hooks that let their group run on see one), a
        // later block's reason joins it on a new line.
        Verdict::Block { reason: more, .. } if decision == Decision::Block => {
            let reason = match reason {
                Some(first) => format!("{first}\n{more}"),
                None => more,
            };
            let decided = Decided {
                decision,
                reason: Some(reason),
            };
            (decided, Then::Stop)
        }
        Verdict::Block { reason, .. } => {
            let decided = Decided {
                decision: Decision::Block,
                reason: Some(reason),
            };
            (decided, Then::Stop)
        }
        Verdict::Transform(updated) => {
            let decision = match decision {
                Decision::Ask => Decision::Ask,
                Decision::Block => Decision::Block,
                _ => Decision::Transform,
            };
            (Decided { decision, reason }, Then::Rewrite(updated))
        }
        Verdict::Ask { reason: why } if !matches!(decision, Decision::Ask | Decision::Block) => {
            let decided = Decided {
                decision: Decision::Ask,
                reason: Some(why),
            };
            (decided, Then::Next)
        }
        Verdict::Ask { .. } | Verdict::Allow | Verdict::Skipped | Verdict::FailedOpen { .. } => {
            (Decided { decision, reason }, Then::Next)
        }
    }
}

/// The answers of a group that ran at once, merged: a block beats an ask,
/// which beats an allow; block reasons are kept in config order, for the
/// group's dialect to make one reason of them; the last rewrite in config
/// order wins.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Merged {
    block: Vec<String>,
    ask: Option<String>,
    transform: Option<Map<String, Value>>,
}

impl Merged {
    pub(super) fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Block { reason, .. } => self.block.push(reason),
            Verdict::Ask { reason } => {
                self.ask.get_or_insert(reason);
            }
            Verdict::Transform(updated) => self.transform = Some(updated),
            Verdict::Allow | Verdict::Skipped | Verdict::FailedOpen { .. } => {}
        }
    }

    /// The group's answer as the verdicts to [merge] in, in this order: its
    /// block alone (its reason made by `reason` from every block's, in config
    /// order), or its ask and then its rewrite.
    pub(super) fn into_verdicts(
        self,
        reason: impl FnOnce(Vec<String>) -> String,
    ) -> impl Iterator<Item = Verdict> {
        let block = (!self.block.is_empty()).then(|| reason(self.block));
        let (ask, transform) = match block {
            Some(_) => (None, None),
            None => (self.ask, self.transform),
        };
        let block = block.map(Verdict::block);
        block
            .into_iter()
            .chain(ask.map(Verdict::ask))
            .chain(transform.map(Verdict::Transform))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decided(decision: Decision, reason: Option<&str>) -> Decided {
        Decided {
            decision,
            reason: reason.map(str::to_owned),
        }
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// Merges these verdicts one after another, as a run does, stopping at a stop.
    fn run(verdicts: impl IntoIterator<Item = Verdict>) -> (Decided, Vec<Then>) {
        let mut so_far = Decided::default();
        let mut thens = Vec::new();
        for verdict in verdicts {
            let (next, then) = merge(so_far, verdict);
            so_far = next;
            let stop = then == Then::Stop;
            thens.push(then);
            if stop {
                break;
            }
        }
        (so_far, thens)
    }

    #[test]
    fn nothing_is_an_allow() {
        assert_eq!(run([]).0, decided(Decision::Allow, None));
        let (d, thens) = run([Verdict::Allow, Verdict::Skipped, Verdict::failed_open("x")]);
        assert_eq!(d, decided(Decision::Allow, None));
        assert_eq!(thens, [Then::Next, Then::Next, Then::Next]);
    }

    #[test]
    fn a_block_wins_with_its_reason_and_stops() {
        let (d, thens) = run([
            Verdict::ask("first"),
            Verdict::block("no"),
            Verdict::block("never seen"),
        ]);
        assert_eq!(d, decided(Decision::Block, Some("no")));
        assert_eq!(thens, [Then::Next, Then::Stop]);
    }

    #[test]
    fn a_rewrite_is_a_transform_and_is_handed_on() {
        let (d, thens) = run([Verdict::Transform(obj(json!({"a": 1})))]);
        assert_eq!(d, decided(Decision::Transform, None));
        assert_eq!(thens, [Then::Rewrite(obj(json!({"a": 1})))]);
    }

    #[test]
    fn the_first_ask_keeps_its_reason_through_later_asks_and_rewrites() {
        let (d, thens) = run([
            Verdict::Transform(obj(json!({"a": 1}))),
            Verdict::ask("first"),
            Verdict::ask("second"),
            Verdict::Transform(obj(json!({"a": 2}))),
        ]);
        assert_eq!(d, decided(Decision::Ask, Some("first")));
        assert_eq!(thens[3], Then::Rewrite(obj(json!({"a": 2}))));
    }

    #[test]
    fn a_block_after_an_ask_or_a_rewrite_wins() {
        let (d, _) = run([
            Verdict::Transform(obj(json!({}))),
            Verdict::ask("why"),
            Verdict::timed_out(std::time::Duration::from_millis(5)),
        ]);
        assert_eq!(
            d,
            decided(Decision::Block, Some("hook timed out after 5 ms"))
        );
    }

    fn merged(verdicts: impl IntoIterator<Item = Verdict>) -> Vec<Verdict> {
        let mut merged = Merged::default();
        for verdict in verdicts {
            merged.add(verdict);
        }
        merged.into_verdicts(|reasons| reasons.join("\n")).collect()
    }

    #[test]
    fn a_group_blocks_with_every_block_reason_in_order() {
        let verdicts = merged([
            Verdict::ask("ask"),
            Verdict::block("one"),
            Verdict::Transform(obj(json!({}))),
            Verdict::failed_closed("two"),
        ]);
        assert_eq!(verdicts, [Verdict::block("one\nhook failed closed: two")]);
    }

    #[test]
    fn a_group_asks_with_its_first_reason_then_rewrites_with_its_last() {
        let verdicts = merged([
            Verdict::Transform(obj(json!({"a": 1}))),
            Verdict::ask("first"),
            Verdict::Allow,
            Verdict::ask("second"),
            Verdict::Transform(obj(json!({"a": 2}))),
        ]);
        assert_eq!(
            verdicts,
            [
                Verdict::ask("first"),
                Verdict::Transform(obj(json!({"a": 2})))
            ]
        );
        let (d, _) = run(verdicts);
        assert_eq!(d, decided(Decision::Ask, Some("first")));
    }

    #[test]
    fn after_a_block_rewrites_and_asks_keep_it_and_blocks_join_their_reasons() {
        let blocked = decided(Decision::Block, Some("one"));
        let (d, then) = merge(blocked.clone(), Verdict::Transform(obj(json!({"a": 1}))));
        assert_eq!(
            (d, then),
            (blocked.clone(), Then::Rewrite(obj(json!({"a": 1}))))
        );
        assert_eq!(merge(blocked.clone(), Verdict::ask("later")).0, blocked);
        let (d, _) = merge(blocked, Verdict::block("two"));
        assert_eq!(d, decided(Decision::Block, Some("one\ntwo")));
    }

    #[test]
    fn a_group_of_allows_adds_nothing() {
        assert_eq!(merged([Verdict::Allow, Verdict::Skipped]), []);
    }
}
