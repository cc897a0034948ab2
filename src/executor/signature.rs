//! Unforgeable approvals: a signature over a canonical encoding of a confirmation's binding fields, by an
//! approver's own key (Ed25519, or a WebAuthn passkey whose challenge is the hash of the encoding) or, for a
//! server that issues approvals itself, HMAC-SHA256.
//!
//! The canonical encoding is the compact JSON array
//! `["agent-governor/confirmation/v1", key_id, confirmation_id, node_id, type, from, to, intent, reason,
//! confirmed_by, confirmed_at, ui_action]` (v2 adds the `audience` after the key id; v3, for a
//! confirmation that names its action, adds the audience, `""` for none, and the `action_id`), so any
//! language with a JSON encoder and HMAC can reproduce it.
//! Only the approver holds the private key (or the secret); the agent can neither mint nor alter a confirmation,
//! and a verifier that holds only public keys cannot mint one either.

use super::confirmation::{Confirmation, ConfirmedBy};
use super::host_verification::HostVerification;
use super::passkey::{PasskeyAssertion, prepare_assertion, verify_assertion};
use super::public_key::{KeySpec, ParsedPublicKey, PublicKeySpec};
use super::verified_cache::{Fingerprint, VerifiedCache};
use crate::input::{InputError, InputErrorCode};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

type HmacSha256 = Hmac<Sha256>;

const DOMAIN: &str = "agent-governor/confirmation/v1";
const DOMAIN_WITH_AUDIENCE: &str = "agent-governor/confirmation/v2";
const DOMAIN_WITH_ACTION: &str = "agent-governor/confirmation/v3";

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
            assertion: None,
            ..confirmation
        }
    }
}

/// The verification keys a guard trusts, by key id: HMAC secrets (each key's HMAC state, the hashed inner
/// and outer pads, computed once when the ring is built) and approvers' public keys (parsed once).
#[derive(Clone, Default)]
pub struct KeyRing {
    keys: BTreeMap<String, TrustedKey>,
}

#[derive(Clone)]
enum TrustedKey {
    Secret {
        secret: Vec<u8>,
        keyed_mac: HmacSha256,
    },
    Public {
        spec: PublicKeySpec,
        parsed: ParsedPublicKey,
        /// SHA-256 of the whole configuration: part of every remembered verification's fingerprint.
        identity: [u8; 32],
    },
}

impl TrustedKey {
    fn secret(secret: &[u8]) -> Self {
        Self::Secret {
            secret: secret.to_vec(),
            keyed_mac: new_mac(secret),
        }
    }

    fn same_as(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Secret { secret, .. }, Self::Secret { secret: other, .. }) => secret == other,
            (Self::Public { spec, .. }, Self::Public { spec: other, .. }) => spec == other,
            _ => false,
        }
    }
}

/// What proves a human's act: a signature (HMAC or Ed25519, lower-case hex) or a passkey assertion.
#[derive(Debug, Clone, Copy)]
pub struct Proof<'a> {
    pub key_id: Option<&'a str>,
    pub signature: Option<&'a str>,
    pub assertion: Option<&'a PasskeyAssertion>,
}

impl PartialEq for KeyRing {
    fn eq(&self, other: &Self) -> bool {
        self.keys.len() == other.keys.len()
            && self
                .keys
                .iter()
                .zip(&other.keys)
                .all(|((id, key), (other_id, other_key))| id == other_id && key.same_as(other_key))
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
            keys.insert(key_id.to_owned(), TrustedKey::secret(secret));
        }
        Self::non_empty(keys)
    }

    /// Builds a key ring from configured keys: HMAC secrets and approvers' public keys.
    pub fn from_specs(specs: &BTreeMap<String, KeySpec>) -> Result<Self, InputError> {
        let mut keys = BTreeMap::new();
        for (key_id, spec) in specs {
            let path = format!("keys.{key_id}");
            let key = match spec {
                KeySpec::Secret(secret) => {
                    validate_key(&path, &path, key_id, secret.as_bytes())?;
                    TrustedKey::secret(secret.as_bytes())
                }
                KeySpec::Public(spec) => {
                    validate_key_id(&path, key_id)?;
                    TrustedKey::Public {
                        spec: spec.clone(),
                        parsed: ParsedPublicKey::parse(&path, spec)?,
                        identity: Sha256::digest(serde_json::to_vec(spec).unwrap_or_default())
                            .into(),
                    }
                }
            };
            keys.insert(key_id.clone(), key);
        }
        Self::non_empty(keys)
    }

    fn non_empty(keys: BTreeMap<String, TrustedKey>) -> Result<Self, InputError> {
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
            keys: BTreeMap::from([(signer.key_id.clone(), TrustedKey::secret(&signer.secret))]),
        }
    }

    /// Checks the signature of `confirmation`; the error says what is wrong, for the `signature_invalid` phase.
    pub fn verify(&self, confirmation: &Confirmation) -> Result<(), String> {
        if let Some(mandate) = &confirmation.mandate {
            return super::mandate::verify_backing(self, confirmation, mandate);
        }
        let proof = Proof {
            key_id: confirmation.key_id.as_deref(),
            signature: confirmation.signature.as_deref(),
            assertion: confirmation.assertion.as_ref(),
        };
        self.verify_proof(proof, &|key_id| canonical_bytes(confirmation, key_id))
            .map(|_| ())
    }

    /// The signature of `confirmation` for the host to verify, when it is an ES256 passkey assertion under a
    /// trusted, unrevoked key that passes every other check and whose verification is not remembered yet;
    /// `None` otherwise (the check decides those on its own). See [`HostVerification`].
    pub fn host_verification(&self, confirmation: &Confirmation) -> Option<HostVerification> {
        let key_id = confirmation.key_id.as_deref()?;
        let assertion = confirmation.assertion.as_ref()?;
        if confirmation.signature.is_some() {
            return None;
        }
        let TrustedKey::Public {
            parsed, identity, ..
        } = self.keys.get(key_id)?
        else {
            return None;
        };
        let relying_party = parsed.relying_party.as_ref()?;
        if parsed.revoked {
            return None;
        }
        let challenge = Sha256::digest(canonical_bytes(confirmation, key_id));
        let fingerprint = assertion_fingerprint(identity, key_id, &challenge, assertion);
        if VerifiedCache::get(&fingerprint).is_some() {
            return None;
        }
        let prepared = prepare_assertion(relying_party, &challenge, assertion).ok()?;
        HostVerification::for_p256(
            &parsed.key,
            prepared.signed,
            &prepared.signature,
            fingerprint,
            Some(prepared.sign_count),
        )
    }

    /// Checks that `proof` signs the bytes `message(key_id)` with a trusted, unrevoked key. Returns the
    /// passkey's signature counter for a passkey assertion.
    pub fn verify_proof(
        &self,
        proof: Proof<'_>,
        message: &dyn Fn(&str) -> Vec<u8>,
    ) -> Result<Option<u32>, String> {
        let Some(key_id) = proof.key_id else {
            return Err(
                "it is not signed (key_id and a signature or passkey assertion are required)"
                    .to_owned(),
            );
        };
        let Some(key) = self.keys.get(key_id) else {
            return Err(format!("it is signed with unknown key `{key_id}`"));
        };
        match (key, proof.signature, proof.assertion) {
            (_, Some(_), Some(_)) => Err(
                "it carries both a signature and a passkey assertion; exactly one is allowed"
                    .to_owned(),
            ),
            (_, None, None) => Err(format!(
                "it is not signed: it names key `{key_id}` but carries no signature or passkey assertion"
            )),
            (TrustedKey::Secret { keyed_mac, .. }, Some(signature), None) => {
                let signature_bytes = decode_lower_hex(signature)?;
                let mut mac = keyed_mac.clone();
                mac.update(&message(key_id));
                mac.verify_slice(&signature_bytes)
                    .map(|()| None)
                    .map_err(|_| "the signature does not match the approved content".to_owned())
            }
            (TrustedKey::Public { parsed, .. }, _, _) if parsed.revoked => {
                Err(format!("it is signed with revoked key `{key_id}`"))
            }
            (
                TrustedKey::Public {
                    parsed, identity, ..
                },
                Some(signature),
                None,
            ) => {
                if parsed.relying_party.is_some() {
                    return Err(format!(
                        "key `{key_id}` is a passkey: it signs with an assertion"
                    ));
                }
                let signed = message(key_id);
                let fingerprint = VerifiedCache::fingerprint(&[
                    identity,
                    key_id.as_bytes(),
                    &signed,
                    signature.as_bytes(),
                ]);
                if let Some(sign_count) = VerifiedCache::get(&fingerprint) {
                    return Ok(sign_count);
                }
                let signature_bytes = decode_lower_hex(signature)?;
                parsed.key.verify(&signed, &signature_bytes)?;
                VerifiedCache::remember(fingerprint, None);
                Ok(None)
            }
            (
                TrustedKey::Public {
                    parsed, identity, ..
                },
                None,
                Some(assertion),
            ) => {
                let Some(relying_party) = &parsed.relying_party else {
                    return Err(format!(
                        "key `{key_id}` is not a passkey: it signs with a signature"
                    ));
                };
                let challenge = Sha256::digest(message(key_id));
                let fingerprint = assertion_fingerprint(identity, key_id, &challenge, assertion);
                if let Some(sign_count) = VerifiedCache::get(&fingerprint) {
                    return Ok(sign_count);
                }
                let sign_count =
                    verify_assertion(&parsed.key, relying_party, &challenge, assertion)?;
                VerifiedCache::remember(fingerprint, Some(sign_count));
                Ok(Some(sign_count))
            }
            (TrustedKey::Secret { .. }, None, Some(_)) => Err(format!(
                "key `{key_id}` is an HMAC secret: it signs with a signature"
            )),
        }
    }
}

/// Everything a passkey assertion's verification reads: the key's configuration, its id, the challenge and
/// the assertion's three parts.
fn assertion_fingerprint(
    identity: &[u8; 32],
    key_id: &str,
    challenge: &[u8],
    assertion: &PasskeyAssertion,
) -> Fingerprint {
    VerifiedCache::fingerprint(&[
        identity,
        key_id.as_bytes(),
        challenge,
        assertion.authenticator_data.as_bytes(),
        assertion.client_data_json.as_bytes(),
        assertion.signature.as_bytes(),
    ])
}

/// Only the canonical spelling verifies: lower-case hex, as the signing helpers write it.
fn decode_lower_hex(signature: &str) -> Result<Vec<u8>, String> {
    if !signature
        .bytes()
        .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    {
        return Err("the signature is not canonical lower-case hex".to_owned());
    }
    hex::decode(signature).map_err(|_| "the signature is not hex".to_owned())
}

/// The challenge a passkey signs to approve `confirmation` with key `key_id`: SHA-256 of its canonical bytes.
pub fn confirmation_challenge(confirmation: &Confirmation, key_id: &str) -> [u8; 32] {
    Sha256::digest(canonical_bytes(confirmation, key_id)).into()
}

fn validate_key_id(path: &str, key_id: &str) -> Result<(), InputError> {
    if key_id.trim().is_empty() {
        return Err(InputError::new(
            InputErrorCode::InvalidKey,
            path,
            "key id must not be empty",
        ));
    }
    Ok(())
}

fn validate_key(
    id_path: &str,
    secret_path: &str,
    key_id: &str,
    secret: &[u8],
) -> Result<(), InputError> {
    validate_key_id(id_path, key_id)?;
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

/// The exact bytes that are signed. A confirmation for an audience is encoded as
/// `["agent-governor/confirmation/v2", key_id, audience, confirmation_id, ...]`, so a signature made for
/// one guard never verifies as one made for another, nor for none. One that names its action is encoded as
/// `["agent-governor/confirmation/v3", key_id, audience or "", action_id, confirmation_id, ...]`.
pub fn canonical_bytes(confirmation: &Confirmation, key_id: &str) -> Vec<u8> {
    let ConfirmedBy::Human = confirmation.confirmed_by;
    let mut fields: Vec<&str> = Vec::with_capacity(14);
    match (&confirmation.action_id, &confirmation.audience) {
        (Some(action_id), audience) => fields.extend([
            DOMAIN_WITH_ACTION,
            key_id,
            audience.as_deref().unwrap_or_default(),
            action_id.as_str(),
        ]),
        (None, Some(audience)) => fields.extend([DOMAIN_WITH_AUDIENCE, key_id, audience.as_str()]),
        (None, None) => fields.extend([DOMAIN, key_id]),
    }
    fields.extend([
        confirmation.confirmation_id.as_str(),
        &confirmation.node_id,
        &confirmation.proposed_change.change_type,
        &confirmation.proposed_change.from,
        &confirmation.proposed_change.to,
        &confirmation.intent,
        &confirmation.reason,
        "human",
        &confirmation.confirmed_at,
        &confirmation.ui_action,
    ]);
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
