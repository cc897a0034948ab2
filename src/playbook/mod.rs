//! The ACE playbook, learning for real: counters updated from reflections, a Curator that turns insights
//! into validated, replay-safe delta operations, deterministic dedup, removal of bullets whose harm
//! dominates, an enforced size budget that prunes by net score, an audit log, the ACE text form, and
//! versioned JSON through the host store.

pub mod book;
pub mod curator;
pub mod delta;
pub mod gate;
pub mod storage;

pub use book::{Bullet, Playbook, PlaybookPolicy};
pub use curator::{curate, reflection_ops};
pub use delta::{DeltaKind, DeltaOp, DeltaReport, RejectedOp};
pub use gate::{GateDecision, GateError, GateOutcome, GatePolicy, GatedPlaybook, HeldOut};
