//! Developer commands: a human message whose first token is the privileged prefix (`/dev` by default).
//! They override the goal, the task in progress and the rules at once, and every one is logged as
//! privileged.
//!
//! - `/dev goal <text>`: a new goal
//! - `/dev discard`: drop the task in progress (an Apply already running still finishes and is recorded)
//! - `/dev resume`: leave a stop and judge again
//! - `/dev whitelist add <type>` / `/dev whitelist remove <type>`
//! - `/dev prefix <token>`: a new privileged prefix

use super::Machine as StepMachine;
use crate::control::event::{ControlEffect, LogChannel};
use crate::control::state::Mode;
use crate::control::text::one_line;

/// The command after the prefix, when `text`'s first token is exactly `prefix`.
pub fn command(text: &str, prefix: &str) -> Option<String> {
    let trimmed = text.trim_start();
    let first = trimmed.split_whitespace().next()?;
    if first != prefix {
        return None;
    }
    Some(trimmed.get(first.len()..).unwrap_or("").trim().to_owned())
}

pub(super) fn run(machine: &mut StepMachine, command: &str) {
    let mut words = command.split_whitespace();
    let verb = words.next().unwrap_or("");
    let rest: Vec<&str> = words.collect();
    let outcome = match (verb, rest.as_slice()) {
        ("goal", text) if !text.is_empty() => set_goal(machine, &text.join(" ")),
        ("discard", []) => discard(machine),
        ("resume", []) => resume(machine),
        ("whitelist", ["add", action_type]) => whitelist(machine, action_type, true),
        ("whitelist", ["remove", action_type]) => whitelist(machine, action_type, false),
        ("prefix", [token]) => set_prefix(machine, token),
        _ => Err(
            "unknown developer command (goal <text>, discard, resume, whitelist add|remove <type>, prefix <token>)"
                .to_owned(),
        ),
    };
    let line = one_line(command);
    match outcome {
        Ok(done) => {
            machine.log(
                LogChannel::Cli,
                &format!("privileged: {line}"),
                &done,
                "developer override",
            );
            machine.chat(&format!("Developer: {done}."));
        }
        Err(why) => {
            machine.log(
                LogChannel::Cli,
                &format!("privileged: {line}"),
                &why,
                "refused",
            );
            machine.chat(&format!("Developer command refused: {why}."));
        }
    }
    machine.persist();
}

fn set_goal(machine: &mut StepMachine, goal: &str) -> Result<String, String> {
    machine.state_mut().situation.goal = goal.to_owned();
    if machine.state_mut().mode == Mode::Idle {
        machine.judge_now();
    }
    Ok(format!("goal set to \"{}\"", one_line(goal)))
}

fn discard(machine: &mut StepMachine) -> Result<String, String> {
    let running = machine.dispatched();
    let state = machine.state_mut();
    match state.mode {
        Mode::Executing if running => {
            return Err("an action is running; it finishes and is recorded first".to_owned());
        }
        Mode::Judging => {
            let judgement_id = state.judgement_id;
            machine.push(ControlEffect::AbortJudge { judgement_id });
        }
        _ => {}
    }
    let state = machine.state_mut();
    state.in_progress = None;
    state.execution = None;
    state.interrupted = None;
    state.failed = None;
    state.intent = None;
    state.halt = None;
    state.mode = Mode::Idle;
    Ok("task in progress discarded".to_owned())
}

fn resume(machine: &mut StepMachine) -> Result<String, String> {
    if machine.state_mut().mode != Mode::Stopped {
        return Err("the loop is not stopped".to_owned());
    }
    let state = machine.state_mut();
    state.in_progress = None;
    state.failed = None;
    machine.judge_now();
    Ok("resumed".to_owned())
}

fn whitelist(machine: &mut StepMachine, action_type: &str, add: bool) -> Result<String, String> {
    let rules = &mut machine.state_mut().rules;
    if add && action_type.len() > crate::control::bounds::MAX_ENTRY_BYTES {
        return Err(format!(
            "an action type is at most {} bytes",
            crate::control::bounds::MAX_ENTRY_BYTES
        ));
    }
    if add && rules.whitelist.len() >= crate::control::bounds::MAX_WHITELIST_ENTRIES {
        return Err(format!(
            "the whitelist holds at most {} entries",
            crate::control::bounds::MAX_WHITELIST_ENTRIES
        ));
    }
    let shown = crate::control::display::display_identifier(action_type);
    if add {
        if !rules.whitelist.iter().any(|entry| entry == action_type) {
            rules.whitelist.push(action_type.to_owned());
        }
    } else {
        rules.whitelist.retain(|entry| entry != action_type);
    }
    let rules = rules.clone();
    machine.push(ControlEffect::PersistRules { rules });
    Ok(if add {
        format!("{shown} is auto-approved")
    } else {
        format!("{shown} needs approval")
    })
}

fn set_prefix(machine: &mut StepMachine, token: &str) -> Result<String, String> {
    if token.len() > crate::control::bounds::MAX_ENTRY_BYTES {
        return Err(format!(
            "a prefix is at most {} bytes",
            crate::control::bounds::MAX_ENTRY_BYTES
        ));
    }
    let rules = &mut machine.state_mut().rules;
    rules.privileged_prefix = token.to_owned();
    let rules = rules.clone();
    machine.push(ControlEffect::PersistRules { rules });
    Ok(format!(
        "the developer prefix is now {}",
        crate::control::display::display_identifier(token)
    ))
}
