//! Every place in a model's text that may hold its JSON answer, in text order: fenced blocks, answer tags,
//! and the maximal balanced `{...}` / `[...]` spans in the prose. A brace that never closes does not stop
//! the search: the spans after it are still found. The whole text is the only candidate when it is a JSON
//! string (an answer encoded twice). [`final_region`] finds the part of the text marked as the final answer
//! (an answer tag, a "Final answer:" label), looking only at markers outside the candidates.
//!
//! One pass over the bytes with a stack of open brackets (strings inside brackets respected), so the work
//! is linear in the text; a bounded number of rescans handles a lone bracket that swallowed the rest.

use super::text_search::find_ascii_ci;

/// A span of the text that may hold the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate<'a> {
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
}

/// The candidates, and the brackets that open a JSON value and never close (a truncated answer), in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<'a> {
    pub candidates: Vec<Candidate<'a>>,
    pub unclosed: Vec<usize>,
    /// More brackets were left open than the scan restarts after: the rest of the text was not read.
    pub exhausted: bool,
    /// Where a JSON value starts whose brackets do not match (`[{...]`): a broken value, not prose.
    pub mismatched: Vec<usize>,
}

const ANSWER_TAGS: [&str; 7] = [
    "answer",
    "json",
    "output",
    "final_answer",
    "result",
    "final",
    "response",
];
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
            }],
            unclosed: Vec::new(),
            exhausted: false,
            mismatched: Vec::new(),
        };
    }
    let mut spans = fenced_blocks(text);
    let (balanced, unclosed, exhausted, mismatched) = balanced_spans_checked(text);
    spans.extend(balanced);
    spans.sort_unstable();
    spans.dedup();
    let candidates: Vec<Candidate<'_>> = spans
        .into_iter()
        .filter_map(|(start, end)| {
            let body = text.get(start..end)?;
            let inner = body.trim();
            (!inner.is_empty()).then_some(Candidate {
                start,
                end,
                text: inner,
            })
        })
        .collect();
    // A bracket that opens a JSON value and never closes: whatever balanced spans lie inside it or after
    // it, the answer was cut off.
    let unclosed = unclosed
        .into_iter()
        .filter(|&open| looks_like_json_start(text, open))
        .collect();
    let mismatched = mismatched
        .into_iter()
        .filter(|&open| looks_like_json_start(text, open))
        .collect();
    Found {
        candidates,
        unclosed,
        exhausted,
        mismatched,
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

/// The part of the text marked as the final answer, and what marked it: the body of the last answer tag
/// (`<answer>`, `<final_answer>`, `<result>`, `<output>`, `<json>`; to the end when left open), or the text
/// after the last "Final answer" label (starting a line, followed by `:`, a dash or a line break), whichever
/// comes later.
/// Markers inside a candidate (a JSON string that mentions them) do not count.
pub fn final_region(
    text: &str,
    candidates: &[Candidate<'_>],
) -> Option<(usize, usize, &'static str)> {
    let covered = covered_ranges(candidates);
    let outside = |at: usize| {
        let after = covered.partition_point(|&(start, _)| start <= at);
        after == 0 || covered.get(after - 1).is_none_or(|&(_, end)| at >= end)
    };
    // The final part is the marked region that reaches furthest; of two that end together, the outer one.
    let mut best: Option<(usize, usize, &'static str)> = None;
    let mut consider = |region: (usize, usize, &'static str)| {
        let better =
            best.is_none_or(|(from, to, _)| region.1 > to || (region.1 == to && region.0 < from));
        if better {
            best = Some(region);
        }
    };
    for tag in ANSWER_TAGS {
        let open = format!("<{tag}");
        // The last opening tag outside the candidates (`<answer>`, `<answer >`, `<answer type="json">`).
        let mut last_open = None;
        let mut cursor = 0;
        while let Some(start) = find_ascii_ci(text, &open, cursor) {
            cursor = start + open.len();
            let rest = text.get(cursor..).unwrap_or_default();
            let body = match rest.as_bytes().first() {
                Some(b'>') => Some(cursor + 1),
                Some(b' ' | b'\t' | b'\n' | b'\r') => {
                    // Attributes are short: the tag's `>` is looked for in its first 256 bytes only.
                    rest.bytes()
                        .take(256)
                        .position(|byte| byte == b'>')
                        .map(|close| cursor + close + 1)
                }
                _ => None,
            };
            if let Some(body) = body.filter(|_| outside(start) && starts_its_line(text, start)) {
                last_open = Some(body);
            }
        }
        let Some(body) = last_open else {
            continue;
        };
        // Its closing tag outside the candidates (a `</answer>` inside the answer's strings is not it).
        let close = format!("</{tag}>");
        let mut from = body;
        let mut end = text.len();
        while let Some(at) = find_ascii_ci(text, &close, from) {
            if outside(at) {
                end = at;
                break;
            }
            from = at + close.len();
        }
        consider((body, end, "an answer tag"));
    }
    let mut cursor = 0;
    while let Some(found) = find_ascii_ci(text, FINAL_MARKER, cursor) {
        let after = found + FINAL_MARKER.len();
        cursor = after;
        if !outside(found) {
            continue;
        }
        let Some(lead) = short_line_lead(text, found) else {
            continue;
        };
        let starts_line = lead.chars().all(|c| {
            matches!(
                c,
                '#' | '*' | '>' | '_' | '-' | ' ' | '\t' | '.' | ')' | '\r'
            ) || c.is_ascii_digit()
        });
        let rest = text.get(after..).unwrap_or_default();
        let label = rest.trim_start_matches(['*', '_', ' ', '\t', ')']);
        let label = label.strip_prefix("is").map_or(label, |after_is| {
            after_is.trim_start_matches(['*', '_', ' '])
        });
        // "Final answer:" after at most three words ("My final answer:", "1. Final answer is:"); a line
        // break or a dash after it only when it starts the line.
        let short_lead = lead.split_whitespace().count() <= 3
            && lead.chars().all(|c| {
                c.is_alphanumeric()
                    || matches!(
                        c,
                        ' ' | '\t' | '#' | '*' | '>' | '_' | '-' | '.' | ')' | '\r'
                    )
            });
        let colon = short_lead && label.starts_with([':', '：']);
        let line_form =
            label.starts_with(['\n', '\r', '-']) || label.starts_with('—') || label.is_empty();
        if colon || (starts_line && line_form) {
            consider((after, text.len(), "a final-answer label"));
        }
    }
    best
}

/// What comes before `at` on its line, when that is at most 64 bytes (a marker further into a line is not
/// one); looked for in bounded time.
fn short_line_lead(text: &str, at: usize) -> Option<&str> {
    let from = at.saturating_sub(64);
    let window = text.get(from..at).or_else(|| {
        // `from` inside a character: widen to its start.
        (0..from).rev().find_map(|start| text.get(start..at))
    })?;
    match window.rfind('\n') {
        Some(newline) => window.get(newline + 1..),
        None if from == 0 => Some(window),
        None => None,
    }
}

/// Whether only white space or markdown decoration comes before `at` on its line.
fn starts_its_line(text: &str, at: usize) -> bool {
    short_line_lead(text, at).is_some_and(|line| {
        line.chars()
            .all(|c| matches!(c, ' ' | '\t' | '#' | '*' | '>' | '-' | '\r'))
    })
}

/// The candidates' spans merged into sorted, disjoint ranges (fenced blocks may hold balanced spans).
fn covered_ranges(candidates: &[Candidate<'_>]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = candidates.iter().map(|c| (c.start, c.end)).collect();
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// Contents of ``` fences (with or without a language tag), as byte ranges. A fence opened with N
/// backticks is closed by a run of at least N that ends its line: a fence quoted inside a JSON string
/// (followed there by `\n` or a language tag) and a shorter fence inside a longer one are content.
fn fenced_blocks(text: &str) -> Vec<(usize, usize)> {
    let mut blocks = Vec::new();
    let mut cursor = 0;
    while let Some(open) = text.get(cursor..).and_then(|rest| rest.find("```")) {
        let start = cursor + open;
        let ticks = backtick_run(text, start);
        let after_open = start + ticks;
        let Some(rest) = text.get(after_open..) else {
            break;
        };
        let body = after_open + rest.find('\n').map_or(rest.len(), |newline| newline + 1);
        let Some(close) = closing_fence(text, body, ticks) else {
            break;
        };
        blocks.push((body, close));
        cursor = close + backtick_run(text, close);
    }
    blocks
}

/// How many backticks run from `at`.
fn backtick_run(text: &str, at: usize) -> usize {
    text.get(at..).map_or(0, |rest| {
        rest.bytes().take_while(|byte| *byte == b'`').count()
    })
}

/// Where the fence that closes one of `ticks` backticks starts, at or after `from`.
fn closing_fence(text: &str, from: usize, ticks: usize) -> Option<usize> {
    let mut cursor = from;
    while let Some(at) = text.get(cursor..).and_then(|rest| rest.find("```")) {
        let start = cursor + at;
        let run = backtick_run(text, start);
        let line_rest = text.get(start + run..).unwrap_or_default();
        let ends_line = line_rest
            .split('\n')
            .next()
            .is_some_and(|tail| tail.trim().is_empty());
        if run >= ticks && ends_line {
            return Some(start);
        }
        cursor = start + run;
    }
    None
}

/// The maximal balanced bracket spans, and the brackets that never close (outermost first).
pub(crate) fn balanced_spans(text: &str) -> (Vec<(usize, usize)>, Vec<usize>) {
    let (maximal, unclosed, _, _) = balanced_spans_checked(text);
    (maximal, unclosed)
}

/// [`balanced_spans`], and whether the rescans ran out with a bracket still open (the rest unread).
#[allow(clippy::type_complexity)]
fn balanced_spans_checked(text: &str) -> (Vec<(usize, usize)>, Vec<usize>, bool, Vec<usize>) {
    let mut spans = Vec::new();
    let mut from = 0;
    let mut unclosed = Vec::new();
    let mut mismatched = Vec::new();
    let mut exhausted = true;
    for _ in 0..=MAX_RESCANS {
        let (found, still_open, slips) = scan(text, from);
        spans.extend(found);
        mismatched.extend(slips);
        match still_open {
            Some(open) => {
                unclosed.push(open);
                from = open + 1;
            }
            None => {
                exhausted = false;
                break;
            }
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
    mismatched.sort_unstable();
    mismatched.dedup();
    (maximal, unclosed, exhausted, mismatched)
}

/// One pass from `from`: the balanced spans closed, and the outermost bracket left open at the end.
fn scan(text: &str, from: usize) -> (Vec<(usize, usize)>, Option<usize>, Vec<usize>) {
    let bytes = text.as_bytes();
    let mut stack: Vec<(usize, u8)> = Vec::new();
    let mut spans = Vec::new();
    let mut mismatched = Vec::new();
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
                    // A close that does not match: prose, or a JSON value with a bracket slip (recorded, so a
                    // broken answer is never passed over); start over.
                    Some(_) => {
                        mismatched.extend(stack.first().map(|&(open, _)| open));
                        stack.clear();
                    }
                    None => {}
                }
            }
            _ => {}
        }
    }
    (spans, stack.first().map(|&(open, _)| open), mismatched)
}
