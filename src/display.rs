//! Text a person reads (approval lines, agent notes, chat reports, replies) made display-safe, once, in the
//! core, for every host: characters that change how text looks without being seen (control characters,
//! bidi overrides, zero-width and other format characters, Unicode tags) are made visible as `<U+XXXX>`,
//! so a line can neither hide part of itself, reorder itself, nor drive a terminal.

use serde_json::Value;

/// Whether `c` would act on the display instead of being displayed, or shows as nothing: C0 and C1
/// controls, DEL, the line and paragraph separators, the Unicode format characters (general category Cf:
/// bidi embeddings, overrides and isolates, marks, zero-width characters, the byte-order mark, interlinear
/// annotation, tags) and the other default-ignorable code points (variation selectors, Hangul fillers,
/// the combining grapheme joiner).
pub fn is_invisible_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1F}'
        | '\u{7F}'..='\u{9F}'
        | '\u{AD}'
        | '\u{34F}'
        | '\u{115F}'..='\u{1160}'
        | '\u{17B4}'..='\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{2028}'..='\u{2029}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FFA0}'
        | '\u{E0000}'..='\u{E0FFF}'
        | '\u{600}'..='\u{605}'
        | '\u{61C}'
        | '\u{6DD}'
        | '\u{70F}'
        | '\u{890}'..='\u{891}'
        | '\u{8E2}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{110BD}'
        | '\u{110CD}'
        | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
    )
}

/// `text` with every invisible control made visible as `<U+XXXX>`; everything else unchanged.
pub fn display_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_invisible_control(c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// An identifier (an action type) as a person can compare it: anything outside printable ASCII is shown as
/// `<U+XXXX>`, so `stаtus_change` with a Cyrillic `а` never reads as `status_change`.
pub fn display_identifier(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_graphic() {
            out.push(c);
        } else {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        }
    }
    out
}

/// A string that reads the same bare as quoted: letters, digits and `-_.:/@+#`, and not a JSON literal.
/// Plain words are ASCII: anything else is quoted, so a look-alike letter or digit from another script
/// (a Cyrillic `Т`, a Kelvin sign, a mathematical `𝟣`) is at least marked as not a plain word.
pub fn reads_plainly(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || PLAIN_PUNCTUATION.contains(c))
        && !matches!(text, "true" | "false" | "null")
        && serde_json::from_str::<serde_json::Number>(text).is_err()
}

/// The punctuation a plain word may hold besides ASCII letters and digits.
pub const PLAIN_PUNCTUATION: &str = "-_.:/@+#";

/// Every space that a reader could miss (at an end, or after another space) shown as `<U+0020>`, and any
/// other whitespace (no-break, thin, ideographic) always.
fn visible_spaces(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (index, &c) in chars.iter().enumerate() {
        let previous = index.checked_sub(1).and_then(|at| chars.get(at));
        let missable = index == 0 || index + 1 == chars.len() || previous == Some(&' ');
        if c == ' ' && missable {
            out.push_str("<U+0020>");
        } else if c.is_whitespace() && c != ' ' {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A value as a person reads it, unambiguously: a plain word as itself; any other string quoted and
/// escaped (so `"true"` never reads as `true`, nor `"a, b=c"` as two parameters); anything else as canonical
/// JSON. Invisible characters and missable spaces are made visible.
pub fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => shown_text(text),
        other => escaped(&crate::input::to_json_string(other)),
    }
}

/// [`shown`] for a string.
pub fn shown_text(text: &str) -> String {
    if reads_plainly(text) {
        return text.to_owned();
    }
    escaped(&crate::input::to_json_string(&text))
}

/// JSON text (a tool call's canonical arguments) as a person reads it: made visible, never reinterpreted.
pub fn shown_json(json: &str) -> String {
    escaped(json)
}

/// `<` is escaped first, so a value holding the text `<U+200B>` never reads as one holding U+200B.
fn escaped(json: &str) -> String {
    visible_spaces(&display_safe(&json.replace('<', "\\u003c")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_bidi_and_zero_width_characters_are_made_visible() {
        assert_eq!(display_safe("T-1\u{202E}enod"), "T-1<U+202E>enod");
        assert_eq!(
            display_safe("\u{1b}[1mbold\u{1b}[0m"),
            "<U+001B>[1mbold<U+001B>[0m"
        );
        assert_eq!(
            display_safe("a\u{0}b\u{200B}c\u{FEFF}"),
            "a<U+0000>b<U+200B>c<U+FEFF>"
        );
        assert_eq!(display_safe("y\u{85}"), "y<U+0085>");
        assert_eq!(display_safe("tag\u{E0041}"), "tag<U+E0041>");
        assert_eq!(
            display_safe("a\u{FE0F}\u{3164}\u{2028}b"),
            "a<U+FE0F><U+3164><U+2028>b"
        );
        assert_eq!(display_safe("チケット T-1 ✅"), "チケット T-1 ✅");
    }

    #[test]
    fn identifiers_show_look_alikes() {
        assert_eq!(display_identifier("status_change"), "status_change");
        assert_eq!(
            display_identifier("st\u{430}tus_change"),
            "st<U+0430>tus_change"
        );
        assert_eq!(display_identifier("a b"), "a<U+0020>b");
    }
}
