//! The loop as one pure function: `step(state, event) -> (state, effects)`. No I/O, no clock, no
//! randomness: the same state and event always give the same next state and effects, so the host can
//! persist, replay and test it.

use super::event::{ControlEffect, ControlEvent, Judgement, LogChannel, LogRecord};
use super::privileged;
use super::state::{Action, ActionResult, ControlState, InterruptedTask, Mode, Purpose};
use super::text::{
    ResumeOrDiscard, YesNo, approval_lines, describe_rule_change, one_line, read_resume_or_discard,
    read_yes_no, report,
};
use serde_json::Value;

/// The largest value a self-modification may set, as JSON: anything bigger is not a small change.
pub const MAX_SETTING_BYTES: usize = 1024;

/// Applies `event` to `state`: the next state and what the host must do, in order.
pub fn step(state: &ControlState, event: &ControlEvent) -> (ControlState, Vec<ControlEffect>) {
    let mut machine = Machine {
        state: state.clone(),
        effects: Vec::new(),
    };
    machine.handle(event);
    (machine.state, machine.effects)
}

/// One step in progress: the state being changed and the effects so far.
pub(super) struct Machine {
    state: ControlState,
    effects: Vec<ControlEffect>,
}

impl Machine {
    fn handle(&mut self, event: &ControlEvent) {
        match event {
            ControlEvent::SituationChanged { external, internal } => {
                self.situation_changed(external, internal);
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
            ControlEvent::ApprovalAnswered { action_id, answer } => {
                self.approval_answered(action_id, answer);
            }
            ControlEvent::ExecutionFinished {
                action_id,
                succeeded,
                detail,
            } => self.execution_finished(action_id, *succeeded, detail),
            ControlEvent::HumanMessage { text } => self.human_message(text),
            ControlEvent::InterruptionAnswered { answer } => self.interruption_answered(answer),
            ControlEvent::RevertSetting => self.revert_setting(),
            ControlEvent::HostRestarted => self.host_restarted(),
        }
    }

    // ---- observe and judge ----

    /// "The judgement cycle turns on a change of the situation": only a change, and only when idle.
    fn situation_changed(&mut self, external: &Value, internal: &Value) {
        let situation = &mut self.state.situation;
        if &situation.external == external && &situation.internal == internal {
            return;
        }
        situation.external = external.clone();
        situation.internal = internal.clone();
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
        self.state.judgement_id += 1;
        self.state.mode = Mode::Judging;
        self.effects.push(ControlEffect::AskJudge {
            judgement_id: self.state.judgement_id,
            situation: self.state.situation.clone(),
            memory: self.state.memory.iter().cloned().collect(),
            include_log_tail: self.state.needs_log_tail,
        });
        self.state.needs_log_tail = false;
        self.persist();
    }

    fn judged(&mut self, judgement: &Judgement) {
        self.state.situation.instruction = None;
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
                if summary.trim().is_empty() || impact_scope.trim().is_empty() {
                    self.judge_failed("the judgement names no summary or no impact scope");
                    return;
                }
                let action = self.new_action(
                    action_type,
                    summary,
                    impact_scope,
                    parameters.clone(),
                    Purpose::Task,
                );
                self.state.intent = Some(one_line(summary));
                if self
                    .state
                    .rules
                    .whitelist
                    .iter()
                    .any(|allowed| allowed == action_type)
                {
                    self.execute(action);
                } else {
                    self.request_approval(action);
                }
            }
            Judgement::ChangeRules { change, reason } => {
                let summary = format!(
                    "change the rules: {} ({reason})",
                    describe_rule_change(change)
                );
                let action = self.new_action(
                    "rule_change",
                    &summary,
                    "the loop's rules",
                    Value::Null,
                    Purpose::RuleChange {
                        change: change.clone(),
                    },
                );
                self.request_approval(action);
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
        } else if crate::input::to_json_string(value).len() > MAX_SETTING_BYTES {
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
        let previous = self.state.settings.get(key).cloned().unwrap_or(Value::Null);
        let summary = format!(
            "set {key} from {} to {} ({reason})",
            crate::input::to_json_string(&previous),
            crate::input::to_json_string(value)
        );
        let action = self.new_action(
            "self_modification",
            &summary,
            &format!("agent setting {key} (reversible)"),
            Value::Null,
            Purpose::SelfModification {
                key: key.to_owned(),
                value: value.clone(),
            },
        );
        self.request_approval(action);
    }

    /// "Stop at once on failure and report": the judge failing is a failure too.
    fn judge_failed(&mut self, error: &str) {
        self.state.mode = Mode::Stopped;
        self.state.needs_log_tail = true;
        let cause = one_line(error);
        self.chat(&format!("Stopped: the judgement failed ({cause})."));
        self.log(LogChannel::Cli, "judgement failed", &cause, "judge");
        self.stop(&format!("the judgement failed: {cause}"));
    }

    // ---- approve ----

    fn new_action(
        &mut self,
        action_type: &str,
        summary: &str,
        impact_scope: &str,
        parameters: Value,
        purpose: Purpose,
    ) -> Action {
        self.state.actions_created += 1;
        Action {
            id: format!("a-{}", self.state.actions_created),
            action_type: action_type.to_owned(),
            summary: one_line(summary),
            impact_scope: one_line(impact_scope),
            parameters,
            purpose,
        }
    }

    /// Asked once, just before execution: the two lines, then the loop is idle until y or n.
    fn request_approval(&mut self, action: Action) {
        self.effects.push(ControlEffect::RequestApproval {
            action_id: action.id.clone(),
            lines: approval_lines(&action),
        });
        self.state.in_progress = Some(action);
        self.state.mode = Mode::AwaitingApproval;
        self.persist();
    }

    /// The pending approval (or, when stopped, the offer to re-run or restart) for `action_id`.
    fn pending_approval(&self, action_id: &str) -> Option<Action> {
        let waiting = matches!(self.state.mode, Mode::AwaitingApproval | Mode::Stopped);
        self.state
            .in_progress
            .as_ref()
            .filter(|action| waiting && action.id == action_id)
            .cloned()
    }

    fn approval_answered(&mut self, action_id: &str, answer: &str) {
        let Some(action) = self.pending_approval(action_id) else {
            return;
        };
        match read_yes_no(answer) {
            // Anything but y or n asks again; nothing is ever assumed.
            None => self.effects.push(ControlEffect::RequestApproval {
                action_id: action.id.clone(),
                lines: approval_lines(&action),
            }),
            Some(YesNo::No) => self.declined(&action),
            Some(YesNo::Yes) => self.approved(action),
        }
    }

    /// "On rejection: stop and end": the task is over.
    fn declined(&mut self, action: &Action) {
        self.state.in_progress = None;
        self.state.intent = None;
        self.state.failed = None;
        self.state.mode = Mode::Stopped;
        self.chat(&format!("Declined: {}. Stopped.", action.summary));
        self.log(
            LogChannel::Cli,
            "declined",
            &action.summary,
            &action.impact_scope,
        );
        self.stop("the human declined the action");
    }

    fn approved(&mut self, action: Action) {
        match &action.purpose {
            Purpose::Task | Purpose::Restart => self.execute(action),
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
        let rules = &mut self.state.rules;
        rules
            .whitelist
            .retain(|entry| !change.whitelist_remove.contains(entry));
        for entry in &change.whitelist_add {
            if !rules.whitelist.contains(entry) {
                rules.whitelist.push(entry.clone());
            }
        }
        if let Some(prefix) = &change.privileged_prefix {
            rules.privileged_prefix = prefix.clone();
        }
        for (key, value) in &change.host_settings {
            rules.host_settings.insert(key.clone(), value.clone());
        }
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
        self.stop("rules that apply only after a restart were approved");
        let restart = self.new_action(
            "restart",
            &format!("restart the agent so that {} take effect", keys.join(", ")),
            "the agent process and its host",
            Value::Null,
            Purpose::Restart,
        );
        self.effects.push(ControlEffect::RequestApproval {
            action_id: restart.id.clone(),
            lines: approval_lines(&restart),
        });
        self.state.in_progress = Some(restart);
        self.state.mode = Mode::Stopped;
        self.persist();
    }

    // ---- execute and report ----

    fn execute(&mut self, action: Action) {
        self.effects.push(ControlEffect::Execute {
            action: action.clone(),
        });
        self.state.in_progress = Some(action);
        self.state.mode = Mode::Executing;
        self.persist();
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
        self.state.remember(ActionResult {
            action: action.clone(),
            succeeded,
            detail: one_line(detail),
        });
        self.log(
            LogChannel::Execution,
            &action.summary,
            &one_line(detail),
            &action.impact_scope,
        );
        self.chat(&report(action, succeeded, detail));
    }

    fn execution_finished(&mut self, action_id: &str, succeeded: bool, detail: &str) {
        let running = self
            .state
            .in_progress
            .as_ref()
            .filter(|action| self.state.mode == Mode::Executing && action.id == action_id)
            .cloned();
        let Some(action) = running else {
            return;
        };
        self.complete(&action, succeeded, detail);
        self.state.in_progress = None;
        let interruption = self.state.interrupt_after_execution.take();
        if !succeeded {
            if let Some(message) = interruption {
                self.state.situation.instruction = Some(message);
            }
            self.failed(&action);
            return;
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

    /// "On failure stop at once and report; running it again needs explicit approval."
    fn failed(&mut self, action: &Action) {
        self.state.needs_log_tail = true;
        self.stop(&format!("{} failed", action.summary));
        let rerun = self.new_action(
            &action.action_type,
            &format!("run again: {}", action.summary),
            &action.impact_scope,
            action.parameters.clone(),
            action.purpose.clone(),
        );
        self.effects.push(ControlEffect::RequestApproval {
            action_id: rerun.id.clone(),
            lines: approval_lines(&rerun),
        });
        self.state.failed = Some(action.clone());
        self.state.in_progress = Some(rerun);
        self.state.mode = Mode::Stopped;
        self.persist();
    }

    /// After a restart nothing the host was doing survives: the waiting question is asked again, the lost
    /// judgement is asked again, and a running action's outcome is unknown, so it counts as failed (its
    /// re-run needs an approval; an Apply that did happen is left for a human to reconcile).
    fn host_restarted(&mut self) {
        match self.state.mode {
            Mode::Idle => {}
            Mode::Judging => self.ask_judge(),
            Mode::AwaitingApproval | Mode::Stopped => {
                if let Some(action) = self.state.in_progress.clone() {
                    self.effects.push(ControlEffect::RequestApproval {
                        action_id: action.id.clone(),
                        lines: approval_lines(&action),
                    });
                }
            }
            Mode::Executing => {
                if let Some(action) = self.state.in_progress.clone() {
                    self.execution_finished(
                        &action.id,
                        false,
                        "the host restarted while it ran: its outcome is unknown",
                    );
                    return;
                }
                self.state.mode = Mode::Idle;
            }
            Mode::Interrupted => self.ask_resume_or_discard(),
        }
        self.persist();
    }

    // ---- humans ----

    /// "A human's instruction always comes first": a developer command, a new instruction, or an interrupt.
    fn human_message(&mut self, text: &str) {
        if let Some(command) = privileged::command(text, &self.state.rules.privileged_prefix) {
            privileged::run(self, &command);
            return;
        }
        self.log(LogChannel::Chat, "human message", &one_line(text), "chat");
        self.state.situation.instruction = Some(text.to_owned());
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
            Mode::AwaitingApproval => {
                let waiting = self.state.in_progress.take();
                let description = waiting.as_ref().map_or_else(
                    || "the agent was waiting for an approval".to_owned(),
                    |action| format!("the agent was waiting for approval of: {}", action.summary),
                );
                let task = waiting.map_or(InterruptedTask::Nothing, |action| {
                    InterruptedTask::AwaitingApproval {
                        action: Box::new(action),
                    }
                });
                self.interrupt(task, &description);
            }
            Mode::Executing => {
                // An Apply already sent is awaited and recorded, never abandoned.
                self.state.interrupt_after_execution = Some(text.to_owned());
                self.chat("An action is running; it will finish and be recorded before your instruction is taken.");
                self.persist();
            }
            Mode::Interrupted => self.ask_resume_or_discard(),
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
                    self.request_approval(*action)
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

    pub(super) fn log(&mut self, channel: LogChannel, summary: &str, cause: &str, scope: &str) {
        self.effects.push(ControlEffect::AppendLog {
            channel,
            record: LogRecord {
                event_summary: one_line(summary),
                cause: one_line(cause),
                impact_scope: one_line(scope),
            },
        });
    }

    fn stop(&mut self, reason: &str) {
        self.effects.push(ControlEffect::Stop {
            reason: one_line(reason),
        });
    }

    pub(super) fn persist(&mut self) {
        if !self.effects.contains(&ControlEffect::PersistState) {
            self.effects.push(ControlEffect::PersistState);
        } else {
            // Persist once, after everything else this step did.
            self.effects
                .retain(|effect| effect != &ControlEffect::PersistState);
            self.effects.push(ControlEffect::PersistState);
        }
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
