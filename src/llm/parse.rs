//! Typed structured output from model text, with an error that says what went wrong and where.

use super::extract::{ExtractFailure, extract_json};
use crate::input::parse_json_value;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;
use tsify::Tsify;

/// How much of the raw answer an error keeps.
pub const MAX_RAW_IN_ERROR: usize = 16 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum StructuredErrorKind {
    /// No JSON value could be taken from the text.
    NoJson,
    /// JSON was found but does not have the expected shape.
    Schema,
    /// The model (or the endpoint) failed to answer.
    Query,
}

/// A model answer that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct StructuredError {
    pub kind: StructuredErrorKind,
    pub message: String,
    /// Dotted JSON path of the first bad field (schema errors), `""` for the whole value.
    pub path: String,
    /// The answer ends inside an unfinished JSON value.
    pub truncated: bool,
    /// The answer as received (cut to 16 KiB).
    pub raw: String,
}

impl StructuredError {
    pub fn query(message: impl Into<String>) -> Self {
        Self {
            kind: StructuredErrorKind::Query,
            message: message.into(),
            path: String::new(),
            truncated: false,
            raw: String::new(),
        }
    }

    /// The model gave no text at all (OpenAI's `message.content === null` for a refusal or a tool call).
    pub fn no_content() -> Self {
        Self {
            kind: StructuredErrorKind::NoJson,
            message: "The model gave no text (the content is null: a refusal or a tool call)."
                .to_owned(),
            path: String::new(),
            truncated: false,
            raw: String::new(),
        }
    }

    pub fn schema(path: impl Into<String>, message: impl Into<String>, raw: &str) -> Self {
        Self {
            kind: StructuredErrorKind::Schema,
            message: message.into(),
            path: path.into(),
            truncated: false,
            raw: clip(raw),
        }
    }

    fn no_json(failure: ExtractFailure, raw: &str) -> Self {
        Self {
            kind: StructuredErrorKind::NoJson,
            message: failure.message,
            path: String::new(),
            truncated: failure.truncated,
            raw: clip(raw),
        }
    }
}

impl fmt::Display for StructuredError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, self.path.is_empty()) {
            (StructuredErrorKind::Schema, false) => {
                write!(f, "at `{}`: {}", self.path, self.message)
            }
            _ => f.write_str(&self.message),
        }
    }
}

fn clip(raw: &str) -> String {
    if raw.len() <= MAX_RAW_IN_ERROR {
        return raw.to_owned();
    }
    let mut end = MAX_RAW_IN_ERROR;
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    raw.get(..end).unwrap_or_default().to_owned()
}

/// Extracts and parses `T` from model text.
pub fn parse_structured<T: DeserializeOwned>(text: &str) -> Result<T, StructuredError> {
    let value = extract_json(text).map_err(|failure| StructuredError::no_json(failure, text))?;
    parse_json_value(value)
        .map_err(|error| StructuredError::schema(error.path, error.message, text))
}
