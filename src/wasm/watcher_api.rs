//! The Watcher API exported to JavaScript.

use super::convert::{from_js, from_js_valid, options_from_setup, to_js};
use super::errors::{coded_error, invalid};
use super::llm_ports::{JsExecutorRerun, JsLogger, JsPromptLoader, JsQueryFn, optional_logger};
use super::model_answer::parse_model_answer;
use super::ports::{JsClock, JsStore, optional_function};
use crate::watcher::ledger::read_entries;
use crate::watcher::{
    ModelVerdict, Persona, Watcher, WatcherInput, WatcherOptions, check_persona_divergence,
    persona_catalog, pick_watcher_persona,
};
use js_sys::{Function, Object, Promise, Reflect};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(typescript_custom_section)]
const WATCHER_TYPES: &'static str = r#"
export interface WatcherSetup extends WatcherOptions {
  /** Where the Learning Ledger is kept. */
  store: ConfirmationStore;
  now?: () => number;
  loadPrompt?: PromptLoaderFn;
  logger?: CloserLogger;
}

/** The host's executor, run again with the watcher's issues (rounds 2 and 3). */
export type RerunExecutor = (issues: string[], round: number) => ExecutorOutput | Promise<ExecutorOutput>;

/** Bounds on the lists of a verdict read by `parseWatcherVerdict` (defaults 100 and 50). */
export interface VerdictListBounds {
  maxIssues?: number;
  maxBlindspots?: number;
}

export type WatcherVerdictParse = { ok: true; verdict: ModelVerdict; repairs: Repair[]; ignoredFields: string[] } | { ok: false; error: StructuredError };

/** The persona best placed to watch `executorPersona`, from `catalog` (the built-in one by default). */
export function pickWatcherPersona(executorPersona: Persona | null, catalog?: Persona[]): PersonaPick | null;

export interface PersonaPick {
  persona: Persona;
  report: DivergenceReport;
}
"#;

fn optional_persona(path: &str, value: &JsValue) -> Result<Option<Persona>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    from_js(path, value).map(Some).map_err(invalid)
}

/// Checks that the watcher persona differs from the executor's. Throws an error with code
/// `persona_precondition` (and the `violation`) when it does not.
#[wasm_bindgen(js_name = checkPersonaDivergence, unchecked_return_type = "DivergenceReport")]
pub fn divergence(
    #[wasm_bindgen(unchecked_param_type = "Persona | null")] executor: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Persona | null")] watcher: JsValue,
) -> Result<JsValue, JsValue> {
    let executor = optional_persona("executorPersona", &executor)?;
    let watcher = optional_persona("watcherPersona", &watcher)?;
    match check_persona_divergence(executor.as_ref(), watcher.as_ref()) {
        Ok(report) => Ok(to_js(&report)),
        Err(violation) => {
            let error = coded_error("persona_precondition", "", &violation.to_string());
            Reflect::set(&error, &"violation".into(), &to_js(&violation))?;
            Err(error)
        }
    }
}

/// The built-in personas.
#[wasm_bindgen(js_name = personaCatalog, unchecked_return_type = "Persona[]")]
pub fn catalog() -> JsValue {
    to_js(&persona_catalog())
}

/// The persona best placed to watch `executorPersona` (from `catalog`, the built-in one by default).
#[wasm_bindgen(js_name = pickWatcherPersona, skip_typescript)]
pub fn pick(executor: JsValue, candidates: JsValue) -> Result<JsValue, JsValue> {
    let executor = optional_persona("executorPersona", &executor)?;
    let candidates: Vec<Persona> = if candidates.is_undefined() {
        persona_catalog()
    } else {
        super::convert::from_js_list("catalog", &candidates).map_err(invalid)?
    };
    let Some((persona, report)) = pick_watcher_persona(executor.as_ref(), &candidates) else {
        return Ok(JsValue::NULL);
    };
    let answer = Object::new();
    Reflect::set(&answer, &"persona".into(), &to_js(&persona))?;
    Reflect::set(&answer, &"report".into(), &to_js(&report))?;
    Ok(answer.into())
}

/// Extracts and parses a Watcher verdict from model text.
/// The verdict's list bounds a parse may set.
const VERDICT_BOUNDS: [super::model_answer::BoundOption; 2] = [
    (
        "issues",
        "maxIssues",
        crate::watcher::contract::DEFAULT_MAX_ISSUES,
    ),
    (
        "blindspots_covered",
        "maxBlindspots",
        crate::watcher::contract::DEFAULT_MAX_BLINDSPOTS,
    ),
];

#[wasm_bindgen(js_name = parseWatcherVerdict, unchecked_return_type = "WatcherVerdictParse")]
pub fn parse_verdict(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ParseOptions & VerdictListBounds")]
    options: JsValue,
) -> Result<JsValue, JsValue> {
    parse_model_answer::<ModelVerdict>(&text, &options, "verdict", &VERDICT_BOUNDS)
}

type JsBackedWatcher = Watcher<JsPromptLoader, JsStore, JsClock>;

/// Reviews an executor's result under a different persona (seed 000).
#[wasm_bindgen(js_name = Watcher)]
pub struct JsWatcher {
    inner: Rc<JsBackedWatcher>,
}

impl JsWatcher {
    pub(crate) fn wrap(watcher: JsBackedWatcher) -> Self {
        Self {
            inner: Rc::new(watcher),
        }
    }
}

#[wasm_bindgen(js_class = Watcher)]
impl JsWatcher {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "WatcherSetup")] setup: JsValue,
    ) -> Result<JsWatcher, JsValue> {
        if !setup.is_object() {
            return Err(coded_error(
                "invalid_port",
                "",
                "setup must be an object { agentId, store, ... }",
            ));
        }
        let store =
            JsStore::from_js(Reflect::get(&setup, &"store".into()).unwrap_or(JsValue::UNDEFINED))?;
        let clock = JsClock(optional_function(&setup, "now")?);
        let loader = JsPromptLoader(optional_function(&setup, "loadPrompt")?);
        let logger = optional_logger(&setup, "logger")?;
        let options: WatcherOptions =
            options_from_setup("Watcher", &setup, &["store", "now", "loadPrompt", "logger"])
                .map_err(invalid)?;
        let mut watcher = Watcher::new(options, loader, store, clock);
        if let Some(logger) = logger {
            watcher = watcher.with_logger(Rc::new(JsLogger(logger)));
        }
        Ok(Self {
            inner: Rc::new(watcher),
        })
    }

    /// One inspection. Resolves to a WatcherOutput whatever the model does; rejects only on malformed input.
    #[wasm_bindgen(unchecked_return_type = "Promise<WatcherOutput>")]
    pub fn inspect(
        &self,
        #[wasm_bindgen(unchecked_param_type = "WatcherInput")] input: JsValue,
        #[wasm_bindgen(unchecked_param_type = "QueryFn")] query: JsValue,
    ) -> Promise {
        let input = from_js_valid::<WatcherInput>("input", &input).map_err(invalid);
        let query = JsQueryFn::from_js("query", query);
        let watcher = Rc::clone(&self.inner);
        future_to_promise(async move {
            let (input, query) = (input?, query?);
            Ok(to_js(&watcher.inspect(&input, &query, 1).await))
        })
    }

    /// The completion protocol: up to 3 rounds with the executor re-run on the issues, then escalation.
    #[wasm_bindgen(js_name = runProtocol, unchecked_return_type = "Promise<ProtocolResult>")]
    pub fn run_protocol(
        &self,
        #[wasm_bindgen(unchecked_param_type = "WatcherInput")] input: JsValue,
        #[wasm_bindgen(unchecked_param_type = "QueryFn")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RerunExecutor")] rerun_executor: JsValue,
    ) -> Promise {
        let input = from_js_valid::<WatcherInput>("input", &input).map_err(invalid);
        let query = JsQueryFn::from_js("query", query);
        let rerun = rerun_executor
            .dyn_into::<Function>()
            .map(JsExecutorRerun)
            .map_err(|_| {
                coded_error(
                    "invalid_port",
                    "rerunExecutor",
                    "rerunExecutor must be a function",
                )
            });
        let watcher = Rc::clone(&self.inner);
        future_to_promise(async move {
            let (input, query, rerun) = (input?, query?, rerun?);
            Ok(to_js(&watcher.run_protocol(&input, &query, &rerun).await))
        })
    }

    /// The Learning Ledger's watcher entries, in order.
    #[wasm_bindgen(unchecked_return_type = "Promise<LedgerEntry[]>")]
    pub fn ledger(&self) -> Promise {
        let watcher = Rc::clone(&self.inner);
        future_to_promise(async move {
            read_entries(watcher.store(), "watcher")
                .await
                .map(|entries| to_js(&entries))
                .map_err(|error| coded_error("store_failed", "", &error.message))
        })
    }
}
