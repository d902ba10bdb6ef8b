// The RFD helpers of the TypeScript package on every scenario of
// `tests/helpers.json`: the session-ready gate, the turn tracker fed
// `session/update` params decoded with `decodeSessionNotification`, and
// `nextStep` on a negotiated view, each deciding as the table says (the
// Rust and Python helpers run the same table). Also: each helper built from
// a negotiated initialize pair follows the capability. Run by `cargo xtask
// test` on the default schema's bindings; the folder comes from
// `ACP_BINDINGS`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) {
  throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
}
const bindings = await loadBindings(folder);
const table = JSON.parse(readFileSync(new URL("../helpers.json", import.meta.url), "utf8"));

/** A negotiated view with the given features, from a v1 initialize pair. */
function negotiated({ sessionReady = false, turnComplete = false, sessionStatus = false, load = false }) {
  const sessionCapabilities = {};
  if (sessionReady) sessionCapabilities.ready = {};
  if (turnComplete) sessionCapabilities.turnComplete = {};
  if (sessionStatus) sessionCapabilities.status = {};
  return bindings.negotiate(
    { protocolVersion: 1, clientCapabilities: {} },
    { protocolVersion: 1, agentCapabilities: { loadSession: load, sessionCapabilities } },
  );
}

function runGate(setup, steps) {
  const gate = bindings.SessionReadyGate.fromNegotiated(negotiated(setup));
  assert.equal(gate.required, setup.sessionReady);
  const checked = [];
  for (const [index, step] of steps.entries()) {
    let got;
    if ("responded" in step) {
      gate.responded(step.responded, step.now);
      continue;
    } else if ("send" in step) got = gate.send(step.send, step.item, step.now);
    else if ("ready" in step) got = gate.ready(step.ready);
    else if ("closed" in step) got = gate.closed(step.closed);
    else if ("expire" in step) got = gate.expire(step.expire, step.timeout);
    else throw new Error(`unknown gate step ${JSON.stringify(step)}`);
    checked.push([index, got, step.expect]);
  }
  return checked;
}

function runTurns(setup, steps) {
  const tracker = bindings.TurnTracker.fromNegotiated(negotiated(setup));
  assert.equal(tracker.turnComplete, setup.turnComplete);
  const checked = [];
  for (const [index, step] of steps.entries()) {
    let got;
    if ("prompt" in step) {
      tracker.prompt(step.prompt.session, step.prompt.request);
      assert.deepEqual(tracker.pending(step.prompt.session), step.prompt.request);
      continue;
    } else if ("update" in step) {
      const decoded = bindings.decodeSessionNotification(step.update);
      assert.ok(decoded.ok, JSON.stringify(decoded));
      got = tracker.update(decoded.value);
    } else if ("response" in step) got = tracker.response(step.response.request, step.response.stopReason);
    else throw new Error(`unknown turn step ${JSON.stringify(step)}`);
    checked.push([index, got, step.expect]);
  }
  return checked;
}

function runStatus(setup, steps) {
  const view = negotiated(setup);
  return steps.map((step, index) => [index, bindings.nextStep(view, step.status), step.expect]);
}

const RUNNERS = { gate: runGate, turns: runTurns, status: runStatus };

// The scenarios of other schemas run on their bindings (`helpers-v2.test.mjs`).
for (const scenario of table.scenarios.filter((candidate) => candidate.schema === undefined)) {
  test(`${scenario.helper}: ${scenario.name}`, () => {
    const checked = RUNNERS[scenario.helper](scenario.setup, scenario.steps);
    assert.ok(checked.length > 0, "a scenario checks something");
    for (const [index, got, expected] of checked) {
      assert.deepEqual(JSON.parse(JSON.stringify(got)), expected, `step ${index}`);
    }
  });
}

// The helpers as an agent and a client use them: seed 000's early
// `available_commands_update` held until `session/ready`, seed 004's late
// chunk reported.
test("an agent and a client use the helpers", () => {
  const request = { protocolVersion: 1, clientCapabilities: {} };
  const response = { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { ready: {}, turnComplete: {} } } };
  const negotiated = bindings.negotiate(request, response);

  const gate = bindings.SessionReadyGate.fromNegotiated(negotiated);
  gate.responded("sess_1", Date.now());
  assert.deepEqual(gate.send("sess_1", "available_commands_update", Date.now()), []);
  assert.deepEqual(gate.ready("sess_1"), ["available_commands_update"]);

  const turns = bindings.TurnTracker.fromNegotiated(negotiated);
  turns.prompt("sess_1", 2);
  const done = {
    sessionId: "sess_1",
    update: { sessionUpdate: "turn_complete", promptRequestId: 2, stopReason: "end_turn" },
  };
  assert.deepEqual(turns.update(done).violations, []);
  assert.equal(turns.response(2, "end_turn").drained, 2);
  const late = {
    sessionId: "sess_1",
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } },
  };
  const [violation] = turns.update(late).violations;
  assert.deepEqual([violation.rule, violation.kind], ["R4", "update_after_response"]);

  assert.equal(bindings.nextStep(negotiated, "live"), "not_negotiated");
});

/**
 * An agent's end and a client's end wired to each other, each message
 * delivered in order on a later turn of the event loop; `log` keeps every
 * message with its direction. `settle` waits until nothing is in flight.
 */
function wired(agentCapabilities, onNewSession) {
  const log = [];
  let inFlight = 0;
  const deliver = (direction, end) => (text) => {
    log.push([direction, JSON.parse(text)]);
    inFlight += 1;
    setImmediate(() =>
      end()
        .receive(text)
        .finally(() => (inFlight -= 1)),
    );
  };
  const updates = [];
  const client = bindings.connectClient(
    () => ({ sessionUpdate: (params) => void updates.push(params.update.sessionUpdate) }),
    deliver("client-to-agent", () => agent),
  );
  const agent = bindings.connectAgent(
    (connection) => ({
      initialize: () => ({ protocolVersion: 1, agentCapabilities }),
      sessionNew: () => {
        onNewSession(connection);
        return { sessionId: "sess_1" };
      },
    }),
    deliver("agent-to-client", () => client),
  );
  const settle = async () => {
    while (inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
  };
  return { client, log, updates, settle };
}

const commands = { sessionId: "sess_1", update: { sessionUpdate: "available_commands_update", availableCommands: [] } };

test("the connections send session/ready and hold session/update until it arrives when it is negotiated (R1)", async () => {
  const { client, log, updates, settle } = wired({ sessionCapabilities: { ready: {} } }, (agent) =>
    agent.notify("session/update", commands),
  );
  await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const created = await client.request("session/new", { cwd: "/", mcpServers: [] });
  assert.equal(created.sessionId, "sess_1");
  await settle();
  const order = log.map(([direction, message]) => `${direction} ${message.method ?? `response ${message.id}`}`);
  assert.deepEqual(order, [
    "client-to-agent initialize",
    "agent-to-client response 1",
    "client-to-agent session/new",
    "agent-to-client response 2",
    "client-to-agent session/ready",
    "agent-to-client session/update",
  ]);
  assert.deepEqual(log[4][1].params, { sessionId: "sess_1" });
  assert.deepEqual(updates, ["available_commands_update"]);
});

test("without the capability the connections neither send session/ready nor hold anything", async () => {
  const { client, log, settle } = wired({}, (agent) => agent.notify("session/update", commands));
  await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  await client.request("session/new", { cwd: "/", mcpServers: [] });
  await settle();
  const order = log.map(([direction, message]) => `${direction} ${message.method ?? `response ${message.id}`}`);
  assert.deepEqual(order.slice(2), [
    "client-to-agent session/new",
    "agent-to-client session/update",
    "agent-to-client response 2",
  ]);
});
