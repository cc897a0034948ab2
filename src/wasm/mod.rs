//! The only module that touches JavaScript: the exported API, the adapters that turn JS objects into the
//! host ports, and the mapping of errors to JS `Error`s with a stable `code` and `path`. It holds no
//! domain logic.
//!
//! The rule for every export (function, method, constructor, static): parameters are `JsValue`, typed for
//! TypeScript with `unchecked_param_type`, and read through [`args`] (strings, booleans, numbers) or
//! [`convert`] (objects, arrays). Never take `String`, `&str`, `bool`, a number or an `Option` of them:
//! wasm-bindgen does not check them at run time, so a wrong value traps or is coerced. A new export gets a
//! case in `tests/js/boundary.test.mjs`, which fails for any export without one.

pub mod approver_api;
pub mod args;
#[cfg(feature = "closer")]
pub mod closer_api;
#[cfg(feature = "control")]
pub mod control_api;
pub mod convert;
pub mod deadline;
pub mod errors;
pub mod exact_json;
pub mod executor_api;
pub mod executor_setup;
pub mod guard_api;
pub mod host_crypto;
#[cfg(feature = "llm")]
pub mod llm_client;
#[cfg(feature = "llm")]
pub mod llm_ports;
pub mod mandate_api;
pub mod memory_store;
#[cfg(feature = "llm")]
pub mod model_answer;
#[cfg(feature = "reflector")]
pub mod playbook_gate_api;
pub mod port_types;
pub mod ports;
pub mod trust_api;
// The Reflector's exports include `createGovernor`, which needs every component.
#[cfg(feature = "full")]
pub mod reflector_api;
#[cfg(feature = "watcher")]
pub mod watcher_api;
