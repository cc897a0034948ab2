//! What the judge model answers (a strict, flat schema a small model can follow), and how that answer
//! becomes a [`Judgement`]. The answer is evidence, not a command: a decision without the fields it needs,
//! an action type no skill handles, or a key that claims an approval is refused, and the loop stops.

use super::event::Judgement;
use super::state::RuleChange;
use crate::llm::OutputSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Most whitelist entries one rule change may name.
pub const MAX_RULE_ENTRIES: usize = 5;

/// The decisions the judge may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ModelDecision {
    /// Talk to the human (set `reply`).
    Reply,
    /// Run one action (set `action_type`, `summary`, `impact_scope`, and the change's fields).
    Act,
    /// Change one agent setting (set `setting_key`, `setting_value`, `reason`).
    AdjustSetting,
    /// Change which action types run without asking (set `whitelist_add` or `whitelist_remove`, `reason`).
    ChangeRules,
    /// Nothing to do until the situation changes.
    Wait,
}

/// The judge's answer: one decision and the fields it needs; every other field null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(schemars::JsonSchema))]
pub struct ModelJudgement {
    /// What to do next.
    pub decision: ModelDecision,
    /// The message to the human (decision `reply`).
    pub reply: Option<String>,
    /// One of the listed action types (decision `act`).
    pub action_type: Option<String>,
    /// What will be executed, in one line (decision `act`).
    pub summary: Option<String>,
    /// What it touches, in one line (decision `act`).
    pub impact_scope: Option<String>,
    /// The item the action changes (decision `act`).
    pub node_id: Option<String>,
    /// The item's current status (decision `act`).
    pub from: Option<String>,
    /// The status to set (decision `act`).
    pub to: Option<String>,
    /// The setting to change (decision `adjust_setting`).
    pub setting_key: Option<String>,
    /// Its new value (decision `adjust_setting`).
    pub setting_value: Option<String>,
    /// Action types to run without asking (decision `change_rules`).
    #[cfg_attr(not(target_arch = "wasm32"), schemars(length(max = 5)))]
    pub whitelist_add: Option<Vec<String>>,
    /// Action types to ask for again (decision `change_rules`).
    #[cfg_attr(not(target_arch = "wasm32"), schemars(length(max = 5)))]
    pub whitelist_remove: Option<Vec<String>>,
    /// Why, in one line.
    pub reason: Option<String>,
}

pub const JUDGEMENT_SCHEMA_NAME: &str = "control_judgement";

/// The strict schema of [`ModelJudgement`], generated from it and checked in (tests/schemas.rs).
pub fn judgement_schema() -> OutputSchema {
    OutputSchema::embedded(JUDGEMENT_SCHEMA_NAME, include_str!("judgement.schema.json"))
}

impl crate::llm::ModelAnswer for ModelJudgement {
    fn answer_schema() -> &'static OutputSchema {
        static SCHEMA: std::sync::OnceLock<OutputSchema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(judgement_schema)
    }

    /// A judge decides what to do; it never approves. An answer that claims to is refused.
    fn verdict_words() -> &'static [&'static str] {
        &[
            "approved",
            "approval",
            "approve",
            "confirmed",
            "verdict",
            "execute",
        ]
    }
}

fn required<'a>(field: &'a Option<String>, name: &str) -> Result<&'a str, String> {
    match field.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => Ok(text),
        _ => Err(format!("the decision needs `{name}`")),
    }
}

fn listed(entries: &Option<Vec<String>>) -> Vec<String> {
    entries
        .iter()
        .flatten()
        .map(|entry| entry.trim().to_owned())
        .filter(|entry| !entry.is_empty())
        .collect()
}

impl ModelJudgement {
    /// The judgement this answer stands for. `action_types` are the types the host can execute: an action
    /// of any other type is refused here, before anyone is asked to approve it (empty: no check).
    pub fn into_judgement(self, action_types: &[String]) -> Result<Judgement, String> {
        match self.decision {
            ModelDecision::Wait => Ok(Judgement::Wait),
            ModelDecision::Reply => Ok(Judgement::Reply {
                text: required(&self.reply, "reply")?.to_owned(),
            }),
            ModelDecision::Act => {
                let action_type = required(&self.action_type, "action_type")?;
                if !action_types.is_empty() && !action_types.iter().any(|t| t == action_type) {
                    return Err(format!(
                        "`{action_type}` is not an action type this agent can execute ({})",
                        action_types.join(", ")
                    ));
                }
                let mut parameters = Map::new();
                for (key, value) in [
                    ("node_id", &self.node_id),
                    ("from", &self.from),
                    ("to", &self.to),
                ] {
                    if let Some(value) = value {
                        parameters.insert(key.to_owned(), Value::from(value.trim()));
                    }
                }
                Ok(Judgement::Act {
                    action_type: action_type.to_owned(),
                    summary: required(&self.summary, "summary")?.to_owned(),
                    impact_scope: required(&self.impact_scope, "impact_scope")?.to_owned(),
                    parameters: Value::Object(parameters),
                })
            }
            ModelDecision::AdjustSetting => Ok(Judgement::AdjustSetting {
                key: required(&self.setting_key, "setting_key")?.to_owned(),
                value: Value::from(required(&self.setting_value, "setting_value")?),
                reason: required(&self.reason, "reason")?.to_owned(),
            }),
            ModelDecision::ChangeRules => {
                let change = RuleChange {
                    whitelist_add: listed(&self.whitelist_add),
                    whitelist_remove: listed(&self.whitelist_remove),
                    ..RuleChange::default()
                };
                if change.whitelist_add.is_empty() && change.whitelist_remove.is_empty() {
                    return Err(
                        "the decision needs `whitelist_add` or `whitelist_remove`".to_owned()
                    );
                }
                if change.whitelist_add.len() + change.whitelist_remove.len() > MAX_RULE_ENTRIES {
                    return Err(format!(
                        "a rule change names at most {MAX_RULE_ENTRIES} action types"
                    ));
                }
                Ok(Judgement::ChangeRules {
                    change,
                    reason: required(&self.reason, "reason")?.to_owned(),
                })
            }
        }
    }
}
