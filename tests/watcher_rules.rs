//! Every guarantee and failure behaviour of seed 000 (Watcher) as a named test; the seed's three examples
//! reproduced exactly (in the seed's language).
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::ports::{ExecutorRerun, NoPromptFiles, PortError, PromptLoader};
use agent_governor::watcher::ledger::read_entries;
use agent_governor::watcher::*;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::VecDeque;
use support::{FakeStore, FixedClock, ScriptedModel, run};

fn watcher(language: Language) -> Watcher<NoPromptFiles, FakeStore, FixedClock> {
    let options = WatcherOptions {
        working_dir: String::new(),
        agent_id: "w".into(),
        language,
        max_reasks: 1,
        allow_repairs: true,
        ..WatcherOptions::new("w")
    };
    Watcher::new(
        options,
        NoPromptFiles,
        FakeStore::default(),
        FixedClock::at(1_795_000_000_000),
    )
}

fn catalog(name: &str) -> Persona {
    persona_catalog()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap()
}

fn result(artifacts: &[&str], log: &str, persona: Option<&str>) -> ExecutorOutput {
    ExecutorOutput {
        status: "done".into(),
        artifacts: artifacts.iter().map(|a| (*a).to_owned()).collect(),
        execution_log: log.into(),
        persona_applied: persona.map(str::to_owned),
        other_fields: Default::default(),
    }
}

fn verdict(pass: bool, issues: &[&str], log: &str, blindspots: &[&str]) -> Value {
    json!({ "pass": pass, "issues": issues, "inspection_log": log, "blindspots_covered": blindspots,
            "misclassification_detected": false, "reclassification_suggestion": null })
}

const EXAMPLE_1_LOG: &str = "## 検査項目\n\n1. artifacts が空でないか: ✅ fizzbuzz.py が存在\n2. 要件との整合性: ✅ fizzbuzz が要件通りに動作\n3. Task Classifier の分類: ✅ implement は適切\n\n## 結論\n\n問題なし。合格。\n";

const EXAMPLE_2_LOG: &str = "## 人格宣言\n\n私は今回、Martin Fowler として検査します。\n\n歪み: 構造の明確化への執着。変更可能性を損なう決定を嫌悪。\n\nexecutor の人格: Kent Beck\nexecutor の盲点: 将来の変更への準備\n\n私がカバーすべき盲点:\n  Kent Beck は「今動くもの」を優先し、将来の変更を軽視する傾向がある。\n  私は「変更可能性」の観点から検査する。\n\n## 検査項目\n\n1. artifacts が空でないか: ✅ api-design-proposal.md が存在\n2. 要件との整合性: ✅ API設計方針が含まれている\n3. executor の盲点をカバー:\n   - 認証の後回し: 技術的負債になる可能性があるが、Kent の YAGNI は理解できる。軽微な懸念として記録。\n   - エンドポイント構造: シンプルだが、将来の拡張時にリファクタリングが必要になる可能性。\n4. Task Classifier の分類: ✅ design は適切\n\n## 結論\n\nクリティカルな問題はない。トレードオフは認識されている。合格。\n";

#[test]
fn seed_example_1_plain_review_of_an_implementation() {
    let input = WatcherInput {
        executor_result: Some(result(&["fizzbuzz.py"], "fizzbuzz.py を作成", None)),
        original_request: "fizzbuzz を作って".into(),
        persona: None,
        executor_persona: None,
        task_classification: Some("implement".into()),
        persona_required: false,
    };
    let model = ScriptedModel::answering(vec![verdict(true, &[], EXAMPLE_1_LOG, &[])]);
    let output = run(watcher(Language::Ja).inspect(&input, &model, 1));
    let expected = WatcherOutput {
        pass: true,
        issues: vec![],
        inspection_log: EXAMPLE_1_LOG.into(),
        persona_applied: None,
        blindspots_covered: vec![],
        misclassification_detected: false,
        reclassification_suggestion: None,
        ignored_input_fields: Vec::new(),
    };
    assert_eq!(output, expected);
    assert!(
        !model.prompts.borrow()[0].contains("## Persona declaration"),
        "null persona: no declaration"
    );
}

#[test]
fn seed_example_2_as_written_design_review_as_martin_fowler_of_kent_becks_work() {
    let input = WatcherInput {
        executor_result: Some(result(
            &["api-design-proposal.md"],
            "Kent Beck として設計案を作成",
            Some("Kent Beck"),
        )),
        original_request: "このAPIの設計方針を決めたい".into(),
        // As the seed writes it: no executor_persona; the executor's persona is its persona_applied.
        persona: Some(catalog("Martin Fowler")),
        executor_persona: None,
        task_classification: None,
        persona_required: false,
    };
    let issues = [
        "認証の後回しは技術的負債になる可能性（軽微）",
        "エンドポイント命名の一貫性を後で確認すべき",
    ];
    let covered = [
        "将来の変更への準備: 認証の後回しについて懸念を記録",
        "構造の拡張性: エンドポイント命名の確認を推奨",
    ];
    let model = ScriptedModel::answering(vec![verdict(true, &issues, EXAMPLE_2_LOG, &covered)]);
    let output = run(watcher(Language::Ja).inspect(&input, &model, 1));
    assert_eq!(
        output,
        WatcherOutput {
            pass: true,
            issues: issues.iter().map(|i| (*i).to_owned()).collect(),
            inspection_log: EXAMPLE_2_LOG.into(),
            persona_applied: Some("Martin Fowler".into()),
            blindspots_covered: covered.iter().map(|c| (*c).to_owned()).collect(),
            misclassification_detected: false,
            reclassification_suggestion: None,
            ignored_input_fields: Vec::new(),
        }
    );
    let prompt = &model.prompts.borrow()[0];
    assert!(
        prompt.contains("私は今回、Martin Fowler として検査します。"),
        "the declaration is in the prompt"
    );
    assert!(prompt.contains("executor の盲点: 将来の変更への準備"));
}

#[test]
fn seed_example_3_empty_artifacts_fail_without_a_model_call() {
    let input = WatcherInput {
        executor_result: Some(result(&[], "...", Some("Kent Beck"))),
        original_request: "APIの設計方針を決めたい".into(),
        persona: Some(catalog("Martin Fowler")),
        executor_persona: Some(catalog("Kent Beck")),
        task_classification: None,
        persona_required: false,
    };
    let model = ScriptedModel::default();
    let output = run(watcher(Language::Ja).inspect(&input, &model, 1));
    assert_eq!(
        output,
        WatcherOutput {
            pass: false,
            issues: vec!["CRITICAL: artifacts が空。成果物が生成されていない。".into()],
            inspection_log: "## 検査項目\n\n1. artifacts が空でないか: ❌ 空！\n\n## 結論\n\nクリティカルな問題あり。不合格。再実行を要求。\n".into(),
            persona_applied: Some("Martin Fowler".into()),
            blindspots_covered: vec![],
            misclassification_detected: false,
            reclassification_suggestion: None,
            ignored_input_fields: Vec::new(),
        }
    );
    assert_eq!(model.calls(), 0);
}

fn plain_input() -> WatcherInput {
    WatcherInput {
        executor_result: Some(result(&["report.md"], "wrote it", None)),
        original_request: "write the report".into(),
        persona: None,
        executor_persona: None,
        task_classification: Some("implement".into()),
        persona_required: false,
    }
}

fn persona_input() -> WatcherInput {
    WatcherInput {
        persona: Some(catalog("Martin Fowler")),
        executor_persona: Some(catalog("Kent Beck")),
        ..plain_input()
    }
}

fn inspect(input: &WatcherInput, answers: Vec<Value>) -> WatcherOutput {
    run(watcher(Language::En).inspect(input, &ScriptedModel::answering(answers), 1))
}

#[test]
fn guarantee_always_a_verdict_and_undecidable_is_pass_false() {
    let output = inspect(
        &plain_input(),
        vec![json!({ "pass": "maybe" }), json!({ "pass": "still maybe" })],
    );
    assert!(!output.pass);
    assert!(output.issues[0].starts_with("UNDECIDABLE"), "{output:?}");
    assert!(output.inspection_log.contains("could not be used"));
    let no_model = run(watcher(Language::En).inspect(&plain_input(), &ScriptedModel::default(), 1));
    assert!(!no_model.pass);
}

#[test]
fn guarantee_inspection_log_is_required() {
    let output = inspect(&plain_input(), vec![verdict(true, &[], "  ", &[])]);
    assert!(!output.pass);
    assert!(
        output
            .issues
            .iter()
            .any(|i| i == "CONTRACT: inspection_log is empty")
    );
}

#[test]
fn guarantee_personas_must_differ_or_the_verdict_is_pass_false_without_a_model_call() {
    let mut same = catalog("Kent Beck");
    same.name = "  kent   BECK ".into();
    let input = WatcherInput {
        persona: Some(same),
        executor_persona: Some(catalog("Kent Beck")),
        ..plain_input()
    };
    let model = ScriptedModel::default();
    let output = run(watcher(Language::En).inspect(&input, &model, 1));
    assert!(!output.pass);
    assert!(output.issues[0].starts_with("PRECONDITION"));
    assert_eq!(model.calls(), 0);
}

#[test]
fn missing_executor_result_is_pass_false_without_a_model_call() {
    let input = WatcherInput {
        executor_result: None,
        ..plain_input()
    };
    let model = ScriptedModel::default();
    let output = run(watcher(Language::En).inspect(&input, &model, 1));
    assert!(!output.pass);
    assert!(output.issues[0].starts_with("CRITICAL"));
    assert_eq!(model.calls(), 0);
}

#[test]
fn persona_applied_is_the_installed_persona_and_the_log_opens_with_its_declaration() {
    let output = inspect(
        &persona_input(),
        vec![verdict(
            true,
            &[],
            "1. checked",
            &["future change: checked"],
        )],
    );
    assert!(output.pass, "{output:?}");
    assert_eq!(output.persona_applied.as_deref(), Some("Martin Fowler"));
    assert!(
        output
            .inspection_log
            .starts_with("## Persona declaration\n\nThis time I inspect as Martin Fowler.\n")
    );
    assert!(
        output
            .inspection_log
            .contains("Executor blind spot: 将来の変更への準備")
    );
    assert!(output.inspection_log.ends_with("1. checked"));
    let plain = inspect(&plain_input(), vec![verdict(true, &[], "1. checked", &[])]);
    assert_eq!(plain.persona_applied, None);
    assert_eq!(plain.inspection_log, "1. checked");
}

#[test]
fn blindspots_covered_must_not_be_empty_when_a_persona_is_installed() {
    let output = inspect(&persona_input(), vec![verdict(true, &[], "checked", &[])]);
    assert!(!output.pass);
    assert!(
        output
            .issues
            .iter()
            .any(|i| i.contains("blindspots_covered is empty although Martin Fowler is installed"))
    );
}

#[test]
fn a_critical_issue_forces_pass_false() {
    let output = inspect(
        &plain_input(),
        vec![verdict(
            true,
            &["critical: the build is broken"],
            "checked",
            &[],
        )],
    );
    assert!(!output.pass);
}

#[test]
fn pass_with_trade_offs_not_acknowledged_is_undecidable_and_fails() {
    // The earlier top-level spelling is read as approval_criteria.acknowledged_trade_offs.
    for key in ["trade_offs_acknowledged", "acknowledged_trade_offs"] {
        let mut answer = verdict(true, &[], "checked", &[]);
        answer[key] = json!(false);
        let output = inspect(&plain_input(), vec![answer]);
        assert!(!output.pass, "{key}");
        assert!(
            output.issues.iter().any(|i| i.starts_with("CONTRACT: undecidable: pass is true but approval_criteria")),
            "{key}: {:?}",
            output.issues
        );
    }
    let mut answer = verdict(true, &[], "checked", &[]);
    answer["approval_criteria"] =
        json!({ "no_critical_issues": true, "acknowledged_trade_offs": false });
    assert!(!inspect(&plain_input(), vec![answer]).pass);
}

#[test]
fn misclassification_requires_a_reclassification_suggestion() {
    let mut answer = verdict(true, &[], "checked", &[]);
    answer["misclassification_detected"] = json!(true);
    let output = inspect(&plain_input(), vec![answer.clone()]);
    assert!(!output.pass);
    answer["reclassification_suggestion"] = json!("design");
    let output = inspect(&plain_input(), vec![answer]);
    assert!(output.pass);
    assert_eq!(
        output.reclassification_suggestion.as_deref(),
        Some("design")
    );
}

struct BrokenPersonaPrompt;

impl PromptLoader for BrokenPersonaPrompt {
    async fn load(&self, path: &str) -> Result<Option<String>, PortError> {
        Ok(path
            .ends_with("f_default_persona.md")
            .then(|| "---\nparams: [not_given]\n---\n{{ not_given }}".to_owned()))
    }
}

#[test]
fn persona_install_failure_is_an_error_never_a_silent_plain_review() {
    let watcher = Watcher::new(
        WatcherOptions {
            max_reasks: 0,
            ..WatcherOptions::new("w")
        },
        BrokenPersonaPrompt,
        FakeStore::default(),
        FixedClock::at(0),
    );
    let model = ScriptedModel::answering(vec![verdict(true, &[], "plain check", &[])]);
    let output = run(watcher.inspect(&persona_input(), &model, 1));
    assert!(!output.pass);
    assert_eq!(model.calls(), 0);
    assert!(
        output.issues[0].starts_with("PERSONA: the persona Martin Fowler could not be installed"),
        "{:?}",
        output.issues
    );
}

#[test]
fn persona_install_failure_falls_back_to_a_plain_review_when_the_host_chooses_it() {
    let watcher = Watcher::new(
        WatcherOptions {
            max_reasks: 0,
            persona_fallback_to_plain: true,
            ..WatcherOptions::new("w")
        },
        BrokenPersonaPrompt,
        FakeStore::default(),
        FixedClock::at(0),
    );
    let model = ScriptedModel::answering(vec![verdict(true, &[], "plain check", &[])]);
    let output = run(watcher.inspect(&persona_input(), &model, 1));
    assert_eq!(output.persona_applied, None);
    assert!(
        output
            .inspection_log
            .starts_with("Persona install failed ("),
        "{}",
        output.inspection_log
    );
    assert!(output.pass);
}

// ---- persona divergence ----

#[test]
fn divergence_same_name_in_other_case_and_spacing_is_a_violation() {
    let mut twin = catalog("Martin Fowler");
    twin.name = "MARTIN\tfowler".into();
    twin.values = vec!["something else".into()];
    let violation =
        check_persona_divergence(Some(&catalog("Martin Fowler")), Some(&twin)).unwrap_err();
    assert!(matches!(violation, PersonaViolation::SameName { .. }));
}

#[test]
fn divergence_identical_value_sets_under_other_names_are_a_violation() {
    let mut copy = catalog("Martin Fowler");
    copy.name = "Not Fowler".into();
    copy.values.reverse();
    let violation =
        check_persona_divergence(Some(&catalog("Martin Fowler")), Some(&copy)).unwrap_err();
    assert!(matches!(violation, PersonaViolation::SameValues { .. }));
}

#[test]
fn divergence_empty_values_on_both_sides_are_identical_sets() {
    let empty = |name: &str| Persona {
        name: name.into(),
        distortion: "d".into(),
        values: vec![],
        anti_values: vec![],
        blindspot: "b".into(),
    };
    assert!(check_persona_divergence(Some(&empty("A")), Some(&empty("B"))).is_err());
    let report = check_persona_divergence(Some(&empty("A")), Some(&catalog("Kent Beck"))).unwrap();
    assert_eq!(report.score, 1.0);
}

#[test]
fn divergence_null_personas_cannot_collide_and_unnamed_ones_are_violations() {
    assert!(check_persona_divergence(None, None).is_ok());
    assert!(check_persona_divergence(None, Some(&catalog("Kent Beck"))).is_ok());
    let unnamed = Persona {
        name: " ".into(),
        ..catalog("Kent Beck")
    };
    assert!(matches!(
        check_persona_divergence(None, Some(&unnamed)),
        Err(PersonaViolation::UnnamedPersona { .. })
    ));
}

#[test]
fn divergence_report_scores_overlap_and_sees_blindspot_coverage() {
    let report =
        check_persona_divergence(Some(&catalog("Kent Beck")), Some(&catalog("Martin Fowler")))
            .unwrap();
    assert_eq!(report.score, 1.0);
    assert!(
        report.covers_blindspot,
        "Fowler's concern for changeability meets Beck's blind spot"
    );
    let mut overlapping = catalog("Martin Fowler");
    overlapping.values.push("YAGNI".into());
    let report = check_persona_divergence(Some(&catalog("Kent Beck")), Some(&overlapping)).unwrap();
    assert_eq!(report.shared, ["yagni"]);
    assert!(
        (report.score - 0.9).abs() < 1e-9,
        "1 shared of 10: {}",
        report.score
    );
}

#[test]
fn the_strategy_picks_a_diverging_persona_that_covers_the_blindspot() {
    let (picked, report) =
        pick_watcher_persona(Some(&catalog("Kent Beck")), &persona_catalog()).unwrap();
    assert_eq!(picked.name, "Martin Fowler");
    assert!(report.covers_blindspot);
    for executor in persona_catalog() {
        let (picked, _) = pick_watcher_persona(Some(&executor), &persona_catalog()).unwrap();
        assert!(check_persona_divergence(Some(&executor), Some(&picked)).is_ok());
        assert_ne!(picked.name, executor.name);
    }
    assert!(pick_watcher_persona(Some(&catalog("Kent Beck")), &[catalog("Kent Beck")]).is_none());
}

// ---- the 3-round completion protocol and the Learning Ledger ----

struct ScriptedExecutor {
    results: RefCell<VecDeque<Result<ExecutorOutput, PortError>>>,
    received: RefCell<Vec<(Vec<String>, u32)>>,
}

impl ScriptedExecutor {
    fn returning(results: Vec<Result<ExecutorOutput, PortError>>) -> Self {
        Self {
            results: RefCell::new(results.into()),
            received: RefCell::new(vec![]),
        }
    }
}

impl ExecutorRerun for ScriptedExecutor {
    async fn rerun(&self, issues: &[String], round: u32) -> Result<ExecutorOutput, PortError> {
        self.received.borrow_mut().push((issues.to_vec(), round));
        self.results
            .borrow_mut()
            .pop_front()
            .unwrap_or_else(|| Err(PortError::new("no more runs")))
    }
}

#[test]
fn protocol_no_agreement_after_three_rounds_escalates_to_a_human() {
    let failing = |n: u32| verdict(false, &[&format!("problem {n}")], "checked", &[]);
    let model = ScriptedModel::answering(vec![failing(1), failing(2), failing(3)]);
    let executor = ScriptedExecutor::returning(vec![
        Ok(result(&["v2.md"], "", None)),
        Ok(result(&["v3.md"], "", None)),
    ]);
    let watcher = watcher(Language::En);
    let outcome = run(watcher.run_protocol(&plain_input(), &model, &executor));
    assert!(!outcome.agreed);
    assert_eq!(outcome.rounds.len(), 3);
    let escalation = outcome.escalation.unwrap();
    assert_eq!(escalation.to, "human");
    assert_eq!(escalation.original_request, "write the report");
    assert_eq!(escalation.last_artifacts, ["v3.md"]);
    assert_eq!(
        escalation
            .rounds
            .iter()
            .map(|r| r.verdict.issues[0].clone())
            .collect::<Vec<_>>(),
        ["problem 1", "problem 2", "problem 3"]
    );
    assert_eq!(
        *executor.received.borrow(),
        vec![
            (vec!["problem 1".to_owned()], 2),
            (vec!["problem 2".to_owned()], 3)
        ]
    );
    assert!(!outcome.final_verdict.pass);
}

#[test]
fn protocol_agreement_in_round_two_ends_without_escalation() {
    let model = ScriptedModel::answering(vec![
        verdict(false, &["fix it"], "checked", &[]),
        verdict(true, &[], "checked", &[]),
    ]);
    let executor = ScriptedExecutor::returning(vec![Ok(result(&["fixed.md"], "", None))]);
    let outcome = run(watcher(Language::En).run_protocol(&plain_input(), &model, &executor));
    assert!(outcome.agreed);
    assert_eq!(outcome.rounds.len(), 2);
    assert!(outcome.escalation.is_none());
}

#[test]
fn protocol_executor_failure_escalates_at_once() {
    let model = ScriptedModel::answering(vec![verdict(false, &["fix it"], "checked", &[])]);
    let executor = ScriptedExecutor::returning(vec![Err(PortError::new("executor crashed"))]);
    let outcome = run(watcher(Language::En).run_protocol(&plain_input(), &model, &executor));
    assert!(!outcome.agreed);
    assert!(
        outcome
            .escalation
            .unwrap()
            .reason
            .contains("executor crashed")
    );
}

#[test]
fn ledger_records_every_decision_in_order_append_only() {
    let model = ScriptedModel::answering(vec![
        verdict(false, &["a"], "checked", &[]),
        verdict(true, &[], "checked", &[]),
    ]);
    let executor = ScriptedExecutor::returning(vec![Ok(result(&["b.md"], "", None))]);
    let watcher = watcher(Language::En);
    run(watcher.run_protocol(&plain_input(), &model, &executor));
    run(watcher.inspect(
        &WatcherInput {
            executor_result: None,
            ..plain_input()
        },
        &model,
        1,
    ));
    let entries = run(read_entries(watcher.store(), "watcher")).unwrap();
    let summary: Vec<(u32, bool)> = entries.iter().map(|e| (e.round, e.verdict)).collect();
    assert_eq!(summary, [(1, false), (2, true), (1, false)]);
    assert!(
        entries
            .iter()
            .all(|e| e.component == "watcher" && e.event_type == "decision")
    );
    assert!(entries[0].input_summary.contains("write the report"));
    assert_eq!(entries[0].time, "2026-11-18T11:06:40.000Z");
    // a slot is written once: appending never overwrites
    let first = watcher
        .store()
        .data
        .borrow()
        .get("ledger/watcher/000000000000")
        .cloned()
        .unwrap();
    watcher
        .store()
        .data
        .borrow_mut()
        .insert("ledger/watcher/head".into(), "0".into());
    run(watcher.inspect(
        &WatcherInput {
            executor_result: None,
            ..plain_input()
        },
        &model,
        1,
    ));
    assert_eq!(
        watcher
            .store()
            .data
            .borrow()
            .get("ledger/watcher/000000000000")
            .cloned()
            .unwrap(),
        first
    );
    assert_eq!(
        run(read_entries(watcher.store(), "watcher")).unwrap().len(),
        4
    );
}

// ---- seed 000 contract preconditions ----

fn fowler_reviewing(applied: Option<&str>) -> WatcherInput {
    WatcherInput {
        executor_result: Some(result(&["api.md"], "designed", applied)),
        original_request: "design the API".into(),
        persona: Some(catalog("Martin Fowler")),
        executor_persona: None,
        task_classification: Some("design".into()),
        persona_required: false,
    }
}

fn passing_verdict() -> Value {
    verdict(true, &[], "checked", &["future change: checked"])
}

#[test]
fn precondition_executor_persona_and_watcher_persona_differ_checked_against_persona_applied() {
    // "executor_persona と watcher_persona は異なること": leaving out executor_persona cannot skip it.
    let model = ScriptedModel::answering(vec![passing_verdict()]);
    let output =
        run(watcher(Language::En).inspect(&fowler_reviewing(Some("martin  FOWLER")), &model, 1));
    assert!(!output.pass);
    assert!(output.issues[0].starts_with("PRECONDITION:"), "{output:?}");
    assert_eq!(model.calls(), 0, "no model call");
    // A declared executor persona that differs does not hide the applied one.
    let mut input = fowler_reviewing(Some("Martin Fowler"));
    input.executor_persona = Some(catalog("Kent Beck"));
    assert!(!inspect(&input, vec![passing_verdict()]).pass);
    // Another applied persona passes the precondition.
    assert!(
        inspect(
            &fowler_reviewing(Some("Kent Beck")),
            vec![passing_verdict()]
        )
        .pass
    );
}

#[test]
fn precondition_executor_has_completed_or_the_verdict_is_pass_false_without_a_model_call() {
    // "executor が完了していること"
    for status in ["failed", "in_progress", "error", ""] {
        let mut input = fowler_reviewing(Some("Kent Beck"));
        if let Some(result) = input.executor_result.as_mut() {
            result.status = status.into();
        }
        let model = ScriptedModel::answering(vec![passing_verdict()]);
        let output = run(watcher(Language::Ja).inspect(&input, &model, 1));
        assert!(!output.pass, "{status}");
        assert!(
            output.issues[0].contains("executor が完了していない"),
            "{output:?}"
        );
        assert_eq!(model.calls(), 0);
    }
    for status in ["done", "completed", " Done "] {
        let mut input = fowler_reviewing(Some("Kent Beck"));
        if let Some(result) = input.executor_result.as_mut() {
            result.status = status.into();
        }
        assert!(inspect(&input, vec![passing_verdict()]).pass, "{status}");
    }
}

#[test]
fn precondition_a_task_that_needs_a_persona_fails_when_none_is_injected() {
    // "persona が必要な課題では persona が注入されていること"
    let mut input = fowler_reviewing(None);
    input.persona = None;
    input.persona_required = true;
    let model = ScriptedModel::answering(vec![passing_verdict()]);
    let output = run(watcher(Language::En).inspect(&input, &model, 1));
    assert!(!output.pass);
    assert!(output.issues[0].starts_with("PRECONDITION: the task needs a persona"));
    assert_eq!(model.calls(), 0);
}

#[test]
fn precondition_a_task_that_needs_a_persona_fails_when_its_install_fails() {
    // The seed's fallback to a plain review does not meet a task that needs a persona.
    struct NoPersonaPrompt;
    impl PromptLoader for NoPersonaPrompt {
        async fn load(&self, path: &str) -> Result<Option<String>, PortError> {
            if path.contains("persona") {
                return Err(PortError::new("unreadable"));
            }
            Ok(None)
        }
    }
    let options = WatcherOptions {
        working_dir: "/w".into(),
        agent_id: "w".into(),
        language: Language::En,
        max_reasks: 1,
        allow_repairs: true,
        ..WatcherOptions::new("w")
    };
    let watcher = Watcher::new(
        options,
        NoPersonaPrompt,
        FakeStore::default(),
        FixedClock::at(1_795_000_000_000),
    );
    let mut input = fowler_reviewing(Some("Kent Beck"));
    input.persona_required = true;
    let model = ScriptedModel::answering(vec![passing_verdict()]);
    let output = run(watcher.inspect(&input, &model, 1));
    assert!(!output.pass, "{output:?}");
    assert!(
        output.issues[0].starts_with("PERSONA: the persona Martin Fowler could not be installed")
    );
    assert!(
        output
            .inspection_log
            .contains("Persona install (the persona prompt): ❌")
    );
    assert_eq!(model.calls(), 0);
}

#[test]
fn contract_issues_and_escalations_are_written_in_the_chosen_language() {
    let model = ScriptedModel::answering(vec![verdict(true, &[], "", &[])]);
    let output = run(watcher(Language::Ja).inspect(&persona_input(), &model, 1));
    assert!(!output.pass);
    assert!(
        output
            .issues
            .contains(&"CONTRACT: inspection_log が空です".to_owned()),
        "{output:?}"
    );
}
