//! The exported JS API exercised from inside wasm, shared by the Node and the Chromium test binaries.

use agent_governor::wasm::executor_api::{
    JsExecutor, check_confirmation, issue, request_for, save,
};
use agent_governor::wasm::memory_store::MemoryStore;
use js_sys::{Function, JSON, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

mod closer_cases;
mod control_cases;
mod reflector_cases;
mod watcher_cases;

const SECRET: &str = "0123456789abcdef0123456789abcdef-approval";

fn js(source: &str) -> JsValue {
    Function::new_no_args(&format!("return ({source});"))
        .call0(&JsValue::NULL)
        .unwrap()
}

fn get(target: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(target.clone(), |value, key| {
        Reflect::get(&value, &key.into()).unwrap()
    })
}

fn text(target: &JsValue, path: &str) -> String {
    get(target, path)
        .as_string()
        .unwrap_or_else(|| panic!("{path} is not a string in {:?}", JSON::stringify(target)))
}

fn signer() -> JsValue {
    js(&format!("{{ keyId: 'approver', secret: '{SECRET}' }}"))
}

fn draft() -> JsValue {
    js(
        "{ node_id: 'node-1', proposed_change: { type: 'status_change', from: 'todo', to: 'done' }, \
         intent: 'finished', reason: 'checked', ui_action: 'approve_button' }",
    )
}

fn issued() -> JsValue {
    issue(draft(), signer(), JsValue::UNDEFINED).unwrap()
}

/// A skill over a status map, counting Applies; `apply_body` is the JS expression of its Apply function.
fn ports(store: &JsValue, apply_body: &str) -> JsValue {
    let make = Function::new_with_args(
        "store",
        &format!(
            "const state = {{ status: 'todo', applies: 0 }};
             return {{ store, state, keys: {{ approver: '{SECRET}' }},
               skill: {{ preview: async () => ({{ current_status: state.status }}),
                         apply: async (request) => {{ state.applies += 1; {apply_body} }} }} }};"
        ),
    );
    make.call1(&JsValue::NULL, store).unwrap()
}

fn executor(ports: &JsValue) -> JsExecutor {
    JsExecutor::new(executor_ports(ports)).unwrap()
}

/// The Executor's own options of a test's ports (the test keeps the skill's `state` beside them).
fn executor_ports(ports: &JsValue) -> JsValue {
    let copy = js_sys::Object::assign(&js_sys::Object::new(), ports.unchecked_ref());
    Reflect::delete_property(&copy, &"state".into()).unwrap();
    copy.into()
}

async fn resolve(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

fn code_and_path(error: &JsValue) -> (String, String) {
    (text(error, "code"), text(error, "path"))
}

#[wasm_bindgen_test]
fn check_confirmation_passes_a_valid_approval_and_names_bad_fields() {
    let confirmation = issued();
    let request = request_for(confirmation.clone()).unwrap();
    let input = js("{}");
    Reflect::set(&input, &"confirmation".into(), &confirmation).unwrap();
    Reflect::set(&input, &"request".into(), &request).unwrap();
    Reflect::set(&input, &"now".into(), &js_sys::Date::now().into()).unwrap();
    Reflect::set(
        &input,
        &"keys".into(),
        &js(&format!("{{ approver: '{SECRET}' }}")),
    )
    .unwrap();
    Reflect::set(&input, &"current_status".into(), &"todo".into()).unwrap();
    let verdict = check_confirmation(input.clone()).unwrap();
    assert_eq!(text(&verdict, "verdict"), "pass");

    Reflect::set(
        &get(&input, "confirmation"),
        &"node_id".into(),
        &"node-2".into(),
    )
    .unwrap();
    let verdict = check_confirmation(input.clone()).unwrap();
    assert_eq!(
        (text(&verdict, "verdict"), text(&verdict, "phase")),
        ("rejected".into(), "signature_invalid".into())
    );

    Reflect::set(
        &get(&input, "request"),
        &"apply_request".into(),
        &js("{ node_id: 7 }"),
    )
    .unwrap();
    let error = check_confirmation(input).unwrap_err();
    assert_eq!(
        code_and_path(&error),
        (
            "invalid_input".into(),
            "request.apply_request.node_id".into()
        )
    );
    assert!(error.is_instance_of::<js_sys::Error>());
}

#[wasm_bindgen_test]
fn issue_confirmation_signs_with_a_fresh_uuid_and_rejects_weak_keys() {
    let first = issued();
    let second = issued();
    assert_ne!(
        text(&first, "confirmation_id"),
        text(&second, "confirmation_id")
    );
    assert_eq!(text(&first, "confirmation_id").len(), 36);
    assert_eq!(text(&first, "signature").len(), 64);
    assert_eq!(text(&first, "confirmed_by"), "human");
    let weak = issue(
        draft(),
        js("{ keyId: 'approver', secret: 'short' }"),
        JsValue::UNDEFINED,
    )
    .unwrap_err();
    assert_eq!(
        code_and_path(&weak),
        ("invalid_key".into(), "signer.secret".into())
    );
    let bad_draft = issue(js("{ node_id: 'n' }"), signer(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(code_and_path(&bad_draft).0, "invalid_input");
    let bad_clock = issue(draft(), signer(), JsValue::from(f64::NAN)).unwrap_err();
    assert_eq!(
        code_and_path(&bad_clock),
        ("invalid_input".into(), "now".into())
    );
}

async fn setup(apply_body: &str) -> (JsValue, JsValue, JsExecutor) {
    let store: JsValue = MemoryStore::new().into();
    let confirmation = issued();
    resolve(save(store.clone(), confirmation.clone()).unwrap())
        .await
        .unwrap();
    let ports = ports(&store, apply_body);
    let executor = executor(&ports);
    (ports, confirmation, executor)
}

#[wasm_bindgen_test]
async fn execute_applies_once_then_rejects_already_consumed() {
    let (ports, confirmation, executor) = setup(
        "state.status = request.confirm_status; return { status: 200, body: { applied: true } };",
    )
    .await;
    let request = request_for(confirmation).unwrap();
    let first = resolve(executor.execute(request.clone())).await.unwrap();
    assert_eq!(text(&first, "outcome"), "applied");
    assert_eq!(get(&first, "consumed"), JsValue::TRUE);
    Reflect::set(&get(&ports, "state"), &"status".into(), &"todo".into()).unwrap();
    let second = resolve(executor.execute(request)).await.unwrap();
    assert_eq!(text(&second, "outcome"), "rejected");
    assert_eq!(text(&second, "rejection.phase"), "already_consumed");
    assert_eq!(get(&ports, "state.applies").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn two_concurrent_executes_apply_once() {
    let (ports, confirmation, executor) = setup(
        "await new Promise((r) => setTimeout(r, 5)); state.status = request.confirm_status; return { status: 200, body: { applied: true } };",
    )
    .await;
    let request = request_for(confirmation).unwrap();
    let both = js_sys::Array::of2(
        &executor.execute(request.clone()),
        &executor.execute(request),
    );
    let results = resolve(Promise::all(&both)).await.unwrap();
    let outcomes: Vec<String> = js_sys::Array::from(&results)
        .iter()
        .map(|r| text(&r, "outcome"))
        .collect();
    assert!(
        outcomes.contains(&"applied".to_owned()) && outcomes.contains(&"rejected".to_owned()),
        "{outcomes:?}"
    );
    assert_eq!(get(&ports, "state.applies").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn a_throwing_or_rejecting_callback_gives_outcome_error_and_the_instance_keeps_working() {
    for body in [
        "throw new Error('skill exploded');",
        "return Promise.reject(new TypeError('skill exploded'));",
    ] {
        let (_ports, confirmation, executor) = setup(body).await;
        let result = resolve(executor.execute(request_for(confirmation).unwrap()))
            .await
            .unwrap();
        assert_eq!(text(&result, "outcome"), "error");
        assert!(text(&result, "error.message").contains("skill exploded"));
        assert_eq!(text(&result, "confirmation_state"), "in_flight");
    }
    let (_ports, confirmation, executor) = setup("return { status: 'two hundred' };").await;
    let result = resolve(executor.execute(request_for(confirmation).unwrap()))
        .await
        .unwrap();
    assert_eq!(text(&result, "outcome"), "error");
    assert!(text(&result, "error.message").contains("skill.apply answered with the wrong shape"));
    // the module still answers after all of that
    assert_eq!(text(&issued(), "confirmed_by"), "human");
}

#[wasm_bindgen_test]
async fn execute_batch_stops_at_the_first_failure() {
    let (ports, first, executor) = setup(
        "state.status = 'todo'; return state.applies === 2 ? { status: 500, body: { message: 'down' } } : { status: 200, body: { applied: true } };",
    )
    .await;
    let store = get(&ports, "store");
    let others: Vec<JsValue> = (0..2).map(|_| issued()).collect();
    for confirmation in &others {
        resolve(save(store.clone(), confirmation.clone()).unwrap())
            .await
            .unwrap();
    }
    let requests = js_sys::Array::new();
    for confirmation in std::iter::once(&first).chain(&others) {
        requests.push(&request_for(confirmation.clone()).unwrap());
    }
    let batch = resolve(executor.execute_batch(requests.into()))
        .await
        .unwrap();
    assert_eq!(js_sys::Array::from(&get(&batch, "applied")).length(), 1);
    assert_eq!(text(&batch, "failed"), text(&others[0], "confirmation_id"));
    let not_attempted = js_sys::Array::from(&get(&batch, "not_attempted"));
    assert_eq!(
        not_attempted.get(0).as_string(),
        Some(text(&others[1], "confirmation_id"))
    );
}

#[wasm_bindgen_test]
async fn malformed_requests_reject_with_code_and_path() {
    let (_ports, _confirmation, executor) =
        setup("return { status: 200, body: { applied: true } };").await;
    let cases = [
        (
            "{ confirmation_id: 'c', apply_request: { node_id: 'n', confirm_status: 'done', intent: 'i' } }",
            "request.apply_request",
        ),
        (
            "{ confirmation_id: 42, apply_request: {} }",
            "request.confirmation_id",
        ),
        ("'just a string'", "request"),
        (
            "(() => { const a = {}; a.self = a; return a; })()",
            "request",
        ),
        ("{ confirmation_id: 10n }", "request"),
        (
            "{ confirmation_id: 'x'.repeat(2_000_000), apply_request: {} }",
            "request",
        ),
    ];
    for (source, path) in cases {
        let error = resolve(executor.execute(js(source))).await.unwrap_err();
        let (code, got_path) = code_and_path(&error);
        assert_eq!(code, "invalid_input", "{source}");
        assert!(
            got_path.starts_with(path) || path == "request" && got_path.is_empty(),
            "{source}: {got_path}"
        );
    }
    let error = resolve(executor.execute_batch(js(
        "[{ confirmation_id: 'a', apply_request: { node_id: '' } }]",
    )))
    .await
    .unwrap_err();
    assert_eq!(code_and_path(&error).0, "invalid_input");
}

#[wasm_bindgen_test]
fn missing_ports_are_named() {
    let error = JsExecutor::new(js("{ store: { get() {}, put() {} }, skill: {}, keys: {} }"))
        .err()
        .unwrap();
    assert_eq!(
        code_and_path(&error),
        ("invalid_port".into(), "store.compareAndSwap".into())
    );
    let store: JsValue = MemoryStore::new().into();
    let ports = ports(&store, "return { status: 200, body: { applied: true } };");
    Reflect::set(&ports, &"keys".into(), &js("{}")).unwrap();
    let error = JsExecutor::new(executor_ports(&ports)).err().unwrap();
    assert_eq!(code_and_path(&error), ("invalid_key".into(), "keys".into()));
    Reflect::set(
        &ports,
        &"keys".into(),
        &js(&format!("{{ approver: '{SECRET}' }}")),
    )
    .unwrap();
    Reflect::set(&ports, &"now".into(), &js("() => 'noon'")).unwrap();
    let error = JsExecutor::new(executor_ports(&ports)).err().unwrap();
    assert_eq!(code_and_path(&error), ("invalid_port".into(), "now".into()));
    assert!(JsExecutor::new(JsValue::NULL).is_err());
}
