//! ExecutorRequest (seed 003 section 4.1) and the Apply request built from it (section 4.2).

use super::confirmation::Confirmation;
use crate::input::{InputError, Validate, require_non_empty};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// What the Executor is asked to apply. It must match the confirmation's approved content exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct RequestedApply {
    pub node_id: String,
    /// The status to set; must equal the confirmation's `proposed_change.to`.
    pub confirm_status: String,
    /// The material of the original proposal; must equal the confirmation's `intent`.
    pub intent: String,
    /// Why it was confirmed; must equal the confirmation's `reason`.
    pub reason: String,
    /// The action the caller is running (a tool call's id, a loop action's): when given, the confirmation
    /// must approve exactly this action, so an approval made for no action, or another, is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub action_id: Option<String>,
}

/// Input of the Executor: which confirmation to consume, and what to apply with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ExecutorRequest {
    pub confirmation_id: String,
    pub apply_request: RequestedApply,
}

impl ExecutorRequest {
    /// The request that applies exactly what `confirmation` approved.
    pub fn for_confirmation(confirmation: &Confirmation) -> Self {
        Self {
            confirmation_id: confirmation.confirmation_id.clone(),
            apply_request: RequestedApply {
                node_id: confirmation.node_id.clone(),
                confirm_status: confirmation.proposed_change.to.clone(),
                intent: confirmation.intent.clone(),
                reason: confirmation.reason.clone(),
                action_id: confirmation.action_id.clone(),
            },
        }
    }
}

/// Who performs an Apply (seed 003 section 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Route B: an agent proposed, a human confirmed, the Executor applies.
    AiAgent,
    /// Route A: a human applies directly from the UI (the confirmation is implicit in the click).
    HumanUi,
}

/// The body sent to the skill's Apply (seed 003 section 4.2). Everything comes from the request or the
/// confirmation; the Executor adds only `source`. `confirmation` is the whole Confirmation Object (seed
/// 003 section 2.1, 18 section 3.2), signature included, so the receiving guard can verify it itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ApplyRequest {
    pub node_id: String,
    pub intent: String,
    pub confirm_status: String,
    pub reason: String,
    pub source: Source,
    pub confirmation: Confirmation,
    /// The same on every attempt of one action, whichever confirmation approves it: a skill that calls
    /// an upstream passes it on (an `Idempotency-Key` header, MCP `_meta`), so the action runs once even
    /// when the Executor's own record is lost. Lower-case hex.
    #[serde(default)]
    pub idempotency_key: String,
}

/// The idempotency key of `confirmation`'s action: the hex name of its entry in the action ledger.
pub fn idempotency_key(confirmation: &Confirmation) -> String {
    super::action_ledger::action_run_key(confirmation)
        .trim_start_matches("action-run/")
        .to_owned()
}

/// Route B: the Apply request for a verified ExecutorRequest, copied without any change.
pub fn executor_apply_request(
    request: &ExecutorRequest,
    confirmation: &Confirmation,
) -> ApplyRequest {
    let requested = &request.apply_request;
    ApplyRequest {
        node_id: requested.node_id.clone(),
        intent: requested.intent.clone(),
        confirm_status: requested.confirm_status.clone(),
        reason: requested.reason.clone(),
        source: Source::AiAgent,
        idempotency_key: idempotency_key(confirmation),
        confirmation: confirmation.clone(),
    }
}

/// Route A: a human applies directly from the UI. The click is the confirmation (seed 23 section 4.3): it
/// is issued and signed on the spot and travels with the request, marked `source: "human_ui"`.
pub fn direct_apply_request(confirmation: &Confirmation) -> ApplyRequest {
    ApplyRequest {
        node_id: confirmation.node_id.clone(),
        intent: confirmation.intent.clone(),
        confirm_status: confirmation.proposed_change.to.clone(),
        reason: confirmation.reason.clone(),
        source: Source::HumanUi,
        idempotency_key: idempotency_key(confirmation),
        confirmation: confirmation.clone(),
    }
}

impl Validate for ExecutorRequest {
    /// The identifying fields are not empty.
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("confirmation_id", &self.confirmation_id)?;
        require_non_empty("apply_request.node_id", &self.apply_request.node_id)?;
        require_non_empty(
            "apply_request.confirm_status",
            &self.apply_request.confirm_status,
        )
    }
}
