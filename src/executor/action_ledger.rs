//! One action, one run: the ledger by action id, beside the confirmations.
//!
//! A person approves an *action* (a tool call, a loop action, an approval in an inbox), and one action can
//! be approved more than once: two signatures of one draft, a restored framework state approved again, a
//! double click. Single use per confirmation does not stop the second signature. So before an Apply the
//! Executor claims the action's entry (`action-run/{sha256 of the action}`) by compare-and-swap, and while an
//! action is in flight, applied or reconciled, no other confirmation runs it: the answer is
//! `action_in_flight` or `action_already_ran`, carrying the first run. Only a run the Executor knows
//! changed nothing (a 422 or 500, a failed Preview, a broken precondition) releases the action for another
//! confirmation. A person who wants the same change made again approves a new action id.

use super::check::{Phase, Rejection};
use super::confirmation::Confirmation;
use super::result::AppliedBlock;
use crate::input::{InputError, require_non_empty, to_json_string};
use crate::ports::{PortError, Store};
use crate::timestamp::{EpochMillis, format_rfc3339};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tsify::Tsify;

/// The longest action id, in characters.
pub const MAX_ACTION_ID_CHARS: usize = 512;

/// How often a claim is tried again when another Executor changed the entry in between.
const CLAIM_ATTEMPTS: usize = 4;

/// An action id: not blank, at most [`MAX_ACTION_ID_CHARS`] characters, no control character.
pub fn validate_action_id(path: &str, value: &str) -> Result<(), InputError> {
    require_non_empty(path, value)?;
    if value.chars().count() > MAX_ACTION_ID_CHARS || value.chars().any(char::is_control) {
        return Err(InputError::invalid(
            path,
            format!("must be at most {MAX_ACTION_ID_CHARS} characters with no control character"),
        ));
    }
    Ok(())
}

/// Where an action's run is recorded. A confirmation that names no action is its own action, in a
/// separate space, so no action id can stand for another confirmation.
pub fn action_run_key(confirmation: &Confirmation) -> String {
    match &confirmation.action_id {
        Some(action_id) => key_in("action", action_id),
        None => key_in("confirmation", &confirmation.confirmation_id),
    }
}

fn key_in(space: &str, id: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(space.as_bytes());
    hash.update([0]);
    hash.update(id.as_bytes());
    format!("action-run/{}", hex::encode(hash.finalize()))
}

/// Where an action stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum ActionRunState {
    /// An Apply of it started and has not been settled: it may have run.
    InFlight,
    /// Its last Apply changed nothing (a 422 or 500, a failed Preview, a broken precondition): another
    /// confirmation of it may run it.
    Released,
    /// Applied.
    Applied,
    /// A person said an Apply whose outcome was unknown happened.
    ReconciledApplied,
    /// A person said an Apply whose outcome was unknown did not happen: the action is closed; doing the
    /// same again is a new action.
    ReconciledNotApplied,
}

/// The ledger's entry for one action: which confirmation ran it, where it stands, since when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(deny_unknown_fields)]
pub struct ActionRun {
    /// The action (its `action_id`, or the confirmation's id when it names none).
    pub action_id: String,
    /// The confirmation whose Apply holds or held the action.
    pub confirmation_id: String,
    pub state: ActionRunState,
    /// RFC 3339, when the action reached this state.
    pub at: String,
    /// What the Apply reported, when it applied.
    #[serde(default)]
    pub applied: Option<AppliedBlock>,
    /// How many times the action was claimed for an Apply: each claim writes an entry no other claim
    /// wrote, so an Apply settles only its own claim.
    #[serde(default)]
    pub claims: u64,
}

impl ActionRun {
    fn new(confirmation: &Confirmation, state: ActionRunState, now: EpochMillis) -> Self {
        Self {
            action_id: confirmation.action().to_owned(),
            confirmation_id: confirmation.confirmation_id.clone(),
            state,
            at: format_rfc3339(now),
            applied: None,
            claims: 0,
        }
    }
}

/// Why an action was not claimed.
pub enum ClaimRefused {
    /// Another confirmation's run holds it (in flight, applied or reconciled).
    Taken(Rejection, Box<ActionRun>),
    /// The store failed, or its entry could not be read.
    Failed(String),
}

/// The action's entry as stored, with its exact text (the compare-and-swap operand).
async fn read(store: &impl Store, key: &str) -> Result<Option<(ActionRun, String)>, String> {
    match store.get(key).await {
        Ok(Some(text)) => entry_of(&text)
            .map(|run| Some((run, text)))
            .ok_or_else(|| "the action's ledger entry is malformed".to_owned()),
        Ok(None) => Ok(None),
        Err(error) => Err(error.to_string()),
    }
}

/// An entry's text as the Executor wrote it, read field by field from its JSON value (the JSON value reader
/// the module has anyway, not a second derived reader for this one record).
fn entry_of(text: &str) -> Option<ActionRun> {
    let value: Value = serde_json::from_str(text).ok()?;
    let field = |value: &Value, name: &str| value.get(name)?.as_str().map(str::to_owned);
    let state = match value.get("state")?.as_str()? {
        "in_flight" => ActionRunState::InFlight,
        "released" => ActionRunState::Released,
        "applied" => ActionRunState::Applied,
        "reconciled_applied" => ActionRunState::ReconciledApplied,
        "reconciled_not_applied" => ActionRunState::ReconciledNotApplied,
        _ => return None,
    };
    let applied = match value.get("applied") {
        None | Some(Value::Null) => None,
        Some(block) => Some(AppliedBlock {
            from_status: field(block, "from_status")?,
            to_status: field(block, "to_status")?,
            status_changed: block.get("status_changed")?.as_bool()?,
            reason: field(block, "reason")?,
            consumed_at: field(block, "consumed_at")?,
        }),
    };
    Some(ActionRun {
        action_id: field(&value, "action_id")?,
        confirmation_id: field(&value, "confirmation_id")?,
        state,
        at: field(&value, "at")?,
        applied,
        claims: value.get("claims").map_or(Some(0), Value::as_u64)?,
    })
}

/// The refusal of a run of an action another confirmation holds.
fn taken(run: ActionRun) -> ClaimRefused {
    let (phase, what) = match run.state {
        ActionRunState::InFlight => (
            Phase::ActionInFlight,
            "is being applied (or its outcome is unknown until a person reconciles it)",
        ),
        ActionRunState::ReconciledNotApplied => (
            Phase::ActionAlreadyRan,
            "was settled by a person as not applied; doing it again is a new action",
        ),
        _ => (Phase::ActionAlreadyRan, "already ran"),
    };
    let reason = format!(
        "Action {:?} {what} (confirmation {}, {}); another approval of it does not run it again. To do the same again, approve a new action.",
        run.action_id, run.confirmation_id, run.at
    );
    ClaimRefused::Taken(Rejection::new(phase, reason), Box::new(run))
}

/// What an update of an action's entry does: claim it for an Apply, or record a person's reconcile.
#[derive(Clone, Copy)]
enum Update {
    Claim,
    Reconcile(ActionRunState),
}

/// Claims `confirmation`'s action for its Apply: the entry moves to in flight under this confirmation,
/// unless another confirmation's run holds it. Returns the entry's text as written. The caller holds the
/// confirmation reserved (in flight), so no other Executor claims for it at the same time.
pub async fn claim(
    store: &impl Store,
    confirmation: &Confirmation,
    now: EpochMillis,
) -> Result<String, ClaimRefused> {
    update(store, confirmation, now, Update::Claim)
        .await?
        .ok_or_else(|| ClaimRefused::Failed("the action's entry was not written".to_owned()))
}

/// One compare-and-swap loop for claims and reconciles. `Ok(None)`: an entry another confirmation holds,
/// left alone by a reconcile.
async fn update(
    store: &impl Store,
    confirmation: &Confirmation,
    now: EpochMillis,
    update: Update,
) -> Result<Option<String>, ClaimRefused> {
    let key = action_run_key(confirmation);
    for _ in 0..CLAIM_ATTEMPTS {
        let current = read(store, &key).await.map_err(ClaimRefused::Failed)?;
        let (expected, claims) = match &current {
            None => (None, 0),
            Some((run, text)) => {
                let mine = run.confirmation_id == confirmation.confirmation_id;
                match (update, run.state) {
                    // Released, or this confirmation's own claim left by a reservation of it that
                    // ended before its Apply started (the caller holds the confirmation reserved now).
                    (Update::Claim, ActionRunState::Released) => (Some(text.as_str()), run.claims),
                    (Update::Claim, ActionRunState::InFlight) if mine => {
                        (Some(text.as_str()), run.claims)
                    }
                    (Update::Claim, _) => return Err(taken(run.clone())),
                    (Update::Reconcile(_), _) if !mine => return Ok(None),
                    (Update::Reconcile(_), _) => (Some(text.as_str()), run.claims),
                }
            }
        };
        let next = to_json_string(&match update {
            Update::Claim => ActionRun {
                claims: claims.saturating_add(1),
                ..ActionRun::new(confirmation, ActionRunState::InFlight, now)
            },
            Update::Reconcile(state) => ActionRun {
                claims,
                ..ActionRun::new(confirmation, state, now)
            },
        });
        match store.compare_and_swap(&key, expected, &next).await {
            Ok(true) => return Ok(Some(next)),
            Ok(false) => continue,
            Err(error) => return Err(ClaimRefused::Failed(error.to_string())),
        }
    }
    Err(ClaimRefused::Failed(
        "the action's ledger entry kept changing".to_owned(),
    ))
}

/// Moves a claimed action on (released, applied) from the text `claimed` wrote. A lost swap leaves the
/// entry as another writer left it.
pub async fn settle(
    store: &impl Store,
    confirmation: &Confirmation,
    claimed: &str,
    state: ActionRunState,
    applied: Option<AppliedBlock>,
    now: EpochMillis,
) -> Result<bool, PortError> {
    let claims = entry_of(claimed).map_or(0, |run| run.claims);
    let next = ActionRun {
        applied,
        claims,
        ..ActionRun::new(confirmation, state, now)
    };
    store
        .compare_and_swap(
            &action_run_key(confirmation),
            Some(claimed),
            &to_json_string(&next),
        )
        .await
}

/// Records a person's reconcile of `confirmation`'s unknown outcome, whatever the entry holds for this
/// confirmation (or none, for a run from before the ledger). An entry held by another confirmation is
/// left alone.
pub async fn record_reconciled(
    store: &impl Store,
    confirmation: &Confirmation,
    applied: bool,
    now: EpochMillis,
) -> Result<(), String> {
    let state = if applied {
        ActionRunState::ReconciledApplied
    } else {
        ActionRunState::ReconciledNotApplied
    };
    match update(store, confirmation, now, Update::Reconcile(state)).await {
        Ok(_) => Ok(()),
        Err(ClaimRefused::Failed(why)) => Err(why),
        Err(ClaimRefused::Taken(rejection, _)) => Err(rejection.reason),
    }
}

/// The entry of action `action_id` (a named action), if it has one.
pub async fn action_run(store: &impl Store, action_id: &str) -> Result<Option<ActionRun>, String> {
    Ok(read(store, &key_in("action", action_id))
        .await?
        .map(|(run, _)| run))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_as_written_and_anything_else_is_malformed() {
        let run = ActionRun {
            action_id: "tool-call/t/c/ab".into(),
            confirmation_id: "c-1".into(),
            state: ActionRunState::Applied,
            at: "2026-11-27T00:00:00.000Z".into(),
            applied: Some(AppliedBlock {
                from_status: String::new(),
                to_status: "{}".into(),
                status_changed: true,
                reason: "r".into(),
                consumed_at: "2026-11-27T00:00:00.000Z".into(),
            }),
            claims: 3,
        };
        assert_eq!(entry_of(&to_json_string(&run)), Some(run.clone()));
        for state in [
            ActionRunState::InFlight,
            ActionRunState::Released,
            ActionRunState::ReconciledApplied,
            ActionRunState::ReconciledNotApplied,
        ] {
            let other = ActionRun {
                state,
                applied: None,
                ..run.clone()
            };
            assert_eq!(entry_of(&to_json_string(&other)), Some(other));
        }
        for bad in [
            "",
            "[]",
            "{}",
            r#"{"action_id":"a","confirmation_id":"c","state":"done","at":"t"}"#,
            r#"{"action_id":"a","confirmation_id":"c","state":"applied","at":"t","claims":-1}"#,
            r#"{"action_id":"a","confirmation_id":"c","state":"applied","at":"t","applied":{"to_status":"x"}}"#,
            r#"{"action_id":1,"confirmation_id":"c","state":"applied","at":"t"}"#,
        ] {
            assert_eq!(entry_of(bad), None, "{bad}");
        }
    }
}
