//! The Watcher's wire format (seed 000, snake_case).

use crate::input::{InputError, Validate, require_non_empty};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// A persona (PersonaStrategy output): a deliberate distortion with values and a blind spot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct Persona {
    pub name: String,
    pub distortion: String,
    #[serde(default)]
    pub values: Vec<String>,
    #[serde(default)]
    pub anti_values: Vec<String>,
    pub blindspot: String,
}

/// What the executor produced (seed 000 `executor_result`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ExecutorOutput {
    pub status: String,
    pub artifacts: Vec<String>,
    #[serde(default)]
    pub execution_log: String,
    #[serde(default)]
    pub persona_applied: Option<String>,
}

/// Language of the texts the Watcher writes itself (declaration, pre-check logs). `ja` is the seed's wording.
pub use crate::language::Language;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct WatcherInput {
    /// `null` when the executor produced nothing: the verdict is then pass false.
    #[serde(default)]
    pub executor_result: Option<ExecutorOutput>,
    pub original_request: String,
    /// The watcher's persona, or `null` for a plain review.
    #[serde(default)]
    pub persona: Option<Persona>,
    /// The persona the executor worked under (`null` when it had none).
    #[serde(default)]
    pub executor_persona: Option<Persona>,
    /// How the Task Classifier classified the request (e.g. `implement`, `design`), for the reclassification check.
    #[serde(default)]
    #[tsify(optional)]
    pub task_classification: Option<String>,
    /// The task needs a persona (seed 000 precondition): without one installed the verdict is pass false.
    #[serde(default)]
    #[tsify(optional)]
    pub persona_required: bool,
}

impl WatcherInput {
    /// The persona the executor says it applied (`executor_result.persona_applied`), when named.
    pub fn applied_persona_name(&self) -> Option<&str> {
        self.executor_result
            .as_ref()
            .and_then(|result| result.persona_applied.as_deref())
            .filter(|name| !name.trim().is_empty())
    }
}

/// Statuses that mean the executor has completed (seed 000 precondition; the seed's examples say `done`).
pub const COMPLETED_STATUSES: [&str; 2] = ["done", "completed"];

/// Whether an executor status means it completed (case and surrounding space ignored).
pub fn is_completed(status: &str) -> bool {
    let status = status.trim().to_lowercase();
    COMPLETED_STATUSES.contains(&status.as_str())
}

impl Validate for WatcherInput {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("original_request", &self.original_request)
    }
}

/// The verdict (seed 000 output contract).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct WatcherOutput {
    pub pass: bool,
    pub issues: Vec<String>,
    pub inspection_log: String,
    pub persona_applied: Option<String>,
    pub blindspots_covered: Vec<String>,
    pub misclassification_detected: bool,
    pub reclassification_suggestion: Option<String>,
}
