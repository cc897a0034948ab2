//! One test for each safety check whose removal or weakening no other test noticed: the compare-and-swap
//! that records a signed action's nonce; the audience check when the Executor saves a confirmation; the seal
//! check when a signed action loads a record (a tampered record is refused and never re-sealed); and the
//! receipt chain's own rules (one key id, consecutive numbers, a first receipt that names none).
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::executor::confirmation::store_key;
use agent_governor::executor::human_action::HumanActionKind;
use agent_governor::executor::receipt::{
    ChainVerdict, Receipt, canonical_receipt_bytes, receipt_digest, verify_receipts,
};
use agent_governor::executor::run::ExecutorOptions;
use agent_governor::executor::seal::SealKey;
use agent_governor::executor::take_action::ActionOutcome;
use agent_governor::executor::*;
use agent_governor::timestamp::format_rfc3339;
use ed25519_dalek::Signer as _;
use support::*;

fn phase(outcome: &ActionOutcome) -> &str {
    match outcome {
        ActionOutcome::Rejected { phase, .. } => phase,
        ActionOutcome::Taken { .. } => "taken",
    }
}

#[test]
fn two_interleaved_uses_of_one_signed_action_take_it_once() {
    let world = World::new(&[]);
    let executor = world.executor();
    let decline = signed_action(
        HumanActionKind::Decline,
        "a-1",
        "v-1",
        "nonce-interleaved-0001",
        now(&world),
    );
    // Both read "not used" before either records the nonce: only the compare-and-swap tells them apart.
    *world.store.yields.0.borrow_mut() = [0, 3, 0, 3].into();
    let (first, second) = run(async {
        futures::join!(
            executor.take_action(&decline, Some("v-1"), None),
            executor.take_action(&decline, Some("v-1"), None)
        )
    });
    let mut phases = [phase(&first), phase(&second)];
    phases.sort_unstable();
    assert_eq!(phases, ["action_replayed", "taken"]);
}

#[test]
fn a_nonce_recorded_between_the_read_and_the_swap_is_a_replay_and_changes_nothing() {
    let confirmation = confirmation("c-1", "node-1");
    let world = World::new(&[&confirmation]);
    let executor = world.executor();
    let cancel = signed_action(
        HumanActionKind::Cancel,
        "c-1",
        &version_of(&world, "c-1"),
        "nonce-raced-00000001",
        now(&world),
    );
    // Another process records this nonce after our read: the store holds it when we swap.
    let recorded = {
        let world = &world;
        async move {
            support::YieldTimes(2).await;
            let used = world
                .store
                .data
                .borrow()
                .keys()
                .any(|key| key.starts_with("action/"));
            assert!(!used, "the nonce is not recorded yet");
            world
                .store
                .data
                .borrow_mut()
                .insert(format!("action/{KEY_ID}/nonce-raced-00000001"), "{}".into());
        }
    };
    *world.store.yields.0.borrow_mut() = [0, 0, 4].into();
    let (outcome, ()) =
        run(async { futures::join!(executor.take_action(&cancel, None, None), recorded) });
    assert_eq!(phase(&outcome), "action_replayed", "{outcome:?}");
    assert_eq!(
        world.store.confirmation("c-1").state(),
        ConfirmationState::Approved,
        "nothing changed"
    );
}

fn executor_for(world: &World, audience: Option<&str>) -> TestExecutor {
    world.executor().with_options(ExecutorOptions {
        audience: audience.map(str::to_owned),
        ..ExecutorOptions::default()
    })
}

fn signed_for(id: &str, audience: Option<&str>) -> Confirmation {
    let unsigned = Confirmation {
        audience: audience.map(str::to_owned),
        key_id: None,
        signature: None,
        ..confirmation(id, "node-1")
    };
    signer().sign(unsigned)
}

#[test]
fn the_executor_saves_only_confirmations_made_for_its_audience() {
    let world = World::new(&[]);
    let inbox_a = executor_for(&world, Some("inbox-a"));
    for (id, audience) in [("c-other", Some("inbox-b")), ("c-none", None)] {
        let error = run(inbox_a.save(&signed_for(id, audience))).unwrap_err();
        assert!(
            matches!(&error, StorageError::Refused(rejection) if rejection.phase == Phase::WrongAudience),
            "{id}: {error:?}"
        );
        assert!(!world.store.data.borrow().contains_key(&store_key(id)));
    }
    // An Executor for no audience refuses one made for an audience.
    let error =
        run(executor_for(&world, None).save(&signed_for("c-a", Some("inbox-a")))).unwrap_err();
    assert!(
        matches!(&error, StorageError::Refused(rejection) if rejection.phase == Phase::WrongAudience)
    );
    run(inbox_a.save(&signed_for("c-mine", Some("inbox-a")))).unwrap();
}

#[test]
fn a_signed_action_on_a_tampered_record_is_refused_and_never_reseals_it() {
    let world = World::new(&[]);
    let seal = || SealKey::new("sealKey", b"0123456789abcdef0123456789abcdef-seal").unwrap();
    let executor = world.executor().with_seal(seal());
    let approval = confirmation("c-1", "node-1");
    run(executor.save(&approval)).unwrap();
    let sealed = world.store.data.borrow()[&store_key("c-1")].clone();
    // Hand-edited in the store: marked in flight, its seal kept (now wrong), or dropped.
    let mut edited: serde_json::Value = serde_json::from_str(&sealed).unwrap();
    edited["in_flight_at"] = serde_json::json!(format_rfc3339(now(&world)));
    let mut unsealed = edited.clone();
    unsealed.as_object_mut().unwrap().remove("seal");
    for (nonce, text) in [
        ("nonce-tampered-000001", edited.to_string()),
        ("nonce-tampered-000002", unsealed.to_string()),
    ] {
        world
            .store
            .data
            .borrow_mut()
            .insert(store_key("c-1"), text.clone());
        for kind in [
            HumanActionKind::ReconcileNotApplied,
            HumanActionKind::ReconcileApplied,
            HumanActionKind::Cancel,
        ] {
            let action = signed_action(kind, "c-1", &version_of(&world, "c-1"), nonce, now(&world));
            let outcome = run(executor.take_action(&action, None, None));
            assert_eq!(phase(&outcome), "record_tampered", "{kind:?}: {outcome:?}");
            assert_eq!(
                world.store.data.borrow()[&store_key("c-1")],
                text,
                "the tampered record is left as it was, not sealed anew"
            );
        }
    }
}

fn guard_key() -> ed25519_dalek::SigningKey {
    ed25519_dalek::SigningKey::from_bytes(&[7; 32])
}

/// Receipts signed by the one guard key, each naming the one before it (or `first_prev` for the first),
/// with the given sequence numbers and key ids.
fn linked(entries: &[(u64, &str)], first_prev: Option<String>) -> Vec<Receipt> {
    let mut receipts: Vec<Receipt> = Vec::new();
    for (index, (seq, key_id)) in entries.iter().enumerate() {
        let mut receipt = Receipt {
            seq: *seq,
            approval_id: format!("a-{index}"),
            change_digest: "ab".repeat(32),
            approver: "alice/laptop".into(),
            outcome: "applied".into(),
            at: format_rfc3339(confirmed_at_ms() + index as i64),
            prev: receipts.last().map(receipt_digest).or(first_prev.clone()),
            key_id: (*key_id).into(),
            signature: String::new(),
        };
        receipt.signature = hex::encode(
            guard_key()
                .sign(&canonical_receipt_bytes(&receipt))
                .to_bytes(),
        );
        receipts.push(receipt);
    }
    receipts
}

fn broken_at(receipts: &[Receipt]) -> Option<(usize, String)> {
    let key = agent_governor::executor::public_key::PublicKey::Ed25519(guard_key().verifying_key());
    match verify_receipts(receipts, &key) {
        ChainVerdict::Broken { index, reason, .. } => Some((index, reason)),
        ChainVerdict::Valid { .. } => None,
    }
}

#[test]
fn a_receipt_chain_keeps_one_key_id_consecutive_numbers_and_a_first_receipt_naming_none() {
    assert_eq!(
        broken_at(&linked(&[(1, "g"), (2, "g"), (3, "g")], None)),
        None
    );
    let renamed = linked(&[(1, "g"), (2, "g"), (3, "g-2")], None);
    assert_eq!(
        broken_at(&renamed).unwrap().0,
        2,
        "the key id changed midway"
    );
    let skipped = linked(&[(1, "g"), (2, "g"), (4, "g")], None);
    assert_eq!(broken_at(&skipped).unwrap().0, 2, "a number skipped");
    let repeated = linked(&[(1, "g"), (2, "g"), (2, "g")], None);
    assert_eq!(broken_at(&repeated).unwrap().0, 2, "a number repeated");
    let backwards = linked(&[(5, "g"), (4, "g")], None);
    assert_eq!(broken_at(&backwards).unwrap().0, 1);
    let claims_a_past = linked(&[(1, "g"), (2, "g")], Some("cd".repeat(32)));
    let (index, reason) = broken_at(&claims_a_past).unwrap();
    assert_eq!(index, 0);
    assert!(reason.contains("names a previous one"), "{reason}");
    assert_eq!(broken_at(&linked(&[(0, "g")], None)).unwrap().0, 0);
    // A chain may start anywhere after 1, naming the receipt before it.
    assert_eq!(
        broken_at(&linked(&[(7, "g"), (8, "g")], Some("cd".repeat(32)))),
        None
    );
}
