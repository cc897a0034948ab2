//! JS errors for contract violations: an `Error` with `code` (stable) and `path` (the bad field).

use crate::input::InputError;
use js_sys::{Error, Reflect};
use wasm_bindgen::JsValue;

/// Builds `Error(message)` with `code` and `path` properties.
pub fn coded_error(code: &str, path: &str, message: &str) -> JsValue {
    let error = Error::new(message);
    error.set_name("AgentGovernorError");
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&error, &"code".into(), &code.into());
    let _ = Reflect::set(&error, &"path".into(), &path.into());
    error.into()
}

pub fn input_error(error: &InputError) -> JsValue {
    coded_error(error.code.as_str(), &error.path, &error.to_string())
}

/// `input_error` for use in `map_err`.
pub fn invalid(error: InputError) -> JsValue {
    input_error(&error)
}

/// The text of a thrown JS value: an Error's message, a string as is, anything else described.
pub fn thrown_message(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<Error>() {
        return String::from(error.message());
    }
    if let Some(text) = value.as_string() {
        return text;
    }
    format!("{value:?}")
}

use wasm_bindgen::JsCast;
