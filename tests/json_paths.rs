//! The path locator (`agent_governor::json_path`) against serde_path_to_error, the library it replaces:
//! every leaf of real inputs is broken in every way (wrong type, removed, an unknown member added) and
//! both must name the same field (an unknown member by its own key, a missing one by its name; an array
//! refused at its first byte may be named as the array or as its first element).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod support;

use agent_governor::executor::check::CheckInput;
use agent_governor::executor::{Confirmation, ConfirmationDraft, ExecutorRequest};
use agent_governor::input::parse_json_str;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use support::*;

/// Every mutation of `value`: each leaf replaced by values of other types, each member removed, and an
/// unknown member added to each object.
fn mutations(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let replacements = [
        json!(7),
        json!("text"),
        json!(true),
        json!(null),
        json!([1]),
        json!({"k": 1}),
    ];
    visit(value, &mut Vec::new(), &mut |path, node| {
        for replacement in &replacements {
            if replacement != node {
                out.push(replaced(value, path, Some(replacement.clone())));
            }
        }
        if !path.is_empty() {
            out.push(replaced(value, path, None));
        }
        if let Value::Object(_) = node {
            let mut with_unknown = node.clone();
            with_unknown["unexpected_member"] = json!(1);
            out.push(replaced(value, path, Some(with_unknown)));
        }
    });
    out
}

fn visit(value: &Value, path: &mut Vec<String>, each: &mut dyn FnMut(&[String], &Value)) {
    each(path, value);
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                path.push(key.clone());
                visit(member, path, each);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(index.to_string());
                visit(item, path, each);
                path.pop();
            }
        }
        _ => {}
    }
}

/// `value` with the node at `path` replaced (`None`: removed).
fn replaced(value: &Value, path: &[String], with: Option<Value>) -> Value {
    let mut copy = value.clone();
    let Some((last, parents)) = path.split_last() else {
        return with.unwrap_or(Value::Null);
    };
    let mut node = &mut copy;
    for segment in parents {
        node = match node {
            Value::Array(items) => &mut items[segment.parse::<usize>().unwrap()],
            other => &mut other[segment.as_str()],
        };
    }
    match (node, with) {
        (Value::Object(members), Some(with)) => {
            members.insert(last.clone(), with);
        }
        (Value::Object(members), None) => {
            members.remove(last);
        }
        (Value::Array(items), Some(with)) => items[last.parse::<usize>().unwrap()] = with,
        (Value::Array(items), None) => {
            items.remove(last.parse::<usize>().unwrap());
        }
        _ => {}
    }
    copy
}

/// The reference path, with the adjustments `parse_json_str` makes: a missing field is named itself.
fn reference_path<T: DeserializeOwned>(text: &str) -> Option<String> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let error = serde_path_to_error::deserialize::<_, T>(&mut deserializer).err()?;
    let path = error.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let message = error.inner().to_string();
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    Some(match missing {
        Some(field) if path.is_empty() => field.to_owned(),
        Some(field) => format!("{path}.{field}"),
        None => path,
    })
}

fn compare<T: DeserializeOwned>(label: &str, valid: Value) -> usize {
    assert!(
        parse_json_str::<T>(&valid.to_string()).is_ok(),
        "{label}: the valid input parses"
    );
    let mut compared = 0;
    let mut exact = 0;
    for mutated in mutations(&valid) {
        let text = mutated.to_string();
        let ours = parse_json_str::<T>(&text).err().map(|error| error.path);
        let reference = reference_path::<T>(&text);
        assert_eq!(
            ours.is_some(),
            reference.is_some(),
            "{label}: both accept or both refuse {text}"
        );
        let (Some(ours), Some(reference)) = (ours, reference) else {
            continue;
        };
        compared += 1;
        // Without the type at hand, a value that fails at the first byte of an array cannot always tell
        // whether the array itself or its first element was refused: `x` and `x[0]` name the same field.
        let same_field = ours == reference
            || ours.strip_prefix(reference.as_str()) == Some("[0]")
            || reference.strip_prefix(ours.as_str()) == Some("[0]");
        assert!(
            same_field,
            "{label}: ours `{ours}`, reference `{reference}` for {text}"
        );
        exact += usize::from(ours == reference);
    }
    println!("{label}: {exact} of {compared} paths identical, the rest `x` vs `x[0]`");
    compared
}

#[test]
fn the_located_path_is_serde_path_to_errors_for_every_broken_field() {
    let confirmation = confirmation("c-1", "node-1");
    let request = request_for(&confirmation);
    let draft: ConfirmationDraft = draft("node-1");
    let check_input = json!({
        "confirmation": confirmation, "request": request, "now": 1.0, "keys": {"k": "s"},
        "current_status": "todo", "clock_skew_ms": 10.0, "language": "ja",
    });
    let batch = json!([request, request]);
    let compared = compare::<Confirmation>(
        "Confirmation",
        serde_json::to_value(&confirmation).unwrap(),
    ) + compare::<ExecutorRequest>(
        "ExecutorRequest",
        serde_json::to_value(&request).unwrap(),
    ) + compare::<ConfirmationDraft>(
        "ConfirmationDraft",
        serde_json::to_value(&draft).unwrap(),
    ) + compare::<CheckInput>("CheckInput", check_input)
        + compare::<Vec<ExecutorRequest>>("a batch", batch)
        + compare::<agent_governor::closer::CloserInput>(
            "CloserInput",
            json!({"structuredOutput": {"status": "implemented", "items": [1, 2]}, "stepId": "complete.issue",
                   "c3l": {"c2": "complete", "c3": "issue"}}),
        )
        + compare::<agent_governor::watcher::WatcherInput>(
            "WatcherInput",
            json!({"executor_result": {"status": "completed", "artifacts": ["api.md"], "execution_log": "done",
                   "persona_applied": "Kent Beck"}, "original_request": "design the API",
                   "task_classification": "design"}),
        )
        + compare::<agent_governor::reflector::Trajectory>(
            "Trajectory",
            json!({"query": "q", "generated_result": "r", "reasoning_steps": ["s", "t"],
                   "used_bullet_ids": ["b-1"]}),
        )
        + compare::<Vec<agent_governor::playbook::delta::DeltaOp>>(
            "playbook deltas (a flattened, internally tagged enum)",
            json!([{"op_id": "o-1", "op": "ADD", "section": "s", "content": "c"},
                   {"op_id": "o-2", "op": "MERGE", "bullet_ids": ["a", "b"], "content": "c"}]),
        );
    println!("{compared} broken inputs located the same way");
    assert!(compared > 300, "only {compared} comparisons");
}

#[test]
fn an_unknown_field_is_named_with_the_field_meant() {
    let error = agent_governor::input::parse_json_str::<agent_governor::closer::DecisionOptions>(
        r#"{"confidenceTreshold":0.9}"#,
    )
    .unwrap_err();
    assert_eq!(error.path, "confidenceTreshold");
    assert_eq!(
        error.message,
        "`confidenceTreshold` is not a known field; did you mean `confidenceThreshold`?"
    );
    assert!(
        error
            .known_fields
            .iter()
            .any(|field| field == "requiredItems")
    );
    let far = agent_governor::input::parse_json_str::<agent_governor::closer::DecisionOptions>(
        r#"{"colour":1}"#,
    )
    .unwrap_err();
    assert!(
        far.message
            .starts_with("`colour` is not a known field (known: confidenceThreshold, "),
        "{}",
        far.message
    );
}
