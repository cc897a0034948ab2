//! Two ledgers kept in the Executor's store beside the confirmation records, so that single use does not
//! depend on a record staying in the store:
//!
//! - `consumed/{confirmation_id}`: written when a confirmation is consumed (an Apply committed, or a person
//!   reconciled it as applied). A confirmation whose id is in this ledger is never saved or applied again,
//!   even if its record was deleted. Hosts keep these entries at least 24 hours plus the clock skew after
//!   `confirmed_at` (the confirmation's whole life); keeping them longer costs nothing but space.
//! - `action/{key_id}/{nonce}`: written when a signed human action is used. Its value names the time after
//!   which the entry may be deleted (the action's validity window has passed, so the action is refused as
//!   expired anyway).

use super::check::{Phase, Rejection};
use super::human_action::{ACTION_MAX_AGE_MS, HumanAction};
use crate::input::to_json_string;
use crate::ports::{PortError, Store};
use crate::timestamp::{EpochMillis, format_rfc3339};
use serde::Serialize;

#[derive(Serialize)]
struct ConsumedEntry {
    consumed_at: String,
}

#[derive(Serialize)]
struct ActionEntry<'a> {
    action: &'a str,
    approval_id: &'a str,
    deletable_after: String,
}

/// Store key of a consumed confirmation id.
pub fn consumed_key(confirmation_id: &str) -> String {
    format!("consumed/{confirmation_id}")
}

/// Store key of a used action nonce.
pub fn action_key(key_id: &str, nonce: &str) -> String {
    format!("action/{key_id}/{nonce}")
}

/// Whether `confirmation_id` was ever consumed.
pub async fn was_consumed(store: &impl Store, confirmation_id: &str) -> Result<bool, PortError> {
    Ok(store.get(&consumed_key(confirmation_id)).await?.is_some())
}

/// Records that `confirmation_id` is consumed (idempotent).
pub async fn record_consumed(
    store: &impl Store,
    confirmation_id: &str,
    now: EpochMillis,
) -> Result<(), PortError> {
    let value = to_json_string(&ConsumedEntry {
        consumed_at: format_rfc3339(now),
    });
    store
        .compare_and_swap(&consumed_key(confirmation_id), None, &value)
        .await
        .map(|_| ())
}

/// Whether the action's nonce was already used with its key.
pub async fn was_used(store: &impl Store, action: &HumanAction) -> Result<bool, PortError> {
    let key_id = action.key_id.as_deref().unwrap_or_default();
    Ok(store
        .get(&action_key(key_id, &action.nonce))
        .await?
        .is_some())
}

/// The rejection of an action whose nonce was already used.
pub fn replayed(action: &HumanAction) -> Rejection {
    Rejection::new(
        Phase::ActionReplayed,
        format!(
            "This signed action (nonce {:?} of key {:?}) was already used; a signed action is used once.",
            action.nonce,
            action.key_id.as_deref().unwrap_or_default()
        ),
    )
}

/// Records the action's nonce for its key; a nonce already recorded is a replay.
pub async fn record_action(
    store: &impl Store,
    action: &HumanAction,
    at: EpochMillis,
    clock_skew_ms: EpochMillis,
) -> Result<(), Result<Rejection, PortError>> {
    let key_id = action.key_id.as_deref().unwrap_or_default();
    let deletable_after = at
        .saturating_add(ACTION_MAX_AGE_MS)
        .saturating_add(clock_skew_ms);
    let value = to_json_string(&ActionEntry {
        action: action.action.as_str(),
        approval_id: &action.approval_id,
        deletable_after: format_rfc3339(deletable_after),
    });
    match store
        .compare_and_swap(&action_key(key_id, &action.nonce), None, &value)
        .await
    {
        Ok(true) => Ok(()),
        Ok(false) => Err(Ok(replayed(action))),
        Err(error) => Err(Err(error)),
    }
}
