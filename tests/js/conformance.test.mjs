// Public conformance suites through the built package, from the pinned copies in tests/fixtures/conformance/
// (sources, commits and licences in the README there): JSONTestSuite through the edge service's body reader,
// Wycheproof ECDSA P-256 through the host's WebCrypto as the guard asks it, RFC 8785 through the canonical
// arguments of a tool call, RFC 3339 through `parseTime` and the approver's check. The native side of each
// suite is in tests/conformance_*.rs. Each deviation from a suite is stated with its reason, and the set of
// deviating cases must be exactly the stated one.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { passkeyChallenge } from "agent-governor/approver";
import { Guard, confirmationChallenge, issueConfirmation, parseTime, readJson, requestFor, toolCallChange } from "agent-governor/guard";
import { MAX_BODY_DEPTH } from "../../edge/service/http.js";

const fixtures = fileURLToPath(new URL("../fixtures/conformance/", import.meta.url));
const fixture = (path) => readFileSync(join(fixtures, path));
const bytes = (hex) => Buffer.from(hex, "hex");
const base64url = (data) => Buffer.from(data).toString("base64url");

/** Asserts that the cases of `outcomes` (name -> true when as the suite says) deviate exactly as `stated`. */
function assertDeviations(outcomes, stated, suite) {
  const deviating = [...outcomes].filter(([, asSaid]) => !asSaid).map(([name]) => name).sort();
  assert.deepEqual(deviating, Object.keys(stated).sort(), `${suite}: the deviations are exactly the stated ones`);
  return outcomes.size - deviating.length;
}

describe("JSONTestSuite through the edge service's body reader", () => {
  /** A body as edge/service/http.js reads it: UTF-8 (`fatal`, a leading BOM dropped), then `readJson`. */
  function readBody(data) {
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(data);
    } catch {
      return "refused: not UTF-8";
    }
    try {
      readJson(text, MAX_BODY_DEPTH);
      return "accepted";
    } catch (error) {
      assert.equal(error.name, "AgentGovernorError", error.stack);
      assert.ok(["invalid_json", "duplicate_key", "too_deep"].includes(error.code), error.code);
      return `refused: ${error.code}`;
    }
  }

  /** `y_` files the project refuses, with the reason. */
  const Y_REFUSED = {
    "y_object_duplicated_key.json": "a key twice in one object is refused (`duplicate_key`), never resolved to one of its values",
    "y_object_duplicated_key_and_value.json": "a key twice in one object is refused (`duplicate_key`), even with equal values",
  };
  const syntax = "refused: invalid_json";
  const notUtf8 = "refused: not UTF-8";
  /** The outcome of every `i_` file (left to the implementation by the suite). */
  const I_OUTCOMES = {
    // Past a double's precision: the nearest double; past its range towards zero: 0; away from zero: refused.
    "i_number_double_huge_neg_exp.json": "accepted",
    "i_number_real_underflow.json": "accepted",
    "i_number_too_big_neg_int.json": "accepted",
    "i_number_too_big_pos_int.json": "accepted",
    "i_number_very_big_negative_int.json": "accepted",
    "i_number_huge_exp.json": syntax,
    "i_number_neg_int_huge_exp.json": syntax,
    "i_number_pos_double_huge_exp.json": syntax,
    "i_number_real_neg_overflow.json": syntax,
    "i_number_real_pos_overflow.json": syntax,
    // An escaped lone surrogate has no UTF-8 form: refused.
    "i_object_key_lone_2nd_surrogate.json": syntax,
    "i_string_1st_surrogate_but_2nd_missing.json": syntax,
    "i_string_1st_valid_surrogate_2nd_invalid.json": syntax,
    "i_string_incomplete_surrogate_and_escape_valid.json": syntax,
    "i_string_incomplete_surrogate_pair.json": syntax,
    "i_string_incomplete_surrogates_escape_valid.json": syntax,
    "i_string_invalid_lonely_surrogate.json": syntax,
    "i_string_invalid_surrogate.json": syntax,
    "i_string_inverted_surrogates_U+1D11E.json": syntax,
    "i_string_lone_second_surrogate.json": syntax,
    // Bytes that are not UTF-8 never become a body.
    "i_string_UTF-16LE_with_BOM.json": notUtf8,
    "i_string_UTF-8_invalid_sequence.json": notUtf8,
    "i_string_UTF8_surrogate_U+D800.json": notUtf8,
    "i_string_invalid_utf-8.json": notUtf8,
    "i_string_iso_latin_1.json": notUtf8,
    "i_string_lone_utf8_continuation_byte.json": notUtf8,
    "i_string_not_in_unicode_range.json": notUtf8,
    "i_string_overlong_sequence_2_bytes.json": notUtf8,
    "i_string_overlong_sequence_6_bytes.json": notUtf8,
    "i_string_overlong_sequence_6_bytes_null.json": notUtf8,
    "i_string_truncated-utf-8.json": notUtf8,
    "i_string_utf16BE_no_BOM.json": notUtf8,
    "i_string_utf16LE_no_BOM.json": notUtf8,
    // Deeper than the service's 32 levels.
    "i_structure_500_nested_arrays.json": "refused: too_deep",
    // The service's decoding drops a UTF-8 byte order mark (the native readers, given the bytes, refuse it).
    "i_structure_UTF-8_BOM_empty_object.json": "accepted",
  };

  test("every n_ file is refused with a typed error, every y_ file accepted but the stated ones, every i_ file as stated", () => {
    const names = readdirSync(join(fixtures, "jsontestsuite/test_parsing")).sort();
    assert.equal(names.length, 318);
    const outcomes = new Map();
    for (const name of names) {
      const started = performance.now();
      const outcome = readBody(fixture(`jsontestsuite/test_parsing/${name}`));
      assert.ok(performance.now() - started < 1000, `${name} took ${performance.now() - started} ms`);
      if (name.startsWith("n_")) outcomes.set(name, outcome.startsWith("refused: "));
      else if (name.startsWith("y_")) outcomes.set(name, outcome === "accepted");
      else if (name.startsWith("i_")) assert.equal(outcome, I_OUTCOMES[name], name);
      else assert.fail(`${name} is not a test_parsing file`);
      if (name in Y_REFUSED) assert.equal(outcome, "refused: duplicate_key", name);
    }
    assert.equal(Object.keys(I_OUTCOMES).length, names.filter((name) => name.startsWith("i_")).length);
    assert.equal(assertDeviations(outcomes, Y_REFUSED, "JSONTestSuite"), 281); // 93 y_ accepted, 188 n_ refused
  });
});

describe("Wycheproof ECDSA P-256 through the host's WebCrypto, as the guard asks it", () => {
  const RP_ID = "approvals.example";
  const ORIGIN = "https://approvals.example";
  const hmac = { keyId: "server", secret: "0123456789abcdef0123456789abcdef-conformance" };
  const subtle = globalThis.crypto.subtle;
  let serial = 0;

  /** A passkey approval under key `keyId` whose assertion carries `signature` (DER) over anything but this. */
  function approvalWith(keyId, signature) {
    serial += 1;
    const draft = { node_id: `wycheproof-${serial}`, proposed_change: { type: "status_change", from: "todo", to: "done" }, intent: "i", reason: "r", ui_action: "passkey" };
    const unsigned = { ...issueConfirmation(draft, hmac), key_id: keyId, signature: null };
    const clientData = JSON.stringify({ type: "webauthn.get", challenge: base64url(confirmationChallenge(unsigned, keyId)), origin: ORIGIN, crossOrigin: false });
    const authenticatorData = Buffer.concat([createHash("sha256").update(RP_ID).digest(), Buffer.from([0x05, 0, 0, 0, 1])]);
    return { ...unsigned, assertion: { authenticator_data: base64url(authenticatorData), client_data_json: base64url(clientData), signature: base64url(signature) } };
  }

  function guardFor(publicKeyDer) {
    const key = { type: "webauthn", algorithm: -7, public_key: base64url(bytes(publicKeyDer)), rp_id: RP_ID, origins: [ORIGIN] };
    return new Guard({ keys: { wycheproof: key, [hmac.keyId]: hmac.secret } });
  }

  /** What the guard hands the host while checking `approval` (the host answers "not verified"). */
  async function hostRequests(guard, approval) {
    const { importKey, verify } = subtle;
    const imports = [];
    const verifications = [];
    subtle.importKey = (...args) => (imports.push(args), importKey.apply(subtle, args));
    subtle.verify = (...args) => (verifications.push(args), Promise.resolve(false));
    try {
      const verdict = await guard.checkAsync(approval, requestFor(approval), { currentStatus: "todo" });
      // The signature never signs this approval: whatever the host is asked, the module refuses it.
      assert.equal(verdict.phase, "signature_invalid");
    } finally {
      Object.assign(subtle, { importKey, verify });
    }
    return { imports, verifications };
  }

  function vectors(file) {
    const suite = JSON.parse(fixture(`wycheproof/${file}`));
    const all = suite.testGroups.flatMap((group) => group.tests.map((test) => ({ group, test })));
    assert.equal(all.length, suite.numberOfTests);
    for (const { test } of all) assert.ok(["valid", "invalid"].includes(test.result), `tcId ${test.tcId}: ${test.result} needs a stated decision`);
    return all;
  }

  test("DER vectors: the core's DER reading and the host's verification accept exactly the valid ones", async () => {
    const outcomes = new Map();
    const guards = new Map();
    for (const { group, test } of vectors("ecdsa_secp256r1_sha256_test.json")) {
      if (!guards.has(group)) guards.set(group, guardFor(group.publicKeyDer));
      const { verifications } = await hostRequests(guards.get(group), approvalWith("wycheproof", bytes(test.sig)));
      // Asked (the core read the DER signature as r || s): the host's answer for the vector's message decides.
      // Not asked: the core refused the encoding, and its own verifier (tests/conformance_signatures.rs) decides.
      assert.ok(verifications.length <= 1);
      let verified = false;
      if (verifications.length === 1) {
        const [algorithm, key, signature] = verifications[0];
        verified = await subtle.verify(algorithm, key, signature, bytes(test.msg)).catch(() => false);
      }
      outcomes.set(test.tcId, verified === (test.result === "valid"));
    }
    assert.equal(assertDeviations(outcomes, {}, "ECDSA P-256 DER"), 484);
  });

  test("P1363 vectors: the host verifies with the key format and algorithms the guard uses, exactly the valid ones", async () => {
    // The parameters the guard passes to the host, as it passes them.
    const { group, test: vector } = vectors("ecdsa_secp256r1_sha256_test.json")[0];
    const { imports, verifications } = await hostRequests(guardFor(group.publicKeyDer), approvalWith("wycheproof", bytes(vector.sig)));
    assert.equal(imports.length, 1);
    assert.equal(verifications.length, 1);
    const [format, , importAlgorithm, , usages] = imports[0];
    const [verifyAlgorithm] = verifications[0];
    assert.deepEqual([format, { ...importAlgorithm }, usages, { ...verifyAlgorithm }], ["raw", { name: "ECDSA", namedCurve: "P-256" }, ["verify"], { name: "ECDSA", hash: "SHA-256" }]);
    const outcomes = new Map();
    for (const { group: keyGroup, test } of vectors("ecdsa_secp256r1_sha256_p1363_test.json")) {
      const key = await subtle.importKey(format, bytes(keyGroup.publicKey.uncompressed), importAlgorithm, false, usages);
      const verified = await subtle.verify(verifyAlgorithm, key, bytes(test.sig), bytes(test.msg)).catch(() => false);
      outcomes.set(test.tcId, verified === (test.result === "valid"));
    }
    assert.equal(assertDeviations(outcomes, {}, "ECDSA P-256 P1363"), 262);
  });
});

describe("RFC 8785 through a tool call's canonical arguments", () => {
  const FILES = ["arrays", "french", "structures", "unicode", "values", "weird"];
  /** Arguments as the edge service reads a proposed tool call's (edge/service/proposal.js), canonicalised. */
  const canonical = (text) => toolCallChange("t", { v: readJson(text, 64) }).proposed_change.to.slice('{"v":'.length, -1);

  test("every input file is canonicalised to its output file byte for byte", () => {
    for (const name of FILES) {
      const input = fixture(`json-canonicalization/testdata/input/${name}.json`).toString("utf8");
      const output = fixture(`json-canonicalization/testdata/output/${name}.json`);
      const outhex = Buffer.from(fixture(`json-canonicalization/testdata/outhex/${name}.txt`).toString().split(/\s+/).join(""), "hex");
      assert.deepEqual(Buffer.from(canonical(input)), output, name);
      assert.deepEqual(Buffer.from(canonical(input)), outhex, `${name} (outhex)`);
      const value = readJson(input, 64);
      if (!Array.isArray(value)) assert.deepEqual(Buffer.from(toolCallChange("t", value).proposed_change.to), output, `${name} as the arguments`);
    }
  });

  /**
   * The reference's deterministic number sequence: ported from testdata/numgen.js (Copyright 2006-2021
   * WebPKI.org, Apache License 2.0), whose table of static values is read from the pinned file itself.
   */
  function* numberSequence() {
    const table = fixture("json-canonicalization/testdata/numgen.js").toString().split("staticU64s = new BigUint64Array([")[1].split("])")[0];
    const statics = table.split(",").map((item) => item.trim()).filter(Boolean).map((item) => BigInt(item.slice(0, -1)));
    assert.equal(statics.length, 168);
    const bits = new BigUint64Array(1);
    const view = new Float64Array(bits.buffer);
    for (const value of statics) yield ((bits[0] = value), view[0]);
    for (let i = 0n; i < 2000n; i++) yield ((bits[0] = 0x0010000000000000n + i), view[0]);
    let block = Buffer.alloc(32);
    for (;;) {
      block = createHash("sha256").update(block).digest();
      for (let i = 0; i < 4; i++) {
        const value = block.readDoubleLE(i * 8);
        if (value !== 0 && Number.isFinite(value)) yield value;
      }
    }
  }

  /** The number written with 17 significant digits (not its canonical text), read and canonicalised. */
  const canonicalNumber = (number) => canonical(`[${number.toExponential(16)}]`).slice(1, -1);

  test("the first 100,000 numbers hash to the published checksums; 9.999999999999997e-7 is written exactly", () => {
    const published = new Map([
      [1_000, "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687"],
      [10_000, "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892"],
      [100_000, "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7"],
    ]);
    const hash = createHash("sha256");
    const bits = new BigUint64Array(1);
    const view = new Float64Array(bits.buffer);
    let lines = 0;
    for (const number of numberSequence()) {
      view[0] = number;
      hash.update(`${bits[0].toString(16)},${canonicalNumber(number)}\n`);
      lines += 1;
      if (published.has(lines)) assert.equal(hash.copy().digest("hex"), published.get(lines), `the first ${lines} lines`);
      if (lines === 100_000) break;
    }
    bits[0] = 0x3eb0c6f7a0b5ed8cn;
    assert.equal(canonicalNumber(view[0]), "9.999999999999997e-7");
    assert.equal(canonical("[9.999999999999997e-7]"), "[9.999999999999997e-7]");
  });
});

describe("RFC 3339 through parseTime and the approver's check", () => {
  const { cases } = JSON.parse(fixture("rfc3339/cases.json"));
  /** RFC-valid timestamps the core refuses, with the reason. */
  const LOWER_CASE = "one strict form: the RFC allows a lower-case `t` and `z` (NOTE in 5.6); the guard reads only `T` (or a space) and `Z`";
  const REFUSED = { "1985-04-12t23:20:50.52Z": LOWER_CASE, "1985-04-12T23:20:50.52z": LOWER_CASE };
  /** Leap seconds, which the RFC gives no Unix time: read as the last millisecond of their UTC day. */
  const LEAP_SECONDS = { "1990-12-31T23:59:60Z": 662687999999, "1990-12-31T15:59:60-08:00": 662687999999 };

  const core = (text) => {
    try {
      return parseTime(text);
    } catch (error) {
      assert.equal(error.code, "invalid_time", `${text}: ${error.message}`);
      return null;
    }
  };

  test("every case is read as the RFC says, but for the stated deviations", () => {
    const outcomes = new Map();
    for (const { text, rfc3339, millis } of cases) {
      const read = core(text);
      if (rfc3339 === "invalid") outcomes.set(text, read === null);
      else outcomes.set(text, read === (millis ?? LEAP_SECONDS[text]));
    }
    assert.equal(assertDeviations(outcomes, REFUSED, "RFC 3339"), 43);
    for (const text of Object.keys(REFUSED)) assert.equal(core(text), null);
  });

  test("the approver never signs a time the core refuses; it refuses the stated times the core reads", async () => {
    /** Times the core reads that the approver's check (js/approver/canonical.js) refuses, and why. */
    const APPROVER_REFUSES = {
      "1990-12-31T23:59:60Z": "its check allows seconds 00-59 only: no leap second",
      "1990-12-31T15:59:60-08:00": "its check allows seconds 00-59 only: no leap second",
      "1985-04-12T23:20:50.1234567891Z": "its check allows at most nine fraction digits",
    };
    const base = issueConfirmation({ node_id: "n", proposed_change: { type: "status_change", from: "a", to: "b" }, intent: "i", reason: "r", ui_action: "y" }, { keyId: "k", secret: "0123456789abcdef0123456789abcdef-approver" });
    const outcomes = new Map();
    for (const { text } of cases) {
      const signs = await passkeyChallenge({ ...base, confirmed_at: text }, "k").then(
        () => true,
        (error) => (assert.equal(error.path, "confirmation.confirmed_at", error.message), false),
      );
      const reads = core(text) !== null;
      assert.ok(!signs || reads, `the approver signs ${text}, which the core refuses`);
      outcomes.set(text, signs === reads);
    }
    assertDeviations(outcomes, APPROVER_REFUSES, "the approver's time check");
  });
});
