// HTTP plumbing shared by the worker and the Durable Object: JSON answers, typed errors
// `{ code, message, path }`, and bodies read with a size limit.

import { readJson } from "agent-governor/guard";

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** The deepest JSON body accepted: proposals carry the Closer's and the Watcher's results as evidence. */
export const MAX_BODY_DEPTH = 32;

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
 * The whole body, read with a byte limit. A declared `Content-Length` over the limit is refused before a byte
 * is read; a body without one (chunked) is kept up to the limit, and the rest is read and dropped (see
 * `drain`): an oversized body never costs more memory than the limit, whoever sends it.
 */
export async function readBody(request, maxBytes = DEFAULT_MAX_BODY_BYTES) {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!/^\d{1,15}$/.test(declared)) throw new HttpError(400, "invalid_input", "Content-Length must be a whole number of bytes", "content-length");
    if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
  }
  return readLimited(request.body, maxBytes);
}

/** How much of an oversized streamed body is read and dropped, and for how long, before it is cut. */
const DRAIN_LIMIT_BYTES = 100 * 1024 * 1024;
const DRAIN_LIMIT_MS = 30_000;

/** The longest path segment accepted, decoded (ids are UUIDs; approver names and key ids are short). */
const MAX_SEGMENT_CHARS = 256;

/**
 * The path's segments, percent-decoded: malformed percent-encoding, an over-long segment, or a control
 * character in one is a 400 `malformed_path` before anything else runs.
 */
export function pathSegments(pathname) {
  return pathname
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      let decoded;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        throw new HttpError(400, "malformed_path", `the path segment \`${segment.slice(0, 64)}\` is not valid percent-encoded UTF-8`);
      }
      if (decoded.length > MAX_SEGMENT_CHARS) throw new HttpError(400, "malformed_path", `a path segment is longer than ${MAX_SEGMENT_CHARS} characters`);
      if (/[\p{Cc}\p{Cf}]/u.test(decoded)) throw new HttpError(400, "malformed_path", "a path segment holds a control or format character");
      return decoded;
    });
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
      await drain(reader, total);
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

/**
 * Reads and drops the rest of an oversized streamed body, keeping nothing. An upload abandoned mid-way
 * unsettles the local runtime (`wrangler dev` restarts its worker and drops the requests in flight), and an
 * answer given while the client still sends reaches it as a reset. Bounded: past DRAIN_LIMIT_BYTES (the
 * largest body Cloudflare's edge lets through at all) or DRAIN_LIMIT_MS the stream is cut.
 */
async function drain(reader, alreadyRead) {
  const deadline = Date.now() + DRAIN_LIMIT_MS;
  let drained = alreadyRead;
  while (drained <= DRAIN_LIMIT_BYTES && Date.now() < deadline) {
    const next = await reader.read();
    if (next.done) return;
    drained += next.value.byteLength;
  }
  await reader.cancel().catch(() => {});
}

/** Refuses keys the endpoint does not document, naming the first one. */
/** A JSON object (a body read by the core is never a class instance): not null, not an array. */
export const isPlainObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

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
