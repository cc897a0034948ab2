//! The path of the JSON value at a position in a JSON text (`proposed_change.to`, `requests[2].node_id`).
//!
//! serde_json reports where in the text a value failed to deserialize (line and column). Walking the text up
//! to that position names the value, with one small scanner shared by every type: tracking the path during
//! deserialization instead (serde_path_to_error) wraps every field of every type in generic code, which
//! measured 12 KB gzip of the guard module and 32 KB of the full one.

/// A container open at the position, innermost last.
enum Frame {
    /// An object and the key of its current member (`None` before the first key, and after a comma).
    Object(Option<String>),
    /// An array, the index of its current element, and whether that element has started.
    Array(usize, bool),
}

/// The byte offset of serde_json's 1-based `line` and `column` in `text` (the column counts bytes).
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(index, _)| index + 1)
    };
    line_start.saturating_add(column).min(text.len())
}

/// The path of the innermost value that has started before `offset` (`""`: the whole document). Keys are
/// joined with `.`, indices written `[i]`. A key read just before `offset` names that member even though
/// its value has not started: an unknown field's error points at the field.
pub fn path_at(text: &str, offset: usize) -> String {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut frames: Vec<Frame> = Vec::new();
    let mut index = 0;
    while index < end {
        let Some(&byte) = bytes.get(index) else {
            break;
        };
        match byte {
            b'"' => {
                let closing = string_end(bytes, index);
                if closing > end {
                    // The position lies inside this string: it is the value (or key) being read.
                    start_element(&mut frames);
                    break;
                }
                let is_key = matches!(frames.last(), Some(Frame::Object(None)));
                if is_key {
                    let raw = text.get(index..closing.min(bytes.len())).unwrap_or("");
                    let key = serde_json::from_str::<String>(raw)
                        .unwrap_or_else(|_| raw.trim_matches('"').to_owned());
                    if let Some(Frame::Object(current)) = frames.last_mut() {
                        *current = Some(key);
                    }
                } else {
                    start_element(&mut frames);
                }
                index = closing;
                continue;
            }
            b'{' => {
                start_element(&mut frames);
                frames.push(Frame::Object(None));
            }
            b'[' => {
                start_element(&mut frames);
                frames.push(Frame::Array(0, false));
            }
            b'}' | b']' => {
                frames.pop();
            }
            b',' => match frames.last_mut() {
                Some(Frame::Object(current)) => *current = None,
                Some(Frame::Array(position, started)) => {
                    *position += 1;
                    *started = false;
                }
                None => {}
            },
            b' ' | b'\t' | b'\n' | b'\r' | b':' => {}
            _ => start_element(&mut frames),
        }
        index += 1;
    }
    // serde_json reports a value it only peeked at (an array where a string belongs) at that value's first
    // byte: the value starting there is the one named.
    if index == end
        && bytes.get(end).is_some_and(|byte| {
            matches!(
                byte,
                b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
            )
        })
    {
        start_element(&mut frames);
    }
    render(&frames)
}

/// A value begins inside the innermost array: its element index becomes part of the path.
fn start_element(frames: &mut [Frame]) {
    if let Some(Frame::Array(_, started)) = frames.last_mut() {
        *started = true;
    }
}

/// The index just past the string that opens at `start` (escape-aware), or the end of the text.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut index = start + 1;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'\\' => index += 2,
            b'"' => return index + 1,
            _ => index += 1,
        }
    }
    bytes.len()
}

fn render(frames: &[Frame]) -> String {
    let mut path = String::new();
    for frame in frames {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Array(position, true) => {
                path.push('[');
                path.push_str(&position.to_string());
                path.push(']');
            }
            Frame::Object(None) | Frame::Array(_, false) => {}
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_end(text: &str) -> String {
        path_at(text, text.len())
    }

    #[test]
    fn names_nested_members_and_elements() {
        assert_eq!(at_end(r#"{"a":{"b":5"#), "a.b");
        assert_eq!(
            at_end(r#"{"requests":[{"x":1},{"node_id":7"#),
            "requests[1].node_id"
        );
        assert_eq!(at_end(r#"[1,2,"#), "");
        assert_eq!(at_end(r#"[1,2,3"#), "[2]");
        assert_eq!(at_end(r#"{"a":1,"#), "");
        assert_eq!(at_end(r#"{"a":{"b":1}}"#), "");
        assert_eq!(at_end(r#"{"a":{"b":1}"#), "a");
    }

    #[test]
    fn a_key_just_read_names_its_member() {
        assert_eq!(at_end(r#"{"outer":{"typo""#), "outer.typo");
    }

    #[test]
    fn strings_with_brackets_quotes_and_escapes_do_not_confuse_it() {
        assert_eq!(at_end(r#"{"a":"}]{[\",","b\"c":[true"#), "b\"c[0]");
        assert_eq!(at_end(r#"{"\u00e9t\u00e9":1"#), "été");
    }

    #[test]
    fn offsets_past_the_end_or_inside_a_string_are_safe() {
        assert_eq!(path_at(r#"{"a":"xyz"#, 100), "a");
        assert_eq!(path_at(r#"{"abc":1}"#, 3), "");
        assert_eq!(path_at("", 5), "");
    }

    #[test]
    fn serde_json_positions_name_the_bad_value_on_any_line() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Shape {
            a: u32,
            b: Vec<u32>,
        }
        let text = "{\n  \"a\": 1,\n  \"b\": [1,\n \"two\"]\n}";
        let error = serde_json::from_str::<Shape>(text)
            .err()
            .map(|error| path_at(text, offset_of(text, error.line(), error.column())));
        assert_eq!(error.as_deref(), Some("b[1]"));
        assert_eq!(offset_of(text, 1, 1), 1);
        assert_eq!(offset_of(text, 99, 9), text.len());
    }
}
