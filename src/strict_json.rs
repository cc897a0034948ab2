//! JSON parsing that refuses duplicate keys. `serde_json::Value` keeps the last of two equal keys, so
//! `{"allComplete": false, "allComplete": true}` would read as true; here it is an error naming the key's
//! path. serde_json's recursion limit still guards the depth.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::collections::BTreeSet;
use std::fmt;

const DUPLICATE_MARKER: &str = "duplicate key at ";

/// Why a text is not strict JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictError {
    /// A key appears twice in one object; `path` names it (`checklist[0].id`).
    DuplicateKey { path: String },
    /// Not JSON; `eof` when the text ends inside a value.
    Syntax { message: String, eof: bool },
}

/// Parses one JSON value (nothing after it but white space), refusing duplicate keys.
pub fn parse_strict(text: &str) -> Result<Value, StrictError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = ValueSeed {
        path: String::new(),
    }
    .deserialize(&mut deserializer)
    .map_err(classify)?;
    deserializer.end().map_err(classify)?;
    Ok(value)
}

fn classify(error: serde_json::Error) -> StrictError {
    let message = error.to_string();
    match message.strip_prefix(DUPLICATE_MARKER) {
        Some(rest) => StrictError::DuplicateKey {
            path: rest
                .rsplit_once(" at line ")
                .map_or(rest, |(path, _)| path)
                .to_owned(),
        },
        None => StrictError::Syntax {
            eof: error.is_eof(),
            message,
        },
    }
}

struct ValueSeed {
    path: String,
}

impl ValueSeed {
    fn child(&self, key: &str) -> Self {
        let path = if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        };
        Self { path }
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number out of range"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ValueSeed {
            path: format!("{}[{}]", self.path, items.len()),
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let child = self.child(&key);
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!(
                    "{DUPLICATE_MARKER}{}",
                    child.path
                )));
            }
            let value = map.next_value_seed(child)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}
