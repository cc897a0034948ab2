//! Approver-held keys: the public half of an Ed25519 key (a CLI, a backend) or of a WebAuthn passkey (ES256
//! or EdDSA, a person in a browser). A verifier that holds only these can check an approval but never mint one.
//!
//! Public keys travel as unpadded base64url, either raw (Ed25519: 32 bytes; P-256: the SEC1 point) or as the
//! DER SubjectPublicKeyInfo that `AuthenticatorAttestationResponse.getPublicKey()` and WebCrypto's `spki`
//! export produce.

use crate::input::{InputError, InputErrorCode};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tsify::Tsify;

/// COSE algorithm identifier of ECDSA with P-256 and SHA-256.
pub const COSE_ES256: i32 = -7;
/// COSE algorithm identifier of EdDSA (Ed25519).
pub const COSE_EDDSA: i32 = -8;

/// DER SubjectPublicKeyInfo header of an Ed25519 key (RFC 8410); the 32 key bytes follow.
const ED25519_SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];
/// DER SubjectPublicKeyInfo header of an uncompressed P-256 key (RFC 5480); the 65-byte point follows.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// What kind of key a verification key is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum PublicKeyKind {
    /// A raw Ed25519 key: the approver signs the canonical bytes themselves.
    Ed25519,
    /// A WebAuthn passkey: the approver's authenticator signs an assertion whose challenge is the hash of
    /// the canonical bytes.
    Webauthn,
}

/// A trusted public key, as a guard or an Executor is configured with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct PublicKeySpec {
    #[serde(rename = "type")]
    pub kind: PublicKeyKind,
    /// Unpadded base64url: raw key bytes or DER SubjectPublicKeyInfo.
    pub public_key: String,
    /// WebAuthn only: the COSE algorithm, -7 (ES256) or -8 (EdDSA).
    #[serde(default)]
    #[tsify(optional)]
    pub algorithm: Option<i32>,
    /// WebAuthn only: the relying party id whose hash the authenticator data must carry.
    #[serde(default)]
    #[tsify(optional)]
    pub rp_id: Option<String>,
    /// WebAuthn only: the page origins an assertion may come from (exact match).
    #[serde(default)]
    #[tsify(optional)]
    pub origins: Option<Vec<String>>,
    /// A revoked key verifies nothing: everything it signed is `signature_invalid`.
    #[serde(default)]
    #[tsify(optional)]
    pub revoked: Option<bool>,
}

/// A verification key as configured: a string is an HMAC secret (a server that issues approvals itself),
/// an object is an approver's public key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[serde(untagged)]
pub enum KeySpec {
    Secret(String),
    Public(PublicKeySpec),
}

/// By the value's shape, so an error inside a public key names its field rather than "no variant matched".
impl<'de> Deserialize<'de> for KeySpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeySpecVisitor;
        impl<'de> serde::de::Visitor<'de> for KeySpecVisitor {
            type Value = KeySpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an HMAC secret (a string) or a public key ({ type, public_key, ... })")
            }
            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<KeySpec, E> {
                Ok(KeySpec::Secret(value.to_owned()))
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<KeySpec, M::Error> {
                PublicKeySpec::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(KeySpec::Public)
            }
        }
        deserializer.deserialize_any(KeySpecVisitor)
    }
}

/// A parsed public key, ready to verify.
#[derive(Clone)]
pub enum PublicKey {
    Ed25519(ed25519_dalek::VerifyingKey),
    P256(p256::ecdsa::VerifyingKey),
}

impl PublicKey {
    /// Verifies `signature` over `message`. Ed25519 takes the 64-byte signature and uses strict
    /// verification (no small-order keys, no malleable encodings); P-256 takes the DER signature WebAuthn
    /// authenticators produce.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), String> {
        match self {
            Self::Ed25519(key) => {
                let signature = ed25519_dalek::Signature::from_slice(signature)
                    .map_err(|_| "the Ed25519 signature is not 64 bytes".to_owned())?;
                key.verify_strict(message, &signature)
                    .map_err(|_| "the signature does not match the approved content".to_owned())
            }
            Self::P256(key) => {
                use p256::ecdsa::signature::Verifier as _;
                let signature = p256::ecdsa::Signature::from_der(signature)
                    .map_err(|_| "the ES256 signature is not DER-encoded ECDSA".to_owned())?;
                key.verify(message, &signature)
                    .map_err(|_| "the signature does not match the approved content".to_owned())
            }
        }
    }
}

/// The relying party a passkey is bound to.
#[derive(Clone, PartialEq, Eq)]
pub struct RelyingParty {
    pub rp_id_hash: [u8; 32],
    pub origins: Vec<String>,
}

/// A public key read from its configuration.
#[derive(Clone)]
pub struct ParsedPublicKey {
    pub key: PublicKey,
    /// `Some` for a passkey.
    pub relying_party: Option<RelyingParty>,
    pub revoked: bool,
}

impl ParsedPublicKey {
    /// Reads and checks a key's configuration; `path` names it in errors.
    pub fn parse(path: &str, spec: &PublicKeySpec) -> Result<Self, InputError> {
        let bad = |field: &str, message: String| {
            InputError::new(
                InputErrorCode::InvalidKey,
                format!("{path}.{field}"),
                message,
            )
        };
        let bytes = decode_base64url(&spec.public_key).map_err(|why| bad("public_key", why))?;
        let revoked = spec.revoked.unwrap_or(false);
        match spec.kind {
            PublicKeyKind::Ed25519 => {
                if spec.algorithm.is_some() || spec.rp_id.is_some() || spec.origins.is_some() {
                    return Err(bad(
                        "type",
                        "algorithm, rp_id and origins belong to a webauthn key, not an ed25519 key"
                            .to_owned(),
                    ));
                }
                let key = ed25519_key(&bytes).map_err(|why| bad("public_key", why))?;
                Ok(Self {
                    key,
                    relying_party: None,
                    revoked,
                })
            }
            PublicKeyKind::Webauthn => {
                let key = match spec.algorithm {
                    Some(COSE_ES256) => p256_key(&bytes),
                    Some(COSE_EDDSA) => ed25519_key(&bytes),
                    Some(other) => {
                        return Err(bad(
                            "algorithm",
                            format!("must be -7 (ES256) or -8 (EdDSA), got {other}"),
                        ));
                    }
                    None => {
                        return Err(bad(
                            "algorithm",
                            "a webauthn key needs its COSE algorithm: -7 (ES256) or -8 (EdDSA)"
                                .to_owned(),
                        ));
                    }
                }
                .map_err(|why| bad("public_key", why))?;
                let rp_id = spec.rp_id.as_deref().unwrap_or("");
                if rp_id.trim().is_empty() {
                    return Err(bad(
                        "rp_id",
                        "a webauthn key needs the relying party id it was registered for"
                            .to_owned(),
                    ));
                }
                let origins = spec.origins.clone().unwrap_or_default();
                if origins.is_empty() || origins.iter().any(|origin| origin.trim().is_empty()) {
                    return Err(bad(
                        "origins",
                        "a webauthn key needs at least one non-empty origin".to_owned(),
                    ));
                }
                Ok(Self {
                    key,
                    relying_party: Some(RelyingParty {
                        rp_id_hash: Sha256::digest(rp_id.as_bytes()).into(),
                        origins,
                    }),
                    revoked,
                })
            }
        }
    }
}

pub(crate) fn ed25519_key(bytes: &[u8]) -> Result<PublicKey, String> {
    let raw = bytes.strip_prefix(&ED25519_SPKI_PREFIX).unwrap_or(bytes);
    let raw: [u8; 32] = raw.try_into().map_err(|_| {
        format!(
            "an Ed25519 public key is 32 raw bytes or its 44-byte SubjectPublicKeyInfo, got {} bytes",
            bytes.len()
        )
    })?;
    let key = ed25519_dalek::VerifyingKey::from_bytes(&raw)
        .map_err(|_| "not a valid Ed25519 public key".to_owned())?;
    if key.is_weak() {
        return Err("a small-order Ed25519 public key verifies forged signatures".to_owned());
    }
    Ok(PublicKey::Ed25519(key))
}

fn p256_key(bytes: &[u8]) -> Result<PublicKey, String> {
    let point = bytes.strip_prefix(&P256_SPKI_PREFIX).unwrap_or(bytes);
    p256::ecdsa::VerifyingKey::from_sec1_bytes(point)
        .map(PublicKey::P256)
        .map_err(|_| {
            "not a P-256 public key (SEC1 point or SubjectPublicKeyInfo expected)".to_owned()
        })
}

/// Decodes unpadded base64url, the encoding WebAuthn uses; padding and non-canonical trailing bits are
/// refused, so each value has one spelling.
pub fn decode_base64url(text: &str) -> Result<Vec<u8>, String> {
    URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| "not unpadded base64url".to_owned())
}

pub fn encode_base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}
