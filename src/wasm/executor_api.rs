//! The Executor / Confirmation API exported to JavaScript.

use super::args;
use super::convert::{from_js_valid, to_js};
use super::errors::{coded_error, input_error, invalid};
use super::executor_setup::{
    property, read_audit, read_keys, read_signer, read_skills, require_object,
};
use super::ports::{JsAudit, JsClock, JsSkill, JsStore, optional_function};
use crate::executor::check::check_confirmation_json_str;
use crate::executor::check::clock_skew_from_host;
use crate::executor::issue::random_confirmation_id;
use crate::executor::run::ExecutorOptions;
use crate::executor::storage::{StorageError, cancel_confirmation, save_confirmation};
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

/// A human withdraws an unused approval; resolves to the cancelled confirmation.
#[wasm_bindgen(js_name = cancelConfirmation, unchecked_return_type = "Promise<Confirmation>")]
pub fn cancel(
    #[wasm_bindgen(unchecked_param_type = "ConfirmationStore")] store: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] confirmation_id: JsValue,
) -> Result<Promise, JsValue> {
    let store = JsStore::from_js(store)?;
    let confirmation_id = args::identifier("confirmationId", &confirmation_id).map_err(invalid)?;
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
    #[wasm_bindgen(unchecked_param_type = "string")] confirmation_id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "boolean")] applied: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] now: JsValue,
) -> Result<Promise, JsValue> {
    let store = JsStore::from_js(store)?;
    let confirmation_id = args::identifier("confirmationId", &confirmation_id).map_err(invalid)?;
    let applied = args::boolean("applied", &applied).map_err(invalid)?;
    let now = args::optional_now("now", &now).map_err(invalid)?;
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
    require_object(&ports, "ports must be an object { skill, now?, audit? }")?;
    let skill = JsSkill::from_js(property(&ports, "skill"))?;
    let clock = JsClock(optional_function(&ports, "now")?);
    let audit = read_audit(&ports)?;
    let language = args::language("language", &property(&ports, "language")).map_err(invalid)?;
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
        };
        Ok(Self {
            inner: Rc::new(
                Executor::with_skills(store, skills, clock, audit, keys).with_options(options),
            ),
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

fn storage_error(error: &StorageError) -> JsValue {
    coded_error(error.code(), "", &error.to_string())
}
