//! Wycheproof vectors (tests/fixtures/conformance/wycheproof/, pinned: see the README there) through the
//! core's own verifiers: Ed25519 through a key ring's signature check (the path of a confirmation or a human
//! action signed with an approver's key), ECDSA P-256 with DER signatures through the public-key verifier a
//! passkey assertion is checked with, and HMAC-SHA256 through a key ring of shared secrets (confirmations a
//! server signs with a secret). A `valid` vector must verify and an `invalid` one must be refused; the files
//! have no `acceptable` vectors (the test fails if one appears, so a decision is made for it). The project's
//! deviations are stated below by tcId with their reason, and the set of deviating vectors must be exactly
//! that: a new deviation, or one that went away, fails.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::executor::public_key::{ParsedPublicKey, encode_base64url};
use agent_governor::executor::signature::MIN_SECRET_BYTES;
use agent_governor::executor::{KeyRing, KeySpec, Proof, Signer};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

fn vectors(file: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/conformance/wycheproof/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bytes(value: &Value) -> Vec<u8> {
    hex::decode(value.as_str().unwrap()).unwrap()
}

/// Every test of `file` with its group, after checking the file's count and that no vector is `acceptable`.
fn tests_of(file: &Value) -> Vec<(&Value, &Value)> {
    let all: Vec<_> = file["testGroups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|group| {
            group["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |test| (group, test))
        })
        .collect();
    assert_eq!(all.len() as u64, file["numberOfTests"].as_u64().unwrap());
    for (_, test) in &all {
        assert!(
            matches!(test["result"].as_str(), Some("valid" | "invalid")),
            "tcId {}: `{}` needs a stated decision",
            test["tcId"],
            test["result"]
        );
    }
    all
}

/// Runs `verify` on every vector: the tcIds whose outcome differs from Wycheproof's, and how many agree.
fn deviations(file: &Value, verify: impl Fn(&Value, &Value) -> bool) -> (BTreeSet<u64>, usize) {
    let mut deviating = BTreeSet::new();
    let mut passed = 0;
    for (group, test) in tests_of(file) {
        let verified = verify(group, test);
        if verified == (test["result"] == "valid") {
            passed += 1;
        } else {
            deviating.insert(test["tcId"].as_u64().unwrap());
        }
    }
    (deviating, passed)
}

fn ids(stated: &[(&str, &[u64])]) -> BTreeSet<u64> {
    stated
        .iter()
        .flat_map(|(_, ids)| ids.iter().copied())
        .collect()
}

/// Whether a key ring holding the Ed25519 key `public_key` (hex) accepts the vector's signature over its
/// message, as it checks a confirmation signed with an approver's key.
fn ed25519_verifies(public_key: &Value, test: &Value) -> bool {
    let spec: KeySpec = serde_json::from_value(json!({
        "type": "ed25519",
        "public_key": encode_base64url(&bytes(public_key)),
    }))
    .unwrap();
    let Ok(ring) = KeyRing::from_specs(&BTreeMap::from([("approver".to_owned(), spec)])) else {
        return false;
    };
    let proof = Proof {
        key_id: Some("approver"),
        signature: Some(test["sig"].as_str().unwrap()),
        assertion: None,
    };
    ring.verify_proof(proof, &|_| bytes(&test["msg"])).is_ok()
}

/// Whether the ES256 passkey key `public_key` (hex: a SEC1 point or its SubjectPublicKeyInfo) accepts the
/// vector's DER signature over its message, as it checks a passkey assertion's signature.
fn p256_verifies(public_key: &Value, test: &Value) -> bool {
    let spec = serde_json::from_value(json!({
        "type": "webauthn",
        "algorithm": -7,
        "public_key": encode_base64url(&bytes(public_key)),
        "rp_id": "approvals.example",
        "origins": ["https://approvals.example"],
    }))
    .unwrap();
    let Ok(key) = ParsedPublicKey::parse("keys.approver", &spec) else {
        return false;
    };
    key.key
        .verify(&bytes(&test["msg"]), &bytes(&test["sig"]))
        .is_ok()
}

#[test]
fn ed25519_vectors_verify_exactly_as_wycheproof_says() {
    let file = vectors("ed25519_test.json");
    let (deviating, passed) = deviations(&file, |group, test| {
        // The raw key and its SubjectPublicKeyInfo are the same key: both must decide alike.
        let raw = ed25519_verifies(&group["publicKey"]["pk"], test);
        assert_eq!(
            raw,
            ed25519_verifies(&group["publicKeyDer"], test),
            "tcId {}",
            test["tcId"]
        );
        raw
    });
    assert_eq!(deviating, BTreeSet::new(), "Ed25519 deviations");
    assert_eq!(passed, 151);
}

#[test]
fn ecdsa_p256_der_vectors_verify_exactly_as_wycheproof_says() {
    let file = vectors("ecdsa_secp256r1_sha256_test.json");
    let (deviating, passed) = deviations(&file, |group, test| {
        let spki = p256_verifies(&group["publicKeyDer"], test);
        let point = p256_verifies(&group["publicKey"]["uncompressed"], test);
        assert_eq!(spki, point, "tcId {}", test["tcId"]);
        spki
    });
    assert_eq!(deviating, BTreeSet::new(), "ECDSA P-256 (DER) deviations");
    assert_eq!(passed, 484);
}

/// HMAC-SHA256 vectors the project decides otherwise (all `valid`, all refused), by tcId with the reason.
/// Each list is also checked against the property its reason names.
const HMAC_DEVIATIONS: &[(&str, &[u64])] = &[
    (HMAC_SHORT_KEY, &[163, 164, 165, 166, 167, 168]),
    (
        HMAC_TRUNCATED_TAG,
        &[
            82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102,
            103, 104, 105, 106, 107, 108, 172, 173, 174,
        ],
    ),
];
const HMAC_SHORT_KEY: &str = "a secret under 32 bytes is refused when the key ring is built \
    (MIN_SECRET_BYTES: a key shorter than the hash weakens HMAC-SHA256), so nothing verifies under it";
const HMAC_TRUNCATED_TAG: &str = "only the full 32-byte tag verifies: a truncated tag (here 16 bytes) \
    is refused, as the signing side never writes one";

#[test]
fn hmac_sha256_vectors_verify_exactly_as_wycheproof_says_but_for_the_stated_policy() {
    let stated = HMAC_DEVIATIONS;
    let file = vectors("hmac_sha256_test.json");
    let (deviating, passed) = deviations(&file, |_, test| {
        let secret = bytes(&test["key"]);
        // The signing side holds secrets to the same rule as the key ring.
        assert_eq!(
            Signer::new("server", &secret).is_ok(),
            KeyRing::new([("server", secret.as_slice())]).is_ok()
        );
        let Ok(ring) = KeyRing::new([("server", secret.as_slice())]) else {
            return false;
        };
        let tag = test["tag"].as_str().unwrap();
        let proof = Proof {
            key_id: Some("server"),
            signature: Some(tag),
            assertion: None,
        };
        ring.verify_proof(proof, &|_| bytes(&test["msg"])).is_ok()
    });
    assert_eq!(deviating, ids(stated), "HMAC-SHA256 deviations");
    for (group, test) in tests_of(&file) {
        let id = test["tcId"].as_u64().unwrap();
        let short_key = bytes(&test["key"]).len() < MIN_SECRET_BYTES;
        let truncated = bytes(&test["tag"]).len() < 32;
        assert_eq!(
            stated[0].1.contains(&id),
            test["result"] == "valid" && short_key,
            "tcId {id}"
        );
        assert_eq!(
            stated[1].1.contains(&id),
            test["result"] == "valid" && truncated && !short_key,
            "tcId {id} in a group of {} bit tags",
            group["tagSize"]
        );
    }
    assert_eq!(passed, 174 - ids(stated).len());
}
