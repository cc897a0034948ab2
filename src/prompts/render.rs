//! Rendering a prompt body with the upon template engine (`{{ input }}`, `{{ step_id }}`, conditionals and
//! loops). An undefined variable is an error, never blank text; nothing is HTML-escaped.

use super::PromptError;
use super::front_matter::split_front_matter;
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
    let engine = upon::Engine::new();
    let template = engine
        .compile(body)
        .map_err(|error| PromptError::Render(error.to_string()))?;
    template
        .render(&engine, variables)
        .to_string()
        .map_err(|error| PromptError::Render(error.to_string()))
}
