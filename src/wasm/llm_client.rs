//! The built-in OpenAI-compatible Chat Completions client over fetch (gloo-net): works in browsers, Node 20
//! and workerd. `openAICompatible(config)` returns a QueryFn usable wherever one is expected.

use super::convert::{from_js_valid, to_js};
use super::errors::{input_error, thrown_message};
use crate::llm::QueryOptions;
use crate::llm::QueryReply;
use crate::llm::openai::{
    ClientConfig, ClientError, ClientErrorKind, chat_request_body, read_chat_response,
    reply_from_content, reply_from_error,
};
use crate::ports::{Llm, PortError};
use js_sys::{Function, Promise, Reflect};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

pub struct OpenAiClient {
    config: ClientConfig,
}

impl OpenAiClient {
    pub fn new(config: ClientConfig) -> Self {
        Self { config }
    }

    async fn post(
        &self,
        body: &str,
        signal: Option<web_sys::AbortSignal>,
    ) -> Result<crate::llm::openai::ChatAnswer, ClientError> {
        let aborted_by_caller = || {
            ClientError::new(
                ClientErrorKind::Aborted,
                "the call was aborted by the caller's signal",
            )
        };
        if signal.as_ref().is_some_and(web_sys::AbortSignal::aborted) {
            return Err(aborted_by_caller());
        }
        let controller = web_sys::AbortController::new().map_err(|error| {
            ClientError::new(
                ClientErrorKind::Network,
                format!("AbortController: {}", thrown_message(&error)),
            )
        })?;
        let timer = Timer::start(&controller, self.config.timeout_ms);
        let _forward = signal
            .as_ref()
            .map(|signal| ForwardAbort::new(signal, &controller));
        let mut request = gloo_net::http::Request::post(&self.config.chat_completions_url())
            .header("content-type", "application/json")
            .abort_signal(Some(&controller.signal()));
        if let Some(key) = &self.config.api_key {
            request = request.header("authorization", &format!("Bearer {key}"));
        }
        for (name, value) in &self.config.headers {
            request = request.header(name, value);
        }
        let request = request.body(body).map_err(|error| {
            ClientError::new(
                ClientErrorKind::Network,
                format!("cannot build the request: {error}"),
            )
        })?;
        let outcome = async {
            let response = request.send().await?;
            let status = response.status();
            let text = response.text().await?;
            Ok::<_, gloo_net::Error>((status, text))
        }
        .await;
        let aborted = controller.signal().aborted();
        timer.clear();
        match outcome {
            Ok((status, text)) => read_chat_response(status, &text),
            Err(_) if signal.as_ref().is_some_and(web_sys::AbortSignal::aborted) => {
                Err(aborted_by_caller())
            }
            Err(_) if aborted => Err(ClientError::new(
                ClientErrorKind::Timeout,
                format!(
                    "no answer from {} within {} ms",
                    self.config.base_url, self.config.timeout_ms
                ),
            )),
            Err(error) => Err(ClientError::new(
                ClientErrorKind::Network,
                format!("{}: {error}", self.config.base_url),
            )),
        }
    }
}

impl OpenAiClient {
    /// One query, aborted early when `signal` (the caller's AbortSignal) fires.
    async fn query_with_signal(
        &self,
        prompt: &str,
        options: &QueryOptions,
        signal: Option<web_sys::AbortSignal>,
    ) -> QueryReply {
        let body = chat_request_body(&self.config, prompt, options).to_string();
        match self.post(&body, signal).await {
            Ok(answer) => reply_from_content(answer, self.config.starts_in_reasoning),
            Err(error) => reply_from_error(error),
        }
    }
}

impl Llm for OpenAiClient {
    async fn query(&self, prompt: &str, options: &QueryOptions) -> Result<QueryReply, PortError> {
        Ok(self.query_with_signal(prompt, options, None).await)
    }
}

/// Aborts the request's controller when the caller's signal fires; the listener is removed on drop.
struct ForwardAbort {
    signal: web_sys::AbortSignal,
    callback: Closure<dyn FnMut()>,
}

impl ForwardAbort {
    fn new(signal: &web_sys::AbortSignal, controller: &web_sys::AbortController) -> Self {
        let controller = controller.clone();
        let callback = Closure::<dyn FnMut()>::new(move || controller.abort());
        let _ = signal.add_event_listener_with_callback("abort", callback.as_ref().unchecked_ref());
        Self {
            signal: signal.clone(),
            callback,
        }
    }
}

impl Drop for ForwardAbort {
    fn drop(&mut self) {
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", self.callback.as_ref().unchecked_ref());
    }
}

/// A `setTimeout` that aborts the request, cleared when the answer arrives.
struct Timer {
    handle: Option<JsValue>,
    _callback: Option<Closure<dyn FnMut()>>,
}

impl Timer {
    fn start(controller: &web_sys::AbortController, timeout_ms: u32) -> Self {
        let controller = controller.clone();
        let callback = Closure::<dyn FnMut()>::new(move || controller.abort());
        let global = js_sys::global();
        let set_timeout = Reflect::get(&global, &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        let handle = set_timeout.and_then(|f| {
            f.call2(&global, callback.as_ref(), &JsValue::from(timeout_ms))
                .ok()
        });
        Self {
            handle,
            _callback: Some(callback),
        }
    }

    fn clear(self) {
        let global = js_sys::global();
        if let (Some(handle), Ok(clear)) =
            (&self.handle, Reflect::get(&global, &"clearTimeout".into()))
        {
            if let Ok(clear) = clear.dyn_into::<Function>() {
                let _ = clear.call1(&global, handle);
            }
        }
    }
}

/// The built-in client as a QueryFn: `(prompt, { outputSchema, schemaName, signal? }) => Promise<QueryReply>`.
#[wasm_bindgen(js_name = openAICompatible, unchecked_return_type = "QueryFn")]
pub fn open_ai_compatible(
    #[wasm_bindgen(unchecked_param_type = "ClientConfig")] config: JsValue,
) -> Result<JsValue, JsValue> {
    let config: ClientConfig =
        from_js_valid("config", &config).map_err(|error| input_error(&error))?;
    let client = Rc::new(OpenAiClient::new(config));
    let query = Closure::<dyn Fn(JsValue, JsValue) -> Promise>::new(
        move |prompt: JsValue, options: JsValue| {
            let client = Rc::clone(&client);
            future_to_promise(async move {
                let prompt =
                    super::args::text("prompt", &prompt).map_err(|error| input_error(&error))?;
                // An AbortSignal in `options.signal` cancels the request (JSON drops it from the rest).
                let signal = Reflect::get(&options, &"signal".into())
                    .ok()
                    .and_then(|signal| signal.dyn_into::<web_sys::AbortSignal>().ok());
                // The rest is JSON data: read without the signal (a host object).
                let data = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
                let _ = Reflect::delete_property(&data, &"signal".into());
                let options: QueryOptions = super::convert::from_js("options", &data.into())
                    .map_err(|error| input_error(&error))?;
                let reply = client.query_with_signal(&prompt, &options, signal).await;
                Ok(to_js(&reply))
            })
        },
    );
    Ok(query.into_js_value())
}
