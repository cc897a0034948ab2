//! The skill's answers and the consumption table (seed 003 section 6.1): which answer consumes the
//! confirmation, which releases it, which leaves it in flight.

use super::messages;
use crate::language::Language;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

/// A transition the skill reports as possible from the current status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ValidTransition {
    pub status: String,
    pub label: String,
}

/// Preview's answer: facts about the node, used only to verify the approval's precondition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct PreviewResult {
    pub current_status: String,
    #[serde(default)]
    #[tsify(optional)]
    pub valid_transitions: Option<Vec<ValidTransition>>,
}

/// Apply's answer: an HTTP-like status and a JSON body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct SkillResponse {
    pub status: u16,
    #[serde(default)]
    #[tsify(type = "unknown")]
    pub body: Value,
}

/// What an Apply answer means. Only facts: the texts for a human are built from them in the caller's
/// language ([`ApplyResponseKind::message`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyResponseKind {
    /// 200 with `applied: true`: the change is made.
    Applied {
        from_status: Option<String>,
        to_status: Option<String>,
        status_changed: Option<bool>,
    },
    /// 422: the skill refused the transition; nothing changed.
    TransitionRefused {
        /// The skill's own words, if it gave any.
        skill_message: Option<String>,
        current_status: Option<String>,
        valid_transitions: Vec<ValidTransition>,
    },
    /// Nothing changed: 500 (seed 003 6.1), 501, 503, another 4xx, or a 200 saying `applied: false`.
    Failed {
        status: u16,
        skill_message: Option<String>,
    },
    /// Whether the change was made is unknown: a 200 that does not say `applied: true`, a 502 or 504 (a
    /// gateway whose upstream may have applied), or any other status.
    Unknown { status: u16 },
}

impl ApplyResponseKind {
    /// The answer told to a human.
    pub fn message(&self, language: Language) -> String {
        match self {
            Self::Applied { .. } => language.pick(
                || "The skill applied the change.".to_owned(),
                || "Skill は変更を適用しました。".to_owned(),
            ),
            Self::TransitionRefused { skill_message, .. } => {
                messages::transition_refused(language, skill_message.as_deref())
            }
            Self::Failed {
                status: 200,
                skill_message,
            } => messages::not_applied(language, skill_message.as_deref()),
            Self::Failed {
                status,
                skill_message,
            } => messages::skill_failed(language, *status, skill_message.as_deref()),
            Self::Unknown { status } => messages::outcome_unknown(language, *status),
        }
    }
}

/// What happens to the confirmation after an Apply answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LifecycleTransition {
    /// in_flight -> consumed.
    Commit,
    /// in_flight -> approved: not consumed, usable again by a human's decision.
    Release,
    /// Stays in_flight: the Apply may have happened, so it is never applied again automatically.
    KeepInFlight,
}

impl ApplyResponseKind {
    /// The consumption table: consumed only when the Apply succeeded.
    pub fn transition(&self) -> LifecycleTransition {
        match self {
            Self::Applied { .. } => LifecycleTransition::Commit,
            Self::TransitionRefused { .. } | Self::Failed { .. } => LifecycleTransition::Release,
            Self::Unknown { .. } => LifecycleTransition::KeepInFlight,
        }
    }
}

/// Reads an Apply answer. Body fields are read when present and of the right type, never invented.
pub fn classify_apply_response(response: &SkillResponse) -> ApplyResponseKind {
    let body = &response.body;
    let status = response.status;
    match (status, body.get("applied").and_then(Value::as_bool)) {
        (200, Some(true)) => ApplyResponseKind::Applied {
            from_status: text_field(body, "from_status"),
            to_status: text_field(body, "to_status"),
            status_changed: body.get("status_changed").and_then(Value::as_bool),
        },
        (200, Some(false)) | (400..=421 | 423..=499 | 500 | 501 | 503, _) => {
            ApplyResponseKind::Failed {
                status,
                skill_message: body_message(body),
            }
        }
        (422, _) => ApplyResponseKind::TransitionRefused {
            skill_message: body_message(body),
            current_status: text_field(body, "current_status"),
            valid_transitions: valid_transitions(body),
        },
        _ => ApplyResponseKind::Unknown { status },
    }
}

fn text_field(body: &Value, name: &str) -> Option<String> {
    body.get(name).and_then(Value::as_str).map(str::to_owned)
}

fn body_message(body: &Value) -> Option<String> {
    ["message", "error", "reason"]
        .iter()
        .find_map(|name| text_field(body, name))
        .or_else(|| body.as_str().map(str::to_owned))
        .filter(|message| !message.trim().is_empty())
}

fn valid_transitions(body: &Value) -> Vec<ValidTransition> {
    let Some(items) = body.get("valid_transitions").and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| match item {
            Value::String(status) => Some(ValidTransition {
                status: status.clone(),
                label: status.clone(),
            }),
            Value::Object(_) => {
                let status = text_field(item, "status")?;
                let label = text_field(item, "label").unwrap_or_else(|| status.clone());
                Some(ValidTransition { status, label })
            }
            _ => None,
        })
        .collect()
}
