//! Model answers read from JavaScript: the text and `{ allowRepairs? }` in, the parse as data out.

use super::convert::{from_js, to_js};
use crate::input::InputError;
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

/// Parses a model's answer text with the options `{ allowRepairs? }`. Anything but a string (`null` from a
/// refusal or a tool call included) is the caller's error: give the text, or handle the refusal first.
pub fn parse_model_answer<T: crate::llm::ModelAnswer>(
    text: &JsValue,
    options: &JsValue,
    key: &str,
) -> Result<JsValue, JsValue> {
    let text = super::args::text("text", text).map_err(super::errors::invalid)?;
    let parse = parse_options(options).map_err(super::errors::invalid)?;
    // A finish reason that says the endpoint withheld the answer: nothing in the text is read.
    let finish = finish_reason(options);
    if let Some(error) = finish.as_deref().and_then(crate::llm::ask::withheld) {
        return parse_outcome::<T>(Err(error), key);
    }
    parse_outcome(crate::llm::parse_answer::<T>(&text, parse), key)
}

/// `{ allowRepairs?, startsInReasoning?, finishReason? }`, absent meaning the defaults.
pub fn parse_options(value: &JsValue) -> Result<crate::llm::ParseOptions, InputError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Options {
        #[serde(default = "yes")]
        allow_repairs: bool,
        #[serde(default)]
        starts_in_reasoning: bool,
        #[serde(default)]
        finish_reason: Option<String>,
    }
    fn yes() -> bool {
        true
    }
    if super::args::is_absent(value) {
        return Ok(crate::llm::ParseOptions::default());
    }
    let options: Options = from_js("options", value)?;
    Ok(crate::llm::ParseOptions {
        allow_repairs: options.allow_repairs,
        starts_in_reasoning: options.starts_in_reasoning,
        cut_off: options
            .finish_reason
            .as_deref()
            .is_some_and(crate::llm::ask::cut_off_by),
    })
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
