//! The human always wins, at any size (seed 002: 人間の指示は常に最優先): every bound of the loop's state is
//! in bytes and enforced by trimming what the machine keeps, never by refusing a person.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use agent_governor::control::bounds::{MAX_STATE_BYTES, fit_loaded};
use agent_governor::control::*;
use serde_json::json;

fn size(state: &ControlState) -> usize {
    serde_json::to_vec(state).unwrap().len()
}

/// Steps the loop like a host that saves and confirms every save.
fn send(state: &mut ControlState, event: ControlEvent) -> Vec<ControlEffect> {
    let (next, mut effects) = step(state, &event);
    *state = next;
    let revision = effects.iter().find_map(|effect| match effect {
        ControlEffect::PersistState { revision } => Some(*revision),
        _ => None,
    });
    if let Some(revision) = revision {
        let (next, more) = step(state, &ControlEvent::StatePersisted { revision });
        *state = next;
        effects.extend(more);
    }
    effects
}

fn pending_request(state: &ControlState) -> String {
    state
        .in_progress
        .as_ref()
        .map(Action::request_id)
        .unwrap_or_default()
}

#[test]
fn a_loop_driven_for_100_000_events_of_multi_byte_text_stays_bounded_and_a_human_stop_still_works()
{
    let rules = Rules {
        whitelist: vec!["note".to_owned()],
        adjustable_settings: vec!["tone".to_owned()],
        ..Rules::default()
    };
    let mut state = ControlState::new("整理する 🧹".repeat(10), rules);
    state.memory_limit = 1000;
    let long = "日本語のテキスト🚀".repeat(2_000);
    let mut largest = 0;
    for n in 0..100_000u32 {
        match n % 10 {
            0 => {
                // Now and then a page far over the observation bound; otherwise a small change.
                let page = if n % 1000 == 0 {
                    long.clone()
                } else {
                    format!("ページ {n} 🚀")
                };
                send(
                    &mut state,
                    ControlEvent::SituationChanged {
                        external: Some(json!({ "n": n, "page": page })),
                        internal: None,
                    },
                );
            }
            1 => {
                let judgement_id = state.judgement_id;
                send(
                    &mut state,
                    ControlEvent::JudgementReceived {
                        judgement_id,
                        judgement: Judgement::Act {
                            action_type: "note".to_owned(),
                            summary: long.clone(),
                            impact_scope: long.clone(),
                            parameters: json!({ "text": format!("メモ {n} 🚀") }),
                        },
                    },
                );
            }
            2 => {
                let action_id = state
                    .in_progress
                    .as_ref()
                    .map(|a| a.id.clone())
                    .unwrap_or_default();
                send(
                    &mut state,
                    ControlEvent::ExecutionFinished {
                        action_id,
                        succeeded: n % 20 != 2,
                        detail: long.clone(),
                        not_applied: n % 20 == 3,
                    },
                );
            }
            3 => {
                send(
                    &mut state,
                    ControlEvent::HumanMessage {
                        text: format!("{long} {n}"),
                    },
                );
            }
            4 => {
                send(
                    &mut state,
                    ControlEvent::InterruptionAnswered {
                        answer: "discard".to_owned(),
                    },
                );
            }
            5 => {
                let judgement_id = state.judgement_id;
                send(
                    &mut state,
                    ControlEvent::JudgementReceived {
                        judgement_id,
                        judgement: Judgement::AdjustSetting {
                            key: "tone".to_owned(),
                            value: json!(format!("やさしく {n}")),
                            reason: long.clone(),
                        },
                    },
                );
            }
            6 => {
                let request_id = pending_request(&state);
                send(
                    &mut state,
                    ControlEvent::ApprovalAnswered {
                        request_id,
                        answer: "y".to_owned(),
                        reason: None,
                        edited: None,
                    },
                );
            }
            7 => {
                send(
                    &mut state,
                    ControlEvent::HumanMessage {
                        text: format!("/dev whitelist add 種類{}", n % 3000),
                    },
                );
            }
            8 => {
                send(
                    &mut state,
                    ControlEvent::HumanMessage {
                        text: format!("/dev goal {long}"),
                    },
                );
            }
            _ => {
                send(
                    &mut state,
                    ControlEvent::HostRestarted {
                        boot: format!("b{n}"),
                        rules: None,
                        renderers: None,
                    },
                );
            }
        }
        if n % 97 == 0 {
            let bytes = size(&state);
            largest = largest.max(bytes);
            assert!(bytes <= MAX_STATE_BYTES, "{bytes} bytes after event {n}");
        }
    }
    assert!(state.reversals.len() <= agent_governor::control::bounds::MAX_REVERSALS);
    assert!(
        !state.memory.is_empty(),
        "results are kept, the oldest dropped"
    );
    assert!(
        largest > 64 * 1024,
        "the test filled the state ({largest} bytes)"
    );
    // The person still wins: a stop is taken whatever the loop was doing.
    let effects = send(
        &mut state,
        ControlEvent::HumanMessage {
            text: "stop everything".to_owned(),
        },
    );
    assert!(!effects.is_empty());
    let taken = state.situation.instruction.as_deref() == Some("stop everything")
        || state.interrupt_after_execution.as_deref() == Some("stop everything");
    assert!(taken, "{:?}", state.mode);
    assert!(size(&state) <= MAX_STATE_BYTES);
}

#[test]
fn a_saved_state_of_any_size_is_trimmed_never_refused() {
    let mut state = ControlState::new("g", Rules::default());
    let result = |n: usize| ActionResult {
        action: Action {
            id: format!("a-{n}"),
            action_type: "t".to_owned(),
            parameters: json!({ "text": "テキスト".repeat(200) }),
            purpose: Purpose::Task,
            lines: ["Execute: t".to_owned(), "Impact: t".to_owned()],
            digest: String::new(),
            note: None,
        },
        succeeded: true,
        detail: "ok".to_owned(),
    };
    // A state altered outside the loop: far more results than its limits allow, and huge texts.
    state.memory_limit = 1000;
    state.memory = (0..3000).map(result).collect();
    state.situation.instruction = Some("指示".repeat(1_000_000));
    state.situation.external = json!("観察".repeat(1_000_000));
    assert!(size(&state) > 4 * 1024 * 1024);
    fit_loaded(&mut state);
    assert!(size(&state) <= MAX_STATE_BYTES, "{}", size(&state));
    assert_eq!(
        state.memory.back().unwrap().action.id,
        "a-2999",
        "the newest result is kept"
    );
    let (next, effects) = step(
        &state,
        &ControlEvent::HumanMessage {
            text: "/dev discard".to_owned(),
        },
    );
    assert!(effects.iter().any(
        |e| matches!(e, ControlEffect::ReportToChat { text } if text.starts_with("Developer:"))
    ));
    assert!(size(&next) <= MAX_STATE_BYTES);
}
