//! The Curator: insights become delta operations, deterministically. Each key insight is an ADD under the
//! insight's section unless the playbook already holds it (then a helpful TAG of that bullet), and each
//! bullet evaluation is left to `Playbook::apply_reflection`. Op ids derive from the reflection id and the
//! position, so curating the same reflection twice yields the same ids (replay-safe).

use super::book::{Playbook, normalized};
use super::delta::{DeltaKind, DeltaOp};
use crate::reflector::{BulletTag, Insight};

/// Section new lessons go to.
pub const LESSONS_SECTION: &str = "lessons";

pub fn curate(playbook: &Playbook, reflection_id: &str, insights: &[Insight]) -> Vec<DeltaOp> {
    let mut seen: Vec<String> = Vec::new();
    let mut ops = Vec::new();
    for (index, insight) in insights.iter().enumerate() {
        let content = insight.key_insight.trim();
        let key = normalized(content);
        if content.is_empty() || seen.contains(&key) {
            continue;
        }
        seen.push(key.clone());
        let op_id = format!("{reflection_id}/{index}");
        let existing = playbook
            .bullets
            .iter()
            .find(|b| normalized(&b.content) == key);
        let kind = match existing {
            Some(bullet) => DeltaKind::Tag {
                bullet_id: bullet.id.clone(),
                tag: BulletTag::Helpful,
            },
            None => DeltaKind::Add {
                section: LESSONS_SECTION.to_owned(),
                content: content.to_owned(),
            },
        };
        ops.push(DeltaOp { op_id, kind });
    }
    ops
}

/// One batch for the gate from a reflection: a TAG per bullet evaluation (op ids `{reflectionId}/tag/{i}`),
/// then the curated insights (op ids `{reflectionId}/{index}`).
pub fn reflection_ops(
    playbook: &Playbook,
    reflection_id: &str,
    reflection: &crate::reflector::ReflectionResult,
) -> Vec<DeltaOp> {
    let mut ops: Vec<DeltaOp> = reflection
        .bullet_evaluations
        .iter()
        .enumerate()
        .map(|(index, evaluation)| DeltaOp {
            op_id: format!("{reflection_id}/tag/{index}"),
            kind: DeltaKind::Tag {
                bullet_id: evaluation.bullet_id.clone(),
                tag: evaluation.tag,
            },
        })
        .collect();
    ops.extend(curate(playbook, reflection_id, &reflection.insights));
    ops
}
