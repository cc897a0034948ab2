//! The human side of a confirmation's life in the store: saving a new one, cancelling an unused one.
//! Both use compare-and-swap, so neither can overwrite a record an Executor is using.

use super::confirmation::{Confirmation, ConfirmationState, store_key};
use crate::input::{parse_valid_json_str, to_json_string};
use crate::ports::Store;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageError {
    /// A confirmation with this id already exists (ids are never reused).
    AlreadyExists,
    /// No confirmation with this id.
    NotFound,
    /// It can no longer be cancelled (consumed, in flight, invalidated, already cancelled).
    NotCancellable(ConfirmationState),
    /// Only an in-flight confirmation can be reconciled.
    NotInFlight(ConfirmationState),
    /// The stored record changed concurrently; nothing was written.
    Conflict,
    /// The record in the store does not parse.
    Malformed(String),
    /// The store port failed.
    Port(String),
    /// The confirmation or the action was refused by a check (signature, audience, single use, version).
    Refused(super::check::Rejection),
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AlreadyExists => f.write_str("a confirmation with this id already exists"),
            Self::NotFound => f.write_str("no confirmation with this id"),
            Self::NotCancellable(state) => {
                write!(f, "the confirmation cannot be cancelled in state {state:?}")
            }
            Self::NotInFlight(state) => {
                write!(
                    f,
                    "only an in-flight confirmation can be reconciled; it is {state:?}"
                )
            }
            Self::Conflict => {
                f.write_str("the confirmation changed concurrently; nothing was written")
            }
            Self::Malformed(why) => write!(f, "the stored confirmation is malformed: {why}"),
            Self::Port(why) => write!(f, "the store failed: {why}"),
            Self::Refused(rejection) => f.write_str(&rejection.reason),
        }
    }
}

impl StorageError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::AlreadyExists => "already_exists",
            Self::NotFound => "not_found",
            Self::NotCancellable(_) => "not_cancellable",
            Self::NotInFlight(_) => "not_in_flight",
            Self::Conflict => "conflict",
            Self::Malformed(_) => "malformed_record",
            Self::Port(_) => "store_failed",
            Self::Refused(rejection) => rejection.phase.as_str(),
        }
    }
}

/// Stores a newly issued confirmation; refuses to overwrite an existing id.
pub async fn save_confirmation(
    store: &impl Store,
    confirmation: &Confirmation,
) -> Result<(), StorageError> {
    let key = store_key(&confirmation.confirmation_id);
    match store
        .compare_and_swap(&key, None, &to_json_string(confirmation))
        .await
    {
        Ok(true) => Ok(()),
        Ok(false) => Err(StorageError::AlreadyExists),
        Err(error) => Err(StorageError::Port(error.message)),
    }
}

/// Loads a confirmation, requires it to be in `expected` (else `refused(state)`), and replaces it with
/// `next(confirmation)` by compare-and-swap against the exact text loaded.
async fn transition(
    store: &impl Store,
    confirmation_id: &str,
    expected: ConfirmationState,
    refused: fn(ConfirmationState) -> StorageError,
    next: impl FnOnce(Confirmation) -> Confirmation,
) -> Result<Confirmation, StorageError> {
    let key = store_key(confirmation_id);
    let text = match store.get(&key).await {
        Ok(Some(text)) => text,
        Ok(None) => return Err(StorageError::NotFound),
        Err(error) => return Err(StorageError::Port(error.message)),
    };
    let confirmation = parse_valid_json_str::<Confirmation>(&text)
        .map_err(|error| StorageError::Malformed(error.to_string()))?;
    if confirmation.state() != expected {
        return Err(refused(confirmation.state()));
    }
    let changed = next(confirmation);
    match store
        .compare_and_swap(&key, Some(&text), &to_json_string(&changed))
        .await
    {
        Ok(true) => Ok(changed),
        Ok(false) => Err(StorageError::Conflict),
        Err(error) => Err(StorageError::Port(error.message)),
    }
}

/// A human settles an in-flight confirmation (an Apply whose fate was unknown) after checking the node:
/// `applied` true -> consumed (it happened), false -> cancelled (it did not; the action is closed, and
/// doing the same again is a new action). The action ledger records the person's answer.
pub async fn reconcile_in_flight(
    store: &impl Store,
    confirmation_id: &str,
    applied: bool,
    now: crate::timestamp::EpochMillis,
) -> Result<Confirmation, StorageError> {
    let settled = transition(
        store,
        confirmation_id,
        ConfirmationState::InFlight,
        StorageError::NotInFlight,
        |confirmation| {
            if applied {
                confirmation.committed(now)
            } else {
                Confirmation {
                    in_flight_at: None,
                    ..confirmation.cancelled()
                }
            }
        },
    )
    .await?;
    super::action_ledger::record_reconciled(store, &settled, applied, now)
        .await
        .map_err(StorageError::Port)?;
    Ok(settled)
}

/// A human withdraws an approval that has not been used (seed 003 step 3b).
pub async fn cancel_confirmation(
    store: &impl Store,
    confirmation_id: &str,
) -> Result<Confirmation, StorageError> {
    transition(
        store,
        confirmation_id,
        ConfirmationState::Approved,
        StorageError::NotCancellable,
        |confirmation| confirmation.cancelled(),
    )
    .await
}
