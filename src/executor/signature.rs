//! Unforgeable approvals: HMAC-SHA256 over a canonical encoding of a confirmation's binding fields.
//!
//! The canonical encoding is the compact JSON array
//! `["agent-governor/confirmation/v1", key_id, confirmation_id, node_id, type, from, to, intent, reason,
//! confirmed_by, confirmed_at, ui_action]`, so any language with a JSON encoder and HMAC can reproduce it.
//! Only the approval side holds the secret; the agent can neither mint nor alter a confirmation.

use super::confirmation::{Confirmation, ConfirmedBy};
use crate::input::{InputError, InputErrorCode};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::BTreeMap;

type HmacSha256 = Hmac<Sha256>;

const DOMAIN: &str = "agent-governor/confirmation/v1";

/// Shortest secret accepted: HMAC-SHA256 keys shorter than the hash size weaken it.
pub const MIN_SECRET_BYTES: usize = 32;

/// A signing key of the approval side.
#[derive(Clone, PartialEq, Eq)]
pub struct Signer {
    key_id: String,
    secret: Vec<u8>,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("key_id", &self.key_id)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl Signer {
    pub fn new(key_id: &str, secret: &[u8]) -> Result<Self, InputError> {
        validate_key("key_id", "secret", key_id, secret)?;
        Ok(Self {
            key_id: key_id.to_owned(),
            secret: secret.to_vec(),
        })
    }

    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// Signs the binding fields of `confirmation` (its `key_id`/`signature` are ignored) and returns it
    /// with this key's id and the signature set.
    pub fn sign(&self, confirmation: Confirmation) -> Confirmation {
        let signature = signature_hex(&confirmation, &self.key_id, &self.secret);
        Confirmation {
            key_id: Some(self.key_id.clone()),
            signature: Some(signature),
            ..confirmation
        }
    }
}

/// The verification keys a guard trusts, by key id. Each key's HMAC state (the hashed inner and outer pads)
/// is computed once, when the ring is built, and cloned for every verification.
#[derive(Clone, Default)]
pub struct KeyRing {
    keys: BTreeMap<String, TrustedKey>,
}

#[derive(Clone)]
struct TrustedKey {
    secret: Vec<u8>,
    keyed_mac: HmacSha256,
}

impl TrustedKey {
    fn new(secret: &[u8]) -> Self {
        Self {
            secret: secret.to_vec(),
            keyed_mac: new_mac(secret),
        }
    }
}

impl PartialEq for KeyRing {
    fn eq(&self, other: &Self) -> bool {
        self.keys.len() == other.keys.len()
            && self
                .keys
                .iter()
                .zip(&other.keys)
                .all(|((id, key), (other_id, other_key))| {
                    id == other_id && key.secret == other_key.secret
                })
    }
}

impl Eq for KeyRing {}

impl std::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyRing")
            .field("key_ids", &self.keys.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl KeyRing {
    /// Builds a key ring from `(key_id, secret)` pairs; at least one key is required.
    pub fn new<'a>(
        entries: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<Self, InputError> {
        let mut keys = BTreeMap::new();
        for (key_id, secret) in entries {
            let path = format!("keys.{key_id}");
            validate_key(&path, &path, key_id, secret)?;
            keys.insert(key_id.to_owned(), TrustedKey::new(secret));
        }
        if keys.is_empty() {
            return Err(InputError::new(
                InputErrorCode::InvalidKey,
                "keys",
                "at least one verification key is required: unsigned approvals are never trusted",
            ));
        }
        Ok(Self { keys })
    }

    pub fn from_signer(signer: &Signer) -> Self {
        Self {
            keys: BTreeMap::from([(signer.key_id.clone(), TrustedKey::new(&signer.secret))]),
        }
    }

    /// Checks the signature of `confirmation`; the error says what is wrong, for the `signature_invalid` phase.
    pub fn verify(&self, confirmation: &Confirmation) -> Result<(), String> {
        let (Some(key_id), Some(signature)) = (&confirmation.key_id, &confirmation.signature)
        else {
            return Err(
                "the confirmation is not signed (key_id and signature are required)".to_owned(),
            );
        };
        let Some(key) = self.keys.get(key_id) else {
            return Err(format!(
                "the confirmation is signed with unknown key `{key_id}`"
            ));
        };
        // Only the canonical spelling verifies: lower-case hex, as `issue_confirmation` writes it.
        if !signature
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
        {
            return Err("the signature is not canonical lower-case hex".to_owned());
        }
        let Ok(signature_bytes) = hex::decode(signature) else {
            return Err("the signature is not hex".to_owned());
        };
        let mut mac = key.keyed_mac.clone();
        mac.update(&canonical_bytes(confirmation, key_id));
        mac.verify_slice(&signature_bytes)
            .map_err(|_| "the signature does not match the approved content".to_owned())
    }
}

fn validate_key(
    id_path: &str,
    secret_path: &str,
    key_id: &str,
    secret: &[u8],
) -> Result<(), InputError> {
    if key_id.trim().is_empty() {
        return Err(InputError::new(
            InputErrorCode::InvalidKey,
            id_path,
            "key id must not be empty",
        ));
    }
    if secret.len() < MIN_SECRET_BYTES {
        return Err(InputError::new(
            InputErrorCode::InvalidKey,
            secret_path,
            format!(
                "secret must be at least {MIN_SECRET_BYTES} bytes, got {}",
                secret.len()
            ),
        ));
    }
    Ok(())
}

/// The exact bytes that are signed.
pub fn canonical_bytes(confirmation: &Confirmation, key_id: &str) -> Vec<u8> {
    let ConfirmedBy::Human = confirmation.confirmed_by;
    let fields: [&str; 12] = [
        DOMAIN,
        key_id,
        &confirmation.confirmation_id,
        &confirmation.node_id,
        &confirmation.proposed_change.change_type,
        &confirmation.proposed_change.from,
        &confirmation.proposed_change.to,
        &confirmation.intent,
        &confirmation.reason,
        "human",
        &confirmation.confirmed_at,
        &confirmation.ui_action,
    ];
    serde_json::to_vec(&fields).unwrap_or_default()
}

fn new_mac(secret: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length, so this never takes the fallback.
    HmacSha256::new_from_slice(secret).unwrap_or_else(|_| HmacSha256::new(&Default::default()))
}

fn signature_hex(confirmation: &Confirmation, key_id: &str, secret: &[u8]) -> String {
    let mut mac = new_mac(secret);
    mac.update(&canonical_bytes(confirmation, key_id));
    hex::encode(mac.finalize().into_bytes())
}
