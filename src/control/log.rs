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

/// One line of the execution log (with its newline). `time` is the host's RFC 3339 clock reading.
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
        event_summary: &record.event_summary,
        cause: &record.cause,
        impact_scope: &record.impact_scope,
    });
    line.push('\n');
    line
}

/// What is kept of `log` under `limit` bytes: the newest whole lines, the oldest dropped first. A newest
/// line longer than the limit by itself is kept alone, so the latest record is never lost.
pub fn retained(log: &str, limit: usize) -> &str {
    if log.len() <= limit {
        return log;
    }
    let earliest_start = log.len() - limit;
    // The first line that starts at or after `earliest_start`.
    let mut start = log
        .get(earliest_start.saturating_sub(1)..)
        .and_then(|rest| rest.find('\n'))
        .map_or(log.len(), |offset| {
            earliest_start.saturating_sub(1) + offset + 1
        });
    if start >= log.len() {
        // Not even the newest line fits: keep it alone.
        let body = log.strip_suffix('\n').unwrap_or(log);
        start = body.rfind('\n').map_or(0, |index| index + 1);
    }
    log.get(start..).unwrap_or("")
}

/// The last `lines` lines of `log`, clamped to the seed's 200-500.
pub fn tail(log: &str, lines: usize) -> &str {
    let wanted = lines.clamp(*TAIL_LINES.start(), *TAIL_LINES.end());
    let body = log.strip_suffix('\n').unwrap_or(log);
    let start = body
        .match_indices('\n')
        .rev()
        .nth(wanted.saturating_sub(1))
        .map_or(0, |(index, _)| index + 1);
    log.get(start..).unwrap_or("")
}

/// A record as an OpenTelemetry GenAI-style span (`execute_tool`, `invoke_agent`) or event (an approval),
/// with `time` as the host's RFC 3339 reading. `tool` is the action type, `call_id` the action id.
pub fn otel_record(
    channel: LogChannel,
    record: &LogRecord,
    time: &str,
    tool: Option<(&str, &str)>,
) -> Value {
    let mut attributes = serde_json::Map::new();
    let mut set = |key: &str, value: &str| {
        attributes.insert(key.to_owned(), Value::from(value));
    };
    set("agent_governor.event_summary", &record.event_summary);
    set("agent_governor.cause", &record.cause);
    set("agent_governor.impact_scope", &record.impact_scope);
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
    fn the_tail_is_between_200_and_500_lines() {
        let log: String = (0..1000).map(|n| format!("line {n}\n")).collect();
        assert_eq!(tail(&log, 300).lines().count(), 300);
        assert_eq!(tail(&log, 10).lines().count(), 200);
        assert_eq!(tail(&log, 5000).lines().count(), 500);
        assert!(tail(&log, 300).ends_with("line 999\n"));
        assert_eq!(tail("only\n", 300), "only\n");
    }

    #[test]
    fn records_map_to_genai_spans_and_approval_events() {
        let time = "2026-11-22T10:00:00.000Z";
        let span = otel_record(
            LogChannel::Execution,
            &record(1),
            time,
            Some(("status_change", "a-3")),
        );
        assert_eq!(span["name"], "execute_tool status_change");
        assert_eq!(span["attributes"]["gen_ai.operation.name"], "execute_tool");
        assert_eq!(span["attributes"]["gen_ai.tool.call.id"], "a-3");
        let approval = otel_record(
            LogChannel::Cli,
            &record(1),
            time,
            Some(("status_change", "a-3")),
        );
        assert_eq!(approval["kind"], "event");
        assert_eq!(approval["name"], "agent_governor.approval");
        let agent = otel_record(LogChannel::Chat, &record(1), time, None);
        assert_eq!(agent["attributes"]["gen_ai.operation.name"], "invoke_agent");
    }
}
