//! The agent about to stop: [`StopDecision`], and the count of follow-ups in a
//! row that bounds how often stop hooks may send the agent back to work.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use crate::outcome::HookOutcome;
use crate::sync::lock;

/// How many follow-ups in a row stop hooks may cause before the stop is
/// allowed anyway: 8, Claude Code's default cap.
pub const DEFAULT_FOLLOW_UP_CAP: u32 = 8;

/// Whether a stop hook's block still sends the agent back to work, after
/// `sent` follow-ups in a row in this session. After `cap` of them the stop is
/// allowed anyway; a cap of 0 never stops the loop (Claude Code's
/// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0`).
pub(crate) const fn follow_up_allowed(sent: u32, cap: u32) -> bool {
    cap == 0 || sent < cap
}

/// What becomes of the agent (or a subagent) about to stop: it stops, or it
/// keeps going with an instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopDecision {
    /// Stop: no hook sent it back, a hook asked to stop the agent
    /// (`continue: false`), or the follow-up cap was reached.
    Finish,
    /// Keep going: this is the agent's next instruction (a stop hook's block
    /// reason, or a hook's follow-up).
    KeepGoing(String),
}

impl StopDecision {
    /// The decision for `outcome`, after `sent` follow-ups in a row, with `cap`
    /// follow-ups allowed in a row (0: no cap).
    pub(crate) fn of(outcome: &HookOutcome, sent: u32, cap: u32) -> Self {
        if outcome.stop().is_some() {
            return StopDecision::Finish;
        }
        match outcome.follow_up() {
            Some(instruction) if follow_up_allowed(sent, cap) => {
                StopDecision::KeepGoing(instruction.to_owned())
            }
            _ => StopDecision::Finish,
        }
    }

    /// The instruction to keep going with, unless the agent stops.
    pub fn instruction(&self) -> Option<&str> {
        match self {
            StopDecision::Finish => None,
            StopDecision::KeepGoing(instruction) => Some(instruction),
        }
    }

    /// Whether the agent stops.
    pub fn is_finish(&self) -> bool {
        matches!(self, StopDecision::Finish)
    }
}

/// Follow-ups in a row: the agent's, and each running subagent's (by
/// `agent_id`). Shared by the clones of a facade, as the session is.
#[derive(Debug, Default)]
pub(crate) struct FollowUps {
    agent: AtomicU32,
    subagents: Mutex<HashMap<String, u32>>,
}

impl FollowUps {
    /// The agent's follow-ups in a row.
    pub(crate) fn agent(&self) -> u32 {
        self.agent.load(Ordering::Acquire)
    }

    /// Records the agent's decision made after `sent` follow-ups in a row.
    pub(crate) fn agent_decided(&self, sent: u32, decision: &StopDecision) {
        let next = match decision {
            StopDecision::Finish => 0,
            StopDecision::KeepGoing(_) => sent.saturating_add(1),
        };
        self.agent.store(next, Ordering::Release);
    }

    /// Forgets the agent's follow-ups (a new turn: the person, not a hook, set
    /// it going).
    pub(crate) fn reset_agent(&self) {
        self.agent.store(0, Ordering::Release);
    }

    /// Subagent `agent_id`'s follow-ups in a row.
    pub(crate) fn subagent(&self, agent_id: &str) -> u32 {
        self.subagents().get(agent_id).copied().unwrap_or(0)
    }

    /// Records subagent `agent_id`'s decision made after `sent` follow-ups in a
    /// row; a finished subagent is forgotten.
    pub(crate) fn subagent_decided(&self, agent_id: &str, sent: u32, decision: &StopDecision) {
        let mut subagents = self.subagents();
        match decision {
            StopDecision::Finish => {
                subagents.remove(agent_id);
            }
            StopDecision::KeepGoing(_) => {
                subagents.insert(agent_id.to_owned(), sent.saturating_add(1));
            }
        }
    }

    /// Forgets subagent `agent_id`'s follow-ups (it starts afresh).
    pub(crate) fn reset_subagent(&self, agent_id: &str) {
        self.subagents().remove(agent_id);
    }

    fn subagents(&self) -> std::sync::MutexGuard<'_, HashMap<String, u32>> {
        lock(&self.subagents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::HookRequest;

    #[test]
    fn no_follow_up_finishes_and_the_cap_bounds_a_follow_up() {
        let allow = HookOutcome::allow(HookRequest::stop(false, "done"));
        assert_eq!(StopDecision::of(&allow, 0, 8), StopDecision::Finish);
        assert_eq!(StopDecision::Finish.instruction(), None);
        assert!(StopDecision::Finish.is_finish());
        let go_on = StopDecision::KeepGoing("run the tests".into());
        assert_eq!(go_on.instruction(), Some("run the tests"));
        assert!(!go_on.is_finish());
    }

    #[test]
    fn counts_follow_ups_in_a_row_per_agent_and_forgets_on_finish() {
        let counts = FollowUps::default();
        let go_on = StopDecision::KeepGoing("more".into());
        counts.agent_decided(counts.agent(), &go_on);
        counts.agent_decided(counts.agent(), &go_on);
        assert_eq!(counts.agent(), 2);
        counts.agent_decided(2, &StopDecision::Finish);
        assert_eq!(counts.agent(), 0);
        counts.agent_decided(u32::MAX, &go_on);
        assert_eq!(counts.agent(), u32::MAX, "saturates");
        counts.reset_agent();
        assert_eq!(counts.agent(), 0);

        counts.subagent_decided("a", 0, &go_on);
        counts.subagent_decided("b", 0, &go_on);
        counts.subagent_decided("a", 1, &go_on);
        assert_eq!((counts.subagent("a"), counts.subagent("b")), (2, 1));
        counts.subagent_decided("a", 2, &StopDecision::Finish);
        assert_eq!((counts.subagent("a"), counts.subagent("b")), (0, 1));
        counts.reset_subagent("b");
        assert_eq!(counts.subagent("b"), 0);
        assert!(counts.subagents().is_empty());
    }

    #[test]
    fn the_follow_up_cap_allows_the_stop_after_eight_in_a_row() {
        assert_eq!(DEFAULT_FOLLOW_UP_CAP, 8);
        for sent in 0..8 {
            assert!(follow_up_allowed(sent, DEFAULT_FOLLOW_UP_CAP));
        }
        assert!(!follow_up_allowed(8, DEFAULT_FOLLOW_UP_CAP));
        assert!(!follow_up_allowed(u32::MAX, DEFAULT_FOLLOW_UP_CAP));
        assert!(follow_up_allowed(0, 1) && !follow_up_allowed(1, 1));
        assert!(follow_up_allowed(u32::MAX, 0));
    }
}
