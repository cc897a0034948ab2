//! The acceptance gate: a playbook learns only what does not make it worse.
//!
//! A batch of curator deltas is applied to a candidate copy of the accepted playbook, the candidate is kept
//! within the token budget (the bullets with the lowest helpful-minus-harmful counts retired first), and both
//! the playbook the judge is given now (the accepted one within the budget) and the candidate are scored on a
//! held-out set through the host's evaluator, every time (a score is never carried over from another
//! evaluator or another set of cases). The candidate replaces the accepted playbook only when its mean score
//! does not fall below the current one's by more than the tolerance (or, strict, only when it is higher). A
//! rejected batch is recorded with its scores and reason, and the same batch (the same operations as applied,
//! contents compared as the curator compares them, whatever their op ids) is refused without evaluation when
//! proposed again. Every decision is logged; `revert` restores the previous accepted playbook exactly.

use super::book::{Playbook, normalized};
use super::delta::{DeltaKind, DeltaOp, DeltaReport, apply_deltas};
use crate::input::{InputError, Validate, to_json_string};
use crate::ports::PortError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tsify::Tsify;

/// Previous accepted playbooks kept for `revert`.
pub const MAX_PREVIOUS: usize = 16;
/// Fingerprints of rejected batches remembered for refusing them again (the oldest is forgotten first).
pub const MAX_REJECTED_FINGERPRINTS: usize = 4096;
/// Decisions kept in the gate's log, a rejected batch's with its operations (the oldest is dropped first).
pub const MAX_LOG: usize = 512;
/// Largest batch `maxBatch` may allow.
pub const MAX_BATCH_LIMIT: usize = 1000;
/// Most held-out cases one evaluation may score.
pub const MAX_CASES: usize = 10_000;

/// How the gate decides and how large the playbook may grow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GatePolicy {
    /// How far the candidate's mean held-out score may fall below the accepted one's and still be accepted
    /// (0 to 1; default 0: no regression at all).
    #[serde(default)]
    #[tsify(optional)]
    pub tolerance: f64,
    /// Accept only a strictly higher mean score (the tolerance is then ignored). Default false.
    #[serde(default)]
    #[tsify(optional)]
    pub strict: bool,
    /// The judge's prompt budget: the rendered playbook never exceeds this many estimated tokens (UTF-8
    /// bytes / 4, rounded up). Default 4000.
    #[serde(default = "default_max_tokens")]
    #[tsify(optional)]
    pub max_tokens: usize,
    /// Most operations in one batch (default 64, at most 1000).
    #[serde(default = "default_max_batch")]
    #[tsify(optional)]
    pub max_batch: usize,
}

fn default_max_tokens() -> usize {
    4000
}
fn default_max_batch() -> usize {
    64
}

impl Default for GatePolicy {
    fn default() -> Self {
        Self {
            tolerance: 0.0,
            strict: false,
            max_tokens: default_max_tokens(),
            max_batch: default_max_batch(),
        }
    }
}

impl Validate for GatePolicy {
    fn validate(&self) -> Result<(), InputError> {
        if !self.tolerance.is_finite() || !(0.0..=1.0).contains(&self.tolerance) {
            return Err(InputError::invalid(
                "tolerance",
                format!("must be a number from 0 to 1, got {}", self.tolerance),
            ));
        }
        if !(1..=1_000_000).contains(&self.max_tokens) {
            return Err(InputError::invalid(
                "maxTokens",
                format!("must be from 1 to 1000000, got {}", self.max_tokens),
            ));
        }
        if !(1..=MAX_BATCH_LIMIT).contains(&self.max_batch) {
            return Err(InputError::invalid(
                "maxBatch",
                format!(
                    "must be from 1 to {MAX_BATCH_LIMIT}, got {}",
                    self.max_batch
                ),
            ));
        }
        Ok(())
    }
}

/// The rendered playbook's size in estimated tokens: UTF-8 bytes / 4, rounded up.
pub fn estimated_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// `playbook` with the bullets of lowest helpful-minus-harmful count (older first on ties) removed until its
/// rendering fits `max_tokens`; and the ids removed, in order. Linear in the playbook's size: the rendering's
/// length is kept by arithmetic (each bullet's line, each section's header and blank line), not re-rendered.
pub fn within_budget(playbook: &Playbook, max_tokens: usize) -> (Playbook, Vec<String>) {
    let limit = max_tokens.saturating_mul(4);
    let mut length = playbook.render().len();
    if length <= limit {
        return (playbook.clone(), Vec::new());
    }
    let line_lengths: Vec<usize> = playbook
        .bullets
        .iter()
        .map(|bullet| bullet.ace_line().len() + 1)
        .collect();
    let mut per_section: std::collections::BTreeMap<&str, usize> =
        std::collections::BTreeMap::new();
    for bullet in &playbook.bullets {
        *per_section.entry(bullet.section.as_str()).or_default() += 1;
    }
    let mut order: Vec<usize> = (0..playbook.bullets.len()).collect();
    order.sort_by_key(|&index| {
        (
            playbook
                .bullets
                .get(index)
                .map_or(0, super::book::Bullet::net_score),
            index,
        )
    });
    let mut removed = vec![false; playbook.bullets.len()];
    let mut retired = Vec::new();
    for index in order {
        if length <= limit {
            break;
        }
        let (Some(bullet), Some(line)) = (playbook.bullets.get(index), line_lengths.get(index))
        else {
            continue;
        };
        length -= line;
        if let Some(count) = per_section.get_mut(bullet.section.as_str()) {
            *count -= 1;
            if *count == 0 {
                // `## {section}\n` and the blank line after the section.
                length -= bullet.section.len() + 5;
            }
        }
        if let Some(flag) = removed.get_mut(index) {
            *flag = true;
        }
        retired.push(bullet.id.clone());
    }
    let mut kept = playbook.clone();
    let mut flags = removed.into_iter();
    kept.bullets.retain(|_| !flags.next().unwrap_or(false));
    (kept, retired)
}

/// The held-out set as the gate knows it: how many cases (one score is expected per case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldOut {
    pub cases: usize,
}

/// A previous accepted playbook, kept compactly: the accepted playbook that followed it was derived from it by
/// appending (audit entries, applied op ids), so its bullets, counters and the lengths of what grew restore
/// it exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreviousVersion {
    pub version: u64,
    pub next_id: u64,
    pub bullets: Vec<super::book::Bullet>,
    /// The audit log's length then.
    pub audit_length: usize,
    /// Op ids applied since then.
    pub added_ops: Vec<String>,
}

/// What the gate decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum GateDecision {
    /// The candidate became the accepted playbook.
    Accepted,
    /// The candidate scored too low: the batch is recorded and the playbook unchanged.
    Rejected,
    /// The same batch was rejected before: refused without evaluation.
    RefusedAgain,
    /// No operation of the batch applied (all replayed or invalid) and nothing needed retiring.
    Unchanged,
    /// `revert` restored the previous accepted playbook.
    Reverted,
}

/// One entry of the gate's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GateRecord {
    /// Increases with every entry.
    pub sequence: u64,
    pub decision: GateDecision,
    /// The batch's fingerprint (`null` for a revert).
    #[tsify(type = "string | null")]
    pub fingerprint: Option<String>,
    /// Mean held-out scores of the accepted playbook and of the candidate (`null` when not evaluated).
    #[tsify(type = "number | null")]
    pub baseline: Option<f64>,
    #[tsify(type = "number | null")]
    pub candidate: Option<f64>,
    /// Bullets retired to keep within the budget (for an accepted change).
    pub retired: Vec<String>,
    pub reason: String,
    /// Version of the accepted playbook after the decision.
    pub playbook_version: u64,
    /// A rejected batch's operations; empty for the other decisions.
    #[tsify(type = "DeltaOp[]")]
    pub ops: Vec<DeltaOp>,
}

/// The answer to a proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct GateOutcome {
    pub decision: GateDecision,
    pub fingerprint: String,
    /// Mean held-out scores of the accepted playbook and of the candidate (`null` when not evaluated).
    #[tsify(type = "number | null")]
    pub baseline: Option<f64>,
    #[tsify(type = "number | null")]
    pub candidate: Option<f64>,
    pub reason: String,
    /// What the deltas did on the candidate (applied, replayed, rejected with reasons).
    pub report: DeltaReport,
    /// Bullets retired from the candidate to keep it within the budget.
    pub retired: Vec<String>,
    /// Version of the accepted playbook after the decision.
    pub playbook_version: u64,
}

/// Why a proposal could not be decided. The playbook is unchanged in every case.
#[derive(Debug, Clone, PartialEq)]
pub enum GateError {
    /// The batch or an option is malformed or too large.
    Input(InputError),
    /// The evaluator failed (threw, rejected, timed out).
    EvaluationFailed(PortError),
    /// The evaluator answered something other than one score from 0 to 1 per case.
    InvalidScores(String),
    /// The gate changed while the evaluator ran (another proposal or a revert finished first); raised by a
    /// host binding that lets calls overlap.
    Conflict,
    /// `revert` with no previous accepted playbook.
    NothingToRevert,
}

impl GateError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Input(error) => error.code.as_str(),
            Self::EvaluationFailed(_) => "evaluation_failed",
            Self::InvalidScores(_) => "invalid_scores",
            Self::Conflict => "conflict",
            Self::NothingToRevert => "nothing_to_revert",
        }
    }

    pub fn path(&self) -> &str {
        match self {
            Self::Input(error) => &error.path,
            _ => "",
        }
    }

    pub fn message(&self) -> String {
        match self {
            Self::Input(error) => error.to_string(),
            Self::EvaluationFailed(error) => format!("the evaluator failed: {error}"),
            Self::InvalidScores(message) => {
                format!("the evaluator's scores are invalid: {message}")
            }
            Self::Conflict => {
                "the gated playbook changed while the evaluator ran; propose the batch again"
                    .to_owned()
            }
            Self::NothingToRevert => {
                "there is no previous accepted playbook to revert to".to_owned()
            }
        }
    }
}

/// Scores one playbook on the held-out cases: one score from 0 to 1 per case, in order. A failure is
/// [`GateError::EvaluationFailed`]; an answer that is not a list of numbers, [`GateError::InvalidScores`].
#[allow(async_fn_in_trait)]
pub trait Evaluator {
    async fn evaluate(&self, playbook: &Playbook) -> Result<Vec<f64>, GateError>;
}

/// The gate's whole state: the accepted playbook and what it remembers. Stored as JSON.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Tsify)]
#[tsify(rename = "GatedPlaybookData")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GatedPlaybook {
    pub policy: GatePolicy,
    #[tsify(type = "PlaybookData")]
    pub playbook: Playbook,
    /// Previous accepted playbooks, the latest last (`revert`).
    pub previous: Vec<PreviousVersion>,
    /// Fingerprints of rejected batches, the oldest first.
    pub rejected: Vec<String>,
    pub log: Vec<GateRecord>,
    pub next_sequence: u64,
}

/// Largest sequence number (JavaScript numbers are exact up to 2^53).
const MAX_SEQUENCE: u64 = 1 << 53;

impl Validate for GatedPlaybook {
    /// A state read back (from a store or `fromJSON`) must be one the gate could have written.
    fn validate(&self) -> Result<(), InputError> {
        self.policy
            .validate()
            .map_err(|error| error.within("policy"))?;
        let bound = |path: &str, length: usize, max: usize| {
            if length > max {
                Err(InputError::invalid(
                    path,
                    format!("holds {length} entries; the gate keeps at most {max}"),
                ))
            } else {
                Ok(())
            }
        };
        bound("previous", self.previous.len(), MAX_PREVIOUS)?;
        bound("rejected", self.rejected.len(), MAX_REJECTED_FINGERPRINTS)?;
        bound("log", self.log.len(), MAX_LOG)?;
        let is_fingerprint = |text: &str| {
            text.len() == 64
                && text
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if let Some(index) = self.rejected.iter().position(|text| !is_fingerprint(text)) {
            return Err(InputError::invalid(
                format!("rejected[{index}]"),
                "must be a SHA-256 fingerprint (64 lower-case hex digits)",
            ));
        }
        if self.next_sequence > MAX_SEQUENCE
            || self
                .log
                .iter()
                .any(|record| record.sequence >= self.next_sequence)
        {
            return Err(InputError::invalid(
                "nextSequence",
                "must be above every logged sequence and at most 2^53",
            ));
        }
        if let Some(index) = self.previous.iter().position(|previous| {
            previous.audit_length > self.playbook.audit.len()
                || previous.version > self.playbook.version
        }) {
            return Err(InputError::invalid(
                format!("previous[{index}]"),
                "is not an earlier version of the playbook",
            ));
        }
        Ok(())
    }
}

/// SHA-256 (hex) of the operations, in order, without their op ids and with every text compared as the
/// curator compares contents (case, punctuation and white space folded): the same change under new op ids,
/// or re-worded only in those, is the same batch.
pub fn batch_fingerprint<'a>(ops: impl IntoIterator<Item = &'a DeltaOp>) -> String {
    let folded: Vec<DeltaKind> = ops
        .into_iter()
        .map(|op| match &op.kind {
            DeltaKind::Add { section, content } => DeltaKind::Add {
                section: normalized(section),
                content: normalized(content),
            },
            DeltaKind::Update { bullet_id, content } => DeltaKind::Update {
                bullet_id: bullet_id.clone(),
                content: normalized(content),
            },
            DeltaKind::Merge {
                bullet_ids,
                content,
            } => DeltaKind::Merge {
                bullet_ids: bullet_ids.clone(),
                content: normalized(content),
            },
            other => other.clone(),
        })
        .collect();
    hex::encode(Sha256::digest(to_json_string(&folded).as_bytes()))
}

/// The mean of one score per case, each from 0 to 1.
pub fn mean_score(scores: &[f64], cases: usize) -> Result<f64, GateError> {
    if scores.len() != cases {
        return Err(GateError::InvalidScores(format!(
            "expected {cases} scores (one per held-out case), got {}",
            scores.len()
        )));
    }
    if let Some((index, score)) = scores
        .iter()
        .enumerate()
        .find(|(_, score)| !score.is_finite() || !(0.0..=1.0).contains(*score))
    {
        return Err(GateError::InvalidScores(format!(
            "score [{index}] must be a number from 0 to 1, got {score}"
        )));
    }
    if cases == 0 {
        return Ok(0.0);
    }
    #[allow(clippy::cast_precision_loss)]
    Ok(scores.iter().sum::<f64>() / cases as f64)
}

/// Whether `candidate` may replace `baseline` under `policy`; the reason either way.
pub fn judge(baseline: f64, candidate: f64, policy: &GatePolicy) -> (bool, String) {
    if policy.strict {
        if candidate > baseline {
            (
                true,
                format!("held-out score rose from {baseline} to {candidate}"),
            )
        } else {
            (
                false,
                format!("held-out score {candidate} is not above the accepted {baseline} (strict)"),
            )
        }
    } else if candidate >= baseline - policy.tolerance {
        (
            true,
            format!(
                "held-out score {candidate} against the accepted {baseline} (tolerance {})",
                policy.tolerance
            ),
        )
    } else {
        (
            false,
            format!(
                "held-out score fell from {baseline} to {candidate}, beyond the tolerance {}",
                policy.tolerance
            ),
        )
    }
}

fn validate_held_out(held_out: &HeldOut) -> Result<(), GateError> {
    if held_out.cases == 0 || held_out.cases > MAX_CASES {
        return Err(GateError::Input(InputError::invalid(
            "cases",
            format!(
                "must hold from 1 to {MAX_CASES} held-out cases, got {}",
                held_out.cases
            ),
        )));
    }
    Ok(())
}

impl GatedPlaybook {
    pub fn new(playbook: Playbook, policy: GatePolicy) -> Result<Self, InputError> {
        policy.validate().map_err(|error| error.within("policy"))?;
        Ok(Self {
            policy,
            playbook,
            ..Self::default()
        })
    }

    /// The text the judge is given: the accepted playbook, within the token budget (should the accepted
    /// playbook exceed it, after a lower budget or a load, its lowest-scored bullets are left out here until
    /// `retire` removes them through the gate).
    pub fn prompt(&self) -> String {
        within_budget(&self.playbook, self.policy.max_tokens)
            .0
            .render()
    }

    fn push_log(&mut self, mut record: GateRecord) {
        record.sequence = self.next_sequence;
        self.next_sequence = self.next_sequence.saturating_add(1);
        self.log.push(record);
        if self.log.len() > MAX_LOG {
            self.log.remove(0);
        }
    }

    /// Proposes a batch of deltas (see the module's documentation). On any error the gate is unchanged.
    pub async fn propose(
        &mut self,
        ops: &[DeltaOp],
        held_out: &HeldOut,
        evaluator: &impl Evaluator,
    ) -> Result<GateOutcome, GateError> {
        if ops.len() > self.policy.max_batch {
            return Err(GateError::Input(InputError::invalid(
                "ops",
                format!(
                    "a batch holds at most {} operations, got {}",
                    self.policy.max_batch,
                    ops.len()
                ),
            )));
        }
        validate_held_out(held_out)?;
        let version = self.playbook.version;
        let mut changed = self.playbook.clone();
        let report = apply_deltas(&mut changed, ops);
        let applied: Vec<&DeltaOp> = ops
            .iter()
            .filter(|op| report.applied.contains(&op.op_id))
            .collect();
        let fingerprint = batch_fingerprint(applied.iter().copied());
        let outcome = |decision, reason: &str, report, retired| GateOutcome {
            decision,
            fingerprint: fingerprint.clone(),
            baseline: None,
            candidate: None,
            reason: reason.to_owned(),
            report,
            retired,
            playbook_version: version,
        };
        if !applied.is_empty() && self.rejected.contains(&fingerprint) {
            let reason = "the same batch was rejected before";
            self.push_log(GateRecord {
                sequence: 0,
                decision: GateDecision::RefusedAgain,
                fingerprint: Some(fingerprint.clone()),
                baseline: None,
                candidate: None,
                retired: Vec::new(),
                reason: reason.to_owned(),
                playbook_version: version,
                ops: Vec::new(),
            });
            return Ok(outcome(
                GateDecision::RefusedAgain,
                reason,
                report,
                Vec::new(),
            ));
        }
        let (mut candidate, retired) = within_budget(&changed, self.policy.max_tokens);
        if !retired.is_empty() {
            candidate.log("RETIRE", None, format!("retired {}", retired.join(", ")));
        }
        if applied.is_empty() && retired.is_empty() {
            let reason = "no operation of the batch applied";
            return Ok(outcome(GateDecision::Unchanged, reason, report, retired));
        }
        // What the judge is given now: the accepted playbook within the budget.
        let (judged, _) = within_budget(&self.playbook, self.policy.max_tokens);
        if candidate.bullets == judged.bullets {
            // The judge would be given exactly what it is given now (a retirement the budget already
            // applies to the prompt): made permanent, nothing to score.
            let reason =
                "the playbook the judge is given is unchanged (the budget already applied)";
            self.accept(candidate, &fingerprint, None, None, &retired, reason);
            let mut accepted = outcome(GateDecision::Accepted, reason, report, retired);
            accepted.playbook_version = self.playbook.version;
            return Ok(accepted);
        }
        let baseline = mean_score(&evaluator.evaluate(&judged).await?, held_out.cases)?;
        let candidate_mean = mean_score(&evaluator.evaluate(&candidate).await?, held_out.cases)?;
        let (accepted, reason) = judge(baseline, candidate_mean, &self.policy);
        let decision = if accepted {
            self.accept(
                candidate,
                &fingerprint,
                Some(baseline),
                Some(candidate_mean),
                &retired,
                &reason,
            );
            GateDecision::Accepted
        } else {
            if !self.rejected.contains(&fingerprint) {
                self.rejected.push(fingerprint.clone());
            }
            if self.rejected.len() > MAX_REJECTED_FINGERPRINTS {
                self.rejected.remove(0);
            }
            self.push_log(GateRecord {
                sequence: 0,
                decision: GateDecision::Rejected,
                fingerprint: Some(fingerprint.clone()),
                baseline: Some(baseline),
                candidate: Some(candidate_mean),
                retired: Vec::new(),
                reason: reason.clone(),
                playbook_version: version,
                ops: applied.into_iter().cloned().collect(),
            });
            GateDecision::Rejected
        };
        Ok(GateOutcome {
            decision,
            fingerprint,
            baseline: Some(baseline),
            candidate: Some(candidate_mean),
            reason,
            report,
            retired,
            playbook_version: self.playbook.version,
        })
    }

    /// The candidate becomes the accepted playbook; the previous one is kept for `revert`.
    fn accept(
        &mut self,
        candidate: Playbook,
        fingerprint: &str,
        baseline: Option<f64>,
        candidate_mean: Option<f64>,
        retired: &[String],
        reason: &str,
    ) {
        let added_ops = candidate
            .applied_ops
            .difference(&self.playbook.applied_ops)
            .cloned()
            .collect();
        let before = std::mem::replace(&mut self.playbook, candidate);
        self.previous.push(PreviousVersion {
            version: before.version,
            next_id: before.next_id,
            bullets: before.bullets,
            audit_length: before.audit.len(),
            added_ops,
        });
        if self.previous.len() > MAX_PREVIOUS {
            self.previous.remove(0);
        }
        self.push_log(GateRecord {
            sequence: 0,
            decision: GateDecision::Accepted,
            fingerprint: Some(fingerprint.to_owned()),
            baseline,
            candidate: candidate_mean,
            retired: retired.to_vec(),
            reason: reason.to_owned(),
            playbook_version: self.playbook.version,
            ops: Vec::new(),
        });
    }

    /// Retires the accepted playbook's lowest-scored bullets until it fits the token budget, through the gate
    /// (accepted without evaluation when the judge already sees exactly that playbook, which `prompt` ensures).
    pub async fn retire(
        &mut self,
        held_out: &HeldOut,
        evaluator: &impl Evaluator,
    ) -> Result<GateOutcome, GateError> {
        validate_held_out(held_out)?;
        let (_, retired) = within_budget(&self.playbook, self.policy.max_tokens);
        let ops: Vec<DeltaOp> = retired
            .iter()
            .map(|id| DeltaOp {
                op_id: format!("retire/{}/{id}", self.playbook.version),
                kind: DeltaKind::Remove {
                    bullet_id: id.clone(),
                },
            })
            .collect();
        self.propose(&ops, held_out, evaluator).await
    }

    /// Restores the previous accepted playbook exactly.
    pub fn revert(&mut self) -> Result<GateRecord, GateError> {
        let previous = self.previous.pop().ok_or(GateError::NothingToRevert)?;
        let from = self.playbook.version;
        self.playbook.version = previous.version;
        self.playbook.next_id = previous.next_id;
        self.playbook.bullets = previous.bullets;
        self.playbook.audit.truncate(previous.audit_length);
        for op_id in &previous.added_ops {
            self.playbook.applied_ops.remove(op_id);
        }
        let record = GateRecord {
            sequence: 0,
            decision: GateDecision::Reverted,
            fingerprint: None,
            baseline: None,
            candidate: None,
            retired: Vec::new(),
            reason: format!(
                "reverted from version {from} to version {}",
                self.playbook.version
            ),
            playbook_version: self.playbook.version,
            ops: Vec::new(),
        };
        let mut returned = record.clone();
        returned.sequence = self.next_sequence;
        self.push_log(record);
        Ok(returned)
    }
}
