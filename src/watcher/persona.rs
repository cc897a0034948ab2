//! Persona divergence (seed 000: executor and watcher personas must differ), a small catalog, and the
//! strategy that picks a watcher persona for an executor persona.

use super::types::Persona;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use tsify::Tsify;

/// Why two personas cannot be executor and watcher of one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(tag = "violation", rename_all = "snake_case")]
pub enum PersonaViolation {
    /// A persona has no name.
    UnnamedPersona { role: String },
    /// The names are the same once case and spacing are normalised.
    SameName { name: String },
    /// Different names, but the same values and anti-values: not a different viewpoint.
    SameValues { executor: String, watcher: String },
}

impl fmt::Display for PersonaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnnamedPersona { role } => write!(f, "the {role} persona has no name"),
            Self::SameName { name } => {
                write!(f, "the watcher persona is the executor persona ({name})")
            }
            Self::SameValues { executor, watcher } => {
                write!(
                    f,
                    "{watcher} holds exactly the values and anti-values of {executor}: not a different viewpoint"
                )
            }
        }
    }
}

/// How far apart two personas are, and whether the watcher can see what the executor cannot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct DivergenceReport {
    pub executor: Option<String>,
    pub watcher: Option<String>,
    /// 1 - Jaccard overlap of the normalised values and anti-values (1: nothing shared).
    pub score: f64,
    /// Values or anti-values both hold.
    pub shared: Vec<String>,
    /// The watcher's values or distortion touch the executor's blind spot.
    pub covers_blindspot: bool,
}

/// Lower case, runs of white space folded to one space, trimmed.
pub fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn value_set(persona: &Persona) -> BTreeSet<String> {
    let values = persona.values.iter().map(|v| format!("+{}", normalize(v)));
    let anti = persona
        .anti_values
        .iter()
        .map(|v| format!("-{}", normalize(v)));
    values.chain(anti).collect()
}

/// Character bigrams of the normalised text without spaces and punctuation: a language-agnostic overlap
/// measure (it works for Japanese as for English).
fn bigrams(text: &str) -> BTreeSet<(char, char)> {
    let letters: Vec<char> = normalize(text)
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    letters
        .windows(2)
        .filter_map(|pair| Some((*pair.first()?, *pair.get(1)?)))
        .collect()
}

fn covers(watcher: &Persona, blindspot: &str) -> bool {
    let target = bigrams(blindspot);
    let mut viewpoint = watcher.values.clone();
    viewpoint.push(watcher.distortion.clone());
    !target.is_empty()
        && viewpoint
            .iter()
            .any(|text| !bigrams(text).is_disjoint(&target))
}

/// Checks that the watcher persona differs from the executor persona, and reports how much.
/// A missing persona on either side cannot collide.
pub fn check_persona_divergence(
    executor: Option<&Persona>,
    watcher: Option<&Persona>,
) -> Result<DivergenceReport, PersonaViolation> {
    for (role, persona) in [("executor", executor), ("watcher", watcher)] {
        if persona.is_some_and(|p| p.name.trim().is_empty()) {
            return Err(PersonaViolation::UnnamedPersona {
                role: role.to_owned(),
            });
        }
    }
    let (Some(executor), Some(watcher)) = (executor, watcher) else {
        return Ok(DivergenceReport {
            executor: executor.map(|p| p.name.clone()),
            watcher: watcher.map(|p| p.name.clone()),
            score: 1.0,
            shared: Vec::new(),
            covers_blindspot: false,
        });
    };
    if normalize(&executor.name) == normalize(&watcher.name) {
        return Err(PersonaViolation::SameName {
            name: watcher.name.clone(),
        });
    }
    let (ours, theirs) = (value_set(executor), value_set(watcher));
    if ours == theirs {
        return Err(PersonaViolation::SameValues {
            executor: executor.name.clone(),
            watcher: watcher.name.clone(),
        });
    }
    let shared: Vec<String> = ours
        .intersection(&theirs)
        .map(|v| v.get(1..).unwrap_or_default().to_owned())
        .collect();
    let union = ours.union(&theirs).count();
    let score = if union == 0 {
        1.0
    } else {
        1.0 - shared.len() as f64 / union as f64
    };
    Ok(DivergenceReport {
        executor: Some(executor.name.clone()),
        watcher: Some(watcher.name.clone()),
        score,
        shared,
        covers_blindspot: covers(watcher, &executor.blindspot),
    })
}

fn persona(
    name: &str,
    distortion: &str,
    values: &[&str],
    anti_values: &[&str],
    blindspot: &str,
) -> Persona {
    Persona {
        name: name.to_owned(),
        distortion: distortion.to_owned(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
        anti_values: anti_values.iter().map(|v| (*v).to_owned()).collect(),
        blindspot: blindspot.to_owned(),
    }
}

/// The executor's persona: `executor_persona` as given; otherwise the catalog persona named by
/// `executor_result.persona_applied`; otherwise a persona with that name only (for the declaration).
pub fn executor_persona_of(input: &super::types::WatcherInput) -> Option<Persona> {
    if let Some(persona) = &input.executor_persona {
        return Some(persona.clone());
    }
    let name = input.applied_persona_name()?;
    Some(catalog_persona(name).unwrap_or_else(|| Persona {
        name: name.to_owned(),
        distortion: String::new(),
        values: Vec::new(),
        anti_values: Vec::new(),
        blindspot: String::new(),
    }))
}

/// The catalog persona with this name (case and spacing ignored).
pub fn catalog_persona(name: &str) -> Option<Persona> {
    persona_catalog()
        .into_iter()
        .find(|persona| normalize(&persona.name) == normalize(name))
}

/// Seed 000 precondition "executor_persona と watcher_persona は異なること", checked against both the
/// declared executor persona and the one the executor says it applied, so leaving out
/// `executor_persona` cannot skip it.
pub fn divergence_violation(input: &super::types::WatcherInput) -> Option<PersonaViolation> {
    let watcher = input.persona.as_ref();
    let declared = input
        .executor_persona
        .clone()
        .or_else(|| input.applied_persona_name().and_then(catalog_persona));
    if let Err(violation) = check_persona_divergence(declared.as_ref(), watcher) {
        return Some(violation);
    }
    let (applied, watcher) = (input.applied_persona_name()?, watcher?);
    (normalize(applied) == normalize(&watcher.name)).then(|| PersonaViolation::SameName {
        name: watcher.name.clone(),
    })
}

/// The built-in personas. Kent Beck and Martin Fowler are the seed's (its wording); the others cover
/// security, operations and the user's side.
pub fn persona_catalog() -> Vec<Persona> {
    vec![
        persona(
            "Kent Beck",
            "今動くものへの執着。投機的な設計を嫌悪。",
            &["シンプルさ", "テスト駆動", "YAGNI"],
            &["過剰設計", "投機的な一般化"],
            "将来の変更への準備",
        ),
        persona(
            "Martin Fowler",
            "構造の明確化への執着。変更可能性を損なう決定を嫌悪。",
            &["リファクタリング", "進化的設計", "構造の明確化"],
            &["技術的負債の無視", "変更困難なコード"],
            "過剰な構造化、初期コストの増大",
        ),
        persona(
            "Bruce Schneier",
            "Obsessed with how things fail under attack; distrusts every unverified input and every default.",
            &[
                "threat modelling",
                "least privilege",
                "verified inputs",
                "auditability",
            ],
            &["security through obscurity", "trusting the client"],
            "usability and speed of delivery",
        ),
        persona(
            "Charity Majors",
            "Obsessed with how software behaves in production; distrusts anything that cannot be observed.",
            &[
                "observability",
                "operability",
                "safe rollouts",
                "change preparation for production",
            ],
            &["untested deploys", "silent failures"],
            "up-front design and long-term structure",
        ),
        persona(
            "Don Norman",
            "Obsessed with the person using the thing; distrusts designs that blame the user for errors.",
            &["usability", "clear feedback", "forgiving errors"],
            &["hidden state", "jargon"],
            "performance and internal structure",
        ),
    ]
}

/// Picks the catalog persona best placed to watch `executor`: one that passes the divergence checks,
/// preferring one that covers the executor's blind spot, then the highest score, then catalog order.
pub fn pick_watcher_persona(
    executor: Option<&Persona>,
    catalog: &[Persona],
) -> Option<(Persona, DivergenceReport)> {
    let mut best: Option<(Persona, DivergenceReport)> = None;
    for candidate in catalog {
        let Ok(report) = check_persona_divergence(executor, Some(candidate)) else {
            continue;
        };
        let better = match &best {
            None => true,
            Some((_, current)) => {
                (report.covers_blindspot, report.score) > (current.covers_blindspot, current.score)
            }
        };
        if better {
            best = Some((candidate.clone(), report));
        }
    }
    best
}
