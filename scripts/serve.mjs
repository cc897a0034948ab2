// Serves the approval page (www/) and the built package (dist/, under /pkg/) on 127.0.0.1.
// Usage: node scripts/serve.mjs [--port N]   (PORT in the environment works too; 0 picks a free port)
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const mounts = [
  ["/pkg/", join(root, "dist")],
  ["/", join(root, "www")],
];
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".ts": "text/plain; charset=utf-8",
};

function locate(urlPath) {
  for (const [prefix, directory] of mounts) {
    if (!urlPath.startsWith(prefix)) continue;
    const relative = normalize(decodeURIComponent(urlPath.slice(prefix.length)) || "index.html");
    if (relative.startsWith("..")) return null;
    return join(directory, relative);
  }
  return null;
}

export function startServer(port = 0) {
  const server = createServer(async (request, response) => {
    const path = locate(new URL(request.url, "http://localhost").pathname);
    try {
      if (!path || !(await stat(path)).isFile()) throw new Error("not a file");
      const body = await readFile(path);
      response.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream", "cache-control": "no-store" });
      response.end(body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found\n");
    }
  });
  return new Promise((resolvePort) => server.listen(port, "127.0.0.1", () => resolvePort(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf("--port");
  const port = Number(flag > 0 ? process.argv[flag + 1] : (process.env.PORT ?? 8080));
  const server = await startServer(port);
  console.log(`agent-governor approval page: http://127.0.0.1:${server.address().port}/`);
}
