//! The two lines a person reads before approving a proposed change, rendered by the machine from the change
//! itself: what will be executed and its impact scope. An agent's own words are never these lines; a guard
//! shows them apart, as a labelled note.

use super::confirmation::ProposedChange;
use super::tool_call::TOOL_CALL;
use crate::display::{display_identifier, shown_json, shown_text};
use crate::language::Language;

/// `["Execute: status_change on T-9: review -> done", "Impact: T-9"]`; for a tool call,
/// `["Execute: tool send_email with {\"to\":\"bob\"}", "Impact: send_email"]`. Values that are not plain words
/// are quoted; invisible and look-alike-prone characters are made visible.
pub fn change_lines(node_id: &str, change: &ProposedChange) -> [String; 2] {
    change_lines_in(node_id, change, Language::En)
}

/// The two lines in `language`: in Japanese the seed's 実行概要 and 影響範囲,
/// `["実行: T-9 の status_change: review -> done", "影響範囲: T-9"]`.
pub fn change_lines_in(node_id: &str, change: &ProposedChange, language: Language) -> [String; 2] {
    let node = shown_text(node_id);
    if change.change_type == TOOL_CALL {
        // A tool call: the tool and its exact arguments (canonical JSON, as signed).
        let arguments = shown_json(&change.to);
        return [
            language.pick(
                || format!("Execute: tool {node} with {arguments}"),
                || format!("実行: ツール {node}（引数 {arguments}）"),
            ),
            language.pick(|| format!("Impact: {node}"), || format!("影響範囲: {node}")),
        ];
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::tool_call::tool_call_change;
    use serde_json::json;

    #[test]
    fn a_tool_call_reads_as_the_tool_and_its_exact_arguments() {
        let (node, change) = tool_call_change(
            "send_email",
            &json!({ "to": "bob", "body": "hi <b>\u{202e}" }),
        )
        .unwrap();
        assert_eq!(
            change_lines(&node, &change),
            [
                "Execute: tool send_email with {\"body\":\"hi \\u003cb><U+202E>\",\"to\":\"bob\"}"
                    .to_owned(),
                "Impact: send_email".to_owned()
            ]
        );
        assert_eq!(
            change_lines_in(&node, &change, Language::Ja)[0],
            "実行: ツール send_email（引数 {\"body\":\"hi \\u003cb><U+202E>\",\"to\":\"bob\"}）"
        );
    }
}
