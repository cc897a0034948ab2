//! A model's answer, typed: reasoning stripped, every candidate considered, strict values, repairs listed,
//! ambiguity refused. The error says what went wrong and where.
//!
//! Selection, after the text's reasoning sections are removed:
//! 1. a bracket opened after every candidate and never closed: `truncated`, even if a draft before it
//!    was complete;
//! 2. the last candidate that looks like the answer (it has one of the answer's fields) decides when it
//!    is broken (duplicate key, alias, wrong type, out of range): a broken final answer is never replaced
//!    by an earlier draft;
//! 3. candidates in an answer tag or after a "final answer" marker are preferred to the rest;
//! 4. when two or more usable candidates disagree on any value: `ambiguous`, listing them.

use super::candidates::{Candidate, find_candidates};
use super::reasoning::strip_reasoning;
use super::repair::{Repair, repair};
use super::schema::OutputSchema;
use super::shape::{ShapeError, conform, folded as fold, top_level_fields};
use super::strict_json::{StrictError, parse_strict};
use super::unwrap::unwrap_answer;
use crate::input::{InputError, parse_json_value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use tsify::Tsify;

/// How much of the raw answer an error keeps.
pub const MAX_RAW_IN_ERROR: usize = 16 * 1024;

/// Largest model answer examined, in bytes.
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// A type a model answers with: its schema, and what the schema cannot say.
pub trait ModelAnswer: DeserializeOwned + Serialize {
    /// The strict schema sent to the model; the answer's shape is checked against it. Read once.
    fn answer_schema() -> &'static OutputSchema;
    /// Keys that would carry a verdict this answer does not have (`verdict`, `status`): an error.
    fn verdict_words() -> &'static [&'static str] {
        &[]
    }
    /// Checks beyond the schema: ranges, non-empty ids.
    fn check(&self) -> Result<(), InputError> {
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum StructuredErrorKind {
    /// No JSON value could be taken from the text.
    NoJson,
    /// JSON was found but does not have the expected shape (or is out of range).
    Schema,
    /// The model (or the endpoint) failed to answer.
    Query,
    /// The answer ends inside an unfinished JSON value.
    Truncated,
    /// Two or more usable answers disagree.
    Ambiguous,
    /// A key appears twice in one object.
    DuplicateKey,
    /// The answer needed repairs and the host refuses repaired answers (`allowRepairs: false`).
    RepairsRefused,
}

/// A model answer that could not be used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct StructuredError {
    pub kind: StructuredErrorKind,
    pub message: String,
    /// Dotted JSON path of the first bad field (schema and duplicate-key errors), `""` for the whole value.
    pub path: String,
    /// The answer ends inside an unfinished JSON value.
    pub truncated: bool,
    /// The answer as received (cut to 16 KiB).
    pub raw: String,
    /// The disagreeing answers, for `ambiguous`.
    #[serde(default)]
    #[tsify(type = "unknown[]")]
    pub candidates: Vec<Value>,
}

impl StructuredError {
    fn new(kind: StructuredErrorKind, message: impl Into<String>, raw: &str) -> Self {
        Self {
            kind,
            message: message.into(),
            path: String::new(),
            truncated: kind == StructuredErrorKind::Truncated,
            raw: clip(raw),
            candidates: Vec::new(),
        }
    }

    pub fn query(message: impl Into<String>) -> Self {
        Self::new(StructuredErrorKind::Query, message, "")
    }

    pub fn schema(path: impl Into<String>, message: impl Into<String>, raw: &str) -> Self {
        Self {
            path: path.into(),
            ..Self::new(StructuredErrorKind::Schema, message, raw)
        }
    }

    fn duplicate(path: String, raw: &str) -> Self {
        Self {
            message: format!("the key `{path}` appears twice"),
            path,
            ..Self::new(StructuredErrorKind::DuplicateKey, "", raw)
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

/// What the host accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept an answer that needed repairs or unwrapping (default true); when false it is refused.
    pub allow_repairs: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            allow_repairs: allow_repairs_by_default(),
        }
    }
}

/// Repaired answers are accepted (and listed) unless a host says otherwise; the default of every
/// component's `allowRepairs` option.
pub fn allow_repairs_by_default() -> bool {
    true
}

/// A usable answer, with every repair it needed and the unknown keys that were removed.
#[derive(Debug, PartialEq)]
pub struct Parsed<T> {
    pub value: T,
    pub repairs: Vec<Repair>,
    pub ignored_fields: Vec<String>,
}

/// What one candidate gave.
enum Outcome<T> {
    Usable(Parsed<T>, Value),
    /// JSON of the wrong shape; `answer_like` when it has one of the answer's fields.
    Broken(StructuredError, bool),
    NotJson(String),
}

/// Extracts and parses `T` from model text, with the default options.
pub fn parse_structured<T: ModelAnswer>(text: &str) -> Result<Parsed<T>, StructuredError> {
    parse_answer(text, ParseOptions::default())
}

/// Extracts and parses `T` from model text.
pub fn parse_answer<T: ModelAnswer>(
    text: &str,
    options: ParseOptions,
) -> Result<Parsed<T>, StructuredError> {
    if text.len() > MAX_ANSWER_BYTES {
        return Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            format!(
                "the answer is {} bytes; at most {MAX_ANSWER_BYTES} are examined",
                text.len()
            ),
            "",
        ));
    }
    let schema = T::answer_schema();
    let stripped = strip_reasoning(text);
    if stripped.trim().is_empty() {
        return Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            "the answer is empty (or only reasoning)",
            text,
        ));
    }
    let found = find_candidates(&stripped);
    if let Some(at) = found.truncated_at {
        return Err(StructuredError::new(
            StructuredErrorKind::Truncated,
            format!(
                "the JSON value starting at byte {at} is never closed: the answer looks truncated"
            ),
            text,
        ));
    }
    let evaluated: Vec<(&Candidate<'_>, Outcome<T>)> = found
        .candidates
        .iter()
        .map(|candidate| (candidate, evaluate::<T>(candidate, schema, text)))
        .collect();
    let last_answer = evaluated
        .iter()
        .rev()
        .find(|(_, outcome)| matches!(outcome, Outcome::Usable(..) | Outcome::Broken(_, true)));
    if let Some((_, Outcome::Broken(error, _))) = last_answer {
        return Err(error.clone());
    }
    let usable: Vec<(&Candidate<'_>, &Parsed<T>, &Value)> = evaluated
        .iter()
        .filter_map(|(candidate, outcome)| match outcome {
            Outcome::Usable(parsed, canonical) => Some((*candidate, parsed, canonical)),
            _ => None,
        })
        .collect();
    let preferred: Vec<_> = usable
        .iter()
        .filter(|(c, _, _)| c.preferred)
        .copied()
        .collect();
    let pool = if preferred.is_empty() {
        usable
    } else {
        preferred
    };
    let Some(&(chosen_candidate, _, canonical)) = pool.last() else {
        return Err(no_answer(&evaluated, text));
    };
    if pool.iter().any(|(_, _, other)| *other != canonical) {
        let mut distinct: Vec<Value> = Vec::new();
        for (_, _, value) in &pool {
            if !distinct.contains(value) {
                distinct.push((*value).clone());
            }
        }
        return Err(StructuredError {
            candidates: distinct,
            ..StructuredError::new(
                StructuredErrorKind::Ambiguous,
                format!(
                    "the answer holds {} JSON answers that disagree; give exactly one",
                    pool.len()
                ),
                text,
            )
        });
    }
    let chosen_start = chosen_candidate.start;
    let chosen = evaluated
        .into_iter()
        .find_map(|(candidate, outcome)| match outcome {
            Outcome::Usable(parsed, _) if candidate.start == chosen_start => Some(parsed),
            _ => None,
        });
    match chosen {
        Some(parsed) => refuse_repairs(parsed, options, text),
        None => Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            "the answer contains no JSON object",
            text,
        )),
    }
}

/// A structured output the endpoint already parsed (the QueryFn's `structuredOutput`), held to the same
/// rules as text: unwrapping recorded, shape and ranges checked.
pub fn parse_answer_value<T: ModelAnswer>(
    value: Value,
    options: ParseOptions,
) -> Result<Parsed<T>, StructuredError> {
    let raw = value.to_string();
    match typed::<T>(value, T::answer_schema(), 0, Vec::new(), &raw) {
        Outcome::Usable(parsed, _) => refuse_repairs(parsed, options, &raw),
        Outcome::Broken(error, _) => Err(error),
        Outcome::NotJson(message) => Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            message,
            &raw,
        )),
    }
}

fn refuse_repairs<T>(
    parsed: Parsed<T>,
    options: ParseOptions,
    raw: &str,
) -> Result<Parsed<T>, StructuredError> {
    if options.allow_repairs || parsed.repairs.is_empty() {
        return Ok(parsed);
    }
    let kinds: Vec<String> = parsed
        .repairs
        .iter()
        .map(|repair| format!("{:?} at {}", repair.kind, repair.offset))
        .collect();
    Err(StructuredError::new(
        StructuredErrorKind::RepairsRefused,
        format!(
            "the answer is not strict JSON (it needed: {}); repaired answers are refused",
            kinds.join(", ")
        ),
        raw,
    ))
}

/// The error when no candidate is usable: the last broken one's, else why there is no JSON.
fn no_answer<T>(evaluated: &[(&Candidate<'_>, Outcome<T>)], text: &str) -> StructuredError {
    if let Some(error) = evaluated
        .iter()
        .rev()
        .find_map(|(_, outcome)| match outcome {
            Outcome::Broken(error, _) => Some(error.clone()),
            _ => None,
        })
    {
        return error;
    }
    let message = evaluated
        .iter()
        .rev()
        .find_map(|(_, outcome)| match outcome {
            Outcome::NotJson(message) => Some(format!("the answer is not valid JSON: {message}")),
            _ => None,
        })
        .unwrap_or_else(|| "the answer contains no JSON object".to_owned());
    StructuredError::new(StructuredErrorKind::NoJson, message, text)
}

fn evaluate<T: ModelAnswer>(
    candidate: &Candidate<'_>,
    schema: &OutputSchema,
    raw: &str,
) -> Outcome<T> {
    let offset = candidate.start;
    let (value, repairs) = match parse_strict(candidate.text) {
        Ok(value) => (value, Vec::new()),
        Err(StrictError::DuplicateKey { path }) => {
            return Outcome::Broken(StructuredError::duplicate(path, raw), true);
        }
        Err(StrictError::Syntax { message, .. }) => match repair(candidate.text) {
            Some((fixed, repairs)) => match parse_strict(&fixed) {
                Ok(value) => {
                    let repairs = repairs
                        .into_iter()
                        .map(|repair| Repair {
                            offset: repair.offset + offset,
                            ..repair
                        })
                        .collect();
                    (value, repairs)
                }
                Err(StrictError::DuplicateKey { path }) => {
                    return Outcome::Broken(StructuredError::duplicate(path, raw), true);
                }
                Err(StrictError::Syntax { .. }) => return Outcome::NotJson(message),
            },
            None => return Outcome::NotJson(message),
        },
    };
    typed::<T>(value, schema, offset, repairs, raw)
}

/// Unwrap, check the shape, parse the type, check the ranges.
fn typed<T: ModelAnswer>(
    value: Value,
    schema: &OutputSchema,
    offset: usize,
    mut repairs: Vec<Repair>,
    raw: &str,
) -> Outcome<T> {
    let fields = top_level_fields(&schema.schema);
    let names = [schema.name.as_str()];
    let mut value = unwrap_answer(value, &fields, &names, offset, &mut repairs);
    let answer_like = value.as_object().is_some_and(|object| {
        object.keys().any(|key| {
            let key = fold(key);
            fields.iter().any(|field| fold(field) == key)
                || T::verdict_words().iter().any(|word| fold(word) == key)
        })
    });
    let ignored_fields = match conform(&mut value, &schema.schema, T::verdict_words()) {
        Ok(ignored) => ignored,
        Err(ShapeError { path, message }) => {
            return Outcome::Broken(StructuredError::schema(path, message, raw), answer_like);
        }
    };
    let parsed: T = match parse_json_value(value) {
        Ok(parsed) => parsed,
        Err(error) => {
            return Outcome::Broken(
                StructuredError::schema(error.path, error.message, raw),
                answer_like,
            );
        }
    };
    if let Err(error) = parsed.check() {
        return Outcome::Broken(
            StructuredError::schema(error.path, error.message, raw),
            answer_like,
        );
    }
    let canonical = serde_json::to_value(&parsed).unwrap_or(Value::Null);
    Outcome::Usable(
        Parsed {
            value: parsed,
            repairs,
            ignored_fields,
        },
        canonical,
    )
}
