//! The checklist the model answers with (seed 001 "CloserStructuredOutput"), and its strict schema.

use crate::llm::OutputSchema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// Most checklist items a model may return (small models repeat items without a cap).
pub const MAX_CHECKLIST_ITEMS: usize = 8;
/// Most pending actions a model may return.
pub const MAX_PENDING_ACTIONS: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct ChecklistItem {
    /// Task identifier.
    pub id: String,
    /// What the task is.
    pub description: String,
    /// Whether it is done.
    pub completed: bool,
    /// Grounds or reason.
    #[serde(default)]
    pub evidence: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct CloserStructuredOutput {
    /// The tasks completion requires.
    #[schemars(length(max = 8))]
    pub checklist: Vec<ChecklistItem>,
    /// Whether every task is complete.
    pub all_complete: bool,
    /// Summary of the completion state.
    pub summary: String,
    /// Work left when not complete.
    #[serde(default)]
    #[schemars(length(max = 5))]
    pub pending_actions: Option<Vec<String>>,
    /// Confidence, 0 to 1.
    pub confidence: f64,
}

/// The strict schema sent with every Closer query.
pub fn closer_output_schema() -> OutputSchema {
    OutputSchema::of::<CloserStructuredOutput>("closer_output")
}
