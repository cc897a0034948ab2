//! `Watcher::inspect`: pre-check, persona install (declaration, or fallback to a plain review), C3L
//! prompt, ask (with the shared bounded re-ask), enforce the contract, record the decision in the ledger.

use super::contract::{
    DEFAULT_MAX_BLINDSPOTS, DEFAULT_MAX_ISSUES, ModelVerdict, VerdictRule, bounded_verdict_schema,
    enforce_contract, verdict_bounds,
};
use super::declaration::persona_declaration;
use super::ledger::{LedgerEntry, append_entry};
use super::persona::executor_persona_of;
use super::precheck::{persona_install_failed, precheck};
use super::types::{Language, Persona, WatcherInput, WatcherOutput};
use crate::input::{InputError, Validate, require_non_empty};
use crate::llm::{Asked, StructuredError, ask_structured};
use crate::ports::{Clock, Llm, LogLevel, Logger, NoLogger, PromptLoader, Store};
use crate::prompts::{PromptRequest, render_prompt, resolve_exact_prompt, resolve_prompt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;
use tsify::Tsify;

/// The seed's `max_iterations` (option `maxRounds`).
pub const DEFAULT_MAX_ROUNDS: u32 = 3;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WatcherOptions {
    #[serde(default)]
    #[tsify(optional)]
    pub working_dir: String,
    pub agent_id: String,
    /// Language of the texts the Watcher writes itself (default `en`; `ja` is the seed's wording).
    #[serde(default)]
    #[tsify(optional)]
    pub language: Language,
    /// How many times an unusable answer is asked again (default 1).
    #[serde(default = "one")]
    #[tsify(optional)]
    pub max_reasks: u32,
    /// Accept answers that needed repairs or unwrapping (default true).
    #[serde(default = "crate::llm::parse::allow_repairs_by_default")]
    #[tsify(optional)]
    pub allow_repairs: bool,
    /// Most issues a verdict may hold (default 100; sent as the schema's `maxItems`).
    #[serde(default = "default_max_issues")]
    #[tsify(optional)]
    pub max_issues: u32,
    /// Most covered blind spots a verdict may hold (default 50; sent as the schema's `maxItems`).
    #[serde(default = "default_max_blindspots")]
    #[tsify(optional)]
    pub max_blindspots: u32,
    /// Pass only when the answer states `approval_criteria.acknowledged_trade_offs: true` (default false:
    /// the seed's output shape, where the model's `pass` is its trade-off judgement, is enough).
    #[serde(default)]
    #[tsify(optional)]
    pub require_trade_off_acknowledgement: bool,
    /// Completion-protocol rounds before escalating to a human (default 3, the seed's `max_iterations`).
    #[serde(default = "default_max_rounds")]
    #[tsify(optional)]
    pub max_rounds: u32,
    /// When a persona review has no usable persona prompt, review without the persona (the seed's
    /// fallback, recorded in the verdict) instead of failing the review (default false).
    #[serde(default)]
    #[tsify(optional)]
    pub persona_fallback_to_plain: bool,
}

fn one() -> u32 {
    1
}

fn default_max_issues() -> u32 {
    DEFAULT_MAX_ISSUES
}

fn default_max_blindspots() -> u32 {
    DEFAULT_MAX_BLINDSPOTS
}

fn default_max_rounds() -> u32 {
    DEFAULT_MAX_ROUNDS
}

/// The highest `maxRounds`: each round re-runs the executor.
pub const MAX_ROUNDS_LIMIT: u32 = 10;

impl WatcherOptions {
    /// Options with every default: a plain English review for `agent_id`.
    pub fn new(agent_id: impl Into<String>) -> Self {
        Self {
            working_dir: String::new(),
            agent_id: agent_id.into(),
            language: Language::En,
            max_reasks: 1,
            allow_repairs: crate::llm::parse::allow_repairs_by_default(),
            max_issues: DEFAULT_MAX_ISSUES,
            max_blindspots: DEFAULT_MAX_BLINDSPOTS,
            require_trade_off_acknowledgement: false,
            max_rounds: DEFAULT_MAX_ROUNDS,
            persona_fallback_to_plain: false,
        }
    }

    /// The schema sent with each query: the verdict's schema with these list bounds.
    pub fn answer_schema(&self) -> crate::llm::OutputSchema {
        bounded_verdict_schema(self.max_issues, self.max_blindspots)
    }
}

impl Validate for WatcherOptions {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("agentId", &self.agent_id)?;
        if self.max_reasks > 5 {
            return Err(InputError::invalid("maxReasks", "must be at most 5"));
        }
        if !(1..=MAX_ROUNDS_LIMIT).contains(&self.max_rounds) {
            return Err(InputError::invalid(
                "maxRounds",
                format!("must be 1 to {MAX_ROUNDS_LIMIT}"),
            ));
        }
        for bound in verdict_bounds(self.max_issues, self.max_blindspots) {
            bound.checked()?;
        }
        Ok(())
    }
}

pub struct Watcher<L, S, C> {
    options: WatcherOptions,
    loader: L,
    store: S,
    clock: C,
    logger: Rc<dyn Logger>,
}

impl<L: PromptLoader, S: Store, C: Clock> Watcher<L, S, C> {
    pub fn new(options: WatcherOptions, loader: L, store: S, clock: C) -> Self {
        Self {
            options,
            loader,
            store,
            clock,
            logger: Rc::new(NoLogger),
        }
    }

    pub fn with_logger(self, logger: Rc<dyn Logger>) -> Self {
        Self { logger, ..self }
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn options(&self) -> &WatcherOptions {
        &self.options
    }

    /// One inspection (completion-protocol round `round`). Always returns a verdict.
    pub async fn inspect(&self, input: &WatcherInput, llm: &impl Llm, round: u32) -> WatcherOutput {
        let language = self.options.language;
        let mut output = match precheck(input, language) {
            Some(verdict) => verdict,
            None => self.inspect_with_model(input, llm).await,
        };
        output.ignored_input_fields = input
            .executor_result
            .as_ref()
            .map(|result| result.ignored_fields())
            .unwrap_or_default();
        self.record(input, &output, round).await;
        output
    }

    async fn inspect_with_model(&self, input: &WatcherInput, llm: &impl Llm) -> WatcherOutput {
        let language = self.options.language;
        let (prompt, installed, note) = match &input.persona {
            Some(persona) => match self.prompt(input, Some(persona)).await {
                Ok(prompt) => (Ok(prompt), Some(persona), None),
                Err(why) if self.options.persona_fallback_to_plain && !input.persona_required => {
                    // The seed's fallback, chosen by the host: a plain review that says why.
                    let note = language.pick(
                        || format!("Persona install failed ({why}); plain review.\n\n"),
                        || format!("人格インストール失敗（{why}）。素のAIとして検査します。\n\n"),
                    );
                    self.logger.log(LogLevel::Warn, &format!("watcher: {note}"));
                    (self.prompt(input, None).await, None, Some(note))
                }
                Err(why) => {
                    self.logger.log(
                        LogLevel::Warn,
                        &format!("watcher: persona install failed: {why}"),
                    );
                    return persona_install_failed(persona, &why, language);
                }
            },
            None => (self.prompt(input, None).await, None, None),
        };
        let answer = match prompt {
            Ok(prompt) => {
                let schema = self.options.answer_schema();
                let Asked { answer, queries } = ask_structured::<ModelVerdict>(
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
                self.logger
                    .log(LogLevel::Debug, &format!("watcher: {queries} queries"));
                answer.map(|parsed| parsed.value)
            }
            Err(why) => Err(StructuredError::query(format!("prompt: {why}"))),
        };
        let executor_persona = executor_persona_of(input);
        let rule = VerdictRule {
            require_trade_off_acknowledgement: self.options.require_trade_off_acknowledgement,
        };
        let mut output =
            enforce_contract(answer, installed, executor_persona.as_ref(), language, rule);
        if let Some(note) = note {
            output.inspection_log = format!("{note}{}", output.inspection_log);
        }
        output
    }

    /// The rendered prompt: the persona edition when a persona is installed, the plain one otherwise.
    async fn prompt(
        &self,
        input: &WatcherInput,
        persona: Option<&Persona>,
    ) -> Result<String, String> {
        let request = PromptRequest {
            working_dir: &self.options.working_dir,
            agent_id: &self.options.agent_id,
            c2: "review",
            c3: "watcher",
            edition: "default",
            adaptation: persona.map(|_| "persona"),
        };
        // The persona prompt and the plain one are resolved apart: a host override of one never stands in
        // for the other.
        let resolved = match persona {
            Some(_) => resolve_exact_prompt(&self.loader, &request).await,
            None => resolve_prompt(&self.loader, &request).await,
        }
        .map_err(|error| error.to_string())?;
        let mut variables = BTreeMap::new();
        variables.insert(
            "original_request".to_owned(),
            Value::String(input.original_request.clone()),
        );
        let shown = input
            .executor_result
            .as_ref()
            .map_or(Value::Null, |result| result.shown_to_the_model());
        let executor_result = serde_json::to_string_pretty(&shown).unwrap_or_default();
        variables.insert("executor_result".to_owned(), Value::String(executor_result));
        let classification = input
            .task_classification
            .clone()
            .unwrap_or_else(|| "unknown".to_owned());
        variables.insert(
            "task_classification".to_owned(),
            Value::String(classification),
        );
        if let Some(persona) = persona {
            let declaration = persona_declaration(
                persona,
                executor_persona_of(input).as_ref(),
                self.options.language,
            );
            variables.insert("declaration".to_owned(), Value::String(declaration));
            variables.insert(
                "persona_name".to_owned(),
                Value::String(persona.name.clone()),
            );
        }
        render_prompt(&resolved.text, &variables).map_err(|error| error.to_string())
    }

    /// Appends the decision to the Learning Ledger; a ledger failure is logged, never changes the verdict.
    async fn record(&self, input: &WatcherInput, output: &WatcherOutput, round: u32) {
        let now = self.clock.now().unwrap_or_default();
        let artifacts = input
            .executor_result
            .as_ref()
            .map(|r| r.artifacts.join(", "))
            .unwrap_or_else(|| "-".to_owned());
        let summary = format!(
            "request: {} | artifacts: {artifacts}",
            input.original_request.lines().next().unwrap_or("")
        );
        if let Err(error) = append_entry(
            &self.store,
            &LedgerEntry::decision(summary, output, round, now),
        )
        .await
        {
            self.logger.log(
                LogLevel::Warn,
                &format!("watcher: the ledger entry was not written: {error}"),
            );
        }
    }
}
