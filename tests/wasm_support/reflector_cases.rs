//! The Reflector, the Playbook and createGovernor from inside wasm.

use super::{get, js, resolve, text};
use agent_governor::wasm::memory_store::MemoryStore;
use agent_governor::wasm::reflector_api::{JsPlaybook, create_governor, parse_reflection};
use js_sys::Reflect;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn governor_with(llm: &str) -> agent_governor::wasm::reflector_api::JsGovernor {
    let ports = js("{}");
    Reflect::set(&ports, &"llm".into(), &js(llm)).unwrap();
    Reflect::set(&ports, &"store".into(), &MemoryStore::new().into()).unwrap();
    create_governor(ports).unwrap()
}

const TRAJECTORY: &str =
    "{ query: 'q', generated_result: 'r', reasoning_steps: [], used_bullet_ids: ['b-0001'] }";

#[wasm_bindgen_test]
async fn reflect_through_a_query_fn_and_tag_only_used_bullets_the_playbook_holds() {
    let governor = governor_with(
        "() => ({ structuredOutput: { insights: [{ reasoning: 'r', error_identification: '', root_cause_analysis: '', \
         correct_approach: '', key_insight: 'k' }], bullet_evaluations: [{ bullet_id: 'b-0001', tag: 'helpful', reason: '' }, \
         { bullet_id: 'b-0002', tag: 'harmful', reason: '' }] } })",
    );
    let result = resolve(governor.reflector(JsValue::UNDEFINED).unwrap().reflect(
        js(TRAJECTORY),
        "gt".into(),
        "report".into(),
        JsValue::UNDEFINED,
    ))
    .await
    .unwrap();
    assert!(get(&result, "error").is_null());
    assert_eq!(text(&result, "insights.0.key_insight"), "k");
    // The store holds no playbook: the used bullet is unknown, reported, and its tag dropped with the
    // tag of a bullet the trajectory did not use.
    assert_eq!(
        js_sys::Array::from(&get(&result, "bullet_evaluations")).length(),
        0
    );
    assert_eq!(text(&result, "unknown_bullets.0"), "b-0001");
    assert_eq!(text(&result, "dropped_evaluations.0.bullet_id"), "b-0001");
    assert_eq!(text(&result, "dropped_evaluations.1.bullet_id"), "b-0002");
}

#[wasm_bindgen_test]
async fn a_failing_llm_gives_a_result_with_the_error() {
    let governor = governor_with("() => Promise.reject(new Error('offline'))");
    let result = resolve(governor.reflector(JsValue::UNDEFINED).unwrap().reflect(
        js(TRAJECTORY),
        "".into(),
        "".into(),
        JsValue::UNDEFINED,
    ))
    .await
    .unwrap();
    assert!(text(&result, "error").contains("offline"));
    assert_eq!(js_sys::Array::from(&get(&result, "insights")).length(), 0);
    let error = resolve(governor.reflector(JsValue::UNDEFINED).unwrap().reflect(
        js("{ query: ' ', generated_result: 'x' }"),
        "".into(),
        "".into(),
        JsValue::UNDEFINED,
    ))
    .await
    .unwrap_err();
    assert_eq!(
        (text(&error, "code"), text(&error, "path")),
        ("invalid_input".into(), "trajectory.query".into())
    );
    assert!(governor.reflector(js("{ rounds: 11 }")).is_err());
    assert!(governor.reflector(js("{ rounds: 9 }")).is_ok());
}

#[wasm_bindgen_test]
fn playbook_ops_render_and_serialise() {
    let playbook = JsPlaybook::new();
    let report = playbook
        .apply_deltas(js("[{ op_id: '1', op: 'ADD', section: 's', content: 'A.' }, { op_id: '2', op: 'REMOVE', bullet_id: 'nope' }]"))
        .unwrap();
    assert_eq!(text(&report, "applied.0"), "1");
    assert_eq!(text(&report, "rejected.0.reason"), "no bullet `nope`");
    assert_eq!(
        playbook.render(),
        "## s\n[b-0001] helpful=0 harmful=0 :: A.\n\n"
    );
    let copy = JsPlaybook::from_json(playbook.to_json()).unwrap();
    assert_eq!(copy.render(), playbook.render());
    assert!(playbook.apply_deltas(js("'not ops'")).is_err());
    let parsed = parse_reflection(
        "{\"insights\": [], \"bullet_evaluations\": []}".into(),
        JsValue::UNDEFINED,
    )
    .unwrap();
    assert_eq!(get(&parsed, "ok"), JsValue::TRUE);
}
