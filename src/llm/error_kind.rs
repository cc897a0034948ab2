//! Why a model answer could not be used: the kinds every refusal of the answer parsers names.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

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
    /// The text marks a final answer (an answer tag, a "Final answer:" label, a final channel, the text
    /// after its reasoning) and that final part holds no readable answer.
    FinalUnreadable,
    /// The only JSON in the text is a template: placeholder values, or the prompt's own example.
    Template,
}
