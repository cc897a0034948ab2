//! The control loop's rules (seed 002 section 4) through the exported `controlStep`, `newControlState` and
//! `judgeNextAction`, inside wasm: the same rules the native suite checks, as a host drives them.

use super::{code_and_path, get, js, resolve, text};
use agent_governor::wasm::control_api::{
    control_step, execution_log_line, judge_next_action, new_control_state,
};
use js_sys::{Array, JSON};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

/// A loop driven through the export: the state, and the effects of the last step.
struct Host {
    state: JsValue,
    requests: Vec<String>,
}

impl Host {
    fn new(setup: &str) -> Self {
        Self {
            state: new_control_state(js(setup)).unwrap(),
            requests: Vec::new(),
        }
    }

    /// One step, then (like a driver that saved the state) the save confirmed: both steps' effects.
    fn send(&mut self, event: &str) -> Vec<JsValue> {
        let mut effects = self.step(event);
        let saved = effects
            .iter()
            .find(|effect| text(effect, "effect") == "persist_state")
            .map(|effect| get(effect, "revision").as_f64().unwrap());
        if let Some(revision) = saved {
            effects.extend(self.step(&format!(
                "{{ event: 'state_persisted', revision: {revision} }}"
            )));
        }
        effects
    }

    fn step(&mut self, event: &str) -> Vec<JsValue> {
        let result = control_step(self.state.clone(), js(event)).unwrap();
        let effects: Vec<JsValue> = Array::from(&get(&result, "effects")).iter().collect();
        self.state = get(&result, "state");
        for effect in &effects {
            if text(effect, "effect") == "request_approval" {
                self.requests.push(text(effect, "request_id"));
            }
        }
        effects
    }

    fn mode(&self) -> String {
        text(&self.state, "mode")
    }

    fn pending(&self) -> String {
        text(&self.state, "in_progress.id")
    }

    /// The request id of the approval asked last.
    fn request(&self) -> String {
        self.requests.last().cloned().unwrap_or_default()
    }

    fn judgement_id(&self) -> f64 {
        get(&self.state, "judgement_id").as_f64().unwrap()
    }

    fn judge(&mut self, judgement: &str) -> Vec<JsValue> {
        let id = self.judgement_id();
        self.send(&format!(
            "{{ event: 'judgement_received', judgement_id: {id}, judgement: {judgement} }}"
        ))
    }

    fn answer(&mut self, answer: &str) -> Vec<JsValue> {
        let id = self.request();
        self.send(&format!(
            "{{ event: 'approval_answered', request_id: '{id}', answer: '{answer}' }}"
        ))
    }
}

const ACT: &str = "{ decision: 'act', type: 'status_change', summary: 'move T-1 to done', impact_scope: 'ticket T-1', parameters: { node_id: 'T-1', from: 'review', to: 'done' } }";

fn kinds(effects: &[JsValue]) -> Vec<String> {
    effects
        .iter()
        .map(|effect| text(effect, "effect"))
        .collect()
}

fn has(effects: &[JsValue], kind: &str) -> bool {
    kinds(effects).iter().any(|found| found == kind)
}

fn observed(host: &mut Host, n: u32) -> Vec<JsValue> {
    host.send(&format!(
        "{{ event: 'situation_changed', external: {{ tickets: {n} }}, internal: null }}"
    ))
}

#[wasm_bindgen_test]
fn judgement_cycles_turn_on_a_change_and_the_goal_is_always_judged() {
    let mut host = Host::new("{ goal: 'keep the board tidy' }");
    let first = observed(&mut host, 1);
    assert!(has(&first, "ask_judge"));
    assert_eq!(
        text(&first[0], "situation.goal"),
        "keep the board tidy",
        "the goal is part of the situation"
    );
    host.judge("{ decision: 'wait' }");
    assert!(
        !has(&observed(&mut host, 1), "ask_judge"),
        "no change, no judgement"
    );
    assert!(has(&observed(&mut host, 2), "ask_judge"));
}

#[wasm_bindgen_test]
fn every_action_but_a_reply_is_approved_in_two_lines_just_before_execution() {
    let mut host = Host::new("{ goal: 'g' }");
    observed(&mut host, 1);
    let reply = host.judge("{ decision: 'reply', text: 'hello' }");
    assert!(has(&reply, "report_to_chat") && !has(&reply, "request_approval"));
    observed(&mut host, 2);
    let asked = host.judge(ACT);
    let request = asked
        .iter()
        .find(|e| text(e, "effect") == "request_approval")
        .unwrap();
    let lines: Vec<String> = Array::from(&get(request, "lines"))
        .iter()
        .map(|l| l.as_string().unwrap())
        .collect();
    // Rendered by the machine from the action; the model's words are the labelled note.
    assert_eq!(
        lines,
        [
            "Execute: status_change on T-1: review -> done",
            "Impact: T-1"
        ]
    );
    assert_eq!(text(request, "note"), "move T-1 to done / ticket T-1");
    assert!(!has(&asked, "execute"));
    assert_eq!(host.mode(), "awaiting_approval");
    assert!(
        !has(&host.answer("yes"), "execute"),
        "anything but y asks again"
    );
    assert!(has(&host.answer(" Y "), "execute"));
}

#[wasm_bindgen_test]
fn n_stops_and_the_whitelist_is_the_only_exception() {
    let mut host = Host::new("{ goal: 'g' }");
    observed(&mut host, 1);
    host.judge(ACT);
    let declined = host.answer("n");
    assert!(has(&declined, "stop") && !has(&declined, "execute"));
    assert_eq!(host.mode(), "stopped");
    let mut listed = Host::new("{ goal: 'g', whitelist: ['status_change'] }");
    observed(&mut listed, 1);
    assert!(has(&listed.judge(ACT), "execute"));
}

#[wasm_bindgen_test]
fn a_failure_stops_at_once_and_running_again_needs_approval() {
    let mut host = Host::new("{ goal: 'g' }");
    observed(&mut host, 1);
    host.judge(ACT);
    host.answer("y");
    let id = host.pending();
    let failed = host.send(&format!(
        "{{ event: 'execution_finished', action_id: '{id}', succeeded: false, detail: 'HTTP 500' }}"
    ));
    assert!(has(&failed, "stop") && has(&failed, "request_approval") && !has(&failed, "execute"));
    assert_eq!(host.mode(), "stopped");
    let log = failed
        .iter()
        .find(|e| text(e, "effect") == "append_log")
        .unwrap();
    let line = execution_log_line("2026-11-23T00:00:00.000Z".into(), get(log, "record")).unwrap();
    assert!(line.starts_with("{\"time\":\"2026-11-23T00:00:00.000Z\",\"event_summary\":\"status_change on T-1: review -> done\",\"cause\":\"HTTP 500\""));
    assert!(
        has(&host.answer("y"), "execute"),
        "the re-run after an approval"
    );
}

#[wasm_bindgen_test]
fn a_human_message_aborts_the_judge_and_asks_resume_or_discard() {
    let mut host = Host::new("{ goal: 'g' }");
    observed(&mut host, 1);
    let interrupted = host.send("{ event: 'human_message', text: 'stop' }");
    assert!(has(&interrupted, "abort_judge"));
    assert_eq!(host.mode(), "interrupted");
    assert!(has(
        &host.send("{ event: 'interruption_answered', answer: 'Resume' }"),
        "ask_judge"
    ));
}

#[wasm_bindgen_test]
fn dev_is_privileged_only_as_the_first_token_and_rules_needing_a_restart_offer_one() {
    let mut host = Host::new("{ goal: 'g' }");
    host.send("{ event: 'human_message', text: 'please /dev goal other' }");
    assert_eq!(text(&host.state, "situation.goal"), "g");
    host.send("{ event: 'human_message', text: '/dev goal other' }");
    assert_eq!(text(&host.state, "situation.goal"), "other");
    let mut rules = Host::new("{ goal: 'g' }");
    observed(&mut rules, 1);
    rules.judge(
        "{ decision: 'change_rules', change: { host_settings: { model: 'm' } }, reason: 'r' }",
    );
    let approved = rules.answer("y");
    assert!(
        has(&approved, "persist_rules")
            && has(&approved, "request_approval")
            && !has(&approved, "execute")
    );
    assert_eq!(rules.mode(), "stopped");
}

#[wasm_bindgen_test]
fn self_modification_is_refused_outside_the_adjustable_settings_and_reverts_in_one_call() {
    let mut host = Host::new("{ goal: 'g', settings: { poll_seconds: 30 } }");
    observed(&mut host, 1);
    let refused =
        host.judge("{ decision: 'adjust_setting', key: 'model', value: 'x', reason: 'r' }");
    assert!(!has(&refused, "request_approval"));
    observed(&mut host, 2);
    host.judge("{ decision: 'adjust_setting', key: 'poll_seconds', value: 10, reason: 'faster' }");
    host.answer("y");
    assert_eq!(
        get(&host.state, "settings.poll_seconds").as_f64(),
        Some(10.0)
    );
    host.send("{ event: 'revert_setting' }");
    assert_eq!(
        get(&host.state, "settings.poll_seconds").as_f64(),
        Some(30.0)
    );
}

#[wasm_bindgen_test]
fn a_waiting_approval_survives_a_reload_and_is_asked_again() {
    let mut host = Host::new("{ goal: 'g' }");
    observed(&mut host, 1);
    host.judge(ACT);
    let saved = JSON::stringify(&host.state).unwrap();
    let mut reloaded = Host {
        state: JSON::parse(&String::from(saved)).unwrap(),
        requests: Vec::new(),
    };
    assert!(has(
        &reloaded.send("{ event: 'host_restarted', boot: 'b2' }"),
        "request_approval"
    ));
    assert!(has(&reloaded.answer("y"), "execute"));
}

#[wasm_bindgen_test]
fn a_bad_event_is_a_typed_error_and_the_module_still_steps() {
    let host = Host::new("{ goal: 'g' }");
    for bad in [
        "{ event: 'approve_everything' }",
        "{ event: 'approval_answered', request_id: 'a-1', answer: true }",
        "{ event: 'host_restarted' }",
        "42",
        "null",
    ] {
        let error = control_step(host.state.clone(), js(bad)).unwrap_err();
        assert_eq!(code_and_path(&error).0, "invalid_input", "{bad}");
    }
    let error = new_control_state(js("{ goal: '' }")).unwrap_err();
    assert_eq!(
        code_and_path(&error),
        ("invalid_input".to_owned(), "setup.goal".to_owned())
    );
    let mut fine = Host::new("{ goal: 'g' }");
    assert!(has(&observed(&mut fine, 1), "ask_judge"));
}

#[wasm_bindgen_test]
async fn the_judge_is_asked_with_the_strict_schema_and_an_unusable_answer_fails_closed() {
    let request = js(
        "{ situation: { goal: 'g', external: { tickets: 1 }, internal: null }, action_types: [{ type: 'status_change' }] }",
    );
    let answer = js(
        "() => ({ structuredOutput: { decision: 'act', reply: null, action_type: 'status_change', summary: 's', impact_scope: 'i', node_id: 'T-1', from: 'a', to: 'b', setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null } })",
    );
    let outcome = resolve(judge_next_action(request.clone(), answer, JsValue::UNDEFINED).unwrap())
        .await
        .unwrap();
    assert_eq!(get(&outcome, "ok"), JsValue::TRUE);
    assert_eq!(text(&outcome, "judgement.decision"), "act");
    assert_eq!(text(&outcome, "judgement.parameters.to"), "b");
    let vague = js("() => ({ text: 'I would move it, probably.' })");
    let outcome = resolve(judge_next_action(request, vague, JsValue::UNDEFINED).unwrap())
        .await
        .unwrap();
    assert_eq!(get(&outcome, "ok"), JsValue::FALSE);
    assert_eq!(get(&outcome, "queries").as_f64(), Some(2.0));
}
