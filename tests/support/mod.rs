//! Fakes of the host ports for native tests, and builders for the seed's example data.
#![allow(dead_code)]

use agent_governor::executor::confirmation::store_key;
use agent_governor::executor::*;
use agent_governor::ports::{AuditSink, Clock, PortError, Skill, Store};
use agent_governor::timestamp::{EpochMillis, parse_rfc3339};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

pub const KEY_ID: &str = "approver-2026";
pub const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef-approval-side";
pub const CONFIRMED_AT: &str = "2026-11-22T09:00:00.000Z";

pub fn confirmed_at_ms() -> EpochMillis {
    parse_rfc3339(CONFIRMED_AT).unwrap()
}

pub fn signer() -> Signer {
    Signer::new(KEY_ID, SECRET).unwrap()
}

pub fn keys() -> KeyRing {
    KeyRing::from_signer(&signer())
}

pub fn draft(node_id: &str) -> ConfirmationDraft {
    ConfirmationDraft {
        node_id: node_id.to_owned(),
        proposed_change: ProposedChange {
            change_type: "status_change".into(),
            from: "in_progress".into(),
            to: "done".into(),
        },
        intent: "all subtasks closed".into(),
        reason: "verified on the dashboard".into(),
        ui_action: "approve_button".into(),
        action_id: None,
    }
}

pub fn confirmation(id: &str, node_id: &str) -> Confirmation {
    issue_confirmation(&draft(node_id), &signer(), confirmed_at_ms(), id.to_owned()).unwrap()
}

/// A confirmation `id` of action `action_id` on `node_id`: several of them approve one action.
pub fn confirmation_of_action(id: &str, node_id: &str, action_id: &str) -> Confirmation {
    let draft = ConfirmationDraft {
        action_id: Some(action_id.to_owned()),
        ..draft(node_id)
    };
    issue_confirmation(&draft, &signer(), confirmed_at_ms(), id.to_owned()).unwrap()
}

pub fn request_for(confirmation: &Confirmation) -> ExecutorRequest {
    ExecutorRequest::for_confirmation(confirmation)
}

/// Returns Pending `n` times before completing: lets a test interleave concurrent executions.
pub struct YieldTimes(pub u32);

impl Future for YieldTimes {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            Poll::Ready(())
        } else {
            self.0 -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// A schedule of how many times each port call yields before answering (0 when exhausted).
#[derive(Clone, Default)]
pub struct Yields(pub Rc<RefCell<VecDeque<u32>>>);

impl Yields {
    pub fn new(schedule: Vec<u32>) -> Self {
        Self(Rc::new(RefCell::new(schedule.into())))
    }
    pub async fn pause(&self) {
        let n = self.0.borrow_mut().pop_front().unwrap_or(0);
        YieldTimes(n).await;
    }
}

#[derive(Clone, Default)]
pub struct FakeStore {
    pub data: Rc<RefCell<BTreeMap<String, String>>>,
    pub yields: Yields,
    /// Calls to compare_and_swap that fail with a port error, by call number (0-based).
    pub failing_swaps: Rc<RefCell<Vec<usize>>>,
    pub swaps: Rc<Cell<usize>>,
}

impl FakeStore {
    pub fn with(confirmations: &[&Confirmation]) -> Self {
        let store = Self::default();
        for confirmation in confirmations {
            store.insert(confirmation);
        }
        store
    }
    pub fn insert(&self, confirmation: &Confirmation) {
        let text = serde_json::to_string(confirmation).unwrap();
        self.data
            .borrow_mut()
            .insert(store_key(&confirmation.confirmation_id), text);
    }
    pub fn confirmation(&self, id: &str) -> Confirmation {
        let text = self.data.borrow().get(&store_key(id)).cloned().unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

impl Store for FakeStore {
    async fn get(&self, key: &str) -> Result<Option<String>, PortError> {
        self.yields.pause().await;
        Ok(self.data.borrow().get(key).cloned())
    }
    async fn put(&self, key: &str, value: &str) -> Result<(), PortError> {
        self.yields.pause().await;
        self.data
            .borrow_mut()
            .insert(key.to_owned(), value.to_owned());
        Ok(())
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&str>,
        next: &str,
    ) -> Result<bool, PortError> {
        self.yields.pause().await;
        let call = self.swaps.get();
        self.swaps.set(call + 1);
        if self.failing_swaps.borrow().contains(&call) {
            return Err(PortError::new("store unavailable"));
        }
        let mut data = self.data.borrow_mut();
        if data.get(key).map(String::as_str) != expected {
            return Ok(false);
        }
        data.insert(key.to_owned(), next.to_owned());
        Ok(true)
    }
}

/// A skill whose node statuses live in a map; Apply answers from a queue of scripted responses (200 by
/// default) and records every request it received.
/// (confirmation id, status answered or None when the call failed).
pub type Answered = (String, Option<u16>);

#[derive(Clone, Default)]
pub struct FakeSkill {
    pub statuses: Rc<RefCell<BTreeMap<String, String>>>,
    pub scripted: Rc<RefCell<VecDeque<Result<SkillResponse, PortError>>>>,
    pub preview_error: Rc<RefCell<Option<String>>>,
    pub applied: Rc<RefCell<Vec<ApplyRequest>>>,
    /// (confirmation id, status answered or None when the call failed), in call order.
    pub answers: Rc<RefCell<Vec<Answered>>>,
    pub previews: Rc<Cell<usize>>,
    pub yields: Yields,
    /// When set, a successful Apply leaves the node's status as it was (a tool call, which has none).
    pub statusless: Rc<Cell<bool>>,
}

impl FakeSkill {
    pub fn with_status(node_id: &str, status: &str) -> Self {
        let skill = Self::default();
        skill
            .statuses
            .borrow_mut()
            .insert(node_id.to_owned(), status.to_owned());
        skill
    }
    pub fn script(&self, response: Result<SkillResponse, PortError>) {
        self.scripted.borrow_mut().push_back(response);
    }
    pub fn apply_count(&self) -> usize {
        self.applied.borrow().len()
    }
}

pub fn response(status: u16, body: serde_json::Value) -> Result<SkillResponse, PortError> {
    Ok(SkillResponse { status, body })
}

impl Skill for FakeSkill {
    async fn preview(&self, node_id: &str) -> Result<PreviewResult, PortError> {
        self.yields.pause().await;
        self.previews.set(self.previews.get() + 1);
        if let Some(message) = self.preview_error.borrow().clone() {
            return Err(PortError::new(message));
        }
        let current_status = self
            .statuses
            .borrow()
            .get(node_id)
            .cloned()
            .unwrap_or_else(|| "unknown".into());
        Ok(PreviewResult {
            current_status,
            valid_transitions: None,
        })
    }
    async fn apply(&self, request: &ApplyRequest) -> Result<SkillResponse, PortError> {
        self.yields.pause().await;
        self.applied.borrow_mut().push(request.clone());
        let answer = self.scripted.borrow_mut().pop_front().unwrap_or_else(|| {
            response(
                200,
                serde_json::json!({ "applied": true, "status_changed": true }),
            )
        });
        let status = answer.as_ref().ok().map(|r| r.status);
        self.answers
            .borrow_mut()
            .push((request.confirmation.confirmation_id.clone(), status));
        if matches!(answer, Ok(SkillResponse { status: 200, .. })) && !self.statusless.get() {
            self.statuses
                .borrow_mut()
                .insert(request.node_id.clone(), request.confirm_status.clone());
        }
        answer
    }
}

#[derive(Clone)]
pub struct FixedClock(pub Rc<Cell<EpochMillis>>);

impl FixedClock {
    pub fn at(millis: EpochMillis) -> Self {
        Self(Rc::new(Cell::new(millis)))
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Result<EpochMillis, PortError> {
        Ok(self.0.get())
    }
}

#[derive(Clone, Default)]
pub struct AuditLog(pub Rc<RefCell<Vec<AuditRecord>>>);

impl AuditSink for AuditLog {
    async fn record(&self, record: &AuditRecord) -> Result<(), PortError> {
        self.0.borrow_mut().push(record.clone());
        Ok(())
    }
}

pub type TestExecutor = Executor<FakeStore, FakeSkill, FixedClock, AuditLog>;

/// An Executor one hour after the demo confirmation, its node in the approved `from` status.
pub struct World {
    pub store: FakeStore,
    pub skill: FakeSkill,
    pub clock: FixedClock,
    pub audit: AuditLog,
}

impl World {
    pub fn new(confirmations: &[&Confirmation]) -> Self {
        let skill = FakeSkill::default();
        for confirmation in confirmations {
            skill.statuses.borrow_mut().insert(
                confirmation.node_id.clone(),
                confirmation.proposed_change.from.clone(),
            );
        }
        Self {
            store: FakeStore::with(confirmations),
            skill,
            clock: FixedClock::at(confirmed_at_ms() + 60 * 60 * 1000),
            audit: AuditLog::default(),
        }
    }
    /// Sets a node's current status, as seen by Preview.
    pub fn set_status(&self, node_id: &str, status: &str) {
        self.skill
            .statuses
            .borrow_mut()
            .insert(node_id.to_owned(), status.to_owned());
    }

    pub fn executor(&self) -> TestExecutor {
        Executor::new(
            self.store.clone(),
            self.skill.clone(),
            self.clock.clone(),
            self.audit.clone(),
            keys(),
        )
    }

    /// An Executor over this world that picks its skill by change type from `by_type`.
    pub fn executor_by_type(&self, by_type: &[(&str, &FakeSkill)]) -> TestExecutor {
        let skills = by_type
            .iter()
            .map(|(change_type, skill)| ((*change_type).to_owned(), (*skill).clone()))
            .collect();
        Executor::with_skills(
            self.store.clone(),
            agent_governor::executor::run::SkillSet::by_type(skills, None),
            self.clock.clone(),
            self.audit.clone(),
            keys(),
        )
    }
}

pub fn run<F: Future>(future: F) -> F::Output {
    futures::executor::block_on(future)
}

/// A model that answers with the given structured outputs (or replies), in order, and records the prompts and
/// the schemas it was sent; past its answers it fails with "no more answers".
#[derive(Default)]
pub struct ScriptedModel {
    pub answers: RefCell<VecDeque<Result<agent_governor::llm::QueryReply, PortError>>>,
    pub prompts: RefCell<Vec<String>>,
    pub schemas: RefCell<Vec<serde_json::Value>>,
}

impl ScriptedModel {
    /// Answers each query with the next structured output.
    pub fn answering(answers: Vec<serde_json::Value>) -> Self {
        Self::replying(
            answers
                .into_iter()
                .map(|answer| {
                    Ok(agent_governor::llm::QueryReply {
                        structured_output: Some(answer),
                        ..agent_governor::llm::QueryReply::default()
                    })
                })
                .collect(),
        )
    }

    /// Answers each query with the next reply or port error.
    pub fn replying(replies: Vec<Result<agent_governor::llm::QueryReply, PortError>>) -> Self {
        Self {
            answers: RefCell::new(replies.into()),
            ..Self::default()
        }
    }

    /// How many queries it was sent.
    pub fn calls(&self) -> usize {
        self.prompts.borrow().len()
    }
}

impl agent_governor::ports::Llm for ScriptedModel {
    async fn query(
        &self,
        prompt: &str,
        options: &agent_governor::llm::QueryOptions,
    ) -> Result<agent_governor::llm::QueryReply, PortError> {
        self.prompts.borrow_mut().push(prompt.to_owned());
        self.schemas
            .borrow_mut()
            .push(options.output_schema.clone());
        self.answers
            .borrow_mut()
            .pop_front()
            .unwrap_or_else(|| Err(PortError::new("no more answers")))
    }
}

/// A person's signed action (HMAC with the test key) on approval `id` at version `version`.
pub fn signed_action(
    kind: agent_governor::executor::human_action::HumanActionKind,
    id: &str,
    version: &str,
    nonce: &str,
    at_ms: i64,
) -> agent_governor::executor::human_action::HumanAction {
    use agent_governor::executor::human_action::{HumanAction, canonical_action_bytes};
    use hmac::{Hmac, Mac};
    let unsigned = HumanAction {
        action: kind,
        approval_id: id.into(),
        detail: String::new(),
        at: agent_governor::timestamp::format_rfc3339(at_ms),
        nonce: nonce.into(),
        version: version.into(),
        key_id: None,
        signature: None,
        assertion: None,
    };
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(SECRET).unwrap();
    mac.update(&canonical_action_bytes(&unsigned, KEY_ID));
    HumanAction {
        key_id: Some(KEY_ID.into()),
        signature: Some(hex::encode(mac.finalize().into_bytes())),
        ..unsigned
    }
}

/// The world's clock now.
pub fn now(world: &World) -> i64 {
    world.clock.0.get()
}

/// The version of stored confirmation `id` (what a signed cancel or reconcile names).
pub fn version_of(world: &World, id: &str) -> String {
    agent_governor::executor::state_version::state_version(
        world.store.data.borrow().get(&store_key(id)).unwrap(),
    )
}
