//! The Watcher's wire format (seed 000, snake_case).

use crate::input::{InputError, Validate, require_non_empty};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
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

/// What the executor produced (seed 000 `executor_result`). Fields the seed does not name are accepted and
/// shown to the model with the rest of the result (they may be evidence), never read by the Watcher's own
/// checks, and listed in the verdict's `ignored_input_fields`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[tsify(missing_as_null)]
pub struct ExecutorOutput {
    pub status: String,
    pub artifacts: Vec<String>,
    #[serde(default)]
    pub execution_log: String,
    #[serde(default)]
    pub persona_applied: Option<String>,
    /// Any other field, kept as given (shown to the model, never checked).
    #[serde(skip)]
    #[tsify(type = "unknown")]
    pub other_fields: Map<String, Value>,
}

impl ExecutorOutput {
    /// The result as the model is shown it: the seed's fields, then every other field as given.
    pub fn shown_to_the_model(&self) -> Value {
        let mut shown = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(fields) = &mut shown {
            for (key, value) in &self.other_fields {
                fields.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        shown
    }

    /// The fields the seed does not name, as `executor_result.<name>` paths.
    pub fn ignored_fields(&self) -> Vec<String> {
        self.other_fields
            .keys()
            .map(|key| format!("executor_result.{key}"))
            .collect()
    }

    /// Reads the seed's fields from an object and keeps the rest in `other_fields`.
    fn from_fields(mut fields: Map<String, Value>) -> Result<Self, String> {
        let status = match fields.remove("status") {
            Some(Value::String(status)) => status,
            Some(other) => return Err(format!("status: expected a string, got {}", kind(&other))),
            None => return Err("missing field `status`".to_owned()),
        };
        let artifacts = match fields.remove("artifacts") {
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(index, item)| match item {
                    Value::String(artifact) => Ok(artifact),
                    other => Err(format!(
                        "artifacts[{index}]: expected a string, got {}",
                        kind(&other)
                    )),
                })
                .collect::<Result<Vec<String>, String>>()?,
            Some(other) => {
                return Err(format!(
                    "artifacts: expected an array, got {}",
                    kind(&other)
                ));
            }
            None => return Err("missing field `artifacts`".to_owned()),
        };
        let execution_log = optional_text(&mut fields, "execution_log")?.unwrap_or_default();
        let persona_applied = optional_text(&mut fields, "persona_applied")?;
        Ok(Self {
            status,
            artifacts,
            execution_log,
            persona_applied,
            other_fields: fields,
        })
    }
}

impl<'de> Deserialize<'de> for ExecutorOutput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = Map::<String, Value>::deserialize(deserializer)?;
        Self::from_fields(fields).map_err(serde::de::Error::custom)
    }
}

/// A string field that may be absent or null.
fn optional_text(fields: &mut Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match fields.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(format!("{key}: expected a string, got {}", kind(&other))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
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

/// Statuses that mean the executor has completed (seed 000 precondition "the executor has completed"; the
/// seed's examples say `done`). Compared without case or surrounding space.
pub const COMPLETED_STATUSES: [&str; 10] = [
    "done",
    "completed",
    "complete",
    "success",
    "succeeded",
    "successful",
    "ok",
    "finished",
    "passed",
    "fulfilled",
];

/// Whether an executor status means it completed. Any other status (`failed`, `running`, `error`, ...) is
/// a precondition failure: pass false without asking the model.
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
    /// Fields of the input the seed does not name (`executor_result.summary`): accepted and shown to the
    /// model, never read by the Watcher's own checks.
    #[serde(default)]
    #[tsify(optional)]
    pub ignored_input_fields: Vec<String>,
}
