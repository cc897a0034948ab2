//! Route A (seed 003 section 7): a human applies directly from the UI. The click is the confirmation;
//! the Executor's checks and lifecycle are not involved. The audit record marks the route.

use super::confirmation::{Confirmation, ConfirmationState};
use super::consumption::{ApplyResponseKind, classify_apply_response};
use super::messages;
use super::request::{ApplyRequest, Source, direct_apply_request};
use super::result::{ExecutorResult, ReconfirmBlock};
use super::run::{applied_block, record_audit};
use crate::language::Language;
use crate::ports::{AuditSink, Clock, Skill};

/// Sends the human's own change to the skill once, with `source: "human_ui"`, and reports the result.
pub async fn apply_directly(
    skill: &impl Skill,
    clock: &impl Clock,
    audit: &impl AuditSink,
    confirmation: &Confirmation,
    language: Language,
) -> (ApplyRequest, ExecutorResult) {
    let request = direct_apply_request(confirmation);
    let (node_id, id) = (
        confirmation.node_id.as_str(),
        confirmation.confirmation_id.as_str(),
    );
    let result = match skill.apply(&request).await {
        Err(error) => ExecutorResult::error(
            node_id,
            id,
            messages::direct_apply_failed(language, &error.to_string()),
            None,
        ),
        Ok(response) => {
            let kind = classify_apply_response(&response);
            let message = kind.message(language);
            match kind {
                ApplyResponseKind::Applied {
                    from_status,
                    to_status,
                    status_changed,
                } => {
                    let now = clock.now().unwrap_or_default();
                    let block =
                        applied_block(confirmation, from_status, to_status, status_changed, now);
                    ExecutorResult::applied(node_id, id, block)
                }
                ApplyResponseKind::TransitionRefused {
                    current_status,
                    valid_transitions,
                    ..
                } => {
                    let current_status =
                        current_status.unwrap_or_else(|| confirmation.proposed_change.from.clone());
                    let block = ReconfirmBlock {
                        reason: message,
                        current_status,
                        valid_transitions,
                    };
                    ExecutorResult::reconfirm_required(
                        node_id,
                        id,
                        block,
                        ConfirmationState::Approved,
                    )
                }
                ApplyResponseKind::Failed { .. } | ApplyResponseKind::Unknown { .. } => {
                    ExecutorResult::error(node_id, id, message, None)
                }
            }
        }
    };
    let mut result = result;
    result.audit_error = record_audit(clock, audit, Source::HumanUi, &result, language).await;
    (request, result)
}
