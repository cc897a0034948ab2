//! JSONTestSuite (tests/fixtures/conformance/jsontestsuite/, pinned: see the README there): every
//! `test_parsing` file through the core's two JSON readers, `check_body` (request bodies, at the guard's
//! depth of 32, as `readJson` reads them) and `parse_strict` (a model's answers and tool-call arguments).
//! The bytes are read as UTF-8 first, as every caller hands the readers a string. Every `n_` file is
//! refused, every `y_` file accepted but for the stated deviations, and each `i_` file's outcome is the one
//! stated below. No file takes more than a second.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::body_json::{BodyError, check_body};
use agent_governor::strict_json::{StrictError, parse_strict};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The guard's depth for request bodies (`MAX_BODY_DEPTH` of the edge service, `readJson`'s default).
const BODY_DEPTH: usize = 32;

/// `y_` files the project refuses, with the reason.
const Y_REFUSED: &[(&str, &str)] = &[
    ("y_object_duplicated_key.json", DUPLICATE_KEYS),
    ("y_object_duplicated_key_and_value.json", DUPLICATE_KEYS),
];
const DUPLICATE_KEYS: &str = "a key twice in one object is refused (`duplicate_key`), never resolved to one \
    of its values: readers that keep the first and readers that keep the last would see different content";

/// The outcome of every `i_` file (the suite leaves these to the implementation), as `check_body` reports
/// it; `parse_strict` accepts and refuses the same files.
const I_OUTCOMES: &[(&str, &str)] = &[
    // Numbers past a double's precision are read as the nearest double, and past its range towards zero as
    // 0; past its range away from zero they are refused (there is no double to read them as).
    ("i_number_double_huge_neg_exp.json", "accepted"),
    ("i_number_real_underflow.json", "accepted"),
    ("i_number_too_big_neg_int.json", "accepted"),
    ("i_number_too_big_pos_int.json", "accepted"),
    ("i_number_very_big_negative_int.json", "accepted"),
    ("i_number_huge_exp.json", "refused: syntax"),
    ("i_number_neg_int_huge_exp.json", "refused: syntax"),
    ("i_number_pos_double_huge_exp.json", "refused: syntax"),
    ("i_number_real_neg_overflow.json", "refused: syntax"),
    ("i_number_real_pos_overflow.json", "refused: syntax"),
    // An escaped lone surrogate has no UTF-8 form: refused.
    ("i_object_key_lone_2nd_surrogate.json", "refused: syntax"),
    (
        "i_string_1st_surrogate_but_2nd_missing.json",
        "refused: syntax",
    ),
    (
        "i_string_1st_valid_surrogate_2nd_invalid.json",
        "refused: syntax",
    ),
    (
        "i_string_incomplete_surrogate_and_escape_valid.json",
        "refused: syntax",
    ),
    ("i_string_incomplete_surrogate_pair.json", "refused: syntax"),
    (
        "i_string_incomplete_surrogates_escape_valid.json",
        "refused: syntax",
    ),
    ("i_string_invalid_lonely_surrogate.json", "refused: syntax"),
    ("i_string_invalid_surrogate.json", "refused: syntax"),
    (
        "i_string_inverted_surrogates_U+1D11E.json",
        "refused: syntax",
    ),
    ("i_string_lone_second_surrogate.json", "refused: syntax"),
    // Bytes that are not UTF-8 (other encodings, malformed or overlong sequences) never become text.
    ("i_string_UTF-16LE_with_BOM.json", "refused: not UTF-8"),
    ("i_string_UTF-8_invalid_sequence.json", "refused: not UTF-8"),
    ("i_string_UTF8_surrogate_U+D800.json", "refused: not UTF-8"),
    ("i_string_invalid_utf-8.json", "refused: not UTF-8"),
    ("i_string_iso_latin_1.json", "refused: not UTF-8"),
    (
        "i_string_lone_utf8_continuation_byte.json",
        "refused: not UTF-8",
    ),
    ("i_string_not_in_unicode_range.json", "refused: not UTF-8"),
    (
        "i_string_overlong_sequence_2_bytes.json",
        "refused: not UTF-8",
    ),
    (
        "i_string_overlong_sequence_6_bytes.json",
        "refused: not UTF-8",
    ),
    (
        "i_string_overlong_sequence_6_bytes_null.json",
        "refused: not UTF-8",
    ),
    ("i_string_truncated-utf-8.json", "refused: not UTF-8"),
    ("i_string_utf16BE_no_BOM.json", "refused: not UTF-8"),
    ("i_string_utf16LE_no_BOM.json", "refused: not UTF-8"),
    // Deeper than the guard's 32 levels (`parse_strict` stops at serde_json's 128: a syntax error).
    ("i_structure_500_nested_arrays.json", "refused: too deep"),
    // A byte order mark is not JSON text (RFC 8259 section 8.1): the native readers refuse it.
    ("i_structure_UTF-8_BOM_empty_object.json", "refused: syntax"),
];

/// What a reader made of a file: `accepted`, or `refused: <kind>`.
fn outcome_of_body(text: Result<&str, std::str::Utf8Error>) -> String {
    match text.map(|text| check_body(text, BODY_DEPTH)) {
        Err(_) => "refused: not UTF-8".to_owned(),
        Ok(Ok(())) => "accepted".to_owned(),
        Ok(Err(BodyError::DuplicateKey { .. })) => "refused: duplicate key".to_owned(),
        Ok(Err(BodyError::TooDeep { .. })) => "refused: too deep".to_owned(),
        Ok(Err(BodyError::Syntax { .. })) => "refused: syntax".to_owned(),
    }
}

fn outcome_of_strict(text: Result<&str, std::str::Utf8Error>) -> String {
    match text.map(parse_strict) {
        Err(_) => "refused: not UTF-8".to_owned(),
        Ok(Ok(_)) => "accepted".to_owned(),
        Ok(Err(StrictError::DuplicateKey { .. })) => "refused: duplicate key".to_owned(),
        Ok(Err(StrictError::Syntax { .. })) => "refused: syntax".to_owned(),
    }
}

/// Every file's outcome by each reader, by file name.
fn outcomes() -> BTreeMap<String, (String, String)> {
    let dir = format!(
        "{}/tests/fixtures/conformance/jsontestsuite/test_parsing",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let bytes = std::fs::read(&path).unwrap();
        let started = Instant::now();
        let body = outcome_of_body(std::str::from_utf8(&bytes));
        let strict = outcome_of_strict(std::str::from_utf8(&bytes));
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{name} took {:?}",
            started.elapsed()
        );
        all.insert(name, (body, strict));
    }
    assert_eq!(all.len(), 318);
    all
}

#[test]
fn every_file_is_read_as_stated() {
    let all = outcomes();
    let y_refused: BTreeMap<&str, &str> = Y_REFUSED.iter().copied().collect();
    let i_outcomes: BTreeMap<&str, &str> = I_OUTCOMES.iter().copied().collect();
    let mut passed = 0;
    for (name, (body, strict)) in &all {
        assert_eq!(
            body == "accepted",
            strict == "accepted",
            "{name}: the two readers disagree ({body}, {strict})"
        );
        let expected = match &name[..2] {
            "y_" if y_refused.contains_key(name.as_str()) => "refused: duplicate key",
            "y_" => "accepted",
            "n_" => {
                assert!(body.starts_with("refused: "), "{name}: {body}");
                body.as_str()
            }
            "i_" => i_outcomes[name.as_str()],
            _ => panic!("{name}: not a test_parsing file"),
        };
        assert_eq!(body, expected, "{name}");
        if !y_refused.contains_key(name.as_str()) {
            passed += 1;
        }
    }
    // Every stated file exists, and the figures of the README.
    for name in y_refused.keys().chain(i_outcomes.keys()) {
        assert!(all.contains_key(*name), "{name} is not in the suite");
    }
    let count = |prefix: &str| all.keys().filter(|name| name.starts_with(prefix)).count();
    assert_eq!((count("y_"), count("n_"), count("i_")), (95, 188, 35));
    assert_eq!(i_outcomes.len(), 35);
    assert_eq!(passed, 316);
}
