// The edge guard's API as the inbox uses it, through the local server (same origin), which adds the inbox's
// bearer token: the page never holds it. Every answer is `{ status, body }`; errors are `{ code, message, path }`.

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let json = null;
  try {
    json = await response.json();
  } catch {
    json = { code: "unreadable", message: `HTTP ${response.status}`, path: "" };
  }
  return { status: response.status, body: json };
}

export const guardApi = {
  mandates: () => call("GET", "/v1/mandates"),
  decisionMetrics: () => call("GET", "/v1/decision-metrics?days=7"),
  previewMandate: (mandate) => call("POST", "/v1/mandates/preview", { mandate }),
  createMandate: (mandate) => call("POST", "/v1/mandates", { mandate }),
  revokeMandate: (id, action) => call("POST", `/v1/mandates/${encodeURIComponent(id)}/revoke`, { action }),
  approvals: (state) => call("GET", `/v1/approvals?limit=100${state ? `&state=${state}` : ""}`),
  /** The page of approvals created before `beforeMs` (the history's older ones). */
  olderApprovals: (beforeMs) => call("GET", `/v1/approvals?limit=100&before=${encodeURIComponent(beforeMs)}`),
  audit: () => call("GET", "/v1/audit?limit=200"),
  keys: () => call("GET", "/v1/keys"),
  decide: (id, body) => call("POST", `/v1/approvals/${encodeURIComponent(id)}/decision`, body),
  cancel: (id, action) => call("POST", `/v1/approvals/${encodeURIComponent(id)}/cancel`, { action }),
  preview: (id) => call("GET", `/v1/approvals/${encodeURIComponent(id)}/preview`),
  reconfirm: (id, to) => call("POST", `/v1/approvals/${encodeURIComponent(id)}/reconfirm`, { to }),
  /** A person's edit of a pending proposal (`{ to }`, or `{ arguments }` for a tool call): a new approval to sign. */
  edit: (id, body) => call("POST", `/v1/approvals/${encodeURIComponent(id)}/edit`, body),
  /** What a tool call may be edited to: `{ tool, input_schema, arguments }`. */
  editOptions: (id) => call("GET", `/v1/approvals/${encodeURIComponent(id)}/edit`),
  /** Only for an approval the person picked after a reconfirm: the guard refuses the inbox any other. */
  apply: (executorRequest) => call("POST", "/v1/apply", executorRequest),
  reconcile: (id, action) => call("POST", `/v1/approvals/${encodeURIComponent(id)}/reconcile`, { action }),
  /** First-run registration on this machine: the local server asks the guard for a one-time code. */
  enrollment: (approver) => call("POST", "/inbox/enrollment", { approver }),
  registerKey: (approver, body) => call("POST", `/v1/approvers/${encodeURIComponent(approver)}/keys`, body),
  revokeKey: (approver, keyId, action) =>
    call("DELETE", `/v1/approvers/${encodeURIComponent(approver)}/keys/${encodeURIComponent(keyId)}`, { action }),
  renameKey: (approver, keyId, action) =>
    call("POST", `/v1/approvers/${encodeURIComponent(approver)}/keys/${encodeURIComponent(keyId)}`, { action }),
  approverKeys: (approver) => call("GET", `/v1/approvers/${encodeURIComponent(approver)}/keys`),
  agents: () => call("GET", "/v1/agents"),
  /** This guard's enrollments: the version an invitation names, and whether anyone approves yet. */
  enrollments: () => call("GET", "/v1/enrollments"),
  /** An admin's signed invitation: a one-time enrollment code for `approver`. */
  invite: (body) => call("POST", "/v1/enrollments", body),
  commands: (agent) => call("GET", `/v1/agents/${encodeURIComponent(agent)}/commands`),
  sendCommand: (agent, action) => call("POST", `/v1/agents/${encodeURIComponent(agent)}/commands`, { action }),
};

/**
 * The feed: `handlers.approval(view)` for each change of an approval, `handlers.agent(status)` for an agent's
 * presence, `handlers.command(command)` for a privileged command, `handlers.connection("open" | "closed")`
 * each time the feed opens or closes; reconnects after a drop, every 2 seconds.
 */
export function followFeed(handlers, onOpen) {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/feed`;
  const socket = new WebSocket(url);
  socket.addEventListener("open", () => {
    handlers.connection?.("open");
    onOpen?.();
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "approval") handlers.approval?.(message.approval);
    else if (message.type === "agent_status") handlers.agent?.(message.status);
    else if (message.type === "command") handlers.command?.(message.command);
    else if (message.type === "hello") for (const status of message.agents ?? []) handlers.agent?.(status);
  });
  socket.addEventListener("close", () => {
    handlers.connection?.("closed");
    setTimeout(() => followFeed(handlers, onOpen), 2000);
  });
  return socket;
}
