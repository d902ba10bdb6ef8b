// The package's connection, end to end, as `tests/rust/connection.rs` and
// `tests/rust/connection_v2.rs` check the Rust one: an agent and a client,
// each one end (`connectAgent` / `connectClient`) in this process, talk
// through in-memory pipes that keep the order of what they carry but hand
// each message over after a random number of microtasks and event-loop
// turns; the handlers wait at random too, and each end's `send` returns a
// promise that resolves after a random delay, so its writer falls behind.
// Everything comes from one seed.
//
// Every message each end wrote and read is logged in the order it happened,
// and the log is checked for the rules the connection exists to keep: R1 (no
// session-scoped notification leaves the agent before it read that
// session's `session/ready`), R2 and R4 (the package's `TurnTracker` on
// what the client sent and read, and prompts that got no `turn_complete`),
// and that a prompt call resolves only once every update of its turn was
// handled. Thousands of turns with the ordering on find no violation; the
// same schedules with `unordered` on both ends find violations of each.
// On protocol v2 the prompt's response only acknowledges it: the agent
// reports `running`, hands the turn to a worker that sends its chunks and
// then `idle`, and a prompt call must resolve only once all of them were
// handled.
//
// Run by `cargo xtask test` on the default schema's bindings (v1 with the
// RFDs) and on the v2-stable ones; the folder comes from `ACP_BINDINGS`.

import assert from "node:assert/strict";
import { test } from "node:test";

import { scriptedAgent } from "./scripted-agent.mjs";
import { loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) {
  throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
}
const bindings = await loadBindings(folder);
const V2 = bindings.PROTOCOL_VERSION === 2;
/** A client's `initialize` params for this protocol. */
const INITIALIZE = V2 ? { protocolVersion: 2, info: { name: "c", version: "1" } } : { protocolVersion: 1 };
/**
 * Protocol v2's `session` capability offers these with `session/new` and
 * `session/prompt`: an agent's end advertises it when its agent answers
 * them all, and the client's end calls none of them otherwise.
 */
const V2_SESSIONS = V2
  ? { sessionList: () => ({ sessions: [] }), sessionResume: () => ({}), sessionClose: () => ({}) }
  : {};

/** Seeds per mode, sessions per run and prompts per session: 2,400 turns. */
const SEEDS = 40;
const SESSIONS = 3;
const PROMPTS = 20;

/** The seeded randomness every part of one run draws from (mulberry32). */
function dice(seed) {
  let state = (seed * 0x9e3779b9 + 1) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  const below = (bound) => Math.floor(next() * bound);
  /** Waits up to `most` times, each a microtask or an event-loop turn. */
  const pause = async (most) => {
    for (let count = below(most + 1); count > 0; count -= 1) {
      if (below(2) === 0) await Promise.resolve();
      else await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { below, pause };
}

/**
 * One direction of the wire: `send` logs the message as written (`wrote`),
 * and resolves after a random delay or, at random, returns nothing; the
 * reader hands the messages over in order, each after a random delay,
 * logged as read (`read`) just before, and only sometimes awaits `receive`.
 */
function pipe(roll, log, wrote, read) {
  const lines = [];
  let reader;
  let pumping = false;
  const pump = async () => {
    if (pumping) return;
    pumping = true;
    while (lines.length > 0) {
      await roll.pause(3);
      const text = lines.shift();
      log.push([read, JSON.parse(text)]);
      const handled = reader.receive(text);
      if (roll.below(4) === 0) await handled;
    }
    pumping = false;
  };
  return {
    send: (text) => {
      log.push([wrote, JSON.parse(text)]);
      lines.push(text);
      void pump();
      return roll.below(4) === 0 ? undefined : roll.pause(3);
    },
    connect: (end) => {
      reader = end;
    },
    idle: () => !pumping && lines.length === 0,
  };
}

/** Waits until nothing moves on either pipe for a while: every late message is in the log. */
async function quiet(log, pipes) {
  let still = 0;
  let seen = log.length;
  await until(() => {
    still = pipes.every((one) => one.idle()) && log.length === seen ? still + 1 : 0;
    seen = log.length;
    return still >= 50;
  }, "the pipes to go quiet");
}

/** Waits event-loop turns until `condition` holds; fails after too many, rather than hang. */
async function until(condition, what) {
  for (let turns = 0; !condition(); turns += 1) {
    assert.ok(turns < 100_000, `still waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The prompt a chunk's text belongs to (`"<prompt> part <n>"`). */
function promptOf(text) {
  return text.slice(0, text.lastIndexOf(" part "));
}

/** Two ends joined by pipes; `options` for both, `agent(end)` and `client(end)` make the implementations. */
function wire(seed, options, agent, client) {
  const roll = dice(seed);
  const log = [];
  const dropped = [];
  const toAgent = pipe(roll, log, "ClientWrote", "AgentRead");
  const toClient = pipe(roll, log, "AgentWrote", "ClientRead");
  const report = (end) => (report) => dropped.push([end, report.method, report.error]);
  const agentEnd = bindings.connectAgent((end) => agent(end, roll), toClient.send, {
    ...options,
    dropped: report("agent"),
  });
  const clientEnd = bindings.connectClient((end) => client(end, roll), toAgent.send, {
    ...options,
    dropped: report("client"),
  });
  toAgent.connect(agentEnd);
  toClient.connect(clientEnd);
  return { roll, log, dropped, agentEnd, clientEnd, settle: () => quiet(log, [toAgent, toClient]) };
}

/**
 * Protocol v1 with the RFDs: the test agent advertises `session/ready` and
 * `turn_complete`, sends each new session's commands, and echoes each
 * prompt in 1 to 5 chunks, asking permission one turn in three.
 */
function agentV1(sent) {
  return (end, roll) =>
    scriptedAgent(bindings, {
      capabilities: { sessionCapabilities: { ready: {}, turnComplete: {} } },
      commands: true,
      chunks: () => 1 + roll.below(5),
      ask: () => roll.below(3) === 0,
      pause: roll.pause,
      played: (text, chunks) => sent.set(text, chunks),
    })(end);
}

/** A client that counts, per prompt, the chunks it handled, each after a random wait. */
function counting(handled) {
  return (end, roll) => ({
    sessionRequestPermission: async () => {
      await roll.pause(2);
      return { outcome: { outcome: "selected", optionId: "allow" } };
    },
    sessionUpdate: async ({ update }) => {
      await roll.pause(4);
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        const prompt = promptOf(update.content.text);
        handled.set(prompt, (handled.get(prompt) ?? 0) + 1);
      }
    },
  });
}

/** The violations one v1 run found, by kind. */
function none() {
  return { turns: 0, r1: 0, r2: 0, r4: 0, undrained: 0 };
}

function add(total, found) {
  for (const key of Object.keys(total)) total[key] += found[key];
}

/**
 * R1 on the agent's side of the log; R2 and R4 by the turn tracker on the
 * client's side (prompts as it wrote them, the rest as it read it).
 */
function check(log) {
  const found = none();
  const ready = new Set();
  const early = new Set();
  const tracker = new bindings.TurnTracker(true);
  const prompts = new Map();
  const asked = new Set();
  const completed = new Set();
  const count = (observation) => {
    for (const violation of observation.violations) found[violation.rule === "R2" ? "r2" : "r4"] += 1;
  };
  for (const [event, message] of log) {
    const session = message.params?.sessionId ?? "";
    if (event === "AgentRead" && message.method === "session/ready") {
      ready.add(session);
    } else if (event === "AgentWrote" && message.method === "session/update" && !ready.has(session)) {
      early.add(session);
    } else if (event === "ClientWrote" && message.method === "session/prompt") {
      asked.add(JSON.stringify(message.id));
      prompts.set(JSON.stringify(message.id), message.id);
      tracker.prompt(session, message.id);
    } else if (event === "ClientRead" && message.method === "session/update") {
      if (message.params.update.sessionUpdate === "turn_complete")
        completed.add(JSON.stringify(message.params.update.promptRequestId));
      count(tracker.update(message.params));
    } else if (event === "ClientRead" && message.method === undefined && prompts.has(JSON.stringify(message.id))) {
      const key = JSON.stringify(message.id);
      count(tracker.response(prompts.get(key), message.result?.stopReason ?? null));
      prompts.delete(key);
    }
  }
  found.r1 = early.size;
  found.r2 += [...asked].filter((id) => !completed.has(id)).length;
  return found;
}

/** One v1 run: a client opens `sessions` sessions and prompts each `prompts` times, concurrently across sessions. */
async function runV1(seed, ordered, sessions, prompts) {
  const sent = new Map();
  const handled = new Map();
  const { roll, log, dropped, clientEnd, settle } = wire(
    seed,
    ordered ? {} : { unordered: true },
    agentV1(sent),
    counting(handled),
  );
  let undrained = 0;
  await clientEnd.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const session = async (index) => {
    const { sessionId } = await clientEnd.request("session/new", { cwd: "/tmp", mcpServers: [] });
    for (let turn = 0; turn < prompts; turn += 1) {
      await roll.pause(2);
      const text = `s${index} t${turn}`;
      const response = await clientEnd.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      assert.equal(response.stopReason, "end_turn");
      if (handled.get(text) !== sent.get(text)) undrained += 1;
    }
  };
  await Promise.all(Array.from({ length: sessions }, (_, index) => session(index)));
  await settle();
  assert.deepEqual(dropped, [], `seed ${seed}: nothing is dropped`);
  const found = check(log);
  found.undrained = undrained;
  found.turns = sessions * prompts;
  return found;
}

/**
 * Protocol v2: the test agent acknowledges each prompt and plays its turn
 * after: 1 to 5 chunks, then `idle`; at random, a later idle snapshot (its
 * background work), which the client may read after its next prompt went
 * out and before that prompt's `running`: it must not end that turn.
 */
function agentV2(sent) {
  return (end, roll) =>
    scriptedAgent(bindings, {
      chunks: () => 1 + roll.below(5),
      lateIdle: () => roll.below(2) === 0,
      pause: roll.pause,
      played: (text, chunks) => sent.set(text, chunks),
    })(end);
}

/** One v2 run: prompt calls that resolved before their turn was handled. */
async function runV2(seed, ordered, sessions, prompts) {
  const sent = new Map();
  const handled = new Map();
  const { roll, dropped, clientEnd, settle } = wire(
    seed,
    ordered ? {} : { unordered: true },
    agentV2(sent),
    counting(handled),
  );
  let early = 0;
  await clientEnd.request("initialize", {
    protocolVersion: bindings.PROTOCOL_VERSION,
    info: { name: "test client", version: "1" },
  });
  const session = async (index) => {
    const { sessionId } = await clientEnd.request("session/new", { cwd: "/tmp" });
    for (let turn = 0; turn < prompts; turn += 1) {
      await roll.pause(2);
      const text = `s${index} t${turn}`;
      const response = await clientEnd.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      assert.equal(response.messageId, `message-${text}`);
      const expected = sent.get(text);
      if (expected === undefined || handled.get(text) !== expected) early += 1;
    }
  };
  await Promise.all(Array.from({ length: sessions }, (_, index) => session(index)));
  await settle();
  assert.deepEqual(dropped, [], `seed ${seed}: nothing is dropped`);
  return early;
}

if (V2) {
  test("v2: a prompt call resolves when its turn is idle and handled", async () => {
    let early = 0;
    for (let seed = 0; seed < SEEDS; seed += 1) {
      const found = await runV2(seed, true, SESSIONS, PROMPTS);
      assert.equal(found, 0, `seed ${seed}: ${found} prompt calls resolved before their turn was handled`);
      early += found;
    }
    console.log(`ordered: ${SEEDS * SESSIONS * PROMPTS} turns, ${early} resolved early (undrained)`);
  });

  test("v2: without the ordering, prompt calls resolve on the acknowledgement", async () => {
    let early = 0;
    for (let seed = 0; seed < SEEDS; seed += 1) early += await runV2(seed, false, SESSIONS, PROMPTS);
    console.log(`unordered: ${SEEDS * SESSIONS * PROMPTS} turns, ${early} resolved early (undrained)`);
    assert.ok(early > 0, "no prompt call resolved early");
  });
} else {
  test("with the ordering no schedule breaks a rule", async () => {
    const total = none();
    for (let seed = 0; seed < SEEDS; seed += 1) {
      const found = await runV1(seed, true, SESSIONS, PROMPTS);
      assert.deepEqual(
        [found.r1, found.r2, found.r4, found.undrained],
        [0, 0, 0, 0],
        `seed ${seed}: ${JSON.stringify(found)}`,
      );
      add(total, found);
    }
    console.log(`ordered: ${JSON.stringify(total)}`);
    assert.equal(total.turns, SEEDS * SESSIONS * PROMPTS);
  });

  test("without the ordering the same schedules break every rule", async () => {
    const total = none();
    for (let seed = 0; seed < SEEDS; seed += 1) add(total, await runV1(seed, false, SESSIONS, PROMPTS));
    console.log(`unordered: ${JSON.stringify(total)}`);
    assert.ok(total.r1 > 0 && total.r2 > 0 && total.r4 > 0 && total.undrained > 0, JSON.stringify(total));
  });
}

test("notifications are handled one at a time in arrival order, whether or not receive is awaited", async () => {
  const events = [];
  const end = bindings.connectClient(
    () => ({
      sessionUpdate: async ({ update }) => {
        events.push(`start ${update.title}`);
        // The first waits longest: without the queue, the later ones would finish first.
        const turns = update.title === "a" ? 5 : update.title === "b" ? 2 : 0;
        for (let index = 0; index < turns; index += 1) await new Promise((resolve) => setImmediate(resolve));
        events.push(`end ${update.title}`);
      },
    }),
    () => {},
  );
  const notification = (title) =>
    JSON.stringify({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "session_info_update", title } },
    });
  void end.receive(notification("a"));
  void end.receive(notification("b"));
  await end.receive(notification("c"));
  assert.deepEqual(events, ["start a", "end a", "start b", "end b", "start c", "end c"]);
});

test("a writer whose send returns a promise writes one message at a time, in order", async () => {
  const written = [];
  let busy = false;
  const end = bindings.connectAgent(
    () => ({}),
    async (text) => {
      assert.equal(busy, false, "send is called again before its promise settled");
      busy = true;
      await new Promise((resolve) => setImmediate(resolve));
      written.push(JSON.parse(text).params.update.title);
      busy = false;
    },
  );
  for (const title of ["1", "2", "3"])
    end.notify("session/update", { sessionId: "s", update: { sessionUpdate: "session_info_update", title } });
  await until(() => written.length === 3, "three writes");
  assert.deepEqual(written, ["1", "2", "3"]);
});

/** An agent whose prompt handler waits until the test lets it go, and whose `session/new` fails. */
function stuckAgent(release) {
  return () => ({
    ...V2_SESSIONS,
    initialize: ({ protocolVersion }) =>
      V2 ? { protocolVersion, info: { name: "stuck", version: "1" } } : { protocolVersion },
    sessionNew: () => {
      throw new bindings.RequestError(-32602, "Invalid params", { why: "no sessions here" });
    },
    sessionPrompt: () =>
      new Promise((resolve) => release.push(() => resolve(V2 ? { messageId: "m" } : { stopReason: "end_turn" }))),
  });
}

test("errors and cancellation cross the connection", async () => {
  const release = [];
  const { roll, log, dropped, clientEnd, settle } = wire(7, {}, stuckAgent(release), counting(new Map()));
  await clientEnd.request("initialize", INITIALIZE);
  // The agent's error comes back as it was sent.
  await assert.rejects(clientEnd.request("session/new", { cwd: "/tmp", mcpServers: [] }), (error) => {
    assert.ok(error instanceof bindings.RequestError);
    assert.deepEqual([error.code, error.data], [-32602, { why: "no sessions here" }]);
    return true;
  });
  // A prompt whose caller stops waiting: the call rejects with the signal's
  // reason, the agent reads `$/cancel_request` and answers -32800 at once,
  // and that answer, to a request nobody waits for, is reported.
  const controller = new AbortController();
  const prompt = clientEnd.request(
    "session/prompt",
    { sessionId: "s", prompt: [{ type: "text", text: "wait" }] },
    { signal: controller.signal },
  );
  await roll.pause(20);
  await until(() => release.length > 0, "the prompt handler");
  controller.abort(new Error("stopped waiting"));
  await assert.rejects(prompt, /stopped waiting/);
  await settle();
  // What the handler returns after its request was cancelled is not sent.
  for (const resume of release) resume();
  // Extension methods the agent does not handle answer method-not-found.
  await assert.rejects(clientEnd.requestExtension("_x/unknown", {}), (error) => error.code === -32601);
  await settle();
  const cancel = log.find(([event, message]) => event === "AgentRead" && message.method === "$/cancel_request");
  assert.ok(cancel, "the agent read $/cancel_request");
  const answers = log.filter(
    ([event, message]) =>
      event === "ClientRead" && message.id === cancel[1].params.requestId && message.method === undefined,
  );
  assert.deepEqual(
    answers.map(([, message]) => message.error?.code),
    [-32800],
    "one answer, the cancelled one",
  );
  assert.deepEqual(
    dropped.map(([end, method, error]) => [end, method, error.code]),
    [["client", null, -32600]],
  );
});

test("unreadable input is answered, a stray response reported, and a closed connection fails calls", async () => {
  const written = [];
  const dropped = [];
  const end = bindings.connectClient(
    () => ({}),
    (text) => void written.push(JSON.parse(text)),
    { dropped: (report) => dropped.push(report) },
  );
  await end.receive("{not json");
  await end.receive(JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} }));
  assert.deepEqual(written[0], { jsonrpc: "2.0", id: null, error: { code: -32700, message: "not JSON" } });
  assert.deepEqual(dropped, [
    { method: null, error: { code: -32600, message: "a response to no request in flight", data: { id: 99 } }, line: 2 },
  ]);
  const call = end.request("initialize", INITIALIZE);
  end.close(new Error("the peer left"));
  await assert.rejects(call, /the peer left/);
  await assert.rejects(end.request("session/new", { cwd: "/tmp" }), /the peer left/);
});

test("a send that fails fails the calls in flight", async () => {
  const end = bindings.connectClient(
    () => ({}),
    () => Promise.reject(new Error("the pipe broke")),
  );
  await assert.rejects(end.request("session/new", { cwd: "/tmp" }), /the pipe broke/);
  await assert.rejects(end.request("session/new", { cwd: "/tmp" }), /the pipe broke/);
});

/**
 * An agent's end fed `messages` in turn (each answer awaited before the next
 * request): what it wrote and reported, and the methods its handlers got.
 * Its `initialize` answers a version of its own and no capabilities; it has
 * a `session/cancel` handler unless `withoutCancel`, and `agent`'s handlers
 * besides (over its own).
 */
async function handshake(messages, { withoutCancel = false, agent = {} } = {}) {
  const written = [];
  const dropped = [];
  const got = [];
  const end = bindings.connectAgent(
    () => ({
      initialize: () => {
        got.push("initialize");
        return V2 ? { protocolVersion: 7, info: { name: "a", version: "1" } } : { protocolVersion: 7 };
      },
      sessionNew: () => {
        got.push("session/new");
        return { sessionId: "s" };
      },
      ...(withoutCancel ? {} : { sessionCancel: () => void got.push("session/cancel") }),
      sessionPrompt: ({ sessionId }) => {
        throw bindings.sessionNotFound(sessionId);
      },
      ...agent,
    }),
    (text) => void written.push(JSON.parse(text)),
    { dropped: (report) => dropped.push(report) },
  );
  for (const message of messages) {
    const before = written.length;
    await end.receive(JSON.stringify(message));
    if (message.id !== undefined) await until(() => written.length > before, `the answer to ${message.method}`);
  }
  return { written, dropped, got };
}

const initialize = (id, protocolVersion) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { ...INITIALIZE, protocolVersion },
});
const newSession = (id) => ({ jsonrpc: "2.0", id, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } });
const cancel = { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } };

test("the agent's end takes nothing but initialize before initialize was answered", async () => {
  const version = bindings.PROTOCOL_VERSION;
  const { written, dropped, got } = await handshake([
    newSession(1),
    cancel,
    initialize(2, version),
    newSession(3),
    cancel,
  ]);
  assert.deepEqual(written[0], {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32600, message: "initialize has not been answered", data: { method: "session/new" } },
  });
  assert.equal(written[1].id, 2);
  assert.deepEqual(written[2], { jsonrpc: "2.0", id: 3, result: { sessionId: "s" } });
  assert.deepEqual(got, ["initialize", "session/new", "session/cancel"]);
  assert.deepEqual(
    dropped.map(({ method, error, line }) => [method, error.code, line]),
    [["session/cancel", -32600, 2]],
  );
});

test("the agent's end acts on session/cancel itself: an agent without its handler drops nothing", async () => {
  const { written, dropped, got } = await handshake([initialize(1, bindings.PROTOCOL_VERSION), newSession(2), cancel], {
    withoutCancel: true,
  });
  assert.equal(written.length, 2);
  assert.deepEqual(got, ["initialize", "session/new"]);
  assert.deepEqual(dropped, []);
});

test("the agent's initialize answer names the version it supports and carries its capabilities", async () => {
  const capabilities = V2 ? "capabilities" : "agentCapabilities";
  for (const requested of [bindings.PROTOCOL_VERSION, bindings.PROTOCOL_VERSION + 1, 65535]) {
    const { written } = await handshake([initialize(1, requested)]);
    const result = written[0].result;
    assert.equal(result?.protocolVersion, bindings.PROTOCOL_VERSION, `asked for ${requested}`);
    assert.deepEqual(result[capabilities], {}, JSON.stringify(result));
    const negotiated = bindings.negotiate(initialize(1, requested).params, result);
    assert.equal(negotiated.toJSON().protocolVersion, bindings.PROTOCOL_VERSION);
  }
});

test("an initialize below every supported version", async () => {
  const { written, got } = await handshake([initialize(1, 0), newSession(2)]);
  if (V2) {
    assert.deepEqual(written[0].error, {
      code: -32022,
      message: "Unsupported protocol version",
      data: { requested: 0, supported: [2] },
    });
    assert.deepEqual(got, [], "the handler is not called and the end stays uninitialized");
    assert.equal(written[1].error.code, -32600);
  } else {
    assert.equal(written[0].result.protocolVersion, 1, "v1 answers its latest version");
    assert.deepEqual(got, ["initialize", "session/new"]);
  }
});

test("an unknown session is answered with the schema's resource-not-found", async () => {
  const params = { sessionId: "nowhere", prompt: [{ type: "text", text: "hi" }] };
  const prompt = { jsonrpc: "2.0", id: 2, method: "session/prompt", params };
  const { written } = await handshake([initialize(1, bindings.PROTOCOL_VERSION), prompt]);
  assert.deepEqual(written[1].error, { code: -32002, message: "Resource not found", data: { sessionId: "nowhere" } });
});

// Protocol v2: the turn is the session's foreground work, and the idle
// that ends a cancelled one says `cancelled`, whatever the agent wrote;
// while a permission request waits, the agent's end reports
// `requires_action`, and `running` once it is answered.
if (V2) {
  test("v2: a cancelled turn ends with an idle that says cancelled, without a cancel handler or drops", async () => {
    // The prompt's work asks permission twice, then waits for its
    // cancellation and ends with `idle`, saying `end_turn` as if nothing
    // happened. It reports no state but `running` and `idle`, and has no
    // `session/cancel` handler: its end acts on the notification itself.
    const saw = [];
    let held = 0;
    const agent = (end) => ({
      ...V2_SESSIONS,
      initialize: () => ({ protocolVersion: bindings.PROTOCOL_VERSION, info: { name: "test agent", version: "1" } }),
      sessionNew: () => ({ sessionId: "s" }),
      sessionPrompt: async ({ sessionId }) => {
        end.notify("session/update", { sessionId, update: { sessionUpdate: "state_update", state: "running" } });
        const signal = end.cancellation(sessionId);
        const options = [{ optionId: "allow", name: "Allow", kind: "allow_once" }];
        const ask = () => end.request("session/request_permission", { sessionId, title: "Write?", options });
        const [first] = await Promise.allSettled([ask()]);
        const [second] = await Promise.allSettled([ask()]);
        saw.push(first.status, second.reason instanceof bindings.TurnCancelled, signal.aborted);
        const idle = { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" };
        end.notify("session/update", { sessionId, update: idle });
        // The work ended: the session's next work is not cancelled.
        saw.push(end.cancellation(sessionId).aborted);
        return { messageId: "message-1" };
      },
    });
    const states = [];
    let asked = 0;
    const client = () => ({
      sessionRequestPermission: () => {
        asked += 1;
        if (asked === 1) return { outcome: { outcome: "selected", optionId: "allow" } };
        held += 1;
        return new Promise(() => {});
      },
      sessionUpdate: ({ update }) => {
        if (update.state !== undefined) states.push([update.state, update.stopReason].filter(Boolean).join(" "));
      },
    });
    const { log, dropped, clientEnd, settle } = wire(5, {}, agent, client);
    await clientEnd.request("initialize", {
      protocolVersion: bindings.PROTOCOL_VERSION,
      info: { name: "test client", version: "1" },
    });
    const prompt = clientEnd.request("session/prompt", { sessionId: "s", prompt: [{ type: "text", text: "go" }] });
    await until(() => held === 1, "the client to hold the permission request");
    clientEnd.notify("session/cancel", { sessionId: "s" });
    assert.equal((await prompt).messageId, "message-1");
    await settle();
    assert.deepEqual(saw, ["fulfilled", true, true, false]);
    assert.deepEqual(states, ["running", "requires_action", "running", "requires_action", "idle cancelled"]);
    const wrote = log.filter(([event]) => event === "ClientWrote").map(([, message]) => message);
    const cancel = wrote.findIndex((message) => message.method === "session/cancel");
    const withdrawn = wrote.findIndex((message) => message.result?.outcome?.outcome === "cancelled");
    assert.ok(cancel >= 0 && cancel < withdrawn, JSON.stringify(wrote));
    assert.deepEqual(dropped, []);
  });

  test("v2: one idle ends every prompt of its session", async () => {
    // Two prompts of one session, both accepted, then one `idle`: the turn
    // machine drains both, and both calls resolve once it was handled.
    const written = [];
    const states = [];
    const end = bindings.connectClient(
      () => ({ sessionUpdate: ({ update }) => void states.push(update.state) }),
      (text) => void written.push(JSON.parse(text)),
    );
    const prompt = () => end.request("session/prompt", { sessionId: "s", prompt: [{ type: "text", text: "go" }] });
    const calls = Promise.all([prompt(), prompt()]);
    for (const { id } of written) {
      await end.receive(JSON.stringify({ jsonrpc: "2.0", id, result: { messageId: `m${id}` } }));
    }
    const idle = { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" };
    await end.receive(
      JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: idle } }),
    );
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(() => resolve("still pending"), 1000)));
    const answers = await Promise.race([calls, late]);
    clearTimeout(timer);
    assert.deepEqual(answers, [{ messageId: "m1" }, { messageId: "m2" }]);
    assert.deepEqual(states, ["idle"]);
  });
}

// Protocol v1: the prompt's answer says `cancelled`.
if (!V2) {
  test("a cancelled turn is answered cancelled, after its updates, without a cancel handler or drops", async () => {
    // The agent's prompt handler sends an update, then waits on two calls the
    // client holds, and fails with what they fail with. It has no
    // `session/cancel` handler: its end acts on the notification itself.
    const saw = [];
    let held = 0;
    const agent = (end) => ({
      initialize: ({ protocolVersion }) => ({ protocolVersion }),
      sessionNew: () => ({ sessionId: "s" }),
      sessionPrompt: async ({ sessionId }) => {
        const chunk = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "reading" } };
        end.notify("session/update", { sessionId, update: chunk });
        const signal = end.cancellation(sessionId);
        const options = [{ optionId: "allow", name: "Allow", kind: "allow_once" }];
        const calls = await Promise.allSettled([
          end.request("fs/read_text_file", { sessionId, path: "/etc/hosts" }),
          end.request("session/request_permission", { sessionId, toolCall: { toolCallId: "call-1" }, options }),
        ]);
        saw.push(...calls.map((call) => call.reason instanceof bindings.TurnCancelled), signal.aborted);
        throw new Error("the turn failed");
      },
    });
    const hold = () => {
      held += 1;
      return new Promise(() => {});
    };
    const client = () => ({ sessionRequestPermission: hold, fsReadTextFile: hold, sessionUpdate: () => {} });
    const { log, dropped, clientEnd, settle } = wire(11, {}, agent, client);
    await clientEnd.request("initialize", INITIALIZE);
    const prompt = clientEnd.request("session/prompt", { sessionId: "s", prompt: [] });
    await until(() => held === 2, "the client to hold both calls");
    clientEnd.notify("session/cancel", { sessionId: "s" });
    assert.equal((await prompt).stopReason, "cancelled");
    await settle();
    assert.deepEqual(saw, [true, true, true]);
    const read = log.filter(([event]) => event === "ClientRead").map(([, message]) => message);
    const update = read.findIndex((message) => message.method === "session/update");
    const answer = read.findIndex((message) => message.result?.stopReason === "cancelled");
    assert.ok(update >= 0 && update < answer, JSON.stringify(read));
    // The client answered its pending permission request `cancelled`, after
    // `session/cancel`; the agent, no longer waiting, took the answer silently.
    const wrote = log.filter(([event]) => event === "ClientWrote").map(([, message]) => message);
    const cancel = wrote.findIndex((message) => message.method === "session/cancel");
    const withdrawn = wrote.findIndex((message) => message.result?.outcome?.outcome === "cancelled");
    assert.ok(cancel >= 0 && cancel < withdrawn, JSON.stringify(wrote));
    assert.deepEqual(dropped, []);
  });
}

// Capabilities from handlers (v1's `loadSession` gates `session/load`): the
// agent's end advertises what its handlers answer, whatever its
// `initialize` handler wrote, and once `initialize` is done the client's
// end refuses a call the agent did not advertise, before it is written.
if (!V2) {
  /** What an agent's end answers `initialize` with, given its handler's capabilities and whether it loads sessions. */
  async function advertised(written, loads) {
    const sent = [];
    const end = bindings.connectAgent(
      () => ({
        initialize: () => ({ protocolVersion: 1, agentCapabilities: written }),
        sessionNew: () => ({ sessionId: "s" }),
        sessionPrompt: () => ({ stopReason: "end_turn" }),
        ...(loads ? { sessionLoad: () => ({}) } : {}),
      }),
      (text) => void sent.push(JSON.parse(text)),
    );
    await end.receive(JSON.stringify(initialize(1, 1)));
    await until(() => sent.length > 0, "the initialize answer");
    return sent[0].result.agentCapabilities;
  }

  test("an agent without a session/load handler does not advertise loadSession, whatever it wrote", async () => {
    assert.deepEqual(await advertised({ loadSession: true, promptCapabilities: { image: true } }, false), {
      promptCapabilities: { image: true },
    });
  });

  test("an agent with a session/load handler advertises loadSession, whatever it wrote", async () => {
    assert.deepEqual(await advertised({}, true), { loadSession: true });
    assert.deepEqual(await advertised({ loadSession: false }, true), { loadSession: true });
  });

  test("a client's call the agent did not advertise fails before it is written", async () => {
    const sent = [];
    const end = bindings.connectClient(
      () => ({ sessionUpdate: () => {} }),
      (text) => void sent.push(JSON.parse(text)),
    );
    const answered = end.request("initialize", INITIALIZE);
    await until(() => sent.length === 1, "the initialize request");
    await end.receive(JSON.stringify({ jsonrpc: "2.0", id: sent[0].id, result: { protocolVersion: 1 } }));
    await answered;
    await assert.rejects(end.request("session/load", { sessionId: "s", cwd: "/tmp", mcpServers: [] }), (error) => {
      assert.ok(error instanceof bindings.CapabilityError, String(error));
      assert.deepEqual(
        [error.method, error.pointer, error.side, error.capability],
        ["session/load", "", "agent", "/agentCapabilities/loadSession"],
      );
      return true;
    });
    assert.equal(sent.length, 1, "nothing but initialize was written");
  });
}

// Per-session gates (`schema/capabilities.json`'s `sessionGates`):
// `session/set_config_option` (and v1's `session/set_mode`) may be called
// only on a session whose opening answer offered `configOptions` (`modes`).
// The client's end refuses it, before it is written, on a session it saw
// opened without the offer; the agent's end leaves out of its opening
// answers the offers of the methods it has no handler for.
{
  const OPENED = V2
    ? { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: { session: {} } }
    : { protocolVersion: 1 };
  const OPTIONS = [{ id: "o", name: "O", type: "select", currentValue: "a", options: [{ value: "a", name: "A" }] }];
  const MODES = { currentModeId: "m", availableModes: [{ id: "m", name: "M" }] };
  const setOption = (sessionId) => ({ sessionId, configId: "o", value: "a" });

  /** A client's end past `initialize`, with `session/new` answered by `opened` (its session `a`); `sent` is what it wrote. */
  async function clientWithSession(opened) {
    const sent = [];
    const end = bindings.connectClient(
      () => ({ sessionUpdate: () => {} }),
      (text) => void sent.push(JSON.parse(text)),
    );
    const answer = async (result) => {
      await until(() => sent.length > 0 && sent[sent.length - 1].id !== undefined, "a request");
      await end.receive(JSON.stringify({ jsonrpc: "2.0", id: sent[sent.length - 1].id, result }));
    };
    const initialized = end.request("initialize", INITIALIZE);
    await answer(OPENED);
    await initialized;
    const created = end.request("session/new", { cwd: "/tmp", mcpServers: [] });
    await answer({ sessionId: "a", ...opened });
    await created;
    return { end, sent };
  }

  test("the client refuses set_config_option on a session opened without configOptions, writing nothing", async () => {
    const { end, sent } = await clientWithSession({});
    const before = sent.length;
    await assert.rejects(end.request("session/set_config_option", setOption("a")), (error) => {
      assert.ok(error instanceof bindings.CapabilityError, String(error));
      assert.deepEqual(
        [error.method, error.pointer, error.side, error.capability],
        ["session/set_config_option", "", "agent", "/configOptions"],
      );
      return true;
    });
    assert.equal(sent.length, before, "nothing was written");
    // A session this end did not see opened is not judged.
    void end.request("session/set_config_option", setOption("elsewhere")).catch(() => {});
    await until(() => sent.length === before + 1, "the call on another session");
    assert.equal(sent[before].params.sessionId, "elsewhere");
  });

  test("the client sends set_config_option on a session opened with configOptions", async () => {
    const { end, sent } = await clientWithSession({ configOptions: OPTIONS });
    const before = sent.length;
    void end.request("session/set_config_option", setOption("a")).catch(() => {});
    await until(() => sent.length === before + 1, "the call");
    assert.equal(sent[before].method, "session/set_config_option");
  });

  if (!V2) {
    test("the client refuses set_mode on a session opened without modes, and sends it on one opened with them", async () => {
      const without = await clientWithSession({ configOptions: OPTIONS });
      const before = without.sent.length;
      await assert.rejects(without.end.request("session/set_mode", { sessionId: "a", modeId: "m" }), (error) => {
        assert.deepEqual([error.method, error.capability], ["session/set_mode", "/modes"]);
        return true;
      });
      assert.equal(without.sent.length, before, "nothing was written");
      const offered = await clientWithSession({ modes: MODES });
      void offered.end.request("session/set_mode", { sessionId: "a", modeId: "m" }).catch(() => {});
      await until(() => offered.sent.length === before + 1, "the call");
    });
  }

  /** The result of the agent's answer to `session/new`, its handler offering everything, with only `handlers` of the gated methods. */
  async function opened(handlers) {
    const { written } = await handshake([initialize(1, bindings.PROTOCOL_VERSION), newSession(2)], {
      agent: {
        sessionNew: () => ({ sessionId: "s", configOptions: OPTIONS, ...(V2 ? {} : { modes: MODES }) }),
        ...V2_SESSIONS,
        ...handlers,
      },
    });
    return written.find((message) => message.id === 2).result;
  }

  test("the agent leaves out the offers of the per-session methods it does not handle", async () => {
    const without = await opened({});
    assert.deepEqual(without, { sessionId: "s" });
    const withOptions = await opened({ sessionSetConfigOption: () => ({ configOptions: OPTIONS }) });
    assert.deepEqual(withOptions, { sessionId: "s", configOptions: OPTIONS });
    if (!V2) {
      const withModes = await opened({ sessionSetMode: () => ({}) });
      assert.deepEqual(withModes, { sessionId: "s", modes: MODES });
    }
  });
}
