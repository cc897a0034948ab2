//! The completion decision (seed 001): `allComplete && confidence >= threshold`, failing closed on anything
//! inconsistent, and on any required objective evidence that failed.

use super::messages;
use super::output::CloserStructuredOutput;
use crate::language::Language;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use tsify::Tsify;

pub const DEFAULT_CONFIDENCE_THRESHOLD: f64 = 0.8;

/// A fact the host checked itself (tests passed, working tree clean, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObjectiveEvidence {
    pub id: String,
    pub description: String,
    pub passed: bool,
    /// A required fact that failed forces "not complete", whatever the model says.
    #[serde(default)]
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecisionOptions {
    /// Confidence needed for "complete"; 0.8 by default.
    #[serde(default = "default_threshold")]
    #[tsify(optional)]
    pub confidence_threshold: f64,
    /// Checklist item ids that must be present and completed.
    #[serde(default)]
    #[tsify(optional)]
    pub required_items: Vec<String>,
    /// Facts checked by the host.
    #[serde(default)]
    #[tsify(optional)]
    pub evidence: Vec<ObjectiveEvidence>,
    /// Language of the reasons (default `en`).
    #[serde(default)]
    #[tsify(optional)]
    pub language: Language,
}

fn default_threshold() -> f64 {
    DEFAULT_CONFIDENCE_THRESHOLD
}

impl Default for DecisionOptions {
    fn default() -> Self {
        Self {
            confidence_threshold: DEFAULT_CONFIDENCE_THRESHOLD,
            required_items: Vec::new(),
            evidence: Vec::new(),
            language: Language::En,
        }
    }
}

/// Complete, or not with every reason why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompletionDecision {
    pub complete: bool,
    /// Why it is not complete (empty when complete).
    pub reasons: Vec<String>,
}

/// Decides completion from the model's checklist and the host's own facts.
pub fn decide_completion(
    output: &CloserStructuredOutput,
    options: &DecisionOptions,
) -> CompletionDecision {
    let mut reasons = Vec::new();
    let threshold = options.confidence_threshold;
    let language = options.language;
    if !output.all_complete {
        reasons.push(messages::model_says_incomplete(language));
    }
    if !(0.0..=1.0).contains(&output.confidence) {
        reasons.push(messages::confidence_out_of_range(
            language,
            output.confidence,
        ));
    } else if output.confidence < threshold {
        reasons.push(messages::confidence_below(
            language,
            output.confidence,
            threshold,
        ));
    }
    if output.checklist.is_empty() {
        reasons.push(messages::empty_checklist(language));
    }
    let unfinished: Vec<&str> = output
        .checklist
        .iter()
        .filter(|item| !item.completed)
        .map(|item| item.id.as_str())
        .collect();
    if output.all_complete && !unfinished.is_empty() {
        reasons.push(messages::all_complete_contradicted(
            language,
            &unfinished.join(", "),
        ));
    }
    let mut seen = BTreeSet::new();
    let duplicates: BTreeSet<&str> = output
        .checklist
        .iter()
        .map(|item| item.id.as_str())
        .filter(|id| !seen.insert(*id))
        .collect();
    if !duplicates.is_empty() {
        let ids = duplicates.into_iter().collect::<Vec<_>>().join(", ");
        reasons.push(messages::duplicate_ids(language, &ids));
    }
    for required in &options.required_items {
        match output.checklist.iter().find(|item| &item.id == required) {
            None => reasons.push(messages::required_missing(language, required)),
            Some(item) if !item.completed => {
                reasons.push(messages::required_incomplete(language, required))
            }
            Some(_) => {}
        }
    }
    for fact in options
        .evidence
        .iter()
        .filter(|fact| fact.required && !fact.passed)
    {
        reasons.push(messages::evidence_failed(
            language,
            &fact.id,
            &fact.description,
        ));
    }
    CompletionDecision {
        complete: reasons.is_empty(),
        reasons,
    }
}
