//! The execution log's retention and tail (seed 002) on any text: lines of 1- to 4-byte characters,
//! `\r\n` endings, empty lines, a missing final newline, and limits that fall anywhere, inside a character
//! included. What is kept is always a suffix of the log made of whole lines, and the longest one that fits.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use agent_governor::control::log::{TAIL_LINES, retained, tail};
use proptest::prelude::*;

/// Logs of short lines whose characters are 1 to 4 bytes of UTF-8, some ending in `\r\n`, some empty, the
/// last one with or without its newline.
fn log_text() -> impl Strategy<Value = String> {
    let character = prop_oneof![
        Just('a'),
        Just(' '),
        Just('\r'),
        Just('é'),
        Just('—'),
        Just('チ'),
        Just('行'),
        Just('🚀'),
        Just('✅'),
    ];
    let line = (proptest::collection::vec(character, 0..12), any::<bool>()).prop_map(
        |(characters, crlf)| {
            let mut line: String = characters.into_iter().collect();
            line.push_str(if crlf { "\r\n" } else { "\n" });
            line
        },
    );
    (proptest::collection::vec(line, 0..40), any::<bool>()).prop_map(|(lines, terminated)| {
        let mut log = lines.concat();
        if !terminated && log.ends_with('\n') {
            log.pop();
        }
        log
    })
}

/// Whether `at` is where a line of `log` starts.
fn is_line_start(log: &str, at: usize) -> bool {
    at == 0 || log.as_bytes()[at - 1] == b'\n'
}

/// Where the newest line starts (a final newline ends that line; it does not start another).
fn newest_line_start(log: &str) -> usize {
    let body = log.strip_suffix('\n').unwrap_or(log);
    body.rfind('\n').map_or(0, |index| index + 1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn retention_keeps_the_longest_suffix_of_whole_lines_that_fits(log in log_text(), limit_seed in any::<usize>()) {
        let limit = limit_seed % (log.len() + 3);
        let kept = retained(&log, limit);
        prop_assert!(log.ends_with(kept), "a suffix of the log");
        let start = log.len() - kept.len();
        prop_assert!(log.is_char_boundary(start));
        prop_assert!(is_line_start(&log, start), "starts at a line start");
        if kept.len() > limit {
            // Over the limit only as the newest line alone.
            prop_assert_eq!(start, newest_line_start(&log));
        }
        if !log.is_empty() {
            prop_assert!(!kept.is_empty(), "the newest line is never lost");
        }
        // No longer suffix made of whole lines would also fit.
        for earlier in (0..start).filter(|&at| is_line_start(&log, at)) {
            prop_assert!(log.len() - earlier > limit, "the line start at {} would also fit", earlier);
        }
    }

    #[test]
    fn the_tail_is_the_last_lines_of_the_log(log in log_text(), lines in 0usize..700) {
        let kept = tail(&log, lines);
        prop_assert!(log.ends_with(kept), "a suffix of the log");
        let start = log.len() - kept.len();
        prop_assert!(is_line_start(&log, start), "starts at a line start");
        let wanted = lines.clamp(*TAIL_LINES.start(), *TAIL_LINES.end());
        let all_lines = log.split_inclusive('\n').count();
        prop_assert_eq!(kept.split_inclusive('\n').count(), all_lines.min(wanted));
    }
}

/// Many lines, so the tail's 200-500 clamp is reached, and limits around every offset of one line.
#[test]
fn a_long_log_of_multi_byte_lines_is_cut_only_between_lines() {
    let log: String = (0..2000)
        .map(|n| format!("{n} チケットを完了へ移動 🚀\r\n"))
        .collect();
    let line_len = "1000 チケットを完了へ移動 🚀\r\n".len();
    for limit in (1000 * line_len - 2 * line_len)..(1000 * line_len) {
        let kept = retained(&log, limit);
        let start = log.len() - kept.len();
        assert!(is_line_start(&log, start) && kept.len() <= limit);
        assert!(
            limit - kept.len() < line_len,
            "{limit}: about every line that fits"
        );
    }
    for lines in [0, 200, 300, 500, 501, usize::MAX] {
        let kept = tail(&log, lines);
        let wanted = lines.clamp(200, 500);
        assert_eq!(kept.lines().count(), wanted);
        assert!(kept.ends_with("1999 チケットを完了へ移動 🚀\r\n"));
    }
}
