//! The loop's state: the seed's minimal set (situation, intent, the action in progress, the last result),
//! the mode, the rules and a bounded memory. All of it is data: the host persists it on every
//! `PersistState` effect and hands it back after a restart, and the loop continues where it was.

use super::render::Renderer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use tsify::Tsify;

/// How many past results the loop remembers for the judge (the oldest are dropped first).
pub const DEFAULT_MEMORY_LIMIT: usize = 20;

/// How many bytes (as JSON) of past results the loop keeps at most (the oldest are dropped first).
pub const DEFAULT_MEMORY_LIMIT_BYTES: usize = 64 * 1024;

/// How many answers that are neither `y` nor `n` re-ask an approval; then the loop reports and waits.
pub const DEFAULT_MAX_INVALID_ANSWERS: u32 = 3;

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

/// One action, as the loop tracks it. `id` is assigned by the loop and unique across restarts
/// (`a-<n>-<boot>`); `lines` and `digest` are the machine's: what a person reads and what their `y` binds to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct Action {
    pub id: String,
    /// The action type: what the whitelist and the skills are keyed by.
    #[serde(rename = "type")]
    pub action_type: String,
    #[tsify(type = "unknown")]
    pub parameters: Value,
    /// What the action is for: a task of the agent's, a rule change, a setting change, or a restart.
    pub purpose: Purpose,
    /// The approval request's two lines (seed 002: what will be executed; the impact scope), rendered by
    /// the machine from the type and the parameters, display-safe.
    pub lines: [String; 2],
    /// SHA-256 (hex) of the canonical `{type, parameters, purpose}`: what a `y` binds to.
    pub digest: String,
    /// The agent's own words about the action (its summary and scope), shown only as a labelled note;
    /// never what is approved or executed.
    #[serde(default)]
    #[tsify(optional)]
    pub note: Option<String>,
}

impl Action {
    /// What will be executed, as the machine states it (the first line without its label).
    pub fn what(&self) -> &str {
        self.lines[0]
            .strip_prefix("Execute: ")
            .unwrap_or(&self.lines[0])
    }

    /// What it touches, as the machine states it (the second line without its label).
    pub fn scope(&self) -> &str {
        self.lines[1]
            .strip_prefix("Impact: ")
            .unwrap_or(&self.lines[1])
    }

    /// The id of the approval request that shows this action (it changes when the lines or the digest do).
    pub fn request_id(&self) -> String {
        super::render::request_id(&self.id, &self.digest, &self.lines)
    }

    /// The digest this action must have: a state whose action was altered no longer matches it.
    pub fn expected_digest(action_type: &str, parameters: &Value, purpose: &Purpose) -> String {
        super::render::digest_of(&serde_json::json!({
            "type": action_type,
            "parameters": parameters,
            "purpose": purpose,
        }))
    }
}

/// Who approved an execution, as its audit states it: a person's `y` to one request, or the whitelist
/// entry that matched the action's type exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct ApprovalRecord {
    pub by: ApprovedBy,
    /// The request the person answered `y` to (`by: "person"`).
    pub request_id: Option<String>,
    /// The whitelist entry that matched (`by: "whitelist"`).
    pub whitelist_entry: Option<String>,
    /// The digest of the action approved: equal to the executed action's.
    pub digest: String,
    /// For the Confirmation the host issues: `chat_y` or `whitelist`.
    pub ui_action: String,
    /// For the Confirmation and the audit, one line.
    pub reason: String,
    /// When a person edited the change before approving it: the request they answered (the one shown, with
    /// the change as the agent proposed it); `request_id` is then the edited action's own.
    #[serde(default)]
    #[tsify(optional)]
    pub edited_request_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum ApprovedBy {
    Person,
    Whitelist,
}

/// The action being executed and its approval. Written ahead: the host saves the state holding this record
/// before the loop emits `execute`; a state found with it after a restart has an unknown outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct Execution {
    pub approval: ApprovalRecord,
    /// The revision of the first saved state that holds this record; the `execute` effect waits for it.
    pub written_at: u64,
    /// Whether the `execute` effect was emitted (never twice for one action).
    pub dispatched: bool,
}

/// An action found executing after a restart: whether it was applied is unknown until a person says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct Unreconciled {
    pub action: Action,
    pub approval: ApprovalRecord,
}

/// Why the loop stopped, for a UI to say so (and offer a way on: a human message starts again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct Halt {
    pub kind: HaltKind,
    /// One line.
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum HaltKind {
    /// A person declined: the task ended; a new goal or instruction starts again.
    Declined,
    /// An action failed; running it again needs a fresh `y`.
    Failed,
    /// The judge could not decide.
    JudgementFailed,
    /// Approved rules take effect after a restart.
    RestartNeeded,
    /// The host restarted while an action ran: a person reconciles (applied / not applied).
    OutcomeUnknown,
    /// The state could not be saved, so the approved action was not executed.
    NotPersisted,
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
    /// `rules` with this change made.
    pub fn apply_to(&self, rules: &mut Rules) {
        rules
            .whitelist
            .retain(|entry| !self.whitelist_remove.contains(entry));
        for entry in &self.whitelist_add {
            if !rules.whitelist.contains(entry) {
                rules.whitelist.push(entry.clone());
            }
        }
        if let Some(prefix) = &self.privileged_prefix {
            rules.privileged_prefix = prefix.clone();
        }
        for (key, value) in &self.host_settings {
            rules.host_settings.insert(key.clone(), value.clone());
        }
    }

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
    /// What the agent is working towards right now (the machine's line of its last action).
    #[serde(default)]
    pub intent: Option<String>,
    /// The action waiting for approval or executing.
    #[serde(default)]
    pub in_progress: Option<Action>,
    /// The executing action's approval, written ahead of its execution.
    #[serde(default)]
    pub execution: Option<Execution>,
    #[serde(default)]
    pub last_result: Option<ActionResult>,
    pub mode: Mode,
    /// Why the loop stopped (set while `mode` is `stopped`).
    #[serde(default)]
    pub halt: Option<Halt>,
    pub rules: Rules,
    /// How the host's action types read in approval requests.
    #[serde(default)]
    #[tsify(type = "Record<string, Renderer>")]
    pub renderers: BTreeMap<String, Renderer>,
    /// Past results, oldest first, at most `memory_limit` of them and `memory_limit_bytes` bytes.
    #[serde(default)]
    pub memory: VecDeque<ActionResult>,
    #[serde(default = "default_memory_limit")]
    pub memory_limit: usize,
    #[serde(default = "default_memory_limit_bytes")]
    pub memory_limit_bytes: usize,
    /// The judgement the loop waits for; answers to any other are stale and ignored.
    #[serde(default)]
    pub judgement_id: u64,
    /// The number of actions created so far.
    #[serde(default)]
    pub actions_created: u64,
    /// A value the host draws at random on every start: it makes action ids unique across restarts.
    #[serde(default = "default_boot")]
    pub boot: String,
    /// Counts the saves the loop asked for (`persist_state` carries it; `state_persisted` confirms it).
    #[serde(default)]
    pub revision: u64,
    /// What a human interrupted, while the loop asks whether to resume it.
    #[serde(default)]
    pub interrupted: Option<InterruptedTask>,
    /// A human message that arrived while an Apply was running: handled once it is recorded.
    #[serde(default)]
    pub interrupt_after_execution: Option<String>,
    /// An action that failed: running it again needs an explicit approval.
    #[serde(default)]
    pub failed: Option<Action>,
    /// Digests of actions that failed: none of them runs again without a fresh `y`, whitelisted or not.
    #[serde(default)]
    pub failed_digests: VecDeque<String>,
    /// Action types whose last run failed (or has an unknown outcome): the whitelist does not run them until
    /// a person's `y` to one of that type succeeded.
    #[serde(default)]
    pub suspended_types: Vec<String>,
    /// Actions whose outcome is unknown (the host restarted while they ran), for a person to reconcile.
    #[serde(default)]
    pub unreconciled: Vec<Unreconciled>,
    /// Answers that were neither `y` nor `n` to the pending request.
    #[serde(default)]
    pub invalid_answers: u32,
    #[serde(default = "default_max_invalid_answers")]
    pub max_invalid_answers: u32,
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
    /// What people declined, newest last: the judge reads their words, and the same change is not asked
    /// for again until the situation or an instruction changed.
    #[serde(default)]
    pub declined: VecDeque<Declined>,
    /// How many instructions people gave (a developer command is not one): a decline remembers the count.
    #[serde(default)]
    pub instructions_given: u64,
    /// People's replies not yet read by the judge, oldest first: the next judgement reads them.
    #[serde(default)]
    pub unread_replies: Vec<String>,
    /// How many of `unread_replies` the judgement in progress was asked with (read once it answers).
    #[serde(default)]
    pub replies_asked: usize,
}

/// An action a person declined, with their words and what the loop saw when they did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct Declined {
    /// The declined action's digest: a proposal with the same digest is the same change.
    pub digest: String,
    /// The action's first line, as the person read it.
    pub what: String,
    /// The person's reason, one line (`null` when they gave none).
    #[serde(default)]
    pub reason: Option<String>,
    /// The digest of the goal and the observations when it was declined.
    pub situation_digest: String,
    /// `instructions_given` when it was declined.
    pub instructions_given: u64,
}

impl Situation {
    /// The digest of what a decline is measured against: the goal and both observations.
    pub fn digest(&self) -> String {
        super::render::digest_of(&serde_json::json!({
            "goal": self.goal,
            "external": self.external,
            "internal": self.internal,
        }))
    }
}

fn default_memory_limit() -> usize {
    DEFAULT_MEMORY_LIMIT
}

fn default_memory_limit_bytes() -> usize {
    DEFAULT_MEMORY_LIMIT_BYTES
}

fn default_max_invalid_answers() -> u32 {
    DEFAULT_MAX_INVALID_ANSWERS
}

fn default_boot() -> String {
    "0".to_owned()
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
            execution: None,
            last_result: None,
            mode: Mode::Idle,
            halt: None,
            rules,
            renderers: BTreeMap::new(),
            memory: VecDeque::new(),
            memory_limit: DEFAULT_MEMORY_LIMIT,
            memory_limit_bytes: DEFAULT_MEMORY_LIMIT_BYTES,
            judgement_id: 0,
            actions_created: 0,
            boot: default_boot(),
            revision: 0,
            interrupted: None,
            interrupt_after_execution: None,
            failed: None,
            failed_digests: VecDeque::new(),
            suspended_types: Vec::new(),
            unreconciled: Vec::new(),
            invalid_answers: 0,
            max_invalid_answers: DEFAULT_MAX_INVALID_ANSWERS,
            needs_log_tail: false,
            settings: BTreeMap::new(),
            reversals: Vec::new(),
            declined: VecDeque::new(),
            instructions_given: 0,
            unread_replies: Vec::new(),
            replies_asked: 0,
        }
    }
}
