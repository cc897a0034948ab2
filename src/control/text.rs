//! The loop's texts for humans: the two-line approval request, short chat reports, and answers read
//! leniently in form (case, surrounding space) but never in meaning (anything else asks again).

use super::state::{Action, RuleChange};

/// The longest line the loop writes to the chat or into an approval request, in characters.
pub const MAX_LINE_CHARS: usize = 240;

/// Every run of whitespace (newlines included) as one space, trimmed.
pub fn fold_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One line a person reads: newlines folded into spaces, trimmed, invisible controls made visible
/// ([`super::display::display_safe`]), at most [`MAX_LINE_CHARS`] characters.
pub fn one_line(text: &str) -> String {
    let folded = super::display::display_safe(&fold_whitespace(text));
    if folded.chars().count() <= MAX_LINE_CHARS {
        return folded;
    }
    let mut cut: String = folded.chars().take(MAX_LINE_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// A human's answer to an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YesNo {
    Yes,
    No,
}

/// `y` or `n`, in any case and with surrounding space; anything else (`yes`, `ok`, empty) is `None`.
pub fn read_yes_no(answer: &str) -> Option<YesNo> {
    match answer.trim() {
        "y" | "Y" => Some(YesNo::Yes),
        "n" | "N" => Some(YesNo::No),
        _ => None,
    }
}

/// A human's answer to "resume or discard?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResumeOrDiscard {
    Resume,
    Discard,
}

/// `resume` or `discard` (case and surrounding space tolerated); anything else is `None`.
pub fn read_resume_or_discard(answer: &str) -> Option<ResumeOrDiscard> {
    match answer.trim().to_lowercase().as_str() {
        "resume" => Some(ResumeOrDiscard::Resume),
        "discard" => Some(ResumeOrDiscard::Discard),
        _ => None,
    }
}

/// What a rule change does, in one line.
pub fn describe_rule_change(change: &RuleChange) -> String {
    let mut parts = Vec::new();
    let shown = |entries: &[String]| {
        entries
            .iter()
            .map(|entry| super::display::display_identifier(entry))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !change.whitelist_add.is_empty() {
        parts.push(format!("auto-approve {}", shown(&change.whitelist_add)));
    }
    if !change.whitelist_remove.is_empty() {
        parts.push(format!("ask again for {}", shown(&change.whitelist_remove)));
    }
    if let Some(prefix) = &change.privileged_prefix {
        parts.push(format!(
            "developer prefix {}",
            super::display::display_identifier(prefix)
        ));
    }
    if !change.host_settings.is_empty() {
        let settings: Vec<String> = change
            .host_settings
            .iter()
            .map(|(key, value)| {
                format!(
                    "{}={}",
                    super::display::display_identifier(key),
                    super::render::shown(value)
                )
            })
            .collect();
        parts.push(format!(
            "host settings {} (after a restart)",
            settings.join(", ")
        ));
    }
    if parts.is_empty() {
        "no change".to_owned()
    } else {
        parts.join("; ")
    }
}

/// The chat report of a finished action: what was executed (the machine's line) and its result, short.
/// The chat's line for an action that was not applied because the world had moved on.
pub fn not_applied_report(action: &Action, detail: &str) -> String {
    one_line(&format!(
        "{}: not applied, the world had moved on ({detail}); judging again",
        action.what()
    ))
}

pub fn report(action: &Action, succeeded: bool, detail: &str) -> String {
    let verdict = if succeeded { "done" } else { "FAILED" };
    one_line(&format!("{}: {verdict} ({detail})", action.what()))
}
