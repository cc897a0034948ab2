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

/// Spends one use of the mandate for `confirmation_id`, once: a confirmation that already used it keeps its
/// use (its Apply is tried again after a person said it did not happen). Refused when the record is absent,
/// holds another mandate than the confirmation's, is revoked, or has no use left.
pub async fn spend_use(
    store: &impl Store,
    mandate: &Mandate,
    confirmation_id: &str,
) -> Result<(), UseRefused> {
    for _ in 0..CLAIM_ATTEMPTS {
        let (record, text) = match read_record(store, &mandate.mandate_id).await {
            Ok(Some(found)) => found,
            Ok(None) => {
                return Err(UseRefused::Refused(Rejection::new(
                    Phase::MandateRevoked,
                    format!(
                        "Standing approval {} is not registered here: nothing was applied.",
                        mandate.mandate_id
                    ),
                )));
            }
            Err(why) => return Err(UseRefused::Failed(why)),
        };
        // Compared as their JSON (the serializer is compiled in anyway; a derived `==` is not).
        if to_json_string(&record.mandate) != to_json_string(mandate) {
            return Err(UseRefused::Refused(Rejection::new(
                Phase::SignatureInvalid,
                "The confirmation's standing approval differs from the one registered here.",
            )));
        }
        if let Some(at) = &record.revoked_at {
            return Err(UseRefused::Refused(Rejection::new(
                Phase::MandateRevoked,
                format!(
                    "Standing approval {} was revoked at {at}: nothing was applied.",
                    mandate.mandate_id
                ),
            )));
        }
        if record.used_by.iter().any(|id| id == confirmation_id) {
            return Ok(());
        }
        if record.uses_left() == 0 {
            return Err(UseRefused::Refused(Rejection::new(
                Phase::MandateUsedUp,
                format!(
                    "Standing approval {} has been used all {} times: nothing was applied; a person must approve.",
                    mandate.mandate_id, mandate.max_uses
                ),
            )));
        }
        let mut next = record;
        next.used_by.push(confirmation_id.to_owned());
        match store
            .compare_and_swap(
                &mandate_key(&mandate.mandate_id),
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
        "the standing approval's record kept changing; no use was counted".to_owned(),
    ))
}

/// Marks the record revoked, once, by the key that signed the revocation.
pub async fn revoke(
    store: &impl Store,
    record: MandateRecord,
    text: &str,
    by: &str,
    now: EpochMillis,
) -> Result<Option<String>, String> {
    let key = mandate_key(&record.mandate.mandate_id);
    let next = MandateRecord {
        revoked_at: Some(format_rfc3339(now)),
        revoked_by: Some(by.to_owned()),
        ..record
    };
    let next_text = to_json_string(&next);
    match store.compare_and_swap(&key, Some(text), &next_text).await {
        Ok(true) => Ok(Some(next_text)),
        Ok(false) => Ok(None),
        Err(error) => Err(error.to_string()),
    }
}
