// Coverage-guided fuzzing of the connection's receive path with Jazzer.js
// (`cargo xtask fuzz`, docs/fuzzing.md), on the default schema's package
// built in `ACP_BINDINGS`/typescript/dist, which Jazzer.js instruments as it
// loads it. Jazzer.js calls `fuzz` with each input.
//
// The fuzzer's bytes are the peer's side of a connection, one message a
// line (decoded as UTF-8, a bad byte replaced, as a text transport reads
// it): each non-blank line (blank: JSON whitespace only) goes to `receive`
// of an agent's end (`connectAgent`) and of a client's end
// (`connectClient`), with a small handler. The client's end has called
// `initialize`, `session/new` and `session/prompt` first (ids 1 to 3), so
// that responses have calls to settle. An input fails (an exception, which
// Jazzer.js keeps) when an end throws, does not finish within HANG
// milliseconds (a hang), writes more than `outputBound` allows (unbounded
// growth), writes what is not a JSON-RPC message, or loses a line: every
// line must be answered, reported to `dropped`, handed to a notification
// handler, or settle a call. Only the prompt call may end closed with its
// response taken (its turn was still being drained), so one line fewer may
// be accounted for then. Jazzer.js's own detectors (prototype pollution
// among them) run too.

import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { scriptedAgent } from "../scripted-agent.mjs";

const bindings = process.env.ACP_BINDINGS;
if (!bindings) throw new Error("ACP_BINDINGS must name a folder written by `cargo xtask generate`");
const acp = await import(pathToFileURL(join(bindings, "typescript", "dist", "index.js")).href);

/** Milliseconds an end may take to handle an input. */
const HANG = 10_000;

/** Event loop turns an end may take to finish its work once its input was read. */
const TURNS = 1_000;

/**
 * The most an end may write for `lines` messages read from `size` bytes: a
 * bounded answer per message, each at most a constant plus a multiple of
 * what it answers (messages, bytes).
 */
function outputBound(lines, size) {
  return [3 * lines + 8, 8 * size + 2048 * (lines + 3)];
}

/** What became of the messages an end read: `answered` counts what it wrote that has no method. */
function tally() {
  return { answered: 0, handled: 0, dropped: 0, settled: 0 };
}

/** The end's `send`: keeps each text, and counts the answers among them. */
function sender(sent, counts) {
  return (text) => {
    sent.push(text);
    try {
      const message = JSON.parse(text);
      if (message !== null && typeof message === "object" && !Object.hasOwn(message, "method")) counts.answered += 1;
    } catch {
      // `check` says what is wrong with it.
    }
  };
}

/**
 * The test agent (`../scripted-agent.mjs`): it answers `initialize` (advertising
 * session/ready and turn_complete), `session/new` and `session/prompt` on
 * any session (after one update), and counts every notification it is handed.
 */
function agent(counts) {
  return scriptedAgent(acp, {
    capabilities: { sessionCapabilities: { ready: {}, turnComplete: {} } },
    anySession: true,
    notified: () => {
      counts.handled += 1;
    },
  });
}

/** Refuses permission requests (the `cancelled` outcome) and counts every notification it is handed. */
function client(counts) {
  const handled = () => {
    counts.handled += 1;
  };
  return {
    sessionRequestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    sessionUpdate: handled,
    cancelRequest: handled,
    elicitationComplete: handled,
    extensionRequest: () => null,
    extensionNotification: handled,
  };
}

/** The non-blank lines of `data`, as text. */
function lines(data) {
  const decoder = new TextDecoder("utf-8");
  const texts = [];
  let start = 0;
  while (start <= data.length) {
    let end = data.indexOf(10, start);
    if (end < 0) end = data.length;
    const line = data.subarray(start, end);
    if (line.some((byte) => byte !== 32 && byte !== 9 && byte !== 13)) texts.push(decoder.decode(line));
    start = end + 1;
  }
  return texts;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Lets the event loop turn until `done()` holds, TURNS times at most. */
async function settle(done) {
  for (let count = 0; count < TURNS && !done(); count += 1) await turn();
}

/** Checks what the end of `side` wrote and accounted for. */
function check(side, received, data, sent, counts, allowance) {
  const [mostMessages, mostBytes] = outputBound(received.length, data.length);
  const size = sent.reduce((total, text) => total + Buffer.byteLength(text) + 1, 0);
  if (size > mostBytes)
    throw new Error(`growth: the ${side}'s end wrote ${size} bytes for ${data.length} (at most ${mostBytes})`);
  if (sent.length > mostMessages)
    throw new Error(`growth: the ${side}'s end wrote ${sent.length} messages (at most ${mostMessages})`);
  for (const text of sent) {
    const message = JSON.parse(text);
    if (message === null || typeof message !== "object" || message.jsonrpc !== "2.0")
      throw new Error(`the ${side}'s end wrote what is not a JSON-RPC 2.0 message: ${text}`);
  }
  const accounted = counts.answered + counts.dropped + counts.handled + counts.settled;
  if (accounted > received.length || accounted < received.length - allowance)
    throw new Error(
      `the ${side}'s end read ${received.length} messages and accounted for ${accounted}: ${counts.answered} answered, ` +
        `${counts.dropped} reported, ${counts.handled} handled, ${counts.settled} settled a call`,
    );
}

async function agentEnd(data) {
  const counts = tally();
  const sent = [];
  const end = acp.connectAgent(agent(counts), sender(sent, counts), {
    dropped: () => {
      counts.dropped += 1;
    },
  });
  const received = lines(data);
  for (const text of received) await end.receive(text);
  await settle(() => counts.answered + counts.dropped + counts.handled >= received.length);
  end.close();
  await turn();
  check("agent", received, data, sent, counts, 0);
}

async function clientEnd(data) {
  const counts = tally();
  const sent = [];
  const end = acp.connectClient(() => client(counts), sender(sent, counts), {
    dropped: () => {
      counts.dropped += 1;
    },
  });
  let closed = 0;
  let pending = 0;
  let promptClosed = false;
  const call = (method, params, prompt) => {
    pending += 1;
    end.request(method, params).then(
      () => {
        counts.settled += 1;
        pending -= 1;
      },
      (error) => {
        pending -= 1;
        if (error?.message === "the connection is closed") {
          closed += 1;
          promptClosed ||= prompt;
        } else counts.settled += 1;
      },
    );
  };
  call("initialize", { protocolVersion: 1 }, false);
  call("session/new", { cwd: "/", mcpServers: [] }, false);
  call("session/prompt", { sessionId: "s", prompt: [] }, true);
  await turn();
  const received = lines(data);
  for (const text of received) await end.receive(text);
  await settle(
    () => counts.answered + counts.dropped + counts.handled + counts.settled >= received.length - (pending > 0 ? 1 : 0),
  );
  end.close();
  await settle(() => pending === 0);
  if (pending > 0) throw new Error("hang: a call of the client's end has not settled after its end closed");
  check("client", received, data, sent, counts, promptClosed ? 1 : 0);
}

export async function fuzz(data) {
  let timer;
  const hang = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: the ends did not finish within ${HANG} ms`)), HANG);
  });
  try {
    await Promise.race([
      (async () => {
        await agentEnd(data);
        await clientEnd(data);
      })(),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
