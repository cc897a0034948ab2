//! The completion protocol's approval criteria wherever an answer writes them: inside `approval_criteria`
//! (the schema's place; an object, or the seed's YAML form, a list of one-key objects), or at the top level
//! (`acknowledged_trade_offs`, `no_critical_issues`, and `trade_offs_acknowledged`, the earlier spelling), in
//! any spelling (`acknowledgedTradeOffs`). Two places that disagree, or a criterion this reading does not
//! know, are an error, never a choice: a verdict is never decided with a criterion set aside.

use crate::input::InputError;
use crate::llm::shape::folded;
use serde_json::{Map, Value};

const CRITERIA: &str = "approval_criteria";
const NO_CRITICAL: &str = "no_critical_issues";
const ACKNOWLEDGED: &str = "acknowledged_trade_offs";

/// The criterion a key names, in any spelling (case, `_` and `-` ignored).
fn criterion_of(key: &str) -> Option<&'static str> {
    match folded(key).as_str() {
        "acknowledgedtradeoffs" | "tradeoffsacknowledged" => Some(ACKNOWLEDGED),
        "nocriticalissues" => Some(NO_CRITICAL),
        _ => None,
    }
}

/// A top-level key that speaks of criticality or trade-offs without being a field of the answer
/// (`critical_issues`, `has_critical`, `tradeoffs_ok`): it would be set aside, so it is refused.
fn looks_like_a_criterion(key: &str) -> bool {
    let key = folded(key);
    ["critical", "tradeoff", "acknowledg"]
        .iter()
        .any(|word| key.contains(word))
}

/// Whether an issue is critical: it starts with "CRITICAL" in any case (as the seed's example writes it),
/// or with 重大 / クリティカル / 致命, after any leading markup (`**CRITICAL**`, `[CRITICAL]`, `- CRITICAL`, `1. CRITICAL`).
pub fn is_critical(issue: &str) -> bool {
    let text = issue.trim_start_matches(|c: char| !c.is_alphabetic());
    let head: String = text.chars().take(8).flat_map(char::to_uppercase).collect();
    head.starts_with("CRITICAL")
        || ["重大", "クリティカル", "致命"]
            .iter()
            .any(|word| text.starts_with(word))
}

/// Reads the criteria wherever the answer writes them into one `approval_criteria` object, filling a
/// missing `no_critical_issues` from the issues list. A missing `acknowledged_trade_offs` is never filled:
/// an answer that states only some criteria is refused by the shape check.
pub fn gather_criteria(value: &mut Value) -> Result<(), InputError> {
    let Value::Object(answer) = value else {
        return Ok(());
    };
    let mut stated = Map::new();
    let mut any = false;
    match answer.remove(CRITERIA) {
        None | Some(Value::Null) => {}
        Some(Value::Object(criteria)) => {
            any = true;
            for (key, criterion) in criteria {
                state(&mut stated, &format!("{CRITERIA}.{key}"), &key, criterion)?;
            }
        }
        Some(Value::Array(items)) => {
            any = true;
            for (index, item) in items.into_iter().enumerate() {
                let Value::Object(one) = item else {
                    return Err(InputError::invalid(
                        format!("{CRITERIA}[{index}]"),
                        "expected an object such as {\"no_critical_issues\": true}",
                    ));
                };
                for (key, criterion) in one {
                    state(
                        &mut stated,
                        &format!("{CRITERIA}[{index}].{key}"),
                        &key,
                        criterion,
                    )?;
                }
            }
        }
        Some(other) => {
            // Another type is left to the shape check, which names it.
            answer.insert(CRITERIA.to_owned(), other);
            return Ok(());
        }
    }
    let top: Vec<String> = answer
        .keys()
        .filter(|key| criterion_of(key).is_some() || looks_like_a_criterion(key))
        .cloned()
        .collect();
    for key in top {
        let criterion = answer.remove(&key).unwrap_or(Value::Null);
        any = true;
        state(&mut stated, &key, &key, criterion)?;
    }
    if !any {
        return Ok(());
    }
    if !stated.contains_key(NO_CRITICAL) {
        let critical = answer
            .get("issues")
            .and_then(Value::as_array)
            .is_some_and(|issues| issues.iter().filter_map(Value::as_str).any(is_critical));
        stated.insert(NO_CRITICAL.to_owned(), Value::Bool(!critical));
    }
    answer.insert(CRITERIA.to_owned(), Value::Object(stated));
    Ok(())
}

/// Records one stated criterion under its canonical name; an unknown criterion or a second, different value
/// is an error at `path`.
fn state(
    stated: &mut Map<String, Value>,
    path: &str,
    key: &str,
    value: Value,
) -> Result<(), InputError> {
    let Some(criterion) = criterion_of(key) else {
        return Err(InputError::invalid(
            path,
            format!(
                "is not an approval criterion; the criteria are `{NO_CRITICAL}` and `{ACKNOWLEDGED}` \
                 (critical problems go in `issues`, starting with \"CRITICAL:\")"
            ),
        ));
    };
    match stated.get(criterion) {
        Some(earlier) if *earlier != value => Err(InputError::invalid(
            path,
            format!("says {value} but another place says {criterion} is {earlier}"),
        )),
        _ => {
            stated.insert(criterion.to_owned(), value);
            Ok(())
        }
    }
}
