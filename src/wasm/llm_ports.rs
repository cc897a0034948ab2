//! Adapters of the ports that only the model-facing components use (the LLM, prompt files, the logger, the
//! Watcher's executor rerun) over JavaScript functions and objects.

use super::convert::{from_js, to_js};
use super::errors::{coded_error, thrown_message};
use super::ports::port_shape_error;
use crate::ports::PortError;
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Reads an optional `logger` property: absent, or an object such as `console`.
pub fn optional_logger(target: &JsValue, path: &str) -> Result<Option<JsValue>, JsValue> {
    let value = Reflect::get(target, &"logger".into()).unwrap_or(JsValue::UNDEFINED);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if value.is_object() {
        return Ok(Some(value));
    }
    Err(coded_error(
        "invalid_port",
        path,
        "logger must be an object such as console",
    ))
}

/// The seed's QueryFn: `(prompt, { outputSchema, schemaName }) => { structuredOutput?, text?, error? }`.
#[derive(Clone)]
pub struct JsQueryFn(pub Function);

impl JsQueryFn {
    pub fn from_js(path: &str, value: JsValue) -> Result<Self, JsValue> {
        value.dyn_into::<Function>().map(Self).map_err(|_| {
            coded_error(
                "invalid_port",
                path,
                &format!("{path} must be a function (prompt, options) => reply"),
            )
        })
    }
}

impl crate::ports::Llm for JsQueryFn {
    async fn query(
        &self,
        prompt: &str,
        options: &crate::llm::QueryOptions,
    ) -> Result<crate::llm::QueryReply, PortError> {
        let returned = self
            .0
            .call2(&JsValue::NULL, &prompt.into(), &to_js(options))
            .map_err(|thrown| {
                PortError::new(format!("query threw: {}", thrown_message(&thrown)))
            })?;
        let reply = JsFuture::from(Promise::resolve(&returned))
            .await
            .map_err(|rejected| {
                PortError::new(format!("query rejected: {}", thrown_message(&rejected)))
            })?;
        from_js("", &reply).map_err(|error| port_shape_error("query", error))
    }
}

/// Optional `loadPrompt(path) => string | null`; without one only the embedded prompts exist.
#[derive(Clone)]
pub struct JsPromptLoader(pub Option<Function>);

impl crate::ports::PromptLoader for JsPromptLoader {
    async fn load(&self, path: &str) -> Result<Option<String>, PortError> {
        let Some(function) = &self.0 else {
            return Ok(None);
        };
        let returned = function
            .call1(&JsValue::NULL, &path.into())
            .map_err(|thrown| {
                PortError::new(format!("loadPrompt threw: {}", thrown_message(&thrown)))
            })?;
        let value = JsFuture::from(Promise::resolve(&returned))
            .await
            .map_err(|rejected| {
                PortError::new(format!(
                    "loadPrompt rejected: {}",
                    thrown_message(&rejected)
                ))
            })?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        value
            .as_string()
            .map(Some)
            .ok_or_else(|| PortError::new("loadPrompt must resolve to a string or null"))
    }
}

/// Optional `logger` object with `debug` / `info` / `warn` methods (any may be missing, e.g. `console`).
pub struct JsLogger(pub JsValue);

impl crate::ports::Logger for JsLogger {
    fn log(&self, level: crate::ports::LogLevel, message: &str) {
        let method = Reflect::get(&self.0, &level.as_str().into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        if let Some(method) = method {
            // A logger that throws never changes an outcome.
            let _ = method.call1(&self.0, &message.into());
        }
    }
}

#[cfg(feature = "watcher")]
/// `rerunExecutor(issues, round) => ExecutorOutput | Promise<ExecutorOutput>` for the Watcher's protocol.
pub struct JsExecutorRerun(pub Function);

#[cfg(feature = "watcher")]
impl crate::ports::ExecutorRerun for JsExecutorRerun {
    async fn rerun(
        &self,
        issues: &[String],
        round: u32,
    ) -> Result<crate::watcher::ExecutorOutput, PortError> {
        let returned = self
            .0
            .call2(&JsValue::NULL, &to_js(&issues), &JsValue::from(round))
            .map_err(|thrown| {
                PortError::new(format!("rerunExecutor threw: {}", thrown_message(&thrown)))
            })?;
        let value = JsFuture::from(Promise::resolve(&returned))
            .await
            .map_err(|rejected| {
                PortError::new(format!(
                    "rerunExecutor rejected: {}",
                    thrown_message(&rejected)
                ))
            })?;
        from_js("", &value).map_err(|error| port_shape_error("rerunExecutor", error))
    }
}
