// HTTP plumbing shared by the worker and the Durable Object: JSON answers, typed errors
// `{ code, message, path }`, and bodies read with a size limit.

import { readJson } from "agent-governor/guard";

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** The deepest JSON body accepted: proposals carry the Closer's and the Watcher's results as evidence. */
export const MAX_BODY_DEPTH = 32;
/** How much of an oversized body is read and dropped before the connection is cut. */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;

/** A failure the caller can act on: `status` is the HTTP status, `code` the stable machine-readable name. */
export class HttpError extends Error {
  constructor(status, code, message, path = "") {
    super(message);
    this.status = status;
    this.code = code;
    this.path = path;
  }
}

export function json(value, status = 200, headers = {}) {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

export function errorResponse(error) {
  if (error instanceof HttpError) {
    return json({ code: error.code, message: error.message, path: error.path }, error.status);
  }
  // A typed error from the package: the caller's input broke its contract.
  if (error?.name === "AgentGovernorError") {
    return json({ code: error.code, message: error.message, path: error.path ?? "" }, 400);
  }
  return json({ code: "internal", message: "the guard failed; nothing was approved or applied", path: "" }, 500);
}

/**
 * The whole body, read with a byte limit whether or not the client sent Content-Length. The worker reads
 * every body before it answers anything (even a 401): a client still sending when the answer comes would
 * see a reset rather than the answer.
 */
export async function readBody(request, maxBytes = DEFAULT_MAX_BODY_BYTES) {
  return readLimited(request.body, maxBytes);
}

/** The (already size-limited) body as a JSON object; anything else is a typed 4xx. */
export async function readJsonObject(request) {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(415, "unsupported_media_type", "the body must be JSON (Content-Type: application/json)");
  }
  const bytes = new Uint8Array(await request.arrayBuffer());
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_input", "the body is not UTF-8");
  }
  let value;
  try {
    // Read by the core: duplicate keys and nesting deeper than MAX_BODY_DEPTH are refused, never guessed.
    value = readJson(text, MAX_BODY_DEPTH);
  } catch (error) {
    const code = ["duplicate_key", "too_deep", "invalid_json"].includes(error?.code) ? error.code : "invalid_input";
    throw new HttpError(400, code, error?.message ?? "the body is not JSON", error?.path ?? "");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HttpError(400, "invalid_input", "the body must be a JSON object");
  }
  return value;
}

function tooLarge(maxBytes) {
  return new HttpError(413, "payload_too_large", `the body is larger than ${maxBytes} bytes`);
}

async function readLimited(stream, maxBytes) {
  if (!stream) return new Uint8Array();
  const reader = stream.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Read the rest and drop it (up to a bound), so the client gets its 413 rather than a reset.
      let drained = total;
      while (drained <= DRAIN_LIMIT_BYTES) {
        const next = await reader.read();
        if (next.done) throw tooLarge(maxBytes);
        drained += next.value.byteLength;
      }
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Refuses keys the endpoint does not document, naming the first one. */
export function onlyKeys(value, allowed, path = "") {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new HttpError(400, "invalid_input", `unknown field \`${key}\`; allowed: ${allowed.join(", ")}`, path ? `${path}.${key}` : key);
    }
  }
}

export function requireText(value, path, { max = 4096, optional = false } = {}) {
  if (value === undefined || value === null) {
    if (optional) return null;
    throw new HttpError(400, "invalid_input", `\`${path}\` is required`, path);
  }
  if (typeof value !== "string" || value.trim() === "") {
    throw new HttpError(400, "invalid_input", `\`${path}\` must be a non-empty string`, path);
  }
  if (value.length > max) throw new HttpError(400, "invalid_input", `\`${path}\` is longer than ${max} characters`, path);
  return value;
}
