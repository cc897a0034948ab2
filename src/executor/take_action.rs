//! A person's signed actions carried out by the Executor, once each: saving an approval, and declining,
//! cancelling, reconciling or changing keys. Every action is verified with the Executor's keys, must be
//! recent, must name the current version of what it acts on, and its nonce is recorded before anything
//! changes, so a replayed or stale action changes nothing.

use super::action_ledger::record_reconciled;
use super::check::{Phase, Rejection};
use super::confirmation::{Confirmation, ConfirmationState, store_key};
use super::human_action::stale;
use super::human_action::{HumanAction, HumanActionKind, check_human_action};
use super::ledger::{record_action, record_consumed, replayed, was_consumed, was_used};
use super::mandate::record::{MandateRecord, read_record, record_version, revoke};
use super::messages;
use super::run::Executor;
use super::state_version::state_version;
use super::storage::StorageError;
use crate::input::parse_valid_json_str;
use crate::ports::{AuditSink, Clock, Skill, Store};
use crate::timestamp::parse_rfc3339;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// What became of a signed human action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ActionOutcome {
    /// Verified, recorded as used, and (for cancel and reconcile) the confirmation moved on.
    Taken {
        action: HumanActionKind,
        /// The passkey's signature counter for an assertion (`null` otherwise), for the key's holder to
        /// compare with the last one.
        #[tsify(type = "number | null")]
        sign_count: Option<u32>,
        /// The confirmation as stored after a cancel or a reconcile; `null` for other actions.
        #[tsify(type = "Confirmation | null")]
        confirmation: Option<Box<Confirmation>>,
        /// The version of the confirmation (or the standing approval) after the action (`null` for other
        /// actions).
        #[tsify(type = "string | null")]
        version: Option<String>,
        /// The standing approval's record after a `revoke_mandate`; `null` for other actions.
        #[tsify(type = "MandateRecord | null")]
        mandate: Option<Box<MandateRecord>>,
    },
    /// Nothing changed. `phase` says why: `signature_invalid`, `not_yet_valid`, `expired_time`,
    /// `stale_action`, `action_replayed`, `not_found`, `record_tampered`, `not_cancellable`,
    /// `not_in_flight`, `conflict`, `store_failed`.
    Rejected { phase: String, reason: String },
}

impl ActionOutcome {
    fn refused(rejection: Rejection) -> Self {
        Self::Rejected {
            phase: rejection.phase.as_str().to_owned(),
            reason: rejection.reason,
        }
    }

    fn failed(error: &StorageError) -> Self {
        Self::Rejected {
            phase: error.code().to_owned(),
            reason: error.to_string(),
        }
    }
}

impl<S: Store, K: Skill, C: Clock, A: AuditSink> Executor<S, K, C, A> {
    /// The version of the stored confirmation `confirmation_id` (what a cancel or reconcile must name),
    /// or `None` when there is none.
    pub async fn confirmation_version(
        &self,
        confirmation_id: &str,
    ) -> Result<Option<String>, StorageError> {
        match self.store.get(&store_key(confirmation_id)).await {
            Ok(text) => Ok(text.as_deref().map(state_version)),
            Err(error) => Err(StorageError::Port(error.message)),
        }
    }

    /// Stores a person's signed confirmation: authentic, for this Executor's audience, with no lifecycle
    /// field set, never consumed before, and under an id not yet taken. Sealed when the Executor holds a
    /// seal key.
    pub async fn save(&self, confirmation: &Confirmation) -> Result<(), StorageError> {
        let refused = |phase, reason: String| StorageError::Refused(Rejection::new(phase, reason));
        let language = self.options.language;
        self.keys.verify(confirmation).map_err(|why| {
            refused(
                Phase::SignatureInvalid,
                messages::signature_invalid(language, &why),
            )
        })?;
        if confirmation.audience != self.options.audience {
            return Err(refused(
                Phase::WrongAudience,
                messages::wrong_audience(
                    language,
                    confirmation.audience.as_deref(),
                    self.options.audience.as_deref(),
                ),
            ));
        }
        if confirmation.mandate.is_some() {
            return Err(StorageError::Malformed(
                "a confirmation under a standing approval is made by the Executor itself (confirmByMandate), never saved"
                    .to_owned(),
            ));
        }
        if confirmation.state() != ConfirmationState::Approved || confirmation.seal.is_some() {
            return Err(StorageError::Malformed(
                "a new confirmation carries no lifecycle field and no seal".to_owned(),
            ));
        }
        let id = confirmation.confirmation_id.as_str();
        match was_consumed(&self.store, id).await {
            Ok(false) => {}
            Ok(true) => {
                return Err(refused(
                    Phase::AlreadyConsumed,
                    messages::already_consumed(
                        language,
                        "an earlier Apply (the consumed-id ledger)",
                    ),
                ));
            }
            Err(error) => return Err(StorageError::Port(error.message)),
        }
        match self
            .store
            .compare_and_swap(&store_key(id), None, &self.text_of(confirmation.clone()))
            .await
        {
            Ok(true) => Ok(()),
            Ok(false) => Err(StorageError::AlreadyExists),
            Err(error) => Err(StorageError::Port(error.message)),
        }
    }

    /// Carries out a person's signed action once. For cancel and reconcile the Executor reads the stored
    /// confirmation and its version itself (`host_version` is not used); for decline and key changes,
    /// which act on state the host keeps, the host passes that state's current version. For a passkey
    /// action, `last_sign_count` is the key's last signature counter: the new one must exceed it (or both be
    /// zero, for authenticators without a counter), else the assertion is a replay or a clone.
    pub async fn take_action(
        &self,
        action: &HumanAction,
        host_version: Option<&str>,
        last_sign_count: Option<u32>,
    ) -> ActionOutcome {
        let language = self.options.language;
        let now = match self.clock.now() {
            Ok(now) => now,
            Err(error) => {
                return ActionOutcome::failed(&StorageError::Port(messages::clock_failed(
                    language,
                    &error.to_string(),
                )));
            }
        };
        let kind = action.action;
        let loaded = if kind.acts_on_confirmation() {
            match self.load_for_action(&action.approval_id).await {
                Ok(loaded) => Some(loaded),
                Err(outcome) => return outcome,
            }
        } else {
            None
        };
        let mandate = if kind == HumanActionKind::RevokeMandate {
            match read_record(&self.store, &action.approval_id).await {
                Ok(Some(found)) => Some(found),
                Ok(None) => return ActionOutcome::failed(&StorageError::NotFound),
                Err(why) => return ActionOutcome::failed(&StorageError::Malformed(why)),
            }
        } else {
            None
        };
        let version = match (&loaded, &mandate, host_version) {
            (Some((_, text)), _, _) => state_version(text),
            (None, Some((record, _)), _) => record_version(record),
            (None, None, Some(version)) => version.to_owned(),
            (None, None, None) => {
                return ActionOutcome::refused(Rejection::new(
                    Phase::StaleAction,
                    format!(
                        "A {} acts on state the host keeps: the host must give its current version.",
                        kind.as_str()
                    ),
                ));
            }
        };
        // Authentic and recent first (checked against its own version), then: used before, then stale.
        let sign_count = match check_human_action(
            action,
            &self.keys,
            now,
            self.options.clock_skew_ms,
            &action.version,
        ) {
            Ok(sign_count) => sign_count,
            Err(rejection) => return ActionOutcome::refused(rejection),
        };
        match was_used(&self.store, action).await {
            Ok(false) => {}
            Ok(true) => return ActionOutcome::refused(replayed(action)),
            Err(error) => return ActionOutcome::failed(&StorageError::Port(error.message)),
        }
        if action.version != version {
            return ActionOutcome::refused(stale(action, &version));
        }
        if let (Some(count), Some(last)) = (sign_count, last_sign_count) {
            if !super::passkey::sign_count_advances(last, count) {
                return ActionOutcome::refused(Rejection::new(
                    Phase::SignatureInvalid,
                    "The passkey's signature counter did not advance: the assertion is replayed or the credential was cloned.",
                ));
            }
        }
        // The action must fit the record's state before its nonce is spent.
        if let Some((confirmation, _)) = &loaded {
            let running = self.running.try_borrow().map_or(true, |running| {
                running.contains(&confirmation.confirmation_id)
            });
            if kind == HumanActionKind::ReconcileNotApplied && running {
                return ActionOutcome::refused(Rejection::new(
                    Phase::ApplyRunning,
                    messages::apply_running(language),
                ));
            }
            let state = confirmation.state();
            let fits = match kind {
                HumanActionKind::Cancel => state == ConfirmationState::Approved,
                _ => state == ConfirmationState::InFlight,
            };
            if !fits {
                let error = if kind == HumanActionKind::Cancel {
                    StorageError::NotCancellable(state)
                } else {
                    StorageError::NotInFlight(state)
                };
                return ActionOutcome::failed(&error);
            }
        }
        if let Some((record, _)) = &mandate {
            if let Some(at) = &record.revoked_at {
                return ActionOutcome::refused(Rejection::new(
                    Phase::MandateRevoked,
                    format!("This standing approval was already revoked at {at}."),
                ));
            }
        }
        let at = parse_rfc3339(&action.at).unwrap_or(now);
        match record_action(&self.store, action, at, self.options.clock_skew_ms).await {
            Ok(()) => {}
            Err(Ok(rejection)) => return ActionOutcome::refused(rejection),
            Err(Err(error)) => return ActionOutcome::failed(&StorageError::Port(error.message)),
        }
        if let Some((record, _)) = mandate {
            let by = action.key_id.clone().unwrap_or_default();
            let id = record.mandate.mandate_id.clone();
            return match revoke(&self.store, &id, &by, now).await {
                Ok(Some(next_text)) => {
                    let next: Option<MandateRecord> = serde_json::from_str(&next_text).ok();
                    ActionOutcome::Taken {
                        action: kind,
                        sign_count,
                        confirmation: None,
                        version: next.as_ref().map(record_version),
                        mandate: next.map(Box::new),
                    }
                }
                Ok(None) => ActionOutcome::failed(&StorageError::Conflict),
                Err(why) => ActionOutcome::failed(&StorageError::Port(why)),
            };
        }
        let Some((confirmation, text)) = loaded else {
            return ActionOutcome::Taken {
                action: kind,
                sign_count,
                confirmation: None,
                version: None,
                mandate: None,
            };
        };
        let next = match kind {
            HumanActionKind::Cancel => confirmation.cancelled(),
            HumanActionKind::ReconcileApplied => confirmation.committed(now),
            // Closed, never re-armed: the action it approved is settled as not applied, and doing the
            // same again is a new action with a new approval.
            _ => Confirmation {
                in_flight_at: None,
                ..confirmation.cancelled()
            },
        };
        let next_text = self.text_of(next.clone());
        match self
            .store
            .compare_and_swap(&store_key(&next.confirmation_id), Some(&text), &next_text)
            .await
        {
            Ok(true) => {}
            Ok(false) => return ActionOutcome::failed(&StorageError::Conflict),
            Err(error) => return ActionOutcome::failed(&StorageError::Port(error.message)),
        }
        if kind == HumanActionKind::ReconcileApplied {
            let _ = record_consumed(&self.store, &next.confirmation_id, now).await;
        }
        if kind != HumanActionKind::Cancel {
            let applied = kind == HumanActionKind::ReconcileApplied;
            let _ = record_reconciled(&self.store, &next, applied, now).await;
        }
        let stored = parse_valid_json_str::<Confirmation>(&next_text).unwrap_or(next);
        ActionOutcome::Taken {
            action: kind,
            sign_count,
            confirmation: Some(Box::new(stored)),
            version: Some(state_version(&next_text)),
            mandate: None,
        }
    }

    /// The stored confirmation an action acts on, with its exact text; refused when absent or tampered.
    async fn load_for_action(
        &self,
        confirmation_id: &str,
    ) -> Result<(Confirmation, String), ActionOutcome> {
        let text = match self.store.get(&store_key(confirmation_id)).await {
            Ok(Some(text)) => text,
            Ok(None) => return Err(ActionOutcome::failed(&StorageError::NotFound)),
            Err(error) => return Err(ActionOutcome::failed(&StorageError::Port(error.message))),
        };
        let confirmation = parse_valid_json_str::<Confirmation>(&text)
            .map_err(|error| ActionOutcome::failed(&StorageError::Malformed(error.to_string())))?;
        self.unsealed(&confirmation)
            .map_err(ActionOutcome::refused)?;
        Ok((confirmation, text))
    }
}
