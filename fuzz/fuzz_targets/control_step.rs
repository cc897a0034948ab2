//! The control loop's `step` over any sequence of events: never a panic, and no execute effect without a
//! y for that exact action, unless its type was whitelisted when the judgement arrived.
#![no_main]

use agent_governor::control::{
    ControlState, ControlEffect, ControlEvent, Judgement, Purpose, RuleChange, Rules, step,
};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const ANSWERS: [&str; 6] = ["y", "n", " Y ", "yes", "", "x"];
const MESSAGES: [&str; 7] = [
    "please wait",
    "/dev discard",
    "/dev goal g",
    "/dev resume",
    "/dev whitelist add read_board",
    "/dev whitelist remove read_board",
    "/dev prefix !op",
];
const TYPES: [&str; 3] = ["status_change", "read_board", "restart"];

fn judgement(byte: u8) -> Judgement {
    match byte % 7 {
        0 => Judgement::Reply { text: "hi".to_owned() },
        1 => Judgement::Wait,
        2 => Judgement::ChangeRules {
            change: RuleChange {
                whitelist_add: vec!["read_board".to_owned()],
                ..RuleChange::default()
            },
            reason: "r".to_owned(),
        },
        3 => Judgement::ChangeRules {
            change: RuleChange {
                host_settings: [("model".to_owned(), json!("m"))].into_iter().collect(),
                ..RuleChange::default()
            },
            reason: "r".to_owned(),
        },
        4 => Judgement::AdjustSetting {
            key: "poll".to_owned(),
            value: json!(byte),
            reason: "r".to_owned(),
        },
        _ => {
            let kind = TYPES[usize::from(byte / 7) % TYPES.len()];
            Judgement::Act {
                action_type: kind.to_owned(),
                summary: format!("do {kind}"),
                impact_scope: "board".to_owned(),
                parameters: json!({}),
            }
        }
    }
}

fn event(kind: u8, arg: u8) -> ControlEvent {
    let small = u64::from(arg % 8);
    match kind % 9 {
        0 => ControlEvent::SituationChanged { external: json!({ "n": arg % 4 }), internal: json!({}) },
        1 => ControlEvent::JudgementReceived { judgement_id: small, judgement: judgement(arg) },
        2 => ControlEvent::JudgementFailed { judgement_id: small, error: "e".to_owned() },
        3 => ControlEvent::ApprovalAnswered {
            action_id: format!("a-{small}"),
            answer: ANSWERS[usize::from(arg / 8) % ANSWERS.len()].to_owned(),
        },
        4 => ControlEvent::ExecutionFinished { action_id: format!("a-{small}"), succeeded: arg & 0x80 == 0, detail: "d".to_owned() },
        5 => ControlEvent::HumanMessage { text: MESSAGES[usize::from(arg) % MESSAGES.len()].to_owned() },
        6 => ControlEvent::InterruptionAnswered { answer: ["resume", "discard", "?"][usize::from(arg) % 3].to_owned() },
        7 => ControlEvent::RevertSetting,
        _ => ControlEvent::HostRestarted,
    }
}

fuzz_target!(|data: &[u8]| {
    let rules = Rules { adjustable_settings: vec!["poll".to_owned()], ..Rules::default() };
    let mut state = ControlState::new("goal", rules);
    for pair in data.chunks_exact(2).take(200) {
        let event = event(pair[0], pair[1]);
        let (next, effects) = step(&state, &event);
        for effect in &effects {
            if let ControlEffect::Execute { action } = effect {
                let approved = matches!(&event, ControlEvent::ApprovalAnswered { action_id, answer }
                    if action_id == &action.id && answer.trim().eq_ignore_ascii_case("y"));
                let whitelisted = matches!(&event, ControlEvent::JudgementReceived { .. })
                    && action.purpose == Purpose::Task
                    && state.rules.whitelist.contains(&action.action_type);
                assert!(approved || whitelisted, "executed {action:?} on {event:?}");
            }
        }
        state = next;
    }
});
