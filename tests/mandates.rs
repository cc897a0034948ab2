//! Standing approvals (mandates): a person's signed, bounded permission, verified like a confirmation,
//! covering only changes within its constraints, spending one use per Apply atomically (never twice, never
//! past N), and applying nothing once revoked or expired; a forged or altered mandate is refused.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::executor::human_action::HumanActionKind;
use agent_governor::executor::mandate::signing::canonical_mandate_bytes;
use agent_governor::executor::mandate::{Mandate, MandateOutcome, MandateUse};
use agent_governor::executor::take_action::ActionOutcome;
use agent_governor::executor::tool_call::tool_call_change;
use agent_governor::executor::*;
use agent_governor::timestamp::format_rfc3339;
use futures::future::join_all;
use hmac::{Hmac, Mac};
use proptest::prelude::*;
use serde_json::{Value, json};
use support::*;

const HOUR: i64 = 60 * 60 * 1000;

fn sign(mandate: Mandate) -> Mandate {
    let unsigned = Mandate {
        key_id: None,
        signature: None,
        assertion: None,
        ..mandate
    };
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(SECRET).unwrap();
    mac.update(&canonical_mandate_bytes(&unsigned, KEY_ID));
    Mandate {
        key_id: Some(KEY_ID.into()),
        signature: Some(hex::encode(mac.finalize().into_bytes())),
        ..unsigned
    }
}

/// `mail-agent` may call `send_email` to @example.com with `amount` at most 50, `max_uses` times, for 12 hours.
fn email_mandate(world: &World, max_uses: u32) -> Mandate {
    let now = now(world);
    sign(
        serde_json::from_value(json!({
            "mandate_id": "mandate-0001-email",
            "agents": ["mail-agent"],
            "action": "tool:send_email",
            "constraints": [
                { "field": "/to", "op": "ends_with", "value": "@example.com" },
                { "field": "/amount", "op": "at_most", "value": 50 }
            ],
            "max_uses": max_uses,
            "issued_at": format_rfc3339(now),
            "expires_at": format_rfc3339(now + 12 * HOUR),
            "key_id": null
        }))
        .unwrap(),
    )
}

fn email_use(id: &str, agent: &str, arguments: Value) -> MandateUse {
    let (node_id, proposed_change) = tool_call_change("send_email", &arguments).unwrap();
    MandateUse {
        mandate_id: "mandate-0001-email".into(),
        confirmation_id: id.into(),
        agent_id: agent.into(),
        node_id,
        proposed_change,
        intent: "tell the customer".into(),
        reason: String::new(),
        action_id: Some(format!("call/{id}")),
    }
}

fn confirmed(outcome: MandateOutcome) -> Confirmation {
    match outcome {
        MandateOutcome::Confirmed { confirmation, .. } => *confirmation,
        other => panic!("not confirmed: {other:?}"),
    }
}

fn refused_phase(outcome: &MandateOutcome) -> String {
    match outcome {
        MandateOutcome::Refused { phase, .. } => phase.clone(),
        other => panic!("not refused: {other:?}"),
    }
}

/// `mail-agent`'s call to a@example.com for 1, which the e-mail mandate covers, asked under it as `id`.
fn confirm_covered(world: &World, id: &str) -> MandateOutcome {
    run(world.executor().confirm_by_mandate(&email_use(
        id,
        "mail-agent",
        json!({ "to": "a@example.com", "amount": 1 }),
    )))
}

fn world() -> World {
    let world = World::new(&[]);
    world.set_status("send_email", "");
    world.skill.statusless.set(true);
    world
}

fn uses_left(world: &World) -> u32 {
    let (record, _) = run(world.executor().mandate_record("mandate-0001-email"))
        .unwrap()
        .unwrap();
    record.uses_left()
}

#[test]
fn a_covered_change_runs_unasked_and_each_apply_spends_one_use() {
    let world = world();
    let mandate = email_mandate(&world, 2);
    run(world.executor().save_mandate(&mandate)).unwrap();
    for (index, to) in ["ann@example.com", "bob@example.com"].iter().enumerate() {
        let id = format!("c-{index}");
        let outcome = run(world.executor().confirm_by_mandate(&email_use(
            &id,
            "mail-agent",
            json!({ "to": to, "amount": 50 }),
        )));
        let confirmation = confirmed(outcome);
        assert_eq!(confirmation.ui_action, "mandate");
        assert!(confirmation.signature.is_none());
        let result = run(world.executor().execute(&request_for(&confirmation)));
        assert_eq!(result.outcome, Outcome::Applied, "{result:?}");
        assert_eq!(
            world.skill.applied.borrow()[index]
                .confirmation
                .mandate
                .as_deref(),
            Some(&mandate),
            "the Apply carries the mandate it ran under"
        );
    }
    assert_eq!(uses_left(&world), 0);
    let third = run(world.executor().confirm_by_mandate(&email_use(
        "c-2",
        "mail-agent",
        json!({ "to": "cy@example.com", "amount": 1 }),
    )));
    assert_eq!(refused_phase(&third), "mandate_used_up");
    assert_eq!(world.skill.apply_count(), 2);
}

#[test]
fn a_change_outside_the_mandate_is_not_covered_and_nothing_is_stored() {
    let world = world();
    run(world.executor().save_mandate(&email_mandate(&world, 5))).unwrap();
    let cases = [
        (
            "other-agent",
            json!({ "to": "a@example.com", "amount": 1 }),
            "not for agent",
        ),
        (
            "mail-agent",
            json!({ "to": "a@example.com.evil.test", "amount": 1 }),
            "to is a@example.com.evil.test",
        ),
        (
            "mail-agent",
            json!({ "to": "a@example.com", "amount": 51 }),
            "amount is 51",
        ),
        (
            "mail-agent",
            json!({ "to": "a@example.com", "amount": "1" }),
            "amount is \"1\"",
        ),
        (
            "mail-agent",
            json!({ "to": "a@example.com" }),
            "amount is missing",
        ),
    ];
    for (index, (agent, arguments, why)) in cases.into_iter().enumerate() {
        let id = format!("n-{index}");
        match run(world
            .executor()
            .confirm_by_mandate(&email_use(&id, agent, arguments)))
        {
            MandateOutcome::NotCovered { reason } => assert!(reason.contains(why), "{reason}"),
            other => panic!("covered: {other:?}"),
        }
        assert!(
            !world
                .store
                .data
                .borrow()
                .contains_key(&format!("confirmation/{id}"))
        );
    }
    let mut other_tool = email_use(
        "n-9",
        "mail-agent",
        json!({ "to": "a@example.com", "amount": 1 }),
    );
    other_tool.node_id = "delete_account".into();
    assert!(matches!(
        run(world.executor().confirm_by_mandate(&other_tool)),
        MandateOutcome::NotCovered { .. }
    ));
    assert_eq!(uses_left(&world), 5);
}

#[test]
fn a_revoked_mandate_applies_nothing_even_for_a_change_it_confirmed_before() {
    let world = world();
    run(world.executor().save_mandate(&email_mandate(&world, 5))).unwrap();
    let early = confirmed(confirm_covered(&world, "c-early"));
    let (_, version) = run(world.executor().mandate_record("mandate-0001-email"))
        .unwrap()
        .unwrap();
    let action = signed_action(
        HumanActionKind::RevokeMandate,
        "mandate-0001-email",
        &version,
        "revoke-nonce-000000001",
        now(&world),
    );
    let taken = run(world.executor().take_action(&action, None, None));
    let ActionOutcome::Taken {
        mandate: Some(record),
        ..
    } = taken
    else {
        panic!("not taken: {taken:?}");
    };
    assert_eq!(record.revoked_by.as_deref(), Some(KEY_ID));
    assert_eq!(record.uses_left(), 0);
    // Replayed, or revoked again with a fresh nonce: refused.
    assert!(matches!(
        run(world.executor().take_action(&action, None, None)),
        ActionOutcome::Rejected { .. }
    ));
    let result = run(world.executor().execute(&request_for(&early)));
    assert_eq!(result.outcome, Outcome::Rejected);
    assert_eq!(result.rejection.unwrap().phase, Phase::MandateRevoked);
    let later = confirm_covered(&world, "c-later");
    assert_eq!(refused_phase(&later), "mandate_revoked");
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn an_expired_mandate_applies_nothing() {
    let world = world();
    run(world.executor().save_mandate(&email_mandate(&world, 5))).unwrap();
    let early = confirmed(confirm_covered(&world, "c-early"));
    world.clock.0.set(now(&world) + 12 * HOUR);
    let result = run(world.executor().execute(&request_for(&early)));
    assert_eq!(result.rejection.unwrap().phase, Phase::MandateExpired);
    let later = confirm_covered(&world, "c-later");
    assert_eq!(refused_phase(&later), "mandate_expired");
    assert_eq!(world.skill.apply_count(), 0);
}

#[test]
fn a_forged_or_altered_mandate_is_refused() {
    let world = world();
    let good = email_mandate(&world, 2);
    let altered = [
        Mandate {
            max_uses: 1000,
            ..good.clone()
        },
        Mandate {
            agents: vec!["mail-agent".into(), "any-agent".into()],
            ..good.clone()
        },
        Mandate {
            constraints: vec![],
            ..good.clone()
        },
        Mandate {
            expires_at: format_rfc3339(now(&world) + 48 * HOUR),
            ..good.clone()
        },
        Mandate {
            action: "tool:delete_account".into(),
            ..good.clone()
        },
        Mandate {
            audience: Some("agent-governor:other".into()),
            ..good.clone()
        },
        Mandate {
            signature: None,
            ..good.clone()
        },
        Mandate {
            key_id: Some("someone-else".into()),
            ..good.clone()
        },
    ];
    for mandate in altered {
        let refused = run(world.executor().save_mandate(&mandate)).unwrap_err();
        assert_eq!(refused.code(), "signature_invalid", "{mandate:?}");
    }
    // Made for another guard: signed, but for another audience.
    let elsewhere = sign(Mandate {
        audience: Some("agent-governor:other".into()),
        ..good.clone()
    });
    let StorageError::Refused(rejection) =
        run(world.executor().save_mandate(&elsewhere)).unwrap_err()
    else {
        panic!("not refused");
    };
    assert_eq!(rejection.phase, Phase::WrongAudience);
    // Registered once; the same id again is refused.
    run(world.executor().save_mandate(&good)).unwrap();
    assert_eq!(
        run(world.executor().save_mandate(&good)).unwrap_err(),
        StorageError::AlreadyExists
    );
}

#[test]
fn a_confirmation_under_a_mandate_is_made_only_by_the_executor_and_checked_against_its_record() {
    let world = world();
    let mandate = email_mandate(&world, 1);
    run(world.executor().save_mandate(&mandate)).unwrap();
    let made = confirmed(confirm_covered(&world, "c-1"));
    // No host saves one, and the pure guard check (which counts no uses) refuses it.
    let forged = Confirmation {
        confirmation_id: "c-forged".into(),
        ..made.clone()
    };
    assert!(matches!(
        run(world.executor().save(&forged)),
        Err(StorageError::Malformed(_))
    ));
    let verdict = check_confirmation(
        Some(&made),
        &request_for(&made),
        now(&world),
        &Default::default(),
        &keys(),
        Some(""),
    );
    assert!(matches!(
        verdict,
        CheckVerdict::Rejected {
            phase: Phase::SignatureInvalid,
            ..
        }
    ));
    // A change the mandate does not cover, written into the store with the mandate attached: refused.
    let (node_id, proposed_change) =
        tool_call_change("send_email", &json!({ "to": "x@evil.test", "amount": 1 })).unwrap();
    let outside = Confirmation {
        confirmation_id: "c-outside".into(),
        node_id,
        proposed_change,
        ..made.clone()
    };
    world.store.insert(&outside);
    let result = run(world.executor().execute(&request_for(&outside)));
    assert_eq!(result.rejection.unwrap().phase, Phase::SignatureInvalid);
    // A covered change written into the store by hand (as any host can with a raw save), for any agent: the
    // record reserved no use for it, so it runs nothing, before or after the real one.
    let injected = Confirmation {
        confirmation_id: "c-injected".into(),
        action_id: Some("call/x".into()),
        ..made.clone()
    };
    world.store.insert(&injected);
    let first = run(world.executor().execute(&request_for(&injected)));
    assert_eq!(first.rejection.unwrap().phase, Phase::SignatureInvalid);
    assert_eq!(
        run(world.executor().execute(&request_for(&made))).outcome,
        Outcome::Applied
    );
    let second = run(world.executor().execute(&request_for(&injected)));
    assert_eq!(second.rejection.unwrap().phase, Phase::SignatureInvalid);
    assert_eq!(world.skill.apply_count(), 1);
}

#[test]
fn uses_spent_meanwhile_never_make_a_revocation_stale() {
    let world = world();
    run(world.executor().save_mandate(&email_mandate(&world, 5))).unwrap();
    let (_, version) = run(world.executor().mandate_record("mandate-0001-email"))
        .unwrap()
        .unwrap();
    // The agent uses it after the person read the version and before their signed revocation arrives.
    let used = confirmed(confirm_covered(&world, "c-1"));
    assert_eq!(
        run(world.executor().execute(&request_for(&used))).outcome,
        Outcome::Applied
    );
    let action = signed_action(
        HumanActionKind::RevokeMandate,
        "mandate-0001-email",
        &version,
        "revoke-nonce-000000001",
        now(&world),
    );
    let taken = run(world.executor().take_action(&action, None, None));
    assert!(matches!(taken, ActionOutcome::Taken { .. }), "{taken:?}");
}

/// One step of a scenario over one mandate.
#[derive(Debug, Clone)]
enum Step {
    /// An agent proposes a call (agent index, recipient domain index, amount): confirmed under the mandate
    /// when it covers it, applied later.
    Propose {
        agent: usize,
        domain: usize,
        amount: i64,
    },
    /// Every confirmation made so far is applied, each `times` times, all at once (racing Executors).
    ApplyAll { times: usize },
    /// The next Apply fails and changes nothing (a 500): its confirmation may be applied again later.
    FailNext,
    /// A person revokes the mandate.
    Revoke,
    /// Time passes (hours).
    Wait(i64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..3usize, 0..3usize, -10..80i64)
            .prop_map(|(agent, domain, amount)| Step::Propose { agent, domain, amount }),
        3 => (1..3usize).prop_map(|times| Step::ApplyAll { times }),
        2 => Just(Step::FailNext),
        1 => Just(Step::Revoke),
        1 => (1..8i64).prop_map(Step::Wait),
    ]
}

const AGENTS: [&str; 3] = ["mail-agent", "other-agent", "mail-agent "];
const DOMAINS: [&str; 3] = ["@example.com", "@example.com.evil.test", "@EXAMPLE.com"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn uses_never_exceed_n_and_nothing_outside_runs(
        max_uses in 1..6u32,
        steps in proptest::collection::vec(step(), 1..24),
        store_yields in proptest::collection::vec(0..3u32, 0..64),
    ) {
        let world = world();
        let mandate = email_mandate(&world, max_uses);
        let expires = now(&world) + 12 * HOUR;
        run(world.executor().save_mandate(&mandate)).unwrap();
        *world.store.yields.0.borrow_mut() = store_yields.into();
        let mut revoked_at = None;
        let mut nonce = 0;
        let mut confirmed_so_far = Vec::new();
        for (index, step) in steps.iter().enumerate() {
            match step {
                Step::Propose { agent, domain, amount } => {
                    // Three agents' executors ask at once for three calls with the same parameters.
                    let covered = *agent == 0 && *domain == 0 && *amount <= 50;
                    let live = revoked_at.is_none() && now(&world) < expires;
                    let left_before = uses_left(&world);
                    let uses: Vec<MandateUse> = (0..3)
                        .map(|k| email_use(&format!("c-{index}-{k}"), AGENTS[*agent], json!({ "to": format!("p{index}{}", DOMAINS[*domain]), "amount": amount })))
                        .collect();
                    let executors: Vec<_> = uses.iter().map(|_| world.executor()).collect();
                    let outcomes = run(join_all(executors.iter().zip(&uses).map(|(executor, request)| executor.confirm_by_mandate(request))));
                    let mut made = 0;
                    for outcome in outcomes {
                        if let MandateOutcome::Confirmed { confirmation, .. } = outcome {
                            prop_assert!(covered && live, "confirmed outside the mandate: {step:?}");
                            confirmed_so_far.push(request_for(&confirmation));
                            made += 1;
                        }
                    }
                    prop_assert!(made <= left_before, "{} approvals with {} uses left", made, left_before);
                    if covered && live {
                        prop_assert_eq!(made, left_before.min(3), "a covered change refused: {:?}", step);
                    }
                }
                Step::ApplyAll { times } => {
                    let requests: Vec<&ExecutorRequest> =
                        confirmed_so_far.iter().flat_map(|request| std::iter::repeat_n(request, *times)).collect();
                    let executors: Vec<_> = requests.iter().map(|_| world.executor()).collect();
                    run(join_all(executors.iter().zip(&requests).map(|(executor, request)| executor.execute(request))));
                }
                Step::Revoke => {
                    nonce += 1;
                    let (_, version) = run(world.executor().mandate_record("mandate-0001-email")).unwrap().unwrap();
                    let action = signed_action(
                        HumanActionKind::RevokeMandate,
                        "mandate-0001-email",
                        &version,
                        &format!("revoke-nonce-{nonce:012}"),
                        now(&world),
                    );
                    if let ActionOutcome::Taken { .. } = run(world.executor().take_action(&action, None, None)) {
                        revoked_at.get_or_insert(world.skill.apply_count());
                    }
                }
                Step::FailNext => world.skill.script(response(500, json!({ "error": "down" }))),
                Step::Wait(hours) => world.clock.0.set(now(&world) + hours * HOUR),
            }
        }
        let answers = world.skill.answers.borrow().clone();
        let applied: Vec<ApplyRequest> = world.skill.applied.borrow().iter().zip(&answers)
            .filter(|(_, (_, status))| *status == Some(200)).map(|(request, _)| request.clone()).collect();
        prop_assert!(applied.len() <= max_uses as usize, "{} applies for {} uses", applied.len(), max_uses);
        if let Some(count) = revoked_at {
            prop_assert_eq!(world.skill.apply_count(), count, "an Apply after the revocation");
        }
        let (record, _) = run(world.executor().mandate_record("mandate-0001-email")).unwrap().unwrap();
        prop_assert!(record.used_by.len() <= max_uses as usize);
        let mut ids = record.used_by.clone();
        ids.sort();
        ids.dedup();
        prop_assert_eq!(ids.len(), record.used_by.len(), "a use counted twice");
        for request in &applied {
            let arguments: Value = serde_json::from_str(&request.confirmation.proposed_change.to).unwrap();
            prop_assert!(arguments["to"].as_str().unwrap().ends_with("@example.com"));
            prop_assert!(arguments["amount"].as_i64().unwrap() <= 50);
            prop_assert!(record.used_by.contains(&request.confirmation.confirmation_id));
        }
    }
}
