//! The answer's shape, checked against the same strict schema that was sent to the model, before the
//! typed parse: an array is never read as an object (serde would read `["...", true]` into a struct field
//! by field), `maxItems` holds, a key that is an alias of a field (`all_complete` for `allComplete`) or a
//! verdict word the answer does not have (`verdict`, `status`, ...) is an error, and so is, at any level, a
//! key that states a verdict, a completion, a status, an approval or a confidence (`isComplete`, `approved`,
//! `done`, `完了`) or restates a field (`confidenceLevel`); any other unknown key is removed and reported.

use super::bounds::{ListBound, named};
pub use super::restatement::folded;
use super::restatement::{key_restates_field, key_states_a_verdict};
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
    bounds: &[ListBound],
) -> Result<Vec<String>, ShapeError> {
    let mut ignored = Vec::new();
    let mut walker = Walker {
        verdict_words,
        bounds,
        ignored: &mut ignored,
    };
    walker.walk(value, schema, true, "")?;
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

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

struct Walker<'a> {
    verdict_words: &'a [&'a str],
    bounds: &'a [ListBound],
    ignored: &'a mut Vec<String>,
}

impl Walker<'_> {
    /// Checks one node; verdict words are errors only among the top-level keys (`top`).
    fn walk(
        &mut self,
        value: &mut Value,
        schema: &Value,
        top: bool,
        path: &str,
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
                        return Err(self.too_long(path, items.len(), max));
                    }
                }
                let Some(item_schema) = schema.get("items") else {
                    return Ok(());
                };
                for (index, item) in items.iter_mut().enumerate() {
                    self.walk(item, item_schema, false, &format!("{path}[{index}]"))?;
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
                    let verdict_word = top
                        && self
                            .verdict_words
                            .iter()
                            .any(|word| folded(word) == folded(&key));
                    // A field the schema does not have is never dropped unread when it says what the
                    // answer's own fields say: a verdict, a status, an approval, a confidence, a field.
                    if verdict_word || key_states_a_verdict(&key) {
                        return Err(ShapeError {
                            path: here,
                            message: format!(
                                "`{key}` is not a field of this answer and states a verdict, a completion, a \
                                 status, an approval or a confidence: the answer is read only from its own fields"
                            ),
                        });
                    }
                    let own: Vec<String> = properties.keys().cloned().collect();
                    if let Some(field) = key_restates_field(&key, &own) {
                        return Err(ShapeError {
                            path: here,
                            message: format!(
                                "`{key}` is not a field of this answer and restates its field `{field}`: the \
                                 answer is read only from its own fields"
                            ),
                        });
                    }
                    object.remove(&key);
                    self.ignored.push(here);
                }
                for (key, field_schema) in properties {
                    if let Some(field) = object.get_mut(key) {
                        self.walk(field, field_schema, false, &join(path, key))?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A list past its `maxItems`: the error names the option that sets the bound, when one does.
    fn too_long(&self, path: &str, count: usize, max: u64) -> ShapeError {
        let message = match named(self.bounds, path) {
            Some(bound) => bound.too_long(count),
            None => format!("{count} items; the schema allows at most {max}"),
        };
        ShapeError {
            path: path.to_owned(),
            message,
        }
    }
}
