//! The LLM boundary: schema emission, extraction from model text, typed parse errors, no traps.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::closer::{CloserStructuredOutput, closer_output_schema};
use agent_governor::llm::{
    Parsed, RepairKind, StructuredError, StructuredErrorKind, parse_structured,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/model_outputs/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn every_object_is_strict(schema: &Value, path: &str) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        names.sort();
        let mut required_sorted = required.clone();
        required_sorted.sort();
        assert_eq!(names, required_sorted, "every property required at {path}");
        assert_eq!(schema["additionalProperties"], json!(false), "at {path}");
        for (name, child) in properties {
            every_object_is_strict(child, &format!("{path}.{name}"));
        }
    }
    if let Some(items) = schema.get("items") {
        every_object_is_strict(items, &format!("{path}[]"));
    }
    for keyword in ["anyOf", "oneOf"] {
        for child in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            every_object_is_strict(child, path);
        }
    }
    assert!(
        schema.get("$ref").is_none()
            && schema.get("format").is_none()
            && schema.get("$schema").is_none(),
        "{path}: {schema}"
    );
}

#[test]
fn schema_is_strict_every_property_required_no_extras_no_refs() {
    let schema = closer_output_schema();
    every_object_is_strict(&schema.schema, "$");
    assert!(schema.schema.get("definitions").is_none() && schema.schema.get("$defs").is_none());
}

#[test]
fn schema_bounds_lists_by_options_and_makes_optional_fields_nullable() {
    let unbounded = closer_output_schema().schema;
    assert!(
        unbounded["properties"]["checklist"]
            .get("maxItems")
            .is_none()
    );
    let schema = agent_governor::closer::output::bounded_closer_schema(30, 7).schema;
    assert_eq!(schema["properties"]["checklist"]["maxItems"], json!(30));
    let pending = &schema["properties"]["pendingActions"];
    assert_eq!(pending["maxItems"], json!(7));
    let nullable = |s: &Value| {
        s["type"]
            .as_array()
            .is_some_and(|t| t.contains(&json!("null")))
            || s["anyOf"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x["type"] == json!("null")))
    };
    assert!(nullable(pending), "{pending}");
    assert!(nullable(
        &schema["properties"]["checklist"]["items"]["properties"]["evidence"]
    ));
    assert!(!nullable(&schema["properties"]["summary"]));
}

#[test]
fn schema_is_ready_for_openai_llama_cpp_and_ollama() {
    let schema = closer_output_schema();
    let openai = schema.openai_response_format();
    assert_eq!(openai["type"], "json_schema");
    assert_eq!(openai["json_schema"]["strict"], json!(true));
    assert_eq!(openai["json_schema"]["name"], "closer_output");
    assert_eq!(openai["json_schema"]["schema"], schema.schema);
    assert_eq!(schema.llama_cpp_json_schema(), schema.schema);
    assert_eq!(schema.ollama_format(), schema.schema);
}

fn parse(text: &str) -> Result<Parsed<CloserStructuredOutput>, StructuredError> {
    parse_structured::<CloserStructuredOutput>(text)
}

#[test]
fn extracts_bare_json() {
    let output = parse(&fixture("bare.txt")).unwrap();
    assert!(output.value.all_complete);
    assert_eq!(output.value.checklist[0].id, "impl");
    assert!(output.repairs.is_empty());
}

#[test]
fn extracts_a_fenced_block_with_prose_before_and_after() {
    let output = parse(&fixture("fenced_with_prose.txt")).unwrap().value;
    assert_eq!(output.checklist.len(), 2);
    assert_eq!(output.pending_actions.unwrap(), ["fix lint"]);
}

#[test]
fn extracts_a_balanced_object_amid_prose_minding_strings_and_escapes() {
    let output = parse(&fixture("object_amid_prose.txt")).unwrap().value;
    assert_eq!(output.checklist[0].description, "says \"done}\" in quotes");
    assert_eq!(output.summary, "ok {not json}");
}

#[test]
fn repairs_trailing_commas_and_lists_each_repair() {
    let output = parse(&fixture("trailing_commas.txt")).unwrap();
    assert_eq!(output.value.confidence, 0.9);
    assert_eq!(output.repairs.len(), 3);
    assert!(
        output
            .repairs
            .iter()
            .all(|r| r.kind == RepairKind::TrailingComma)
    );
    // commas inside strings are left alone
    let text = r#"{"checklist": [], "allComplete": false, "summary": "x,}", "pendingActions": null, "confidence": 0.5, }"#;
    assert_eq!(parse(text).unwrap().value.summary, "x,}");
}

#[test]
fn truncated_answer_is_a_typed_error_that_says_so() {
    let error = parse(&fixture("truncated.txt")).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::Truncated);
    assert!(error.truncated, "{error:?}");
    assert_eq!(error.raw, fixture("truncated.txt"));
}

#[test]
fn wrong_types_name_the_path_of_the_first_bad_field() {
    let error = parse(&fixture("wrong_types.txt")).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::Schema);
    assert_eq!(error.path, "checklist[0].completed");
    assert!(!error.truncated);
}

#[test]
fn extra_fields_are_removed_and_reported() {
    let output = parse(&fixture("extra_fields.txt")).unwrap();
    assert_eq!(output.value.confidence, 0.95);
    assert_eq!(output.ignored_fields, ["mood", "checklist[0].owner"]);
}

#[test]
fn prose_without_json_is_a_typed_error() {
    let error = parse(&fixture("prose_only.txt")).unwrap_err();
    assert_eq!(error.kind, StructuredErrorKind::NoJson);
    assert!(!error.truncated);
}

#[test]
fn huge_and_deeply_nested_inputs_are_errors_not_traps() {
    let huge = "x".repeat(10 * 1024 * 1024);
    assert!(parse(&huge).is_err());
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse(&deep).is_err());
    let deep_object = format!("{}1{}", r#"{"a":"#.repeat(50_000), "}".repeat(50_000));
    assert!(parse(&deep_object).is_err());
    let unclosed = format!("{{\"a\": {}", "{".repeat(200_000));
    assert_eq!(
        parse(&unclosed).unwrap_err().kind,
        StructuredErrorKind::Truncated
    );
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text);
    }

    #[test]
    fn random_json_like_text_never_panics(text in r#"[{}\[\]"',:\\a-zA-Z0-9 \n/*<>“”]{0,400}"#) {
        let _ = parse(&text);
    }
}
