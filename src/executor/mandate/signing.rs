//! What a person signs when they grant a standing approval, and its verification.
//!
//! The canonical encoding is the canonical JSON (members sorted by UTF-16 code units, numbers as ECMAScript
//! writes them: [`crate::executor::tool_call::canonical_json`]) of the array
//! `["agent-governor/mandate/v1", key_id, terms]`, where `terms` is the mandate without `key_id`, `signature`
//! and `assertion`. Any language with a JSON encoder can reproduce it.

use super::model::Mandate;
use crate::executor::check::{Phase, Rejection};
use crate::executor::signature::{KeyRing, Proof};
use crate::executor::tool_call::canonical_json;
use crate::timestamp::EpochMillis;
use serde_json::Value;
use sha2::{Digest, Sha256};

const DOMAIN: &str = "agent-governor/mandate/v1";

/// The mandate's terms: everything but its proof.
pub fn terms(mandate: &Mandate) -> Value {
    let value: Value =
        serde_json::from_str(&crate::input::to_json_string(mandate)).unwrap_or(Value::Null);
    // The proof's members are left out by copying the others (inserting only): removing from the map
    // would compile in the B-tree's removal and rebalancing code, about 3 KB, for this one use.
    let Value::Object(fields) = value else {
        return value;
    };
    let mut terms = serde_json::Map::new();
    for (name, member) in fields {
        if !matches!(name.as_str(), "key_id" | "signature" | "assertion") {
            terms.insert(name, member);
        }
    }
    Value::Object(terms)
}

/// The exact bytes signed with key `key_id`.
pub fn canonical_mandate_bytes(mandate: &Mandate, key_id: &str) -> Vec<u8> {
    let signed = Value::Array(vec![
        Value::from(DOMAIN),
        Value::from(key_id),
        terms(mandate),
    ]);
    canonical_json(&signed).into_bytes()
}

/// The challenge a passkey signs for `mandate` with key `key_id`.
pub fn mandate_challenge(mandate: &Mandate, key_id: &str) -> [u8; 32] {
    Sha256::digest(canonical_mandate_bytes(mandate, key_id)).into()
}

/// Verifies the mandate's signature with `keys` (a revoked or unknown key fails). Returns the passkey's
/// signature counter for an assertion.
pub fn verify_mandate_signature(mandate: &Mandate, keys: &KeyRing) -> Result<Option<u32>, String> {
    let proof = Proof {
        key_id: mandate.key_id.as_deref(),
        signature: mandate.signature.as_deref(),
        assertion: mandate.assertion.as_ref(),
    };
    keys.verify_proof(proof, &|key_id| canonical_mandate_bytes(mandate, key_id))
}

/// What a guard checks of a mandate itself, before any change: authentic, made for this audience, signed
/// no later than now (plus the skew), and not yet expired.
pub fn check_mandate(
    mandate: &Mandate,
    keys: &KeyRing,
    audience: Option<&str>,
    now: EpochMillis,
    clock_skew_ms: EpochMillis,
) -> Result<Option<u32>, Rejection> {
    let sign_count = verify_mandate_signature(mandate, keys).map_err(|why| {
        Rejection::new(
            Phase::SignatureInvalid,
            format!("This standing approval is not authentic: {why}."),
        )
    })?;
    if mandate.audience.as_deref() != audience {
        return Err(Rejection::new(
            Phase::WrongAudience,
            format!(
                "This standing approval was made for {}, not for {}.",
                mandate.audience.as_deref().unwrap_or("no audience"),
                audience.unwrap_or("no audience")
            ),
        ));
    }
    let Some((issued, expires)) = mandate.window() else {
        return Err(Rejection::new(
            Phase::SignatureInvalid,
            "This standing approval's times are unreadable.",
        ));
    };
    if issued > now.saturating_add(clock_skew_ms) {
        return Err(Rejection::new(
            Phase::NotYetValid,
            format!(
                "This standing approval is dated {}, ahead of this host's clock.",
                mandate.issued_at
            ),
        ));
    }
    if now >= expires {
        return Err(Rejection::new(
            Phase::MandateExpired,
            format!("This standing approval expired at {}.", mandate.expires_at),
        ));
    }
    Ok(sign_count)
}
