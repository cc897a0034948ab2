//! Every place in a model's text that may hold its JSON answer, in text order: fenced blocks, answer tags,
//! and the maximal balanced `{...}` / `[...]` spans in the prose. A brace that never closes does not stop
//! the search: the spans after it are still found. The whole text is the only candidate when it is a JSON
//! string (an answer encoded twice). Candidates inside `<answer>`, `<json>`, `<output>` or after a "final
//! answer" marker are marked preferred.
//!
//! One pass over the bytes with a stack of open brackets (strings inside brackets respected), so the work
//! is linear in the text; a bounded number of rescans handles a lone bracket that swallowed the rest.

use super::reasoning::find_ascii_ci;

/// A span of the text that may hold the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate<'a> {
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
    /// Inside an answer tag or after a "final answer" marker.
    pub preferred: bool,
}

/// The candidates, and where a bracket opened after all of them never closes (a truncated answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<'a> {
    pub candidates: Vec<Candidate<'a>>,
    pub truncated_at: Option<usize>,
}

const ANSWER_TAGS: [&str; 4] = ["answer", "json", "output", "final_answer"];
const FINAL_MARKER: &str = "final answer";
/// How many times the scan restarts after a bracket that never closed.
const MAX_RESCANS: usize = 8;

pub fn find_candidates(text: &str) -> Found<'_> {
    // The whole answer encoded as one JSON string: its brackets are inside the string, not in prose.
    let trimmed = text.trim();
    if trimmed.starts_with('"')
        && super::strict_json::parse_strict(trimmed).is_ok_and(|value| value.is_string())
    {
        let start = text.len() - text.trim_start().len();
        return Found {
            candidates: vec![Candidate {
                start,
                end: start + trimmed.len(),
                text: trimmed,
                preferred: false,
            }],
            truncated_at: None,
        };
    }
    let preferred = preferred_regions(text);
    let is_preferred = |start: usize| {
        preferred
            .iter()
            .any(|(from, to)| start >= *from && start < *to)
    };
    let mut spans = fenced_blocks(text);
    let (balanced, unclosed) = balanced_spans(text);
    spans.extend(balanced);
    spans.sort_unstable();
    spans.dedup();
    let candidates: Vec<Candidate<'_>> = spans
        .into_iter()
        .filter_map(|(start, end)| {
            let body = text.get(start..end)?;
            let inner = body.trim();
            (!inner.is_empty()).then(|| Candidate {
                start,
                end,
                text: inner,
                preferred: is_preferred(start),
            })
        })
        .collect();
    // A bracket that opens a JSON value and never closes: whatever balanced spans lie inside it or after
    // it, the answer was cut off.
    let truncated_at = unclosed
        .into_iter()
        .find(|&open| looks_like_json_start(text, open));
    Found {
        candidates,
        truncated_at,
    }
}

/// A bracket followed by what a JSON value starts with (a quote, a bracket or a key), not by prose.
fn looks_like_json_start(text: &str, open: usize) -> bool {
    let rest = text.get(open + 1..).unwrap_or_default().trim_start();
    matches!(
        rest.chars().next(),
        Some('"' | '\'' | '{' | '[' | '}' | ']' | '“')
    ) || rest.split_once(':').is_some_and(|(key, _)| {
        !key.is_empty() && key.len() < 40 && !key.contains(char::is_whitespace)
    })
}

/// Byte ranges inside answer tags, and after the last "final answer" marker.
fn preferred_regions(text: &str) -> Vec<(usize, usize)> {
    let mut regions = Vec::new();
    for tag in ANSWER_TAGS {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        let mut cursor = 0;
        while let Some(start) = find_ascii_ci(text, &open, cursor) {
            let body = start + open.len();
            let end = find_ascii_ci(text, &close, body).unwrap_or(text.len());
            regions.push((body, end));
            cursor = end;
        }
    }
    let mut last_marker = None;
    let mut cursor = 0;
    while let Some(found) = find_ascii_ci(text, FINAL_MARKER, cursor) {
        last_marker = Some(found);
        cursor = found + FINAL_MARKER.len();
    }
    if let Some(marker) = last_marker {
        regions.push((marker, text.len()));
    }
    regions
}

/// Contents of ``` fences (with or without a language tag), as byte ranges.
fn fenced_blocks(text: &str) -> Vec<(usize, usize)> {
    let mut blocks = Vec::new();
    let mut cursor = 0;
    while let Some(open) = text.get(cursor..).and_then(|rest| rest.find("```")) {
        let after_open = cursor + open + 3;
        let Some(rest) = text.get(after_open..) else {
            break;
        };
        let body = after_open + rest.find('\n').map_or(rest.len(), |newline| newline + 1);
        let Some(close) = text.get(body..).and_then(|rest| rest.find("```")) else {
            break;
        };
        blocks.push((body, body + close));
        cursor = body + close + 3;
    }
    blocks
}

/// The maximal balanced bracket spans, and the brackets that never close (outermost first).
fn balanced_spans(text: &str) -> (Vec<(usize, usize)>, Vec<usize>) {
    let mut spans = Vec::new();
    let mut from = 0;
    let mut unclosed = Vec::new();
    for _ in 0..=MAX_RESCANS {
        let (found, still_open) = scan(text, from);
        spans.extend(found);
        match still_open {
            Some(open) => {
                unclosed.push(open);
                from = open + 1;
            }
            None => break,
        }
    }
    // Keep the outermost spans: sorted by start (longest first), drop those inside a kept one.
    spans.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut maximal: Vec<(usize, usize)> = Vec::new();
    for span in spans {
        if maximal.last().is_none_or(|last| span.0 >= last.1) {
            maximal.push(span);
        }
    }
    (maximal, unclosed)
}

/// One pass from `from`: the balanced spans closed, and the outermost bracket left open at the end.
fn scan(text: &str, from: usize) -> (Vec<(usize, usize)>, Option<usize>) {
    let bytes = text.as_bytes();
    let mut stack: Vec<(usize, u8)> = Vec::new();
    let mut spans = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (index, &byte) in bytes.iter().enumerate().skip(from) {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' if !stack.is_empty() => in_string = true,
            b'{' | b'[' => stack.push((index, byte)),
            b'}' | b']' => {
                let opener = if byte == b'}' { b'{' } else { b'[' };
                match stack.last() {
                    Some(&(open, kind)) if kind == opener => {
                        stack.pop();
                        spans.push((open, index + 1));
                    }
                    // A close that does not match: the brackets so far were prose; start over.
                    Some(_) => stack.clear(),
                    None => {}
                }
            }
            _ => {}
        }
    }
    (spans, stack.first().map(|&(open, _)| open))
}
