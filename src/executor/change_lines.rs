//! The two lines a person reads before approving a proposed change, rendered by the machine from the change
//! itself: what will be executed and its impact scope. An agent's own words are never these lines; a guard
//! shows them apart, as a labelled note.

use super::confirmation::ProposedChange;
use crate::display::{display_identifier, shown_text};
use crate::language::Language;

/// `["Execute: status_change on T-9: review -> done", "Impact: T-9"]`. Values that are not plain words
/// are quoted; invisible and look-alike-prone characters are made visible.
pub fn change_lines(node_id: &str, change: &ProposedChange) -> [String; 2] {
    change_lines_in(node_id, change, Language::En)
}

/// The two lines in `language`: in Japanese the seed's 実行概要 and 影響範囲,
/// `["実行: T-9 の status_change: review -> done", "影響範囲: T-9"]`.
pub fn change_lines_in(node_id: &str, change: &ProposedChange, language: Language) -> [String; 2] {
    let node = shown_text(node_id);
    let from = if change.from.is_empty() {
        language.pick(|| "(none)".to_owned(), || "（なし）".to_owned())
    } else {
        shown_text(&change.from)
    };
    let to = shown_text(&change.to);
    let kind = display_identifier(&change.change_type);
    [
        language.pick(
            || format!("Execute: {kind} on {node}: {from} -> {to}"),
            || format!("実行: {node} の {kind}: {from} -> {to}"),
        ),
        language.pick(|| format!("Impact: {node}"), || format!("影響範囲: {node}")),
    ]
}
