//! The OpenAI-compatible Chat Completions wire format, pure: the request body a query becomes, and what an
//! HTTP answer means (content, or a typed error). The transport lives in the wasm layer.

pub use super::client_error_kind::ClientErrorKind;
use super::query::{QueryOptions, QueryReply};
use super::strict_json::parse_strict;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tsify::Tsify;

/// How the built-in client reaches an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientConfig {
    /// e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8081/v1`.
    pub base_url: String,
    pub model: String,
    #[serde(default)]
    #[tsify(optional)]
    pub api_key: Option<String>,
    /// Extra request headers.
    #[serde(default)]
    #[tsify(optional, type = "Record<string, string>")]
    pub headers: std::collections::BTreeMap<String, String>,
    /// Milliseconds before the request is aborted (default 60 000).
    #[serde(default = "default_timeout")]
    #[tsify(optional)]
    pub timeout_ms: u32,
    /// Most tokens the model may write (default 1024).
    #[serde(default = "default_max_tokens")]
    #[tsify(optional)]
    pub max_tokens: u32,
    #[serde(default)]
    #[tsify(optional)]
    pub temperature: f64,
    /// The model's chat template opens a reasoning block in the prompt (DeepSeek-R1 and its distillations):
    /// text before the first `</think>` is reasoning; an answer without one ended inside it.
    #[serde(default)]
    #[tsify(optional)]
    pub starts_in_reasoning: bool,
}

fn default_timeout() -> u32 {
    60_000
}

fn default_max_tokens() -> u32 {
    1024
}

impl crate::input::Validate for ClientConfig {
    fn validate(&self) -> Result<(), crate::input::InputError> {
        use crate::input::{InputError, require_non_empty};
        require_non_empty("baseUrl", &self.base_url)?;
        require_non_empty("model", &self.model)?;
        if !(self.base_url.starts_with("http://") || self.base_url.starts_with("https://")) {
            return Err(InputError::invalid(
                "baseUrl",
                "must start with http:// or https://",
            ));
        }
        if self.timeout_ms == 0 {
            return Err(InputError::invalid("timeoutMs", "must be positive"));
        }
        Ok(())
    }
}

impl ClientConfig {
    pub fn chat_completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    pub kind: ClientErrorKind,
    pub message: String,
}

impl ClientError {
    pub fn new(kind: ClientErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// The request body: one user message, the strict schema as `response_format`.
pub fn chat_request_body(config: &ClientConfig, prompt: &str, options: &QueryOptions) -> Value {
    json!({
        "model": config.model,
        "messages": [{ "role": "user", "content": prompt }],
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "response_format": {
            "type": "json_schema",
            "json_schema": { "name": options.schema_name, "strict": true, "schema": options.output_schema },
        },
    })
}

/// Reads an HTTP answer: the assistant's content with its finish reason and reasoning, or a typed error.
pub fn read_chat_response(status: u16, body: &str) -> Result<ChatAnswer, ClientError> {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    if !(200..300).contains(&status) {
        let detail = parsed
            .as_ref()
            .and_then(|v| {
                v.pointer("/error/message")
                    .or_else(|| v.get("error"))
                    .or_else(|| v.get("message"))
            })
            .and_then(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .or_else(|| Some(v.to_string()))
            })
            .unwrap_or_else(|| snippet(body));
        return Err(ClientError::new(
            ClientErrorKind::Http,
            format!("HTTP {status}: {detail}"),
        ));
    }
    let Some(value) = parsed else {
        return Err(ClientError::new(
            ClientErrorKind::InvalidResponse,
            format!("the body is not JSON: {}", snippet(body)),
        ));
    };
    let message = value.pointer("/choices/0/message").ok_or_else(|| {
        ClientError::new(
            ClientErrorKind::InvalidResponse,
            format!("no choices[0].message in {}", snippet(body)),
        )
    })?;
    if let Some(refusal) = message
        .get("refusal")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
    {
        return Err(ClientError::new(
            ClientErrorKind::Refusal,
            format!("the model refused: {refusal}"),
        ));
    }
    let reasoning = ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|key| message.get(*key).and_then(Value::as_str))
        .filter(|text| !text.is_empty())
        .map(str::to_owned);
    let finish_reason = value
        .pointer("/choices/0/finish_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let content = match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        // A model cut off (or answering) in its reasoning field has no content: the parse says so.
        None | Some(Value::Null) if reasoning.is_some() || finish_reason.is_some() => String::new(),
        _ => {
            return Err(ClientError::new(
                ClientErrorKind::InvalidResponse,
                "choices[0].message.content is not text",
            ));
        }
    };
    Ok(ChatAnswer {
        content,
        finish_reason,
        reasoning,
    })
}

/// What a Chat Completions answer holds for the parser: the content, why the generation stopped, and the
/// server's separate reasoning field (never read as the answer).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChatAnswer {
    pub content: String,
    pub finish_reason: Option<String>,
    pub reasoning: Option<String>,
}

/// The seed's QueryFn answer for model content: structured output when the content is strict JSON, and
/// the raw text always (so the caller's parse reports exactly what is wrong).
pub fn reply_from_content(answer: ChatAnswer, starts_in_reasoning: bool) -> QueryReply {
    // Structured only when the whole content is one strict JSON value; anything else is left to the
    // caller's parse, which strips reasoning, weighs every candidate and lists repairs.
    let structured_output = if starts_in_reasoning {
        None
    } else {
        parse_strict(answer.content.trim()).ok()
    };
    QueryReply {
        structured_output,
        text: Some(answer.content),
        finish_reason: answer.finish_reason,
        reasoning: answer.reasoning,
        starts_in_reasoning: starts_in_reasoning.then_some(true),
        ..QueryReply::default()
    }
}

/// The QueryFn answer for a client error.
pub fn reply_from_error(error: ClientError) -> QueryReply {
    QueryReply {
        error: Some(error.message),
        error_kind: Some(error.kind),
        ..QueryReply::default()
    }
}

fn snippet(body: &str) -> String {
    let cut: String = body.chars().take(300).collect();
    if cut.len() < body.len() {
        format!("{cut}…")
    } else {
        cut
    }
}
