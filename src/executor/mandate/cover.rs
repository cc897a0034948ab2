//! Whether a proposed change falls within a standing approval: its agent, its kind and every constraint.

use super::constraint::{Unmet, parameters};
use super::model::{Mandate, Scope};
use super::words::{constraint_words, shown_field};
use crate::display::{shown, shown_text};
use crate::executor::confirmation::ProposedChange;
use crate::executor::tool_call::TOOL_CALL;
use crate::language::Language;

/// `Ok` when `agent_id` is one of the mandate's agents; the reason otherwise.
pub fn covers_agent(mandate: &Mandate, agent_id: &str, language: Language) -> Result<(), String> {
    if mandate.agents.iter().any(|agent| agent == agent_id) {
        return Ok(());
    }
    Err(language.pick(
        || format!("it is not for agent {}", shown_text(agent_id)),
        || {
            format!(
                "エージェント {} のための承認ではありません",
                shown_text(agent_id)
            )
        },
    ))
}

/// `Ok` when the change is of the mandate's kind and satisfies every constraint; the first reason it
/// does not otherwise.
pub fn covers_change(
    mandate: &Mandate,
    node_id: &str,
    change: &ProposedChange,
    language: Language,
) -> Result<(), String> {
    let kind_ok = match mandate.scope() {
        Scope::Tool(tool) => change.change_type == TOOL_CALL && node_id == tool,
        Scope::ChangeType(change_type) => change.change_type == change_type,
    };
    if !kind_ok {
        return Err(language.pick(
            || format!("it covers {}, not this change", shown_text(&mandate.action)),
            || {
                format!(
                    "{} のための承認で、この変更は対象外です",
                    shown_text(&mandate.action)
                )
            },
        ));
    }
    let Some(parameters) = parameters(node_id, change) else {
        return Err(language.pick(
            || "the tool call's arguments are not a JSON object".to_owned(),
            || "ツール呼び出しの引数が JSON オブジェクトではありません".to_owned(),
        ));
    };
    for constraint in &mandate.constraints {
        if let Err(unmet) = constraint.check(&parameters) {
            let wanted = constraint_words(constraint, language);
            let field = shown_field(&constraint.field);
            return Err(match unmet {
                Unmet::Missing => language.pick(
                    || format!("it needs {wanted}, and {field} is missing"),
                    || format!("条件「{wanted}」に対し {field} がありません"),
                ),
                Unmet::Other(found) => language.pick(
                    || format!("it needs {wanted}, and {field} is {}", shown(&found)),
                    || format!("条件「{wanted}」に対し {field} は {} です", shown(&found)),
                ),
            });
        }
    }
    Ok(())
}
