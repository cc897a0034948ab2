//! RFC 8785 (JSON Canonicalization Scheme) reference data (tests/fixtures/conformance/json-canonicalization/,
//! pinned: see the README there) through the core's canonical writer, `canonical_json`, the `to` of every
//! tool call a person approves. Each input file, read by the core's strict reader (as a model's tool-call
//! arguments are), is canonicalised to its output file byte for byte (and to the bytes of its `outhex`
//! file). Numbers: the first 1,000,000 values of the reference's deterministic number sequence (numgen.js,
//! ported below) are each read by the core and written canonically, and the SHA-256 of the lines
//! `<hex of the IEEE-754 bits>,<canonical text>\n` must be the checksums the reference publishes for the
//! first 1,000, 10,000, 100,000 and 1,000,000 lines.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use agent_governor::executor::tool_call::canonical_json;
use agent_governor::strict_json::parse_strict;
use sha2::{Digest, Sha256};

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/conformance/json-canonicalization/testdata/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

const FILES: [&str; 6] = [
    "arrays",
    "french",
    "structures",
    "unicode",
    "values",
    "weird",
];

#[test]
fn every_input_file_is_canonicalised_to_its_output_file_byte_for_byte() {
    for name in FILES {
        let input = String::from_utf8(fixture(&format!("input/{name}.json"))).unwrap();
        let written = canonical_json(&parse_strict(&input).unwrap());
        let output = fixture(&format!("output/{name}.json"));
        assert_eq!(written.as_bytes(), output, "{name}");
        let outhex = String::from_utf8(fixture(&format!("outhex/{name}.txt"))).unwrap();
        let hex_bytes: Vec<u8> = outhex
            .split_whitespace()
            .map(|byte| u8::from_str_radix(byte, 16).unwrap())
            .collect();
        assert_eq!(written.as_bytes(), hex_bytes, "{name} (outhex)");
    }
}

/// The deterministic sequence of IEEE-754 values of the reference's number test file. Ported from
/// `testdata/numgen.js` (Copyright 2006-2021 WebPKI.org, Apache License 2.0); the table of static values is
/// read from that pinned file itself. After the static values come the 2,000 values whose bits follow
/// `0x0010000000000000`, then SHA-256 chained from 32 zero bytes, each digest read as four little-endian
/// doubles, zeros and non-finite values skipped.
struct NumberSequence {
    statics: Vec<u64>,
    index: usize,
    block: [u8; 32],
    left: Vec<f64>,
}

impl NumberSequence {
    fn new() -> Self {
        let source = String::from_utf8(fixture("numgen.js")).unwrap();
        let table = source
            .split_once("staticU64s = new BigUint64Array([")
            .and_then(|(_, rest)| rest.split_once("])"))
            .unwrap()
            .0;
        let statics: Vec<u64> = table
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                let digits = item.strip_prefix("0x").unwrap().strip_suffix('n').unwrap();
                u64::from_str_radix(digits, 16).unwrap()
            })
            .collect();
        assert_eq!(statics.len(), 168);
        Self {
            statics,
            index: 0,
            block: [0; 32],
            left: Vec::new(),
        }
    }
}

impl Iterator for NumberSequence {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        const SERIAL: usize = 2000;
        let statics = self.statics.len();
        let value = if self.index < statics {
            f64::from_bits(self.statics[self.index])
        } else if self.index < statics + SERIAL {
            f64::from_bits(0x0010_0000_0000_0000 + (self.index - statics) as u64)
        } else {
            loop {
                if self.left.is_empty() {
                    self.block = Sha256::digest(self.block).into();
                    self.left = self
                        .block
                        .chunks_exact(8)
                        .rev()
                        .map(|chunk| f64::from_le_bytes(chunk.try_into().unwrap()))
                        .collect();
                }
                let value = self.left.pop().unwrap();
                if value != 0.0 && value.is_finite() {
                    break value;
                }
            }
        };
        self.index += 1;
        Some(value)
    }
}

/// The canonical text of `number` as the core makes it from JSON text: the number is written with 17
/// significant digits (which name exactly this double, and are not the canonical text), read by the
/// core's strict reader inside an array, and the array written canonically.
fn canonical_number(number: f64) -> String {
    let written = canonical_json(&parse_strict(&format!("[{number:.16e}]")).unwrap());
    written
        .strip_prefix('[')
        .and_then(|inner| inner.strip_suffix(']'))
        .unwrap()
        .to_owned()
}

/// SHA-256 (hex) of the first 1,000, 10,000, 100,000 and 1,000,000 lines of the reference's number file,
/// as the core writes them.
fn number_file_checksums() -> Vec<(usize, String)> {
    let mut hash = Sha256::new();
    let mut checksums = Vec::new();
    for (index, number) in NumberSequence::new().take(1_000_000).enumerate() {
        hash.update(format!(
            "{:x},{}\n",
            number.to_bits(),
            canonical_number(number)
        ));
        let lines = index + 1;
        if [1_000, 10_000, 100_000, 1_000_000].contains(&lines) {
            checksums.push((lines, hex::encode(hash.clone().finalize())));
        }
    }
    checksums
}

#[test]
fn the_cited_number_is_read_and_written_exactly() {
    // testdata/README.md's sample lines, among them 9.999999999999997e-7 (bits 3eb0c6f7a0b5ed8c), which a
    // reader that is not correctly rounded misses by one unit.
    for (bits, text) in [
        (0x4340_0000_0000_0001_u64, "9007199254740994"),
        (0x4340_0000_0000_0002, "9007199254740996"),
        (0x444b_1ae4_d6e2_ef50, "1e+21"),
        (0x3eb0_c6f7_a0b5_ed8d, "0.000001"),
        (0x3eb0_c6f7_a0b5_ed8c, "9.999999999999997e-7"),
        (0x8000_0000_0000_0000, "0"),
        (0, "0"),
    ] {
        assert_eq!(canonical_number(f64::from_bits(bits)), text, "{bits:x}");
        // The canonical text itself, read by the core, is the same double and is written back unchanged.
        let read = parse_strict(&format!("[{text}]")).unwrap();
        assert_eq!(canonical_json(&read), format!("[{text}]"));
    }
    assert_eq!(
        9.999_999_999_999_997e-7_f64.to_bits(),
        0x3eb0_c6f7_a0b5_ed8c
    );
}

#[test]
fn the_first_million_numbers_hash_to_the_published_checksums() {
    // testdata/README.md's table: the SHA-256 of the file's first lines.
    let published = [
        "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687",
        "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892",
        "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7",
        "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16",
    ];
    let checksums = number_file_checksums();
    assert_eq!(checksums.len(), published.len());
    for ((lines, checksum), expected) in checksums.iter().zip(published) {
        assert_eq!(checksum, expected, "the first {lines} lines");
    }
}
