//! The checklist the model answers with (seed 001 "CloserStructuredOutput"), and its strict schema.

use crate::llm::{ListBound, OutputSchema};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// Default bound on checklist items (option `maxChecklistItems`). The seed sets none; the bound only stops a
/// model that repeats items without end, so it is far above any real checklist.
pub const DEFAULT_MAX_CHECKLIST_ITEMS: u32 = 100;
/// Default bound on pending actions (option `maxPendingActions`).
pub const DEFAULT_MAX_PENDING_ACTIONS: u32 = 50;

/// The list bounds of a Closer answer, from the options that set them.
pub fn closer_bounds(max_checklist_items: u32, max_pending_actions: u32) -> [ListBound; 2] {
    [
        ListBound::new("checklist", "maxChecklistItems", max_checklist_items),
        ListBound::new("pendingActions", "maxPendingActions", max_pending_actions),
    ]
}

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
    pub checklist: Vec<ChecklistItem>,
    /// Whether every task is complete.
    pub all_complete: bool,
    /// Summary of the completion state.
    pub summary: String,
    /// Work left when not complete.
    #[serde(default)]
    pub pending_actions: Option<Vec<String>>,
    /// Confidence, 0 to 1.
    pub confidence: f64,
}

pub const CLOSER_SCHEMA_NAME: &str = "closer_output";

/// The strict schema of a Closer answer, without list bounds: generated from [`CloserStructuredOutput`] and
/// checked in as `closer_output.schema.json` (tests/schemas.rs keeps the two equal).
pub fn closer_output_schema() -> OutputSchema {
    OutputSchema::embedded(
        CLOSER_SCHEMA_NAME,
        include_str!("closer_output.schema.json"),
    )
}

/// The schema sent with a Closer query: [`closer_output_schema`] with the list bounds.
pub fn bounded_closer_schema(max_checklist_items: u32, max_pending_actions: u32) -> OutputSchema {
    closer_output_schema().bounded(&closer_bounds(max_checklist_items, max_pending_actions))
}

impl crate::llm::ModelAnswer for CloserStructuredOutput {
    fn verdict(&self) -> Option<bool> {
        Some(self.all_complete)
    }

    fn answer_schema() -> &'static OutputSchema {
        static SCHEMA: std::sync::OnceLock<OutputSchema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            bounded_closer_schema(DEFAULT_MAX_CHECKLIST_ITEMS, DEFAULT_MAX_PENDING_ACTIONS)
        })
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
