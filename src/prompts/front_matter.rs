//! Front matter of a prompt file: a `---` block at the top declaring the parameters it needs.
//!
//! Only the `params` key is read, as a block list (`params:` then `  - name` lines) or a flow list
//! (`params: [a, b]`). Other keys are kept as unread lines; anything that is not `key: value` or a list
//! item is an error, so a typo is not silently ignored.

use super::PromptError;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrontMatter {
    pub params: Vec<String>,
}

/// Splits a prompt file into its front matter and its body.
pub fn split_front_matter(text: &str) -> Result<(FrontMatter, &str), PromptError> {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((FrontMatter::default(), text));
    };
    let (block, body) = find_closing(rest)
        .ok_or_else(|| PromptError::FrontMatter("the `---` block is never closed".to_owned()))?;
    Ok((parse_block(block)?, body))
}

fn find_closing(rest: &str) -> Option<(&str, &str)> {
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((rest.get(..offset)?, rest.get(offset + line.len()..)?));
        }
        offset += line.len();
    }
    None
}

fn parse_block(block: &str) -> Result<FrontMatter, PromptError> {
    let mut params = Vec::new();
    let mut current_key: Option<String> = None;
    for (number, raw) in block.lines().enumerate() {
        let line = raw.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if let Some(item) = line.trim_start().strip_prefix("- ") {
            match current_key.as_deref() {
                Some("params") => params.push(unquote(item)?),
                Some(_) => {}
                None => {
                    return Err(PromptError::FrontMatter(format!(
                        "line {}: a list item outside any key",
                        number + 1
                    )));
                }
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(PromptError::FrontMatter(format!(
                "line {}: expected `key: value`, got `{line}`",
                number + 1
            )));
        };
        let (key, value) = (key.trim(), value.trim());
        current_key = Some(key.to_owned());
        if key == "params" && !value.is_empty() {
            let inner = value
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .ok_or_else(|| {
                    PromptError::FrontMatter(format!("line {}: params must be a list", number + 1))
                })?;
            for item in inner
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
            {
                params.push(unquote(item)?);
            }
        }
    }
    Ok(FrontMatter { params })
}

fn unquote(item: &str) -> Result<String, PromptError> {
    let item = item.trim();
    let bare = item
        .strip_prefix('"')
        .and_then(|i| i.strip_suffix('"'))
        .or_else(|| item.strip_prefix('\'').and_then(|i| i.strip_suffix('\'')))
        .unwrap_or(item);
    if bare.is_empty() || !bare.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(PromptError::FrontMatter(format!(
            "`{item}` is not a parameter name"
        )));
    }
    Ok(bare.to_owned())
}
