//! Standing approvals (mandates): a person signs, with their own key, a bounded permission for named agents
//! to run one kind of action without asking: within declared constraints on its parameters, at most N times,
//! until a time. The core renders it in words before it is signed, verifies it like a confirmation
//! (signature, audience, time), and an Executor reserves one use, atomically, for each change it approves
//! under it; the Apply runs only under a confirmation whose use the record holds.
//!
//! [`model`] the mandate, [`constraint`] its constraint language, [`signing`] what is signed and its check,
//! [`words`] its rendering in English and Japanese, [`cover`] whether a change falls within it, [`record`]
//! its uses and revocation in the store, [`executor`] the Executor's part.

pub mod constraint;
pub mod cover;
pub mod executor;
pub mod model;
pub mod record;
pub mod signing;
pub mod words;

pub use constraint::{Constraint, ConstraintOp};
pub use executor::{MandateOutcome, MandateUse};
pub use model::Mandate;
pub use record::MandateRecord;

use super::confirmation::Confirmation;
use super::signature::KeyRing;
use crate::language::Language;
use crate::timestamp::parse_rfc3339;

/// The proof of a confirmation made under a mandate: the confirmation carries no signature of its own, the
/// mandate's signature verifies, it was made for the same audience, it covers exactly this change, and the
/// confirmation is dated within the mandate's life. (Its uses and revocation are the Executor's store's.)
pub fn verify_backing(
    keys: &KeyRing,
    confirmation: &Confirmation,
    mandate: &Mandate,
) -> Result<(), String> {
    if confirmation.key_id.is_some()
        || confirmation.signature.is_some()
        || confirmation.assertion.is_some()
    {
        return Err(
            "it carries both a signature of its own and a standing approval; exactly one is allowed"
                .to_owned(),
        );
    }
    signing::verify_mandate_signature(mandate, keys)
        .map_err(|why| format!("its standing approval is not authentic: {why}"))?;
    if mandate.audience != confirmation.audience {
        return Err("its standing approval was made for another audience".to_owned());
    }
    cover::covers_change(
        mandate,
        &confirmation.node_id,
        &confirmation.proposed_change,
        Language::En,
    )
    .map_err(|why| format!("its standing approval does not cover it: {why}"))?;
    let confirmed_at = parse_rfc3339(&confirmation.confirmed_at)
        .map_err(|why| format!("its time is unreadable: {why}"))?;
    match mandate.window() {
        Some((issued, expires)) if (issued..expires).contains(&confirmed_at) => Ok(()),
        _ => Err("it is dated outside its standing approval's life".to_owned()),
    }
}
