//! agent-governor: governs autonomous LLM agents in the browser and at the edge.
//!
//! The agent thinks, a human decides, the machine executes exactly what was approved, exactly once.
//! The cores under each component module are pure (sans-IO): every decision is a function of data, with
//! time passed in by the host. Orchestration is written once against the port traits in [`ports`]; the
//! `wasm` module (wasm32 only) adapts JavaScript objects to those traits and exports the JS API.

pub mod closer;
pub mod executor;
pub mod governor;
pub mod input;
pub mod language;
pub mod llm;
pub mod playbook;
pub mod ports;
pub mod prompts;
pub mod reflector;
pub mod timestamp;
pub mod watcher;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
