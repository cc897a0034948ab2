//! What a person approves, rendered by the machine from the action itself (seed 002: `[機械] 承認`, the
//! request is 実行概要 + 影響範囲). The two lines come from the action's type and parameters, never from
//! the model's words; every parameter appears on them; the `y` binds to the action's digest.
//!
//! - A status change (parameters `node_id`, `from`, `to`) reads `Execute: status_change on T-1: review -> done`
//!   / `Impact: T-1`.
//! - A host describes its own action types with a [`Renderer`]: two templates whose `{name}` placeholders
//!   are the action's top-level parameters. Parameters a template does not show are appended, so nothing
//!   the action carries is hidden.
//! - Any other type lists its parameters.

pub use super::display::shown;
use super::display::{PLAIN_PUNCTUATION, display_identifier};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use tsify::Tsify;

/// The longest approval line, in characters. An action whose lines would be longer is not shown cut: it is
/// not proposed at all (a person cannot approve what they cannot read).
pub const MAX_APPROVAL_LINE_CHARS: usize = 400;

/// The longest renderer template, in characters.
pub const MAX_TEMPLATE_CHARS: usize = 200;

/// How a host's action type reads in an approval request: `execute` and `impact` are templates over the
/// action's top-level parameters (`{node_id}`); the machine fills them in, display-safe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct Renderer {
    /// What will be executed, e.g. `send the invoice {invoice} to {to}`.
    pub execute: String,
    /// What it touches, e.g. `the mailbox of {to}`.
    pub impact: String,
}

/// Why an action cannot be shown to a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderError {
    /// A template names a parameter the action does not carry.
    MissingParameter(String),
    /// A line would be longer than [`MAX_APPROVAL_LINE_CHARS`].
    TooLong(usize),
    /// The parameters are larger than [`MAX_PARAMETER_BYTES`] or nest deeper than [`MAX_PARAMETER_DEPTH`].
    TooLarge,
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MissingParameter(name) => write!(
                f,
                "the action has no parameter `{name}` that its approval request shows"
            ),
            Self::TooLarge => write!(
                f,
                "the action's parameters are larger than {MAX_PARAMETER_BYTES} bytes or nest deeper than {MAX_PARAMETER_DEPTH} levels: too large to show a person"
            ),
            Self::TooLong(chars) => write!(
                f,
                "the action's approval request would be {chars} characters long on one line (at most {MAX_APPROVAL_LINE_CHARS}): too large to show a person"
            ),
        }
    }
}

/// A renderer's templates are checked when the host supplies them: short, one line, placeholders that
/// are plain names.
pub fn check_renderer(renderer: &Renderer) -> Result<(), String> {
    for (name, template) in [("execute", &renderer.execute), ("impact", &renderer.impact)] {
        if template.trim().is_empty() {
            return Err(format!("`{name}` must not be empty"));
        }
        if template.chars().count() > MAX_TEMPLATE_CHARS {
            return Err(format!(
                "`{name}` is longer than {MAX_TEMPLATE_CHARS} characters"
            ));
        }
        if template.chars().any(super::display::is_invisible_control) {
            return Err(format!("`{name}` holds control or invisible characters"));
        }
        let pieces = placeholders(template);
        for (index, piece) in pieces.iter().enumerate() {
            match piece {
                Placeholder::Malformed => {
                    return Err(format!(
                        "`{name}` has a `{{` that does not open a placeholder `{{name}}` (letters, digits, _)"
                    ));
                }
                Placeholder::Name(placeholder) => {
                    let before = index.checked_sub(1).and_then(|at| pieces.get(at));
                    let after = pieces.get(index + 1);
                    let separated = |piece: Option<&Placeholder<'_>>, end: bool| match piece {
                        None => true,
                        Some(Placeholder::Text(text)) => {
                            let c = if end {
                                text.chars().next_back()
                            } else {
                                text.chars().next()
                            };
                            c.is_some_and(separates)
                        }
                        Some(_) => false,
                    };
                    if !separated(before, true) || !separated(after, false) {
                        return Err(format!(
                            "in `{name}`, {{{placeholder}}} must be set apart from the text and placeholders around it by a space or punctuation (not a letter, a digit or {PLAIN_PUNCTUATION}\"<\\), so two values never read as one"
                        ));
                    }
                }
                Placeholder::Text(_) => {}
            }
        }
    }
    Ok(())
}

/// Whether `c` ends a value in a template: a value cannot run into it.
fn separates(c: char) -> bool {
    !(c.is_alphanumeric() || PLAIN_PUNCTUATION.contains(c) || "\"<\\".contains(c))
}

enum Placeholder<'a> {
    Text(&'a str),
    Name(&'a str),
    Malformed,
}

fn placeholders(template: &str) -> Vec<Placeholder<'_>> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (text, from_brace) = rest.split_at(open);
        if !text.is_empty() {
            pieces.push(Placeholder::Text(text));
        }
        let after = from_brace.get(1..).unwrap_or("");
        let Some(close) = after.find('}') else {
            pieces.push(Placeholder::Malformed);
            return pieces;
        };
        let name = after.get(..close).unwrap_or("");
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            pieces.push(Placeholder::Malformed);
            return pieces;
        }
        pieces.push(Placeholder::Name(name));
        rest = after.get(close + 1..).unwrap_or("");
    }
    if !rest.is_empty() {
        pieces.push(Placeholder::Text(rest));
    }
    pieces
}

/// The most bytes of parameters (as JSON) an action may carry: more cannot be read in two lines.
pub const MAX_PARAMETER_BYTES: usize = 4 * 1024;

/// The deepest nesting of an action's parameters (or any value the loop keeps from a model).
pub const MAX_PARAMETER_DEPTH: usize = 16;

/// How deeply `value` nests (a scalar is 0, `[1]` is 1).
pub fn json_depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(json_depth).max().unwrap_or(0),
        Value::Object(fields) => 1 + fields.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn fill(
    template: &str,
    parameters: &Map<String, Value>,
    used: &mut Vec<String>,
) -> Result<String, RenderError> {
    let mut out = String::new();
    for piece in placeholders(template) {
        match piece {
            Placeholder::Text(text) => out.push_str(text),
            Placeholder::Name(name) => {
                let value = parameters
                    .get(name)
                    .ok_or_else(|| RenderError::MissingParameter(name.to_owned()))?;
                out.push_str(&shown(value));
                used.push(name.to_owned());
            }
            Placeholder::Malformed => return Err(RenderError::MissingParameter("{".to_owned())),
        }
    }
    Ok(out)
}

fn listed(parameters: &Map<String, Value>, skip: &[String]) -> Vec<String> {
    parameters
        .iter()
        .filter(|(key, _)| !skip.contains(key))
        .map(|(key, value)| format!("{}={}", shown(&Value::from(key.as_str())), shown(value)))
        .collect()
}

fn status_change(parameters: &Map<String, Value>) -> Option<(&str, &str, &str)> {
    let text = |key: &str| parameters.get(key).and_then(Value::as_str);
    Some((text("node_id")?, text("from")?, text("to")?))
}

fn checked(line: String) -> Result<String, RenderError> {
    let chars = line.chars().count();
    if chars > MAX_APPROVAL_LINE_CHARS {
        return Err(RenderError::TooLong(chars));
    }
    Ok(line)
}

/// The two lines of a task action's approval request: what will be executed, and the impact scope.
pub fn task_lines(
    action_type: &str,
    parameters: &Value,
    renderers: &BTreeMap<String, Renderer>,
) -> Result<[String; 2], RenderError> {
    if crate::control::bounds::json_bytes(parameters) > MAX_PARAMETER_BYTES
        || json_depth(parameters) > MAX_PARAMETER_DEPTH
    {
        return Err(RenderError::TooLarge);
    }
    let parameters = match parameters {
        Value::Object(map) => map,
        other => {
            let shown_type = display_identifier(action_type);
            return Ok([
                checked(format!("Execute: {shown_type} with {}", shown(other)))?,
                checked(format!(
                    "Impact: whatever {shown_type} touches with the value above"
                ))?,
            ]);
        }
    };
    let shown_type = display_identifier(action_type);
    let (execute, impact, used) = if let Some(renderer) = renderers.get(action_type) {
        let mut used = Vec::new();
        let execute = fill(&renderer.execute, parameters, &mut used)?;
        let impact = fill(&renderer.impact, parameters, &mut used)?;
        (format!("{execute} ({shown_type})"), impact, used)
    } else if let Some((node, from, to)) = status_change(parameters) {
        let (node, from, to) = (
            shown(&Value::from(node)),
            shown(&Value::from(from)),
            shown(&Value::from(to)),
        );
        (
            format!("{shown_type} on {node}: {from} -> {to}"),
            node,
            vec!["node_id".to_owned(), "from".to_owned(), "to".to_owned()],
        )
    } else {
        let all = listed(parameters, &[]);
        let execute = if all.is_empty() {
            format!("{shown_type} (no parameters)")
        } else {
            format!("{shown_type} with {}", all.join(", "))
        };
        let impact = format!(
            "whatever {shown_type} touches with these parameters (no renderer states its scope)"
        );
        let used = parameters.keys().cloned().collect();
        (execute, impact, used)
    };
    let rest = listed(parameters, &used);
    let execute = if rest.is_empty() {
        execute
    } else {
        format!("{execute}; also {}", rest.join(", "))
    };
    Ok([
        checked(format!("Execute: {execute}"))?,
        checked(format!("Impact: {impact}"))?,
    ])
}

/// SHA-256 (hex) of the canonical JSON of `value` (keys sorted, no spaces): what a `y` binds to.
pub fn digest_of(value: &Value) -> String {
    hex::encode(Sha256::digest(
        crate::input::to_json_string(value).as_bytes(),
    ))
}

/// The id of the approval request for an action with `id`, `digest` and `lines`: a request whose lines or
/// parameters changed is a different request.
pub fn request_id(id: &str, digest: &str, lines: &[String; 2]) -> String {
    let mut hasher = Sha256::new();
    for part in [digest, lines[0].as_str(), lines[1].as_str()] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    let hash = hex::encode(hasher.finalize());
    format!("{id}.{}", hash.get(..8).unwrap_or(&hash))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_status_change_reads_as_the_change_itself() {
        let lines = task_lines(
            "status_change",
            &json!({"node_id": "T-9", "from": "review", "to": "deleted"}),
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(lines[0], "Execute: status_change on T-9: review -> deleted");
        assert_eq!(lines[1], "Impact: T-9");
    }

    #[test]
    fn every_parameter_appears_and_hostile_text_is_visible() {
        let lines = task_lines(
            "status_change",
            &json!({"node_id": "T-1\u{202E}", "from": "a", "to": "b", "force": true}),
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(
            lines[0],
            "Execute: status_change on \"T-1<U+202E>\": a -> b; also force=true"
        );
        let generic = task_lines(
            "send_mail",
            &json!({"to": "x@y", "body": "hi\nthere"}),
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(
            generic[0],
            "Execute: send_mail with body=\"hi\\nthere\", to=x@y"
        );
    }

    #[test]
    fn different_actions_never_read_the_same() {
        let pairs = [
            (json!({"force": "true"}), json!({"force": true})),
            (json!({"n": "1"}), json!({"n": 1})),
            (json!({"n": null}), json!({"n": "null"})),
            (json!({"a": {"b": 1}}), json!({"a": "{\"b\":1}"})),
            (json!({"a": [1, 2]}), json!({"a": "[1,2]"})),
            (json!({}), Value::Null),
            (json!({"a": "1, b=2"}), json!({"a": "1", "b": "2"})),
            (
                json!({"cmd": "rm -rf  /tmp/x"}),
                json!({"cmd": "rm -rf /tmp/x"}),
            ),
            (json!({"cmd": "x "}), json!({"cmd": "x"})),
            (
                json!({"node_id": "T-1", "from": "review -> done", "to": "deleted"}),
                json!({"node_id": "T-1", "from": "review", "to": "done -> deleted"}),
            ),
            (
                json!({"node_id": "T-1", "from": "a", "to": "b; also force=true"}),
                json!({"node_id": "T-1", "from": "a", "to": "b", "force": true}),
            ),
        ];
        let none = BTreeMap::new();
        for (a, b) in pairs {
            assert_ne!(
                task_lines("t", &a, &none).unwrap(),
                task_lines("t", &b, &none).unwrap(),
                "{a} / {b}"
            );
        }
    }

    #[test]
    fn a_host_renderer_fills_its_templates_and_appends_the_rest() {
        let renderers = BTreeMap::from([(
            "send_mail".to_owned(),
            Renderer {
                execute: "send {subject} to {to}".to_owned(),
                impact: "mailbox of {to}".to_owned(),
            },
        )]);
        let lines = task_lines(
            "send_mail",
            &json!({"to": "a@b", "subject": "Invoice", "cc": "c@d"}),
            &renderers,
        )
        .unwrap();
        assert_eq!(
            lines[0],
            "Execute: send Invoice to a@b (send_mail); also cc=c@d"
        );
        assert_eq!(lines[1], "Impact: mailbox of a@b");
        assert_eq!(
            task_lines("send_mail", &json!({"subject": "x"}), &renderers),
            Err(RenderError::MissingParameter("to".to_owned()))
        );
    }

    #[test]
    fn the_notation_of_invisible_characters_and_odd_spaces_cannot_be_forged() {
        let none = BTreeMap::new();
        let pairs = [
            (
                json!({"node_id": "T-1\u{200B}"}),
                json!({"node_id": "T-1<U+200B>"}),
            ),
            (json!({"a": "a  b"}), json!({"a": "a <U+0020>b"})),
            (json!({"a": "a\u{A0}b"}), json!({"a": "a b"})),
            (json!({"a": "a\u{3000}b"}), json!({"a": "a b"})),
            (json!({"a": "\u{422}-1"}), json!({"a": "T-1"})),
        ];
        for (a, b) in pairs {
            assert_ne!(
                task_lines("t", &a, &none).unwrap(),
                task_lines("t", &b, &none).unwrap(),
                "{a} / {b}"
            );
        }
    }

    #[test]
    fn a_template_cannot_run_two_values_together() {
        for template in ["send to {node_id}@{to}", "{a}{b}", "x{a} y", "\"{a}\""] {
            let renderer = Renderer {
                execute: template.to_owned(),
                impact: "the mailbox".to_owned(),
            };
            assert!(check_renderer(&renderer).is_err(), "{template}");
        }
        for template in ["send {subject} to {to}", "{a}, {b}", "({a})"] {
            let renderer = Renderer {
                execute: template.to_owned(),
                impact: "the mailbox".to_owned(),
            };
            assert_eq!(check_renderer(&renderer), Ok(()), "{template}");
        }
    }

    #[test]
    fn an_action_too_large_to_read_is_not_shown_cut() {
        let long = "x".repeat(500);
        assert!(matches!(
            task_lines("t", &json!({ "a": long }), &BTreeMap::new()),
            Err(RenderError::TooLong(_))
        ));
        let padded = format!("ls{}; rm -rf ~", " ".repeat(10_000));
        assert!(task_lines("t", &json!({ "cmd": padded }), &BTreeMap::new()).is_err());
        let deep: Value =
            serde_json::from_str(&format!("{}{}", "[".repeat(20), "]".repeat(20))).unwrap();
        assert_eq!(
            task_lines("t", &json!({ "a": deep }), &BTreeMap::new()),
            Err(RenderError::TooLarge)
        );
    }

    #[test]
    fn request_ids_change_with_lines_or_digest() {
        let lines = ["a".to_owned(), "b".to_owned()];
        let other = ["a".to_owned(), "c".to_owned()];
        assert_ne!(
            request_id("a-1", "d", &lines),
            request_id("a-1", "d", &other)
        );
        assert_ne!(
            request_id("a-1", "d", &lines),
            request_id("a-1", "e", &lines)
        );
        assert_eq!(
            request_id("a-1", "d", &lines),
            request_id("a-1", "d", &lines)
        );
        assert_eq!(
            digest_of(&json!({"b": 1, "a": 2})),
            digest_of(&json!({"a": 2, "b": 1}))
        );
    }
}
