//! A tool call as a change a person approves: the tool's name is the node, the change's type is
//! [`TOOL_CALL`], and its `to` is the canonical text of the call's arguments (RFC 8785, JSON Canonicalization
//! Scheme: members sorted by their UTF-16 code units, numbers as ECMAScript writes them, no white space). A
//! signed confirmation of it binds the exact arguments: any other value, order-independent, is another change.

use super::confirmation::ProposedChange;
use crate::input::{InputError, MAX_INPUT_BYTES};
use serde_json::Value;

/// The change type of a governed tool call.
pub const TOOL_CALL: &str = "tool_call";
/// The longest tool name (MCP names are at most 128 characters).
pub const MAX_TOOL_NAME_CHARS: usize = 128;

/// The canonical text of `value` (RFC 8785).
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&es_number(number.as_f64().unwrap_or_default())),
        Value::String(text) => out.push_str(&quoted(text)),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            // serde_json's map is ordered by code point; UTF-16 order differs only where a key holds a
            // character from U+E000 to U+FFFF and another a character above U+FFFF.
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_unstable_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (index, (key, item)) in sorted.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&quoted(key));
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
    }
}

/// A string as JSON writes it: serde_json escapes exactly what ECMAScript's JSON.stringify escapes.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A finite number as ECMAScript's `Number.prototype.toString` writes it (RFC 8785 section 3.2.2.3).
pub fn es_number(number: f64) -> String {
    if number == 0.0 || !number.is_finite() {
        return "0".to_owned();
    }
    if number < 0.0 {
        return format!("-{}", es_number(-number));
    }
    // The shortest digits that round-trip (the formatter serde_json uses), as ECMAScript chooses them; only
    // their layout differs, so they are read back as digits and a decimal point position.
    let mut buffer = zmij::Buffer::new();
    let written = buffer.format_finite(number);
    let (mantissa, exponent) = match written.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().unwrap_or_default()),
        None => (written, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{fraction}");
    let leading = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_owned();
    let exponent = i64::try_from(whole.len()).unwrap_or_default()
        - i64::try_from(leading).unwrap_or_default()
        + exponent
        - 1;
    let count = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let point = exponent + 1;
    if count <= point && point <= 21 {
        let zeros = usize::try_from(point - count).unwrap_or_default();
        format!("{digits}{}", "0".repeat(zeros))
    } else if 0 < point && point <= 21 {
        let (whole, fraction) = digits.split_at(usize::try_from(point).unwrap_or_default());
        format!("{whole}.{fraction}")
    } else if -6 < point && point <= 0 {
        let zeros = usize::try_from(-point).unwrap_or_default();
        format!("0.{}{digits}", "0".repeat(zeros))
    } else {
        let sign = if point - 1 < 0 { '-' } else { '+' };
        let magnitude = (point - 1).abs();
        let (first, rest) = digits.split_at(1.min(digits.len()));
        if rest.is_empty() {
            format!("{first}e{sign}{magnitude}")
        } else {
            format!("{first}.{rest}e{sign}{magnitude}")
        }
    }
}

/// The node and the change that approve calling `tool` with `arguments` (an object, as every tool-calling
/// protocol sends them). The tool name is 1-128 characters with no white space or control character.
pub fn tool_call_change(
    tool: &str,
    arguments: &Value,
) -> Result<(String, ProposedChange), InputError> {
    let name_ok = !tool.is_empty()
        && tool.chars().count() <= MAX_TOOL_NAME_CHARS
        && !tool.chars().any(|c| c.is_whitespace() || c.is_control());
    if !name_ok {
        return Err(InputError::invalid(
            "tool",
            format!(
                "must be 1-{MAX_TOOL_NAME_CHARS} characters with no white space or control character"
            ),
        ));
    }
    if !arguments.is_object() {
        return Err(InputError::invalid(
            "arguments",
            "must be an object (a tool's named arguments)",
        ));
    }
    let to = canonical_json(arguments);
    if to.len() > MAX_INPUT_BYTES {
        return Err(InputError::invalid(
            "arguments",
            format!(
                "are {} bytes as canonical JSON; the limit is {MAX_INPUT_BYTES}",
                to.len()
            ),
        ));
    }
    let change = ProposedChange {
        change_type: TOOL_CALL.to_owned(),
        from: String::new(),
        to,
    };
    Ok((tool.to_owned(), change))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_written_as_ecmascript_writes_them() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (100.0, "100"),
            (12.5, "12.5"),
            (-3.25, "-3.25"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123_456_789_012_345_680_000.0, "123456789012345680000"),
            (1.5e-7, "1.5e-7"),
            (0.000_001, "0.000001"),
            (1e-7, "1e-7"),
            (0.1, "0.1"),
            (9_007_199_254_740_991.0, "9007199254740991"),
            (5e-324, "5e-324"),
            (1.797_693_134_862_315_7e308, "1.7976931348623157e+308"),
            (4.5e15, "4500000000000000"),
            (2.5e-3, "0.0025"),
        ];
        for (number, written) in cases {
            assert_eq!(es_number(number), written, "{number:e}");
        }
    }

    #[test]
    fn members_are_sorted_by_utf16_code_units_and_nothing_else_changes() {
        let value = json!({ "b": [3, 1.0, "x"], "a": { "\u{e000}": 1, "\u{1f600}": 2 }, "\u{7f}": null, "": true });
        assert_eq!(
            canonical_json(&value),
            "{\"\":true,\"a\":{\"\u{1f600}\":2,\"\u{e000}\":1},\"b\":[3,1,\"x\"],\"\u{7f}\":null}"
        );
        assert_eq!(
            canonical_json(&json!({ "q": "\"\\\n\u{1}\u{2028}" })),
            "{\"q\":\"\\\"\\\\\\n\\u0001\u{2028}\"}"
        );
    }

    #[test]
    fn numbers_are_read_correctly_rounded_and_written_back_exactly() {
        // Decimals whose nearest double a fast, not correctly rounded, reader misses by one unit.
        for text in [
            "9.999999999999997e-7",
            "0.30000000000000004",
            "1.7976931348623157e+308",
            "5e-324",
            "2.2250738585072014e-308",
            "123456789012345680000",
            "0.1",
            "-0.000001",
            "4.940656458412465e-324",
            "9007199254740993",
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            let read = value.as_f64().unwrap();
            let exact: f64 = text.parse().unwrap();
            assert_eq!(read.to_bits(), exact.to_bits(), "{text}");
            assert_eq!(es_number(read), es_number(exact), "{text}");
        }
        assert_eq!(
            canonical_json(&serde_json::from_str(r#"{"x":9.999999999999997e-7}"#).unwrap()),
            r#"{"x":9.999999999999997e-7}"#
        );
    }

    #[test]
    fn a_tool_call_binds_its_name_and_canonical_arguments() {
        let (node, change) =
            tool_call_change("send_email", &json!({ "to": "bob", "cc": [] })).unwrap();
        assert_eq!(node, "send_email");
        assert_eq!(change.change_type, TOOL_CALL);
        assert_eq!(change.from, "");
        assert_eq!(change.to, "{\"cc\":[],\"to\":\"bob\"}");
        for bad in ["", "a b", "x\u{7}", &"n".repeat(129)] {
            assert_eq!(tool_call_change(bad, &json!({})).unwrap_err().path, "tool");
        }
        for bad in [json!([]), json!("x"), json!(null), json!(1)] {
            assert_eq!(tool_call_change("t", &bad).unwrap_err().path, "arguments");
        }
    }
}
