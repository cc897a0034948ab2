//! Host ports over JS objects. A callback may return a value or a Promise; a throw or a rejection
//! becomes a [`PortError`] carrying its message, never a trap.

use super::convert::{from_js, to_js};
use super::errors::{coded_error, thrown_message};
use crate::executor::{ApplyRequest, AuditRecord, PreviewResult, SkillResponse};
use crate::ports::{AuditSink, Clock, PortError, Skill, Store};
use crate::timestamp::{EpochMillis, millis_from_host};
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A JS object whose methods were checked to exist when the port was built.
#[derive(Clone)]
pub struct JsObjectPort {
    name: String,
    target: JsValue,
}

impl JsObjectPort {
    /// Checks that `target[method]` is a function for each method; the error names the missing one.
    pub fn new(name: &str, target: JsValue, methods: &[&str]) -> Result<Self, JsValue> {
        if !target.is_object() {
            return Err(coded_error(
                "invalid_port",
                name,
                &format!("{name} must be an object"),
            ));
        }
        for method in methods {
            let found = Reflect::get(&target, &(*method).into()).unwrap_or(JsValue::UNDEFINED);
            if !found.is_function() {
                let path = format!("{name}.{method}");
                return Err(coded_error(
                    "invalid_port",
                    &path,
                    &format!("{path} must be a function"),
                ));
            }
        }
        Ok(Self {
            name: name.to_owned(),
            target,
        })
    }

    async fn call(&self, method: &str, args: &[JsValue]) -> Result<JsValue, PortError> {
        let label = format!("{}.{method}", self.name);
        let function: Function = Reflect::get(&self.target, &method.into())
            .ok()
            .and_then(|found| found.dyn_into().ok())
            .ok_or_else(|| PortError::new(format!("{label} is not a function")))?;
        let returned = function
            .apply(&self.target, &args.iter().collect::<Array>())
            .map_err(|thrown| {
                PortError::new(format!("{label} threw: {}", thrown_message(&thrown)))
            })?;
        JsFuture::from(Promise::resolve(&returned))
            .await
            .map_err(|rejected| {
                PortError::new(format!("{label} rejected: {}", thrown_message(&rejected)))
            })
    }
}

pub fn port_shape_error(label: &str, error: crate::input::InputError) -> PortError {
    PortError::new(format!("{label} answered with the wrong shape: {error}"))
}

#[derive(Clone)]
pub struct JsStore(pub JsObjectPort);

impl JsStore {
    pub fn from_js(target: JsValue) -> Result<Self, JsValue> {
        JsObjectPort::new("store", target, &["get", "put", "compareAndSwap"]).map(Self)
    }
}

impl Store for JsStore {
    async fn get(&self, key: &str) -> Result<Option<String>, PortError> {
        let value = self.0.call("get", &[key.into()]).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        value
            .as_string()
            .map(Some)
            .ok_or_else(|| PortError::new("store.get must resolve to a string or null"))
    }

    async fn put(&self, key: &str, value: &str) -> Result<(), PortError> {
        self.0
            .call("put", &[key.into(), value.into()])
            .await
            .map(drop)
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&str>,
        next: &str,
    ) -> Result<bool, PortError> {
        let expected = expected.map_or(JsValue::NULL, JsValue::from);
        let swapped = self
            .0
            .call("compareAndSwap", &[key.into(), expected, next.into()])
            .await?;
        swapped
            .as_bool()
            .ok_or_else(|| PortError::new("store.compareAndSwap must resolve to a boolean"))
    }
}

pub struct JsSkill(pub JsObjectPort);

impl JsSkill {
    pub fn from_js(target: JsValue) -> Result<Self, JsValue> {
        Self::named("skill", target)
    }

    /// A skill found under `path` (e.g. `skills.status_change`), named so in errors.
    pub fn named(path: &str, target: JsValue) -> Result<Self, JsValue> {
        JsObjectPort::new(path, target, &["preview", "apply"]).map(Self)
    }
}

impl Skill for JsSkill {
    async fn preview(&self, node_id: &str) -> Result<PreviewResult, PortError> {
        let value = self.0.call("preview", &[node_id.into()]).await?;
        from_js("", &value).map_err(|error| port_shape_error("skill.preview", error))
    }

    async fn apply(&self, request: &ApplyRequest) -> Result<SkillResponse, PortError> {
        let value = self.0.call("apply", &[to_js(request)]).await?;
        from_js("", &value).map_err(|error| port_shape_error("skill.apply", error))
    }
}

/// The host clock: a function returning epoch milliseconds, `Date.now` when none is given.
#[derive(Clone)]
pub struct JsClock(pub Option<Function>);

impl Clock for JsClock {
    fn now(&self) -> Result<EpochMillis, PortError> {
        let Some(function) = &self.0 else {
            return millis_from_host("now", js_sys::Date::now())
                .map_err(|error| PortError::new(error.to_string()));
        };
        let value = function
            .call0(&JsValue::NULL)
            .map_err(|thrown| PortError::new(format!("now threw: {}", thrown_message(&thrown))))?;
        let millis = value
            .as_f64()
            .ok_or_else(|| PortError::new("now must return a number (epoch milliseconds)"))?;
        millis_from_host("now", millis).map_err(|error| PortError::new(error.to_string()))
    }
}

/// Optional audit callback, awaited at most `timeout_ms`: a sink that never settles cannot hold a result
/// back, and a late or failed audit is reported as an error.
pub struct JsAudit {
    pub function: Option<Function>,
    pub timeout_ms: u32,
}

/// How long an audit callback is awaited by default.
pub const DEFAULT_AUDIT_TIMEOUT_MS: u32 = 5_000;

impl AuditSink for JsAudit {
    async fn record(&self, record: &AuditRecord) -> Result<(), PortError> {
        let Some(function) = &self.function else {
            return Ok(());
        };
        let returned = function
            .call1(&JsValue::NULL, &to_js(record))
            .map_err(|thrown| {
                PortError::new(format!("audit threw: {}", thrown_message(&thrown)))
            })?;
        match super::deadline::within(Promise::resolve(&returned), self.timeout_ms).await {
            super::deadline::Settled::Resolved(_) => Ok(()),
            super::deadline::Settled::Rejected(message) => {
                Err(PortError::new(format!("audit rejected: {message}")))
            }
            super::deadline::Settled::TimedOut => Err(PortError::new(format!(
                "audit did not settle within {} ms",
                self.timeout_ms
            ))),
        }
    }
}

/// Reads an optional function property; anything other than a function or nothing is a port error.
pub fn optional_function(target: &JsValue, name: &str) -> Result<Option<Function>, JsValue> {
    let value = Reflect::get(target, &name.into()).unwrap_or(JsValue::UNDEFINED);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<Function>()
        .map(Some)
        .map_err(|_| coded_error("invalid_port", name, &format!("{name} must be a function")))
}
