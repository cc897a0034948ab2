//! Curator delta operations (ADD, UPDATE, TAG, REMOVE, MERGE), validated one by one: a bad op is rejected
//! with a reason and the good ones are applied; an op id already applied is not applied again.

use super::book::{Bullet, Playbook, normalized};
use crate::reflector::BulletTag;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(tag = "op", rename_all = "SCREAMING_SNAKE_CASE", deny_unknown_fields)]
pub enum DeltaKind {
    Add {
        section: String,
        content: String,
    },
    Update {
        bullet_id: String,
        content: String,
    },
    Tag {
        bullet_id: String,
        tag: BulletTag,
    },
    Remove {
        bullet_id: String,
    },
    /// Folds `bullet_ids` into the first one, with `content` and the summed counters.
    Merge {
        bullet_ids: Vec<String>,
        content: String,
    },
}

/// One delta: an op id plus the operation's fields (`{ op_id, op: "ADD", section, content }`). Its
/// TypeScript type is declared by hand (`{ op_id: string } & DeltaKind`): a flattened union has no
/// interface form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeltaOp {
    /// Unique per op: applying the same id twice changes nothing the second time.
    pub op_id: String,
    #[serde(flatten)]
    pub kind: DeltaKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct RejectedOp {
    pub op_id: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Tsify)]
pub struct DeltaReport {
    pub applied: Vec<String>,
    /// Already applied earlier: skipped.
    pub replayed: Vec<String>,
    pub rejected: Vec<RejectedOp>,
    /// Ids of bullets the ADDs created, in order.
    pub added_bullets: Vec<String>,
}

fn near_duplicate<'a>(
    playbook: &'a Playbook,
    section: &str,
    content: &str,
    except: &[String],
) -> Option<&'a Bullet> {
    let wanted = normalized(content);
    playbook.bullets.iter().find(|b| {
        b.section == section && !except.contains(&b.id) && normalized(&b.content) == wanted
    })
}

/// Why `kind` cannot be applied to `playbook`, if it cannot.
fn rejection(playbook: &Playbook, kind: &DeltaKind) -> Option<String> {
    let missing = |id: &str| {
        playbook
            .bullet(id)
            .is_none()
            .then(|| format!("no bullet `{id}`"))
    };
    match kind {
        DeltaKind::Add { section, content } => {
            if section.trim().is_empty() || content.trim().is_empty() {
                return Some("section and content must not be empty".to_owned());
            }
            near_duplicate(playbook, section, content, &[])
                .map(|b| format!("near-duplicate of `{}`", b.id))
        }
        DeltaKind::Update { bullet_id, content } => missing(bullet_id).or_else(|| {
            if content.trim().is_empty() {
                return Some("content must not be empty".to_owned());
            }
            let section = playbook
                .bullet(bullet_id)
                .map(|b| b.section.clone())
                .unwrap_or_default();
            near_duplicate(playbook, &section, content, std::slice::from_ref(bullet_id))
                .map(|b| format!("near-duplicate of `{}`", b.id))
        }),
        DeltaKind::Tag { bullet_id, .. } | DeltaKind::Remove { bullet_id } => missing(bullet_id),
        DeltaKind::Merge {
            bullet_ids,
            content,
        } => {
            let mut distinct = bullet_ids.clone();
            distinct.sort();
            distinct.dedup();
            if distinct.len() < 2 || distinct.len() != bullet_ids.len() {
                return Some("MERGE needs two or more distinct bullets".to_owned());
            }
            if content.trim().is_empty() {
                return Some("content must not be empty".to_owned());
            }
            bullet_ids.iter().find_map(|id| missing(id))
        }
    }
}

fn apply(playbook: &mut Playbook, op: &DeltaOp, report: &mut DeltaReport) {
    let detail = match &op.kind {
        DeltaKind::Add { section, content } => {
            let id = playbook.new_id();
            playbook.bullets.push(Bullet {
                id: id.clone(),
                section: section.clone(),
                content: content.clone(),
                helpful: 0,
                harmful: 0,
                neutral: 0,
            });
            report.added_bullets.push(id.clone());
            ("ADD", format!("{id} in {section}"))
        }
        DeltaKind::Update { bullet_id, content } => {
            if let Some(bullet) = playbook.bullet_mut(bullet_id) {
                bullet.content = content.clone();
            }
            ("UPDATE", bullet_id.clone())
        }
        DeltaKind::Tag { bullet_id, tag } => {
            if let Some(bullet) = playbook.bullet_mut(bullet_id) {
                match tag {
                    BulletTag::Helpful => bullet.helpful = bullet.helpful.saturating_add(1),
                    BulletTag::Harmful => bullet.harmful = bullet.harmful.saturating_add(1),
                    BulletTag::Neutral => bullet.neutral = bullet.neutral.saturating_add(1),
                }
            }
            ("TAG", format!("{bullet_id} {tag:?}"))
        }
        DeltaKind::Remove { bullet_id } => {
            playbook.bullets.retain(|b| &b.id != bullet_id);
            ("REMOVE", bullet_id.clone())
        }
        DeltaKind::Merge {
            bullet_ids,
            content,
        } => {
            let (mut helpful, mut harmful, mut neutral) = (0_u32, 0_u32, 0_u32);
            for id in bullet_ids {
                if let Some(b) = playbook.bullet(id) {
                    (helpful, harmful, neutral) = (
                        helpful.saturating_add(b.helpful),
                        harmful.saturating_add(b.harmful),
                        neutral.saturating_add(b.neutral),
                    );
                }
            }
            let keep = bullet_ids.first().cloned().unwrap_or_default();
            playbook
                .bullets
                .retain(|b| b.id == keep || !bullet_ids.contains(&b.id));
            if let Some(target) = playbook.bullet_mut(&keep) {
                (
                    target.content,
                    target.helpful,
                    target.harmful,
                    target.neutral,
                ) = (content.clone(), helpful, harmful, neutral);
            }
            ("MERGE", format!("{} into {keep}", bullet_ids.join(", ")))
        }
    };
    playbook.applied_ops.insert(op.op_id.clone());
    playbook.log(detail.0, Some(&op.op_id), detail.1);
    report.applied.push(op.op_id.clone());
}

/// Applies `ops` in order, each validated against the playbook as it stands at that point.
pub fn apply_deltas(playbook: &mut Playbook, ops: &[DeltaOp]) -> DeltaReport {
    let mut report = DeltaReport::default();
    for op in ops {
        if op.op_id.trim().is_empty() {
            report.rejected.push(RejectedOp {
                op_id: op.op_id.clone(),
                reason: "op_id must not be empty".to_owned(),
            });
        } else if playbook.applied_ops.contains(&op.op_id) {
            report.replayed.push(op.op_id.clone());
        } else if let Some(reason) = rejection(playbook, &op.kind) {
            report.rejected.push(RejectedOp {
                op_id: op.op_id.clone(),
                reason,
            });
        } else {
            apply(playbook, op, &mut report);
        }
    }
    report
}
