// Hostile wire input through the TypeScript package: every case of
// `tests/hostile-wire.json` parsed with JSON.parse and decoded as its type
// (`decodeByName`), by method name (`decode<Side>Incoming...`) and through
// one end of a connection (a `line` case as the whole line it reads) (`connectAgent` / `connectClient`, whose answer
// or `dropped` report is checked), each giving the outcome the table states
// for TypeScript. Nothing may pollute a prototype: a `__proto__` member is
// kept as data, round-trips, and leaves the decoded object's prototype
// alone. Run by `cargo xtask test` on the default schema's bindings; the
// folder comes from `ACP_BINDINGS`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { jsonEqual, loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) {
  throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
}
const bindings = await loadBindings(folder);
const table = JSON.parse(readFileSync(new URL("../hostile-wire.json", import.meta.url), "utf8"));

/** The wire text of a case: its template with `@` filled (null for bytes, which JSON.parse never sees). */
function wire(caseEntry) {
  const { template, fill } = caseEntry.wire;
  const [before, after = ""] = template.split(/@(.*)/s);
  if (fill === null) return template;
  if (fill.nest !== undefined) return `${before}${"[".repeat(fill.nest)}1${"]".repeat(fill.nest)}${after}`;
  if (fill.string !== undefined) return `${before}"${fill.string.repeat(fill.times)}"${after}`;
  if (fill.text !== undefined) return `${before}${fill.text.repeat(fill.times ?? 1)}${after}`;
  return null;
}

function pointer(spec) {
  return typeof spec === "string" ? spec : spec.prefix + spec.repeat.repeat(spec.times);
}

/** What a value must re-encode to when accepted. */
function wanted(expected, input) {
  return expected.encodes === undefined ? input : JSON.parse(expected.encodes);
}

const side = {
  agent: {
    requests: bindings.decodeAgentIncomingRequest,
    notifications: bindings.decodeAgentIncomingNotification,
    connect: bindings.connectAgent,
  },
  client: {
    requests: bindings.decodeClientIncomingRequest,
    notifications: bindings.decodeClientIncomingNotification,
    connect: bindings.connectClient,
  },
};

/** An implementation of both sides that records the params it is called with and answers each request with a valid result. */
function recorder(seen) {
  return {
    initialize: () => ({ protocolVersion: 1 }),
    sessionNew: () => ({ sessionId: "s" }),
    sessionPrompt: (params) => {
      seen.push(params);
      return { stopReason: "end_turn" };
    },
    sessionRequestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    sessionUpdate: (params) => {
      seen.push(params);
    },
    terminalCreate: (params) => {
      seen.push(params);
      return { terminalId: "t" };
    },
  };
}

/** The `initialize` an agent's end gets before a case's message (id 0), unless the case says `initialized: false`. */
const INITIALIZE = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}';

/**
 * Sends the case's text as the params of one message to a connection end of
 * its side, an agent's end after `initialize` unless the case says
 * otherwise; what the end answered (besides the answer to `initialize`),
 * reported and handled.
 */
async function throughConnection(caseEntry, text) {
  const sent = [];
  const dropped = [];
  const seen = [];
  let wake = () => {};
  const written = async (count) => {
    while (sent.length < count) await new Promise((resolve) => (wake = resolve));
  };
  const end = side[caseEntry.side].connect(
    () => recorder(seen),
    (message) => {
      sent.push(JSON.parse(message));
      wake();
    },
    { dropped: (report) => dropped.push(report) },
  );
  const line = caseEntry.line === true;
  if (caseEntry.side === "agent" && caseEntry.initialized !== false && !line) {
    await end.receive(INITIALIZE);
    await written(1);
    sent.length = 0;
  }
  const request = caseEntry.kind === "request";
  const envelope = `{"jsonrpc":"2.0",${request ? '"id":7,' : ""}"method":${JSON.stringify(caseEntry.method)},"params":${text}}`;
  await end.receive(line ? text : envelope);
  if (request || line) await written(1);
  return { sent, dropped, seen };
}

async function checkConnection(caseEntry, expected, text, input) {
  const name = caseEntry.name;
  const connection = expected.connection;
  assert.ok(connection !== undefined, `${name}: the table gives no connection outcome`);
  const { sent, dropped, seen } = await throughConnection(caseEntry, text);
  const errors = [
    ...sent.filter((message) => message.error !== undefined).map((message) => message.error),
    ...dropped.map((report) => report.error),
  ];
  if (connection.code === null) {
    assert.deepEqual(errors, [], `${name}: an error for a message the handler should get`);
    assert.equal(seen.length, 1, `${name}: the handler was not called`);
    assert.ok(jsonEqual(bindings.encode(seen[0]), wanted(expected, input)), `${name}: the handler got another value`);
    return;
  }
  assert.equal(seen.length, 0, `${name}: the handler was called`);
  assert.equal(errors.length, 1, `${name}: ${JSON.stringify(errors)}`);
  assert.equal(errors[0].code, connection.code, `${name}: ${errors[0].message}`);
  if (connection.pointer !== undefined) assert.equal(errors[0].data.pointer, pointer(connection.pointer), name);
  if (caseEntry.kind === "request") assert.equal(sent[0].id, 7, `${name}: the answer names the request`);
}

async function check(caseEntry) {
  const name = caseEntry.name;
  const expected = caseEntry.expect.typescript;
  // A whole line states only what a connection does with it.
  if (caseEntry.line === true) {
    await checkConnection(caseEntry, expected, wire(caseEntry));
    return;
  }
  if (expected.outcome === "not-applicable") {
    assert.equal(wire(caseEntry), null, `${name}: a case TypeScript can read is not applicable`);
    assert.ok(expected.why.length > 0, name);
    return;
  }
  const text = wire(caseEntry);
  const input = JSON.parse(text);
  const decoded = bindings.decodeByName(caseEntry.type, input);
  const call = side[caseEntry.side][`${caseEntry.kind}s`](caseEntry.method, input);
  switch (expected.outcome) {
    case "accepted": {
      assert.ok(decoded.ok, `${name}: ${JSON.stringify(decoded.issues)}`);
      assert.ok(
        jsonEqual(bindings.encode(decoded.value), wanted(expected, input)),
        `${name}: re-encoded to something else`,
      );
      if (caseEntry.wire.exact === true)
        assert.ok(
          JSON.stringify(bindings.encode(decoded.value)).includes(caseEntry.wire.fill.text),
          `${name}: not written back as it came`,
        );
      assert.ok(call.ok, `${name}: by method, ${JSON.stringify(call.error)}`);
      assert.ok(
        jsonEqual(bindings.encode(call.value.params), wanted(expected, input)),
        `${name}: by method, another value`,
      );
      break;
    }
    case "error": {
      assert.equal(decoded.ok, false, `${name}: decoded`);
      assert.equal(decoded.issues[0].path, pointer(expected.pointer), `${name}: ${decoded.issues[0].message}`);
      assert.equal(call.ok, false, `${name}: decoded by method`);
      assert.equal(call.error.code, -32602, name);
      assert.equal(call.error.data.pointer, pointer(expected.pointer), name);
      break;
    }
    case "extension": {
      assert.ok(call.ok, `${name}: by method, ${JSON.stringify(call.error)}`);
      assert.equal(call.value.method, caseEntry.method, name);
      assert.ok(jsonEqual(call.value.params, input), `${name}: the extension's params are not the input`);
      break;
    }
    case "method-not-found": {
      assert.equal(call.ok, false, `${name}: decoded by method`);
      assert.equal(call.error.code, -32601, name);
      break;
    }
    default:
      assert.fail(`${name}: no outcome ${expected.outcome} for TypeScript`);
  }
  await checkConnection(caseEntry, expected, text, input);
}

test("the table's depth limit is the one the decoders enforce", () => {
  const nest = (depth) => JSON.parse("[".repeat(depth) + "]".repeat(depth));
  assert.ok(bindings.decodeByName("ExtRequest", nest(table.maxDepth)).ok);
  const deeper = bindings.decodeByName("ExtRequest", nest(table.maxDepth + 1));
  assert.equal(deeper.ok, false);
  assert.equal(deeper.issues[0].path, "/0".repeat(table.maxDepth));
});

for (const caseEntry of table.cases) {
  test(`hostile wire: ${caseEntry.name} (${caseEntry.about})`, async () => {
    await check(caseEntry);
    assert.equal({}.polluted, undefined, "Object.prototype was polluted");
    assert.equal(Object.prototype.polluted, undefined, "Object.prototype was polluted");
  });
}

test("a __proto__ member is kept as data, round-trips and leaves the prototype alone", () => {
  const caseEntry = table.cases.find((entry) => entry.name === "proto_member");
  const input = JSON.parse(wire(caseEntry));
  const decoded = bindings.decodeByName("SessionNotification", input);
  assert.ok(decoded.ok);
  for (const value of [decoded.value, decoded.value.update]) {
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.ok(Object.hasOwn(value, "__proto__"), "kept as an own member");
    assert.deepEqual(Object.getOwnPropertyDescriptor(value, "__proto__").value, { polluted: true });
    assert.equal(value.polluted, undefined, "its members are not inherited");
  }
  const text = JSON.stringify(bindings.encode(decoded.value));
  assert.equal(text.match(/"__proto__"/g)?.length, 2, `both written out: ${text}`);
  const again = bindings.decodeByName("SessionNotification", JSON.parse(text));
  assert.ok(again.ok && jsonEqual(again.value, decoded.value), "round-trips");
  const meta = bindings.decodeByName(
    "SessionNotification",
    JSON.parse(wire(table.cases.find((entry) => entry.name === "proto_and_constructor_untyped"))),
  );
  assert.ok(meta.ok);
  assert.equal(Object.getPrototypeOf(meta.value._meta), Object.prototype);
  assert.equal(meta.value._meta.constructor.prototype.polluted, true, "`constructor` is a plain member");
  assert.equal({}.polluted, undefined);
});
