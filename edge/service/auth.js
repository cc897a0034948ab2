// Who is calling: agents and the inbox present bearer tokens from the worker's secrets; approvers are
// not authenticated by a token at all: their signatures are checked on every decision.

const encoder = new TextEncoder();

function tokens(value) {
  return (value ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
}

const digest = (text) => crypto.subtle.digest("SHA-256", encoder.encode(text));

// The configured tokens' digests, computed once per isolate (the secrets do not change while it lives).
let configuredDigests = null;
async function configured(env) {
  configuredDigests ??= Promise.all(
    [["agent", env.AGENT_TOKENS], ["inbox", env.INBOX_TOKEN], ["admin", env.ADMIN_TOKEN]].map(async ([role, value]) => [
      role,
      await Promise.all(tokens(value).map(digest)),
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
  for (const [role, digests] of await configured(env)) {
    let found = false;
    for (const expected of digests) if (crypto.subtle.timingSafeEqual(given, expected)) found = true;
    if (found) roles.add(role);
  }
  return roles;
}
