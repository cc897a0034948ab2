//! The answer's shape, checked against the same strict schema that was sent to the model, before the
//! typed parse: an array is never read as an object (serde would read `["...", true]` into a struct field
//! by field), `maxItems` holds, a key that is an alias of a field (`all_complete` for `allComplete`) or a
//! verdict word the answer does not have (`verdict`, `status`, ...) is an error, and any other unknown key
//! is removed and reported.

use serde_json::Value;

/// A shape error: the path of the bad part and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub path: String,
    pub message: String,
}

/// Checks `value` against `schema`, removing unknown keys; returns the paths of the removed keys.
pub fn conform(
    value: &mut Value,
    schema: &Value,
    verdict_words: &[&str],
) -> Result<Vec<String>, ShapeError> {
    let mut ignored = Vec::new();
    walk(value, schema, verdict_words, "", &mut ignored)?;
    Ok(ignored)
}

/// The names of the top-level properties a schema declares.
pub fn top_level_fields(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

fn allows(schema: &Value, kind: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(single)) => single == kind,
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k.as_str() == Some(kind)),
        _ => false,
    }
}

/// Lower case without `_` and `-`: `all_complete`, `allComplete` and `AllComplete` are one name.
pub fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn walk(
    value: &mut Value,
    schema: &Value,
    verdict_words: &[&str],
    path: &str,
    ignored: &mut Vec<String>,
) -> Result<(), ShapeError> {
    match value {
        Value::Array(items) if allows(schema, "object") && !allows(schema, "array") => {
            Err(ShapeError {
                path: path.to_owned(),
                message: format!("expected an object, got an array of {}", items.len()),
            })
        }
        Value::Array(items) => {
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
                if items.len() as u64 > max {
                    return Err(ShapeError {
                        path: path.to_owned(),
                        message: format!("{} items; the schema allows at most {max}", items.len()),
                    });
                }
            }
            let Some(item_schema) = schema.get("items") else {
                return Ok(());
            };
            for (index, item) in items.iter_mut().enumerate() {
                walk(item, item_schema, &[], &format!("{path}[{index}]"), ignored)?;
            }
            Ok(())
        }
        Value::Object(object) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return Ok(());
            };
            let unknown: Vec<String> = object
                .keys()
                .filter(|key| !properties.contains_key(*key))
                .cloned()
                .collect();
            for key in unknown {
                let here = join(path, &key);
                if let Some(field) = properties
                    .keys()
                    .find(|field| folded(field) == folded(&key))
                {
                    return Err(ShapeError {
                        path: here,
                        message: format!("`{key}` is another spelling of the field `{field}`"),
                    });
                }
                if verdict_words
                    .iter()
                    .any(|word| folded(word) == folded(&key))
                {
                    return Err(ShapeError {
                        path: here,
                        message: format!(
                            "`{key}` is not a field of this answer; the verdict is read only from its own fields"
                        ),
                    });
                }
                object.remove(&key);
                ignored.push(here);
            }
            for (key, field_schema) in properties {
                if let Some(field) = object.get_mut(key) {
                    walk(field, field_schema, &[], &join(path, key), ignored)?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
