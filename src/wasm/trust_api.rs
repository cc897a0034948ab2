//! What a guard's host asks the core instead of deciding itself: time read and written one way (strict RFC
//! 3339), request bodies read one way (strict JSON, bounded depth), the version of a piece of state, the two
//! lines a person reads for a proposed change, text made safe to show, and the receipts of Apply outcomes
//! (their canonical bytes, digests and offline verification).

use super::args;
use super::convert::{from_js, from_js_valid, to_js};
use super::errors::{coded_error, invalid};
use crate::body_json::{BodyError, check_body};
use crate::executor::ProposedChange;
use crate::executor::change_lines::change_lines_in;
use crate::executor::discord_request::{application_key, verify_discord_request};
use crate::executor::public_key::PublicKeySpec;
use crate::executor::receipt::{
    ChainVerdict, Receipt, canonical_receipt_bytes, change_digest, receipt_digest, receipt_key,
    verify_receipts_by,
};
use crate::executor::state_version::state_version;
use crate::executor::tool_call::tool_call_change;
use crate::input::InputError;
use crate::timestamp::{format_rfc3339, millis_from_host, parse_rfc3339};
use wasm_bindgen::prelude::*;

/// The deepest request body `readJson` accepts unless told otherwise.
const DEFAULT_MAX_BODY_DEPTH: usize = 32;
/// The deepest any caller may allow (the parser's own limit is 128).
const MAX_BODY_DEPTH: usize = 100;

/// Text made safe to show a person: control, bidi and zero-width characters are made visible as
/// `<U+XXXX>`; everything else is unchanged.
#[wasm_bindgen(js_name = displaySafe)]
pub fn display_safe_text(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<String, JsValue> {
    let text = args::text("text", &text).map_err(invalid)?;
    Ok(crate::display::display_safe(&text))
}

/// Epoch milliseconds of a strict RFC 3339 timestamp (`T` or a space between date and time, an explicit
/// offset, a valid date and time). Throws `invalid_time` for anything else.
#[wasm_bindgen(js_name = parseTime)]
pub fn parse_time(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<f64, JsValue> {
    let text = args::text("text", &text).map_err(invalid)?;
    parse_rfc3339(&text)
        .map(|millis| millis as f64)
        .map_err(|why| coded_error("invalid_time", "text", &why))
}

/// The one written form of an instant: RFC 3339 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`).
#[wasm_bindgen(js_name = formatTime)]
pub fn format_time(
    #[wasm_bindgen(unchecked_param_type = "number")] millis: JsValue,
) -> Result<String, JsValue> {
    let millis = args::optional_number("millis", &millis)
        .and_then(|value| value.ok_or_else(|| InputError::invalid("millis", "is required")))
        .and_then(|value| millis_from_host("millis", value))
        .map_err(invalid)?;
    Ok(format_rfc3339(millis))
}

/// The version of a piece of state from its exact stored text: 32 hex characters. A signed action names the
/// version it was made for.
#[wasm_bindgen(js_name = stateVersion)]
pub fn state_version_js(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<String, JsValue> {
    let text = args::text("text", &text).map_err(invalid)?;
    Ok(state_version(&text))
}

/// The two lines a person reads for `change` on `nodeId`, rendered from the change itself:
/// `["Execute: status_change on T-9: review -> done", "Impact: T-9"]`; with `language` `"ja"`, the seed's
/// `["実行: T-9 の status_change: review -> done", "影響範囲: T-9"]`.
#[wasm_bindgen(js_name = changeLines, unchecked_return_type = "[string, string]")]
pub fn change_lines_js(
    #[wasm_bindgen(unchecked_param_type = "string")] node_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ProposedChange")] change: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Language")] language: JsValue,
) -> Result<JsValue, JsValue> {
    let node_id = args::identifier("nodeId", &node_id).map_err(invalid)?;
    let change: ProposedChange = from_js("change", &change).map_err(invalid)?;
    let language = args::language("language", &language).map_err(invalid)?;
    Ok(to_js(&change_lines_in(&node_id, &change, language)))
}

/// Whether a Discord interaction request is Discord's, signed recently: `signature` and `timestamp` are the
/// `X-Signature-Ed25519` and `X-Signature-Timestamp` headers (`""` when absent), `body` the raw body text,
/// `publicKey` the application's key (hex). Refused: `{ verdict: "invalid", code: "malformed" |
/// "signature_invalid" | "stale", reason }`. A bad `publicKey` is an `invalid_key` error.
#[wasm_bindgen(js_name = verifyDiscordRequest, unchecked_return_type = "DiscordVerdict")]
pub fn verify_discord_request_js(
    #[wasm_bindgen(unchecked_param_type = "string")] public_key: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] signature: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] timestamp: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] body: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] now: JsValue,
) -> Result<JsValue, JsValue> {
    let public_key = args::text("publicKey", &public_key).map_err(invalid)?;
    let signature = args::text("signature", &signature).map_err(invalid)?;
    let timestamp = args::text("timestamp", &timestamp).map_err(invalid)?;
    let body = args::large_utf8("body", &body, crate::input::MAX_INPUT_BYTES).map_err(invalid)?;
    let now = args::optional_now("now", &now).map_err(invalid)?;
    let key = application_key(&public_key)
        .map_err(|why| coded_error("invalid_key", "publicKey", &why))?;
    Ok(to_js(&verify_discord_request(
        &key, &signature, &timestamp, &body, now,
    )))
}

/// The node and the change that approve calling `tool` with `arguments`: `{ node_id: tool, proposed_change:
/// { type: "tool_call", from: "", to: <the arguments as canonical JSON (RFC 8785)> } }`. A confirmation of it
/// binds the exact arguments, in any member order. Arguments JSON would change (`NaN`, `Infinity`,
/// `undefined` members, array holes, a `Date`, `Map` or class instance, getters, `toJSON`, symbol keys,
/// cycles) are refused with the path of the field.
#[wasm_bindgen(js_name = toolCallChange, unchecked_return_type = "{ node_id: string; proposed_change: ProposedChange }")]
pub fn tool_call_change_js(
    #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] arguments: JsValue,
) -> Result<JsValue, JsValue> {
    let tool = args::text("tool", &tool).map_err(invalid)?;
    // Only JSON crosses into an approval: what JSON would change (NaN, undefined, a Date...) is refused.
    let arguments = super::exact_json::exact_json("arguments", &arguments).map_err(invalid)?;
    let (node_id, proposed_change) = tool_call_change(&tool, &arguments).map_err(invalid)?;
    Ok(to_js(
        &serde_json::json!({ "node_id": node_id, "proposed_change": proposed_change }),
    ))
}

/// Reads a request body: strict JSON (a duplicate key is `duplicate_key`) nested at most `maxDepth` levels
/// (default 32; deeper is `too_deep`); anything else that is not JSON is `invalid_json`.
#[wasm_bindgen(js_name = readJson)]
pub fn read_json(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] max_depth: JsValue,
) -> Result<JsValue, JsValue> {
    let text = args::text("text", &text).map_err(invalid)?;
    let max_depth = match args::optional_number("maxDepth", &max_depth).map_err(invalid)? {
        None => DEFAULT_MAX_BODY_DEPTH,
        Some(depth) if depth.fract() == 0.0 && (1.0..=MAX_BODY_DEPTH as f64).contains(&depth) => {
            depth as usize
        }
        Some(depth) => {
            return Err(invalid(InputError::invalid(
                "maxDepth",
                format!("must be a whole number from 1 to {MAX_BODY_DEPTH}, got {depth}"),
            )));
        }
    };
    match check_body(&text, max_depth) {
        // The text is now known to be strict and shallow: the host's own parser reads it the same way.
        Ok(()) => js_sys::JSON::parse(&text),
        Err(BodyError::DuplicateKey { path }) => Err(coded_error(
            "duplicate_key",
            &path,
            &format!("the key `{path}` appears twice in one object"),
        )),
        Err(BodyError::TooDeep { max_depth }) => Err(coded_error(
            "too_deep",
            "",
            &format!("the JSON nests deeper than {max_depth} levels"),
        )),
        Err(BodyError::Syntax { message }) => Err(coded_error(
            "invalid_json",
            "",
            &format!("the text is not JSON: {message}"),
        )),
    }
}

/// SHA-256 (hex) of a proposed change on a node: what a receipt names.
#[wasm_bindgen(js_name = changeDigest)]
pub fn change_digest_js(
    #[wasm_bindgen(unchecked_param_type = "string")] node_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ProposedChange")] change: JsValue,
) -> Result<String, JsValue> {
    let node_id = args::identifier("nodeId", &node_id).map_err(invalid)?;
    let change: ProposedChange = from_js("change", &change).map_err(invalid)?;
    Ok(change_digest(&node_id, &change))
}

/// The exact bytes a guard signs for `receipt` (its `signature` is ignored).
#[wasm_bindgen(js_name = canonicalReceipt)]
pub fn canonical_receipt(
    #[wasm_bindgen(unchecked_param_type = "Receipt")] receipt: JsValue,
) -> Result<Vec<u8>, JsValue> {
    let receipt: Receipt = from_js_valid("receipt", &receipt).map_err(invalid)?;
    Ok(canonical_receipt_bytes(&receipt))
}

/// The digest of a signed receipt: what the next receipt's `prev` names.
#[wasm_bindgen(js_name = receiptDigest)]
pub fn receipt_digest_js(
    #[wasm_bindgen(unchecked_param_type = "Receipt")] receipt: JsValue,
) -> Result<String, JsValue> {
    let receipt: Receipt = from_js_valid("receipt", &receipt).map_err(invalid)?;
    Ok(receipt_digest(&receipt))
}

/// Verifies a chain of receipts offline with the guard's public key (`{ type: "ed25519", public_key, key_id? }`,
/// as `GET /v1/receipts/key` serves it; with `key_id`, every receipt must name it):
/// every signature, the sequence, and each link to the one before. Names the first broken link.
#[wasm_bindgen(js_name = verifyReceipts, unchecked_return_type = "ChainVerdict")]
pub fn verify_receipts_js(
    #[wasm_bindgen(unchecked_param_type = "Receipt[]")] chain: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PublicKeySpec")] public_key: JsValue,
) -> Result<JsValue, JsValue> {
    // The key as `GET /v1/receipts/key` serves it may carry its `key_id`: every receipt must then name it.
    let (public_key, key_id) = without_key_id(&public_key)?;
    let spec: PublicKeySpec = from_js("publicKey", &public_key).map_err(invalid)?;
    let key = receipt_key(&spec).map_err(invalid)?;
    if !js_sys::Array::is_array(&chain) {
        return Err(invalid(InputError::invalid(
            "chain",
            format!(
                "must be an array of receipts, got {}",
                args::kind_of(&chain)
            ),
        )));
    }
    // Each receipt is read on its own, so a malformed one is a broken link at its index, not a throw.
    let items = js_sys::Array::from(&chain);
    let mut receipts = Vec::with_capacity(items.length() as usize);
    for (index, item) in items.iter().enumerate() {
        match from_js::<Receipt>(&format!("chain[{index}]"), &item) {
            Ok(receipt) => receipts.push(receipt),
            Err(error) => {
                let verdict = match verify_receipts_by(&receipts, &key, key_id.as_deref()) {
                    ChainVerdict::Valid { .. } => ChainVerdict::Broken {
                        index,
                        seq: None,
                        reason: format!("receipt {index} is malformed: {error}"),
                    },
                    broken => broken,
                };
                return Ok(to_js(&verdict));
            }
        }
    }
    Ok(to_js(&verify_receipts_by(
        &receipts,
        &key,
        key_id.as_deref(),
    )))
}

/// The key object without its `key_id` (a copy of its own fields; the caller's object is untouched), and
/// that id. A getter that throws or a proxy is a typed error, like any other unreadable value.
fn without_key_id(value: &JsValue) -> Result<(JsValue, Option<String>), JsValue> {
    let unreadable = |_| {
        invalid(InputError::invalid(
            "publicKey",
            "must be a plain object `{ type, public_key, key_id? }` whose fields can be read",
        ))
    };
    if !value.is_object() {
        return Ok((value.clone(), None));
    }
    let id = js_sys::Reflect::get(value, &"key_id".into()).map_err(unreadable)?;
    if id.is_undefined() || id.is_null() {
        return Ok((value.clone(), None));
    }
    let Some(id) = id.as_string() else {
        return Err(invalid(InputError::invalid(
            "publicKey.key_id",
            "must be a string",
        )));
    };
    let copy = js_sys::Object::new();
    for key in js_sys::Reflect::own_keys(value).map_err(unreadable)?.iter() {
        if key.as_string().as_deref() == Some("key_id") {
            continue;
        }
        let field = js_sys::Reflect::get(value, &key).map_err(unreadable)?;
        js_sys::Reflect::set(&copy, &key, &field).map_err(unreadable)?;
    }
    Ok((copy.into(), Some(id)))
}
