//! The Executor's part in standing approvals: registering a signed mandate, making the confirmation of a
//! change it covers (reserving one use for it, see [`super::record::reserve_use`]; the Apply then checks the
//! reservation, [`super::record::check_use`]), and reading its record. Revoking is a signed human action,
//! `revoke_mandate`.

use super::cover::{covers_agent, covers_change};
use super::model::Mandate;
use super::record::{
    MandateRecord, UseRefused, mandate_key, read_record, record_version, reserve_use,
};
use super::signing::check_mandate;
use crate::executor::check::{Phase, Rejection};
use crate::executor::confirmation::{Confirmation, ConfirmedBy, ProposedChange, store_key};
use crate::executor::ledger::was_consumed;
use crate::executor::messages;
use crate::executor::run::Executor;
use crate::executor::storage::StorageError;
use crate::input::{InputError, Validate, require_non_empty, to_json_string};
use crate::ports::{AuditSink, Clock, Skill, Store};
use crate::timestamp::format_rfc3339;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// A change an agent proposes, to be applied under a standing approval instead of asking a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct MandateUse {
    /// The registered mandate to apply it under.
    pub mandate_id: String,
    /// The id the confirmation is stored under (an approval's id).
    pub confirmation_id: String,
    /// The agent proposing, as the host authenticated it.
    pub agent_id: String,
    pub node_id: String,
    pub proposed_change: ProposedChange,
    pub intent: String,
    #[serde(default)]
    pub reason: String,
    /// The action it runs (a tool call's id, an approval's id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub action_id: Option<String>,
}

impl Validate for MandateUse {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("mandate_id", &self.mandate_id)?;
        require_non_empty("confirmation_id", &self.confirmation_id)?;
        require_non_empty("agent_id", &self.agent_id)?;
        require_non_empty("node_id", &self.node_id)?;
        require_non_empty("proposed_change.type", &self.proposed_change.change_type)?;
        if let Some(action_id) = &self.action_id {
            crate::executor::action_ledger::validate_action_id("action_id", action_id)?;
        }
        Ok(())
    }
}

/// What became of a change asked to run under a mandate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum MandateOutcome {
    /// The mandate covers it: one use is reserved for it and its confirmation is stored, approved, for one
    /// Apply.
    Confirmed {
        confirmation: Box<Confirmation>,
        /// Uses left after this one.
        uses_left: u32,
    },
    /// The mandate does not cover it (another agent, kind or parameter): a person must decide.
    NotCovered { reason: String },
    /// The mandate cannot be used: `not_found`, `mandate_revoked`, `mandate_used_up`, `mandate_expired`,
    /// `signature_invalid`, `wrong_audience`, or the store failed (`store_failed`, `already_exists`).
    Refused { phase: String, reason: String },
}

impl MandateOutcome {
    fn refused(rejection: Rejection) -> Self {
        Self::Refused {
            phase: rejection.phase.as_str().to_owned(),
            reason: rejection.reason,
        }
    }

    fn failed(code: &str, reason: impl Into<String>) -> Self {
        Self::Refused {
            phase: code.to_owned(),
            reason: reason.into(),
        }
    }
}

impl<S: Store, K: Skill, C: Clock, A: AuditSink> Executor<S, K, C, A> {
    /// Registers a person's signed mandate: authentic, for this Executor's audience, not expired, under an
    /// id not yet taken. Returns its record. For a passkey, the signature counter is returned for the host
    /// to compare with the key's last one.
    pub async fn save_mandate(
        &self,
        mandate: &Mandate,
    ) -> Result<(MandateRecord, Option<u32>), StorageError> {
        let now = self.clock.now().map_err(|error| {
            StorageError::Port(messages::clock_failed(
                self.options.language,
                &error.to_string(),
            ))
        })?;
        let sign_count = check_mandate(
            mandate,
            &self.keys,
            self.options.audience.as_deref(),
            now,
            self.options.clock_skew_ms,
        )
        .map_err(StorageError::Refused)?;
        let record = MandateRecord {
            mandate: mandate.clone(),
            saved_at: format_rfc3339(now),
            used_by: Vec::new(),
            revoked_at: None,
            revoked_by: None,
        };
        match self
            .store
            .compare_and_swap(
                &mandate_key(&mandate.mandate_id),
                None,
                &to_json_string(&record),
            )
            .await
        {
            Ok(true) => Ok((record, sign_count)),
            Ok(false) => Err(StorageError::AlreadyExists),
            Err(error) => Err(StorageError::Port(error.message)),
        }
    }

    /// A mandate's record and its version (what a `revoke_mandate` must name), or `None`.
    pub async fn mandate_record(
        &self,
        mandate_id: &str,
    ) -> Result<Option<(MandateRecord, String)>, StorageError> {
        read_record(&self.store, mandate_id)
            .await
            .map(|found| {
                found.map(|(record, _)| {
                    let version = record_version(&record);
                    (record, version)
                })
            })
            .map_err(StorageError::Malformed)
    }

    /// Makes and stores the confirmation of `request` under its mandate, when the mandate is registered,
    /// live, has a use left, is for the agent, and covers the change; one use is reserved for it, once.
    pub async fn confirm_by_mandate(&self, request: &MandateUse) -> MandateOutcome {
        let language = self.options.language;
        let now = match self.clock.now() {
            Ok(now) => now,
            Err(error) => {
                return MandateOutcome::failed(
                    "store_failed",
                    messages::clock_failed(language, &error.to_string()),
                );
            }
        };
        let record = match read_record(&self.store, &request.mandate_id).await {
            Ok(Some((record, _))) => record,
            Ok(None) => {
                return MandateOutcome::refused(Rejection::new(
                    Phase::NotFound,
                    format!(
                        "No standing approval {} is registered here.",
                        request.mandate_id
                    ),
                ));
            }
            Err(why) => return MandateOutcome::failed("store_failed", why),
        };
        let mandate = record.mandate.clone();
        let mandate_id = mandate.mandate_id.clone();
        if let Err(rejection) = check_mandate(
            &mandate,
            &self.keys,
            self.options.audience.as_deref(),
            now,
            self.options.clock_skew_ms,
        ) {
            return MandateOutcome::refused(rejection);
        }
        if let Some(at) = &record.revoked_at {
            return MandateOutcome::refused(Rejection::new(
                Phase::MandateRevoked,
                format!(
                    "Standing approval {} was revoked at {at}.",
                    mandate.mandate_id
                ),
            ));
        }
        let uses_left = record.uses_left();
        if uses_left == 0 {
            return MandateOutcome::refused(Rejection::new(
                Phase::MandateUsedUp,
                format!(
                    "Standing approval {} has been used all {} times.",
                    mandate.mandate_id, mandate.max_uses
                ),
            ));
        }
        let covered = covers_agent(&mandate, &request.agent_id, language).and_then(|()| {
            covers_change(
                &mandate,
                &request.node_id,
                &request.proposed_change,
                language,
            )
        });
        if let Err(reason) = covered {
            return MandateOutcome::NotCovered { reason };
        }
        // Dated within the mandate's life even when its signer's clock ran ahead of this host's.
        let issued = mandate.window().map_or(now, |(issued, _)| issued);
        let confirmation = Confirmation {
            confirmation_id: request.confirmation_id.clone(),
            node_id: request.node_id.clone(),
            proposed_change: request.proposed_change.clone(),
            intent: request.intent.clone(),
            reason: request.reason.clone(),
            confirmed_by: ConfirmedBy::Human,
            confirmed_at: format_rfc3339(now.max(issued)),
            ui_action: "mandate".to_owned(),
            audience: mandate.audience.clone(),
            action_id: request.action_id.clone(),
            key_id: None,
            signature: None,
            assertion: None,
            mandate: Some(Box::new(mandate)),
            consumed: false,
            consumed_at: None,
            cancelled: false,
            in_flight_at: None,
            invalidated_at: None,
            seal: None,
        };
        match was_consumed(&self.store, &confirmation.confirmation_id).await {
            Ok(false) => {}
            Ok(true) => {
                return MandateOutcome::refused(Rejection::new(
                    Phase::AlreadyConsumed,
                    messages::already_consumed(
                        language,
                        "an earlier Apply (the consumed-id ledger)",
                    ),
                ));
            }
            Err(error) => return MandateOutcome::failed("store_failed", error.message),
        }
        // The use is reserved before the confirmation exists: no confirmation without its use, none past N.
        match reserve_use(&self.store, &mandate_id, &confirmation.confirmation_id).await {
            Ok(()) => {}
            Err(UseRefused::Refused(rejection)) => return MandateOutcome::refused(rejection),
            Err(UseRefused::Failed(why)) => return MandateOutcome::failed("store_failed", why),
        }
        let text = self.text_of(confirmation.clone());
        match self
            .store
            .compare_and_swap(&store_key(&confirmation.confirmation_id), None, &text)
            .await
        {
            Ok(true) => MandateOutcome::Confirmed {
                confirmation: Box::new(
                    crate::input::parse_valid_json_str::<Confirmation>(&text)
                        .unwrap_or(confirmation),
                ),
                uses_left: uses_left.saturating_sub(1),
            },
            Ok(false) => MandateOutcome::failed(
                "already_exists",
                format!("A confirmation {} already exists.", request.confirmation_id),
            ),
            Err(error) => MandateOutcome::failed("store_failed", error.message),
        }
    }
}
