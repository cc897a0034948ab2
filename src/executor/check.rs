//! The 6-step confirmation check (seed 003 section 5), preceded by signature verification. Pure: the
//! confirmation, the request, the host's "now" and the trusted keys in; a verdict out.

use super::confirmation::{Confirmation, ConfirmationState};
use super::messages;
use super::request::ExecutorRequest;
use super::signature::KeyRing;
use crate::input::Validate;
use crate::language::Language;
use crate::timestamp::{EpochMillis, HOUR_MS, parse_rfc3339};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// How long a confirmation stays valid after `confirmed_at` (seed 003 step 3a).
pub const CONFIRMATION_TTL_MS: EpochMillis = 24 * HOUR_MS;

/// How far a `confirmed_at` may lie ahead of the host's clock (the approver's and the host's clocks differ)
/// before it is rejected as `not_yet_valid`.
pub const DEFAULT_CLOCK_SKEW_MS: EpochMillis = 5 * 60 * 1000;

/// The largest clock skew a caller may allow.
pub const MAX_CLOCK_SKEW_MS: EpochMillis = HOUR_MS;

/// Reads a caller's clock skew allowance (milliseconds): absent is the default; it must be a whole,
/// non-negative number no larger than [`MAX_CLOCK_SKEW_MS`].
pub fn clock_skew_from_host(
    path: &str,
    value: Option<f64>,
) -> Result<EpochMillis, crate::input::InputError> {
    let Some(value) = value else {
        return Ok(DEFAULT_CLOCK_SKEW_MS);
    };
    if !value.is_finite()
        || value.fract() != 0.0
        || !(0.0..=MAX_CLOCK_SKEW_MS as f64).contains(&value)
    {
        return Err(crate::input::InputError::invalid(
            path,
            format!("must be whole milliseconds between 0 and {MAX_CLOCK_SKEW_MS}, got {value}"),
        ));
    }
    Ok(value as EpochMillis)
}

/// How the check runs besides its inputs: the clock skew it allows, the language of its reasons, and the
/// audience (this guard's or inbox's id) a confirmation must name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckPolicy {
    pub clock_skew_ms: EpochMillis,
    pub language: Language,
    /// When set, only confirmations made for this audience pass; when not, only those made for none.
    pub audience: Option<String>,
}

impl Default for CheckPolicy {
    fn default() -> Self {
        Self {
            clock_skew_ms: DEFAULT_CLOCK_SKEW_MS,
            language: Language::En,
            audience: None,
        }
    }
}

/// The check step that rejected a confirmation, in the order the checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Step 1: no confirmation with this id.
    NotFound,
    /// Before anything else is trusted: missing, unknown-key, malformed or non-matching signature.
    SignatureInvalid,
    /// Step 2: already consumed by an Apply.
    AlreadyConsumed,
    /// Step 2: another Apply with it started and was never committed; a human must reconcile.
    InFlight,
    /// Step 3a: `confirmed_at` lies ahead of the host's clock by more than the allowed skew.
    NotYetValid,
    /// Step 3a: 24 hours or more since `confirmed_at`.
    ExpiredTime,
    /// Step 3b: withdrawn by a human.
    Cancelled,
    /// Step 3: invalidated earlier by a failed precondition (step 6).
    Invalidated,
    /// Step 4: the request targets another node.
    NodeMismatch,
    /// Step 5: the request's content differs from what was approved.
    ChangeMismatch,
    /// Seed 003 10.2: no skill is configured for the change's `type`; nothing was applied.
    NoSkill,
    /// The confirmation was made for another guard (its `audience`), or for none where one is required.
    WrongAudience,
    /// The stored record's seal does not match: a lifecycle field was changed outside the Executor.
    RecordTampered,
    /// A signed human action was made for another version of what it acts on: the state has changed.
    StaleAction,
    /// A signed human action (its nonce) was already used.
    ActionReplayed,
    /// Another confirmation of the same action is being applied, or its outcome is unknown.
    ActionInFlight,
    /// Another confirmation of the same action already ran it (or a person settled it).
    ActionAlreadyRan,
    /// A person said "not applied" while an Apply of it is still running here.
    ApplyRunning,
    /// The standing approval a confirmation was made under has expired.
    MandateExpired,
    /// The standing approval was revoked by a person (or is not registered with this Executor).
    MandateRevoked,
    /// The standing approval has no use left.
    MandateUsedUp,
}

impl Phase {
    /// The phase's name as serialised (`snake_case`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::SignatureInvalid => "signature_invalid",
            Self::AlreadyConsumed => "already_consumed",
            Self::InFlight => "in_flight",
            Self::NotYetValid => "not_yet_valid",
            Self::ExpiredTime => "expired_time",
            Self::Cancelled => "cancelled",
            Self::Invalidated => "invalidated",
            Self::NodeMismatch => "node_mismatch",
            Self::ChangeMismatch => "change_mismatch",
            Self::NoSkill => "no_skill",
            Self::WrongAudience => "wrong_audience",
            Self::RecordTampered => "record_tampered",
            Self::StaleAction => "stale_action",
            Self::ActionReplayed => "action_replayed",
            Self::ActionInFlight => "action_in_flight",
            Self::ActionAlreadyRan => "action_already_ran",
            Self::ApplyRunning => "apply_running",
            Self::MandateExpired => "mandate_expired",
            Self::MandateRevoked => "mandate_revoked",
            Self::MandateUsedUp => "mandate_used_up",
        }
    }
}

/// A rejection by steps 1-5 (or the signature): the confirmation itself is unusable for this request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub phase: Phase,
    pub reason: String,
}

impl Rejection {
    pub fn new(phase: Phase, reason: impl Into<String>) -> Self {
        Self {
            phase,
            reason: reason.into(),
        }
    }
}

/// Outcome of the pure check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum CheckVerdict {
    /// Every step passed: the Apply may run.
    Pass,
    /// Steps 1-5 (or the signature) failed. Not consumed.
    Rejected { phase: Phase, reason: String },
    /// Step 6: the node's current status differs from the approved `from`. The confirmation is
    /// invalidated: not consumed, never usable again.
    ReconfirmRequired {
        reason: String,
        current_status: String,
    },
    /// Steps 1-5 passed, and no current status was given, so step 6 has not run yet.
    PendingPrecondition,
}

/// Input of the pure check. `current_status` is the node's status from Preview; without it, step 6 is
/// left pending.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct CheckInput {
    pub confirmation: Option<Confirmation>,
    pub request: ExecutorRequest,
    /// Host clock, milliseconds since the Unix epoch.
    pub now: f64,
    /// Trusted verification keys: key id -> HMAC secret or an approver's public key.
    #[tsify(type = "Record<string, string>")]
    pub keys: std::collections::BTreeMap<String, super::public_key::KeySpec>,
    #[serde(default)]
    #[tsify(optional)]
    pub current_status: Option<String>,
    /// How far `confirmed_at` may lie ahead of `now`, in milliseconds (default 5 minutes).
    #[serde(default)]
    #[tsify(optional)]
    pub clock_skew_ms: Option<f64>,
    /// Language of the reasons (default `en`; `ja` is the seed's wording).
    #[serde(default)]
    #[tsify(optional)]
    pub language: Option<Language>,
    /// This guard's audience: only confirmations made for it pass (none: only those made for none).
    #[serde(default)]
    #[tsify(optional)]
    pub audience: Option<String>,
}

/// The signature check and steps 1-5, in order. `Ok` means the Apply may proceed to step 6.
pub fn check_before_apply(
    confirmation: Option<&Confirmation>,
    request: &ExecutorRequest,
    now: EpochMillis,
    policy: &CheckPolicy,
    keys: &KeyRing,
) -> Result<(), Rejection> {
    let language = policy.language;
    // Step 1: existence.
    let Some(confirmation) =
        confirmation.filter(|found| found.confirmation_id == request.confirmation_id)
    else {
        return Err(Rejection::new(
            Phase::NotFound,
            messages::not_found(language, &request.confirmation_id),
        ));
    };
    // Nothing in it is trusted before its signature is.
    keys.verify(confirmation).map_err(|why| {
        Rejection::new(
            Phase::SignatureInvalid,
            messages::signature_invalid(language, &why),
        )
    })?;
    // The approval is for this guard (checked once the signature covers the audience).
    if confirmation.audience != policy.audience {
        return Err(Rejection::new(
            Phase::WrongAudience,
            messages::wrong_audience(
                language,
                confirmation.audience.as_deref(),
                policy.audience.as_deref(),
            ),
        ));
    }
    // Step 2: already used, or in use.
    match confirmation.state() {
        ConfirmationState::Consumed => {
            let at = confirmation
                .consumed_at
                .as_deref()
                .unwrap_or("an unrecorded time");
            return Err(Rejection::new(
                Phase::AlreadyConsumed,
                messages::already_consumed(language, at),
            ));
        }
        ConfirmationState::InFlight => {
            let since = confirmation
                .in_flight_at
                .as_deref()
                .unwrap_or("an unrecorded time");
            return Err(Rejection::new(
                Phase::InFlight,
                messages::in_flight(language, since),
            ));
        }
        ConfirmationState::Approved
        | ConfirmationState::Cancelled
        | ConfirmationState::Invalidated => {}
    }
    // Step 3a: expiry, 24 hours after confirmed_at. An unreadable time fails closed.
    let confirmed_at = parse_rfc3339(&confirmation.confirmed_at)
        .map_err(|why| Rejection::new(Phase::ExpiredTime, messages::undatable(language, &why)))?;
    if confirmed_at > now.saturating_add(policy.clock_skew_ms) {
        return Err(Rejection::new(
            Phase::NotYetValid,
            messages::not_yet_valid(language, &confirmation.confirmed_at, policy.clock_skew_ms),
        ));
    }
    if now.saturating_sub(confirmed_at) >= CONFIRMATION_TTL_MS {
        return Err(Rejection::new(
            Phase::ExpiredTime,
            messages::expired(language, &confirmation.confirmed_at),
        ));
    }
    // Step 3a, for a confirmation made under a standing approval: the approval itself still stands.
    if let Some(mandate) = &confirmation.mandate {
        let expires = mandate
            .window()
            .map_or(EpochMillis::MIN, |(_, expires)| expires);
        if now >= expires {
            return Err(Rejection::new(
                Phase::MandateExpired,
                messages::mandate_expired(language, &mandate.expires_at),
            ));
        }
    }
    // Step 3b: cancelled; and invalidated earlier by step 6.
    if confirmation.cancelled {
        return Err(Rejection::new(
            Phase::Cancelled,
            messages::cancelled(language),
        ));
    }
    if let Some(at) = &confirmation.invalidated_at {
        return Err(Rejection::new(
            Phase::Invalidated,
            messages::invalidated(language, at),
        ));
    }
    // Step 4: same node.
    let requested = &request.apply_request;
    if confirmation.node_id != requested.node_id {
        return Err(Rejection::new(
            Phase::NodeMismatch,
            messages::node_mismatch(language, &confirmation.node_id, &requested.node_id),
        ));
    }
    // Step 5: same change, nothing edited.
    let mismatches = [
        (
            "confirm_status",
            &confirmation.proposed_change.to,
            &requested.confirm_status,
        ),
        ("intent", &confirmation.intent, &requested.intent),
        ("reason", &confirmation.reason, &requested.reason),
    ];
    if let Some((field, approved, asked)) = mismatches
        .iter()
        .find(|(_, approved, asked)| approved != asked)
    {
        return Err(Rejection::new(
            Phase::ChangeMismatch,
            messages::change_mismatch(language, field, approved, asked),
        ));
    }
    if let Some(asked) = &requested.action_id {
        let approved = confirmation.action_id.as_deref().unwrap_or_default();
        if approved != asked {
            return Err(Rejection::new(
                Phase::ChangeMismatch,
                messages::change_mismatch(language, "action_id", approved, asked),
            ));
        }
    }
    Ok(())
}

/// Step 6: the node's current status (from Preview) must still be the approved `from`.
pub fn check_precondition(
    confirmation: &Confirmation,
    current_status: &str,
    language: Language,
) -> Result<(), String> {
    if confirmation.proposed_change.from == current_status {
        Ok(())
    } else {
        Err(messages::status_changed(
            language,
            &confirmation.proposed_change.from,
            current_status,
        ))
    }
}

/// The whole check, as one pure function.
pub fn check_confirmation(
    confirmation: Option<&Confirmation>,
    request: &ExecutorRequest,
    now: EpochMillis,
    policy: &CheckPolicy,
    keys: &KeyRing,
    current_status: Option<&str>,
) -> CheckVerdict {
    // A use of a standing approval counts only where its uses are counted: the Executor's store.
    if confirmation.is_some_and(|found| found.mandate.is_some()) {
        return CheckVerdict::Rejected {
            phase: Phase::SignatureInvalid,
            reason: messages::signature_invalid(
                policy.language,
                "it was made under a standing approval, which only the Executor that registered it (and counts its uses) applies",
            ),
        };
    }
    if let Err(Rejection { phase, reason }) =
        check_before_apply(confirmation, request, now, policy, keys)
    {
        return CheckVerdict::Rejected { phase, reason };
    }
    match (confirmation, current_status) {
        (Some(confirmation), Some(current)) => {
            match check_precondition(confirmation, current, policy.language) {
                Ok(()) => CheckVerdict::Pass,
                Err(reason) => CheckVerdict::ReconfirmRequired {
                    reason,
                    current_status: current.to_owned(),
                },
            }
        }
        _ => CheckVerdict::PendingPrecondition,
    }
}

/// The JSON contract of [`check_confirmation`]: a [`CheckInput`] as JSON text in, a verdict out.
pub fn check_confirmation_json_str(text: &str) -> Result<CheckVerdict, crate::input::InputError> {
    let input: CheckInput = crate::input::parse_json_str(text)?;
    if let Some(confirmation) = &input.confirmation {
        confirmation
            .validate()
            .map_err(|error| error.within("confirmation"))?;
    }
    input
        .request
        .validate()
        .map_err(|error| error.within("request"))?;
    let now = crate::timestamp::millis_from_host("now", input.now)?;
    let policy = CheckPolicy {
        clock_skew_ms: clock_skew_from_host("clock_skew_ms", input.clock_skew_ms)?,
        language: input.language.unwrap_or_default(),
        audience: input.audience,
    };
    let keys = KeyRing::from_specs(&input.keys)?;
    Ok(check_confirmation(
        input.confirmation.as_ref(),
        &input.request,
        now,
        &policy,
        &keys,
        input.current_status.as_deref(),
    ))
}
