//! Crossing the boundary: JS values in as typed Rust values (through JSON text, so errors carry the path
//! of the bad field), typed Rust values out as plain JS objects.

use crate::input::{InputError, Validate};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};

/// `JSON.stringify(value)`, or a typed error for values JSON cannot hold (cycles, BigInt, undefined).
pub fn to_json_text(path: &str, value: &JsValue) -> Result<String, InputError> {
    to_json_text_within(path, value, crate::input::MAX_INPUT_BYTES)
}

/// [`to_json_text`] with another size limit.
pub fn to_json_text_within(
    path: &str,
    value: &JsValue,
    limit: usize,
) -> Result<String, InputError> {
    if value.is_undefined() {
        return Err(InputError::invalid(path, "is required"));
    }
    if value.is_bigint() || value.is_symbol() || value.is_function() {
        return Err(InputError::invalid(
            path,
            format!("is not JSON data, got {}", super::args::kind_of(value)),
        ));
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
    // JSON.stringify gives undefined for a function or a symbol.
    let Some(text) = text.dyn_ref::<js_sys::JsString>() else {
        return Err(InputError::invalid(
            path,
            format!("is not JSON data, got {}", super::args::kind_of(value)),
        ));
    };
    // Checked before the text is copied into wasm memory.
    let units = text.length() as usize;
    if units > limit {
        return Err(InputError::invalid(
            path,
            format!("is at least {units} bytes as JSON; the limit is {limit}"),
        ));
    }
    Ok(String::from(text))
}

/// Reads a JS object as `T`; the error path is prefixed with `path`. An array is refused (serde would
/// otherwise read `["n-1", ...]` into a struct field by field), and so is an instance of a class (a
/// `Date`, a `Map`, a wasm object: its JSON is not the data the caller meant).
pub fn from_js<T: DeserializeOwned>(path: &str, value: &JsValue) -> Result<T, InputError> {
    let text = object_text(path, value)?;
    crate::input::parse_json_str(&text).map_err(|error| error.within(path))
}

/// The JSON text of a JS object for [`from_js`] (not generic: compiled once, not per type).
#[inline(never)]
fn object_text(path: &str, value: &JsValue) -> Result<String, InputError> {
    if js_sys::Array::is_array(value) {
        return Err(InputError::invalid(path, "must be an object, got an array"));
    }
    if value.is_object() && !super::args::is_plain_object(value) {
        return Err(InputError::invalid(
            path,
            "must be a plain object (an object literal or JSON data), not an instance of a class",
        ));
    }
    any_text(path, value)
}

/// The JSON text of any JSON value for [`from_js_any`] (not generic).
#[inline(never)]
fn any_text(path: &str, value: &JsValue) -> Result<String, InputError> {
    if value.is_undefined() {
        return Err(InputError::invalid(path, "is required"));
    }
    super::exact_json::check_json_data(path, value)?;
    to_json_text(path, value)
}

/// [`from_js`] with another size limit (see [`crate::input::parse_json_str_within`]).
pub fn from_js_within<T: DeserializeOwned>(
    path: &str,
    value: &JsValue,
    limit: usize,
) -> Result<T, InputError> {
    if js_sys::Array::is_array(value) || (value.is_object() && !super::args::is_plain_object(value))
    {
        return from_js(path, value);
    }
    let text = to_json_text_within(path, value, limit)?;
    crate::input::parse_json_str_within(&text, limit).map_err(|error| error.within(path))
}

/// Reads a JS array as `Vec<T>`; the error path names the bad item (`requests[2].node_id`).
pub fn from_js_list<T: DeserializeOwned>(
    path: &str,
    value: &JsValue,
) -> Result<Vec<T>, InputError> {
    if !js_sys::Array::is_array(value) {
        return Err(InputError::invalid(
            path,
            format!("must be an array, got {}", super::args::kind_of(value)),
        ));
    }
    from_js_any(path, value)
}

/// Reads any JSON value as `T` (for free-form data such as a structured output). Only JSON data crosses:
/// what `JSON.stringify` would change (`NaN`, `Infinity`, a `Date`, a `Map`, a hole, a getter, a cycle) is
/// refused with its path instead of being read as something else; a member set to `undefined` is absent.
pub fn from_js_any<T: DeserializeOwned>(path: &str, value: &JsValue) -> Result<T, InputError> {
    let text = any_text(path, value)?;
    crate::input::parse_json_str(&text).map_err(|error| error.within(path))
}

/// Reads and validates a JS object as `T`; every error path is prefixed with `path`.
pub fn from_js_valid<T: DeserializeOwned + Validate>(
    path: &str,
    value: &JsValue,
) -> Result<T, InputError> {
    let parsed: T = from_js(path, value)?;
    parsed.validate().map_err(|error| error.within(path))?;
    Ok(parsed)
}

/// Reads the data part of a setup object that also carries host ports (functions, stores): the `ports`
/// keys are left out, the rest is parsed as `T` and validated, errors under `options`. A key that is
/// neither a port nor a field of `T` is refused as not an option of `owner`, with the closest name.
pub fn options_from_setup<T: DeserializeOwned + Validate>(
    owner: &str,
    setup: &JsValue,
    ports: &[&str],
) -> Result<T, InputError> {
    if !super::args::is_plain_object(setup) {
        return Err(InputError::invalid(
            "options",
            format!(
                "must be a plain object, got {}",
                super::args::kind_of(setup)
            ),
        ));
    }
    // Every key is a field of `T` or a port (the fields as serde names them, from its answer to a key no
    // shape has): a misspelt option is named before its value is read.
    let fields = crate::input::parse_json_str::<T>(r#"{"\u0000":0}"#)
        .err()
        .map(|error| error.known_fields)
        .unwrap_or_default();
    if !fields.is_empty() {
        let known: Vec<&str> = fields
            .iter()
            .map(String::as_str)
            .chain(ports.iter().copied())
            .collect();
        super::args::only_known_keys(owner, "options", setup, &known)?;
    }
    // The ports are the host's objects and functions: the rest must be JSON data, exactly.
    let data = js_sys::Object::new();
    for key in js_sys::Reflect::own_keys(setup)
        .map_err(|thrown| InputError::invalid("options", super::errors::thrown_message(&thrown)))?
        .iter()
    {
        if key
            .as_string()
            .is_some_and(|name| ports.contains(&name.as_str()))
        {
            continue;
        }
        let member = js_sys::Reflect::get(setup, &key).map_err(|thrown| {
            InputError::invalid("options", super::errors::thrown_message(&thrown))
        })?;
        let _ = js_sys::Reflect::set(&data, &key, &member);
    }
    super::exact_json::check_json_data("options", &data)?;
    let text = to_json_text("options", &data)?;
    let options: T =
        crate::input::parse_json_str(&text).map_err(|error| error.within("options"))?;
    options
        .validate()
        .map_err(|error| error.within("options"))?;
    Ok(options)
}

/// Converts a Rust value to a plain JS object (maps as objects, `None` as `null`).
///
/// Written as JSON text by serde_json and read by `JSON.parse`: one crossing of the boundary instead of one
/// per field, and every type serialises through the one serializer the module needs anyway (storage and
/// signatures are JSON), so no second set of serialisation code is compiled in.
pub fn to_js<T: Serialize>(value: &T) -> JsValue {
    let parsed = serde_json::to_string(value)
        .map_err(|error| error.to_string())
        .and_then(|text| {
            js_sys::JSON::parse(&text).map_err(|thrown| super::errors::thrown_message(&thrown))
        });
    parsed.unwrap_or_else(|message| super::errors::coded_error("internal", "", &message))
}
