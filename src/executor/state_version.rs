//! The version of a piece of state a person acts on: a short digest of its exact stored text. A signed
//! action names the version it was made for; once the state changes, so does its version, and an action
//! made for the old one is refused as stale.

use sha2::{Digest, Sha256};

const DOMAIN: &[u8] = b"agent-governor/state-version/v1\n";

/// 32 lower-case hex characters (128 bits) of SHA-256 over the domain and `text`.
pub fn state_version(text: &str) -> String {
    let digest = Sha256::new()
        .chain_update(DOMAIN)
        .chain_update(text.as_bytes())
        .finalize();
    hex::encode(digest.get(..16).unwrap_or_default())
}
