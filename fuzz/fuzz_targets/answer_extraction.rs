//! The extraction steps on any text: reasoning stripping, candidate search, strict parse and repair never
//! panic, candidates are real spans of the text, and a repair's output is what strict parsing reads.
#![no_main]

use agent_governor::llm::candidates::find_candidates;
use agent_governor::llm::reasoning::strip_reasoning;
use agent_governor::llm::repair::repair;
use agent_governor::llm::strict_json::parse_strict;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let stripped = strip_reasoning(&text);
    assert!(stripped.len() <= text.len());
    let found = find_candidates(&stripped);
    for candidate in &found.candidates {
        assert!(candidate.start <= candidate.end && candidate.end <= stripped.len());
        let _ = parse_strict(candidate.text);
        if let Some((fixed, repairs)) = repair(candidate.text) {
            assert!(!repairs.is_empty());
            assert!(repairs.iter().all(|r| r.offset <= candidate.text.len()));
            let _ = parse_strict(&fixed);
        }
    }
});
