// The benchmark's baseline: a worker that forwards an Apply to the upstream skill with no guard at all
// (no token, no signature, no state); `/v1/preview-and-apply` makes the same two upstream calls as a guarded
// Apply (Preview, then Apply). The edge guard is measured against it in bench/edge.bench.mjs.
export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && pathname === "/") return Response.json({ service: "passthrough" });
    if (request.method !== "POST" || !["/v1/apply", "/v1/preview-and-apply"].includes(pathname)) {
      return Response.json({ code: "not_found" }, { status: 404 });
    }
    const body = await request.text();
    // The same upstream work as a guarded Apply (Preview, then Apply), without the guard.
    if (pathname === "/v1/preview-and-apply") {
      const preview = await fetch(`${env.UPSTREAM}/preview`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ node_id: JSON.parse(body).node_id }),
      });
      await preview.arrayBuffer();
    }
    const upstream = await fetch(`${env.UPSTREAM}/apply`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return new Response(upstream.body, { status: upstream.status, headers: { "content-type": "application/json" } });
  },
};
