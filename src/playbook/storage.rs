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

/// Saves `playbook` if the stored text is still `previous`; `Ok(false)` when someone else wrote first.
pub async fn save_playbook(
    store: &impl Store,
    name: &str,
    playbook: &Playbook,
    previous: Option<&str>,
) -> Result<bool, PortError> {
    let stored = Stored {
        format: FORMAT.to_owned(),
        format_version: FORMAT_VERSION,
        playbook: playbook.clone(),
    };
    store
        .compare_and_swap(&key(name), previous, &to_json_string(&stored))
        .await
}
