//! Reasoning sections are drafts, not answers: they are removed before any JSON is looked for, so a
//! `{"allComplete": true}` a model considered while thinking can never be read as its answer.
//!
//! Removed: `<think>`, `<thinking>`, `<reasoning>` and `<analysis>` blocks (any case, with attributes), a
//! block left open at the end (the model stopped while thinking), everything before a closing tag whose
//! opening tag was in the chat template, and harmony-style analysis channels
//! (`<|channel|>analysis<|message|> ... <|end|>`).

const TAGS: [&str; 4] = ["think", "thinking", "reasoning", "analysis"];
const HARMONY_ANALYSIS: &str = "<|channel|>analysis";
const HARMONY_ENDS: [&str; 3] = ["<|end|>", "<|start|>", "<|channel|>"];

/// The text without its reasoning sections.
pub fn strip_reasoning(text: &str) -> String {
    let mut current = strip_harmony(text);
    for tag in TAGS {
        current = strip_tag(&current, tag);
    }
    current
}

/// Byte index of the first ASCII-case-insensitive match of `needle` (ASCII) at or after `from`.
pub fn find_ascii_ci(haystack: &str, needle: &str, from: usize) -> Option<usize> {
    let bytes = haystack.as_bytes();
    let wanted = needle.as_bytes();
    let first = wanted.first()?;
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let mut start = from;
    loop {
        let rest = bytes.get(start..)?;
        let found = start
            + rest
                .iter()
                .position(|&byte| byte == lower || byte == upper)?;
        let window = bytes.get(found..found + wanted.len())?;
        if window.eq_ignore_ascii_case(wanted) {
            return Some(found);
        }
        start = found + 1;
    }
}

/// Where an opening tag `<tag` (followed by `>` or attributes) starts and ends, at or after `from`.
fn find_open(text: &str, tag: &str, from: usize) -> Option<(usize, usize)> {
    let mut search = from;
    loop {
        let start = find_ascii_ci(text, &format!("<{tag}"), search)?;
        let after = start + tag.len() + 1;
        match text.as_bytes().get(after) {
            Some(b'>') => return Some((start, after + 1)),
            Some(b' ' | b'\t' | b'\n' | b'\r') => {
                let close = text.get(after..)?.find('>')?;
                return Some((start, after + close + 1));
            }
            _ => search = after,
        }
    }
}

fn strip_tag(text: &str, tag: &str) -> String {
    let closing = format!("</{tag}>");
    let mut text = text.to_owned();
    // A closing tag before any opening one: its opening was in the template; all before it is reasoning.
    if let Some(close) = find_ascii_ci(&text, &closing, 0) {
        let opened_before = find_open(&text, tag, 0).is_some_and(|(start, _)| start < close);
        if !opened_before {
            text = text
                .get(close + closing.len()..)
                .unwrap_or_default()
                .to_owned();
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    while let Some((start, body)) = find_open(&text, tag, cursor) {
        out.push_str(text.get(cursor..start).unwrap_or_default());
        match find_ascii_ci(&text, &closing, body) {
            Some(close) => cursor = close + closing.len(),
            // Left open: the model stopped while thinking; nothing after it is an answer.
            None => return out,
        }
    }
    out.push_str(text.get(cursor..).unwrap_or_default());
    out
}

fn strip_harmony(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    while let Some(start) = find_ascii_ci(text, HARMONY_ANALYSIS, cursor) {
        out.push_str(text.get(cursor..start).unwrap_or_default());
        let body = start + HARMONY_ANALYSIS.len();
        let end = HARMONY_ENDS
            .iter()
            .filter_map(|marker| find_ascii_ci(text, marker, body))
            .min();
        match end {
            Some(end) => cursor = end,
            None => return out,
        }
    }
    out.push_str(text.get(cursor..).unwrap_or_default());
    out
}
