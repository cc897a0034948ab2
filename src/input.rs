//! Parsing of caller-supplied JSON into typed values, with a stable error code and the path of the bad field.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;

/// Stable, machine-readable codes for contract violations by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputErrorCode {
    /// The input is not JSON, or does not have the documented shape.
    InvalidInput,
    /// A host port (store, skill, clock) is missing or is not a function.
    InvalidPort,
    /// A signing key is unusable (empty id, secret too short).
    InvalidKey,
}

impl InputErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidInput => "invalid_input",
            Self::InvalidPort => "invalid_port",
            Self::InvalidKey => "invalid_key",
        }
    }
}

/// The caller broke the contract: the error names the field (`path`, dotted, `""` for the whole value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputError {
    pub code: InputErrorCode,
    pub path: String,
    pub message: String,
    /// For a field the shape does not have: the fields it has (so a caller can name its own options too).
    #[serde(skip)]
    pub known_fields: Vec<String>,
}

impl InputError {
    pub fn new(code: InputErrorCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code,
            path: path.into(),
            message: message.into(),
            known_fields: Vec::new(),
        }
    }

    pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(InputErrorCode::InvalidInput, path, message)
    }

    /// The same error, with `prefix` prepended to its path (for values nested in a larger input).
    pub fn within(mut self, prefix: &str) -> Self {
        self.path = join_path(prefix, &self.path);
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.code.as_str(), self.message)
        } else {
            write!(
                f,
                "{} at `{}`: {}",
                self.code.as_str(),
                self.path,
                self.message
            )
        }
    }
}

impl std::error::Error for InputError {}

fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

/// Largest JSON text accepted from a caller or a store, in bytes.
pub const MAX_INPUT_BYTES: usize = 1 << 20;

/// Parses JSON text into `T`; on failure the error carries the path of the first bad field.
pub fn parse_json_str<T: DeserializeOwned>(text: &str) -> Result<T, InputError> {
    parse_json_str_within(text, MAX_INPUT_BYTES)
}

/// [`parse_json_str`] with another size limit, for inputs that are large by nature (a saved loop state
/// that the core trims after reading).
pub fn parse_json_str_within<T: DeserializeOwned>(
    text: &str,
    limit: usize,
) -> Result<T, InputError> {
    within_limit(text, limit)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(&mut deserializer).map_err(|error| located_error(text, &error))?;
    nothing_after(deserializer)?;
    Ok(value)
}

// The parts of `parse_json_str_within` that do not depend on `T`, compiled once instead of per type.
#[inline(never)]
fn within_limit(text: &str, limit: usize) -> Result<(), InputError> {
    if text.len() > limit {
        return Err(InputError::invalid(
            "",
            format!("input is {} bytes; the limit is {limit}", text.len()),
        ));
    }
    Ok(())
}

#[inline(never)]
fn nothing_after(
    mut deserializer: serde_json::Deserializer<serde_json::de::StrRead<'_>>,
) -> Result<(), InputError> {
    deserializer.end().map_err(|error| {
        InputError::invalid(
            "",
            format!("trailing characters after the JSON value: {error}"),
        )
    })
}

/// Converts an already-parsed JSON value into `T`, with the path of the first bad field on failure.
pub fn parse_json_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, InputError> {
    // Only text has positions to name a field by: the value is written out and read back.
    parse_json_str(&to_json_string(&value))
}

/// The error with the path of the value serde_json stopped at (see [`crate::json_path`]).
fn located_error(text: &str, error: &serde_json::Error) -> InputError {
    let path = if error.line() == 0 {
        String::new()
    } else {
        let offset = crate::json_path::offset_of(text, error.line(), error.column());
        crate::json_path::path_at(text, offset)
    };
    let message = strip_position(&error.to_string());
    // serde reports a missing field at its parent; the path should name the field itself.
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    if let Some(field) = missing {
        return InputError::invalid(join_path(&path, field), message);
    }
    // An enum written as `{"variant": ...}` with an unknown variant: the key is the value, not a member.
    let unknown_variant = message
        .strip_prefix("unknown variant `")
        .and_then(|rest| rest.split('`').next());
    if let Some(parent) = unknown_variant.and_then(|variant| {
        path.strip_suffix(variant)
            .map(|rest| rest.trim_end_matches('.').to_owned())
    }) {
        return InputError::invalid(parent, message);
    }
    if let Some((field, known)) = unknown_field_of(&message) {
        let names: Vec<&str> = known.iter().map(String::as_str).collect();
        let reworded = crate::closest_name::not_known(&field, "a known field", &names);
        return InputError {
            known_fields: known,
            ..InputError::invalid(path, reworded)
        };
    }
    InputError::invalid(path, message)
}

/// The field and the known fields of serde's "unknown field `x`, expected one of `a`, `b`" (or "expected
/// `a`", or "there are no fields"), reworded as "`x` is not a known field; did you mean `a`?".
fn unknown_field_of(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (field, expected) = rest.split_once('`')?;
    let known = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    Some((field.to_owned(), known))
}

/// serde_json appends " at line L column C" to its messages; the path already says where.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message.get(..index).unwrap_or(message).to_owned(),
        None => message.to_owned(),
    }
}

/// Serialises a value the crate owns to JSON text. Serialising plain data structs cannot fail; should it
/// ever, the error text is returned instead so no caller has to handle an impossible case by panicking.
pub fn to_json_string<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|error| format!("{{\"serialization_error\":{:?}}}", error.to_string()))
}

/// Checks beyond types that a parsed input must pass (non-empty identifiers and the like).
pub trait Validate {
    fn validate(&self) -> Result<(), InputError>;
}

/// A list is valid when every item is; the error names the item by index.
impl<T: Validate> Validate for Vec<T> {
    fn validate(&self) -> Result<(), InputError> {
        self.iter().enumerate().try_for_each(|(index, item)| {
            item.validate()
                .map_err(|error| error.within(&format!("[{index}]")))
        })
    }
}

/// Parses JSON text into `T` and validates it.
pub fn parse_valid_json_str<T: DeserializeOwned + Validate>(text: &str) -> Result<T, InputError> {
    let value: T = parse_json_str(text)?;
    value.validate()?;
    Ok(value)
}

/// Checks that a required text field is not empty (after trimming).
pub fn require_non_empty(path: &str, value: &str) -> Result<(), InputError> {
    if value.trim().is_empty() {
        Err(InputError::invalid(path, "must not be empty"))
    } else {
        Ok(())
    }
}
