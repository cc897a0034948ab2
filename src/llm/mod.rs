//! The LLM boundary, shared by every component that asks a model: JSON Schema generated from the Rust type
//! that parses the answer, extraction of JSON from model text, typed parse errors, and the re-ask prompt.

pub mod ask;
pub mod bounds;
pub mod candidates;
pub mod client_error_kind;
pub mod error_kind;
pub mod noise;
pub mod openai;
pub mod parse;
pub mod query;
pub mod reasoning;
pub mod repair;
pub mod restatement;
pub mod schema;
pub mod shape;
pub mod template;
pub mod text_search;
pub mod tool_calls;
/// Strict JSON (duplicate keys refused), shared with the guard.
pub use crate::strict_json;
pub mod unwrap;

pub use ask::{Asked, ask_structured};
pub use bounds::ListBound;
pub use parse::{
    ModelAnswer, ParseOptions, Parsed, StructuredError, StructuredErrorKind, parse_answer,
    parse_answer_to, parse_answer_value, parse_answer_value_with, parse_answer_with,
    parse_structured,
};
pub use query::{QueryOptions, QueryReply};
pub use repair::{Repair, RepairKind};
pub use schema::OutputSchema;
