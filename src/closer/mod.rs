//! Closer (seed 001): the completion judgment sub-loop. The model returns a checklist; the step is
//! complete only when `allComplete && confidence >= 0.8` and nothing contradicts it (fail closed).
//!
//! Pure core: [`output`] (the answer's type and schema), [`decision`], [`summary`] (what the next
//! iteration is told). Orchestration: [`run`] (`Closer::check`) and [`handler`] (CompletionHandler).

pub mod decision;
pub mod handler;
pub mod messages;
pub mod output;
pub mod run;
pub mod summary;

pub use decision::{CompletionDecision, DecisionOptions, ObjectiveEvidence, decide_completion};
pub use handler::CloserCompletionHandler;
pub use output::{ChecklistItem, CloserStructuredOutput, closer_output_schema};
pub use run::{C3l, Closer, CloserInput, CloserOptions, CloserResult};
pub use summary::format_iteration_summary;
