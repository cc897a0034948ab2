//! The control loop of seed 002: the machine observes, the LLM only judges, the machine asks the human,
//! executes and reports; failures stop; humans interrupt and always win.
//!
//! The core is sans-IO: [`step`] takes the state and one [`ControlEvent`] and returns the next state and the
//! [`ControlEffect`]s the host performs (ask the judge, request approval, execute, report, log, persist, stop).
//! The state is plain data that survives a restart: an approval that was waiting is still waiting.

pub mod bounds;
pub mod event;
pub mod judge;
pub mod judgement_answer;
pub mod log;
pub mod render;
pub mod state;
pub mod step;
pub mod text;

/// Display-safe text, shared with the guard.
pub use crate::display;

pub use event::{ControlEffect, ControlEvent, Judgement, LogChannel, LogRecord};
pub use render::Renderer;
pub use state::{
    Action, ActionResult, ApprovalRecord, ApprovedBy, ControlState, Declined, Execution, Halt,
    HaltKind, InterruptedTask, Mode, Purpose, Reversal, RuleChange, Rules, Situation, Unreconciled,
};
pub use step::step;
