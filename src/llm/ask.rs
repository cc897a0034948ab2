//! Asking a model for a typed answer: the query, then a bounded number of re-asks carrying the concrete
//! error, then failing closed. Shared by every component that asks.

use super::parse::{
    ModelAnswer, ParseOptions, Parsed, StructuredError, StructuredErrorKind, parse_answer,
    parse_answer_value,
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
            Ok(reply) => read_reply(reply, parse),
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
    if let Some(error) = reply.error {
        return Err(StructuredError::query(error));
    }
    match (reply.structured_output, reply.text) {
        (Some(value), _) => parse_answer_value(value, parse),
        (None, Some(text)) => parse_answer(&text, parse),
        (None, None) => Err(StructuredError::query(
            "the query returned neither structuredOutput nor an error",
        )),
    }
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
        _ if error.truncated => " It was cut off: keep it shorter.",
        _ => "",
    };
    format!(
        "{prompt}\n\n### Your previous answer could not be used\n\n{:?}: {error}.{advice}\nAnswer again with one JSON object \
         only, following the schema exactly.",
        error.kind
    )
}
