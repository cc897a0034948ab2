//! Crossing the boundary: JS values in as typed Rust values (through JSON text, so errors carry the path
//! of the bad field), typed Rust values out as plain JS objects.

use crate::input::{InputError, Validate, parse_json_str};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

/// `JSON.stringify(value)`, or a typed error for values JSON cannot hold (cycles, BigInt, undefined).
pub fn to_json_text(path: &str, value: &JsValue) -> Result<String, InputError> {
    if value.is_undefined() {
        return Err(InputError::invalid(path, "is required"));
    }
    let text = js_sys::JSON::stringify(value).map_err(|error| {
        InputError::invalid(
            path,
            format!(
                "is not JSON-serialisable: {}",
                super::errors::thrown_message(&error)
            ),
        )
    })?;
    text.as_string()
        .ok_or_else(|| InputError::invalid(path, "is not JSON-serialisable"))
}

/// Reads a JS value as `T`; the error path is prefixed with `path`.
pub fn from_js<T: DeserializeOwned>(path: &str, value: &JsValue) -> Result<T, InputError> {
    let text = to_json_text(path, value)?;
    parse_json_str(&text).map_err(|error| error.within(path))
}

/// Reads a JS value as `T` and validates it; every error path is prefixed with `path`.
pub fn from_js_valid<T: DeserializeOwned + Validate>(
    path: &str,
    value: &JsValue,
) -> Result<T, InputError> {
    let parsed: T = from_js(path, value)?;
    parsed.validate().map_err(|error| error.within(path))?;
    Ok(parsed)
}

/// Reads the data part of a setup object that also carries host ports (functions, stores): the `ports`
/// keys are left out, the rest is parsed as `T` and validated, errors under `options`.
pub fn options_from_setup<T: DeserializeOwned + Validate>(
    setup: &JsValue,
    ports: &[&str],
) -> Result<T, InputError> {
    let text = to_json_text("options", setup)?;
    let mut value: serde_json::Value =
        parse_json_str(&text).map_err(|error| error.within("options"))?;
    if let Some(object) = value.as_object_mut() {
        for port in ports {
            object.remove(*port);
        }
    }
    let options: T =
        crate::input::parse_json_value(value).map_err(|error| error.within("options"))?;
    options
        .validate()
        .map_err(|error| error.within("options"))?;
    Ok(options)
}

/// Converts a Rust value to a plain JS object (maps as objects, `None` as `null`).
pub fn to_js<T: Serialize>(value: &T) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&serializer)
        .unwrap_or_else(|error| super::errors::coded_error("internal", "", &error.to_string()))
}

/// A model-text parse as data: `{ ok: true, [key]: value }` or `{ ok: false, error }`.
pub fn parse_outcome<T: Serialize>(
    parsed: Result<T, crate::llm::StructuredError>,
    key: &str,
) -> Result<JsValue, JsValue> {
    let answer = js_sys::Object::new();
    let (ok, name, value) = match parsed {
        Ok(value) => (true, key, to_js(&value)),
        Err(error) => (false, "error", to_js(&error)),
    };
    js_sys::Reflect::set(&answer, &"ok".into(), &JsValue::from(ok))?;
    js_sys::Reflect::set(&answer, &name.into(), &value)?;
    Ok(answer.into())
}
