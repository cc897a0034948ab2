//! A human's other decisions about an approval, signed like the approval itself: declining a proposal,
//! cancelling an unused approval, reconciling an in-flight one, and a privileged command to an agent.
//! Whoever can only verify these cannot make them, so an agent cannot cancel, decline, settle or command
//! what a person must.
//!
//! Every action is single-use and bound to what it acts on: it carries a `nonce` (recorded when used, so a
//! replay is refused) and the `version` of the approval (or key set) it changes, as the guard showed it (so
//! an action made for an earlier state is refused once the state has moved on).
//!
//! The canonical encoding is the compact JSON array
//! `["agent-governor/action/v2", key_id, action, approval_id, version, nonce, detail, at]`.

use super::check::{Phase, Rejection};
use super::passkey::PasskeyAssertion;
use super::signature::{KeyRing, Proof};
use crate::input::{InputError, Validate, require_non_empty};
use crate::timestamp::{EpochMillis, parse_rfc3339};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tsify::Tsify;

const DOMAIN: &str = "agent-governor/action/v2";

/// A nonce is 16 to 128 characters of `A-Z a-z 0-9 - _` (a UUID or 16+ random bytes in base64url).
const NONCE_CHARS: std::ops::RangeInclusive<usize> = 16..=128;

/// The longest version string (versions the core makes are 32 hex characters).
const MAX_VERSION_CHARS: usize = 128;

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
    /// An approver adds a key of their own (`approval_id` is the new key's id, `detail` the key, see the
    /// guard's documentation), signed with a key they already hold.
    AddKey,
    /// An approver revokes a key of their own (`approval_id` is its id).
    RevokeKey,
    /// An approver names a key of their own (`approval_id` is its id, `detail` the new name).
    RenameKey,
    /// A privileged command to an agent (seed 002's Command UI): `approval_id` names the agent's command
    /// channel, `detail` is the command exactly as the agent receives it, `version` the channel's version.
    Command,
    /// An admin invites a person to approve (an enrollment code for them): `approval_id` names the guard's
    /// enrollments, `detail` the person's name and roles as the guard shows them, `version` the guard's.
    Enroll,
    /// A person revokes a standing approval (`approval_id` is the mandate's id, `version` its record's).
    RevokeMandate,
}

impl HumanActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decline => "decline",
            Self::Cancel => "cancel",
            Self::ReconcileApplied => "reconcile_applied",
            Self::ReconcileNotApplied => "reconcile_not_applied",
            Self::AddKey => "add_key",
            Self::RevokeKey => "revoke_key",
            Self::RenameKey => "rename_key",
            Self::Command => "command",
            Self::Enroll => "enroll",
            Self::RevokeMandate => "revoke_mandate",
        }
    }

    /// Whether the action changes a stored confirmation (whose version the core computes itself).
    pub fn acts_on_confirmation(self) -> bool {
        matches!(
            self,
            Self::Cancel | Self::ReconcileApplied | Self::ReconcileNotApplied
        )
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
    /// Single use: 16-128 characters of `A-Z a-z 0-9 - _`, fresh for every action.
    pub nonce: String,
    /// The version of what the action changes, as the guard showed it (an approval's `version`).
    pub version: String,
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
        require_non_empty("at", &self.at)?;
        parse_rfc3339(&self.at).map_err(|why| InputError::invalid("at", why))?;
        let nonce_ok = NONCE_CHARS.contains(&self.nonce.len())
            && self
                .nonce
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !nonce_ok {
            return Err(InputError::invalid(
                "nonce",
                "must be 16 to 128 characters of A-Z a-z 0-9 - _, fresh for every action",
            ));
        }
        require_non_empty("version", &self.version)?;
        if self.version.chars().count() > MAX_VERSION_CHARS {
            return Err(InputError::invalid(
                "version",
                format!("is longer than {MAX_VERSION_CHARS} characters"),
            ));
        }
        Ok(())
    }
}

/// The exact bytes that are signed.
pub fn canonical_action_bytes(action: &HumanAction, key_id: &str) -> Vec<u8> {
    let fields: [&str; 8] = [
        DOMAIN,
        key_id,
        action.action.as_str(),
        &action.approval_id,
        &action.version,
        &action.nonce,
        &action.detail,
        &action.at,
    ];
    serde_json::to_vec(&fields).unwrap_or_default()
}

/// The challenge a passkey signs for `action` with key `key_id`.
pub fn action_challenge(action: &HumanAction, key_id: &str) -> [u8; 32] {
    Sha256::digest(canonical_action_bytes(action, key_id)).into()
}

/// Verifies the signature, then that `at` lies within [now - 10 minutes, now + clock skew], then that the
/// action was made for `current_version` (the version of what it acts on now). Returns the passkey's
/// signature counter for an assertion. Whether its nonce was used is the ledger's to say
/// ([`super::action_ledger`]).
pub fn check_human_action(
    action: &HumanAction,
    keys: &KeyRing,
    now: EpochMillis,
    clock_skew_ms: EpochMillis,
    current_version: &str,
) -> Result<Option<u32>, Rejection> {
    let proof = Proof {
        key_id: action.key_id.as_deref(),
        signature: action.signature.as_deref(),
        assertion: action.assertion.as_ref(),
    };
    let sign_count = keys
        .verify_proof(proof, &|key_id| canonical_action_bytes(action, key_id))
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
    if action.version != current_version {
        return Err(stale(action, current_version));
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

/// The rejection of an action made for another version of what it acts on.
pub fn stale(action: &HumanAction, current_version: &str) -> Rejection {
    Rejection::new(
        Phase::StaleAction,
        format!(
            "The action was made for version {:?} of {:?}, which is now at version {current_version:?}: \
             the state changed since it was signed. Read it again and decide again.",
            action.version, action.approval_id
        ),
    )
}
