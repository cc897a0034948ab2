//! `Reflector::reflect` (requirements 5-8): build -> ask (one call per round for insights and tags) ->
//! parse -> keep only the tags of used bullets -> result; `rounds` repeats the analysis with the previous
//! insights; a failure is a result carrying the error, never a throw.

use super::models::{
    BulletEvaluation, Insight, ModelReflection, ReflectionResult, Trajectory, reflection_schema,
};
use super::prompt::PromptBuilder;
use crate::input::{InputError, Validate};
use crate::llm::{Asked, ask_structured};
use crate::playbook::book::normalized;
use crate::playbook::storage::load_playbook;
use crate::ports::{Llm, LogLevel, Logger, NoLogger, PromptLoader, Store};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::rc::Rc;
use tsify::Tsify;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReflectorOptions {
    /// Analysis rounds (default 1: no refinement).
    #[serde(default = "one")]
    #[tsify(optional)]
    pub rounds: u32,
    /// Stop early when a round adds no new key insight.
    #[serde(default)]
    #[tsify(optional)]
    pub early_stop: bool,
    /// Re-asks of an unusable answer per round (default 1).
    #[serde(default = "one")]
    #[tsify(optional)]
    pub max_reasks: u32,
    /// The playbook (in the store) whose bullets the trajectory used.
    #[serde(default = "default_playbook")]
    #[tsify(optional)]
    pub playbook: String,
}

fn one() -> u32 {
    1
}

fn default_playbook() -> String {
    "default".to_owned()
}

impl Default for ReflectorOptions {
    fn default() -> Self {
        Self {
            rounds: 1,
            early_stop: false,
            max_reasks: 1,
            playbook: default_playbook(),
        }
    }
}

impl Validate for ReflectorOptions {
    fn validate(&self) -> Result<(), InputError> {
        if !(1..=5).contains(&self.rounds) {
            return Err(InputError::invalid("rounds", "must be 1 to 5"));
        }
        if self.max_reasks > 5 {
            return Err(InputError::invalid("maxReasks", "must be at most 5"));
        }
        crate::input::require_non_empty("playbook", &self.playbook)
    }
}

/// The Reflector, with its LLM client, prompt builder and playbook store injected (requirement 9).
pub struct Reflector<M, L, S> {
    llm: M,
    prompts: PromptBuilder<L>,
    store: S,
    options: ReflectorOptions,
    logger: Rc<dyn Logger>,
}

impl<M: Llm, L: PromptLoader, S: Store> Reflector<M, L, S> {
    pub fn new(llm: M, prompts: PromptBuilder<L>, store: S, options: ReflectorOptions) -> Self {
        Self {
            llm,
            prompts,
            store,
            options,
            logger: Rc::new(NoLogger),
        }
    }

    pub fn with_logger(self, logger: Rc<dyn Logger>) -> Self {
        Self { logger, ..self }
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn options(&self) -> &ReflectorOptions {
        &self.options
    }

    /// The whole flow (requirement 7). Always returns a result; on failure it carries the error and no
    /// insights (requirement 5.3).
    pub async fn reflect(
        &self,
        trajectory: &Trajectory,
        ground_truth: &str,
        test_report: &str,
        dataset: &str,
    ) -> ReflectionResult {
        let failed = |error: String, rounds: u32| ReflectionResult {
            insights: Vec::new(),
            bullet_evaluations: Vec::new(),
            trajectory: trajectory.clone(),
            error: Some(error),
            dropped_evaluations: Vec::new(),
            rounds,
        };
        let used_bullets = match load_playbook(&self.store, &self.options.playbook).await {
            Ok((playbook, _)) => playbook.render_bullets(&trajectory.used_bullet_ids),
            Err(error) => return failed(format!("the playbook could not be read: {error}"), 0),
        };
        let schema = reflection_schema();
        let mut previous: Vec<Insight> = Vec::new();
        let mut last: Option<ModelReflection> = None;
        let mut rounds = 0;
        while rounds < self.options.rounds {
            rounds += 1;
            let prompt = match self
                .prompts
                .build(
                    dataset,
                    trajectory,
                    ground_truth,
                    test_report,
                    &used_bullets,
                    &previous,
                )
                .await
            {
                Ok(prompt) => prompt,
                Err(error) => return failed(format!("prompt: {error}"), rounds),
            };
            let Asked { answer, queries } = ask_structured::<ModelReflection>(
                &self.llm,
                &prompt.text,
                &schema,
                self.options.max_reasks,
                self.logger.as_ref(),
            )
            .await;
            let answer = match answer
                .map_err(|error| error.to_string())
                .and_then(validated)
            {
                Ok(answer) => answer,
                Err(error) => {
                    return failed(
                        format!("the model's analysis could not be used: {error}"),
                        rounds,
                    );
                }
            };
            self.logger.log(
                LogLevel::Debug,
                &format!(
                    "reflector round {rounds}: {} insights ({queries} queries)",
                    answer.insights.len()
                ),
            );
            let adds_nothing = rounds > 1 && !adds_new_insight(&previous, &answer.insights);
            previous = answer.insights.clone();
            last = Some(answer);
            if self.options.early_stop && adds_nothing {
                break;
            }
        }
        let Some(answer) = last else {
            return failed("no round ran".to_owned(), rounds);
        };
        let (kept, dropped) = keep_used(answer.bullet_evaluations, &trajectory.used_bullet_ids);
        ReflectionResult {
            insights: answer.insights,
            bullet_evaluations: kept,
            trajectory: trajectory.clone(),
            error: None,
            dropped_evaluations: dropped,
            rounds,
        }
    }
}

fn validated(answer: ModelReflection) -> Result<ModelReflection, String> {
    answer
        .insights
        .validate()
        .map_err(|error| error.within("insights").to_string())?;
    answer
        .bullet_evaluations
        .validate()
        .map_err(|error| error.within("bullet_evaluations").to_string())?;
    Ok(answer)
}

fn adds_new_insight(previous: &[Insight], current: &[Insight]) -> bool {
    let known: BTreeSet<String> = previous
        .iter()
        .map(|i| normalized(&i.key_insight))
        .collect();
    current
        .iter()
        .any(|i| !known.contains(&normalized(&i.key_insight)))
}

/// Keeps one tag per bullet the trajectory used (the first); the rest are dropped and reported.
pub fn keep_used(
    evaluations: Vec<BulletEvaluation>,
    used: &[String],
) -> (Vec<BulletEvaluation>, Vec<BulletEvaluation>) {
    let mut kept: Vec<BulletEvaluation> = Vec::new();
    let mut dropped = Vec::new();
    for evaluation in evaluations {
        if used.contains(&evaluation.bullet_id)
            && !kept.iter().any(|k| k.bullet_id == evaluation.bullet_id)
        {
            kept.push(evaluation);
        } else {
            dropped.push(evaluation);
        }
    }
    (kept, dropped)
}
