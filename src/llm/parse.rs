//! A model's answer, typed: display noise removed, reasoning set aside, the final answer found, every
//! candidate considered, strict values, repairs listed, templates and ambiguity refused. The error says what
//! went wrong and where.
//!
//! Selection:
//! 1. terminal escapes and zero-width characters outside strings are removed (listed as repairs);
//! 2. reasoning is set aside ([`super::reasoning`]); output that ends inside reasoning is `truncated`;
//! 3. a tool-call wrapper in the text is read only as a call of the answer tool ([`super::tool_calls`]);
//! 4. when the text marks a final answer (an answer tag, a "Final answer:" label, a Harmony final channel,
//!    the text after a closing reasoning marker), only that final part is read: when it holds no readable
//!    answer the parse refuses (`final_unreadable`), and nothing before it is read in its place;
//! 5. a bracket opened after every candidate and never closed: `truncated`, even if a draft before it was
//!    complete;
//! 6. templates (placeholder values, an echo of the prompt's own JSON) are not candidates; only templates:
//!    `template`;
//! 7. the last candidate that looks like the answer (it has one of the answer's fields) decides when it
//!    is broken (duplicate key, alias, wrong type, out of range): a broken final answer is never replaced
//!    by an earlier draft;
//! 8. when two or more usable candidates disagree on any value: `ambiguous`, listing them;
//! 9. when the endpoint says it stopped at its token limit (`finish_reason: "length"`), every answer is
//!    `truncated`, however complete it looks.

use super::candidates::{Candidate, final_region, find_candidates};
pub use super::error_kind::StructuredErrorKind;
use super::noise::strip_display_noise;
use super::reasoning::{marker_inside_string, visible_answer};
use super::repair::{Repair, RepairKind, repair};
use super::restatement::{restatement, schema_field_names};
use super::schema::OutputSchema;
use super::shape::{ShapeError, conform, folded as fold, top_level_fields};
use super::strict_json::{StrictError, parse_strict};
use super::template::{PromptValues, echoes_prompt, placeholder_in};
use super::text_search::find_ascii_ci;
use super::tool_calls::answer_from_tool_calls;
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

/// Most JSON values weighed in one answer (more is a model repeating itself, refused).
pub const MAX_CANDIDATES: usize = 256;

/// Whether a candidate tries to be the answer: it writes one of the answer's fields as a key, or names a
/// long field in any spelling (`all_complete`, `` `allComplete` ``, `allComplete =`).
fn tries_to_answer(text: &str, fields: &[String]) -> bool {
    if fields.iter().any(|field| names_key(text, field)) {
        return true;
    }
    let long: Vec<String> = fields
        .iter()
        .filter(|field| field.len() >= 6)
        .map(|field| fold_name(field))
        .collect();
    // Only a text that holds a long field's first letters in some spelling is folded whole.
    if !long.iter().any(|name| {
        name.get(..3)
            .is_some_and(|head| find_ascii_ci(text, head, 0).is_some())
    }) {
        return false;
    }
    let folded = fold_name(text);
    long.iter().any(|name| folded.contains(name.as_str()))
}

/// Letters and digits only, lower case: `all_complete`, `allComplete` and `` `allComplete` `` alike.
fn fold_name(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `text` writes `field` as a key: quoted (`"pass"`, `'pass'`) or bare and followed by a colon.
fn names_key(text: &str, field: &str) -> bool {
    text.match_indices(field).any(|(at, _)| {
        let before = text.get(..at).and_then(|head| head.chars().next_back());
        let after = text.get(at + field.len()..).unwrap_or_default();
        let quoted = matches!(before, Some('"' | '\'' | '“' | '`'))
            && after.starts_with(['"', '\'', '”', '`']);
        // `pass: false`, `pass = false`, `pass => false`, `Pass: no`.
        let bare = !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && after.trim_start().starts_with([':', '=']);
        quoted || bare
    })
}

/// The error with the answer as received (cut to 16 KiB).
fn with_raw(mut error: StructuredError, text: &str) -> StructuredError {
    error.raw = clip(text);
    error
}

/// A type a model answers with: its schema, and what the schema cannot say.
pub trait ModelAnswer: DeserializeOwned + Serialize {
    /// The strict schema sent to the model with the default list bounds; the answer's shape is checked
    /// against it. Read once. A host's own bounds make another schema ([`OutputSchema::bounded`]).
    fn answer_schema() -> &'static OutputSchema;
    /// Keys that would carry a verdict this answer does not have (`verdict`, `status`): an error.
    fn verdict_words() -> &'static [&'static str] {
        &[]
    }
    /// The answer's pass/fail verdict, when it has one (the Closer's `allComplete`, the Watcher's `pass`):
    /// text beside a passing answer that states a negative verdict makes it ambiguous.
    fn verdict(&self) -> Option<bool> {
        None
    }
    /// Checks beyond the schema: ranges, non-empty ids.
    fn check(&self) -> Result<(), InputError> {
        Ok(())
    }
    /// Reads a field written where an earlier or looser shape puts it into the place the schema has for it,
    /// before the shape check; an error when the two places disagree.
    fn normalize(_value: &mut Value) -> Result<(), InputError> {
        Ok(())
    }
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

/// What the host accepts, and what it knows about the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept an answer that needed repairs or unwrapping (default true); when false it is refused.
    pub allow_repairs: bool,
    /// The model's chat template opens a reasoning block in the prompt (DeepSeek-R1 and its distillations):
    /// the text before the first closing marker is reasoning, and a text without one ended inside it.
    pub starts_in_reasoning: bool,
    /// The endpoint stopped the generation at its token limit (`finish_reason: "length"`).
    pub cut_off: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            allow_repairs: allow_repairs_by_default(),
            starts_in_reasoning: false,
            cut_off: false,
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
    /// A template: why.
    Template(String),
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
    parse_answer_to::<T>(text, options, None)
}

/// Extracts and parses `T` from model text written in answer to `prompt`: a JSON value the prompt itself
/// holds (its format example) is a template, never an answer.
pub fn parse_answer_to<T: ModelAnswer>(
    text: &str,
    options: ParseOptions,
    prompt: Option<&str>,
) -> Result<Parsed<T>, StructuredError> {
    parse_answer_with::<T>(text, options, prompt, T::answer_schema())
}

/// [`parse_answer_to`] against `schema`: the schema that was sent, with the host's list bounds.
pub fn parse_answer_with<T: ModelAnswer>(
    text: &str,
    options: ParseOptions,
    prompt: Option<&str>,
    schema: &OutputSchema,
) -> Result<Parsed<T>, StructuredError> {
    let result = parse_text::<T>(text, options, prompt, schema);
    if options.cut_off {
        return cut_off(result, text);
    }
    result
}

/// An answer the endpoint cut at its token limit is never used, however complete it looks.
fn cut_off<T>(
    result: Result<Parsed<T>, StructuredError>,
    text: &str,
) -> Result<Parsed<T>, StructuredError> {
    match result {
        Ok(_) => Err(StructuredError::new(
            StructuredErrorKind::Truncated,
            "the endpoint stopped the generation at its token limit (finish_reason `length`): the answer \
             may be cut off",
            text,
        )),
        Err(mut error) => {
            error.truncated = true;
            if error.kind == StructuredErrorKind::NoJson {
                error.kind = StructuredErrorKind::Truncated;
            }
            error.message = format!(
                "{} (the endpoint stopped the generation at its token limit)",
                error.message
            );
            Err(error)
        }
    }
}

/// What the text offers once noise, reasoning and markers are dealt with: one tool call's arguments, or the
/// candidate spans of the final part. Not generic, so it is compiled once for every answer type.
enum Prepared {
    /// The call's arguments, and the text of every other candidate in the final part.
    ToolCall(Value, Vec<String>),
    Candidates {
        text: String,
        spans: Vec<(usize, usize)>,
        marker: Option<&'static str>,
    },
}

fn prepare(
    text: &str,
    options: ParseOptions,
    tool: &str,
    fields: &[String],
    all_fields: &[String],
) -> Result<(Prepared, Vec<Repair>), StructuredError> {
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
    let (cleaned, noise) = match strip_display_noise(text) {
        Some((cleaned, repairs)) => (std::borrow::Cow::Owned(cleaned), repairs),
        None => (std::borrow::Cow::Borrowed(text), Vec::new()),
    };
    if let Some(marker) = marker_inside_string(&cleaned) {
        return Err(StructuredError::new(
            StructuredErrorKind::Ambiguous,
            format!(
                "a reasoning, channel, chat-turn or tool-call marker (`{marker}`) is written inside a JSON \
                 string: where the answer starts cannot be told; quote such text without its markers"
            ),
            text,
        ));
    }
    let visible = visible_answer(&cleaned, options.starts_in_reasoning);
    if visible.ends_in_reasoning {
        return Err(StructuredError::new(
            StructuredErrorKind::Truncated,
            "the output ends inside a reasoning section: the model was cut off before it answered",
            text,
        ));
    }
    // One turn: what the output went on to write after the assistant's turn ended (an invented user turn
    // and a second answer) is never read as the answer, nor beside it.
    if tries_to_answer(&visible.after_turn, fields)
        || restatement(&visible.after_turn, all_fields, false).is_some()
    {
        return Err(StructuredError::new(
            StructuredErrorKind::Ambiguous,
            "the output goes on after the assistant's turn ended, and a later turn holds an answer or \
             restates one: which answer is meant cannot be told; write one turn",
            text,
        ));
    }
    if visible.text.trim().is_empty() {
        return Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            "the answer is empty (or only reasoning)",
            text,
        ));
    }
    let found = find_candidates(&visible.text);
    if found.exhausted {
        return Err(StructuredError::new(
            StructuredErrorKind::Truncated,
            "too many brackets are left open to tell where the answer starts or ends",
            text,
        ));
    }
    let region = final_region(&visible.text, &found.candidates);
    // An answer, or an attempt at one, after the marked final part: which one is final cannot be told.
    if let Some((_, to, marker)) = region {
        let after = found
            .candidates
            .iter()
            .find(|candidate| candidate.start >= to && tries_to_answer(candidate.text, fields));
        if after.is_some() {
            return Err(StructuredError::new(
                StructuredErrorKind::Ambiguous,
                format!(
                    "an answer follows the final answer marked by {marker}: write one final answer"
                ),
                text,
            ));
        }
    }
    // Tool-call wrappers are read in the final part only, and a call there is one answer among the others.
    let scope = region
        .and_then(|(from, to, _)| visible.text.get(from..to))
        .unwrap_or(&visible.text);
    if let Some(call) = answer_from_tool_calls(scope, tool) {
        let value =
            call.map_err(|refusal| StructuredError::new(refusal.kind, refusal.message, text))?;
        let mut repairs = noise;
        repairs.push(Repair {
            kind: RepairKind::ToolCall,
            offset: 0,
        });
        let others: Vec<String> = found
            .candidates
            .iter()
            .filter(|candidate| {
                region.is_none_or(|(from, to, _)| candidate.start >= from && candidate.end <= to)
            })
            .map(|candidate| candidate.text.to_owned())
            .collect();
        return Ok((Prepared::ToolCall(value, others), repairs));
    }
    let marker = region.map(|(_, _, marker)| marker).or(visible.final_marker);
    // A value never closed, in or after the final part: cut off.
    if let Some(at) = found
        .unclosed
        .iter()
        .copied()
        .find(|&open| region.is_none_or(|(from, _, _)| open >= from))
    {
        return Err(StructuredError::new(
            StructuredErrorKind::Truncated,
            format!(
                "the JSON value starting at byte {at} is never closed: the answer looks truncated"
            ),
            text,
        ));
    }
    // A value whose brackets do not match, in or after the final part: a broken answer, never passed over.
    if let Some(at) = found
        .mismatched
        .iter()
        .copied()
        .find(|&open| region.is_none_or(|(from, _, _)| open >= from))
    {
        return Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            format!(
                "the JSON value starting at byte {at} has a bracket that does not match: it is not valid \
                 JSON, and no other answer is read in its place"
            ),
            text,
        ));
    }
    let spans = found
        .candidates
        .iter()
        .filter(|candidate| {
            region.is_none_or(|(from, to, _)| candidate.start >= from && candidate.end <= to)
        })
        .map(|candidate| (candidate.start, candidate.end))
        .collect();
    let prepared = Prepared::Candidates {
        spans,
        marker,
        text: visible.text,
    };
    Ok((prepared, noise))
}

fn parse_text<T: ModelAnswer>(
    text: &str,
    options: ParseOptions,
    prompt: Option<&str>,
    schema: &OutputSchema,
) -> Result<Parsed<T>, StructuredError> {
    let all_fields = schema_field_names(&schema.schema);
    let (prepared, noise) = prepare(
        text,
        options,
        &schema.name,
        &top_level_fields(&schema.schema),
        &all_fields,
    )?;
    let prompt_values = prompt.map(json_values_in).unwrap_or_default();
    let (visible, spans, marker) = match prepared {
        Prepared::ToolCall(value, others) => {
            return match typed::<T>(value, schema, 0, noise, text, &prompt_values) {
                Outcome::Usable(parsed, canonical) => {
                    // Any other answer, or attempt at one (it writes one of the answer's fields), that is
                    // not this same answer: ambiguous. The call's own JSON reads as the same answer.
                    let fields = top_level_fields(&schema.schema);
                    if others.len() > MAX_CANDIDATES {
                        return Err(StructuredError::new(
                            StructuredErrorKind::NoJson,
                            format!(
                                "the answer holds more than {MAX_CANDIDATES} JSON values: write one"
                            ),
                            text,
                        ));
                    }
                    let disagrees = others.iter().any(|other| {
                        let candidate = Candidate {
                            start: 0,
                            end: other.len(),
                            text: other,
                        };
                        match evaluate::<T>(&candidate, schema, "", &prompt_values) {
                            Outcome::Usable(_, ref value) => *value != canonical,
                            _ => tries_to_answer(other, &fields),
                        }
                    });
                    if disagrees {
                        return Err(StructuredError::new(
                            StructuredErrorKind::Ambiguous,
                            "the text holds an answer besides the call of the answer tool, and they disagree",
                            text,
                        ));
                    }
                    refuse_repairs(parsed, options, text)
                }
                Outcome::Broken(error, _) => Err(error),
                Outcome::NotJson(message) | Outcome::Template(message) => Err(
                    StructuredError::new(StructuredErrorKind::Template, message, text),
                ),
            };
        }
        Prepared::Candidates {
            text,
            spans,
            marker,
        } => (text, spans, marker),
    };
    let candidates: Vec<Candidate<'_>> = spans
        .into_iter()
        .map(|(start, end)| Candidate {
            start,
            end,
            text: visible.get(start..end).unwrap_or_default().trim(),
        })
        .collect();
    if candidates.len() > MAX_CANDIDATES {
        return Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            format!(
                "the answer holds {} JSON values; at most {MAX_CANDIDATES} are weighed: write one",
                candidates.len()
            ),
            text,
        ));
    }
    let fields = top_level_fields(&schema.schema);
    // Errors of single candidates carry no copy of the text; the one returned gets it.
    let evaluated: Vec<(&Candidate<'_>, Outcome<T>, bool)> = candidates
        .iter()
        .map(|candidate| {
            let outcome = evaluate::<T>(candidate, schema, "", &prompt_values);
            let mentions_a_field = tries_to_answer(candidate.text, &fields);
            (candidate, outcome, mentions_a_field)
        })
        .collect();
    // The last candidate that is the answer or tries to be one (it names one of the answer's fields, even
    // broken, wrapped, templated or not JSON at all) decides when it is not usable: a broken final answer is
    // never replaced by an earlier draft.
    let last_answer = evaluated.iter().rev().find(|(_, outcome, mentions)| {
        matches!(outcome, Outcome::Usable(..) | Outcome::Broken(_, true)) || *mentions
    });
    match last_answer {
        Some((_, Outcome::Broken(error, _), _)) => return Err(with_raw(error.clone(), text)),
        Some((_, Outcome::Template(message), _)) => {
            return Err(StructuredError::new(
                StructuredErrorKind::Template,
                message.clone(),
                text,
            ));
        }
        Some((_, Outcome::NotJson(message), _)) => {
            return Err(StructuredError::new(
                match marker {
                    Some(_) => StructuredErrorKind::FinalUnreadable,
                    None => StructuredErrorKind::NoJson,
                },
                format!(
                    "the last answer is not valid JSON: {message}; no earlier draft is read in its place"
                ),
                text,
            ));
        }
        _ => {}
    }
    let evaluated: Vec<(&Candidate<'_>, Outcome<T>)> = evaluated
        .into_iter()
        .map(|(candidate, outcome, _)| (candidate, outcome))
        .collect();
    let pool: Vec<(&Candidate<'_>, &Parsed<T>, &Value)> = evaluated
        .iter()
        .filter_map(|(candidate, outcome)| match outcome {
            Outcome::Usable(parsed, canonical) => Some((*candidate, parsed, canonical)),
            _ => None,
        })
        .collect();
    let Some(&(chosen_candidate, _, canonical)) = pool.last() else {
        return Err(with_raw(no_answer(&evaluated, text, marker), text));
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
        Some(mut parsed) => {
            // After the final answer, silence or refusal: a correction or a contrary verdict is never
            // ignored.
            let after = visible.get(chosen_candidate.end..).unwrap_or_default();
            let passing = parsed.value.verdict() == Some(true);
            if let Some(why) = restatement(after, &all_fields, passing) {
                return Err(StructuredError::new(
                    StructuredErrorKind::Ambiguous,
                    format!(
                        "the text after the answer speaks of it ({why}): a correction is never ignored; \
                         give one final answer"
                    ),
                    text,
                ));
            }
            if !noise.is_empty() {
                parsed.repairs.splice(0..0, noise);
            }
            refuse_repairs(parsed, options, text)
        }
        None => Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            "the answer contains no JSON object",
            text,
        )),
    }
}

/// The JSON objects and arrays a prompt shows (its format examples), in canonical text.
fn json_values_in(prompt: &str) -> PromptValues {
    if prompt.len() > MAX_ANSWER_BYTES {
        return PromptValues::new();
    }
    find_candidates(prompt)
        .candidates
        .iter()
        .filter_map(|candidate| {
            parse_strict(candidate.text)
                .ok()
                .or_else(|| repair(candidate.text).and_then(|(fixed, _)| parse_strict(&fixed).ok()))
        })
        .map(|value| value.to_string())
        .collect()
}

/// A structured output the endpoint already parsed (the QueryFn's `structuredOutput`), held to the same
/// rules as text: unwrapping recorded, shape and ranges checked.
pub fn parse_answer_value<T: ModelAnswer>(
    value: Value,
    options: ParseOptions,
) -> Result<Parsed<T>, StructuredError> {
    parse_answer_value_with::<T>(value, options, T::answer_schema())
}

/// [`parse_answer_value`] against `schema`: the schema that was sent, with the host's list bounds.
pub fn parse_answer_value_with<T: ModelAnswer>(
    value: Value,
    options: ParseOptions,
    schema: &OutputSchema,
) -> Result<Parsed<T>, StructuredError> {
    let raw = value.to_string();
    let result = match typed::<T>(value, schema, 0, Vec::new(), &raw, &PromptValues::new()) {
        Outcome::Usable(parsed, _) => refuse_repairs(parsed, options, &raw),
        Outcome::Broken(error, _) => Err(error),
        Outcome::NotJson(message) => Err(StructuredError::new(
            StructuredErrorKind::NoJson,
            message,
            &raw,
        )),
        Outcome::Template(message) => Err(StructuredError::new(
            StructuredErrorKind::Template,
            message,
            &raw,
        )),
    };
    if options.cut_off {
        return cut_off(result, &raw);
    }
    result
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

/// The error when no candidate is usable: the last broken one's, else the last template's, else why the
/// final part or the text holds no answer.
fn no_answer<T>(
    evaluated: &[(&Candidate<'_>, Outcome<T>)],
    text: &str,
    marker: Option<&str>,
) -> StructuredError {
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
    if let Some(message) = evaluated
        .iter()
        .rev()
        .find_map(|(_, outcome)| match outcome {
            Outcome::Template(message) => Some(message.clone()),
            _ => None,
        })
    {
        return StructuredError::new(StructuredErrorKind::Template, message, text);
    }
    let reason = evaluated
        .iter()
        .rev()
        .find_map(|(_, outcome)| match outcome {
            Outcome::NotJson(message) => Some(format!("is not valid JSON: {message}")),
            _ => None,
        })
        .unwrap_or_else(|| "contains no JSON object".to_owned());
    match marker {
        Some(marker) => StructuredError::new(
            StructuredErrorKind::FinalUnreadable,
            format!(
                "the final answer (marked by {marker}) {reason}; nothing before it is read in its place"
            ),
            text,
        ),
        None => StructuredError::new(
            StructuredErrorKind::NoJson,
            format!("the answer {reason}"),
            text,
        ),
    }
}

fn evaluate<T: ModelAnswer>(
    candidate: &Candidate<'_>,
    schema: &OutputSchema,
    raw: &str,
    prompt_values: &PromptValues,
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
    typed::<T>(value, schema, offset, repairs, raw, prompt_values)
}

/// Unwrap, check the shape, parse the type, check the ranges.
fn typed<T: ModelAnswer>(
    value: Value,
    schema: &OutputSchema,
    offset: usize,
    mut repairs: Vec<Repair>,
    raw: &str,
    prompt_values: &PromptValues,
) -> Outcome<T> {
    let fields = top_level_fields(&schema.schema);
    let names = [schema.name.as_str()];
    if echoes_prompt(&value, prompt_values) {
        return Outcome::Template("the answer repeats a JSON example from the prompt".to_owned());
    }
    let mut beside = Vec::new();
    let mut value = unwrap_answer(value, &fields, &names, offset, &mut repairs, &mut beside);
    if let Some((path, placeholder)) = placeholder_in(&value) {
        return Outcome::Template(format!(
            "the answer is a template: `{path}` holds the placeholder {placeholder:?}"
        ));
    }
    if echoes_prompt(&value, prompt_values) {
        return Outcome::Template("the answer repeats a JSON example from the prompt".to_owned());
    }
    if let Err(error) = T::normalize(&mut value) {
        return Outcome::Broken(
            StructuredError::schema(error.path, error.message, raw),
            true,
        );
    }
    let answer_like = value.as_object().is_some_and(|object| {
        object.keys().any(|key| {
            let key = fold(key);
            fields.iter().any(|field| fold(field) == key)
                || T::verdict_words().iter().any(|word| fold(word) == key)
        })
    });
    let ignored_fields = match conform(
        &mut value,
        &schema.schema,
        T::verdict_words(),
        &schema.bounds,
    ) {
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
    // One answer per body: text beside the answer tool's call that speaks of the answer is a second answer.
    let passing = parsed.verdict() == Some(true);
    let all_fields = schema_field_names(&schema.schema);
    if let Some(why) = beside
        .iter()
        .find_map(|text| restatement(text, &all_fields, passing))
    {
        return Outcome::Broken(
            StructuredError::new(
                StructuredErrorKind::Ambiguous,
                format!(
                    "the text beside the answer tool's call speaks of the answer ({why}): which one is \
                     meant cannot be told; give one answer"
                ),
                raw,
            ),
            true,
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
