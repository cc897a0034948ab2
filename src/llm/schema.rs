//! JSON Schema for structured output, generated from the Rust type that parses the answer, in the form
//! OpenAI strict mode, llama.cpp and Ollama all accept: every property required (optional ones nullable),
//! `additionalProperties: false`, no `$ref` (subschemas inlined), no annotations they reject.
//!
//! Generation runs natively ([`OutputSchema::of`]); the result is checked in next to the type and embedded
//! ([`OutputSchema::embedded`]), and a test fails when the two differ. So the schema comes from the type,
//! and the wasm module carries no generator.

use super::bounds::{ListBound, apply};
use serde_json::{Value, json};

/// A named schema for one kind of answer.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    pub name: String,
    pub schema: Value,
    /// The list bounds written into `schema`, with the options that set them (for errors that name them).
    pub bounds: Vec<ListBound>,
}

impl OutputSchema {
    /// A schema generated earlier by [`OutputSchema::of`] and embedded as JSON text.
    pub fn embedded(name: &str, text: &str) -> Self {
        Self {
            name: name.to_owned(),
            schema: serde_json::from_str(text).unwrap_or(Value::Null),
            bounds: Vec::new(),
        }
    }

    /// The same schema with each list bounded as `bounds` say (`maxItems`), replacing earlier bounds.
    pub fn bounded(mut self, bounds: &[ListBound]) -> Self {
        apply(&mut self.schema, bounds);
        self.bounds
            .retain(|old| !bounds.iter().any(|new| new.field == old.field));
        self.bounds.extend_from_slice(bounds);
        self
    }

    /// The strict schema of `T`. Lists get their bounds at run time, from options ([`OutputSchema::bounded`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn of<T: schemars::JsonSchema>(name: &str) -> Self {
        let settings = schemars::generate::SchemaSettings::draft07().with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        });
        let root = settings.into_generator().into_root_schema_for::<T>();
        let mut schema = root.to_value();
        make_strict(&mut schema);
        Self {
            name: name.to_owned(),
            schema,
            bounds: Vec::new(),
        }
    }

    /// OpenAI Chat Completions `response_format`.
    pub fn openai_response_format(&self) -> Value {
        json!({ "type": "json_schema", "json_schema": { "name": self.name, "strict": true, "schema": self.schema } })
    }

    /// llama.cpp server: the `json_schema` request field.
    pub fn llama_cpp_json_schema(&self) -> Value {
        self.schema.clone()
    }

    /// Ollama: the `format` request field.
    pub fn ollama_format(&self) -> Value {
        self.schema.clone()
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// Keywords that describe rather than constrain; strict validators reject some of them.
const DROPPED_KEYWORDS: [&str; 5] = ["$schema", "title", "format", "default", "examples"];

/// The pretty JSON text a schema is checked in as.
pub fn schema_file_text(schema: &Value) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(schema).unwrap_or_default()
    )
}

#[cfg(not(target_arch = "wasm32"))]
/// Rewrites one schema node and, through the keywords that hold subschemas, every node below it.
fn make_strict(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    for keyword in DROPPED_KEYWORDS {
        object.remove(keyword);
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.values_mut().for_each(make_strict);
        let every: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        object.insert("required".to_owned(), Value::Array(every));
        object.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    for keyword in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(schemas)) = object.get_mut(keyword) {
            schemas.iter_mut().for_each(make_strict);
        }
    }
    if let Some(items) = object.get_mut("items") {
        match items {
            Value::Array(schemas) => schemas.iter_mut().for_each(make_strict),
            other => make_strict(other),
        }
    }
    for keyword in ["definitions", "$defs"] {
        if let Some(Value::Object(definitions)) = object.get_mut(keyword) {
            definitions.values_mut().for_each(make_strict);
        }
    }
}
