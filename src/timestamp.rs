//! Instants as the host gives them (milliseconds since the Unix epoch) and as the wire carries them
//! (RFC 3339 text). Nothing here reads a clock: time always comes from the host.

use crate::input::InputError;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Milliseconds since 1970-01-01T00:00:00Z.
pub type EpochMillis = i64;

pub const HOUR_MS: EpochMillis = 60 * 60 * 1000;

/// Latest instant accepted from a host clock (year 9999), so every instant formats as RFC 3339.
const MAX_EPOCH_MS: f64 = 253_402_300_799_000.0;

/// Validates a host clock reading (a JS number such as `Date.now()`).
pub fn millis_from_host(path: &str, value: f64) -> Result<EpochMillis, InputError> {
    if !value.is_finite() || !(0.0..=MAX_EPOCH_MS).contains(&value) {
        return Err(InputError::invalid(
            path,
            format!(
                "must be milliseconds since the Unix epoch between 0 and {MAX_EPOCH_MS}, got {value}"
            ),
        ));
    }
    // In range and finite, so the conversion is exact up to the dropped fraction.
    Ok(value.trunc() as EpochMillis)
}

/// The longest timestamp accepted: `YYYY-MM-DDTHH:MM:SS` with nanoseconds and a numeric offset is 35 bytes.
const MAX_TIMESTAMP_BYTES: usize = 40;

/// Parses RFC 3339 text strictly into epoch milliseconds: `YYYY-MM-DD`, then `T` or a space, then
/// `HH:MM:SS`, an optional fraction, and an explicit offset (`Z` or `+HH:MM`/`-HH:MM`), with a valid
/// calendar date and time. Every other separator or shape is refused, so every reader of the text agrees
/// on the instant it names.
pub fn parse_rfc3339(text: &str) -> Result<EpochMillis, String> {
    if text.len() > MAX_TIMESTAMP_BYTES {
        return Err(format!(
            "a timestamp of {} bytes is not RFC 3339: the longest is {MAX_TIMESTAMP_BYTES} bytes",
            text.len()
        ));
    }
    let shown = || text.escape_debug().to_string();
    let bytes = text.as_bytes();
    let separator = bytes.get(10).copied();
    if !matches!(separator, Some(b'T' | b' ')) {
        return Err(format!(
            "`{}` is not an RFC 3339 timestamp: the date and the time must be separated by `T` or a space",
            shown()
        ));
    }
    // One spelling of UTC: RFC 3339 allows a lower-case `z`, but the guard's one strict form does not
    // (as it does not allow a lower-case `t`), so every reader of the text sees the same characters.
    if text.ends_with('z') {
        return Err(format!(
            "`{}` is not an RFC 3339 timestamp in its strict form: UTC is written `Z`",
            shown()
        ));
    }
    // The parser below accepts any separator byte; it sees the canonical `T`.
    let mut canonical = String::with_capacity(text.len());
    canonical.push_str(text.get(..10).unwrap_or_default());
    canonical.push('T');
    canonical.push_str(text.get(11..).unwrap_or_default());
    let instant = OffsetDateTime::parse(&canonical, &Rfc3339)
        .map_err(|error| format!("`{}` is not an RFC 3339 timestamp: {error}", shown()))?;
    i64::try_from(instant.unix_timestamp_nanos() / 1_000_000)
        .map_err(|_| format!("`{}` is out of range", shown()))
}

/// The one normal form of an RFC 3339 timestamp: UTC, millisecond precision (`2026-01-02T03:04:05.678Z`).
pub fn normalize_rfc3339(text: &str) -> Result<String, String> {
    parse_rfc3339(text).map(format_rfc3339)
}

/// Formats epoch milliseconds as RFC 3339 in UTC with millisecond precision, e.g. `2026-01-02T03:04:05.678Z`.
pub fn format_rfc3339(millis: EpochMillis) -> String {
    let instant = OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    let (year, month, day) = (instant.year(), u8::from(instant.month()), instant.day());
    let (hour, minute, second, milli) = (
        instant.hour(),
        instant.minute(),
        instant.second(),
        instant.millisecond(),
    );
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}
