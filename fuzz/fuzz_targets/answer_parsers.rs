//! The three answer parsers on any text: never a panic, and a usable answer always satisfies its limits.
#![no_main]

use agent_governor::closer::CloserStructuredOutput;
use agent_governor::llm::parse_structured;
use agent_governor::reflector::ModelReflection;
use agent_governor::watcher::ModelVerdict;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(parsed) = parse_structured::<CloserStructuredOutput>(&text) {
        let output = parsed.value;
        assert!((0.0..=1.0).contains(&output.confidence));
        assert!(output.checklist.len() <= 8);
        assert!(output.checklist.iter().all(|item| !item.id.trim().is_empty()));
    }
    if let Ok(parsed) = parse_structured::<ModelVerdict>(&text) {
        assert!(parsed.value.issues.len() <= 8);
    }
    if let Ok(parsed) = parse_structured::<ModelReflection>(&text) {
        assert!(parsed.value.insights.len() <= 5);
    }
});
