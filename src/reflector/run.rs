//! `Reflector::reflect` (requirements 5-8): build -> ask (one call per round for insights and tags) ->
//! parse -> keep only the tags of used bullets -> result; `rounds` repeats the analysis with the previous
//! insights; a failure is a result carrying the error, never a throw.

use super::models::{
    BulletEvaluation, DEFAULT_EXTRA_BULLET_EVALUATIONS, DEFAULT_MAX_INSIGHTS, Insight,
    ModelReflection, ReflectionResult, Trajectory, reflection_bounds, reflection_schema,
};
use super::prompt::PromptBuilder;
use crate::input::{InputError, Validate};
use crate::language::Language;
use crate::llm::{Asked, Parsed, ask_structured};
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
    /// Analysis rounds (default 1: no refinement; at most 10).
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
    /// Language of the errors it reports (default `en`).
    #[serde(default)]
    #[tsify(optional)]
    pub language: Language,
    /// Accept answers that needed repairs or unwrapping (default true).
    #[serde(default = "crate::llm::parse::allow_repairs_by_default")]
    #[tsify(optional)]
    pub allow_repairs: bool,
    /// Most insights an answer may hold (default 20; sent as the schema's `maxItems`).
    #[serde(default = "default_max_insights")]
    #[tsify(optional)]
    pub max_insights: u32,
    /// Tags an answer may hold beyond one per used bullet (default 10; the bound sent is the number of
    /// used bullets plus this).
    #[serde(default = "default_extra_evaluations")]
    #[tsify(optional)]
    pub extra_bullet_evaluations: u32,
}

fn one() -> u32 {
    1
}

fn default_max_insights() -> u32 {
    DEFAULT_MAX_INSIGHTS
}

fn default_extra_evaluations() -> u32 {
    DEFAULT_EXTRA_BULLET_EVALUATIONS
}

/// The most analysis rounds (`rounds`): each is a model call with the whole trajectory.
pub const MAX_REFLECTION_ROUNDS: u32 = 10;

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
            language: Language::En,
            allow_repairs: crate::llm::parse::allow_repairs_by_default(),
            max_insights: DEFAULT_MAX_INSIGHTS,
            extra_bullet_evaluations: DEFAULT_EXTRA_BULLET_EVALUATIONS,
        }
    }
}

impl Validate for ReflectorOptions {
    fn validate(&self) -> Result<(), InputError> {
        if !(1..=MAX_REFLECTION_ROUNDS).contains(&self.rounds) {
            return Err(InputError::invalid(
                "rounds",
                format!("must be 1 to {MAX_REFLECTION_ROUNDS}"),
            ));
        }
        if self.max_reasks > 5 {
            return Err(InputError::invalid("maxReasks", "must be at most 5"));
        }
        for bound in reflection_bounds(self.max_insights, 0, self.extra_bullet_evaluations) {
            bound.checked()?;
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

    /// The injected LLM client.
    pub fn llm(&self) -> &M {
        &self.llm
    }

    pub fn options(&self) -> &ReflectorOptions {
        &self.options
    }

    /// The whole flow (requirement 7). Always returns a result; on failure it carries the error and no
    /// insights (requirement 5.3). A later refinement round that fails keeps the last good round's
    /// insights and reports the failure (requirement 8); used bullets the model left untagged are asked for
    /// once more, and reported if still missing (requirement 6.1).
    pub async fn reflect(
        &self,
        trajectory: &Trajectory,
        ground_truth: &str,
        test_report: &str,
        dataset: &str,
    ) -> ReflectionResult {
        let language = self.options.language;
        let failed = |error: String, rounds: u32| ReflectionResult {
            insights: Vec::new(),
            bullet_evaluations: Vec::new(),
            trajectory: trajectory.clone(),
            error: Some(error),
            dropped_evaluations: Vec::new(),
            unknown_bullets: Vec::new(),
            rounds,
            untagged_bullets: Vec::new(),
            refinement_error: None,
            repairs: Vec::new(),
        };
        let (used_bullets, known_used, unknown_used) =
            match load_playbook(&self.store, &self.options.playbook).await {
                Ok((playbook, _)) => {
                    let (known, unknown): (Vec<String>, Vec<String>) =
                        unique(&trajectory.used_bullet_ids)
                            .into_iter()
                            .partition(|id| playbook.bullet(id).is_some());
                    (
                        playbook.render_bullets(&trajectory.used_bullet_ids),
                        known,
                        unknown,
                    )
                }
                Err(error) => {
                    let message = language.pick(
                        || format!("the playbook could not be read: {error}"),
                        || format!("Playbook を読めませんでした：{error}"),
                    );
                    return failed(message, 0);
                }
            };
        let mut previous: Vec<Insight> = Vec::new();
        let mut last: Option<(Parsed<ModelReflection>, String)> = None;
        let mut refinement_error = None;
        let mut rounds = 0;
        while rounds < self.options.rounds {
            let round = rounds + 1;
            let prompt = self
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
                .map(|prompt| prompt.text)
                .map_err(|error| {
                    language.pick(
                        || format!("prompt: {error}"),
                        || format!("プロンプトを用意できません：{error}"),
                    )
                });
            let answer = match prompt {
                Ok(prompt) => self
                    .ask(&prompt, round, &known_used)
                    .await
                    .map(|answer| (answer, prompt)),
                Err(error) => Err(error),
            };
            let (answer, prompt) = match answer {
                Ok(answered) => answered,
                Err(error) if last.is_some() => {
                    refinement_error = Some(language.pick(
                        || format!("round {round} failed; the insights are round {rounds}'s: {error}"),
                        || format!("ラウンド {round} が失敗しました。Insights はラウンド {rounds} のものです：{error}"),
                    ));
                    break;
                }
                Err(error) => return failed(error, round),
            };
            rounds = round;
            let adds_nothing = rounds > 1 && !adds_new_insight(&previous, &answer.value.insights);
            previous = answer.value.insights.clone();
            last = Some((answer, prompt));
            if self.options.early_stop && adds_nothing {
                break;
            }
        }
        let Some((parsed, prompt)) = last else {
            return failed("no round ran".to_owned(), rounds);
        };
        let mut repairs = parsed.repairs;
        let answer = parsed.value;
        // Only the used bullets the playbook holds are tagged: a tag of an unknown one is dropped and listed.
        let (mut kept, mut dropped) = keep_used(answer.bullet_evaluations, &known_used);
        let mut untagged = untagged(&known_used, &kept);
        if !untagged.is_empty() {
            // Requirement 6.1: every used bullet gets a tag; ask once more for the missing ones only.
            let again = format!(
                "{prompt}\n\nYour previous answer did not tag these bullets, which the trajectory used: {}. \
                 Answer again with a helpful, harmful or neutral tag for each of them.",
                untagged.join(", ")
            );
            if let Ok(second) = self.ask(&again, rounds, &known_used).await {
                repairs.extend(second.repairs);
                let (extra, extra_dropped) = keep_used(second.value.bullet_evaluations, &untagged);
                kept.extend(extra);
                dropped.extend(extra_dropped);
            }
            untagged = self::untagged(&known_used, &kept);
        }
        ReflectionResult {
            insights: answer.insights,
            bullet_evaluations: kept,
            trajectory: trajectory.clone(),
            error: None,
            dropped_evaluations: dropped,
            unknown_bullets: unknown_used,
            rounds,
            untagged_bullets: untagged,
            refinement_error,
            repairs,
        }
    }

    /// One question to the model about `used` bullets, validated; the error says why the answer could not
    /// be used. The tags are bounded by the number of used bullets plus `extraBulletEvaluations`.
    async fn ask(
        &self,
        prompt: &str,
        round: u32,
        used: &[String],
    ) -> Result<Parsed<ModelReflection>, String> {
        let used = u32::try_from(used.len()).unwrap_or(u32::MAX);
        let schema = reflection_schema().bounded(&reflection_bounds(
            self.options.max_insights,
            used,
            self.options.extra_bullet_evaluations,
        ));
        let Asked { answer, queries } = ask_structured::<ModelReflection>(
            &self.llm,
            prompt,
            &schema,
            self.options.max_reasks,
            self.logger.as_ref(),
            crate::llm::ParseOptions {
                allow_repairs: self.options.allow_repairs,
                ..crate::llm::ParseOptions::default()
            },
        )
        .await;
        let answer = answer.map_err(|error| error.to_string()).map_err(|error| {
            self.options.language.pick(
                || format!("the model's analysis could not be used: {error}"),
                || format!("モデルの分析結果を使えません：{error}"),
            )
        })?;
        self.logger.log(
            LogLevel::Debug,
            &format!(
                "reflector round {round}: {} insights ({queries} queries)",
                answer.value.insights.len()
            ),
        );
        Ok(answer)
    }
}

fn unique(ids: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    ids.iter()
        .filter(|id| seen.insert(id.as_str()))
        .cloned()
        .collect()
}

/// The used bullets (known to the playbook) that no kept evaluation tags.
fn untagged(used: &[String], kept: &[BulletEvaluation]) -> Vec<String> {
    used.iter()
        .filter(|id| !kept.iter().any(|evaluation| &evaluation.bullet_id == *id))
        .cloned()
        .collect()
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
