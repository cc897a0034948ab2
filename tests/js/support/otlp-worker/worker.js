// A Worker that runs a control loop whose telemetry goes to OTLP_ENDPOINT through createOtlpExporter, and
// answers with the exporter's stats once it has sent what it had (the exporter in workerd, end to end).
import { createControlLoop, createOtlpExporter } from "agent-governor";

const NULLS = { action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null, setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null };

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== "/run") return new Response("ok");
    const exporter = createOtlpExporter({ endpoint: env.OTLP_ENDPOINT, serviceName: "worker-agent" });
    const loop = createControlLoop({
      goal: "keep the board tidy",
      judge: () => ({ structuredOutput: { ...NULLS, decision: "reply", reply: "The board is tidy." } }),
      telemetry: exporter.listener,
    });
    loop.say("Is the board tidy?");
    await loop.settled();
    await exporter.shutdown();
    return Response.json(exporter.stats());
  },
};
