//! The verdict contract (seed 000 guarantees and completion-protocol approval criteria), enforced on
//! whatever the model answered: always a verdict; undecidable or contract-breaking -> pass false; the
//! seed's step 4 decides pass.

use super::criteria::is_critical;
use super::declaration::{declaration_heading, persona_declaration};
use super::types::{Language, Persona, WatcherOutput};
use crate::input::InputError;
use crate::llm::{ListBound, OutputSchema, StructuredError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

/// What the model answers: the seed's output contract (`pass`, `issues`, `inspection_log`,
/// `persona_applied`, `blindspots_covered`, `misclassification_detected`, `reclassification_suggestion`),
/// plus the completion protocol's approval criteria where the model states them. The fields the seed's
/// own examples leave out (`persona_applied`, the two Phase 2 fields, the criteria) may be absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
#[tsify(missing_as_null)]
pub struct ModelVerdict {
    /// Whether the artifacts pass: false with a critical issue; true when the trade-offs are acknowledged.
    pub pass: bool,
    /// Problems found; prefix critical ones with "CRITICAL:".
    pub issues: Vec<String>,
    /// What was inspected, item by item, and the conclusion.
    pub inspection_log: String,
    /// The persona the inspection was made under (`null` for a plain review).
    #[serde(default)]
    pub persona_applied: Option<String>,
    /// How the executor's blind spots were covered.
    pub blindspots_covered: Vec<String>,
    /// Whether the task was classified wrongly.
    #[serde(default)]
    pub misclassification_detected: Option<bool>,
    /// The better classification, when it was wrong.
    #[serde(default)]
    pub reclassification_suggestion: Option<String>,
    /// The completion protocol's approval criteria, as judged.
    #[serde(default)]
    pub approval_criteria: Option<ApprovalCriteria>,
}

/// The completion protocol's approval criteria (seed 000 `approval_criteria`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
pub struct ApprovalCriteria {
    /// No critical issue was found.
    pub no_critical_issues: bool,
    /// The result's trade-offs are recognised.
    pub acknowledged_trade_offs: bool,
}

/// How a verdict is decided beyond the seed's step 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VerdictRule {
    /// Pass only when the answer states `approval_criteria.acknowledged_trade_offs: true` (stricter than
    /// the seed, whose output contract has no such field).
    pub require_trade_off_acknowledgement: bool,
}

pub const WATCHER_SCHEMA_NAME: &str = "watcher_verdict";

/// Default bound on issues in a verdict (option `maxIssues`): the seed sets none.
pub const DEFAULT_MAX_ISSUES: u32 = 100;
/// Default bound on covered blind spots (option `maxBlindspots`).
pub const DEFAULT_MAX_BLINDSPOTS: u32 = 50;

/// The list bounds of a verdict, from the options that set them.
pub fn verdict_bounds(max_issues: u32, max_blindspots: u32) -> [ListBound; 2] {
    [
        ListBound::new("issues", "maxIssues", max_issues),
        ListBound::new("blindspots_covered", "maxBlindspots", max_blindspots),
    ]
}

/// The strict schema of [`ModelVerdict`] without list bounds, generated from it and checked in
/// (tests/schemas.rs).
pub fn watcher_verdict_schema() -> OutputSchema {
    OutputSchema::embedded(
        WATCHER_SCHEMA_NAME,
        include_str!("watcher_verdict.schema.json"),
    )
}

/// The schema sent with a Watcher query: [`watcher_verdict_schema`] with the list bounds.
pub fn bounded_verdict_schema(max_issues: u32, max_blindspots: u32) -> OutputSchema {
    watcher_verdict_schema().bounded(&verdict_bounds(max_issues, max_blindspots))
}

impl crate::llm::ModelAnswer for ModelVerdict {
    fn verdict(&self) -> Option<bool> {
        Some(self.pass)
    }

    fn answer_schema() -> &'static OutputSchema {
        static SCHEMA: std::sync::OnceLock<OutputSchema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| bounded_verdict_schema(DEFAULT_MAX_ISSUES, DEFAULT_MAX_BLINDSPOTS))
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

    /// The approval criteria written at the top level (`trade_offs_acknowledged`, the earlier spelling,
    /// `acknowledged_trade_offs`, `no_critical_issues`) are read as `approval_criteria`; a missing
    /// `no_critical_issues` follows the issues list.
    fn normalize(value: &mut Value) -> Result<(), InputError> {
        super::criteria::gather_criteria(value)
    }
}

/// A persona name compared without case or spacing.
fn folded_name(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Turns the model's answer (or its failure) into a verdict that keeps every guarantee.
///
/// The seed's step 4 decides: a critical issue (an issue starting with "CRITICAL", or
/// `approval_criteria.no_critical_issues: false`) makes pass false; otherwise pass follows the trade-off
/// acknowledgement, which is the model's own `pass` in the seed's output shape and
/// `approval_criteria.acknowledged_trade_offs` where the answer states it. An answer whose `pass`
/// disagrees with its own criteria cannot be decided, and an undecidable verdict is pass false (seed
/// guarantee). `rule` adds what the host asks beyond the seed.
pub fn enforce_contract(
    answer: Result<ModelVerdict, StructuredError>,
    installed: Option<&Persona>,
    executor_persona: Option<&Persona>,
    language: Language,
    rule: VerdictRule,
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
                ignored_input_fields: Vec::new(),
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
    // The persona the answer says it inspected as, when it says one, must be the one installed (and none in a
    // plain review): an answer written as another persona, the executor's above all, is not this review.
    let same = |a: &str, b: &str| folded_name(a) == folded_name(b);
    let stated = verdict
        .persona_applied
        .as_deref()
        .filter(|name| !name.trim().is_empty());
    if let Some(named) = stated {
        let matches = installed.is_some_and(|persona| same(&persona.name, named));
        if !matches {
            let executor_named = executor_persona.is_some_and(|persona| same(&persona.name, named));
            contract(&match (installed, executor_named) {
                (_, true) => language.pick(
                    || {
                        format!(
                            "the answer says it inspected as {named}, the executor's own persona"
                        )
                    },
                    || format!("executor と同じ人格 {named} として検査したと回答しています"),
                ),
                (Some(persona), false) => language.pick(
                    || {
                        format!(
                            "the answer says it inspected as {named}, not as {}",
                            persona.name
                        )
                    },
                    || {
                        format!(
                            "{} ではなく {named} として検査したと回答しています",
                            persona.name
                        )
                    },
                ),
                (None, false) => language.pick(
                    || {
                        format!(
                            "the answer says it inspected as {named}, but no persona is installed"
                        )
                    },
                    || format!("人格なしの検査なのに {named} として検査したと回答しています"),
                ),
            });
        }
    }
    let misclassified = verdict.misclassification_detected == Some(true);
    let suggestion = verdict
        .reclassification_suggestion
        .filter(|s| !s.trim().is_empty());
    if misclassified && suggestion.is_none() {
        contract(&language.pick(
            || "misclassification_detected without a reclassification_suggestion".to_owned(),
            || {
                "misclassification_detected なのに reclassification_suggestion がありません"
                    .to_owned()
            },
        ));
    }
    let criteria = verdict.approval_criteria;
    if let Some(criteria) = criteria {
        let by_criteria = criteria.no_critical_issues && criteria.acknowledged_trade_offs;
        if verdict.pass != by_criteria {
            contract(&language.pick(
                || {
                    format!(
                        "undecidable: pass is {} but approval_criteria say no_critical_issues {} \
                         and acknowledged_trade_offs {}",
                        verdict.pass, criteria.no_critical_issues, criteria.acknowledged_trade_offs
                    )
                },
                || {
                    format!(
                        "判定不能: pass は {} ですが approval_criteria は no_critical_issues {}、\
                         acknowledged_trade_offs {} です",
                        verdict.pass, criteria.no_critical_issues, criteria.acknowledged_trade_offs
                    )
                },
            ));
        }
    }
    let acknowledged = criteria.map(|criteria| criteria.acknowledged_trade_offs);
    if rule.require_trade_off_acknowledgement && verdict.pass && acknowledged != Some(true) {
        contract(&language.pick(
            || "pass without approval_criteria.acknowledged_trade_offs (required by the option requireTradeOffAcknowledgement)".to_owned(),
            || "approval_criteria.acknowledged_trade_offs がないのに合格です（requireTradeOffAcknowledgement）".to_owned(),
        ));
    }
    let critical = issues.iter().any(|issue| is_critical(issue))
        || criteria.is_some_and(|criteria| !criteria.no_critical_issues);
    let pass = verdict.pass && !critical && !broken && acknowledged != Some(false);
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
        misclassification_detected: misclassified,
        reclassification_suggestion: suggestion,
        ignored_input_fields: Vec::new(),
    }
}
