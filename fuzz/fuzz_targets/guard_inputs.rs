//! What the guard reads from anyone: timestamps, request bodies and receipt chains. Never a panic; a time
//! that parses formats to a normal form that parses to the same instant; a body that passes is JSON no
//! deeper than the limit; a chain read from any text verifies or names a link, never both.
#![no_main]

use agent_governor::body_json::check_body;
use agent_governor::executor::public_key::{PublicKeyKind, PublicKeySpec};
use agent_governor::executor::receipt::{ChainVerdict, Receipt, receipt_key, verify_receipts};
use agent_governor::timestamp::{format_rfc3339, parse_rfc3339};
use libfuzzer_sys::fuzz_target;

fn depth_of(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => 1 + items.iter().map(depth_of).max().unwrap_or(0),
        serde_json::Value::Object(fields) => 1 + fields.values().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(instant) = parse_rfc3339(text) {
        let normal = format_rfc3339(instant);
        assert_eq!(parse_rfc3339(&normal), Ok(instant), "{text:?} -> {normal:?}");
    }
    for max_depth in [1, 4, 32] {
        if check_body(text, max_depth).is_ok() {
            let value: serde_json::Value =
                serde_json::from_str(text).expect("a body that passes is JSON");
            assert!(depth_of(&value) <= max_depth);
        }
    }
    if let Ok(chain) = serde_json::from_str::<Vec<Receipt>>(text) {
        // RFC 8032's first test key.
        let spec = PublicKeySpec {
            kind: PublicKeyKind::Ed25519,
            public_key: "11qYAYKxCrfVS_7TyWQHOg7hcvPaoiMlrwIaaPcHURo".to_owned(),
            algorithm: None,
            rp_id: None,
            origins: None,
            revoked: None,
        };
        let key = receipt_key(&spec).expect("a valid Ed25519 key");
        match verify_receipts(&chain, &key) {
            ChainVerdict::Valid { count, .. } => assert_eq!(count, chain.len()),
            ChainVerdict::Broken { index, .. } => assert!(index < chain.len()),
        }
    }
});
