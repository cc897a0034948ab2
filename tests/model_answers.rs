//! A model's answer is evidence, not a command: every rule of the answer parser as a named test. Drafts,
//! examples and duplicate keys never make a verdict fail open; unambiguous slips are repaired and listed.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use agent_governor::closer::{C3l, Closer, CloserInput, CloserOptions, CloserStructuredOutput};
use agent_governor::language::Language;
use agent_governor::llm::{
    ParseOptions, Parsed, QueryOptions, QueryReply, RepairKind, StructuredError,
    StructuredErrorKind, parse_answer, parse_structured,
};
use agent_governor::ports::{Llm, NoPromptFiles, PortError};
use agent_governor::reflector::ModelReflection;
use agent_governor::watcher::ModelVerdict;
use serde_json::json;
use std::cell::RefCell;
use std::collections::VecDeque;
use support::run;

fn closer(text: &str) -> Result<Parsed<CloserStructuredOutput>, StructuredError> {
    parse_structured::<CloserStructuredOutput>(text)
}

fn answer(all_complete: bool) -> String {
    json!({
        "checklist": [{ "id": "impl", "description": "implementation", "completed": all_complete, "evidence": null }],
        "allComplete": all_complete, "summary": "s", "pendingActions": [], "confidence": 0.9
    })
    .to_string()
}

// ---- 1. candidates, not the first match ----

#[test]
fn a_draft_in_a_think_block_is_never_the_answer() {
    let text = format!(
        "<think>Maybe {}? No.</think>\n{}",
        answer(true),
        answer(false)
    );
    assert!(!closer(&text).unwrap().value.all_complete);
    for tag in ["thinking", "reasoning", "analysis", "THINK"] {
        let text = format!("<{tag}>{}</{tag}> {}", answer(true), answer(false));
        assert!(!closer(&text).unwrap().value.all_complete, "{tag}");
    }
}

#[test]
fn an_unclosed_reasoning_block_at_the_end_and_an_orphan_closing_tag_are_reasoning() {
    // The model went back to thinking and was cut off: what it wrote before is not a final answer.
    let text = format!("{}\n<think>actually {}", answer(false), answer(true));
    let error = closer(&text).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::Truncated);
    assert!(error.truncated);
    let text = format!("draft {} </think> {}", answer(true), answer(false));
    assert!(!closer(&text).unwrap().value.all_complete);
}

#[test]
fn a_harmony_analysis_channel_is_reasoning() {
    let text = format!(
        "<|channel|>analysis<|message|>draft {}<|end|><|start|>assistant<|channel|>final<|message|>{}",
        answer(true),
        answer(false)
    );
    assert!(!closer(&text).unwrap().value.all_complete);
}

#[test]
fn two_answers_that_disagree_are_ambiguous_and_listed() {
    let text = format!(
        "For example: {}\nMy answer: {}",
        answer(true),
        answer(false)
    );
    let error = closer(&text).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::Ambiguous);
    assert_eq!(error.candidates.len(), 2);
}

#[test]
fn two_answers_that_agree_are_one_answer() {
    let text = format!("```json\n{}\n```\nAgain: {}", answer(false), answer(false));
    assert!(!closer(&text).unwrap().value.all_complete);
}

#[test]
fn an_answer_tag_or_a_final_answer_marker_is_preferred_to_examples() {
    let text = format!(
        "An example: {}\n<answer>{}</answer>",
        answer(true),
        answer(false)
    );
    assert!(!closer(&text).unwrap().value.all_complete);
    let text = format!(
        "Template: {}\nFinal answer: {}",
        answer(true),
        answer(false)
    );
    assert!(!closer(&text).unwrap().value.all_complete);
}

#[test]
fn a_format_template_before_the_answer_is_not_a_candidate() {
    let text = format!(
        "Output must begin with {{ and follow {{\"allComplete\": <true|false>, ...}}.\n{}",
        answer(false)
    );
    assert!(!closer(&text).unwrap().value.all_complete);
}

#[test]
fn a_lone_brace_in_reasoning_does_not_make_a_complete_answer_truncated() {
    let text = format!("<think>output must begin with {{</think>{}", answer(true));
    assert!(closer(&text).unwrap().value.all_complete);
}

#[test]
fn a_truncated_final_answer_is_truncated_even_after_a_complete_draft() {
    let full = answer(true);
    let cut = &answer(false)[..60];
    let error = closer(&format!("{full}\nCorrection: {cut}")).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::Truncated);
    assert!(error.truncated);
}

#[test]
fn a_broken_final_answer_is_never_replaced_by_an_earlier_draft() {
    let broken = r#"{"allComplete": false, "allComplete": false, "checklist": [], "summary": "s", "pendingActions": null, "confidence": 0.5}"#;
    let error = closer(&format!("{}\n{broken}", answer(true))).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::DuplicateKey);
}

// ---- 2. strict values ----

#[test]
fn duplicate_keys_are_an_error_with_the_path() {
    let text = r#"{"allComplete": false, "checklist": [], "summary": "s", "pendingActions": null, "confidence": 0.5, "allComplete": true}"#;
    let error = closer(text).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::DuplicateKey);
    assert_eq!(error.path, "allComplete");
    let nested = r#"{"allComplete": false, "checklist": [{"id": "a", "id": "b", "description": "d", "completed": true, "evidence": null}], "summary": "s", "pendingActions": null, "confidence": 0.5}"#;
    assert_eq!(closer(nested).unwrap_err().path, "checklist[0].id");
}

#[test]
fn an_alias_of_a_field_is_an_error_not_a_silent_drop() {
    let text = r#"{"allComplete": true, "all_complete": false, "checklist": [{"id": "a", "description": "d", "completed": true, "evidence": null}], "summary": "s", "pendingActions": null, "confidence": 0.9}"#;
    let error = closer(text).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::Schema);
    assert_eq!(error.path, "all_complete");
    let pending = r#"{"allComplete": false, "pending_actions": ["x"], "checklist": [], "summary": "s", "pendingActions": null, "confidence": 0.5}"#;
    assert_eq!(closer(pending).unwrap_err().path, "pending_actions");
}

#[test]
fn a_verdict_word_the_answer_does_not_have_is_an_error() {
    for word in ["verdict", "status", "complete", "passed"] {
        let mut value: serde_json::Value = serde_json::from_str(&answer(false)).unwrap();
        value[word] = json!("done");
        assert_eq!(
            closer(&value.to_string()).unwrap_err().path,
            word,
            "closer {word}"
        );
    }
    let verdict = r#"{"pass": false, "verdict": "pass", "issues": [], "inspection_log": "l", "blindspots_covered": [], "misclassification_detected": false, "reclassification_suggestion": null, "trade_offs_acknowledged": true}"#;
    assert_eq!(
        parse_structured::<ModelVerdict>(verdict).unwrap_err().path,
        "verdict"
    );
}

#[test]
fn other_unknown_keys_are_removed_and_reported_and_the_reflector_tolerates_them() {
    let mut value: serde_json::Value = serde_json::from_str(&answer(false)).unwrap();
    value["mood"] = json!("calm");
    assert_eq!(closer(&value.to_string()).unwrap().ignored_fields, ["mood"]);
    let reflection = r#"{"insights": [{"reasoning": "r", "error_identification": "e", "root_cause_analysis": "c", "correct_approach": "a", "key_insight": "k", "score": 3}], "bullet_evaluations": [{"bullet_id": "b-0001", "tag": "helpful", "reason": "x", "note": "seen twice"}]}"#;
    let parsed = parse_structured::<ModelReflection>(reflection).unwrap();
    assert_eq!(
        parsed.ignored_fields,
        ["bullet_evaluations[0].note", "insights[0].score"]
    );
    // A field that states a confidence (or a verdict, a status, an approval) is never set aside unread.
    let confident = reflection.replace(r#""note": "seen twice""#, r#""confidence": 1"#);
    let error = parse_structured::<ModelReflection>(&confident).unwrap_err();
    assert_eq!(
        (error.kind, error.path.as_str()),
        (
            StructuredErrorKind::Schema,
            "bullet_evaluations[0].confidence"
        )
    );
}

#[test]
fn ranges_and_limits_hold_at_parse_time() {
    for confidence in [94.0, 1.5, -0.2] {
        let mut value: serde_json::Value = serde_json::from_str(&answer(true)).unwrap();
        value["confidence"] = json!(confidence);
        let error = closer(&value.to_string()).unwrap_err();
        assert_eq!(
            (error.kind, error.path.as_str()),
            (StructuredErrorKind::Schema, "confidence"),
            "{confidence}"
        );
    }
    let mut value: serde_json::Value = serde_json::from_str(&answer(true)).unwrap();
    let item = value["checklist"][0].clone();
    value["checklist"] = json!(vec![item.clone(); 40]);
    assert!(
        closer(&value.to_string()).is_ok(),
        "40 items are within the default bound"
    );
    value["checklist"] = json!(vec![item; 101]);
    let error = closer(&value.to_string()).unwrap_err();
    assert_eq!(error.path, "checklist");
    assert!(
        error
            .message
            .contains("`maxChecklistItems` allows at most 100"),
        "{}",
        error.message
    );
    let mut value: serde_json::Value = serde_json::from_str(&answer(true)).unwrap();
    value["checklist"][0]["id"] = json!(" ");
    assert_eq!(
        closer(&value.to_string()).unwrap_err().path,
        "checklist[0].id"
    );
}

#[test]
fn json_arrays_are_never_read_as_structs() {
    let text = r#"[[{"id": "a", "description": "d", "completed": true, "evidence": null}], true, "s", null, 0.9]"#;
    assert!(closer(text).is_err());
    let item_as_array = r#"{"allComplete": true, "checklist": [["a", "d", true, null]], "summary": "s", "pendingActions": null, "confidence": 0.9}"#;
    let error = closer(item_as_array).unwrap_err();
    assert_eq!(error.path, "checklist[0]");
}

// ---- 3. repair with a trace, never of meaning ----

fn repaired(text: &str) -> Vec<RepairKind> {
    let parsed = closer(text).unwrap();
    parsed.repairs.iter().map(|repair| repair.kind).collect()
}

#[test]
fn lenient_slips_are_repaired_and_each_repair_is_listed() {
    let single = "{'allComplete': False, 'checklist': [], 'summary': 'it''s', 'pendingActions': None, 'confidence': 0.5}";
    assert!(
        closer(single).is_err(),
        "a quote inside single quotes is not guessed"
    );
    let single = "{'allComplete': False, 'checklist': [], 'summary': \"it's\", 'pendingActions': None, 'confidence': 0.5}";
    let kinds = repaired(single);
    assert!(kinds.contains(&RepairKind::SingleQuotes));
    assert!(kinds.contains(&RepairKind::PythonLiteral));
    let commented = "{\n // the verdict\n \"allComplete\": false, /* none */ \"checklist\": [], \"summary\": \"s\", \"pendingActions\": null, \"confidence\": 0.5,\n}";
    assert_eq!(
        repaired(commented),
        [
            RepairKind::Comment,
            RepairKind::Comment,
            RepairKind::TrailingComma
        ]
    );
    let unquoted = "{allComplete: false, checklist: [], summary: \"s\", pendingActions: null, confidence: 0.5}";
    assert!(
        repaired(unquoted)
            .iter()
            .all(|k| *k == RepairKind::UnquotedKey)
    );
    let multiline = "{\"allComplete\": false, \"checklist\": [], \"summary\": \"line one\nline two\", \"pendingActions\": null, \"confidence\": 0.5}";
    let parsed = closer(multiline).unwrap();
    assert_eq!(parsed.value.summary, "line one\nline two");
    assert_eq!(parsed.repairs[0].kind, RepairKind::ControlCharacter);
    let smart = "{“allComplete”: false, “checklist”: [], “summary”: “s”, “pendingActions”: null, “confidence”: 0.5}";
    assert!(
        repaired(smart)
            .iter()
            .all(|k| *k == RepairKind::SmartQuotes)
    );
}

#[test]
fn a_repair_never_completes_a_truncated_value_or_changes_a_type() {
    assert!(closer("{'allComplete': false, 'summary': 'cut").is_err());
    let typed = "{'allComplete': 'false', 'checklist': [], 'summary': 's', 'pendingActions': None, 'confidence': 0.5}";
    assert_eq!(closer(typed).unwrap_err().path, "allComplete");
}

#[test]
fn a_host_can_refuse_repaired_answers() {
    let text = format!("{},", &answer(false)[..answer(false).len() - 1]) + "}";
    let refused = parse_answer::<CloserStructuredOutput>(
        &text,
        ParseOptions {
            allow_repairs: false,
            ..ParseOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(refused.kind, StructuredErrorKind::RepairsRefused);
    assert!(
        parse_answer::<CloserStructuredOutput>(
            &answer(false),
            ParseOptions {
                allow_repairs: false,
                ..ParseOptions::default()
            }
        )
        .is_ok()
    );
}

// ---- 4. unwrapping, each recorded ----

#[test]
fn wrappers_and_envelopes_are_taken_off_and_recorded() {
    let inner: serde_json::Value = serde_json::from_str(&answer(false)).unwrap();
    let cases = [
        (json!([inner]).to_string(), RepairKind::UnwrappedArray),
        (json!(inner.to_string()).to_string(), RepairKind::DoubleEncoded),
        (json!({ "response": inner }).to_string(), RepairKind::Wrapper),
        (json!({ "closer_output": inner }).to_string(), RepairKind::Wrapper),
        (
            json!({ "tool_calls": [{ "type": "function", "function": { "name": "closer_output", "arguments": inner.to_string() } }] })
                .to_string(),
            RepairKind::ToolCall,
        ),
        (
            json!({ "content": [{ "type": "text", "text": "ok" }, { "type": "tool_use", "name": "closer_output", "input": inner }] })
                .to_string(),
            RepairKind::ToolCall,
        ),
    ];
    for (text, expected) in cases {
        let parsed = closer(&text).unwrap();
        assert!(!parsed.value.all_complete);
        assert!(
            parsed.repairs.iter().any(|repair| repair.kind == expected),
            "{text}: {:?}",
            parsed.repairs
        );
    }
    let two_calls = json!({ "tool_calls": [
        { "function": { "arguments": answer(true) } }, { "function": { "arguments": answer(false) } } ] });
    assert!(
        closer(&two_calls.to_string()).is_err(),
        "two tool calls are not one answer"
    );
    let other_tool = json!({ "tool_calls": [
        { "function": { "name": "delete_branch", "arguments": answer(false) } } ] });
    assert!(
        closer(&other_tool.to_string()).is_err(),
        "a call of another tool is not the answer"
    );
}

// ---- 5. the verdicts themselves never fail open ----

#[test]
fn a_passing_watcher_draft_before_a_failing_verdict_never_passes() {
    let verdict = |pass: bool| {
        json!({ "pass": pass, "issues": if pass { vec![] } else { vec!["CRITICAL: no auth"] }, "inspection_log": "l",
            "blindspots_covered": ["x"], "misclassification_detected": false, "reclassification_suggestion": null,
            "trade_offs_acknowledged": true })
        .to_string()
    };
    let text = format!("<think>{}</think>{}", verdict(true), verdict(false));
    assert!(!parse_structured::<ModelVerdict>(&text).unwrap().value.pass);
    let text = format!("e.g. {} but really {}", verdict(true), verdict(false));
    assert_eq!(
        parse_structured::<ModelVerdict>(&text).unwrap_err().kind,
        StructuredErrorKind::Ambiguous
    );
}

#[test]
fn a_helpful_tag_in_a_draft_never_reaches_the_reflection() {
    let reflection = |tag: &str| {
        json!({ "insights": [], "bullet_evaluations": [{ "bullet_id": "b-0001", "tag": tag, "reason": "r" }] })
            .to_string()
    };
    let text = format!(
        "<think>{}</think>{}",
        reflection("helpful"),
        reflection("harmful")
    );
    let parsed = parse_structured::<ModelReflection>(&text).unwrap();
    assert_eq!(
        serde_json::to_value(parsed.value.bullet_evaluations[0].tag).unwrap(),
        json!("harmful")
    );
}

// ---- 6. non-string and huge input ----

#[test]
fn an_input_over_the_limit_is_refused_before_any_scan() {
    let huge = format!("{} {}", "x".repeat(5 * 1024 * 1024), answer(true));
    let error = closer(&huge).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::NoJson);
    assert!(error.message.contains("at most"));
}

// ---- 7. the re-ask tells the model the exact error ----

#[derive(Default)]
struct ScriptedModel {
    answers: RefCell<VecDeque<String>>,
    prompts: RefCell<Vec<String>>,
}

impl Llm for ScriptedModel {
    async fn query(&self, prompt: &str, _options: &QueryOptions) -> Result<QueryReply, PortError> {
        self.prompts.borrow_mut().push(prompt.to_owned());
        let text = self.answers.borrow_mut().pop_front().unwrap_or_default();
        Ok(QueryReply {
            text: Some(text),
            ..QueryReply::default()
        })
    }
}

#[test]
fn the_reask_names_the_ambiguity_and_a_scripted_model_fixes_its_answer() {
    let model = ScriptedModel {
        answers: RefCell::new(
            vec![
                format!("Draft: {} Final: {}", answer(true), answer(false)),
                answer(false),
            ]
            .into(),
        ),
        ..ScriptedModel::default()
    };
    let closer = Closer::new(
        CloserOptions {
            working_dir: String::new(),
            agent_id: "a".into(),
            confidence_threshold: 0.8,
            max_reasks: 1,
            language: Language::En,
            allow_repairs: true,
            ..CloserOptions::new("", "a")
        },
        NoPromptFiles,
    );
    let input = CloserInput {
        structured_output: json!({ "status": "implemented" }),
        step_id: "s".into(),
        c3l: C3l {
            c2: "complete".into(),
            c3: "issue".into(),
        },
        context: None,
        previous: None,
        required_items: vec![],
        evidence: vec![],
    };
    let result = run(closer.check(&input, &model));
    assert!(result.error.is_none(), "{result:?}");
    assert!(!result.complete);
    assert_eq!(result.queries, 2);
    let second = &model.prompts.borrow()[1];
    assert!(second.contains("Ambiguous"), "{second}");
    assert!(second.contains("write exactly one"));
}
