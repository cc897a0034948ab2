//! C3L prompt resolution: host files first (`{workingDir}/.agent/{agentId}/prompts/...`), then the defaults
//! embedded in the module; an adaptation (e.g. `retry`) falls back to the plain edition.

use super::PromptError;
use super::embedded::embedded_prompt;
use crate::ports::PromptLoader;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// Which prompt is wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRequest<'a> {
    pub working_dir: &'a str,
    pub agent_id: &'a str,
    pub c2: &'a str,
    pub c3: &'a str,
    /// `"default"` unless the host uses editions.
    pub edition: &'a str,
    /// e.g. `Some("retry")`.
    pub adaptation: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum PromptSource {
    /// A file the host's loader returned.
    Host,
    /// A default compiled into the module.
    Embedded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub enum ResolutionStatus {
    /// The first choice (the requested edition and adaptation) exists.
    Found,
    /// A less specific file was used.
    Fallback,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedPrompt {
    pub status: ResolutionStatus,
    pub source: PromptSource,
    /// The path the text came from (host path, or `prompts/...` for an embedded default).
    pub path: String,
    /// The file's text, front matter included.
    pub text: String,
    /// Every path tried before it, in order.
    pub tried: Vec<String>,
}

fn check_segment(name: &'static str, value: &str) -> Result<(), PromptError> {
    if value.trim().is_empty()
        || value.contains(['/', '\\'])
        || value.contains("..")
        || value == "."
    {
        return Err(PromptError::InvalidSegment {
            name,
            value: value.to_owned(),
        });
    }
    Ok(())
}

/// File names to look for, most specific first, relative to the prompts root.
pub fn candidate_files(request: &PromptRequest<'_>) -> Result<Vec<String>, PromptError> {
    check_segment("agentId", request.agent_id)?;
    check_segment("c2", request.c2)?;
    check_segment("c3", request.c3)?;
    check_segment("edition", request.edition)?;
    let directory = format!("steps/{}/{}", request.c2, request.c3);
    let mut files = Vec::new();
    if let Some(adaptation) = request.adaptation {
        check_segment("adaptation", adaptation)?;
        files.push(format!("{directory}/f_{}_{adaptation}.md", request.edition));
    }
    files.push(format!("{directory}/f_{}.md", request.edition));
    if request.edition != "default" {
        files.push(format!("{directory}/f_default.md"));
    }
    Ok(files)
}

fn host_path(request: &PromptRequest<'_>, file: &str) -> String {
    let root = request.working_dir.trim_end_matches('/');
    let prefix = if root.is_empty() {
        String::new()
    } else {
        format!("{root}/")
    };
    format!("{prefix}.agent/{}/prompts/{file}", request.agent_id)
}

/// Resolves the prompt: each candidate from the host, then each candidate embedded.
pub async fn resolve_prompt(
    loader: &impl PromptLoader,
    request: &PromptRequest<'_>,
) -> Result<ResolvedPrompt, PromptError> {
    let files = candidate_files(request)?;
    resolve_among(loader, request, &files).await
}

/// Resolves only the most specific file (the host's, then the embedded one): a less specific file never
/// stands in. A persona review needs its own prompt even where the host overrides the plain one.
pub async fn resolve_exact_prompt(
    loader: &impl PromptLoader,
    request: &PromptRequest<'_>,
) -> Result<ResolvedPrompt, PromptError> {
    let files = candidate_files(request)?;
    resolve_among(loader, request, files.get(..1).unwrap_or_default()).await
}

async fn resolve_among(
    loader: &impl PromptLoader,
    request: &PromptRequest<'_>,
    files: &[String],
) -> Result<ResolvedPrompt, PromptError> {
    let mut tried = Vec::new();
    for (rank, file) in files.iter().enumerate() {
        let path = host_path(request, file);
        if let Some(text) = loader
            .load(&path)
            .await
            .map_err(|error| PromptError::Loader(error.message))?
        {
            return Ok(resolved(rank, PromptSource::Host, path, text, tried));
        }
        tried.push(path);
    }
    for (rank, file) in files.iter().enumerate() {
        let path = format!("prompts/{file}");
        if let Some(text) = embedded_prompt(file) {
            return Ok(resolved(
                rank,
                PromptSource::Embedded,
                path,
                text.to_owned(),
                tried,
            ));
        }
        tried.push(path);
    }
    Err(PromptError::NotFound { tried })
}

fn resolved(
    rank: usize,
    source: PromptSource,
    path: String,
    text: String,
    tried: Vec<String>,
) -> ResolvedPrompt {
    let status = if rank == 0 {
        ResolutionStatus::Found
    } else {
        ResolutionStatus::Fallback
    };
    ResolvedPrompt {
        status,
        source,
        path,
        text,
        tried,
    }
}
