//! Seed 004 (Reflector, ACE) acceptance criteria as named tests, numbered like the seed; the playbook that
//! learns (counters, curator ops one by one, dedup, harm pruning, budget, storage).
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::input::{Validate, parse_valid_json_str};
use agent_governor::llm::{QueryOptions, QueryReply};
use agent_governor::playbook::delta::apply_deltas;
use agent_governor::playbook::storage::{load_playbook, save_playbook};
use agent_governor::playbook::*;
use agent_governor::ports::{Llm, NoPromptFiles, PortError, PromptLoader};
use agent_governor::reflector::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::VecDeque;
use support::{FakeStore, run};

#[derive(Default)]
struct ScriptedModel {
    answers: RefCell<VecDeque<Result<Value, PortError>>>,
    prompts: RefCell<Vec<String>>,
}

impl ScriptedModel {
    fn answering(answers: Vec<Result<Value, PortError>>) -> Self {
        Self {
            answers: RefCell::new(answers.into()),
            ..Self::default()
        }
    }
}

impl Llm for ScriptedModel {
    async fn query(&self, prompt: &str, _options: &QueryOptions) -> Result<QueryReply, PortError> {
        self.prompts.borrow_mut().push(prompt.to_owned());
        let answer = self
            .answers
            .borrow_mut()
            .pop_front()
            .unwrap_or_else(|| Err(PortError::new("no more answers")))?;
        Ok(QueryReply {
            structured_output: Some(answer),
            ..QueryReply::default()
        })
    }
}

fn insight(key: &str) -> Value {
    json!({ "reasoning": "r", "error_identification": "e", "root_cause_analysis": "c", "correct_approach": "a", "key_insight": key })
}

fn tag(id: &str, tag: &str) -> Value {
    json!({ "bullet_id": id, "tag": tag, "reason": "because" })
}

fn trajectory(used: &[&str]) -> Trajectory {
    Trajectory {
        query: "sum the invoices of May".into(),
        generated_result: "42".into(),
        reasoning_steps: vec!["listed invoices (page 1 only)".into(), "summed".into()],
        used_bullet_ids: used.iter().map(|u| (*u).to_owned()).collect(),
    }
}

fn seeded_playbook() -> Playbook {
    let mut playbook = Playbook::default();
    let ops = [
        DeltaOp {
            op_id: "seed/0".into(),
            kind: DeltaKind::Add {
                section: "apis".into(),
                content: "Always paginate list endpoints.".into(),
            },
        },
        DeltaOp {
            op_id: "seed/1".into(),
            kind: DeltaKind::Add {
                section: "apis".into(),
                content: "Trust the first page.".into(),
            },
        },
    ];
    apply_deltas(&mut playbook, &ops);
    playbook
}

fn reflector(
    model: ScriptedModel,
    store: FakeStore,
    options: ReflectorOptions,
) -> Reflector<ScriptedModel, NoPromptFiles, FakeStore> {
    Reflector::new(model, PromptBuilder::new(NoPromptFiles, ""), store, options)
}

fn store_with(playbook: &Playbook) -> FakeStore {
    let store = FakeStore::default();
    assert!(
        run(save_playbook(&store, "default", playbook, None))
            .unwrap()
            .is_some()
    );
    store
}

// ---- requirements 1-3: the models ----

#[test]
fn req_1_1_insight_holds_the_five_fields() {
    let parsed: Insight = serde_json::from_value(insight("paginate")).unwrap();
    assert_eq!(parsed.key_insight, "paginate");
    let missing = parse_valid_json_str::<Insight>(r#"{"reasoning": "r"}"#).unwrap_err();
    assert_eq!(missing.path, "error_identification");
}

#[test]
fn req_1_2_insight_validation_is_strict() {
    let error = parse_valid_json_str::<Insight>(&insight("  ").to_string()).unwrap_err();
    assert_eq!(error.path, "key_insight");
    let mut extra = insight("x");
    extra["mood"] = json!("happy");
    assert!(
        parse_valid_json_str::<Insight>(&extra.to_string()).is_err(),
        "unknown fields are refused"
    );
}

#[test]
fn req_2_1_bullet_evaluation_holds_id_tag_and_reason() {
    let evaluation: BulletEvaluation = serde_json::from_value(tag("b-0001", "harmful")).unwrap();
    assert_eq!(evaluation.tag, BulletTag::Harmful);
    assert!(
        serde_json::from_value::<BulletEvaluation>(tag("b-0001", "useful")).is_err(),
        "only helpful|harmful|neutral"
    );
}

#[test]
fn req_3_1_reflection_result_holds_insights_evaluations_and_the_trajectory() {
    let result = ReflectionResult {
        insights: vec![serde_json::from_value(insight("x")).unwrap()],
        bullet_evaluations: vec![serde_json::from_value(tag("b-0001", "helpful")).unwrap()],
        trajectory: trajectory(&["b-0001"]),
        error: None,
        dropped_evaluations: vec![],
        unknown_bullets: Vec::new(),
        rounds: 1,
        untagged_bullets: vec![],
        refinement_error: None,
        repairs: vec![],
    };
    assert!(result.validate().is_ok());
    let text = serde_json::to_string(&result).unwrap();
    assert_eq!(
        parse_valid_json_str::<ReflectionResult>(&text).unwrap(),
        result
    );
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[a-zあ-んア-ン一-龥 😀\\n\"\\\\]{0,40}"]
}

fn any_insight() -> impl Strategy<Value = Insight> {
    (text(), text(), text(), text(), "[^\\s]{1}.{0,30}").prop_map(
        |(reasoning, error_identification, root_cause_analysis, correct_approach, key_insight)| {
            Insight {
                reasoning,
                error_identification,
                root_cause_analysis,
                correct_approach,
                key_insight,
            }
        },
    )
}

fn any_evaluation() -> impl Strategy<Value = BulletEvaluation> {
    (
        "[a-z0-9-]{1,12}",
        prop_oneof![
            Just(BulletTag::Helpful),
            Just(BulletTag::Harmful),
            Just(BulletTag::Neutral)
        ],
        text(),
    )
        .prop_map(|(bullet_id, tag, reason)| BulletEvaluation {
            bullet_id,
            tag,
            reason,
        })
}

proptest! {
    #[test]
    fn req_1_4_insight_json_round_trip_restores_an_equal_object(value in any_insight()) {
        let text = serde_json::to_string(&value).unwrap();
        prop_assert_eq!(serde_json::from_str::<Insight>(&text).unwrap(), value);
    }

    #[test]
    fn req_2_3_bullet_evaluation_json_round_trip_restores_an_equal_object(value in any_evaluation()) {
        let text = serde_json::to_string(&value).unwrap();
        prop_assert_eq!(serde_json::from_str::<BulletEvaluation>(&text).unwrap(), value);
    }

    #[test]
    fn req_3_3_reflection_result_json_round_trip_restores_an_equal_object(
        insights in prop::collection::vec(any_insight(), 0..4),
        evaluations in prop::collection::vec(any_evaluation(), 0..4),
        query in "[^\\s]{1}.{0,20}", result in text(), steps in prop::collection::vec(text(), 0..3),
        error in prop::option::of(text()), rounds in 0_u32..6,
    ) {
        let used = evaluations.iter().map(|e| e.bullet_id.clone()).collect();
        let value = ReflectionResult {
            insights, bullet_evaluations: evaluations,
            trajectory: Trajectory { query, generated_result: result, reasoning_steps: steps, used_bullet_ids: used },
            error, dropped_evaluations: vec![], unknown_bullets: vec![], rounds, untagged_bullets: vec![], refinement_error: None,
        repairs: vec![],
        };
        let text = serde_json::to_string(&value).unwrap();
        prop_assert_eq!(serde_json::from_str::<ReflectionResult>(&text).unwrap(), value);
    }

    #[test]
    fn playbook_json_round_trip_restores_an_equal_playbook(contents in prop::collection::vec("[^\\s]{1}.{0,30}", 0..6)) {
        let mut playbook = Playbook::default();
        let ops: Vec<DeltaOp> = contents.iter().enumerate()
            .map(|(i, c)| DeltaOp { op_id: format!("p/{i}"), kind: DeltaKind::Add { section: "s".into(), content: c.clone() } })
            .collect();
        apply_deltas(&mut playbook, &ops);
        let text = serde_json::to_string(&playbook).unwrap();
        prop_assert_eq!(serde_json::from_str::<Playbook>(&text).unwrap(), playbook);
    }
}

// ---- requirement 4: prompt templates per dataset ----

struct HostTemplates;

impl PromptLoader for HostTemplates {
    async fn load(&self, path: &str) -> Result<Option<String>, PortError> {
        Ok((path == "/repo/prompts/reflector/finance.md")
            .then(|| "FINANCE {{ query }} | {{ ground_truth }} | {{ used_bullets }}".to_owned()))
    }
}

#[test]
fn req_4_1_and_4_4_the_dataset_template_is_read_from_prompts_reflector() {
    let builder = PromptBuilder::new(HostTemplates, "/repo/prompts");
    let built = run(builder.build(
        "finance",
        &trajectory(&[]),
        "43",
        "1 failed",
        "[b-1] x",
        &[],
    ))
    .unwrap();
    assert_eq!(built.template, "/repo/prompts/reflector/finance.md");
    assert_eq!(built.text, "FINANCE sum the invoices of May | 43 | [b-1] x");
    let embedded = run(PromptBuilder::new(NoPromptFiles, "").build(
        "appworld",
        &trajectory(&[]),
        "43",
        "",
        "",
        &[],
    ))
    .unwrap();
    assert_eq!(
        (embedded.template.as_str(), embedded.used_default),
        ("prompts/reflector/appworld.md", false)
    );
}

#[test]
fn req_4_2_trajectory_ground_truth_report_and_bullets_are_rendered() {
    let built = run(PromptBuilder::new(NoPromptFiles, "").build(
        "default",
        &trajectory(&["b-0001"]),
        "43",
        "test_total: 1 failed",
        "[b-0001] helpful=0 harmful=0 :: Always paginate",
        &[],
    ))
    .unwrap();
    for expected in [
        "sum the invoices of May",
        "1. listed invoices (page 1 only)",
        "42",
        "43",
        "test_total: 1 failed",
        "[b-0001] helpful=0 harmful=0 :: Always paginate",
        "(first round)",
    ] {
        assert!(built.text.contains(expected), "{expected} missing");
    }
}

#[test]
fn req_4_3_a_dataset_without_a_template_uses_the_default_one() {
    let built = run(PromptBuilder::new(HostTemplates, "/repo/prompts").build(
        "unknown-set",
        &trajectory(&[]),
        "",
        "",
        "",
        &[],
    ))
    .unwrap();
    assert_eq!(
        (built.template.as_str(), built.used_default),
        ("prompts/reflector/default.md", true)
    );
}

// ---- requirements 5-8: analysis, tags, flow, refinement ----

#[test]
fn req_5_1_and_6_1_one_call_returns_insights_and_the_tags_of_the_used_bullets() {
    let playbook = seeded_playbook();
    let model = ScriptedModel::answering(vec![Ok(json!({
        "insights": [insight("Paginate every list endpoint before summing.")],
        "bullet_evaluations": [tag("b-0001", "helpful"), tag("b-0002", "harmful")],
    }))]);
    let reflector = reflector(model, store_with(&playbook), ReflectorOptions::default());
    let result = run(reflector.reflect(
        &trajectory(&["b-0001", "b-0002"]),
        "43",
        "1 failed",
        "default",
    ));
    assert_eq!(result.error, None);
    assert_eq!(result.insights.len(), 1);
    assert_eq!(result.bullet_evaluations.len(), 2);
    assert_eq!(result.rounds, 1);
}

#[test]
fn req_5_2_the_answer_is_structured_as_insights() {
    let model = ScriptedModel::answering(vec![Ok(
        json!({ "insights": [insight("a"), insight("b")], "bullet_evaluations": [] }),
    )]);
    let result = run(
        reflector(model, FakeStore::default(), ReflectorOptions::default()).reflect(
            &trajectory(&[]),
            "",
            "",
            "default",
        ),
    );
    assert_eq!(
        result
            .insights
            .iter()
            .map(|i| i.key_insight.as_str())
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
}

#[test]
fn req_5_3_an_llm_failure_gives_a_result_with_the_error_and_no_insights() {
    for answer in [
        Err(PortError::new("rate limited")),
        Ok(json!({ "insights": "lots" })),
    ] {
        let model = ScriptedModel::answering(vec![answer.clone(), answer]);
        let result = run(
            reflector(model, FakeStore::default(), ReflectorOptions::default()).reflect(
                &trajectory(&[]),
                "",
                "",
                "default",
            ),
        );
        assert!(result.error.is_some());
        assert!(result.insights.is_empty() && result.bullet_evaluations.is_empty());
        assert_eq!(result.trajectory, trajectory(&[]));
    }
}

#[test]
fn req_6_2_tags_for_bullets_the_trajectory_did_not_use_are_dropped_and_reported() {
    let model = ScriptedModel::answering(vec![Ok(
        json!({ "insights": [], "bullet_evaluations": [tag("b-0001", "helpful"), tag("b-0009", "harmful"), tag("b-0001", "harmful")] }),
    )]);
    let result = run(reflector(
        model,
        store_with(&seeded_playbook()),
        ReflectorOptions::default(),
    )
    .reflect(&trajectory(&["b-0001"]), "", "", "default"));
    assert_eq!(
        result
            .bullet_evaluations
            .iter()
            .map(|e| (e.bullet_id.as_str(), e.tag))
            .collect::<Vec<_>>(),
        [("b-0001", BulletTag::Helpful)]
    );
    assert_eq!(result.dropped_evaluations.len(), 2);
}

#[test]
fn req_6_1_a_used_bullet_left_untagged_is_asked_for_once_more() {
    // "各BulletについてLLMを使用してhelpful/harmful/neutralの評価を行う"
    let model = ScriptedModel::answering(vec![
        Ok(json!({ "insights": [insight("x")], "bullet_evaluations": [tag("b-0001", "helpful")] })),
        Ok(json!({ "insights": [], "bullet_evaluations": [tag("b-0002", "harmful")] })),
    ]);
    let result = run(reflector(
        model,
        store_with(&seeded_playbook()),
        ReflectorOptions::default(),
    )
    .reflect(&trajectory(&["b-0001", "b-0002"]), "", "", "default"));
    let tags: Vec<_> = result
        .bullet_evaluations
        .iter()
        .map(|e| (e.bullet_id.as_str(), e.tag))
        .collect();
    assert_eq!(
        tags,
        [
            ("b-0001", BulletTag::Helpful),
            ("b-0002", BulletTag::Harmful)
        ]
    );
    assert!(result.untagged_bullets.is_empty());
    assert_eq!(
        result.insights[0].key_insight, "x",
        "the first answer's insights stand"
    );
}

#[test]
fn req_6_1_a_used_bullet_still_untagged_after_the_second_ask_is_reported() {
    let model = ScriptedModel::answering(vec![
        Ok(json!({ "insights": [insight("x")], "bullet_evaluations": [] })),
        Ok(json!({ "insights": [], "bullet_evaluations": [tag("b-0009", "helpful")] })),
    ]);
    let result = run(reflector(
        model,
        store_with(&seeded_playbook()),
        ReflectorOptions::default(),
    )
    .reflect(&trajectory(&["b-0001", "b-0404"]), "", "", "default"));
    assert_eq!(
        result.untagged_bullets,
        ["b-0001"],
        "b-0404 is not in the playbook"
    );
    assert!(result.error.is_none());
}

#[test]
fn req_8_a_failed_later_round_keeps_the_last_good_rounds_insights_and_reports_it() {
    // "前回のInsightsを次回の入力に含める": a failure in round 2 must not throw away round 1.
    let model = ScriptedModel::answering(vec![
        Ok(json!({ "insights": [insight("first lesson")], "bullet_evaluations": [] })),
        Err(PortError::new("rate limited")),
        Err(PortError::new("rate limited")),
    ]);
    let options = ReflectorOptions {
        rounds: 3,
        ..ReflectorOptions::default()
    };
    let result = run(reflector(model, FakeStore::default(), options).reflect(
        &trajectory(&[]),
        "",
        "",
        "default",
    ));
    assert!(result.error.is_none());
    assert_eq!(result.insights[0].key_insight, "first lesson");
    assert_eq!(result.rounds, 1);
    assert!(result.refinement_error.unwrap().contains("round 2 failed"));
}

#[test]
fn req_6_3_no_used_bullets_gives_no_evaluations() {
    let model = ScriptedModel::answering(vec![Ok(
        json!({ "insights": [insight("x")], "bullet_evaluations": [tag("b-0001", "helpful")] }),
    )]);
    let result = run(reflector(
        model,
        store_with(&seeded_playbook()),
        ReflectorOptions::default(),
    )
    .reflect(&trajectory(&[]), "", "", "default"));
    assert!(result.bullet_evaluations.is_empty());
}

#[test]
fn req_7_1_and_7_3_the_flow_builds_asks_parses_tags_and_returns_a_complete_result() {
    let model = ScriptedModel::answering(vec![Ok(
        json!({ "insights": [insight("x")], "bullet_evaluations": [tag("b-0001", "neutral")] }),
    )]);
    let reflector = reflector(
        model,
        store_with(&seeded_playbook()),
        ReflectorOptions::default(),
    );
    let result = run(reflector.reflect(&trajectory(&["b-0001"]), "43", "failed", "appworld"));
    assert!(result.validate().is_ok());
    assert_eq!(result.trajectory.used_bullet_ids, ["b-0001"]);
}

#[test]
fn req_7_2_dependencies_come_through_the_constructor() {
    let store = store_with(&seeded_playbook());
    let model = ScriptedModel::answering(vec![Ok(
        json!({ "insights": [], "bullet_evaluations": [] }),
    )]);
    let reflector = Reflector::new(
        model,
        PromptBuilder::new(HostTemplates, "/repo/prompts"),
        store,
        ReflectorOptions::default(),
    );
    run(reflector.reflect(&trajectory(&["b-0001"]), "", "", "finance"));
    assert!(
        reflector
            .store()
            .data
            .borrow()
            .contains_key("playbook/default")
    );
}

#[test]
fn req_8_1_and_8_2_rounds_feed_the_previous_insights_back_and_return_the_last_round() {
    let model = ScriptedModel::answering(vec![
        Ok(json!({ "insights": [insight("first lesson")], "bullet_evaluations": [] })),
        Ok(json!({ "insights": [insight("refined lesson")], "bullet_evaluations": [] })),
    ]);
    let options = ReflectorOptions {
        rounds: 2,
        ..ReflectorOptions::default()
    };
    let reflector = reflector(model, FakeStore::default(), options);
    let result = run(reflector.reflect(&trajectory(&[]), "", "", "default"));
    assert_eq!(result.rounds, 2);
    assert_eq!(result.insights[0].key_insight, "refined lesson");
}

#[test]
fn req_8_3_one_round_by_default() {
    assert_eq!(ReflectorOptions::default().rounds, 1);
    let model = ScriptedModel::answering(vec![
        Ok(json!({ "insights": [], "bullet_evaluations": [] })),
        Ok(json!({ "insights": [], "bullet_evaluations": [] })),
    ]);
    let result = run(
        reflector(model, FakeStore::default(), ReflectorOptions::default()).reflect(
            &trajectory(&[]),
            "",
            "",
            "default",
        ),
    );
    assert_eq!(result.rounds, 1);
}

#[test]
fn rounds_stop_early_when_a_round_adds_nothing_new() {
    let same = || Ok(json!({ "insights": [insight("Same lesson.")], "bullet_evaluations": [] }));
    let model = ScriptedModel::answering(vec![same(), same(), same()]);
    let options = ReflectorOptions {
        rounds: 3,
        early_stop: true,
        ..ReflectorOptions::default()
    };
    let result = run(reflector(model, FakeStore::default(), options).reflect(
        &trajectory(&[]),
        "",
        "",
        "default",
    ));
    assert_eq!(result.rounds, 2);
}

// ---- the playbook that learns ----

#[test]
fn applying_a_reflection_increments_the_tagged_counters() {
    let mut playbook = seeded_playbook();
    let result = ReflectionResult {
        insights: vec![],
        bullet_evaluations: vec![
            serde_json::from_value(tag("b-0001", "helpful")).unwrap(),
            serde_json::from_value(tag("b-0002", "harmful")).unwrap(),
            serde_json::from_value(tag("b-0404", "helpful")).unwrap(),
        ],
        trajectory: trajectory(&["b-0001", "b-0002", "b-0404"]),
        error: None,
        dropped_evaluations: vec![],
        unknown_bullets: Vec::new(),
        rounds: 1,
        untagged_bullets: vec![],
        refinement_error: None,
        repairs: vec![],
    };
    assert_eq!(playbook.apply_reflection(&result), ["b-0404"]);
    assert_eq!(
        (
            playbook.bullet("b-0001").unwrap().helpful,
            playbook.bullet("b-0002").unwrap().harmful
        ),
        (1, 1)
    );
}

fn op(id: &str, kind: DeltaKind) -> DeltaOp {
    DeltaOp {
        op_id: id.into(),
        kind,
    }
}

#[test]
fn curator_ops_add_update_tag_remove_merge_each_applied() {
    let mut playbook = seeded_playbook();
    let report = apply_deltas(
        &mut playbook,
        &[
            op(
                "o1",
                DeltaKind::Add {
                    section: "apis".into(),
                    content: "Check status codes.".into(),
                },
            ),
            op(
                "o2",
                DeltaKind::Update {
                    bullet_id: "b-0002".into(),
                    content: "Read every page.".into(),
                },
            ),
            op(
                "o3",
                DeltaKind::Tag {
                    bullet_id: "b-0001".into(),
                    tag: BulletTag::Helpful,
                },
            ),
            op(
                "o4",
                DeltaKind::Merge {
                    bullet_ids: vec!["b-0001".into(), "b-0002".into()],
                    content: "Paginate and read every page.".into(),
                },
            ),
            op(
                "o5",
                DeltaKind::Remove {
                    bullet_id: "b-0003".into(),
                },
            ),
        ],
    );
    assert_eq!(report.applied, ["o1", "o2", "o3", "o4", "o5"]);
    assert_eq!(report.added_bullets, ["b-0003"]);
    assert_eq!(playbook.bullets.len(), 1);
    assert_eq!(playbook.bullets[0].content, "Paginate and read every page.");
    assert_eq!(playbook.bullets[0].helpful, 1);
    assert_eq!(
        playbook.audit.iter().filter(|a| a.op_id.is_some()).count(),
        7,
        "2 seed ADDs + 5 ops audited"
    );
}

#[test]
fn curator_bad_ops_are_rejected_with_a_reason_and_good_ones_still_applied() {
    let mut playbook = seeded_playbook();
    let report = apply_deltas(
        &mut playbook,
        &[
            op(
                "bad-1",
                DeltaKind::Update {
                    bullet_id: "b-0404".into(),
                    content: "x".into(),
                },
            ),
            op(
                "bad-2",
                DeltaKind::Add {
                    section: "apis".into(),
                    content: "always PAGINATE list endpoints".into(),
                },
            ),
            op(
                "bad-3",
                DeltaKind::Merge {
                    bullet_ids: vec!["b-0001".into(), "b-0001".into()],
                    content: "x".into(),
                },
            ),
            op(
                "bad-4",
                DeltaKind::Add {
                    section: "apis".into(),
                    content: "   ".into(),
                },
            ),
            op(
                "",
                DeltaKind::Remove {
                    bullet_id: "b-0001".into(),
                },
            ),
            op(
                "good",
                DeltaKind::Tag {
                    bullet_id: "b-0002".into(),
                    tag: BulletTag::Harmful,
                },
            ),
        ],
    );
    assert_eq!(report.applied, ["good"]);
    let reasons: Vec<&str> = report.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(reasons[0], "no bullet `b-0404`");
    assert_eq!(reasons[1], "near-duplicate of `b-0001`");
    assert_eq!(reasons[2], "MERGE needs two or more distinct bullets");
    assert_eq!(reasons[3], "section and content must not be empty");
    assert_eq!(reasons[4], "op_id must not be empty");
}

#[test]
fn curator_ops_are_replay_safe() {
    let mut playbook = seeded_playbook();
    let ops = curate(
        &playbook,
        "reflection-7",
        &[serde_json::from_value(insight("Check status codes.")).unwrap()],
    );
    let first = apply_deltas(&mut playbook, &ops);
    let snapshot = playbook.clone();
    let again = apply_deltas(
        &mut playbook,
        &curate(
            &snapshot,
            "reflection-7",
            &[serde_json::from_value(insight("Check status codes.")).unwrap()],
        ),
    );
    assert_eq!(first.applied, ["reflection-7/0"]);
    assert_eq!(again.replayed, ["reflection-7/0"]);
    assert_eq!(playbook, snapshot);
}

#[test]
fn curator_turns_a_known_lesson_into_a_helpful_tag_not_a_duplicate() {
    let playbook = seeded_playbook();
    let ops = curate(
        &playbook,
        "r",
        &[serde_json::from_value(insight("always paginate list endpoints!")).unwrap()],
    );
    assert_eq!(
        ops[0].kind,
        DeltaKind::Tag {
            bullet_id: "b-0001".into(),
            tag: BulletTag::Helpful
        }
    );
}

#[test]
fn dedup_merges_near_identical_bullets_and_their_counters() {
    let mut playbook = seeded_playbook();
    playbook.bullets.push(Bullet {
        id: "b-0900".into(),
        section: "apis".into(),
        content: "always paginate: list endpoints".into(),
        helpful: 2,
        harmful: 1,
        neutral: 0,
    });
    playbook.bullet_mut_for_test("b-0001").helpful = 3;
    assert_eq!(playbook.dedup(), ["b-0900"]);
    assert_eq!(playbook.bullet("b-0001").unwrap().helpful, 5);
    assert_eq!(playbook.bullet("b-0001").unwrap().harmful, 1);
}

#[test]
fn bullets_whose_harm_dominates_are_removed_by_the_configurable_rule() {
    let mut playbook = seeded_playbook();
    playbook.bullet_mut_for_test("b-0002").harmful = 3;
    playbook.bullet_mut_for_test("b-0001").harmful = 3;
    playbook.bullet_mut_for_test("b-0001").helpful = 4;
    assert_eq!(
        playbook.prune_harmful(&PlaybookPolicy::default()),
        ["b-0002"]
    );
    let strict = PlaybookPolicy {
        min_harmful: 10,
        ..PlaybookPolicy::default()
    };
    assert!(playbook.prune_harmful(&strict).is_empty());
}

#[test]
fn the_budget_prunes_whole_bullets_by_net_score_never_truncating_text() {
    let mut playbook = seeded_playbook();
    apply_deltas(
        &mut playbook,
        &[op(
            "o",
            DeltaKind::Add {
                section: "apis".into(),
                content: "Check status codes.".into(),
            },
        )],
    );
    playbook.bullet_mut_for_test("b-0001").helpful = 5;
    playbook.bullet_mut_for_test("b-0003").helpful = 1;
    let before = playbook.render().chars().count();
    let policy = PlaybookPolicy {
        max_chars: before - 1,
        ..PlaybookPolicy::default()
    };
    assert_eq!(
        playbook.enforce_budget(&policy),
        ["b-0002"],
        "net score 0 goes first"
    );
    assert!(playbook.render().chars().count() < before);
    assert_eq!(
        playbook.bullet("b-0001").unwrap().content,
        "Always paginate list endpoints."
    );
}

#[test]
fn the_playbook_renders_in_the_ace_text_form() {
    let mut playbook = seeded_playbook();
    apply_deltas(
        &mut playbook,
        &[op(
            "o",
            DeltaKind::Add {
                section: "math".into(),
                content: "Sum with decimals.".into(),
            },
        )],
    );
    playbook.bullet_mut_for_test("b-0001").helpful = 2;
    assert_eq!(
        playbook.render(),
        "## apis\n[b-0001] helpful=2 harmful=0 :: Always paginate list endpoints.\n[b-0002] helpful=0 harmful=0 :: Trust the first page.\n\n## math\n[b-0003] helpful=0 harmful=0 :: Sum with decimals.\n\n"
    );
}

#[test]
fn the_playbook_is_stored_as_versioned_json_and_concurrent_writes_conflict() {
    let store = FakeStore::default();
    let playbook = seeded_playbook();
    assert!(
        run(save_playbook(&store, "p", &playbook, None))
            .unwrap()
            .is_some()
    );
    let (loaded, text) = run(load_playbook(&store, "p")).unwrap();
    assert_eq!(loaded, playbook);
    let stored: Value = serde_json::from_str(text.as_deref().unwrap()).unwrap();
    assert_eq!(
        (stored["format"].as_str(), stored["format_version"].as_u64()),
        (Some("agent-governor/playbook"), Some(1))
    );
    assert!(
        run(save_playbook(&store, "p", &playbook, None))
            .unwrap()
            .is_none(),
        "a stale writer does not overwrite"
    );
    assert!(
        run(save_playbook(&store, "p", &playbook, text.as_deref()))
            .unwrap()
            .is_some()
    );
}

trait TestAccess {
    fn bullet_mut_for_test(&mut self, id: &str) -> &mut Bullet;
}

impl TestAccess for Playbook {
    fn bullet_mut_for_test(&mut self, id: &str) -> &mut Bullet {
        self.bullets.iter_mut().find(|b| b.id == id).unwrap()
    }
}

// ---- requirement 9: the container ----

#[test]
fn req_9_1_and_9_2_the_container_gives_a_reflector_with_the_llm_and_the_store_injected() {
    use agent_governor::governor::Governor;
    let store = store_with(&seeded_playbook());
    let model = std::rc::Rc::new(ScriptedModel::answering(vec![Ok(
        json!({ "insights": [insight("k")], "bullet_evaluations": [tag("b-0001", "helpful")] }),
    )]));
    let governor = Governor::new(
        SharedModel(model.clone()),
        NoPromptFiles,
        store.clone(),
        support::FixedClock::at(0),
        "",
    );
    let result = run(governor.reflector(ReflectorOptions::default()).reflect(
        &trajectory(&["b-0001"]),
        "",
        "",
        "default",
    ));
    assert_eq!(result.error, None);
    assert_eq!(
        model.prompts.borrow().len(),
        1,
        "the injected LLM was asked"
    );
    assert!(
        model.prompts.borrow()[0]
            .contains("[b-0001] helpful=0 harmful=0 :: Always paginate list endpoints."),
        "bullets read from the injected store"
    );
}

#[derive(Clone)]
struct SharedModel(std::rc::Rc<ScriptedModel>);

impl Llm for SharedModel {
    async fn query(&self, prompt: &str, options: &QueryOptions) -> Result<QueryReply, PortError> {
        self.0.query(prompt, options).await
    }
}

#[test]
fn errors_are_written_in_the_chosen_language() {
    let model = ScriptedModel::answering(vec![
        Err(PortError::new("rate limited")),
        Err(PortError::new("rate limited")),
    ]);
    let options = ReflectorOptions {
        language: agent_governor::language::Language::Ja,
        ..ReflectorOptions::default()
    };
    let result = run(reflector(model, FakeStore::default(), options).reflect(
        &trajectory(&[]),
        "",
        "",
        "default",
    ));
    assert!(
        result
            .error
            .unwrap()
            .starts_with("モデルの分析結果を使えません")
    );
}
