//! `Guard`: the confirmation check for hosts that check many Applies with the same keys (an edge worker, a
//! proxy in front of a skill). The keys are read and their HMAC state computed once, at construction; each
//! `check` reads the confirmation and the request, runs the signature check and steps 1-6 of seed 003
//! section 5, and returns a small verdict object.

use super::args;
use super::convert::from_js_valid_fast as from_js_valid;
use super::errors::{input_error, invalid};
use super::executor_setup::{property, read_keys};
use crate::executor::check::{CheckPolicy, CheckVerdict, check_confirmation, clock_skew_from_host};
use crate::executor::{Confirmation, ExecutorRequest, KeyRing};
use crate::input::InputError;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const GUARD_TYPES: &'static str = r#"
export type GuardSetup = {
  /** Trusted verification keys: key id -> secret (at least 32 bytes). */
  keys: VerificationKeys;
  /** How far `confirmed_at` may lie ahead of `now`, in ms (default 300000: 5 minutes). */
  clockSkewMs?: number;
  /** Language of the reasons: "en" (default) or "ja" (the seed's wording). */
  language?: Language;
};

export type GuardCheckOptions = {
  /** Host clock in epoch milliseconds; `Date.now()` when omitted. */
  now?: number;
  /** The node's current status from Preview; without it step 6 is left pending. */
  currentStatus?: string;
};
"#;

/// Checks confirmations against a fixed set of trusted keys.
#[wasm_bindgen]
pub struct Guard {
    keys: KeyRing,
    policy: CheckPolicy,
}

#[wasm_bindgen]
impl Guard {
    /// `new Guard({ keys, clockSkewMs?, language? })`: `keys` maps key ids to secrets (at least 32 bytes).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "GuardSetup")] setup: JsValue,
    ) -> Result<Guard, JsValue> {
        if !args::is_plain_object(&setup) {
            return Err(invalid(InputError::invalid(
                "",
                format!(
                    "setup must be an object {{ keys, clockSkewMs?, language? }}, got {}",
                    args::kind_of(&setup)
                ),
            )));
        }
        args::only_known_keys("setup", &setup, &["keys", "clockSkewMs", "language"])
            .map_err(invalid)?;
        let keys = read_keys(&property(&setup, "keys"))?;
        let clock_skew_ms = args::optional_number("clockSkewMs", &property(&setup, "clockSkewMs"))
            .and_then(|skew| clock_skew_from_host("clockSkewMs", skew))
            .map_err(invalid)?;
        let language =
            args::language("language", &property(&setup, "language")).map_err(invalid)?;
        Ok(Self {
            keys,
            policy: CheckPolicy {
                clock_skew_ms,
                language,
            },
        })
    }

    /// The signature, then steps 1-6: `confirmation` as stored (`null` when the store has none), the
    /// agent's `request`, and `{ now?, currentStatus? }` (`now` defaults to `Date.now()`; without
    /// `currentStatus` step 6 is left pending). Throws only for malformed input.
    #[wasm_bindgen(unchecked_return_type = "CheckVerdict")]
    pub fn check(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Confirmation | null")] confirmation: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ExecutorRequest")] request: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "GuardCheckOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let confirmation = if confirmation.is_null() {
            None
        } else {
            Some(
                from_js_valid::<Confirmation>("confirmation", &confirmation)
                    .map_err(|error| input_error(&error))?,
            )
        };
        let request = from_js_valid::<ExecutorRequest>("request", &request)
            .map_err(|error| input_error(&error))?;
        let (now, current_status) = read_options(&options).map_err(invalid)?;
        let verdict = check_confirmation(
            confirmation.as_ref(),
            &request,
            now,
            &self.policy,
            &self.keys,
            current_status.as_deref(),
        );
        verdict_object(&verdict)
    }
}

/// `{ now?, currentStatus? }`, absent meaning both defaults.
fn read_options(options: &JsValue) -> Result<(i64, Option<String>), InputError> {
    if args::is_absent(options) {
        return Ok((
            args::optional_now("options.now", &JsValue::UNDEFINED)?,
            None,
        ));
    }
    if !args::is_plain_object(options) {
        return Err(InputError::invalid(
            "options",
            format!(
                "must be an object {{ now?, currentStatus? }}, got {}",
                args::kind_of(options)
            ),
        ));
    }
    args::only_known_keys("options", options, &["now", "currentStatus"])?;
    let now = args::optional_now("options.now", &property(options, "now"))?;
    let current_status =
        args::optional_text("options.currentStatus", &property(options, "currentStatus"))?;
    Ok((now, current_status))
}

/// The verdict as a small plain object, built field by field.
fn verdict_object(verdict: &CheckVerdict) -> Result<JsValue, JsValue> {
    let object = Object::new();
    let set = |key: &str, value: &str| Reflect::set(&object, &key.into(), &value.into());
    match verdict {
        CheckVerdict::Pass => set("verdict", "pass")?,
        CheckVerdict::Rejected { phase, reason } => {
            set("verdict", "rejected")?;
            set("phase", phase.as_str())?;
            set("reason", reason)?
        }
        CheckVerdict::ReconfirmRequired {
            reason,
            current_status,
        } => {
            set("verdict", "reconfirm_required")?;
            set("reason", reason)?;
            set("current_status", current_status)?
        }
        CheckVerdict::PendingPrecondition => set("verdict", "pending_precondition")?,
    };
    Ok(object.into())
}
