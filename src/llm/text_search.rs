//! ASCII-case-insensitive search in model text, by byte index (the needles are ASCII, so every match starts
//! and ends on a character boundary).

/// Byte index of the first ASCII-case-insensitive match of `needle` (ASCII) at or after `from`.
pub fn find_ascii_ci(haystack: &str, needle: &str, from: usize) -> Option<usize> {
    let bytes = haystack.as_bytes();
    let wanted = needle.as_bytes();
    let first = wanted.first()?;
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let mut start = from;
    loop {
        let rest = bytes.get(start..)?;
        let found = start
            + rest
                .iter()
                .position(|&byte| byte == lower || byte == upper)?;
        let window = bytes.get(found..found + wanted.len())?;
        if window.eq_ignore_ascii_case(wanted) {
            return Some(found);
        }
        start = found + 1;
    }
}

/// Byte index of the last ASCII-case-insensitive match of `needle` (ASCII).
pub fn rfind_ascii_ci(haystack: &str, needle: &str) -> Option<usize> {
    let bytes = haystack.as_bytes();
    let wanted = needle.as_bytes();
    if wanted.is_empty() || wanted.len() > bytes.len() {
        return None;
    }
    (0..=bytes.len() - wanted.len()).rev().find(|&start| {
        bytes
            .get(start..start + wanted.len())
            .is_some_and(|window| window.eq_ignore_ascii_case(wanted))
    })
}
