//! Display noise is not syntax: terminal escape sequences (`\x1b[1m`, OSC titles and links) and zero-width
//! characters that a terminal, a logger or a chat UI put around an answer are removed before any JSON is
//! looked for, each listed as a repair. Inside a JSON string they are left alone: the strict parse refuses a
//! raw escape character there, and the lenient pass keeps it escaped, as the contract says for raw control
//! characters; a zero-width character inside a string is part of the value (display-safe rendering shows it).

use super::repair::{Repair, RepairKind};

/// Zero-width characters removed outside strings: space, non-joiner, joiner, word joiner, byte-order mark.
const ZERO_WIDTH: [char; 5] = ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];

/// The text without display noise outside strings, and one repair per removed sequence (offsets in `text`).
/// `None` when there was nothing to remove (the common case costs one scan and no copy).
pub fn strip_display_noise(text: &str) -> Option<(String, Vec<Repair>)> {
    // Every character removed here starts with one of these bytes (ESC, or the lead byte of U+009B,
    // U+200B-U+200D, U+2060, U+FEFF): most answers hold none, and are not copied.
    if !text
        .bytes()
        .any(|byte| matches!(byte, 0x1b | 0xc2 | 0xe2 | 0xef))
    {
        return None;
    }
    if !text
        .chars()
        .any(|c| c == '\u{1b}' || c == '\u{9b}' || ZERO_WIDTH.contains(&c))
    {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut repairs = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.char_indices().peekable();
    while let Some((offset, character)) = chars.next() {
        if in_string {
            match (escaped, character) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            out.push(character);
            continue;
        }
        match character {
            '\u{1b}' | '\u{9b}' => {
                skip_escape(character, &mut chars);
                repairs.push(Repair {
                    kind: RepairKind::DisplayNoise,
                    offset,
                });
                continue;
            }
            c if ZERO_WIDTH.contains(&c) => {
                repairs.push(Repair {
                    kind: RepairKind::DisplayNoise,
                    offset,
                });
                continue;
            }
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            '"' if depth > 0 => in_string = true,
            _ => {}
        }
        out.push(character);
    }
    Some((out, repairs))
}

/// Skips the rest of an escape sequence: CSI (`ESC [` or the 8-bit CSI, parameters, one final byte), OSC
/// (`ESC ]` up to BEL or `ESC \`), or a two-character escape.
fn skip_escape(introducer: char, chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    let kind = if introducer == '\u{9b}' {
        '['
    } else {
        match chars.next() {
            Some((_, next)) => next,
            None => return,
        }
    };
    match kind {
        '[' => {
            // Parameter and intermediate bytes (0x20-0x3F), then one final byte (0x40-0x7E).
            while chars
                .next_if(|(_, c)| ('\u{20}'..='\u{3f}').contains(c))
                .is_some()
            {}
            chars.next_if(|(_, c)| ('\u{40}'..='\u{7e}').contains(c));
        }
        ']' => {
            // A title or a link ends at BEL or `ESC \`, and never takes a line break: an OSC left open
            // swallows nothing past its own line.
            while let Some((_, c)) = chars.next_if(|(_, c)| *c != '\n') {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' {
                    chars.next_if(|(_, next)| *next == '\\');
                    break;
                }
            }
        }
        _ => {}
    }
}
