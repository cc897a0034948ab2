//! The seed's models (requirements 1-3): Insight, BulletEvaluation, ReflectionResult, and the Trajectory
//! they refer to. JSON round trips restore equal values; validation names the bad field.

use crate::input::{InputError, Validate, require_non_empty};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// One lesson from a trajectory (requirement 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Insight {
    /// The thinking that led to the analysis.
    pub reasoning: String,
    /// What went wrong (empty when nothing did).
    pub error_identification: String,
    /// Why it went wrong.
    pub root_cause_analysis: String,
    /// What should have been done.
    pub correct_approach: String,
    /// The lesson, one sentence, reusable in a playbook.
    pub key_insight: String,
}

impl Validate for Insight {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("key_insight", &self.key_insight)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BulletTag {
    Helpful,
    Harmful,
    Neutral,
}

/// A judgement of one playbook bullet the trajectory used (requirement 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BulletEvaluation {
    pub bullet_id: String,
    pub tag: BulletTag,
    pub reason: String,
}

impl Validate for BulletEvaluation {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("bullet_id", &self.bullet_id)
    }
}

/// The Generator's record of one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct Trajectory {
    pub query: String,
    pub generated_result: String,
    #[serde(default)]
    pub reasoning_steps: Vec<String>,
    /// Ids of the playbook bullets the Generator used.
    #[serde(default)]
    pub used_bullet_ids: Vec<String>,
}

impl Validate for Trajectory {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("query", &self.query)?;
        for (index, id) in self.used_bullet_ids.iter().enumerate() {
            require_non_empty(&format!("used_bullet_ids[{index}]"), id)?;
        }
        Ok(())
    }
}

/// The Reflector's whole output (requirement 3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ReflectionResult {
    pub insights: Vec<Insight>,
    pub bullet_evaluations: Vec<BulletEvaluation>,
    /// The trajectory analysed.
    pub trajectory: Trajectory,
    /// Why the analysis failed (then `insights` is empty).
    #[serde(default)]
    pub error: Option<String>,
    /// Tags not kept, reported here: for a bullet the trajectory did not use, a second tag of one bullet,
    /// or a re-ask's tag of a bullet it did not ask about.
    #[serde(default)]
    pub dropped_evaluations: Vec<BulletEvaluation>,
    /// Used bullet ids the playbook does not hold: not shown to the model, not tagged.
    #[serde(default)]
    pub unknown_bullets: Vec<String>,
    /// Analysis rounds run.
    #[serde(default)]
    pub rounds: u32,
    /// Bullets the trajectory used that the model did not tag, even when asked once more (requirement 6.1).
    #[serde(default)]
    pub untagged_bullets: Vec<String>,
    /// A later refinement round that failed (requirement 8): the insights above are the last good round's.
    #[serde(default)]
    pub refinement_error: Option<String>,
    /// What the used answers needed to be read (empty for strict JSON).
    #[serde(default)]
    pub repairs: Vec<crate::llm::Repair>,
}

impl Validate for ReflectionResult {
    fn validate(&self) -> Result<(), InputError> {
        self.trajectory
            .validate()
            .map_err(|error| error.within("trajectory"))?;
        self.insights
            .validate()
            .map_err(|error| error.within("insights"))?;
        self.bullet_evaluations
            .validate()
            .map_err(|error| error.within("bullet_evaluations"))
    }
}

/// What the model answers in one round: the insights and the tags together (one call, not one per bullet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
pub struct ModelReflection {
    pub insights: Vec<Insight>,
    pub bullet_evaluations: Vec<BulletEvaluation>,
}

pub const REFLECTION_SCHEMA_NAME: &str = "reflection";

/// Default bound on insights per answer (option `maxInsights`): the seed sets none.
pub const DEFAULT_MAX_INSIGHTS: u32 = 20;
/// Default room for tags beyond one per used bullet (option `extraBulletEvaluations`): a model may tag a
/// bullet twice or tag one the trajectory did not use; those tags are dropped and reported, not refused.
pub const DEFAULT_EXTRA_BULLET_EVALUATIONS: u32 = 10;

/// The list bounds of a reflection: `max_insights`, and one tag per used bullet plus `extra_evaluations`.
pub fn reflection_bounds(
    max_insights: u32,
    used_bullets: u32,
    extra_evaluations: u32,
) -> [crate::llm::ListBound; 2] {
    [
        crate::llm::ListBound::new("insights", "maxInsights", max_insights),
        crate::llm::ListBound::above(
            "bullet_evaluations",
            "extraBulletEvaluations",
            used_bullets,
            "used bullets",
            extra_evaluations,
        ),
    ]
}

/// Default bound on tags in a reflection read without its trajectory (option `maxBulletEvaluations`).
pub const DEFAULT_MAX_BULLET_EVALUATIONS: u32 = 200;

/// The list bounds of a reflection read without its trajectory: both set by options.
pub fn standalone_reflection_bounds(
    max_insights: u32,
    max_bullet_evaluations: u32,
) -> [crate::llm::ListBound; 2] {
    [
        crate::llm::ListBound::new("insights", "maxInsights", max_insights),
        crate::llm::ListBound::new(
            "bullet_evaluations",
            "maxBulletEvaluations",
            max_bullet_evaluations,
        ),
    ]
}

/// The strict schema of [`ModelReflection`] without list bounds, generated from it and checked in
/// (tests/schemas.rs).
pub fn reflection_schema() -> crate::llm::OutputSchema {
    crate::llm::OutputSchema::embedded(
        REFLECTION_SCHEMA_NAME,
        include_str!("reflection.schema.json"),
    )
}

impl crate::llm::ModelAnswer for ModelReflection {
    fn answer_schema() -> &'static crate::llm::OutputSchema {
        static SCHEMA: std::sync::OnceLock<crate::llm::OutputSchema> = std::sync::OnceLock::new();
        // Read without a trajectory (a host parsing its own answer); the Reflector sends the bound its
        // trajectory needs.
        SCHEMA.get_or_init(|| {
            reflection_schema().bounded(&standalone_reflection_bounds(
                DEFAULT_MAX_INSIGHTS,
                DEFAULT_MAX_BULLET_EVALUATIONS,
            ))
        })
    }

    /// Every insight and evaluation valid (non-empty ids and texts), at parse time.
    fn check(&self) -> Result<(), InputError> {
        self.insights
            .validate()
            .map_err(|error| error.within("insights"))?;
        self.bullet_evaluations
            .validate()
            .map_err(|error| error.within("bullet_evaluations"))
    }
}
