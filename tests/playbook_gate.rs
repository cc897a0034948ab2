//! The playbook's acceptance gate: a change is kept only when the held-out score does not regress; rejected
//! batches are recorded and refused again; the token budget retires through the gate; revert is exact; bad
//! evaluations leave everything unchanged.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::playbook::gate::{
    Evaluator, GateDecision, GateError, GatePolicy, GatedPlaybook, HeldOut, estimated_tokens,
};
use agent_governor::playbook::{Bullet, DeltaKind, DeltaOp, Playbook};
use agent_governor::ports::PortError;
use proptest::prelude::*;
use std::cell::Cell;
use support::run;

/// Scores a playbook on `CASES` held-out cases: case i passes when a bullet's content is `good-{i}`; a
/// bullet `bad-{i}` makes case i fail whatever else is there.
struct ScriptedEvaluator {
    calls: Cell<usize>,
    answer: fn(&Playbook) -> Result<Vec<f64>, GateError>,
}

const CASES: usize = 4;

fn scores(playbook: &Playbook) -> Result<Vec<f64>, GateError> {
    let has = |text: String| playbook.bullets.iter().any(|b| b.content == text);
    Ok((0..CASES)
        .map(|i| {
            if has(format!("bad-{i}")) {
                0.0
            } else if has(format!("good-{i}")) {
                1.0
            } else {
                0.5
            }
        })
        .collect())
}

impl ScriptedEvaluator {
    fn new(answer: fn(&Playbook) -> Result<Vec<f64>, GateError>) -> Self {
        Self {
            calls: Cell::new(0),
            answer,
        }
    }
}

impl Evaluator for ScriptedEvaluator {
    async fn evaluate(&self, playbook: &Playbook) -> Result<Vec<f64>, GateError> {
        self.calls.set(self.calls.get() + 1);
        (self.answer)(playbook)
    }
}

fn held_out() -> HeldOut {
    HeldOut { cases: CASES }
}

fn add(op_id: &str, content: &str) -> DeltaOp {
    DeltaOp {
        op_id: op_id.to_owned(),
        kind: DeltaKind::Add {
            section: "lessons".to_owned(),
            content: content.to_owned(),
        },
    }
}

fn gate() -> GatedPlaybook {
    GatedPlaybook::new(Playbook::default(), GatePolicy::default()).unwrap()
}

#[test]
fn a_helpful_batch_is_accepted_and_the_previous_playbook_kept() {
    let mut gate = gate();
    let evaluator = ScriptedEvaluator::new(scores);
    let outcome = run(gate.propose(&[add("r1/0", "good-0")], &held_out(), &evaluator)).unwrap();
    assert_eq!(outcome.decision, GateDecision::Accepted);
    assert_eq!(outcome.baseline, Some(0.5));
    assert_eq!(outcome.candidate, Some(0.625));
    assert_eq!(gate.playbook.bullets.len(), 1);
    assert_eq!(gate.previous.len(), 1);
    assert_eq!(gate.previous[0].version, 0);
    assert!(gate.previous[0].bullets.is_empty());
    assert_eq!(gate.log.last().unwrap().decision, GateDecision::Accepted);
    assert_eq!(evaluator.calls.get(), 2, "the baseline and the candidate");
}

#[test]
fn a_regressing_batch_is_rejected_recorded_and_changes_nothing() {
    let mut gate = gate();
    let evaluator = ScriptedEvaluator::new(scores);
    run(gate.propose(&[add("r1/0", "good-0")], &held_out(), &evaluator)).unwrap();
    let before = gate.playbook.clone();
    let outcome = run(gate.propose(
        &[add("r2/0", "bad-1"), add("r2/1", "neutral lesson")],
        &held_out(),
        &evaluator,
    ))
    .unwrap();
    assert_eq!(outcome.decision, GateDecision::Rejected);
    assert_eq!(outcome.baseline, Some(0.625));
    assert_eq!(outcome.candidate, Some(0.5));
    assert_eq!(gate.playbook, before);
    assert_eq!(gate.rejected, vec![outcome.fingerprint.clone()]);
    let rejected = gate.log.last().unwrap();
    assert_eq!(rejected.decision, GateDecision::Rejected);
    assert_eq!(
        (rejected.baseline, rejected.candidate),
        (Some(0.625), Some(0.5))
    );
    assert_eq!(rejected.ops.len(), 2);
    assert!(
        rejected.reason.contains("fell from 0.625 to 0.5"),
        "{}",
        rejected.reason
    );
    assert_eq!(
        evaluator.calls.get(),
        4,
        "the accepted playbook is scored again with each proposal"
    );
}

#[test]
fn the_baseline_is_measured_with_each_proposal_so_a_changed_evaluator_cannot_hide_a_regression() {
    let mut gate = gate();
    run(gate.propose(
        &[add("a/0", "first")],
        &held_out(),
        &ScriptedEvaluator::new(|_| Ok(vec![0.2; CASES])),
    ))
    .unwrap();
    // Another evaluator: the accepted playbook (one bullet) scores 0.9 under it, the candidate 0.5.
    let other = ScriptedEvaluator::new(|playbook| {
        Ok(vec![
            if playbook.bullets.len() == 1 {
                0.9
            } else {
                0.5
            };
            CASES
        ])
    });
    let outcome = run(gate.propose(&[add("b/0", "second")], &held_out(), &other)).unwrap();
    assert_eq!(outcome.decision, GateDecision::Rejected);
    assert_eq!(
        (outcome.baseline, outcome.candidate),
        (Some(0.9), Some(0.5))
    );
}

#[test]
fn the_same_change_re_worded_only_in_case_punctuation_or_spacing_is_refused_again() {
    let mut gate = gate();
    let evaluator = ScriptedEvaluator::new(|playbook| {
        Ok(vec![
            if playbook.bullets.is_empty() {
                1.0
            } else {
                0.0
            };
            CASES
        ])
    });
    let first = run(gate.propose(
        &[add("r1/0", "Never retry a failed Apply.")],
        &held_out(),
        &evaluator,
    ))
    .unwrap();
    assert_eq!(first.decision, GateDecision::Rejected);
    let reworded = run(gate.propose(
        &[add("r2/0", "  never RETRY a failed apply ")],
        &held_out(),
        &evaluator,
    ))
    .unwrap();
    assert_eq!(reworded.decision, GateDecision::RefusedAgain);
    // An op the curator refuses does not make the batch a new one.
    let padded = vec![
        add("r3/0", "never retry a failed apply"),
        DeltaOp {
            op_id: "r3/1".to_owned(),
            kind: DeltaKind::Remove {
                bullet_id: "b-9999".to_owned(),
            },
        },
    ];
    assert_eq!(
        run(gate.propose(&padded, &held_out(), &evaluator))
            .unwrap()
            .decision,
        GateDecision::RefusedAgain
    );
    assert_eq!(evaluator.calls.get(), 2);
}

#[test]
fn a_forged_state_is_refused() {
    use agent_governor::input::Validate;
    let mut forged = gate();
    forged.policy.tolerance = 5.0;
    assert_eq!(forged.validate().unwrap_err().path, "policy.tolerance");
    let mut forged = gate();
    forged.rejected = vec!["not a fingerprint".to_owned()];
    assert_eq!(forged.validate().unwrap_err().path, "rejected[0]");
    let mut forged = gate();
    forged.next_sequence = (1 << 53) + 1;
    assert_eq!(forged.validate().unwrap_err().path, "nextSequence");
    let mut forged = gate();
    run(forged.propose(
        &[add("r1/0", "good-0")],
        &held_out(),
        &ScriptedEvaluator::new(scores),
    ))
    .unwrap();
    forged.previous[0].audit_length = 99;
    assert_eq!(forged.validate().unwrap_err().path, "previous[0]");
}

#[test]
fn the_same_batch_under_new_op_ids_is_refused_without_evaluation() {
    let mut gate = gate();
    let evaluator = ScriptedEvaluator::new(scores);
    let first = run(gate.propose(&[add("r1/0", "bad-0")], &held_out(), &evaluator)).unwrap();
    assert_eq!(first.decision, GateDecision::Rejected);
    let calls = evaluator.calls.get();
    let again = run(gate.propose(&[add("r9/0", "bad-0")], &held_out(), &evaluator)).unwrap();
    assert_eq!(again.decision, GateDecision::RefusedAgain);
    assert_eq!(again.fingerprint, first.fingerprint);
    assert_eq!(evaluator.calls.get(), calls);
    assert_eq!(
        gate.log.last().unwrap().decision,
        GateDecision::RefusedAgain
    );
    // A changed batch is evaluated.
    let changed = run(gate.propose(&[add("r9/0", "good-0")], &held_out(), &evaluator)).unwrap();
    assert_eq!(changed.decision, GateDecision::Accepted);
}

#[test]
fn strict_mode_rejects_an_equal_score_and_tolerance_admits_a_small_drop() {
    let strict = GatePolicy {
        strict: true,
        ..GatePolicy::default()
    };
    let mut gate = GatedPlaybook::new(Playbook::default(), strict).unwrap();
    let evaluator = ScriptedEvaluator::new(scores);
    let outcome = run(gate.propose(&[add("r1/0", "neutral")], &held_out(), &evaluator)).unwrap();
    assert_eq!(outcome.decision, GateDecision::Rejected);

    let lenient = GatePolicy {
        tolerance: 0.2,
        ..GatePolicy::default()
    };
    let mut gate = GatedPlaybook::new(Playbook::default(), lenient).unwrap();
    let outcome = run(gate.propose(&[add("r1/0", "bad-0")], &held_out(), &evaluator)).unwrap();
    assert_eq!(
        outcome.decision,
        GateDecision::Accepted,
        "0.375 is within 0.2 of 0.5"
    );
    let outcome = run(gate.propose(&[add("r2/0", "bad-1")], &held_out(), &evaluator)).unwrap();
    assert_eq!(
        outcome.decision,
        GateDecision::Accepted,
        "the drop is measured against the accepted 0.375"
    );
}

#[test]
fn the_budget_retires_the_lowest_net_bullets_through_the_gate() {
    let bullet = |id: &str, content: &str, helpful: u32, harmful: u32| Bullet {
        id: id.to_owned(),
        section: "lessons".to_owned(),
        content: content.to_owned(),
        helpful,
        harmful,
        neutral: 0,
    };
    let start = Playbook {
        version: 3,
        bullets: vec![
            bullet("b-0001", "good-0", 4, 0),
            bullet("b-0002", "an old lesson nobody found useful", 0, 3),
            bullet("b-0003", "good-1", 2, 0),
        ],
        next_id: 3,
        ..Playbook::default()
    };
    let budget = estimated_tokens(&start.render());
    let policy = GatePolicy {
        max_tokens: budget,
        ..GatePolicy::default()
    };
    let mut gate = GatedPlaybook::new(start, policy).unwrap();
    let evaluator = ScriptedEvaluator::new(scores);
    let outcome = run(gate.propose(&[add("r1/0", "good-2")], &held_out(), &evaluator)).unwrap();
    assert_eq!(outcome.decision, GateDecision::Accepted);
    assert_eq!(outcome.retired, vec!["b-0002".to_owned()]);
    assert!(gate.playbook.bullet("b-0002").is_none());
    assert!(estimated_tokens(&gate.playbook.render()) <= budget);
    assert_eq!(gate.log.last().unwrap().retired, vec!["b-0002".to_owned()]);

    // A lower budget: the judge is given the playbook within it at once, and `retire` makes that permanent
    // without scoring (the judge's playbook does not change).
    gate.policy.max_tokens = 20;
    assert!(estimated_tokens(&gate.prompt()) <= 20);
    let judged = gate.prompt();
    let calls = evaluator.calls.get();
    let retirement = run(gate.retire(&held_out(), &evaluator)).unwrap();
    assert_eq!(retirement.decision, GateDecision::Accepted);
    assert_eq!(evaluator.calls.get(), calls);
    assert_eq!(gate.prompt(), judged);
    assert!(estimated_tokens(&gate.playbook.render()) <= 20);

    // After it, a batch is scored against what the judge was given, retirements included on both sides.
    let outcome = run(gate.propose(&[add("r2/0", "good-3")], &held_out(), &evaluator)).unwrap();
    assert_ne!(outcome.decision, GateDecision::RefusedAgain);
    assert!(estimated_tokens(&gate.prompt()) <= 20);
}

#[test]
fn revert_restores_the_exact_previous_playbook() {
    let mut gate = gate();
    let evaluator = ScriptedEvaluator::new(scores);
    run(gate.propose(&[add("r1/0", "good-0")], &held_out(), &evaluator)).unwrap();
    let first = gate.playbook.clone();
    run(gate.propose(&[add("r2/0", "good-1")], &held_out(), &evaluator)).unwrap();
    assert_ne!(gate.playbook, first);
    let record = gate.revert().unwrap();
    assert_eq!(record.decision, GateDecision::Reverted);
    assert_eq!(gate.playbook, first);
    assert_eq!(gate.log.last().unwrap(), &record);
    gate.revert().unwrap();
    assert_eq!(gate.playbook, Playbook::default());
    assert_eq!(gate.revert(), Err(GateError::NothingToRevert));
}

fn unchanged_after(answer: fn(&Playbook) -> Result<Vec<f64>, GateError>) -> GateError {
    let mut gate = gate();
    run(gate.propose(
        &[add("r1/0", "good-0")],
        &held_out(),
        &ScriptedEvaluator::new(scores),
    ))
    .unwrap();
    let before = gate.clone();
    let error = run(gate.propose(
        &[add("r2/0", "good-1")],
        &held_out(),
        &ScriptedEvaluator::new(answer),
    ))
    .unwrap_err();
    assert_eq!(gate, before, "a failed proposal changes nothing");
    error
}

#[test]
fn malformed_scores_are_typed_errors_and_change_nothing() {
    let error = unchanged_after(|_| Ok(vec![0.5, f64::NAN, 0.5, 0.5]));
    assert_eq!(error.code(), "invalid_scores");
    assert!(error.message().contains("score [1]"), "{}", error.message());
    assert_eq!(
        unchanged_after(|_| Ok(vec![0.5; 3])).code(),
        "invalid_scores"
    );
    assert_eq!(
        unchanged_after(|_| Ok(vec![1.5; CASES])).code(),
        "invalid_scores"
    );
    assert_eq!(
        unchanged_after(|_| Ok(vec![-0.0, -1.0, 0.0, 0.0])).code(),
        "invalid_scores"
    );
    assert_eq!(
        unchanged_after(|_| Ok(vec![f64::INFINITY; CASES])).code(),
        "invalid_scores"
    );
    let failed = unchanged_after(|_| Err(GateError::EvaluationFailed(PortError::new("down"))));
    assert_eq!(failed.code(), "evaluation_failed");
}

#[test]
fn an_oversized_batch_or_an_empty_held_out_set_is_refused_before_anything_runs() {
    let mut gate = gate();
    let evaluator = ScriptedEvaluator::new(scores);
    let ops: Vec<DeltaOp> = (0..65)
        .map(|i| add(&format!("r/{i}"), &format!("lesson {i}")))
        .collect();
    let error = run(gate.propose(&ops, &held_out(), &evaluator)).unwrap_err();
    assert_eq!((error.code(), error.path()), ("invalid_input", "ops"));
    let none = HeldOut { cases: 0 };
    let error = run(gate.propose(&[add("r/0", "x")], &none, &evaluator)).unwrap_err();
    assert_eq!((error.code(), error.path()), ("invalid_input", "cases"));
    assert_eq!(evaluator.calls.get(), 0);
    assert_eq!(gate, self::gate());
}

#[test]
fn a_batch_that_applies_nothing_is_not_evaluated() {
    let mut gate = gate();
    let evaluator = ScriptedEvaluator::new(scores);
    let remove_missing = DeltaOp {
        op_id: "r/0".to_owned(),
        kind: DeltaKind::Remove {
            bullet_id: "b-9999".to_owned(),
        },
    };
    let outcome = run(gate.propose(&[remove_missing], &held_out(), &evaluator)).unwrap();
    assert_eq!(outcome.decision, GateDecision::Unchanged);
    assert_eq!(outcome.report.rejected.len(), 1);
    assert_eq!(evaluator.calls.get(), 0);
}

#[test]
fn policies_out_of_range_are_refused() {
    for policy in [
        GatePolicy {
            tolerance: -0.1,
            ..GatePolicy::default()
        },
        GatePolicy {
            tolerance: f64::NAN,
            ..GatePolicy::default()
        },
        GatePolicy {
            tolerance: 1.5,
            ..GatePolicy::default()
        },
        GatePolicy {
            max_tokens: 0,
            ..GatePolicy::default()
        },
        GatePolicy {
            max_batch: 0,
            ..GatePolicy::default()
        },
        GatePolicy {
            max_batch: 1001,
            ..GatePolicy::default()
        },
    ] {
        let error = GatedPlaybook::new(Playbook::default(), policy).unwrap_err();
        assert!(error.path.starts_with("policy."), "{}", error.path);
    }
}

/// Scores from the bullets' contents: each content `s{k}` adds k to case k % CASES, capped at 1.
fn content_scores(playbook: &Playbook) -> Result<Vec<f64>, GateError> {
    let mut totals = [0.3_f64; CASES];
    for bullet in &playbook.bullets {
        if let Some(k) = bullet
            .content
            .split(' ')
            .next()
            .and_then(|t| t.strip_prefix('s'))
            .and_then(|k| k.parse::<i64>().ok())
        {
            let case = usize::try_from(k.unsigned_abs() % CASES as u64).unwrap();
            totals[case] = (totals[case] + k as f64 / 10.0).clamp(0.0, 1.0);
        }
    }
    Ok(totals.to_vec())
}

proptest! {
    /// With no tolerance, whatever batches come (helpful or harmful), the accepted playbook's held-out score
    /// never falls: every accepted candidate scored at least the accepted one.
    #[test]
    fn the_accepted_score_never_falls(batches in prop::collection::vec(prop::collection::vec(-9_i64..10, 1..4), 1..12)) {
        let mut gate = gate();
        let evaluator = ScriptedEvaluator::new(content_scores);
        let start = content_scores(&Playbook::default()).unwrap().iter().sum::<f64>() / CASES as f64;
        let mut accepted = start;
        for (round, batch) in batches.iter().enumerate() {
            let ops: Vec<DeltaOp> = batch
                .iter()
                .enumerate()
                .map(|(i, k)| add(&format!("r{round}/{i}"), &format!("s{k} #{round}.{i}")))
                .collect();
            // The content carries a suffix so each op is new; the score reads the `s{k}` prefix.
            let outcome = run(gate.propose(&ops, &held_out(), &evaluator)).unwrap();
            let now = content_scores(&gate.playbook).unwrap().iter().sum::<f64>() / CASES as f64;
            prop_assert!(now >= accepted - 1e-12, "{now} < {accepted} after {:?}", outcome.decision);
            accepted = now;
        }
        prop_assert!(accepted >= start - 1e-12);
    }
}

/// The budget by re-rendering after every removal: the reference `within_budget` is measured against.
fn within_budget_by_rendering(playbook: &Playbook, max_tokens: usize) -> (Playbook, Vec<String>) {
    let mut kept = playbook.clone();
    let mut retired = Vec::new();
    while estimated_tokens(&kept.render()) > max_tokens {
        let Some(worst) = kept
            .bullets
            .iter()
            .enumerate()
            .min_by_key(|(index, bullet)| (bullet.net_score(), *index))
            .map(|(index, _)| index)
        else {
            break;
        };
        retired.push(kept.bullets.remove(worst).id);
    }
    (kept, retired)
}

proptest! {
    /// The linear budget computation retires exactly what re-rendering after each removal would.
    #[test]
    fn the_budget_matches_re_rendering(
        bullets in prop::collection::vec((0_usize..4, "[a-zé ]{0,40}", 0_u32..5, 0_u32..5), 0..30),
        max_tokens in 1_usize..400,
    ) {
        let playbook = Playbook {
            version: 1,
            next_id: bullets.len() as u64,
            bullets: bullets
                .iter()
                .enumerate()
                .map(|(i, (section, content, helpful, harmful))| Bullet {
                    id: format!("b-{i:04}"),
                    section: ["lessons", "tools", "セクション", ""][*section].to_owned(),
                    content: content.clone(),
                    helpful: *helpful,
                    harmful: *harmful,
                    neutral: 0,
                })
                .collect(),
            ..Playbook::default()
        };
        let fast = agent_governor::playbook::gate::within_budget(&playbook, max_tokens);
        let reference = within_budget_by_rendering(&playbook, max_tokens);
        prop_assert_eq!(&fast, &reference);
        prop_assert!(estimated_tokens(&fast.0.render()) <= max_tokens);
    }
}

#[test]
fn the_gated_playbook_is_stored_by_compare_and_swap_and_a_forged_state_is_refused() {
    use agent_governor::playbook::storage::{
        load_gated_playbook, save_gated_playbook, save_playbook,
    };
    let store = support::FakeStore::default();
    // None stored: the gate starts from the plain playbook of that name.
    let mut plain = Playbook::default();
    agent_governor::playbook::delta::apply_deltas(&mut plain, &[add("p/0", "an earlier lesson")]);
    assert!(
        run(save_playbook(&store, "support", &plain, None))
            .unwrap()
            .is_some()
    );
    let (mut gate, text) = run(load_gated_playbook(&store, "support")).unwrap();
    assert_eq!((gate.playbook.clone(), text), (plain, None));

    run(gate.propose(
        &[add("r1/0", "good-0")],
        &held_out(),
        &ScriptedEvaluator::new(scores),
    ))
    .unwrap();
    let written = run(save_gated_playbook(&store, "support", &gate, None)).unwrap();
    assert!(written.is_some());
    let (loaded, text) = run(load_gated_playbook(&store, "support")).unwrap();
    assert_eq!((&loaded, &text), (&gate, &written));
    // A writer holding an older text loses.
    assert_eq!(
        run(save_gated_playbook(&store, "support", &loaded, None)).unwrap(),
        None
    );

    let mut forged: serde_json::Value = serde_json::from_str(written.as_deref().unwrap()).unwrap();
    forged["gate"]["policy"]["tolerance"] = serde_json::json!(5);
    store
        .data
        .borrow_mut()
        .insert("gated-playbook/forged".to_owned(), forged.to_string());
    let error = run(load_gated_playbook(&store, "forged")).unwrap_err();
    assert!(
        error.message.contains("policy.tolerance"),
        "{}",
        error.message
    );
}
