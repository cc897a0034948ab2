// Who is calling: agents and the inbox present bearer tokens from the worker's secrets; approvers are
// not authenticated by a token at all: their signatures are checked on every decision.

const encoder = new TextEncoder();

function tokens(value) {
  return (value ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
}

async function same(a, b) {
  // Compare digests so the comparison takes the same time whatever the lengths.
  const [left, right] = await Promise.all([a, b].map((text) => crypto.subtle.digest("SHA-256", encoder.encode(text))));
  return crypto.subtle.timingSafeEqual(left, right);
}

async function matchesAny(presented, configured) {
  let found = false;
  for (const token of tokens(configured)) if (await same(presented, token)) found = true;
  return found;
}

/** The roles of the bearer token in the request (Authorization header, or `access_token` for a WebSocket). */
export async function rolesOf(request, env) {
  const url = new URL(request.url);
  const header = request.headers.get("authorization") ?? "";
  const presented = header.startsWith("Bearer ") ? header.slice(7).trim() : url.searchParams.get("access_token") ?? "";
  if (presented === "") return new Set();
  const roles = new Set();
  if (await matchesAny(presented, env.AGENT_TOKENS)) roles.add("agent");
  if (await matchesAny(presented, env.INBOX_TOKEN)) roles.add("inbox");
  if (await matchesAny(presented, env.ADMIN_TOKEN)) roles.add("admin");
  return roles;
}
