//! What the next iteration is told when a step is not complete (seed 001 retry flow).

use super::output::CloserStructuredOutput;

/// A plain-text summary of the unfinished items and pending actions, for the next iteration's prompt.
pub fn format_iteration_summary(output: &CloserStructuredOutput, reasons: &[String]) -> String {
    let mut lines = vec![format!(
        "Completion check: not complete. {}",
        output.summary.trim()
    )];
    let unfinished: Vec<_> = output
        .checklist
        .iter()
        .filter(|item| !item.completed)
        .collect();
    if !unfinished.is_empty() {
        lines.push("Unfinished items:".to_owned());
        for item in unfinished {
            let evidence = item
                .evidence
                .as_deref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default();
            lines.push(format!("- [{}] {}{evidence}", item.id, item.description));
        }
    }
    let pending = output.pending_actions.as_deref().unwrap_or_default();
    if !pending.is_empty() {
        lines.push("Pending actions:".to_owned());
        lines.extend(pending.iter().map(|action| format!("- {action}")));
    }
    if !reasons.is_empty() {
        lines.push("Why it is not complete:".to_owned());
        lines.extend(reasons.iter().map(|reason| format!("- {reason}")));
    }
    lines.join("\n")
}
