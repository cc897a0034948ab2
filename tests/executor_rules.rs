//! Every rule of seed 003 (Executor / Confirmation) as a named test, over fake host ports.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::executor::check::{
    CONFIRMATION_TTL_MS, CheckPolicy, DEFAULT_CLOCK_SKEW_MS, check_confirmation_json_str,
};
use agent_governor::executor::issue::random_confirmation_id;
use agent_governor::executor::*;
use agent_governor::ports::PortError;
use serde_json::json;
use support::*;

fn execute(world: &World, request: &ExecutorRequest) -> ExecutorResult {
    run(world.executor().execute(request))
}

fn phase_of(result: &ExecutorResult) -> Phase {
    assert_eq!(result.outcome, Outcome::Rejected, "{result:?}");
    result.rejection.as_ref().unwrap().phase
}

// ---- section 5: the 6-step check, in order ----

#[test]
fn step1_unknown_confirmation_id_is_rejected_not_found() {
    let world = World::new(&[]);
    let ghost = confirmation("c-ghost", "node-1");
    let result = execute(&world, &request_for(&ghost));
    assert_eq!(phase_of(&result), Phase::NotFound);
    assert!(!result.consumed);
    assert_eq!(result.confirmation_state, None);
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn step2_consumed_confirmation_is_rejected_already_consumed() {
    let mut used = confirmation("c-1", "node-1");
    used.consumed = true;
    used.consumed_at = Some("2026-11-22T09:30:00.000Z".into());
    let world = World::new(&[&used]);
    let result = execute(&world, &request_for(&used));
    assert_eq!(phase_of(&result), Phase::AlreadyConsumed);
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn step3a_confirmation_expires_24_hours_after_confirmed_at() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.clock.0.set(confirmed_at_ms() + CONFIRMATION_TTL_MS);
    assert_eq!(
        phase_of(&execute(&world, &request_for(&approval))),
        Phase::ExpiredTime
    );
    assert_eq!(world.skill.apply_count(), 0);
    world
        .clock
        .0
        .set(confirmed_at_ms() + CONFIRMATION_TTL_MS - 1);
    assert_eq!(
        execute(&world, &request_for(&approval)).outcome,
        Outcome::Applied
    );
}

#[test]
fn step3a_expiry_honours_the_offset_of_confirmed_at() {
    let keys = keys();
    let mut approval = confirmation("c-1", "node-1");
    approval.confirmed_at = "2026-11-22T18:00:00+09:00".into(); // = 09:00Z
    let approval = signer().sign(approval);
    let request = request_for(&approval);
    let just_before = confirmed_at_ms() + CONFIRMATION_TTL_MS - 1;
    let verdict = check_confirmation(
        Some(&approval),
        &request,
        just_before,
        &CheckPolicy::default(),
        &keys,
        Some("in_progress"),
    );
    assert_eq!(verdict, CheckVerdict::Pass);
    let verdict = check_confirmation(
        Some(&approval),
        &request,
        just_before + 1,
        &CheckPolicy::default(),
        &keys,
        Some("in_progress"),
    );
    assert!(
        matches!(
            verdict,
            CheckVerdict::Rejected {
                phase: Phase::ExpiredTime,
                ..
            }
        ),
        "{verdict:?}"
    );
}

#[test]
fn step3a_undatable_confirmed_at_fails_closed_as_expired() {
    let mut approval = confirmation("c-1", "node-1");
    approval.confirmed_at = "yesterday".into();
    let approval = signer().sign(approval);
    let verdict = check_confirmation(
        Some(&approval),
        &request_for(&approval),
        0,
        &CheckPolicy::default(),
        &keys(),
        None,
    );
    assert!(
        matches!(
            verdict,
            CheckVerdict::Rejected {
                phase: Phase::ExpiredTime,
                ..
            }
        ),
        "{verdict:?}"
    );
}

#[test]
fn step3b_cancelled_confirmation_is_rejected_cancelled() {
    let approval = confirmation("c-1", "node-1").cancelled();
    let world = World::new(&[&approval]);
    assert_eq!(
        phase_of(&execute(&world, &request_for(&approval))),
        Phase::Cancelled
    );
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn step4_other_node_is_rejected_node_mismatch() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let mut request = request_for(&approval);
    request.apply_request.node_id = "node-2".into();
    assert_eq!(phase_of(&execute(&world, &request)), Phase::NodeMismatch);
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn step5_other_status_is_rejected_change_mismatch() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let mut request = request_for(&approval);
    request.apply_request.confirm_status = "archived".into();
    let result = execute(&world, &request);
    assert_eq!(phase_of(&result), Phase::ChangeMismatch);
    assert!(result.rejection.unwrap().reason.contains("confirm_status"));
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn step5_edited_intent_or_reason_is_rejected_change_mismatch() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    for edit in [
        |r: &mut ExecutorRequest| r.apply_request.intent = "something else".into(),
        |r: &mut ExecutorRequest| r.apply_request.reason = "a better reason".into(),
    ] {
        let mut request = request_for(&approval);
        edit(&mut request);
        assert_eq!(phase_of(&execute(&world, &request)), Phase::ChangeMismatch);
    }
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn step6_changed_status_requires_reconfirmation_and_invalidates_the_confirmation() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.set_status("node-1", "blocked");
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::ReconfirmRequired);
    let reconfirm = result.reconfirm.unwrap();
    assert_eq!(reconfirm.current_status, "blocked");
    assert!(!result.consumed);
    assert_eq!(
        result.confirmation_state,
        Some(ConfirmationState::Invalidated)
    );
    assert_eq!(world.skill.apply_count(), 0);
    let stored = world.store.confirmation("c-1");
    assert!(!stored.consumed);
    assert!(stored.invalidated_at.is_some());
    // never usable again, even once the status is back
    world.set_status("node-1", "in_progress");
    assert_eq!(
        phase_of(&execute(&world, &request_for(&approval))),
        Phase::Invalidated
    );
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn steps_run_in_the_seed_order() {
    // consumed, expired, cancelled, other node and other status at once: step 2 answers first
    let mut approval = confirmation("c-1", "node-1").cancelled();
    approval.consumed = true;
    let approval = signer().sign(approval);
    let mut request = request_for(&approval);
    request.apply_request.node_id = "node-9".into();
    request.apply_request.confirm_status = "archived".into();
    let late = confirmed_at_ms() + 2 * CONFIRMATION_TTL_MS;
    let phase = |c: &Confirmation, r: &ExecutorRequest| match check_confirmation(
        Some(c),
        r,
        late,
        &CheckPolicy::default(),
        &keys(),
        None,
    ) {
        CheckVerdict::Rejected { phase, .. } => phase,
        other => panic!("{other:?}"),
    };
    assert_eq!(phase(&approval, &request), Phase::AlreadyConsumed);
    let approval = Confirmation {
        consumed: false,
        ..approval
    };
    assert_eq!(phase(&approval, &request), Phase::ExpiredTime);
    let on_time = confirmed_at_ms();
    let verdict = check_confirmation(
        Some(&approval),
        &request,
        on_time,
        &CheckPolicy::default(),
        &keys(),
        None,
    );
    assert!(matches!(
        verdict,
        CheckVerdict::Rejected {
            phase: Phase::Cancelled,
            ..
        }
    ));
    let approval = Confirmation {
        cancelled: false,
        ..approval
    };
    let verdict = check_confirmation(
        Some(&approval),
        &request,
        on_time,
        &CheckPolicy::default(),
        &keys(),
        None,
    );
    assert!(matches!(
        verdict,
        CheckVerdict::Rejected {
            phase: Phase::NodeMismatch,
            ..
        }
    ));
    request.apply_request.node_id = "node-1".into();
    let verdict = check_confirmation(
        Some(&approval),
        &request,
        on_time,
        &CheckPolicy::default(),
        &keys(),
        None,
    );
    assert!(matches!(
        verdict,
        CheckVerdict::Rejected {
            phase: Phase::ChangeMismatch,
            ..
        }
    ));
    request.apply_request.confirm_status = "done".into();
    let verdict = check_confirmation(
        Some(&approval),
        &request,
        on_time,
        &CheckPolicy::default(),
        &keys(),
        Some("blocked"),
    );
    assert!(matches!(verdict, CheckVerdict::ReconfirmRequired { .. }));
    assert_eq!(
        check_confirmation(
            Some(&approval),
            &request,
            on_time,
            &CheckPolicy::default(),
            &keys(),
            Some("in_progress")
        ),
        CheckVerdict::Pass
    );
    assert_eq!(
        check_confirmation(
            Some(&approval),
            &request,
            on_time,
            &CheckPolicy::default(),
            &keys(),
            None
        ),
        CheckVerdict::PendingPrecondition
    );
}

// ---- unforgeable approvals: the signature is checked before anything else is trusted ----

fn signature_phase(confirmation: &Confirmation) -> (Phase, String) {
    match check_confirmation(
        Some(confirmation),
        &request_for(confirmation),
        confirmed_at_ms(),
        &CheckPolicy::default(),
        &keys(),
        None,
    ) {
        CheckVerdict::Rejected { phase, reason } => (phase, reason),
        other => panic!("{other:?}"),
    }
}

#[test]
fn signature_missing_is_rejected_before_any_other_step() {
    let mut forged = confirmation("c-1", "node-1");
    forged.signature = None;
    forged.consumed = true; // would be step 2, but nothing unsigned is trusted
    let (phase, reason) = signature_phase(&forged);
    assert_eq!(phase, Phase::SignatureInvalid);
    assert!(reason.contains("not signed"), "{reason}");
}

#[test]
fn signature_with_unknown_key_is_rejected() {
    let other = Signer::new("someone-else", b"another-secret-that-is-long-enough-32").unwrap();
    let (phase, reason) = signature_phase(&other.sign(confirmation("c-1", "node-1")));
    assert_eq!(phase, Phase::SignatureInvalid);
    assert!(reason.contains("unknown key"), "{reason}");
}

#[test]
fn signature_of_another_secret_under_a_known_key_id_is_rejected() {
    let impostor = Signer::new(KEY_ID, b"not-the-approval-side-secret-at-all!").unwrap();
    let (phase, _) = signature_phase(&impostor.sign(confirmation("c-1", "node-1")));
    assert_eq!(phase, Phase::SignatureInvalid);
}

#[test]
fn signature_rejects_every_altered_binding_field() {
    let original = confirmation("c-1", "node-1");
    let alterations: Vec<fn(&mut Confirmation)> = vec![
        |c| c.node_id = "node-2".into(),
        |c| c.proposed_change.to = "archived".into(),
        |c| c.proposed_change.from = "todo".into(),
        |c| c.proposed_change.change_type = "delete".into(),
        |c| c.intent = "edited".into(),
        |c| c.reason = "edited".into(),
        |c| c.confirmed_at = "2026-11-23T09:00:00.000Z".into(),
        |c| c.ui_action = "auto".into(),
        |c| c.signature = Some("zz-not-hex".into()),
    ];
    for alter in alterations {
        let mut altered = original.clone();
        alter(&mut altered);
        assert_eq!(
            signature_phase(&altered).0,
            Phase::SignatureInvalid,
            "{altered:?}"
        );
    }
}

#[test]
fn key_ring_refuses_short_secrets_and_emptiness() {
    let short = KeyRing::new([("k", b"short".as_slice())]).unwrap_err();
    assert_eq!(
        (short.code.as_str(), short.path.as_str()),
        ("invalid_key", "keys.k")
    );
    let none = KeyRing::new(std::iter::empty()).unwrap_err();
    assert_eq!(none.code.as_str(), "invalid_key");
}

#[test]
fn issued_confirmation_has_a_uuid_v4_id_the_host_time_and_a_valid_signature() {
    let id = random_confirmation_id().unwrap();
    let parsed = uuid_version(&id);
    assert_eq!(parsed, Some('4'), "{id}");
    assert_ne!(id, random_confirmation_id().unwrap());
    let issued =
        issue_confirmation(&draft("node-1"), &signer(), confirmed_at_ms(), id.clone()).unwrap();
    assert_eq!(issued.confirmation_id, id);
    assert_eq!(issued.confirmed_at, CONFIRMED_AT);
    assert_eq!(issued.confirmed_by, ConfirmedBy::Human);
    assert_eq!(issued.key_id.as_deref(), Some(KEY_ID));
    assert_eq!(issued.state(), ConfirmationState::Approved);
    assert_eq!(keys().verify(&issued), Ok(()));
}

fn uuid_version(id: &str) -> Option<char> {
    let groups: Vec<&str> = id.split('-').collect();
    (groups.iter().map(|g| g.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12])
        .then(|| groups[2].chars().next())?
}

// ---- section 6.1: the consumption table ----

#[test]
fn consumption_200_applies_once_and_consumes() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::Applied);
    assert!(result.consumed);
    let applied = result.applied.unwrap();
    assert_eq!(
        (applied.from_status.as_str(), applied.to_status.as_str()),
        ("in_progress", "done")
    );
    assert!(applied.status_changed);
    assert_eq!(applied.reason, approval.reason);
    let stored = world.store.confirmation("c-1");
    assert!(stored.consumed);
    assert_eq!(
        stored.consumed_at.as_deref(),
        Some(applied.consumed_at.as_str())
    );
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn consumption_422_requires_reconfirmation_with_the_skills_transitions_and_does_not_consume() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.skill.script(response(
        422,
        json!({ "message": "done is not reachable", "current_status": "in_progress",
                "valid_transitions": [{ "status": "review", "label": "Send to review" }, { "status": "blocked", "label": "Block" }] }),
    ));
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::ReconfirmRequired);
    let reconfirm = result.reconfirm.clone().unwrap();
    let statuses: Vec<_> = reconfirm
        .valid_transitions
        .iter()
        .map(|t| t.status.as_str())
        .collect();
    assert_eq!(statuses, ["review", "blocked"]);
    assert_eq!(
        reconfirm.reason,
        "The transition was refused. Approve again from the candidates below (done is not reachable)."
    );
    assert!(!result.consumed);
    assert_eq!(result.confirmation_state, Some(ConfirmationState::Approved));
    assert_eq!(
        world.store.confirmation("c-1"),
        approval,
        "released exactly as it was approved"
    );
}

#[test]
fn no_retry_after_422_the_executor_never_picks_a_transition() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.skill.script(response(
        422,
        json!({ "valid_transitions": [{ "status": "review", "label": "Review" }] }),
    ));
    execute(&world, &request_for(&approval));
    assert_eq!(
        world.skill.apply_count(),
        1,
        "one Apply, no retry with another candidate"
    );
    assert_eq!(world.skill.applied.borrow()[0].confirm_status, "done");
}

#[test]
fn consumption_500_is_an_error_and_does_not_consume() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world
        .skill
        .script(response(500, json!({ "message": "database unavailable" })));
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::Error);
    assert!(
        result
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("database unavailable")
    );
    assert!(!result.consumed);
    assert_eq!(result.confirmation_state, Some(ConfirmationState::Approved));
    assert_eq!(world.store.confirmation("c-1"), approval);
    assert_eq!(world.skill.apply_count(), 1, "no automatic retry");
}

#[test]
fn consumption_failed_checks_never_consume() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let mut request = request_for(&approval);
    request.apply_request.node_id = "node-2".into();
    let result = execute(&world, &request);
    assert!(!result.consumed);
    assert_eq!(world.store.confirmation("c-1"), approval);
}

#[test]
fn consumption_table_maps_each_answer() {
    use agent_governor::executor::consumption::classify_apply_response;
    let cases = [
        (200, json!({ "applied": true }), LifecycleTransition::Commit),
        (
            200,
            json!({ "applied": false }),
            LifecycleTransition::Release,
        ),
        (422, json!({}), LifecycleTransition::Release),
        (500, json!("boom"), LifecycleTransition::Release),
        (503, json!(null), LifecycleTransition::Release),
        (404, json!({}), LifecycleTransition::Release),
        (202, json!({}), LifecycleTransition::KeepInFlight),
        (302, json!({}), LifecycleTransition::KeepInFlight),
    ];
    for (status, body, expected) in cases {
        let kind = classify_apply_response(&SkillResponse {
            status,
            body: body.clone(),
        });
        assert_eq!(kind.transition(), expected, "{status} {body}");
    }
}

// ---- sections 1.3, 4.2, 4.4, 9: never edit, never chain, facts only ----

#[test]
fn apply_request_is_the_approved_content_plus_source_ai_agent_and_the_confirmation() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    execute(&world, &request_for(&approval));
    let sent = world.skill.applied.borrow()[0].clone();
    let body = serde_json::to_value(&sent).unwrap();
    let mut keys: Vec<_> = body.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "confirm_status",
            "confirmation",
            "idempotency_key",
            "intent",
            "node_id",
            "reason",
            "source"
        ]
    );
    assert_eq!(body["source"], "ai_agent");
    assert_eq!(body["confirm_status"], "done");
    assert_eq!(body["intent"], approval.intent);
    assert_eq!(body["reason"], approval.reason);
    assert_eq!(body["confirmation"]["confirmation_id"], "c-1");
    assert_eq!(body["confirmation"]["confirmed_by"], "human");
    assert_eq!(body["confirmation"]["confirmed_at"], CONFIRMED_AT);
    assert_eq!(body["confirmation"]["ui_action"], "approve_button");
    assert_eq!(
        keys_verify(&sent.confirmation),
        Ok(()),
        "the guard behind the skill can verify it"
    );
}

fn keys_verify(confirmation: &Confirmation) -> Result<(), String> {
    keys().verify(confirmation)
}

#[test]
fn one_confirmation_one_apply_a_second_execute_is_already_consumed() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    assert_eq!(
        execute(&world, &request_for(&approval)).outcome,
        Outcome::Applied
    );
    world.set_status("node-1", "in_progress");
    assert_eq!(
        phase_of(&execute(&world, &request_for(&approval))),
        Phase::AlreadyConsumed
    );
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn executor_result_holds_facts_only_and_exactly_one_block() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let results = [
        execute(&world, &request_for(&approval)),
        execute(&world, &request_for(&approval)),
        execute(&world, &request_for(&confirmation("c-2", "node-2"))),
    ];
    for result in results {
        let value = serde_json::to_value(&result).unwrap();
        for forbidden in [
            "suggested_status",
            "options",
            "candidates",
            "pros",
            "cons",
            "next_action",
            "summary",
        ] {
            assert!(value.get(forbidden).is_none(), "{forbidden} in {value}");
        }
        let set: Vec<_> = ["applied", "rejection", "reconfirm", "error"]
            .into_iter()
            .filter(|k| !value[*k].is_null())
            .collect();
        let expected = match result.outcome {
            Outcome::Applied => "applied",
            Outcome::Rejected => "rejection",
            Outcome::ReconfirmRequired => "reconfirm",
            Outcome::Error => "error",
        };
        assert_eq!(set, [expected]);
    }
}

// ---- section 10.1: BatchApplier ----

#[test]
fn batch_applies_in_order_and_stops_at_the_first_failure() {
    let (a, b, c, d) = (
        confirmation("c-a", "n-a"),
        confirmation("c-b", "n-b"),
        confirmation("c-c", "n-c"),
        confirmation("c-d", "n-d"),
    );
    let world = World::new(&[&a, &b, &c, &d]);
    world
        .skill
        .script(response(200, json!({ "applied": true })));
    world
        .skill
        .script(response(500, json!({ "message": "down" })));
    let requests = [
        request_for(&a),
        request_for(&b),
        request_for(&c),
        request_for(&d),
    ];
    let batch = run(world.executor().execute_batch(&requests));
    assert_eq!(batch.applied, ["c-a"]);
    assert_eq!(batch.failed.as_deref(), Some("c-b"));
    assert_eq!(batch.not_attempted, ["c-c", "c-d"]);
    assert_eq!(batch.results.len(), 2);
    assert_eq!(world.skill.apply_count(), 2);
    assert!(world.store.confirmation("c-a").consumed);
    for id in ["c-b", "c-c", "c-d"] {
        assert_eq!(
            world.store.confirmation(id).state(),
            ConfirmationState::Approved,
            "{id}"
        );
    }
}

#[test]
fn batch_of_only_successes_applies_all() {
    let (a, b) = (confirmation("c-a", "n-a"), confirmation("c-b", "n-b"));
    let world = World::new(&[&a, &b]);
    let batch = run(world
        .executor()
        .execute_batch(&[request_for(&a), request_for(&b)]));
    assert_eq!(batch.applied, ["c-a", "c-b"]);
    assert_eq!((batch.failed, batch.not_attempted.len()), (None, 0));
}

// ---- exactly once under races and crashes ----

#[test]
fn two_concurrent_executes_cause_exactly_one_apply() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    // both load before either reserves
    world.store.yields.0.borrow_mut().extend([0, 3, 0, 0, 0, 0]);
    let (first, second) = (world.executor(), world.executor());
    let request = request_for(&approval);
    let (a, b) = run(async { futures::join!(first.execute(&request), second.execute(&request)) });
    let outcomes = [a.outcome, b.outcome];
    assert!(outcomes.contains(&Outcome::Applied), "{a:?} {b:?}");
    assert!(outcomes.contains(&Outcome::Rejected), "{a:?} {b:?}");
    assert_eq!(world.skill.apply_count(), 1);
    let loser = if a.outcome == Outcome::Rejected { a } else { b };
    assert!(matches!(
        loser.rejection.unwrap().phase,
        Phase::InFlight | Phase::AlreadyConsumed
    ));
}

#[test]
fn crash_between_apply_and_commit_leaves_in_flight_and_never_applies_again() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.store.failing_swaps.borrow_mut().push(2); // 0: reserve, 1: claim the action, 2: commit
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::Error);
    assert!(result.error.unwrap().message.contains("applied the change"));
    assert_eq!(result.confirmation_state, Some(ConfirmationState::InFlight));
    assert_eq!(
        world.store.confirmation("c-1").state(),
        ConfirmationState::InFlight
    );
    world.set_status("node-1", "in_progress");
    let again = execute(&world, &request_for(&approval));
    assert_eq!(phase_of(&again), Phase::InFlight);
    assert!(again.rejection.unwrap().reason.contains("reconcile"));
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn apply_callback_failure_has_unknown_outcome_and_stays_in_flight() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.skill.script(Err(PortError::new("socket hang up")));
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::Error);
    assert!(result.error.unwrap().message.contains("socket hang up"));
    assert_eq!(
        world.store.confirmation("c-1").state(),
        ConfirmationState::InFlight
    );
}

#[test]
fn preview_failure_releases_the_reservation_and_applies_nothing() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    *world.skill.preview_error.borrow_mut() = Some("preview timed out".into());
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::Error);
    assert_eq!(result.confirmation_state, Some(ConfirmationState::Approved));
    assert_eq!(world.store.confirmation("c-1"), approval);
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn malformed_stored_record_is_an_error_and_nothing_is_applied() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[]);
    world
        .store
        .data
        .borrow_mut()
        .insert("confirmation/c-1".into(), "{\"confirmation_id\": 7}".into());
    let result = execute(&world, &request_for(&approval));
    assert_eq!(result.outcome, Outcome::Error);
    assert!(result.error.unwrap().message.contains("confirmation_id"));
    assert_eq!(world.skill.apply_count(), 0);
}

// ---- section 7: the two routes, told apart by the audit record ----

#[test]
fn audit_records_tell_route_a_from_route_b() {
    let (a, b) = (confirmation("c-a", "n-a"), confirmation("c-b", "n-b"));
    let world = World::new(&[&b]);
    world.set_status("n-a", "in_progress");
    let (direct_request, direct_result) = run(apply_directly(
        &world.skill,
        &world.clock,
        &world.audit,
        &a,
        agent_governor::language::Language::En,
    ));
    assert_eq!(direct_request.source, Source::HumanUi);
    assert_eq!(direct_result.outcome, Outcome::Applied);
    execute(&world, &request_for(&b));
    let log = world.audit.0.borrow();
    assert_eq!(log.len(), 2);
    assert_eq!(
        (log[0].route, log[0].source),
        (Route::HumanUiDirect, Source::HumanUi)
    );
    assert_eq!(
        (log[1].route, log[1].source),
        (Route::Executor, Source::AiAgent)
    );
    assert_eq!(log[1].confirmation_id, "c-b");
    assert!(log[1].consumed);
    assert_ne!(log[0].trail, log[1].trail);
}

// ---- the JSON contract through the string entry point ----

#[test]
fn json_contract_names_the_path_of_a_bad_field() {
    let error = check_confirmation_json_str(r#"{"confirmation": null, "request": {"confirmation_id": "c", "apply_request": {"node_id": 5}}, "now": 0, "keys": {}}"#)
        .unwrap_err();
    assert_eq!(error.code.as_str(), "invalid_input");
    assert_eq!(error.path, "request.apply_request.node_id");
    let error = check_confirmation_json_str("[1, 2").unwrap_err();
    assert_eq!(error.code.as_str(), "invalid_input");
    let error = check_confirmation_json_str(r#"{"confirmation": null, "request": {"confirmation_id": "c", "apply_request": {"node_id": "n", "confirm_status": "", "intent": "", "reason": ""}}, "now": 0, "keys": {}}"#)
        .unwrap_err();
    assert_eq!(error.path, "request.apply_request.confirm_status");
}

#[test]
fn json_contract_gives_a_verdict_for_valid_input() {
    let approval = confirmation("c-1", "node-1");
    let input = json!({
        "confirmation": approval, "request": request_for(&approval), "now": confirmed_at_ms() as f64,
        "keys": { KEY_ID: std::str::from_utf8(SECRET).unwrap() }, "current_status": "in_progress",
    });
    assert_eq!(
        check_confirmation_json_str(&input.to_string()).unwrap(),
        CheckVerdict::Pass
    );
    let verdict = serde_json::to_value(CheckVerdict::Rejected {
        phase: Phase::NotFound,
        reason: "x".into(),
    })
    .unwrap();
    assert_eq!(
        verdict,
        json!({ "verdict": "rejected", "phase": "not_found", "reason": "x" })
    );
}

#[test]
fn a_human_reconciles_an_in_flight_confirmation_either_way() {
    use agent_governor::executor::{StorageError, reconcile_in_flight};
    for (applied, state) in [
        (true, ConfirmationState::Consumed),
        (false, ConfirmationState::Cancelled),
    ] {
        let approval = confirmation("c-1", "node-1");
        let world = World::new(&[&approval]);
        world.skill.script(Err(PortError::new("socket hang up")));
        execute(&world, &request_for(&approval));
        assert_eq!(
            world.store.confirmation("c-1").state(),
            ConfirmationState::InFlight
        );
        let settled = run(reconcile_in_flight(
            &world.store,
            "c-1",
            applied,
            confirmed_at_ms(),
        ))
        .unwrap();
        assert_eq!(settled.state(), state);
        assert_eq!(world.store.confirmation("c-1").state(), state);
        let again = run(reconcile_in_flight(
            &world.store,
            "c-1",
            applied,
            confirmed_at_ms(),
        ))
        .unwrap_err();
        assert_eq!(again, StorageError::NotInFlight(state));
    }
    let world = World::new(&[]);
    assert_eq!(
        run(reconcile_in_flight(&world.store, "nope", true, 0)).unwrap_err(),
        StorageError::NotFound
    );
}

// ---- approval semantics at the edges: future dates, canonical signatures, unknown outcomes ----

#[test]
fn step3_confirmed_at_in_the_future_beyond_the_clock_skew_is_rejected_not_yet_valid() {
    for ahead in [DEFAULT_CLOCK_SKEW_MS + 1, HOUR, 10 * 365 * 24 * HOUR] {
        let approval = confirmation("c-1", "node-1");
        let world = World::new(&[&approval]);
        world.clock.0.set(confirmed_at_ms() - ahead);
        let result = execute(&world, &request_for(&approval));
        assert_eq!(phase_of(&result), Phase::NotYetValid, "{ahead} ms ahead");
        assert_eq!(world.skill.apply_count(), 0);
        assert_eq!(world.store.confirmation("c-1"), approval, "nothing changed");
    }
}

#[test]
fn step3_confirmed_at_within_the_clock_skew_is_accepted() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.clock.0.set(confirmed_at_ms() - DEFAULT_CLOCK_SKEW_MS);
    assert_eq!(
        execute(&world, &request_for(&approval)).outcome,
        Outcome::Applied
    );
}

#[test]
fn step3_the_clock_skew_is_configurable_on_the_executor_and_the_pure_check() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world.clock.0.set(confirmed_at_ms() - 1000);
    let strict = world.executor().with_options(run::ExecutorOptions {
        clock_skew_ms: 0,
        ..Default::default()
    });
    assert_eq!(
        phase_of(&run(strict.execute(&request_for(&approval)))),
        Phase::NotYetValid
    );
    let verdict = check_confirmation(
        Some(&approval),
        &request_for(&approval),
        confirmed_at_ms() - 1000,
        &CheckPolicy {
            clock_skew_ms: 999,
            ..CheckPolicy::default()
        },
        &keys(),
        None,
    );
    assert!(matches!(
        verdict,
        CheckVerdict::Rejected {
            phase: Phase::NotYetValid,
            ..
        }
    ));
    let input = json!({
        "confirmation": approval, "request": request_for(&approval), "now": confirmed_at_ms() - 1000,
        "keys": { KEY_ID: std::str::from_utf8(SECRET).unwrap() }, "clock_skew_ms": 1000,
    });
    let verdict = check_confirmation_json_str(&input.to_string()).unwrap();
    assert_eq!(verdict, CheckVerdict::PendingPrecondition);
    for bad in [json!(-1), json!(1.5), json!(HOUR + 1), json!("5")] {
        let mut input = input.clone();
        input["clock_skew_ms"] = bad.clone();
        let error = check_confirmation_json_str(&input.to_string()).unwrap_err();
        assert_eq!(error.path, "clock_skew_ms", "{bad}");
    }
}

#[test]
fn signature_in_upper_case_hex_is_rejected_signature_invalid() {
    let mut approval = confirmation("c-1", "node-1");
    approval.signature = approval.signature.map(|hex| hex.to_uppercase());
    let world = World::new(&[&approval]);
    let result = execute(&world, &request_for(&approval));
    assert_eq!(phase_of(&result), Phase::SignatureInvalid);
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn section_6_1_consumed_only_on_200_applied_true() {
    use agent_governor::executor::consumption::classify_apply_response;
    let unknown = [
        (200, json!({})),
        (200, json!({ "applied": "true" })),
        (200, json!(null)),
        (502, json!({})),
        (504, json!({ "message": "gateway timeout" })),
        (520, json!({})),
    ];
    for (status, body) in unknown {
        let kind = classify_apply_response(&SkillResponse {
            status,
            body: body.clone(),
        });
        assert_eq!(
            kind.transition(),
            LifecycleTransition::KeepInFlight,
            "{status} {body}"
        );
    }
    for status in [500, 503] {
        let kind = classify_apply_response(&SkillResponse {
            status,
            body: json!({}),
        });
        assert_eq!(kind.transition(), LifecycleTransition::Release, "{status}");
    }
}

#[test]
fn section_6_1_a_200_without_applied_true_or_a_gateway_error_stays_in_flight_and_is_not_applied_again()
 {
    for answer in [
        response(200, json!({})),
        response(502, json!({})),
        response(504, json!({})),
    ] {
        let approval = confirmation("c-1", "node-1");
        let world = World::new(&[&approval]);
        world.skill.script(answer);
        let first = execute(&world, &request_for(&approval));
        assert_eq!(first.outcome, Outcome::Error);
        assert!(!first.consumed);
        assert_eq!(first.confirmation_state, Some(ConfirmationState::InFlight));
        assert!(first.error.unwrap().message.contains("unknown"));
        let again = execute(&world, &request_for(&approval));
        assert_eq!(phase_of(&again), Phase::InFlight);
        assert_eq!(world.skill.apply_count(), 1, "never applied twice");
    }
}

#[test]
fn section_6_1_server_errors_500_and_503_release_the_confirmation() {
    for status in [500, 503] {
        let approval = confirmation("c-1", "node-1");
        let world = World::new(&[&approval]);
        world.skill.script(response(status, json!({})));
        let result = execute(&world, &request_for(&approval));
        assert_eq!(result.outcome, Outcome::Error);
        assert_eq!(result.confirmation_state, Some(ConfirmationState::Approved));
        assert_eq!(world.store.confirmation("c-1"), approval);
    }
}

#[test]
fn section_10_2_proposed_change_type_selects_the_skill() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let other = FakeSkill::default();
    let executor =
        world.executor_by_type(&[("status_change", &world.skill), ("temperature", &other)]);
    let result = run(executor.execute(&request_for(&approval)));
    assert_eq!(result.outcome, Outcome::Applied);
    assert_eq!(world.skill.apply_count(), 1);
    assert_eq!(other.apply_count(), 0);
}

#[test]
fn section_10_2_a_type_with_no_skill_is_rejected_before_any_apply_and_not_consumed() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let executor = world.executor_by_type(&[("temperature", &world.skill)]);
    let result = run(executor.execute(&request_for(&approval)));
    assert_eq!(phase_of(&result), Phase::NoSkill);
    assert!(!result.consumed);
    assert_eq!(result.confirmation_state, Some(ConfirmationState::Approved));
    assert_eq!(world.skill.apply_count(), 0);
    assert_eq!(world.store.confirmation("c-1"), approval);
}

#[test]
fn a_failed_audit_is_reported_in_the_result_and_the_outcome_stands() {
    struct FailingAudit;
    impl agent_governor::ports::AuditSink for FailingAudit {
        async fn record(&self, _record: &AuditRecord) -> Result<(), PortError> {
            Err(PortError::new("disk full"))
        }
    }
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    let executor = Executor::new(
        world.store.clone(),
        world.skill.clone(),
        world.clock.clone(),
        FailingAudit,
        keys(),
    );
    let result = run(executor.execute(&request_for(&approval)));
    assert_eq!(result.outcome, Outcome::Applied);
    assert!(result.audit_error.unwrap().contains("disk full"));
}

const HOUR: i64 = 60 * 60 * 1000;

// ---- the texts for a human, in the seed's Japanese wording ----

fn japanese(world: &World) -> TestExecutor {
    world.executor().with_options(CheckPolicy {
        language: agent_governor::language::Language::Ja,
        ..CheckPolicy::default()
    })
}

#[test]
fn section_5_2_each_step_tells_the_human_in_the_seeds_words() {
    // "人間への伝え方" of seed 003 5.2, verbatim, each followed by the facts.
    let approval = confirmation("c-1", "node-1");
    let reason_of = |world: &World, request: &ExecutorRequest| {
        let result = run(japanese(world).execute(request));
        result
            .rejection
            .map(|r| r.reason)
            .or(result.reconfirm.map(|r| r.reason))
            .unwrap()
    };
    let world = World::new(&[]);
    assert!(
        reason_of(&world, &request_for(&approval))
            .starts_with("この承認 ID は見つかりませんでした")
    );
    let mut used = approval.clone();
    used.consumed = true;
    let world = World::new(&[&used]);
    assert!(reason_of(&world, &request_for(&used)).starts_with("この承認は既に使用されています"));
    let world = World::new(&[&approval]);
    world.clock.0.set(confirmed_at_ms() + CONFIRMATION_TTL_MS);
    assert!(reason_of(&world, &request_for(&approval)).starts_with("この承認は期限切れです"));
    let world = World::new(&[&approval]);
    let mut elsewhere = request_for(&approval);
    elsewhere.apply_request.node_id = "node-2".into();
    assert!(reason_of(&world, &elsewhere).starts_with("承認された Node と対象が異なります"));
    let mut edited = request_for(&approval);
    edited.apply_request.confirm_status = "archived".into();
    assert!(reason_of(&world, &edited).starts_with("承認された変更内容と一致しません"));
    world.set_status("node-1", "blocked");
    assert!(
        reason_of(&world, &request_for(&approval))
            .starts_with("承認時から状態が変わっています。再承認が必要です")
    );
}

#[test]
fn section_6_3_a_refused_transition_tells_the_human_in_the_seeds_words() {
    // "遷移が拒否されました。以下の候補から再承認してください"
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[&approval]);
    world
        .skill
        .script(response(422, json!({ "valid_transitions": ["review"] })));
    let result = run(japanese(&world).execute(&request_for(&approval)));
    assert_eq!(
        result.reconfirm.unwrap().reason,
        "遷移が拒否されました。以下の候補から再承認してください"
    );
}

#[test]
fn english_is_the_default_language_of_every_reason() {
    let approval = confirmation("c-1", "node-1");
    let world = World::new(&[]);
    let result = execute(&world, &request_for(&approval));
    assert!(
        result
            .rejection
            .unwrap()
            .reason
            .starts_with("This confirmation ID was not found")
    );
}

#[test]
fn every_phase_name_is_its_serialised_form() {
    use agent_governor::executor::check::Phase;
    for phase in [
        Phase::NotFound,
        Phase::SignatureInvalid,
        Phase::AlreadyConsumed,
        Phase::InFlight,
        Phase::NotYetValid,
        Phase::ExpiredTime,
        Phase::Cancelled,
        Phase::Invalidated,
        Phase::NodeMismatch,
        Phase::ChangeMismatch,
        Phase::NoSkill,
    ] {
        let serialised = serde_json::to_value(phase).unwrap();
        assert_eq!(serialised, serde_json::Value::from(phase.as_str()));
    }
}
