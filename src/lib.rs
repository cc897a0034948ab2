//! agent-governor: governs autonomous LLM agents in the browser and at the edge.
//!
//! The agent thinks, a human decides, the machine executes exactly what was approved, exactly once.
//! The cores under each component module are pure (sans-IO): every decision is a function of data, with
//! time passed in by the host. Orchestration is written once against the port traits in [`ports`]; the
//! `wasm` module (wasm32 only) adapts JavaScript objects to those traits and exports the JS API.
//!
//! Cargo features select the components (`closer`, `watcher`, `reflector`, and `llm` under them; `full`, the
//! default, is all of them). Without them the crate is the guard: confirmations and the Executor.

pub mod body_json;
#[cfg(feature = "closer")]
pub mod closer;
pub mod closest_name;
#[cfg(feature = "control")]
pub mod control;
pub mod display;
pub mod executor;
#[cfg(feature = "full")]
pub mod governor;
pub mod input;
pub mod json_path;
pub mod language;
#[cfg(feature = "llm")]
pub mod llm;
#[cfg(feature = "reflector")]
pub mod playbook;
pub mod ports;
#[cfg(feature = "llm")]
pub mod prompts;
#[cfg(feature = "reflector")]
pub mod reflector;
pub mod strict_json;
pub mod timestamp;
#[cfg(feature = "watcher")]
pub mod watcher;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
