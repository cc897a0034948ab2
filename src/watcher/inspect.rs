//! `Watcher::inspect`: pre-check, persona install (declaration, or fallback to a plain review), C3L
//! prompt, ask (with the shared bounded re-ask), enforce the contract, record the decision in the ledger.

use super::contract::{ModelVerdict, enforce_contract, watcher_verdict_schema};
use super::declaration::persona_declaration;
use super::ledger::{LedgerEntry, append_entry};
use super::persona::executor_persona_of;
use super::precheck::{persona_missing, precheck};
use super::types::{Language, Persona, WatcherInput, WatcherOutput};
use crate::input::{InputError, Validate, require_non_empty};
use crate::llm::{Asked, StructuredError, ask_structured};
use crate::ports::{Clock, Llm, LogLevel, Logger, NoLogger, PromptLoader, Store};
use crate::prompts::{PromptRequest, ResolutionStatus, render_prompt, resolve_prompt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;
use tsify::Tsify;

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
}

fn one() -> u32 {
    1
}

impl Validate for WatcherOptions {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("agentId", &self.agent_id)?;
        if self.max_reasks > 5 {
            return Err(InputError::invalid("maxReasks", "must be at most 5"));
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
        let output = match precheck(input, language) {
            Some(verdict) => verdict,
            None => self.inspect_with_model(input, llm).await,
        };
        self.record(input, &output, round).await;
        output
    }

    async fn inspect_with_model(&self, input: &WatcherInput, llm: &impl Llm) -> WatcherOutput {
        let language = self.options.language;
        let (prompt, installed, note) = match &input.persona {
            Some(persona) => match self.prompt(input, Some(persona)).await {
                Ok(prompt) => (Ok(prompt), Some(persona), None),
                Err(why) => {
                    let note = language.pick(
                        || format!("Persona install failed ({why}); plain review.\n\n"),
                        || format!("人格インストール失敗（{why}）。素のAIとして検査します。\n\n"),
                    );
                    self.logger.log(LogLevel::Warn, &format!("watcher: {note}"));
                    if input.persona_required {
                        // The seed's fallback (a plain review) does not meet a task that needs a persona.
                        let mut output = persona_missing(language);
                        output.inspection_log = format!("{note}{}", output.inspection_log);
                        return output;
                    }
                    (self.prompt(input, None).await, None, Some(note))
                }
            },
            None => (self.prompt(input, None).await, None, None),
        };
        let answer = match prompt {
            Ok(prompt) => {
                let schema = watcher_verdict_schema();
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
        let mut output = enforce_contract(answer, installed, executor_persona.as_ref(), language);
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
        let resolved = resolve_prompt(&self.loader, &request)
            .await
            .map_err(|error| error.to_string())?;
        if persona.is_some() && resolved.status == ResolutionStatus::Fallback {
            return Err(format!(
                "no persona prompt (tried {})",
                resolved.tried.join(", ")
            ));
        }
        let mut variables = BTreeMap::new();
        variables.insert(
            "original_request".to_owned(),
            Value::String(input.original_request.clone()),
        );
        let executor_result =
            serde_json::to_string_pretty(&input.executor_result).unwrap_or_default();
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
