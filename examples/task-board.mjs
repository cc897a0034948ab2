// A small task board that plays the upstream skill the edge guard applies through: nodes with statuses and
// the transitions allowed between them. It counts every Apply it receives, so a test (or a person) can see
// that each approval was applied exactly once.
//
//   POST /preview {node_id}          -> { current_status, valid_transitions }
//   POST /apply   ApplyRequest       -> 200 { applied: true } | 422 { applied: false, message }
//   GET  /board                      -> { nodes, applies, repeats }
//
// An Apply with an `Idempotency-Key` header the board already applied is answered as the first time and
// applies nothing (counted in `repeats`): the action runs once even if the caller's own record is lost.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const TRANSITIONS = {
  todo: ["in_progress"],
  in_progress: ["in_review", "todo"],
  in_review: ["done", "in_progress"],
  done: [],
};

async function body(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
}

/**
 * Starts the board on 127.0.0.1. `nodes` maps node ids to statuses. `holdApply(request, { drop })` may return
 * a promise that delays the answer to an Apply after it is counted (a test uses it to stop the guard mid-way);
 * calling `drop()` closes the connection without an answer, so the caller cannot know whether it was applied.
 * With `file`, the board (statuses and applies) is loaded from it when it exists (`nodes` is then only the
 * first board) and saved to it before each Apply is answered, so a restart keeps what was applied.
 */
export async function startTaskBoard({ port = 0, nodes = {}, holdApply = null, token = null, file = null } = {}) {
  const saved = file !== null && existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
  const board = new Map(Object.entries(saved?.nodes ?? nodes));
  const applies = saved?.applies ?? [];
  // The answer to each applied idempotency key, and the Applies answered from it.
  const answered = new Map(Object.entries(saved?.answered ?? {}));
  const repeats = saved?.repeats ?? [];
  const save = () => {
    if (file === null) return;
    writeFileSync(`${file}.tmp`, JSON.stringify({ nodes: Object.fromEntries(board), applies, answered: Object.fromEntries(answered), repeats }));
    renameSync(`${file}.tmp`, file);
  };
  // `handle.hold` may be set later, like `holdApply`.
  const handle = { hold: null };
  const server = createServer(async (request, response) => {
    const send = (status, value) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    try {
      if (token !== null && request.headers.authorization !== `Bearer ${token}`) return send(401, { message: "bad token" });
      if (request.method === "GET" && request.url === "/board") {
        return send(200, { nodes: Object.fromEntries(board), applies, repeats });
      }
      if (request.method === "POST" && request.url === "/preview") {
        const { node_id } = await body(request);
        if (!board.has(node_id)) return send(404, { message: `no node ${node_id}` });
        const current = board.get(node_id);
        return send(200, {
          current_status: current,
          valid_transitions: (TRANSITIONS[current] ?? []).map((status) => ({ status, label: status.replace("_", " ") })),
        });
      }
      if (request.method === "POST" && request.url === "/apply") {
        const applyRequest = await body(request);
        const { node_id, confirm_status, confirmation } = applyRequest;
        const key = request.headers["idempotency-key"] ?? null;
        if (key !== null && answered.has(key)) {
          repeats.push({ node_id, idempotency_key: key, confirmation_id: confirmation?.confirmation_id, at: Date.now() });
          save();
          return send(200, answered.get(key));
        }
        applies.push({ node_id, confirm_status, confirmation_id: confirmation?.confirmation_id, idempotency_key: key, at: Date.now() });
        const current = board.get(node_id);
        const allowed = TRANSITIONS[current] ?? [];
        if (!allowed.includes(confirm_status)) {
          return send(422, { applied: false, message: `${current} -> ${confirm_status} is not a valid transition` });
        }
        board.set(node_id, confirm_status);
        // Kept before the answer is sent: an answer lost on the way is given again to the same key.
        if (key !== null) answered.set(key, { applied: true, node_id, status: confirm_status });
        save();
        const hold = handle.hold ?? holdApply;
        let dropped = false;
        if (hold) {
          await hold(applyRequest, {
            drop() {
              dropped = true;
              request.socket.destroy();
            },
          });
        }
        if (dropped) return undefined;
        return send(200, { applied: true, node_id, status: confirm_status });
      }
      return send(404, { message: "no such route" });
    } catch (error) {
      if (!response.headersSent) send(400, { message: String(error?.message ?? error) });
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return Object.assign(handle, {
    url,
    board,
    applies,
    repeats,
    appliesFor: (confirmationId) => applies.filter((apply) => apply.confirmation_id === confirmationId).length,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  });
}

// `node examples/task-board.mjs [PORT]`: a board with a few tasks on 127.0.0.1 (default port 8788, the
// upstream that edge/service/wrangler.toml names).
if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8788);
  const nodes = { "task-1": "todo", "task-2": "in_progress", "task-3": "in_review" };
  const board = await startTaskBoard({ port, nodes });
  console.log(`task board on ${board.url} (GET /board)`);
}
