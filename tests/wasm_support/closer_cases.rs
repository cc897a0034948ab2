//! The Closer API and the built-in OpenAI-compatible client, against the scripted endpoint that
//! scripts/test.sh starts (tests/support/fake-llm-server.mjs) and names in AGENT_GOVERNOR_FAKE_LLM.

use super::{get, js, resolve, text};
use agent_governor::wasm::closer_api::{JsCloser, decide, output_schema, parse_closer_output};
use agent_governor::wasm::llm_client::open_ai_compatible;
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn fake_llm(scenario: &str) -> String {
    let Some(base) = option_env!("AGENT_GOVERNOR_FAKE_LLM") else {
        panic!(
            "AGENT_GOVERNOR_FAKE_LLM must name the scripted endpoint (scripts/test.sh starts it)"
        );
    };
    format!("{base}/{scenario}/v1")
}

fn client(scenario: &str, extra: &str) -> Function {
    let config = js(&format!(
        "{{ baseUrl: '{}', model: 'test-model' {extra} }}",
        fake_llm(scenario)
    ));
    open_ai_compatible(config).unwrap().dyn_into().unwrap()
}

async fn ask(query: &Function) -> JsValue {
    let schema = output_schema(JsValue::UNDEFINED).unwrap();
    let options = js("{}");
    Reflect::set(&options, &"outputSchema".into(), &get(&schema, "schema")).unwrap();
    Reflect::set(&options, &"schemaName".into(), &get(&schema, "name")).unwrap();
    let promise: Promise = query
        .call2(&JsValue::NULL, &"Is it done?".into(), &options)
        .unwrap()
        .dyn_into()
        .unwrap();
    resolve(promise).await.unwrap()
}

#[wasm_bindgen_test]
async fn client_sends_the_strict_schema_model_key_and_headers_and_parses_the_answer() {
    let reply = ask(&client(
        "ok",
        ", apiKey: 'sk-test', headers: { 'x-extra': 'yes' }",
    ))
    .await;
    assert_eq!(
        text(&reply, "structuredOutput.summary"),
        "model=test-model;strict=true;schema=true;auth=Bearer sk-test;extra=yes"
    );
    assert!(get(&reply, "error").is_null());
}

#[wasm_bindgen_test]
async fn client_errors_are_typed() {
    let cases = [
        ("http500", "", "http", "the model crashed"),
        ("notjson", "", "invalid_response", "not JSON"),
        ("refusal", "", "refusal", "cannot help"),
        ("slow", ", timeoutMs: 300", "timeout", "within 300 ms"),
    ];
    for (scenario, extra, kind, message) in cases {
        let reply = ask(&client(scenario, extra)).await;
        assert_eq!(text(&reply, "errorKind"), kind, "{scenario}");
        assert!(
            text(&reply, "error").contains(message),
            "{scenario}: {}",
            text(&reply, "error")
        );
    }
    let unreachable =
        open_ai_compatible(js("{ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }")).unwrap();
    let reply = ask(&unreachable.dyn_into().unwrap()).await;
    assert_eq!(text(&reply, "errorKind"), "network");
}

#[wasm_bindgen_test]
fn client_config_is_validated() {
    let error = open_ai_compatible(js("{ baseUrl: 'ftp://x', model: 'm' }")).unwrap_err();
    assert_eq!(
        (text(&error, "code"), text(&error, "path")),
        ("invalid_input".into(), "config.baseUrl".into())
    );
    let error = open_ai_compatible(js("{ baseUrl: 'http://x' }")).unwrap_err();
    assert_eq!(text(&error, "path"), "config.model");
}

fn closer_input() -> JsValue {
    js(
        "{ structuredOutput: { status: 'implemented' }, stepId: 'complete.issue', c3l: { c2: 'complete', c3: 'issue' } }",
    )
}

#[wasm_bindgen_test]
async fn closer_checks_through_the_built_in_client() {
    let closer = JsCloser::new(js("{ workingDir: '/work', agentId: 'iterator' }")).unwrap();
    let result = resolve(closer.check(closer_input(), client("ok", "").into()))
        .await
        .unwrap();
    assert_eq!(get(&result, "complete"), JsValue::TRUE);
    assert_eq!(get(&result, "queries").as_f64(), Some(1.0));
    assert_eq!(
        text(&result, "promptPath"),
        "prompts/steps/complete/issue/f_default.md"
    );

    let prose = resolve(closer.check(closer_input(), client("prose", "").into()))
        .await
        .unwrap();
    assert_eq!(get(&prose, "complete"), JsValue::FALSE);
    assert_eq!(
        get(&prose, "queries").as_f64(),
        Some(2.0),
        "asked again once"
    );
    assert!(text(&prose, "error").contains("no JSON object"));
}

#[wasm_bindgen_test]
async fn closer_survives_a_throwing_query_and_rejects_malformed_input() {
    let closer = JsCloser::new(js("{ workingDir: '', agentId: 'a', loadPrompt: (p) => p.endsWith('issue/f_default.md') ? '{{ input }}' : null }")).unwrap();
    let throwing = js("() => { throw new Error('quota exceeded'); }");
    let result = resolve(closer.check(closer_input(), throwing))
        .await
        .unwrap();
    assert_eq!(get(&result, "complete"), JsValue::FALSE);
    assert!(text(&result, "error").contains("quota exceeded"));
    assert_eq!(
        text(&result, "promptPath"),
        ".agent/a/prompts/steps/complete/issue/f_default.md"
    );
    let error = resolve(closer.check(js("{ stepId: 5 }"), js("() => ({})")))
        .await
        .unwrap_err();
    assert_eq!(text(&error, "code"), "invalid_input");
    let error = resolve(closer.check(closer_input(), js("'not a function'")))
        .await
        .unwrap_err();
    assert_eq!(
        (text(&error, "code"), text(&error, "path")),
        ("invalid_port".into(), "query".into())
    );
}

#[wasm_bindgen_test]
fn decide_and_parse_are_exported() {
    let output = js(
        "{ checklist: [{ id: 'a', description: 'x', completed: false, evidence: null }], allComplete: true, summary: 's', pendingActions: null, confidence: 0.99 }",
    );
    let decision = decide(output, JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&decision, "complete"), JsValue::FALSE);
    let parsed = parse_closer_output("```json\n{\"checklist\": [], \"allComplete\": false, \"summary\": \"s\", \"confidence\": 0.5}\n```".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&parsed, "ok"), JsValue::TRUE);
    let failed =
        parse_closer_output("{\"checklist\": [{\"id\": 1".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&failed, "error.truncated"), JsValue::TRUE);
}
