//! Finding the JSON in what a model wrote: bare JSON, a fenced ```json block, or the first balanced object
//! amid prose (aware of strings and escapes), with one light repair (trailing commas). Iterative, so
//! deeply nested input cannot exhaust the stack; serde_json's own recursion limit guards the parse.

use serde_json::Value;

/// Largest model answer examined, in bytes.
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Why no JSON value could be taken from the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractFailure {
    pub message: String,
    /// The text ends inside an unfinished JSON value (the model ran out of tokens).
    pub truncated: bool,
}

/// Extracts the JSON value a model answered with.
pub fn extract_json(text: &str) -> Result<Value, ExtractFailure> {
    if text.len() > MAX_ANSWER_BYTES {
        return Err(ExtractFailure {
            message: format!(
                "the answer is {} bytes; at most {MAX_ANSWER_BYTES} are examined",
                text.len()
            ),
            truncated: false,
        });
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ExtractFailure {
            message: "the answer is empty".to_owned(),
            truncated: false,
        });
    }
    if !trimmed.contains('{') {
        return Err(ExtractFailure {
            message: "the answer contains no JSON object".to_owned(),
            truncated: false,
        });
    }
    let mut last_error = None;
    for candidate in candidates(trimmed) {
        match parse_with_repair(candidate) {
            Ok(value) => return Ok(value),
            Err(error) => last_error = last_error.or(Some(error)),
        }
    }
    if let Some(unclosed) = unclosed_object(trimmed) {
        return Err(ExtractFailure {
            message: format!(
                "the JSON object starting at byte {unclosed} is never closed: the answer looks truncated"
            ),
            truncated: true,
        });
    }
    Err(last_error.unwrap_or_else(|| ExtractFailure {
        message: "the answer contains no JSON object".to_owned(),
        truncated: false,
    }))
}

/// Places JSON may be, most likely first: the whole text, fenced blocks, balanced objects in prose.
fn candidates(text: &str) -> impl Iterator<Item = &str> {
    std::iter::once(text)
        .chain(fenced_blocks(text))
        .chain(balanced_objects(text))
}

fn parse_with_repair(candidate: &str) -> Result<Value, ExtractFailure> {
    match serde_json::from_str::<Value>(candidate) {
        Ok(value) => Ok(value),
        Err(first) => {
            let repaired = without_trailing_commas(candidate);
            serde_json::from_str::<Value>(&repaired).map_err(|_| ExtractFailure {
                message: format!("the answer is not valid JSON: {first}"),
                truncated: first.is_eof(),
            })
        }
    }
}

/// Contents of ``` fences (with or without a language tag).
fn fenced_blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let open = rest.find("```")?;
        let after_open = rest.get(open + 3..)?;
        let body_start = after_open
            .find('\n')
            .map_or(after_open.len(), |newline| newline + 1);
        let body = after_open.get(body_start..)?;
        let close = body.find("```")?;
        rest = body.get(close + 3..).unwrap_or("");
        body.get(..close).map(str::trim)
    })
}

/// Every top-level balanced `{...}` span, in order. Objects nested in a candidate are not candidates of
/// their own, and an object that never closes ends the search: each byte is scanned once.
fn balanced_objects(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        let open = start + text.get(start..)?.find('{')?;
        let Some(end) = matching_close(bytes, open) else {
            start = bytes.len();
            return None;
        };
        start = end + 1;
        text.get(open..=end)
    })
}

/// Index of the `}` closing the object opened at `open`, skipping strings and escapes.
fn matching_close(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0_usize;
    let mut in_string = false;
    let mut escaped = false;
    for (index, byte) in bytes.iter().enumerate().skip(open) {
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
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (*byte == b'}').then_some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// Start of the first object that is opened and never closed, if any.
fn unclosed_object(text: &str) -> Option<usize> {
    let open = text.find('{')?;
    matching_close(text.as_bytes(), open)
        .is_none()
        .then_some(open)
}

/// Removes commas that directly precede `}` or `]` (outside strings).
fn without_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut pending_comma: Option<String> = None;
    for character in text.chars() {
        if in_string {
            out.push(character);
            match (escaped, character) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if let Some(held) = pending_comma.as_mut() {
            if character.is_whitespace() {
                held.push(character);
                continue;
            }
            let held = pending_comma.take().unwrap_or_default();
            if character == '}' || character == ']' {
                out.push_str(held.trim_start_matches(','));
            } else {
                out.push_str(&held);
            }
        }
        match character {
            ',' => pending_comma = Some(",".to_owned()),
            '"' => {
                in_string = true;
                out.push(character);
            }
            _ => out.push(character),
        }
    }
    if let Some(held) = pending_comma {
        out.push_str(&held);
    }
    out
}
