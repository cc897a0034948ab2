//! What an approver's host needs to sign, and a guard needs to check, with keys only the approver holds:
//! the canonical bytes and passkey challenges of a confirmation and of a human action, a passkey's signature
//! counter, and `Guard.checkAction`. Signing itself happens in the host (WebCrypto or the authenticator), so
//! a private key never enters this module.

use super::args;
use super::convert::{from_js, from_js_valid, to_js};
use super::errors::invalid;
use super::executor_setup::property;
use super::guard_api::Guard;
use crate::executor::human_action::{
    ActionVerdict, HumanAction, action_challenge, canonical_action_bytes, check_human_action,
};
use crate::executor::passkey::{PasskeyAssertion, assertion_sign_count};
use crate::executor::signature::canonical_bytes;
use crate::executor::{Confirmation, confirmation_challenge};
use crate::input::InputError;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const APPROVER_TYPES: &'static str = r#"
export type GuardActionOptions = {
  /** The current version of what the action acts on (an approval's `version`): an action made for
   * another version is rejected as `stale_action`. */
  version: string;
  /** Host clock in epoch milliseconds; `Date.now()` when omitted. */
  now?: number;
};
"#;

fn key_id(value: &JsValue) -> Result<String, JsValue> {
    args::identifier("keyId", value).map_err(invalid)
}

fn confirmation(value: &JsValue) -> Result<Confirmation, JsValue> {
    from_js_valid("confirmation", value).map_err(invalid)
}

fn action(value: &JsValue) -> Result<HumanAction, JsValue> {
    from_js_valid("action", value).map_err(invalid)
}

/// The exact bytes an approver signs (Ed25519) to approve `confirmation` with key `keyId`: its binding
/// fields, whatever its `key_id`, `signature` and lifecycle fields say.
#[wasm_bindgen(js_name = canonicalConfirmation)]
pub fn canonical_confirmation(
    #[wasm_bindgen(unchecked_param_type = "Confirmation")] confirmation_value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] key_id_value: JsValue,
) -> Result<js_sys::Uint8Array, JsValue> {
    let confirmation = confirmation(&confirmation_value)?;
    let key_id = key_id(&key_id_value)?;
    Ok(js_sys::Uint8Array::from(
        canonical_bytes(&confirmation, &key_id).as_slice(),
    ))
}

/// The 32-byte challenge a passkey signs to approve `confirmation` with key `keyId`: SHA-256 of the
/// canonical bytes, so the assertion binds the exact change.
#[wasm_bindgen(js_name = confirmationChallenge)]
pub fn confirmation_challenge_js(
    #[wasm_bindgen(unchecked_param_type = "Confirmation")] confirmation_value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] key_id_value: JsValue,
) -> Result<js_sys::Uint8Array, JsValue> {
    let confirmation = confirmation(&confirmation_value)?;
    let key_id = key_id(&key_id_value)?;
    Ok(js_sys::Uint8Array::from(
        &confirmation_challenge(&confirmation, &key_id)[..],
    ))
}

/// The exact bytes an approver signs (Ed25519) for a human action with key `keyId`.
#[wasm_bindgen(js_name = canonicalAction)]
pub fn canonical_action(
    #[wasm_bindgen(unchecked_param_type = "HumanAction")] action_value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] key_id_value: JsValue,
) -> Result<js_sys::Uint8Array, JsValue> {
    let action = action(&action_value)?;
    let key_id = key_id(&key_id_value)?;
    Ok(js_sys::Uint8Array::from(
        canonical_action_bytes(&action, &key_id).as_slice(),
    ))
}

/// The 32-byte challenge a passkey signs for a human action with key `keyId`.
#[wasm_bindgen(js_name = actionChallenge)]
pub fn action_challenge_js(
    #[wasm_bindgen(unchecked_param_type = "HumanAction")] action_value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] key_id_value: JsValue,
) -> Result<js_sys::Uint8Array, JsValue> {
    let action = action(&action_value)?;
    let key_id = key_id(&key_id_value)?;
    Ok(js_sys::Uint8Array::from(
        &action_challenge(&action, &key_id)[..],
    ))
}

/// The signature counter in a passkey assertion's authenticator data (0 when the authenticator keeps none).
#[wasm_bindgen(js_name = passkeySignCount)]
pub fn passkey_sign_count(
    #[wasm_bindgen(unchecked_param_type = "PasskeyAssertion")] assertion: JsValue,
) -> Result<f64, JsValue> {
    let assertion: PasskeyAssertion = from_js("assertion", &assertion).map_err(invalid)?;
    assertion_sign_count(&assertion)
        .map(f64::from)
        .map_err(|why| invalid(InputError::invalid("assertion.authenticator_data", why)))
}

#[wasm_bindgen]
impl Guard {
    /// Checks a signed human action: the signature with this guard's keys, that it was made within the
    /// last 10 minutes (and not ahead of `now` by more than the clock skew), and that it names
    /// `options.version`, the current version of what it acts on. Pure: whether its nonce was already used
    /// is for the holder of the used-nonce ledger to say (`Executor.takeAction` records it). Throws only for
    /// malformed input.
    #[wasm_bindgen(js_name = checkAction, unchecked_return_type = "ActionVerdict")]
    pub fn check_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "HumanAction")] action_value: JsValue,
        #[wasm_bindgen(unchecked_param_type = "GuardActionOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let action = action(&action_value)?;
        if !args::is_plain_object(&options) {
            return Err(invalid(InputError::invalid(
                "options",
                format!(
                    "must be {{ version, now? }} (a plain object), got {}",
                    args::kind_of(&options)
                ),
            )));
        }
        args::only_known_keys(
            "Guard.checkAction",
            "options",
            &options,
            &["version", "now"],
        )
        .map_err(invalid)?;
        let now = args::optional_now("options.now", &property(&options, "now")).map_err(invalid)?;
        let version =
            args::identifier("options.version", &property(&options, "version")).map_err(invalid)?;
        let verdict: ActionVerdict = check_human_action(
            &action,
            &self.keys,
            now,
            self.policy.clock_skew_ms,
            &version,
        )
        .into();
        Ok(to_js(&verdict))
    }
}
