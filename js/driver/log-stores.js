// Log storage ports for the control loop: the seed's three channels (chat, cli, execution), each kept as
// whole JSON lines under a size limit (10 MB by default), the oldest lines dropped first. A port is
// `{ append(channel, line), tail(channel, lines), size(channel) }`; every method may return a promise.

import { typedError } from "../approver/errors.js";
import { readOptions } from "../approver/options.js";

export const LOG_CHANNELS = Object.freeze(["chat", "cli", "execution"]);
export const DEFAULT_LOG_LIMIT_BYTES = 10 * 1024 * 1024;

const encoder = new TextEncoder();
const utf8Bytes = (text) => encoder.encode(text).length;

/** The package's typed error, with the path first (as this file reads best). */
const governorError = (path, message, code = "invalid_input") => typedError(code, path, message);

function checkChannel(channel) {
  if (!LOG_CHANNELS.includes(channel)) {
    throw governorError("channel", `must be one of ${LOG_CHANNELS.join(", ")}, got ${String(channel)}`);
  }
}

function checkLine(line) {
  if (typeof line !== "string" || !line.endsWith("\n") || line.indexOf("\n") !== line.length - 1) {
    throw governorError("line", "must be one line of text ending with a newline");
  }
}


function readLimit(options) {
  const limit = options.limitBytes ?? DEFAULT_LOG_LIMIT_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw governorError("options.limitBytes", "must be a positive whole number of bytes");
  }
  return limit;
}

function readLineCount(lines) {
  const count = lines ?? 300;
  if (!Number.isSafeInteger(count) || count < 1) throw governorError("lines", "must be a positive whole number");
  // The judge reads between 200 and 500 lines (seed 002).
  return Math.min(Math.max(count, 200), 500);
}

/** Logs in memory (any host): lines kept in order with their sizes, trimmed as they are appended. */
export function memoryLogStore(options) {
  const limit = readLimit(readOptions("memoryLogStore", "options", options ?? undefined, { limitBytes: "any" }));
  const channels = new Map(LOG_CHANNELS.map((name) => [name, { lines: [], sizes: [], first: 0, bytes: 0 }]));
  const compact = (log) => {
    if (log.first > 1024 && log.first * 2 > log.lines.length) {
      log.lines = log.lines.slice(log.first);
      log.sizes = log.sizes.slice(log.first);
      log.first = 0;
    }
  };
  return {
    append(channel, line) {
      checkChannel(channel);
      checkLine(line);
      const log = channels.get(channel);
      const bytes = utf8Bytes(line);
      log.lines.push(line);
      log.sizes.push(bytes);
      log.bytes += bytes;
      // Whole lines only, oldest first; the newest line is kept even when it alone is over the limit.
      while (log.bytes > limit && log.lines.length - log.first > 1) {
        log.bytes -= log.sizes[log.first];
        log.lines[log.first] = undefined;
        log.first += 1;
      }
      compact(log);
    },
    tail(channel, lines) {
      checkChannel(channel);
      const log = channels.get(channel);
      const start = Math.max(log.first, log.lines.length - readLineCount(lines));
      return log.lines.slice(start).join("");
    },
    size(channel) {
      checkChannel(channel);
      return channels.get(channel).bytes;
    },
    /** Everything kept, oldest first. */
    read(channel) {
      checkChannel(channel);
      const log = channels.get(channel);
      return log.lines.slice(log.first).join("");
    },
  };
}

const request = (operation) =>
  new Promise((resolve, reject) => {
    operation.onsuccess = () => resolve(operation.result);
    operation.onerror = () => reject(operation.error);
  });

const finished = (transaction) =>
  new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new Error("the log transaction was aborted"));
  });

/**
 * Logs in the browser's IndexedDB (windows and workers alike): one record per line, so dropping the oldest
 * lines is deleting the lowest keys, and an append with its trimming is one transaction. The byte count of
 * each channel is kept in the same transaction, so `size` never scans.
 */
export async function indexedDbLogStore(rawOptions) {
  const options = readOptions("indexedDbLogStore", "options", rawOptions ?? undefined, { limitBytes: "any", name: "any", indexedDB: "any" });
  const limit = readLimit(options);
  const name = options.name ?? "agent-governor-logs";
  if (typeof name !== "string" || name === "") throw governorError("options.name", "must be a non-empty string");
  const factory = options.indexedDB ?? globalThis.indexedDB;
  if (!factory) throw governorError("options.indexedDB", "this host has no IndexedDB: use memoryLogStore()", "unsupported");
  const opening = factory.open(name, 1);
  opening.onupgradeneeded = () => {
    const db = opening.result;
    for (const channel of LOG_CHANNELS) db.createObjectStore(channel, { autoIncrement: true });
    db.createObjectStore("sizes");
  };
  const db = await request(opening);
  return {
    async append(channel, line) {
      checkChannel(channel);
      checkLine(line);
      const transaction = db.transaction([channel, "sizes"], "readwrite");
      const done = finished(transaction);
      const lines = transaction.objectStore(channel);
      const sizes = transaction.objectStore("sizes");
      const bytes = utf8Bytes(line);
      lines.add({ line, bytes });
      let total = ((await request(sizes.get(channel))) ?? 0) + bytes;
      if (total > limit) {
        let count = await request(lines.count());
        const cursor = lines.openCursor();
        await new Promise((resolve, reject) => {
          cursor.onerror = () => reject(cursor.error);
          cursor.onsuccess = () => {
            const at = cursor.result;
            if (!at || total <= limit || count <= 1) return resolve();
            total -= at.value.bytes;
            count -= 1;
            at.delete();
            at.continue();
          };
        });
      }
      sizes.put(total, channel);
      await done;
    },
    async tail(channel, lines) {
      checkChannel(channel);
      const wanted = readLineCount(lines);
      const transaction = db.transaction(channel, "readonly");
      const cursor = transaction.objectStore(channel).openCursor(null, "prev");
      const newestFirst = await new Promise((resolve, reject) => {
        const found = [];
        cursor.onerror = () => reject(cursor.error);
        cursor.onsuccess = () => {
          const at = cursor.result;
          if (!at || found.length >= wanted) return resolve(found);
          found.push(at.value.line);
          at.continue();
        };
      });
      return newestFirst.reverse().join("");
    },
    async size(channel) {
      checkChannel(channel);
      return (await request(db.transaction("sizes", "readonly").objectStore("sizes").get(channel))) ?? 0;
    },
    close() {
      db.close();
    },
  };
}
