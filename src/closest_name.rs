//! "Did you mean ...?": the known name a misspelt one most likely meant, so an unknown option is refused
//! with the name the caller wanted (`sealkey` -> `sealKey`, `audiance` -> `audience`).

/// "`key` is not {what}; did you mean `closest`?" (`what`: "an option of Executor", "a known field"), or
/// the known names when none is close. The key is shown cut to a readable length.
pub fn not_known(key: &str, what: &str, allowed: &[&str]) -> String {
    let shown: String = key.chars().take(64).collect();
    let shown = if shown.len() < key.len() {
        format!("{shown}...")
    } else {
        shown
    };
    match closest_name(key, allowed) {
        Some(meant) => format!("`{shown}` is not {what}; did you mean `{meant}`?"),
        None if allowed.is_empty() => format!("`{shown}` is not {what} (there are none)"),
        None => format!("`{shown}` is not {what} (known: {})", allowed.join(", ")),
    }
}

/// Names longer than this are compared no further (an option name is short; a long key is not a typo).
const MAX_COMPARED_CHARS: usize = 64;

/// The known name closest to `given`: the one equal to it ignoring case, `_` and `-`; else one it begins
/// (`clockSkew` -> `clockSkewMs`, at least three letters given); else the nearest by edit distance
/// (insertions, deletions, substitutions and swaps of neighbours, ignoring case) when it is at most a third
/// of the name's length away (at least one edit). `None` when nothing is that close.
pub fn closest_name<'a>(given: &str, known: &[&'a str]) -> Option<&'a str> {
    let given_folded = squashed(&folded(given)?);
    let candidates: Vec<(&'a str, Vec<char>)> = known
        .iter()
        .filter_map(|name| folded(name).map(|chars| (*name, squashed(&chars))))
        .collect();
    if let Some((name, _)) = candidates.iter().find(|(_, chars)| *chars == given_folded) {
        return Some(name);
    }
    if given_folded.len() >= 3 {
        let begun = candidates
            .iter()
            .find(|(_, chars)| chars.starts_with(&given_folded));
        if let Some((name, _)) = begun {
            return Some(name);
        }
    }
    let allowed = (given_folded.len() / 3).max(1);
    candidates
        .iter()
        .map(|(name, chars)| (edit_distance(&given_folded, chars), *name))
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// The name's characters in lower case, or `None` when it is too long to be compared.
fn folded(name: &str) -> Option<Vec<char>> {
    let chars: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    (chars.len() <= MAX_COMPARED_CHARS).then_some(chars)
}

/// The name without its word separators (`keep_outputs` and `keep-outputs` are `keepOutputs`).
fn squashed(chars: &[char]) -> Vec<char> {
    chars
        .iter()
        .copied()
        .filter(|c| *c != '_' && *c != '-')
        .collect()
}

/// Optimal string alignment distance: the Levenshtein distance where a swap of neighbours counts once.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    // Three rows: the one before the previous (for swaps), the previous and the current.
    let mut before: Vec<usize> = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current: Vec<usize> = vec![0; width];
    for (i, a_char) in a.iter().enumerate() {
        let mut row = vec![i + 1];
        for (j, b_char) in b.iter().enumerate() {
            let cost = usize::from(a_char != b_char);
            let deleted = previous.get(j + 1).copied().unwrap_or(usize::MAX) + 1;
            let inserted = row.get(j).copied().unwrap_or(usize::MAX) + 1;
            let substituted = previous.get(j).copied().unwrap_or(usize::MAX) + cost;
            let mut distance = deleted.min(inserted).min(substituted);
            let swapped =
                i > 0 && j > 0 && a.get(i - 1) == Some(b_char) && b.get(j - 1) == Some(a_char);
            if swapped {
                distance = distance.min(before.get(j - 1).copied().unwrap_or(usize::MAX) + 1);
            }
            row.push(distance);
        }
        current.clear();
        current.extend(row);
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous.get(b.len()).copied().unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::closest_name;

    const EXECUTOR: &[&str] = &[
        "store",
        "skill",
        "skills",
        "keys",
        "now",
        "audit",
        "auditTimeoutMs",
        "clockSkewMs",
        "language",
        "audience",
        "sealKey",
    ];

    #[test]
    fn the_misspellings_people_make_find_the_option() {
        for (given, meant) in [
            ("sealkey", "sealKey"),
            ("seal_key", "sealKey"),
            ("audiance", "audience"),
            ("clockSkew", "clockSkewMs"),
            ("clock_skew_ms", "clockSkewMs"),
            ("kyes", "keys"),
            ("auditTimeout", "auditTimeoutMs"),
            ("Store", "store"),
            ("lang", "language"),
        ] {
            assert_eq!(closest_name(given, EXECUTOR), Some(meant), "{given}");
        }
    }

    #[test]
    fn a_name_far_from_every_option_suggests_nothing() {
        for given in ["whitelist", "x", "", "approvalURL", &"k".repeat(200)] {
            assert_eq!(closest_name(given, EXECUTOR), None, "{given}");
        }
    }

    #[test]
    fn the_nearest_of_two_close_names_wins() {
        assert_eq!(closest_name("skils", EXECUTOR), Some("skill"));
        assert_eq!(closest_name("skillz", EXECUTOR), Some("skill"));
        assert_eq!(closest_name("skillss", EXECUTOR), Some("skills"));
    }
}
