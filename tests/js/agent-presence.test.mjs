// The agent's presence reporter (examples/agent/agent-presence.mjs): one report at a time and the newest wins, the time a
// state began kept while it lasts, text cut to what the guard keeps (never a report the guard would refuse), and
// the board change in words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { boardChange, presenceReporter } from "../../examples/agent/agent-presence.mjs";

test("reports: newest wins, since_ms kept while the state lasts, long text cut to the guard's limits", async () => {
  const sent = [];
  let clock = 1000;
  let release;
  const reporter = presenceReporter({
    send: async (status) => {
      sent.push(structuredClone(status));
      if (sent.length === 1) await new Promise((resolve) => (release = resolve));
    },
    now: () => clock,
  });
  const first = reporter.set("judging", { step: "deciding the next action" });
  clock = 2000;
  reporter.set("judging", { step: "deciding the next action", goal: "a" });
  reporter.set("waiting", { approval_id: "x", what: "w".repeat(5000), goal: "g".repeat(9000), halt: { kind: "declined", reason: "r".repeat(3000) } });
  release();
  await first;
  assert.equal(sent.length, 2, "the report in between was superseded, never queued");
  assert.equal(sent[0].since_ms, 1000);
  assert.equal(sent[0].sent_at_ms, 1000, "each report says when it was sent, by the agent's clock");
  const last = sent.at(-1);
  assert.equal(last.state, "waiting");
  assert.equal(last.since_ms, 2000);
  assert.equal(last.what.length, 1000);
  assert.equal(last.goal.length, 4000);
  assert.equal(last.halt.reason.length, 1000);
  assert.ok(last.what.endsWith("…"));
  // The same state and step keep their start; a report identical to the last is not sent again.
  clock = 3000;
  await reporter.set("waiting", { approval_id: "x", what: "w".repeat(5000), goal: "g".repeat(9000), halt: { kind: "declined", reason: "r".repeat(3000) } });
  assert.equal(sent.length, 2);
});

test("a failing delivery is retried with the next change, never thrown", async () => {
  let fail = true;
  const sent = [];
  const reporter = presenceReporter({
    send: async (status) => {
      if (fail) throw new Error("guard unreachable");
      sent.push(status.state);
    },
  });
  await reporter.set("observing");
  fail = false;
  await reporter.set("judging");
  assert.deepEqual(sent, ["judging"]);
});

test("the board change in words", () => {
  assert.equal(boardChange(null, { a: "todo" }), "first look: 1 task");
  assert.equal(boardChange(null, { a: "todo", b: "done" }), "first look: 2 tasks");
  assert.equal(boardChange({ a: "todo", c: "done" }, { a: "in_progress", b: "todo" }), "a: todo → in_progress, b added (todo), c removed");
  assert.equal(boardChange({ a: "todo" }, { a: "todo" }), "no change");
});
