//! The two lines a person reads before approving a proposed change, rendered by the machine from the change
//! itself: what will be executed and its impact scope. An agent's own words are never these lines; a guard
//! shows them apart, as a labelled note.

use super::confirmation::ProposedChange;
use crate::display::{display_identifier, shown_text};

/// `["Execute: status_change on T-9: review -> done", "Impact: T-9"]`. Values that are not plain words
/// are quoted; invisible and look-alike-prone characters are made visible.
pub fn change_lines(node_id: &str, change: &ProposedChange) -> [String; 2] {
    let node = shown_text(node_id);
    let from = if change.from.is_empty() {
        "(none)".to_owned()
    } else {
        shown_text(&change.from)
    };
    let to = shown_text(&change.to);
    [
        format!(
            "Execute: {} on {node}: {from} -> {to}",
            display_identifier(&change.change_type)
        ),
        format!("Impact: {node}"),
    ]
}
