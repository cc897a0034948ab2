//! The Confirmation Object: a human's approval of one proposed change, and its lifecycle in the store.

use super::mandate::Mandate;
use super::passkey::PasskeyAssertion;
use crate::input::{InputError, Validate, require_non_empty};
use crate::timestamp::{EpochMillis, format_rfc3339, parse_rfc3339};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// The change a human approved: on node `node_id`, move from status `from` to status `to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ProposedChange {
    /// Which skill the change belongs to, e.g. `"status_change"` (seed 003 section 10.2).
    #[serde(rename = "type")]
    pub change_type: String,
    pub from: String,
    pub to: String,
}

/// Who confirmed. Only a human can; anything else does not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmedBy {
    Human,
}

/// Where a confirmation is in its life. Derived from the stored fields, never stored itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmationState {
    /// Usable by one Apply.
    Approved,
    /// Reserved by an Executor whose Apply has started and not been committed. Never applied again
    /// automatically: a human reconciles it.
    InFlight,
    /// Used by a successful Apply.
    Consumed,
    /// Withdrawn by a human.
    Cancelled,
    /// Its precondition no longer held (seed 003 step 6): never usable again.
    Invalidated,
}

/// The Confirmation Object (seed 003 section 2.3, 23 section 2), signed by the approval side.
///
/// The binding fields (everything up to `ui_action`) are covered by `signature`; the lifecycle fields
/// (`consumed`, `consumed_at`, `cancelled`, `in_flight_at`, `invalidated_at`) change as it is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct Confirmation {
    pub confirmation_id: String,
    pub node_id: String,
    pub proposed_change: ProposedChange,
    /// The material of the original proposal.
    pub intent: String,
    /// Why the human confirmed.
    pub reason: String,
    pub confirmed_by: ConfirmedBy,
    /// RFC 3339; the confirmation expires 24 hours later.
    pub confirmed_at: String,
    /// The UI gesture that confirmed, e.g. `"approve_button"`.
    pub ui_action: String,
    /// The guard (or inbox) this approval is for: a guard configured with an audience refuses a
    /// confirmation made for another, and one made for no audience. Signed with the binding fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub audience: Option<String>,
    /// The action this approval is for (a tool call's id, a loop action's id, an approval's id): however
    /// many confirmations approve one action, at most one of them runs it. Signed with the binding fields.
    /// Without it the action is the confirmation itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub action_id: Option<String>,
    /// Id of the approval-side key that signed it.
    #[serde(default)]
    pub key_id: Option<String>,
    /// Lower-case hex signature over the canonical encoding of the binding fields: HMAC-SHA256 or Ed25519,
    /// by the key `key_id` names.
    #[serde(default)]
    pub signature: Option<String>,
    /// Instead of `signature`: the approver's passkey assertion, whose challenge is the SHA-256 of the
    /// canonical encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub assertion: Option<PasskeyAssertion>,
    /// Instead of a person's signature on this change: the standing approval it was made under (a
    /// [`Mandate`] that covers exactly this change), with no `key_id`, `signature` or `assertion` of its own.
    /// Only an Executor's own use of a registered mandate makes such a confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub mandate: Option<Box<Mandate>>,
    #[serde(default)]
    pub consumed: bool,
    #[serde(default)]
    pub consumed_at: Option<String>,
    #[serde(default)]
    pub cancelled: bool,
    /// Set while an Apply is under way (reserved by compare-and-swap).
    #[serde(default)]
    pub in_flight_at: Option<String>,
    /// Set when step 6 found the precondition broken.
    #[serde(default)]
    pub invalidated_at: Option<String>,
    /// Written by an Executor that holds a seal key: a MAC over the whole stored record, so a lifecycle
    /// field changed in the store (by anyone without the key) is refused, not trusted. Never sent by a client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub seal: Option<String>,
}

/// Store key under which a confirmation lives.
pub fn store_key(confirmation_id: &str) -> String {
    format!("confirmation/{confirmation_id}")
}

impl Confirmation {
    /// The action this confirmation approves: its `action_id`, or, without one, the confirmation itself.
    pub fn action(&self) -> &str {
        self.action_id.as_deref().unwrap_or(&self.confirmation_id)
    }

    pub fn state(&self) -> ConfirmationState {
        if self.consumed {
            ConfirmationState::Consumed
        } else if self.in_flight_at.is_some() {
            ConfirmationState::InFlight
        } else if self.invalidated_at.is_some() {
            ConfirmationState::Invalidated
        } else if self.cancelled {
            ConfirmationState::Cancelled
        } else {
            ConfirmationState::Approved
        }
    }

    /// approved -> in_flight: reserved for one Apply.
    pub fn reserved(&self, now: EpochMillis) -> Self {
        Self {
            in_flight_at: Some(format_rfc3339(now)),
            ..self.clone()
        }
    }

    /// in_flight -> consumed: the Apply succeeded.
    pub fn committed(&self, now: EpochMillis) -> Self {
        Self {
            consumed: true,
            consumed_at: Some(format_rfc3339(now)),
            in_flight_at: None,
            ..self.clone()
        }
    }

    /// in_flight -> invalidated: the precondition broke; never usable again.
    pub fn invalidated(&self, now: EpochMillis) -> Self {
        Self {
            invalidated_at: Some(format_rfc3339(now)),
            in_flight_at: None,
            ..self.clone()
        }
    }

    /// approved -> cancelled: withdrawn by a human.
    pub fn cancelled(&self) -> Self {
        Self {
            cancelled: true,
            ..self.clone()
        }
    }
}

impl Validate for Confirmation {
    /// The identifying fields are not empty.
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("confirmation_id", &self.confirmation_id)?;
        require_non_empty("node_id", &self.node_id)?;
        require_non_empty("proposed_change.type", &self.proposed_change.change_type)?;
        require_non_empty("proposed_change.to", &self.proposed_change.to)?;
        require_non_empty("confirmed_at", &self.confirmed_at)?;
        if let Some(audience) = &self.audience {
            require_non_empty("audience", audience)?;
        }
        if let Some(action_id) = &self.action_id {
            crate::executor::action_ledger::validate_action_id("action_id", action_id)?;
        }
        parse_rfc3339(&self.confirmed_at)
            .map(|_| ())
            .map_err(|why| InputError::invalid("confirmed_at", why))
    }
}
