//! The Executor over host ports: load, verify, reserve, preview, apply, then commit, release or invalidate.
//!
//! Exactly once: the confirmation moves approved -> in_flight by compare-and-swap before the Apply, so of
//! two Executors racing on one confirmation only one reaches the skill. in_flight -> consumed after a
//! success; back to approved when the skill answered that nothing changed (422, 500); -> invalidated when
//! step 6 fails. When the Apply's fate is unknown (the callback threw, an unexpected status, or the commit
//! could not be written) it stays in_flight and is never applied again automatically.

use super::action_ledger::{ActionRun, ActionRunState, ClaimRefused, action_run, claim, settle};
use super::audit::AuditRecord;
use super::check::{CheckPolicy, Phase, Rejection, check_before_apply, check_precondition};
use super::confirmation::{Confirmation, ConfirmationState, store_key};
use super::consumption::{ApplyResponseKind, LifecycleTransition, classify_apply_response};
use super::ledger::{record_consumed, was_consumed};
use super::mandate::record::{UseRefused, check_use};
use super::messages;
use super::request::{ApplyRequest, ExecutorRequest, Source, executor_apply_request};
use super::result::{AppliedBlock, ExecutorResult, ReconfirmBlock, RejectionBlock};
use super::seal::{SealKey, stored_text};
use super::signature::KeyRing;
use crate::input::parse_valid_json_str;
use crate::ports::{AuditSink, Clock, PortError, Skill, Store};
use crate::timestamp::EpochMillis;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Consumes confirmations, one Apply each. Holds no state of its own: every fact lives in the store.
pub struct Executor<S, K, C, A> {
    pub(super) store: S,
    pub(super) skills: SkillSet<K>,
    pub(super) clock: C,
    pub(super) audit: A,
    pub(super) keys: KeyRing,
    pub(super) options: ExecutorOptions,
    /// When set, every record written is sealed and every record read must carry this key's seal.
    pub(super) seal: Option<SealKey>,
    /// The confirmations whose Apply is running in this process (a reconcile as "not applied" is refused
    /// for them: the skill may still act).
    pub(super) running: RefCell<Vec<String>>,
}

/// The Executor's settings beyond its ports: the clock skew it allows and the language of its texts.
pub type ExecutorOptions = CheckPolicy;

/// The skills the Executor applies through, chosen by `proposed_change.type` (seed 003 10.2): one per
/// type, and optionally one for every other type.
pub struct SkillSet<K> {
    by_type: BTreeMap<String, K>,
    fallback: Option<K>,
}

impl<K> SkillSet<K> {
    /// One skill for every change type.
    pub fn single(skill: K) -> Self {
        Self {
            by_type: BTreeMap::new(),
            fallback: Some(skill),
        }
    }

    /// A skill per change type, and `fallback` (if any) for the others.
    pub fn by_type(by_type: BTreeMap<String, K>, fallback: Option<K>) -> Self {
        Self { by_type, fallback }
    }

    /// The skill for a change type, if one is configured.
    pub fn for_type(&self, change_type: &str) -> Option<&K> {
        self.by_type.get(change_type).or(self.fallback.as_ref())
    }
}

/// A loaded confirmation with the exact stored text it came from (the compare-and-swap operand).
struct Loaded {
    confirmation: Confirmation,
    text: String,
}

impl<S: Store, K: Skill, C: Clock, A: AuditSink> Executor<S, K, C, A> {
    /// An Executor with one skill for every change type and the default options.
    pub fn new(store: S, skill: K, clock: C, audit: A, keys: KeyRing) -> Self {
        Self::with_skills(store, SkillSet::single(skill), clock, audit, keys)
    }

    /// An Executor choosing its skill by the change's type.
    pub fn with_skills(store: S, skills: SkillSet<K>, clock: C, audit: A, keys: KeyRing) -> Self {
        Self {
            store,
            skills,
            clock,
            audit,
            keys,
            options: ExecutorOptions::default(),
            seal: None,
            running: RefCell::new(Vec::new()),
        }
    }

    /// The same Executor sealing the records it writes and refusing unsealed or tampered ones.
    pub fn with_seal(mut self, seal: SealKey) -> Self {
        self.seal = Some(seal);
        self
    }

    /// The text this Executor writes for `confirmation` (sealed when it holds a seal key).
    pub(super) fn text_of(&self, confirmation: Confirmation) -> String {
        stored_text(self.seal.as_ref(), confirmation)
    }

    /// A record is trusted only with this Executor's seal on it (when it holds a seal key).
    pub(super) fn unsealed(&self, confirmation: &Confirmation) -> Result<(), Rejection> {
        match &self.seal {
            None => Ok(()),
            Some(key) => key.verify(confirmation).map_err(|why| {
                Rejection::new(
                    Phase::RecordTampered,
                    messages::record_tampered(self.options.language, &why),
                )
            }),
        }
    }

    /// The same Executor with other options.
    pub fn with_options(mut self, options: ExecutorOptions) -> Self {
        self.options = options;
        self
    }

    /// Runs one request to its result. Never returns an error: every failure is an ExecutorResult.
    pub async fn execute(&self, request: &ExecutorRequest) -> ExecutorResult {
        let mut result = self.execute_unaudited(request).await;
        if result.outcome != super::result::Outcome::Applied && result.first_run.is_none() {
            result.first_run = self.action_run_of(request).await;
        }
        result.audit_error = self.record(Source::AiAgent, &result).await;
        result
    }

    /// What the action a request names has come to, for an answer that did not run it (refused before the
    /// ledger, an expired or cancelled approval of an action that ran): never read as "not run" when it ran
    /// or may have. `None` when the request names no action, or its action never started or was released.
    async fn action_run_of(&self, request: &ExecutorRequest) -> Option<ActionRun> {
        let action_id = request.apply_request.action_id.as_deref()?;
        let run = action_run(&self.store, action_id).await.ok()??;
        (run.state != ActionRunState::Released).then_some(run)
    }

    async fn execute_unaudited(&self, request: &ExecutorRequest) -> ExecutorResult {
        let node_id = request.apply_request.node_id.as_str();
        let id = request.confirmation_id.as_str();
        let language = self.options.language;
        let fail = |message: String, state| ExecutorResult::error(node_id, id, message, state);
        let now = match self.clock.now() {
            Ok(now) => now,
            Err(error) => return fail(messages::clock_failed(language, &error.to_string()), None),
        };
        let key = store_key(id);
        let loaded = match self.load(&key).await {
            Ok(loaded) => loaded,
            Err(message) => return fail(message, None),
        };
        if let Some(Loaded { confirmation, .. }) = &loaded {
            if let Err(rejection) = self.unsealed(confirmation) {
                return rejected(node_id, id, rejection, None);
            }
            // A request that names its action runs only a confirmation of that action: checked before
            // anything else about the record, so another action's used confirmation is never read as
            // this action having run.
            if let Some(asked) = &request.apply_request.action_id {
                if confirmation.action_id.as_ref() != Some(asked) {
                    let approved = confirmation.action_id.as_deref().unwrap_or_default();
                    let rejection = Rejection::new(
                        Phase::ChangeMismatch,
                        messages::change_mismatch(language, "action_id", approved, asked),
                    );
                    return rejected(node_id, id, rejection, Some(confirmation.state()));
                }
            }
        }
        // A consumed id stays consumed even if its record was deleted and saved again.
        match was_consumed(&self.store, id).await {
            Ok(false) => {}
            Ok(true) => {
                let rejection = Rejection::new(
                    Phase::AlreadyConsumed,
                    messages::already_consumed(
                        language,
                        "an earlier Apply (the consumed-id ledger)",
                    ),
                );
                return rejected(node_id, id, rejection, Some(ConfirmationState::Consumed));
            }
            Err(error) => return fail(messages::load_failed(language, &error.to_string()), None),
        }
        if let Err(rejection) = check_before_apply(
            loaded.as_ref().map(|l| &l.confirmation),
            request,
            now,
            &self.options,
            &self.keys,
        ) {
            let state = loaded.as_ref().map(|l| l.confirmation.state());
            return rejected(node_id, id, rejection, state);
        }
        let Some(Loaded { confirmation, text }) = loaded else {
            return fail(messages::vanished(language), None);
        };
        // Seed 003 10.2: the change's type selects the skill; without one nothing is reserved or applied.
        let change_type = confirmation.proposed_change.change_type.as_str();
        let Some(skill) = self.skills.for_type(change_type) else {
            let rejection =
                Rejection::new(Phase::NoSkill, messages::no_skill(language, change_type));
            return rejected(node_id, id, rejection, Some(confirmation.state()));
        };

        // Running here from the reservation on: a person's "not applied" is refused until this ends.
        let _running = Running::start(&self.running, id);
        // Reserve: approved -> in_flight, atomically.
        let reserved_text = self.text_of(confirmation.reserved(now));
        match self
            .store
            .compare_and_swap(&key, Some(&text), &reserved_text)
            .await
        {
            Ok(true) => {}
            Ok(false) => return self.lost_reservation(request, &key, now).await,
            Err(error) => {
                return fail(
                    messages::reserve_failed(language, &error.to_string()),
                    Some(ConfirmationState::Approved),
                );
            }
        }
        // One action, one run: with the confirmation reserved (no other Executor of it gets here), its
        // action is claimed, so of two confirmations of one action at most one reaches the skill.
        let claimed = match claim(&self.store, &confirmation, now).await {
            Ok(claimed) => claimed,
            Err(refused) => {
                let restored = self
                    .store
                    .compare_and_swap(&key, Some(&reserved_text), &text)
                    .await;
                let state = match restored {
                    Ok(true) => ConfirmationState::Approved,
                    Ok(false) | Err(_) => ConfirmationState::InFlight,
                };
                return match refused {
                    ClaimRefused::Taken(rejection, first_run) => {
                        let mut result = rejected(node_id, id, rejection, Some(state));
                        result.first_run = Some(*first_run);
                        result
                    }
                    ClaimRefused::Failed(why) => {
                        fail(messages::reserve_failed(language, &why), Some(state))
                    }
                };
            }
        };
        let reservation = Reservation {
            executor: self,
            key: &key,
            reserved_text: &reserved_text,
            original_text: &text,
            confirmation: &confirmation,
            claimed: &claimed,
            now,
        };
        // Under a standing approval: its record still holds it, unrevoked, with a use reserved for exactly
        // this confirmation (so the Executor itself made it, for an agent the mandate names).
        if let Some(mandate) = &confirmation.mandate {
            if let Err(refused) = check_use(&self.store, mandate, id).await {
                let state = reservation.release().await;
                return match refused {
                    UseRefused::Refused(rejection) => rejected(node_id, id, rejection, Some(state)),
                    UseRefused::Failed(why) => {
                        fail(messages::reserve_failed(language, &why), Some(state))
                    }
                };
            }
        }

        // Step 6: the precondition, from Preview (facts only).
        let preview = match skill.preview(node_id).await {
            Ok(preview) => preview,
            Err(error) => {
                let state = reservation.release().await;
                return fail(
                    messages::preview_failed(language, &error.to_string()),
                    Some(state),
                );
            }
        };
        if let Err(reason) = check_precondition(&confirmation, &preview.current_status, language) {
            let state = reservation.invalidate(&confirmation, now).await;
            let block = ReconfirmBlock {
                reason,
                current_status: preview.current_status,
                valid_transitions: preview.valid_transitions.unwrap_or_default(),
            };
            return ExecutorResult::reconfirm_required(node_id, id, block, state);
        }

        // Apply, exactly what was approved, once.
        let apply_request = executor_apply_request(request, &confirmation);
        let response = match skill.apply(&apply_request).await {
            Ok(response) => response,
            Err(error) => {
                return fail(
                    messages::apply_threw(language, &error.to_string()),
                    Some(ConfirmationState::InFlight),
                );
            }
        };
        let kind = classify_apply_response(&response);
        match kind.transition() {
            LifecycleTransition::Commit => {
                reservation
                    .commit(&confirmation, &apply_request, kind, now)
                    .await
            }
            LifecycleTransition::Release => {
                let state = reservation.release().await;
                let message = kind.message(language);
                match kind {
                    ApplyResponseKind::TransitionRefused {
                        current_status,
                        valid_transitions,
                        ..
                    } => {
                        let block = ReconfirmBlock {
                            reason: message,
                            current_status: current_status.unwrap_or(preview.current_status),
                            valid_transitions,
                        };
                        ExecutorResult::reconfirm_required(node_id, id, block, state)
                    }
                    _ => fail(message, Some(state)),
                }
            }
            LifecycleTransition::KeepInFlight => {
                fail(kind.message(language), Some(ConfirmationState::InFlight))
            }
        }
    }

    async fn load(&self, key: &str) -> Result<Option<Loaded>, String> {
        let text = match self.store.get(key).await {
            Ok(Some(text)) => text,
            Ok(None) => return Ok(None),
            Err(error) => {
                return Err(messages::load_failed(
                    self.options.language,
                    &error.to_string(),
                ));
            }
        };
        let confirmation = parse_valid_json_str::<Confirmation>(&text).map_err(|error| {
            messages::stored_malformed(self.options.language, &error.to_string())
        })?;
        Ok(Some(Loaded { confirmation, text }))
    }

    /// Another Executor changed the record between our load and our reservation: report what it is now.
    async fn lost_reservation(
        &self,
        request: &ExecutorRequest,
        key: &str,
        now: EpochMillis,
    ) -> ExecutorResult {
        let node_id = request.apply_request.node_id.as_str();
        let id = request.confirmation_id.as_str();
        match self.load(key).await {
            Ok(loaded) => {
                let confirmation = loaded.as_ref().map(|l| &l.confirmation);
                let state = confirmation.map(Confirmation::state);
                match check_before_apply(confirmation, request, now, &self.options, &self.keys) {
                    Err(rejection) => rejected(node_id, id, rejection, state),
                    Ok(()) => ExecutorResult::error(
                        node_id,
                        id,
                        messages::changed_while_reserving(self.options.language),
                        state,
                    ),
                }
            }
            Err(message) => ExecutorResult::error(node_id, id, message, None),
        }
    }

    async fn record(&self, source: Source, result: &ExecutorResult) -> Option<String> {
        record_audit(
            &self.clock,
            &self.audit,
            source,
            result,
            self.options.language,
        )
        .await
    }
}

/// Audit failures never change an outcome (the fact already happened); a failed or late audit is
/// returned so the result can report it.
pub(super) async fn record_audit(
    clock: &impl Clock,
    audit: &impl AuditSink,
    source: Source,
    result: &ExecutorResult,
    language: crate::language::Language,
) -> Option<String> {
    let now = clock.now().unwrap_or_default();
    let recorded: Result<(), PortError> = audit.record(&AuditRecord::of(source, result, now)).await;
    recorded
        .err()
        .map(|error| messages::audit_not_written(language, &error.to_string()))
}

fn rejected(
    node_id: &str,
    id: &str,
    rejection: Rejection,
    state: Option<ConfirmationState>,
) -> ExecutorResult {
    let block = RejectionBlock {
        phase: rejection.phase,
        reason: rejection.reason,
    };
    ExecutorResult::rejected(node_id, id, block, state)
}

pub(super) fn applied_block(
    confirmation: &Confirmation,
    from_status: Option<String>,
    to_status: Option<String>,
    status_changed: Option<bool>,
    now: EpochMillis,
) -> AppliedBlock {
    let from_status = from_status.unwrap_or_else(|| confirmation.proposed_change.from.clone());
    let to_status = to_status.unwrap_or_else(|| confirmation.proposed_change.to.clone());
    AppliedBlock {
        status_changed: status_changed.unwrap_or(from_status != to_status),
        from_status,
        to_status,
        reason: confirmation.reason.clone(),
        consumed_at: crate::timestamp::format_rfc3339(now),
    }
}

/// A confirmation this Executor holds in_flight, and the three ways out of that state.
struct Reservation<'a, S, K, C, A> {
    executor: &'a Executor<S, K, C, A>,
    key: &'a str,
    reserved_text: &'a str,
    original_text: &'a str,
    confirmation: &'a Confirmation,
    /// The action's ledger entry as this Apply claimed it.
    claimed: &'a str,
    now: EpochMillis,
}

/// Marks a confirmation's Apply as running in this process until dropped.
struct Running<'a> {
    set: &'a RefCell<Vec<String>>,
    id: String,
}

impl<'a> Running<'a> {
    fn start(set: &'a RefCell<Vec<String>>, id: &str) -> Self {
        if let Ok(mut running) = set.try_borrow_mut() {
            running.push(id.to_owned());
        }
        Self {
            set,
            id: id.to_owned(),
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Ok(mut running) = self.set.try_borrow_mut() {
            if let Some(index) = running.iter().position(|id| id == &self.id) {
                running.swap_remove(index);
            }
        }
    }
}

impl<S: Store, K: Skill, C: Clock, A: AuditSink> Reservation<'_, S, K, C, A> {
    async fn swap(&self, next: &str) -> Result<bool, PortError> {
        self.executor
            .store
            .compare_and_swap(self.key, Some(self.reserved_text), next)
            .await
    }

    /// The action's entry moves on from this Apply's claim.
    async fn settle_action(&self, state: ActionRunState, applied: Option<AppliedBlock>) {
        let _ = settle(
            &self.executor.store,
            self.confirmation,
            self.claimed,
            state,
            applied,
            self.now,
        )
        .await;
    }

    /// in_flight -> approved (nothing was applied). Returns the resulting state. The action is released
    /// first, while this confirmation is still reserved, so no other Executor of it can have claimed it.
    async fn release(&self) -> ConfirmationState {
        self.settle_action(ActionRunState::Released, None).await;
        match self.swap(self.original_text).await {
            Ok(true) => ConfirmationState::Approved,
            Ok(false) | Err(_) => ConfirmationState::InFlight,
        }
    }

    /// in_flight -> invalidated (step 6 failed); the action is released first, as for `release`.
    async fn invalidate(&self, confirmation: &Confirmation, now: EpochMillis) -> ConfirmationState {
        self.settle_action(ActionRunState::Released, None).await;
        match self
            .swap(&self.executor.text_of(confirmation.invalidated(now)))
            .await
        {
            Ok(true) => ConfirmationState::Invalidated,
            Ok(false) | Err(_) => ConfirmationState::InFlight,
        }
    }

    /// in_flight -> consumed after a successful Apply.
    async fn commit(
        &self,
        confirmation: &Confirmation,
        apply_request: &ApplyRequest,
        kind: ApplyResponseKind,
        now: EpochMillis,
    ) -> ExecutorResult {
        let (node_id, id) = (
            apply_request.node_id.as_str(),
            confirmation.confirmation_id.as_str(),
        );
        let ApplyResponseKind::Applied {
            from_status,
            to_status,
            status_changed,
        } = kind
        else {
            return ExecutorResult::error(
                node_id,
                id,
                kind.message(self.executor.options.language),
                Some(ConfirmationState::InFlight),
            );
        };
        let committed = self.executor.text_of(confirmation.committed(now));
        match self.swap(&committed).await {
            Ok(true) => {
                // The record already says consumed; the ledger keeps saying so if the record is deleted.
                let _ = record_consumed(&self.executor.store, id, now).await;
                let block =
                    applied_block(confirmation, from_status, to_status, status_changed, now);
                self.settle_action(ActionRunState::Applied, Some(block.clone()))
                    .await;
                ExecutorResult::applied(node_id, id, block)
            }
            Ok(false) => ExecutorResult::error(
                node_id,
                id,
                messages::commit_lost(self.executor.options.language),
                Some(ConfirmationState::InFlight),
            ),
            Err(error) => ExecutorResult::error(
                node_id,
                id,
                messages::commit_failed(self.executor.options.language, &error.to_string()),
                Some(ConfirmationState::InFlight),
            ),
        }
    }
}
