//! The confirmation check's JSON contract on any input: a verdict or a typed error, never a panic; and a
//! structurally valid but unsigned confirmation never passes.
#![no_main]

use agent_governor::executor::check::check_confirmation_json_str;
use agent_governor::executor::CheckVerdict;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(verdict) = check_confirmation_json_str(&text) {
        if matches!(verdict, CheckVerdict::Pass | CheckVerdict::PendingPrecondition) {
            // Passing needs a signature (or a passkey assertion) made with one of the given keys: fuzzed input
            // cannot forge one, so a pass must come from a confirmation that carries one.
            let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            assert!(
                value["confirmation"]["signature"].is_string()
                    || value["confirmation"]["assertion"].is_object()
            );
        }
    }
});
