//! The LLM boundary, shared by every component that asks a model: JSON Schema generated from the Rust type
//! that parses the answer, extraction of JSON from model text, typed parse errors, and the re-ask prompt.

pub mod ask;
pub mod extract;
pub mod openai;
pub mod parse;
pub mod query;
pub mod schema;

pub use ask::{Asked, ask_structured};
pub use extract::extract_json;
pub use parse::{StructuredError, StructuredErrorKind, parse_structured};
pub use query::{QueryOptions, QueryReply};
pub use schema::OutputSchema;
