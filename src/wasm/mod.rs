//! The only module that touches JavaScript: the exported API, the adapters that turn JS objects into the
//! host ports, and the mapping of errors to JS `Error`s with a stable `code` and `path`. It holds no
//! domain logic.

pub mod closer_api;
pub mod convert;
pub mod errors;
pub mod executor_api;
pub mod llm_client;
pub mod memory_store;
pub mod port_types;
pub mod ports;
pub mod reflector_api;
pub mod watcher_api;
