//! Issuing a Confirmation Object from a human's "y": a fresh id, the host's clock, the approver's key.

use super::confirmation::{Confirmation, ConfirmedBy, ProposedChange};
use super::signature::Signer;
use crate::input::{InputError, Validate, require_non_empty};
use crate::timestamp::{EpochMillis, format_rfc3339};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// What the human is shown and says "y" to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ConfirmationDraft {
    pub node_id: String,
    pub proposed_change: ProposedChange,
    pub intent: String,
    pub reason: String,
    /// The UI gesture that confirmed, e.g. `"approve_button"`.
    pub ui_action: String,
    /// The action approved (a tool call's id, a loop action's id): at most one confirmation of it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub action_id: Option<String>,
}

/// A new random (version 4) UUID from the platform's secure random source.
pub fn random_confirmation_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string())
}

/// Issues a signed, unconsumed confirmation of `draft`, confirmed by a human at `now`.
pub fn issue_confirmation(
    draft: &ConfirmationDraft,
    signer: &Signer,
    now: EpochMillis,
    confirmation_id: String,
) -> Result<Confirmation, InputError> {
    draft.validate()?;
    let unsigned = Confirmation {
        confirmation_id,
        node_id: draft.node_id.clone(),
        proposed_change: draft.proposed_change.clone(),
        intent: draft.intent.clone(),
        reason: draft.reason.clone(),
        confirmed_by: ConfirmedBy::Human,
        confirmed_at: format_rfc3339(now),
        ui_action: draft.ui_action.clone(),
        key_id: None,
        signature: None,
        assertion: None,
        mandate: None,
        consumed: false,
        consumed_at: None,
        cancelled: false,
        in_flight_at: None,
        invalidated_at: None,
        audience: None,
        action_id: draft.action_id.clone(),
        seal: None,
    };
    Ok(signer.sign(unsigned))
}

impl Validate for ConfirmationDraft {
    /// The identifying fields are not empty.
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("node_id", &self.node_id)?;
        require_non_empty("proposed_change.type", &self.proposed_change.change_type)?;
        require_non_empty("proposed_change.to", &self.proposed_change.to)?;
        require_non_empty("ui_action", &self.ui_action)?;
        match &self.action_id {
            Some(action_id) => super::action_ledger::validate_action_id("action_id", action_id),
            None => Ok(()),
        }
    }
}
