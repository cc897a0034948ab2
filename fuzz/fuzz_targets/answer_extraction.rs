//! The extraction steps on any text: display-noise removal, reasoning, tool-call wrappers, candidate search,
//! strict parse and repair never panic, candidates are real spans of the text, and a repair's output is what
//! strict parsing reads.
#![no_main]

use agent_governor::llm::candidates::{final_region, find_candidates};
use agent_governor::llm::noise::strip_display_noise;
use agent_governor::llm::reasoning::visible_answer;
use agent_governor::llm::repair::repair;
use agent_governor::llm::strict_json::parse_strict;
use agent_governor::llm::tool_calls::answer_from_tool_calls;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let cleaned = match strip_display_noise(&text) {
        Some((cleaned, repairs)) => {
            assert!(cleaned.len() <= text.len());
            assert!(repairs.iter().all(|r| r.offset < text.len()));
            cleaned
        }
        None => text.to_string(),
    };
    for starts_in_reasoning in [false, true] {
        let visible = visible_answer(&cleaned, starts_in_reasoning);
        assert!(visible.text.len() <= cleaned.len());
        let _ = answer_from_tool_calls(&visible.text, "closer_output");
        let found = find_candidates(&visible.text);
        if let Some((from, to, _)) = final_region(&visible.text, &found.candidates) {
            assert!(from <= to && to <= visible.text.len());
        }
        for candidate in &found.candidates {
            assert!(candidate.start <= candidate.end && candidate.end <= visible.text.len());
            let _ = parse_strict(candidate.text);
            if let Some((fixed, repairs)) = repair(candidate.text) {
                assert!(!repairs.is_empty());
                assert!(repairs.iter().all(|r| r.offset <= candidate.text.len()));
                let _ = parse_strict(&fixed);
            }
        }
    }
});
