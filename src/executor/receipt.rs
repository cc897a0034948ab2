//! Signed receipts: every Apply outcome a guard reaches (applied, rejected, unknown, reconciled, ...) is
//! recorded as a receipt signed with the guard's own Ed25519 key, naming the approval, the digest of the
//! change, the approver, the outcome and the time, and the digest of the previous receipt. The receipts of
//! an inbox form a hash chain anyone holding the guard's public key can verify offline: a receipt changed,
//! removed or inserted breaks the chain at that link.
//!
//! The canonical encoding is the compact JSON array
//! `["agent-governor/receipt/v1", key_id, seq, approval_id, change_digest, approver, outcome, at, prev]`
//! (`prev` is `""` for the first receipt); the guard signs those bytes. A receipt's digest is the SHA-256
//! of the canonical bytes, a newline and the signature's hex.

use super::confirmation::ProposedChange;
use super::public_key::{PublicKey, PublicKeyKind, PublicKeySpec};
use crate::input::{InputError, Validate, require_non_empty};
use crate::timestamp::parse_rfc3339;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tsify::Tsify;

const DOMAIN: &str = "agent-governor/receipt/v1";
const CHANGE_DOMAIN: &str = "agent-governor/change/v1";

/// One signed receipt of an Apply outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    /// 1 for an inbox's first receipt, then one more for each.
    pub seq: u64,
    pub approval_id: String,
    /// SHA-256 (hex) of the approved change: node, type, from, to ([`change_digest`]).
    pub change_digest: String,
    /// The key id that approved (the approver's), or `""` when the outcome has none.
    pub approver: String,
    /// `applied`, `rejected`, `reconfirm_required`, `unknown`, `reconciled_applied`,
    /// `reconciled_not_applied` or `cancelled`.
    pub outcome: String,
    /// RFC 3339, when the guard reached the outcome.
    pub at: String,
    /// The digest of the previous receipt; `null` for the first.
    pub prev: Option<String>,
    /// The guard's key id.
    pub key_id: String,
    /// Lower-case hex Ed25519 signature over the canonical encoding.
    #[serde(default)]
    pub signature: String,
}

impl Validate for Receipt {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("approval_id", &self.approval_id)?;
        require_non_empty("outcome", &self.outcome)?;
        require_non_empty("key_id", &self.key_id)?;
        parse_rfc3339(&self.at)
            .map(|_| ())
            .map_err(|why| InputError::invalid("at", why))
    }
}

/// SHA-256 (hex) of the change a receipt is about.
pub fn change_digest(node_id: &str, change: &ProposedChange) -> String {
    let fields = [
        CHANGE_DOMAIN,
        node_id,
        &change.change_type,
        &change.from,
        &change.to,
    ];
    hex::encode(Sha256::digest(
        serde_json::to_vec(&fields).unwrap_or_default(),
    ))
}

/// The exact bytes the guard signs.
pub fn canonical_receipt_bytes(receipt: &Receipt) -> Vec<u8> {
    let fields = (
        DOMAIN,
        &receipt.key_id,
        receipt.seq,
        &receipt.approval_id,
        &receipt.change_digest,
        &receipt.approver,
        &receipt.outcome,
        &receipt.at,
        receipt.prev.as_deref().unwrap_or_default(),
    );
    serde_json::to_vec(&fields).unwrap_or_default()
}

/// The digest the next receipt's `prev` names.
pub fn receipt_digest(receipt: &Receipt) -> String {
    hex::encode(
        Sha256::new()
            .chain_update(canonical_receipt_bytes(receipt))
            .chain_update(b"\n")
            .chain_update(receipt.signature.as_bytes())
            .finalize(),
    )
}

/// What verifying a chain found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum ChainVerdict {
    /// Every receipt is signed by the key, in sequence, each naming the one before.
    Valid {
        count: usize,
        /// The last receipt's digest (`null` for an empty chain): what the next receipt must name.
        #[tsify(type = "string | null")]
        head: Option<String>,
    },
    /// The first broken link: its position in the list, its `seq` (when readable) and why.
    Broken {
        index: usize,
        #[tsify(type = "number | null")]
        seq: Option<u64>,
        reason: String,
    },
}

/// Reads the guard's public key: an `{ type: "ed25519", public_key }` object's key.
pub fn receipt_key(spec: &PublicKeySpec) -> Result<PublicKey, InputError> {
    if spec.kind != PublicKeyKind::Ed25519 {
        return Err(InputError::invalid(
            "publicKey.type",
            "receipts are signed with Ed25519: the key must be { type: \"ed25519\", public_key }",
        ));
    }
    let parsed = super::public_key::ParsedPublicKey::parse("publicKey", spec)?;
    Ok(parsed.key)
}

/// [`verify_receipts`] for the guard's key as it is served, with its id: every receipt must name `key_id`
/// (when given), and the first link that does not is the broken one, unless an earlier link broke first.
pub fn verify_receipts_by(
    chain: &[Receipt],
    key: &PublicKey,
    key_id: Option<&str>,
) -> ChainVerdict {
    let named_elsewhere = key_id.and_then(|id| {
        chain
            .iter()
            .position(|receipt| receipt.key_id != id)
            .map(|index| (index, id))
    });
    let Some((index, id)) = named_elsewhere else {
        return verify_receipts(chain, key);
    };
    match verify_receipts(chain.get(..index).unwrap_or_default(), key) {
        ChainVerdict::Valid { .. } => ChainVerdict::Broken {
            index,
            seq: chain.get(index).map(|receipt| receipt.seq),
            reason: format!("receipt {index} names another key than `{id}`"),
        },
        broken => broken,
    }
}

/// Verifies `chain` (receipts in order; it may start anywhere in an inbox's sequence) with the guard's key.
pub fn verify_receipts(chain: &[Receipt], key: &PublicKey) -> ChainVerdict {
    let mut previous: Option<&Receipt> = None;
    for (index, receipt) in chain.iter().enumerate() {
        let broken = |reason: String| ChainVerdict::Broken {
            index,
            seq: Some(receipt.seq),
            reason,
        };
        if let Err(error) = receipt.validate() {
            return broken(format!("receipt {index} is malformed: {error}"));
        }
        let signature = match hex::decode(&receipt.signature) {
            Ok(bytes) if receipt.signature.bytes().all(|b| !b.is_ascii_uppercase()) => bytes,
            _ => return broken("the signature is not lower-case hex".to_owned()),
        };
        if let Err(why) = key.verify(&canonical_receipt_bytes(receipt), &signature) {
            return broken(format!(
                "receipt {} is not signed by this guard's key: {why}",
                receipt.seq
            ));
        }
        match previous {
            None if receipt.seq == 1 && receipt.prev.is_some() => {
                return broken("the first receipt (seq 1) names a previous one".to_owned());
            }
            None if receipt.seq == 0 => {
                return broken("receipts are numbered from 1".to_owned());
            }
            None => {}
            Some(before) => {
                if before.key_id != receipt.key_id {
                    return broken("the guard's key id changed within the chain".to_owned());
                }
                if before.seq.checked_add(1) != Some(receipt.seq) {
                    return broken(format!(
                        "receipt {} follows receipt {}: a receipt is missing or out of order",
                        receipt.seq, before.seq
                    ));
                }
                let expected = receipt_digest(before);
                if receipt.prev.as_deref() != Some(expected.as_str()) {
                    return broken(format!(
                        "receipt {} does not name the digest of receipt {}: the chain was altered",
                        receipt.seq, before.seq
                    ));
                }
            }
        }
        previous = Some(receipt);
    }
    ChainVerdict::Valid {
        count: chain.len(),
        head: previous.map(receipt_digest),
    }
}
