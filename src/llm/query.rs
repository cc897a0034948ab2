//! The query port's wire shapes: the seed's `QueryFn (prompt, { outputSchema }) => { structuredOutput?, error? }`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

/// What a query is asked with, besides the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct QueryOptions {
    /// The strict JSON Schema the answer must follow.
    #[tsify(type = "Record<string, unknown>")]
    pub output_schema: Value,
    /// The schema's name (for OpenAI `json_schema.name`).
    pub schema_name: String,
}

/// A query's answer: the structured output, or why there is none. `text` carries raw model text when the
/// host has no structured output of its own (it is then extracted and parsed here).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct QueryReply {
    #[serde(default)]
    #[tsify(optional, type = "Record<string, unknown>")]
    pub structured_output: Option<Value>,
    #[serde(default)]
    #[tsify(optional)]
    pub text: Option<String>,
    #[serde(default)]
    #[tsify(optional)]
    pub error: Option<String>,
    /// Set by the built-in client: what kind of failure `error` is.
    #[serde(default)]
    #[tsify(optional)]
    pub error_kind: Option<super::client_error_kind::ClientErrorKind>,
    /// Why the generation stopped, as the endpoint said (`stop`, `length`, `content_filter`, ...). `length`
    /// makes any answer `truncated`, however complete it looks; `content_filter` is a failed query.
    #[serde(default)]
    #[tsify(optional)]
    pub finish_reason: Option<String>,
    /// The server's separate reasoning field (`reasoning_content`, `reasoning`): kept for the record, never
    /// read as the answer.
    #[serde(default)]
    #[tsify(optional)]
    pub reasoning: Option<String>,
    /// The model's chat template opens a reasoning block in the prompt (DeepSeek-R1): the text before the
    /// first `</think>` is reasoning, and a text without one ended inside it.
    #[serde(default)]
    #[tsify(optional)]
    pub starts_in_reasoning: Option<bool>,
}
