//! The error-path locator on any text and any position: a path, never a panic; and on the inputs serde_json
//! refuses, the parse of a typed input gives a typed error whose path is one the text could name.
#![no_main]

use agent_governor::executor::ExecutorRequest;
use agent_governor::input::parse_json_str;
use agent_governor::json_path::{offset_of, path_at};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&position, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let offset = usize::from(position) * text.len() / 255;
    let _ = path_at(&text, offset);
    let _ = offset_of(&text, usize::from(position) % 7, usize::from(position));
    if let Err(error) = parse_json_str::<ExecutorRequest>(&text) {
        // Every segment of a located path is a key or an index that occurs in the text.
        for segment in error.path.split(['.', '[', ']']).filter(|segment| !segment.is_empty()) {
            assert!(
                text.contains(segment)
                    || segment.parse::<usize>().is_ok()
                    || error.message.contains(segment)
                    || text.contains('\\')
            );
        }
    }
});
