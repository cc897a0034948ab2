// The upstream skills the Executor applies through, one base URL per change type (SKILLS, a JSON object).
// Preview is `POST {url}/preview {node_id}` -> PreviewResult; Apply is `POST {url}/apply` with the
// ApplyRequest (the whole signed confirmation attached, so the skill can verify it itself) and its action's
// `Idempotency-Key`.

const UPSTREAM_TIMEOUT_MS = 30_000;

export function readSkillUrls(env) {
  let urls;
  try {
    urls = JSON.parse(env.SKILLS ?? "{}");
  } catch {
    throw new Error("SKILLS must be a JSON object { [change type]: base URL }");
  }
  if (urls === null || typeof urls !== "object" || Array.isArray(urls)) {
    throw new Error("SKILLS must be a JSON object { [change type]: base URL }");
  }
  for (const [type, url] of Object.entries(urls)) {
    if (typeof url !== "string" || !/^https?:\/\//.test(url)) throw new Error(`SKILLS.${type} must be an http(s) URL`);
  }
  return urls;
}

function headersFor(env) {
  const headers = { "content-type": "application/json" };
  if (env.SKILL_TOKEN) headers.authorization = `Bearer ${env.SKILL_TOKEN}`;
  return headers;
}

export function upstreamSkill(baseUrl, env) {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    async preview(nodeId) {
      const response = await fetch(`${base}/preview`, {
        method: "POST",
        headers: headersFor(env),
        body: JSON.stringify({ node_id: nodeId }),
        signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`the skill's preview answered HTTP ${response.status}`);
      return await response.json();
    },
    // A network failure or a timeout throws: the Apply's outcome is unknown, so the confirmation stays
    // in_flight for a human to reconcile. Never retried.
    // The action's idempotency key, the same on every attempt of one approval's action, so an upstream
    // that honours `Idempotency-Key` applies it once even if this guard's record were lost.
    async apply(applyRequest) {
      const key = applyRequest.idempotency_key;
      const response = await fetch(`${base}/apply`, {
        method: "POST",
        headers: { ...headersFor(env), ...(typeof key === "string" && key !== "" ? { "idempotency-key": key } : {}) },
        body: JSON.stringify(applyRequest),
        signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      });
      let body = null;
      try {
        body = await response.json();
      } catch {
        body = null;
      }
      return { status: response.status, body };
    },
  };
}
