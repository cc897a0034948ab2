//! `GatedPlaybook`: the playbook behind the acceptance gate (see `crate::playbook::gate`), exported to
//! JavaScript. The host supplies the held-out cases and the evaluator; every decision is the core's.

use super::args;
use super::convert::{
    from_js, from_js_list, from_js_valid, from_js_within, to_js, to_json_text_within,
};
use super::errors::{coded_error, invalid};
use super::ports::JsStore;
use crate::input::{InputError, Validate, parse_json_value};
use crate::playbook::gate::{Evaluator, GateError, GatePolicy, GatedPlaybook, HeldOut};
use crate::playbook::storage::{MAX_GATED_BYTES, load_gated_playbook, save_gated_playbook};
use crate::playbook::{DeltaOp, Playbook, reflection_ops};
use crate::reflector::ReflectionResult;
use js_sys::{Array, Function, Promise, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(typescript_custom_section)]
const GATE_TYPES: &'static str = r#"
export interface GatedPlaybookSetup {
  /** The starting playbook (an empty one when omitted). */
  playbook?: PlaybookData;
  policy?: GatePolicy;
}

/** The held-out set and the host's evaluator: one score from 0 to 1 per case, in the cases' order. */
export interface HeldOutEvaluation {
  cases: unknown[];
  evaluate: (playbook: PlaybookData, cases: unknown[]) => number[] | Promise<number[]>;
  /** How long one evaluation may take, in ms (default 120000, at most 3600000); then `evaluation_failed`. */
  timeoutMs?: number;
}
"#;

/// Largest held-out set, as JSON text.
const MAX_CASES_BYTES: usize = 16 << 20;
const DEFAULT_EVALUATION_TIMEOUT_MS: u32 = 120_000;
const MAX_EVALUATION_TIMEOUT_MS: f64 = 3_600_000.0;

fn gate_error(error: &GateError) -> JsValue {
    coded_error(error.code(), error.path(), &error.message())
}

fn store_error(message: &str) -> JsValue {
    coded_error("store_failed", "", message)
}

/// The evaluation port: `evaluate(playbook, cases)`.
struct JsEvaluator {
    evaluate: Function,
    cases: JsValue,
    timeout_ms: u32,
}

impl Evaluator for JsEvaluator {
    async fn evaluate(&self, playbook: &Playbook) -> Result<Vec<f64>, GateError> {
        let failed = |what: &str, thrown: &JsValue| {
            GateError::EvaluationFailed(crate::ports::PortError::new(format!(
                "evaluate {what}: {}",
                super::errors::thrown_message(thrown)
            )))
        };
        let returned = self
            .evaluate
            .call2(&JsValue::NULL, &to_js(playbook), &self.cases)
            .map_err(|thrown| failed("threw", &thrown))?;
        let answer =
            match super::deadline::within(Promise::resolve(&returned), self.timeout_ms).await {
                super::deadline::Settled::Resolved(answer) => answer,
                super::deadline::Settled::Rejected(message) => {
                    return Err(GateError::EvaluationFailed(crate::ports::PortError::new(
                        format!("evaluate rejected: {message}"),
                    )));
                }
                super::deadline::Settled::TimedOut => {
                    return Err(GateError::EvaluationFailed(crate::ports::PortError::new(
                        format!("evaluate did not answer within {} ms", self.timeout_ms),
                    )));
                }
            };
        from_js_list::<f64>("scores", &answer)
            .map_err(|error| GateError::InvalidScores(error.to_string()))
    }
}

/// Reads `{ cases, evaluate, timeoutMs? }`: the cases' count, and the port.
fn read_evaluation(value: &JsValue) -> Result<(HeldOut, JsEvaluator), JsValue> {
    if !args::is_plain_object(value) {
        return Err(invalid(InputError::invalid(
            "evaluation",
            format!(
                "must be an object {{ cases, evaluate }}, got {}",
                args::kind_of(value)
            ),
        )));
    }
    args::only_known_keys(
        "a held-out evaluation",
        "evaluation",
        value,
        &["cases", "evaluate", "timeoutMs"],
    )
    .map_err(invalid)?;
    let cases = Reflect::get(value, &"cases".into()).unwrap_or(JsValue::UNDEFINED);
    if !Array::is_array(&cases) {
        return Err(invalid(InputError::invalid(
            "evaluation.cases",
            format!("must be an array, got {}", args::kind_of(&cases)),
        )));
    }
    let evaluate = Reflect::get(value, &"evaluate".into()).unwrap_or(JsValue::UNDEFINED);
    let Some(evaluate) = evaluate.dyn_ref::<Function>().cloned() else {
        return Err(coded_error(
            "invalid_port",
            "evaluation.evaluate",
            "evaluation.evaluate must be a function (playbook, cases) => number[]",
        ));
    };
    // The cases are the host's: the gate only counts them (by `length`, as `evaluate` will see them) and
    // checks that they are JSON data of a bounded size.
    to_json_text_within("evaluation.cases", &cases, MAX_CASES_BYTES).map_err(invalid)?;
    let count = cases.unchecked_ref::<Array>().length() as usize;
    let timeout = Reflect::get(value, &"timeoutMs".into()).unwrap_or(JsValue::UNDEFINED);
    let timeout_ms =
        match args::optional_number("evaluation.timeoutMs", &timeout).map_err(invalid)? {
            None => DEFAULT_EVALUATION_TIMEOUT_MS,
            Some(ms) if ms.fract() == 0.0 && (1.0..=MAX_EVALUATION_TIMEOUT_MS).contains(&ms) => {
                ms as u32
            }
            Some(ms) => {
                return Err(invalid(InputError::invalid(
                    "evaluation.timeoutMs",
                    format!("must be whole milliseconds from 1 to 3600000, got {ms}"),
                )));
            }
        };
    Ok((
        HeldOut { cases: count },
        JsEvaluator {
            evaluate,
            cases,
            timeout_ms,
        },
    ))
}

/// What a call asks of the gate.
enum Request {
    Ops(Vec<DeltaOp>),
    Reflection(String, Box<ReflectionResult>),
    Retire,
}

/// A playbook that changes only through the acceptance gate.
#[wasm_bindgen(js_name = GatedPlaybook)]
pub struct JsGatedPlaybook {
    inner: Rc<RefCell<GatedPlaybook>>,
    /// The stored text it was loaded from (for compare-and-swap on save).
    loaded: Rc<RefCell<Option<String>>>,
}

impl JsGatedPlaybook {
    fn wrap(gate: GatedPlaybook, loaded: Option<String>) -> Self {
        Self {
            inner: Rc::new(RefCell::new(gate)),
            loaded: Rc::new(RefCell::new(loaded)),
        }
    }

    /// Runs `request` on a copy of the gate while the evaluator answers, then commits the copy only if
    /// nothing else changed the gate meanwhile (`conflict` otherwise).
    fn run(&self, request: Request, held_out: HeldOut, evaluator: JsEvaluator) -> Promise {
        let inner = Rc::clone(&self.inner);
        let mut gate = inner.borrow().clone();
        let (sequence, version) = (gate.next_sequence, gate.playbook.version);
        future_to_promise(async move {
            let outcome = match request {
                Request::Ops(ops) => gate.propose(&ops, &held_out, &evaluator).await,
                Request::Reflection(id, reflection) => {
                    let ops = reflection_ops(&gate.playbook, &id, &reflection);
                    gate.propose(&ops, &held_out, &evaluator).await
                }
                Request::Retire => gate.retire(&held_out, &evaluator).await,
            }
            .map_err(|error| gate_error(&error))?;
            let mut live = inner.borrow_mut();
            if live.next_sequence != sequence || live.playbook.version != version {
                return Err(gate_error(&GateError::Conflict));
            }
            *live = gate;
            Ok(to_js(&outcome))
        })
    }
}

/// Reads `{ playbook?, policy? }` member by member (through the readers `Playbook.fromJSON` and `load` use).
fn read_setup(value: &JsValue) -> Result<GatedPlaybook, JsValue> {
    if args::is_absent(value) {
        return GatedPlaybook::new(Playbook::default(), GatePolicy::default()).map_err(invalid);
    }
    if !args::is_plain_object(value) {
        return Err(invalid(InputError::invalid(
            "setup",
            format!(
                "must be an object {{ playbook?, policy? }}, got {}",
                args::kind_of(value)
            ),
        )));
    }
    // Read once, as JSON (a getter is not asked twice; a throwing one is a typed error).
    let members: serde_json::Map<String, serde_json::Value> =
        from_js("setup", value).map_err(invalid)?;
    let mut playbook = Playbook::default();
    let mut policy = GatePolicy::default();
    for (key, member) in members {
        match key.as_str() {
            "playbook" => {
                playbook = parse_json_value(member)
                    .map_err(|error| invalid(error.within("setup.playbook")))?;
            }
            "policy" => {
                policy = parse_json_value(member)
                    .map_err(|error| invalid(error.within("setup.policy")))?;
            }
            other => {
                return Err(invalid(InputError::invalid(
                    format!("setup.{other}"),
                    crate::closest_name::not_known(
                        other,
                        "an option of GatedPlaybook",
                        &["playbook", "policy"],
                    ),
                )));
            }
        }
    }
    GatedPlaybook::new(playbook, policy).map_err(|error| invalid(error.within("setup")))
}

#[wasm_bindgen(js_class = GatedPlaybook)]
impl JsGatedPlaybook {
    /// `new GatedPlaybook({ playbook?, policy? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "GatedPlaybookSetup")] setup: JsValue,
    ) -> Result<JsGatedPlaybook, JsValue> {
        Ok(Self::wrap(read_setup(&setup)?, None))
    }

    /// A gated playbook from its JSON (as `toJSON()` gives it).
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "GatedPlaybookData")] value: JsValue,
    ) -> Result<JsGatedPlaybook, JsValue> {
        let gate: GatedPlaybook =
            from_js_within("gate", &value, MAX_GATED_BYTES).map_err(invalid)?;
        gate.validate()
            .map_err(|error| invalid(error.within("gate")))?;
        Ok(Self::wrap(gate, None))
    }

    /// Loads `name` from the store. With none stored, it starts from the plain playbook of that name
    /// (`Playbook.save`), or an empty one. `policy`, when given, replaces the stored policy.
    #[wasm_bindgen(unchecked_return_type = "Promise<GatedPlaybook>")]
    pub fn load(
        #[wasm_bindgen(unchecked_param_type = "ConfirmationStore")] store: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "GatePolicy")] policy: JsValue,
    ) -> Result<Promise, JsValue> {
        let store = JsStore::from_js(store)?;
        let name = args::identifier("name", &name).map_err(invalid)?;
        let policy: Option<GatePolicy> = if args::is_absent(&policy) {
            None
        } else {
            Some(from_js_valid("policy", &policy).map_err(invalid)?)
        };
        Ok(future_to_promise(async move {
            let (mut gate, text) = load_gated_playbook(&store, &name)
                .await
                .map_err(|error| store_error(&error.message))?;
            if let Some(policy) = policy {
                gate.policy = policy;
            }
            Ok(Self::wrap(gate, text).into())
        }))
    }

    /// Saves to the store by compare-and-swap against what was loaded; rejects with code `conflict` when
    /// someone else saved in between.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn save(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ConfirmationStore")] store: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<Promise, JsValue> {
        let store = JsStore::from_js(store)?;
        let name = args::identifier("name", &name).map_err(invalid)?;
        let gate = self.inner.borrow().clone();
        let loaded = Rc::clone(&self.loaded);
        Ok(future_to_promise(async move {
            let previous = loaded.borrow().clone();
            match save_gated_playbook(&store, &name, &gate, previous.as_deref()).await {
                Ok(Some(text)) => {
                    *loaded.borrow_mut() = Some(text);
                    Ok(JsValue::UNDEFINED)
                }
                Ok(None) => Err(coded_error(
                    "conflict",
                    "",
                    "the stored gated playbook changed since it was loaded; load it again",
                )),
                Err(error) => Err(store_error(&error.message)),
            }
        }))
    }

    /// Proposes a batch of deltas: applied to a candidate, kept within the budget, scored on the held-out
    /// cases, and accepted only if it does not regress (see `GatePolicy`).
    #[wasm_bindgen(unchecked_return_type = "Promise<GateOutcome>")]
    pub fn propose(
        &self,
        #[wasm_bindgen(unchecked_param_type = "DeltaOp[]")] ops: JsValue,
        #[wasm_bindgen(unchecked_param_type = "HeldOutEvaluation")] evaluation: JsValue,
    ) -> Result<Promise, JsValue> {
        let ops: Vec<DeltaOp> = from_js_list("ops", &ops).map_err(invalid)?;
        let (held_out, evaluator) = read_evaluation(&evaluation)?;
        Ok(self.run(Request::Ops(ops), held_out, evaluator))
    }

    /// Proposes what a reflection teaches, as one batch: its bullet tags and its curated insights.
    #[wasm_bindgen(js_name = proposeReflection, unchecked_return_type = "Promise<GateOutcome>")]
    pub fn propose_reflection(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] reflection_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ReflectionResult")] reflection: JsValue,
        #[wasm_bindgen(unchecked_param_type = "HeldOutEvaluation")] evaluation: JsValue,
    ) -> Result<Promise, JsValue> {
        let reflection_id = args::identifier("reflectionId", &reflection_id).map_err(invalid)?;
        let reflection: ReflectionResult =
            from_js_valid("reflection", &reflection).map_err(invalid)?;
        let (held_out, evaluator) = read_evaluation(&evaluation)?;
        Ok(self.run(
            Request::Reflection(reflection_id, Box::new(reflection)),
            held_out,
            evaluator,
        ))
    }

    /// Retires the lowest-scored bullets until the playbook fits its token budget, through the gate.
    #[wasm_bindgen(unchecked_return_type = "Promise<GateOutcome>")]
    pub fn retire(
        &self,
        #[wasm_bindgen(unchecked_param_type = "HeldOutEvaluation")] evaluation: JsValue,
    ) -> Result<Promise, JsValue> {
        let (held_out, evaluator) = read_evaluation(&evaluation)?;
        Ok(self.run(Request::Retire, held_out, evaluator))
    }

    /// Restores the previous accepted playbook exactly; throws `nothing_to_revert` when there is none.
    #[wasm_bindgen(unchecked_return_type = "GateRecord")]
    pub fn revert(&self) -> Result<JsValue, JsValue> {
        let record = self
            .inner
            .borrow_mut()
            .revert()
            .map_err(|error| gate_error(&error))?;
        Ok(to_js(&record))
    }

    /// The text the judge is given: the accepted playbook within the token budget.
    pub fn prompt(&self) -> String {
        self.inner.borrow().prompt()
    }

    /// The accepted playbook as plain data.
    #[wasm_bindgen(unchecked_return_type = "PlaybookData")]
    pub fn playbook(&self) -> JsValue {
        to_js(&self.inner.borrow().playbook)
    }

    /// The whole gate as plain data: the playbook, the policy, previous versions, rejected batches, the log.
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "GatedPlaybookData")]
    pub fn to_json(&self) -> JsValue {
        to_js(&*self.inner.borrow())
    }

    /// The accepted playbook's version.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.inner.borrow().playbook.version as f64
    }
}
