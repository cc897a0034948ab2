//! Why a call of an OpenAI-compatible endpoint gave no usable content (carried in a query's reply).

use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// Why a Chat Completions call gave no usable content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum ClientErrorKind {
    /// The endpoint answered with a non-2xx status.
    Http,
    /// No answer within the timeout.
    Timeout,
    /// The caller aborted the call through the `signal` it passed in the options.
    Aborted,
    /// The request did not reach the endpoint.
    Network,
    /// The model refused to answer.
    Refusal,
    /// The body is not a Chat Completions answer.
    InvalidResponse,
}
