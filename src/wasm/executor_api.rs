//! The Executor / Confirmation API exported to JavaScript.

use super::convert::{from_js, from_js_valid, to_js};
use super::errors::{coded_error, input_error};
use super::ports::{JsAudit, JsClock, JsSkill, JsStore, optional_function};
use crate::executor::check::check_confirmation_json_str;
use crate::executor::issue::random_confirmation_id;
use crate::executor::storage::{StorageError, cancel_confirmation, save_confirmation};
use crate::executor::{
    Confirmation, ConfirmationDraft, Executor, ExecutorRequest, KeyRing, Signer, apply_directly,
    issue_confirmation,
};
use crate::input::{InputError, Validate};
use crate::ports::Clock;
use crate::timestamp::millis_from_host;
use js_sys::{Promise, Reflect};
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

type JsBackedExecutor = Executor<JsStore, JsSkill, JsClock, JsAudit>;

/// The pure confirmation check: the signature, then steps 1-6 of seed 003 section 5.
#[wasm_bindgen(js_name = checkConfirmation, unchecked_return_type = "CheckVerdict")]
pub fn check_confirmation(
    #[wasm_bindgen(unchecked_param_type = "CheckInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
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
    now: Option<f64>,
) -> Result<JsValue, JsValue> {
    let draft: ConfirmationDraft = read("draft", &draft)?;
    let signer = read_signer(&signer)?;
    let now = millis_from_host("now", now.unwrap_or_else(js_sys::Date::now))
        .map_err(|error| input_error(&error))?;
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

/// A human withdraws an unused approval; resolves to the cancelled confirmation.
#[wasm_bindgen(js_name = cancelConfirmation, unchecked_return_type = "Promise<Confirmation>")]
pub fn cancel(
    #[wasm_bindgen(unchecked_param_type = "ConfirmationStore")] store: JsValue,
    confirmation_id: String,
) -> Result<Promise, JsValue> {
    let store = JsStore::from_js(store)?;
    Ok(future_to_promise(async move {
        cancel_confirmation(&store, &confirmation_id)
            .await
            .map(|c| to_js(&c))
            .map_err(|error| storage_error(&error))
    }))
}

/// A human settles an in-flight confirmation after checking the node: `applied` true marks it consumed,
/// false makes it usable again. Rejects with `not_in_flight` for any other state.
#[wasm_bindgen(js_name = reconcileConfirmation, unchecked_return_type = "Promise<Confirmation>")]
pub fn reconcile(
    #[wasm_bindgen(unchecked_param_type = "ConfirmationStore")] store: JsValue,
    confirmation_id: String,
    applied: bool,
    now: Option<f64>,
) -> Result<Promise, JsValue> {
    let store = JsStore::from_js(store)?;
    let now = millis_from_host("now", now.unwrap_or_else(js_sys::Date::now))
        .map_err(|error| input_error(&error))?;
    Ok(future_to_promise(async move {
        crate::executor::reconcile_in_flight(&store, &confirmation_id, applied, now)
            .await
            .map(|c| to_js(&c))
            .map_err(|error| storage_error(&error))
    }))
}

/// Route A: a human applies directly from the UI, with the confirmation they just issued.
#[wasm_bindgen(js_name = applyDirectly, unchecked_return_type = "Promise<DirectApplyResult>")]
pub fn direct(
    #[wasm_bindgen(unchecked_param_type = "DirectApplyPorts")] ports: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Confirmation")] confirmation: JsValue,
) -> Result<Promise, JsValue> {
    let skill = JsSkill::from_js(property(&ports, "skill"))?;
    let clock = JsClock(optional_function(&ports, "now")?);
    let audit = JsAudit(optional_function(&ports, "audit")?);
    let confirmation = read::<Confirmation>("confirmation", &confirmation)?;
    Ok(future_to_promise(async move {
        let (apply_request, result) = apply_directly(&skill, &clock, &audit, &confirmation).await;
        let answer = js_sys::Object::new();
        Reflect::set(&answer, &"apply_request".into(), &to_js(&apply_request))?;
        Reflect::set(&answer, &"result".into(), &to_js(&result))?;
        Ok(answer.into())
    }))
}

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
        if !ports.is_object() {
            return Err(coded_error(
                "invalid_port",
                "",
                "ports must be an object { store, skill, keys, now?, audit? }",
            ));
        }
        let store = JsStore::from_js(property(&ports, "store"))?;
        let skill = JsSkill::from_js(property(&ports, "skill"))?;
        let clock = JsClock(optional_function(&ports, "now")?);
        clock
            .now()
            .map_err(|error| coded_error("invalid_port", "now", &error.message))?;
        let audit = JsAudit(optional_function(&ports, "audit")?);
        let keys = read_keys(&property(&ports, "keys"))?;
        Ok(Self {
            inner: Rc::new(Executor::new(store, skill, clock, audit, keys)),
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
        let parsed = read::<Vec<ExecutorRequest>>("requests", &requests);
        let executor = Rc::clone(&self.inner);
        future_to_promise(async move {
            let requests = parsed?;
            Ok(to_js(&executor.execute_batch(&requests).await))
        })
    }
}

fn property(target: &JsValue, name: &str) -> JsValue {
    Reflect::get(target, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

/// Reads and validates a caller's value; a contract violation becomes a coded JS error.
fn read<T: DeserializeOwned + Validate>(path: &str, value: &JsValue) -> Result<T, JsValue> {
    from_js_valid(path, value).map_err(|error| input_error(&error))
}

fn read_keys(value: &JsValue) -> Result<KeyRing, JsValue> {
    let keys: BTreeMap<String, String> =
        from_js("keys", value).map_err(|error| input_error(&error))?;
    KeyRing::new(
        keys.iter()
            .map(|(id, secret)| (id.as_str(), secret.as_bytes())),
    )
    .map_err(|error| input_error(&error))
}

fn read_signer(value: &JsValue) -> Result<Signer, JsValue> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct SignerKey {
        key_id: String,
        secret: String,
    }
    let key: SignerKey = from_js("signer", value).map_err(|error| input_error(&error))?;
    Signer::new(&key.key_id, key.secret.as_bytes()).map_err(|error: InputError| {
        let path = if error.path == "key_id" {
            "signer.keyId"
        } else {
            "signer.secret"
        };
        input_error(&InputError {
            path: path.to_owned(),
            ..error
        })
    })
}

fn storage_error(error: &StorageError) -> JsValue {
    coded_error(error.code(), "", &error.to_string())
}
