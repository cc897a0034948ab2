//! JSON Schema for structured output, generated from the Rust type that parses the answer, in the form
//! OpenAI strict mode, llama.cpp and Ollama all accept: every property required (optional ones nullable),
//! `additionalProperties: false`, no `$ref` (subschemas inlined), no annotations they reject.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

/// A named schema for one kind of answer.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    pub name: String,
    pub schema: Value,
}

impl OutputSchema {
    /// The strict schema of `T`. Arrays are capped where `T` says so (`#[schemars(length(max = N))]`).
    pub fn of<T: JsonSchema>(name: &str) -> Self {
        let settings = SchemaSettings::draft07().with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        });
        let root = settings.into_generator().into_root_schema_for::<T>();
        let mut schema = root.to_value();
        make_strict(&mut schema);
        Self {
            name: name.to_owned(),
            schema,
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

/// Keywords that describe rather than constrain; strict validators reject some of them.
const DROPPED_KEYWORDS: [&str; 5] = ["$schema", "title", "format", "default", "examples"];

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
