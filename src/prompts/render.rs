//! Rendering a prompt body with minijinja: `{{input}}` and the declared params. Undefined variables are
//! errors, never blank text.

use super::PromptError;
use super::front_matter::split_front_matter;
use minijinja::{Environment, UndefinedBehavior, Value};
use std::collections::BTreeMap;

/// Renders a prompt file (front matter and body) with `variables`; every declared param must be given.
pub fn render_prompt(
    file_text: &str,
    variables: &BTreeMap<String, serde_json::Value>,
) -> Result<String, PromptError> {
    let (front_matter, body) = split_front_matter(file_text)?;
    if let Some(missing) = front_matter
        .params
        .iter()
        .find(|name| !variables.contains_key(*name))
    {
        return Err(PromptError::MissingParam(missing.clone()));
    }
    let mut environment = Environment::new();
    environment.set_undefined_behavior(UndefinedBehavior::Strict);
    environment.set_keep_trailing_newline(true);
    environment
        .render_str(body, Value::from_serialize(variables))
        .map_err(|error| PromptError::Render(error.to_string()))
}
