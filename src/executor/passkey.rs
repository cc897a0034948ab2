//! WebAuthn assertion verification (Web Authentication Level 3, section 7.2 "Verifying an Authentication
//! Assertion", the steps a relying party must run), for approvals made with a passkey. The challenge the
//! page passed to `navigator.credentials.get` is the SHA-256 of the canonical bytes of what is approved, so
//! the assertion binds the exact change.

use super::public_key::{PublicKey, RelyingParty, decode_base64url, encode_base64url};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tsify::Tsify;

/// Flag bit: the user was present (touched, clicked).
const USER_PRESENT: u8 = 0x01;
/// Flag bit: the user was verified (PIN, biometrics).
const USER_VERIFIED: u8 = 0x04;
/// rpIdHash (32) + flags (1) + signCount (4).
const AUTHENTICATOR_DATA_MIN_LEN: usize = 37;

/// What `navigator.credentials.get` returned, each part unpadded base64url as the browser's
/// `AuthenticatorAssertionResponse` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct PasskeyAssertion {
    pub authenticator_data: String,
    pub client_data_json: String,
    pub signature: String,
}

#[derive(Deserialize)]
struct ClientData {
    #[serde(rename = "type")]
    kind: String,
    challenge: String,
    origin: String,
    #[serde(rename = "crossOrigin", default)]
    cross_origin: Option<bool>,
}

/// Verifies `assertion` against a passkey and the challenge it must carry; returns the authenticator's
/// signature counter (0 when it keeps none), which the holder of the key's state compares with the last one.
pub fn verify_assertion(
    key: &PublicKey,
    relying_party: &RelyingParty,
    challenge: &[u8],
    assertion: &PasskeyAssertion,
) -> Result<u32, String> {
    let prepared = prepare_assertion(relying_party, challenge, assertion)?;
    key.verify(&prepared.signed, &prepared.signature)?;
    Ok(prepared.sign_count)
}

/// An assertion that passed every check but the signature: the bytes the authenticator signed, the
/// signature as sent, and the counter.
pub struct PreparedAssertion {
    pub signed: Vec<u8>,
    pub signature: Vec<u8>,
    pub sign_count: u32,
}

/// Every check of WebAuthn section 7.2 but the signature itself: the client data (type, challenge, origin,
/// not cross-origin) and the authenticator data (relying party, user present and verified).
pub fn prepare_assertion(
    relying_party: &RelyingParty,
    challenge: &[u8],
    assertion: &PasskeyAssertion,
) -> Result<PreparedAssertion, String> {
    let client_data_json = decode_part("client_data_json", &assertion.client_data_json)?;
    let authenticator_data = decode_part("authenticator_data", &assertion.authenticator_data)?;
    let signature = decode_part("signature", &assertion.signature)?;

    let client_data: ClientData = serde_json::from_slice(&client_data_json)
        .map_err(|_| "the passkey's client data is not the JSON WebAuthn defines".to_owned())?;
    if client_data.kind != "webauthn.get" {
        return Err(format!(
            "the passkey's client data is of type `{}`, not `webauthn.get`",
            client_data.kind
        ));
    }
    if client_data.challenge != encode_base64url(challenge) {
        return Err("the passkey signed another challenge: not this exact change".to_owned());
    }
    if !relying_party.origins.contains(&client_data.origin) {
        return Err(format!(
            "the passkey was used from origin `{}`, which this key is not registered for",
            client_data.origin
        ));
    }
    if client_data.cross_origin == Some(true) {
        return Err("the passkey was used from a cross-origin frame".to_owned());
    }

    let sign_count = check_authenticator_data(relying_party, &authenticator_data)?;

    let mut signed = authenticator_data;
    signed.extend_from_slice(&Sha256::digest(&client_data_json));
    Ok(PreparedAssertion {
        signed,
        signature,
        sign_count,
    })
}

/// The relying party hash, the user presence and verification flags; returns the signature counter.
fn check_authenticator_data(
    relying_party: &RelyingParty,
    authenticator_data: &[u8],
) -> Result<u32, String> {
    if authenticator_data.len() < AUTHENTICATOR_DATA_MIN_LEN {
        return Err(format!(
            "the passkey's authenticator data is {} bytes; at least {AUTHENTICATOR_DATA_MIN_LEN} are required",
            authenticator_data.len()
        ));
    }
    let (rp_id_hash, rest) = authenticator_data.split_at(32);
    if rp_id_hash != relying_party.rp_id_hash {
        return Err("the passkey belongs to another relying party (rp id hash differs)".to_owned());
    }
    let (flags, rest) = rest.split_at(1);
    let flags = flags.first().copied().unwrap_or(0);
    if flags & USER_PRESENT == 0 {
        return Err("the authenticator did not see the user present".to_owned());
    }
    if flags & USER_VERIFIED == 0 {
        return Err("the authenticator did not verify the user".to_owned());
    }
    let counter: [u8; 4] = rest
        .get(..4)
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| "the passkey's authenticator data has no signature counter".to_owned())?;
    Ok(u32::from_be_bytes(counter))
}

/// The signature counter of an assertion's authenticator data (0 when the authenticator keeps none).
pub fn assertion_sign_count(assertion: &PasskeyAssertion) -> Result<u32, String> {
    let data = decode_part("authenticator_data", &assertion.authenticator_data)?;
    data.get(33..37)
        .and_then(|bytes| <[u8; 4]>::try_from(bytes).ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| "the passkey's authenticator data is too short".to_owned())
}

/// Whether a counter may follow the last one seen: WebAuthn section 7.2 step 21. A counter that did not
/// grow means the credential may have been cloned; both zero means the authenticator keeps no counter.
pub fn sign_count_advances(last: u32, now: u32) -> bool {
    (last == 0 && now == 0) || now > last
}

fn decode_part(name: &str, text: &str) -> Result<Vec<u8>, String> {
    decode_base64url(text).map_err(|why| format!("the passkey's {name} is {why}"))
}
