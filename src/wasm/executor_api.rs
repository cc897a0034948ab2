//! The Executor / Confirmation API exported to JavaScript.

use super::args;
use super::convert::{from_js, from_js_valid, to_js};
use super::errors::{coded_error, input_error, invalid};
use super::ports::{
    DEFAULT_AUDIT_TIMEOUT_MS, JsAudit, JsClock, JsSkill, JsStore, optional_function,
};
use crate::executor::check::check_confirmation_json_str;
use crate::executor::check::clock_skew_from_host;
use crate::executor::issue::random_confirmation_id;
use crate::executor::run::{ExecutorOptions, SkillSet};
use crate::executor::storage::{StorageError, cancel_confirmation, save_confirmation};
use crate::executor::{
    Confirmation, ConfirmationDraft, Executor, ExecutorRequest, KeyRing, Signer, apply_directly,
    issue_confirmation,
};
use crate::input::{InputError, Validate};
use crate::ports::Clock;
use js_sys::{Promise, Reflect};
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
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

fn require_object(ports: &JsValue, message: &str) -> Result<(), JsValue> {
    if ports.is_object() {
        Ok(())
    } else {
        Err(coded_error("invalid_port", "", message))
    }
}

/// `skill` (every change type), `skills` (`{ [type]: skill }`), or both (`skill` then serves the types
/// `skills` does not name).
fn read_skills(ports: &JsValue) -> Result<SkillSet<JsSkill>, JsValue> {
    let single = property(ports, "skill");
    let fallback = if args::is_absent(&single) {
        None
    } else {
        Some(JsSkill::from_js(single)?)
    };
    let map = property(ports, "skills");
    if args::is_absent(&map) {
        return match fallback {
            Some(skill) => Ok(SkillSet::single(skill)),
            None => Err(coded_error(
                "invalid_port",
                "skill",
                "skill (or skills: { [type]: skill }) is required",
            )),
        };
    }
    if !map.is_object() || js_sys::Array::is_array(&map) {
        return Err(coded_error(
            "invalid_port",
            "skills",
            "skills must be an object { [type]: skill }",
        ));
    }
    let mut by_type = BTreeMap::new();
    for change_type in js_sys::Object::keys(map.unchecked_ref::<js_sys::Object>()).iter() {
        let change_type = args::identifier("skills", &change_type).map_err(invalid)?;
        let path = format!("skills.{change_type}");
        let skill = JsSkill::named(&path, property(&map, &change_type))?;
        by_type.insert(change_type, skill);
    }
    if by_type.is_empty() && fallback.is_none() {
        return Err(coded_error(
            "invalid_port",
            "skills",
            "skills must name at least one change type (or give skill for every type)",
        ));
    }
    Ok(SkillSet::by_type(by_type, fallback))
}

/// The optional audit callback and how long it is awaited (`auditTimeoutMs`, default 5 s).
fn read_audit(ports: &JsValue) -> Result<JsAudit, JsValue> {
    let function = optional_function(ports, "audit")?;
    let timeout = args::optional_number("auditTimeoutMs", &property(ports, "auditTimeoutMs"))
        .map_err(invalid)?;
    let timeout_ms = match timeout {
        None => DEFAULT_AUDIT_TIMEOUT_MS,
        Some(ms) if ms.fract() == 0.0 && (1.0..=MAX_AUDIT_TIMEOUT_MS).contains(&ms) => ms as u32,
        Some(ms) => {
            return Err(invalid(InputError::invalid(
                "auditTimeoutMs",
                format!(
                    "must be whole milliseconds between 1 and {MAX_AUDIT_TIMEOUT_MS}, got {ms}"
                ),
            )));
        }
    };
    Ok(JsAudit {
        function,
        timeout_ms,
    })
}

/// The longest an audit callback may be awaited: ten minutes.
const MAX_AUDIT_TIMEOUT_MS: f64 = 600_000.0;

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
