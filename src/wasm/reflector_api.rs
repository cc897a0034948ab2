//! The Reflector, the Playbook and the `createGovernor` container, exported to JavaScript.

use super::args;
use super::convert::{from_js, from_js_list, from_js_valid, options_from_setup, to_js};
use super::errors::{coded_error, invalid};
use super::llm_ports::{JsLogger, JsPromptLoader, JsQueryFn, optional_logger};
use super::model_answer::parse_model_answer;
use super::ports::{JsClock, JsStore, optional_function};
use crate::closer::CloserOptions;
use crate::governor::Governor;
use crate::language::Language;
use crate::playbook::delta::apply_deltas;
use crate::playbook::storage::{load_playbook, save_playbook};
use crate::playbook::{DeltaOp, Playbook, PlaybookPolicy, curate};
use crate::reflector::{
    Insight, ModelReflection, ReflectionResult, Reflector, ReflectorOptions, Trajectory,
};
use crate::watcher::WatcherOptions;
use js_sys::{Promise, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(typescript_custom_section)]
const REFLECTOR_TYPES: &'static str = r#"
export interface GovernorPorts {
  /** The LLM, as a QueryFn (the built-in `openAICompatible(...)` is one). */
  llm: QueryFn;
  /** Where playbooks and ledgers are kept. */
  store: ConfirmationStore;
  now?: () => number;
  loadPrompt?: PromptLoaderFn;
  /** The host's prompts directory for the Reflector's per-dataset templates (`{promptRoot}/reflector/{dataset}.md`). */
  promptRoot?: string;
  logger?: CloserLogger;
  /** Language of every text written for a human ("en" by default, "ja" for the seeds' wording); a
   * component's own `language` option wins. */
  language?: Language;
}

export type DeltaOp = { op_id: string } & DeltaKind;

/** Bounds on the lists of a reflection read by `parseReflection` (defaults 20 and 200). */
export interface ReflectionListBounds {
  maxInsights?: number;
  maxBulletEvaluations?: number;
}

export type ReflectionParse = { ok: true; reflection: ModelReflection; repairs: Repair[]; ignoredFields: string[] } | { ok: false; error: StructuredError };
"#;

/// A reflection's list bounds a parse may set (without a trajectory, the tags are bounded directly).
const REFLECTION_BOUNDS: [super::model_answer::BoundOption; 2] = [
    (
        "insights",
        "maxInsights",
        crate::reflector::models::DEFAULT_MAX_INSIGHTS,
    ),
    (
        "bullet_evaluations",
        "maxBulletEvaluations",
        crate::reflector::models::DEFAULT_MAX_BULLET_EVALUATIONS,
    ),
];

/// Extracts and parses a Reflector answer (insights and bullet tags) from model text.
#[wasm_bindgen(js_name = parseReflection, unchecked_return_type = "ReflectionParse")]
pub fn parse_reflection(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ParseOptions & ReflectionListBounds")] options: JsValue,
) -> Result<JsValue, JsValue> {
    parse_model_answer::<ModelReflection>(&text, &options, "reflection", &REFLECTION_BOUNDS)
}

type JsGovernorPorts = Governor<JsQueryFn, JsPromptLoader, JsStore, JsClock>;

/// The container: give the ports once, obtain components with them injected.
#[wasm_bindgen(js_name = Governor)]
pub struct JsGovernor {
    ports: JsGovernorPorts,
    logger: Option<JsValue>,
    /// Given to every component whose own options do not name a language.
    language: Language,
}

/// Wires the host's ports into a container.
#[wasm_bindgen(js_name = createGovernor)]
pub fn create_governor(
    #[wasm_bindgen(unchecked_param_type = "GovernorPorts")] ports: JsValue,
) -> Result<JsGovernor, JsValue> {
    if !ports.is_object() {
        return Err(coded_error(
            "invalid_port",
            "",
            "ports must be an object { llm, store, ... }",
        ));
    }

    let llm = JsQueryFn::from_js(
        "llm",
        Reflect::get(&ports, &"llm".into()).unwrap_or(JsValue::UNDEFINED),
    )?;
    let store =
        JsStore::from_js(Reflect::get(&ports, &"store".into()).unwrap_or(JsValue::UNDEFINED))?;
    // After the ports: an object that cannot be read is named by the port it lacks.
    args::only_known_keys(
        "createGovernor",
        "",
        &ports,
        &[
            "llm",
            "store",
            "now",
            "loadPrompt",
            "promptRoot",
            "logger",
            "language",
        ],
    )
    .map_err(invalid)?;
    let clock = JsClock(optional_function(&ports, "now")?);
    let loader = JsPromptLoader(optional_function(&ports, "loadPrompt")?);
    let root = Reflect::get(&ports, &"promptRoot".into()).unwrap_or(JsValue::UNDEFINED);
    let root = args::optional_text("promptRoot", &root)
        .map_err(invalid)?
        .unwrap_or_default();
    let logger = optional_logger(&ports, "logger")?;
    let language = super::args::language(
        "language",
        &Reflect::get(&ports, &"language".into()).unwrap_or(JsValue::UNDEFINED),
    )
    .map_err(invalid)?;
    Ok(JsGovernor {
        ports: Governor::new(llm, loader, store, clock, &root),
        logger,
        language,
    })
}

/// Whether a component's options name their own language (otherwise the container's applies).
fn names_language(options: &JsValue) -> bool {
    options.is_object() && Reflect::has(options, &"language".into()).unwrap_or(false)
}

#[wasm_bindgen(js_class = Governor)]
impl JsGovernor {
    /// Not constructible with `new`: obtain one from `createGovernor(ports)`. Throws an `AgentGovernorError` (`invalid_input`).
    #[wasm_bindgen(constructor)]
    pub fn not_constructible() -> Result<JsGovernor, JsValue> {
        Err(coded_error(
            "invalid_input",
            "",
            "Governor has no public constructor: obtain one from createGovernor(ports)",
        ))
    }

    /// A Closer reading prompts through the container's `loadPrompt` (pass the QueryFn to `check`).
    pub fn closer(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CloserOptions")] options: JsValue,
    ) -> Result<super::closer_api::JsCloser, JsValue> {
        let mut parsed: CloserOptions =
            options_from_setup("governor.closer", &options, &[]).map_err(invalid)?;
        if !names_language(&options) {
            parsed.language = self.language;
        }
        let options = parsed;
        let mut closer = self.ports.closer(options);
        if let Some(logger) = &self.logger {
            closer = closer.with_logger(Rc::new(JsLogger(logger.clone())));
        }
        Ok(super::closer_api::JsCloser::wrap(closer))
    }

    /// A Watcher keeping its Learning Ledger in the container's store.
    pub fn watcher(
        &self,
        #[wasm_bindgen(unchecked_param_type = "WatcherOptions")] options: JsValue,
    ) -> Result<super::watcher_api::JsWatcher, JsValue> {
        let mut parsed: WatcherOptions =
            options_from_setup("governor.watcher", &options, &[]).map_err(invalid)?;
        if !names_language(&options) {
            parsed.language = self.language;
        }
        let options = parsed;
        let mut watcher = self.ports.watcher(options);
        if let Some(logger) = &self.logger {
            watcher = watcher.with_logger(Rc::new(JsLogger(logger.clone())));
        }
        Ok(super::watcher_api::JsWatcher::wrap(watcher))
    }

    /// A Reflector with the container's LLM, prompt builder and store injected.
    pub fn reflector(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "ReflectorOptions")] options: JsValue,
    ) -> Result<JsReflector, JsValue> {
        let mut parsed: ReflectorOptions = if options.is_undefined() {
            ReflectorOptions::default()
        } else {
            options_from_setup("governor.reflector", &options, &[]).map_err(invalid)?
        };
        if !names_language(&options) {
            parsed.language = self.language;
        }
        let options = parsed;
        let mut reflector = self.ports.reflector(options);
        if let Some(logger) = &self.logger {
            reflector = reflector.with_logger(Rc::new(JsLogger(logger.clone())));
        }
        Ok(JsReflector {
            inner: Rc::new(reflector),
        })
    }
}

type JsBackedReflector = Reflector<JsQueryFn, JsPromptLoader, JsStore>;

/// Turns trajectories into insights and bullet tags (seed 004). Obtain one from `createGovernor(...)`.
#[wasm_bindgen(js_name = Reflector)]
pub struct JsReflector {
    inner: Rc<JsBackedReflector>,
}

#[wasm_bindgen(js_class = Reflector)]
impl JsReflector {
    /// Not constructible with `new`: obtain one from `createGovernor(ports).reflector()`. Throws an `AgentGovernorError` (`invalid_input`).
    #[wasm_bindgen(constructor)]
    pub fn not_constructible() -> Result<JsReflector, JsValue> {
        Err(coded_error(
            "invalid_input",
            "",
            "Reflector has no public constructor: obtain one from createGovernor(ports).reflector()",
        ))
    }

    /// build -> ask -> parse -> tag -> result. Resolves to a ReflectionResult whatever the model does
    /// (an LLM failure is a result with `error` and no insights); rejects only on malformed input.
    #[wasm_bindgen(unchecked_return_type = "Promise<ReflectionResult>")]
    pub fn reflect(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Trajectory")] trajectory: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] ground_truth: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] test_report: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] dataset: JsValue,
    ) -> Promise {
        let read = || -> Result<_, JsValue> {
            Ok((
                from_js_valid::<Trajectory>("trajectory", &trajectory).map_err(invalid)?,
                args::text("groundTruth", &ground_truth).map_err(invalid)?,
                args::text("testReport", &test_report).map_err(invalid)?,
                args::optional_text("dataset", &dataset).map_err(invalid)?,
            ))
        };
        let parsed = read();
        let reflector = Rc::clone(&self.inner);
        future_to_promise(async move {
            let (trajectory, ground_truth, test_report, dataset) = parsed?;
            let dataset = dataset.unwrap_or_else(|| "default".to_owned());
            Ok(to_js(
                &reflector
                    .reflect(&trajectory, &ground_truth, &test_report, &dataset)
                    .await,
            ))
        })
    }
}

/// A playbook that learns: counters, curated deltas, dedup, harm pruning, budget, ACE text, storage.
#[wasm_bindgen(js_name = Playbook)]
pub struct JsPlaybook {
    inner: Rc<RefCell<Playbook>>,
    /// The stored text it was loaded from (for compare-and-swap on save).
    loaded: Rc<RefCell<Option<String>>>,
}

impl JsPlaybook {
    fn wrap(playbook: Playbook, loaded: Option<String>) -> Self {
        Self {
            inner: Rc::new(RefCell::new(playbook)),
            loaded: Rc::new(RefCell::new(loaded)),
        }
    }
}

fn policy(value: &JsValue) -> Result<PlaybookPolicy, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(PlaybookPolicy::default())
    } else {
        from_js("policy", value).map_err(invalid)
    }
}

#[wasm_bindgen(js_class = Playbook)]
impl JsPlaybook {
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsPlaybook {
        Self::wrap(Playbook::default(), None)
    }

    /// A playbook from its JSON (as `toJSON()` gives it).
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "PlaybookData")] value: JsValue,
    ) -> Result<JsPlaybook, JsValue> {
        Ok(Self::wrap(
            from_js("playbook", &value).map_err(invalid)?,
            None,
        ))
    }

    /// Loads `name` from the store (an empty playbook when none is stored).
    #[wasm_bindgen(unchecked_return_type = "Promise<Playbook>")]
    pub fn load(
        #[wasm_bindgen(unchecked_param_type = "ConfirmationStore")] store: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<Promise, JsValue> {
        let store = JsStore::from_js(store)?;
        let name = args::identifier("name", &name).map_err(invalid)?;
        Ok(future_to_promise(async move {
            let (playbook, text) = load_playbook(&store, &name)
                .await
                .map_err(|error| coded_error("store_failed", "", &error.message))?;
            Ok(Self::wrap(playbook, text).into())
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
        let (playbook, loaded) = (Rc::clone(&self.inner), Rc::clone(&self.loaded));
        Ok(future_to_promise(async move {
            let snapshot = playbook.borrow().clone();
            let previous = loaded.borrow().clone();
            match save_playbook(&store, &name, &snapshot, previous.as_deref()).await {
                Ok(Some(text)) => {
                    *loaded.borrow_mut() = Some(text);
                    Ok(JsValue::UNDEFINED)
                }
                Ok(None) => Err(coded_error(
                    "conflict",
                    "",
                    "the stored playbook changed since it was loaded; load it again",
                )),
                Err(error) => Err(coded_error("store_failed", "", &error.message)),
            }
        }))
    }

    /// Counts each bullet tag of a reflection; returns the ids of unknown bullets (not counted).
    #[wasm_bindgen(js_name = applyReflection)]
    pub fn apply_reflection(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ReflectionResult")] result: JsValue,
    ) -> Result<Vec<String>, JsValue> {
        let result: ReflectionResult = from_js_valid("result", &result).map_err(invalid)?;
        Ok(self.inner.borrow_mut().apply_reflection(&result))
    }

    /// The Curator: delta operations for these insights (op ids `{reflectionId}/{index}`).
    #[wasm_bindgen(unchecked_return_type = "DeltaOp[]")]
    pub fn curate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] reflection_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Insight[]")] insights: JsValue,
    ) -> Result<JsValue, JsValue> {
        let reflection_id = args::identifier("reflectionId", &reflection_id).map_err(invalid)?;
        let insights: Vec<Insight> = from_js_list("insights", &insights).map_err(invalid)?;
        Ok(to_js(&curate(
            &self.inner.borrow(),
            &reflection_id,
            &insights,
        )))
    }

    /// Applies delta operations one by one: the report lists applied, replayed and rejected (with reasons).
    #[wasm_bindgen(js_name = applyDeltas, unchecked_return_type = "DeltaReport")]
    pub fn apply_deltas(
        &self,
        #[wasm_bindgen(unchecked_param_type = "DeltaOp[]")] ops: JsValue,
    ) -> Result<JsValue, JsValue> {
        let ops: Vec<DeltaOp> = from_js_list("ops", &ops).map_err(invalid)?;
        Ok(to_js(&apply_deltas(&mut self.inner.borrow_mut(), &ops)))
    }

    /// Merges near-identical bullets; returns the ids merged away.
    pub fn dedup(&self) -> Vec<String> {
        self.inner.borrow_mut().dedup()
    }

    /// Removes bullets whose harmful count dominates; returns their ids.
    #[wasm_bindgen(js_name = pruneHarmful)]
    pub fn prune_harmful(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PlaybookPolicy")] policy_value: JsValue,
    ) -> Result<Vec<String>, JsValue> {
        Ok(self
            .inner
            .borrow_mut()
            .prune_harmful(&policy(&policy_value)?))
    }

    /// Keeps the rendered playbook within the size budget, removing the lowest net scores first.
    #[wasm_bindgen(js_name = enforceBudget)]
    pub fn enforce_budget(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PlaybookPolicy")] policy_value: JsValue,
    ) -> Result<Vec<String>, JsValue> {
        Ok(self
            .inner
            .borrow_mut()
            .enforce_budget(&policy(&policy_value)?))
    }

    /// The ACE text form.
    pub fn render(&self) -> String {
        self.inner.borrow().render()
    }

    /// The whole playbook as plain data (bullets, version, applied op ids, audit log).
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "PlaybookData")]
    pub fn to_json(&self) -> JsValue {
        to_js(&*self.inner.borrow())
    }

    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.inner.borrow().version as f64
    }
}

impl Default for JsPlaybook {
    fn default() -> Self {
        Self::new()
    }
}
