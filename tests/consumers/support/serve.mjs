// A static file server for built output on 127.0.0.1 (a free port), with the MIME types a browser insists on
// (application/wasm for streaming compilation, text/javascript for module scripts) and plain 404s: no fallback
// page hides a missing file. It records the requests it could not answer.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".cjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
};

/** Serves `directory`; resolves to `{ url, missing, close() }` once listening. */
export function serveStatic(directory) {
  const missing = [];
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://localhost").pathname);
    const relative = normalize(path.endsWith("/") ? `${path}index.html` : path).replace(/^\/+/, "");
    if (relative.startsWith("..")) {
      response.writeHead(403).end();
      return;
    }
    const file = join(directory, relative);
    try {
      if (!(await stat(file)).isFile()) throw new Error("not a file");
      const body = await readFile(file);
      response.writeHead(200, {
        "content-type": types[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      response.end(body);
    } catch {
      missing.push(path);
      response.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${path}`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        missing,
        // Browsers keep connections open: drop them, or close() waits for their keep-alive to run out.
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
