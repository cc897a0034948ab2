//! A standing approval in words, rendered by the core from its terms: what a person reads before signing it
//! and whenever it is shown, so what they see is what they sign.

use super::constraint::{Constraint, ConstraintOp};
use super::model::{Mandate, Scope};
use crate::display::{display_identifier, shown, shown_text};
use crate::language::Language;
use serde_json::Value;

/// A field's pointer as a person reads it: a single plain name as itself (`to`), anything else as the
/// pointer (`/payment/amount`), quoted when it is not plain.
pub fn shown_field(pointer: &str) -> String {
    let single = pointer
        .strip_prefix('/')
        .filter(|name| !name.contains('/') && !name.contains('~'));
    match single {
        Some(name) if crate::display::reads_plainly(name) => name.to_owned(),
        _ => shown_text(pointer),
    }
}

/// `items` joined by the language's list separator (a loop: `[String]::join` costs almost 1 KB).
fn joined(items: impl Iterator<Item = String>, language: Language) -> String {
    let separator = match language {
        Language::En => ", ",
        Language::Ja => "、",
    };
    let mut out = String::new();
    for (index, item) in items.enumerate() {
        if index > 0 {
            out.push_str(separator);
        }
        out.push_str(&item);
    }
    out
}

fn listed(values: &[Value], language: Language) -> String {
    joined(values.iter().map(shown), language)
}

/// One constraint as a clause: `to ends with "@example.com"`, `amount is at most 50`.
pub fn constraint_words(constraint: &Constraint, language: Language) -> String {
    let field = shown_field(&constraint.field);
    let value = shown(&constraint.value);
    let list = || {
        listed(
            constraint.value.as_array().map_or(&[][..], Vec::as_slice),
            language,
        )
    };
    match constraint.op {
        ConstraintOp::Equals => language.pick(
            || format!("{field} is {value}"),
            || format!("{field} が {value}"),
        ),
        ConstraintOp::OneOf => language.pick(
            || format!("{field} is one of {}", list()),
            || format!("{field} が {} のいずれか", list()),
        ),
        ConstraintOp::StartsWith => language.pick(
            || format!("{field} is a text starting with {value}"),
            || format!("{field} が {value} で始まるテキスト"),
        ),
        ConstraintOp::EndsWith => language.pick(
            || format!("{field} is a text ending with {value}"),
            || format!("{field} が {value} で終わるテキスト"),
        ),
        ConstraintOp::AtMost => language.pick(
            || format!("{field} is a number at most {value}"),
            || format!("{field} が {value} 以下の数"),
        ),
        ConstraintOp::AtLeast => language.pick(
            || format!("{field} is a number at least {value}"),
            || format!("{field} が {value} 以上の数"),
        ),
    }
}

/// The mandate in lines: who, what, each condition, what else is allowed, and how often until when.
pub fn mandate_lines(mandate: &Mandate, language: Language) -> Vec<String> {
    let agents = joined(
        mandate.agents.iter().map(|agent| shown_text(agent)),
        language,
    );
    let plural = mandate.agents.len() > 1;
    let what = match mandate.scope() {
        Scope::Tool(tool) => language.pick(
            || format!("tool {}", shown_text(tool)),
            || format!("ツール {}", shown_text(tool)),
        ),
        Scope::ChangeType(change_type) => display_identifier(change_type),
    };
    let mut lines = vec![language.pick(
        || {
            format!(
                "Standing approval: {} {agents} may run {what} without asking",
                if plural { "agents" } else { "agent" }
            )
        },
        || format!("常設承認: エージェント {agents} は確認なしで {what} を実行できます"),
    )];
    for (index, constraint) in mandate.constraints.iter().enumerate() {
        let clause = constraint_words(constraint, language);
        lines.push(language.pick(
            || format!("{} {clause}", if index == 0 { "Only when" } else { "and" }),
            || format!("{} {clause}", if index == 0 { "条件:" } else { "かつ" }),
        ));
    }
    let others = match (mandate.scope(), mandate.constraints.is_empty()) {
        (Scope::Tool(_), true) => language.pick(
            || "With any arguments at all".to_owned(),
            || "引数はすべて任意です".to_owned(),
        ),
        (Scope::Tool(_), false) => language.pick(
            || "Any other argument may be anything".to_owned(),
            || "その他の引数は任意の値を取れます".to_owned(),
        ),
        (Scope::ChangeType(_), true) => language.pick(
            || "On any node, from any status to any status".to_owned(),
            || "どのノードでも、どの状態からどの状態へでも".to_owned(),
        ),
        (Scope::ChangeType(_), false) => language.pick(
            || "Any other field (node_id, from, to) may be anything".to_owned(),
            || "その他の項目（node_id、from、to）は任意の値を取れます".to_owned(),
        ),
    };
    lines.push(others);
    let uses = mandate.max_uses;
    let until = display_identifier(&mandate.expires_at);
    lines.push(language.pick(
        || {
            format!(
                "At most {uses} {}, until {until}",
                if uses == 1 { "run" } else { "runs" }
            )
        },
        || format!("最大 {uses} 回、{until} まで"),
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mandate(action: &str, constraints: Value) -> Mandate {
        serde_json::from_value(json!({
            "mandate_id": "m-0123456789abcdef",
            "agents": ["mail-agent"],
            "action": action,
            "constraints": constraints,
            "max_uses": 5,
            "issued_at": "2026-11-28T10:00:00Z",
            "expires_at": "2026-11-29T10:00:00Z",
            "key_id": null
        }))
        .unwrap()
    }

    #[test]
    fn a_tool_mandate_reads_in_english_and_japanese() {
        let m = mandate(
            "tool:send_email",
            json!([
                { "field": "/to", "op": "ends_with", "value": "@example.com" },
                { "field": "/amount", "op": "at_most", "value": 50 },
                { "field": "/payment/kind", "op": "one_of", "value": ["card", "true"] }
            ]),
        );
        assert_eq!(
            mandate_lines(&m, Language::En),
            [
                "Standing approval: agent mail-agent may run tool send_email without asking",
                "Only when to is a text ending with @example.com",
                "and amount is a number at most 50",
                "and /payment/kind is one of card, \"true\"",
                "Any other argument may be anything",
                "At most 5 runs, until 2026-11-29T10:00:00Z",
            ]
        );
        assert_eq!(
            mandate_lines(&m, Language::Ja),
            [
                "常設承認: エージェント mail-agent は確認なしで ツール send_email を実行できます",
                "条件: to が @example.com で終わるテキスト",
                "かつ amount が 50 以下の数",
                "かつ /payment/kind が card、\"true\" のいずれか",
                "その他の引数は任意の値を取れます",
                "最大 5 回、2026-11-29T10:00:00Z まで",
            ]
        );
    }

    #[test]
    fn values_that_could_mislead_are_quoted_and_made_visible() {
        let m = mandate(
            "status_change",
            json!([{ "field": "/to", "op": "equals", "value": "done\u{202e} " }]),
        );
        let lines = mandate_lines(&m, Language::En);
        assert_eq!(lines[1], "Only when to is \"done<U+202E> \"");
        assert_eq!(
            lines[2],
            "Any other field (node_id, from, to) may be anything"
        );
    }
}
