//! The checked-in JSON Schemas are exactly what their Rust types generate. `UPDATE_SCHEMAS=1 cargo test
//! --test schemas` rewrites them after a type changes.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::closer::CloserStructuredOutput;
use agent_governor::closer::output::{CLOSER_SCHEMA_NAME, closer_output_schema};
use agent_governor::llm::OutputSchema;
use agent_governor::llm::schema::schema_file_text;

fn check(file: &str, generated: OutputSchema, embedded: OutputSchema) {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, schema_file_text(&generated.schema)).unwrap();
        return;
    }
    assert_eq!(
        embedded, generated,
        "{file} is stale: run `UPDATE_SCHEMAS=1 cargo test --test schemas`"
    );
}

#[test]
fn closer_output_schema_file_matches_its_type() {
    check(
        "src/closer/closer_output.schema.json",
        OutputSchema::of::<CloserStructuredOutput>(CLOSER_SCHEMA_NAME),
        closer_output_schema(),
    );
}

#[test]
fn watcher_verdict_schema_file_matches_its_type() {
    use agent_governor::watcher::ModelVerdict;
    use agent_governor::watcher::contract::{WATCHER_SCHEMA_NAME, watcher_verdict_schema};
    check(
        "src/watcher/watcher_verdict.schema.json",
        OutputSchema::of::<ModelVerdict>(WATCHER_SCHEMA_NAME),
        watcher_verdict_schema(),
    );
}

#[test]
fn reflection_schema_file_matches_its_type() {
    use agent_governor::reflector::ModelReflection;
    use agent_governor::reflector::models::{REFLECTION_SCHEMA_NAME, reflection_schema};
    check(
        "src/reflector/reflection.schema.json",
        OutputSchema::of::<ModelReflection>(REFLECTION_SCHEMA_NAME),
        reflection_schema(),
    );
}

#[test]
fn judgement_schema_file_matches_its_type() {
    use agent_governor::control::judgement_answer::{
        JUDGEMENT_SCHEMA_NAME, ModelJudgement, judgement_schema,
    };
    check(
        "src/control/judgement.schema.json",
        OutputSchema::of::<ModelJudgement>(JUDGEMENT_SCHEMA_NAME),
        judgement_schema(),
    );
}
