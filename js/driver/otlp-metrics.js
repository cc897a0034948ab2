// Decisions measured, as OTLP/HTTP JSON metrics: one gauge point per change type (or tool) and per person for
// the window the guard measured (`GET /v1/decision-metrics`): decisions by outcome, the median time a card was
// on screen before its decision, the approvals decided faster than the card can be read, and how many
// standing approvals would have covered the window's approvals.
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { attribute } from "./otlp-spans.js";

const nanos = (ms) => `${BigInt(Math.round(ms)) * 1_000_000n}`;

function point(attributes, value, timeUnixNano, startTimeUnixNano) {
  const number = Number.isInteger(value) ? { asInt: String(value) } : { asDouble: value };
  return { attributes: Object.entries(attributes).map(([key, text]) => attribute(key, String(text))), startTimeUnixNano, timeUnixNano, ...number };
}

const gauge = (name, unit, description, dataPoints) => ({ name, unit, description, gauge: { dataPoints } });

/** Refuses what is not the guard's decision metrics (typed), so nothing is sent half-read. */
function readMetrics(metrics) {
  const rows = (list, label) =>
    Array.isArray(list) && list.every((row) => isPlainObject(row) && typeof row[label] === "string" && Number.isSafeInteger(row.decided) && Number.isSafeInteger(row.approved) && Number.isSafeInteger(row.declined));
  const ok =
    isPlainObject(metrics) &&
    Number.isFinite(metrics.since_ms) &&
    Number.isFinite(metrics.until_ms) &&
    rows(metrics.by_type, "key") &&
    rows(metrics.by_person, "approver") &&
    Array.isArray(metrics.suggestions);
  if (!ok) throw typedError("invalid_input", "metrics", "metrics must be the guard's decision metrics (GET /v1/decision-metrics)");
  return metrics;
}

/** The OTLP `resourceMetrics` body for `metrics`, under `resource` and `scope`. */
export function decisionMetricsBody(given, resource, scope) {
  const metrics = readMetrics(given);
  const time = nanos(metrics.until_ms);
  const start = nanos(metrics.since_ms);
  const points = { decisions: [], read: [], fast: [] };
  for (const [list, label, dimension] of [[metrics.by_type, "key", "agent_governor.rule_key"], [metrics.by_person, "approver", "agent_governor.approver"]]) {
    for (const row of list) {
      const base = { [dimension]: row[label] };
      points.decisions.push(point({ ...base, "agent_governor.decision": "approved" }, row.approved, time, start));
      points.decisions.push(point({ ...base, "agent_governor.decision": "declined" }, row.declined, time, start));
      if (Number.isSafeInteger(row.by_standing_approval)) points.decisions.push(point({ ...base, "agent_governor.decision": "standing_approval" }, row.by_standing_approval, time, start));
      if (Number.isFinite(row.median_read_ms)) points.read.push(point(base, row.median_read_ms, time, start));
      if (Number.isSafeInteger(row.approved_faster_than_readable)) points.fast.push(point(base, row.approved_faster_than_readable, time, start));
    }
  }
  const suggested = point({}, metrics.suggestions.length, time, start);
  return {
    resourceMetrics: [
      {
        resource,
        scopeMetrics: [
          {
            scope,
            metrics: [
              gauge("agent_governor.decisions", "{decision}", "Changes decided in the window, by outcome, per change type or tool and per person", points.decisions),
              gauge("agent_governor.decision.read_time.median", "ms", "Median time a card was on screen before its decision", points.read),
              gauge("agent_governor.decisions.faster_than_readable", "{decision}", "Approvals decided faster than the card's lines can be read", points.fast),
              gauge("agent_governor.standing_approvals.suggested", "{suggestion}", "Standing approvals that would have covered the window's approvals", [suggested]),
            ],
          },
        ],
      },
    ],
  };
}
