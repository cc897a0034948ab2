//! Property: over random interleavings of racing Executors, random skill answers and random store
//! failures, a confirmation is consumed only if exactly one Apply succeeded for it, and once an Apply
//! succeeded (or its fate is unknown) no further Apply is ever made with that confirmation.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::executor::*;
use agent_governor::ports::PortError;
use futures::future::join_all;
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;
use support::*;

#[derive(Debug, Clone)]
enum Answer {
    Ok200,
    Refused422,
    Failed500,
    Unexpected202,
    Threw,
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        4 => Just(Answer::Ok200),
        1 => Just(Answer::Refused422),
        1 => Just(Answer::Failed500),
        1 => Just(Answer::Unexpected202),
        1 => Just(Answer::Threw),
    ]
}

fn scripted(answer: &Answer) -> Result<SkillResponse, PortError> {
    match answer {
        Answer::Ok200 => response(200, json!({ "applied": true })),
        Answer::Refused422 => response(422, json!({ "valid_transitions": ["review"] })),
        Answer::Failed500 => response(500, json!({ "message": "down" })),
        Answer::Unexpected202 => response(202, json!({})),
        Answer::Threw => Err(PortError::new("network")),
    }
}

#[derive(Debug, Clone)]
struct Scenario {
    confirmations: usize,
    /// (confirmation index, whether the request is tampered with) per racing execution.
    executions: Vec<(usize, bool)>,
    answers: Vec<Answer>,
    store_yields: Vec<u32>,
    skill_yields: Vec<u32>,
    failing_swaps: Vec<usize>,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (1_usize..=3).prop_flat_map(|confirmations| {
        (
            Just(confirmations),
            prop::collection::vec((0..confirmations, prop::bool::weighted(0.15)), 1..=6),
            prop::collection::vec(answer(), 0..=6),
            prop::collection::vec(0_u32..4, 0..=24),
            prop::collection::vec(0_u32..4, 0..=12),
            prop::collection::vec(0_usize..12, 0..=2),
        )
            .prop_map(
                |(
                    confirmations,
                    executions,
                    answers,
                    store_yields,
                    skill_yields,
                    failing_swaps,
                )| Scenario {
                    confirmations,
                    executions,
                    answers,
                    store_yields,
                    skill_yields,
                    failing_swaps,
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn consumed_implies_applied_exactly_once(scenario in scenario()) {
        let approvals: Vec<Confirmation> =
            (0..scenario.confirmations).map(|i| confirmation(&format!("c-{i}"), &format!("node-{i}"))).collect();
        let world = World::new(&approvals.iter().collect::<Vec<_>>());
        *world.store.yields.0.borrow_mut() = scenario.store_yields.clone().into();
        *world.skill.yields.0.borrow_mut() = scenario.skill_yields.clone().into();
        *world.store.failing_swaps.borrow_mut() = scenario.failing_swaps.clone();
        for answer in &scenario.answers {
            world.skill.script(scripted(answer));
        }
        let requests: Vec<ExecutorRequest> = scenario.executions.iter().map(|(index, tampered)| {
            let mut request = request_for(&approvals[*index]);
            if *tampered {
                request.apply_request.confirm_status = "archived".into();
            }
            request
        }).collect();
        let executors: Vec<_> = requests.iter().map(|_| world.executor()).collect();
        let results = run(join_all(executors.iter().zip(&requests).map(|(executor, request)| executor.execute(request))));

        let answers = world.skill.answers.borrow().clone();
        for approval in &approvals {
            let id = approval.confirmation_id.as_str();
            let mine: Vec<Option<u16>> = answers.iter().filter(|(c, _)| c == id).map(|(_, status)| *status).collect();
            // once an Apply succeeded or its fate is unknown, no other Apply follows
            if let Some(first_final) = mine.iter().position(|s| !matches!(s, Some(422) | Some(500))) {
                prop_assert_eq!(first_final, mine.len() - 1, "Apply after a final answer for {}: {:?}", id, mine);
            }
            let successes = mine.iter().filter(|s| **s == Some(200)).count();
            let stored = world.store.confirmation(id);
            if stored.consumed {
                prop_assert_eq!(successes, 1, "consumed without exactly one successful Apply: {:?}", mine);
            }
            prop_assert!(successes <= 1);
            let reported_applied = results.iter().filter(|r| r.confirmation_id == id && r.outcome == Outcome::Applied).count();
            prop_assert_eq!(reported_applied, usize::from(stored.consumed));
        }
        // tampered requests never reach the skill
        let tampered: BTreeMap<_, _> = world.skill.applied.borrow().iter().map(|r| (r.confirmation.confirmation_id.clone(), r.confirm_status.clone())).collect();
        prop_assert!(tampered.values().all(|status| status == "done"));
        for result in &results {
            prop_assert_eq!(result.consumed, result.outcome == Outcome::Applied);
        }
    }

    /// One action, one run: however many confirmations approve one action, raced by several Executors
    /// with store yields and failing swaps, no Apply follows one that succeeded or whose fate is unknown,
    /// and at most one succeeds.
    #[test]
    fn an_action_approved_many_times_runs_at_most_once(scenario in scenario()) {
        let approvals: Vec<Confirmation> = (0..scenario.confirmations.max(2))
            .map(|i| confirmation_of_action(&format!("c-{i}"), "node-1", "tool-call/send/call-1"))
            .collect();
        let world = World::new(&approvals.iter().collect::<Vec<_>>());
        *world.store.yields.0.borrow_mut() = scenario.store_yields.clone().into();
        *world.skill.yields.0.borrow_mut() = scenario.skill_yields.clone().into();
        *world.store.failing_swaps.borrow_mut() = scenario.failing_swaps.clone();
        for answer in &scenario.answers {
            world.skill.script(scripted(answer));
        }
        let mut requests: Vec<ExecutorRequest> = scenario.executions.iter()
            .map(|(index, _)| request_for(&approvals[index % approvals.len()]))
            .collect();
        requests.extend(approvals.iter().map(request_for));
        let executors: Vec<_> = requests.iter().map(|_| world.executor()).collect();
        let results = run(join_all(executors.iter().zip(&requests).map(|(executor, request)| executor.execute(request))));

        let answers: Vec<Option<u16>> = world.skill.answers.borrow().iter().map(|(_, status)| *status).collect();
        if let Some(first_final) = answers.iter().position(|s| !matches!(s, Some(422) | Some(500))) {
            prop_assert_eq!(first_final, answers.len() - 1, "an Apply of the action after a final answer: {:?}", answers);
        }
        prop_assert!(answers.iter().filter(|s| **s == Some(200)).count() <= 1);
        let applied = results.iter().filter(|r| r.outcome == Outcome::Applied).count();
        prop_assert!(applied <= 1, "{applied} applied results for one action");
        for result in &results {
            if let Some(rejection) = &result.rejection {
                if matches!(rejection.phase, Phase::ActionAlreadyRan | Phase::ActionInFlight) {
                    let first = result.first_run.as_ref().unwrap();
                    prop_assert_eq!(first.action_id.as_str(), "tool-call/send/call-1");
                    prop_assert_ne!(first.state, ActionRunState::Released);
                }
            }
        }
    }
}
