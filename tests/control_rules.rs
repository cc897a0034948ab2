//! Seed 002 (the agent design), section 4, rule by rule: each test quotes the line it checks. The loop is
//! driven only through `step(state, event)`, as a host drives it.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use agent_governor::control::judge::{JudgeRequest, prompt_variables};
use agent_governor::control::*;
use serde_json::{Value, json};

/// A loop and everything it has asked the host to do so far. Like a driver, it saves the state on every
/// `persist_state` and then confirms the save (`state_persisted`): the effects of both steps are returned.
struct Host {
    state: ControlState,
    effects: Vec<ControlEffect>,
    saved: Option<ControlState>,
}

impl Host {
    fn new(rules: Rules) -> Self {
        Self {
            state: ControlState::new("keep the task board tidy", rules),
            effects: Vec::new(),
            saved: None,
        }
    }

    fn send(&mut self, event: ControlEvent) -> Vec<ControlEffect> {
        let mut effects = self.send_unsaved(event);
        let revision = effects.iter().find_map(|effect| match effect {
            ControlEffect::PersistState { revision } => Some(*revision),
            _ => None,
        });
        if let Some(revision) = revision {
            self.saved = Some(self.state.clone());
            effects.extend(self.send_unsaved(ControlEvent::StatePersisted { revision }));
        }
        effects
    }

    /// One step, with no save confirmed.
    fn send_unsaved(&mut self, event: ControlEvent) -> Vec<ControlEffect> {
        let (next, effects) = step(&self.state, &event);
        self.state = next;
        self.effects.extend(effects.clone());
        effects
    }

    fn restart(&mut self) -> Vec<ControlEffect> {
        self.send(restarted("b2"))
    }

    fn observe(&mut self, external: Value) -> Vec<ControlEffect> {
        self.send(ControlEvent::SituationChanged {
            external: Some(external),
            internal: Some(json!({})),
        })
    }

    fn judge(&mut self, judgement: Judgement) -> Vec<ControlEffect> {
        let judgement_id = self.state.judgement_id;
        self.send(ControlEvent::JudgementReceived {
            judgement_id,
            judgement,
        })
    }

    /// The id of the request in progress (empty when none).
    fn waiting_request_id(&self) -> String {
        self.state
            .in_progress
            .as_ref()
            .map(Action::request_id)
            .unwrap_or_default()
    }

    fn answer(&mut self, answer: &str) -> Vec<ControlEffect> {
        let request_id = self.waiting_request_id();
        self.send(ControlEvent::ApprovalAnswered {
            request_id,
            answer: answer.to_owned(),
            reason: None,
            edited: None,
        })
    }

    fn finish(&mut self, succeeded: bool, detail: &str) -> Vec<ControlEffect> {
        self.finish_reporting(succeeded, detail, false)
    }

    fn finish_not_applied(&mut self, succeeded: bool, detail: &str) -> Vec<ControlEffect> {
        self.finish_reporting(succeeded, detail, true)
    }

    /// The host's report of the action in progress.
    fn finish_reporting(
        &mut self,
        succeeded: bool,
        detail: &str,
        not_applied: bool,
    ) -> Vec<ControlEffect> {
        let action_id = self
            .state
            .in_progress
            .as_ref()
            .map(|a| a.id.clone())
            .unwrap_or_default();
        self.send(ControlEvent::ExecutionFinished {
            action_id,
            succeeded,
            detail: detail.to_owned(),
            not_applied,
        })
    }

    fn say(&mut self, text: &str) -> Vec<ControlEffect> {
        self.send(ControlEvent::HumanMessage {
            text: text.to_owned(),
        })
    }
}

fn restarted(boot: &str) -> ControlEvent {
    ControlEvent::HostRestarted {
        boot: boot.to_owned(),
        rules: None,
        renderers: None,
    }
}

fn persisted(effects: &[ControlEffect]) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, ControlEffect::PersistState { .. }))
}

fn close_ticket() -> Judgement {
    Judgement::Act {
        action_type: "status_change".to_owned(),
        summary: "move ticket T-7 from review to done".to_owned(),
        impact_scope: "task board: ticket T-7".to_owned(),
        parameters: json!({"node_id": "T-7", "from": "review", "to": "done"}),
    }
}

fn asks_judge(effects: &[ControlEffect]) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, ControlEffect::AskJudge { .. }))
}

fn executes(effects: &[ControlEffect]) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, ControlEffect::Execute { .. }))
}

fn approval_request(effects: &[ControlEffect]) -> Option<[String; 2]> {
    effects.iter().find_map(|e| match e {
        ControlEffect::RequestApproval { lines, .. } => Some(lines.clone()),
        _ => None,
    })
}

fn chat(effects: &[ControlEffect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            ControlEffect::ReportToChat { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// A loop waiting for the approval of `close_ticket`.
fn awaiting_approval() -> Host {
    let mut host = Host::new(Rules::default());
    host.observe(json!({"T-7": "review"}));
    host.judge(close_ticket());
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
    host
}

// ---- 判断サイクル ----

#[test]
fn judgement_cycles_turn_on_a_change_of_the_situation() {
    // 「判断サイクルは「状況（外部状況 + 内部状況 + 目的/目標）の変化」で回す」
    let mut host = Host::new(Rules::default());
    assert!(asks_judge(&host.observe(json!({"T-7": "review"}))));
    host.judge(Judgement::Wait);
    assert!(
        !asks_judge(&host.observe(json!({"T-7": "review"}))),
        "no change, no judgement"
    );
    assert!(asks_judge(&host.observe(json!({"T-7": "done"}))));
}

#[test]
fn the_goal_is_always_part_of_what_is_judged() {
    // 「目的/目標は常に状況の一部として判断対象に含める」
    let mut host = Host::new(Rules::default());
    let effects = host.observe(json!({"T-7": "review"}));
    let Some(ControlEffect::AskJudge { situation, .. }) = effects
        .iter()
        .find(|e| matches!(e, ControlEffect::AskJudge { .. }))
    else {
        panic!("no judgement asked");
    };
    assert_eq!(situation.goal, "keep the task board tidy");
}

// ---- 構成: 観察→判断→承認→実行→報告は機械制御、判断のみLLM ----

#[test]
fn the_llm_only_decides_the_machine_approves_executes_reports_and_saves() {
    // 「観察→判断→承認→実行→報告は機械制御、判断のみLLM」
    let mut host = awaiting_approval();
    // The judgement itself executed nothing: the machine asked the human.
    assert!(!executes(&host.effects));
    let approved = host.answer("y");
    assert!(executes(&approved));
    let reported = host.finish(true, "status is done");
    assert!(
        reported
            .iter()
            .any(|e| matches!(e, ControlEffect::ReportToChat { .. }))
    );
    assert!(reported.iter().any(|e| matches!(
        e,
        ControlEffect::AppendLog {
            channel: LogChannel::Execution,
            ..
        }
    )));
    assert!(persisted(&reported));
}

// ---- 自律と承認 ----

#[test]
fn every_action_but_a_conversation_reply_needs_approval() {
    // 「承認範囲: 全アクションに承認が必要」 / 会話応答は自動承認
    let mut host = Host::new(Rules::default());
    host.observe(json!({"T-7": "review"}));
    let reply = host.judge(Judgement::Reply {
        text: "The board is tidy.".to_owned(),
    });
    assert_eq!(chat(&reply), vec!["The board is tidy."]);
    assert!(approval_request(&reply).is_none());
    assert_eq!(host.state.mode, Mode::Idle);
    host.observe(json!({"T-7": "stale"}));
    let act = host.judge(close_ticket());
    assert!(approval_request(&act).is_some());
    assert!(!executes(&act));
}

#[test]
fn the_whitelist_of_action_types_is_the_only_exception_and_denies_by_default() {
    // 「承認の例外（自動承認対象）はアクション種別のホワイトリストで定義」
    let mut host = Host::new(Rules {
        whitelist: vec!["read_board".to_owned()],
        ..Rules::default()
    });
    host.observe(json!({}));
    let read = host.judge(Judgement::Act {
        action_type: "read_board".to_owned(),
        summary: "read the board".to_owned(),
        impact_scope: "none (read only)".to_owned(),
        parameters: json!({}),
    });
    assert!(executes(&read) && approval_request(&read).is_none());
    host.finish(true, "12 tickets");
    host.observe(json!({"changed": true}));
    let write = host.judge(close_ticket());
    assert!(
        !executes(&write) && approval_request(&write).is_some(),
        "status_change is not whitelisted"
    );
}

#[test]
fn approval_is_asked_once_just_before_execution_never_at_judgement_time() {
    // 「承認は実行直前のみ（判断時ではなく、実行直前に1回）」
    let mut host = Host::new(Rules::default());
    let asked = host.observe(json!({"T-7": "review"}));
    assert!(
        approval_request(&asked).is_none(),
        "nothing is asked while the judge decides"
    );
    let judged = host.judge(close_ticket());
    assert_eq!(
        judged
            .iter()
            .filter(|e| matches!(e, ControlEffect::RequestApproval { .. }))
            .count(),
        1
    );
    let approved = host.answer("y");
    assert!(
        approval_request(&approved).is_none(),
        "asked once: y executes without asking again"
    );
    assert!(
        executes(&approved),
        "executed once the executing state is saved"
    );
}

// ---- 承認フロー（詳細） ----

#[test]
fn the_approval_request_is_two_lines_what_and_impact_scope() {
    // 「承認要求の内容: 実行概要 + 影響範囲」「承認メッセージ形式: 2行」
    let mut host = Host::new(Rules::default());
    host.observe(json!({}));
    let effects = host.judge(Judgement::Act {
        action_type: "status_change".to_owned(),
        summary: "move T-7\nto done".to_owned(),
        impact_scope: "ticket T-7\r\n(board A)".to_owned(),
        parameters: json!({"node_id": "T-7", "from": "review", "to": "done"}),
    });
    let lines = approval_request(&effects).unwrap();
    // The machine states the request from the action itself; the model's words are its labelled note.
    assert_eq!(
        lines,
        [
            "Execute: status_change on T-7: review -> done".to_owned(),
            "Impact: T-7".to_owned()
        ]
    );
    assert!(lines.iter().all(|line| !line.contains('\n')));
    let note = effects.iter().find_map(|e| match e {
        ControlEffect::RequestApproval { note, .. } => note.clone(),
        _ => None,
    });
    assert_eq!(
        note.as_deref(),
        Some("move T-7 to done / ticket T-7 (board A)")
    );
}

#[test]
fn the_answer_is_y_or_n_anything_else_asks_again_and_never_defaults() {
    // 「承認入力: y/n」
    for answer in ["", "yes", "ok", "Y!", "no", "1", "true", "y n"] {
        let mut host = awaiting_approval();
        let effects = host.answer(answer);
        assert!(!executes(&effects), "`{answer}` executed");
        assert!(
            approval_request(&effects).is_some(),
            "`{answer}` did not ask again"
        );
        assert_eq!(host.state.mode, Mode::AwaitingApproval);
    }
    for answer in ["y", "Y", "  y ", "\ty\n"] {
        let mut host = awaiting_approval();
        assert!(executes(&host.answer(answer)), "`{answer:?}` is y");
    }
}

#[test]
fn while_waiting_for_approval_the_loop_is_idle_and_there_is_no_timeout() {
    // 「承認待ち中: アイドルのみ」「承認タイムアウト: なし」
    let mut host = awaiting_approval();
    for n in 0..50 {
        let effects = host.observe(json!({"tick": n}));
        assert!(!asks_judge(&effects) && !executes(&effects));
        assert_eq!(host.state.mode, Mode::AwaitingApproval);
    }
    assert!(
        executes(&host.answer("y")),
        "still waiting after any number of changes"
    );
}

#[test]
fn n_stops_and_ends_the_task() {
    // 「却下時: 停止して終了」
    let mut host = awaiting_approval();
    let effects = host.answer("n");
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, ControlEffect::Stop { .. }))
    );
    assert_eq!(host.state.mode, Mode::Stopped);
    assert!(host.state.in_progress.is_none() && host.state.intent.is_none());
    assert!(
        !asks_judge(&host.observe(json!({"later": true}))),
        "a stopped loop does not judge"
    );
    assert!(
        !executes(&host.answer("y")),
        "the declined action cannot be approved afterwards"
    );
}

/// A decline with the person's words, for the request waiting.
fn decline(host: &mut Host, reason: &str) -> Vec<ControlEffect> {
    let request_id = host.waiting_request_id();
    host.send(ControlEvent::ApprovalAnswered {
        request_id,
        answer: "n".to_owned(),
        reason: Some(reason.to_owned()),
        edited: None,
    })
}

fn declined_given_to_judge(effects: &[ControlEffect]) -> Option<Vec<Declined>> {
    effects.iter().find_map(|e| match e {
        ControlEffect::AskJudge { declined, .. } => Some(declined.clone()),
        _ => None,
    })
}

fn resume(host: &mut Host) -> Vec<ControlEffect> {
    let prefix = host.state.rules.privileged_prefix.clone();
    host.say(&format!("{prefix} resume"))
}

#[test]
fn a_decline_s_reason_reaches_the_judge_as_the_person_s_words() {
    let mut host = awaiting_approval();
    let effects = decline(&mut host, "not before the release,\nplease");
    assert_eq!(host.state.mode, Mode::Stopped);
    assert!(
        chat(&effects)
            .iter()
            .any(|line| line.contains("\u{201c}not before the release, please\u{201d}")),
        "{:?}",
        chat(&effects)
    );
    let asked = resume(&mut host);
    let declined = declined_given_to_judge(&asked).expect("the resume asks the judge");
    assert_eq!(declined.len(), 1);
    assert_eq!(
        declined[0].reason.as_deref(),
        Some("not before the release, please")
    );
    assert!(declined[0].what.contains("T-7"));
    // The judge's prompt carries it, quoted, as the person's words.
    let request = JudgeRequest {
        situation: host.state.situation.clone(),
        memory: Vec::new(),
        declined,
        replies: Vec::new(),
        action_types: Vec::new(),
        settings: Default::default(),
        playbook: None,
        log_tail: None,
    };
    let variables = prompt_variables(&request);
    let text = variables["declined"].as_str().unwrap();
    assert!(
        text.contains("the person said: \"not before the release, please\""),
        "{text}"
    );
}

#[test]
fn a_declined_change_is_not_asked_again_until_the_situation_or_an_instruction_changes() {
    let mut host = awaiting_approval();
    decline(&mut host, "no");
    resume(&mut host);
    // The judge proposes the very same change: the person is not asked; the loop waits.
    let again = host.judge(close_ticket());
    assert!(approval_request(&again).is_none(), "asked again: {again:?}");
    assert!(!executes(&again));
    assert_eq!(host.state.mode, Mode::Idle);
    assert!(
        chat(&again)
            .iter()
            .any(|line| line.starts_with("Not asking again"))
    );
    // The same observation again is no change: the judge is not even asked.
    assert!(!asks_judge(&host.observe(json!({"T-7": "review"}))));
    // A different change is asked for as usual.
    let other = Judgement::Act {
        action_type: "status_change".to_owned(),
        summary: "move ticket T-8".to_owned(),
        impact_scope: "task board: ticket T-8".to_owned(),
        parameters: json!({"node_id": "T-8", "from": "review", "to": "done"}),
    };
    host.observe(json!({"T-7": "review", "T-8": "review"}));
    assert!(approval_request(&host.judge(other)).is_some());
    decline(&mut host, "neither");
    // The board changed since T-7 was declined: asking for it again is allowed.
    resume(&mut host);
    assert!(approval_request(&host.judge(close_ticket())).is_some());
    decline(&mut host, "still no");
    // A person's new instruction is a change too, even with the board as it was.
    host.say("please close T-7 now");
    assert!(approval_request(&host.judge(close_ticket())).is_some());
}

#[test]
fn a_reason_belongs_to_a_decline_never_to_an_approval() {
    let mut host = awaiting_approval();
    let request_id = host.waiting_request_id();
    let effects = host.send(ControlEvent::ApprovalAnswered {
        request_id,
        answer: "y".to_owned(),
        reason: Some("no, do not".to_owned()),
        edited: None,
    });
    assert!(!executes(&effects));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, ControlEffect::AnswerRefused { .. }))
    );
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
    // A y with an empty reason is a y.
    let request_id = host.waiting_request_id();
    let effects = host.send(ControlEvent::ApprovalAnswered {
        request_id,
        answer: "y".to_owned(),
        reason: Some(" ".to_owned()),
        edited: None,
    });
    assert!(executes(&effects));
}

#[test]
fn declines_are_remembered_within_a_bound_and_survive_a_restart() {
    let mut host = Host::new(Rules::default());
    for n in 0..40 {
        host.observe(json!({ "T-7": "review", "n": n }));
        if host.state.mode == Mode::Stopped {
            resume(&mut host);
        }
        host.judge(close_ticket());
        decline(&mut host, &"why ".repeat(500));
    }
    assert!(host.state.declined.len() <= 16);
    assert!(
        host.state.declined.iter().all(|declined| declined
            .reason
            .as_ref()
            .unwrap()
            .chars()
            .count()
            <= 240)
    );
    let saved = serde_json::to_string(&host.state).unwrap();
    let reloaded: ControlState = serde_json::from_str(&saved).unwrap();
    assert_eq!(reloaded.declined, host.state.declined);
    // A state saved before declines were remembered still loads.
    let mut old: Value = serde_json::from_str(&saved).unwrap();
    old.as_object_mut().unwrap().remove("declined");
    old.as_object_mut().unwrap().remove("instructions_given");
    let loaded: ControlState = serde_json::from_value(old).unwrap();
    assert!(loaded.declined.is_empty());
}

fn reply(host: &mut Host, text: &str) -> Vec<ControlEffect> {
    host.send(ControlEvent::HumanReply {
        text: text.to_owned(),
    })
}

fn replies_given_to_judge(effects: &[ControlEffect]) -> Option<(Vec<String>, Option<String>)> {
    effects.iter().find_map(|e| match e {
        ControlEffect::AskJudge {
            replies, situation, ..
        } => Some((replies.clone(), situation.instruction.clone())),
        _ => None,
    })
}

#[test]
fn a_reply_interrupts_nothing_and_is_read_at_the_next_judgement() {
    let mut host = awaiting_approval();
    // Awaiting approval: the reply is kept; the request still waits, nothing is interrupted.
    let effects = reply(&mut host, "T-7 can wait until Monday");
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
    assert!(!asks_judge(&effects));
    assert_eq!(host.state.unread_replies, vec!["T-7 can wait until Monday"]);
    // A reply is never a developer command, whatever its first word.
    let prefix = host.state.rules.privileged_prefix.clone();
    reply(&mut host, &format!("{prefix} whitelist add status_change"));
    assert!(host.state.rules.whitelist.is_empty());
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
    // The approval goes on; once it ran, the next judgement reads both replies, as replies (never as the
    // human's instruction).
    assert!(executes(&host.answer("y")));
    let finished = host.finish(true, "moved");
    let (replies, instruction) = replies_given_to_judge(&finished)
        .or_else(|| replies_given_to_judge(&host.observe(json!({"T-7": "done"}))))
        .expect("the judge is asked again");
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0], "T-7 can wait until Monday");
    assert!(replies[1].contains("whitelist add status_change"));
    assert_eq!(instruction, None);
    // Read once the judge answered.
    let judgement_id = host.state.judgement_id;
    host.send(ControlEvent::JudgementReceived {
        judgement_id,
        judgement: Judgement::Wait,
    });
    assert!(host.state.unread_replies.is_empty());
}

#[test]
fn a_reply_to_an_idle_loop_asks_the_judge_at_once_and_one_during_a_judgement_is_not_lost() {
    let mut host = Host::new(Rules::default());
    let effects = reply(&mut host, "please look at T-9");
    let (replies, _) = replies_given_to_judge(&effects).expect("asked at once");
    assert_eq!(replies, vec!["please look at T-9"]);
    // While the judge is asked, a reply waits; the answer (wait) leaves the loop idle: it is read at once,
    // alone (the first was read by that judgement).
    assert_eq!(host.state.mode, Mode::Judging);
    reply(&mut host, "and T-10");
    let judge_id = host.state.judgement_id;
    let effects = host.send(ControlEvent::JudgementReceived {
        judgement_id: judge_id,
        judgement: Judgement::Wait,
    });
    let (replies, _) = replies_given_to_judge(&effects).expect("asked again at once");
    assert_eq!(replies, vec!["and T-10"]);
    // A judgement that failed read nothing: its replies are asked again.
    let judge_id = host.state.judgement_id;
    host.send(ControlEvent::JudgementFailed {
        judgement_id: judge_id,
        error: "down".to_owned(),
    });
    assert_eq!(host.state.unread_replies, vec!["and T-10"]);
    // An empty reply is nothing.
    let before = host.state.clone();
    reply(&mut host, "  \n ");
    assert_eq!(host.state.unread_replies, before.unread_replies);
}

#[test]
fn a_reply_is_no_instruction_a_declined_change_stays_declined() {
    let mut host = awaiting_approval();
    decline(&mut host, "no");
    resume(&mut host);
    reply(&mut host, "still no, and please stop asking");
    assert!(approval_request(&host.judge(close_ticket())).is_none());
    // Declined rule changes are not asked for again either.
    let mut host = Host::new(Rules::default());
    host.observe(json!({"T-7": "review"}));
    let rules = Judgement::ChangeRules {
        change: RuleChange {
            whitelist_add: vec!["status_change".to_owned()],
            ..RuleChange::default()
        },
        reason: "faster".to_owned(),
    };
    assert!(approval_request(&host.judge(rules.clone())).is_some());
    decline(&mut host, "never");
    resume(&mut host);
    assert!(approval_request(&host.judge(rules)).is_none());
}

#[test]
fn replies_stay_within_their_bound() {
    let mut host = awaiting_approval();
    for n in 0..100 {
        reply(&mut host, &format!("{n} {}", "long words ".repeat(200)));
    }
    assert!(host.state.unread_replies.len() <= 32);
    let total: usize = host.state.unread_replies.iter().map(String::len).sum();
    assert!(total <= 16 * 1024, "{total}");
    assert!(host.state.unread_replies.last().unwrap().starts_with("99 "));
}

fn answer_edited(host: &mut Host, answer: &str, parameters: Value) -> Vec<ControlEffect> {
    let request_id = host.waiting_request_id();
    host.send(ControlEvent::ApprovalAnswered {
        request_id,
        answer: answer.to_owned(),
        reason: None,
        edited: Some(parameters),
    })
}

fn executed_action(effects: &[ControlEffect]) -> Option<(Action, ApprovalRecord)> {
    effects.iter().find_map(|e| match e {
        ControlEffect::Execute { action, approval } => {
            Some(((**action).clone(), (**approval).clone()))
        }
        _ => None,
    })
}

#[test]
fn a_change_edited_before_approval_runs_as_edited_and_the_loop_says_how() {
    let mut host = awaiting_approval();
    let shown = host.state.in_progress.clone().unwrap();
    let effects = answer_edited(
        &mut host,
        "y",
        json!({"node_id": "T-7", "from": "review", "to": "archived"}),
    );
    let (action, approval) =
        executed_action(&effects).unwrap_or_else(|| panic!("the edited change runs: {effects:?}"));
    assert_eq!(action.parameters["to"], "archived");
    assert_eq!(action.action_type, shown.action_type);
    assert_ne!(action.digest, shown.digest);
    assert!(action.lines[0].contains("archived"), "{:?}", action.lines);
    assert_eq!(approval.digest, action.digest);
    assert_eq!(approval.ui_action, "edited_y");
    assert_eq!(
        approval.edited_request_id.as_deref(),
        Some(shown.request_id().as_str())
    );
    assert_eq!(
        approval.request_id.as_deref(),
        Some(action.request_id().as_str())
    );
    assert!(
        chat(&effects)
            .iter()
            .any(|line| line.starts_with("Edited by a person") && line.contains("archived")),
        "{:?}",
        chat(&effects)
    );
    // Its result is the edited action's: the judge reads what really ran.
    host.finish(true, "moved");
    assert_eq!(
        host.state.memory.back().unwrap().action.parameters["to"],
        "archived"
    );
}

#[test]
fn an_edit_comes_only_with_a_y_and_only_for_a_task_it_can_show() {
    // With n: refused, the request still waits.
    let mut host = awaiting_approval();
    let effects = answer_edited(
        &mut host,
        "n",
        json!({"node_id": "T-7", "from": "review", "to": "x"}),
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, ControlEffect::AnswerRefused { .. }))
    );
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
    // Parameters the machine cannot render into two lines: refused, nothing runs.
    let deep = (0..100).fold(json!("x"), |inner, _| json!({ "a": inner }));
    let effects = answer_edited(&mut host, "y", json!({"node_id": "T-7", "deep": deep}));
    assert!(!executes(&effects));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, ControlEffect::AnswerRefused { .. }))
    );
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
    // The same parameters as shown: a plain y.
    let shown = host.state.in_progress.clone().unwrap();
    let effects = answer_edited(&mut host, "y", shown.parameters.clone());
    let (action, approval) = executed_action(&effects).unwrap();
    assert_eq!(action.digest, shown.digest);
    assert_eq!(approval.ui_action, "chat_y");
}

#[test]
fn a_waiting_approval_survives_a_restart() {
    // 状態保存は機械の責務: the state is data; after a reload the approval still waits.
    let host = awaiting_approval();
    let saved = serde_json::to_string(&host.state).unwrap();
    let mut reloaded = Host {
        state: serde_json::from_str(&saved).unwrap(),
        effects: Vec::new(),
        saved: None,
    };
    assert_eq!(reloaded.state, host.state);
    assert_eq!(reloaded.state.mode, Mode::AwaitingApproval);
    assert!(executes(&reloaded.answer("y")));
}

// ---- 失敗時 ----

#[test]
fn a_failure_stops_at_once_is_reported_and_running_again_needs_approval() {
    // 「失敗時は即座に停止し、報告する」「失敗時は停止し、再実行は明示承認を要求する」
    let mut host = awaiting_approval();
    host.answer("y");
    let failed = host.finish(false, "HTTP 500 from the board");
    assert!(
        failed
            .iter()
            .any(|e| matches!(e, ControlEffect::Stop { .. }))
    );
    assert!(
        chat(&failed)
            .iter()
            .any(|line| line.contains("FAILED") && line.contains("HTTP 500"))
    );
    assert!(!executes(&failed) && !asks_judge(&failed));
    let rerun = approval_request(&failed).expect("a re-run is offered for approval");
    assert_eq!(rerun[0], "Execute: status_change on T-7: review -> done");
    assert_eq!(host.state.mode, Mode::Stopped);
    assert!(!asks_judge(&host.observe(json!({"later": true}))));
    assert!(!executes(&host.answer("maybe")));
    let approved = host.answer("y");
    assert!(executes(&approved), "the explicit y runs it again");
}

#[test]
fn an_action_not_applied_because_the_world_moved_on_is_no_failure_and_the_loop_judges_again() {
    let mut host = awaiting_approval();
    host.answer("y");
    let moved = host.finish_not_applied(false, "T-7 is done now, not review");
    assert!(
        !moved
            .iter()
            .any(|e| matches!(e, ControlEffect::Stop { .. })),
        "no stop"
    );
    assert!(
        chat(&moved)
            .iter()
            .any(|line| line.contains("not applied") && !line.contains("FAILED"))
    );
    assert!(approval_request(&moved).is_none(), "no re-run is offered");
    assert!(
        asks_judge(&moved),
        "the world as it is now is judged at once"
    );
    assert_eq!(host.state.mode, Mode::Judging);
    assert!(host.state.halt.is_none());
    let digest = &host.state.last_result.as_ref().unwrap().action.digest;
    assert!(
        host.state.failed_digests.contains(digest),
        "the same action runs again only after a person's y"
    );
}

#[test]
fn a_report_of_both_succeeded_and_not_applied_is_read_as_a_failure() {
    let mut host = awaiting_approval();
    host.answer("y");
    let contradictory = host.finish_not_applied(true, "says both");
    assert!(
        contradictory
            .iter()
            .any(|e| matches!(e, ControlEffect::Stop { .. }))
    );
    assert_eq!(host.state.mode, Mode::Stopped);
}

#[test]
fn after_a_failure_the_judge_gets_the_log_tail_once() {
    // 「ログの読者: 開発者 + SPECTRA（SPECTRAは失敗/エラー時のみ読む）」
    let mut host = awaiting_approval();
    let Some(ControlEffect::AskJudge {
        include_log_tail, ..
    }) = host.effects.first().cloned()
    else {
        panic!("the first effect asks the judge");
    };
    assert!(!include_log_tail, "no log tail without a failure");
    host.answer("y");
    host.finish(false, "timeout");
    let next = host.say("try another way");
    let tails: Vec<bool> = next
        .iter()
        .filter_map(|e| match e {
            ControlEffect::AskJudge {
                include_log_tail, ..
            } => Some(*include_log_tail),
            _ => None,
        })
        .collect();
    assert_eq!(tails, vec![true]);
    host.judge(Judgement::Wait);
    let later = host.observe(json!({"calm": true}));
    assert!(later.iter().any(|e| matches!(
        e,
        ControlEffect::AskJudge {
            include_log_tail: false,
            ..
        }
    )));
}

// ---- 割り込みと優先度 ----

#[test]
fn a_human_message_interrupts_judging_at_once_and_aborts_the_llm_call() {
    // 「人間の指示は常に最優先」「割り込み時は即座に停止して切り替え」
    let mut host = Host::new(Rules::default());
    host.observe(json!({"T-7": "review"}));
    let judgement_id = host.state.judgement_id;
    let effects = host.say("stop, look at T-9 first");
    assert!(effects.contains(&ControlEffect::AbortJudge { judgement_id }));
    assert_eq!(host.state.mode, Mode::Interrupted);
    // The aborted judgement's late answer is ignored.
    let late = host.send(ControlEvent::JudgementReceived {
        judgement_id,
        judgement: close_ticket(),
    });
    assert!(late.is_empty());
}

#[test]
fn an_interrupted_task_is_summarised_and_resume_or_discard_is_asked() {
    // 「中断されたタスクは要約し、再開/破棄を確認する」
    let mut host = awaiting_approval();
    let effects = host.say("wait");
    let lines = chat(&effects);
    assert!(
        lines
            .iter()
            .any(|line| line.contains("waiting for approval of: status_change on T-7"))
    );
    assert!(lines.iter().any(|line| line.contains("resume / discard")));
    assert!(
        !executes(&host.answer("y")),
        "the withdrawn approval cannot be answered"
    );
    assert!(
        chat(&host.send(ControlEvent::InterruptionAnswered {
            answer: "later".to_owned()
        }))
        .iter()
        .any(|l| l.contains("resume / discard"))
    );
    let resumed = host.send(ControlEvent::InterruptionAnswered {
        answer: " Resume ".to_owned(),
    });
    assert_eq!(
        approval_request(&resumed).unwrap()[0],
        "Execute: status_change on T-7: review -> done"
    );
    assert!(executes(&host.answer("y")));
}

#[test]
fn discarding_an_interrupted_task_drops_it_and_the_instruction_is_judged() {
    let mut host = awaiting_approval();
    host.say("look at T-9 first");
    let effects = host.send(ControlEvent::InterruptionAnswered {
        answer: "discard".to_owned(),
    });
    let Some(ControlEffect::AskJudge { situation, .. }) = effects
        .iter()
        .find(|e| matches!(e, ControlEffect::AskJudge { .. }))
    else {
        panic!("the instruction is judged");
    };
    assert_eq!(situation.instruction.as_deref(), Some("look at T-9 first"));
    assert!(host.state.in_progress.is_none());
}

#[test]
fn an_apply_already_sent_is_awaited_and_recorded_never_abandoned() {
    let mut host = awaiting_approval();
    host.answer("y");
    let during = host.say("stop!");
    assert_eq!(
        host.state.mode,
        Mode::Executing,
        "the running Apply is not abandoned"
    );
    assert!(
        !during
            .iter()
            .any(|e| matches!(e, ControlEffect::AbortJudge { .. }))
    );
    let finished = host.finish(true, "status is done");
    assert!(finished.iter().any(|e| matches!(
        e,
        ControlEffect::AppendLog {
            channel: LogChannel::Execution,
            ..
        }
    )));
    assert_eq!(
        host.state.last_result.as_ref().unwrap().action.what(),
        "status_change on T-7: review -> done"
    );
    assert_eq!(host.state.mode, Mode::Interrupted);
    assert!(
        chat(&finished)
            .iter()
            .any(|line| line.contains("resume / discard"))
    );
}

// ---- 特権チャンネル ----

#[test]
fn a_developer_command_is_recognised_only_as_the_first_token() {
    // 「特権のフォールバック: ルーティング失敗時は `/dev` プレフィックスを許可（先頭トークンであること）」
    let mut host = Host::new(Rules::default());
    host.say("please /dev goal ship it");
    assert_eq!(
        host.state.situation.goal, "keep the task board tidy",
        "not the first token: an instruction"
    );
    let mut host = Host::new(Rules::default());
    host.say("/devgoal ship it");
    assert_eq!(host.state.situation.goal, "keep the task board tidy");
    let mut host = Host::new(Rules::default());
    host.say("  /dev goal ship the release  ");
    assert_eq!(host.state.situation.goal, "ship the release");
    let mut host = Host::new(Rules {
        privileged_prefix: "!op".to_owned(),
        ..Rules::default()
    });
    host.say("!op goal configurable");
    assert_eq!(host.state.situation.goal, "configurable");
}

#[test]
fn a_developer_may_override_the_goal_the_task_and_the_rules_and_it_is_logged() {
    // 「特権の範囲: 目的、進行中タスク、ルールを上書き可能」
    let mut host = awaiting_approval();
    let goal = host.say("/dev goal release 1.0");
    assert_eq!(host.state.situation.goal, "release 1.0");
    let logged = |effects: &[ControlEffect]| {
        effects.iter().any(|e| matches!(e, ControlEffect::AppendLog { channel: LogChannel::Cli, record } if record.event_summary.starts_with("privileged:")))
    };
    assert!(logged(&goal));
    let discard = host.say("/dev discard");
    assert!(logged(&discard));
    assert!(host.state.in_progress.is_none() && host.state.mode == Mode::Idle);
    let rules = host.say("/dev whitelist add status_change");
    assert!(rules.iter().any(
        |e| matches!(e, ControlEffect::PersistRules { rules } if rules.whitelist == ["status_change"])
    ));
    assert!(logged(&rules));
    let unknown = host.say("/dev reboot now");
    assert!(chat(&unknown).iter().any(|line| line.contains("refused")));
}

// ---- ルール変更 ----

#[test]
fn a_rule_change_needs_approval_is_persisted_after_it_and_applies_at_once() {
    // 「ルール変更は承認が必要、承認後は永続化」「ルール変更は即座に適用」
    let mut host = Host::new(Rules::default());
    host.observe(json!({}));
    let proposed = host.judge(Judgement::ChangeRules {
        change: RuleChange {
            whitelist_add: vec!["read_board".to_owned()],
            ..RuleChange::default()
        },
        reason: "reading is harmless".to_owned(),
    });
    assert!(approval_request(&proposed).is_some());
    assert!(
        !proposed
            .iter()
            .any(|e| matches!(e, ControlEffect::PersistRules { .. })),
        "nothing persisted before approval"
    );
    let approved = host.answer("y");
    assert!(
        approved
            .iter()
            .any(|e| matches!(e, ControlEffect::PersistRules { .. }))
    );
    assert_eq!(host.state.rules.whitelist, ["read_board"]);
    host.observe(json!({"next": 1}));
    let read = host.judge(Judgement::Act {
        action_type: "read_board".to_owned(),
        summary: "read".to_owned(),
        impact_scope: "none".to_owned(),
        parameters: json!({}),
    });
    assert!(executes(&read), "the new rule applies at once");
}

#[test]
fn a_rule_that_cannot_apply_at_once_stops_shows_restart_steps_and_offers_an_approved_restart() {
    // 「即時適用が不可能なら停止して報告 + 再起動手順を表示」「再起動提案: 手順を表示 + 即時実行を提案（実行には承認が必要）」
    let mut host = Host::new(Rules::default());
    host.observe(json!({}));
    host.judge(Judgement::ChangeRules {
        change: RuleChange {
            host_settings: [("model".to_owned(), json!("larger-model"))]
                .into_iter()
                .collect(),
            ..RuleChange::default()
        },
        reason: "better judgements".to_owned(),
    });
    let approved = host.answer("y");
    assert!(
        approved
            .iter()
            .any(|e| matches!(e, ControlEffect::PersistRules { .. }))
    );
    assert!(
        approved
            .iter()
            .any(|e| matches!(e, ControlEffect::Stop { .. }))
    );
    assert!(
        chat(&approved)
            .iter()
            .any(|line| line.contains("Steps: 1.") && line.contains("Restart now?"))
    );
    let restart = approval_request(&approved).unwrap();
    assert!(restart[0].contains("restart the agent"));
    assert!(!executes(&approved), "the restart itself needs approval");
    let yes = host.answer("y");
    assert!(
        yes.iter().any(|effect| matches!(effect, ControlEffect::Execute { action, .. } if action.action_type == "restart"))
    );
}

// ---- 自己修正 ----

#[test]
fn self_modification_is_small_reversible_settings_only_and_needs_approval() {
    // 「自己修正は小修正のみ許可（実行には承認が必要）」「可逆の定義: 以前の状態に戻せること」「自己修正の範囲: 設定/状態の調整のみ」
    let mut host = Host::new(Rules {
        adjustable_settings: vec!["poll_seconds".to_owned()],
        ..Rules::default()
    });
    host.state
        .settings
        .insert("poll_seconds".to_owned(), json!(60));
    host.observe(json!({}));
    let proposed = host.judge(Judgement::AdjustSetting {
        key: "poll_seconds".to_owned(),
        value: json!(30),
        reason: "the board changes often".to_owned(),
    });
    assert!(approval_request(&proposed).unwrap()[0].contains("from 60 to 30"));
    host.answer("y");
    assert_eq!(host.state.settings["poll_seconds"], json!(30));
    host.send(ControlEvent::RevertSetting);
    assert_eq!(
        host.state.settings["poll_seconds"],
        json!(60),
        "one call reverts it"
    );

    host.observe(json!({"again": true}));
    let refused = host.judge(Judgement::AdjustSetting {
        key: "whitelist".to_owned(),
        value: json!(["everything"]),
        reason: "faster".to_owned(),
    });
    assert!(approval_request(&refused).is_none());
    assert!(
        chat(&refused)
            .iter()
            .any(|line| line.contains("refused") && line.contains("not an adjustable setting"))
    );
    host.observe(json!({"again": 2}));
    let too_big = host.judge(Judgement::AdjustSetting {
        key: "poll_seconds".to_owned(),
        value: json!("x".repeat(5000)),
        reason: "r".to_owned(),
    });
    assert!(
        chat(&too_big)
            .iter()
            .any(|line| line.contains("not a small change"))
    );
}

// ---- 報告 ----

#[test]
fn reports_go_to_the_chat_only_and_are_short() {
    // 「報告の出力先: チャットのみ」「実行内容と結果を簡潔に報告する」
    let mut host = awaiting_approval();
    host.answer("y");
    let done = host.finish(true, &"very long result ".repeat(100));
    let reports = chat(&done);
    assert_eq!(reports.len(), 1);
    assert!(reports[0].starts_with("status_change on T-7: review -> done: done ("));
    assert!(reports[0].chars().count() <= agent_governor::control::text::MAX_LINE_CHARS);
}

// ---- ログ ----

#[test]
fn the_execution_log_is_written_only_when_an_action_completes_with_the_seed_fields() {
    // 「実行ログ形式: JSON（フィールド: time, event_summary, cause, impact_scope）」「実行ログのタイミング: 完了時のみ」
    let mut host = awaiting_approval();
    let execution_logs = |effects: &[ControlEffect]| {
        effects
            .iter()
            .filter_map(|e| match e {
                ControlEffect::AppendLog {
                    channel: LogChannel::Execution,
                    record,
                } => Some(record.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert!(execution_logs(&host.effects).is_empty());
    assert!(
        execution_logs(&host.answer("y")).is_empty(),
        "not when it starts"
    );
    let records = execution_logs(&host.finish(true, "status is done"));
    assert_eq!(records.len(), 1);
    let record = serde_json::to_value(&records[0]).unwrap();
    assert_eq!(
        record,
        json!({"event_summary": "status_change on T-7: review -> done", "cause": "status is done", "impact_scope": "T-7"})
    );
}

// ---- 状態管理 ----

#[test]
fn the_state_is_the_minimal_set_and_memory_is_bounded() {
    // 「最小の状態セット: 状況、意図/目標、進行中アクション、最終結果」
    let mut host = Host::new(Rules {
        whitelist: vec!["status_change".to_owned()],
        ..Rules::default()
    });
    host.state.memory_limit = 3;
    for n in 0..10 {
        host.observe(json!({"n": n}));
        host.judge(close_ticket());
        host.finish(true, &format!("run {n}"));
    }
    assert_eq!(host.state.memory.len(), 3);
    assert_eq!(
        host.state.intent.as_deref(),
        Some("status_change on T-7: review -> done")
    );
    assert!(
        matches!(&host.state.last_result, Some(ActionResult { succeeded: true, detail, .. }) if detail == "run 9")
    );
}

#[test]
fn stale_and_foreign_answers_change_nothing() {
    let host = awaiting_approval();
    for event in [
        ControlEvent::ExecutionFinished {
            action_id: "a-1".to_owned(),
            succeeded: true,
            detail: "x".to_owned(),
            not_applied: false,
        },
        ControlEvent::JudgementReceived {
            judgement_id: 0,
            judgement: close_ticket(),
        },
        ControlEvent::InterruptionAnswered {
            answer: "resume".to_owned(),
        },
    ] {
        let (next, effects) = step(&host.state, &event);
        assert_eq!(next, host.state, "{event:?}");
        assert!(effects.is_empty(), "{event:?}");
    }
}

#[test]
fn after_a_restart_the_waiting_question_is_asked_again_and_a_running_action_is_never_re_run() {
    // 状態保存は機械の責務: whatever the host was doing is lost in a restart; the state says what it was.
    let mut waiting = awaiting_approval();
    let asked_again = waiting.restart();
    assert!(
        approval_request(&asked_again).is_some(),
        "the approval is asked again"
    );
    assert!(!executes(&asked_again));
    assert_eq!(waiting.state.mode, Mode::AwaitingApproval);

    let mut judging = Host::new(Rules::default());
    judging.observe(json!({ "tickets": 1 }));
    let before = judging.state.judgement_id;
    let rejudged = judging.restart();
    assert!(asks_judge(&rejudged), "a lost judgement is asked again");
    assert!(
        judging.state.judgement_id > before,
        "the lost one's answer is stale"
    );

    let mut executing = awaiting_approval();
    assert!(executes(&executing.answer("y")));
    let after = executing.restart();
    assert!(
        !executes(&after),
        "an action whose outcome is unknown is never run again by itself"
    );
    assert_eq!(executing.state.mode, Mode::Stopped);
    assert!(
        chat(&after)
            .iter()
            .any(|line| line.contains("Outcome unknown"))
    );
    assert!(
        after
            .iter()
            .any(|e| matches!(e, ControlEffect::RequestReconcile { .. })),
        "a person is asked whether it was applied"
    );
    assert_eq!(executing.state.unreconciled.len(), 1);
}

#[test]
fn an_outcome_reconciled_as_not_applied_is_a_failure_the_loop_stops_and_waits_for_a_person() {
    // Seed 002: on failure stop at once and report; running it again needs explicit approval.
    for applied in [true, false] {
        let mut host = awaiting_approval();
        assert!(executes(&host.answer("y")));
        let ran = host.state.in_progress.clone().unwrap();
        host.restart();
        let answered = host.send(ControlEvent::OutcomeReconciled {
            action_id: ran.id.clone(),
            applied,
        });
        if applied {
            assert!(asks_judge(&answered), "applied: the loop goes on");
            continue;
        }
        assert!(!asks_judge(&answered), "not applied: no judging");
        assert!(!executes(&answered));
        assert_eq!(host.state.mode, Mode::Stopped);
        assert_eq!(host.state.halt.as_ref().unwrap().kind, HaltKind::Failed);
        assert_eq!(host.state.failed.as_ref().unwrap().id, ran.id);
        // Running it again is offered as a new action, for a person's y.
        let again = host.state.in_progress.clone().unwrap();
        assert_ne!(again.id, ran.id);
        assert_eq!(again.parameters, ran.parameters);
        assert!(approval_request(&answered).is_some());
        let rerun = host.answer("y");
        assert!(executes(&rerun));
        assert!(rerun.iter().all(|effect| match effect {
            ControlEffect::Execute { action, .. } => action.id != ran.id,
            _ => true,
        }));
    }
}

#[test]
fn a_saved_state_whose_approval_names_another_request_with_the_same_digest_is_not_executed() {
    let mut host = awaiting_approval();
    let request_id = host.waiting_request_id();
    let asked = host.send_unsaved(ControlEvent::ApprovalAnswered {
        request_id,
        answer: "y".to_owned(),
        reason: None,
        edited: None,
    });
    let revision = asked
        .iter()
        .find_map(|effect| match effect {
            ControlEffect::PersistState { revision } => Some(*revision),
            _ => None,
        })
        .unwrap();
    // The stored record is edited: the same digest, but the y it names was given to another request.
    let approval = &mut host.state.execution.as_mut().unwrap().approval;
    assert_eq!(approval.by, ApprovedBy::Person);
    approval.request_id = Some("r-another-request".to_owned());
    let effects = host.send_unsaved(ControlEvent::StatePersisted { revision });
    assert!(
        !executes(&effects),
        "an approval of another request runs nothing"
    );
    assert_eq!(host.state.mode, Mode::Stopped);
    let halt = host.state.halt.as_ref().unwrap();
    assert_eq!(halt.kind, HaltKind::Failed);
    assert!(
        halt.reason.contains("changed after it was approved"),
        "{halt:?}"
    );
}

#[test]
fn a_judge_answer_without_the_fields_its_decision_needs_or_for_an_unknown_type_is_refused() {
    // 判断はLLM、実行は機械: a model's answer is evidence; an incomplete one stops the loop.
    use agent_governor::control::judgement_answer::{ModelDecision, ModelJudgement};
    let answer = |decision, action_type: Option<&str>| ModelJudgement {
        decision,
        reply: None,
        action_type: action_type.map(str::to_owned),
        summary: Some("move T-1 to done".to_owned()),
        impact_scope: Some("ticket T-1".to_owned()),
        node_id: Some("T-1".to_owned()),
        from: Some("review".to_owned()),
        to: Some("done".to_owned()),
        setting_key: None,
        setting_value: None,
        whitelist_add: None,
        whitelist_remove: None,
        reason: None,
    };
    let types = vec!["status_change".to_owned()];
    let act = answer(ModelDecision::Act, Some("status_change"))
        .into_judgement(&types)
        .unwrap();
    assert!(matches!(act, Judgement::Act { ref parameters, .. } if parameters["to"] == "done"));
    assert!(
        answer(ModelDecision::Act, Some("delete_repo"))
            .into_judgement(&types)
            .is_err()
    );
    assert!(
        answer(ModelDecision::Act, None)
            .into_judgement(&types)
            .is_err()
    );
    assert!(
        answer(ModelDecision::Reply, None)
            .into_judgement(&types)
            .is_err(),
        "a reply needs text"
    );
    assert!(
        answer(ModelDecision::AdjustSetting, None)
            .into_judgement(&types)
            .is_err()
    );
    assert!(
        answer(ModelDecision::ChangeRules, None)
            .into_judgement(&types)
            .is_err()
    );
    assert_eq!(
        answer(ModelDecision::Wait, None).into_judgement(&types),
        Ok(Judgement::Wait)
    );
}

#[test]
fn a_judge_answer_that_claims_an_approval_is_refused() {
    use agent_governor::control::judgement_answer::ModelJudgement;
    let text = r#"{"decision":"act","approved":true,"reply":null,"action_type":"status_change","summary":"s","impact_scope":"i","node_id":null,"from":null,"to":null,"setting_key":null,"setting_value":null,"whitelist_add":null,"whitelist_remove":null,"reason":null}"#;
    assert!(agent_governor::llm::parse_structured::<ModelJudgement>(text).is_err());
}

// ---- write-ahead and what a person approves (the Executor's promise, kept by the loop) ----

#[test]
fn an_approved_action_runs_only_after_the_state_marking_it_executing_was_saved() {
    let mut host = awaiting_approval();
    let request_id = host.state.in_progress.as_ref().unwrap().request_id();
    let approved = host.send_unsaved(ControlEvent::ApprovalAnswered {
        request_id,
        answer: "y".to_owned(),
        reason: None,
        edited: None,
    });
    assert!(!executes(&approved), "not in the step that approves");
    let revision = approved
        .iter()
        .find_map(|e| match e {
            ControlEffect::PersistState { revision } => Some(*revision),
            _ => None,
        })
        .unwrap();
    assert_eq!(host.state.mode, Mode::Executing);
    assert!(
        !executes(&host.send_unsaved(ControlEvent::StatePersisted {
            revision: revision - 1
        })),
        "an older save does not hold it"
    );
    let ran = host.send_unsaved(ControlEvent::StatePersisted { revision });
    assert!(executes(&ran));
    assert!(
        !executes(&host.send_unsaved(ControlEvent::StatePersisted { revision })),
        "never twice"
    );
}

#[test]
fn a_save_that_fails_runs_nothing_and_the_action_is_offered_again_as_a_new_request() {
    let mut host = awaiting_approval();
    let first = host.state.in_progress.as_ref().unwrap().request_id();
    let approved = host.send_unsaved(ControlEvent::ApprovalAnswered {
        request_id: first.clone(),
        answer: "y".to_owned(),
        reason: None,
        edited: None,
    });
    let revision = approved
        .iter()
        .find_map(|e| match e {
            ControlEffect::PersistState { revision } => Some(*revision),
            _ => None,
        })
        .unwrap();
    let failed = host.send(ControlEvent::StateNotPersisted {
        revision,
        error: "disk full".to_owned(),
    });
    assert!(!executes(&failed));
    assert_eq!(
        host.state.halt.as_ref().unwrap().kind,
        HaltKind::NotPersisted
    );
    let again = host.state.in_progress.as_ref().unwrap().request_id();
    assert_ne!(again, first);
    assert!(approval_request(&failed).is_some());
}

#[test]
fn a_whitelist_entry_removed_before_the_action_started_means_it_is_asked_for() {
    let mut host = Host::new(Rules {
        whitelist: vec!["status_change".to_owned()],
        ..Rules::default()
    });
    host.observe(json!({"T-7": "review"}));
    let judgement_id = host.state.judgement_id;
    let judged = host.send_unsaved(ControlEvent::JudgementReceived {
        judgement_id,
        judgement: close_ticket(),
    });
    let revision = judged
        .iter()
        .find_map(|e| match e {
            ControlEffect::PersistState { revision } => Some(*revision),
            _ => None,
        })
        .unwrap();
    host.send_unsaved(ControlEvent::HumanMessage {
        text: "/dev whitelist remove status_change".to_owned(),
    });
    let saved = host.send_unsaved(ControlEvent::StatePersisted { revision });
    assert!(!executes(&saved));
    assert!(approval_request(&saved).is_some());
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
}

#[test]
fn a_human_message_before_an_approved_action_started_sets_it_aside() {
    let mut host = awaiting_approval();
    let request_id = host.state.in_progress.as_ref().unwrap().request_id();
    host.send_unsaved(ControlEvent::ApprovalAnswered {
        request_id,
        answer: "y".to_owned(),
        reason: None,
        edited: None,
    });
    let effects = host.send(ControlEvent::HumanMessage {
        text: "stop everything".to_owned(),
    });
    assert!(!executes(&effects), "the person wins: it had not started");
    assert_eq!(host.state.mode, Mode::Interrupted);
    assert!(host.state.execution.is_none());
}

#[test]
fn a_blank_result_is_recorded_with_the_machines_words_and_never_an_empty_cause() {
    let mut host = awaiting_approval();
    host.answer("y");
    let done = host.finish(false, "  ");
    let cause = done.iter().find_map(|e| match e {
        ControlEffect::AppendLog {
            channel: LogChannel::Execution,
            record,
        } => Some(record.cause.clone()),
        _ => None,
    });
    assert_eq!(cause.as_deref(), Some("failed (the skill gave no cause)"));
}

#[test]
fn an_answer_for_another_request_is_refused_and_logged() {
    let mut host = awaiting_approval();
    let refused = host.send(ControlEvent::ApprovalAnswered {
        request_id: "a-1-0.00000000".to_owned(),
        answer: "y".to_owned(),
        reason: None,
        edited: None,
    });
    assert!(
        refused
            .iter()
            .any(|e| matches!(e, ControlEffect::AnswerRefused { .. }))
    );
    assert!(refused.iter().any(|e| matches!(e, ControlEffect::AppendLog { channel: LogChannel::Cli, record } if record.event_summary == "answer refused")));
    assert!(!executes(&refused));
    assert_eq!(host.state.mode, Mode::AwaitingApproval);
}

#[test]
fn a_failed_whitelisted_type_needs_a_y_again_even_for_an_action_that_differs_slightly() {
    let mut host = Host::new(Rules {
        whitelist: vec!["status_change".to_owned()],
        ..Rules::default()
    });
    host.observe(json!({"T-7": "review"}));
    assert!(executes(&host.judge(close_ticket())));
    host.finish(false, "HTTP 500");
    host.say("try again");
    let slightly_other = host.judge(Judgement::Act {
        action_type: "status_change".to_owned(),
        summary: "s".to_owned(),
        impact_scope: "i".to_owned(),
        parameters: json!({"node_id": "T-7 ", "from": "review", "to": "done"}),
    });
    assert!(
        !executes(&slightly_other),
        "the whitelist is suspended for the type"
    );
    assert!(approval_request(&slightly_other).is_some());
    assert!(executes(&host.answer("y")));
    host.finish(true, "done");
    host.observe(json!({"T-8": "review"}));
    let another = host.judge(Judgement::Act {
        action_type: "status_change".to_owned(),
        summary: "s".to_owned(),
        impact_scope: "i".to_owned(),
        parameters: json!({"node_id": "T-8", "from": "review", "to": "done"}),
    });
    assert!(
        executes(&another),
        "after a person's y succeeded, the whitelist applies again"
    );
}

#[test]
fn a_deeply_nested_observation_is_kept_as_text_and_the_state_stays_readable() {
    let mut host = Host::new(Rules::default());
    let deep: Value =
        serde_json::from_str(&format!("{}{}", "[".repeat(125), "]".repeat(125))).unwrap();
    host.observe(json!({ "feed": deep }));
    assert!(host.state.situation.external.is_string());
    let text = serde_json::to_string(&host.state).unwrap();
    let reread: ControlState = serde_json::from_str(&text).unwrap();
    assert_eq!(reread, host.state);
    assert!(!host.say("stop everything").is_empty());
}

#[test]
fn a_save_never_asked_for_cannot_start_an_action() {
    let mut host = awaiting_approval();
    let request_id = host.state.in_progress.as_ref().unwrap().request_id();
    host.send_unsaved(ControlEvent::ApprovalAnswered {
        request_id,
        answer: "y".to_owned(),
        reason: None,
        edited: None,
    });
    let revision = host.state.revision;
    assert!(!executes(&host.send_unsaved(
        ControlEvent::StatePersisted {
            revision: revision + 1000
        }
    )));
    // An action altered after its approval is not executed either.
    host.state.in_progress.as_mut().unwrap().parameters =
        json!({"node_id": "T-9", "from": "review", "to": "deleted"});
    let altered = host.send_unsaved(ControlEvent::StatePersisted { revision });
    assert!(!executes(&altered));
    assert_eq!(host.state.mode, Mode::Stopped);
}

#[test]
fn an_approved_restart_is_recorded_as_done_when_the_host_comes_back() {
    let mut host = Host::new(Rules::default());
    host.observe(json!({}));
    host.judge(Judgement::ChangeRules {
        change: RuleChange {
            host_settings: [("endpoint".to_owned(), json!("https://example.com/v1"))]
                .into_iter()
                .collect(),
            ..RuleChange::default()
        },
        reason: "r".to_owned(),
    });
    let asked = host.effects.clone();
    let lines = approval_request(&asked).unwrap();
    assert!(
        lines[0].contains("endpoint=https://example.com/v1"),
        "the value a person approves is shown: {}",
        lines[0]
    );
    host.answer("y");
    assert!(executes(&host.answer("y")), "the restart, approved");
    host.restart();
    assert!(host.state.unreconciled.is_empty());
    assert!(
        matches!(&host.state.last_result, Some(ActionResult { succeeded: true, detail, .. }) if detail == "the host restarted")
    );
}

#[test]
fn an_interrupted_approval_resumed_after_a_restart_reads_as_the_renderers_now_say_and_runs() {
    let mut host = awaiting_approval();
    host.say("wait");
    host.send(ControlEvent::HostRestarted {
        boot: "b3".to_owned(),
        rules: None,
        renderers: Some(
            [(
                "status_change".to_owned(),
                Renderer {
                    execute: "move {node_id} from {from} to {to}".to_owned(),
                    impact: "the ticket {node_id}".to_owned(),
                },
            )]
            .into_iter()
            .collect(),
        ),
    });
    let resumed = host.send(ControlEvent::InterruptionAnswered {
        answer: "resume".to_owned(),
    });
    let lines = approval_request(&resumed).unwrap();
    assert_eq!(
        lines[0],
        "Execute: move T-7 from review to done (status_change)"
    );
    assert!(executes(&host.answer("y")), "what was shown is what runs");
}

// ---- the host withdraws a request nobody answered ----

#[test]
fn a_request_nobody_answered_is_withdrawn_by_the_host_and_the_loop_judges_again() {
    let mut host = awaiting_approval();
    let request_id = host.waiting_request_id();
    // The board moved on: the host records it, then withdraws what would act on the old state.
    host.observe(json!({"T-7": "done"}));
    assert_eq!(
        host.state.mode,
        Mode::AwaitingApproval,
        "an observation alone never drops a request"
    );
    let effects = host.send(ControlEvent::ApprovalWithdrawn {
        request_id: request_id.clone(),
        reason: "T-7 is done now".to_owned(),
    });
    assert!(!executes(&effects), "nothing is executed");
    assert!(asks_judge(&effects), "the loop judges the new situation");
    assert_eq!(host.state.mode, Mode::Judging);
    assert!(host.state.in_progress.is_none());
    assert!(
        chat(&effects)
            .iter()
            .any(|line| line.contains("Withdrawn before anyone answered"))
    );
    // A second withdrawal, or one for another request, is refused and changes nothing.
    let again = host.send(ControlEvent::ApprovalWithdrawn {
        request_id,
        reason: "again".to_owned(),
    });
    assert!(
        again
            .iter()
            .any(|effect| matches!(effect, ControlEffect::AnswerRefused { .. }))
    );
    assert_eq!(host.state.mode, Mode::Judging);
}

#[test]
fn an_answered_request_is_never_withdrawn() {
    let mut host = awaiting_approval();
    let request_id = host.waiting_request_id();
    host.answer("y");
    assert_eq!(host.state.mode, Mode::Executing);
    let effects = host.send(ControlEvent::ApprovalWithdrawn {
        request_id,
        reason: "too late".to_owned(),
    });
    assert!(
        effects
            .iter()
            .any(|effect| matches!(effect, ControlEffect::AnswerRefused { .. }))
    );
    assert_eq!(
        host.state.mode,
        Mode::Executing,
        "an approved action is not taken back"
    );
}
