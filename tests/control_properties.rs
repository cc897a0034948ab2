//! The loop's central promise under any sequence of events: no action is executed without the human's y
//! for that exact action, unless its type is on the whitelist when the judgement arrives; and the state
//! always survives a save and a reload unchanged.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use agent_governor::control::*;
use proptest::prelude::*;
use serde_json::json;

fn judgement() -> impl Strategy<Value = Judgement> {
    prop_oneof![
        Just(Judgement::Reply {
            text: "hello".to_owned()
        }),
        Just(Judgement::Wait),
        prop_oneof![Just("status_change"), Just("read_board"), Just("restart")].prop_map(|kind| {
            Judgement::Act {
                action_type: kind.to_owned(),
                summary: format!("do {kind}"),
                impact_scope: "board".to_owned(),
                parameters: json!({}),
            }
        }),
        Just(Judgement::Act {
            action_type: "status_change".to_owned(),
            summary: " ".to_owned(),
            impact_scope: "board".to_owned(),
            parameters: json!({}),
        }),
        Just(Judgement::ChangeRules {
            change: RuleChange {
                whitelist_add: vec!["read_board".to_owned()],
                ..RuleChange::default()
            },
            reason: "r".to_owned(),
        }),
        Just(Judgement::ChangeRules {
            change: RuleChange {
                host_settings: [("model".to_owned(), json!("m"))].into_iter().collect(),
                ..RuleChange::default()
            },
            reason: "r".to_owned(),
        }),
        Just(Judgement::AdjustSetting {
            key: "poll".to_owned(),
            value: json!(5),
            reason: "r".to_owned()
        }),
    ]
}

fn event() -> impl Strategy<Value = ControlEvent> {
    let answer = prop_oneof![
        Just("y"),
        Just("n"),
        Just(" Y "),
        Just("yes"),
        Just(""),
        Just("x")
    ];
    prop_oneof![
        (0..4u8).prop_map(|n| ControlEvent::SituationChanged {
            external: json!({ "n": n }),
            internal: json!({})
        }),
        (0..6u64, judgement()).prop_map(|(judgement_id, judgement)| {
            ControlEvent::JudgementReceived {
                judgement_id,
                judgement,
            }
        }),
        (0..6u64).prop_map(|judgement_id| ControlEvent::JudgementFailed {
            judgement_id,
            error: "e".to_owned()
        }),
        (0..8u64, answer).prop_map(|(n, answer)| ControlEvent::ApprovalAnswered {
            action_id: format!("a-{n}"),
            answer: answer.to_owned()
        }),
        (0..8u64, any::<bool>()).prop_map(|(n, succeeded)| ControlEvent::ExecutionFinished {
            action_id: format!("a-{n}"),
            succeeded,
            detail: "d".to_owned(),
        }),
        prop_oneof![
            Just("please wait"),
            Just("/dev discard"),
            Just("/dev goal new goal"),
            Just("/dev resume"),
            Just("/dev whitelist add read_board"),
            Just("/dev whitelist remove read_board"),
            Just("x /dev whitelist add status_change"),
        ]
        .prop_map(|text| ControlEvent::HumanMessage {
            text: text.to_owned()
        }),
        prop_oneof![Just("resume"), Just("discard"), Just("?")].prop_map(|answer| {
            ControlEvent::InterruptionAnswered {
                answer: answer.to_owned(),
            }
        }),
        Just(ControlEvent::RevertSetting),
        Just(ControlEvent::HostRestarted),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn no_execution_without_a_y_for_that_exact_action_or_a_whitelisted_type(events in prop::collection::vec(event(), 1..60)) {
        let rules = Rules { adjustable_settings: vec!["poll".to_owned()], ..Rules::default() };
        let mut state = ControlState::new("goal", rules);
        // Ids of actions whose approval request the human has seen (an answer to anything else is foreign).
        for event in &events {
            let before = state.clone();
            let (next, effects) = step(&state, event);
            for effect in &effects {
                if let ControlEffect::Execute { action } = effect {
                    let approved_now = matches!(event, ControlEvent::ApprovalAnswered { action_id, answer }
                        if action_id == &action.id && answer.trim().eq_ignore_ascii_case("y"));
                    let whitelisted_now = matches!(event, ControlEvent::JudgementReceived { .. })
                        && action.purpose == Purpose::Task
                        && before.rules.whitelist.contains(&action.action_type);
                    prop_assert!(approved_now || whitelisted_now, "executed {action:?} on {event:?} from {before:?}");
                    if approved_now {
                        prop_assert_eq!(before.in_progress.as_ref().map(|a| &a.id), Some(&action.id));
                    }
                }
            }
            let reloaded: ControlState = serde_json::from_str(&serde_json::to_string(&next).unwrap()).unwrap();
            prop_assert_eq!(&reloaded, &next);
            state = next;
        }
    }
}
