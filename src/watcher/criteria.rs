//! The completion protocol's approval criteria wherever an answer writes them: inside `approval_criteria`
//! (the schema's place), or at the top level (`acknowledged_trade_offs`, `no_critical_issues`, and
//! `trade_offs_acknowledged`, the earlier spelling). Two places that disagree are an error, never a choice.

use crate::input::InputError;
use serde_json::{Map, Value};

const CRITERIA: &str = "approval_criteria";
const NO_CRITICAL: &str = "no_critical_issues";
const ACKNOWLEDGED: &str = "acknowledged_trade_offs";
/// Top-level spellings, each with the criterion it states.
const TOP_LEVEL: [(&str, &str); 3] = [
    (ACKNOWLEDGED, ACKNOWLEDGED),
    ("trade_offs_acknowledged", ACKNOWLEDGED),
    (NO_CRITICAL, NO_CRITICAL),
];

/// Whether an issue is critical: it starts with "CRITICAL" (any case), as the seed's example writes it.
pub fn is_critical(issue: &str) -> bool {
    issue.trim_start().to_uppercase().starts_with("CRITICAL")
}

/// Moves top-level criteria into `approval_criteria`; fills a missing `no_critical_issues` from the issues
/// list (no issue starting with "CRITICAL") and a missing `acknowledged_trade_offs` from `pass`.
pub fn gather_criteria(value: &mut Value) -> Result<(), InputError> {
    let Value::Object(answer) = value else {
        return Ok(());
    };
    let mut stated: Map<String, Value> = match answer.get(CRITERIA) {
        Some(Value::Object(criteria)) => criteria.clone(),
        // Another type is left to the shape check, which names it.
        Some(Value::Null) | None => Map::new(),
        Some(_) => return Ok(()),
    };
    let mut moved = false;
    for (key, criterion) in TOP_LEVEL {
        let Some(top) = answer.remove(key) else {
            continue;
        };
        moved = true;
        match stated.get(criterion) {
            Some(inside) if *inside != top => {
                return Err(InputError::invalid(
                    key,
                    format!("says {top} but {CRITERIA}.{criterion} says {inside}"),
                ));
            }
            _ => {
                stated.insert(criterion.to_owned(), top);
            }
        }
    }
    if !moved {
        return Ok(());
    }
    if !stated.contains_key(NO_CRITICAL) {
        let critical = answer
            .get("issues")
            .and_then(Value::as_array)
            .is_some_and(|issues| issues.iter().filter_map(Value::as_str).any(is_critical));
        stated.insert(NO_CRITICAL.to_owned(), Value::Bool(!critical));
    }
    if !stated.contains_key(ACKNOWLEDGED) {
        // In the seed's output shape the model's own `pass` is its trade-off judgement.
        if let Some(pass) = answer.get("pass").filter(|pass| pass.is_boolean()) {
            stated.insert(ACKNOWLEDGED.to_owned(), pass.clone());
        }
    }
    answer.insert(CRITERIA.to_owned(), Value::Object(stated));
    Ok(())
}
