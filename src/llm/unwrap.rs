//! Taking the answer out of what models and SDKs wrap it in, each step recorded as a repair: a one-element
//! array, the answer encoded as a JSON string, a single-key wrapper (`response`, `output`, `result`,
//! `answer`, `data`, or the answer type's own name), and an OpenAI or Anthropic tool-call envelope whose
//! arguments hold the answer. A value that already has one of the answer's own fields is never unwrapped.

use super::repair::{Repair, RepairKind};
use super::strict_json::parse_strict;
use serde_json::Value;

const WRAPPER_KEYS: [&str; 5] = ["response", "output", "result", "answer", "data"];
/// How many layers are taken off at most.
const MAX_LAYERS: usize = 6;

/// The answer inside `value`; `fields` are the answer's own top-level field names, `names` its type names.
pub fn unwrap_answer(
    mut value: Value,
    fields: &[String],
    names: &[&str],
    offset: usize,
    repairs: &mut Vec<Repair>,
) -> Value {
    for _ in 0..MAX_LAYERS {
        let Some((inner, kind)) = one_layer(&value, fields, names) else {
            break;
        };
        repairs.push(Repair { kind, offset });
        value = inner;
    }
    value
}

fn one_layer(value: &Value, fields: &[String], names: &[&str]) -> Option<(Value, RepairKind)> {
    match value {
        Value::Array(items) => match items.as_slice() {
            [only] => Some((only.clone(), RepairKind::UnwrappedArray)),
            _ => None,
        },
        Value::String(text) => {
            let decoded = parse_strict(text.trim()).ok()?;
            (decoded.is_object() || decoded.is_array())
                .then_some((decoded, RepairKind::DoubleEncoded))
        }
        Value::Object(object) => {
            if object.keys().any(|key| fields.contains(key)) {
                return None;
            }
            if let Some(arguments) = tool_call_arguments(value) {
                return Some((arguments, RepairKind::ToolCall));
            }
            let mut entries = object.iter();
            let (key, inner) = entries.next()?;
            let single = entries.next().is_none();
            let wrapper = WRAPPER_KEYS.contains(&key.as_str())
                || names.iter().any(|name| name.eq_ignore_ascii_case(key));
            (single && wrapper && (inner.is_object() || inner.is_string() || inner.is_array()))
                .then(|| (inner.clone(), RepairKind::Wrapper))
        }
        _ => None,
    }
}

/// The arguments of exactly one tool call, in the shapes OpenAI and Anthropic send.
fn tool_call_arguments(value: &Value) -> Option<Value> {
    // OpenAI: { tool_calls: [ { function: { name, arguments } } ] }, or a message holding them.
    if let Some(calls) = value.get("tool_calls").and_then(Value::as_array) {
        return match calls.as_slice() {
            [call] => call
                .get("function")
                .and_then(|function| function.get("arguments"))
                .cloned(),
            _ => None,
        };
    }
    // OpenAI legacy and bare calls: { function_call: { arguments } }, { function: { arguments } },
    // { name, arguments }; Llama style { name, parameters }.
    for key in ["function_call", "function"] {
        if let Some(arguments) = value.get(key).and_then(|call| call.get("arguments")) {
            return Some(arguments.clone());
        }
    }
    if value.get("name").is_some_and(Value::is_string) {
        if let Some(arguments) = value.get("arguments").or_else(|| value.get("parameters")) {
            return Some(arguments.clone());
        }
    }
    // Anthropic: { type: "tool_use", input }, or a message whose content holds exactly one such block.
    if value.get("type").and_then(Value::as_str) == Some("tool_use") {
        return value.get("input").cloned();
    }
    let blocks = value.get("content").and_then(Value::as_array)?;
    let mut uses = blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"));
    match (uses.next(), uses.next()) {
        (Some(only), None) => only.get("input").cloned(),
        _ => None,
    }
}
