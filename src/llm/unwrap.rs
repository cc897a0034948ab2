//! Taking the answer out of what models and SDKs wrap it in, each step recorded as a repair: a one-element
//! array, the answer encoded as a JSON string, a single-key wrapper (`response`, `output`, `result`,
//! `answer`, `data`, or the answer type's own name), and an OpenAI or Anthropic tool-call envelope whose
//! arguments hold the answer, read only when the call names the answer tool (the schema's name) and its
//! arguments are unambiguous. A value that already has one of the answer's own fields is never unwrapped.

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
            if let Some(arguments) = tool_call_arguments(value, names) {
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

/// The arguments of exactly one tool call of the answer tool, in the shapes OpenAI and Anthropic send.
fn tool_call_arguments(value: &Value, names: &[&str]) -> Option<Value> {
    let answer_tool = |call: &Value| {
        call.get("name")
            .and_then(Value::as_str)
            .is_some_and(|name| names.iter().any(|tool| tool.eq_ignore_ascii_case(name)))
    };
    // OpenAI: { tool_calls: [ { function: { name, arguments } } ] }, or a message holding them.
    if let Some(calls) = value.get("tool_calls").and_then(Value::as_array) {
        return match calls.as_slice() {
            [call] => call
                .get("function")
                .filter(|function| answer_tool(function))
                .and_then(one_argument_set),
            _ => None,
        };
    }
    // OpenAI legacy and bare calls: { function_call: { name, arguments } }, { function: { name, arguments } },
    // { name, arguments }; Llama style { name, parameters }.
    for key in ["function_call", "function"] {
        if let Some(call) = value.get(key).filter(|call| call.is_object()) {
            return answer_tool(call).then(|| one_argument_set(call)).flatten();
        }
    }
    if value.get("name").is_some_and(Value::is_string)
        && (value.get("arguments").is_some() || value.get("parameters").is_some())
    {
        return answer_tool(value)
            .then(|| one_argument_set(value))
            .flatten();
    }
    // Anthropic: { type: "tool_use", name, input }, or a message whose content holds exactly one such block.
    if value.get("type").and_then(Value::as_str) == Some("tool_use") {
        return answer_tool(value)
            .then(|| value.get("input").cloned())
            .flatten();
    }
    let blocks = value.get("content").and_then(Value::as_array)?;
    let mut uses = blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"));
    match (uses.next(), uses.next()) {
        (Some(only), None) if answer_tool(only) => only.get("input").cloned(),
        _ => None,
    }
}

/// `arguments` or `parameters`, never both.
fn one_argument_set(call: &Value) -> Option<Value> {
    match (call.get("arguments"), call.get("parameters")) {
        (Some(arguments), None) | (None, Some(arguments)) => Some(arguments.clone()),
        _ => None,
    }
}
