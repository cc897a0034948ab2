//! Standing approvals for hosts: a mandate in words (what a person reads before signing it) and the exact
//! bytes a passkey signs for it. The Executor's part (register, confirm a covered change, read the record)
//! is on `Executor`.

use super::args;
use super::convert::{from_js_valid, to_js};
use super::errors::{input_error, invalid};
use crate::executor::mandate::Mandate;
use crate::executor::mandate::signing::{canonical_mandate_bytes, mandate_challenge};
use crate::executor::mandate::words::mandate_lines;
use wasm_bindgen::prelude::*;

/// The mandate in lines, rendered by the core from its terms (who, what, each condition, what else is
/// allowed, how often until when), in `language` (`en` by default, or `ja`). Throws `invalid_input` with
/// the path of the first bad field.
#[wasm_bindgen(js_name = mandateLines, unchecked_return_type = "string[]")]
pub fn mandate_lines_js(
    #[wasm_bindgen(unchecked_param_type = "Mandate")] mandate: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Language")] language: JsValue,
) -> Result<JsValue, JsValue> {
    let mandate: Mandate =
        from_js_valid("mandate", &mandate).map_err(|error| input_error(&error))?;
    let language = args::language("language", &language).map_err(invalid)?;
    Ok(to_js(&mandate_lines(&mandate, language)))
}

/// The exact bytes key `keyId` signs for `mandate` (canonical JSON of the domain, the key id and the terms),
/// and the challenge a passkey signs (their SHA-256): `{ bytes, challenge }`.
#[wasm_bindgen(js_name = mandateSigningBytes, unchecked_return_type = "{ bytes: Uint8Array; challenge: Uint8Array }")]
pub fn mandate_signing_bytes(
    #[wasm_bindgen(unchecked_param_type = "Mandate")] mandate: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] key_id: JsValue,
) -> Result<JsValue, JsValue> {
    let mandate: Mandate =
        from_js_valid("mandate", &mandate).map_err(|error| input_error(&error))?;
    let key_id = args::identifier("keyId", &key_id).map_err(invalid)?;
    let result = js_sys::Object::new();
    let bytes = js_sys::Uint8Array::from(canonical_mandate_bytes(&mandate, &key_id).as_slice());
    let challenge = js_sys::Uint8Array::from(&mandate_challenge(&mandate, &key_id)[..]);
    js_sys::Reflect::set(&result, &"bytes".into(), &bytes)?;
    js_sys::Reflect::set(&result, &"challenge".into(), &challenge)?;
    Ok(result.into())
}
