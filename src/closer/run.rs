//! `Closer::check`: resolve the C3L prompt, ask the model for a checklist (re-asking once on an unusable
//! answer), decide. Every failure is a result with `complete: false` and the error, never a throw.

use super::decision::{DecisionOptions, ObjectiveEvidence, decide_completion};
use super::messages;
use super::output::{CloserStructuredOutput, bounded_closer_schema, closer_bounds};
use super::summary::format_iteration_summary;
use crate::input::{InputError, Validate, require_non_empty};
use crate::language::Language;
use crate::llm::{Asked, ask_structured};
use crate::ports::{Llm, LogLevel, Logger, NoLogger, PromptLoader};
use crate::prompts::{PromptRequest, ResolutionStatus, render_prompt, resolve_prompt};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::rc::Rc;
use tsify::Tsify;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct C3l {
    pub c2: String,
    pub c3: String,
}

/// What the Closer checks (seed 001 CloserInput), plus the host's own facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloserInput {
    /// The agent's structured output for the step.
    #[tsify(type = "Record<string, unknown>")]
    pub structured_output: Value,
    pub step_id: String,
    pub c3l: C3l,
    #[serde(default)]
    #[tsify(optional, type = "Record<string, unknown>")]
    pub context: Option<Map<String, Value>>,
    /// The previous iteration's result: when given, the `retry` prompt is used and told what was left.
    #[serde(default)]
    #[tsify(optional)]
    pub previous: Option<Box<CloserResult>>,
    /// Checklist item ids that must be present and completed.
    #[serde(default)]
    #[tsify(optional)]
    pub required_items: Vec<String>,
    /// Facts the host checked itself; a failed required one forces "not complete".
    #[serde(default)]
    #[tsify(optional)]
    pub evidence: Vec<ObjectiveEvidence>,
}

impl Validate for CloserInput {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("stepId", &self.step_id)?;
        require_non_empty("c3l.c2", &self.c3l.c2)?;
        require_non_empty("c3l.c3", &self.c3l.c3)?;
        if !self.structured_output.is_object() {
            return Err(InputError::invalid("structuredOutput", "must be an object"));
        }
        Ok(())
    }
}

/// The Closer's answer (seed 001 CloserResult), with the reasons and what the next iteration is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct CloserResult {
    pub complete: bool,
    pub output: CloserStructuredOutput,
    #[serde(default)]
    #[tsify(optional)]
    pub prompt_used: Option<String>,
    #[serde(default)]
    #[tsify(optional)]
    pub error: Option<String>,
    /// Why it is not complete (empty when complete).
    #[serde(default)]
    pub reasons: Vec<String>,
    /// Where the prompt came from, and whether it was the first choice.
    #[serde(default)]
    #[tsify(optional)]
    pub prompt_path: Option<String>,
    #[serde(default)]
    #[tsify(optional)]
    pub prompt_status: Option<ResolutionStatus>,
    /// For the next iteration when not complete: unfinished items and pending actions (formatIterationSummary).
    #[serde(default)]
    #[tsify(optional)]
    pub next_iteration_input: Option<String>,
    /// How many times the model was asked (1 + re-asks).
    #[serde(default)]
    pub queries: u32,
    /// What the used answer needed to be read (empty for strict JSON).
    #[serde(default)]
    pub repairs: Vec<crate::llm::Repair>,
    /// Unknown keys removed from the used answer.
    #[serde(default)]
    pub ignored_fields: Vec<String>,
}

/// How the Closer is set up (seed 001 CloserOptions, minus the logger).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloserOptions {
    pub working_dir: String,
    pub agent_id: String,
    #[serde(default = "default_threshold")]
    #[tsify(optional)]
    pub confidence_threshold: f64,
    /// How many times an unusable answer is asked again before failing closed (default 1).
    #[serde(default = "default_reasks")]
    #[tsify(optional)]
    pub max_reasks: u32,
    /// Language of the reasons (default `en`; `ja` for Japanese).
    #[serde(default)]
    #[tsify(optional)]
    pub language: Language,
    /// Accept answers that needed repairs or unwrapping (default true).
    #[serde(default = "crate::llm::parse::allow_repairs_by_default")]
    #[tsify(optional)]
    pub allow_repairs: bool,
    /// Most checklist items an answer may hold (default 100; sent as the schema's `maxItems`).
    #[serde(default = "default_max_checklist_items")]
    #[tsify(optional)]
    pub max_checklist_items: u32,
    /// Most pending actions an answer may hold (default 50; sent as the schema's `maxItems`).
    #[serde(default = "default_max_pending_actions")]
    #[tsify(optional)]
    pub max_pending_actions: u32,
}

fn default_max_checklist_items() -> u32 {
    super::output::DEFAULT_MAX_CHECKLIST_ITEMS
}

fn default_max_pending_actions() -> u32 {
    super::output::DEFAULT_MAX_PENDING_ACTIONS
}

impl CloserOptions {
    /// Options with every default for `agent_id`, prompts under `working_dir`.
    pub fn new(working_dir: impl Into<String>, agent_id: impl Into<String>) -> Self {
        Self {
            working_dir: working_dir.into(),
            agent_id: agent_id.into(),
            confidence_threshold: default_threshold(),
            max_reasks: default_reasks(),
            language: Language::En,
            allow_repairs: crate::llm::parse::allow_repairs_by_default(),
            max_checklist_items: default_max_checklist_items(),
            max_pending_actions: default_max_pending_actions(),
        }
    }

    /// The schema sent with each query: the answer's schema with this Closer's list bounds.
    pub fn answer_schema(&self) -> crate::llm::OutputSchema {
        bounded_closer_schema(self.max_checklist_items, self.max_pending_actions)
    }
}

fn default_threshold() -> f64 {
    super::decision::DEFAULT_CONFIDENCE_THRESHOLD
}

fn default_reasks() -> u32 {
    1
}

impl Validate for CloserOptions {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("agentId", &self.agent_id)?;
        if !(0.0..=1.0).contains(&self.confidence_threshold) {
            return Err(InputError::invalid(
                "confidenceThreshold",
                "must be a number in [0, 1]",
            ));
        }
        if self.max_reasks > 5 {
            return Err(InputError::invalid("maxReasks", "must be at most 5"));
        }
        for bound in closer_bounds(self.max_checklist_items, self.max_pending_actions) {
            bound.checked()?;
        }
        Ok(())
    }
}

/// The completion judgment sub-loop.
pub struct Closer<L> {
    options: CloserOptions,
    loader: L,
    logger: Rc<dyn Logger>,
}

impl<L: PromptLoader> Closer<L> {
    pub fn new(options: CloserOptions, loader: L) -> Self {
        Self {
            options,
            loader,
            logger: Rc::new(NoLogger),
        }
    }

    /// The same Closer, reporting to `logger` (the seed's `CloserOptions.logger`).
    pub fn with_logger(self, logger: Rc<dyn Logger>) -> Self {
        Self { logger, ..self }
    }

    pub fn options(&self) -> &CloserOptions {
        &self.options
    }

    /// One completion check. Never fails: an error is a result with `complete: false`.
    pub async fn check(&self, input: &CloserInput, llm: &impl Llm) -> CloserResult {
        let language = self.options.language;
        let adaptation = input.previous.as_ref().map(|_| "retry");
        let request = PromptRequest {
            working_dir: &self.options.working_dir,
            agent_id: &self.options.agent_id,
            c2: &input.c3l.c2,
            c3: &input.c3l.c3,
            edition: "default",
            adaptation,
        };
        let resolved = match resolve_prompt(&self.loader, &request).await {
            Ok(resolved) => resolved,
            Err(error) => {
                self.logger.log(
                    LogLevel::Warn,
                    &format!("closer {}: prompt: {error}", input.step_id),
                );
                return failed(messages::prompt_failed(language, &error.to_string()));
            }
        };
        self.logger.log(
            LogLevel::Debug,
            &format!(
                "closer {}: prompt {} ({:?})",
                input.step_id, resolved.path, resolved.status
            ),
        );
        let prompt = match render_prompt(&resolved.text, &prompt_variables(input)) {
            Ok(prompt) => prompt,
            Err(error) => {
                let why = format!("{}: {error}", resolved.path);
                return failed(messages::prompt_failed(language, &why));
            }
        };
        let schema = self.options.answer_schema();
        let Asked { answer, queries } = ask_structured::<CloserStructuredOutput>(
            llm,
            &prompt,
            &schema,
            self.options.max_reasks,
            self.logger.as_ref(),
            crate::llm::ParseOptions {
                allow_repairs: self.options.allow_repairs,
                ..crate::llm::ParseOptions::default()
            },
        )
        .await;
        let mut result = match answer {
            Ok(parsed) => {
                let mut result = decided(
                    parsed.value,
                    input,
                    self.options.confidence_threshold,
                    language,
                );
                result.repairs = parsed.repairs;
                result.ignored_fields = parsed.ignored_fields;
                result
            }
            Err(error) => failed(messages::answer_unusable(language, &error.to_string())),
        };
        let verdict = if result.complete {
            "complete".to_owned()
        } else {
            format!("not complete: {}", result.reasons.join("; "))
        };
        self.logger.log(
            LogLevel::Info,
            &format!("closer {}: {verdict} ({queries} queries)", input.step_id),
        );
        result.prompt_used = Some(prompt);
        result.prompt_path = Some(resolved.path);
        result.prompt_status = Some(resolved.status);
        result.queries = queries;
        result
    }
}

fn prompt_variables(input: &CloserInput) -> BTreeMap<String, Value> {
    let mut variables: BTreeMap<String, Value> = input
        .context
        .iter()
        .flatten()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let rendered_input = serde_json::to_string_pretty(&input.structured_output).unwrap_or_default();
    variables.insert("input".to_owned(), Value::String(rendered_input));
    variables.insert("step_id".to_owned(), Value::String(input.step_id.clone()));
    if let Some(previous) = &input.previous {
        let summary = previous
            .next_iteration_input
            .clone()
            .unwrap_or_else(|| format_iteration_summary(&previous.output, &previous.reasons));
        variables.insert("previous_summary".to_owned(), Value::String(summary));
    }
    variables
}

fn decided(
    output: CloserStructuredOutput,
    input: &CloserInput,
    threshold: f64,
    language: Language,
) -> CloserResult {
    let options = DecisionOptions {
        confidence_threshold: threshold,
        required_items: input.required_items.clone(),
        evidence: input.evidence.clone(),
        language,
    };
    let decision = decide_completion(&output, &options);
    let next_iteration_input =
        (!decision.complete).then(|| format_iteration_summary(&output, &decision.reasons));
    CloserResult {
        complete: decision.complete,
        output,
        prompt_used: None,
        error: None,
        reasons: decision.reasons,
        prompt_path: None,
        prompt_status: None,
        next_iteration_input,
        queries: 0,
        repairs: Vec::new(),
        ignored_fields: Vec::new(),
    }
}

fn failed(error: String) -> CloserResult {
    CloserResult {
        complete: false,
        output: CloserStructuredOutput::default(),
        prompt_used: None,
        reasons: vec![error.clone()],
        error: Some(error),
        prompt_path: None,
        prompt_status: None,
        next_iteration_input: None,
        queries: 0,
        repairs: Vec::new(),
        ignored_fields: Vec::new(),
    }
}
