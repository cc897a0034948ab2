//! Templates are never answers. A candidate is a template when a string in it is a placeholder (`"<item-id>"`,
//! `"{{summary}}"`, `"{evidence}"`, `"..."`), or when it is a JSON value the prompt itself holds (the model
//! echoed the format example it was shown). A text whose only candidates are templates is refused.

use serde_json::Value;

/// How deep a value is searched for placeholders (the parser's own depth bound is lower).
const MAX_DEPTH: usize = 128;

/// The first placeholder string in `value`, with its dotted path.
pub fn placeholder_in(value: &Value) -> Option<(String, String)> {
    find(value, String::new(), 0)
}

fn find(value: &Value, path: String, depth: usize) -> Option<(String, String)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::String(text) => is_placeholder(text).then(|| (path, text.clone())),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| find(item, join(&path, &index.to_string()), depth + 1)),
        Value::Object(object) => object
            .iter()
            .find_map(|(key, item)| find(item, join(&path, key), depth + 1)),
        _ => None,
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A string that stands for a value instead of being one.
pub fn is_placeholder(text: &str) -> bool {
    let text = text.trim();
    // Only dots or ellipses (`...`, `. . .`, `…`), or a type name standing for a value.
    if text.chars().any(|c| c == '.' || c == '…')
        && text.chars().all(|c| matches!(c, '.' | '…' | ' '))
    {
        return true;
    }
    if matches!(
        text,
        "<>" | "string" | "boolean" | "number" | "integer" | "null" | "array" | "object"
    ) {
        return true;
    }
    // `YOUR_SUMMARY_HERE`, `INSERT_ID`, `PLACEHOLDER`.
    let upper = text
        .chars()
        .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit());
    if upper
        && ["YOUR_", "_HERE", "INSERT_", "PLACEHOLDER"]
            .iter()
            .any(|word| text.contains(word))
    {
        return true;
    }
    // Values tools really print in angle brackets are values, not placeholders.
    if matches!(
        text.to_ascii_lowercase().as_str(),
        "<none>"
            | "<empty>"
            | "<null>"
            | "<nil>"
            | "<n/a>"
            | "<unknown>"
            | "<redacted>"
            | "<missing>"
    ) {
        return false;
    }
    let wrapped = |open: &str, close: &str| {
        text.strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
            .filter(|inner| {
                !inner.trim().is_empty()
                    && inner.chars().count() <= 80
                    && !inner.contains(['<', '>', '{', '}', '[', ']', '\n'])
            })
    };
    if wrapped("<<", ">>").is_some()
        || wrapped("<", ">").is_some()
        || wrapped("{{", "}}").is_some()
        || wrapped("${", "}").is_some()
    {
        return true;
    }
    // `{name}` as in a format string, `[name]` as in a form: an identifier, not code or JSON.
    let identifier = |inner: &str| {
        inner
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
    };
    wrapped("{", "}").is_some_and(identifier) || wrapped("[", "]").is_some_and(identifier)
}

/// The JSON objects and arrays a prompt shows (its format examples), in canonical text (keys sorted), so an
/// answer is compared with all of them in one lookup.
pub type PromptValues = std::collections::BTreeSet<String>;

/// Whether `value` is a JSON value the prompt holds (an echoed example), whatever its spacing and key order.
pub fn echoes_prompt(value: &Value, prompt_values: &PromptValues) -> bool {
    (value.is_object() || value.is_array())
        && !prompt_values.is_empty()
        && prompt_values.contains(&value.to_string())
}
