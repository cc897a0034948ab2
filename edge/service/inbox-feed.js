// The approval inbox's live feed: a ticket that opens it once, and the WebSocket (hibernation: the object may
// sleep while sockets stay open). Methods of the inbox's Durable Object, assigned to its prototype in inbox.js.
import { formatTime } from "agent-governor/guard";
import { HttpError, json } from "./http.js";

/** How long a feed ticket may wait to be used (once). */
const FEED_TICKET_TTL_MS = 60 * 1000;

export const feedMethods = {
  /** A ticket that opens the feed once, within a minute, with the caller's roles. */
  issueTicket(roles) {
    const ticket = `${crypto.randomUUID()}${crypto.randomUUID()}`.replace(/-/g, "");
    const now = Date.now();
    this.db.insertTicket(ticket, [...roles].join(","), now + FEED_TICKET_TTL_MS, now);
    return json({ ticket, expires_at: formatTime(now + FEED_TICKET_TTL_MS) }, 201);
  },

  /** The roles a ticket carries; it is used up whatever happens next. Unknown, used or expired: 401. */
  redeemTicket(ticket) {
    const roles = ticket && ticket.length <= 128 ? this.db.takeTicket(ticket, Date.now()) : null;
    if (roles === null) throw new HttpError(401, "invalid_ticket", "the feed ticket is unknown, used or expired: ask POST /v1/feed-tickets for another");
    return new Set(roles.split(",").filter(Boolean));
  },

  feed(request, roles) {
    requireUpgrade(request);
    if (![...roles].some((role) => ["agent", "inbox", "admin"].includes(role))) {
      throw new HttpError(403, "forbidden", "this ticket does not open the feed");
    }
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    server.send(JSON.stringify({ type: "hello", approvals: this.db.recentApprovals(50).map((row) => this.viewOf(row)), agents: this.db.agentStatuses() }));
    return new Response(null, { status: 101, webSocket: client });
  },

  webSocketMessage(socket, message) {
    if (message === "ping") socket.send("pong");
  },

  webSocketClose(socket, code) {
    try {
      socket.close(code === 1005 ? 1000 : code, "closing");
    } catch {
      // Already closed.
    }
  },
};

/** The feed is a WebSocket: anything else is a 426 before a ticket or a token is used. */
export function requireUpgrade(request) {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    throw new HttpError(426, "upgrade_required", "the feed is a WebSocket: send Upgrade: websocket");
  }
}
