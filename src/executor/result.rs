//! ExecutorResult (seed 003 section 4.3): facts and results only. None of the fields section 4.4 forbids
//! (suggested_status, options, candidates, pros, cons, next_action, summary) exist in this type.

use super::action_ledger::ActionRun;
use super::check::Phase;
use super::confirmation::ConfirmationState;
use super::consumption::ValidTransition;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Applied,
    Rejected,
    ReconfirmRequired,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct AppliedBlock {
    pub from_status: String,
    pub to_status: String,
    pub status_changed: bool,
    pub reason: String,
    /// When the confirmation was consumed.
    pub consumed_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct RejectionBlock {
    /// The check step that rejected.
    pub phase: Phase,
    /// Factual reason.
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ReconfirmBlock {
    pub reason: String,
    pub current_status: String,
    /// Transitions the skill reports as possible. The Executor never picks one: a human does.
    pub valid_transitions: Vec<ValidTransition>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ErrorBlock {
    pub message: String,
}

/// The Executor's report. Exactly one of `applied`, `rejection`, `reconfirm`, `error` is set, matching
/// `outcome`. `consumed` records whether this execution consumed the confirmation (seed 003 section
/// 6.2: true only when applied) and `confirmation_state` where it now stands (`null` when not found).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ExecutorResult {
    pub outcome: Outcome,
    pub node_id: String,
    pub confirmation_id: String,
    pub applied: Option<AppliedBlock>,
    pub rejection: Option<RejectionBlock>,
    pub reconfirm: Option<ReconfirmBlock>,
    pub error: Option<ErrorBlock>,
    pub consumed: bool,
    pub confirmation_state: Option<ConfirmationState>,
    /// Set when the audit record could not be written or its sink did not settle in time. The outcome
    /// above stands either way.
    #[serde(default)]
    pub audit_error: Option<String>,
    /// With `action_in_flight` or `action_already_ran`: the run of the same action by another
    /// confirmation, as the action ledger holds it (which confirmation, where it stands, what it applied).
    #[serde(default)]
    pub first_run: Option<ActionRun>,
}

impl ExecutorResult {
    fn base(
        outcome: Outcome,
        node_id: &str,
        confirmation_id: &str,
        state: Option<ConfirmationState>,
    ) -> Self {
        Self {
            outcome,
            node_id: node_id.to_owned(),
            confirmation_id: confirmation_id.to_owned(),
            applied: None,
            rejection: None,
            reconfirm: None,
            error: None,
            consumed: outcome == Outcome::Applied,
            confirmation_state: state,
            audit_error: None,
            first_run: None,
        }
    }

    pub fn applied(node_id: &str, confirmation_id: &str, block: AppliedBlock) -> Self {
        Self {
            applied: Some(block),
            ..Self::base(
                Outcome::Applied,
                node_id,
                confirmation_id,
                Some(ConfirmationState::Consumed),
            )
        }
    }

    pub fn rejected(
        node_id: &str,
        confirmation_id: &str,
        block: RejectionBlock,
        state: Option<ConfirmationState>,
    ) -> Self {
        Self {
            rejection: Some(block),
            ..Self::base(Outcome::Rejected, node_id, confirmation_id, state)
        }
    }

    pub fn reconfirm_required(
        node_id: &str,
        confirmation_id: &str,
        block: ReconfirmBlock,
        state: ConfirmationState,
    ) -> Self {
        Self {
            reconfirm: Some(block),
            ..Self::base(
                Outcome::ReconfirmRequired,
                node_id,
                confirmation_id,
                Some(state),
            )
        }
    }

    pub fn error(
        node_id: &str,
        confirmation_id: &str,
        message: String,
        state: Option<ConfirmationState>,
    ) -> Self {
        Self {
            error: Some(ErrorBlock { message }),
            ..Self::base(Outcome::Error, node_id, confirmation_id, state)
        }
    }
}
