//! The completion protocol (seed 000): executor and watcher iterate up to three rounds; no agreement
//! after three is escalated to a human, never passed silently.

use super::inspect::Watcher;
use super::types::{WatcherInput, WatcherOutput};
use crate::ports::{Clock, ExecutorRerun, Llm, PromptLoader, Store};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

pub use super::inspect::DEFAULT_MAX_ROUNDS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct RoundRecord {
    pub round: u32,
    pub verdict: WatcherOutput,
    pub artifacts: Vec<String>,
}

/// For a human: the request, every round's issues and verdicts, the last artifacts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct Escalation {
    pub to: String,
    pub reason: String,
    pub original_request: String,
    pub rounds: Vec<RoundRecord>,
    pub last_artifacts: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct ProtocolResult {
    /// The watcher passed the result within the rounds.
    pub agreed: bool,
    pub rounds: Vec<RoundRecord>,
    pub final_verdict: WatcherOutput,
    /// Set whenever `agreed` is false.
    pub escalation: Option<Escalation>,
}

impl<L: PromptLoader, S: Store, C: Clock> Watcher<L, S, C> {
    pub async fn run_protocol(
        &self,
        input: &WatcherInput,
        llm: &impl Llm,
        executor: &impl ExecutorRerun,
    ) -> ProtocolResult {
        let mut current = input.clone();
        let mut rounds: Vec<RoundRecord> = Vec::new();
        let mut round = 1;
        loop {
            let verdict = self.inspect(&current, llm, round).await;
            let artifacts = current
                .executor_result
                .as_ref()
                .map(|r| r.artifacts.clone())
                .unwrap_or_default();
            rounds.push(RoundRecord {
                round,
                verdict: verdict.clone(),
                artifacts: artifacts.clone(),
            });
            if verdict.pass {
                return ProtocolResult {
                    agreed: true,
                    rounds,
                    final_verdict: verdict,
                    escalation: None,
                };
            }
            let language = self.options().language;
            let max_rounds = self.options().max_rounds;
            let stop_reason = if round >= max_rounds {
                Some(language.pick(
                    || format!("no agreement after {max_rounds} rounds"),
                    || format!("{max_rounds}回のイテレーションで合意なし"),
                ))
            } else {
                match executor.rerun(&verdict.issues, round + 1).await {
                    Ok(result) => {
                        current.executor_result = Some(result);
                        None
                    }
                    Err(error) => Some(language.pick(
                        || format!("the executor could not run round {}: {error}", round + 1),
                        || {
                            format!(
                                "executor がラウンド {} を実行できませんでした：{error}",
                                round + 1
                            )
                        },
                    )),
                }
            };
            if let Some(reason) = stop_reason {
                let escalation = Escalation {
                    to: "human".to_owned(),
                    reason,
                    original_request: input.original_request.clone(),
                    rounds: rounds.clone(),
                    last_artifacts: artifacts,
                };
                return ProtocolResult {
                    agreed: false,
                    rounds,
                    final_verdict: verdict,
                    escalation: Some(escalation),
                };
            }
            round += 1;
        }
    }
}
