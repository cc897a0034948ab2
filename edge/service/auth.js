// Who is calling: agents and the inbox present bearer tokens from the worker's secrets; approvers are
// not authenticated by a token at all: their signatures are checked on every decision. An agent's token may be
// bound to its agent id (`AGENT_TOKENS="board-agent=<token>,..."`): it then acts for that agent only.

const encoder = new TextEncoder();

function tokens(value) {
  return (value ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
}

const digest = (text) => crypto.subtle.digest("SHA-256", encoder.encode(text));

/** `id=token` binds an agent token to one agent id; a plain token acts for any agent. */
function agentToken(entry) {
  const match = /^([A-Za-z0-9._:-]{1,64})=(.+)$/.exec(entry);
  return match ? { token: match[2], agentId: match[1] } : { token: entry, agentId: null };
}

// The configured tokens' digests, computed once per isolate (the secrets do not change while it lives).
let configuredDigests = null;
async function configured(env) {
  configuredDigests ??= Promise.all(
    [["agent", env.AGENT_TOKENS], ["inbox", env.INBOX_TOKEN], ["admin", env.ADMIN_TOKEN]].map(async ([role, value]) => [
      role,
      await Promise.all(
        tokens(value).map(async (entry) => {
          const { token, agentId } = role === "agent" ? agentToken(entry) : { token: entry, agentId: null };
          return { digest: await digest(token), agentId };
        }),
      ),
    ]),
  );
  return configuredDigests;
}

/**
 * The roles of the bearer token in the request's Authorization header, the only place a token is read: a
 * token in a URL ends up in logs. (A browser's WebSocket cannot set headers: it opens the feed with a
 * short-lived, single-use ticket from `POST /v1/feed-tickets` instead.)
 */
export async function rolesOf(request, env) {
  const header = request.headers.get("authorization") ?? "";
  // The scheme name is case-insensitive (RFC 9110 11.1): `bearer`, `Bearer` and `BEARER` alike.
  const scheme = /^bearer[ \t]+/i.exec(header);
  const presented = scheme ? header.slice(scheme[0].length).trim() : "";
  if (presented === "") return new Set();
  // Digests compared in constant time, so the comparison takes the same time whatever the lengths.
  const given = await digest(presented);
  const roles = new Set();
  for (const [role, entries] of await configured(env)) {
    let found = null;
    for (const expected of entries) if (crypto.subtle.timingSafeEqual(given, expected.digest)) found = expected;
    if (found) {
      roles.add(role);
      // A bound agent token also names its agent: `agent:<id>`.
      if (found.agentId) roles.add(`agent:${found.agentId}`);
    }
  }
  return roles;
}
