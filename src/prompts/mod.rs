//! Prompt files: C3L resolution (`steps/{c2}/{c3}/f_{edition}[_{adaptation}].md`) through a host loader with
//! embedded defaults, front matter (`params:`), and rendering with minijinja.

pub mod c3l;
pub mod embedded;
pub mod front_matter;
pub mod render;

pub use c3l::{
    PromptRequest, PromptSource, ResolutionStatus, ResolvedPrompt, resolve_exact_prompt,
    resolve_prompt,
};
pub use front_matter::{FrontMatter, split_front_matter};
pub use render::render_prompt;

use std::fmt;

/// Why a prompt could not be produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptError {
    /// No candidate file exists; every path tried, in order.
    NotFound { tried: Vec<String> },
    /// A path segment (agent id, c2, c3, edition, adaptation) is unusable.
    InvalidSegment { name: &'static str, value: String },
    /// The front matter does not parse.
    FrontMatter(String),
    /// A parameter the front matter declares was not given.
    MissingParam(String),
    /// The template does not render.
    Render(String),
    /// The host loader failed.
    Loader(String),
}

impl PromptError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } => "prompt_not_found",
            Self::InvalidSegment { .. } => "invalid_input",
            Self::FrontMatter(_) => "prompt_front_matter",
            Self::MissingParam(_) => "prompt_missing_param",
            Self::Render(_) => "prompt_render",
            Self::Loader(_) => "prompt_loader",
        }
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound { tried } => {
                write!(f, "no prompt file found; tried: {}", tried.join(", "))
            }
            Self::InvalidSegment { name, value } => {
                write!(
                    f,
                    "{name} `{value}` must be a non-empty name without `/`, `\\` or `..`"
                )
            }
            Self::FrontMatter(why) => write!(f, "front matter: {why}"),
            Self::MissingParam(name) => {
                write!(f, "the prompt declares param `{name}`, which was not given")
            }
            Self::Render(why) => write!(f, "the prompt does not render: {why}"),
            Self::Loader(why) => write!(f, "the prompt loader failed: {why}"),
        }
    }
}
