//! Asking the judge: the C3L prompt `steps/judge/next_action` (a host file first, then the embedded
//! default) rendered with the situation (the goal always in it), the memory, the playbook and, only after a
//! failure, the execution log's tail; the model answers the strict [`ModelJudgement`] schema, re-asked once
//! when unusable. Every failure is an error text for `JudgementFailed`, so the loop stops: a model's answer
//! never makes the loop act by default.

use super::judgement_answer::{ModelJudgement, judgement_schema};
use super::state::{ActionResult, Declined, Situation};
use super::text::one_line;
use crate::llm::{ParseOptions, ask_structured};
use crate::ports::{Llm, NoLogger, PromptLoader};
use crate::prompts::{PromptRequest, render_prompt, resolve_prompt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use tsify::Tsify;

/// The most characters of one rendered section (an observation, the memory, the log tail): a prompt stays
/// within a small model's context whatever the host observes.
pub const MAX_SECTION_CHARS: usize = 12_000;

/// An action type the agent can execute, as the judge is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct ActionTypeInfo {
    #[serde(rename = "type")]
    pub action_type: String,
    /// What it does, in one line.
    #[serde(default)]
    #[tsify(optional)]
    pub description: String,
}

/// Everything one judgement is asked with. `situation` and `memory` come from the `ask_judge` effect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct JudgeRequest {
    pub situation: Situation,
    #[serde(default)]
    #[tsify(optional)]
    pub memory: Vec<ActionResult>,
    /// What people declined, newest last (the `ask_judge` effect's `declined`): their words reach the judge.
    #[serde(default)]
    #[tsify(optional)]
    pub declined: Vec<Declined>,
    /// People's replies (the `ask_judge` effect's `replies`): their words, quoted, never an instruction.
    #[serde(default)]
    #[tsify(optional)]
    pub replies: Vec<String>,
    #[serde(default)]
    #[tsify(optional)]
    pub action_types: Vec<ActionTypeInfo>,
    /// Settings self-modification may change, with their current values.
    #[serde(default)]
    #[tsify(optional, type = "Record<string, unknown>")]
    pub settings: BTreeMap<String, Value>,
    /// The rendered playbook (the Reflector's lessons), if any.
    #[serde(default)]
    #[tsify(optional)]
    pub playbook: Option<String>,
    /// The execution log's tail; give it only when the effect asks for it (after a failure or an error).
    #[serde(default)]
    #[tsify(optional)]
    pub log_tail: Option<String>,
}

/// Where the judge's prompt file is looked for: `{working_dir}/.agent/{agent_id}/prompts/...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgePromptLocation {
    pub working_dir: String,
    pub agent_id: String,
}

/// What asking the judge gave: `ok` with the judgement, or the error; and what was sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct JudgeOutcome {
    pub ok: bool,
    /// Set when `ok`.
    pub judgement: Option<super::event::Judgement>,
    /// Why there is no judgement (then the host sends `judgement_failed` and the loop stops).
    pub error: Option<String>,
    /// The prompt file used (`null` when none could be resolved).
    pub prompt_path: Option<String>,
    /// How many times the model was asked.
    pub queries: u32,
    /// What the used answer needed to be read.
    pub repairs: Vec<crate::llm::Repair>,
}

impl JudgeOutcome {
    fn failed(error: String, prompt_path: Option<String>, queries: u32) -> Self {
        Self {
            ok: false,
            judgement: None,
            error: Some(error),
            prompt_path,
            queries,
            repairs: Vec::new(),
        }
    }
}

fn bounded(text: String) -> String {
    if text.chars().count() <= MAX_SECTION_CHARS {
        return text;
    }
    let kept: String = text.chars().take(MAX_SECTION_CHARS).collect();
    format!("{kept}\n… (cut at {MAX_SECTION_CHARS} characters)")
}

/// The newest part of a text whose lines run oldest first (the log's tail, past results): its last
/// [`MAX_SECTION_CHARS`] characters, from a line start.
fn newest(text: String) -> String {
    let count = text.chars().count();
    if count <= MAX_SECTION_CHARS {
        return text;
    }
    let kept: String = text.chars().skip(count - MAX_SECTION_CHARS).collect();
    let from_line = kept
        .find('\n')
        .map_or(kept.as_str(), |at| kept.get(at + 1..).unwrap_or(""));
    format!("… (older lines cut: {MAX_SECTION_CHARS} characters kept)\n{from_line}")
}

/// Text from outside the loop (observations, skill results, the log, settings the model set) as the prompt
/// carries it: one JSON string literal, so its newlines, quotes and markup are escaped (`<` and `>` too).
/// It can neither start a line of the prompt, open a section, nor close the data block it sits in.
pub fn quoted(text: &str) -> String {
    crate::input::to_json_string(&text)
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('\u{85}', "\\u0085")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn observation(value: &Value) -> String {
    match value {
        Value::Null => quoted("(nothing reported)"),
        Value::String(text) => quoted(&bounded(text.clone())),
        other => quoted(&bounded(
            serde_json::to_string_pretty(other).unwrap_or_default(),
        )),
    }
}

fn memory_lines(memory: &[ActionResult]) -> String {
    if memory.is_empty() {
        return quoted("(none yet)");
    }
    let lines: Vec<String> = memory
        .iter()
        .map(|result| {
            let action = &result.action;
            let outcome = if result.succeeded {
                format!("done ({})", result.detail)
            } else {
                format!("FAILED ({})", result.detail)
            };
            format!(
                "- {} [{}] {}: {outcome}",
                action.id,
                action.action_type,
                action.what()
            )
        })
        .collect();
    quoted(&newest(lines.join("\n")))
}

/// What people declined, as their words: each change's line and the person's reason, one quoted line each
/// (a person's words, kept apart from the prompt's own lines). Empty when nothing was declined.
fn declined_lines(declined: &[Declined]) -> String {
    declined
        .iter()
        .map(|declined| match &declined.reason {
            Some(reason) => format!(
                "- declined: {}; the person said: {}",
                quoted(&one_line(&declined.what)),
                quoted(&one_line(reason))
            ),
            None => format!(
                "- declined: {}; the person gave no reason",
                quoted(&one_line(&declined.what))
            ),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn action_type_lines(types: &[ActionTypeInfo]) -> String {
    if types.is_empty() {
        return "(none: reply or wait)".to_owned();
    }
    types
        .iter()
        .map(|info| {
            // The host's names and words, still kept to one line each.
            let name = super::display::display_identifier(&info.action_type);
            if info.description.trim().is_empty() {
                format!("- {name}")
            } else {
                format!("- {name}: {}", one_line(&info.description))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn setting_lines(settings: &BTreeMap<String, Value>) -> String {
    if settings.is_empty() {
        return quoted("(none)");
    }
    let lines = settings
        .iter()
        .map(|(key, value)| format!("- {key} = {}", crate::input::to_json_string(value)))
        .collect::<Vec<_>>()
        .join("\n");
    quoted(&bounded(lines))
}

/// The prompt's variables for `request`.
pub fn prompt_variables(request: &JudgeRequest) -> BTreeMap<String, Value> {
    let situation = &request.situation;
    let mut variables = BTreeMap::new();
    let mut set = |key: &str, value: String| {
        variables.insert(key.to_owned(), Value::from(value));
    };
    set("goal", one_line(&situation.goal));
    set("external", observation(&situation.external));
    set("internal", observation(&situation.internal));
    set(
        "instruction",
        bounded(situation.instruction.clone().unwrap_or_default()),
    );
    set("memory", memory_lines(&request.memory));
    set("declined", declined_lines(&request.declined));
    // Each reply one quoted line: a person's words, which can open no section of the prompt.
    let replies = request
        .replies
        .iter()
        .map(|reply| format!("- {}", quoted(&bounded(reply.clone()))))
        .collect::<Vec<_>>()
        .join("\n");
    set("replies", replies);
    set("action_types", action_type_lines(&request.action_types));
    set("settings", setting_lines(&request.settings));
    // Empty stays empty: the template leaves the section out.
    let data = |text: Option<&String>| match text.filter(|text| !text.trim().is_empty()) {
        Some(text) => quoted(&bounded(text.clone())),
        None => String::new(),
    };
    set("playbook", data(request.playbook.as_ref()));
    let tail = request
        .log_tail
        .as_ref()
        .filter(|text| !text.trim().is_empty())
        .map_or_else(String::new, |text| quoted(&newest(text.clone())));
    set("log_tail", tail);
    variables
}

/// Asks the judge once (and once more when the answer is unusable).
pub async fn ask_judge(
    llm: &impl Llm,
    loader: &impl PromptLoader,
    location: &JudgePromptLocation,
    request: &JudgeRequest,
) -> JudgeOutcome {
    let prompt_request = PromptRequest {
        working_dir: &location.working_dir,
        agent_id: &location.agent_id,
        c2: "judge",
        c3: "next_action",
        edition: "default",
        adaptation: None,
    };
    let failed = JudgeOutcome::failed;
    let resolved = match resolve_prompt(loader, &prompt_request).await {
        Ok(resolved) => resolved,
        Err(error) => return failed(format!("the judge's prompt: {error}"), None, 0),
    };
    let prompt = match render_prompt(&resolved.text, &prompt_variables(request)) {
        Ok(prompt) => prompt,
        Err(error) => {
            return failed(
                format!("the judge's prompt: {error}"),
                Some(resolved.path),
                0,
            );
        }
    };
    let asked = ask_structured::<ModelJudgement>(
        llm,
        &prompt,
        &judgement_schema(),
        1,
        &NoLogger,
        ParseOptions::default(),
    )
    .await;
    let types: Vec<String> = request
        .action_types
        .iter()
        .map(|info| info.action_type.clone())
        .collect();
    match asked.answer {
        Err(error) => failed(error.to_string(), Some(resolved.path), asked.queries),
        Ok(parsed) => match parsed.value.into_judgement(&types) {
            Ok(judgement) => JudgeOutcome {
                ok: true,
                judgement: Some(judgement),
                error: None,
                prompt_path: Some(resolved.path),
                queries: asked.queries,
                repairs: parsed.repairs,
            },
            Err(error) => failed(error, Some(resolved.path), asked.queries),
        },
    }
}
