//! The answer-parser corpus: every case of tests/fixtures/corpus/ through its parser, tallied as correct
//! parse, typed reject, false reject, wrong accept and trap. Wrong accepts and traps must be zero; correct
//! parses and typed rejects at least 99% of the cases.
//!
//! generated.jsonl comes from `node scripts/generate-answer-corpus.mjs`; local-model/ holds answers the
//! local model wrote without a grammar (`node scripts/record-model-answers.mjs`), labelled in labels.json.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::closer::CloserStructuredOutput;
use agent_governor::llm::{ModelAnswer, ParseOptions, StructuredError, parse_answer};
use agent_governor::reflector::ModelReflection;
use agent_governor::watcher::ModelVerdict;
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::catch_unwind;
use std::path::PathBuf;

struct Case {
    id: String,
    parser: String,
    input: String,
    expect: Value,
    options: ParseOptions,
}

/// A case's facts about its text: `{ startsInReasoning?, finishReason? }`.
fn options_of(value: &Value) -> ParseOptions {
    ParseOptions {
        starts_in_reasoning: value["startsInReasoning"].as_bool().unwrap_or(false),
        cut_off: value["finishReason"].as_str() == Some("length"),
        ..ParseOptions::default()
    }
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus")
}

fn cases() -> Vec<Case> {
    let generated = std::fs::read_to_string(corpus_dir().join("generated.jsonl")).unwrap();
    let mut cases: Vec<Case> = generated
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let case: Value = serde_json::from_str(line).unwrap();
            Case {
                id: case["id"].as_str().unwrap().to_owned(),
                parser: case["parser"].as_str().unwrap().to_owned(),
                input: case["input"].as_str().unwrap().to_owned(),
                expect: case["expect"].clone(),
                options: options_of(&case["options"]),
            }
        })
        .collect();
    let local = corpus_dir().join("local-model");
    let labels: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(local.join("labels.json")).unwrap()).unwrap();
    for (file, expect) in labels {
        let parser = file.split('-').next().unwrap().to_owned();
        cases.push(Case {
            id: format!("local-model/{file}"),
            parser,
            input: std::fs::read_to_string(local.join(&file)).unwrap(),
            expect,
            options: ParseOptions::default(),
        });
    }
    cases
}

/// The parse as plain data: `Ok(canonical value)` or `Err(kind)`.
fn parse_as<T: ModelAnswer>(text: &str, options: ParseOptions) -> Result<Value, String> {
    parse_answer::<T>(text, options)
        .map(|parsed| serde_json::to_value(parsed.value).unwrap())
        .map_err(|error: StructuredError| {
            serde_json::to_value(error.kind)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
}

fn parse(parser: &str, text: &str, options: ParseOptions) -> Result<Value, String> {
    match parser {
        "closer" => parse_as::<CloserStructuredOutput>(text, options),
        "watcher" => parse_as::<ModelVerdict>(text, options),
        "reflector" => parse_as::<ModelReflection>(text, options),
        other => panic!("unknown parser {other}"),
    }
}

#[derive(Default)]
struct Tally {
    correct: usize,
    typed_reject: usize,
    false_reject: usize,
    wrong_accept: usize,
    trap: usize,
}

#[test]
fn the_corpus_has_no_wrong_accept_and_no_trap() {
    let cases = cases();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let local = cases
        .iter()
        .filter(|c| c.id.starts_with("local-model/"))
        .count();
    assert!(local >= 100, "only {local} local-model answers");
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut problems = Vec::new();
    for case in &cases {
        let outcome = catch_unwind(|| parse(&case.parser, &case.input, case.options));
        let tally = tallies.entry(case.parser.clone()).or_default();
        match (outcome, case.expect.get("value"), case.expect.get("reject")) {
            (Err(_), _, _) => {
                tally.trap += 1;
                problems.push(format!("{}: trapped", case.id));
            }
            (Ok(Ok(value)), Some(expected), _) if &value == expected => tally.correct += 1,
            (Ok(Ok(value)), _, _) => {
                tally.wrong_accept += 1;
                problems.push(format!("{}: wrong accept {value}", case.id));
            }
            (Ok(Err(kind)), _, Some(expected)) if expected.as_str() == Some(kind.as_str()) => {
                tally.typed_reject += 1
            }
            (Ok(Err(kind)), _, Some(expected)) => {
                // Refused, as it should be, but for another reason than the one expected.
                tally.false_reject += 1;
                problems.push(format!(
                    "{}: rejected as {kind}, expected {expected}",
                    case.id
                ));
            }
            (Ok(Err(kind)), _, None) => {
                tally.false_reject += 1;
                problems.push(format!("{}: false reject ({kind})", case.id));
            }
        }
    }
    println!("\nparser     cases  correct  typed-reject  false-reject  wrong-accept  trap");
    let mut total = Tally::default();
    for (parser, tally) in &tallies {
        let count = tally.correct
            + tally.typed_reject
            + tally.false_reject
            + tally.wrong_accept
            + tally.trap;
        println!(
            "{parser:<10} {count:>5}  {:>7}  {:>12}  {:>12}  {:>12}  {:>4}",
            tally.correct, tally.typed_reject, tally.false_reject, tally.wrong_accept, tally.trap
        );
        total.correct += tally.correct;
        total.typed_reject += tally.typed_reject;
        total.false_reject += tally.false_reject;
        total.wrong_accept += tally.wrong_accept;
        total.trap += tally.trap;
    }
    println!(
        "{:<10} {:>5}  {:>7}  {:>12}  {:>12}  {:>12}  {:>4}   (local-model answers: {local})",
        "all",
        cases.len(),
        total.correct,
        total.typed_reject,
        total.false_reject,
        total.wrong_accept,
        total.trap
    );
    let usable = cases
        .iter()
        .filter(|case| case.expect.get("value").is_some())
        .count();
    println!(
        "false-reject rate: {} of {usable} usable answers ({:.2}%); wrong accepts: {}",
        total.false_reject,
        100.0 * total.false_reject as f64 / usable.max(1) as f64,
        total.wrong_accept
    );
    for problem in &problems {
        println!("  {problem}");
    }
    assert_eq!(total.wrong_accept, 0, "wrong accepts");
    assert_eq!(total.trap, 0, "traps");
    let right = (total.correct + total.typed_reject) as f64 / cases.len() as f64;
    assert!(
        right >= 0.99,
        "correct + typed reject is {:.2}%",
        right * 100.0
    );
}
