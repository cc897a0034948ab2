//! Request bodies read one way for every host: strict JSON (a key twice in one object is refused) nested at
//! most a stated depth. Checked without building a value (the host's own parser then reads the text, which
//! now means the same to both): the walk counts depth and remembers each object's keys, and serde_json's
//! recursion limit (128) stops it before the stack could run out.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::collections::BTreeSet;
use std::fmt;

const DUPLICATE_MARKER: &str = "duplicate key at ";
const TOO_DEEP_MARKER: &str = "nested too deeply";

/// Why a request body is not accepted as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// A key appears twice in one object; `path` names it (`evidence.closer.verdict`).
    DuplicateKey { path: String },
    /// Nested deeper than `max_depth` levels.
    TooDeep { max_depth: usize },
    /// Not one JSON value.
    Syntax { message: String },
}

/// Checks that `text` is one strict JSON value nested at most `max_depth` levels.
pub fn check_body(text: &str, max_depth: usize) -> Result<(), BodyError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let walked = Walk {
        path: String::new(),
        depth: 0,
        max_depth,
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end());
    walked.map_err(|error| {
        let message = error.to_string();
        if let Some(rest) = message.strip_prefix(DUPLICATE_MARKER) {
            let path = rest.rsplit_once(" at line ").map_or(rest, |(path, _)| path);
            BodyError::DuplicateKey {
                path: path.to_owned(),
            }
        } else if message.starts_with(TOO_DEEP_MARKER) || message.starts_with("recursion limit") {
            BodyError::TooDeep { max_depth }
        } else {
            BodyError::Syntax { message }
        }
    })
}

struct Walk {
    path: String,
    depth: usize,
    max_depth: usize,
}

impl Walk {
    fn child(&self, segment: fmt::Arguments<'_>) -> Self {
        Self {
            path: format!("{}{segment}", self.path),
            depth: self.depth + 1,
            max_depth: self.max_depth,
        }
    }

    fn enter<E: de::Error>(&self) -> Result<(), E> {
        if self.depth >= self.max_depth {
            Err(E::custom(TOO_DEEP_MARKER))
        } else {
            Ok(())
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.enter()?;
        let mut index = 0_usize;
        while seq
            .next_element_seed(self.child(format_args!("[{index}]")))?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.enter()?;
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let separator = if self.path.is_empty() { "" } else { "." };
            let child = self.child(format_args!("{separator}{key}"));
            if !seen.insert(key) {
                return Err(de::Error::custom(format!(
                    "{DUPLICATE_MARKER}{}",
                    child.path
                )));
            }
            map.next_value_seed(child)?;
        }
        Ok(())
    }
}
