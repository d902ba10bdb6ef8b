// Our TypeScript client, for the interop matrix: the same session as
// `tests/interop/rust/src/bin/client.rs`, on the generated package's
// connection (`ACP_PACKAGE` names its built `dist/index.js`). It runs the
// agent command given after `--` over its stdio, answers permission requests
// with the first "allow once" option, serves file reads and writes inside
// `--cwd`, prints what it saw as JSON and exits 0 when every prompt ended
// with a stop reason, else names the first failure. `--trace FILE` records
// every message.
//
// node client.mjs --cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...

import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

import { clientOptions, permissionOutcome, runClient } from "./stdio.mjs";

const acp = await import(process.env.ACP_PACKAGE);
const options = clientOptions(
  "client.mjs --cwd ABSOLUTE_DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...",
  { authenticate: true },
);

const seen = { updates: {}, permissions: 0, reads: 0, writes: 0, dropped: [] };
const inside = (path) => {
  const full = resolve(options.cwd, path);
  if (!full.startsWith(resolve(options.cwd))) throw new acp.RequestError(-32602, "Invalid params", { outside: full });
  return full;
};
const handlers = {
  async sessionRequestPermission(params) {
    seen.permissions++;
    return permissionOutcome(params);
  },
  async sessionUpdate(params) {
    const kind = params.update.sessionUpdate;
    seen.updates[kind] = (seen.updates[kind] ?? 0) + 1;
  },
  async fsReadTextFile(params) {
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
  },
  async fsWriteTextFile(params) {
    writeFileSync(inside(params.path), params.content);
    seen.writes++;
    return {};
  },
};

await runClient(acp, options, seen, handlers, async (client, step) => {
  const initialized = await step("initialize", () =>
    client.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: "acp-codegen interop client (TypeScript)", version: "0.1.0" },
    }),
  );
  if (options.authenticate)
    await step("authenticate", () => client.request("authenticate", { methodId: options.authenticate }));
  const session = await step("session/new", () => client.request("session/new", { cwd: options.cwd, mcpServers: [] }));
  const stopReasons = [];
  for (const text of options.prompts) {
    const response = await step("session/prompt", () =>
      client.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] }),
    );
    stopReasons.push(response.stopReason);
  }
  return { agent: initialized.agentInfo ?? null, stopReasons, ...seen };
});
