//! Reading the arguments of exported functions, methods and constructors.
//!
//! The rule every export follows: **no export takes a `String`, `&str`, `bool`, number or `Option` of them
//! directly.** wasm-bindgen does not check those at run time: a number passed where a string is expected
//! can trap with "memory access out of bounds", and a string passed where a bool is expected is coerced
//! (`"true"` becomes `false`). Each export takes `JsValue` (typed for TypeScript with
//! `unchecked_param_type`) and reads it through one of the helpers below, so any JS value (undefined, null,
//! a number, NaN, a bigint, a symbol, a function, an array, a class instance, a proxy, a string with lone
//! surrogates, a 100 MB string) gives an `AgentGovernorError` with `code: "invalid_input"` and the
//! parameter's `path`. Sizes are checked before a string is copied into wasm memory. Structured values go
//! through [`super::convert::from_js`], which applies the same size limit to their JSON text.

use crate::input::{InputError, MAX_INPUT_BYTES};
use crate::timestamp::{EpochMillis, millis_from_host};
use js_sys::JsString;
use wasm_bindgen::{JsCast, JsValue};

/// The largest string argument accepted, in bytes of UTF-8 (model answers, prompt files, ids).
pub const MAX_TEXT_BYTES: usize = MAX_INPUT_BYTES;

/// Describes a JS value's kind for error messages, without reading its contents.
pub fn kind_of(value: &JsValue) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if value.as_f64().is_some() {
        "a number"
    } else if value.is_bigint() {
        "a bigint"
    } else if value.is_symbol() {
        "a symbol"
    } else if value.is_string() {
        "a string"
    } else if value.is_function() {
        "a function"
    } else if js_sys::Array::is_array(value) {
        "an array"
    } else {
        "an object"
    }
}

/// A required string: well-formed UTF-16 (no lone surrogates) and at most [`MAX_TEXT_BYTES`] bytes.
pub fn text(path: &str, value: &JsValue) -> Result<String, InputError> {
    let Some(string) = value.dyn_ref::<JsString>() else {
        return Err(InputError::invalid(
            path,
            format!("must be a string, got {}", kind_of(value)),
        ));
    };
    // A UTF-8 encoding is never shorter than the UTF-16 one, so this rejects before copying anything.
    let units = string.length() as usize;
    if units > MAX_TEXT_BYTES {
        return Err(too_large(path, units));
    }
    if !string.is_valid_utf16() {
        return Err(InputError::invalid(
            path,
            "must be well-formed text (it holds a lone surrogate)",
        ));
    }
    let copied = String::from(string);
    if copied.len() > MAX_TEXT_BYTES {
        return Err(too_large(path, copied.len()));
    }
    Ok(copied)
}

/// A required string that is not empty after trimming (ids, names).
pub fn identifier(path: &str, value: &JsValue) -> Result<String, InputError> {
    let read = text(path, value)?;
    crate::input::require_non_empty(path, &read)?;
    Ok(read)
}

/// An optional string: `undefined` and `null` are absent; anything else must be a string.
pub fn optional_text(path: &str, value: &JsValue) -> Result<Option<String>, InputError> {
    if is_absent(value) {
        Ok(None)
    } else {
        text(path, value).map(Some)
    }
}

/// A real boolean; `"true"`, `1` and every other value are errors, never coerced.
pub fn boolean(path: &str, value: &JsValue) -> Result<bool, InputError> {
    value.as_bool().ok_or_else(|| {
        InputError::invalid(path, format!("must be a boolean, got {}", kind_of(value)))
    })
}

/// An optional host clock reading (epoch milliseconds); absent means the host's `Date.now()`.
pub fn optional_now(path: &str, value: &JsValue) -> Result<EpochMillis, InputError> {
    if is_absent(value) {
        return millis_from_host(path, js_sys::Date::now());
    }
    let millis = value.as_f64().ok_or_else(|| {
        InputError::invalid(
            path,
            format!(
                "must be a number of epoch milliseconds, got {}",
                kind_of(value)
            ),
        )
    })?;
    millis_from_host(path, millis)
}

/// An optional number (absent: `None`); NaN and the infinities are refused.
pub fn optional_number(path: &str, value: &JsValue) -> Result<Option<f64>, InputError> {
    if is_absent(value) {
        return Ok(None);
    }
    match value.as_f64() {
        Some(number) if number.is_finite() => Ok(Some(number)),
        _ => Err(InputError::invalid(
            path,
            format!("must be a finite number, got {}", kind_of(value)),
        )),
    }
}

/// An object literal or JSON data: its prototype is `null` or some realm's `Object.prototype` (so objects
/// from another realm, and proxies of plain objects, count). Instances of classes do not.
pub fn is_plain_object(value: &JsValue) -> bool {
    if !value.is_object() {
        return false;
    }
    match js_sys::Reflect::get_prototype_of(value) {
        Ok(prototype) if prototype.is_null() => true,
        Ok(prototype) => {
            js_sys::Reflect::get_prototype_of(&prototype).is_ok_and(|above| above.is_null())
        }
        Err(_) => false,
    }
}

/// The optional `language` of texts for humans: `"en"` (the default) or `"ja"`.
pub fn language(path: &str, value: &JsValue) -> Result<crate::language::Language, InputError> {
    use crate::language::Language;
    match optional_text(path, value)?.as_deref() {
        None | Some("en") => Ok(Language::En),
        Some("ja") => Ok(Language::Ja),
        Some(other) => Err(InputError::invalid(
            path,
            format!("must be \"en\" or \"ja\", got \"{other}\""),
        )),
    }
}

/// `undefined` or `null`.
pub fn is_absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

fn too_large(path: &str, size: usize) -> InputError {
    InputError::invalid(
        path,
        format!("is at least {size} bytes; the limit is {MAX_TEXT_BYTES}"),
    )
}

/// Refuses an object with a key outside `allowed` (a misspelt option must not silently fall back to its
/// default). The error's path names the key.
pub fn only_known_keys(path: &str, value: &JsValue, allowed: &[&str]) -> Result<(), InputError> {
    if !value.is_object() {
        return Ok(());
    }
    // Reflect.ownKeys reports a throwing proxy trap as an error instead of unwinding through wasm.
    let keys = js_sys::Reflect::own_keys(value).map_err(|thrown| {
        InputError::invalid(
            path,
            format!("cannot be read: {}", super::errors::thrown_message(&thrown)),
        )
    })?;
    // Symbol keys are not data; every string key must be a known field.
    for key in keys.iter().filter_map(|key| key.as_string()) {
        if !allowed.contains(&key.as_str()) {
            let expected = allowed.join(", ");
            return Err(InputError::invalid(
                format!("{path}.{key}"),
                format!("is not a known field (expected one of: {expected})"),
            ));
        }
    }
    Ok(())
}
