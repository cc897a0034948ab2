//! `Guard`: the confirmation check for hosts that check many Applies with the same keys (an edge worker, a
//! proxy in front of a skill). The keys are read and their HMAC state computed once, at construction; each
//! `check` reads the confirmation and the request, runs the signature check and steps 1-6 of seed 003
//! section 5, and returns a small verdict object.

use super::args;
use super::convert::to_json_text;
use super::errors::invalid;
use super::executor_setup::{property, read_keys};
use super::host_crypto::start_host_verification;
use crate::executor::check::{CheckPolicy, check_confirmation, clock_skew_from_host};
use crate::executor::{Confirmation, ExecutorRequest, KeyRing};
use crate::input::{InputError, Validate, parse_json_str, to_json_string};
use crate::timestamp::EpochMillis;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const GUARD_TYPES: &'static str = r#"
export type GuardSetup = {
  /** Trusted verification keys: key id -> HMAC secret (at least 32 bytes) or an approver's public key. */
  keys: VerificationKeys;
  /** How far `confirmed_at` may lie ahead of `now`, in ms (default 300000: 5 minutes). */
  clockSkewMs?: number;
  /** Language of the reasons: "en" (default) or "ja" (the seed's wording). */
  language?: Language;
  /** This guard's id: only confirmations made for it (`audience`) pass; without it, only those made for none. */
  audience?: string;
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
    pub(super) keys: KeyRing,
    pub(super) policy: CheckPolicy,
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
        args::only_known_keys(
            "Guard",
            "setup",
            &setup,
            &["keys", "clockSkewMs", "language", "audience"],
        )
        .map_err(invalid)?;
        let keys = read_keys(&property(&setup, "keys"))?;
        let clock_skew_ms = args::optional_number("clockSkewMs", &property(&setup, "clockSkewMs"))
            .and_then(|skew| clock_skew_from_host("clockSkewMs", skew))
            .map_err(invalid)?;
        let language =
            args::language("language", &property(&setup, "language")).map_err(invalid)?;
        let audience = read_audience(&setup)?;
        Ok(Self {
            keys,
            policy: CheckPolicy {
                clock_skew_ms,
                language,
                audience,
            },
        })
    }

    /// The signature, then steps 1-6: `confirmation` as stored (`null` when the store has none), the
    /// agent's `request`, and `{ now?, currentStatus? }` (`now` defaults to `Date.now()`; without
    /// `currentStatus` step 6 is left pending). Throws only for malformed input.
    ///
    /// The three arguments cross into wasm as one JSON text and the verdict comes back as one: each crossing
    /// of the boundary costs more than the check itself.
    #[wasm_bindgen(unchecked_return_type = "CheckVerdict")]
    pub fn check(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Confirmation | null")] confirmation: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ExecutorRequest")] request: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "GuardCheckOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (arguments, now) = read_check(&confirmation, &request, &options)?;
        decide(&self.keys, &self.policy, &arguments, now)
    }

    /// `check`, with an ES256 passkey's signature verified by the host's WebCrypto when it has one (a first
    /// check in about a sixth of the time the module's own P-256 arithmetic takes); the same verdict as
    /// `check` in every case.
    /// The arguments are read once, when called: the core prepares the exact bytes to verify from the
    /// confirmation it then decides on, so nothing changed during the wait is seen. A host without WebCrypto,
    /// or that does not answer `true`, leaves the module's verifier to decide. Malformed input rejects the
    /// promise with the error `check` throws.
    #[wasm_bindgen(js_name = checkAsync, unchecked_return_type = "Promise<CheckVerdict>")]
    pub fn check_async(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Confirmation | null")] confirmation: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ExecutorRequest")] request: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "GuardCheckOptions")] options: JsValue,
    ) -> js_sys::Promise {
        let (arguments, now) = match read_check(&confirmation, &request, &options) {
            Ok(read) => read,
            Err(error) => return js_sys::Promise::reject(&error),
        };
        let verification = arguments
            .0
            .as_ref()
            .and_then(|confirmation| self.keys.host_verification(confirmation));
        let Some(verification) = verification else {
            return match decide(&self.keys, &self.policy, &arguments, now) {
                Ok(verdict) => js_sys::Promise::resolve(&verdict),
                Err(error) => js_sys::Promise::reject(&error),
            };
        };
        // The host verifies while the rest of the check runs here, on the assumption that it will say yes.
        let answer = start_host_verification(&verification);
        let verdict_if_verified =
            verification.assuming_verified(|| decide(&self.keys, &self.policy, &arguments, now));
        let (keys, policy) = (self.keys.clone(), self.policy.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            if answer.verified().await {
                verification.accept();
                verdict_if_verified
            } else {
                decide(&keys, &policy, &arguments, now)
            }
        })
    }
}

/// The three arguments and the time of the check, validated.
fn read_check(
    confirmation: &JsValue,
    request: &JsValue,
    options: &JsValue,
) -> Result<(CheckArguments, EpochMillis), JsValue> {
    let arguments = read_arguments(confirmation, request, options).map_err(invalid)?;
    // Read from the object itself: JSON would turn NaN and the infinities into null (the default).
    let now = if args::is_absent(options) {
        args::optional_now("options.now", &JsValue::UNDEFINED)
    } else {
        args::optional_now("options.now", &property(options, "now"))
    }
    .map_err(invalid)?;
    Ok((arguments, now))
}

/// The verdict on read arguments, as the object `check` returns.
fn decide(
    keys: &KeyRing,
    policy: &CheckPolicy,
    arguments: &CheckArguments,
    now: EpochMillis,
) -> Result<JsValue, JsValue> {
    let (confirmation, request, options) = arguments;
    let current_status = options
        .as_ref()
        .and_then(|options| options.current_status.as_deref());
    let verdict = check_confirmation(
        confirmation.as_ref(),
        request,
        now,
        policy,
        keys,
        current_status,
    );
    js_sys::JSON::parse(&to_json_string(&verdict))
}

/// The optional `audience` of a guard's or an Executor's setup: a non-empty identifier.
pub fn read_audience(setup: &JsValue) -> Result<Option<String>, JsValue> {
    let value = property(setup, "audience");
    if args::is_absent(&value) {
        return Ok(None);
    }
    args::identifier("audience", &value)
        .map(Some)
        .map_err(invalid)
}

/// `now` is read from the object directly (see `check`); here it is only a known field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GuardCheckOptions {
    #[serde(default, rename = "now")]
    _now: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    current_status: Option<String>,
}

type CheckArguments = (
    Option<Confirmation>,
    ExecutorRequest,
    Option<GuardCheckOptions>,
);

/// The three arguments as one JSON array, parsed and validated; error paths name the argument.
fn read_arguments(
    confirmation: &JsValue,
    request: &JsValue,
    options: &JsValue,
) -> Result<CheckArguments, InputError> {
    // JSON would turn `undefined`, functions and class instances into something else: refused first.
    if !confirmation.is_null() && !args::is_plain_object(confirmation) {
        return Err(not_an_object(
            "confirmation",
            "a confirmation or null",
            confirmation,
        ));
    }
    if !args::is_plain_object(request) {
        return Err(not_an_object("request", "an ExecutorRequest", request));
    }
    if !args::is_absent(options) && !args::is_plain_object(options) {
        return Err(not_an_object(
            "options",
            "{ now?, currentStatus? }",
            options,
        ));
    }
    let all = js_sys::Array::of3(confirmation, request, options);
    let text = to_json_text("", &all).map_err(|error| {
        // Name the argument JSON.stringify failed on (a throwing getter or proxy, a BigInt, a cycle).
        [
            ("confirmation", confirmation),
            ("request", request),
            ("options", options),
        ]
        .into_iter()
        .find_map(|(path, value)| to_json_text(path, value).err())
        .unwrap_or(error)
    })?;
    let (confirmation, request, options): CheckArguments =
        parse_json_str(&text).map_err(|error| InputError {
            path: argument_path(&error.path),
            ..error
        })?;
    if let Some(confirmation) = &confirmation {
        confirmation
            .validate()
            .map_err(|error| error.within("confirmation"))?;
    }
    request
        .validate()
        .map_err(|error| error.within("request"))?;
    Ok((confirmation, request, options))
}

/// `[0].node_id` -> `confirmation.node_id`.
fn argument_path(path: &str) -> String {
    for (index, name) in ["confirmation", "request", "options"].iter().enumerate() {
        if let Some(rest) = path.strip_prefix(&format!("[{index}]")) {
            return format!("{name}{rest}");
        }
    }
    path.to_owned()
}

fn not_an_object(path: &str, expected: &str, value: &JsValue) -> InputError {
    InputError::invalid(
        path,
        format!(
            "must be {expected} (a plain object), got {}",
            args::kind_of(value)
        ),
    )
}
