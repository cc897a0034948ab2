// A tool call as a change a person approves: the core's canonical arguments are RFC 8785's, byte for byte
// (checked against `canonicalize`, the scheme's reference implementation, over many generated values); a
// confirmation of one call passes the guard for exactly those arguments, in any member order, and for no
// other value or tool.
import assert from "node:assert/strict";
import { test } from "node:test";
import canonicalize from "canonicalize";
import { Guard, changeLines, issueConfirmation, requestFor, toolCallChange } from "agent-governor";
import { xorshift } from "./support/xorshift.mjs";

function generator(seed) {
  const { next, pick } = xorshift(seed);
  const KEYS = ["a", "b", "", "é", "\u00e9", "e\u0301", "\ue000", "😀", "\u007f", "A", "10", "2", "to", "cc", "\"", "\\", "\n"];
  const NUMBERS = [0, -0, 1, -1, 0.1, 12.5, 1e21, 1e20, 1.5e-7, 1e-6, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 60, 1.7976931348623157e308, 4.35, 333333333.3333333, 123e-20];
  const STRINGS = ["", "bob", "hi <b>", "\u2028\u2029", "\u0000\u001f", "日本語", "😀", "\"\\/", "\ud83d\ude00x", "a\tb"];
  const value = (depth) => {
    const roll = next();
    if (depth > 3 || roll < 0.45) return pick([null, true, false, pick(NUMBERS), pick(STRINGS), pick(NUMBERS) * (next() < 0.5 ? -1 : 1)]);
    if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return object(depth + 1);
  };
  const object = (depth) => Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [pick(KEYS), value(depth)]));
  return { object };
}

test("the canonical arguments are RFC 8785's for generated arguments: key order, numbers, escapes", () => {
  const r = generator(8785);
  for (let i = 0; i < 2000; i++) {
    const args = r.object(0);
    assert.equal(toolCallChange("tool", args).proposed_change.to, canonicalize(args), `case ${i}: ${JSON.stringify(args)}`);
  }
});

test("every finite double is canonicalised to itself: the number the person approves is the number the tool gets", () => {
  const bits = new BigUint64Array(1);
  const view = new Float64Array(bits.buffer);
  const { next } = xorshift(20261127);
  const samples = [9.999999999999997e-7, 0.30000000000000004, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 9007199254740993, -1e-7, 1e21];
  for (let i = 0; i < 20_000; i++) {
    bits[0] = (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32));
    if (Number.isFinite(view[0])) samples.push(view[0]);
  }
  for (const number of samples) {
    const { proposed_change } = toolCallChange("t", { x: number });
    assert.equal(proposed_change.to, JSON.stringify({ x: number }), String(number));
    assert.equal(JSON.parse(proposed_change.to).x, number === 0 ? 0 : number);
  }
});

test("only JSON crosses into an approval: what JSON would change is refused with the field's path", () => {
  class Point { constructor() { this.x = 1; } }
  const withGetter = Object.defineProperty({}, "to", { get: () => "bob@example.com", enumerable: true });
  const hidden = Object.defineProperty({ a: 1 }, "b", { value: 2, enumerable: false });
  const cycle = { a: {} };
  cycle.a.self = cycle;
  const cases = [
    [{ amount: NaN }, "arguments.amount", /NaN/],
    [{ amount: Infinity }, "arguments.amount", /Infinity/],
    [{ amount: -Infinity }, "arguments.amount", /Infinity/],
    [{ cc: undefined }, "arguments.cc", /undefined/],
    [{ list: [1, , 3] }, "arguments.list[1]", /hole/],
    [{ list: [1, undefined] }, "arguments.list[1]", /undefined|not JSON/],
    [{ when: new Date(0) }, "arguments.when", /Date/],
    [{ set: new Map([["a", 1]]) }, "arguments.set", /Map/],
    [{ set: new Set([1]) }, "arguments.set", /Set/],
    [{ point: new Point() }, "arguments.point", /Point/],
    [{ big: 10n }, "arguments.big", /bigint|not JSON/],
    [{ run: () => 1 }, "arguments.run", /function|not JSON/],
    [{ s: Symbol("s") }, "arguments.s", /symbol|not JSON/],
    [{ [Symbol("k")]: 1 }, "arguments", /symbol key/],
    [withGetter, "arguments.to", /getter/],
    [hidden, "arguments.b", /enumerable/],
    [{ toJSON: () => ({}) }, "arguments.toJSON", /toJSON/],
    [cycle, null, /nested|itself/],
    [{ text: "a\uD800b" }, "arguments.text", /lone surrogate/],
    [new Point(), "arguments", /Point/],
  ];
  for (const [args, path, message] of cases) {
    assert.throws(
      () => toolCallChange("send_email", args),
      (error) => error.name === "AgentGovernorError" && error.code === "invalid_input" && (path === null || error.path === path) && message.test(error.message),
      `${path}: ${message}`,
    );
  }
  // JSON data of any shape is read as it is.
  const data = { a: [1, "x", null, true, { b: -0.5 }], "": {}, nested: Object.assign(Object.create(null), { k: [] }) };
  assert.deepEqual(JSON.parse(toolCallChange("t", data).proposed_change.to), JSON.parse(JSON.stringify(data)));
});

test("any value either round-trips through JSON exactly and is accepted, or is refused; what is approved is what runs", () => {
  const { next, pick } = xorshift(39);
  const leaves = [0, -0, 1.5, -1e-7, 1e21, NaN, Infinity, "", "日本語", "a\uD800", true, false, null, undefined, 10n, new Date(0), new Map(), () => 1, Symbol("x")];
  const value = (depth) => {
    const roll = next();
    if (depth > 3 || roll < 0.4) return pick(leaves);
    if (roll < 0.7) {
      const array = Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      if (next() < 0.1) array.length += 1; // a hole
      return array;
    }
    const object = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) object[pick(["a", "b", "toJSON", "__proto__x", "k"])] = value(depth + 1);
    return object;
  };
  // Exactly JSON: JSON.parse(JSON.stringify(v)) is v (a -0 is written 0, as RFC 8785 does).
  const exact = (v) => {
    if (v === null || typeof v === "boolean" || typeof v === "string") return typeof v !== "string" || v.isWellFormed();
    if (typeof v === "number") return Number.isFinite(v);
    if (Array.isArray(v)) return Object.keys(v).length === v.length && v.every(exact);
    if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) return !Object.hasOwn(v, "toJSON") && Object.values(v).every(exact);
    return false;
  };
  let accepted = 0;
  for (let i = 0; i < 3_000; i++) {
    const args = { v: value(0) };
    let change;
    try {
      change = toolCallChange("t", args);
    } catch (error) {
      assert.equal(error.code, "invalid_input", error.message);
      assert.ok(!exact(args), `refused JSON data: ${error.message}`);
      continue;
    }
    accepted += 1;
    assert.ok(exact(args), `accepted what JSON would change: ${change.proposed_change.to}`);
    // The person's lines and the tool's arguments come from the same text, equal to the caller's value.
    const shown = changeLines(change.node_id, change.proposed_change)[0];
    assert.ok(shown.endsWith(change.proposed_change.to), shown);
    assert.deepEqual(JSON.parse(change.proposed_change.to), JSON.parse(JSON.stringify(args)));
  }
  assert.ok(accepted > 300, `only ${accepted} accepted: the generator should make plenty of JSON data`);
});

test("a confirmation of a tool call passes for exactly its arguments, in any order, and for nothing else", () => {
  const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-tools" };
  const guard = new Guard({ keys: { [signer.keyId]: signer.secret } });
  const { node_id, proposed_change } = toolCallChange("send_email", { to: "bob@example.com", subject: "Q3", cc: [] });
  const confirmation = issueConfirmation({ node_id, proposed_change, intent: "send the report", reason: "asked by alice", ui_action: "approve_button" }, signer);
  // The request an agent makes for the call it wants to run: the confirmation's id, and this call's node and
  // canonical arguments as what it applies.
  const check = (tool, args) => {
    const change = toolCallChange(tool, args);
    const request = requestFor(confirmation);
    request.apply_request = { ...request.apply_request, node_id: change.node_id, confirm_status: change.proposed_change.to };
    const verdict = guard.check(confirmation, request, { currentStatus: "" });
    return verdict.verdict === "pass" ? "pass" : verdict.phase;
  };
  assert.equal(check("send_email", { cc: [], subject: "Q3", to: "bob@example.com" }), "pass");
  assert.equal(check("send_email", { cc: [], subject: "Q3", to: "eve@example.com" }), "change_mismatch");
  assert.equal(check("send_email", { cc: [], subject: "Q3", to: "bob@example.com", bcc: "eve" }), "change_mismatch");
  assert.equal(check("delete_all", { cc: [], subject: "Q3", to: "bob@example.com" }), "node_mismatch");
  assert.deepEqual(changeLines(node_id, proposed_change), [
    'Execute: tool send_email with {"cc":[],"subject":"Q3","to":"bob@example.com"}',
    "Impact: send_email",
  ]);
});

test("a tool name or arguments of the wrong kind is a typed error", () => {
  for (const tool of ["", "two words", "bell\u0007", "n".repeat(129)]) {
    assert.throws(() => toolCallChange(tool, {}), (error) => error.code === "invalid_input" && error.path === "tool", JSON.stringify(tool));
  }
  for (const args of [[], "x", null, 1, new Date()]) {
    assert.throws(() => toolCallChange("t", args), (error) => error.code === "invalid_input" && error.path === "arguments", String(args));
  }
  assert.throws(() => toolCallChange("t", { big: "x".repeat(1 << 20) }), (error) => error.code === "invalid_input");
});
