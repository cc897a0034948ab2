//! The playbook as versioned JSON in the host store, written by compare-and-swap so two writers cannot
//! silently overwrite each other.

use super::book::Playbook;
use crate::input::{parse_json_str, to_json_string};
use crate::ports::{PortError, Store};
use serde::{Deserialize, Serialize};

pub const FORMAT: &str = "agent-governor/playbook";
pub const FORMAT_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    format: String,
    format_version: u32,
    playbook: Playbook,
}

fn key(name: &str) -> String {
    format!("playbook/{name}")
}

/// The stored playbook and the exact text it came from (`None`: none stored yet).
pub async fn load_playbook(
    store: &impl Store,
    name: &str,
) -> Result<(Playbook, Option<String>), PortError> {
    let Some(text) = store.get(&key(name)).await? else {
        return Ok((Playbook::default(), None));
    };
    let stored: Stored = parse_json_str(&text).map_err(|error| {
        PortError::new(format!("stored playbook `{name}` is malformed: {error}"))
    })?;
    if stored.format != FORMAT || stored.format_version != FORMAT_VERSION {
        return Err(PortError::new(format!(
            "stored playbook `{name}` has format {} v{}",
            stored.format, stored.format_version
        )));
    }
    Ok((stored.playbook, Some(text)))
}

/// The one compare-and-swap save of a stored form: `text` under `key` if the stored text is still
/// `previous`; the text written, or `None` when someone else wrote first.
async fn save_if_unchanged(
    store: &impl Store,
    key: &str,
    text: String,
    previous: Option<&str>,
) -> Result<Option<String>, PortError> {
    let swapped = store.compare_and_swap(key, previous, &text).await?;
    Ok(swapped.then_some(text))
}

/// Saves `playbook` if the stored text is still `previous`: the text written (what a later save names as
/// its `previous`), or `None` when someone else wrote first.
pub async fn save_playbook(
    store: &impl Store,
    name: &str,
    playbook: &Playbook,
    previous: Option<&str>,
) -> Result<Option<String>, PortError> {
    let text = to_json_string(&Stored {
        format: FORMAT.to_owned(),
        format_version: FORMAT_VERSION,
        playbook: playbook.clone(),
    });
    save_if_unchanged(store, &key(name), text, previous).await
}

pub const GATED_FORMAT: &str = "agent-governor/gated-playbook";
pub const GATED_FORMAT_VERSION: u32 = 1;
/// Largest stored gated playbook, as JSON text.
pub const MAX_GATED_BYTES: usize = 16 << 20;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredGate {
    format: String,
    format_version: u32,
    gate: super::gate::GatedPlaybook,
}

fn gated_key(name: &str) -> String {
    format!("gated-playbook/{name}")
}

/// The stored gated playbook and the exact text it came from. With none stored, a gate over the plain
/// playbook of that name (or an empty one) and `None`. A stored state the gate could not have written is an
/// error.
pub async fn load_gated_playbook(
    store: &impl Store,
    name: &str,
) -> Result<(super::gate::GatedPlaybook, Option<String>), PortError> {
    let Some(text) = store.get(&gated_key(name)).await? else {
        let (playbook, _) = load_playbook(store, name).await?;
        let gate = super::gate::GatedPlaybook::new(playbook, super::gate::GatePolicy::default())
            .map_err(|error| PortError::new(error.to_string()))?;
        return Ok((gate, None));
    };
    let stored: StoredGate = crate::input::parse_json_str_within(&text, MAX_GATED_BYTES)
        .and_then(|stored: StoredGate| {
            crate::input::Validate::validate(&stored.gate).map(|()| stored)
        })
        .map_err(|error| {
            PortError::new(format!(
                "stored gated playbook `{name}` is malformed: {error}"
            ))
        })?;
    if stored.format != GATED_FORMAT || stored.format_version != GATED_FORMAT_VERSION {
        return Err(PortError::new(format!(
            "stored gated playbook `{name}` has format {} v{}",
            stored.format, stored.format_version
        )));
    }
    Ok((stored.gate, Some(text)))
}

/// Saves `gate` if the stored text is still `previous`: the text written, or `None` when someone else
/// wrote first.
pub async fn save_gated_playbook(
    store: &impl Store,
    name: &str,
    gate: &super::gate::GatedPlaybook,
    previous: Option<&str>,
) -> Result<Option<String>, PortError> {
    let text = to_json_string(&StoredGate {
        format: GATED_FORMAT.to_owned(),
        format_version: GATED_FORMAT_VERSION,
        gate: gate.clone(),
    });
    save_if_unchanged(store, &gated_key(name), text, previous).await
}
