//! The Learning Ledger: an append-only record of every Watcher decision, kept in the host store.

use super::types::WatcherOutput;
use crate::input::to_json_string;
use crate::ports::{PortError, Store};
use crate::timestamp::{EpochMillis, format_rfc3339};
use serde::{Deserialize, Serialize};
use tsify::Tsify;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[tsify(missing_as_null)]
pub struct LedgerEntry {
    /// Always `"watcher"`.
    pub component: String,
    /// Always `"decision"`.
    pub event_type: String,
    pub time: String,
    /// The request and what was inspected, in one line.
    pub input_summary: String,
    /// The verdict's `pass`.
    pub verdict: bool,
    pub issues: Vec<String>,
    pub persona: Option<String>,
    /// Completion-protocol round (1 for a single inspection).
    pub round: u32,
}

impl LedgerEntry {
    pub fn decision(
        input_summary: String,
        output: &WatcherOutput,
        round: u32,
        now: EpochMillis,
    ) -> Self {
        Self {
            component: "watcher".to_owned(),
            event_type: "decision".to_owned(),
            time: format_rfc3339(now),
            input_summary,
            verdict: output.pass,
            issues: output.issues.clone(),
            persona: output.persona_applied.clone(),
            round,
        }
    }
}

/// Most entries scanned past the hint when appending (slots taken by concurrent writers).
const MAX_PROBE: u64 = 10_000;

fn slot_key(component: &str, index: u64) -> String {
    format!("ledger/{component}/{index:012}")
}

fn head_key(component: &str) -> String {
    format!("ledger/{component}/head")
}

/// Appends `entry`: each slot is written once, by compare-and-swap from absent, so nothing is overwritten.
pub async fn append_entry(store: &impl Store, entry: &LedgerEntry) -> Result<u64, PortError> {
    let head = head_key(&entry.component);
    let hint = store
        .get(&head)
        .await?
        .and_then(|text| text.parse::<u64>().ok())
        .unwrap_or(0);
    let text = to_json_string(entry);
    for index in hint..hint.saturating_add(MAX_PROBE) {
        if store
            .compare_and_swap(&slot_key(&entry.component, index), None, &text)
            .await?
        {
            // The head is only a hint for the next writer; a lost update costs a few probes.
            store.put(&head, &(index + 1).to_string()).await?;
            return Ok(index);
        }
    }
    Err(PortError::new("the ledger has no free slot near its head"))
}

/// Every entry of `component`, in append order.
pub async fn read_entries(
    store: &impl Store,
    component: &str,
) -> Result<Vec<LedgerEntry>, PortError> {
    let mut entries = Vec::new();
    for index in 0.. {
        let Some(text) = store.get(&slot_key(component, index)).await? else {
            break;
        };
        let entry = crate::input::parse_json_str(&text).map_err(|error| {
            PortError::new(format!("ledger entry {index} is malformed: {error}"))
        })?;
        entries.push(entry);
    }
    Ok(entries)
}
