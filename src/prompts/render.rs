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
    check_nesting(body)?;
    let engine = upon::Engine::new();
    let template = engine
        .compile(body)
        .map_err(|error| PromptError::Render(error.to_string()))?;
    template
        .render(&engine, variables)
        .to_string()
        .map_err(|error| PromptError::Render(error.to_string()))
}

/// The deepest nesting of `(` and `[` allowed inside a template tag.
pub const MAX_TAG_NESTING: usize = 64;

/// The template engine parses expressions recursively with no depth limit: thousands of nested brackets
/// inside a `{{` or `{%` tag exhaust the stack (a trap in wasm). Such a body is refused before it is parsed.
fn check_nesting(body: &str) -> Result<(), PromptError> {
    let bytes = body.as_bytes();
    let mut in_tag = false;
    let mut depth = 0usize;
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let next = bytes.get(index + 1).copied();
        match (in_tag, byte, next) {
            (false, b'{', Some(b'{' | b'%')) => {
                in_tag = true;
                depth = 0;
                index += 1;
            }
            (true, b'}' | b'%', Some(b'}')) => {
                in_tag = false;
                index += 1;
            }
            (true, b'(' | b'[', _) => {
                depth += 1;
                if depth > MAX_TAG_NESTING {
                    return Err(PromptError::Render(format!(
                        "an expression is nested more than {MAX_TAG_NESTING} levels deep"
                    )));
                }
            }
            (true, b')' | b']', _) => depth = depth.saturating_sub(1),
            _ => {}
        }
        index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables() -> BTreeMap<String, serde_json::Value> {
        BTreeMap::from([("input".to_owned(), serde_json::json!("the input"))])
    }

    #[test]
    fn deeply_nested_brackets_in_a_tag_are_refused_instead_of_exhausting_the_stack() {
        // Found by the prompt_rendering fuzz target: 6,500 nested brackets overflowed the stack.
        let found = include_str!("../../tests/fixtures/prompt-nested-brackets.txt");
        assert!(matches!(
            render_prompt(found, &variables()),
            Err(PromptError::Render(_))
        ));
        let deep = format!("{{{{ {}input{} }}}}", "(".repeat(65), ")".repeat(65));
        assert!(
            matches!(render_prompt(&deep, &variables()), Err(PromptError::Render(why)) if why.contains("64 levels"))
        );
    }

    #[test]
    fn ordinary_nesting_and_brackets_outside_tags_still_render() {
        let nested = format!("{{{{ {}input{} }}}}", "(".repeat(10), ")".repeat(10));
        assert_eq!(
            render_prompt(&nested, &variables()).ok().as_deref(),
            Some("the input")
        );
        let prose = format!("{} notes {{{{ input }}}}", "(".repeat(200));
        assert!(render_prompt(&prose, &variables()).is_ok());
    }
}
