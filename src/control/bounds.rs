//! The state's size, in bytes, bounded by the core on what it keeps: observations, instructions and the
//! goal are cut, the oldest past results, reversals and failure digests are dropped first. A state is never
//! refused for its size (seed 002: a human's instruction always comes first, so the loop must always be
//! able to take one); what does not fit is trimmed.
//!
//! The budgets add up to less than [`MAX_STATE_BYTES`] for any state the step can reach.

use super::state::ControlState;
use serde::Serialize;
use serde_json::Value;

/// The most bytes a serialised state takes (the step keeps it below this whatever it is fed).
pub const MAX_STATE_BYTES: usize = 512 * 1024;
/// The goal, in bytes.
pub const MAX_GOAL_BYTES: usize = 4 * 1024;
/// A human's instruction (and a message held while an Apply runs), in bytes.
pub const MAX_INSTRUCTION_BYTES: usize = 16 * 1024;
/// Each observation (`external`, `internal`) as JSON, in bytes.
pub const MAX_OBSERVATION_BYTES: usize = 64 * 1024;
/// The most bytes of past results a loop may be set to keep.
pub const MAX_MEMORY_LIMIT_BYTES: usize = 128 * 1024;
/// The most past results a loop may be set to keep.
pub const MAX_MEMORY_LIMIT: usize = 1000;
/// Self-modifications that can still be reverted (the oldest become permanent first).
pub const MAX_REVERSALS: usize = 32;
/// Digests of failed actions remembered (each blocks an automatic re-run).
pub const MAX_FAILED_DIGESTS: usize = 256;
/// Actions with an unknown outcome kept for a person; at this many, nothing new executes.
pub const MAX_UNRECONCILED: usize = 8;
/// People's replies kept until the judge reads them (the oldest go first).
pub const MAX_UNREAD_REPLIES: usize = 32;
/// Declines remembered (their words read by the judge, their changes not asked for again), newest kept.
pub const MAX_DECLINED: usize = 16;
/// Whitelist entries, and the length of one in bytes.
pub const MAX_WHITELIST_ENTRIES: usize = 256;
pub const MAX_ENTRY_BYTES: usize = 128;
/// Host settings approved through rule changes, as JSON, in bytes.
pub const MAX_HOST_SETTINGS_BYTES: usize = 16 * 1024;
/// Agent settings (self-modification's values), as JSON, in bytes.
pub const MAX_SETTINGS_BYTES: usize = 32 * 1024;

/// Why a set of rules cannot be kept: the field (`whitelist[2]`, `privilegedPrefix`, `host_settings`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesProblem {
    pub field: String,
    pub message: String,
}

/// Rules the loop can keep, wherever they come from (a host's setup, a restart, an approved change):
/// whitelist entries of bounded number and size, one privileged token, host settings bounded in size and
/// depth.
pub fn check_rules(rules: &super::state::Rules) -> Result<(), RulesProblem> {
    let problem = |field: String, message: String| Err(RulesProblem { field, message });
    if rules.whitelist.len() > MAX_WHITELIST_ENTRIES {
        return problem(
            "whitelist".to_owned(),
            format!("holds at most {MAX_WHITELIST_ENTRIES} entries"),
        );
    }
    for (index, entry) in rules.whitelist.iter().enumerate() {
        if entry.trim().is_empty() || entry.len() > MAX_ENTRY_BYTES {
            return problem(
                format!("whitelist[{index}]"),
                format!("must be 1 to {MAX_ENTRY_BYTES} bytes"),
            );
        }
    }
    let prefix = &rules.privileged_prefix;
    if prefix.is_empty() || prefix.len() > MAX_ENTRY_BYTES || prefix.contains(char::is_whitespace) {
        return problem(
            "privilegedPrefix".to_owned(),
            "must be one token (no spaces)".to_owned(),
        );
    }
    let depth = super::render::MAX_PARAMETER_DEPTH;
    if rules
        .host_settings
        .values()
        .any(|value| super::render::json_depth(value) > depth)
    {
        return problem(
            "host_settings".to_owned(),
            format!("a value nests deeper than {depth} levels"),
        );
    }
    if json_bytes(&rules.host_settings) > MAX_HOST_SETTINGS_BYTES {
        return problem(
            "host_settings".to_owned(),
            format!("at most {MAX_HOST_SETTINGS_BYTES} bytes as JSON"),
        );
    }
    Ok(())
}

/// The size of `value` as JSON, in bytes. (Written out with the one serializer the module already
/// instantiates for every type: a counting writer would compile a second copy of all of them.)
pub fn json_bytes<T: Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |bytes| bytes.len())
}

/// `text` cut to at most `max` bytes at a character boundary, marked when cut.
pub fn cut_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let marker = format!(" … (cut: {} bytes, {max} kept)", text.len());
    let mut end = max.saturating_sub(marker.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{marker}", text.get(..end).unwrap_or(""))
}

/// The deepest observation kept as data; a deeper one is kept as its JSON text (the state it sits in must
/// stay readable by every JSON reader, whose nesting limits start at 128).
pub const MAX_OBSERVATION_DEPTH: usize = 32;

/// An observation kept as it is when it fits; otherwise the start of its JSON as text, marked as cut.
pub fn bounded_observation(value: &Value) -> Value {
    let deep = super::render::json_depth(value) > MAX_OBSERVATION_DEPTH;
    if !deep && json_bytes(value) <= MAX_OBSERVATION_BYTES {
        return value.clone();
    }
    let text = match value {
        Value::String(text) => text.clone(),
        other => crate::input::to_json_string(other),
    };
    // A string's JSON escapes can double its size: keep half the budget of raw text.
    let mut kept = if text.len() > MAX_OBSERVATION_BYTES / 2 {
        cut_bytes(&text, MAX_OBSERVATION_BYTES / 2)
    } else {
        text
    };
    while json_bytes(&kept) > MAX_OBSERVATION_BYTES {
        kept = cut_bytes(&kept, kept.len() / 2);
    }
    Value::String(kept)
}

/// Keeps `result` as the state's last result and in its memory, dropping the oldest beyond the limits.
pub fn remember(state: &mut ControlState, result: super::state::ActionResult) {
    state.memory.push_back(result.clone());
    state.last_result = Some(result);
    trim_memory(state);
}

/// Drops the oldest past results beyond the count and byte limits (the newest is always kept).
pub fn trim_memory(state: &mut ControlState) {
    let count = state.memory_limit.clamp(1, MAX_MEMORY_LIMIT);
    while state.memory.len() > count {
        state.memory.pop_front();
    }
    let limit = state.memory_limit_bytes.clamp(1024, MAX_MEMORY_LIMIT_BYTES);
    // Newest first: keep results while they fit (the newest always), drop everything older.
    let mut total = 0usize;
    let mut keep = 0usize;
    for result in state.memory.iter().rev() {
        total = total.saturating_add(json_bytes(result));
        if total > limit && keep > 0 {
            break;
        }
        keep += 1;
    }
    let drop = state.memory.len() - keep;
    state.memory.drain(..drop);
    if total > limit && keep == 1 && json_bytes(&state.memory) > limit {
        // A single result larger than the budget (only a state altered outside the loop has one).
        state.memory.clear();
    }
}

fn bound_text(text: &mut String, max: usize) {
    if text.len() > max {
        *text = cut_bytes(text, max);
    }
}

/// The cheap checks the step makes after every event (lengths only; observations are bounded when they
/// arrive), so what it returns always fits in [`MAX_STATE_BYTES`].
pub fn fit(state: &mut ControlState) {
    let situation = &mut state.situation;
    bound_text(&mut situation.goal, MAX_GOAL_BYTES);
    if let Some(instruction) = situation.instruction.as_mut() {
        bound_text(instruction, MAX_INSTRUCTION_BYTES);
    }
    if let Some(message) = state.interrupt_after_execution.as_mut() {
        bound_text(message, MAX_INSTRUCTION_BYTES);
    }
    if state.memory.len() > state.memory_limit.clamp(1, MAX_MEMORY_LIMIT) {
        trim_memory(state);
    }
    while state.reversals.len() > MAX_REVERSALS {
        state.reversals.remove(0);
    }
    while state.failed_digests.len() > MAX_FAILED_DIGESTS {
        state.failed_digests.pop_front();
    }
    // Unread replies: at most MAX_UNREAD_REPLIES, sharing the instruction's bound; the oldest go first.
    if state.unread_replies.len() > MAX_UNREAD_REPLIES {
        let extra = state.unread_replies.len() - MAX_UNREAD_REPLIES;
        state.unread_replies.drain(..extra);
    }
    while state.unread_replies.len() > 1
        && state.unread_replies.iter().map(String::len).sum::<usize>() > MAX_INSTRUCTION_BYTES
    {
        state.unread_replies.remove(0);
    }
    for reply in &mut state.unread_replies {
        bound_text(reply, MAX_INSTRUCTION_BYTES);
    }
    while state.declined.len() > MAX_DECLINED {
        state.declined.pop_front();
    }
    // A decline's texts are one line each (`one_line` cuts them); a loaded state is cut the same way.
    for declined in &mut state.declined {
        for text in [Some(&mut declined.what), declined.reason.as_mut()]
            .into_iter()
            .flatten()
        {
            if text.chars().count() > super::text::MAX_LINE_CHARS || text.contains('\n') {
                *text = super::text::one_line(text);
            }
        }
    }
    state.rules.whitelist.truncate(MAX_WHITELIST_ENTRIES);
    state.suspended_types.truncate(MAX_WHITELIST_ENTRIES);
}

/// The full check, for a state from outside the step (a host's saved state): everything [`fit`] does, the
/// memory measured in bytes, and, should the state still be too large, the oldest results dropped.
pub fn fit_loaded(state: &mut ControlState) {
    fit(state);
    // The loop never keeps more (it executes nothing new at this many); only an altered state has more.
    state.unreconciled.truncate(MAX_UNRECONCILED);
    let situation = &mut state.situation;
    for observed in [&mut situation.external, &mut situation.internal] {
        let bounded = bounded_observation(observed);
        *observed = bounded;
    }
    trim_memory(state);
    while json_bytes(state) > MAX_STATE_BYTES && !state.memory.is_empty() {
        state.memory.pop_front();
    }
    if json_bytes(state) > MAX_STATE_BYTES {
        state.reversals.clear();
        state.failed_digests.clear();
        state.last_result = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_keeps_whole_characters() {
        let text = "日本語".repeat(100);
        let cut = cut_bytes(&text, 100);
        assert!(cut.len() <= 100, "{}", cut.len());
        assert!(cut.starts_with("日本"));
        assert_eq!(cut_bytes("short", 100), "short");
    }

    #[test]
    fn a_huge_observation_is_kept_cut() {
        let value = serde_json::json!({ "text": "é".repeat(200_000) });
        let bounded = bounded_observation(&value);
        assert!(json_bytes(&bounded) <= MAX_OBSERVATION_BYTES);
        assert!(bounded.as_str().is_some_and(|text| text.contains("(cut:")));
    }
}
