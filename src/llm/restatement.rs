//! After the final answer, silence or refusal. Text beside the answer (after it, in another turn, in a text
//! block beside the tool call) is read for what it says about the answer: a correction ("Correction:
//! confidence should be 0.55", `allComplete = false`, `{"全完了": false}`, a re-tagged bullet) names a field
//! of the answer, and a negative verdict ("it is not complete", "the check fails") contradicts a passing
//! answer. Either makes the answer ambiguous. Prose that names nothing (a sign-off, an explanation) does not.
//!
//! The field vocabulary is the answer schema's own (every property at every level), in any spelling; the
//! verdict words are English and Japanese.

use super::text_search::find_ascii_ci;
use serde_json::Value;

/// Japanese words that name an answer field or a verdict: a restatement in Japanese (`{"全完了": false}`).
const JAPANESE_FIELD_WORDS: [&str; 10] = [
    "全完了",
    "すべて完了",
    "全て完了",
    "確信度",
    "信頼度",
    "合格",
    "判定",
    "タグ",
    "有用",
    "有害",
];

/// Key names that state a verdict, a completion, a status, an approval or a confidence: written as a key
/// (`verdict: fail`, `"status": "blocked"`) beside an answer, they are a second verdict.
pub const VERDICT_KEY_WORDS: [&str; 38] = [
    "verdict",
    "status",
    "state",
    "result",
    "results",
    "outcome",
    "complete",
    "completed",
    "completion",
    "incomplete",
    "done",
    "finished",
    "finish",
    "unfinished",
    "approved",
    "approval",
    "approve",
    "accepted",
    "accept",
    "rejected",
    "reject",
    "pass",
    "passed",
    "passes",
    "passing",
    "fail",
    "failed",
    "failure",
    "success",
    "successful",
    "succeeded",
    "ok",
    "confidence",
    "confident",
    "certainty",
    "blocked",
    "ready",
    "resolved",
];

/// Japanese words that state a verdict, a completion, a status, an approval or a confidence, in a key.
pub const JAPANESE_VERDICT_KEYS: [&str; 13] = [
    "完了", "合格", "承認", "状態", "状況", "結果", "判定", "確信", "信頼", "成功", "失敗", "済",
    "可否",
];

/// Negative verdicts in prose (checked before the positive words they contain).
const NEGATIVE_PHRASES: [&str; 27] = [
    "not complete",
    "not completed",
    "not yet complete",
    "not fully complete",
    "incomplete",
    "not done",
    "not finished",
    "unfinished",
    "not passed",
    "not pass",
    "does not pass",
    "doesn't pass",
    "did not pass",
    "didn't pass",
    "fail",
    "fails",
    "failed",
    "failing",
    "not approved",
    "rejected",
    "blocked",
    "not ready",
    "should be false",
    "must be false",
    "is false",
    "isn't complete",
    "aren't complete",
];
const JAPANESE_NEGATIVE: [&str; 9] = [
    "未完了",
    "完了していない",
    "完了していません",
    "完了ではない",
    "終わっていない",
    "終わっていません",
    "不合格",
    "失敗",
    "未完",
];

/// Lower case without `_` and `-`: `all_complete`, `allComplete` and `AllComplete` are one name.
pub fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Every property name the schema declares, at every level (item fields included), once each.
pub fn schema_field_names(schema: &Value) -> Vec<String> {
    let mut names = Vec::new();
    collect_fields(schema, &mut names, 0);
    names
}

fn collect_fields(schema: &Value, names: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            if !names.contains(name) {
                names.push(name.clone());
            }
            collect_fields(property, names, depth + 1);
        }
    }
    if let Some(items) = schema.get("items") {
        collect_fields(items, names, depth + 1);
    }
}

/// The words of a key: `isComplete`, `is_complete` and `is-complete` are `is`, `complete`.
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        let boundary = !c.is_alphanumeric() || (c.is_uppercase() && previous_lower);
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether a key (of a field the answer does not have) states a verdict, a completion, a status, an
/// approval or a confidence, in any spelling or in Japanese: `isComplete`, `approved`, `status`, `done`,
/// `完了`.
pub fn key_states_a_verdict(key: &str) -> bool {
    key_words(key)
        .iter()
        .any(|word| VERDICT_KEY_WORDS.contains(&word.as_str()))
        || JAPANESE_VERDICT_KEYS.iter().any(|word| key.contains(word))
}

/// The field of `fields` a key restates in another form (`confidenceLevel` restates `confidence`), if any.
pub fn key_restates_field<'a>(key: &str, fields: &'a [String]) -> Option<&'a String> {
    let key = folded(key);
    fields.iter().find(|field| {
        let field = folded(field);
        field.len() >= 4 && (key.contains(&field) || (key.len() >= 4 && field.contains(&key)))
    })
}

/// Letters and digits only, lower case (words run together: `all complete` is `allcomplete`).
fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `word` is written at `at` as a whole word (no letter, digit or `_` right before or after it).
fn whole_word(text: &str, at: usize, len: usize) -> bool {
    let before = text.get(..at).and_then(|head| head.chars().next_back());
    let after = text.get(at + len..).and_then(|tail| tail.chars().next());
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    !part(before) && !part(after)
}

/// Whether `name` is set in `text`: written as a key (quoted, or followed by `:` or `=`), or followed by
/// "should be", "must be", "is now", "is actually", "needs to be".
fn set_in(text: &str, name: &str) -> bool {
    const SETTERS: [&str; 7] = [
        "should be",
        "must be",
        "is now",
        "is actually",
        "needs to be",
        "ought to be",
        "=",
    ];
    let mut from = 0;
    while let Some(at) = find_ascii_ci(text, name, from) {
        from = at + name.len();
        let before = text.get(..at).and_then(|head| head.chars().next_back());
        let after = text.get(at + name.len()..).unwrap_or_default();
        let quoted = matches!(before, Some('"' | '\'' | '“' | '`'))
            && after.starts_with(['"', '\'', '”', '`']);
        if quoted {
            return true;
        }
        if !whole_word(text, at, name.len()) {
            continue;
        }
        let rest = after
            .trim_start()
            .trim_start_matches(['`', '*'])
            .trim_start();
        if rest.starts_with(':')
            || SETTERS.iter().any(|setter| {
                rest.get(..setter.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(setter))
            })
        {
            return true;
        }
    }
    false
}

/// Whether `text` holds one of `phrases` as whole words, in any case.
fn holds_phrase(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|phrase| {
        let mut from = 0;
        while let Some(at) = find_ascii_ci(text, phrase, from) {
            if whole_word(text, at, phrase.len()) && !negated(text, at) {
                return true;
            }
            from = at + phrase.len();
        }
        false
    })
}

/// Whether the word just before `at` denies what follows ("no failing tests", "nothing failed"): a negative
/// word denied is not a negative verdict.
fn negated(text: &str, at: usize) -> bool {
    const DENIALS: [&str; 6] = ["no", "none", "nothing", "zero", "without", "never"];
    let before = text.get(..at).unwrap_or_default();
    let previous = before
        .split(|c: char| !c.is_alphanumeric())
        .rfind(|word| !word.is_empty());
    previous.is_some_and(|word| {
        DENIALS
            .iter()
            .any(|denial| word.eq_ignore_ascii_case(denial))
    })
}

/// What `text`, written beside an answer, says about it, when it says anything: the field it names or
/// sets, or the negative verdict it states against a passing answer (`passing`: the answer's verdict is
/// complete, pass). `None` for prose that names nothing.
pub fn restatement(text: &str, fields: &[String], passing: bool) -> Option<String> {
    if text.trim().is_empty() {
        return None;
    }
    let squeezed_text = squeezed(text);
    // A field of several words is found in any spelling anywhere (`all_complete`, `All Complete`); a
    // one-word field (`confidence`, `pass`, `tag`) only where it is set (`pass: false`, `"tag"`, `pass
    // should be false`), since it is also an everyday word.
    for field in fields {
        let named = if key_words(field).len() >= 2 {
            squeezed_text.contains(&squeezed(field))
        } else {
            set_in(text, field)
        };
        if named {
            return Some(format!("it names the answer's field `{field}`"));
        }
    }
    if let Some(word) = JAPANESE_FIELD_WORDS
        .iter()
        .find(|word| text.contains(*word))
    {
        return Some(format!("it names an answer field or verdict ({word})"));
    }
    if let Some(word) = VERDICT_KEY_WORDS.iter().find(|word| set_in(text, word)) {
        return Some(format!("it sets a verdict (`{word}`)"));
    }
    if passing
        && (holds_phrase(text, &NEGATIVE_PHRASES)
            || JAPANESE_NEGATIVE.iter().any(|word| text.contains(word)))
    {
        return Some("it states a negative verdict against the passing answer".to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{key_states_a_verdict, restatement};

    fn fields() -> Vec<String> {
        [
            "checklist",
            "allComplete",
            "confidence",
            "summary",
            "pendingActions",
            "id",
            "completed",
            "pass",
            "tag",
            "bullet_id",
        ]
        .iter()
        .map(|field| (*field).to_owned())
        .collect()
    }

    #[test]
    fn corrections_are_heard() {
        for text in [
            "\nCorrection: confidence should be 0.55",
            "`allComplete` must be `false`",
            "allComplete = false",
            "Correction: \"allComplete\": false",
            "all_complete should be false",
            "pass should be false",
            "{\"全完了\": false}",
            "{\"bullet_id\": \"b-1\", \"tag\": \"harmful\"}",
            "Verdict: FAIL",
        ] {
            assert!(restatement(text, &fields(), true).is_some(), "{text}");
        }
        assert!(restatement("Actually the work is not complete.", &fields(), true).is_some());
        assert!(restatement("No, it fails the review.", &fields(), true).is_some());
        assert!(restatement("作業は未完了です。", &fields(), true).is_some());
    }

    #[test]
    fn prose_that_names_nothing_is_not_a_restatement() {
        for text in [
            "Let me know if you need more.",
            " and that is final.",
            "That is my final answer.",
            "以上です。",
            "\n```\n",
            "I checked the logs and the tags of the release; everything is in place.",
            "The tests pass.",
            "I have completed the review; the summary above says why, with high confidence.",
            "There are no failing tests, and nothing failed in CI.",
        ] {
            assert_eq!(restatement(text, &fields(), true), None, "{text}");
        }
        // A negative verdict beside an answer that is negative already changes nothing.
        assert_eq!(
            restatement("It is not complete yet.", &fields(), false),
            None
        );
    }

    #[test]
    fn keys_that_state_a_verdict() {
        for key in [
            "isComplete",
            "approved",
            "status",
            "done",
            "完了",
            "result",
            "all_done",
            "passFinal",
        ] {
            assert!(key_states_a_verdict(key), "{key}");
        }
        for key in [
            "notes",
            "comment",
            "explanation",
            "reasoning_steps",
            "extra",
        ] {
            assert!(!key_states_a_verdict(key), "{key}");
        }
    }
}
