//! The standing approval itself: who may run what, within which limits, how often and until when, signed
//! by the person who grants it.

use super::constraint::Constraint;
use crate::executor::passkey::PasskeyAssertion;
use crate::executor::tool_call::TOOL_CALL;
use crate::input::{InputError, Validate, require_non_empty};
use crate::timestamp::{EpochMillis, parse_rfc3339};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

/// The most uses one mandate may grant.
pub const MAX_USES: u32 = 1000;
/// The longest a mandate may stand: 90 days from its signing.
pub const MAX_LIFETIME_MS: EpochMillis = 90 * 24 * 60 * 60 * 1000;
/// The most agents one mandate may name.
pub const MAX_AGENTS: usize = 16;
/// The most constraints one mandate may hold.
pub const MAX_CONSTRAINTS: usize = 32;
/// The longest agent id or action, in characters.
const MAX_NAME_CHARS: usize = 128;
/// A mandate id is 16 to 128 characters of `A-Z a-z 0-9 - _` (it appears in paths).
const ID_CHARS: std::ops::RangeInclusive<usize> = 16..=128;

/// A standing approval (a mandate): a person's signed, bounded permission for named agents to run one kind
/// of action without asking, while every constraint holds, at most `max_uses` times, until `expires_at`.
///
/// The terms (every field but `key_id`, `signature` and `assertion`) are signed as canonical JSON (see
/// [`super::signing`]); a person reads them rendered in words by the core ([`super::words`]) before signing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct Mandate {
    /// 16-128 characters of `A-Z a-z 0-9 - _`, fresh for every mandate.
    pub mandate_id: String,
    /// The guard (or inbox) it is for, as confirmations name theirs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub audience: Option<String>,
    /// The agents it lets act (1-16 agent ids, exactly as the host identifies them).
    pub agents: Vec<String>,
    /// What they may run: a change type (`status_change`) or one tool (`tool:send_email`).
    pub action: String,
    /// Every constraint must hold for a change to be covered; a field no constraint names may be anything.
    #[serde(default)]
    pub constraints: Vec<Constraint>,
    /// How many Applies it may start (1-1000).
    pub max_uses: u32,
    /// RFC 3339: when the person signed it.
    pub issued_at: String,
    /// RFC 3339: when it stops applying (after `issued_at`, at most 90 days later).
    pub expires_at: String,
    /// The signer's key.
    #[serde(default)]
    pub key_id: Option<String>,
    /// Lower-case hex Ed25519 or HMAC-SHA256 signature over the canonical encoding of the terms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub signature: Option<String>,
    /// Instead of `signature`: a passkey assertion over the SHA-256 of the canonical encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub assertion: Option<PasskeyAssertion>,
}

/// What a mandate lets an agent run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    /// Changes of this type (not tool calls).
    ChangeType(&'a str),
    /// Calls of this one tool.
    Tool(&'a str),
}

impl Mandate {
    /// What it lets an agent run, read from `action`.
    pub fn scope(&self) -> Scope<'_> {
        match self.action.strip_prefix("tool:") {
            Some(tool) => Scope::Tool(tool),
            None => Scope::ChangeType(&self.action),
        }
    }

    /// When it was signed and when it ends, in epoch milliseconds (validated: both readable).
    pub fn window(&self) -> Option<(EpochMillis, EpochMillis)> {
        Some((
            parse_rfc3339(&self.issued_at).ok()?,
            parse_rfc3339(&self.expires_at).ok()?,
        ))
    }
}

fn is_name(text: &str) -> bool {
    !text.trim().is_empty()
        && text.chars().count() <= MAX_NAME_CHARS
        && !text.chars().any(|c| c.is_control() || c.is_whitespace())
}

impl Validate for Mandate {
    fn validate(&self) -> Result<(), InputError> {
        let id_ok = ID_CHARS.contains(&self.mandate_id.len())
            && self
                .mandate_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !id_ok {
            return Err(InputError::invalid(
                "mandate_id",
                "must be 16 to 128 characters of A-Z a-z 0-9 - _, fresh for every mandate",
            ));
        }
        if let Some(audience) = &self.audience {
            require_non_empty("audience", audience)?;
        }
        if self.agents.is_empty() || self.agents.len() > MAX_AGENTS {
            return Err(InputError::invalid(
                "agents",
                format!("must name 1 to {MAX_AGENTS} agents"),
            ));
        }
        for (index, agent) in self.agents.iter().enumerate() {
            if !is_name(agent) {
                return Err(InputError::invalid(
                    format!("agents[{index}]"),
                    format!(
                        "must be 1-{MAX_NAME_CHARS} characters with no white space or control character"
                    ),
                ));
            }
            if self.agents.iter().take(index).any(|seen| seen == agent) {
                return Err(InputError::invalid(
                    format!("agents[{index}]"),
                    format!("names {agent:?} twice"),
                ));
            }
        }
        let scope_ok = is_name(&self.action)
            && match self.scope() {
                Scope::Tool(tool) => !tool.is_empty(),
                Scope::ChangeType(change_type) => change_type != TOOL_CALL,
            };
        if !scope_ok {
            return Err(InputError::invalid(
                "action",
                "must be a change type (`status_change`) or one tool (`tool:send_email`): a mandate never covers every tool",
            ));
        }
        if self.constraints.len() > MAX_CONSTRAINTS {
            return Err(InputError::invalid(
                "constraints",
                format!("may hold at most {MAX_CONSTRAINTS} constraints"),
            ));
        }
        for (index, constraint) in self.constraints.iter().enumerate() {
            constraint
                .validate()
                .map_err(|error| error.within(&format!("constraints[{index}]")))?;
        }
        if self.max_uses == 0 || self.max_uses > MAX_USES {
            return Err(InputError::invalid(
                "max_uses",
                format!("must be 1 to {MAX_USES}"),
            ));
        }
        let issued =
            parse_rfc3339(&self.issued_at).map_err(|why| InputError::invalid("issued_at", why))?;
        let expires = parse_rfc3339(&self.expires_at)
            .map_err(|why| InputError::invalid("expires_at", why))?;
        if expires <= issued {
            return Err(InputError::invalid("expires_at", "must be after issued_at"));
        }
        if expires - issued > MAX_LIFETIME_MS {
            return Err(InputError::invalid(
                "expires_at",
                "must be at most 90 days after issued_at",
            ));
        }
        Ok(())
    }
}
