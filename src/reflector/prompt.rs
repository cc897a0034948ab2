//! PromptBuilder (requirement 4): one template per dataset, `reflector/{dataset}.md`, read from the host's
//! prompts directory first and from the embedded prompts/ second; `reflector/default.md` when the dataset
//! has none. Trajectory, ground truth, test report and the used bullets are rendered into it.

use super::models::{Insight, Trajectory};
use crate::ports::PromptLoader;
use crate::prompts::embedded::embedded_prompt;
use crate::prompts::{PromptError, render_prompt};
use serde_json::Value;
use std::collections::BTreeMap;

pub struct PromptBuilder<L> {
    loader: L,
    /// The host's prompts directory (e.g. `/repo/prompts`); empty for the embedded templates only.
    root: String,
}

/// A built prompt and the template it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltPrompt {
    pub text: String,
    pub template: String,
    /// The dataset had no template of its own.
    pub used_default: bool,
}

impl<L: PromptLoader> PromptBuilder<L> {
    pub fn new(loader: L, root: &str) -> Self {
        Self {
            loader,
            root: root.trim_end_matches('/').to_owned(),
        }
    }

    /// The template for `dataset`: (path, text, whether it is the default one).
    pub async fn template(&self, dataset: &str) -> Result<(String, String, bool), PromptError> {
        if dataset.is_empty() || dataset.contains(['/', '\\']) || dataset.contains("..") {
            return Err(PromptError::InvalidSegment {
                name: "dataset",
                value: dataset.to_owned(),
            });
        }
        let mut tried = Vec::new();
        for (file, is_default) in [
            (format!("reflector/{dataset}.md"), dataset == "default"),
            ("reflector/default.md".to_owned(), true),
        ] {
            if !self.root.is_empty() {
                let path = format!("{}/{file}", self.root);
                if let Some(text) = self
                    .loader
                    .load(&path)
                    .await
                    .map_err(|error| PromptError::Loader(error.message))?
                {
                    return Ok((path, text, is_default));
                }
                tried.push(path);
            }
            if let Some(text) = embedded_prompt(&file) {
                return Ok((format!("prompts/{file}"), text.to_owned(), is_default));
            }
            tried.push(format!("prompts/{file}"));
        }
        Err(PromptError::NotFound { tried })
    }

    pub async fn build(
        &self,
        dataset: &str,
        trajectory: &Trajectory,
        ground_truth: &str,
        test_report: &str,
        used_bullets: &str,
        previous_insights: &[Insight],
    ) -> Result<BuiltPrompt, PromptError> {
        let (template, text, used_default) = self.template(dataset).await?;
        let steps = if trajectory.reasoning_steps.is_empty() {
            "(none recorded)".to_owned()
        } else {
            trajectory
                .reasoning_steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{}. {s}", i + 1))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let previous = if previous_insights.is_empty() {
            "(first round)".to_owned()
        } else {
            serde_json::to_string_pretty(previous_insights).unwrap_or_default()
        };
        let or_none = |text: &str| {
            if text.trim().is_empty() {
                "(none)".to_owned()
            } else {
                text.to_owned()
            }
        };
        let variables: BTreeMap<String, Value> = [
            ("query", trajectory.query.clone()),
            ("generated_result", or_none(&trajectory.generated_result)),
            ("reasoning_steps", steps),
            ("ground_truth", or_none(ground_truth)),
            ("test_report", or_none(test_report)),
            ("used_bullets", or_none(used_bullets)),
            ("previous_insights", previous),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), Value::String(value)))
        .collect();
        Ok(BuiltPrompt {
            text: render_prompt(&text, &variables)?,
            template,
            used_default,
        })
    }
}
