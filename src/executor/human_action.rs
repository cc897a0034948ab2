//! A human's other decisions about an approval, signed like the approval itself: declining a proposal,
//! cancelling an unused approval, and reconciling an in-flight one. Whoever can only verify these cannot
//! make them, so an agent cannot cancel, decline or settle what a person must.
//!
//! The canonical encoding is the compact JSON array
//! `["agent-governor/action/v1", key_id, action, approval_id, detail, at]`.

use super::check::{Phase, Rejection};
use super::passkey::PasskeyAssertion;
use super::signature::{KeyRing, Proof};
use crate::input::{InputError, Validate, require_non_empty};
use crate::timestamp::{EpochMillis, parse_rfc3339};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tsify::Tsify;

const DOMAIN: &str = "agent-governor/action/v1";

/// How old a signed action may be when it arrives: it is used at once, so a short window bounds replays.
pub const ACTION_MAX_AGE_MS: EpochMillis = 10 * 60 * 1000;

/// Which decision a human made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum HumanActionKind {
    /// n: the proposal is not approved.
    Decline,
    /// An approved, unused confirmation is withdrawn.
    Cancel,
    /// An in-flight confirmation's Apply did happen: it becomes consumed.
    ReconcileApplied,
    /// An in-flight confirmation's Apply did not happen: it is approved again (usable by one Apply).
    ReconcileNotApplied,
}

impl HumanActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decline => "decline",
            Self::Cancel => "cancel",
            Self::ReconcileApplied => "reconcile_applied",
            Self::ReconcileNotApplied => "reconcile_not_applied",
        }
    }
}

/// A signed human decision about the approval `approval_id` (a confirmation id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct HumanAction {
    pub action: HumanActionKind,
    pub approval_id: String,
    /// The person's words: a reason to decline, what they found when reconciling. May be empty.
    #[serde(default)]
    pub detail: String,
    /// RFC 3339, when the person acted.
    pub at: String,
    pub key_id: Option<String>,
    /// Lower-case hex HMAC-SHA256 or Ed25519 signature over the canonical encoding.
    #[serde(default)]
    #[tsify(optional)]
    pub signature: Option<String>,
    /// Instead of `signature`: a passkey assertion over the SHA-256 of the canonical encoding.
    #[serde(default)]
    #[tsify(optional)]
    pub assertion: Option<PasskeyAssertion>,
}

impl Validate for HumanAction {
    fn validate(&self) -> Result<(), InputError> {
        require_non_empty("approval_id", &self.approval_id)?;
        require_non_empty("at", &self.at)
    }
}

/// The exact bytes that are signed.
pub fn canonical_action_bytes(action: &HumanAction, key_id: &str) -> Vec<u8> {
    let fields: [&str; 6] = [
        DOMAIN,
        key_id,
        action.action.as_str(),
        &action.approval_id,
        &action.detail,
        &action.at,
    ];
    serde_json::to_vec(&fields).unwrap_or_default()
}

/// The challenge a passkey signs for `action` with key `key_id`.
pub fn action_challenge(action: &HumanAction, key_id: &str) -> [u8; 32] {
    Sha256::digest(canonical_action_bytes(action, key_id)).into()
}

/// Verifies the signature, then that `at` lies within [now - 10 minutes, now + clock skew]. Returns the
/// passkey's signature counter for an assertion.
pub fn check_human_action(
    action: &HumanAction,
    keys: &KeyRing,
    now: EpochMillis,
    clock_skew_ms: EpochMillis,
) -> Result<Option<u32>, Rejection> {
    let proof = Proof {
        key_id: action.key_id.as_deref(),
        signature: action.signature.as_deref(),
        assertion: action.assertion.as_ref(),
    };
    let sign_count = keys
        .verify_proof(proof, |key_id| canonical_action_bytes(action, key_id))
        .map_err(|why| {
            Rejection::new(
                Phase::SignatureInvalid,
                format!("This action is not authentic: {why}."),
            )
        })?;
    let at = parse_rfc3339(&action.at).map_err(|why| {
        Rejection::new(
            Phase::SignatureInvalid,
            format!("The action's time is unreadable: {why}."),
        )
    })?;
    if at > now.saturating_add(clock_skew_ms) {
        return Err(Rejection::new(
            Phase::NotYetValid,
            format!(
                "The action is dated {}, ahead of this host's clock.",
                action.at
            ),
        ));
    }
    if now.saturating_sub(at) > ACTION_MAX_AGE_MS {
        return Err(Rejection::new(
            Phase::ExpiredTime,
            format!(
                "The action is dated {}: signed actions are accepted for 10 minutes.",
                action.at
            ),
        ));
    }
    Ok(sign_count)
}

/// The outcome of checking a signed human action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum ActionVerdict {
    /// Authentic and recent. `sign_count` is the passkey's counter for an assertion (`null` otherwise),
    /// for the holder of the key's state to compare with the last one.
    Pass {
        #[tsify(type = "number | null")]
        sign_count: Option<u32>,
    },
    Rejected {
        phase: Phase,
        reason: String,
    },
}

impl From<Result<Option<u32>, Rejection>> for ActionVerdict {
    fn from(result: Result<Option<u32>, Rejection>) -> Self {
        match result {
            Ok(sign_count) => Self::Pass { sign_count },
            Err(rejection) => Self::Rejected {
                phase: rejection.phase,
                reason: rejection.reason,
            },
        }
    }
}
