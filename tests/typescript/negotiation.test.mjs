// Capability negotiation on the initialize pairs of `tests/negotiation.json`
// (`cargo xtask test` writes this schema's entry to
// `<bindings>/negotiation.json`): every view as the table expects, the typed
// errors, every outgoing check passing and refused, accessors agreeing with
// the document. The compact JSON of each view goes to
// `<bindings>/negotiation-typescript.txt`, which `cargo xtask test` compares
// byte for byte with the other languages'.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) {
  throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
}
const bindings = await loadBindings(folder);
const cases = JSON.parse(readFileSync(join(folder, "negotiation.json"), "utf8"));

function booleans(document) {
  const found = new Map();
  for (const [key, value] of Object.entries(document)) {
    if (typeof value === "object" && value !== null) {
      for (const [name, flag] of Object.entries(value)) {
        found.set(`${key}/${name}`, flag);
      }
    } else if (typeof value === "boolean") {
      found.set(key, value);
    }
  }
  return found;
}

const negotiated = (pair) => bindings.negotiate(pair.request, pair.response);

test("every view is as the table says and is written for comparison", () => {
  assert.ok(cases.views.length > 0, "the table has views for this schema");
  const lines = [];
  for (const view of cases.views) {
    const pair = cases.pairs[view.pair];
    const result = negotiated(pair);
    const document = result.toJSON();
    assert.equal(document.protocolVersion, view.protocolVersion);
    assert.equal(result.protocolVersion, view.protocolVersion);
    const flags = booleans(document);
    for (const path of [...view.true, ...view.false]) {
      assert.ok(flags.has(path), `${view.pair}: the view has no ${path}`);
    }
    for (const [path, flag] of flags) {
      const expected = view.true.includes(path) ? true : view.false.includes(path) ? false : view.others;
      assert.equal(flag, expected, `${view.pair}: ${path} is ${flag}`);
    }
    for (const [method, flag] of Object.entries(document.agentHandles)) {
      assert.equal(result.agentHandles(method), flag);
    }
    for (const [method, flag] of Object.entries(document.clientHandles)) {
      assert.equal(result.clientHandles(method), flag);
    }
    assert.equal(result.agentHandles("no/such_method") || result.clientHandles("no/such_method"), false);
    for (const section of ["prompt", "mcp", "updates", "elicitation"]) {
      for (const [name, flag] of Object.entries(document[section])) {
        assert.equal(result.allows(section, name), flag);
      }
    }
    assert.deepEqual(
      [result.sessionReady, result.turnComplete, result.sessionStatus],
      [document.sessionReady, document.turnComplete, document.sessionStatus],
    );
    const decodedRequest = bindings.decodeInitializeRequest(pair.request);
    const decodedResponse = bindings.decodeInitializeResponse(pair.response);
    assert.ok(decodedRequest.ok && decodedResponse.ok);
    assert.equal(
      JSON.stringify(bindings.negotiate(decodedRequest.value, decodedResponse.value)),
      JSON.stringify(result),
      "decoded values negotiate as their JSON does",
    );
    lines.push(`${view.pair}\t${JSON.stringify(result)}`);
  }
  writeFileSync(join(folder, "negotiation-typescript.txt"), `${lines.join("\n")}\n`);
});

test("bad pairs fail with typed errors", () => {
  assert.ok(cases.errors.length > 0);
  for (const pair of cases.errors) {
    const expected = pair.error === "decode" ? bindings.DecodeError : bindings.NegotiationError;
    assert.throws(
      () => negotiated(pair),
      (error) => error instanceof expected && (pair.error === "decode" || error.kind === pair.error),
      pair.name,
    );
  }
});

function refusals(pair, messages) {
  assert.ok(messages.length > 0);
  const allowed = negotiated(cases.pairs.all);
  const refused = negotiated(pair);
  for (const message of messages) {
    assert.equal(allowed.checkOutgoing(message.method, message.params), null, message.method);
    const error = refused.checkOutgoing(message.method, message.params);
    assert.ok(error instanceof bindings.CapabilityError, JSON.stringify(message));
    assert.deepEqual(
      [error.method, error.pointer, error.capability, error.side],
      [message.method, message.pointer, message.capability, message.side],
    );
  }
}

test("outgoing messages pass when advertised and are refused when not", () =>
  refusals(cases.pairs.none, cases.outgoing));

test("parts of allowed methods are refused when not advertised", () => {
  assert.ok(cases.partial.length > 0);
  for (const partial of cases.partial) {
    refusals(partial.pair, partial.outgoing);
  }
});

test("the README's example: a client negotiates, asks, and checks a prompt before sending it", () => {
  const request = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } };
  const response = { protocolVersion: 1, agentCapabilities: { promptCapabilities: { image: true } } };
  if (bindings.PROTOCOL_VERSION !== 1) {
    assert.throws(() => bindings.negotiate(request, response), "v1 messages do not negotiate with v2 bindings");
    return;
  }
  const negotiated = bindings.negotiate(request, response);
  assert.ok(negotiated.clientHandles("fs/read_text_file"));
  assert.ok(!negotiated.agentHandles("session/load"));
  const prompt = { sessionId: "s1", prompt: [{ type: "audio", data: "", mimeType: "audio/wav" }] };
  const refused = negotiated.checkOutgoing("session/prompt", prompt);
  assert.equal(refused?.pointer, "/prompt/0");
  assert.equal(refused?.capability, "/agentCapabilities/promptCapabilities/audio");
  const view = JSON.stringify(negotiated, null, 2);
  assert.ok(view.includes('"image": true'));
});
