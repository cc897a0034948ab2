//! The Watcher API from inside wasm: divergence checks, the pre-check path, a verdict through a JS QueryFn,
//! the protocol with a JS executor, the ledger.

use super::{get, js, resolve, text};
use agent_governor::wasm::memory_store::MemoryStore;
use agent_governor::wasm::watcher_api::{JsWatcher, divergence, parse_verdict, pick};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

const FOWLER: &str = "{ name: 'Martin Fowler', distortion: 'structure', values: ['refactoring'], anti_values: ['debt'], blindspot: 'up-front cost' }";
const BECK: &str = "{ name: 'Kent Beck', distortion: 'now', values: ['simplicity'], anti_values: ['speculation'], blindspot: 'future change' }";

fn watcher() -> JsWatcher {
    let store: JsValue = MemoryStore::new().into();
    let setup = js("{ agentId: 'w', now: () => 1795000000000 }");
    js_sys::Reflect::set(&setup, &"store".into(), &store).unwrap();
    JsWatcher::new(setup).unwrap()
}

fn input(artifacts: &str) -> JsValue {
    js(&format!(
        "{{ executor_result: {{ status: 'done', artifacts: {artifacts}, execution_log: 'ran', persona_applied: 'Kent Beck' }}, \
           original_request: 'design the API', persona: {FOWLER}, executor_persona: {BECK}, task_classification: 'design' }}"
    ))
}

#[wasm_bindgen_test]
fn divergence_is_checked_and_violations_are_typed_errors() {
    let report = divergence(js(BECK), js(FOWLER)).unwrap();
    assert_eq!(get(&report, "score").as_f64(), Some(1.0));
    let error = divergence(
        js(BECK),
        js("{ name: ' KENT  beck', distortion: '', values: [], anti_values: [], blindspot: '' }"),
    )
    .unwrap_err();
    assert_eq!(text(&error, "code"), "persona_precondition");
    assert_eq!(text(&error, "violation.violation"), "same_name");
    assert!(divergence(JsValue::NULL, JsValue::NULL).is_ok());
    let picked = pick(js(BECK), JsValue::UNDEFINED).unwrap();
    assert_ne!(text(&picked, "persona.name"), "Kent Beck");
}

#[wasm_bindgen_test]
async fn empty_artifacts_fail_without_asking_and_the_ledger_records_it() {
    let watcher = watcher();
    let never = js("() => { throw new Error('the model must not be asked'); }");
    let output = resolve(watcher.inspect(input("[]"), never)).await.unwrap();
    assert_eq!(get(&output, "pass"), JsValue::FALSE);
    assert!(text(&output, "issues.0").starts_with("CRITICAL"));
    assert_eq!(text(&output, "persona_applied"), "Martin Fowler");
    let ledger = resolve(watcher.ledger()).await.unwrap();
    assert_eq!(js_sys::Array::from(&ledger).length(), 1);
    assert_eq!(text(&ledger, "0.component"), "watcher");
}

#[wasm_bindgen_test]
async fn a_verdict_through_a_query_fn_keeps_the_contract() {
    let query = js(
        "() => ({ structuredOutput: { pass: true, issues: [], inspection_log: 'checked', blindspots_covered: ['future change: checked'], \
                    misclassification_detected: false, reclassification_suggestion: null, trade_offs_acknowledged: true } })",
    );
    let output = resolve(watcher().inspect(input("['api.md']"), query))
        .await
        .unwrap();
    assert_eq!(get(&output, "pass"), JsValue::TRUE);
    assert!(text(&output, "inspection_log").starts_with("## Persona declaration"));
    let throwing = js("() => { throw new Error('model down'); }");
    let output = resolve(watcher().inspect(input("['api.md']"), throwing))
        .await
        .unwrap();
    assert_eq!(get(&output, "pass"), JsValue::FALSE);
    assert!(text(&output, "issues.0").contains("model down"));
}

#[wasm_bindgen_test]
async fn the_protocol_escalates_after_three_rounds() {
    let query = js(
        "() => ({ structuredOutput: { pass: false, issues: ['still wrong'], inspection_log: 'checked', blindspots_covered: ['x'], \
                    misclassification_detected: false, reclassification_suggestion: null, trade_offs_acknowledged: false } })",
    );
    let rerun = js(
        "(issues, round) => ({ status: 'done', artifacts: [`v${round}.md`], execution_log: issues.join(';'), persona_applied: null })",
    );
    let result = resolve(watcher().run_protocol(input("['v1.md']"), query, rerun))
        .await
        .unwrap();
    assert_eq!(get(&result, "agreed"), JsValue::FALSE);
    assert_eq!(js_sys::Array::from(&get(&result, "rounds")).length(), 3);
    assert_eq!(text(&result, "escalation.to"), "human");
    assert_eq!(text(&result, "escalation.last_artifacts.0"), "v3.md");
    let error = resolve(watcher().run_protocol(input("['v1.md']"), js("() => ({})"), js("'no'")))
        .await
        .unwrap_err();
    assert_eq!(text(&error, "path"), "rerunExecutor");
}

#[wasm_bindgen_test]
fn verdicts_parse_from_model_text() {
    let parsed = parse_verdict("Verdict:\n```json\n{\"pass\": false, \"issues\": [\"CRITICAL: x\"], \"inspection_log\": \"l\", \"blindspots_covered\": [], \"misclassification_detected\": false, \"reclassification_suggestion\": null, \"trade_offs_acknowledged\": false}\n```".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&parsed, "ok"), JsValue::TRUE);
    let broken = parse_verdict("{\"pass\": 3}".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(text(&broken, "error.path"), "pass");
}
