//! Reasoning sections are drafts, not answers. This module finds the part of a model's output that can hold
//! its answer, recognising reasoning the way servers emit it:
//!
//! - `<think>`, `<thinking>`, `<reasoning>` and `<analysis>` blocks (any case, with attributes). When any
//!   block closes, only the text after the last closing tag is the answer (a lone closing tag counts: its
//!   opening tag was in the chat template, as DeepSeek-R1 does); a block opened and never closed means the
//!   output ended while thinking.
//! - Qwen3's thinking-budget stop sentence, which closes reasoning like `</think>`.
//! - Harmony channels (gpt-oss): with their special tokens (`<|channel|>analysis<|message|>...<|end|>`,
//!   `commentary`, `final`) and with the tokens stripped by a server (`analysis...assistantfinal...`). The
//!   last final channel is the answer; analysis and commentary never are.
//! - Chat-template turns left in the text (ChatML, Llama 3, Gemma, `<|user|>`): only the last assistant
//!   turn can hold the answer; an echo of the user or system turn never does.
//! - A host that knows its model's template opens reasoning in the prompt (`startsInReasoning`): everything
//!   before the first closing marker is reasoning, and no closing marker means the output ended inside it.

use super::text_search::{find_ascii_ci, rfind_ascii_ci};

const TAGS: [&str; 8] = [
    "think",
    "thinking",
    "reasoning",
    "analysis",
    "scratchpad",
    "thought",
    "reflection",
    "seed:think",
];
/// Reasoning sections written with other delimiters: Magistral, Kimi, the open-thoughts format.
const OTHER_DELIMITERS: [(&str, &str); 3] = [
    ("[THINK]", "[/THINK]"),
    ("\u{25c1}think\u{25b7}", "\u{25c1}/think\u{25b7}"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
];
/// Ollama's command line prints reasoning between these, at the start of the output.
const OLLAMA_THINKING: (&str, &str) = ("Thinking...", "...done thinking.");
/// The sentence Qwen3 writes when its thinking budget runs out, right before it closes reasoning.
const QWEN_BUDGET_STOP: &str = "Considering the limited time by the user, I have to give the solution based on the thinking directly now.";

/// What is left to read an answer from, and what the reasoning markers said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visible {
    pub text: String,
    /// The output ends inside a reasoning section: the model was cut off before it answered.
    pub ends_in_reasoning: bool,
    /// Where the final part comes from (a closing reasoning marker or a final channel), when one was marked.
    pub final_marker: Option<&'static str>,
    /// What the output went on to write after the assistant's turn ended (other turns, markers removed).
    pub after_turn: String,
}

/// The part of `text` that can hold the answer.
pub fn visible_answer(text: &str, starts_in_reasoning: bool) -> Visible {
    let may_hold = may_hold_a_marker(text) || text.contains(QWEN_BUDGET_STOP);
    // A closed reasoning block comes first: whatever it quotes (a channel, a turn, a final marker) is
    // reasoning, and only the text after it is read by the steps below.
    let (text, first_close) = if may_hold {
        after_last_close(text)
    } else {
        (text, None)
    };
    if let Some(visible) = harmony(text)
        .or_else(|| stripped_harmony(text))
        .or_else(|| ollama_thinking(text))
    {
        return visible;
    }
    if !may_hold && !starts_in_reasoning {
        return Visible {
            text: text.to_owned(),
            ends_in_reasoning: false,
            final_marker: None,
            after_turn: String::new(),
        };
    }
    let turn = assistant_turn(text);
    let (text, after_turn) = match &turn {
        Some((answer, later)) => (answer.as_str(), later.clone()),
        None => (text, String::new()),
    };
    let (text, closed) = after_last_close(text);
    let closed = closed.or(first_close);
    if let Some(open) = first_open(text) {
        return Visible {
            text: text.get(..open).unwrap_or_default().to_owned(),
            ends_in_reasoning: true,
            final_marker: closed,
            after_turn: String::new(),
        };
    }
    if starts_in_reasoning && closed.is_none() {
        return Visible {
            text: String::new(),
            ends_in_reasoning: true,
            final_marker: None,
            after_turn: String::new(),
        };
    }
    Visible {
        text: text.to_owned(),
        ends_in_reasoning: false,
        final_marker: closed,
        after_turn,
    }
}

/// The text after the last closing reasoning marker, and which marker it was.
fn after_last_close(text: &str) -> (&str, Option<&'static str>) {
    let mut last: Option<(usize, &'static str)> = None;
    let mut consider = |end: usize, marker: &'static str| {
        if last.is_none_or(|(best, _)| end > best) {
            last = Some((end, marker));
        }
    };
    for tag in TAGS {
        // A lone closing tag (its opening in the prompt) is DeepSeek-R1's `</think>`; any other closing tag
        // counts only after its opening tag.
        let opened = tag == "think" || find_open(text, tag, 0).is_some();
        if !opened {
            continue;
        }
        let closing = format!("</{tag}");
        let mut scope = text;
        while let Some(at) = rfind_ascii_ci(scope, &closing) {
            scope = text.get(..at).unwrap_or_default();
            // `</think>`, also with white space before the `>`.
            let rest = text.get(at + closing.len()..).unwrap_or_default();
            let trimmed = rest.trim_start();
            if !trimmed.starts_with('>') {
                continue;
            }
            let end = at + closing.len() + (rest.len() - trimmed.len()) + 1;
            if quoted(text, at, end) {
                continue;
            }
            consider(end, "a closing reasoning tag");
            break;
        }
    }
    for (_, closing) in OTHER_DELIMITERS {
        if let Some(at) = rfind_ascii_ci(text, closing) {
            consider(at + closing.len(), "a closing reasoning marker");
        }
    }
    if let Some(at) = text.rfind(QWEN_BUDGET_STOP) {
        consider(at + QWEN_BUDGET_STOP.len(), "the thinking-budget stop");
    }
    match last {
        Some((end, marker)) => (text.get(end..).unwrap_or_default(), Some(marker)),
        None => (text, None),
    }
}

/// Where the first opening reasoning tag (`<think>`, `<think attr>`) starts.
fn first_open(text: &str) -> Option<usize> {
    let tags = TAGS.iter().filter_map(|tag| find_open(text, tag, 0));
    let others = OTHER_DELIMITERS
        .iter()
        .filter_map(|(open, _)| find_ascii_ci(text, open, 0));
    tags.chain(others).min()
}

fn find_open(text: &str, tag: &str, from: usize) -> Option<usize> {
    let mut search = from;
    loop {
        let start = find_ascii_ci(text, &format!("<{tag}"), search)?;
        let after = start + tag.len() + 1;
        match text.as_bytes().get(after) {
            Some(b'>') if quoted(text, start, after + 1) => search = after,
            Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') => return Some(start),
            _ => search = after,
        }
    }
}

/// A tag written as a whole JSON string (`"<reasoning>"`, a template's placeholder) is not a marker.
fn quoted(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    start
        .checked_sub(1)
        .and_then(|before| bytes.get(before))
        .is_some_and(|&byte| byte == b'"')
        && bytes.get(end).is_some_and(|&byte| byte == b'"')
}

const HARMONY_CHANNEL: &str = "<|channel|>";
const HARMONY_MESSAGE: &str = "<|message|>";
const HARMONY_ENDS: [&str; 6] = [
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|start|>",
    "<|channel|>",
    "<|endoftext|>",
];

/// Harmony with its special tokens: the last `final` channel's message, or nothing when there is none.
fn harmony(text: &str) -> Option<Visible> {
    let first = text.find(HARMONY_CHANNEL)?;
    let mut cursor = first;
    let mut final_body: Option<&str> = None;
    let mut final_end = text.len();
    let mut ended_open = false;
    while let Some(at) = text
        .get(cursor..)
        .and_then(|rest| rest.find(HARMONY_CHANNEL))
    {
        let header = cursor + at + HARMONY_CHANNEL.len();
        let Some(message) = text
            .get(header..)
            .and_then(|rest| rest.find(HARMONY_MESSAGE))
        else {
            // A channel header never finished: cut off before the message started.
            ended_open = true;
            break;
        };
        let name = text.get(header..header + message).unwrap_or_default();
        let body = header + message + HARMONY_MESSAGE.len();
        let end = next_harmony_end(text, body);
        let channel = name.split_whitespace().next().unwrap_or_default();
        if channel.eq_ignore_ascii_case("final") {
            final_body = text.get(body..end.unwrap_or(text.len()));
            final_end = end.unwrap_or(text.len());
        }
        match end {
            Some(end) => cursor = end,
            None => {
                ended_open = !channel.eq_ignore_ascii_case("final");
                break;
            }
        }
    }
    // Text written after the final message, outside any channel, is read with it: an answer there is
    // another answer, never silently dropped.
    let trailing = text.get(final_end..).unwrap_or_default();
    let trailing = if trailing.contains(HARMONY_CHANNEL) {
        String::new()
    } else {
        HARMONY_ENDS
            .iter()
            .fold(trailing.to_owned(), |rest, token| rest.replace(token, " "))
    };
    Some(match final_body {
        Some(body) if !ended_open => Visible {
            text: format!("{body}\n{trailing}"),
            ends_in_reasoning: false,
            final_marker: Some("the final channel"),
            after_turn: String::new(),
        },
        _ => Visible {
            text: String::new(),
            ends_in_reasoning: ended_open,
            final_marker: None,
            after_turn: String::new(),
        },
    })
}

/// Where the message starting at `from` ends: the next special token that ends one. One forward scan.
fn next_harmony_end(text: &str, from: usize) -> Option<usize> {
    let mut cursor = from;
    loop {
        let at = cursor + text.get(cursor..)?.find("<|")?;
        let rest = text.get(at..).unwrap_or_default();
        if HARMONY_ENDS.iter().any(|marker| rest.starts_with(marker)) {
            return Some(at);
        }
        cursor = at + 2;
    }
}

/// Harmony with the special tokens stripped by a server: `analysis<reasoning>assistantfinal<answer>`.
fn stripped_harmony(text: &str) -> Option<Visible> {
    const FINAL: &str = "assistantfinal";
    let trimmed = text.trim_start();
    // A server that strips the tokens leaves the channel names glued to the text: an output that starts
    // with one is reasoning until `assistantfinal`.
    let starts_with_analysis = trimmed.starts_with("analysis") || trimmed.starts_with("commentary");
    match text.rfind(FINAL) {
        Some(at) => Some(Visible {
            text: text.get(at + FINAL.len()..).unwrap_or_default().to_owned(),
            ends_in_reasoning: false,
            final_marker: Some("the final channel"),
            after_turn: String::new(),
        }),
        None if starts_with_analysis => Some(Visible {
            text: String::new(),
            ends_in_reasoning: true,
            final_marker: None,
            after_turn: String::new(),
        }),
        None => None,
    }
}

/// Ollama's `Thinking...` block at the start of the output: the answer is what follows `...done thinking.`.
fn ollama_thinking(text: &str) -> Option<Visible> {
    let (open, close) = OLLAMA_THINKING;
    if !text.trim_start().starts_with(open) {
        return None;
    }
    Some(match text.rfind(close) {
        Some(at) => Visible {
            text: text.get(at + close.len()..).unwrap_or_default().to_owned(),
            ends_in_reasoning: false,
            final_marker: Some("the end of the thinking block"),
            after_turn: String::new(),
        },
        None => Visible {
            text: String::new(),
            ends_in_reasoning: true,
            final_marker: None,
            after_turn: String::new(),
        },
    })
}

/// Chat-template turn markers: where a turn starts (followed by its role), and the tokens that end one.
const TURN_STARTS: [(&str, &str); 4] = [
    ("<|im_start|>", "\n"),
    ("<|start_header_id|>", "<|end_header_id|>"),
    ("<start_of_turn>", "\n"),
    ("<|start_of_role|>", "<|end_of_role|>"),
];
const TURN_ENDS: [&str; 16] = [
    "<|im_end|>",
    "<|eot_id|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|im_start|>",
    "<|start_header_id|>",
    "<|start_of_role|>",
    "<|end_of_role|>",
    "<|end|>",
    "<|user|>",
    "<|system|>",
    "<\u{ff5c}end\u{2581}of\u{2581}sentence\u{ff5c}>",
    "<\u{ff5c}User\u{ff5c}>",
    "[INST]",
    "</s>",
];
/// Role tokens that start a turn by themselves (Phi, Zephyr, DeepSeek, Mistral's `[/INST]`).
const ROLE_TOKENS: [(&str, bool); 7] = [
    ("<|assistant|>", true),
    ("<|user|>", false),
    ("<|system|>", false),
    ("<\u{ff5c}Assistant\u{ff5c}>", true),
    ("<\u{ff5c}User\u{ff5c}>", false),
    ("[/INST]", true),
    ("[INST]", false),
];

/// The first assistant turn's text when the output holds chat-template turns, and the text of every turn
/// after it (markers removed): the model's answer is the turn it wrote first; a user turn and a second
/// answer it goes on to invent are never read in its place. An output that starts inside the assistant's
/// turn (its text ends with an end-of-turn token before any turn starts) is that turn. With no assistant
/// turn, the text before the first turn (an echo of the prompt is never an answer). `None` without turns.
fn assistant_turn(text: &str) -> Option<(String, String)> {
    let mut turns: Vec<(usize, usize, bool)> = Vec::new();
    for (start, role_end) in TURN_STARTS {
        let mut cursor = 0;
        while let Some(at) = text.get(cursor..).and_then(|rest| rest.find(start)) {
            let role_from = cursor + at + start.len();
            let rest = text.get(role_from..).unwrap_or_default();
            let role_len = rest.find(role_end).unwrap_or(rest.len());
            let role = rest.get(..role_len).unwrap_or_default().trim();
            let body = (role_from + role_len + role_end.len()).min(text.len());
            let assistant =
                role.eq_ignore_ascii_case("assistant") || role.eq_ignore_ascii_case("model");
            turns.push((cursor + at, body, assistant));
            cursor = body.max(role_from);
        }
    }
    let instructed = text.contains("[INST]");
    for (token, assistant) in ROLE_TOKENS {
        let mut cursor = 0;
        while let Some(at) = text.get(cursor..).and_then(|rest| rest.find(token)) {
            let start = cursor + at;
            let body = start + token.len();
            cursor = body;
            // A role token in the middle of prose is prose; `[/INST]` closes an `[INST]` only.
            let before = text
                .get(..start)
                .and_then(|head| head.trim_end_matches([' ', '\t']).chars().next_back());
            let placed = before.is_none_or(|c| matches!(c, '\n' | '>' | ']'));
            let paired = token != "[/INST]" || instructed;
            if (placed || token.starts_with('[')) && paired {
                turns.push((start, body, assistant));
            }
        }
    }
    if turns.is_empty() {
        // Only end-of-turn tokens: the answer is the text before the first, the rest was written after the
        // turn ended.
        let end = TURN_ENDS
            .iter()
            .filter_map(|token| text.find(token))
            .min()?;
        let (answer, later) = text.split_at(end);
        return Some((without_turn_ends(answer), without_turn_ends(later)));
    }
    turns.sort_unstable();
    let first_start = turns.first().map_or(0, |&(start, _, _)| start);
    let leading = text.get(..first_start).unwrap_or_default();
    // The output began inside the assistant's turn and ended it: what it wrote after is not its answer.
    let ended_own_turn = TURN_ENDS.iter().any(|token| leading.contains(token))
        && !without_turn_ends(leading).trim().is_empty();
    if ended_own_turn {
        let later = text.get(first_start..).unwrap_or_default();
        return Some((without_turn_ends(leading), without_turn_ends(later)));
    }
    match turns.iter().find(|(_, _, assistant)| *assistant) {
        Some(&(_, body, _)) => {
            let rest = text.get(body..).unwrap_or_default();
            let end = TURN_ENDS
                .iter()
                .filter_map(|token| rest.find(token))
                .chain(
                    turns
                        .iter()
                        .filter(|&&(start, _, _)| start >= body)
                        .map(|&(start, _, _)| start - body),
                )
                .min()
                .unwrap_or(rest.len());
            let (answer, later) = rest.split_at(end.min(rest.len()));
            Some((without_turn_ends(answer), without_turn_ends(later)))
        }
        None => Some((without_turn_ends(leading), String::new())),
    }
}

fn without_turn_ends(text: &str) -> String {
    let mut out = text.to_owned();
    for token in TURN_ENDS {
        out = out.replace(token, "");
    }
    out
}

/// Markers that decide where an answer starts; inside a JSON string they would move that boundary.
const BOUNDARY_MARKERS: [&str; 22] = [
    "<think",
    "</think",
    "<reasoning",
    "</reasoning",
    "<analysis",
    "</analysis",
    "<scratchpad",
    "</scratchpad",
    "<thought",
    "</thought",
    "<reflection",
    "</reflection",
    "<seed:think",
    "[think]",
    "[/think]",
    "\u{25c1}",
    "<|",
    "<\u{ff5c}",
    "[inst]",
    "[/inst]",
    "assistantfinal",
    "considering the limited time by the user",
];

/// The first reasoning, channel, chat-turn or tool-call marker written inside brackets (in a JSON value:
/// an answer's evidence quoting another model's output, say). The markers are read before any JSON is, so
/// one inside a value would move where the answer starts: the caller refuses the text. Whatever the quotes
/// (double, single, smart, none), a marker between `{`/`[` and its close counts; a string that is exactly
/// one tag (`"<reasoning>"`, a template's placeholder) does not.
pub fn marker_inside_string(text: &str) -> Option<&'static str> {
    if !may_hold_a_marker(text) {
        return None;
    }
    // The maximal balanced `{...}`/`[...]` spans (a lone bracket in prose opens none), sorted and disjoint.
    let (spans, _) = super::candidates::balanced_spans(text);
    if spans.is_empty() {
        return None;
    }
    let inside = |at: usize| {
        let after = spans.partition_point(|&(start, _)| start <= at);
        after > 0
            && spans
                .get(after - 1)
                .is_some_and(|&(start, end)| at > start && at < end)
    };
    for (index, &byte) in text.as_bytes().iter().enumerate() {
        if !matches!(byte, b'<' | b'[' | b'a' | b'A' | b'c' | b'C' | 0xE2 | 0xEF) || !inside(index)
        {
            continue;
        }
        let rest = text.get(index..).unwrap_or_default();
        let Some(marker) = BOUNDARY_MARKERS
            .iter()
            .chain(["<tool_call>", "[tool_calls]", "<start_of_turn>"].iter())
            .find(|marker| {
                rest.as_bytes()
                    .get(..marker.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(marker.as_bytes()))
            })
        else {
            continue;
        };
        if !whole_quoted_tag(text, index) {
            return Some(marker);
        }
    }
    None
}

/// A tag that is a whole quoted string: `"<reasoning>"`.
fn whole_quoted_tag(text: &str, index: usize) -> bool {
    let before = index.checked_sub(1).and_then(|at| text.as_bytes().get(at));
    let rest = text.get(index..).unwrap_or_default();
    let Some(close) = rest.find('>') else {
        return false;
    };
    matches!(before, Some(b'"' | b'\''))
        && rest
            .as_bytes()
            .get(close + 1)
            .is_some_and(|&byte| byte == b'"' || byte == b'\'')
        && !rest
            .get(1..close)
            .unwrap_or_default()
            .contains(['<', '>', '"', '\''])
}

/// A cheap test that rules out every marker: most answers hold none of their first characters.
pub fn may_hold_a_marker(text: &str) -> bool {
    text.contains('<')
        || text.contains('\u{25c1}')
        || text.contains("assistantfinal")
        || text.contains("onsidering the limited time")
        || text.match_indices('[').any(|(at, _)| {
            let rest = text.get(at..).unwrap_or_default().as_bytes();
            ["[think]", "[/think]", "[inst]", "[/inst]", "[tool_calls]"]
                .iter()
                .any(|marker| {
                    rest.get(..marker.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(marker.as_bytes()))
                })
        })
}
