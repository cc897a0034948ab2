//! Watcher (seed 000): reviews an executor's result under a *different* persona, so the executor's blind
//! spots get covered. Its value is in guarantees that hold whatever the model answers: always a verdict,
//! undecidable -> pass false, inspection_log required, personas must differ, escalation to a human after
//! three rounds without agreement.
//!
//! Pure core: [`types`], [`persona`] (divergence, catalog, pick), [`precheck`], [`declaration`],
//! [`contract`] (enforcing the verdict), [`ledger`] (entries). Orchestration: [`inspect`], [`protocol`].

pub mod contract;
pub mod criteria;
pub mod declaration;
pub mod inspect;
pub mod ledger;
pub mod persona;
pub mod precheck;
pub mod protocol;
pub mod types;

pub use contract::{ModelVerdict, enforce_contract};
pub use inspect::{Watcher, WatcherOptions};
pub use persona::{
    DivergenceReport, PersonaViolation, check_persona_divergence, persona_catalog,
    pick_watcher_persona,
};
pub use protocol::{Escalation, ProtocolResult, RoundRecord};
pub use types::{ExecutorOutput, Language, Persona, WatcherInput, WatcherOutput};
