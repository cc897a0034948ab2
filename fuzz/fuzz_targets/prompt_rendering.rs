//! Prompt files on any text: front matter and rendering give a prompt or a typed error, never a panic.
#![no_main]

use agent_governor::prompts::{render_prompt, split_front_matter};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = split_front_matter(&text);
    let mut variables = BTreeMap::new();
    variables.insert("input".to_owned(), serde_json::json!("the input"));
    variables.insert("step_id".to_owned(), serde_json::json!("s"));
    let _ = render_prompt(&text, &variables);
});
