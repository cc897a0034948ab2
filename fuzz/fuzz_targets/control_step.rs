//! The control loop's `step` over any sequence of events, saves, failed saves and crashes: never a panic;
//! no execute before the state marking it executing was saved; no action id executed twice; every execute
//! bound to the digest a person answered y to, or to an exact whitelist entry; no judging right after a
//! failure (an outcome reconciled as not applied included); a human stop always taken;
//! the state within its byte bound.
#![no_main]

use agent_governor::control::bounds::MAX_STATE_BYTES;
use agent_governor::control::{
    Action, ApprovedBy, ControlEffect, ControlEvent, ControlState, Judgement, Mode, Purpose, RuleChange,
    Rules, step,
};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use std::collections::{HashMap, HashSet};

const ANSWERS: [&str; 6] = ["y", "n", " Y ", "yes", "y\u{85}", "y\u{200B}"];
const MESSAGES: [&str; 7] = [
    "stop everything",
    "/dev discard",
    "/dev goal g",
    "/dev resume",
    "/dev whitelist add status_change",
    "/dev whitelist remove status_change",
    "/dev prefix !op",
];
const TYPES: [&str; 5] = ["status_change", "Status_change", "st\u{430}tus_change", "status_change_x", "status_chang"];

fn pick<T: Copy>(items: &[T], byte: u8) -> T {
    items[usize::from(byte) % items.len()]
}

fn judgement(byte: u8) -> Judgement {
    let action_type = pick(&TYPES, byte / 7).to_owned();
    match byte % 7 {
        0 => Judgement::Reply { text: "hi\u{202E}".to_owned() },
        1 => Judgement::Wait,
        2 => Judgement::ChangeRules {
            change: RuleChange { whitelist_add: vec![action_type], ..RuleChange::default() },
            reason: "r".to_owned(),
        },
        3 => Judgement::ChangeRules {
            change: RuleChange {
                host_settings: [("model".to_owned(), json!("m"))].into_iter().collect(),
                ..RuleChange::default()
            },
            reason: "r".to_owned(),
        },
        4 => Judgement::AdjustSetting { key: "poll".to_owned(), value: json!(byte), reason: "r".to_owned() },
        _ => Judgement::Act {
            action_type,
            summary: "s".to_owned(),
            impact_scope: "i".to_owned(),
            parameters: json!({ "node_id": format!("T-{}", byte % 3), "from": "a", "to": "b" }),
        },
    }
}

struct Host {
    state: ControlState,
    store: ControlState,
    unsaved: Option<(u64, ControlState)>,
    shown: HashMap<String, String>,
    yes: HashSet<String>,
    /// The parameters a person edited a request to, when they did.
    edited: HashMap<String, serde_json::Value>,
    executed: HashSet<String>,
    running: Option<String>,
    boots: u32,
}

impl Host {
    fn event(&mut self, kind: u8, arg: u8) -> Option<ControlEvent> {
        Some(match kind % 12 {
            0 => ControlEvent::SituationChanged { external: Some(json!({ "n": arg % 4 })), internal: None },
            1 => ControlEvent::JudgementReceived { judgement_id: self.state.judgement_id, judgement: judgement(arg) },
            2 => ControlEvent::JudgementFailed { judgement_id: self.state.judgement_id, error: String::new() },
            3 | 4 => {
                let answer = pick(&ANSWERS, arg);
                let request_id = if kind % 12 == 3 {
                    self.state.in_progress.as_ref().map(Action::request_id).unwrap_or_default()
                } else {
                    self.shown.keys().nth(usize::from(arg) % self.shown.len().max(1)).cloned().unwrap_or_default()
                };
                if answer.trim().eq_ignore_ascii_case("y") {
                    self.yes.insert(request_id.clone());
                }
                // Sometimes with a person's reason (with a `y`, the core refuses the answer), or an edit.
                let reason = (arg & 0x40 != 0).then(|| "not this one\nplease \u{202e}".to_owned());
                let edited = (arg & 0x20 != 0).then(|| json!({ "node_id": "T-9", "from": "review", "to": arg % 3 }));
                // Kept only for the request the loop waits on: an edit answering anything else is refused by
                // the core, and must not stand for the edit it did accept.
                let waiting = matches!(self.state.mode, Mode::AwaitingApproval | Mode::Stopped)
                    && self.state.in_progress.as_ref().map(Action::request_id).as_deref() == Some(request_id.as_str());
                if let (Some(parameters), true) = (&edited, waiting) {
                    self.edited.insert(request_id.clone(), parameters.clone());
                }
                ControlEvent::ApprovalAnswered { request_id, answer: answer.to_owned(), reason, edited }
            }
            5 => {
                let (revision, saved) = self.unsaved.take()?;
                self.store = saved;
                ControlEvent::StatePersisted { revision }
            }
            6 => {
                let (revision, _) = self.unsaved.take()?;
                ControlEvent::StateNotPersisted { revision, error: "full".to_owned() }
            }
            7 => ControlEvent::ExecutionFinished {
                action_id: self.running.take().unwrap_or_default(),
                succeeded: arg & 1 == 0,
                detail: String::new(),
                not_applied: arg & 2 == 2,
            },
            8 => {
                self.state = self.store.clone();
                self.unsaved = None;
                self.running = None;
                self.boots += 1;
                ControlEvent::HostRestarted { boot: format!("b{}", self.boots), rules: None, renderers: None }
            }
            9 => ControlEvent::HumanMessage { text: pick(&MESSAGES, arg).to_owned() },
            10 => ControlEvent::InterruptionAnswered { answer: pick(&["resume", "discard", "?"], arg).to_owned() },
            _ => ControlEvent::OutcomeReconciled {
                action_id: self.state.unreconciled.first().map(|w| w.action.id.clone()).unwrap_or_default(),
                applied: arg & 1 == 0,
            },
        })
    }
}

fuzz_target!(|data: &[u8]| {
    let rules = Rules {
        whitelist: vec!["status_change".to_owned()],
        adjustable_settings: vec!["poll".to_owned()],
        ..Rules::default()
    };
    let state = ControlState::new("goal", rules);
    let mut host = Host {
        store: state.clone(),
        state,
        unsaved: None,
        shown: HashMap::new(),
        yes: HashSet::new(),
        edited: HashMap::new(),
        executed: HashSet::new(),
        running: None,
        boots: 0,
    };
    for pair in data.chunks_exact(2).take(200) {
        let Some(event) = host.event(pair[0], pair[1]) else { continue };
        let (next, effects) = step(&host.state, &event);
        // A failure stops the loop, an outcome reconciled as not applied included: no judging right after.
        if matches!(
            event,
            ControlEvent::ExecutionFinished { succeeded: false, not_applied: false, .. }
                | ControlEvent::ExecutionFinished { succeeded: true, not_applied: true, .. }
                | ControlEvent::OutcomeReconciled { applied: false, .. }
        ) {
            assert!(!effects.iter().any(|e| matches!(e, ControlEffect::AskJudge { .. })), "judged again after a failure");
        }
        for effect in &effects {
            match effect {
                ControlEffect::RequestApproval { request_id, digest, .. } => {
                    host.shown.insert(request_id.clone(), digest.clone());
                }
                ControlEffect::PersistState { revision } => host.unsaved = Some((*revision, next.clone())),
                ControlEffect::Execute { action, approval } => {
                    assert_eq!(host.store.mode, Mode::Executing, "executed before its state was saved");
                    assert_eq!(host.store.in_progress.as_ref().map(|a| &a.id), Some(&action.id));
                    assert!(host.executed.insert(action.id.clone()), "executed twice");
                    assert_eq!(approval.digest, action.digest);
                    match approval.by {
                        ApprovedBy::Person => {
                            let request = approval.request_id.clone().unwrap_or_default();
                            if let Some(answered) = &approval.edited_request_id {
                                // Exactly the parameters the person edited the request they answered to, of
                                // the type shown; the approval names the edited action's own request.
                                assert_eq!(approval.ui_action, "edited_y");
                                assert!(host.yes.contains(answered));
                                assert!(host.shown.contains_key(answered));
                                let parameters = host.edited.get(answered).expect("an edit was sent for it");
                                assert_eq!(Action::expected_digest(&action.action_type, parameters, &Purpose::Task), action.digest);
                                assert_eq!(request, action.request_id());
                            } else {
                                assert!(host.yes.contains(&request));
                                assert_eq!(host.shown.get(&request), Some(&action.digest));
                            }
                        }
                        ApprovedBy::Whitelist => {
                            assert_eq!(approval.whitelist_entry.as_deref(), Some(action.action_type.as_str()));
                        }
                    }
                    host.running = Some(action.id.clone());
                }
                _ => {}
            }
        }
        if let ControlEvent::HumanMessage { text } = &event {
            assert!(!effects.is_empty());
            if text == "stop everything" {
                assert!(
                    next.situation.instruction.as_deref() == Some(text.as_str())
                        || next.interrupt_after_execution.as_deref() == Some(text.as_str())
                        || next.mode == Mode::Interrupted
                );
            }
        }
        assert!(serde_json::to_vec(&next).map_or(0, |b| b.len()) <= MAX_STATE_BYTES);
        host.state = next;
    }
});
