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
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

/// The largest string argument accepted, in bytes of UTF-8 (model answers, prompt files, ids).
pub const MAX_TEXT_BYTES: usize = MAX_INPUT_BYTES;

/// The largest whole log accepted by `retainLog` and `logTail`: 64 MiB, six times the seed's 10 MB default
/// retention, so a log that grew well past its limit between two trims is still read. Both refuse a log
/// whose `length` (UTF-16 code units) is larger before anything is copied; `retainLog`, which copies the
/// whole log into wasm memory, also refuses one whose UTF-8 encoding is larger. `logTail` copies only the
/// lines it returns, so the UTF-8 size of the rest is never measured.
pub const MAX_LOG_TEXT_BYTES: usize = 64 * 1024 * 1024;

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
    let copied = String::from(checked_string(path, value, MAX_TEXT_BYTES)?);
    if copied.len() > MAX_TEXT_BYTES {
        return Err(too_large(path, copied.len(), MAX_TEXT_BYTES));
    }
    Ok(copied)
}

/// A required string as at most `limit` bytes of UTF-8, for the few arguments that are many megabytes by
/// nature (a whole execution log). Checked as [`text`] checks (the UTF-16 length before anything is
/// copied, well-formedness, then the UTF-8 length), and copied by the host's `TextEncoder.encodeInto`
/// straight into wasm memory: wasm-bindgen's own copy walks an ASCII prefix one code unit at a time in JS
/// (about 15 ms for 11 MB of ASCII in Node) and reserves three bytes per code unit for the rest. The bytes
/// are the host's encoding of well-formed text, so they are UTF-8; they stay bytes (no second pass to
/// check that), cut only after a `\n` and handed back with [`utf8_to_js`].
pub fn large_utf8(path: &str, value: &JsValue, limit: usize) -> Result<Vec<u8>, InputError> {
    let string = checked_string(path, value, limit)?;
    let copied = utf8_copy(string)
        .ok_or_else(|| InputError::invalid(path, "could not be encoded as UTF-8"))?;
    if copied.len() > limit {
        return Err(too_large(path, copied.len(), limit));
    }
    Ok(copied)
}

/// UTF-8 bytes in wasm memory as a JS string, decoded by the host's `TextDecoder` from a view of the bytes
/// (nothing is copied first); a malformed sequence would read as U+FFFD.
pub fn utf8_to_js(bytes: &[u8]) -> JsString {
    thread_local! {
        static DECODER: Utf8Decoder = Utf8Decoder::new();
    }
    DECODER.with(|decoder| decoder.decode(bytes))
}

#[wasm_bindgen]
extern "C" {
    /// The host's `TextEncoder` (every host wasm-bindgen's glue runs in has one).
    #[wasm_bindgen(js_name = TextEncoder)]
    type Utf8Encoder;
    #[wasm_bindgen(constructor, js_class = "TextEncoder")]
    fn new() -> Utf8Encoder;
    /// Writes as much of `source` as fits into `destination` (a view of wasm memory), whole characters only.
    #[wasm_bindgen(method, js_class = "TextEncoder", js_name = encodeInto)]
    fn encode_into(this: &Utf8Encoder, source: &JsString, destination: &mut [u8])
    -> EncodeProgress;
    /// `{ read, written }`: UTF-16 code units read, bytes written.
    type EncodeProgress;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeProgress) -> f64;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeProgress) -> f64;
    /// The host's `TextDecoder` for UTF-8 (the same one wasm-bindgen's glue uses for strings).
    #[wasm_bindgen(js_name = TextDecoder)]
    type Utf8Decoder;
    #[wasm_bindgen(constructor, js_class = "TextDecoder")]
    fn new() -> Utf8Decoder;
    /// Decodes `bytes` (a view of wasm memory).
    #[wasm_bindgen(method, js_class = "TextDecoder")]
    fn decode(this: &Utf8Decoder, bytes: &[u8]) -> JsString;
}

/// `string` (well-formed) as UTF-8 in wasm memory: first into one byte per code unit (all of it when the
/// text is ASCII), then the rest into three bytes per remaining code unit, the most UTF-8 takes for one.
fn utf8_copy(string: &JsString) -> Option<Vec<u8>> {
    thread_local! {
        static ENCODER: Utf8Encoder = Utf8Encoder::new();
    }
    let units = string.length();
    let mut buffer = vec![0u8; units as usize];
    let first = ENCODER.with(|encoder| encoder.encode_into(string, &mut buffer));
    let (read, mut written) = (first.read() as u32, first.written() as usize);
    if read < units {
        let remaining = units - read;
        buffer.resize(
            written.saturating_add((remaining as usize).saturating_mul(3)),
            0,
        );
        let rest = string.slice(read, units);
        let destination = buffer.get_mut(written..)?;
        let second = ENCODER.with(|encoder| encoder.encode_into(&rest, destination));
        if second.read() as u32 != remaining {
            return None;
        }
        written = written.saturating_add(second.written() as usize);
    }
    buffer.truncate(written);
    Some(buffer)
}

/// A required string left in JS, for an export that copies only part of it into wasm memory: a string,
/// at most `limit` UTF-16 code units long (its `length`), with no lone surrogate. Nothing is copied.
pub fn checked_string<'a>(
    path: &str,
    value: &'a JsValue,
    limit: usize,
) -> Result<&'a JsString, InputError> {
    let Some(string) = value.dyn_ref::<JsString>() else {
        return Err(InputError::invalid(
            path,
            format!("must be a string, got {}", kind_of(value)),
        ));
    };
    // A UTF-8 encoding is never shorter than the UTF-16 one, so this rejects before copying anything.
    let units = string.length() as usize;
    if units > limit {
        return Err(too_large(path, units, limit));
    }
    if !is_well_formed(string) {
        return Err(InputError::invalid(
            path,
            "must be well-formed text (it holds a lone surrogate)",
        ));
    }
    Ok(string)
}

/// Whether `string` holds no lone surrogate: the host's `String.prototype.isWellFormed` (one call, native
/// speed) where it exists, else a walk over the code units (one call into JS per unit).
fn is_well_formed(string: &JsString) -> bool {
    thread_local! {
        static NATIVE: bool = js_sys::Reflect::get(
            &js_sys::Object::get_prototype_of(&JsValue::from_str("")),
            &JsValue::from_str("isWellFormed"),
        )
        .is_ok_and(|method| method.is_function());
    }
    if NATIVE.with(|native| *native) {
        string.is_well_formed()
    } else {
        string.is_valid_utf16()
    }
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
        Some(number) => Err(InputError::invalid(
            path,
            format!("must be a finite number, got {number}"),
        )),
        None => Err(InputError::invalid(
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

fn too_large(path: &str, size: usize, limit: usize) -> InputError {
    InputError::invalid(
        path,
        format!("is at least {size} bytes; the limit is {limit}"),
    )
}

/// Refuses a key of `value` that `allowed` does not list: `invalid_input` at `path.key`, naming `owner` (the
/// API the options are for) and the known name closest to it ("`sealkey` is not an option of Executor;
/// did you mean `sealKey`?"). Symbol keys are not data and are not read.
pub fn only_known_keys(
    owner: &str,
    path: &str,
    value: &JsValue,
    allowed: &[&str],
) -> Result<(), InputError> {
    // Not an options object (an array, an instance of a class): the caller's own check names what was
    // expected.
    if !is_plain_object(value) {
        return Ok(());
    }
    // Reflect.ownKeys reports a throwing proxy trap as an error instead of unwinding through wasm.
    let keys = js_sys::Reflect::own_keys(value).map_err(|thrown| {
        InputError::invalid(
            path,
            format!("cannot be read: {}", super::errors::thrown_message(&thrown)),
        )
    })?;
    for key in keys.iter().filter_map(|key| key.as_string()) {
        if !allowed.contains(&key.as_str()) {
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            return Err(InputError::invalid(
                at,
                crate::closest_name::not_known(&key, &format!("an option of {owner}"), allowed),
            ));
        }
    }
    Ok(())
}
