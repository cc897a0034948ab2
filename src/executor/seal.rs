//! Sealed lifecycle: an Executor that holds a seal key writes every confirmation record with a MAC over the
//! whole record (binding fields, proof and lifecycle fields), and refuses a record whose MAC does not match.
//! Whoever can write the store but does not hold the key cannot reset `consumed`, clear `in_flight_at` or
//! undo a cancellation without the Executor noticing.

use super::confirmation::Confirmation;
use crate::input::{InputError, to_json_string};
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

const DOMAIN: &[u8] = b"agent-governor/seal/v1\n";

/// The shortest seal key: 32 bytes.
pub const MIN_SEAL_KEY_BYTES: usize = 32;

/// A guard-held secret that seals stored confirmations.
#[derive(Clone)]
pub struct SealKey {
    mac: HmacSha256,
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(<redacted>)")
    }
}

impl SealKey {
    pub fn new(path: &str, secret: &[u8]) -> Result<Self, InputError> {
        if secret.len() < MIN_SEAL_KEY_BYTES {
            return Err(InputError::invalid(
                path,
                format!("a seal key must be at least {MIN_SEAL_KEY_BYTES} bytes"),
            ));
        }
        let mac = HmacSha256::new_from_slice(secret)
            .map_err(|_| InputError::invalid(path, "the seal key cannot be used"))?;
        Ok(Self { mac })
    }

    /// The MAC state after the domain and the record without its seal.
    fn keyed(&self, confirmation: &Confirmation) -> HmacSha256 {
        let unsealed = Confirmation {
            seal: None,
            ..confirmation.clone()
        };
        let mut mac = self.mac.clone();
        mac.update(DOMAIN);
        mac.update(to_json_string(&unsealed).as_bytes());
        mac
    }

    /// `confirmation` with its seal set over everything else in it.
    pub fn sealed(&self, confirmation: Confirmation) -> Confirmation {
        let seal = hex::encode(self.keyed(&confirmation).finalize().into_bytes());
        Confirmation {
            seal: Some(seal),
            ..confirmation
        }
    }

    /// Whether `confirmation`'s seal is this key's MAC over the rest of it (compared in constant time).
    pub fn verify(&self, confirmation: &Confirmation) -> Result<(), String> {
        let Some(seal) = confirmation.seal.as_deref() else {
            return Err("the record has no seal".to_owned());
        };
        let given = hex::decode(seal).map_err(|_| "the seal is not hex".to_owned())?;
        self.keyed(confirmation)
            .verify_slice(&given)
            .map_err(|_| "the seal does not match the record".to_owned())
    }
}

/// The text an Executor writes for `confirmation`: sealed when it holds a key.
pub fn stored_text(seal: Option<&SealKey>, confirmation: Confirmation) -> String {
    match seal {
        Some(key) => to_json_string(&key.sealed(confirmation)),
        None => to_json_string(&Confirmation {
            seal: None,
            ..confirmation
        }),
    }
}
