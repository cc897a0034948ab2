//! Delta operations from any JSON: applied or rejected one by one, never a panic, and applying the same
//! operations again changes nothing (op ids are idempotent).
#![no_main]

use agent_governor::playbook::delta::apply_deltas;
use agent_governor::playbook::{DeltaOp, Playbook};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(ops) = serde_json::from_slice::<Vec<DeltaOp>>(data) else {
        return;
    };
    let mut playbook = Playbook::default();
    apply_deltas(&mut playbook, &ops);
    let once = playbook.render();
    let again = apply_deltas(&mut playbook, &ops);
    assert!(again.applied.is_empty());
    assert_eq!(playbook.render(), once);
});
