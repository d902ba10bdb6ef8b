// A small protocol v2 client on the official TypeScript SDK's v2 API
// (`@agentclientprotocol/sdk/experimental/v2`), for the interop matrix: the
// same command line, session and summary as our v2 clients
// (`tests/interop/typescript/client-v2.mjs`), written the way `client.mjs`
// writes its v1 client (`client({ name })`, `onRequest` with the method
// constants, `connectWith` on an `ndJsonStream`), the session started with
// the SDK's `buildSession(cwd).start()`. A prompt resolves once
// the agent acknowledges it; the session's updates are then read with
// `nextUpdate` up to the `stop` (the `idle`) that ends its turn, whose stop
// reason is the turn's. It runs the agent command given after `--` over its
// stdio, answers permission requests with the first "allow once" option,
// prints what it saw as JSON and exits 0 when every prompt's turn ended,
// else names the first failure. `--trace FILE` records every message (the
// SDK's message stream is wrapped).
//
// node client-v2.mjs --cwd DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk/experimental/v2";

import { clientOptions, recorder } from "./common.mjs";

const options = clientOptions("client-v2.mjs --cwd ABSOLUTE_DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...", {
  authenticate: false,
});
const recording = recorder(options.trace);

const seen = { updates: {}, permissions: 0, dropped: [] };

const app = acp
  .client({ name: "official TypeScript SDK interop client (v2)" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    seen.permissions++;
    const chosen = params.options.find((option) => option.kind === "allow_once") ?? params.options[0];
    return {
      outcome: chosen === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: chosen.optionId },
    };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    seen.updates[params.update.sessionUpdate] = (seen.updates[params.update.sessionUpdate] ?? 0) + 1;
  })
  .onNotification("*", ({ method }) => {
    seen.dropped.push(`${method}: no handler`);
  });

const agent = spawn(options.agent[0], options.agent.slice(1), { cwd: options.cwd, stdio: ["pipe", "pipe", "inherit"] });
const stdio = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const sent = recording("client-to-agent");
void sent.readable.pipeTo(stdio.writable).catch(() => {});
const stream = { readable: stdio.readable.pipeThrough(recording("agent-to-client")), writable: sent.writable };

const step = async (what, call) => {
  try {
    return await call();
  } catch (error) {
    throw new Error(`${what}: ${error?.message ?? error} ${JSON.stringify(error?.data ?? "")}`);
  }
};
try {
  const summary = await app.connectWith(stream, async (connection) => {
    const initialized = await step("initialize", () =>
      connection.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        info: { name: "official TypeScript SDK interop client (v2)", version: "2.4.0" },
      }),
    );
    const session = await step("session/new", () => connection.buildSession(options.cwd).start());
    const stopReasons = [];
    for (const text of options.prompts) {
      await step("session/prompt", () => session.prompt(text));
      let message;
      do message = await step("the turn", () => session.nextUpdate());
      while (message.kind !== "stop");
      stopReasons.push(message.stopReason ?? null);
    }
    return { agent: initialized.info ?? null, stopReasons, ...seen };
  });
  console.log(JSON.stringify(summary));
  agent.kill();
  process.exit(0);
} catch (error) {
  console.error(`FAIL: ${error.message} (dropped: ${JSON.stringify(seen.dropped)})`);
  agent.kill();
  process.exit(1);
}
