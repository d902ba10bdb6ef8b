// A small client on the official TypeScript SDK (`@agentclientprotocol/sdk`),
// for the interop matrix: the same command line, session and summary as our
// clients (`tests/interop/typescript/client.mjs`), written the way the SDK's
// README writes a client (`client({ name })`, `onRequest` and
// `onNotification` with the method constants, `connectWith` on an
// `ndJsonStream`, calls through `request`). It runs the agent command
// given after `--` over its stdio, answers permission requests with the first
// "allow once" option, serves file reads and writes inside `--cwd`, prints
// what it saw as JSON and exits 0 when every prompt ended with a stop reason,
// else names the first failure. `--trace FILE` records every message (the
// SDK has no hook for them, so its message stream is wrapped).
//
// node client.mjs --cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";

import { clientOptions, recorder } from "./common.mjs";

const options = clientOptions(
  "client.mjs --cwd ABSOLUTE_DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...",
  { authenticate: true },
);
const recording = recorder(options.trace);

const seen = { updates: {}, permissions: 0, reads: 0, writes: 0, dropped: [] };
const inside = (path) => {
  const full = resolve(options.cwd, path);
  if (!full.startsWith(resolve(options.cwd))) throw acp.RequestError.invalidParams({ outside: full });
  return full;
};

const app = acp
  .client({ name: "official TypeScript SDK interop client" })
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
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    const text = readFileSync(inside(params.path), "utf8");
    seen.reads++;
    if (params.line == null && params.limit == null) return { content: text };
    const lines = text.split("\n").slice(Math.max((params.line ?? 1) - 1, 0));
    return {
      content: lines
        .slice(0, params.limit ?? lines.length)
        .map((line) => `${line}\n`)
        .join(""),
    };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    writeFileSync(inside(params.path), params.content);
    seen.writes++;
    return {};
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
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: "official TypeScript SDK interop client", version: "2.4.0" },
      }),
    );
    if (options.authenticate)
      await step("authenticate", () =>
        connection.request(acp.methods.agent.authenticate, { methodId: options.authenticate }),
      );
    const { sessionId } = await step("session/new", () =>
      connection.request(acp.methods.agent.session.new, { cwd: options.cwd, mcpServers: [] }),
    );
    const stopReasons = [];
    for (const text of options.prompts) {
      const response = await step("session/prompt", () =>
        connection.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
      );
      stopReasons.push(response.stopReason);
    }
    return { agent: initialized.agentInfo ?? null, stopReasons, ...seen };
  });
  console.log(JSON.stringify(summary));
  agent.kill();
  process.exit(0);
} catch (error) {
  console.error(`FAIL: ${error.message} (dropped: ${JSON.stringify(seen.dropped)})`);
  agent.kill();
  process.exit(1);
}
