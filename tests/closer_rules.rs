//! Every rule of seed 001 (Closer) as a named test, over a scripted model and an in-memory prompt loader.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::closer::*;
use agent_governor::language::Language;
use agent_governor::llm::{QueryOptions, QueryReply};
use agent_governor::ports::{Llm, NoPromptFiles, PortError, PromptLoader};
use agent_governor::prompts::{
    PromptError, PromptRequest, PromptSource, ResolutionStatus, render_prompt, resolve_prompt,
    split_front_matter,
};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

fn run<F: std::future::Future>(future: F) -> F::Output {
    futures::executor::block_on(future)
}

/// A model that answers from a script and records every prompt and schema it was given.
#[derive(Default)]
struct ScriptedModel {
    answers: RefCell<VecDeque<Result<QueryReply, PortError>>>,
    prompts: RefCell<Vec<String>>,
    schemas: RefCell<Vec<Value>>,
}

impl ScriptedModel {
    fn answering(answers: Vec<Result<QueryReply, PortError>>) -> Self {
        Self {
            answers: RefCell::new(answers.into()),
            ..Self::default()
        }
    }
}

fn structured(value: Value) -> Result<QueryReply, PortError> {
    Ok(QueryReply {
        structured_output: Some(value),
        ..QueryReply::default()
    })
}

fn text(answer: &str) -> Result<QueryReply, PortError> {
    Ok(QueryReply {
        text: Some(answer.to_owned()),
        ..QueryReply::default()
    })
}

impl Llm for ScriptedModel {
    async fn query(&self, prompt: &str, options: &QueryOptions) -> Result<QueryReply, PortError> {
        self.prompts.borrow_mut().push(prompt.to_owned());
        self.schemas
            .borrow_mut()
            .push(options.output_schema.clone());
        self.answers
            .borrow_mut()
            .pop_front()
            .unwrap_or_else(|| Err(PortError::new("no more answers")))
    }
}

#[derive(Default)]
struct Files(BTreeMap<String, String>);

impl PromptLoader for Files {
    async fn load(&self, path: &str) -> Result<Option<String>, PortError> {
        Ok(self.0.get(path).cloned())
    }
}

fn options() -> CloserOptions {
    CloserOptions {
        working_dir: "/work".into(),
        agent_id: "iterator".into(),
        confidence_threshold: 0.8,
        max_reasks: 1,
        language: Language::En,
        allow_repairs: true,
        ..CloserOptions::new("", "a")
    }
}

fn input() -> CloserInput {
    CloserInput {
        structured_output: json!({ "status": "implemented", "tests": "passing" }),
        step_id: "complete.issue".into(),
        c3l: C3l {
            c2: "complete".into(),
            c3: "issue".into(),
        },
        context: Some(serde_json::from_value(json!({ "issueNumber": 123 })).unwrap()),
        previous: None,
        required_items: vec![],
        evidence: vec![],
    }
}

fn answer(all_complete: bool, confidence: f64, items: &[(&str, bool)]) -> Value {
    json!({
        "checklist": items.iter().map(|(id, done)| json!({ "id": id, "description": format!("task {id}"), "completed": done, "evidence": "seen" })).collect::<Vec<_>>(),
        "allComplete": all_complete,
        "summary": if all_complete { "all done" } else { "work remains" },
        "pendingActions": if all_complete { json!([]) } else { json!(["finish the rest"]) },
        "confidence": confidence,
    })
}

fn output(all_complete: bool, confidence: f64, items: &[(&str, bool)]) -> CloserStructuredOutput {
    serde_json::from_value(answer(all_complete, confidence, items)).unwrap()
}

fn decide(output: &CloserStructuredOutput) -> CompletionDecision {
    decide_completion(output, &DecisionOptions::default())
}

// ---- the decision: complete = allComplete && confidence >= 0.8, failing closed ----

#[test]
fn complete_when_all_complete_and_confidence_at_least_0_8() {
    assert!(decide(&output(true, 0.8, &[("a", true)])).complete);
    assert!(decide(&output(true, 0.95, &[("a", true), ("b", true)])).complete);
}

#[test]
fn not_complete_below_the_confidence_threshold() {
    let decision = decide(&output(true, 0.79, &[("a", true)]));
    assert!(!decision.complete);
    assert!(decision.reasons[0].contains("below the threshold 0.8"));
}

#[test]
fn threshold_is_configurable() {
    let options = DecisionOptions {
        confidence_threshold: 0.95,
        ..DecisionOptions::default()
    };
    assert!(!decide_completion(&output(true, 0.9, &[("a", true)]), &options).complete);
}

#[test]
fn not_complete_when_the_model_says_not_all_complete() {
    assert!(!decide(&output(false, 0.99, &[("a", true)])).complete);
}

#[test]
fn fail_closed_all_complete_true_with_an_item_not_completed() {
    let decision = decide(&output(true, 0.99, &[("impl", true), ("tests", false)]));
    assert!(!decision.complete);
    assert!(
        decision
            .reasons
            .iter()
            .any(|r| r.contains("not completed: tests")),
        "{decision:?}"
    );
}

#[test]
fn fail_closed_the_all_complete_confidence_0_99_trick_from_model_text() {
    let raw = std::fs::read_to_string(format!(
        "{}/tests/fixtures/model_outputs/all_complete_trick.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let parsed: CloserStructuredOutput = agent_governor::llm::parse_structured(&raw).unwrap().value;
    assert!(!decide(&parsed).complete);
}

#[test]
fn fail_closed_empty_checklist() {
    let decision = decide(&output(true, 0.99, &[]));
    assert!(!decision.complete);
    assert!(decision.reasons.iter().any(|r| r.contains("empty")));
}

#[test]
fn fail_closed_confidence_outside_0_to_1() {
    for confidence in [1.5, -0.1] {
        let decision = decide(&output(true, confidence, &[("a", true)]));
        assert!(!decision.complete);
        assert!(
            decision
                .reasons
                .iter()
                .any(|r| r.contains("not a number in [0, 1]")),
            "{decision:?}"
        );
    }
}

#[test]
fn fail_closed_duplicate_item_ids() {
    let decision = decide(&output(true, 0.9, &[("a", true), ("a", true)]));
    assert!(!decision.complete);
    assert!(
        decision
            .reasons
            .iter()
            .any(|r| r.contains("duplicate checklist ids: a"))
    );
}

#[test]
fn a_failed_required_objective_fact_forces_not_complete() {
    let options = DecisionOptions {
        evidence: vec![
            ObjectiveEvidence {
                id: "tests".into(),
                description: "3 tests failed".into(),
                passed: false,
                required: true,
            },
            ObjectiveEvidence {
                id: "lint".into(),
                description: "warnings".into(),
                passed: false,
                required: false,
            },
        ],
        ..DecisionOptions::default()
    };
    let decision = decide_completion(&output(true, 1.0, &[("a", true)]), &options);
    assert!(!decision.complete);
    assert_eq!(
        decision.reasons,
        ["required evidence `tests` failed: 3 tests failed"]
    );
}

#[test]
fn required_checklist_items_must_be_present_and_completed() {
    let options = DecisionOptions {
        required_items: vec!["tests".into(), "commit".into()],
        ..DecisionOptions::default()
    };
    let decision = decide_completion(&output(true, 1.0, &[("tests", true)]), &options);
    assert_eq!(
        decision.reasons,
        ["required item `commit` is missing from the checklist"]
    );
}

// ---- the retry flow ----

#[test]
fn iteration_summary_lists_unfinished_items_and_pending_actions() {
    let summary = format_iteration_summary(
        &output(false, 0.6, &[("impl", true), ("tests", false)]),
        &["confidence 0.6 is below the threshold 0.8".into()],
    );
    assert!(summary.contains("- [tests] task tests (seen)"));
    assert!(!summary.contains("[impl]"));
    assert!(summary.contains("Pending actions:\n- finish the rest"));
    assert!(summary.contains("below the threshold"));
}

#[test]
fn incomplete_result_carries_the_next_iteration_input_into_the_retry_prompt() {
    let model = ScriptedModel::answering(vec![
        structured(answer(false, 0.5, &[("impl", true), ("tests", false)])),
        structured(answer(true, 0.9, &[("impl", true), ("tests", true)])),
    ]);
    let closer = Closer::new(options(), NoPromptFiles);
    let first = run(closer.check(&input(), &model));
    assert!(!first.complete);
    let carried = first.next_iteration_input.clone().unwrap();
    assert!(carried.contains("[tests]"));
    let retry = CloserInput {
        previous: Some(Box::new(first)),
        ..input()
    };
    let second = run(closer.check(&retry, &model));
    assert!(second.complete, "{second:?}");
    assert_eq!(
        second.prompt_path.as_deref(),
        Some("prompts/steps/complete/issue/f_default_retry.md")
    );
    assert!(model.prompts.borrow()[1].contains(&carried));
}

#[test]
fn pending_actions_reach_the_model_on_a_retry_for_every_shipped_c3() {
    // Seed 001: pendingActions and the previous summary are carried into the next iteration, for issue, pr
    // and task alike, through each one's f_default_retry.md.
    for c3 in ["issue", "pr", "task"] {
        let model = ScriptedModel::answering(vec![
            structured(answer(false, 0.5, &[("impl", true), ("tests", false)])),
            structured(answer(true, 0.9, &[("impl", true), ("tests", true)])),
        ]);
        let closer = Closer::new(options(), NoPromptFiles);
        let first_input = CloserInput {
            c3l: C3l {
                c2: "complete".into(),
                c3: c3.into(),
            },
            ..input()
        };
        let first = run(closer.check(&first_input, &model));
        let carried = first.next_iteration_input.clone().unwrap();
        let retry = CloserInput {
            previous: Some(Box::new(first)),
            ..first_input
        };
        let second = run(closer.check(&retry, &model));
        assert_eq!(
            second.prompt_path.as_deref(),
            Some(format!("prompts/steps/complete/{c3}/f_default_retry.md").as_str())
        );
        let prompt = &model.prompts.borrow()[1];
        assert!(prompt.contains(&carried), "{c3}: {prompt}");
        assert!(
            prompt.contains("finish the rest"),
            "{c3}: the pending action"
        );
    }
}

#[test]
fn completion_handler_reports_not_checked_then_the_summary_and_stops_at_the_iteration_limit() {
    let model = ScriptedModel::answering(vec![
        structured(answer(false, 0.4, &[("a", false)])),
        structured(answer(false, 0.4, &[("a", false)])),
    ]);
    let c3l = C3l {
        c2: "complete".into(),
        c3: "issue".into(),
    };
    let closer = Closer::new(options(), NoPromptFiles);
    let mut handler = CloserCompletionHandler::new("complete.issue".into(), c3l, 2);
    assert_eq!(handler.completion_description(), "Not checked");
    assert!(!handler.is_complete());
    run(handler.check_completion(&closer, Some(json!({ "done": false })), &model));
    assert_eq!(handler.completion_description(), "work remains");
    run(handler.check_completion(&closer, Some(json!({ "done": false })), &model));
    assert!(handler.is_exhausted());
    let stopped =
        run(handler.check_completion(&closer, Some(json!({ "done": false })), &model)).clone();
    assert!(stopped.error.unwrap().contains("iteration limit (2)"));
    assert_eq!(model.prompts.borrow().len(), 2, "no query past the limit");
    assert_eq!(handler.iterations(), 2);
}

// ---- the query: schema sent, text parsed, bounded re-ask, fail closed ----

#[test]
fn check_sends_the_strict_schema_and_decides_from_structured_output() {
    let model = ScriptedModel::answering(vec![structured(answer(true, 0.9, &[("a", true)]))]);
    let result = run(Closer::new(options(), NoPromptFiles).check(&input(), &model));
    assert!(result.complete);
    assert_eq!(result.queries, 1);
    assert_eq!(model.schemas.borrow()[0], options().answer_schema().schema);
    assert_eq!(
        model.schemas.borrow()[0]["properties"]["checklist"]["maxItems"],
        json!(100)
    );
    assert_eq!(result.prompt_status, Some(ResolutionStatus::Found));
    assert!(
        result
            .prompt_used
            .unwrap()
            .contains("\"tests\": \"passing\"")
    );
}

#[test]
fn an_unusable_answer_is_asked_again_once_with_the_concrete_error() {
    let model = ScriptedModel::answering(vec![
        text("I think it is done."),
        text(&format!(
            "```json\n{}\n```",
            answer(true, 0.9, &[("a", true)])
        )),
    ]);
    let result = run(Closer::new(options(), NoPromptFiles).check(&input(), &model));
    assert!(result.complete, "{result:?}");
    assert_eq!(result.queries, 2);
    assert!(model.prompts.borrow()[1].contains("Your previous answer could not be used"));
    assert!(model.prompts.borrow()[1].contains("no JSON object"));
}

#[test]
fn still_unusable_after_the_reask_fails_closed_with_the_error() {
    let model = ScriptedModel::answering(vec![
        structured(json!({ "allComplete": "yes" })),
        structured(json!({ "allComplete": true })),
    ]);
    let result = run(Closer::new(options(), NoPromptFiles).check(&input(), &model));
    assert!(!result.complete);
    assert_eq!(result.queries, 2);
    assert!(result.error.unwrap().contains("could not be used"));
    assert_eq!(result.output, CloserStructuredOutput::default());
}

#[test]
fn reasks_are_configurable() {
    let model = ScriptedModel::answering(vec![
        text("no"),
        text("no"),
        text("no"),
        structured(answer(true, 0.9, &[("a", true)])),
    ]);
    let closer = Closer::new(
        CloserOptions {
            max_reasks: 3,
            ..options()
        },
        NoPromptFiles,
    );
    assert!(run(closer.check(&input(), &model)).complete);
    let model = ScriptedModel::answering(vec![
        text("no"),
        structured(answer(true, 0.9, &[("a", true)])),
    ]);
    let closer = Closer::new(
        CloserOptions {
            max_reasks: 0,
            ..options()
        },
        NoPromptFiles,
    );
    let result = run(closer.check(&input(), &model));
    assert!(!result.complete);
    assert_eq!(result.queries, 1);
}

#[test]
fn a_query_error_fails_closed() {
    let model = ScriptedModel::answering(vec![
        Ok(QueryReply {
            error: Some("rate limited".into()),
            ..QueryReply::default()
        }),
        Err(PortError::new("network down")),
    ]);
    let result = run(Closer::new(options(), NoPromptFiles).check(&input(), &model));
    assert!(!result.complete);
    assert!(result.error.unwrap().contains("network down"));
}

// ---- C3L prompts ----

fn request<'a>(adaptation: Option<&'a str>) -> PromptRequest<'a> {
    PromptRequest {
        working_dir: "/work",
        agent_id: "iterator",
        c2: "complete",
        c3: "issue",
        edition: "default",
        adaptation,
    }
}

#[test]
fn c3l_path_is_agent_prompts_steps_c2_c3_f_default_md_and_host_files_win() {
    let mut files = Files::default();
    files.0.insert(
        "/work/.agent/iterator/prompts/steps/complete/issue/f_default.md".into(),
        "host {{input}}".into(),
    );
    let resolved = run(resolve_prompt(&files, &request(None))).unwrap();
    assert_eq!(
        (resolved.status, resolved.source),
        (ResolutionStatus::Found, PromptSource::Host)
    );
    assert_eq!(
        resolved.path,
        "/work/.agent/iterator/prompts/steps/complete/issue/f_default.md"
    );
}

#[test]
fn c3l_retry_adaptation_falls_back_to_f_default() {
    let mut files = Files::default();
    files.0.insert(
        "/work/.agent/iterator/prompts/steps/complete/issue/f_default.md".into(),
        "host".into(),
    );
    let resolved = run(resolve_prompt(&files, &request(Some("retry")))).unwrap();
    assert_eq!(resolved.status, ResolutionStatus::Fallback);
    assert_eq!(
        resolved.tried,
        ["/work/.agent/iterator/prompts/steps/complete/issue/f_default_retry.md"]
    );
}

#[test]
fn c3l_embedded_defaults_work_with_no_files() {
    let resolved = run(resolve_prompt(&NoPromptFiles, &request(Some("retry")))).unwrap();
    assert_eq!(
        (resolved.status, resolved.source),
        (ResolutionStatus::Found, PromptSource::Embedded)
    );
    assert_eq!(
        resolved.path,
        "prompts/steps/complete/issue/f_default_retry.md"
    );
}

#[test]
fn c3l_nothing_found_lists_every_path_tried() {
    let request = PromptRequest {
        c3: "unknown",
        ..request(Some("retry"))
    };
    let PromptError::NotFound { tried } =
        run(resolve_prompt(&NoPromptFiles, &request)).unwrap_err()
    else {
        panic!()
    };
    assert_eq!(
        tried,
        [
            "/work/.agent/iterator/prompts/steps/complete/unknown/f_default_retry.md",
            "/work/.agent/iterator/prompts/steps/complete/unknown/f_default.md",
            "prompts/steps/complete/unknown/f_default_retry.md",
            "prompts/steps/complete/unknown/f_default.md",
        ]
    );
}

#[test]
fn c3l_rejects_path_traversal_in_segments() {
    for bad in ["..", "a/b", "", "x..y"] {
        let request = PromptRequest {
            c3: bad,
            ..request(None)
        };
        assert!(
            matches!(
                run(resolve_prompt(&NoPromptFiles, &request)),
                Err(PromptError::InvalidSegment { .. })
            ),
            "{bad}"
        );
    }
}

#[test]
fn the_seeds_prompt_example_renders_exactly() {
    let file = std::fs::read_to_string(format!(
        "{}/tests/fixtures/seed_prompt_f_default.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let input = "{\n  \"status\": \"done\"\n}";
    let variables = BTreeMap::from([
        ("input".to_owned(), json!(input)),
        ("step_id".to_owned(), json!("complete.issue")),
    ]);
    let rendered = render_prompt(&file, &variables).unwrap();
    let expected = "\n## 完了判定\n\n以下の structured output を分析し、タスクの完了状態を検証してください。\n\n### 入力データ\n\n{\n  \"status\": \"done\"\n}\n\n### チェック項目\n\n1. コード実装が完了しているか\n2. テストが通過しているか\n3. 変更がコミットされているか\n\n各項目について completed: true/false と evidence を出力してください。\n";
    assert_eq!(rendered, expected);
}

#[test]
fn a_declared_param_that_is_not_given_is_an_error_naming_it() {
    let file = "---\nparams:\n  - step_id\n  - issue_title\n---\n{{input}}";
    let variables = BTreeMap::from([
        ("input".to_owned(), json!("x")),
        ("step_id".to_owned(), json!("s")),
    ]);
    assert_eq!(
        render_prompt(file, &variables).unwrap_err(),
        PromptError::MissingParam("issue_title".into())
    );
}

#[test]
fn front_matter_accepts_block_and_flow_lists_and_rejects_garbage() {
    assert_eq!(
        split_front_matter("---\nparams: [a, 'b']\n---\nbody")
            .unwrap()
            .0
            .params,
        ["a", "b"]
    );
    assert_eq!(
        split_front_matter("no front matter").unwrap().1,
        "no front matter"
    );
    assert!(split_front_matter("---\nparams:\n  - a\nbody never closed").is_err());
    assert!(split_front_matter("---\njust words\n---\n").is_err());
}

#[test]
fn an_undefined_template_variable_is_an_error_not_blank_text() {
    let variables = BTreeMap::from([("input".to_owned(), json!("x"))]);
    assert!(matches!(
        render_prompt("{{ not_given }}", &variables),
        Err(PromptError::Render(_))
    ));
}

#[test]
fn reasons_are_written_in_the_chosen_language() {
    let japanese = DecisionOptions {
        language: Language::Ja,
        ..DecisionOptions::default()
    };
    let decision = decide_completion(
        &output(true, 0.5, &[("impl", true), ("tests", false)]),
        &japanese,
    );
    assert!(!decision.complete);
    assert!(
        decision
            .reasons
            .iter()
            .any(|r| r == "confidence 0.5 は閾値 0.8 を下回っています"),
        "{:?}",
        decision.reasons
    );
    assert!(
        decision
            .reasons
            .iter()
            .any(|r| r.starts_with("allComplete は true ですが"))
    );
    let model = ScriptedModel::answering(vec![]);
    let closer = Closer::new(
        CloserOptions {
            language: Language::Ja,
            ..options()
        },
        NoPromptFiles,
    );
    let failed = run(closer.check(&input(), &model));
    assert!(
        failed.reasons[0].starts_with("モデルの回答を使えません"),
        "{failed:?}"
    );
}
