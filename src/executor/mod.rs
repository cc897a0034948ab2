//! Executor / Confirmation (seed 003): "executes but never decides". A human's Confirmation Object is
//! consumed by exactly one Apply, after the 6-step check; outcomes are reported, never retried, edited or
//! chained.
//!
//! Pure core: [`confirmation`], [`signature`], [`issue`], [`request`], [`check`], [`consumption`],
//! [`result`], [`audit`]. Orchestration over host ports: [`run`] (one request) and [`batch`] (BatchApplier).

pub mod action_ledger;
pub mod audit;
pub mod batch;
pub mod change_lines;
pub mod check;
pub mod confirmation;
pub mod consumption;
pub mod direct;
pub mod discord_request;
pub mod host_verification;
pub mod human_action;
pub mod issue;
pub mod ledger;
pub mod mandate;
pub mod messages;
pub mod passkey;
pub mod public_key;
pub mod receipt;
pub mod request;
pub mod result;
pub mod run;
pub mod seal;
pub mod signature;
pub mod state_version;
pub mod storage;
pub mod take_action;
pub mod tool_call;
pub mod verified_cache;

pub use action_ledger::{ActionRun, ActionRunState};
pub use audit::{AuditRecord, Route};
pub use batch::BatchResult;
pub use check::{CheckInput, CheckVerdict, Phase, Rejection, check_confirmation};
pub use confirmation::{Confirmation, ConfirmationState, ConfirmedBy, ProposedChange};
pub use consumption::{
    ApplyResponseKind, LifecycleTransition, PreviewResult, SkillResponse, ValidTransition,
};
pub use direct::apply_directly;
pub use issue::{ConfirmationDraft, issue_confirmation};
pub use passkey::PasskeyAssertion;
pub use public_key::{KeySpec, PublicKeyKind, PublicKeySpec};
pub use request::{ApplyRequest, ExecutorRequest, RequestedApply, Source};
pub use result::{ExecutorResult, Outcome};
pub use run::Executor;
pub use signature::{KeyRing, Proof, Signer, confirmation_challenge};
pub use storage::{StorageError, cancel_confirmation, reconcile_in_flight, save_confirmation};
