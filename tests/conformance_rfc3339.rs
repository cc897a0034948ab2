//! RFC 3339 timestamps (tests/fixtures/conformance/rfc3339/cases.json: the examples of section 5.8 and edge
//! cases of sections 4.3, 5.6 and 5.7) through the core's time reader, `parse_rfc3339`, which every guard
//! uses for `confirmed_at` and every signed time. A timestamp the RFC makes valid is read as its instant,
//! one it makes invalid is refused, but for the stated cases below; the set of cases that deviate from the
//! RFC must be exactly those.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::timestamp::parse_rfc3339;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// RFC-valid timestamps the core refuses, with the reason.
const REFUSED: &[(&str, &str)] = &[
    ("1985-04-12t23:20:50.52Z", LOWER_CASE),
    ("1985-04-12T23:20:50.52z", LOWER_CASE),
];
const LOWER_CASE: &str = "one strict form: RFC 3339 allows a lower-case `t` and `z` (NOTE in 5.6), the \
    guard writes and reads only `T` (or a space) and `Z`, so every reader of the text sees the same characters";

/// Leap seconds (`:60` at the end of a UTC day), valid in the RFC, which gives them no Unix time: the core
/// reads one as the last millisecond of its day (`23:59:59.999` UTC), so it orders before the next day.
const LEAP_SECONDS: &[(&str, i64)] = &[
    ("1990-12-31T23:59:60Z", 662_687_999_999),
    ("1990-12-31T15:59:60-08:00", 662_687_999_999),
];

fn cases() -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/conformance/rfc3339/cases.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    fixture["cases"].as_array().unwrap().clone()
}

#[test]
fn every_case_is_read_as_the_rfc_says_but_for_the_stated_deviations() {
    let refused: BTreeMap<&str, &str> = REFUSED.iter().copied().collect();
    let leap: BTreeMap<&str, i64> = LEAP_SECONDS.iter().copied().collect();
    let mut deviating = BTreeSet::new();
    let mut as_the_rfc_says = 0;
    let mut leap_seconds = 0;
    let cases = cases();
    for case in &cases {
        let text = case["text"].as_str().unwrap();
        let read = parse_rfc3339(text);
        match (case["rfc3339"].as_str().unwrap(), &case["millis"]) {
            ("valid", Value::Null) => {
                assert_eq!(read, Ok(leap[text]), "{text}");
                leap_seconds += 1;
            }
            ("valid", millis) if !refused.contains_key(text) => {
                assert_eq!(read, Ok(millis.as_i64().unwrap()), "{text}");
            }
            ("valid", _) => {
                let why = read.unwrap_err();
                assert!(why.contains(&text.escape_debug().to_string()), "{why}");
                deviating.insert(text);
                continue;
            }
            ("invalid", _) => assert!(read.is_err(), "{text} is read as {read:?}"),
            (other, _) => panic!("{text}: `{other}`"),
        }
        as_the_rfc_says += 1;
    }
    assert_eq!(deviating, refused.keys().copied().collect());
    assert_eq!(leap_seconds, LEAP_SECONDS.len());
    assert_eq!(as_the_rfc_says, 43);
}
