//! Reading the Executor's setup from JS: the ports object (store, skill or skills by change type, keys,
//! clock, bounded audit) and the approval side's signing key. Every error is coded and names its field.

use super::args;
use super::convert::from_js;
use super::errors::{coded_error, input_error, invalid};
use super::ports::{DEFAULT_AUDIT_TIMEOUT_MS, JsAudit, JsSkill, optional_function};
use crate::executor::run::SkillSet;
use crate::executor::{KeyRing, KeySpec, Signer};
use crate::input::InputError;
use js_sys::Reflect;
use std::collections::BTreeMap;
use wasm_bindgen::{JsCast, JsValue};

/// `target[name]`, or `undefined` when it cannot be read.
pub fn property(target: &JsValue, name: &str) -> JsValue {
    Reflect::get(target, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

pub fn require_object(ports: &JsValue, message: &str) -> Result<(), JsValue> {
    if ports.is_object() {
        Ok(())
    } else {
        Err(coded_error("invalid_port", "", message))
    }
}

/// `skill` (every change type), `skills` (`{ [type]: skill }`), or both (`skill` then serves the types
/// `skills` does not name).
pub fn read_skills(ports: &JsValue) -> Result<SkillSet<JsSkill>, JsValue> {
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
pub fn read_audit(ports: &JsValue) -> Result<JsAudit, JsValue> {
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

pub fn read_keys(value: &JsValue) -> Result<KeyRing, JsValue> {
    refuse_undefined_keys(value)?;
    let keys: BTreeMap<String, KeySpec> =
        from_js("keys", value).map_err(|error| input_error(&error))?;
    KeyRing::from_specs(&keys).map_err(|error| input_error(&error))
}

/// A key whose value is `undefined` (an environment variable that is not set) is named as such: JSON drops
/// it, and the ring would otherwise be refused as if no key had been given.
pub fn refuse_undefined_keys(value: &JsValue) -> Result<(), JsValue> {
    if !super::args::is_plain_object(value) {
        return Ok(());
    }
    let object: &js_sys::Object = value.unchecked_ref();
    for key_id in js_sys::Object::keys(object).iter() {
        let Some(key_id) = key_id.as_string() else {
            continue;
        };
        let key = Reflect::get(value, &JsValue::from_str(&key_id)).unwrap_or(JsValue::UNDEFINED);
        if key.is_undefined() {
            return Err(input_error(&InputError::invalid(
                format!("keys.{key_id}"),
                "is undefined: expected an HMAC secret (a string) or a public key ({ type, public_key, ... }); is an environment variable unset?",
            )));
        }
    }
    Ok(())
}

pub fn read_signer(value: &JsValue) -> Result<Signer, JsValue> {
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
