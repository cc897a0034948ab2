//! The lenient pass, tried only when strict parsing fails: it rewrites what models commonly write instead of
//! JSON into JSON, and lists every rewrite with its byte offset. Each one keeps the meaning: single quotes,
//! smart quotes, `//` and `/* */` comments, unquoted keys, Python's `True`/`False`/`None`, raw control
//! characters inside strings, trailing commas. It never completes a truncated value, never invents a
//! field and never changes a type: text that ends inside a string or a comment is given up on.
//!
//! Written here rather than taken from a crate, measured on the answer corpus (tests/fixtures/corpus/, 526
//! answers) in the shipped module: this pass costs 1.7 KB gzip and reads all 526 as expected; `json5` costs
//! 11.4 KB and refuses 18 (no Python literals, raw newlines or smart quotes); `llm_json` (3.8 KB) and
//! `jsonrepair` (14 KB) both complete truncated values (the meaning-changing repair this pass must never
//! make) and miss 37 each. None lists what it changed.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// What a repair changed. The unwrapping kinds are recorded by [`super::unwrap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum RepairKind {
    SingleQuotes,
    SmartQuotes,
    Comment,
    UnquotedKey,
    PythonLiteral,
    ControlCharacter,
    TrailingComma,
    /// A one-element array around the answer.
    UnwrappedArray,
    /// The answer encoded as a JSON string.
    DoubleEncoded,
    /// A single-key wrapper such as `{"response": {...}}`.
    Wrapper,
    /// A tool call of the answer tool (an OpenAI or Anthropic envelope, or a wrapper in the text) whose
    /// arguments hold the answer.
    ToolCall,
    /// A terminal escape sequence or a zero-width character outside strings, removed.
    DisplayNoise,
}

/// One repair: what, and where in the candidate (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct Repair {
    pub kind: RepairKind,
    pub offset: usize,
}

/// The candidate rewritten into JSON, with its repairs; `None` when nothing could be repaired safely.
pub fn repair(text: &str) -> Option<(String, Vec<Repair>)> {
    let mut writer = Writer::default();
    let mut chars = text.char_indices().peekable();
    while let Some((offset, character)) = chars.next() {
        match character {
            '"' => writer.string(&mut chars, offset, '"', None)?,
            '\'' => writer.string(&mut chars, offset, '\'', Some(RepairKind::SingleQuotes))?,
            '“' | '„' => {
                writer.string(&mut chars, offset, '”', Some(RepairKind::SmartQuotes))?
            }
            '/' if chars.peek().is_some_and(|(_, next)| *next == '/') => {
                writer.note(RepairKind::Comment, offset);
                while chars.next_if(|(_, c)| *c != '\n').is_some() {}
            }
            '/' if chars.peek().is_some_and(|(_, next)| *next == '*') => {
                writer.note(RepairKind::Comment, offset);
                chars.next();
                let mut previous = ' ';
                loop {
                    let (_, c) = chars.next()?;
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
            }
            ',' => {
                writer.push_significant(',');
                writer.pending_comma = Some((writer.out.len() - 1, offset));
            }
            '}' | ']' => {
                if let Some((at, comma_offset)) = writer.pending_comma.take() {
                    writer.out.remove(at);
                    writer.note(RepairKind::TrailingComma, comma_offset);
                }
                writer.push_significant(character);
            }
            c if c.is_whitespace() => writer.out.push(c),
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let mut word = String::from(c);
                while let Some((_, next)) =
                    chars.next_if(|(_, n)| n.is_alphanumeric() || matches!(n, '_' | '$' | '-'))
                {
                    word.push(next);
                }
                writer.word(&word, offset, chars.clone().map(|(_, c)| c));
            }
            c => writer.push_significant(c),
        }
    }
    (!writer.repairs.is_empty()).then_some((writer.out, writer.repairs))
}

#[derive(Default)]
struct Writer {
    out: String,
    repairs: Vec<Repair>,
    /// The last significant character written (for telling a key from a value).
    last: Option<char>,
    /// A comma written with only white space after it so far: (index in `out`, offset in the text).
    pending_comma: Option<(usize, usize)>,
}

impl Writer {
    fn note(&mut self, kind: RepairKind, offset: usize) {
        self.repairs.push(Repair { kind, offset });
    }

    fn push_significant(&mut self, character: char) {
        if character != ',' {
            self.pending_comma = None;
        }
        self.out.push(character);
        self.last = Some(character);
    }

    fn push_str_significant(&mut self, text: &str) {
        self.pending_comma = None;
        self.out.push_str(text);
        self.last = text.chars().last();
    }

    /// A bare word: a key to quote, a Python literal to translate, or JSON's own literal.
    fn word(&mut self, word: &str, offset: usize, mut rest: impl Iterator<Item = char>) {
        let is_key = matches!(self.last, Some('{' | ',') | None)
            && rest.find(|c| !c.is_whitespace()) == Some(':');
        if is_key {
            self.note(RepairKind::UnquotedKey, offset);
            self.push_str_significant(&format!("\"{word}\""));
            return;
        }
        let literal = match word {
            "True" => Some("true"),
            "False" => Some("false"),
            "None" => Some("null"),
            _ => None,
        };
        match literal {
            Some(json) => {
                self.note(RepairKind::PythonLiteral, offset);
                self.push_str_significant(json);
            }
            None => self.push_str_significant(word),
        }
    }

    /// A string opened at `offset` and closed by `close`, written as a JSON string.
    fn string(
        &mut self,
        chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
        offset: usize,
        close: char,
        kind: Option<RepairKind>,
    ) -> Option<()> {
        if let Some(kind) = kind {
            self.note(kind, offset);
        }
        let mut text = String::from('"');
        loop {
            let (at, character) = chars.next()?;
            match character {
                '\\' => {
                    let (_, escaped) = chars.next()?;
                    // `\'` is not a JSON escape; the quote needs none inside a JSON string.
                    if escaped == '\'' {
                        text.push('\'');
                    } else {
                        text.push('\\');
                        text.push(escaped);
                    }
                }
                c if c == close || (close == '”' && c == '“') => break,
                '"' => text.push_str("\\\""),
                c if (c as u32) < 0x20 => {
                    self.note(RepairKind::ControlCharacter, at);
                    match c {
                        '\n' => text.push_str("\\n"),
                        '\r' => text.push_str("\\r"),
                        '\t' => text.push_str("\\t"),
                        other => text.push_str(&format!("\\u{:04x}", other as u32)),
                    }
                }
                c => text.push(c),
            }
        }
        text.push('"');
        self.push_str_significant(&text);
        Some(())
    }
}
