//! A small memo of public-key signatures that verified, so a guard that sees the same stored approval again
//! (a retried or replayed Apply, a status poll) does not redo the curve arithmetic. An entry is the SHA-256
//! of everything verification read (key id, signed bytes, signature or assertion), so any change to any of
//! them misses; it lives in one key ring, which is rebuilt whenever a key is added or revoked.

use sha2::{Digest, Sha256};
use std::cell::RefCell;

/// How many verified signatures are remembered; the oldest is forgotten first. A linear scan over this many
/// 32-byte fingerprints costs far less than one curve verification, and less code than a map.
const CAPACITY: usize = 128;

pub type Fingerprint = [u8; 32];

#[derive(Clone, Default)]
pub struct VerifiedCache {
    inner: RefCell<Entries>,
}

#[derive(Clone, Default)]
struct Entries {
    slots: Vec<(Fingerprint, Option<u32>)>,
    /// Where the next entry goes once the slots are full.
    next: usize,
}

impl VerifiedCache {
    /// The fingerprint of one verification: every input, each length-prefixed so no two inputs collide.
    pub fn fingerprint(parts: &[&[u8]]) -> Fingerprint {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part);
        }
        hasher.finalize().into()
    }

    /// The passkey counter remembered for a verification that succeeded before, if any.
    pub fn get(&self, fingerprint: &Fingerprint) -> Option<Option<u32>> {
        let entries = self.inner.try_borrow().ok()?;
        entries
            .slots
            .iter()
            .find(|(known, _)| known == fingerprint)
            .map(|(_, sign_count)| *sign_count)
    }

    pub fn remember(&self, fingerprint: Fingerprint, sign_count: Option<u32>) {
        let Ok(mut entries) = self.inner.try_borrow_mut() else {
            return;
        };
        if entries.slots.len() < CAPACITY {
            entries.slots.push((fingerprint, sign_count));
            return;
        }
        let next = entries.next;
        if let Some(slot) = entries.slots.get_mut(next) {
            *slot = (fingerprint, sign_count);
        }
        entries.next = (next + 1) % CAPACITY;
    }
}
