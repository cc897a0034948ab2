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
/// The text a tool-call envelope carries beside the call (an Anthropic text block, an OpenAI message's
/// `content`) is added to `beside`: it is read for what it says about the answer.
pub fn unwrap_answer(
    mut value: Value,
    fields: &[String],
    names: &[&str],
    offset: usize,
    repairs: &mut Vec<Repair>,
    beside: &mut Vec<String>,
) -> Value {
    for _ in 0..MAX_LAYERS {
        let Some((inner, kind)) = one_layer(&value, fields, names, beside) else {
            break;
        };
        repairs.push(Repair { kind, offset });
        value = inner;
    }
    value
}

fn one_layer(
    value: &Value,
    fields: &[String],
    names: &[&str],
    beside: &mut Vec<String>,
) -> Option<(Value, RepairKind)> {
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
                beside.extend(text_beside_calls(value));
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
    // OpenAI: { tool_calls: [ { function: { name, arguments } } ] }, or a message holding them. Parallel
    // calls of other tools beside exactly one call of the answer tool: that call is the answer.
    if let Some(calls) = value.get("tool_calls").and_then(Value::as_array) {
        let mut answers = calls
            .iter()
            .filter_map(|call| call.get("function"))
            .filter(|function| answer_tool(function));
        return match (answers.next(), answers.next()) {
            (Some(only), None) => one_argument_set(only),
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
    let mut uses = blocks.iter().filter(|block| {
        block.get("type").and_then(Value::as_str) == Some("tool_use") && answer_tool(block)
    });
    match (uses.next(), uses.next()) {
        (Some(only), None) => only.get("input").cloned(),
        _ => None,
    }
}

/// The text an envelope holds beside its tool calls: Anthropic `text` blocks, an OpenAI message's `content`.
fn text_beside_calls(value: &Value) -> Vec<String> {
    match value.get("content") {
        Some(Value::String(text)) => vec![text.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `arguments` or `parameters`, never both.
fn one_argument_set(call: &Value) -> Option<Value> {
    match (call.get("arguments"), call.get("parameters")) {
        (Some(arguments), None) | (None, Some(arguments)) => Some(arguments.clone()),
        _ => None,
    }
}
