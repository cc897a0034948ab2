//! The checklist the model answers with (seed 001 "CloserStructuredOutput"), and its strict schema.

use crate::llm::OutputSchema;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// Most checklist items a model may return (small models repeat items without a cap).
pub const MAX_CHECKLIST_ITEMS: usize = 8;
/// Most pending actions a model may return.
pub const MAX_PENDING_ACTIONS: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
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

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct CloserStructuredOutput {
    /// The tasks completion requires.
    #[cfg_attr(not(target_arch = "wasm32"), schemars(length(max = 8)))]
    pub checklist: Vec<ChecklistItem>,
    /// Whether every task is complete.
    pub all_complete: bool,
    /// Summary of the completion state.
    pub summary: String,
    /// Work left when not complete.
    #[serde(default)]
    #[cfg_attr(not(target_arch = "wasm32"), schemars(length(max = 5)))]
    pub pending_actions: Option<Vec<String>>,
    /// Confidence, 0 to 1.
    pub confidence: f64,
}

pub const CLOSER_SCHEMA_NAME: &str = "closer_output";

/// The strict schema sent with every Closer query: generated from [`CloserStructuredOutput`] and checked in
/// as `closer_output.schema.json` (tests/schemas.rs keeps the two equal).
pub fn closer_output_schema() -> OutputSchema {
    OutputSchema::embedded(
        CLOSER_SCHEMA_NAME,
        include_str!("closer_output.schema.json"),
    )
}

impl crate::llm::ModelAnswer for CloserStructuredOutput {
    fn answer_schema() -> &'static OutputSchema {
        static SCHEMA: std::sync::OnceLock<OutputSchema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(closer_output_schema)
    }

    fn verdict_words() -> &'static [&'static str] {
        &[
            "verdict",
            "status",
            "complete",
            "completed",
            "passed",
            "pass",
            "done",
            "success",
        ]
    }

    /// Confidence in [0, 1] and non-empty item ids, at parse time.
    fn check(&self) -> Result<(), crate::input::InputError> {
        if !(0.0..=1.0).contains(&self.confidence) {
            return Err(crate::input::InputError::invalid(
                "confidence",
                format!("{} is not a number in [0, 1]", self.confidence),
            ));
        }
        for (index, item) in self.checklist.iter().enumerate() {
            crate::input::require_non_empty(&format!("checklist[{index}].id"), &item.id)?;
        }
        Ok(())
    }
}
