//! The constraint language of a standing approval: a small declared set of tests on one field of a proposed
//! change each, evaluated by the core. A field is named by a JSON Pointer (RFC 6901) into the change's
//! parameters ([`parameters`]): a tool call's arguments, or `{ node_id, from, to }` for any other change.
//! A missing field, or one of another kind than the test reads, does not satisfy it.

use crate::executor::confirmation::ProposedChange;
use crate::executor::tool_call::TOOL_CALL;
use crate::input::{InputError, Validate};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tsify::Tsify;

/// The longest field pointer, in characters.
const MAX_FIELD_CHARS: usize = 256;
/// The longest text a constraint compares with, in characters.
const MAX_TEXT_CHARS: usize = 1024;
/// The most values of a `one_of`.
pub const MAX_ONE_OF: usize = 64;

/// One test on one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct Constraint {
    /// A JSON Pointer into the change's parameters: `/to`, `/payment/amount`, `/node_id`.
    pub field: String,
    pub op: ConstraintOp,
    /// What the field is compared with: a text, number, `true`, `false` or `null` (`equals`); a list of
    /// them (`one_of`); a text (`starts_with`, `ends_with`); a number (`at_most`, `at_least`).
    #[tsify(type = "unknown")]
    pub value: Value,
}

/// How a field is tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintOp {
    /// The field is exactly the value (numbers by their value: `50` equals `50.0`).
    Equals,
    /// The field is exactly one of the values.
    OneOf,
    /// The field is a text beginning with the value (exact characters, no case folding).
    StartsWith,
    /// The field is a text ending with the value (exact characters, no case folding).
    EndsWith,
    /// The field is a number no greater than the value.
    AtMost,
    /// The field is a number no less than the value.
    AtLeast,
}

fn is_scalar(value: &Value) -> bool {
    match value {
        Value::String(text) => text.chars().count() <= MAX_TEXT_CHARS,
        Value::Number(_) | Value::Bool(_) | Value::Null => true,
        Value::Array(_) | Value::Object(_) => false,
    }
}

/// Whether `pointer` is a JSON Pointer to a field (not the whole value): `/` then segments whose `~` is
/// always `~0` or `~1`.
fn is_field_pointer(pointer: &str) -> bool {
    let Some(rest) = pointer.strip_prefix('/') else {
        return false;
    };
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return false;
        }
    }
    pointer.chars().count() <= MAX_FIELD_CHARS && !pointer.chars().any(char::is_control)
}

impl Validate for Constraint {
    fn validate(&self) -> Result<(), InputError> {
        if !is_field_pointer(&self.field) {
            return Err(InputError::invalid(
                "field",
                format!(
                    "must be a JSON Pointer to one field (`/to`, `/payment/amount`), at most {MAX_FIELD_CHARS} characters"
                ),
            ));
        }
        let fits = match self.op {
            ConstraintOp::Equals => is_scalar(&self.value),
            ConstraintOp::OneOf => self.value.as_array().is_some_and(|values| {
                !values.is_empty() && values.len() <= MAX_ONE_OF && values.iter().all(is_scalar)
            }),
            ConstraintOp::StartsWith | ConstraintOp::EndsWith => self
                .value
                .as_str()
                .is_some_and(|text| !text.is_empty() && text.chars().count() <= MAX_TEXT_CHARS),
            ConstraintOp::AtMost | ConstraintOp::AtLeast => self.value.is_number(),
        };
        if fits {
            return Ok(());
        }
        let wanted = match self.op {
            ConstraintOp::Equals => "a text, a number, true, false or null",
            ConstraintOp::OneOf => "a list of 1 to 64 texts, numbers, true, false or null",
            ConstraintOp::StartsWith | ConstraintOp::EndsWith => "a text that is not empty",
            ConstraintOp::AtMost | ConstraintOp::AtLeast => "a number",
        };
        Err(InputError::invalid(
            "value",
            format!("must be {wanted} (texts at most {MAX_TEXT_CHARS} characters)"),
        ))
    }
}

/// The parameters a constraint reads: a tool call's arguments (the object it will be called with), or
/// `{ node_id, from, to }` for any other change. `None` when a tool call's arguments are not a JSON object.
pub fn parameters(node_id: &str, change: &ProposedChange) -> Option<Value> {
    if change.change_type == TOOL_CALL {
        let arguments: Value = serde_json::from_str(&change.to).ok()?;
        return arguments.is_object().then_some(arguments);
    }
    Some(json!({ "node_id": node_id, "from": change.from, "to": change.to }))
}

/// Numbers by their value (as the tool receives them, IEEE doubles); everything else exactly.
/// A constraint's values are scalars (validated), so a list or an object never equals one; comparing them
/// by hand keeps `Value`'s structural equality (and its map comparison) out of the module.
pub fn same_value(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// Why a field fails a constraint.
#[derive(Debug, Clone, PartialEq)]
pub enum Unmet {
    /// The parameters have no such field.
    Missing,
    /// The field has another value, or a kind the test does not read.
    Other(Value),
}

impl Constraint {
    /// Whether the field holds in `parameters`: `Ok`, or what the field is instead.
    pub fn check(&self, parameters: &Value) -> Result<(), Unmet> {
        let Some(found) = parameters.pointer(&self.field) else {
            return Err(Unmet::Missing);
        };
        let number = || found.as_f64().filter(|_| found.is_number());
        let limit = self.value.as_f64();
        let holds = match self.op {
            ConstraintOp::Equals => same_value(found, &self.value),
            ConstraintOp::OneOf => self
                .value
                .as_array()
                .is_some_and(|values| values.iter().any(|value| same_value(found, value))),
            ConstraintOp::StartsWith => match (found.as_str(), self.value.as_str()) {
                (Some(text), Some(prefix)) => text.starts_with(prefix),
                _ => false,
            },
            ConstraintOp::EndsWith => match (found.as_str(), self.value.as_str()) {
                (Some(text), Some(suffix)) => text.ends_with(suffix),
                _ => false,
            },
            ConstraintOp::AtMost => matches!((number(), limit), (Some(n), Some(l)) if n <= l),
            ConstraintOp::AtLeast => matches!((number(), limit), (Some(n), Some(l)) if n >= l),
        };
        if holds {
            Ok(())
        } else {
            Err(Unmet::Other(found.clone()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constraint(field: &str, op: ConstraintOp, value: Value) -> Constraint {
        Constraint {
            field: field.to_owned(),
            op,
            value,
        }
    }

    #[test]
    fn each_test_reads_its_kind_and_a_missing_or_other_kind_fails() {
        let args =
            json!({ "to": "bob@example.com", "amount": 50, "n": "50", "nested": { "a/b": 1 } });
        let holds = |c: Constraint| c.check(&args).is_ok();
        assert!(holds(constraint(
            "/to",
            ConstraintOp::EndsWith,
            json!("@example.com")
        )));
        assert!(!holds(constraint(
            "/to",
            ConstraintOp::EndsWith,
            json!("@EXAMPLE.com")
        )));
        assert!(holds(constraint(
            "/to",
            ConstraintOp::StartsWith,
            json!("bob@")
        )));
        assert!(holds(constraint(
            "/amount",
            ConstraintOp::AtMost,
            json!(50.0)
        )));
        assert!(!holds(constraint(
            "/amount",
            ConstraintOp::AtMost,
            json!(49.999)
        )));
        assert!(holds(constraint(
            "/amount",
            ConstraintOp::AtLeast,
            json!(50)
        )));
        assert!(
            !holds(constraint("/n", ConstraintOp::AtMost, json!(100))),
            "a text is not a number"
        );
        assert!(holds(constraint(
            "/amount",
            ConstraintOp::Equals,
            json!(50.0)
        )));
        assert!(!holds(constraint("/n", ConstraintOp::Equals, json!(50))));
        assert!(holds(constraint(
            "/nested/a~1b",
            ConstraintOp::OneOf,
            json!([0, 1])
        )));
        assert_eq!(
            constraint("/cc", ConstraintOp::Equals, json!(null)).check(&args),
            Err(Unmet::Missing)
        );
        assert!(!holds(constraint(
            "/to",
            ConstraintOp::OneOf,
            json!(["bob"])
        )));
    }

    #[test]
    fn malformed_constraints_are_refused_by_field() {
        let bad = [
            constraint("to", ConstraintOp::Equals, json!("x")),
            constraint("", ConstraintOp::Equals, json!("x")),
            constraint("/a~2", ConstraintOp::Equals, json!("x")),
            constraint("/a\u{7}", ConstraintOp::Equals, json!("x")),
            constraint("/a", ConstraintOp::Equals, json!([1])),
            constraint("/a", ConstraintOp::OneOf, json!([])),
            constraint("/a", ConstraintOp::OneOf, json!([[1]])),
            constraint("/a", ConstraintOp::EndsWith, json!("")),
            constraint("/a", ConstraintOp::EndsWith, json!(1)),
            constraint("/a", ConstraintOp::AtMost, json!("50")),
        ];
        for constraint in bad {
            assert!(constraint.validate().is_err(), "{constraint:?}");
        }
        assert!(
            constraint("/", ConstraintOp::Equals, json!("x"))
                .validate()
                .is_ok()
        );
    }

    #[test]
    fn a_status_change_reads_as_its_node_and_statuses() {
        let change = ProposedChange {
            change_type: "status_change".to_owned(),
            from: "todo".to_owned(),
            to: "done".to_owned(),
        };
        assert_eq!(
            parameters("T-1", &change),
            Some(json!({ "node_id": "T-1", "from": "todo", "to": "done" }))
        );
    }
}
