//! BatchApplier (seed 003 section 10.1): one Apply per confirmation, in order, stopping at the first
//! request that is not applied. What was applied stays consumed; the rest stay unconsumed.

use super::request::ExecutorRequest;
use super::result::{ExecutorResult, Outcome};
use super::run::Executor;
use crate::ports::{AuditSink, Clock, Skill, Store};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct BatchResult {
    /// The result of every attempted request, in order (the last one is the failure, if any).
    pub results: Vec<ExecutorResult>,
    /// Confirmation ids applied (and consumed), in order.
    pub applied: Vec<String>,
    /// The confirmation id whose request stopped the batch, if one did.
    pub failed: Option<String>,
    /// Confirmation ids never attempted because the batch stopped; they stay unconsumed.
    pub not_attempted: Vec<String>,
}

impl<S: Store, K: Skill, C: Clock, A: AuditSink> Executor<S, K, C, A> {
    pub async fn execute_batch(&self, requests: &[ExecutorRequest]) -> BatchResult {
        let mut batch = BatchResult {
            results: Vec::new(),
            applied: Vec::new(),
            failed: None,
            not_attempted: Vec::new(),
        };
        let mut pending = requests.iter();
        for request in pending.by_ref() {
            let result = self.execute(request).await;
            let outcome = result.outcome;
            batch.results.push(result);
            if outcome == Outcome::Applied {
                batch.applied.push(request.confirmation_id.clone());
            } else {
                batch.failed = Some(request.confirmation_id.clone());
                break;
            }
        }
        batch.not_attempted = pending
            .map(|request| request.confirmation_id.clone())
            .collect();
        batch
    }
}
