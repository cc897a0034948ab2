//! The acceptance gate: a playbook learns only what does not make it worse.
//!
//! A batch of curator deltas is applied to a candidate copy of the accepted playbook, the candidate is kept
//! within the token budget (the bullets with the lowest helpful-minus-harmful counts retired first), both are
//! scored on a held-out set through the host's evaluator, and the candidate replaces the accepted playbook
//! only when its mean score does not fall below the accepted one's by more than the tolerance (or, strict,
//! only when it is higher). A rejected batch is recorded with its scores and reason, and the same batch (the
//! same operations, whatever their op ids) is refused without evaluation when proposed again. Every decision
//! is logged; `revert` restores the previous accepted playbook exactly.

use super::book::Playbook;
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

/// The held-out set as the gate knows it: how many cases, and a digest of their JSON (a score measured on
/// other cases is not reused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldOut {
    pub cases: usize,
    pub digest: String,
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
    /// The accepted playbook's mean held-out score, when measured ...
    #[tsify(type = "number | null")]
    pub score: Option<f64>,
    /// ... on the held-out set of this digest.
    #[tsify(type = "string | null")]
    pub score_digest: Option<String>,
    /// Previous accepted playbooks, the latest last (`revert`).
    #[tsify(type = "PlaybookData[]")]
    pub previous: Vec<Playbook>,
    /// Fingerprints of rejected batches, the oldest first.
    pub rejected: Vec<String>,
    pub log: Vec<GateRecord>,
    pub next_sequence: u64,
}

impl Validate for GatedPlaybook {
    fn validate(&self) -> Result<(), InputError> {
        self.policy
            .validate()
            .map_err(|error| error.within("policy"))
    }
}

/// SHA-256 (hex) of the operations without their op ids: the same change under new op ids is the same batch.
pub fn batch_fingerprint(ops: &[DeltaOp]) -> String {
    let kinds: Vec<&DeltaKind> = ops.iter().map(|op| &op.kind).collect();
    hex::encode(Sha256::digest(to_json_string(&kinds).as_bytes()))
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
        self.next_sequence += 1;
        self.log.push(record);
        if self.log.len() > MAX_LOG {
            self.log.remove(0);
        }
    }

    fn remember_rejected(&mut self, fingerprint: &str) {
        if !self.rejected.iter().any(|known| known == fingerprint) {
            self.rejected.push(fingerprint.to_owned());
        }
        if self.rejected.len() > MAX_REJECTED_FINGERPRINTS {
            self.rejected.remove(0);
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
        let fingerprint = batch_fingerprint(ops);
        let version = self.playbook.version;
        if self.rejected.contains(&fingerprint) {
            let reason = "the same batch was rejected before".to_owned();
            self.push_log(GateRecord {
                sequence: 0,
                decision: GateDecision::RefusedAgain,
                fingerprint: Some(fingerprint.clone()),
                baseline: None,
                candidate: None,
                retired: Vec::new(),
                reason: reason.clone(),
                playbook_version: version,
                ops: Vec::new(),
            });
            return Ok(GateOutcome {
                decision: GateDecision::RefusedAgain,
                fingerprint,
                baseline: None,
                candidate: None,
                reason,
                report: DeltaReport::default(),
                retired: Vec::new(),
                playbook_version: version,
            });
        }
        let mut changed = self.playbook.clone();
        let report = apply_deltas(&mut changed, ops);
        let (mut candidate, retired) = within_budget(&changed, self.policy.max_tokens);
        if !retired.is_empty() {
            candidate.log("RETIRE", None, format!("retired {}", retired.join(", ")));
        }
        if report.applied.is_empty() && retired.is_empty() {
            return Ok(GateOutcome {
                decision: GateDecision::Unchanged,
                fingerprint,
                baseline: None,
                candidate: None,
                reason: "no operation of the batch applied".to_owned(),
                report,
                retired,
                playbook_version: version,
            });
        }
        self.decide(
            fingerprint,
            ops,
            candidate,
            report,
            retired,
            held_out,
            evaluator,
        )
        .await
    }

    /// Retires the accepted playbook's lowest-scored bullets until it fits the token budget, through the gate.
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

    #[allow(clippy::too_many_arguments)]
    async fn decide(
        &mut self,
        fingerprint: String,
        ops: &[DeltaOp],
        candidate: Playbook,
        report: DeltaReport,
        retired: Vec<String>,
        held_out: &HeldOut,
        evaluator: &impl Evaluator,
    ) -> Result<GateOutcome, GateError> {
        let before = self.playbook.clone();
        let known = self
            .score
            .filter(|_| self.score_digest.as_deref() == Some(held_out.digest.as_str()));
        let baseline = match known {
            Some(mean) => mean,
            None => {
                let scores = evaluator.evaluate(&before).await?;
                mean_score(&scores, held_out.cases)?
            }
        };
        let scores = evaluator.evaluate(&candidate).await?;
        let candidate_mean = mean_score(&scores, held_out.cases)?;
        let (accepted, reason) = judge(baseline, candidate_mean, &self.policy);
        let decision = if accepted {
            self.previous.push(before);
            if self.previous.len() > MAX_PREVIOUS {
                self.previous.remove(0);
            }
            self.playbook = candidate;
            self.score = Some(candidate_mean);
            GateDecision::Accepted
        } else {
            self.score = Some(baseline);
            self.remember_rejected(&fingerprint);
            GateDecision::Rejected
        };
        self.score_digest = Some(held_out.digest.clone());
        let version = self.playbook.version;
        let logged_retired = if accepted {
            retired.clone()
        } else {
            Vec::new()
        };
        self.push_log(GateRecord {
            sequence: 0,
            decision,
            fingerprint: Some(fingerprint.clone()),
            baseline: Some(baseline),
            candidate: Some(candidate_mean),
            retired: logged_retired,
            reason: reason.clone(),
            playbook_version: version,
            ops: if accepted { Vec::new() } else { ops.to_vec() },
        });
        Ok(GateOutcome {
            decision,
            fingerprint,
            baseline: Some(baseline),
            candidate: Some(candidate_mean),
            reason,
            report,
            retired,
            playbook_version: version,
        })
    }

    /// Restores the previous accepted playbook exactly (its score is measured again when next needed).
    pub fn revert(&mut self) -> Result<GateRecord, GateError> {
        let previous = self.previous.pop().ok_or(GateError::NothingToRevert)?;
        let from = self.playbook.version;
        self.playbook = previous;
        self.score = None;
        self.score_digest = None;
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
