// One end of a TypeScript connection, measured:
//   node connection.mjs <ours|official|floor> <receive|round-trip> <module> <corpus.tsv> <runs>
// <module> is the built bindings' entry point (ours) or the official SDK's
// (official); unused for the floor.
//
// - receive: every `SessionNotification` of the corpus, as the text of a
//   `session/update` notification, is handed to a client's end whose
//   handler counts it. Ours: `connectClient`, each text passed to `receive`
//   and awaited. The official one: a client app (`client()`, handling
//   `session/update`) connected to a stream that yields each text parsed
//   with `JSON.parse`, as its newline-delimited stream does; the stream
//   ends once every notification was handled, or when handling stops
//   making progress. The floor: `JSON.parse` per text.
// - round-trip: a client initializes, then calls `session/new` on an agent
//   in the same process, one call after the other, as many times as the
//   corpus has `SessionNotification`s. Ours: `connectClient` and
//   `connectAgent` with the TypeScript test agent (`scripted-agent.mjs`, which the
//   bench writes next to this program from `tests/typescript/scripted-agent.mjs`;
//   it opens a session per call), each end's `send` handing the text to
//   the other's `receive`; the official one (whose agent opens and keeps
//   sessions the same way): its client app connected to its agent app
//   (in-memory message streams); the floor: the request and the response
//   each printed and parsed.
//
// A first pass warms up and counts; then each run is timed. Prints one JSON
// object: messages, bytes, seconds per run, messages not handled
// (`failures`), the first of them, and the peak resident memory (VmHWM, KiB).

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

import { scriptedAgent } from "./scripted-agent.mjs";

const [implementation, mode, modulePath, corpus, runsText] = process.argv.slice(2);
const runs = Number.parseInt(runsText ?? "", 10);
if (corpus === undefined || !Number.isInteger(runs)) {
  console.error("usage: connection.mjs <ours|official|floor> <receive|round-trip> <module> <corpus.tsv> <runs>");
  process.exit(2);
}

function peakKib() {
  const status = readFileSync("/proc/self/status", "utf8");
  const line = status.split("\n").find((entry) => entry.startsWith("VmHWM:"));
  return line === undefined ? null : Number.parseInt(line.split(/\s+/)[1], 10);
}

/** Resolves once the event loop has run every callback queued so far. */
function turn() {
  return new Promise((resolve) => setImmediate(resolve));
}

const NEW_SESSION = { cwd: "/tmp", mcpServers: [] };

const ours = {
  async receive(module, texts) {
    let handled = 0;
    const end = module.connectClient(
      () => ({
        sessionRequestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => {
          handled += 1;
        },
      }),
      () => undefined,
    );
    for (const text of texts) {
      await end.receive(text);
    }
    return handled;
  },

  async roundTrips(module, calls) {
    let clientEnd = null;
    const agentEnd = module.connectAgent(scriptedAgent(module), (text) => void clientEnd.receive(text));
    clientEnd = module.connectClient(
      () => ({
        sessionRequestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => undefined,
      }),
      (text) => void agentEnd.receive(text),
    );
    await clientEnd.request("initialize", { protocolVersion: 1 });
    let answered = 0;
    for (let call = 0; call < calls; call += 1) {
      const response = await clientEnd.request("session/new", NEW_SESSION);
      if (response.sessionId === `session-${call + 1}`) answered += 1;
    }
    clientEnd.close();
    agentEnd.close();
    return answered;
  },
};

const official = {
  async receive(sdk, texts) {
    let handled = 0;
    let next = 0;
    const readable = new ReadableStream({
      async pull(controller) {
        if (next < texts.length) {
          controller.enqueue(JSON.parse(texts[next]));
          next += 1;
          return;
        }
        // The connection closes when its stream ends: end it once every
        // notification was handled, or once a turn of the event loop
        // handled none more.
        for (let before = -1; handled < texts.length && handled !== before;) {
          before = handled;
          await turn();
        }
        controller.close();
      },
    });
    const writable = new WritableStream({ write() {} });
    const connection = sdk
      .client()
      .onNotification("session/update", () => {
        handled += 1;
      })
      .connect({ readable, writable });
    await connection.closed;
    return handled;
  },

  async roundTrips(sdk, calls) {
    // Opens and keeps its sessions as the test agent does (`session-1`,
    // `session-2`, ...), so that both agents do the same work per call.
    const sessions = new Map();
    const agent = sdk
      .agent()
      .onRequest("initialize", ({ params }) => ({ protocolVersion: params.protocolVersion }))
      .onRequest("session/new", ({ params }) => {
        const sessionId = `session-${sessions.size + 1}`;
        sessions.set(sessionId, params.cwd);
        return { sessionId };
      });
    let answered = 0;
    await sdk.client().connectWith(agent, async (connection) => {
      await connection.request("initialize", { protocolVersion: 1 });
      for (let call = 0; call < calls; call += 1) {
        const response = await connection.request("session/new", NEW_SESSION);
        if (response.sessionId === `session-${call + 1}`) answered += 1;
      }
    });
    return answered;
  },
};

const floor = {
  async receive(_, texts) {
    for (const text of texts) JSON.parse(text);
    return texts.length;
  },

  async roundTrips(_, calls) {
    let answered = 0;
    for (let id = 0; id < calls; id += 1) {
      const request = JSON.parse(JSON.stringify({ jsonrpc: "2.0", id, method: "session/new", params: NEW_SESSION }));
      const response = JSON.parse(
        JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { sessionId: "session-1" } }),
      );
      if (response.result.sessionId === "session-1") answered += 1;
    }
    return answered;
  },
};

const implementations = { ours, official, floor };
const chosen = implementations[implementation];
if (chosen === undefined || (mode !== "receive" && mode !== "round-trip")) {
  console.error(`unknown implementation and mode: ${implementation} ${mode}`);
  process.exit(2);
}
const module = implementation === "floor" ? null : await import(pathToFileURL(modulePath).href);

const texts = readFileSync(corpus, "utf8")
  .split("\n")
  .filter((line) => line.startsWith("SessionNotification\t"))
  .map((line) => `{"jsonrpc":"2.0","method":"session/update","params":${line.slice(line.indexOf("\t") + 1)}}`);
const run = mode === "receive" ? () => chosen.receive(module, texts) : () => chosen.roundTrips(module, texts.length);

const handled = await run();
const seconds = [];
for (let index = 0; index < runs; index += 1) {
  const start = process.hrtime.bigint();
  await run();
  seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
}
// A round trip counts the bytes of a request and its response as the floor prints them.
const exchange =
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION }).length +
  JSON.stringify({ jsonrpc: "2.0", id: 1, result: { sessionId: "session-1" } }).length;
const bytes =
  mode === "receive" ? texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) : texts.length * exchange;
const failures = texts.length - Math.min(handled, texts.length);
console.log(
  JSON.stringify({
    messages: texts.length,
    bytes,
    seconds,
    failures,
    differ: 0,
    first_difference:
      failures > 0
        ? `${failures} of ${texts.length} ${mode === "receive" ? "notifications were not handled" : "calls were not answered"}`
        : null,
    outcome: mode === "receive" ? "handled" : "answered",
    peak_kib: peakKib(),
  }),
);
