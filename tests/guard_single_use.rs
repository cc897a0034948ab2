//! Every signed human action is used once and only on the state it was made for; a consumed confirmation
//! stays consumed when its record is deleted; a sealed record changed in the store is refused; a
//! confirmation made for another guard is refused; timestamps are read one strict way; receipts chain.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::executor::check::Phase;
use agent_governor::executor::confirmation::store_key;
use agent_governor::executor::human_action::HumanActionKind;
use agent_governor::executor::receipt::{
    ChainVerdict, Receipt, canonical_receipt_bytes, receipt_digest, verify_receipts,
    verify_receipts_by,
};
use agent_governor::executor::run::ExecutorOptions;
use agent_governor::executor::seal::SealKey;
use agent_governor::executor::take_action::ActionOutcome;
use agent_governor::executor::*;
use agent_governor::timestamp::{format_rfc3339, parse_rfc3339};
use ed25519_dalek::Signer as _;
use support::*;

fn phase(outcome: &ActionOutcome) -> &str {
    match outcome {
        ActionOutcome::Rejected { phase, .. } => phase,
        ActionOutcome::Taken { .. } => "taken",
    }
}

/// Marks the stored confirmation in flight, as an Apply whose outcome is unknown leaves it.
fn leave_in_flight(world: &World, id: &str, at: i64) {
    let reserved = world.store.confirmation(id).reserved(at);
    world.store.insert(&reserved);
}

#[test]
fn a_replayed_reconcile_is_refused_and_never_reopens_an_approval() {
    let confirmation = confirmation("c-1", "node-1");
    let world = World::new(&[&confirmation]);
    let executor = world.executor();
    leave_in_flight(&world, "c-1", now(&world));
    let version = version_of(&world, "c-1");
    let reconcile = signed_action(
        HumanActionKind::ReconcileNotApplied,
        "c-1",
        &version,
        "nonce-aaaaaaaaaaaaaaaa",
        now(&world),
    );
    assert_eq!(
        phase(&run(executor.take_action(&reconcile, None, None))),
        "taken"
    );
    // Settled as not applied, it is closed, never re-armed: doing it again is a new action.
    assert_eq!(
        world.store.confirmation("c-1").state(),
        ConfirmationState::Cancelled
    );
    let again = run(executor.execute(&request_for(&confirmation)));
    assert_eq!(again.outcome, Outcome::Rejected, "{again:?}");
    assert_eq!(world.skill.apply_count(), 0);

    // The approval is (somehow) in flight again; the old reconcile is posted again. and left in flight; the old reconcile is posted again.
    leave_in_flight(&world, "c-1", now(&world) + 1_000);
    let replay = run(executor.take_action(&reconcile, None, None));
    assert_eq!(phase(&replay), "action_replayed", "{replay:?}");
    assert_eq!(
        world.store.confirmation("c-1").state(),
        ConfirmationState::InFlight,
        "nothing changed"
    );

    // Even with the nonce ledger wiped, the action names a version the record no longer has.
    world
        .store
        .data
        .borrow_mut()
        .retain(|key, _| !key.starts_with("action/"));
    assert_eq!(
        phase(&run(executor.take_action(&reconcile, None, None))),
        "stale_action"
    );
    assert_eq!(
        world.store.confirmation("c-1").state(),
        ConfirmationState::InFlight
    );
}

#[test]
fn the_same_action_twice_on_unchanged_state_is_a_replay() {
    let confirmation = confirmation("c-2", "node-2");
    let world = World::new(&[&confirmation]);
    let executor = world.executor();
    let decline = signed_action(
        HumanActionKind::Decline,
        "c-2",
        "pending-1",
        "nonce-bbbbbbbbbbbbbbbb",
        now(&world),
    );
    assert_eq!(
        phase(&run(executor.take_action(
            &decline,
            Some("pending-1"),
            None
        ))),
        "taken"
    );
    assert_eq!(
        phase(&run(executor.take_action(
            &decline,
            Some("pending-1"),
            None
        ))),
        "action_replayed"
    );
    // Made for another version of the host's state.
    let other = signed_action(
        HumanActionKind::Decline,
        "c-2",
        "pending-1",
        "nonce-cccccccccccccccc",
        now(&world),
    );
    assert_eq!(
        phase(&run(executor.take_action(&other, Some("pending-2"), None))),
        "stale_action"
    );
    // A decline without the host's version is refused, not guessed.
    assert_eq!(
        phase(&run(executor.take_action(&other, None, None))),
        "stale_action"
    );
}

#[test]
fn a_cancel_that_does_not_fit_the_state_spends_no_nonce() {
    let confirmation = confirmation("c-3", "node-3");
    let world = World::new(&[&confirmation]);
    let executor = world.executor();
    leave_in_flight(&world, "c-3", now(&world));
    let version = version_of(&world, "c-3");
    let cancel = signed_action(
        HumanActionKind::Cancel,
        "c-3",
        &version,
        "nonce-dddddddddddddddd",
        now(&world),
    );
    assert_eq!(
        phase(&run(executor.take_action(&cancel, None, None))),
        "not_cancellable"
    );
    assert!(
        !world
            .store
            .data
            .borrow()
            .keys()
            .any(|key| key.starts_with("action/"))
    );
}

#[test]
fn a_consumed_confirmation_saved_again_after_its_record_was_deleted_is_never_applied_twice() {
    let confirmation = confirmation("c-5", "node-5");
    let world = World::new(&[]);
    world.set_status("node-5", "in_progress");
    let executor = world.executor();
    run(executor.save(&confirmation)).unwrap();
    let first = run(executor.execute(&request_for(&confirmation)));
    assert_eq!(first.outcome, Outcome::Applied);
    world.store.data.borrow_mut().remove(&store_key("c-5"));
    world.set_status("node-5", "in_progress");
    let saved = run(executor.save(&confirmation));
    assert_eq!(saved.unwrap_err().code(), "already_consumed");
    // Even written around the Executor, straight into the store:
    world.store.insert(&confirmation);
    let second = run(executor.execute(&request_for(&confirmation)));
    assert_eq!(second.outcome, Outcome::Rejected);
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn a_sealed_record_changed_in_the_store_is_refused() {
    let confirmation = confirmation("c-6", "node-6");
    let world = World::new(&[]);
    let seal = SealKey::new("sealKey", b"0123456789abcdef0123456789abcdef-seal").unwrap();
    let executor = world.executor().with_seal(seal);
    run(executor.save(&confirmation)).unwrap();
    assert!(world.store.confirmation("c-6").seal.is_some());
    // Someone with write access to the store marks it cancelled, then "un-cancels" it by hand.
    let mut stored = world.store.confirmation("c-6");
    stored.cancelled = true;
    stored.seal = None;
    world.store.insert(&stored);
    let result = run(executor.execute(&request_for(&confirmation)));
    assert_eq!(result.outcome, Outcome::Rejected);
    assert_eq!(result.rejection.unwrap().phase, Phase::RecordTampered);
    // A record with a seal copied from another state is refused too.
    let original_seal = SealKey::new("sealKey", b"0123456789abcdef0123456789abcdef-seal")
        .unwrap()
        .sealed(confirmation.clone())
        .seal;
    let mut forged = confirmation.clone().reserved(now(&world));
    forged.seal = original_seal;
    world.store.insert(&forged);
    let result = run(executor.execute(&request_for(&confirmation)));
    assert_eq!(result.rejection.unwrap().phase, Phase::RecordTampered);
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn a_confirmation_for_another_audience_is_refused() {
    let for_other = signer().sign(Confirmation {
        audience: Some("inbox-b".into()),
        ..confirmation("c-7", "node-7")
    });
    let world = World::new(&[&for_other]);
    let options = |audience: Option<&str>| ExecutorOptions {
        audience: audience.map(str::to_owned),
        ..ExecutorOptions::default()
    };
    let guard_a = world.executor().with_options(options(Some("inbox-a")));
    let result = run(guard_a.execute(&request_for(&for_other)));
    assert_eq!(result.rejection.unwrap().phase, Phase::WrongAudience);
    let no_audience = world.executor().with_options(options(None));
    let result = run(no_audience.execute(&request_for(&for_other)));
    assert_eq!(result.rejection.unwrap().phase, Phase::WrongAudience);
    // The audience is signed: relabelling it breaks the signature.
    let relabelled = Confirmation {
        audience: Some("inbox-a".into()),
        ..for_other.clone()
    };
    world.store.insert(&relabelled);
    let result = run(guard_a.execute(&request_for(&relabelled)));
    assert_eq!(result.rejection.unwrap().phase, Phase::SignatureInvalid);
    // The right guard applies it.
    world.store.insert(&for_other);
    let guard_b = world.executor().with_options(options(Some("inbox-b")));
    assert_eq!(
        run(guard_b.execute(&request_for(&for_other))).outcome,
        Outcome::Applied
    );
}

#[test]
fn timestamps_are_strict_rfc_3339() {
    for good in [
        "2026-11-23T20:52:05.449Z",
        "2026-11-23 20:52:05Z",
        "2026-11-23T20:52:05+09:00",
        "2026-11-23T20:52:05.123456789-05:30",
    ] {
        assert!(parse_rfc3339(good).is_ok(), "{good}");
    }
    for bad in [
        "2026-11-23_20:52:05.449Z",
        "2026-11-23x20:52:05Z",
        "2026-11-23t20:52:05Z",
        "2026-11-23T20:52:05",
        "2026-02-30T00:00:00Z",
        "2026-11-23T24:00:00Z",
        "2026-11-23T20:52:05.449Z ",
        " 2026-11-23T20:52:05Z",
        "2026-11-23",
        "",
        "2026-11-23T20:52:05.4490000000000000000000000000000000000000Z",
    ] {
        assert!(parse_rfc3339(bad).is_err(), "{bad:?} must be refused");
    }
    assert_eq!(
        parse_rfc3339("2026-11-23 20:52:05+09:00").unwrap(),
        parse_rfc3339("2026-11-23T11:52:05Z").unwrap()
    );
    // A confirmation with an odd separator does not even parse as a confirmation.
    let text = serde_json::to_string(&Confirmation {
        confirmed_at: "2026-11-23_20:52:05.449Z".into(),
        ..confirmation("c-8", "node-8")
    })
    .unwrap();
    let read = agent_governor::input::parse_valid_json_str::<Confirmation>(&text);
    assert_eq!(read.unwrap_err().path, "confirmed_at");
}

fn guard_key() -> ed25519_dalek::SigningKey {
    ed25519_dalek::SigningKey::from_bytes(&[7; 32])
}

fn chain(length: u64) -> Vec<Receipt> {
    let key = guard_key();
    let mut receipts: Vec<Receipt> = Vec::new();
    for seq in 1..=length {
        let mut receipt = Receipt {
            seq,
            approval_id: format!("a-{seq}"),
            change_digest: "ab".repeat(32),
            approver: "alice/laptop".into(),
            outcome: "applied".into(),
            at: format_rfc3339(confirmed_at_ms() + seq as i64),
            prev: receipts.last().map(receipt_digest),
            key_id: "guard-1".into(),
            signature: String::new(),
        };
        receipt.signature = hex::encode(key.sign(&canonical_receipt_bytes(&receipt)).to_bytes());
        receipts.push(receipt);
    }
    receipts
}

fn receipt_public_key() -> agent_governor::executor::public_key::PublicKey {
    agent_governor::executor::public_key::PublicKey::Ed25519(guard_key().verifying_key())
}

#[test]
fn a_receipt_chain_verifies_and_names_its_first_broken_link() {
    let receipts = chain(6);
    let key = receipt_public_key();
    assert!(matches!(
        verify_receipts(&receipts, &key),
        ChainVerdict::Valid { count: 6, .. }
    ));
    assert!(matches!(
        verify_receipts(receipts.get(2..).unwrap(), &key),
        ChainVerdict::Valid { count: 4, .. }
    ));

    let broken_at = |receipts: &[Receipt]| match verify_receipts(receipts, &key) {
        ChainVerdict::Broken { index, .. } => Some(index),
        ChainVerdict::Valid { .. } => None,
    };
    let mut altered = receipts.clone();
    altered[3].outcome = "rejected".into();
    assert_eq!(broken_at(&altered), Some(3));
    let mut removed = receipts.clone();
    removed.remove(2);
    assert_eq!(broken_at(&removed), Some(2));
    let mut resigned = receipts.clone();
    resigned[4].approver = "mallory/key".into();
    resigned[4].signature = hex::encode(
        guard_key()
            .sign(&canonical_receipt_bytes(&resigned[4]))
            .to_bytes(),
    );
    assert_eq!(
        broken_at(&resigned),
        Some(5),
        "re-signing one receipt breaks the next link"
    );
    let other_key = ed25519_dalek::SigningKey::from_bytes(&[8; 32]);
    let other = agent_governor::executor::public_key::PublicKey::Ed25519(other_key.verifying_key());
    assert!(matches!(
        verify_receipts(&receipts, &other),
        ChainVerdict::Broken { index: 0, .. }
    ));
}

#[test]
fn request_bodies_are_strict_and_shallow() {
    use agent_governor::body_json::{BodyError, check_body};
    assert_eq!(check_body(r#"{"a":[1,{"b":null}],"c":"x"}"#, 3), Ok(()));
    assert_eq!(
        check_body(r#"{"a":[1,{"b":null}]}"#, 2),
        Err(BodyError::TooDeep { max_depth: 2 })
    );
    assert_eq!(
        check_body(r#"{"evidence":{"closer":{"v":1,"v":2}}}"#, 32),
        Err(BodyError::DuplicateKey {
            path: "evidence.closer.v".into()
        })
    );
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    assert_eq!(
        check_body(&deep, 32),
        Err(BodyError::TooDeep { max_depth: 32 })
    );
    let deeper = format!(
        "{{\"evidence\":{}1{}}}",
        "{\"a\":".repeat(100_000),
        "}".repeat(100_000)
    );
    assert_eq!(
        check_body(&deeper, 32),
        Err(BodyError::TooDeep { max_depth: 32 })
    );
    assert!(matches!(
        check_body("{} {}", 32),
        Err(BodyError::Syntax { .. })
    ));
    assert!(matches!(check_body("", 32), Err(BodyError::Syntax { .. })));
}

#[test]
fn a_chain_verified_with_the_served_key_id_breaks_at_the_first_receipt_naming_another() {
    let receipts = chain(4);
    let key = receipt_public_key();
    assert!(matches!(
        verify_receipts_by(&receipts, &key, Some("guard-1")),
        ChainVerdict::Valid { count: 4, .. }
    ));
    assert!(matches!(
        verify_receipts_by(&receipts, &key, None),
        ChainVerdict::Valid { count: 4, .. }
    ));
    assert!(matches!(
        verify_receipts_by(&receipts, &key, Some("guard-2")),
        ChainVerdict::Broken {
            index: 0,
            seq: Some(1),
            ..
        }
    ));
}
