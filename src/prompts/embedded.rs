//! The default prompts under prompts/, compiled in so a host needs no files at all.

/// `(path, text)` for each listed file under prompts/.
macro_rules! embedded_files {
    ($($path:literal),* $(,)?) => {
        [$(($path, include_str!(concat!("../../prompts/", $path)))),*]
    };
}

const EMBEDDED: [(&str, &str); 11] = embedded_files![
    "steps/complete/issue/f_default.md",
    "steps/complete/issue/f_default_retry.md",
    "steps/complete/task/f_default.md",
    "steps/complete/task/f_default_retry.md",
    "steps/complete/pr/f_default.md",
    "steps/complete/pr/f_default_retry.md",
    "steps/review/watcher/f_default.md",
    "steps/judge/next_action/f_default.md",
    "steps/review/watcher/f_default_persona.md",
    "reflector/default.md",
    "reflector/appworld.md",
];

/// The embedded file at `path` (relative to prompts/), if there is one.
pub fn embedded_prompt(path: &str) -> Option<&'static str> {
    EMBEDDED
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(_, text)| *text)
}

/// Every embedded path.
pub fn embedded_paths() -> impl Iterator<Item = &'static str> {
    EMBEDDED.iter().map(|(name, _)| *name)
}
