//! The execution log as seed 002 specifies it: JSON lines `{time, event_summary, cause, impact_scope}`,
//! size-based retention (10 MB by default, oldest whole lines dropped first), and a tail of 200-500 lines
//! that the judge reads only after a failure or an error. Also each record as an OpenTelemetry GenAI-style
//! span or event, for hosts that ship logs to a collector. Pure functions over text: the host's storage
//! port appends, reads and measures.

use super::event::{LogChannel, LogRecord};
use serde::Serialize;
use serde_json::{Value, json};

/// The default size limit of one log, in bytes.
pub const DEFAULT_LOG_LIMIT_BYTES: usize = 10 * 1024 * 1024;

/// The fewest and most lines the judge reads back.
pub const TAIL_LINES: std::ops::RangeInclusive<usize> = 200..=500;

/// What a written line says in place of an empty or blank `event_summary`.
pub const NO_SUMMARY: &str = "(no summary given)";
/// What a written line says in place of an empty or blank `cause`.
pub const NO_CAUSE: &str = "(no cause given)";
/// What a written line says in place of an empty or blank `impact_scope`.
pub const NO_SCOPE: &str = "(no scope given)";

/// One line of the execution log (with its newline). `time` is the host's RFC 3339 clock reading. A field
/// of `record` that is empty or only whitespace is written as the machine's [`NO_SUMMARY`], [`NO_CAUSE`]
/// or [`NO_SCOPE`], so no written line has an empty summary, cause or scope.
pub fn execution_line(time: &str, record: &LogRecord) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        time: &'a str,
        event_summary: &'a str,
        cause: &'a str,
        impact_scope: &'a str,
    }
    let mut line = crate::input::to_json_string(&Line {
        time,
        event_summary: given(&record.event_summary, NO_SUMMARY),
        cause: given(&record.cause, NO_CAUSE),
        impact_scope: given(&record.impact_scope, NO_SCOPE),
    });
    line.push('\n');
    line
}

/// `text`, or `placeholder` when `text` is empty or only whitespace.
fn given<'a>(text: &'a str, placeholder: &'a str) -> &'a str {
    if text.trim().is_empty() {
        placeholder
    } else {
        text
    }
}

/// What is kept of `log` under `limit` bytes (of UTF-8): the newest whole lines, the oldest dropped first,
/// as many as fit. A newest line longer than the limit by itself is kept alone, so the latest record is
/// never lost. A line is what ends in `\n` (a `\r` before it is part of the line), and the last line may
/// have no newline. See [`retained_from`].
pub fn retained(log: &str, limit: usize) -> &str {
    log.get(retained_from(log.as_bytes(), limit)..)
        .unwrap_or(log)
}

/// Where [`retained`] cuts the UTF-8 text `log`: 0 or just after a `\n`. Lines are found by searching
/// bytes for `\n`, which never occurs inside a multi-byte UTF-8 sequence, so the cut never splits a
/// character, wherever the limit falls (and a host holding the log as bytes can cut there too). The work
/// is proportional to the length of one line, not of the log.
pub fn retained_from(log: &[u8], limit: usize) -> usize {
    if log.len() <= limit {
        return 0;
    }
    // The kept part may start no earlier than this (at least 1: the log is longer than the limit).
    let earliest_start = log.len() - limit;
    // A line starts right after a newline, so the first line start at or after `earliest_start` follows
    // the first newline at or after `earliest_start - 1`.
    let search_from = earliest_start.saturating_sub(1);
    log.get(search_from..)
        .and_then(|rest| rest.iter().position(|&byte| byte == b'\n'))
        .map(|offset| search_from + offset + 1)
        .filter(|&start| start < log.len())
        .unwrap_or_else(|| newest_line_start(log))
}

/// Where the newest line of `log` starts (a trailing newline ends it, it does not start an empty line).
fn newest_line_start(log: &[u8]) -> usize {
    let body = log.strip_suffix(b"\n").unwrap_or(log);
    body.iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |index| index + 1)
}

/// The last `lines` lines of `log` (clamped to the seed's 200-500), with their newlines; the whole log
/// when it has fewer. See [`tail_from`].
pub fn tail(log: &str, lines: usize) -> &str {
    log.get(tail_from(log.as_bytes(), lines)..).unwrap_or(log)
}

/// Where [`tail`] cuts the UTF-8 text `log`: 0 or just after a `\n`. Lines are counted as in
/// [`retained_from`], by searching bytes for `\n` from the end, so the work is proportional to the
/// tail's length.
pub fn tail_from(log: &[u8], lines: usize) -> usize {
    let wanted = lines.clamp(*TAIL_LINES.start(), *TAIL_LINES.end());
    let body = log.strip_suffix(b"\n").unwrap_or(log);
    body.iter()
        .enumerate()
        .rev()
        .filter(|&(_, &byte)| byte == b'\n')
        .nth(wanted.saturating_sub(1))
        .map_or(0, |(index, _)| index + 1)
}

/// What the loop's state says about the action a record is about, for its span or event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OtelFacts {
    /// The action's digest: what was approved and is executed.
    pub change_digest: Option<String>,
    /// `person` or `whitelist`, once the action is approved.
    pub approved_by: Option<String>,
    /// The approval request a person answered.
    pub request_id: Option<String>,
    /// For an execution record: whether the action succeeded.
    pub succeeded: Option<bool>,
}

/// A record as an OpenTelemetry GenAI-style span (`execute_tool`, `invoke_agent`) or event (an approval),
/// with `time` as the host's RFC 3339 reading. `tool` is the action type, `call_id` the action id; `facts`
/// add the change digest, who approved and the outcome where the loop knows them.
pub fn otel_record(
    channel: LogChannel,
    record: &LogRecord,
    time: &str,
    tool: Option<(&str, &str)>,
    facts: &OtelFacts,
) -> Value {
    let mut attributes = serde_json::Map::new();
    let mut set = |key: &str, value: &str| {
        attributes.insert(key.to_owned(), Value::from(value));
    };
    set("agent_governor.event_summary", &record.event_summary);
    set("agent_governor.cause", &record.cause);
    set("agent_governor.impact_scope", &record.impact_scope);
    if tool.is_some() {
        if let Some(digest) = &facts.change_digest {
            set("agent_governor.change.digest", digest);
        }
        if let Some(by) = &facts.approved_by {
            set("agent_governor.approval.approved_by", by);
        }
        if let Some(request_id) = &facts.request_id {
            set("agent_governor.approval.request_id", request_id);
        }
        if let (LogChannel::Execution, Some(succeeded)) = (channel, facts.succeeded) {
            set(
                "agent_governor.outcome",
                if succeeded { "succeeded" } else { "failed" },
            );
        }
    }
    let (kind, name) = match (channel, tool) {
        (LogChannel::Execution, Some((tool_name, call_id))) => {
            set("gen_ai.operation.name", "execute_tool");
            set("gen_ai.tool.name", tool_name);
            set("gen_ai.tool.call.id", call_id);
            ("span", format!("execute_tool {tool_name}"))
        }
        (LogChannel::Cli, Some((tool_name, call_id))) => {
            set("gen_ai.tool.name", tool_name);
            set("gen_ai.tool.call.id", call_id);
            ("event", "agent_governor.approval".to_owned())
        }
        _ => {
            set("gen_ai.operation.name", "invoke_agent");
            ("span", "invoke_agent".to_owned())
        }
    };
    json!({ "kind": kind, "name": name, "time": time, "attributes": attributes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(n: usize) -> LogRecord {
        LogRecord {
            event_summary: format!("move ticket T-{n} to done"),
            cause: "HTTP 200".to_owned(),
            impact_scope: format!("ticket T-{n}"),
        }
    }

    #[test]
    fn a_line_is_one_json_object_with_the_seed_fields_in_order() {
        let line = execution_line("2026-11-22T10:00:00.000Z", &record(7));
        assert_eq!(
            line,
            "{\"time\":\"2026-11-22T10:00:00.000Z\",\"event_summary\":\"move ticket T-7 to done\",\"cause\":\"HTTP 200\",\"impact_scope\":\"ticket T-7\"}\n"
        );
    }

    #[test]
    fn retention_at_10_mb_drops_the_oldest_whole_lines_first() {
        let mut log = String::new();
        let mut appended = 0;
        let mut written = 0;
        while written < 3 * DEFAULT_LOG_LIMIT_BYTES {
            let line = execution_line("2026-11-22T10:00:00.000Z", &record(appended));
            written += line.len();
            log.push_str(&line);
            appended += 1;
            if log.len() > DEFAULT_LOG_LIMIT_BYTES + (1 << 20) {
                log = retained(&log, DEFAULT_LOG_LIMIT_BYTES).to_owned();
                assert!(log.len() <= DEFAULT_LOG_LIMIT_BYTES);
            }
        }
        let kept = retained(&log, DEFAULT_LOG_LIMIT_BYTES);
        assert!(
            kept.len() <= DEFAULT_LOG_LIMIT_BYTES && kept.len() > DEFAULT_LOG_LIMIT_BYTES - 200
        );
        assert!(kept.starts_with("{\"time\""), "whole lines only");
        assert!(
            kept.ends_with(&format!(
                "\"impact_scope\":\"ticket T-{}\"}}\n",
                appended - 1
            )),
            "the newest is kept"
        );
        assert!(appended > 100_000);
    }

    #[test]
    fn retention_keeps_a_lone_oversized_newest_line() {
        let log = format!("old\n{}\n", "x".repeat(50));
        assert_eq!(retained(&log, 10), format!("{}\n", "x".repeat(50)));
        assert_eq!(retained("a\nb\nc\n", 4), "b\nc\n");
        assert_eq!(retained("a\nb\nc\n", 100), "a\nb\nc\n");
    }

    #[test]
    fn an_empty_or_blank_field_is_written_as_the_machine_s_placeholder() {
        let blank = LogRecord {
            event_summary: String::new(),
            cause: " \t\n".to_owned(),
            impact_scope: "\u{3000}".to_owned(),
        };
        let line = execution_line("2026-11-22T10:00:00.000Z", &blank);
        assert_eq!(
            line,
            "{\"time\":\"2026-11-22T10:00:00.000Z\",\"event_summary\":\"(no summary given)\",\"cause\":\"(no cause given)\",\"impact_scope\":\"(no scope given)\"}\n"
        );
        let parsed: Value = serde_json::from_str(&line).unwrap();
        for field in ["event_summary", "cause", "impact_scope"] {
            assert!(
                !parsed[field].as_str().unwrap().trim().is_empty(),
                "{field}"
            );
        }
        // Text with content is written as given, surrounding spaces included.
        let spaced = LogRecord {
            event_summary: " moved ".to_owned(),
            cause: "HTTP 200".to_owned(),
            impact_scope: "ticket T-1".to_owned(),
        };
        assert!(
            execution_line("t", &spaced)
                .contains("\"event_summary\":\" moved \",\"cause\":\"HTTP 200\"")
        );
    }

    /// Lines of Japanese text and emoji: 1 to 4 bytes per character.
    fn multi_byte_line(n: usize) -> String {
        format!(
            "{{\"event_summary\":\"チケット T-{n} を完了へ移動 🚀✅\",\"cause\":\"HTTP 200 — 成功\"}}\n"
        )
    }

    /// The longest suffix of `log` made of whole lines that fits in `limit`, by brute force.
    fn reference_retained(log: &str, limit: usize) -> &str {
        let mut starts = (0..log.len()).filter(|&at| at == 0 || log.as_bytes()[at - 1] == b'\n');
        let fitting = starts.clone().find(|&at| log.len() - at <= limit);
        match fitting {
            Some(at) if at < log.len() || log.is_empty() => &log[at..],
            _ => &log[starts.next_back().unwrap_or(0)..],
        }
    }

    #[test]
    fn retention_keeps_a_log_without_a_trailing_newline_by_whole_lines() {
        assert_eq!(retained("a\nb\nccc", 3), "ccc");
        assert_eq!(retained("a\nb\nccc", 5), "b\nccc");
        assert_eq!(retained("a\nb\nccc", 2), "ccc", "the newest line alone");
        assert_eq!(retained("abc", 1), "abc");
    }

    #[test]
    fn retention_cuts_crlf_lines_after_their_newline() {
        let log = "one\r\ntwo\r\nthree\r\n";
        assert_eq!(retained(log, 12), "two\r\nthree\r\n");
        assert_eq!(retained(log, 11), "three\r\n");
        assert_eq!(retained(log, 3), "three\r\n");
        assert_eq!(tail(log, 200), log);
    }

    #[test]
    fn retention_of_an_empty_log_and_a_limit_of_one() {
        assert_eq!(retained("", 1), "");
        assert_eq!(retained("", 0), "");
        assert_eq!(retained("a\nb\n", 1), "b\n", "over the limit alone: kept");
        assert_eq!(retained("a\nb\nc", 1), "c", "exactly the limit");
        assert_eq!(retained("a\n\n", 1), "\n", "an empty newest line");
        assert_eq!(retained("\n", 1), "\n");
        assert_eq!(tail("", 300), "");
        assert_eq!(tail("\n", 300), "\n");
    }

    #[test]
    fn a_limit_inside_a_four_byte_emoji_keeps_every_whole_line_that_fits() {
        let log: String = (0..40).map(|n| format!("{n:02} 🚀\n")).collect();
        let line_len = "00 🚀\n".len(); // 8 bytes: the emoji is 4
        assert_eq!(line_len, 8);
        // 30 lines and 2 bytes: the cut point falls inside an emoji of the 31st newest line.
        let limit = 30 * line_len + 2;
        assert!(!log.is_char_boundary(log.len() - limit));
        let kept = retained(&log, limit);
        assert_eq!(kept.lines().count(), 30);
        assert!(kept.starts_with("10 🚀\n") && kept.ends_with("39 🚀\n"));
        // Every limit from 1 byte to the whole log agrees with the brute-force reference.
        for limit in 0..=log.len() + 1 {
            assert_eq!(
                retained(&log, limit),
                reference_retained(&log, limit),
                "{limit}"
            );
        }
    }

    #[test]
    fn retention_and_tail_of_a_10_mb_log_of_japanese_and_emoji_lines() {
        let mut log = String::new();
        let mut written = 0;
        while log.len() <= DEFAULT_LOG_LIMIT_BYTES + (1 << 20) {
            log.push_str(&multi_byte_line(written));
            written += 1;
        }
        let line_len = multi_byte_line(0).len();
        // Limits that fall at every offset inside a line, multi-byte characters included.
        for shift in 0..line_len {
            let limit = DEFAULT_LOG_LIMIT_BYTES - shift;
            let kept = retained(&log, limit);
            assert!(kept.len() <= limit, "{shift}");
            assert!(
                limit - kept.len() < line_len + 8,
                "about every line that fits is kept ({shift})"
            );
            assert!(
                kept.starts_with("{\"event_summary\":\"チケット T-"),
                "{shift}"
            );
            assert!(log.ends_with(kept));
            assert_eq!(kept, reference_retained(&log, limit), "{shift}");
        }
        let last = multi_byte_line(written - 1);
        assert!(retained(&log, DEFAULT_LOG_LIMIT_BYTES).ends_with(&last));
        let tail_300 = tail(&log, 300);
        assert_eq!(tail_300.lines().count(), 300);
        assert!(tail_300.starts_with(&multi_byte_line(written - 300)));
        assert!(tail_300.ends_with(&last));
        let no_newline = log.strip_suffix('\n').unwrap();
        assert_eq!(tail(no_newline, 200).lines().count(), 200);
        assert!(tail(no_newline, 200).starts_with(&multi_byte_line(written - 200)));
    }

    #[test]
    fn the_tail_is_between_200_and_500_lines() {
        let log: String = (0..1000).map(|n| format!("line {n}\n")).collect();
        assert_eq!(tail(&log, 300).lines().count(), 300);
        assert_eq!(tail(&log, 10).lines().count(), 200);
        assert_eq!(tail(&log, 5000).lines().count(), 500);
        assert!(tail(&log, 300).ends_with("line 999\n"));
        assert_eq!(tail("only\n", 300), "only\n");
    }

    #[test]
    fn the_tail_counts_lines_without_a_trailing_newline_and_crlf_lines() {
        let log: String = (0..1000).map(|n| format!("行 {n} 🚀\r\n")).collect();
        let tail_200 = tail(&log, 0);
        assert_eq!(tail_200.lines().count(), 200);
        assert!(tail_200.starts_with("行 800 🚀\r\n") && tail_200.ends_with("行 999 🚀\r\n"));
        let unterminated = log.strip_suffix("\r\n").unwrap();
        let tail_250 = tail(unterminated, 250);
        assert_eq!(tail_250.lines().count(), 250);
        assert!(tail_250.starts_with("行 750 🚀\r\n") && tail_250.ends_with("行 999 🚀"));
        // Fewer lines than asked for: the whole log.
        assert_eq!(tail("a\nb", 300), "a\nb");
        // An empty newest line counts as a line.
        let with_empty: String = (0..300).map(|n| format!("{n}\n")).collect::<String>() + "\n";
        assert!(tail(&with_empty, 200).starts_with("101\n"));
    }

    #[test]
    fn records_map_to_genai_spans_and_approval_events() {
        let time = "2026-11-22T10:00:00.000Z";
        let facts = OtelFacts {
            change_digest: Some("d1".to_owned()),
            approved_by: Some("person".to_owned()),
            request_id: Some("r-1".to_owned()),
            succeeded: Some(false),
        };
        let span = otel_record(
            LogChannel::Execution,
            &record(1),
            time,
            Some(("status_change", "a-3")),
            &facts,
        );
        assert_eq!(span["attributes"]["agent_governor.outcome"], "failed");
        assert_eq!(span["attributes"]["agent_governor.change.digest"], "d1");
        assert_eq!(span["name"], "execute_tool status_change");
        assert_eq!(span["attributes"]["gen_ai.operation.name"], "execute_tool");
        assert_eq!(span["attributes"]["gen_ai.tool.call.id"], "a-3");
        let approval = otel_record(
            LogChannel::Cli,
            &record(1),
            time,
            Some(("status_change", "a-3")),
            &facts,
        );
        assert_eq!(
            approval["attributes"]["agent_governor.approval.approved_by"],
            "person"
        );
        assert_eq!(
            approval["attributes"]["agent_governor.approval.request_id"],
            "r-1"
        );
        assert!(
            approval["attributes"]
                .get("agent_governor.outcome")
                .is_none()
        );
        assert_eq!(approval["kind"], "event");
        assert_eq!(approval["name"], "agent_governor.approval");
        let agent = otel_record(LogChannel::Chat, &record(1), time, None, &facts);
        assert!(
            agent["attributes"]
                .get("agent_governor.change.digest")
                .is_none()
        );
        assert_eq!(agent["attributes"]["gen_ai.operation.name"], "invoke_agent");
    }
}
