//! A signature the host may verify faster than this module: an ES256 passkey assertion, whose P-256
//! arithmetic runs in the host's WebCrypto 12 to 16 times faster than in the wasm (bench/RESULTS.md).
//!
//! The core prepares the request from the confirmation it is deciding on: every check but the curve step
//! has passed, and the request carries the exact bytes (the public key as a SEC1 point, the signed bytes, the
//! signature as the 64-byte `r || s` WebCrypto takes, decoded from DER by the core). When the host answers
//! that the signature verifies, [`HostVerification::accept`] records the fact in the memo of verified
//! signatures under the fingerprint of everything verification read; the check that follows recomputes that
//! fingerprint from its own input, so it can only find the fact for the same bytes. Any other answer records
//! nothing, and the check verifies the signature itself: the module's verifier stays the reference. While
//! the host verifies, the rest of the check may run on the assumption that it will answer `true`
//! ([`HostVerification::assuming_verified`]); that verdict is used only when it does.

use super::public_key::PublicKey;
use super::verified_cache::{Fingerprint, VerifiedCache};

/// The algorithm of a host verification, as WebCrypto names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostAlgorithm {
    /// ECDSA over P-256 with SHA-256 (COSE -7, ES256).
    EcdsaP256Sha256,
}

/// One signature for the host to verify.
pub struct HostVerification {
    pub algorithm: HostAlgorithm,
    /// The SEC1 uncompressed point (65 bytes), WebCrypto's "raw" format.
    pub public_key: Vec<u8>,
    pub signed: Vec<u8>,
    /// `r || s`, 32 bytes each (IEEE P1363), WebCrypto's ECDSA signature format.
    pub signature: Vec<u8>,
    fingerprint: Fingerprint,
    sign_count: Option<u32>,
}

impl HostVerification {
    /// The request for a P-256 key, or `None` when the key is not P-256 or the signature is not DER-encoded
    /// ECDSA (the module's own verifier then reports it).
    pub(crate) fn for_p256(
        key: &PublicKey,
        signed: Vec<u8>,
        der_signature: &[u8],
        fingerprint: Fingerprint,
        sign_count: Option<u32>,
    ) -> Option<Self> {
        let PublicKey::P256(key) = key else {
            return None;
        };
        let signature = p256::ecdsa::Signature::from_der(der_signature).ok()?;
        Some(Self {
            algorithm: HostAlgorithm::EcdsaP256Sha256,
            public_key: key.to_encoded_point(false).as_bytes().to_vec(),
            signed,
            signature: signature.to_bytes().to_vec(),
            fingerprint,
            sign_count,
        })
    }

    /// The host verified the signature: the check that follows finds the fact.
    pub fn accept(self) {
        VerifiedCache::remember(self.fingerprint, self.sign_count);
    }

    /// Runs `decide` as if the host will answer that the signature verifies, so the rest of a check can run
    /// while the host verifies; the result counts only if it does (see [`VerifiedCache::assuming`]).
    pub fn assuming_verified<T>(&self, decide: impl FnOnce() -> T) -> T {
        VerifiedCache::assuming(self.fingerprint, self.sign_count, decide)
    }
}
