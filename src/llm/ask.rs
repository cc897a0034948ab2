//! Asking a model for a typed answer: the query, then a bounded number of re-asks carrying the concrete
//! error, then failing closed. Shared by every component that asks.

use super::parse::{
    ModelAnswer, ParseOptions, Parsed, StructuredError, StructuredErrorKind,
    parse_answer_value_with, parse_answer_with,
};
use super::query::{QueryOptions, QueryReply};
use super::schema::OutputSchema;
use crate::ports::{Llm, LogLevel, Logger};

/// A typed answer (with its repairs), or the last error; and how many queries were made.
pub struct Asked<T> {
    pub answer: Result<Parsed<T>, StructuredError>,
    pub queries: u32,
}

/// Asks `llm` with `prompt` and `schema`, re-asking up to `max_reasks` times while the answer is unusable.
pub async fn ask_structured<T: ModelAnswer>(
    llm: &impl Llm,
    prompt: &str,
    schema: &OutputSchema,
    max_reasks: u32,
    logger: &dyn Logger,
    parse: ParseOptions,
) -> Asked<T> {
    let options = QueryOptions {
        output_schema: schema.schema.clone(),
        schema_name: schema.name.clone(),
    };
    let mut current = prompt.to_owned();
    let mut queries = 0;
    loop {
        queries += 1;
        let outcome = match llm.query(&current, &options).await {
            Ok(reply) => read_reply_against(reply, parse, Some(prompt), schema),
            Err(error) => Err(StructuredError::query(error.message)),
        };
        match outcome {
            Ok(answer) => {
                return Asked {
                    answer: Ok(answer),
                    queries,
                };
            }
            Err(error) if queries > max_reasks => {
                return Asked {
                    answer: Err(error),
                    queries,
                };
            }
            Err(error) => {
                logger.log(
                    LogLevel::Warn,
                    &format!("{}: unusable answer, asking again: {error}", schema.name),
                );
                current = reask_prompt(prompt, &error);
            }
        }
    }
}

/// The seed's QueryFn answer: structured output if given, else the model text, extracted and parsed.
pub fn read_reply<T: ModelAnswer>(
    reply: QueryReply,
    parse: ParseOptions,
) -> Result<Parsed<T>, StructuredError> {
    read_reply_to(reply, parse, None)
}

/// [`read_reply`] for an answer to `prompt` (whose own JSON examples are never read as the answer). The
/// reply's facts decide with the text: `finish_reason: "length"` makes any answer truncated, a separate
/// reasoning field is never read, and `startsInReasoning` says the text begins inside reasoning.
pub fn read_reply_to<T: ModelAnswer>(
    reply: QueryReply,
    parse: ParseOptions,
    prompt: Option<&str>,
) -> Result<Parsed<T>, StructuredError> {
    read_reply_against(reply, parse, prompt, T::answer_schema())
}

/// [`read_reply_to`] against `schema`: the schema that was sent, with the host's list bounds.
pub fn read_reply_against<T: ModelAnswer>(
    reply: QueryReply,
    parse: ParseOptions,
    prompt: Option<&str>,
    schema: &OutputSchema,
) -> Result<Parsed<T>, StructuredError> {
    if let Some(error) = reply.error {
        return Err(StructuredError::query(error));
    }
    let finish = reply.finish_reason.as_deref();
    if let Some(error) = finish.and_then(withheld) {
        return Err(error);
    }
    let parse = ParseOptions {
        cut_off: parse.cut_off || finish.is_some_and(cut_off_by),
        starts_in_reasoning: parse.starts_in_reasoning || reply.starts_in_reasoning == Some(true),
        ..parse
    };
    match (reply.structured_output, reply.text) {
        (Some(value), _) => parse_answer_value_with(value, parse, schema),
        (None, Some(text)) => parse_answer_with(&text, parse, prompt, schema),
        (None, None) if reply.reasoning.is_some() => parse_answer_with("", parse, prompt, schema)
            .map_err(|error| StructuredError {
                message: format!("{} (the reply holds only reasoning)", error.message),
                ..error
            }),
        (None, None) => Err(StructuredError::query(
            "the query returned neither structuredOutput nor an error",
        )),
    }
}

/// Whether a finish reason says the generation stopped at a token or context limit (OpenAI `length`,
/// Anthropic `max_tokens` and `model_context_window_exceeded`, Gemini `MAX_TOKENS`, Mistral `model_length`).
pub fn cut_off_by(finish_reason: &str) -> bool {
    [
        "length",
        "max_tokens",
        "max_output_tokens",
        "model_length",
        "model_context_window_exceeded",
    ]
    .iter()
    .any(|name| finish_reason.trim().eq_ignore_ascii_case(name))
}

/// The error when a finish reason says the endpoint withheld the answer (a content filter, a safety stop,
/// a refusal, a recitation stop).
pub fn withheld(finish_reason: &str) -> Option<StructuredError> {
    [
        "content_filter",
        "safety",
        "refusal",
        "recitation",
        "prohibited_content",
        "blocklist",
        "spii",
    ]
    .iter()
    .any(|name| finish_reason.trim().eq_ignore_ascii_case(name))
    .then(|| {
        StructuredError::query(format!(
            "the endpoint withheld the answer (finish_reason `{}`)",
            finish_reason.trim()
        ))
    })
}

/// The prompt for a re-ask: the original, then what was wrong with the last answer.
pub fn reask_prompt(prompt: &str, error: &StructuredError) -> String {
    let advice = match error.kind {
        StructuredErrorKind::Truncated => " It was cut off: keep it shorter.",
        StructuredErrorKind::Ambiguous => {
            " It held more than one JSON answer and they disagree: write exactly one, with no drafts or examples."
        }
        StructuredErrorKind::DuplicateKey => " Write each key once.",
        StructuredErrorKind::RepairsRefused => " Write strict JSON: double quotes, no comments.",
        StructuredErrorKind::FinalUnreadable => {
            " Your final answer must be the JSON object itself, not prose or another format."
        }
        StructuredErrorKind::Template => {
            " Fill in real values: placeholders and the prompt's examples are not answers."
        }
        _ if error.truncated => " It was cut off: keep it shorter.",
        _ => "",
    };
    format!(
        "{prompt}\n\n### Your previous answer could not be used\n\n{:?}: {error}.{advice}\nAnswer again with one JSON object \
         only, following the schema exactly.",
        error.kind
    )
}
