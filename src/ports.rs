//! Host ports: everything the cores need from the outside world, as traits. The wasm layer implements them
//! over JavaScript objects; native tests implement them with fakes. Futures are not `Send`: a JS host is
//! single-threaded.
#![allow(async_fn_in_trait)]

use crate::executor::{ApplyRequest, PreviewResult, SkillResponse};
use crate::timestamp::EpochMillis;
use std::fmt;

/// A failure reported by a host port (a thrown or rejected callback, or an answer of the wrong shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortError {
    pub message: String,
}

impl PortError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl fmt::Display for PortError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Key-value storage of JSON text with an atomic compare-and-swap.
pub trait Store {
    async fn get(&self, key: &str) -> Result<Option<String>, PortError>;
    async fn put(&self, key: &str, value: &str) -> Result<(), PortError>;
    /// Replaces the value at `key` with `next` only if it currently equals `expected` (`None`: absent).
    /// Returns whether the swap happened.
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&str>,
        next: &str,
    ) -> Result<bool, PortError>;
}

/// The skill whose Apply the Executor performs on a human's behalf (seed 003 section 3).
pub trait Skill {
    /// Fact-finding only: the node's current status.
    async fn preview(&self, node_id: &str) -> Result<PreviewResult, PortError>;
    /// Performs the approved change once.
    async fn apply(&self, request: &ApplyRequest) -> Result<SkillResponse, PortError>;
}

/// The host clock.
pub trait Clock {
    fn now(&self) -> Result<EpochMillis, PortError>;
}

/// Receives one audit record per Executor decision. The default sink drops them.
pub trait AuditSink {
    async fn record(&self, record: &crate::executor::AuditRecord) -> Result<(), PortError>;
}

/// An audit sink that keeps nothing.
pub struct NoAudit;

impl AuditSink for NoAudit {
    async fn record(&self, _record: &crate::executor::AuditRecord) -> Result<(), PortError> {
        Ok(())
    }
}

/// Reads prompt files from the host (a file system, a KV store, a bundle). `None`: no such file.
pub trait PromptLoader {
    async fn load(&self, path: &str) -> Result<Option<String>, PortError>;
}

/// A loader with no files: only the embedded defaults are used.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPromptFiles;

impl PromptLoader for NoPromptFiles {
    async fn load(&self, _path: &str) -> Result<Option<String>, PortError> {
        Ok(None)
    }
}

#[cfg(feature = "llm")]
/// The LLM, as the seed's `QueryFn`: a prompt and the output schema in, structured output or an error out.
pub trait Llm {
    async fn query(
        &self,
        prompt: &str,
        options: &crate::llm::QueryOptions,
    ) -> Result<crate::llm::QueryReply, PortError>;
}

/// Severity of a log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
        }
    }
}

/// Where components report what they do (the seed's `logger`). Logging never changes an outcome.
pub trait Logger {
    fn log(&self, level: LogLevel, message: &str);
}

/// A logger that keeps nothing.
pub struct NoLogger;

impl Logger for NoLogger {
    fn log(&self, _level: LogLevel, _message: &str) {}
}

#[cfg(feature = "watcher")]
/// The executor of the Watcher's completion protocol, run again with the watcher's issues.
pub trait ExecutorRerun {
    async fn rerun(
        &self,
        issues: &[String],
        round: u32,
    ) -> Result<crate::watcher::ExecutorOutput, PortError>;
}
