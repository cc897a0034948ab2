// Sends the control loop's telemetry to an OpenTelemetry receiver over OTLP/HTTP with the JSON encoding (an
// OpenTelemetry Collector, Jaeger, Langfuse, Datadog, ...). `record` only converts and queues: it never
// awaits, never throws and never waits for the network. A bounded queue is sent in batches, one request at a
// time, each with a timeout; whatever cannot be sent is dropped and counted in `stats()`, never retried in a
// loop, so a receiver that is down or slow never holds the agent back.
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { notAnOption } from "../approver/options.js";
import { isBlank } from "../approver/canonical.js";
import { attribute, createSpanBuilder, readRecord } from "./otlp-spans.js";
import { decisionMetricsBody } from "./otlp-metrics.js";

/** The package's name and version (package.json's, as the tests check), the instrumentation scope of every span. */
const SCOPE = Object.freeze({ name: "agent-governor", version: "0.1.0" });

const DEFAULTS = Object.freeze({ serviceName: "agent-governor", maxQueue: 2048, maxBatch: 512, flushIntervalMs: 2000, timeoutMs: 10_000 });
const OPTION_KEYS = ["endpoint", "metricsEndpoint", "fetch", "headers", "serviceName", "agentName", "maxQueue", "maxBatch", "flushIntervalMs", "timeoutMs"];
/** The longest delay a host timer takes (a longer one fires at once in Node). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Statuses after which a batch is sent once more (OTLP/HTTP's retryable ones), after this pause. */
const RETRYABLE = new Set([429, 502, 503, 504]);
const RETRY_DELAY_MS = 1000;
/** An HTTP header name (RFC 9110 token), and a value with no line break or NUL. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

const invalid = (path, message) => typedError("invalid_input", path, message);

function positiveInteger(options, key, max = Number.MAX_SAFE_INTEGER) {
  const value = options[key] ?? DEFAULTS[key];
  if (!Number.isSafeInteger(value) || value < 1 || value > max) throw invalid(`options.${key}`, `${key} must be a whole number from 1 to ${max}`);
  return value;
}

function nonEmptyText(options, key, fallback) {
  const value = options[key] ?? fallback;
  // Blank as the core reads it (U+FEFF is not white space), as every option of the package is read.
  if (typeof value !== "string" || isBlank(value)) throw invalid(`options.${key}`, `${key} must be a non-empty string`);
  return value;
}

function readEndpoint(endpoint, path = "options.endpoint") {
  if (typeof endpoint !== "string") throw invalid(path, "endpoint must be the receiver's traces URL, e.g. http://localhost:4318/v1/traces");
  let url;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalid(path, "endpoint is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(path, "endpoint must be an http: or https: URL");
  // fetch refuses such a URL on every request: a key goes in `headers`.
  if (url.username !== "" || url.password !== "") throw invalid(path, "endpoint must not hold credentials: pass them in headers");
  return url.href;
}

function readHeaders(headers) {
  if (headers === undefined) return {};
  if (!isPlainObject(headers)) throw invalid("options.headers", "headers must be a plain object of strings");
  const read = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw invalid(`options.headers.${name}`, "not a valid header name");
    if (name.toLowerCase() === "content-type") throw invalid(`options.headers.${name}`, "the exporter sends application/json");
    if (typeof value !== "string" || !HEADER_VALUE.test(value)) throw invalid(`options.headers.${name}`, "a header's value must be a string without line breaks");
    read[name] = value;
  }
  return read;
}

function readOptions(options) {
  if (!isPlainObject(options)) throw invalid("options", "options must be a plain object: { endpoint, ... }");
  let given;
  try {
    given = { ...options };
  } catch (error) {
    throw invalid("options", `options could not be read: ${error?.message ?? String(error)}`);
  }
  for (const key of Object.keys(given)) {
    if (!OPTION_KEYS.includes(key)) throw invalid(`options.${key}`, notAnOption(key, "createOtlpExporter", OPTION_KEYS));
  }
  if (given.fetch !== undefined && typeof given.fetch !== "function") throw invalid("options.fetch", "fetch must be a function (url, init) => Promise<Response>");
  if (given.fetch === undefined && typeof globalThis.fetch !== "function") throw typedError("unsupported", "options.fetch", "this host has no fetch: pass one");
  if (typeof globalThis.crypto?.getRandomValues !== "function") throw typedError("unsupported", "crypto", "this host has no crypto.getRandomValues for trace ids");
  const serviceName = nonEmptyText(given, "serviceName", DEFAULTS.serviceName);
  const endpoint = readEndpoint(given.endpoint);
  return {
    endpoint,
    // The metrics URL: given, or the traces URL with its `/v1/traces` path as `/v1/metrics` (OTLP/HTTP's paths).
    metricsEndpoint:
      given.metricsEndpoint !== undefined
        ? readEndpoint(given.metricsEndpoint, "options.metricsEndpoint")
        : endpoint.endsWith("/v1/traces")
          ? `${endpoint.slice(0, -"/v1/traces".length)}/v1/metrics`
          : null,
    // Looked up at each request, so a host that replaces its fetch later is followed.
    fetch: given.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    headers: { ...readHeaders(given.headers), "content-type": "application/json" },
    serviceName,
    agentName: nonEmptyText(given, "agentName", serviceName),
    maxQueue: positiveInteger(given, "maxQueue"),
    maxBatch: positiveInteger(given, "maxBatch"),
    flushIntervalMs: positiveInteger(given, "flushIntervalMs", MAX_TIMER_MS),
    timeoutMs: positiveInteger(given, "timeoutMs", MAX_TIMER_MS),
  };
}

/** A timer that never keeps a Node process alive. */
function unref(timer) {
  if (typeof timer === "object" && typeof timer?.unref === "function") timer.unref();
  return timer;
}

/** A pause before a retry: a second at most, held like the request it repeats (a flush before exit waits for it). */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The spans a receiver says it rejected (OTLP partial success; an int64, so maybe a string), at most `sent`. */
function rejectedSpans(text, sent) {
  try {
    const rejected = JSON.parse(text)?.partialSuccess?.rejectedSpans;
    const count = typeof rejected === "string" && /^\d{1,15}$/.test(rejected) ? Number(rejected) : rejected;
    return Number.isSafeInteger(count) && count > 0 ? Math.min(count, sent) : 0;
  } catch {
    return 0;
  }
}

/**
 * An exporter of the loop's telemetry to an OTLP/HTTP JSON endpoint. Wire it with
 * `createControlLoop({ ..., telemetry: exporter.listener })`.
 */
export function createOtlpExporter(options) {
  const config = readOptions(options);
  const queue = [];
  let sending = 0;
  let exported = 0;
  let retried = 0;
  const dropped = { queueFull: 0, exportFailed: 0, malformed: 0, afterShutdown: 0 };
  let timer = null;
  let pump = null;
  let kick = false;
  let stopping = null;
  const resource = { attributes: [attribute("service.name", config.serviceName)] };

  function enqueue(span) {
    if (queue.length >= config.maxQueue) {
      dropped.queueFull += 1;
      return;
    }
    queue.push(span);
    if (timer === null && stopping === null) timer = unref(setInterval(send, config.flushIntervalMs));
    // A full batch goes out soon, not at the next tick; never from inside `record`.
    if (queue.length >= config.maxBatch && pump === null && !kick) {
      kick = true;
      queueMicrotask(() => {
        kick = false;
        send();
      });
    }
  }

  const spans = createSpanBuilder({ agentName: config.agentName, emit: enqueue });

  /** One POST of `body`; resolves to { ok, retryable, rejected } and never rejects. */
  async function post(body, sent) {
    const controller = new AbortController();
    const timeout = unref(setTimeout(() => controller.abort(), config.timeoutMs));
    try {
      const response = await config.fetch(config.endpoint, { method: "POST", headers: { ...config.headers }, body, signal: controller.signal });
      const status = response?.status;
      if (!Number.isInteger(status)) return { ok: false, retryable: false, rejected: 0 };
      if (status < 200 || status > 299) {
        try {
          await response.body?.cancel?.();
        } catch {
          // Nothing more to read from a refused request.
        }
        return { ok: false, retryable: RETRYABLE.has(status), rejected: 0 };
      }
      const text = typeof response.text === "function" ? await response.text() : "";
      return { ok: true, retryable: false, rejected: rejectedSpans(text, sent) };
    } catch {
      // Refused, unreachable, timed out (aborted), or a fetch port that threw.
      return { ok: false, retryable: false, rejected: 0 };
    } finally {
      clearTimeout(timeout);
    }
  }

  /**
   * Sends the guard's decision metrics (`GET /v1/decision-metrics`) as OTLP gauges, once: resolves to
   * `{ sent: true }` or `{ sent: false, reason }`; never rejects for the receiver. Bad metrics are a typed error.
   */
  async function exportDecisionMetrics(metrics) {
    if (config.metricsEndpoint === null) throw typedError("invalid_input", "options.metricsEndpoint", "this exporter has no metrics URL: give metricsEndpoint (the endpoint is not a /v1/traces URL)");
    const body = JSON.stringify(decisionMetricsBody(metrics, resource, SCOPE));
    const controller = new AbortController();
    const timeout = unref(setTimeout(() => controller.abort(), config.timeoutMs));
    try {
      const response = await config.fetch(config.metricsEndpoint, { method: "POST", headers: { ...config.headers }, body, signal: controller.signal });
      const status = response?.status;
      if (Number.isInteger(status) && status >= 200 && status <= 299) return { sent: true };
      return { sent: false, reason: `the receiver answered ${status}` };
    } catch (error) {
      return { sent: false, reason: error?.message ?? String(error) };
    } finally {
      clearTimeout(timeout);
    }
  }

  async function exportBatch(batch) {
    const body = JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: SCOPE, spans: batch }] }] });
    let outcome = await post(body, batch.length);
    if (outcome.retryable) {
      retried += 1;
      await pause(RETRY_DELAY_MS);
      outcome = await post(body, batch.length);
    }
    if (outcome.ok) {
      exported += batch.length - outcome.rejected;
      dropped.exportFailed += outcome.rejected;
    } else {
      dropped.exportFailed += batch.length;
    }
  }

  /** Sends the queue, a batch at a time, one request in flight; resolves when the queue is empty. */
  function send() {
    if (pump === null && queue.length > 0) {
      pump = (async () => {
        while (queue.length > 0) {
          const batch = queue.splice(0, config.maxBatch);
          sending = batch.length;
          try {
            await exportBatch(batch);
          } catch {
            dropped.exportFailed += batch.length;
          } finally {
            sending = 0;
          }
        }
      })().finally(() => {
        pump = null;
      });
    }
    return pump ?? Promise.resolve();
  }

  function record(telemetry) {
    if (stopping !== null) {
      dropped.afterShutdown += 1;
      return;
    }
    const read = readRecord(telemetry);
    if (read === null) {
      dropped.malformed += 1;
      return;
    }
    try {
      spans.add(read);
    } catch {
      dropped.malformed += 1;
    }
  }

  async function flush() {
    spans.release();
    while (queue.length > 0 || pump !== null) await send();
  }

  function shutdown() {
    stopping ??= (async () => {
      clearInterval(timer);
      timer = null;
      spans.finish();
      await flush();
    })();
    return stopping;
  }

  return Object.freeze({
    /** Takes one record of the loop's `telemetry` port; returns at once. */
    record,
    /** `record`, for `createControlLoop({ telemetry: exporter.listener })`. */
    listener: record,
    /** Resolves once every span ended so far has been sent or dropped. */
    flush,
    exportDecisionMetrics,
    /** Ends the open task (marked unfinished), sends what is queued and stops; later records are dropped. */
    shutdown,
    stats: () => ({
      queued: queue.length + sending + spans.pending(),
      exported,
      retried,
      dropped: { ...dropped },
    }),
  });
}
