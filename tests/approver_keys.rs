//! Approvals signed by the approver's own key and verified with public keys only: Ed25519 and WebAuthn
//! passkey assertions (ES256, EdDSA), rotation and revocation, and signed human actions.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::executor::check::{CheckPolicy, check_confirmation};
use agent_governor::executor::human_action::{
    HumanAction, HumanActionKind, action_challenge, canonical_action_bytes, check_human_action,
};
use agent_governor::executor::passkey::{assertion_sign_count, sign_count_advances};
use agent_governor::executor::public_key::{COSE_EDDSA, COSE_ES256, encode_base64url};
use agent_governor::executor::signature::canonical_bytes;
use agent_governor::executor::*;
use ed25519_dalek::Signer as _;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use support::*;

const RP_ID: &str = "approvals.example";
const ORIGIN: &str = "https://approvals.example";

fn ed25519_signing_key(seed: u8) -> ed25519_dalek::SigningKey {
    ed25519_dalek::SigningKey::from_bytes(&[seed; 32])
}

fn p256_signing_key() -> p256::ecdsa::SigningKey {
    p256::ecdsa::SigningKey::from_bytes(&[7u8; 32].into()).unwrap()
}

fn ed25519_spec(key: &ed25519_dalek::SigningKey) -> KeySpec {
    keyspec(
        json!({ "type": "ed25519", "public_key": encode_base64url(key.verifying_key().as_bytes()) }),
    )
}

fn keyspec(value: serde_json::Value) -> KeySpec {
    serde_json::from_value(value).unwrap()
}

fn ring(entries: &[(&str, KeySpec)]) -> KeyRing {
    let map: BTreeMap<String, KeySpec> = entries
        .iter()
        .map(|(id, spec)| ((*id).to_owned(), spec.clone()))
        .collect();
    KeyRing::from_specs(&map).unwrap()
}

fn unsigned() -> Confirmation {
    let mut approval = confirmation("c-pk", "node-1");
    approval.key_id = None;
    approval.signature = None;
    approval
}

fn ed25519_signed(
    key: &ed25519_dalek::SigningKey,
    key_id: &str,
    approval: Confirmation,
) -> Confirmation {
    let signature = key.sign(&canonical_bytes(&approval, key_id));
    Confirmation {
        key_id: Some(key_id.to_owned()),
        signature: Some(hex::encode(signature.to_bytes())),
        ..approval
    }
}

fn verdict(keys: &KeyRing, approval: &Confirmation) -> CheckVerdict {
    check_confirmation(
        Some(approval),
        &request_for(approval),
        confirmed_at_ms(),
        &CheckPolicy::default(),
        keys,
        Some(&approval.proposed_change.from),
    )
}

fn rejected_phase(verdict: &CheckVerdict) -> Phase {
    match verdict {
        CheckVerdict::Rejected { phase, .. } => *phase,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

// ---- Ed25519 ----

#[test]
fn an_ed25519_signed_confirmation_passes_with_only_the_public_key() {
    let key = ed25519_signing_key(1);
    let keys = ring(&[("alice-1", ed25519_spec(&key))]);
    let approval = ed25519_signed(&key, "alice-1", unsigned());
    assert_eq!(verdict(&keys, &approval), CheckVerdict::Pass);
}

#[test]
fn an_altered_ed25519_confirmation_is_signature_invalid() {
    let key = ed25519_signing_key(1);
    let keys = ring(&[("alice-1", ed25519_spec(&key))]);
    for alter in [
        |c: &mut Confirmation| c.proposed_change.to = "deleted".into(),
        |c: &mut Confirmation| c.node_id = "node-2".into(),
        |c: &mut Confirmation| c.confirmed_at = "2026-11-22T09:00:01.000Z".into(),
        |c: &mut Confirmation| c.reason = "other".into(),
    ] {
        let mut approval = ed25519_signed(&key, "alice-1", unsigned());
        alter(&mut approval);
        assert_eq!(
            rejected_phase(&verdict(&keys, &approval)),
            Phase::SignatureInvalid
        );
    }
}

#[test]
fn a_signature_by_another_key_or_under_another_key_id_is_signature_invalid() {
    let alice = ed25519_signing_key(1);
    let mallory = ed25519_signing_key(2);
    let keys = ring(&[
        ("alice-1", ed25519_spec(&alice)),
        ("bob-1", ed25519_spec(&ed25519_signing_key(3))),
    ]);
    let forged = ed25519_signed(&mallory, "alice-1", unsigned());
    assert_eq!(
        rejected_phase(&verdict(&keys, &forged)),
        Phase::SignatureInvalid
    );
    // Alice's signature presented as Bob's: the key id is inside the signed bytes.
    let mut moved = ed25519_signed(&alice, "alice-1", unsigned());
    moved.key_id = Some("bob-1".into());
    assert_eq!(
        rejected_phase(&verdict(&keys, &moved)),
        Phase::SignatureInvalid
    );
    let unknown = ed25519_signed(&alice, "carol-1", unsigned());
    let CheckVerdict::Rejected { reason, .. } = verdict(&keys, &unknown) else {
        panic!()
    };
    assert!(reason.contains("unknown key `carol-1`"), "{reason}");
}

#[test]
fn rotation_keeps_both_keys_and_a_revoked_key_verifies_nothing() {
    let old = ed25519_signing_key(1);
    let new = ed25519_signing_key(4);
    let mut revoked = json!({ "type": "ed25519", "public_key": encode_base64url(old.verifying_key().as_bytes()) });
    revoked["revoked"] = json!(true);
    let rotated = ring(&[
        ("alice-1", ed25519_spec(&old)),
        ("alice-2", ed25519_spec(&new)),
    ]);
    let after = ring(&[
        ("alice-1", keyspec(revoked)),
        ("alice-2", ed25519_spec(&new)),
    ]);
    let by_old = ed25519_signed(&old, "alice-1", unsigned());
    let by_new = ed25519_signed(&new, "alice-2", unsigned());
    assert_eq!(verdict(&rotated, &by_old), CheckVerdict::Pass);
    assert_eq!(verdict(&rotated, &by_new), CheckVerdict::Pass);
    let CheckVerdict::Rejected { phase, reason } = verdict(&after, &by_old) else {
        panic!()
    };
    assert_eq!(phase, Phase::SignatureInvalid);
    assert!(reason.contains("revoked key `alice-1`"), "{reason}");
    assert_eq!(verdict(&after, &by_new), CheckVerdict::Pass);
}

#[test]
fn an_ed25519_signature_must_be_canonical_hex_of_64_bytes() {
    let key = ed25519_signing_key(1);
    let keys = ring(&[("alice-1", ed25519_spec(&key))]);
    let good = ed25519_signed(&key, "alice-1", unsigned());
    let signature = good.signature.clone().unwrap();
    for bad in [
        signature.to_uppercase(),
        signature[..126].to_owned(),
        format!("{signature}00"),
        String::new(),
    ] {
        let approval = Confirmation {
            signature: Some(bad),
            ..good.clone()
        };
        assert_eq!(
            rejected_phase(&verdict(&keys, &approval)),
            Phase::SignatureInvalid
        );
    }
}

#[test]
fn public_keys_may_be_raw_or_spki_and_bad_keys_are_typed_invalid_key_errors() {
    let key = ed25519_signing_key(1);
    let mut spki = vec![
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
    ];
    spki.extend_from_slice(key.verifying_key().as_bytes());
    let keys = ring(&[(
        "alice-1",
        keyspec(json!({ "type": "ed25519", "public_key": encode_base64url(&spki) })),
    )]);
    assert_eq!(
        verdict(&keys, &ed25519_signed(&key, "alice-1", unsigned())),
        CheckVerdict::Pass
    );

    let cases = [
        (
            json!({ "type": "ed25519", "public_key": "AAAA=" }),
            "keys.k.public_key",
        ),
        (
            json!({ "type": "ed25519", "public_key": encode_base64url(&[1u8; 31]) }),
            "keys.k.public_key",
        ),
        // A small-order point would verify forged signatures.
        (
            json!({ "type": "ed25519", "public_key": encode_base64url(&[0u8; 32]) }),
            "keys.k.public_key",
        ),
        (
            json!({ "type": "ed25519", "public_key": encode_base64url(key.verifying_key().as_bytes()), "rp_id": "x" }),
            "keys.k.type",
        ),
        (
            json!({ "type": "webauthn", "public_key": encode_base64url(key.verifying_key().as_bytes()), "rp_id": RP_ID, "origins": [ORIGIN] }),
            "keys.k.algorithm",
        ),
        (
            json!({ "type": "webauthn", "algorithm": -257, "public_key": "AA", "rp_id": RP_ID, "origins": [ORIGIN] }),
            "keys.k.algorithm",
        ),
        (
            json!({ "type": "webauthn", "algorithm": -7, "public_key": encode_base64url(&[4u8; 65]), "rp_id": RP_ID, "origins": [ORIGIN] }),
            "keys.k.public_key",
        ),
        (
            json!({ "type": "webauthn", "algorithm": -8, "public_key": encode_base64url(key.verifying_key().as_bytes()), "rp_id": " ", "origins": [ORIGIN] }),
            "keys.k.rp_id",
        ),
        (
            json!({ "type": "webauthn", "algorithm": -8, "public_key": encode_base64url(key.verifying_key().as_bytes()), "rp_id": RP_ID, "origins": [] }),
            "keys.k.origins",
        ),
    ];
    for (spec, path) in cases {
        let map = BTreeMap::from([("k".to_owned(), keyspec(spec.clone()))]);
        let error = KeyRing::from_specs(&map).unwrap_err();
        assert_eq!(error.code.as_str(), "invalid_key", "{spec}");
        assert_eq!(error.path, path, "{spec}: {error}");
    }
    // A key of the wrong shape is an input error that names the key.
    let text = json!({
        "confirmation": null,
        "request": { "confirmation_id": "c", "node_id": "n", "apply": { "confirm_status": "x" }, "source": "executor" },
        "keys": { "k": { "type": "rsa", "public_key": "AA" } },
        "now": 0
    });
    let error = agent_governor::executor::check::check_confirmation_json_str(&text.to_string())
        .unwrap_err();
    assert!(error.path.starts_with("keys.k"), "{error}");
}

// ---- WebAuthn passkeys ----

struct Passkey {
    algorithm: i32,
    es256: Option<p256::ecdsa::SigningKey>,
    eddsa: Option<ed25519_dalek::SigningKey>,
}

impl Passkey {
    fn es256() -> Self {
        Self {
            algorithm: COSE_ES256,
            es256: Some(p256_signing_key()),
            eddsa: None,
        }
    }
    fn eddsa() -> Self {
        Self {
            algorithm: COSE_EDDSA,
            es256: None,
            eddsa: Some(ed25519_signing_key(9)),
        }
    }
    fn spec(&self) -> KeySpec {
        let public_key = match (&self.es256, &self.eddsa) {
            (Some(key), _) => key
                .verifying_key()
                .to_encoded_point(false)
                .as_bytes()
                .to_vec(),
            (_, Some(key)) => key.verifying_key().as_bytes().to_vec(),
            _ => unreachable!(),
        };
        keyspec(json!({
            "type": "webauthn", "algorithm": self.algorithm, "public_key": encode_base64url(&public_key),
            "rp_id": RP_ID, "origins": [ORIGIN]
        }))
    }
    fn sign(&self, message: &[u8]) -> Vec<u8> {
        match (&self.es256, &self.eddsa) {
            (Some(key), _) => {
                use p256::ecdsa::signature::Signer as _;
                let signature: p256::ecdsa::Signature = key.sign(message);
                signature.to_der().as_bytes().to_vec()
            }
            (_, Some(key)) => key.sign(message).to_bytes().to_vec(),
            _ => unreachable!(),
        }
    }
}

/// What an authenticator and the browser produce for `challenge`, with each part open to tampering.
struct AssertionParts {
    kind: &'static str,
    challenge: Vec<u8>,
    origin: &'static str,
    cross_origin: bool,
    rp_id: &'static str,
    flags: u8,
    counter: u32,
}

impl AssertionParts {
    fn for_challenge(challenge: &[u8]) -> Self {
        Self {
            kind: "webauthn.get",
            challenge: challenge.to_vec(),
            origin: ORIGIN,
            cross_origin: false,
            rp_id: RP_ID,
            flags: 0x05,
            counter: 0,
        }
    }
    fn assert(&self, passkey: &Passkey) -> PasskeyAssertion {
        let client_data = json!({
            "type": self.kind,
            "challenge": encode_base64url(&self.challenge),
            "origin": self.origin,
            "crossOrigin": self.cross_origin,
            "other_keys_can_be_added_here": "browsers add these",
        })
        .to_string();
        let mut authenticator_data = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        authenticator_data.push(self.flags);
        authenticator_data.extend_from_slice(&self.counter.to_be_bytes());
        let mut signed = authenticator_data.clone();
        signed.extend_from_slice(&Sha256::digest(client_data.as_bytes()));
        PasskeyAssertion {
            authenticator_data: encode_base64url(&authenticator_data),
            client_data_json: encode_base64url(client_data.as_bytes()),
            signature: encode_base64url(&passkey.sign(&signed)),
        }
    }
}

fn passkey_approved(passkey: &Passkey, tweak: impl FnOnce(&mut AssertionParts)) -> Confirmation {
    let approval = Confirmation {
        key_id: Some("alice-passkey".into()),
        signature: None,
        ..unsigned()
    };
    let mut parts =
        AssertionParts::for_challenge(&confirmation_challenge(&approval, "alice-passkey"));
    tweak(&mut parts);
    Confirmation {
        assertion: Some(parts.assert(passkey)),
        ..approval
    }
}

fn passkey_reason(passkey: &Passkey, approval: &Confirmation) -> Option<String> {
    let keys = ring(&[("alice-passkey", passkey.spec())]);
    match verdict(&keys, approval) {
        CheckVerdict::Pass => None,
        CheckVerdict::Rejected {
            phase: Phase::SignatureInvalid,
            reason,
        } => Some(reason),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_passkey_assertion_over_the_confirmations_hash_passes_es256_and_eddsa() {
    for passkey in [Passkey::es256(), Passkey::eddsa()] {
        let approval = passkey_approved(&passkey, |_| {});
        assert_eq!(passkey_reason(&passkey, &approval), None);
        let wire = serde_json::to_value(&approval).unwrap();
        assert_eq!(wire["signature"], serde_json::Value::Null);
        assert!(wire["assertion"]["authenticator_data"].is_string());
    }
}

#[test]
fn a_passkey_assertion_is_checked_step_by_step() {
    let passkey = Passkey::es256();
    let other_change = {
        let mut changed = unsigned();
        changed.proposed_change.to = "deleted".into();
        confirmation_challenge(&changed, "alice-passkey").to_vec()
    };
    type Tamper = Box<dyn FnOnce(&mut AssertionParts)>;
    let cases: Vec<(Tamper, &str)> = vec![
        (
            Box::new(|p| p.kind = "webauthn.create"),
            "not `webauthn.get`",
        ),
        (
            Box::new(move |p| p.challenge = other_change),
            "another challenge",
        ),
        (
            Box::new(|p| p.origin = "https://evil.example"),
            "origin `https://evil.example`",
        ),
        (Box::new(|p| p.cross_origin = true), "cross-origin"),
        (
            Box::new(|p| p.rp_id = "evil.example"),
            "another relying party",
        ),
        (Box::new(|p| p.flags = 0x04), "present"),
        (Box::new(|p| p.flags = 0x01), "did not verify the user"),
    ];
    for (tweak, expected) in cases {
        let approval = passkey_approved(&passkey, tweak);
        let reason = passkey_reason(&passkey, &approval).expect(expected);
        assert!(
            reason.contains(expected),
            "{reason} should mention {expected}"
        );
    }
}

#[test]
fn an_altered_change_or_a_swapped_signature_fails_a_passkey_approval() {
    let passkey = Passkey::eddsa();
    let mut altered = passkey_approved(&passkey, |_| {});
    altered.proposed_change.to = "deleted".into();
    assert!(
        passkey_reason(&passkey, &altered)
            .unwrap()
            .contains("another challenge")
    );

    let mut bad_signature = passkey_approved(&passkey, |_| {});
    let other = passkey_approved(&passkey, |p| p.counter = 5);
    bad_signature.assertion.as_mut().unwrap().signature = other.assertion.unwrap().signature;
    assert!(
        passkey_reason(&passkey, &bad_signature)
            .unwrap()
            .contains("does not match")
    );

    let mut truncated = passkey_approved(&passkey, |_| {});
    truncated.assertion.as_mut().unwrap().authenticator_data = encode_base64url(&[0u8; 20]);
    assert!(
        passkey_reason(&passkey, &truncated)
            .unwrap()
            .contains("at least 37")
    );
}

#[test]
fn a_passkey_signs_with_an_assertion_and_a_plain_key_with_a_signature_never_crossed() {
    let passkey = Passkey::eddsa();
    let key = passkey.eddsa.clone().unwrap();
    // The passkey's private key signing the canonical bytes directly is not a WebAuthn assertion.
    let direct = ed25519_signed(&key, "alice-passkey", unsigned());
    assert!(
        passkey_reason(&passkey, &direct)
            .unwrap()
            .contains("is a passkey")
    );
    // Both a signature and an assertion: refused.
    let mut both = passkey_approved(&passkey, |_| {});
    both.signature = Some("00".repeat(64));
    assert!(
        passkey_reason(&passkey, &both)
            .unwrap()
            .contains("exactly one")
    );
    // An assertion for an Ed25519 (non-passkey) key or an HMAC key: refused.
    let keys = ring(&[("alice-passkey", ed25519_spec(&key))]);
    assert_eq!(
        rejected_phase(&verdict(&keys, &passkey_approved(&passkey, |_| {}))),
        Phase::SignatureInvalid
    );
    let hmac = ring(&[("alice-passkey", KeySpec::Secret("s".repeat(32)))]);
    assert_eq!(
        rejected_phase(&verdict(&hmac, &passkey_approved(&passkey, |_| {}))),
        Phase::SignatureInvalid
    );
}

#[test]
fn the_signature_counter_must_grow_where_the_authenticator_keeps_one() {
    let passkey = Passkey::es256();
    let approval = passkey_approved(&passkey, |p| p.counter = 42);
    assert_eq!(
        assertion_sign_count(approval.assertion.as_ref().unwrap()).unwrap(),
        42
    );
    assert!(sign_count_advances(41, 42));
    assert!(
        !sign_count_advances(42, 42),
        "a repeated counter means a cloned credential"
    );
    assert!(!sign_count_advances(43, 42));
    assert!(
        sign_count_advances(0, 0),
        "an authenticator without a counter always reports 0"
    );
    assert!(!sign_count_advances(5, 0));
}

// ---- ES256 verified by the host ----

/// What a host's WebCrypto does with a request: ECDSA P-256 / SHA-256 over the raw point and `r || s`.
fn host_verifies(request: &host_verification::HostVerification) -> bool {
    use p256::ecdsa::signature::Verifier as _;
    assert_eq!(
        request.algorithm,
        host_verification::HostAlgorithm::EcdsaP256Sha256
    );
    assert_eq!(request.public_key.len(), 65, "a SEC1 uncompressed point");
    assert_eq!(request.signature.len(), 64, "r || s");
    let key = p256::ecdsa::VerifyingKey::from_sec1_bytes(&request.public_key).unwrap();
    let signature = p256::ecdsa::Signature::from_slice(&request.signature).unwrap();
    key.verify(&request.signed, &signature).is_ok()
}

#[test]
fn an_es256_passkey_assertion_is_offered_to_the_host_with_the_exact_bytes_it_signed() {
    let passkey = Passkey::es256();
    let keys = ring(&[("alice-passkey", passkey.spec())]);
    let approval = passkey_approved(&passkey, |p| p.counter = 3);
    let request = keys
        .host_verification(&approval)
        .expect("an ES256 assertion");
    assert!(host_verifies(&request));
    request.accept();
    assert_eq!(verdict(&keys, &approval), CheckVerdict::Pass);
    assert!(
        keys.host_verification(&approval).is_none(),
        "a verification already known is not asked again"
    );
}

#[test]
fn a_host_verification_is_offered_only_for_es256_assertions_that_pass_every_other_check() {
    let es256 = Passkey::es256();
    let eddsa = Passkey::eddsa();
    let alice = ed25519_signing_key(1);
    let keys = ring(&[("alice-passkey", es256.spec())]);
    let wrong_origin = passkey_approved(&es256, |p| p.origin = "https://evil.example");
    assert!(keys.host_verification(&wrong_origin).is_none());
    assert!(
        passkey_reason(&es256, &wrong_origin)
            .unwrap()
            .contains("origin")
    );
    let not_verified_user = passkey_approved(&es256, |p| p.flags = 0x01);
    assert!(keys.host_verification(&not_verified_user).is_none());

    let eddsa_keys = ring(&[("alice-passkey", eddsa.spec())]);
    assert!(
        eddsa_keys
            .host_verification(&passkey_approved(&eddsa, |_| {}))
            .is_none()
    );
    let ed25519_keys = ring(&[("alice", ed25519_spec(&alice))]);
    assert!(
        ed25519_keys
            .host_verification(&ed25519_signed(&alice, "alice", unsigned()))
            .is_none()
    );

    let mut revoked_spec = serde_json::to_value(es256.spec()).unwrap();
    revoked_spec["revoked"] = json!(true);
    let revoked = ring(&[("alice-passkey", keyspec(revoked_spec))]);
    assert!(
        revoked
            .host_verification(&passkey_approved(&es256, |p| p.counter = 9))
            .is_none()
    );
}

#[test]
fn a_host_answer_binds_the_exact_bytes_and_a_refusal_leaves_the_module_to_decide() {
    let passkey = Passkey::es256();
    let keys = ring(&[("alice-passkey", passkey.spec())]);
    // A signature of another assertion: well formed, but not over these bytes.
    let mut forged = passkey_approved(&passkey, |p| p.counter = 11);
    let other = passkey_approved(&passkey, |p| p.counter = 12);
    forged.assertion.as_mut().unwrap().signature = other.assertion.unwrap().signature;
    let request = keys.host_verification(&forged).expect("well formed");
    assert!(!host_verifies(&request), "the host refuses it");
    drop(request);
    assert!(
        passkey_reason(&passkey, &forged)
            .unwrap()
            .contains("does not match"),
        "nothing recorded: the module's verifier decides"
    );

    // The fact is about those bytes only: the same assertion on another change is not covered by it.
    let approval = passkey_approved(&passkey, |p| p.counter = 13);
    keys.host_verification(&approval).unwrap().accept();
    let mut moved = approval.clone();
    moved.proposed_change.to = "deleted".into();
    assert!(
        keys.host_verification(&moved).is_none(),
        "fails the challenge check"
    );
    assert!(
        passkey_reason(&passkey, &moved)
            .unwrap()
            .contains("another challenge")
    );
}

// ---- signed human actions ----

fn action(kind: HumanActionKind, at: &str) -> HumanAction {
    HumanAction {
        action: kind,
        approval_id: "c-pk".into(),
        detail: "not now".into(),
        at: at.into(),
        nonce: "nonce-0123456789abcdef".into(),
        version: VERSION.into(),
        key_id: None,
        signature: None,
        assertion: None,
    }
}

const VERSION: &str = "v-1";

fn sign_action(
    key: &ed25519_dalek::SigningKey,
    key_id: &str,
    unsigned: HumanAction,
) -> HumanAction {
    let signature = key.sign(&canonical_action_bytes(&unsigned, key_id));
    HumanAction {
        key_id: Some(key_id.into()),
        signature: Some(hex::encode(signature.to_bytes())),
        ..unsigned
    }
}

#[test]
fn a_human_action_is_verified_then_must_be_recent() {
    let key = ed25519_signing_key(1);
    let keys = ring(&[("alice-1", ed25519_spec(&key))]);
    let now = confirmed_at_ms();
    let fresh = sign_action(
        &key,
        "alice-1",
        action(HumanActionKind::Decline, "2026-11-22T09:00:00.000Z"),
    );
    assert_eq!(
        check_human_action(&fresh, &keys, now, 300_000, VERSION),
        Ok(None)
    );

    let mut altered = fresh.clone();
    altered.action = HumanActionKind::Cancel;
    assert_eq!(
        check_human_action(&altered, &keys, now, 300_000, VERSION)
            .unwrap_err()
            .phase,
        Phase::SignatureInvalid
    );
    let mut moved = fresh.clone();
    moved.approval_id = "c-other".into();
    assert_eq!(
        check_human_action(&moved, &keys, now, 300_000, VERSION)
            .unwrap_err()
            .phase,
        Phase::SignatureInvalid
    );
    assert_eq!(
        check_human_action(&fresh, &keys, now + 10 * 60 * 1000 + 1, 300_000, VERSION)
            .unwrap_err()
            .phase,
        Phase::ExpiredTime
    );
    assert_eq!(
        check_human_action(&fresh, &keys, now - 300_001, 300_000, VERSION)
            .unwrap_err()
            .phase,
        Phase::NotYetValid
    );
    let mut stale = fresh.clone();
    stale.version = "v-0".into();
    assert_eq!(
        check_human_action(&stale, &keys, now, 300_000, VERSION)
            .unwrap_err()
            .phase,
        Phase::SignatureInvalid,
        "the version is signed: changing it breaks the signature"
    );
    assert_eq!(
        check_human_action(&fresh, &keys, now, 300_000, "v-2")
            .unwrap_err()
            .phase,
        Phase::StaleAction,
        "an action made for another version of the approval is stale"
    );
    let mut other_nonce = fresh.clone();
    other_nonce.nonce = "nonce-fedcba9876543210".into();
    assert_eq!(
        check_human_action(&other_nonce, &keys, now, 300_000, VERSION)
            .unwrap_err()
            .phase,
        Phase::SignatureInvalid,
        "the nonce is signed"
    );
    let unsigned = action(HumanActionKind::Cancel, "2026-11-22T09:00:00.000Z");
    assert_eq!(
        check_human_action(&unsigned, &keys, now, 300_000, VERSION)
            .unwrap_err()
            .phase,
        Phase::SignatureInvalid
    );
}

#[test]
fn a_human_action_by_passkey_signs_the_actions_hash_not_a_confirmations() {
    let passkey = Passkey::es256();
    let keys = ring(&[("alice-passkey", passkey.spec())]);
    let mut reconcile = action(
        HumanActionKind::ReconcileApplied,
        "2026-11-22T09:00:00.000Z",
    );
    reconcile.key_id = Some("alice-passkey".into());
    let mut parts = AssertionParts::for_challenge(&action_challenge(&reconcile, "alice-passkey"));
    parts.counter = 3;
    reconcile.assertion = Some(parts.assert(&passkey));
    assert_eq!(
        check_human_action(&reconcile, &keys, confirmed_at_ms(), 0, VERSION),
        Ok(Some(3))
    );
    // The same assertion cannot approve a confirmation: the challenge differs.
    let approval = Confirmation {
        key_id: Some("alice-passkey".into()),
        signature: None,
        assertion: reconcile.assertion.clone(),
        ..unsigned()
    };
    assert_eq!(
        rejected_phase(&verdict(&keys, &approval)),
        Phase::SignatureInvalid
    );
}

#[test]
fn a_remembered_verification_never_covers_a_changed_approval() {
    let key = ed25519_signing_key(1);
    let keys = ring(&[("alice-1", ed25519_spec(&key))]);
    let approval = ed25519_signed(&key, "alice-1", unsigned());
    for _ in 0..3 {
        assert_eq!(verdict(&keys, &approval), CheckVerdict::Pass);
        let mut altered = approval.clone();
        altered.intent = "something else".into();
        assert_eq!(
            rejected_phase(&verdict(&keys, &altered)),
            Phase::SignatureInvalid
        );
        let mut other_signature = approval.clone();
        other_signature.signature = Some("00".repeat(64));
        assert_eq!(
            rejected_phase(&verdict(&keys, &other_signature)),
            Phase::SignatureInvalid
        );
    }
    // A ring rebuilt with the key revoked remembers nothing.
    let mut revoked = json!({ "type": "ed25519", "public_key": encode_base64url(key.verifying_key().as_bytes()) });
    revoked["revoked"] = json!(true);
    let after = ring(&[("alice-1", keyspec(revoked))]);
    assert_eq!(
        rejected_phase(&verdict(&after, &approval)),
        Phase::SignatureInvalid
    );
}

#[test]
fn a_signed_action_by_passkey_whose_counter_did_not_grow_is_refused_by_the_executor_and_spends_nothing()
 {
    use agent_governor::executor::take_action::ActionOutcome;
    let passkey = Passkey::es256();
    let world = World::new(&[]);
    let executor = Executor::new(
        world.store.clone(),
        world.skill.clone(),
        world.clock.clone(),
        world.audit.clone(),
        ring(&[("alice-passkey", passkey.spec())]),
    );
    let decline = |counter: u32| {
        let mut decline = action(
            HumanActionKind::Decline,
            &agent_governor::timestamp::format_rfc3339(now(&world)),
        );
        decline.key_id = Some("alice-passkey".into());
        let mut parts = AssertionParts::for_challenge(&action_challenge(&decline, "alice-passkey"));
        parts.counter = counter;
        decline.assertion = Some(parts.assert(&passkey));
        decline
    };
    for last in [5, 6] {
        match run(executor.take_action(&decline(5), Some(VERSION), Some(last))) {
            ActionOutcome::Rejected { phase, reason } => {
                assert_eq!(phase, "signature_invalid");
                assert!(reason.contains("counter"), "{reason}");
            }
            taken => panic!("a counter of 5 after {last} was taken: {taken:?}"),
        }
    }
    // Nothing was spent: the same action, after a counter of 4, is taken once.
    assert!(matches!(
        run(executor.take_action(&decline(5), Some(VERSION), Some(4))),
        ActionOutcome::Taken {
            sign_count: Some(5),
            ..
        }
    ));
}
