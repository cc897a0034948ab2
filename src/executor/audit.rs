//! Audit records that tell the two Apply routes apart (seed 003 section 7).

use super::request::Source;
use super::result::{ExecutorResult, Outcome};
use crate::timestamp::{EpochMillis, format_rfc3339};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// Which of the two correct Apply routes was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// Route A: the human pressed the button; confirmation and execution at once.
    HumanUiDirect,
    /// Route B: an agent proposed, a human confirmed, the Executor applied.
    Executor,
}

impl Route {
    pub fn of(source: Source) -> Self {
        match source {
            Source::HumanUi => Self::HumanUiDirect,
            Source::AiAgent => Self::Executor,
        }
    }

    /// Who did what, at the grain the seed's audit table gives for the route.
    pub fn trail(self) -> &'static str {
        match self {
            Self::HumanUiDirect => "a human operated the UI",
            Self::Executor => {
                "proposed by an agent, confirmed by a human, executed by the Executor"
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct AuditRecord {
    pub route: Route,
    pub source: Source,
    pub trail: String,
    pub node_id: String,
    pub confirmation_id: String,
    pub outcome: Outcome,
    pub consumed: bool,
    pub recorded_at: String,
}

impl AuditRecord {
    pub fn of(source: Source, result: &ExecutorResult, now: EpochMillis) -> Self {
        let route = Route::of(source);
        Self {
            route,
            source,
            trail: route.trail().to_owned(),
            node_id: result.node_id.clone(),
            confirmation_id: result.confirmation_id.clone(),
            outcome: result.outcome,
            consumed: result.consumed,
            recorded_at: format_rfc3339(now),
        }
    }
}
