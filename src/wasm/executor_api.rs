//! The Executor / Confirmation API exported to JavaScript.

use super::args;
use super::convert::{from_js_valid, to_js};
use super::errors::{coded_error, input_error, invalid};
use super::executor_setup::{
    property, read_audit, read_keys, read_signer, read_skills, refuse_undefined_keys,
    require_object,
};
use super::ports::{JsAudit, JsClock, JsSkill, JsStore, optional_function};
use crate::executor::check::check_confirmation_json_str;
use crate::executor::check::clock_skew_from_host;
use crate::executor::human_action::HumanAction;
use crate::executor::issue::random_confirmation_id;
use crate::executor::mandate::{Mandate, MandateUse};
use crate::executor::run::ExecutorOptions;
use crate::executor::seal::SealKey;
use crate::executor::storage::{StorageError, save_confirmation};
use crate::executor::{
    Confirmation, ConfirmationDraft, Executor, ExecutorRequest, apply_directly, issue_confirmation,
};
use crate::input::Validate;
use crate::ports::Clock;
use js_sys::{Promise, Reflect};
use serde::de::DeserializeOwned;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

type JsBackedExecutor = Executor<JsStore, JsSkill, JsClock, JsAudit>;

/// The pure confirmation check: the signature, then steps 1-6 of seed 003 section 5.
#[wasm_bindgen(js_name = checkConfirmation, unchecked_return_type = "CheckVerdict")]
pub fn check_confirmation(
    #[wasm_bindgen(unchecked_param_type = "CheckInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    if super::args::is_plain_object(&input) {
        refuse_undefined_keys(&property(&input, "keys"))?;
    }
    let text = super::convert::to_json_text("", &input).map_err(|error| input_error(&error))?;
    check_confirmation_json_str(&text)
        .map(|verdict| to_js(&verdict))
        .map_err(|error| input_error(&error))
}

/// Issues a signed Confirmation Object from a human's "y": a fresh UUID v4, `now` (epoch ms, default
/// `Date.now()`), and the approver's key.
#[wasm_bindgen(js_name = issueConfirmation, unchecked_return_type = "Confirmation")]
pub fn issue(
    #[wasm_bindgen(unchecked_param_type = "ConfirmationDraft")] draft: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SignerKey")] signer: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] now: JsValue,
) -> Result<JsValue, JsValue> {
    let draft: ConfirmationDraft = read("draft", &draft)?;
    let signer = read_signer(&signer)?;
    let now = args::optional_now("now", &now).map_err(invalid)?;
    let id = random_confirmation_id().map_err(|error| {
        coded_error(
            "random_unavailable",
            "",
            &format!("no secure random source: {error}"),
        )
    })?;
    let confirmation =
        issue_confirmation(&draft, &signer, now, id).map_err(|error| input_error(&error))?;
    Ok(to_js(&confirmation))
}

/// The ExecutorRequest that applies exactly what `confirmation` approved.
#[wasm_bindgen(js_name = requestFor, unchecked_return_type = "ExecutorRequest")]
pub fn request_for(
    #[wasm_bindgen(unchecked_param_type = "Confirmation")] confirmation: JsValue,
) -> Result<JsValue, JsValue> {
    let confirmation = read::<Confirmation>("confirmation", &confirmation)?;
    Ok(to_js(&ExecutorRequest::for_confirmation(&confirmation)))
}

/// Stores a newly issued confirmation under its id; rejects with code `already_exists` if the id is taken.
#[wasm_bindgen(js_name = saveConfirmation, unchecked_return_type = "Promise<void>")]
pub fn save(
    #[wasm_bindgen(unchecked_param_type = "ConfirmationStore")] store: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Confirmation")] confirmation: JsValue,
) -> Result<Promise, JsValue> {
    let store = JsStore::from_js(store)?;
    let confirmation = read::<Confirmation>("confirmation", &confirmation)?;
    Ok(future_to_promise(async move {
        save_confirmation(&store, &confirmation)
            .await
            .map(|()| JsValue::UNDEFINED)
            .map_err(|error| storage_error(&error))
    }))
}

/// Route A: a human applies directly from the UI, with the confirmation they just issued.
#[wasm_bindgen(js_name = applyDirectly, unchecked_return_type = "Promise<DirectApplyResult>")]
pub fn direct(
    #[wasm_bindgen(unchecked_param_type = "DirectApplyPorts")] ports: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Confirmation")] confirmation: JsValue,
) -> Result<Promise, JsValue> {
    require_object(&ports, "ports must be an object { skill, now?, audit? }")?;
    let skill = JsSkill::from_js(property(&ports, "skill"))?;
    let clock = JsClock(optional_function(&ports, "now")?);
    let audit = read_audit(&ports)?;
    let language = args::language("language", &property(&ports, "language")).map_err(invalid)?;
    // After the ports: an object that cannot be read is named by the port it lacks.
    args::only_known_keys(
        "applyDirectly",
        "",
        &ports,
        &["skill", "now", "audit", "auditTimeoutMs", "language"],
    )
    .map_err(invalid)?;
    let confirmation = read::<Confirmation>("confirmation", &confirmation)?;
    Ok(future_to_promise(async move {
        let (apply_request, result) =
            apply_directly(&skill, &clock, &audit, &confirmation, language).await;
        let answer = js_sys::Object::new();
        Reflect::set(&answer, &"apply_request".into(), &to_js(&apply_request))?;
        Reflect::set(&answer, &"result".into(), &to_js(&result))?;
        Ok(answer.into())
    }))
}

/// The options `new Executor(...)` reads (see `ExecutorPorts` in the declarations).
pub const EXECUTOR_OPTIONS: &[&str] = &[
    "store",
    "skill",
    "skills",
    "keys",
    "now",
    "audit",
    "auditTimeoutMs",
    "clockSkewMs",
    "language",
    "audience",
    "sealKey",
];

/// Consumes human confirmations, one Apply each, over the host's store and skill.
#[wasm_bindgen(js_name = Executor)]
pub struct JsExecutor {
    inner: Rc<JsBackedExecutor>,
}

#[wasm_bindgen(js_class = Executor)]
impl JsExecutor {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ExecutorPorts")] ports: JsValue,
    ) -> Result<JsExecutor, JsValue> {
        require_object(
            &ports,
            "ports must be an object { store, skill or skills, keys, now?, audit? }",
        )?;
        let store = JsStore::from_js(property(&ports, "store"))?;
        let skills = read_skills(&ports)?;
        // After the ports: an object that cannot be read is named by the port it lacks.
        args::only_known_keys("Executor", "", &ports, EXECUTOR_OPTIONS).map_err(invalid)?;
        let clock = JsClock(optional_function(&ports, "now")?);
        clock
            .now()
            .map_err(|error| coded_error("invalid_port", "now", &error.message))?;
        let audit = read_audit(&ports)?;
        let keys = read_keys(&property(&ports, "keys"))?;
        let skew = args::optional_number("clockSkewMs", &property(&ports, "clockSkewMs"))
            .and_then(|skew| clock_skew_from_host("clockSkewMs", skew))
            .map_err(invalid)?;
        let language =
            args::language("language", &property(&ports, "language")).map_err(invalid)?;
        let options = ExecutorOptions {
            clock_skew_ms: skew,
            language,
            audience: super::guard_api::read_audience(&ports)?,
        };
        let mut executor =
            Executor::with_skills(store, skills, clock, audit, keys).with_options(options);
        let seal = property(&ports, "sealKey");
        if !args::is_absent(&seal) {
            let secret = args::identifier("sealKey", &seal).map_err(invalid)?;
            executor =
                executor.with_seal(SealKey::new("sealKey", secret.as_bytes()).map_err(invalid)?);
        }
        Ok(Self {
            inner: Rc::new(executor),
        })
    }

    /// Stores a person's signed confirmation: authentic, for this Executor's audience, never consumed
    /// before, under an id not yet taken; sealed when the Executor has a `sealKey`. Rejects with a coded
    /// error (`signature_invalid`, `wrong_audience`, `already_consumed`, `already_exists`, ...).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn save(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Confirmation")] confirmation: JsValue,
    ) -> Promise {
        let parsed = read::<Confirmation>("confirmation", &confirmation);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let confirmation = parsed?;
            executor
                .save(&confirmation)
                .await
                .map(|()| JsValue::UNDEFINED)
                .map_err(|error| storage_error(&error))
        })
    }

    /// Carries out a person's signed action once (see `ActionOutcome`): verified, recent, made for the
    /// current version of what it acts on, its nonce recorded in the store before anything changes. For
    /// `cancel` and `reconcile_*` the Executor reads the stored confirmation's version itself; for
    /// `decline`, `add_key` and `revoke_key` the host passes `{ version }` of the state it keeps. For a
    /// passkey, `lastSignCount` is the key's last signature counter.
    #[wasm_bindgen(js_name = takeAction, unchecked_return_type = "Promise<ActionOutcome>")]
    pub fn take_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "HumanAction")] action: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "TakeActionOptions")] options: JsValue,
    ) -> Promise {
        let parsed = read::<HumanAction>("action", &action)
            .and_then(|action| read_take_options(&options).map(|options| (action, options)));
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let (action, (version, last)) = parsed?;
            Ok(to_js(
                &executor
                    .take_action(&action, version.as_deref(), last)
                    .await,
            ))
        })
    }

    /// The version of the stored confirmation `confirmationId` (what a cancel or reconcile must name), or
    /// `null` when there is none.
    #[wasm_bindgen(js_name = confirmationVersion, unchecked_return_type = "Promise<string | null>")]
    pub fn confirmation_version(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] confirmation_id: JsValue,
    ) -> Promise {
        let id = args::identifier("confirmationId", &confirmation_id).map_err(invalid);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let id = id?;
            executor
                .confirmation_version(&id)
                .await
                .map(|version| version.map_or(JsValue::NULL, JsValue::from))
                .map_err(|error| storage_error(&error))
        })
    }

    /// Registers a person's signed standing approval (a mandate): authentic, for this Executor's audience,
    /// not expired, under an id not yet taken. Resolves to `{ record, signCount }` (a passkey's signature
    /// counter, for the host to compare with the key's last one; `null` otherwise); rejects with a coded
    /// error (`signature_invalid`, `wrong_audience`, `not_yet_valid`, `mandate_expired`, `already_exists`).
    #[wasm_bindgen(js_name = saveMandate, unchecked_return_type = "Promise<{ record: MandateRecord; signCount: number | null }>")]
    pub fn save_mandate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Mandate")] mandate: JsValue,
    ) -> Promise {
        let parsed = read::<Mandate>("mandate", &mandate);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let mandate = parsed?;
            let (record, sign_count) = executor
                .save_mandate(&mandate)
                .await
                .map_err(|error| storage_error(&error))?;
            let result = js_sys::Object::new();
            js_sys::Reflect::set(&result, &"record".into(), &to_js(&record))?;
            let count = sign_count.map_or(JsValue::NULL, JsValue::from);
            js_sys::Reflect::set(&result, &"signCount".into(), &count)?;
            Ok(result.into())
        })
    }

    /// A standing approval's record (the mandate, the confirmations that used it, its revocation) and its
    /// `version` (what a `revoke_mandate` action names), or `null` when none is registered under the id.
    #[wasm_bindgen(js_name = mandateRecord, unchecked_return_type = "Promise<{ record: MandateRecord; version: string } | null>")]
    pub fn mandate_record(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] mandate_id: JsValue,
    ) -> Promise {
        let id = args::identifier("mandateId", &mandate_id).map_err(invalid);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let id = id?;
            let found = executor
                .mandate_record(&id)
                .await
                .map_err(|error| storage_error(&error))?;
            let Some((record, version)) = found else {
                return Ok(JsValue::NULL);
            };
            let result = js_sys::Object::new();
            js_sys::Reflect::set(&result, &"record".into(), &to_js(&record))?;
            js_sys::Reflect::set(&result, &"version".into(), &JsValue::from(version))?;
            Ok(result.into())
        })
    }

    /// Makes and stores the confirmation of a proposed change under a registered standing approval, when
    /// it is live, has a use left, is for the agent and covers the change (see `MandateOutcome`). Its Apply
    /// (`execute`) runs it once; the use is reserved when the confirmation is made.
    #[wasm_bindgen(js_name = confirmByMandate, unchecked_return_type = "Promise<MandateOutcome>")]
    pub fn confirm_by_mandate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MandateUse")] request: JsValue,
    ) -> Promise {
        let parsed = read::<MandateUse>("request", &request);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let request = parsed?;
            Ok(to_js(&executor.confirm_by_mandate(&request).await))
        })
    }

    /// Runs one ExecutorRequest. Resolves to an ExecutorResult whatever happens; rejects only on
    /// malformed input (an error with `code` and `path`).
    #[wasm_bindgen(unchecked_return_type = "Promise<ExecutorResult>")]
    pub fn execute(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ExecutorRequest")] request: JsValue,
    ) -> Promise {
        let parsed = read::<ExecutorRequest>("request", &request);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let request = parsed?;
            Ok(to_js(&executor.execute(&request).await))
        })
    }

    /// BatchApplier: one Apply per request, in order, stopping at the first that is not applied. Every
    /// request is validated before anything runs.
    #[wasm_bindgen(js_name = executeBatch, unchecked_return_type = "Promise<BatchResult>")]
    pub fn execute_batch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ExecutorRequest[]")] requests: JsValue,
    ) -> Promise {
        let parsed = super::convert::from_js_list::<ExecutorRequest>("requests", &requests)
            .and_then(|requests| {
                requests
                    .validate()
                    .map(|()| requests)
                    .map_err(|error| error.within("requests"))
            })
            .map_err(invalid);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let requests = parsed?;
            Ok(to_js(&executor.execute_batch(&requests).await))
        })
    }
}

/// Reads and validates a caller's value; a contract violation becomes a coded JS error.
fn read<T: DeserializeOwned + Validate>(path: &str, value: &JsValue) -> Result<T, JsValue> {
    from_js_valid(path, value).map_err(|error| input_error(&error))
}

#[wasm_bindgen(typescript_custom_section)]
const TAKE_ACTION_TYPES: &'static str = r#"
export type TakeActionOptions = {
  /** The current version of the state a decline or a key change acts on (not used for cancel and reconcile). */
  version?: string;
  /** A passkey's last signature counter: the assertion's must exceed it (or both be 0). */
  lastSignCount?: number;
};
"#;

/// `{ version?, lastSignCount? }`.
fn read_take_options(options: &JsValue) -> Result<(Option<String>, Option<u32>), JsValue> {
    if args::is_absent(options) {
        return Ok((None, None));
    }
    if !args::is_plain_object(options) {
        return Err(invalid(crate::input::InputError::invalid(
            "options",
            format!(
                "must be {{ version?, lastSignCount? }}, got {}",
                args::kind_of(options)
            ),
        )));
    }
    args::only_known_keys(
        "Executor.takeAction",
        "options",
        options,
        &["version", "lastSignCount"],
    )
    .map_err(invalid)?;
    let version = property(options, "version");
    let version = if args::is_absent(&version) {
        None
    } else {
        Some(args::identifier("options.version", &version).map_err(invalid)?)
    };
    let last = args::optional_number("options.lastSignCount", &property(options, "lastSignCount"))
        .map_err(invalid)?;
    let last = match last {
        None => None,
        Some(count) if count.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&count) => {
            Some(count as u32)
        }
        Some(count) => {
            return Err(invalid(crate::input::InputError::invalid(
                "options.lastSignCount",
                format!("must be a whole number from 0 to {}, got {count}", u32::MAX),
            )));
        }
    };
    Ok((version, last))
}

fn storage_error(error: &StorageError) -> JsValue {
    coded_error(error.code(), "", &error.to_string())
}
