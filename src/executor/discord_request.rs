//! Discord's interaction requests: Discord signs `timestamp ‖ body` with the application's Ed25519 key and
//! sends the signature (hex) in `X-Signature-Ed25519` and the timestamp (Unix seconds) in
//! `X-Signature-Timestamp`. A request is taken only when the signature verifies strictly under the
//! application's public key and the timestamp is recent: a captured request replayed later is refused.

use super::public_key::ed25519_key;
use crate::timestamp::EpochMillis;
use serde::Serialize;
use tsify::Tsify;

/// How old a signed request may be, and how far ahead of this clock its timestamp may lie.
pub const MAX_AGE_MS: EpochMillis = 5 * 60 * 1000;
pub const MAX_AHEAD_MS: EpochMillis = 60 * 1000;

/// Why a request was refused; a refused request is answered 401 and nothing in it is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum DiscordVerdict {
    Valid,
    /// `code`: `malformed` (the headers), `signature_invalid`, or `stale` (signed too long ago or ahead).
    Invalid {
        code: &'static str,
        reason: String,
    },
}

fn invalid(code: &'static str, reason: impl Into<String>) -> DiscordVerdict {
    DiscordVerdict::Invalid {
        code,
        reason: reason.into(),
    }
}

/// The application's public key (the hex the Discord developer portal shows); an error names what is wrong.
pub fn application_key(public_key_hex: &str) -> Result<super::public_key::PublicKey, String> {
    let bytes = hex::decode(public_key_hex)
        .map_err(|_| "the application's public key is not hex".to_owned())?;
    if bytes.len() != 32 {
        return Err(format!(
            "the application's public key is 32 bytes (64 hex characters), got {} bytes",
            bytes.len()
        ));
    }
    ed25519_key(&bytes)
}

/// Verifies one interaction request at `now`.
pub fn verify_discord_request(
    key: &super::public_key::PublicKey,
    signature_hex: &str,
    timestamp: &str,
    body: &[u8],
    now: EpochMillis,
) -> DiscordVerdict {
    if timestamp.is_empty()
        || timestamp.len() > 12
        || !timestamp.bytes().all(|byte| byte.is_ascii_digit())
    {
        return invalid(
            "malformed",
            "X-Signature-Timestamp must be the Unix time in seconds",
        );
    }
    let Ok(seconds) = timestamp.parse::<EpochMillis>() else {
        return invalid(
            "malformed",
            "X-Signature-Timestamp must be the Unix time in seconds",
        );
    };
    let signature = match hex::decode(signature_hex) {
        Ok(bytes) if bytes.len() == 64 => bytes,
        _ => return invalid("malformed", "X-Signature-Ed25519 must be 64 bytes of hex"),
    };
    let mut message = Vec::with_capacity(timestamp.len().saturating_add(body.len()));
    message.extend_from_slice(timestamp.as_bytes());
    message.extend_from_slice(body);
    if key.verify(&message, &signature).is_err() {
        return invalid(
            "signature_invalid",
            "the request's signature does not verify under the application's key",
        );
    }
    // Checked after the signature: only a request Discord signed is told it is stale.
    let sent = seconds.saturating_mul(1000);
    if now.saturating_sub(sent) > MAX_AGE_MS {
        return invalid("stale", "the request was signed more than 5 minutes ago");
    }
    if sent.saturating_sub(now) > MAX_AHEAD_MS {
        return invalid(
            "stale",
            "the request's timestamp is more than a minute ahead of this clock",
        );
    }
    DiscordVerdict::Valid
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    const NOW: EpochMillis = 1_800_000_000_000;

    fn signed(key: &SigningKey, timestamp: &str, body: &str) -> String {
        hex::encode(key.sign(format!("{timestamp}{body}").as_bytes()).to_bytes())
    }

    fn fixture() -> (SigningKey, super::super::public_key::PublicKey) {
        let signing = SigningKey::from_bytes(&[7; 32]);
        let public = application_key(&hex::encode(signing.verifying_key().to_bytes())).unwrap();
        (signing, public)
    }

    #[test]
    fn a_fresh_signed_request_is_valid() {
        let (signing, key) = fixture();
        let body = r#"{"type":1}"#;
        let verdict = verify_discord_request(
            &key,
            &signed(&signing, "1800000000", body),
            "1800000000",
            body.as_bytes(),
            NOW,
        );
        assert_eq!(verdict, DiscordVerdict::Valid);
    }

    #[test]
    fn altered_bodies_timestamps_and_signatures_are_refused() {
        let (signing, key) = fixture();
        let body = r#"{"type":1}"#;
        let signature = signed(&signing, "1800000000", body);
        let code = |verdict: DiscordVerdict| match verdict {
            DiscordVerdict::Invalid { code, .. } => code,
            DiscordVerdict::Valid => "valid",
        };
        assert_eq!(
            code(verify_discord_request(
                &key,
                &signature,
                "1800000000",
                br#"{"type":2}"#,
                NOW
            )),
            "signature_invalid"
        );
        assert_eq!(
            code(verify_discord_request(
                &key,
                &signature,
                "1800000001",
                body.as_bytes(),
                NOW
            )),
            "signature_invalid"
        );
        assert_eq!(
            code(verify_discord_request(
                &key,
                &signature[2..],
                "1800000000",
                body.as_bytes(),
                NOW
            )),
            "malformed"
        );
        assert_eq!(
            code(verify_discord_request(
                &key,
                "zz",
                "1800000000",
                body.as_bytes(),
                NOW
            )),
            "malformed"
        );
        for timestamp in ["", "-1", "1.5", "9999999999999", " 1800000000"] {
            assert_eq!(
                code(verify_discord_request(
                    &key,
                    &signature,
                    timestamp,
                    body.as_bytes(),
                    NOW
                )),
                "malformed",
                "{timestamp}"
            );
        }
    }

    #[test]
    fn stale_and_future_requests_are_refused_once_signed() {
        let (signing, key) = fixture();
        let body = "{}";
        let old = "1799999699"; // 301 s before NOW
        let verdict = verify_discord_request(
            &key,
            &signed(&signing, old, body),
            old,
            body.as_bytes(),
            NOW,
        );
        assert!(matches!(
            verdict,
            DiscordVerdict::Invalid { code: "stale", .. }
        ));
        let ahead = "1800000061";
        let verdict = verify_discord_request(
            &key,
            &signed(&signing, ahead, body),
            ahead,
            body.as_bytes(),
            NOW,
        );
        assert!(matches!(
            verdict,
            DiscordVerdict::Invalid { code: "stale", .. }
        ));
        let edge = "1799999700";
        assert_eq!(
            verify_discord_request(
                &key,
                &signed(&signing, edge, body),
                edge,
                body.as_bytes(),
                NOW
            ),
            DiscordVerdict::Valid
        );
    }

    #[test]
    fn application_keys_are_checked() {
        assert!(application_key("abc").is_err());
        assert!(application_key(&"00".repeat(31)).is_err());
        // A small-order point verifies forged signatures: refused.
        assert!(application_key(&format!("01{}", "00".repeat(31))).is_err());
    }
}
