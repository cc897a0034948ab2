//! The loop's state: the seed's minimal set (situation, intent, the action in progress, the last result),
//! the mode, the rules and a bounded memory. All of it is data: the host persists it on every
//! `PersistState` effect and hands it back after a restart, and the loop continues where it was.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use tsify::Tsify;

/// How many past results the loop remembers for the judge (the oldest are dropped first).
pub const DEFAULT_MEMORY_LIMIT: usize = 20;

/// The default privileged prefix: a human message whose first token is this is a developer command.
pub const DEFAULT_PRIVILEGED_PREFIX: &str = "/dev";

/// The judge's input, all of it: the outside world, the agent's own state, and the goal (seed 002 2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct Situation {
    /// What the host observes outside the agent (a board, a repository, a feed).
    #[serde(default)]
    #[tsify(type = "unknown")]
    pub external: Value,
    /// The agent's own state as the host reports it.
    #[serde(default)]
    #[tsify(type = "unknown")]
    pub internal: Value,
    /// The goal the developer set; always part of what is judged.
    pub goal: String,
    /// The latest instruction from a human, until the judge has seen it.
    #[serde(default)]
    #[tsify(optional)]
    pub instruction: Option<String>,
}

/// What the loop is doing. Only `Idle` starts a judgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Idle,
    Judging,
    AwaitingApproval,
    Executing,
    /// A human interrupted; the loop waits for "resume" or "discard".
    Interrupted,
    /// A failure, a declined approval or a rule that needs a restart stopped the loop.
    Stopped,
}

/// One action the judge chose, as the loop tracks it. `id` is assigned by the loop, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct Action {
    pub id: String,
    /// The action type: what the whitelist and the skills are keyed by.
    #[serde(rename = "type")]
    pub action_type: String,
    /// What will be executed, in one line (the approval request's first line).
    pub summary: String,
    /// What it touches, in one line (the approval request's second line).
    pub impact_scope: String,
    #[tsify(type = "unknown")]
    pub parameters: Value,
    /// What the action is for: a task of the agent's, a rule change, a setting change, or a restart.
    pub purpose: Purpose,
}

/// Why an action exists; decides what happens when it is approved and finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Purpose {
    /// A step of the agent's task, executed by the host's skill for its type.
    Task,
    /// A change of the loop's rules; applied by the loop itself once approved.
    RuleChange { change: RuleChange },
    /// A small, reversible change of one agent setting; applied by the loop itself once approved.
    SelfModification {
        key: String,
        #[tsify(type = "unknown")]
        value: Value,
    },
    /// Restarting the host so that a rule that could not apply at once takes effect.
    Restart,
}

/// A change of the rules: whitelist entries, the privileged prefix, or a host setting that needs a restart.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct RuleChange {
    #[serde(default)]
    #[tsify(optional)]
    pub whitelist_add: Vec<String>,
    #[serde(default)]
    #[tsify(optional)]
    pub whitelist_remove: Vec<String>,
    #[serde(default)]
    #[tsify(optional)]
    pub privileged_prefix: Option<String>,
    /// Host settings (a model, a port): they only take effect after a restart.
    #[serde(default)]
    #[tsify(optional, type = "Record<string, unknown>")]
    pub host_settings: BTreeMap<String, Value>,
}

impl RuleChange {
    /// Whether every part of the change takes effect without a restart.
    pub fn applies_at_once(&self) -> bool {
        self.host_settings.is_empty()
    }
}

/// The loop's rules: persisted apart from the state, changed only with approval or by a developer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct Rules {
    /// Action types executed without asking (default deny: empty). A conversation reply never asks.
    #[serde(default)]
    pub whitelist: Vec<String>,
    /// The first token that marks a developer command (default `/dev`).
    #[serde(default = "default_prefix")]
    pub privileged_prefix: String,
    /// The agent settings self-modification may adjust (anything else is refused).
    #[serde(default)]
    pub adjustable_settings: Vec<String>,
    /// Host settings as last approved; applied by the host on its next start.
    #[serde(default)]
    #[tsify(type = "Record<string, unknown>")]
    pub host_settings: BTreeMap<String, Value>,
}

fn default_prefix() -> String {
    DEFAULT_PRIVILEGED_PREFIX.to_owned()
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            whitelist: Vec::new(),
            privileged_prefix: default_prefix(),
            adjustable_settings: Vec::new(),
            host_settings: BTreeMap::new(),
        }
    }
}

/// The last result, and each entry of the memory: the action and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct ActionResult {
    pub action: Action,
    pub succeeded: bool,
    /// What happened (on success) or the short technical cause (on failure), one line.
    pub detail: String,
}

/// A task a human interrupted: what it was doing, for the resume-or-discard question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(tag = "was", rename_all = "snake_case")]
pub enum InterruptedTask {
    Judging,
    AwaitingApproval {
        action: Box<Action>,
    },
    /// Interrupted while nothing was running: nothing to resume.
    Nothing,
}

/// A setting changed by self-modification, with the value it had before: one call reverts it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct Reversal {
    pub action_id: String,
    pub key: String,
    /// `null` when the setting did not exist before.
    #[tsify(type = "unknown")]
    pub previous: Value,
}

/// The whole state of the loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct ControlState {
    pub situation: Situation,
    /// What the agent is working towards right now (the judge's last summary of an action).
    #[serde(default)]
    pub intent: Option<String>,
    /// The action waiting for approval or executing.
    #[serde(default)]
    pub in_progress: Option<Action>,
    #[serde(default)]
    pub last_result: Option<ActionResult>,
    pub mode: Mode,
    pub rules: Rules,
    /// Past results, oldest first, at most `memory_limit`.
    #[serde(default)]
    pub memory: VecDeque<ActionResult>,
    #[serde(default = "default_memory_limit")]
    pub memory_limit: usize,
    /// The judgement the loop waits for; answers to any other are stale and ignored.
    #[serde(default)]
    pub judgement_id: u64,
    /// The number of actions created so far (action ids are `a-<n>`).
    #[serde(default)]
    pub actions_created: u64,
    /// What a human interrupted, while the loop asks whether to resume it.
    #[serde(default)]
    pub interrupted: Option<InterruptedTask>,
    /// A human message that arrived while an Apply was running: handled once it is recorded.
    #[serde(default)]
    pub interrupt_after_execution: Option<String>,
    /// An action that failed: running it again needs an explicit approval.
    #[serde(default)]
    pub failed: Option<Action>,
    /// The next judgement also gets the execution log's tail (only after a failure or an error).
    #[serde(default)]
    pub needs_log_tail: bool,
    /// Agent settings that self-modification adjusts.
    #[serde(default)]
    #[tsify(type = "Record<string, unknown>")]
    pub settings: BTreeMap<String, Value>,
    /// Self-modifications that can still be reverted, newest last.
    #[serde(default)]
    pub reversals: Vec<Reversal>,
}

fn default_memory_limit() -> usize {
    DEFAULT_MEMORY_LIMIT
}

impl ControlState {
    /// A new loop for `goal`, idle, with `rules`.
    pub fn new(goal: impl Into<String>, rules: Rules) -> Self {
        Self {
            situation: Situation {
                goal: goal.into(),
                ..Situation::default()
            },
            intent: None,
            in_progress: None,
            last_result: None,
            mode: Mode::Idle,
            rules,
            memory: VecDeque::new(),
            memory_limit: DEFAULT_MEMORY_LIMIT,
            judgement_id: 0,
            actions_created: 0,
            interrupted: None,
            interrupt_after_execution: None,
            failed: None,
            needs_log_tail: false,
            settings: BTreeMap::new(),
            reversals: Vec::new(),
        }
    }

    /// Keeps `result` as the last result and in the memory, dropping the oldest beyond the limit.
    pub(super) fn remember(&mut self, result: ActionResult) {
        self.memory.push_back(result.clone());
        while self.memory.len() > self.memory_limit.max(1) {
            self.memory.pop_front();
        }
        self.last_result = Some(result);
    }
}
