//! What happens to the loop (events, from the host) and what the loop asks the host to do (effects).

use super::render::Renderer;
use super::state::{Action, ApprovalRecord, RuleChange, Rules, Situation};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use tsify::Tsify;

/// What the judge decided: a conversation reply, or an action for the machine to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Judgement {
    /// Talk to the human: auto-approved, written to the chat.
    Reply { text: String },
    /// Do something: needs approval unless its type is whitelisted. `summary` and `impact_scope` are the
    /// agent's words: shown only as its labelled note; the machine renders what is approved from the type
    /// and the parameters.
    Act {
        #[serde(rename = "type")]
        action_type: String,
        summary: String,
        impact_scope: String,
        #[serde(default)]
        #[tsify(type = "unknown")]
        parameters: Value,
    },
    /// Change the loop's rules: always needs approval.
    ChangeRules { change: RuleChange, reason: String },
    /// Adjust one agent setting (small, reversible, serving the goal): needs approval.
    AdjustSetting {
        key: String,
        #[tsify(type = "unknown")]
        value: Value,
        reason: String,
    },
    /// Nothing to do until the situation changes.
    Wait,
}

/// Something the loop must react to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ControlEvent {
    /// The host observed the situation: a part that is absent keeps its value (the goal changes only
    /// through a developer).
    SituationChanged {
        #[serde(default)]
        #[tsify(optional, type = "unknown")]
        external: Option<Value>,
        #[serde(default)]
        #[tsify(optional, type = "unknown")]
        internal: Option<Value>,
    },
    /// The judge answered the judgement `judgement_id`.
    JudgementReceived {
        judgement_id: u64,
        judgement: Judgement,
    },
    /// The judge could not answer (an error, a refusal, an unparseable answer).
    JudgementFailed { judgement_id: u64, error: String },
    /// A human answered the approval request `request_id`: `y` or `n` (an answer to any other request is
    /// refused), with their reason for an `n` when they gave one: the judge reads it as their words.
    ApprovalAnswered {
        request_id: String,
        answer: String,
        #[serde(default)]
        #[tsify(optional)]
        reason: Option<String>,
        /// With `y`: the parameters of the change as the person edited it before approving (the same action
        /// type; what they signed). The loop renders its lines again, runs the edited action instead, and says
        /// so; an edit the loop cannot render, of a rule or setting change, or with `n`, is refused.
        #[serde(default)]
        #[tsify(optional, type = "unknown")]
        edited: Option<Value>,
    },
    /// The host withdraws the approval request `request_id` before anyone answered it, because what it would
    /// act on is gone (the board moved on): nothing is executed, and the loop judges the situation again. A
    /// person's answer is never withdrawn: once answered (or for any other request) this is refused.
    ApprovalWithdrawn { request_id: String, reason: String },
    /// The host saved the state of `revision` (from `persist_state`): an approved action waits for this.
    StatePersisted { revision: u64 },
    /// The host could not save the state of `revision`: an approved action that waits for it is not executed.
    StateNotPersisted { revision: u64, error: String },
    /// A person says whether an action with an unknown outcome was applied.
    OutcomeReconciled { action_id: String, applied: bool },
    /// The host finished executing `action_id`.
    ExecutionFinished {
        action_id: String,
        succeeded: bool,
        /// What happened (on success) or the short technical cause (on failure).
        detail: String,
        /// With `succeeded: false`: the host knows nothing was applied, because the world had already moved
        /// on from what was approved (the node left the approved `from`). The loop does not stop; it judges
        /// the world as it is now. With `succeeded: true` it contradicts itself and is read as a failure.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        not_applied: bool,
    },
    /// A human wrote in the chat (a developer command when its first token is the privileged prefix).
    HumanMessage { text: String },
    /// A person replied to the agent without deciding anything (from an approval card, say): their words are
    /// read at the agent's next judgement, which an idle loop asks for at once. Nothing is interrupted, and a
    /// reply is never a developer command, whatever its first word.
    HumanReply { text: String },
    /// The human answered whether to resume the interrupted task: `resume` or `discard`.
    InterruptionAnswered { answer: String },
    /// A human asks to undo the most recent self-modification.
    RevertSetting,
    /// The host started (again) with this state: what was waiting is asked again, a lost judgement is asked
    /// again, and an action found executing has an unknown outcome (never re-run: a person reconciles it).
    /// `boot` is a fresh random value per start (action ids stay unique across restarts); `rules` and
    /// `renderers`, when given, are the host's persisted rules and its action renderers.
    HostRestarted {
        boot: String,
        #[serde(default)]
        #[tsify(optional)]
        rules: Option<Rules>,
        #[serde(default)]
        #[tsify(optional, type = "Record<string, Renderer>")]
        renderers: Option<BTreeMap<String, Renderer>>,
    },
}

/// What the loop asks the host to do, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum ControlEffect {
    /// Ask the judge about `situation` (the goal is part of it), with the memory of past results; with
    /// `include_log_tail`, also the last lines of the execution log (only after a failure or an error).
    AskJudge {
        judgement_id: u64,
        situation: Situation,
        memory: Vec<super::state::ActionResult>,
        /// What people declined, newest last, with their words: give it to the judge with the request.
        declined: Vec<super::state::Declined>,
        /// People's replies not yet read, oldest first: give them to the judge with the request.
        replies: Vec<String>,
        include_log_tail: bool,
    },
    /// Abort the judge's in-flight call for `judgement_id` (an AbortSignal in the host).
    AbortJudge { judgement_id: u64 },
    /// Ask the human, in exactly two lines rendered by the machine from the action: what will be executed,
    /// and the impact scope. Answer y or n with `request_id`. `note` is the agent's own words, to be shown
    /// labelled as such.
    RequestApproval {
        request_id: String,
        action_id: String,
        lines: [String; 2],
        note: Option<String>,
        digest: String,
    },
    /// Ask a person whether an action with an unknown outcome was applied (`applied` / `not_applied`).
    RequestReconcile {
        action_id: String,
        lines: [String; 2],
    },
    /// An answer was not taken (another request's id, or nothing waits): the host tells its sender.
    AnswerRefused { request_id: String, reason: String },
    /// Execute `action` (through the Executor for a state change), approved as `approval` states; answer
    /// with `ExecutionFinished`. Emitted once per action, only after the state saying it executes was saved.
    Execute {
        action: Box<Action>,
        approval: Box<ApprovalRecord>,
    },
    /// Write to the chat: short reports, replies and questions.
    ReportToChat { text: String },
    /// Append one record to a log channel.
    AppendLog {
        channel: LogChannel,
        record: LogRecord,
    },
    /// Save the state (it survives a restart); answer with `StatePersisted` / `StateNotPersisted`.
    PersistState { revision: u64 },
    /// Save the rules (an approved change or a developer's override).
    PersistRules { rules: super::state::Rules },
    /// The loop stopped and waits for a human.
    Stop { reason: String },
}

/// The seed's three log files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum LogChannel {
    Chat,
    Cli,
    Execution,
}

/// One log record; the host adds the `time` when it writes it (the loop has no clock).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct LogRecord {
    pub event_summary: String,
    /// A short technical explanation.
    pub cause: String,
    /// The concrete target.
    pub impact_scope: String,
}
