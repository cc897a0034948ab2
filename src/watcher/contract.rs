//! The verdict contract (seed 000 guarantees and completion-protocol approval criteria), enforced on
//! whatever the model answered: always a verdict; undecidable or contract-breaking -> pass false.

use super::declaration::{declaration_heading, persona_declaration};
use super::types::{Language, Persona, WatcherOutput};
use crate::llm::{OutputSchema, StructuredError};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// What the model is asked to answer. `persona_applied` is not asked: the Watcher knows which persona it
/// installed and sets it itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
#[tsify(missing_as_null)]
pub struct ModelVerdict {
    /// Whether the artifacts pass the inspection.
    pub pass: bool,
    /// Problems found; prefix critical ones with "CRITICAL:".
    #[cfg_attr(not(target_arch = "wasm32"), schemars(length(max = 8)))]
    pub issues: Vec<String>,
    /// What was inspected, item by item, and the conclusion.
    pub inspection_log: String,
    /// How the executor's blind spots were covered.
    #[cfg_attr(not(target_arch = "wasm32"), schemars(length(max = 5)))]
    pub blindspots_covered: Vec<String>,
    /// Whether the task was classified wrongly.
    pub misclassification_detected: bool,
    /// The better classification, when it was wrong.
    #[serde(default)]
    pub reclassification_suggestion: Option<String>,
    /// Whether the trade-offs of the result are recognised.
    pub trade_offs_acknowledged: bool,
}

pub const WATCHER_SCHEMA_NAME: &str = "watcher_verdict";

/// The strict schema of [`ModelVerdict`], generated from it and checked in (tests/schemas.rs).
pub fn watcher_verdict_schema() -> OutputSchema {
    OutputSchema::embedded(
        WATCHER_SCHEMA_NAME,
        include_str!("watcher_verdict.schema.json"),
    )
}

impl crate::llm::ModelAnswer for ModelVerdict {
    fn answer_schema() -> &'static OutputSchema {
        static SCHEMA: std::sync::OnceLock<OutputSchema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(watcher_verdict_schema)
    }

    fn verdict_words() -> &'static [&'static str] {
        &[
            "verdict",
            "status",
            "complete",
            "completed",
            "passed",
            "approved",
            "success",
        ]
    }
}

fn is_critical(issue: &str) -> bool {
    issue.trim_start().to_uppercase().starts_with("CRITICAL")
}

/// Turns the model's answer (or its failure) into a verdict that keeps every guarantee.
pub fn enforce_contract(
    answer: Result<ModelVerdict, StructuredError>,
    installed: Option<&Persona>,
    executor_persona: Option<&Persona>,
    language: Language,
) -> WatcherOutput {
    let declaration =
        installed.map(|persona| persona_declaration(persona, executor_persona, language));
    let persona_applied = installed.map(|persona| persona.name.clone());
    let verdict = match answer {
        Ok(verdict) => verdict,
        Err(error) => {
            let undecidable = language.pick(
                || format!("UNDECIDABLE: the model's verdict could not be used: {error}"),
                || format!("UNDECIDABLE: 判定不能。モデルの判定を使えません：{error}"),
            );
            let log = format!(
                "{}{undecidable}\n",
                declaration
                    .as_deref()
                    .map(|d| format!("{d}\n"))
                    .unwrap_or_default()
            );
            return WatcherOutput {
                pass: false,
                issues: vec![format!("UNDECIDABLE: {error}")],
                inspection_log: log,
                persona_applied,
                blindspots_covered: Vec::new(),
                misclassification_detected: false,
                reclassification_suggestion: None,
            };
        }
    };
    let mut issues = verdict.issues;
    let mut broken = false;
    let mut contract = |issue: &str| {
        issues.push(format!("CONTRACT: {issue}"));
        broken = true;
    };
    if verdict.inspection_log.trim().is_empty() {
        contract(&language.pick(
            || "inspection_log is empty".to_owned(),
            || "inspection_log が空です".to_owned(),
        ));
    }
    if let Some(persona) = installed {
        if verdict
            .blindspots_covered
            .iter()
            .all(|b| b.trim().is_empty())
        {
            contract(&language.pick(
                || {
                    format!(
                        "blindspots_covered is empty although {} is installed",
                        persona.name
                    )
                },
                || {
                    format!(
                        "{} を人格インストールしたのに blindspots_covered が空です",
                        persona.name
                    )
                },
            ));
        }
    }
    let suggestion = verdict
        .reclassification_suggestion
        .filter(|s| !s.trim().is_empty());
    if verdict.misclassification_detected && suggestion.is_none() {
        contract(&language.pick(
            || "misclassification_detected without a reclassification_suggestion".to_owned(),
            || {
                "misclassification_detected なのに reclassification_suggestion がありません"
                    .to_owned()
            },
        ));
    }
    if verdict.pass && !verdict.trade_offs_acknowledged {
        contract(&language.pick(
            || "pass without acknowledged trade-offs".to_owned(),
            || "トレードオフが認識されていないのに合格です".to_owned(),
        ));
    }
    let critical = issues.iter().any(|issue| is_critical(issue));
    let pass = verdict.pass && !critical && !broken && verdict.trade_offs_acknowledged;
    let mut inspection_log = verdict.inspection_log;
    if let (Some(persona), Some(declaration)) = (installed, &declaration) {
        if !inspection_log.starts_with(&declaration_heading(persona, language)) {
            inspection_log = format!("{declaration}\n{inspection_log}");
        }
    }
    WatcherOutput {
        pass,
        issues,
        inspection_log,
        persona_applied,
        blindspots_covered: verdict.blindspots_covered,
        misclassification_detected: verdict.misclassification_detected,
        reclassification_suggestion: suggestion,
    }
}
