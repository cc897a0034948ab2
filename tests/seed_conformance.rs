//! Seeds 000, 001 and 004 as written: answers and inputs in the seeds' own shapes and at real sizes are
//! decided as the seeds say. Each test quotes the seed line it follows.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::closer::{C3l, Closer, CloserInput, CloserOptions};
use agent_governor::playbook::delta::apply_deltas;
use agent_governor::playbook::storage::save_playbook;
use agent_governor::playbook::{DeltaKind, DeltaOp, Playbook};
use agent_governor::ports::{NoPromptFiles, PortError, PromptLoader};
use agent_governor::reflector::{
    BulletTag, PromptBuilder, Reflector, ReflectorOptions, Trajectory,
};
use agent_governor::watcher::{
    ExecutorOutput, Language, Persona, Watcher, WatcherInput, WatcherOptions,
};
use serde_json::{Value, json};
use support::{FakeStore, FixedClock, ScriptedModel, run};

// ---- seed 001: the Closer ----

fn closer_input() -> CloserInput {
    CloserInput {
        structured_output: json!({ "status": "implemented" }),
        step_id: "complete.issue".into(),
        c3l: C3l {
            c2: "complete".into(),
            c3: "issue".into(),
        },
        context: None,
        previous: None,
        required_items: Vec::new(),
        evidence: Vec::new(),
    }
}

fn checklist(items: usize, completed: bool) -> Vec<Value> {
    (1..=items)
        .map(|n| json!({ "id": format!("item-{n}"), "description": format!("task {n}"), "completed": completed, "evidence": "seen" }))
        .collect()
}

#[test]
fn a_thirty_item_checklist_completes() {
    // "const complete = output.allComplete && output.confidence >= 0.8;" with no bound on the checklist.
    let answer = json!({ "checklist": checklist(30, true), "allComplete": true, "summary": "all 30 done",
                         "pendingActions": [], "confidence": 0.9 });
    let model = ScriptedModel::answering(vec![answer]);
    let result = run(
        Closer::new(CloserOptions::new("", "iterator"), NoPromptFiles)
            .check(&closer_input(), &model),
    );
    assert!(result.complete, "{:?}", result.reasons);
    assert_eq!(result.output.checklist.len(), 30);
    assert_eq!(model.calls(), 1);
}

#[test]
fn dozens_of_pending_actions_are_carried_into_the_next_iteration() {
    // "pendingActions で次 iteration に引き継ぎ"
    let pending: Vec<String> = (1..=40).map(|n| format!("fix module {n}")).collect();
    let answer = json!({ "checklist": checklist(12, false), "allComplete": false, "summary": "work remains",
                         "pendingActions": pending, "confidence": 0.9 });
    let result = run(
        Closer::new(CloserOptions::new("", "iterator"), NoPromptFiles)
            .check(&closer_input(), &ScriptedModel::answering(vec![answer])),
    );
    assert!(!result.complete);
    assert!(result.error.is_none(), "{:?}", result.error);
    let next = result.next_iteration_input.unwrap();
    assert!(
        next.contains("fix module 1") && next.contains("fix module 40"),
        "{next}"
    );
}

#[test]
fn a_closer_bound_is_an_option_sent_in_the_schema_and_named_when_exceeded() {
    let options = CloserOptions {
        max_checklist_items: 10,
        max_reasks: 0,
        ..CloserOptions::new("", "iterator")
    };
    let answer = json!({ "checklist": checklist(11, true), "allComplete": true, "summary": "done",
                         "pendingActions": [], "confidence": 0.9 });
    let model = ScriptedModel::answering(vec![answer]);
    let result = run(Closer::new(options, NoPromptFiles).check(&closer_input(), &model));
    assert_eq!(
        model.schemas.borrow()[0]["properties"]["checklist"]["maxItems"],
        json!(10)
    );
    assert!(!result.complete);
    let error = result.error.unwrap();
    assert!(
        error.contains("11 items; the option `maxChecklistItems` allows at most 10"),
        "{error}"
    );
}

// ---- seed 000: the Watcher ----

fn fowler() -> Persona {
    Persona {
        name: "Martin Fowler".into(),
        distortion: "構造の明確化への執着。変更可能性を損なう決定を嫌悪。".into(),
        values: vec![
            "リファクタリング".into(),
            "進化的設計".into(),
            "構造の明確化".into(),
        ],
        anti_values: vec!["技術的負債の無視".into(), "変更困難なコード".into()],
        blindspot: "過剰な構造化、初期コストの増大".into(),
    }
}

fn kent_beck() -> Persona {
    Persona {
        name: "Kent Beck".into(),
        distortion: "今動くものへの執着".into(),
        values: vec!["YAGNI".into()],
        anti_values: vec![],
        blindspot: "将来の変更への準備".into(),
    }
}

fn executor_result(status: &str, artifacts: &[&str], persona: Option<&str>) -> ExecutorOutput {
    ExecutorOutput {
        status: status.into(),
        artifacts: artifacts.iter().map(|a| (*a).to_owned()).collect(),
        execution_log: "fizzbuzz.py を作成".into(),
        persona_applied: persona.map(str::to_owned),
        other_fields: Default::default(),
    }
}

fn example_1_input() -> WatcherInput {
    WatcherInput {
        executor_result: Some(executor_result("done", &["fizzbuzz.py"], None)),
        original_request: "fizzbuzz を作って".into(),
        persona: None,
        executor_persona: None,
        task_classification: Some("implement".into()),
        persona_required: false,
    }
}

fn example_2_input() -> WatcherInput {
    WatcherInput {
        executor_result: Some(executor_result(
            "done",
            &["api-design-proposal.md"],
            Some("Kent Beck"),
        )),
        original_request: "このAPIの設計方針を決めたい".into(),
        persona: Some(fowler()),
        executor_persona: Some(kent_beck()),
        task_classification: Some("design".into()),
        persona_required: false,
    }
}

fn watcher_with<L: PromptLoader>(
    loader: L,
    options: WatcherOptions,
) -> Watcher<L, FakeStore, FixedClock> {
    Watcher::new(
        options,
        loader,
        FakeStore::default(),
        FixedClock::at(1_795_000_000_000),
    )
}

fn watcher() -> Watcher<NoPromptFiles, FakeStore, FixedClock> {
    watcher_with(
        NoPromptFiles,
        WatcherOptions {
            language: Language::Ja,
            max_reasks: 0,
            ..WatcherOptions::new("watcher")
        },
    )
}

/// The seed's example 1 output, exactly as written (no Phase 2 fields, no approval criteria).
fn example_1_output() -> Value {
    json!({
        "pass": true,
        "issues": [],
        "inspection_log": "## 検査項目\n\n1. artifacts が空でないか: ✅ fizzbuzz.py が存在\n2. 要件との整合性: ✅ fizzbuzz が要件通りに動作\n3. Task Classifier の分類: ✅ implement は適切\n\n## 結論\n\n問題なし。合格。\n",
        "persona_applied": null,
        "blindspots_covered": []
    })
}

/// The seed's example 2 output, exactly as written.
fn example_2_output() -> Value {
    json!({
        "pass": true,
        "issues": ["認証の後回しは技術的負債になる可能性（軽微）", "エンドポイント命名の一貫性を後で確認すべき"],
        "inspection_log": "## 人格宣言\n\n私は今回、Martin Fowler として検査します。\n\n## 結論\n\nクリティカルな問題はない。トレードオフは認識されている。合格。\n",
        "persona_applied": "Martin Fowler",
        "blindspots_covered": ["将来の変更への準備: 認証の後回しについて懸念を記録", "構造の拡張性: エンドポイント命名の確認を推奨"]
    })
}

#[test]
fn the_seeds_example_1_output_passes_by_step_4() {
    // "4. 判定: クリティカルな問題があれば pass = false / トレードオフが認識されていれば pass = true"
    let model = ScriptedModel::answering(vec![example_1_output()]);
    let output = run(watcher().inspect(&example_1_input(), &model, 1));
    assert!(output.pass, "{:?}", output.issues);
    assert_eq!(output.issues, Vec::<String>::new());
    assert_eq!(output.persona_applied, None);
    assert!(!output.misclassification_detected);
}

#[test]
fn the_seeds_example_2_output_passes_under_the_persona() {
    let model = ScriptedModel::answering(vec![example_2_output()]);
    let output = run(watcher().inspect(&example_2_input(), &model, 1));
    assert!(output.pass, "{:?}", output.issues);
    assert_eq!(output.persona_applied.as_deref(), Some("Martin Fowler"));
    assert_eq!(
        output.issues.len(),
        2,
        "minor issues stay listed: {:?}",
        output.issues
    );
}

#[test]
fn the_seeds_example_3_shape_fails_by_step_4_on_a_critical_issue() {
    // Example 3 as the model would write it for a result with artifacts: a critical issue, pass false.
    let answer = json!({
        "pass": false,
        "issues": ["CRITICAL: artifacts が空。成果物が生成されていない。"],
        "inspection_log": "## 検査項目\n\n1. artifacts が空でないか: ❌ 空！\n\n## 結論\n\nクリティカルな問題あり。不合格。再実行を要求。\n",
        "persona_applied": "Martin Fowler",
        "blindspots_covered": ["将来の変更への準備: 確認"]
    });
    let output = run(watcher().inspect(
        &example_2_input(),
        &ScriptedModel::answering(vec![answer]),
        1,
    ));
    assert!(!output.pass);
    assert_eq!(
        output.issues,
        ["CRITICAL: artifacts が空。成果物が生成されていない。"]
    );
}

#[test]
fn step_4_a_critical_issue_makes_pass_false_whatever_the_model_says() {
    let mut answer = example_1_output();
    answer["issues"] = json!(["critical: the output is never printed"]);
    let output = run(watcher().inspect(
        &example_1_input(),
        &ScriptedModel::answering(vec![answer]),
        1,
    ));
    assert!(!output.pass);
}

#[test]
fn step_4_pass_follows_the_acknowledged_trade_offs_where_the_answer_states_them() {
    // "approval_criteria: no_critical_issues: true, acknowledged_trade_offs: true"
    let with = |criteria: Value, pass: bool| {
        let mut answer = example_1_output();
        answer["pass"] = json!(pass);
        answer["approval_criteria"] = criteria;
        run(watcher().inspect(
            &example_1_input(),
            &ScriptedModel::answering(vec![answer]),
            1,
        ))
    };
    let both = json!({ "no_critical_issues": true, "acknowledged_trade_offs": true });
    assert!(with(both.clone(), true).pass);
    let unacknowledged = json!({ "no_critical_issues": true, "acknowledged_trade_offs": false });
    assert!(!with(unacknowledged.clone(), false).pass);
    let critical = json!({ "no_critical_issues": false, "acknowledged_trade_offs": true });
    assert!(!with(critical, false).pass);
    // "判定不能なら pass: false": a pass that its own criteria contradict cannot be decided.
    let contradicted = with(unacknowledged, true);
    assert!(!contradicted.pass);
    assert!(
        contradicted
            .issues
            .iter()
            .any(|issue| issue.contains("判定不能")),
        "{:?}",
        contradicted.issues
    );
    assert!(
        !with(both, false).pass,
        "the model's own fail is never overturned"
    );
}

/// The verdict for example 1's input when the model answers `answer`.
fn judged(answer: Value) -> agent_governor::watcher::WatcherOutput {
    run(watcher().inspect(
        &example_1_input(),
        &ScriptedModel::answering(vec![answer]),
        1,
    ))
}

#[test]
fn criteria_in_any_place_or_spelling_are_read_and_never_set_aside() {
    let with = |key: &str, value: Value| {
        let mut answer = example_1_output();
        answer[key] = value;
        judged(answer)
    };
    for key in [
        "acknowledgedTradeOffs",
        "AcknowledgedTradeOffs",
        "trade-offs-acknowledged",
        "trade_offs_acknowledged",
    ] {
        assert!(!with(key, json!(false)).pass, "{key}");
        assert!(with(key, json!(true)).pass, "{key}");
    }
    assert!(!with("noCriticalIssues", json!(false)).pass);
    for key in ["critical_issues", "has_critical", "tradeoffs_ok"] {
        let output = with(key, json!(["no auth"]));
        assert!(!output.pass, "{key}");
        assert!(
            output.issues[0].starts_with("UNDECIDABLE"),
            "{key}: {:?}",
            output.issues
        );
    }
    let inside = with(
        "approval_criteria",
        json!({ "no_critical_issues": true, "trade_offs_acknowledged": false }),
    );
    assert!(!inside.pass);
    let unknown_inside = with(
        "approval_criteria",
        json!({ "no_critical_issues": true, "acknowledged_trade_offs": true, "reviewed": true }),
    );
    assert!(!unknown_inside.pass);
    // The seed's YAML form: a list of one-key maps.
    let listed = json!([{ "no_critical_issues": true }, { "acknowledged_trade_offs": true }]);
    assert!(with("approval_criteria", listed).pass);
    let conflicting = json!([{ "no_critical_issues": true }, { "acknowledged_trade_offs": true }, { "acknowledged_trade_offs": false }]);
    assert!(!with("approval_criteria", conflicting).pass);
}

#[test]
fn critical_issues_are_found_behind_markup_and_in_japanese() {
    for issue in [
        "**CRITICAL**: no output",
        "1. CRITICAL: no output",
        "[critical] no output",
        "- CRITICAL no output",
        "重大: 出力がない",
        "クリティカル: 出力がない",
    ] {
        let mut answer = example_1_output();
        answer["issues"] = json!([issue]);
        assert!(!judged(answer).pass, "{issue}");
    }
    let mut answer = example_1_output();
    answer["issues"] = json!(["Non-critical: naming"]);
    assert!(judged(answer).pass);
}

#[test]
fn the_persona_an_answer_names_must_be_the_one_installed() {
    let named = |name: Value, input: WatcherInput| {
        let mut answer = example_2_output();
        answer["persona_applied"] = name;
        run(watcher().inspect(&input, &ScriptedModel::answering(vec![answer]), 1))
    };
    assert!(named(json!("martin  FOWLER"), example_2_input()).pass);
    assert!(named(json!(null), example_2_input()).pass, "not stated");
    assert!(
        !named(json!("Kent Beck"), example_2_input()).pass,
        "the executor's persona"
    );
    assert!(
        !named(json!("Grace Hopper"), example_2_input()).pass,
        "another persona"
    );
    let mut plain = example_1_output();
    plain["persona_applied"] = json!("Martin Fowler");
    assert!(!judged(plain).pass, "a plain review names no persona");
}

#[test]
fn requiring_the_acknowledgement_is_an_option_stricter_than_the_seed() {
    let strict = watcher_with(
        NoPromptFiles,
        WatcherOptions {
            max_reasks: 0,
            require_trade_off_acknowledgement: true,
            ..WatcherOptions::new("watcher")
        },
    );
    let output = run(strict.inspect(
        &example_1_input(),
        &ScriptedModel::answering(vec![example_1_output()]),
        1,
    ));
    assert!(!output.pass);
    assert!(
        output
            .issues
            .iter()
            .any(|issue| issue.contains("requireTradeOffAcknowledgement")),
        "{:?}",
        output.issues
    );
    // Stating only that nothing is critical is not an acknowledgement, and is never completed from `pass`.
    let mut partial = example_1_output();
    partial["no_critical_issues"] = json!(true);
    let output = run(strict.inspect(
        &example_1_input(),
        &ScriptedModel::answering(vec![partial]),
        1,
    ));
    assert!(!output.pass, "{:?}", output.issues);
    let mut acknowledged = example_1_output();
    acknowledged["approval_criteria"] =
        json!({ "no_critical_issues": true, "acknowledged_trade_offs": true });
    let output = run(strict.inspect(
        &example_1_input(),
        &ScriptedModel::answering(vec![acknowledged]),
        1,
    ));
    assert!(output.pass, "{:?}", output.issues);
}

#[test]
fn a_verdict_with_dozens_of_issues_is_decided_not_undecidable() {
    let mut answer = example_2_output();
    answer["issues"] = json!(
        (1..=30)
            .map(|n| format!("minor: naming {n}"))
            .collect::<Vec<_>>()
    );
    answer["blindspots_covered"] = json!(
        (1..=12)
            .map(|n| format!("blind spot {n}: checked"))
            .collect::<Vec<_>>()
    );
    let output = run(watcher().inspect(
        &example_2_input(),
        &ScriptedModel::answering(vec![answer]),
        1,
    ));
    assert!(output.pass, "{:?}", output.issues.first());
    assert_eq!(output.issues.len(), 30);
    assert_eq!(output.blindspots_covered.len(), 12);
}

#[test]
fn executor_results_with_other_statuses_and_fields_are_inspected_and_the_fields_reported() {
    // "executor が完了していること": a completed executor may say so in its own words.
    for status in ["done", "success", "Completed", "succeeded", "OK"] {
        let mut input = example_1_input();
        let mut result = executor_result(status, &["fizzbuzz.py"], None);
        result
            .other_fields
            .insert("duration_ms".into(), json!(1200));
        result
            .other_fields
            .insert("summary".into(), json!("wrote fizzbuzz"));
        input.executor_result = Some(result);
        let model = ScriptedModel::answering(vec![example_1_output()]);
        let output = run(watcher().inspect(&input, &model, 1));
        assert!(output.pass, "{status}: {:?}", output.issues);
        assert_eq!(
            output.ignored_input_fields,
            ["executor_result.duration_ms", "executor_result.summary"]
        );
        assert!(
            model.prompts.borrow()[0].contains("\"summary\": \"wrote fizzbuzz\""),
            "shown to the model: it may be evidence"
        );
    }
    let mut input = example_1_input();
    input.executor_result = Some(executor_result("failed", &["fizzbuzz.py"], None));
    let model = ScriptedModel::answering(vec![example_1_output()]);
    assert!(!run(watcher().inspect(&input, &model, 1)).pass);
    assert_eq!(model.calls(), 0);
}

#[test]
fn executor_result_extra_fields_are_read_from_json() {
    let input: WatcherInput = serde_json::from_value(json!({
        "executor_result": { "status": "success", "artifacts": ["a.md"], "execution_log": "", "persona_applied": null,
                             "tests": { "passed": 12 } },
        "original_request": "write a", "persona": null, "executor_persona": null
    }))
    .unwrap();
    let result = input.executor_result.unwrap();
    assert_eq!(result.ignored_fields(), ["executor_result.tests"]);
}

/// A host that overrides only the plain Watcher prompt.
struct PlainOverride;

impl PromptLoader for PlainOverride {
    async fn load(&self, path: &str) -> Result<Option<String>, PortError> {
        Ok(path
            .ends_with("steps/review/watcher/f_default.md")
            .then(|| "HOST PLAIN PROMPT\n{{ original_request }}\n{{ executor_result }}".to_owned()))
    }
}

#[test]
fn a_plain_prompt_override_leaves_persona_reviews_working() {
    let watcher = watcher_with(
        PlainOverride,
        WatcherOptions {
            max_reasks: 0,
            ..WatcherOptions::new("watcher")
        },
    );
    let model = ScriptedModel::answering(vec![example_2_output(), example_1_output()]);
    let persona_review = run(watcher.inspect(&example_2_input(), &model, 1));
    assert!(persona_review.pass, "{:?}", persona_review.issues);
    assert_eq!(
        persona_review.persona_applied.as_deref(),
        Some("Martin Fowler")
    );
    let prompts = model.prompts.borrow().clone();
    assert!(
        !prompts[0].contains("HOST PLAIN PROMPT"),
        "the persona review uses the persona prompt"
    );
    assert!(prompts[0].contains("Martin Fowler"));
    drop(prompts);
    let plain_review = run(watcher.inspect(&example_1_input(), &model, 1));
    assert!(plain_review.pass);
    assert!(model.prompts.borrow()[1].starts_with("HOST PLAIN PROMPT"));
}

#[test]
fn a_persona_review_without_its_prompt_fails_rather_than_running_plain() {
    struct OnlyAPlainPrompt;
    impl PromptLoader for OnlyAPlainPrompt {
        async fn load(&self, path: &str) -> Result<Option<String>, PortError> {
            if path.contains("persona") {
                return Err(PortError::new("the persona prompt is unreadable"));
            }
            Ok(None)
        }
    }
    let watcher = watcher_with(OnlyAPlainPrompt, WatcherOptions::new("watcher"));
    let model = ScriptedModel::answering(vec![example_1_output()]);
    let output = run(watcher.inspect(&example_2_input(), &model, 1));
    assert!(!output.pass);
    assert_eq!(model.calls(), 0);
    assert_eq!(output.persona_applied.as_deref(), Some("Martin Fowler"));
    assert!(
        output.issues[0].contains("the persona prompt is unreadable"),
        "{:?}",
        output.issues
    );
}

#[test]
fn the_protocol_rounds_are_an_option_with_the_seeds_three_as_default() {
    assert_eq!(WatcherOptions::new("w").max_rounds, 3);
    let json: WatcherOptions =
        serde_json::from_value(json!({ "agentId": "w", "maxRounds": 5 })).unwrap();
    assert_eq!(json.max_rounds, 5);
    use agent_governor::input::Validate;
    let zero = WatcherOptions {
        max_rounds: 0,
        ..WatcherOptions::new("w")
    };
    assert_eq!(zero.validate().unwrap_err().path, "maxRounds");
}

// ---- seed 004: the Reflector ----

fn playbook_of(count: usize) -> (Playbook, Vec<String>) {
    let mut playbook = Playbook::default();
    let ops: Vec<DeltaOp> = (0..count)
        .map(|n| DeltaOp {
            op_id: format!("seed/{n}"),
            kind: DeltaKind::Add {
                section: "apis".into(),
                content: format!("Rule number {n} for the invoices."),
            },
        })
        .collect();
    apply_deltas(&mut playbook, &ops);
    let ids = playbook
        .bullets
        .iter()
        .map(|bullet| bullet.id.clone())
        .collect();
    (playbook, ids)
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

fn trajectory(used: &[String]) -> Trajectory {
    Trajectory {
        query: "sum the invoices of May".into(),
        generated_result: "42".into(),
        reasoning_steps: vec!["listed invoices".into()],
        used_bullet_ids: used.to_vec(),
    }
}

fn insight(key: &str) -> Value {
    json!({ "reasoning": "r", "error_identification": "e", "root_cause_analysis": "c", "correct_approach": "a", "key_insight": key })
}

fn tag(id: &str, tag: &str) -> Value {
    json!({ "bullet_id": id, "tag": tag, "reason": "because" })
}

fn reflector(
    model: ScriptedModel,
    store: FakeStore,
) -> Reflector<ScriptedModel, NoPromptFiles, FakeStore> {
    Reflector::new(
        model,
        PromptBuilder::new(NoPromptFiles, ""),
        store,
        ReflectorOptions::default(),
    )
}

#[test]
fn a_reflection_tagging_forty_used_bullets_succeeds() {
    // R6.1 "Trajectoryに使用されたBullet IDリストが含まれる場合、各Bulletについて ... 評価を行う"
    let (playbook, ids) = playbook_of(40);
    let tags: Vec<Value> = ids.iter().map(|id| tag(id, "helpful")).collect();
    let insights: Vec<Value> = (1..=8).map(|n| insight(&format!("lesson {n}"))).collect();
    let model = ScriptedModel::answering(vec![
        json!({ "insights": insights, "bullet_evaluations": tags }),
    ]);
    let reflector = reflector(model, store_with(&playbook));
    let result = run(reflector.reflect(&trajectory(&ids), "", "", "default"));
    assert_eq!(result.error, None);
    assert_eq!(result.insights.len(), 8);
    assert_eq!(result.bullet_evaluations.len(), 40);
    assert!(result.untagged_bullets.is_empty());
}

#[test]
fn the_tag_bound_follows_the_number_of_used_bullets() {
    let (playbook, ids) = playbook_of(40);
    let model = ScriptedModel::answering(vec![
        json!({ "insights": [insight("x")], "bullet_evaluations": [] }),
    ]);
    let reflector = reflector(model, store_with(&playbook));
    let _ = run(reflector.reflect(&trajectory(&ids[..25]), "", "", "default"));
    let schemas = &reflector_schemas(&reflector)[0];
    assert_eq!(
        schemas["properties"]["bullet_evaluations"]["maxItems"],
        json!(35),
        "25 used + 10 extra"
    );
    assert_eq!(schemas["properties"]["insights"]["maxItems"], json!(20));
}

fn reflector_schemas(reflector: &Reflector<ScriptedModel, NoPromptFiles, FakeStore>) -> Vec<Value> {
    reflector.llm().schemas.borrow().clone()
}

#[test]
fn an_unknown_used_bullet_is_reported() {
    let (playbook, ids) = playbook_of(2);
    let mut used = ids.clone();
    used.push("b-9999".into());
    let model = ScriptedModel::answering(vec![json!({ "insights": [insight("x")],
        "bullet_evaluations": [tag(&ids[0], "helpful"), tag(&ids[1], "neutral"), tag("b-9999", "harmful")] })]);
    let result =
        run(reflector(model, store_with(&playbook)).reflect(&trajectory(&used), "", "", "default"));
    assert_eq!(result.error, None);
    assert_eq!(result.unknown_bullets, ["b-9999"]);
    assert_eq!(
        result.bullet_evaluations.len(),
        2,
        "an unknown bullet is never tagged"
    );
    assert_eq!(result.dropped_evaluations[0].bullet_id, "b-9999");
    assert!(
        result.untagged_bullets.is_empty(),
        "an unknown bullet is not asked for"
    );
}

#[test]
fn the_r6_1_re_ask_keeps_only_the_bullets_it_asked_about() {
    let (playbook, ids) = playbook_of(3);
    let model = ScriptedModel::answering(vec![
        json!({ "insights": [insight("x")], "bullet_evaluations": [tag(&ids[0], "helpful"), tag(&ids[1], "helpful")] }),
        // The second answer tags the missing bullet, and tags the first one again, differently.
        json!({ "insights": [], "bullet_evaluations": [tag(&ids[2], "harmful"), tag(&ids[0], "harmful")] }),
    ]);
    let reflector = reflector(model, store_with(&playbook));
    let result = run(reflector.reflect(&trajectory(&ids), "", "", "default"));
    let tags: Vec<(&str, BulletTag)> = result
        .bullet_evaluations
        .iter()
        .map(|evaluation| (evaluation.bullet_id.as_str(), evaluation.tag))
        .collect();
    assert_eq!(
        tags,
        [
            (ids[0].as_str(), BulletTag::Helpful),
            (ids[1].as_str(), BulletTag::Helpful),
            (ids[2].as_str(), BulletTag::Harmful),
        ]
    );
    assert_eq!(result.dropped_evaluations.len(), 1);
    assert_eq!(result.dropped_evaluations[0].bullet_id, ids[0]);
    assert!(reflector.llm().prompts.borrow()[1].contains(&ids[2]));
}

#[test]
fn more_refinement_rounds_than_five_are_allowed_up_to_the_documented_limit() {
    use agent_governor::input::Validate;
    let options = |rounds| ReflectorOptions {
        rounds,
        ..ReflectorOptions::default()
    };
    assert!(options(8).validate().is_ok());
    assert!(options(10).validate().is_ok());
    let error = options(11).validate().unwrap_err();
    assert_eq!(error.path, "rounds");
    assert!(error.message.contains("1 to 10"), "{}", error.message);
}
