//! The persona declaration (seed 000 "人格宣言") that opens an inspection log when a persona is installed.

use super::types::{Language, Persona};

/// The declaration's first lines, which an inspection log must start with.
pub fn declaration_heading(persona: &Persona, language: Language) -> String {
    match language {
        Language::Ja => format!(
            "## 人格宣言\n\n私は今回、{} として検査します。\n",
            persona.name
        ),
        Language::En => format!(
            "## Persona declaration\n\nThis time I inspect as {}.\n",
            persona.name
        ),
    }
}

/// The whole declaration, as the seed lays it out.
pub fn persona_declaration(
    persona: &Persona,
    executor: Option<&Persona>,
    language: Language,
) -> String {
    let (executor_name, blindspot) = match executor {
        Some(executor) if !executor.blindspot.trim().is_empty() => {
            (executor.name.as_str(), executor.blindspot.as_str())
        }
        Some(executor) => (executor.name.as_str(), "-"),
        None => ("-", "-"),
    };
    let viewpoint = if persona.values.is_empty() {
        persona.distortion.clone()
    } else {
        persona.values.join(", ")
    };
    let heading = declaration_heading(persona, language);
    match language {
        Language::Ja => format!(
            "{heading}\n歪み: {}\n\nexecutor の人格: {executor_name}\nexecutor の盲点: {blindspot}\n\n私がカバーすべき盲点:\n  {blindspot} を私の視点（{viewpoint}）から検査する。\n",
            persona.distortion
        ),
        Language::En => format!(
            "{heading}\nDistortion: {}\n\nExecutor persona: {executor_name}\nExecutor blind spot: {blindspot}\n\nWhat I must cover:\n  {blindspot}, inspected from my viewpoint ({viewpoint}).\n",
            persona.distortion
        ),
    }
}
