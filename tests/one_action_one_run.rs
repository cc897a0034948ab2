//! One action, one run: however many confirmations approve one action, at most one of them runs it; the
//! second answer carries the first run; only a run that changed nothing releases the action; a person's
//! "not applied" closes the action and is refused while an Apply of it is still running here; the action's
//! idempotency key is the same on every attempt.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::executor::human_action::HumanActionKind;
use agent_governor::executor::signature::canonical_bytes;
use agent_governor::executor::take_action::ActionOutcome;
use agent_governor::executor::*;
use agent_governor::ports::PortError;
use serde_json::json;
use support::*;

const ACTION: &str = "tool-call/send_email/call_7";

fn two_approvals() -> (Confirmation, Confirmation, World) {
    let first = confirmation_of_action("c-1", "node-1", ACTION);
    let second = confirmation_of_action("c-2", "node-1", ACTION);
    let world = World::new(&[&first, &second]);
    (first, second, world)
}

fn phase_of(result: &ExecutorResult) -> Phase {
    result.rejection.as_ref().expect("a rejection").phase
}

#[test]
fn a_second_approval_of_an_applied_action_does_not_run_it_and_carries_the_first_run() {
    let (first, second, world) = two_approvals();
    let applied = run(world.executor().execute(&request_for(&first)));
    assert_eq!(applied.outcome, Outcome::Applied);
    world.set_status("node-1", "in_progress");

    let again = run(world.executor().execute(&request_for(&second)));
    assert_eq!(again.outcome, Outcome::Rejected);
    assert_eq!(phase_of(&again), Phase::ActionAlreadyRan);
    assert!(!again.consumed);
    assert_eq!(again.confirmation_state, Some(ConfirmationState::Approved));
    let first_run = again.first_run.expect("the first run");
    assert_eq!(first_run.action_id, ACTION);
    assert_eq!(first_run.confirmation_id, "c-1");
    assert_eq!(first_run.state, ActionRunState::Applied);
    assert_eq!(first_run.applied, applied.applied);
    assert_eq!(world.skill.apply_count(), 1, "the tool ran once");
    assert_eq!(
        world.store.confirmation("c-2").state(),
        ConfirmationState::Approved
    );
}

#[test]
fn an_action_whose_outcome_is_unknown_is_in_flight_for_every_other_approval() {
    let (first, second, world) = two_approvals();
    world.skill.script(Err(PortError::new("socket hang up")));
    let unknown = run(world.executor().execute(&request_for(&first)));
    assert_eq!(
        unknown.confirmation_state,
        Some(ConfirmationState::InFlight)
    );
    let again = run(world.executor().execute(&request_for(&second)));
    assert_eq!(phase_of(&again), Phase::ActionInFlight);
    assert_eq!(again.first_run.unwrap().state, ActionRunState::InFlight);
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn a_run_that_changed_nothing_releases_the_action_for_another_approval() {
    for nothing_changed in [
        response(422, json!({ "valid_transitions": ["review"] })),
        response(500, json!({ "error": "down" })),
    ] {
        let (first, second, world) = two_approvals();
        world.skill.script(nothing_changed);
        let refused = run(world.executor().execute(&request_for(&first)));
        assert_ne!(refused.outcome, Outcome::Applied);
        assert_eq!(
            refused.confirmation_state,
            Some(ConfirmationState::Approved)
        );
        let applied = run(world.executor().execute(&request_for(&second)));
        assert_eq!(applied.outcome, Outcome::Applied, "{applied:?}");
        // And now the first approval, usable again for itself, finds its action run.
        let late = run(world.executor().execute(&request_for(&first)));
        assert_eq!(phase_of(&late), Phase::ActionAlreadyRan);
        assert_eq!(late.first_run.unwrap().confirmation_id, "c-2");
    }
    // A failed Preview changes nothing either.
    let (first, second, world) = two_approvals();
    *world.skill.preview_error.borrow_mut() = Some("board unreachable".into());
    run(world.executor().execute(&request_for(&first)));
    *world.skill.preview_error.borrow_mut() = None;
    assert_eq!(
        run(world.executor().execute(&request_for(&second))).outcome,
        Outcome::Applied
    );
}

#[test]
fn a_hundred_concurrent_approvals_of_one_action_run_it_once() {
    let approvals: Vec<Confirmation> = (0..100)
        .map(|i| confirmation_of_action(&format!("c-{i}"), "node-1", ACTION))
        .collect();
    let world = World::new(&approvals.iter().collect::<Vec<_>>());
    *world.store.yields.0.borrow_mut() = (0..2_000).map(|i| (i * 7 % 5) as u32).collect();
    *world.skill.yields.0.borrow_mut() = (0..200).map(|i| (i % 3) as u32).collect();
    let requests: Vec<_> = approvals.iter().map(request_for).collect();
    let executors: Vec<_> = requests.iter().map(|_| world.executor()).collect();
    let results = run(futures::future::join_all(
        executors
            .iter()
            .zip(&requests)
            .map(|(executor, request)| executor.execute(request)),
    ));
    assert_eq!(world.skill.apply_count(), 1);
    assert_eq!(
        results
            .iter()
            .filter(|r| r.outcome == Outcome::Applied)
            .count(),
        1
    );
    for result in results.iter().filter(|r| r.outcome != Outcome::Applied) {
        assert!(
            matches!(
                phase_of(result),
                Phase::ActionAlreadyRan | Phase::ActionInFlight
            ),
            "{result:?}"
        );
    }
}

#[test]
fn a_confirmation_without_an_action_id_is_its_own_action_and_cannot_be_named_by_one() {
    let plain = confirmation("c-1", "node-1");
    // An action id equal to the other confirmation's id names another action.
    let named = confirmation_of_action("c-2", "node-1", "c-1");
    let world = World::new(&[&plain, &named]);
    assert_eq!(
        run(world.executor().execute(&request_for(&plain))).outcome,
        Outcome::Applied
    );
    world.set_status("node-1", "in_progress");
    assert_eq!(
        run(world.executor().execute(&request_for(&named))).outcome,
        Outcome::Applied
    );
    assert_eq!(world.skill.apply_count(), 2);
}

#[test]
fn the_idempotency_key_is_the_actions_on_every_attempt() {
    let (first, second, world) = two_approvals();
    let other = confirmation_of_action("c-3", "node-1", "tool-call/send_email/call_8");
    world.skill.script(response(500, json!({})));
    run(world.executor().execute(&request_for(&first)));
    run(world.executor().execute(&request_for(&second)));
    let sent = world.skill.applied.borrow().clone();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].idempotency_key, sent[1].idempotency_key);
    assert_eq!(sent[0].idempotency_key.len(), 64);
    assert!(
        sent[0]
            .idempotency_key
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
    );
    assert_ne!(
        agent_governor::executor::request::idempotency_key(&other),
        sent[0].idempotency_key
    );
}

#[test]
fn the_action_id_is_signed() {
    let approval = confirmation_of_action("c-1", "node-1", ACTION);
    assert!(keys().verify(&approval).is_ok());
    let bytes = String::from_utf8(canonical_bytes(&approval, KEY_ID)).unwrap();
    assert!(
        bytes.starts_with(&format!(
            "[\"agent-governor/confirmation/v3\",\"{KEY_ID}\",\"\",\"{ACTION}\",\"c-1\","
        )),
        "{bytes}"
    );
    for relabelled in [Some("tool-call/send_email/call_8".to_owned()), None] {
        let forged = Confirmation {
            action_id: relabelled,
            ..approval.clone()
        };
        assert!(keys().verify(&forged).is_err(), "{:?}", forged.action_id);
    }
    // Without an action id the encoding is the earlier one: confirmations signed before still verify.
    let plain = confirmation("c-2", "node-1");
    assert!(
        String::from_utf8(canonical_bytes(&plain, KEY_ID))
            .unwrap()
            .starts_with("[\"agent-governor/confirmation/v1\",")
    );
}

#[test]
fn an_action_id_must_be_readable() {
    for bad in ["", "  ", "a\u{7}b", &"x".repeat(513)] {
        let draft = ConfirmationDraft {
            action_id: Some(bad.to_owned()),
            ..draft("node-1")
        };
        let error =
            issue_confirmation(&draft, &signer(), confirmed_at_ms(), "c-1".into()).expect_err(bad);
        assert_eq!(error.path, "action_id");
    }
}

#[test]
fn not_applied_closes_the_action_and_no_later_approval_of_it_runs() {
    let (first, second, world) = two_approvals();
    world.skill.script(Err(PortError::new("socket hang up")));
    let executor = world.executor();
    run(executor.execute(&request_for(&first)));
    let reconcile = signed_action(
        HumanActionKind::ReconcileNotApplied,
        "c-1",
        &version_of(&world, "c-1"),
        "nonce-not-applied-0001",
        now(&world),
    );
    assert!(matches!(
        run(executor.take_action(&reconcile, None, None)),
        ActionOutcome::Taken { .. }
    ));
    // Never re-armed: neither the same confirmation nor another approval of the action runs it.
    for approval in [&first, &second] {
        let again = run(executor.execute(&request_for(approval)));
        assert_eq!(again.outcome, Outcome::Rejected, "{again:?}");
    }
    let later = run(executor.execute(&request_for(&second)));
    assert_eq!(phase_of(&later), Phase::ActionAlreadyRan);
    assert_eq!(
        later.first_run.unwrap().state,
        ActionRunState::ReconciledNotApplied
    );
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn not_applied_is_refused_while_an_apply_of_it_is_still_running_here() {
    let (first, second, world) = two_approvals();
    let executor = world.executor();
    // The Apply is slow: the skill yields many times before it answers.
    *world.skill.yields.0.borrow_mut() = [0, 200].into();
    let reconcile_while_running = async {
        // Wait until the confirmation is reserved, then reconcile it as not applied.
        loop {
            support::YieldTimes(1).await;
            if world.store.confirmation("c-1").state() == ConfirmationState::InFlight {
                break;
            }
        }
        let reconcile = signed_action(
            HumanActionKind::ReconcileNotApplied,
            "c-1",
            &version_of(&world, "c-1"),
            "nonce-not-applied-0002",
            now(&world),
        );
        executor.take_action(&reconcile, None, None).await
    };
    let request = request_for(&first);
    let (applied, reconciled) =
        run(async { futures::join!(executor.execute(&request), reconcile_while_running) });
    match reconciled {
        ActionOutcome::Rejected { phase, .. } => assert_eq!(phase, "apply_running"),
        taken => panic!("a reconcile during the Apply was taken: {taken:?}"),
    }
    assert_eq!(applied.outcome, Outcome::Applied);
    assert_eq!(
        run(executor.execute(&request_for(&second))).outcome,
        Outcome::Rejected
    );
    assert_eq!(world.skill.apply_count(), 1, "the skill was called once");
}

#[test]
fn not_applied_is_refused_from_the_reservation_on_even_before_the_action_is_claimed() {
    let (first, _second, world) = two_approvals();
    let executor = world.executor();
    // The Apply is reserved, then the store is slow to answer the action's claim.
    *world.store.yields.0.borrow_mut() = [0, 0, 0, 200].into();
    let reconcile_during_the_claim = async {
        loop {
            support::YieldTimes(1).await;
            if world.store.confirmation("c-1").state() == ConfirmationState::InFlight {
                break;
            }
        }
        let reconcile = signed_action(
            HumanActionKind::ReconcileNotApplied,
            "c-1",
            &version_of(&world, "c-1"),
            "nonce-not-applied-0003",
            now(&world),
        );
        executor.take_action(&reconcile, None, None).await
    };
    let request = request_for(&first);
    let (applied, reconciled) =
        run(async { futures::join!(executor.execute(&request), reconcile_during_the_claim) });
    match reconciled {
        ActionOutcome::Rejected { phase, .. } => assert_eq!(phase, "apply_running"),
        taken => panic!("a reconcile during the claim was taken: {taken:?}"),
    }
    assert_eq!(applied.outcome, Outcome::Applied);
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn an_answer_refused_before_the_ledger_still_says_the_action_ran() {
    let (first, second, world) = two_approvals();
    assert_eq!(
        run(world.executor().execute(&request_for(&first))).outcome,
        Outcome::Applied
    );
    // The second approval is cancelled, then expires; a third was never stored: each refusal names the run.
    world.store.insert(&second.cancelled());
    let cancelled = run(world.executor().execute(&request_for(&second)));
    assert_eq!(phase_of(&cancelled), Phase::Cancelled);
    assert_eq!(
        cancelled.first_run.as_ref().unwrap().state,
        ActionRunState::Applied
    );
    let never_stored = confirmation_of_action("c-3", "node-1", ACTION);
    let not_found = run(world.executor().execute(&request_for(&never_stored)));
    assert_eq!(phase_of(&not_found), Phase::NotFound);
    assert_eq!(not_found.first_run.unwrap().confirmation_id, "c-1");
    world.clock.0.set(confirmed_at_ms() + 25 * 60 * 60 * 1000);
    let expired = run(world.executor().execute(&request_for(&first)));
    assert_eq!(phase_of(&expired), Phase::AlreadyConsumed);
    assert_eq!(expired.first_run.unwrap().confirmation_id, "c-1");
    // A request naming no action learns nothing of others.
    let mut unnamed = request_for(&never_stored);
    unnamed.apply_request.action_id = None;
    assert!(run(world.executor().execute(&unnamed)).first_run.is_none());
}

#[test]
fn a_used_confirmation_of_another_action_is_not_this_action_having_run() {
    let (first, _second, world) = two_approvals();
    assert_eq!(
        run(world.executor().execute(&request_for(&first))).outcome,
        Outcome::Applied
    );
    // Another call's request, pointing at the first call's used confirmation.
    let mut other = request_for(&first);
    other.apply_request.action_id = Some("tool-call/send_email/call_8".into());
    let answer = run(world.executor().execute(&other));
    assert_eq!(phase_of(&answer), Phase::ChangeMismatch, "{answer:?}");
    assert!(answer.first_run.is_none());
    assert_eq!(world.skill.apply_count(), 1);
}
