//! A standing approval's record in the Executor's store (`mandate/{mandate_id}`): the signed mandate as it
//! was registered, the confirmations that used it, and its revocation. Every change is one compare-and-swap
//! of this one record, so a use and a revocation never both win, and no use is counted twice or past the
//! mandate's `max_uses`.

use super::model::Mandate;
use crate::executor::check::{Phase, Rejection};
use crate::input::to_json_string;
use crate::ports::Store;
use crate::timestamp::EpochMillis;
use crate::timestamp::format_rfc3339;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// How often a use is tried again when another Executor changed the record in between.
const CLAIM_ATTEMPTS: usize = 8;

/// The record of one standing approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct MandateRecord {
    pub mandate: Mandate,
    /// RFC 3339: when it was registered.
    pub saved_at: String,
    /// The confirmations that used it, one use each, in order.
    pub used_by: Vec<String>,
    /// RFC 3339: when a person revoked it.
    #[serde(default)]
    pub revoked_at: Option<String>,
    /// The key that signed the revocation.
    #[serde(default)]
    pub revoked_by: Option<String>,
}

impl MandateRecord {
    /// Uses not yet spent (none once revoked).
    pub fn uses_left(&self) -> u32 {
        if self.revoked_at.is_some() {
            return 0;
        }
        let used = u32::try_from(self.used_by.len()).unwrap_or(u32::MAX);
        self.mandate.max_uses.saturating_sub(used)
    }
}

/// Where a mandate's record lives.
pub fn mandate_key(mandate_id: &str) -> String {
    format!("mandate/{mandate_id}")
}

/// The stored record and its exact text, or `None`.
pub async fn read_record(
    store: &impl Store,
    mandate_id: &str,
) -> Result<Option<(MandateRecord, String)>, String> {
    match store.get(&mandate_key(mandate_id)).await {
        Ok(Some(text)) => serde_json::from_str::<MandateRecord>(&text)
            .map(|record| Some((record, text)))
            .map_err(|error| format!("the standing approval's record is malformed: {error}")),
        Ok(None) => Ok(None),
        Err(error) => Err(error.to_string()),
    }
}

/// Why a use was not counted.
pub enum UseRefused {
    Refused(Rejection),
    Failed(String),
}

fn refused(phase: Phase, reason: String) -> UseRefused {
    UseRefused::Refused(Rejection::new(phase, reason))
}

/// Reserves one use of the mandate for `confirmation_id` when the Executor approves a change under it, once
/// (asked again for the same confirmation, it keeps its one use): refused when the record is absent, revoked,
/// or has no use left. One compare-and-swap of the record, so of any number of racing approvals at most
/// `max_uses` are made, and no Apply runs under a confirmation the Executor did not reserve a use for.
pub async fn reserve_use(
    store: &impl Store,
    mandate_id: &str,
    confirmation_id: &str,
) -> Result<(), UseRefused> {
    for _ in 0..CLAIM_ATTEMPTS {
        let (record, text) = match read_record(store, mandate_id).await {
            Ok(Some(found)) => found,
            Ok(None) => {
                return Err(refused(
                    Phase::NotFound,
                    format!("No standing approval {mandate_id} is registered here."),
                ));
            }
            Err(why) => return Err(UseRefused::Failed(why)),
        };
        if let Some(at) = &record.revoked_at {
            return Err(refused(
                Phase::MandateRevoked,
                format!("Standing approval {mandate_id} was revoked at {at}."),
            ));
        }
        if record.used_by.iter().any(|id| id == confirmation_id) {
            return Ok(());
        }
        if record.uses_left() == 0 {
            return Err(refused(
                Phase::MandateUsedUp,
                format!(
                    "Standing approval {mandate_id} has been used all {} times; a person must approve.",
                    record.mandate.max_uses
                ),
            ));
        }
        let mut next = record;
        next.used_by.push(confirmation_id.to_owned());
        match store
            .compare_and_swap(
                &mandate_key(mandate_id),
                Some(&text),
                &to_json_string(&next),
            )
            .await
        {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(error) => return Err(UseRefused::Failed(error.to_string())),
        }
    }
    Err(UseRefused::Failed(
        "the standing approval's record kept changing; no use was reserved".to_owned(),
    ))
}

/// Before an Apply under `mandate`: the record holds exactly this mandate, is not revoked, and reserved a
/// use for `confirmation_id` (so the Executor itself made the confirmation, for an agent the mandate names).
pub async fn check_use(
    store: &impl Store,
    mandate: &Mandate,
    confirmation_id: &str,
) -> Result<(), UseRefused> {
    let record = match read_record(store, &mandate.mandate_id).await {
        Ok(Some((record, _))) => record,
        Ok(None) => {
            return Err(refused(
                Phase::MandateRevoked,
                format!(
                    "Standing approval {} is not registered here: nothing was applied.",
                    mandate.mandate_id
                ),
            ));
        }
        Err(why) => return Err(UseRefused::Failed(why)),
    };
    // Compared as their JSON (the serializer is compiled in anyway; a derived `==` is not).
    if to_json_string(&record.mandate) != to_json_string(mandate) {
        return Err(refused(
            Phase::SignatureInvalid,
            "The confirmation's standing approval differs from the one registered here.".to_owned(),
        ));
    }
    if let Some(at) = &record.revoked_at {
        return Err(refused(
            Phase::MandateRevoked,
            format!(
                "Standing approval {} was revoked at {at}: nothing was applied.",
                mandate.mandate_id
            ),
        ));
    }
    if !record.used_by.iter().any(|id| id == confirmation_id) {
        return Err(refused(
            Phase::SignatureInvalid,
            format!(
                "Confirmation {confirmation_id} was not made by this Executor under standing approval {}: nothing was applied.",
                mandate.mandate_id
            ),
        ));
    }
    Ok(())
}

/// The version a `revoke_mandate` names: of the mandate's terms and whether it is revoked, not of its uses,
/// so an agent spending uses never makes a person's revocation stale.
pub fn record_version(record: &MandateRecord) -> String {
    crate::executor::state_version::state_version(&to_json_string(&(
        &record.mandate.mandate_id,
        &record.mandate.signature,
        &record.revoked_at,
    )))
}

/// Marks the record revoked by the key that signed the revocation, retrying while uses change the record.
/// `Ok(None)` when it was revoked meanwhile by someone else.
pub async fn revoke(
    store: &impl Store,
    mandate_id: &str,
    by: &str,
    now: EpochMillis,
) -> Result<Option<String>, String> {
    for _ in 0..CLAIM_ATTEMPTS {
        let (record, text) = match read_record(store, mandate_id).await? {
            Some(found) => found,
            None => {
                return Err(format!(
                    "no standing approval {mandate_id} is registered here"
                ));
            }
        };
        if record.revoked_at.is_some() {
            return Ok(None);
        }
        let next = MandateRecord {
            revoked_at: Some(format_rfc3339(now)),
            revoked_by: Some(by.to_owned()),
            ..record
        };
        let next_text = to_json_string(&next);
        match store
            .compare_and_swap(&mandate_key(mandate_id), Some(&text), &next_text)
            .await
        {
            Ok(true) => return Ok(Some(next_text)),
            Ok(false) => {}
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("the standing approval's record kept changing; it was not revoked".to_owned())
}
