// Compiled with `tsc --noEmit --strict`: the shipped declarations describe the API a TypeScript user sees.
import {
  Playbook,
  createGovernor,
  type DeltaReport,
  type ReflectionResult,
  Watcher,
  pickWatcherPersona,
  personaCatalog,
  type ProtocolResult,
  type WatcherOutput,
  Closer,
  CloserCompletionHandler,
  openAICompatible,
  type CloserResult,
  type QueryFn,
  Executor,
  MemoryStore,
  checkConfirmation,
  issueConfirmation,
  requestFor,
  saveConfirmation,
  type AgentGovernorError,
  type BatchResult,
  type CheckVerdict,
  type Confirmation,
  type ConfirmationStore,
  type ExecutorRequest,
  type ExecutorResult,
  type ExecutorSkill,
  type Phase,
} from "agent-governor";
import { Guard, type GuardCheckOptions, type GuardSetup } from "agent-governor/guard";

const skill: ExecutorSkill = {
  preview: async (nodeId: string) => ({ current_status: nodeId.length > 0 ? "todo" : "unknown" }),
  apply: async (request) => {
    const source: "ai_agent" | "human_ui" = request.source;
    return { status: source === "ai_agent" ? 200 : 500, body: { applied: true } };
  },
};

const store: ConfirmationStore = new MemoryStore();
const confirmation: Confirmation = issueConfirmation(
  {
    node_id: "node-1",
    proposed_change: { type: "status_change", from: "todo", to: "done" },
    intent: "finished",
    reason: "checked",
    ui_action: "approve_button",
  },
  { keyId: "k", secret: "0123456789abcdef0123456789abcdef" },
);

export async function run(): Promise<string> {
  await saveConfirmation(store, confirmation);
  const executor = new Executor({ store, skill, keys: { k: "0123456789abcdef0123456789abcdef" }, now: () => Date.now() });
  const request: ExecutorRequest = requestFor(confirmation);
  const result: ExecutorResult = await executor.execute(request);
  const phase: Phase | undefined = result.rejection?.phase;
  const batch: BatchResult = await executor.executeBatch([request]);
  const verdict: CheckVerdict = checkConfirmation({ confirmation, request, now: Date.now(), keys: { k: "x" } });
  const described = verdict.verdict === "rejected" ? verdict.phase : verdict.verdict;
  try {
    await executor.execute(request);
  } catch (error) {
    const typed = error as AgentGovernorError;
    return `${typed.code} ${typed.path}`;
  }
  return `${result.outcome} ${phase ?? ""} ${batch.applied.length} ${described} ${result.applied?.consumed_at ?? ""}`;
}

export async function checkCompletion(): Promise<boolean> {
  const query: QueryFn = openAICompatible({ baseUrl: "http://127.0.0.1:8081/v1", model: "smollm2-135m-instruct" });
  const closer = new Closer({ workingDir: "/repo", agentId: "iterator", logger: console, loadPrompt: () => null });
  const result: CloserResult = await closer.check(
    { structuredOutput: { done: true }, stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" } },
    query,
  );
  const handler = closer.completionHandler({ stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" } });
  await handler.checkCompletion({ structuredOutput: result.output as unknown as Record<string, unknown> }, query);
  const pending: string[] = result.output.pendingActions ?? [];
  return result.complete && (await handler.isComplete()) && handler.complete && pending.length === 0 && result.promptStatus !== "Fallback";
}

export async function review(): Promise<string> {
  const executorPersona = personaCatalog()[0];
  const pick = pickWatcherPersona(executorPersona);
  if (!pick) return "no persona";
  const watcher = new Watcher({ agentId: "w", store: new MemoryStore(), language: "ja" });
  const query: QueryFn = () => ({ text: "{}" });
  const output: WatcherOutput = await watcher.inspect(
    {
      executor_result: { status: "done", artifacts: ["a.md"], execution_log: "", persona_applied: executorPersona.name },
      original_request: "design it",
      persona: pick.persona,
      executor_persona: executorPersona,
    },
    query,
  );
  const protocol: ProtocolResult = await watcher.runProtocol(
    { executor_result: null, original_request: "x", persona: null, executor_persona: null },
    query,
    (issues, round) => ({ status: "done", artifacts: issues.slice(0, round), execution_log: "", persona_applied: null }),
  );
  return `${output.pass} ${pick.report.score} ${protocol.escalation?.to ?? "agreed"}`;
}

export async function learn(): Promise<string> {
  const store = new MemoryStore();
  const governor = createGovernor({ llm: () => ({ structuredOutput: { insights: [], bullet_evaluations: [] } }), store });
  const result: ReflectionResult = await governor
    .reflector({ rounds: 2, earlyStop: true })
    .reflect({ query: "q", generated_result: "r", reasoning_steps: [], used_bullet_ids: [] }, "truth", "report", "default");
  const playbook = await Playbook.load(store, "default");
  playbook.applyReflection(result);
  const report: DeltaReport = playbook.applyDeltas(playbook.curate("r-1", result.insights));
  playbook.enforceBudget({ maxChars: 4000 });
  await playbook.save(store, "default");
  return `${report.applied.length} ${playbook.version} ${playbook.render().length} ${result.error ?? ""}`;
}

// The guard module: its own declarations, the same data types.
const guardSetup: GuardSetup = { keys: { approver: "0123456789abcdef0123456789abcdef" }, clockSkewMs: 1000, language: "ja" };
const guard = new Guard(guardSetup);
const guardOptions: GuardCheckOptions = { now: Date.now(), currentStatus: "todo" };
export function guardVerdict(confirmation: Confirmation | null, request: ExecutorRequest): CheckVerdict["verdict"] {
  return guard.check(confirmation, request, guardOptions).verdict;
}

// Approver-held keys: a public key verifies, the private key stays in the host's WebCrypto.
import {
  generateApproverKey as generateGuardApproverKey,
  signAction,
  verifyReceipts,
  changeLines,
  parseTime,
  formatTime,
  readJson,
  stateVersion,
  type ChainVerdict,
  signConfirmation,
  passkeyChallenge,
  passkeyPublicKey,
  type ActionVerdict,
  type HumanAction,
  type PasskeyAssertion,
  type PublicKeySpec,
} from "agent-governor/guard";

export async function approveWithOwnKey(draft: Confirmation): Promise<Confirmation> {
  const key = await generateGuardApproverKey({ keyId: "alice-1" });
  const spec: PublicKeySpec = key.publicKey;
  const verifier = new Guard({ keys: { [key.keyId]: spec } });
  const signed = await signConfirmation(draft, key);
  const verdict: CheckVerdict = verifier.check(signed, { confirmation_id: signed.confirmation_id, apply_request: { node_id: signed.node_id, confirm_status: signed.proposed_change.to, intent: signed.intent, reason: signed.reason } });
  const decline: HumanAction = await signAction({ action: "decline", approval_id: signed.confirmation_id, version: "v-1", detail: "no", at: new Date().toISOString(), key_id: null }, key);
  const checked: ActionVerdict = verifier.checkAction(decline, { version: "v-1", now: Date.now() });
  const nonce: string = decline.nonce;
  const chain: ChainVerdict = verifyReceipts([], key.publicKey);
  const lines: [string, string] = changeLines("T-1", { type: "status_change", from: "todo", to: "done" });
  const instant: number = parseTime(formatTime(Date.now()));
  const body: unknown = readJson("{}", 8);
  void [nonce, chain, lines, instant, body, stateVersion("{}")];
  if (checked.verdict === "pass") {
    const count: number | null = checked.sign_count;
    void count;
  }
  const challenge: Uint8Array = await passkeyChallenge(draft, "alice-passkey");
  const passkey: PublicKeySpec = passkeyPublicKey({} as PublicKeyCredential, { rpId: "localhost", origins: ["http://localhost:8080"] });
  const assertion: PasskeyAssertion | undefined = signed.assertion ?? undefined;
  void [verdict, challenge, passkey, assertion];
  return signed;
}

import {
  createControlLoop,
  type ApprovalRequest,
  type ControlLoopStatus,
  type ControlState,
  type HaltKind,
  type ReconcileRequest,
  type Renderer,
} from "agent-governor";

export async function governedAgent(saved: ControlState | undefined): Promise<HaltKind | null> {
  const renderers: Record<string, Renderer> = { send_mail: { execute: "send {subject} to {to}", impact: "the mailbox of {to}" } };
  const shown: ApprovalRequest[] = [];
  const loop = createControlLoop({
    goal: "keep the board tidy",
    judge: () => ({ structuredOutput: { decision: "wait" } }),
    renderers,
    state: saved,
    skills: { status_change: skill, send_mail: (action) => ({ succeeded: action.lines[0].length > 0 }) },
    storage: { save: async (state: ControlState) => void state, loadRules: async () => null },
    approve: (request: ApprovalRequest) => {
      shown.push(request);
      const note: string | null = request.note;
      const digest: string = request.digest;
      void [note, digest];
    },
    reconcile: (request: ReconcileRequest) => (request.lines[0].startsWith("Execute:") ? "not_applied" : undefined),
    maxInvalidAnswers: 5,
  });
  const first = shown[0];
  if (first) loop.answer("y", first.requestId);
  // A person's words with a decline, an edit before the y, and a reply that decides nothing.
  if (first) loop.decline(first.requestId, "not before Friday");
  if (first) loop.approveEdited(first.requestId, { node_id: "T-2", from: "todo", to: "done" });
  loop.reply("the release is on Friday");
  const declines: string[] = (loop.state().declined ?? []).map((declined) => declined.reason ?? "(no reason)");
  const unread: string[] = loop.state().unread_replies ?? [];
  void [declines, unread];
  // An approve port may answer with the person's words or their edit.
  const withWords = createControlLoop({
    goal: "g",
    judge: () => ({ structuredOutput: { decision: "wait" } }),
    approve: (request: ApprovalRequest) => (request.lines[0].includes("T-1") ? { decline: "wrong ticket" } : { edited: { node_id: "T-2" } }),
  });
  void withWords;
  loop.reconcile("a-1-0", "applied");
  await loop.settled({ timeoutMs: 1000 });
  const status: ControlLoopStatus = loop.status();
  await loop.stop({ timeoutMs: 1000 });
  return status.halt?.kind ?? null;
}

import { createOtlpExporter, type OtlpExporter, type OtlpExporterStats } from "agent-governor";

export async function tracedAgent(): Promise<OtlpExporterStats> {
  // The host's fetch is the exporter's port as it is.
  const exporter: OtlpExporter = createOtlpExporter({ endpoint: "http://localhost:4318/v1/traces", fetch, headers: { authorization: "Bearer k" } });
  const loop = createControlLoop({ goal: "g", judge: () => ({ structuredOutput: { decision: "wait" } }), telemetry: exporter.listener });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  await exporter.flush();
  await exporter.shutdown();
  const stats = exporter.stats();
  const failed: number = stats.dropped.exportFailed + stats.dropped.queueFull;
  void failed;
  return stats;
}
