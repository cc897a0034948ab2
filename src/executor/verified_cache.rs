//! A small memo of public-key signatures that verified, so a host that sees the same approval again (the Apply
//! after the decision, a retried or replayed Apply) does not redo the curve arithmetic. An entry is the
//! SHA-256 of everything verification read (the key's whole configuration, the signed bytes, the signature or
//! assertion), so any change to any of them misses. That a signature verified under a key is a fact about
//! those bytes alone, so one memo serves every key ring of the module instance; a revoked key is refused
//! before the memo is consulted.

use sha2::{Digest, Sha256};
use std::cell::RefCell;

/// How many verified signatures are remembered; the oldest is forgotten first. A linear scan over this many
/// 32-byte fingerprints costs far less than one curve verification, and less code than a map.
const CAPACITY: usize = 128;

pub type Fingerprint = [u8; 32];

thread_local! {
    static VERIFIED: RefCell<Entries> = RefCell::new(Entries::default());
    /// A fact assumed only while one synchronous computation runs (see [`VerifiedCache::assuming`]).
    static ASSUMED: RefCell<Option<(Fingerprint, Option<u32>)>> = const { RefCell::new(None) };
}

pub struct VerifiedCache;

#[derive(Default)]
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
    pub fn get(fingerprint: &Fingerprint) -> Option<Option<u32>> {
        let assumed = ASSUMED.with(|cell| {
            cell.try_borrow()
                .ok()
                .and_then(|assumed| *assumed)
                .filter(|(known, _)| known == fingerprint)
                .map(|(_, sign_count)| sign_count)
        });
        if assumed.is_some() {
            return assumed;
        }
        VERIFIED.with(|cell| {
            let entries = cell.try_borrow().ok()?;
            entries
                .slots
                .iter()
                .find(|(known, _)| known == fingerprint)
                .map(|(_, sign_count)| *sign_count)
        })
    }

    pub fn remember(fingerprint: Fingerprint, sign_count: Option<u32>) {
        VERIFIED.with(|cell| {
            if let Ok(mut entries) = cell.try_borrow_mut() {
                entries.insert(fingerprint, sign_count);
            }
        });
    }
}

impl VerifiedCache {
    /// Runs `compute` as if the verification `fingerprint` had succeeded: what a decision will be once a
    /// verification under way elsewhere (the host's WebCrypto) answers. The assumption holds only while
    /// `compute` runs, synchronously, so nothing else can see it; nothing is remembered.
    pub fn assuming<T>(
        fingerprint: Fingerprint,
        sign_count: Option<u32>,
        compute: impl FnOnce() -> T,
    ) -> T {
        ASSUMED.with(|cell| {
            if let Ok(mut assumed) = cell.try_borrow_mut() {
                *assumed = Some((fingerprint, sign_count));
            }
        });
        let result = compute();
        ASSUMED.with(|cell| {
            if let Ok(mut assumed) = cell.try_borrow_mut() {
                *assumed = None;
            }
        });
        result
    }
}

impl Entries {
    fn insert(&mut self, fingerprint: Fingerprint, sign_count: Option<u32>) {
        if self.slots.len() < CAPACITY {
            self.slots.push((fingerprint, sign_count));
            return;
        }
        let next = self.next;
        if let Some(slot) = self.slots.get_mut(next) {
            *slot = (fingerprint, sign_count);
        }
        self.next = (next + 1) % CAPACITY;
    }
}
