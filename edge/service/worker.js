// The edge guard service: the HTTP API of the approval inbox, on workerd. The worker authenticates bearer
// tokens and forwards each request to the inbox's Durable Object, which does everything else.
//
// One Durable Object per inbox (INBOX_NAME, default "default"): the approvals, the approvers' keys, the
// confirmation store and the audit trail of an inbox live in one SQLite database, so the compare-and-swap
// that makes an Apply happen once, the list the inbox shows and its live feed are all consistent without
// any cross-object protocol. An inbox is one team's queue of agent actions awaiting people; more traffic
// than one object serves is split by running more inboxes (one per team or tenant).
import { DEFAULT_MAX_BODY_BYTES, errorResponse, json, pathSegments, readBody } from "./http.js";
import { ApprovalInbox, ROLES_HEADER } from "./inbox.js";
import { rolesOf } from "./auth.js";

export { ApprovalInbox };

const ROUTES = [
  "POST /v1/proposals",
  "GET /v1/approvals?state=&limit=",
  "GET /v1/approvals/{id}",
  "POST /v1/approvals/{id}/decision",
  "POST /v1/approvals/{id}/cancel",
  "POST /v1/approvals/{id}/reconcile",
  "GET /v1/approvals/{id}/preview",
  "POST /v1/apply",
  "POST /v1/feed-tickets",
  "GET /v1/feed?ticket= (WebSocket)",
  "GET /v1/audit?approval_id=&limit=",
  "GET /v1/keys",
  "POST /v1/enrollments",
  "POST /v1/approvers/{approver}/keys",
  "GET /v1/approvers/{approver}/keys",
  "DELETE /v1/approvers/{approver}/keys/{key_id}",
  "GET /v1/receipts?since=&limit=",
  "GET /v1/receipts/key",
  "GET /v1/agents",
  "GET|PUT /v1/agents/{agent_id}/status",
  "GET /v1/agents/{agent_id}/commands?since=&untaken=",
  "POST /v1/agents/{agent_id}/commands",
  "POST /v1/agents/{agent_id}/commands/{seq} (taken)",
  "POST /v1/discord/interactions (signed by Discord)",
  "POST /v1/mcp (MCP over Streamable HTTP)",
];

export default {
  async fetch(request, env) {
    try {
      const url = new URL(request.url);
      if (url.pathname === "/" && request.method === "GET") {
        return json({ service: "agent-governor edge guard", routes: ROUTES });
      }
      // A malformed path is refused before a body is read or a token looked at.
      pathSegments(url.pathname);
      const hasBody = request.method !== "GET" && request.method !== "HEAD";
      const body = hasBody ? await readBody(request, Number(env.MAX_BODY_BYTES ?? DEFAULT_MAX_BODY_BYTES)) : null;
      const roles = await rolesOf(request, env);
      // The roles header is the worker's alone: whatever a client sent under that name is replaced.
      const headers = new Headers(request.headers);
      headers.set(ROLES_HEADER, [...roles].join(","));
      headers.delete("content-length");
      const inbox = env.INBOX.get(env.INBOX.idFromName(env.INBOX_NAME ?? "default"));
      return await inbox.fetch(new Request(request.url, { method: request.method, headers, body }));
    } catch (error) {
      return errorResponse(error);
    }
  },
};
