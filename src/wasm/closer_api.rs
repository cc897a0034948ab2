//! The Closer API exported to JavaScript.

use super::convert::{from_js, from_js_valid, options_from_setup, to_js, to_json_text};
use super::errors::{coded_error, invalid};
use super::llm_ports::{JsLogger, JsPromptLoader, JsQueryFn, optional_logger};
use super::model_answer::parse_model_answer;
use super::ports::optional_function;
use crate::closer::handler::{DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT, NextCheck};
use crate::closer::output::{DEFAULT_MAX_CHECKLIST_ITEMS, DEFAULT_MAX_PENDING_ACTIONS};
use crate::closer::{
    C3l, Closer, CloserCompletionHandler, CloserInput, CloserOptions, CloserResult,
    CloserStructuredOutput, DecisionOptions, closer_output_schema, decide_completion,
    format_iteration_summary,
};
use crate::prompts::{PromptRequest, render_prompt, resolve_prompt};
use js_sys::Promise;
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(typescript_custom_section)]
const CLOSER_TYPES: &'static str = r#"
/** The seed's QueryFn. The built-in `openAICompatible(...)` returns one. */
export type QueryFn = (prompt: string, options: QueryOptions) => QueryReply | Promise<QueryReply>;

/** Reads a prompt file; null when there is none. */
export type PromptLoaderFn = (path: string) => string | null | undefined | Promise<string | null | undefined>;

export interface CloserLogger {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
}

export interface CloserSetup extends CloserOptions {
  loadPrompt?: PromptLoaderFn;
  /** e.g. `console`. */
  logger?: CloserLogger;
}

export interface CompletionHandlerSetup {
  stepId: string;
  c3l: C3l;
  /** Checks before the handler stops asking and reports the limit (default 5, at most 100). */
  maxIterations?: number;
}

export interface IterationSummary {
  structuredOutput?: Record<string, unknown> | null;
}

/** What a host accepts from a model answer. */
export interface ParseOptions {
  /** Accept an answer that needed repairs or unwrapping (default true); each repair is listed either way. */
  allowRepairs?: boolean;
  /** The model's chat template opens a reasoning block in the prompt (DeepSeek-R1): text before the first
   * `</think>` is reasoning, and a text without one ended inside it (`truncated`). */
  startsInReasoning?: boolean;
  /** The endpoint's `finish_reason`: `"length"` makes any answer `truncated`, however complete it looks. */
  finishReason?: string;
}

/** Bounds on the lists of a Closer answer, sent as the schema's `maxItems` and enforced at parse. */
export interface CloserListBounds {
  /** Most checklist items (default 100). */
  maxChecklistItems?: number;
  /** Most pending actions (default 50). */
  maxPendingActions?: number;
}

export type CloserParseResult = { ok: true; output: CloserStructuredOutput; repairs: Repair[]; ignoredFields: string[] } | { ok: false; error: StructuredError };

export interface PromptQuery {
  workingDir: string;
  agentId: string;
  c2: string;
  c3: string;
  edition?: string;
  adaptation?: string | null;
  loadPrompt?: PromptLoaderFn;
}

export interface StrictSchema {
  name: string;
  schema: Record<string, unknown>;
  /** Ready for OpenAI `response_format`. */
  responseFormat: Record<string, unknown>;
}
"#;

/// complete = allComplete && confidence >= threshold, failing closed on inconsistency and failed required facts.
#[wasm_bindgen(js_name = decideCompletion, unchecked_return_type = "CompletionDecision")]
pub fn decide(
    #[wasm_bindgen(unchecked_param_type = "CloserStructuredOutput")] output: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "DecisionOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let output: CloserStructuredOutput = from_js("output", &output).map_err(invalid)?;
    let options: DecisionOptions = if options.is_undefined() || options.is_null() {
        DecisionOptions::default()
    } else {
        from_js("options", &options).map_err(invalid)?
    };
    Ok(to_js(&decide_completion(&output, &options)))
}

/// Extracts and parses a Closer answer from model text: `{ ok: true, output }` or `{ ok: false, error }`.
#[wasm_bindgen(js_name = parseCloserOutput, unchecked_return_type = "CloserParseResult")]
pub fn parse_closer_output(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ParseOptions & CloserListBounds")]
    options: JsValue,
) -> Result<JsValue, JsValue> {
    parse_model_answer::<CloserStructuredOutput>(&text, &options, "output", &CLOSER_BOUNDS)
}

/// The Closer answer's list bounds a parse or schema call may set.
const CLOSER_BOUNDS: [super::model_answer::BoundOption; 2] = [
    (
        "checklist",
        "maxChecklistItems",
        DEFAULT_MAX_CHECKLIST_ITEMS,
    ),
    (
        "pendingActions",
        "maxPendingActions",
        DEFAULT_MAX_PENDING_ACTIONS,
    ),
];

/// The strict JSON Schema of the Closer's answer, with the list bounds (`{ maxChecklistItems?,
/// maxPendingActions? }`, defaults 100 and 50).
#[wasm_bindgen(js_name = closerOutputSchema, unchecked_return_type = "StrictSchema")]
pub fn output_schema(
    #[wasm_bindgen(unchecked_optional_param_type = "CloserListBounds")] options: JsValue,
) -> Result<JsValue, JsValue> {
    super::model_answer::bounded_schema_js(closer_output_schema(), &options, &CLOSER_BOUNDS)
}

/// What the next iteration is told: unfinished items, pending actions, reasons.
#[wasm_bindgen(js_name = formatIterationSummary)]
pub fn iteration_summary(
    #[wasm_bindgen(unchecked_param_type = "CloserResult")] result: JsValue,
) -> Result<String, JsValue> {
    let result: CloserResult = from_js("result", &result).map_err(invalid)?;
    Ok(format_iteration_summary(&result.output, &result.reasons))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptQuery {
    working_dir: String,
    agent_id: String,
    c2: String,
    c3: String,
    #[serde(default)]
    edition: Option<String>,
    #[serde(default)]
    adaptation: Option<String>,
}

/// C3L resolution: host files through `loadPrompt`, then the embedded defaults. Rejects with code
/// `prompt_not_found` (listing every path tried) when nothing exists.
#[wasm_bindgen(js_name = resolvePrompt, unchecked_return_type = "Promise<ResolvedPrompt>")]
pub fn resolve(
    #[wasm_bindgen(unchecked_param_type = "PromptQuery")] query: JsValue,
) -> Result<Promise, JsValue> {
    super::args::only_known_keys(
        "resolvePrompt",
        "query",
        &query,
        &[
            "workingDir",
            "agentId",
            "c2",
            "c3",
            "edition",
            "adaptation",
            "loadPrompt",
        ],
    )
    .map_err(invalid)?;
    let loader = JsPromptLoader(optional_function(&query, "loadPrompt")?);
    let text = to_json_text("query", &query).map_err(invalid)?;
    let query: PromptQuery =
        crate::input::parse_json_str(&text).map_err(|error| invalid(error.within("query")))?;
    Ok(future_to_promise(async move {
        let request = PromptRequest {
            working_dir: &query.working_dir,
            agent_id: &query.agent_id,
            c2: &query.c2,
            c3: &query.c3,
            edition: query.edition.as_deref().unwrap_or("default"),
            adaptation: query.adaptation.as_deref(),
        };
        resolve_prompt(&loader, &request)
            .await
            .map(|resolved| to_js(&resolved))
            .map_err(|error| coded_error(error.code(), "", &error.to_string()))
    }))
}

/// Renders a prompt file (front matter checked) with the given variables.
#[wasm_bindgen(js_name = renderPrompt)]
pub fn render(
    #[wasm_bindgen(unchecked_param_type = "string")] file_text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] variables: JsValue,
) -> Result<String, JsValue> {
    let file_text = super::args::text("fileText", &file_text).map_err(invalid)?;
    let variables: BTreeMap<String, serde_json::Value> =
        from_js("variables", &variables).map_err(invalid)?;
    render_prompt(&file_text, &variables)
        .map_err(|error| coded_error(error.code(), "", &error.to_string()))
}

type JsBackedCloser = Closer<JsPromptLoader>;

/// The completion judgment sub-loop (seed 001).
#[wasm_bindgen(js_name = Closer)]
pub struct JsCloser {
    inner: Rc<JsBackedCloser>,
}

impl JsCloser {
    pub(crate) fn wrap(closer: JsBackedCloser) -> Self {
        Self {
            inner: Rc::new(closer),
        }
    }
}

#[wasm_bindgen(js_class = Closer)]
impl JsCloser {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "CloserSetup")] setup: JsValue,
    ) -> Result<JsCloser, JsValue> {
        build_closer(&setup)
    }

    /// One completion check. Resolves to a CloserResult whatever the model does; rejects only on malformed
    /// input.
    #[wasm_bindgen(unchecked_return_type = "Promise<CloserResult>")]
    pub fn check(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CloserInput")] input: JsValue,
        #[wasm_bindgen(unchecked_param_type = "QueryFn")] query: JsValue,
    ) -> Promise {
        let parsed = from_js_valid::<CloserInput>("input", &input).map_err(invalid);
        let query = JsQueryFn::from_js("query", query);
        let closer = Rc::clone(&self.inner);
        future_to_promise(async move {
            let (input, query) = (parsed?, query?);
            Ok(to_js(&closer.check(&input, &query).await))
        })
    }

    /// This Closer as a runner's CompletionHandler (seed 001), with an iteration limit.
    #[wasm_bindgen(js_name = completionHandler)]
    pub fn completion_handler(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CompletionHandlerSetup")] setup: JsValue,
    ) -> Result<JsCompletionHandler, JsValue> {
        let setup: HandlerSetup = from_js("setup", &setup).map_err(invalid)?;
        crate::input::require_non_empty("setup.stepId", &setup.step_id).map_err(invalid)?;
        let max = setup.max_iterations.unwrap_or(DEFAULT_MAX_ITERATIONS);
        if !(1..=MAX_ITERATIONS_LIMIT).contains(&max) {
            return Err(invalid(crate::input::InputError::invalid(
                "setup.maxIterations",
                format!("must be 1 to {MAX_ITERATIONS_LIMIT}"),
            )));
        }
        let state = CloserCompletionHandler::new(setup.step_id, setup.c3l, max)
            .with_language(self.inner.options().language);
        Ok(JsCompletionHandler {
            closer: Rc::clone(&self.inner),
            state: Rc::new(RefCell::new(state)),
        })
    }
}

/// The seed's factory: `createCloser({ workingDir, agentId, logger })`, the same as `new Closer(...)`.
#[wasm_bindgen(js_name = createCloser)]
pub fn create_closer(
    #[wasm_bindgen(unchecked_param_type = "CloserSetup")] setup: JsValue,
) -> Result<JsCloser, JsValue> {
    build_closer(&setup)
}

fn build_closer(setup: &JsValue) -> Result<JsCloser, JsValue> {
    if !setup.is_object() {
        return Err(coded_error(
            "invalid_input",
            "options",
            "options must be an object { workingDir, agentId, ... }",
        ));
    }
    let loader = JsPromptLoader(optional_function(setup, "loadPrompt")?);
    let logger = optional_logger(setup, "options.logger")?;
    let options: CloserOptions =
        options_from_setup("Closer", setup, &["loadPrompt", "logger"]).map_err(invalid)?;
    let mut closer = Closer::new(options, loader);
    if let Some(logger) = logger {
        closer = closer.with_logger(Rc::new(JsLogger(logger)));
    }
    Ok(JsCloser::wrap(closer))
}

/// The Closer as a runner's CompletionHandler (seed 001), with an iteration limit. Obtained from
/// `closer.completionHandler(setup)`.
#[wasm_bindgen(js_name = CloserCompletionHandler)]
pub struct JsCompletionHandler {
    closer: Rc<JsBackedCloser>,
    state: Rc<RefCell<CloserCompletionHandler>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HandlerSetup {
    step_id: String,
    c3l: C3l,
    #[serde(default)]
    max_iterations: Option<u32>,
}

/// The part of a runner's iteration summary the handler reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SummaryInput {
    #[serde(default)]
    structured_output: Option<serde_json::Value>,
}

#[wasm_bindgen(js_class = CloserCompletionHandler)]
impl JsCompletionHandler {
    /// Not constructible with `new`: obtain one from `closer.completionHandler(setup)`. Throws an `AgentGovernorError` (`invalid_input`).
    #[wasm_bindgen(constructor)]
    pub fn not_constructible() -> Result<JsCompletionHandler, JsValue> {
        Err(coded_error(
            "invalid_input",
            "",
            "CloserCompletionHandler has no public constructor: obtain one from closer.completionHandler(setup)",
        ))
    }

    /// Whether the last check said complete, as the seed's `CompletionHandler` has it: a Promise. Await it;
    /// `complete` is the same answer without one.
    #[wasm_bindgen(js_name = isComplete, unchecked_return_type = "Promise<boolean>")]
    pub fn is_complete(&self) -> Promise {
        Promise::resolve(&JsValue::from_bool(self.state.borrow().is_complete()))
    }

    /// Whether the last check said complete (false before the first check).
    #[wasm_bindgen(getter)]
    pub fn complete(&self) -> bool {
        self.state.borrow().is_complete()
    }

    #[wasm_bindgen(js_name = isExhausted)]
    pub fn is_exhausted(&self) -> bool {
        self.state.borrow().is_exhausted()
    }

    /// Checks the iteration's structured output; the last result is carried into the next check.
    #[wasm_bindgen(js_name = checkCompletion, unchecked_return_type = "Promise<CloserResult>")]
    pub fn check_completion(
        &self,
        #[wasm_bindgen(unchecked_param_type = "IterationSummary")] summary: JsValue,
        #[wasm_bindgen(unchecked_param_type = "QueryFn")] query: JsValue,
    ) -> Promise {
        let structured = from_js::<SummaryInput>("summary", &summary)
            .map(|summary| summary.structured_output.filter(|value| !value.is_null()))
            .map_err(invalid);
        let query = JsQueryFn::from_js("query", query);
        let (closer, state) = (Rc::clone(&self.closer), Rc::clone(&self.state));
        future_to_promise(async move {
            let (structured, query) = (structured?, query?);
            // The state is never borrowed across the query, so the handler stays usable meanwhile.
            let next = state.borrow_mut().next_check(structured);
            let result = match next {
                NextCheck::Ask(input) => closer.check(&input, &query).await,
                NextCheck::Exhausted(result) => *result,
            };
            Ok(to_js(state.borrow_mut().record(result)))
        })
    }

    /// "Not checked" before the first check, then the model's summary.
    #[wasm_bindgen(js_name = getCompletionDescription)]
    pub fn completion_description(&self) -> String {
        self.state.borrow().completion_description()
    }

    #[wasm_bindgen(getter)]
    pub fn iterations(&self) -> u32 {
        self.state.borrow().iterations()
    }
}
