//! The loop as one pure function: `step(state, event) -> (state, effects)`. No I/O, no clock, no
//! randomness: the same state and event always give the same next state and effects, so the host can
//! persist, replay and test it.

/// Developer commands (`/dev ...`) run by the step: a part of it, in its own file.
mod privileged;

use super::bounds;
use super::event::{ControlEffect, ControlEvent, Judgement, LogChannel, LogRecord};
use super::render::{self, RenderError};
use super::state::{
    Action, ActionResult, ApprovalRecord, ApprovedBy, ControlState, Execution, Halt, HaltKind,
    InterruptedTask, Mode, Purpose, Unreconciled,
};
use super::text::{
    ResumeOrDiscard, YesNo, describe_rule_change, not_applied_report, one_line,
    read_resume_or_discard, read_yes_no, report,
};
use serde_json::Value;

/// The largest value a self-modification may set, as JSON: anything bigger is not a small change.
pub const MAX_SETTING_BYTES: usize = 1024;

/// Applies `event` to `state`: the next state and what the host must do, in order.
pub fn step(state: &ControlState, event: &ControlEvent) -> (ControlState, Vec<ControlEffect>) {
    let mut machine = Machine {
        state: state.clone(),
        effects: Vec::new(),
        persist: false,
    };
    machine.handle(event);
    machine.finish();
    (machine.state, machine.effects)
}

/// One step in progress: the state being changed, the effects so far, and whether to save.
pub(super) struct Machine {
    state: ControlState,
    effects: Vec<ControlEffect>,
    persist: bool,
}

impl Machine {
    fn handle(&mut self, event: &ControlEvent) {
        match event {
            ControlEvent::SituationChanged { external, internal } => {
                self.situation_changed(external.as_ref(), internal.as_ref());
            }
            ControlEvent::JudgementReceived {
                judgement_id,
                judgement,
            } => {
                if self.awaits_judgement(*judgement_id) {
                    self.judged(judgement);
                }
            }
            ControlEvent::JudgementFailed {
                judgement_id,
                error,
            } => {
                if self.awaits_judgement(*judgement_id) {
                    self.judge_failed(error);
                }
            }
            ControlEvent::ApprovalAnswered {
                request_id,
                answer,
                reason,
                edited,
            } => {
                self.approval_answered(request_id, answer, reason.as_deref(), edited.as_ref());
            }
            ControlEvent::ApprovalWithdrawn { request_id, reason } => {
                self.approval_withdrawn(request_id, reason);
            }
            ControlEvent::StatePersisted { revision } => self.state_persisted(*revision),
            ControlEvent::StateNotPersisted { revision, error } => {
                self.state_not_persisted(*revision, error)
            }
            ControlEvent::OutcomeReconciled { action_id, applied } => {
                self.outcome_reconciled(action_id, *applied)
            }
            ControlEvent::ExecutionFinished {
                action_id,
                succeeded,
                detail,
                not_applied,
            } => self.execution_finished(action_id, *succeeded, detail, *not_applied),
            ControlEvent::HumanMessage { text } => self.human_message(text),
            ControlEvent::HumanReply { text } => self.human_reply(text),
            ControlEvent::InterruptionAnswered { answer } => self.interruption_answered(answer),
            ControlEvent::RevertSetting => self.revert_setting(),
            ControlEvent::HostRestarted {
                boot,
                rules,
                renderers,
            } => self.host_restarted(boot, rules.as_ref(), renderers.as_ref()),
        }
    }

    /// Every step ends here: the state brought within its bounds, then saved once, after everything else
    /// the step did, with the revision the host confirms.
    fn finish(&mut self) {
        // A loop that is idle with people's replies unread asks the judge, whatever made it idle.
        if self.state.mode == Mode::Idle && !self.state.unread_replies.is_empty() {
            self.ask_judge();
        }
        bounds::fit(&mut self.state);
        if !self.persist {
            return;
        }
        self.state.revision += 1;
        let revision = self.state.revision;
        if let Some(execution) = self.state.execution.as_mut() {
            if execution.written_at == 0 {
                execution.written_at = revision;
            }
        }
        self.effects.push(ControlEffect::PersistState { revision });
    }

    // ---- observe and judge ----

    /// "The judgement cycle turns on a change of the situation": only a change, and only when idle.
    fn situation_changed(&mut self, external: Option<&Value>, internal: Option<&Value>) {
        let situation = &self.state.situation;
        let external =
            external.map_or_else(|| situation.external.clone(), bounds::bounded_observation);
        let internal =
            internal.map_or_else(|| situation.internal.clone(), bounds::bounded_observation);
        if situation.external == external && situation.internal == internal {
            return;
        }
        let situation = &mut self.state.situation;
        situation.external = external;
        situation.internal = internal;
        if self.state.mode == Mode::Idle {
            self.ask_judge();
        } else {
            self.persist();
        }
    }

    fn awaits_judgement(&self, judgement_id: u64) -> bool {
        self.state.mode == Mode::Judging && judgement_id == self.state.judgement_id
    }

    fn ask_judge(&mut self) {
        // People's replies are given with the request (quoted as their words, never as an instruction); the
        // judgement that reads them marks them read.
        self.state.replies_asked = self.state.unread_replies.len();
        self.state.judgement_id += 1;
        self.state.mode = Mode::Judging;
        self.state.halt = None;
        self.effects.push(ControlEffect::AskJudge {
            judgement_id: self.state.judgement_id,
            situation: self.state.situation.clone(),
            memory: self.state.memory.iter().cloned().collect(),
            declined: self.state.declined.iter().cloned().collect(),
            replies: self.state.unread_replies.clone(),
            include_log_tail: self.state.needs_log_tail,
        });
        self.state.needs_log_tail = false;
        self.persist();
    }

    fn judged(&mut self, judgement: &Judgement) {
        self.state.situation.instruction = None;
        // The replies this judgement was asked with are read; any that came since wait for the next one.
        let read = self
            .state
            .replies_asked
            .min(self.state.unread_replies.len());
        self.state.unread_replies.drain(..read);
        self.state.replies_asked = 0;
        match judgement {
            Judgement::Reply { text } => {
                // A conversation reply is the one action that is approved automatically.
                self.chat(text);
                self.log(
                    LogChannel::Chat,
                    "reply",
                    "conversation reply, auto-approved",
                    "chat",
                );
                self.state.mode = Mode::Idle;
                self.persist();
            }
            Judgement::Act {
                action_type,
                summary,
                impact_scope,
                parameters,
            } => {
                let note = one_line(&format!("{summary} / {impact_scope}"));
                let action = match self.new_action(
                    action_type,
                    parameters.clone(),
                    Purpose::Task,
                    Some(note),
                ) {
                    Ok(action) => action,
                    Err(error) => {
                        self.judge_failed(&format!("the action cannot be shown: {error}"));
                        return;
                    }
                };
                self.state.intent = Some(action.what().to_owned());
                let whitelisted = self
                    .state
                    .rules
                    .whitelist
                    .iter()
                    .find(|entry| *entry == action_type)
                    .cloned();
                // A failed action, or any of a type that failed, runs again only after a person's y.
                let failed_before = self.state.failed_digests.contains(&action.digest)
                    || self.state.suspended_types.contains(action_type)
                    || self.state.suspended_types.len() >= bounds::MAX_WHITELIST_ENTRIES;
                match whitelisted {
                    Some(entry) if !failed_before => {
                        let approval = ApprovalRecord {
                            by: ApprovedBy::Whitelist,
                            request_id: None,
                            whitelist_entry: Some(entry.clone()),
                            digest: action.digest.clone(),
                            ui_action: "whitelist".to_owned(),
                            reason: one_line(&format!(
                                "action type {} matches the whitelist entry {}",
                                super::display::display_identifier(action_type),
                                super::display::display_identifier(&entry)
                            )),
                            edited_request_id: None,
                        };
                        self.begin_execution(action, approval);
                    }
                    _ if self.declined_as_is(&action) => self.not_asked_again(&action),
                    _ => self.request_approval(action),
                }
            }
            Judgement::ChangeRules { change, reason } => {
                if let Err(why) = check_rule_change(&self.state, change) {
                    self.judge_failed(&why);
                    return;
                }
                match self.new_action(
                    "rule_change",
                    Value::Null,
                    Purpose::RuleChange {
                        change: change.clone(),
                    },
                    Some(one_line(reason)),
                ) {
                    Ok(action) if self.declined_as_is(&action) => self.not_asked_again(&action),
                    Ok(action) => self.request_approval(action),
                    Err(error) => {
                        self.judge_failed(&format!("the rule change cannot be shown: {error}"))
                    }
                }
            }
            Judgement::AdjustSetting { key, value, reason } => {
                self.propose_setting(key, value, reason)
            }
            Judgement::Wait => {
                self.state.mode = Mode::Idle;
                self.persist();
            }
        }
    }

    /// Whether a person declined this very change and nothing they could have meant changed since: not the
    /// goal, not what the loop observes, and no new instruction.
    fn declined_as_is(&self, action: &Action) -> bool {
        let situation = self.state.situation.digest();
        self.state.declined.iter().any(|declined| {
            declined.digest == action.digest
                && declined.situation_digest == situation
                && declined.instructions_given == self.state.instructions_given
        })
    }

    /// The judge proposed again what a person declined, with nothing changed: the person is not asked
    /// again. The loop waits for the situation or an instruction to change (either asks the judge again).
    fn not_asked_again(&mut self, action: &Action) {
        self.state.intent = None;
        self.state.mode = Mode::Idle;
        self.chat(&format!(
            "Not asking again: a person declined {} and nothing has changed since. Waiting for a change or an instruction.",
            action.what()
        ));
        self.log(
            LogChannel::Cli,
            "not proposed again",
            &one_line(&format!("declined before: {}", action.what())),
            action.scope(),
        );
        self.persist();
    }

    /// Self-modification: one setting the rules name as adjustable, a small value, and the previous value
    /// kept so that one call reverts it. Anything else is refused with the reason.
    fn propose_setting(&mut self, key: &str, value: &Value, reason: &str) {
        let refusal = if !self
            .state
            .rules
            .adjustable_settings
            .iter()
            .any(|allowed| allowed == key)
        {
            Some(format!("`{key}` is not an adjustable setting"))
        } else if crate::input::to_json_string(value).len() > MAX_SETTING_BYTES
            || render::json_depth(value) > render::MAX_PARAMETER_DEPTH
        {
            Some(format!("the new value of `{key}` is not a small change"))
        } else {
            None
        };
        if let Some(why) = refusal {
            self.chat(&format!("Self-modification refused: {why}."));
            self.log(LogChannel::Cli, "self-modification refused", &why, key);
            self.state.mode = Mode::Idle;
            self.persist();
            return;
        }
        match self.new_action(
            "self_modification",
            Value::Null,
            Purpose::SelfModification {
                key: key.to_owned(),
                value: value.clone(),
            },
            Some(one_line(reason)),
        ) {
            Ok(action) if self.declined_as_is(&action) => self.not_asked_again(&action),
            Ok(action) => self.request_approval(action),
            Err(error) => {
                self.judge_failed(&format!("the setting change cannot be shown: {error}"))
            }
        }
    }

    /// "Stop at once on failure and report": the judge failing is a failure too.
    fn judge_failed(&mut self, error: &str) {
        self.state.mode = Mode::Stopped;
        self.state.needs_log_tail = true;
        let cause = one_line(error);
        self.chat(&format!("Stopped: the judgement failed ({cause})."));
        self.log(LogChannel::Cli, "judgement failed", &cause, "judge");
        self.halt(
            HaltKind::JudgementFailed,
            &format!("the judgement failed: {cause}"),
        );
        self.persist();
    }

    // ---- approve ----

    /// A new action: its lines rendered by the machine, its digest, and an id unique across restarts.
    fn new_action(
        &mut self,
        action_type: &str,
        parameters: Value,
        purpose: Purpose,
        note: Option<String>,
    ) -> Result<Action, RenderError> {
        let lines = machine_lines(&self.state, action_type, &parameters, &purpose)?;
        self.state.actions_created += 1;
        let digest = Action::expected_digest(action_type, &parameters, &purpose);
        Ok(Action {
            id: format!("a-{}-{}", self.state.actions_created, self.state.boot),
            action_type: action_type.to_owned(),
            parameters,
            purpose,
            lines,
            digest,
            note: note.filter(|note| !note.is_empty()),
        })
    }

    fn ask_approval(&mut self, action: &Action) {
        self.effects.push(ControlEffect::RequestApproval {
            request_id: action.request_id(),
            action_id: action.id.clone(),
            lines: action.lines.clone(),
            note: action.note.clone(),
            digest: action.digest.clone(),
        });
    }

    /// Asked once, just before execution: the two lines, then the loop is idle until y or n.
    fn request_approval(&mut self, action: Action) {
        self.ask_approval(&action);
        self.log(
            LogChannel::Cli,
            "approval requested",
            action.what(),
            action.scope(),
        );
        self.state.in_progress = Some(action);
        self.state.invalid_answers = 0;
        self.state.mode = Mode::AwaitingApproval;
        self.persist();
    }

    /// The action a request waits for (approval, or when stopped the offer to re-run or restart).
    fn pending_approval(&self) -> Option<Action> {
        let waiting = matches!(self.state.mode, Mode::AwaitingApproval | Mode::Stopped);
        self.state.in_progress.clone().filter(|_| waiting)
    }

    /// The host's request is set aside before anyone answered: the task continues from a fresh judgement.
    fn approval_withdrawn(&mut self, request_id: &str, reason: &str) {
        let waiting = self
            .state
            .in_progress
            .clone()
            .filter(|_| self.state.mode == Mode::AwaitingApproval);
        let Some(action) = waiting else {
            self.refuse_answer(request_id, "no approval request is waiting to be withdrawn");
            return;
        };
        if action.request_id() != request_id {
            self.refuse_answer(
                request_id,
                &format!(
                    "this withdrawal is for another request than the one waiting ({})",
                    action.request_id()
                ),
            );
            return;
        }
        let reason = one_line(reason);
        self.state.in_progress = None;
        self.state.intent = None;
        self.state.invalid_answers = 0;
        self.log(
            LogChannel::Cli,
            "approval withdrawn",
            &reason,
            action.scope(),
        );
        self.chat(&format!(
            "Withdrawn before anyone answered: {} ({reason}). Judging again.",
            action.what()
        ));
        self.ask_judge();
    }

    fn refuse_answer(&mut self, request_id: &str, reason: &str) {
        let reason = one_line(reason);
        self.log(
            LogChannel::Cli,
            "answer refused",
            &reason,
            &one_line(request_id),
        );
        self.effects.push(ControlEffect::AnswerRefused {
            request_id: request_id.to_owned(),
            reason,
        });
    }

    fn approval_answered(
        &mut self,
        request_id: &str,
        answer: &str,
        reason: Option<&str>,
        edited: Option<&Value>,
    ) {
        let Some(action) = self.pending_approval() else {
            self.refuse_answer(request_id, "no approval request is waiting");
            return;
        };
        if action.request_id() != request_id {
            self.refuse_answer(
                request_id,
                &format!(
                    "this answer is for another request than the one waiting ({})",
                    action.request_id()
                ),
            );
            return;
        }
        match read_yes_no(answer) {
            // Anything but y or n asks again, a bounded number of times; nothing is ever assumed.
            None => {
                self.state.invalid_answers = self.state.invalid_answers.saturating_add(1);
                if self.state.invalid_answers < self.state.max_invalid_answers.max(1) {
                    self.ask_approval(&action);
                } else if self.state.invalid_answers == self.state.max_invalid_answers.max(1) {
                    self.chat(&format!(
                        "{} answers were neither y nor n; waiting for y or n to: {}",
                        self.state.invalid_answers,
                        action.what()
                    ));
                    self.log(
                        LogChannel::Cli,
                        "approval not answered",
                        "answers were neither y nor n",
                        action.scope(),
                    );
                }
                self.persist();
            }
            Some(YesNo::No) if edited.is_some() => {
                self.refuse_answer(
                    request_id,
                    "an edit comes with an approval (y), never with a decline (n)",
                );
            }
            Some(YesNo::No) => self.declined(&action, reason),
            // A reason is a decline's: a `y` with one is read as neither (the words may say "no").
            Some(YesNo::Yes) if reason.is_some_and(|reason| !reason.trim().is_empty()) => {
                self.refuse_answer(
                    request_id,
                    "a reason comes with a decline (n), never with an approval (y)",
                );
            }
            Some(YesNo::Yes) => match edited {
                Some(parameters) if *parameters != action.parameters => {
                    self.approved_edited(action, request_id, parameters)
                }
                _ => self.approved(action, request_id),
            },
        }
    }

    /// "On rejection: stop and end": the task is over; a person's new goal or instruction starts again.
    /// The decline is remembered with the person's words: the judge reads them, and the same change is not
    /// asked for again until the situation or an instruction changed.
    fn declined(&mut self, action: &Action, reason: Option<&str>) {
        let reason = reason
            .map(one_line)
            .filter(|reason| !reason.trim().is_empty());
        self.state
            .declined
            .retain(|earlier| earlier.digest != action.digest);
        self.state.declined.push_back(super::state::Declined {
            digest: action.digest.clone(),
            what: action.what().to_owned(),
            reason: reason.clone(),
            situation_digest: self.state.situation.digest(),
            instructions_given: self.state.instructions_given,
        });
        self.state.in_progress = None;
        self.state.intent = None;
        self.state.failed = None;
        self.state.mode = Mode::Stopped;
        let words = reason.as_ref().map_or_else(String::new, |reason| {
            format!(" The person said: \u{201c}{reason}\u{201d}.")
        });
        self.chat(&format!(
            "Declined: {}.{words} The task is stopped; give a new goal or instruction to go on.",
            action.what()
        ));
        let detail = reason.as_ref().map_or_else(
            || action.what().to_owned(),
            |reason| one_line(&format!("{} (reason: {reason})", action.what())),
        );
        self.log(LogChannel::Cli, "declined", &detail, action.scope());
        self.halt(HaltKind::Declined, "the human declined the action");
        self.persist();
    }

    /// A person edited the change before approving it: the same action type with the parameters they signed.
    /// Its lines are rendered again by the machine; the edited action runs instead, and the loop says how it
    /// differs (the agent reads it in its results). A rule or setting change is never edited.
    fn approved_edited(&mut self, action: Action, request_id: &str, parameters: &Value) {
        if !parameters.is_object() {
            self.refuse_answer(
                request_id,
                "the edited parameters are an object, as an action's are",
            );
            return;
        }
        if action.purpose != Purpose::Task {
            self.refuse_answer(
                request_id,
                "only a task's action can be edited, never a rule or setting change",
            );
            return;
        }
        if action.digest
            != Action::expected_digest(&action.action_type, &action.parameters, &action.purpose)
        {
            self.approved(action, request_id);
            return;
        }
        let edited = match self.new_action(
            &action.action_type,
            parameters.clone(),
            Purpose::Task,
            action.note.clone(),
        ) {
            Ok(edited) => edited,
            Err(error) => {
                self.refuse_answer(
                    request_id,
                    &format!("the edited change cannot be shown: {error}"),
                );
                return;
            }
        };
        let how = one_line(&format!("{} -> {}", action.what(), edited.what()));
        self.chat(&format!("Edited by a person before approving: {how}."));
        self.log(LogChannel::Cli, "edited", &how, edited.scope());
        self.log(LogChannel::Cli, "approved", edited.what(), edited.scope());
        self.state.intent = Some(edited.what().to_owned());
        let approval = ApprovalRecord {
            by: ApprovedBy::Person,
            request_id: Some(edited.request_id()),
            whitelist_entry: None,
            digest: edited.digest.clone(),
            ui_action: "edited_y".to_owned(),
            reason: one_line(&format!(
                "a person edited request {request_id} and answered y: {how}"
            )),
            edited_request_id: Some(request_id.to_owned()),
        };
        self.begin_execution(edited, approval);
    }

    fn approved(&mut self, action: Action, request_id: &str) {
        if action.digest
            != Action::expected_digest(&action.action_type, &action.parameters, &action.purpose)
        {
            // A state altered outside the loop: what was shown is not what would run.
            self.state.in_progress = None;
            self.state.mode = Mode::Stopped;
            self.chat("Not executed: the action no longer matches what was shown for approval.");
            self.log(
                LogChannel::Cli,
                "approval refused",
                "the action's digest does not match",
                action.scope(),
            );
            self.halt(HaltKind::Failed, "the action changed after it was shown");
            self.persist();
            return;
        }
        self.log(LogChannel::Cli, "approved", action.what(), action.scope());
        match &action.purpose {
            Purpose::Task | Purpose::Restart => {
                let approval = ApprovalRecord {
                    by: ApprovedBy::Person,
                    request_id: Some(request_id.to_owned()),
                    whitelist_entry: None,
                    digest: action.digest.clone(),
                    ui_action: "chat_y".to_owned(),
                    reason: one_line(&format!("a person answered y to request {request_id}")),
                    edited_request_id: None,
                };
                self.begin_execution(action, approval);
            }
            Purpose::RuleChange { change } => self.apply_rule_change(&action, change.clone()),
            Purpose::SelfModification { key, value } => {
                let previous = self.state.settings.insert(key.clone(), value.clone());
                self.state.reversals.push(super::state::Reversal {
                    action_id: action.id.clone(),
                    key: key.clone(),
                    previous: previous.unwrap_or(Value::Null),
                });
                self.finish_internal(&action, &format!("{key} set; revert restores it"));
            }
        }
    }

    /// Approved rules are persisted and apply at once; what cannot apply at once stops the loop, shows the
    /// restart steps and offers a restart (itself an action that needs approval).
    fn apply_rule_change(&mut self, action: &Action, change: super::state::RuleChange) {
        change.apply_to(&mut self.state.rules);
        self.effects.push(ControlEffect::PersistRules {
            rules: self.state.rules.clone(),
        });
        if change.applies_at_once() {
            self.finish_internal(action, "rules changed and in effect");
            return;
        }
        self.finish_internal(action, "rules saved; a restart applies them");
        let keys: Vec<&str> = change.host_settings.keys().map(String::as_str).collect();
        self.chat(&format!(
            "Stopped: {} take effect after a restart. Steps: 1. stop the agent (Ctrl-C); 2. start it again (npm start). Restart now?",
            keys.join(", ")
        ));
        self.halt(
            HaltKind::RestartNeeded,
            "rules that apply only after a restart were approved",
        );
        let restart = self.new_action(
            "restart",
            serde_json::json!({ "settings": keys }),
            Purpose::Restart,
            None,
        );
        if let Ok(restart) = restart {
            self.ask_approval(&restart);
            self.state.in_progress = Some(restart);
            self.state.invalid_answers = 0;
        }
        self.state.mode = Mode::Stopped;
        self.persist();
    }

    // ---- execute and report ----

    /// Write-ahead: the action is marked executing and saved; the `execute` effect waits until the host
    /// confirms that save ([`Self::state_persisted`]).
    fn begin_execution(&mut self, action: Action, approval: ApprovalRecord) {
        if self.state.unreconciled.len() >= bounds::MAX_UNRECONCILED {
            self.state.in_progress = None;
            self.state.mode = Mode::Stopped;
            self.chat(&format!(
                "Not executed: {} actions have an unknown outcome; reconcile them first.",
                self.state.unreconciled.len()
            ));
            self.halt(
                HaltKind::OutcomeUnknown,
                "actions with an unknown outcome wait for a person",
            );
            self.persist();
            return;
        }
        self.state.in_progress = Some(action);
        self.state.execution = Some(Execution {
            approval,
            written_at: 0,
            dispatched: false,
        });
        self.state.mode = Mode::Executing;
        self.persist();
    }

    /// The host saved the state: an approved action whose executing record is in it runs now, once.
    fn state_persisted(&mut self, revision: u64) {
        if self.state.mode != Mode::Executing {
            return;
        }
        let Some(action) = self.state.in_progress.clone() else {
            return;
        };
        let Some(execution) = self.state.execution.as_mut() else {
            return;
        };
        if execution.dispatched
            || execution.written_at == 0
            || revision < execution.written_at
            || revision > self.state.revision
        {
            // Not the save of this record (an older one, or one never asked for).
            return;
        }
        let approval = execution.approval.clone();
        let lines = machine_lines(
            &self.state,
            &action.action_type,
            &action.parameters,
            &action.purpose,
        );
        let intact = approval.digest == action.digest
            && action.digest
                == Action::expected_digest(
                    &action.action_type,
                    &action.parameters,
                    &action.purpose,
                )
            && lines.as_ref().ok() == Some(&action.lines)
            && match approval.by {
                ApprovedBy::Person => {
                    approval.request_id.as_deref() == Some(action.request_id().as_str())
                }
                ApprovedBy::Whitelist => {
                    approval.whitelist_entry.as_deref() == Some(action.action_type.as_str())
                }
            };
        if !intact {
            // A state altered outside the loop: what was approved is not what would run.
            self.state.execution = None;
            self.state.in_progress = None;
            self.state.mode = Mode::Stopped;
            self.chat("Not executed: the action no longer matches its approval.");
            self.halt(HaltKind::Failed, "the action changed after it was approved");
            self.persist();
            return;
        }
        let entry = approval.whitelist_entry.clone();
        if approval.by == ApprovedBy::Whitelist
            && !entry.is_some_and(|entry| self.state.rules.whitelist.contains(&entry))
        {
            // The whitelist changed before the action started: it is asked for like any other.
            self.state.execution = None;
            self.request_approval(action);
            return;
        }
        if let Some(execution) = self.state.execution.as_mut() {
            execution.dispatched = true;
        }
        self.effects.push(ControlEffect::Execute {
            action: Box::new(action),
            approval: Box::new(approval),
        });
    }

    /// The host could not save: an approved action still waiting for its save is not executed.
    fn state_not_persisted(&mut self, revision: u64, error: &str) {
        let cause = one_line(error);
        let waiting = self.state.mode == Mode::Executing
            && self.state.execution.as_ref().is_some_and(|execution| {
                !execution.dispatched
                    && execution.written_at != 0
                    && revision >= execution.written_at
            });
        if !waiting {
            self.log(
                LogChannel::Cli,
                "state not saved",
                &cause,
                "the loop's state",
            );
            return;
        }
        let Some(action) = self.state.in_progress.take() else {
            return;
        };
        self.state.execution = None;
        self.chat(&format!(
            "Not executed: {} (the state could not be saved: {cause}). Approve it again to run it.",
            action.what()
        ));
        self.log(
            LogChannel::Cli,
            "not executed: state not saved",
            &cause,
            action.scope(),
        );
        self.halt(
            HaltKind::NotPersisted,
            "the state could not be saved before an execution",
        );
        self.offer_again(
            &action,
            "offered again: the state could not be saved before it ran",
        );
        self.persist();
    }

    /// The same action as a new request (a new id): it runs only after a fresh `y`.
    fn offer_again(&mut self, action: &Action, note: &str) {
        let again = self.new_action(
            &action.action_type,
            action.parameters.clone(),
            action.purpose.clone(),
            Some(note.to_owned()),
        );
        self.state.mode = Mode::Stopped;
        match again {
            Ok(again) => {
                self.ask_approval(&again);
                self.state.in_progress = Some(again);
                self.state.invalid_answers = 0;
            }
            Err(_) => self.state.in_progress = None,
        }
    }

    /// An action the loop performs itself (rules, settings) completes at once.
    fn finish_internal(&mut self, action: &Action, detail: &str) {
        self.complete(action, true, detail);
        self.state.in_progress = None;
        self.state.mode = Mode::Idle;
        self.persist();
    }

    /// Logged only on completion, always; reported to the chat, short.
    fn complete(&mut self, action: &Action, succeeded: bool, detail: &str) {
        bounds::remember(
            &mut self.state,
            ActionResult {
                action: action.clone(),
                succeeded,
                detail: one_line(detail),
            },
        );
        self.log(
            LogChannel::Execution,
            action.what(),
            &one_line(detail),
            action.scope(),
        );
        self.chat(&report(action, succeeded, detail));
    }

    /// Logged and reported as not applied (neither done nor failed).
    fn complete_not_applied(&mut self, action: &Action, detail: &str) {
        bounds::remember(
            &mut self.state,
            ActionResult {
                action: action.clone(),
                succeeded: false,
                detail: one_line(&format!("not applied: {detail}")),
            },
        );
        self.log(
            LogChannel::Execution,
            action.what(),
            &one_line(&format!("not applied, the world had moved on: {detail}")),
            action.scope(),
        );
        self.chat(&not_applied_report(action, detail));
    }

    fn execution_finished(
        &mut self,
        action_id: &str,
        succeeded: bool,
        detail: &str,
        not_applied: bool,
    ) {
        let dispatched = self
            .state
            .execution
            .as_ref()
            .is_some_and(|execution| execution.dispatched);
        let running = self
            .state
            .in_progress
            .as_ref()
            .filter(|action| {
                self.state.mode == Mode::Executing && dispatched && action.id == action_id
            })
            .cloned();
        let Some(action) = running else {
            return;
        };
        let by_person = self
            .state
            .execution
            .as_ref()
            .is_some_and(|execution| execution.approval.by == ApprovedBy::Person);
        let detail = if !detail.trim().is_empty() {
            detail.to_owned()
        } else if succeeded {
            "succeeded (the skill gave no detail)".to_owned()
        } else {
            "failed (the skill gave no cause)".to_owned()
        };
        // Known not applied because the world moved on: nothing failed and nothing ran; the loop judges the
        // world as it is now. A report that says both "succeeded" and "not applied" is read as a failure.
        let moved_on = not_applied && !succeeded;
        if moved_on {
            self.complete_not_applied(&action, &detail);
        } else {
            self.complete(&action, succeeded && !not_applied, &detail);
        }
        let succeeded = succeeded && !not_applied;
        self.state.in_progress = None;
        self.state.execution = None;
        let interruption = self.state.interrupt_after_execution.take();
        if moved_on {
            // Not run again, nor its type unasked, without a person's y (a skill that keeps answering "not
            // applied" never loops on the whitelist); the world as it is now is judged at once (an
            // observation that did not change would ask nothing).
            self.remember_failure(&action);
            self.state.failed = None;
            match interruption {
                Some(message) => {
                    self.state.situation.instruction = Some(message);
                    self.interrupt(InterruptedTask::Nothing, "the action was not applied");
                }
                None => self.ask_judge(),
            }
            return;
        }
        if !succeeded {
            self.remember_failure(&action);
            if let Some(message) = interruption {
                self.state.situation.instruction = Some(message);
            }
            self.failed(&action);
            return;
        }
        self.state
            .failed_digests
            .retain(|digest| digest != &action.digest);
        if by_person {
            self.state
                .suspended_types
                .retain(|suspended| suspended != &action.action_type);
        }
        self.state.failed = None;
        match interruption {
            Some(message) => {
                self.state.situation.instruction = Some(message);
                self.interrupt(
                    InterruptedTask::Nothing,
                    "the action that was running finished",
                );
            }
            None => {
                self.state.mode = Mode::Idle;
                self.persist();
            }
        }
    }

    /// A failed action (or one whose outcome is unknown) and its type run again only after a person's y.
    fn remember_failure(&mut self, action: &Action) {
        if !self.state.failed_digests.contains(&action.digest) {
            self.state.failed_digests.push_back(action.digest.clone());
        }
        if !self.state.suspended_types.contains(&action.action_type)
            && self.state.suspended_types.len() < bounds::MAX_WHITELIST_ENTRIES
        {
            self.state.suspended_types.push(action.action_type.clone());
        }
    }

    /// "On failure stop at once and report; running it again needs explicit approval."
    fn failed(&mut self, action: &Action) {
        self.state.needs_log_tail = true;
        self.halt(HaltKind::Failed, &format!("{} failed", action.what()));
        self.offer_again(action, "re-run of an action that failed");
        self.state.failed = Some(action.clone());
        self.persist();
    }

    /// After a restart nothing the host was doing survives: the waiting question is asked again (with lines
    /// rendered anew, so a changed renderer makes it a new request), the lost judgement is asked again, and
    /// an action found executing has an unknown outcome: never re-run, a person reconciles it.
    fn host_restarted(
        &mut self,
        boot: &str,
        rules: Option<&super::state::Rules>,
        renderers: Option<&std::collections::BTreeMap<String, render::Renderer>>,
    ) {
        let boot = one_line(boot)
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(32)
            .collect::<String>();
        self.state.boot = if boot.is_empty() {
            format!("{}r{}", self.state.boot, self.state.revision)
        } else {
            boot
        };
        if let Some(rules) = rules {
            self.state.rules = rules.clone();
        }
        if let Some(renderers) = renderers {
            self.state.renderers = renderers.clone();
        }
        if matches!(self.state.mode, Mode::AwaitingApproval | Mode::Stopped) {
            self.rerender_pending();
        }
        match self.state.mode {
            Mode::Idle => {}
            Mode::Judging => self.ask_judge(),
            Mode::AwaitingApproval | Mode::Stopped => {
                if let Some(action) = self.state.in_progress.clone() {
                    self.ask_approval(&action);
                }
            }
            Mode::Executing => self.outcome_unknown(),
            Mode::Interrupted => self.ask_resume_or_discard(),
        }
        for waiting in self.state.unreconciled.clone() {
            self.effects.push(ControlEffect::RequestReconcile {
                action_id: waiting.action.id.clone(),
                lines: waiting.action.lines.clone(),
            });
        }
        self.persist();
    }

    /// The waiting action's lines under the current renderers; an action that can no longer be shown is
    /// dropped (it was never approved).
    fn rerender_pending(&mut self) {
        let Some(action) = self.state.in_progress.clone() else {
            return;
        };
        match self.rerendered(action) {
            Ok(action) => self.state.in_progress = Some(action),
            Err(error) => {
                self.state.in_progress = None;
                self.state.mode = Mode::Stopped;
                self.chat(&format!("The waiting approval was dropped: {error}."));
                self.halt(
                    HaltKind::JudgementFailed,
                    "a waiting action can no longer be shown",
                );
            }
        }
    }

    /// `action` with its lines as the machine renders them now.
    fn rerendered(&self, mut action: Action) -> Result<Action, RenderError> {
        action.lines = machine_lines(
            &self.state,
            &action.action_type,
            &action.parameters,
            &action.purpose,
        )?;
        Ok(action)
    }

    /// The action that was executing when the host stopped: kept for a person to say whether it applied.
    fn outcome_unknown(&mut self) {
        let action = self.state.in_progress.take();
        let execution = self.state.execution.take();
        self.state.interrupt_after_execution = None;
        let (Some(action), Some(execution)) = (action, execution) else {
            self.state.mode = Mode::Idle;
            return;
        };
        if action.purpose == Purpose::Restart {
            // The restart a person approved is what just happened.
            self.complete(&action, true, "the host restarted");
            self.state.mode = Mode::Idle;
            return;
        }
        self.chat(&format!(
            "Outcome unknown: {} was executing when the host stopped. It is not run again; was it applied? (applied / not applied)",
            action.what()
        ));
        self.log(
            LogChannel::Cli,
            "outcome unknown",
            "the host restarted while the action ran",
            action.scope(),
        );
        self.remember_failure(&action);
        self.state.unreconciled.push(Unreconciled {
            action,
            approval: execution.approval,
        });
        self.state.mode = Mode::Stopped;
        self.halt(
            HaltKind::OutcomeUnknown,
            "an action was executing when the host stopped",
        );
    }

    /// A person says whether an action with an unknown outcome was applied; it is recorded as such.
    fn outcome_reconciled(&mut self, action_id: &str, applied: bool) {
        let Some(index) = self
            .state
            .unreconciled
            .iter()
            .position(|waiting| waiting.action.id == action_id)
        else {
            self.refuse_answer(action_id, "no action with an unknown outcome has this id");
            return;
        };
        let waiting = self.state.unreconciled.remove(index);
        let action = waiting.action;
        if applied {
            self.state
                .failed_digests
                .retain(|digest| digest != &action.digest);
            self.complete(&action, true, "reconciled by a person: applied");
        } else {
            self.complete(&action, false, "reconciled by a person: not applied");
        }
        let resolved = self.state.unreconciled.is_empty()
            && self.state.mode == Mode::Stopped
            && self
                .state
                .halt
                .as_ref()
                .is_some_and(|halt| halt.kind == HaltKind::OutcomeUnknown)
            && self.state.in_progress.is_none();
        if resolved && applied {
            self.ask_judge();
        } else if resolved {
            // Not applied is a failure (seed 002: stop at once and report): the loop waits for a person,
            // who may approve running it again as a new action.
            self.failed(&action);
        }
        self.persist();
    }

    // ---- humans ----

    /// A person's reply: kept for the next judgement (asked at once when the loop is idle); nothing waiting
    /// is interrupted and nothing is decided by it.
    fn human_reply(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        self.log(LogChannel::Chat, "human reply", &one_line(text), "chat");
        // A reply is not an instruction: it neither counts as one (a declined change stays declined) nor
        // takes an instruction's place in the prompt.
        self.state.unread_replies.push(text.to_owned());
        // An idle loop reads it at once (the step's end asks the judge).
        self.persist();
    }

    /// "A human's instruction always comes first": a developer command, a new instruction, or an interrupt.
    fn human_message(&mut self, text: &str) {
        if let Some(command) = privileged::command(text, &self.state.rules.privileged_prefix) {
            privileged::run(self, &command);
            return;
        }
        self.log(LogChannel::Chat, "human message", &one_line(text), "chat");
        self.state.situation.instruction = Some(text.to_owned());
        self.state.instructions_given = self.state.instructions_given.saturating_add(1);
        match self.state.mode {
            Mode::Idle => self.ask_judge(),
            Mode::Stopped => {
                // A new instruction supersedes a pending re-run or restart offer.
                self.state.in_progress = None;
                self.state.failed = None;
                self.ask_judge();
            }
            Mode::Judging => {
                self.effects.push(ControlEffect::AbortJudge {
                    judgement_id: self.state.judgement_id,
                });
                self.interrupt(
                    InterruptedTask::Judging,
                    "the agent was deciding what to do next",
                );
            }
            Mode::Executing if !self.dispatched() => {
                // Approved but not started (its save is not confirmed): the person's message wins; the
                // action runs only after a fresh y, if they resume it.
                self.state.execution = None;
                self.interrupt_waiting();
            }
            Mode::AwaitingApproval => self.interrupt_waiting(),
            Mode::Executing => {
                // An Apply already sent is awaited and recorded, never abandoned.
                // Every message is kept (the core bounds their size), none replaces another.
                let held = match self.state.interrupt_after_execution.take() {
                    Some(earlier) => format!("{earlier}\n{text}"),
                    None => text.to_owned(),
                };
                self.state.interrupt_after_execution = Some(held);
                self.chat("An action is running; it will finish and be recorded before your instruction is taken.");
                self.persist();
            }
            Mode::Interrupted => self.ask_resume_or_discard(),
        }
    }

    /// Whether the executing action's `execute` effect was emitted.
    pub(super) fn dispatched(&self) -> bool {
        self.state
            .execution
            .as_ref()
            .is_some_and(|execution| execution.dispatched)
    }

    /// The waiting action is set aside as the interrupted task (resume asks for a y again).
    fn interrupt_waiting(&mut self) {
        {
            let waiting = self.state.in_progress.take();
            let description = waiting.as_ref().map_or_else(
                || "the agent was waiting for an approval".to_owned(),
                |action| format!("the agent was waiting for approval of: {}", action.what()),
            );
            let task = waiting.map_or(InterruptedTask::Nothing, |action| {
                InterruptedTask::AwaitingApproval {
                    action: Box::new(action),
                }
            });
            self.interrupt(task, &description);
        }
    }

    /// "On interruption stop at once and switch; summarise the interrupted task and ask resume or discard."
    fn interrupt(&mut self, task: InterruptedTask, description: &str) {
        self.state.interrupted = Some(task);
        self.state.mode = Mode::Interrupted;
        self.chat(&format!("Interrupted: {description}."));
        self.ask_resume_or_discard();
    }

    fn ask_resume_or_discard(&mut self) {
        self.chat("Resume the interrupted task or discard it? (resume / discard)");
        self.persist();
    }

    fn interruption_answered(&mut self, answer: &str) {
        if self.state.mode != Mode::Interrupted {
            return;
        }
        match read_resume_or_discard(answer) {
            None => self.ask_resume_or_discard(),
            Some(ResumeOrDiscard::Discard) => {
                self.state.interrupted = None;
                self.state.intent = None;
                self.chat("Discarded the interrupted task.");
                self.ask_judge();
            }
            Some(ResumeOrDiscard::Resume) => match self.state.interrupted.take() {
                Some(InterruptedTask::AwaitingApproval { action }) => {
                    // Shown as the machine renders it now (renderers may have changed meanwhile).
                    match self.rerendered(*action) {
                        Ok(action) => self.request_approval(action),
                        Err(error) => {
                            self.judge_failed(&format!("the action cannot be shown: {error}"))
                        }
                    }
                }
                Some(InterruptedTask::Judging | InterruptedTask::Nothing) | None => {
                    self.ask_judge()
                }
            },
        }
    }

    /// One call reverts the most recent self-modification.
    fn revert_setting(&mut self) {
        let Some(reversal) = self.state.reversals.pop() else {
            self.chat("Nothing to revert.");
            return;
        };
        if reversal.previous.is_null() {
            self.state.settings.remove(&reversal.key);
        } else {
            self.state
                .settings
                .insert(reversal.key.clone(), reversal.previous.clone());
        }
        let restored = crate::input::to_json_string(&reversal.previous);
        self.chat(&format!("Reverted {} to {restored}.", reversal.key));
        self.log(
            LogChannel::Execution,
            &format!("revert {}", reversal.key),
            &format!("undo of {}", reversal.action_id),
            &format!("agent setting {}", reversal.key),
        );
        self.persist();
    }

    // ---- effects ----

    pub(super) fn chat(&mut self, text: &str) {
        self.effects.push(ControlEffect::ReportToChat {
            text: one_line(text),
        });
    }

    /// A log record; a field left empty gets the machine's placeholder, so no record has a blank one.
    pub(super) fn log(&mut self, channel: LogChannel, summary: &str, cause: &str, scope: &str) {
        let filled = |text: &str, placeholder: &str| {
            let line = one_line(text);
            if line.is_empty() {
                placeholder.to_owned()
            } else {
                line
            }
        };
        self.effects.push(ControlEffect::AppendLog {
            channel,
            record: LogRecord {
                event_summary: filled(summary, "(no summary given)"),
                cause: filled(cause, "(no cause given)"),
                impact_scope: filled(scope, "(no scope given)"),
            },
        });
    }

    /// The loop stops and says why (kept in the state for a UI while it is stopped).
    fn halt(&mut self, kind: HaltKind, reason: &str) {
        let reason = one_line(reason);
        self.log(LogChannel::Cli, "stopped", &reason, "the loop");
        self.state.halt = Some(Halt {
            kind,
            reason: reason.clone(),
        });
        self.effects.push(ControlEffect::Stop { reason });
    }

    /// Save once, after everything else this step did (see [`Self::finish`]).
    pub(super) fn persist(&mut self) {
        self.persist = true;
    }

    // ---- used by developer commands ----

    pub(super) fn state_mut(&mut self) -> &mut ControlState {
        &mut self.state
    }

    pub(super) fn push(&mut self, effect: ControlEffect) {
        self.effects.push(effect);
    }

    pub(super) fn judge_now(&mut self) {
        self.ask_judge();
    }
}

/// The two lines of any action, by purpose: a task's from its renderer or the built-in ones, the loop's own
/// actions (rules, settings, restart) from what they change.
fn machine_lines(
    state: &ControlState,
    action_type: &str,
    parameters: &Value,
    purpose: &Purpose,
) -> Result<[String; 2], RenderError> {
    let lines = match purpose {
        Purpose::Task => return render::task_lines(action_type, parameters, &state.renderers),
        Purpose::RuleChange { change } => [
            format!(
                "Execute: change the rules: {}",
                describe_rule_change(change)
            ),
            "Impact: the loop's rules".to_owned(),
        ],
        Purpose::SelfModification { key, value } => {
            let previous = state.settings.get(key).cloned().unwrap_or(Value::Null);
            let key = super::display::display_identifier(key);
            [
                format!(
                    "Execute: set the agent setting {key} from {} to {}",
                    render::shown(&previous),
                    render::shown(value)
                ),
                format!("Impact: the agent setting {key} (reversible)"),
            ]
        }
        Purpose::Restart => [
            format!(
                "Execute: restart the agent so that {} take effect",
                render::shown(parameters)
            ),
            "Impact: the agent process and its host".to_owned(),
        ],
    };
    let [first, second] = lines;
    // Every part is display-safe already (identifiers, shown values): nothing is folded, so two values
    // never read alike.
    let safe = |line: String| {
        let chars = line.chars().count();
        if chars > render::MAX_APPROVAL_LINE_CHARS {
            Err(RenderError::TooLong(chars))
        } else {
            Ok(line)
        }
    };
    Ok([safe(first)?, safe(second)?])
}

/// A rule change the loop can keep: the rules it makes pass [`bounds::check_rules`], and the entries it
/// removes are of the same size as any entry.
fn check_rule_change(
    state: &ControlState,
    change: &super::state::RuleChange,
) -> Result<(), String> {
    if let Some(entry) = change
        .whitelist_remove
        .iter()
        .find(|entry| entry.trim().is_empty() || entry.len() > bounds::MAX_ENTRY_BYTES)
    {
        return Err(format!(
            "the whitelist entry to remove `{}` is not 1 to {} bytes",
            one_line(entry),
            bounds::MAX_ENTRY_BYTES
        ));
    }
    let mut rules = state.rules.clone();
    change.apply_to(&mut rules);
    bounds::check_rules(&rules).map_err(|problem| {
        format!(
            "the rules it makes: `{}` {}",
            problem.field, problem.message
        )
    })
}
