//! Tool-call wrappers written into the text by models and chat templates: Hermes and Qwen
//! `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, Mistral `[TOOL_CALLS][{...}]` and
//! `[TOOL_CALLS]name[ARGS]{...}`, Llama `<|python_tag|>{"name": ..., "parameters": {...}}`. When the text has
//! one, the answer is read only from a call that names the answer tool (the schema's name), only when exactly
//! one such call exists, and only when its arguments are one unambiguous JSON object; otherwise the answer
//! is refused. Nothing else in the text is read in its place.

use super::error_kind::StructuredErrorKind;
use super::strict_json::{StrictError, parse_strict};
use serde_json::Value;

const HERMES_OPEN: &str = "<tool_call>";
const HERMES_CLOSE: &str = "</tool_call>";
const MISTRAL: &str = "[TOOL_CALLS]";
const MISTRAL_ARGS: &str = "[ARGS]";
const MISTRAL_CALL_ID: &str = "[CALL_ID]";
const LLAMA: &str = "<|python_tag|>";
const LLAMA_ENDS: [&str; 3] = ["<|eom_id|>", "<|eot_id|>", "<|end_of_text|>"];

/// Why a tool-call wrapper gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub kind: StructuredErrorKind,
    pub message: String,
}

fn refuse(kind: StructuredErrorKind, message: impl Into<String>) -> Refusal {
    Refusal {
        kind,
        message: message.into(),
    }
}

/// `None` when the text has no tool-call wrapper; else the answer tool's arguments, or why there are none.
pub fn answer_from_tool_calls(text: &str, tool: &str) -> Option<Result<Value, Refusal>> {
    let has_wrapper = [HERMES_OPEN, MISTRAL, LLAMA]
        .iter()
        .any(|marker| text.contains(marker));
    if !has_wrapper {
        return None;
    }
    Some(calls(text).and_then(|calls| choose(calls, tool)))
}

/// One call: its name and its arguments.
struct Call {
    name: String,
    arguments: Value,
}

fn choose(calls: Vec<Call>, tool: &str) -> Result<Value, Refusal> {
    if calls.is_empty() {
        return Err(refuse(
            StructuredErrorKind::NoJson,
            "the tool-call wrapper holds no call",
        ));
    }
    let names: Vec<String> = calls
        .iter()
        .map(|call| format!("`{}`", call.name))
        .collect();
    let mut answers = calls
        .into_iter()
        .filter(|call| call.name.eq_ignore_ascii_case(tool));
    match (answers.next(), answers.next()) {
        (Some(only), None) => arguments_object(only.arguments),
        (Some(_), Some(_)) => Err(refuse(
            StructuredErrorKind::Ambiguous,
            format!("the answer tool `{tool}` is called more than once; exactly one call is read"),
        )),
        (None, _) => Err(refuse(
            StructuredErrorKind::Schema,
            format!(
                "the text calls {}, not the answer tool `{tool}`",
                names.join(", ")
            ),
        )),
    }
}

/// The arguments as one JSON object (an object, or a string holding exactly one strict JSON object).
fn arguments_object(arguments: Value) -> Result<Value, Refusal> {
    let value = match arguments {
        Value::String(text) => parse_strict(text.trim()).map_err(|error| {
            refuse(
                StructuredErrorKind::Schema,
                format!(
                    "the answer tool's arguments are not one JSON object: {}",
                    describe(&error)
                ),
            )
        })?,
        other => other,
    };
    if value.is_object() {
        Ok(value)
    } else {
        Err(refuse(
            StructuredErrorKind::Schema,
            "the answer tool's arguments are not a JSON object",
        ))
    }
}

/// Every call in the text's wrappers; a wrapper that cannot be read refuses the whole answer.
fn calls(text: &str) -> Result<Vec<Call>, Refusal> {
    let mut calls = Vec::new();
    let mut cursor = 0;
    while let Some(at) = text.get(cursor..).and_then(|rest| rest.find(HERMES_OPEN)) {
        let body = cursor + at + HERMES_OPEN.len();
        let rest = text.get(body..).unwrap_or_default();
        let Some(close) = rest.find(HERMES_CLOSE) else {
            // Some templates never close the last call: the body is the rest, and must be whole JSON.
            calls.push(call_of(&whole_value(rest)?)?);
            break;
        };
        calls.push(call_of(&whole_value(
            rest.get(..close).unwrap_or_default(),
        )?)?);
        cursor = body + close + HERMES_CLOSE.len();
    }
    let mut cursor = 0;
    while let Some(at) = text.get(cursor..).and_then(|rest| rest.find(MISTRAL)) {
        let body = cursor + at + MISTRAL.len();
        let (found, end) = mistral_calls(text.get(body..).unwrap_or_default())?;
        calls.extend(found);
        cursor = body + end;
    }
    if let Some(at) = text.find(LLAMA) {
        let rest = text.get(at + LLAMA.len()..).unwrap_or_default();
        let end = LLAMA_ENDS
            .iter()
            .filter_map(|token| rest.find(token))
            .min()
            .unwrap_or(rest.len());
        let mut body = rest.get(..end).unwrap_or_default();
        loop {
            body = body.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
            if body.is_empty() {
                break;
            }
            let (value, used) = first_value(body)?;
            calls.push(call_of(&value)?);
            body = body.get(used..).unwrap_or_default();
        }
    }
    Ok(calls)
}

/// Mistral's calls after `[TOOL_CALLS]`: a JSON array (or object) of calls, or `name[ARGS]{...}` repeated.
fn mistral_calls(rest: &str) -> Result<(Vec<Call>, usize), Refusal> {
    let trimmed = rest.trim_start();
    let lead = rest.len() - trimmed.len();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        let (value, used) = first_value(trimmed)?;
        let items = match value {
            Value::Array(items) => items,
            object => vec![object],
        };
        let calls = items.iter().map(call_of).collect::<Result<Vec<_>, _>>()?;
        return Ok((calls, lead + used));
    }
    let mut calls = Vec::new();
    let mut cursor = 0;
    loop {
        let remaining = rest.get(cursor..).unwrap_or_default();
        if remaining.trim().is_empty() || remaining.trim_start().starts_with(MISTRAL) {
            break;
        }
        let Some(args) = remaining.find(MISTRAL_ARGS) else {
            return Err(refuse(
                StructuredErrorKind::NoJson,
                "a [TOOL_CALLS] call has no [ARGS]",
            ));
        };
        let head = remaining.get(..args).unwrap_or_default();
        let name = head
            .split(MISTRAL_CALL_ID)
            .next()
            .unwrap_or_default()
            .trim();
        let after = remaining
            .get(args + MISTRAL_ARGS.len()..)
            .unwrap_or_default();
        let (arguments, used) = first_value(after)?;
        calls.push(Call {
            name: name.to_owned(),
            arguments,
        });
        cursor += args + MISTRAL_ARGS.len() + used;
    }
    Ok((calls, cursor))
}

/// The call's name and arguments: `{name, arguments}`, `{name, parameters}`, `{function: {name, arguments}}`.
fn call_of(value: &Value) -> Result<Call, Refusal> {
    let call = value
        .get("function")
        .filter(|f| f.is_object())
        .unwrap_or(value);
    let name = call
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| refuse(StructuredErrorKind::Schema, "a tool call has no `name`"))?;
    let arguments = match (call.get("arguments"), call.get("parameters")) {
        (Some(arguments), None) | (None, Some(arguments)) => arguments.clone(),
        (Some(_), Some(_)) => {
            return Err(refuse(
                StructuredErrorKind::Ambiguous,
                format!("the call of `{name}` has both `arguments` and `parameters`"),
            ));
        }
        (None, None) => {
            return Err(refuse(
                StructuredErrorKind::Schema,
                format!("the call of `{name}` has no arguments"),
            ));
        }
    };
    Ok(Call {
        name: name.to_owned(),
        arguments,
    })
}

/// The text as exactly one strict JSON value.
fn whole_value(text: &str) -> Result<Value, Refusal> {
    let (value, used) = first_value(text.trim())?;
    if text
        .trim()
        .get(used..)
        .is_some_and(|rest| !rest.trim().is_empty())
    {
        return Err(refuse(
            StructuredErrorKind::NoJson,
            "a tool call holds more than one JSON value",
        ));
    }
    Ok(value)
}

/// The first JSON object or array at the start of `text` (strict: duplicate keys refused), and the bytes it
/// used: its end is found by a bracket scan that respects strings, then the span is parsed strictly.
fn first_value(text: &str) -> Result<(Value, usize), Refusal> {
    let lead = text.len() - text.trim_start().len();
    let text = text.trim_start();
    if !text.starts_with(['{', '[']) {
        return Err(refuse(
            StructuredErrorKind::NoJson,
            "a tool call holds no JSON object",
        ));
    }
    let Some(end) = balanced_end(text) else {
        return Err(refuse(
            StructuredErrorKind::Truncated,
            "a tool call's JSON is never closed: the answer looks truncated",
        ));
    };
    let value = parse_strict(text.get(..end).unwrap_or_default()).map_err(|error| {
        let kind = match error {
            StrictError::DuplicateKey { .. } => StructuredErrorKind::DuplicateKey,
            StrictError::Syntax { .. } => StructuredErrorKind::NoJson,
        };
        refuse(
            kind,
            format!("a tool call is not strict JSON: {}", describe(&error)),
        )
    })?;
    Ok((value, lead + end))
}

/// The byte just after the bracket that closes the one `text` starts with.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (index, byte) in text.bytes().enumerate() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(index + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn describe(error: &StrictError) -> String {
    match error {
        StrictError::DuplicateKey { path } => format!("the key `{path}` appears twice"),
        StrictError::Syntax { message, .. } => message.clone(),
    }
}
