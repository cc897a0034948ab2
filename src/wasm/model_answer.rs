//! Model answers read from JavaScript: the text and `{ allowRepairs? }` in, the parse as data out.

use super::convert::{from_js, to_js};
use crate::input::InputError;
use crate::llm::ListBound;
use serde::Serialize;
use wasm_bindgen::JsValue;

/// A model-text parse as data: `{ ok: true, [key]: value, repairs, ignoredFields }` or `{ ok: false, error }`.
pub fn parse_outcome<T: Serialize>(
    parsed: Result<crate::llm::Parsed<T>, crate::llm::StructuredError>,
    key: &str,
) -> Result<JsValue, JsValue> {
    let answer = js_sys::Object::new();
    match parsed {
        Ok(parsed) => {
            js_sys::Reflect::set(&answer, &"ok".into(), &JsValue::TRUE)?;
            js_sys::Reflect::set(&answer, &key.into(), &to_js(&parsed.value))?;
            js_sys::Reflect::set(&answer, &"repairs".into(), &to_js(&parsed.repairs))?;
            js_sys::Reflect::set(
                &answer,
                &"ignoredFields".into(),
                &to_js(&parsed.ignored_fields),
            )?;
        }
        Err(error) => {
            js_sys::Reflect::set(&answer, &"ok".into(), &JsValue::FALSE)?;
            js_sys::Reflect::set(&answer, &"error".into(), &to_js(&error))?;
        }
    }
    Ok(answer.into())
}

/// A list bound a parse function's options may set: the answer's field, the option, its default.
pub type BoundOption = (&'static str, &'static str, u32);

/// Parses a model's answer text with the options `{ allowRepairs?, startsInReasoning?, finishReason? }` and
/// the list bounds `bound_options` name. Anything but a string (`null` from a refusal or a tool call
/// included) is the caller's error: give the text, or handle the refusal first.
pub fn parse_model_answer<T: crate::llm::ModelAnswer>(
    text: &JsValue,
    options: &JsValue,
    key: &str,
    bound_options: &[BoundOption],
) -> Result<JsValue, JsValue> {
    let text = super::args::text("text", text).map_err(super::errors::invalid)?;
    let (parse, bounds) = parse_options(options, bound_options).map_err(super::errors::invalid)?;
    // A finish reason that says the endpoint withheld the answer: nothing in the text is read.
    let finish = finish_reason(options);
    if let Some(error) = finish.as_deref().and_then(crate::llm::ask::withheld) {
        return parse_outcome::<T>(Err(error), key);
    }
    let schema = T::answer_schema().clone().bounded(&bounds);
    parse_outcome(
        crate::llm::parse_answer_with::<T>(&text, parse, None, &schema),
        key,
    )
}

/// `{ allowRepairs?, startsInReasoning?, finishReason? }` and the bound options, absent meaning the
/// defaults. Any other key is an error that lists the ones read.
pub fn parse_options(
    value: &JsValue,
    bound_options: &[BoundOption],
) -> Result<(crate::llm::ParseOptions, Vec<ListBound>), InputError> {
    if super::args::is_absent(value) {
        return Ok((crate::llm::ParseOptions::default(), Vec::new()));
    }
    let mut given: serde_json::Map<String, serde_json::Value> = from_js("options", value)?;
    let flag = |given: &mut serde_json::Map<String, serde_json::Value>,
                key: &str,
                default: bool| match given.remove(key) {
        None => Ok(default),
        Some(serde_json::Value::Bool(flag)) => Ok(flag),
        Some(_) => Err(InputError::invalid(
            format!("options.{key}"),
            "must be a boolean",
        )),
    };
    let allow_repairs = flag(&mut given, "allowRepairs", true)?;
    let starts_in_reasoning = flag(&mut given, "startsInReasoning", false)?;
    let finish_reason = match given.remove("finishReason") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(reason)) => Some(reason),
        Some(_) => {
            return Err(InputError::invalid(
                "options.finishReason",
                "must be a string",
            ));
        }
    };
    let bounds = read_bounds(&given, bound_options, &PARSE_OPTION_NAMES)?;
    Ok((
        crate::llm::ParseOptions {
            allow_repairs,
            starts_in_reasoning,
            cut_off: finish_reason
                .as_deref()
                .is_some_and(crate::llm::ask::cut_off_by),
        },
        bounds,
    ))
}

const PARSE_OPTION_NAMES: [&str; 3] = ["allowRepairs", "startsInReasoning", "finishReason"];

/// The bounds `given` sets (each a whole number from 1 to the most a bound may be); a key that is neither a
/// bound option nor one of `others` is an error naming every option read.
fn read_bounds(
    given: &serde_json::Map<String, serde_json::Value>,
    bound_options: &[BoundOption],
    others: &[&str],
) -> Result<Vec<ListBound>, InputError> {
    let mut bounds = Vec::new();
    for (key, value) in given {
        let Some((field, option, _)) = bound_options.iter().find(|(_, option, _)| option == key)
        else {
            let known: Vec<&str> = others
                .iter()
                .copied()
                .chain(bound_options.iter().map(|(_, option, _)| *option))
                .collect();
            return Err(InputError::invalid(
                format!("options.{key}"),
                crate::closest_name::not_known(key, "an option here", &known),
            ));
        };
        let bound = ListBound::new(
            field,
            option,
            value
                .as_u64()
                .and_then(|max| u32::try_from(max).ok())
                .unwrap_or(0),
        );
        bound.checked().map_err(|error| error.within("options"))?;
        bounds.push(bound);
    }
    Ok(bounds)
}

/// A strict schema with the list bounds `options` set (the defaults for the rest), as JS.
pub fn bounded_schema_js(
    schema: crate::llm::OutputSchema,
    options: &JsValue,
    bound_options: &[BoundOption],
) -> Result<JsValue, JsValue> {
    let defaults: Vec<ListBound> = bound_options
        .iter()
        .map(|(field, option, max)| ListBound::new(field, option, *max))
        .collect();
    let given = if super::args::is_absent(options) {
        Vec::new()
    } else {
        let map: serde_json::Map<String, serde_json::Value> =
            from_js("options", options).map_err(super::errors::invalid)?;
        read_bounds(&map, bound_options, &[]).map_err(super::errors::invalid)?
    };
    strict_schema_js(&schema.bounded(&defaults).bounded(&given))
}

/// The `finishReason` option as given (already checked to be a string by [`parse_options`]).
fn finish_reason(options: &JsValue) -> Option<String> {
    if super::args::is_absent(options) {
        return None;
    }
    js_sys::Reflect::get(options, &"finishReason".into())
        .ok()
        .and_then(|value| value.as_string())
}

/// A strict schema as JS: `{ name, schema, responseFormat }` (ready for OpenAI `response_format`).
pub fn strict_schema_js(schema: &crate::llm::OutputSchema) -> Result<JsValue, JsValue> {
    let answer = js_sys::Object::new();
    js_sys::Reflect::set(&answer, &"name".into(), &schema.name.as_str().into())?;
    js_sys::Reflect::set(&answer, &"schema".into(), &to_js(&schema.schema))?;
    js_sys::Reflect::set(
        &answer,
        &"responseFormat".into(),
        &to_js(&schema.openai_response_format()),
    )?;
    Ok(answer.into())
}
