//! Bullets and the playbook that holds them: counters, maintenance rules, the ACE rendering.

use crate::reflector::{BulletTag, ReflectionResult};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use tsify::Tsify;

/// One unit of knowledge with its track record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct Bullet {
    pub id: String,
    pub section: String,
    pub content: String,
    #[serde(default)]
    pub helpful: u32,
    #[serde(default)]
    pub harmful: u32,
    #[serde(default)]
    pub neutral: u32,
}

impl Bullet {
    /// helpful - harmful.
    pub fn net_score(&self) -> i64 {
        i64::from(self.helpful) - i64::from(self.harmful)
    }

    /// Its line in the ACE text form (without the line break).
    pub fn ace_line(&self) -> String {
        format!(
            "[{}] helpful={} harmful={} :: {}",
            self.id, self.helpful, self.harmful, self.content
        )
    }
}

/// Text as compared for near-duplicates: lower case, punctuation dropped, white space folded.
pub fn normalized(text: &str) -> String {
    let kept: String = text
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    kept.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The rules in code, with their thresholds configurable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaybookPolicy {
    /// A bullet is removed when harmful >= this many judgements ...
    #[serde(default = "default_min_harmful")]
    #[tsify(optional)]
    pub min_harmful: u32,
    /// ... and harmful > helpful * this ratio.
    #[serde(default = "default_harm_ratio")]
    #[tsify(optional)]
    pub harm_ratio: f64,
    /// Largest rendered playbook, in characters (a token budget times about 4).
    #[serde(default = "default_max_chars")]
    #[tsify(optional)]
    pub max_chars: usize,
}

fn default_min_harmful() -> u32 {
    3
}
fn default_harm_ratio() -> f64 {
    1.0
}
fn default_max_chars() -> usize {
    16_000
}

impl Default for PlaybookPolicy {
    fn default() -> Self {
        Self {
            min_harmful: default_min_harmful(),
            harm_ratio: default_harm_ratio(),
            max_chars: default_max_chars(),
        }
    }
}

/// One applied change, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(deny_unknown_fields)]
pub struct AuditEntry {
    /// Playbook version after the change.
    pub version: u64,
    /// `ADD`, `UPDATE`, `TAG`, `REMOVE`, `MERGE`, `REFLECTION`, `DEDUP`, `PRUNE_HARMFUL`, `BUDGET`.
    pub action: String,
    /// The op id for curator deltas.
    #[serde(default)]
    pub op_id: Option<String>,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Tsify)]
#[tsify(rename = "PlaybookData")]
#[serde(deny_unknown_fields)]
pub struct Playbook {
    /// Increases with every applied change.
    pub version: u64,
    pub bullets: Vec<Bullet>,
    /// Next numeric part of a new bullet id (`b-0001`, ...).
    pub next_id: u64,
    /// Op ids already applied: replaying one changes nothing.
    pub applied_ops: BTreeSet<String>,
    pub audit: Vec<AuditEntry>,
}

impl Playbook {
    pub fn bullet(&self, id: &str) -> Option<&Bullet> {
        self.bullets.iter().find(|b| b.id == id)
    }

    pub(crate) fn bullet_mut(&mut self, id: &str) -> Option<&mut Bullet> {
        self.bullets.iter_mut().find(|b| b.id == id)
    }

    pub(crate) fn new_id(&mut self) -> String {
        self.next_id = self.next_id.saturating_add(1);
        format!("b-{:04}", self.next_id)
    }

    pub(crate) fn log(&mut self, action: &str, op_id: Option<&str>, detail: String) {
        self.version = self.version.saturating_add(1);
        self.audit.push(AuditEntry {
            version: self.version,
            action: action.to_owned(),
            op_id: op_id.map(str::to_owned),
            detail,
        });
    }

    /// Increments each tagged bullet's counter; tags for unknown bullets are returned, not applied.
    pub fn apply_reflection(&mut self, result: &ReflectionResult) -> Vec<String> {
        let mut unknown = Vec::new();
        let mut counted = 0;
        for evaluation in &result.bullet_evaluations {
            let Some(bullet) = self.bullet_mut(&evaluation.bullet_id) else {
                unknown.push(evaluation.bullet_id.clone());
                continue;
            };
            match evaluation.tag {
                BulletTag::Helpful => bullet.helpful = bullet.helpful.saturating_add(1),
                BulletTag::Harmful => bullet.harmful = bullet.harmful.saturating_add(1),
                BulletTag::Neutral => bullet.neutral = bullet.neutral.saturating_add(1),
            }
            counted += 1;
        }
        if counted > 0 {
            self.log("REFLECTION", None, format!("{counted} bullet tags counted"));
        }
        unknown
    }

    /// Merges bullets whose content is identical once normalised (same section), summing their counters
    /// into the oldest. Returns the ids merged away.
    pub fn dedup(&mut self) -> Vec<String> {
        let mut keeper: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut removed = Vec::new();
        let mut kept: Vec<Bullet> = Vec::new();
        for bullet in std::mem::take(&mut self.bullets) {
            let key = (bullet.section.clone(), normalized(&bullet.content));
            match keeper.get(&key).and_then(|index| kept.get_mut(*index)) {
                Some(target) => {
                    target.helpful = target.helpful.saturating_add(bullet.helpful);
                    target.harmful = target.harmful.saturating_add(bullet.harmful);
                    target.neutral = target.neutral.saturating_add(bullet.neutral);
                    removed.push(bullet.id);
                }
                None => {
                    keeper.insert(key, kept.len());
                    kept.push(bullet);
                }
            }
        }
        self.bullets = kept;
        if !removed.is_empty() {
            self.log("DEDUP", None, format!("merged {}", removed.join(", ")));
        }
        removed
    }

    /// Removes bullets whose harmful count dominates (policy). Returns their ids.
    pub fn prune_harmful(&mut self, policy: &PlaybookPolicy) -> Vec<String> {
        let dominated = |b: &Bullet| {
            b.harmful >= policy.min_harmful
                && f64::from(b.harmful) > f64::from(b.helpful) * policy.harm_ratio
        };
        let removed: Vec<String> = self
            .bullets
            .iter()
            .filter(|b| dominated(b))
            .map(|b| b.id.clone())
            .collect();
        self.bullets.retain(|b| !dominated(b));
        if !removed.is_empty() {
            self.log(
                "PRUNE_HARMFUL",
                None,
                format!("removed {}", removed.join(", ")),
            );
        }
        removed
    }

    /// Keeps the rendered playbook within `policy.max_chars` by removing whole bullets, lowest net score
    /// first (older first on ties); text is never truncated. Returns the removed ids.
    pub fn enforce_budget(&mut self, policy: &PlaybookPolicy) -> Vec<String> {
        let mut removed = Vec::new();
        while self.render().chars().count() > policy.max_chars {
            let Some(worst) = self
                .bullets
                .iter()
                .enumerate()
                .min_by_key(|(index, b)| (b.net_score(), *index))
                .map(|(i, _)| i)
            else {
                break;
            };
            removed.push(self.bullets.remove(worst).id);
        }
        if !removed.is_empty() {
            self.log("BUDGET", None, format!("removed {}", removed.join(", ")));
        }
        removed
    }

    /// The ACE text form: `## section` headers, then `[id] helpful=X harmful=Y :: content`.
    pub fn render(&self) -> String {
        let mut sections: Vec<&str> = Vec::new();
        for bullet in &self.bullets {
            if !sections.contains(&bullet.section.as_str()) {
                sections.push(&bullet.section);
            }
        }
        let mut out = String::new();
        for section in sections {
            out.push_str(&format!("## {section}\n"));
            for b in self.bullets.iter().filter(|b| b.section == section) {
                out.push_str(&b.ace_line());
                out.push('\n');
            }
            out.push('\n');
        }
        out
    }

    /// The rendered lines of the given bullets (for prompts).
    pub fn render_bullets(&self, ids: &[String]) -> String {
        ids.iter()
            .filter_map(|id| self.bullet(id))
            .map(Bullet::ace_line)
            .collect::<Vec<_>>()
            .join("\n")
    }
}
