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

import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { createInterface } from "node:readline";

const acp = await import(process.env.ACP_PACKAGE);

const args = process.argv.slice(2);
const options = { prompts: [] };
for (let index = 0; index < args.length; index++) {
  const argument = args[index];
  if (argument === "--") {
    options.agent = args.slice(index + 1);
    break;
  }
  const value = args[++index];
  if (argument === "--cwd") options.cwd = value;
  else if (argument === "--trace") options.trace = value;
  else if (argument === "--authenticate") options.authenticate = value;
  else if (argument === "--prompt") options.prompts.push(value);
  else {
    console.error(`unknown argument ${argument}`);
    process.exit(2);
  }
}
if (!options.agent?.length || !options.cwd || !isAbsolute(options.cwd)) {
  console.error("usage: client.mjs --cwd ABSOLUTE_DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...");
  process.exit(2);
}
if (options.prompts.length === 0) options.prompts.push("Read notes.txt, then update it.");
if (options.trace) writeFileSync(options.trace, "");
const record = (direction, line) => {
  if (!options.trace) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    message = line;
  }
  appendFileSync(options.trace, `${JSON.stringify({ direction, message })}\n`);
};

const seen = { updates: {}, permissions: 0, reads: 0, writes: 0, dropped: [] };
const inside = (path) => {
  const full = resolve(options.cwd, path);
  if (!full.startsWith(resolve(options.cwd))) throw new acp.RequestError(-32602, "Invalid params", { outside: full });
  return full;
};

const agent = spawn(options.agent[0], options.agent.slice(1), { cwd: options.cwd, stdio: ["pipe", "pipe", "inherit"] });
const client = acp.connectClient(
  () => ({
    async sessionRequestPermission(params) {
      seen.permissions++;
      const chosen = params.options.find((option) => option.kind === "allow_once") ?? params.options[0];
      return { outcome: chosen === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: chosen.optionId } };
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
      return { content: lines.slice(0, params.limit ?? lines.length).map((line) => `${line}\n`).join("") };
    },
    async fsWriteTextFile(params) {
      writeFileSync(inside(params.path), params.content);
      seen.writes++;
      return {};
    },
  }),
  (text) => {
    record("client-to-agent", text);
    agent.stdin.write(`${text}\n`);
  },
  { dropped: (method, error) => seen.dropped.push(`${method}: ${error.message}`) },
);
createInterface({ input: agent.stdout }).on("line", (line) => {
  if (line.trim() === "") return;
  record("agent-to-client", line);
  void client.receive(line);
});
agent.on("exit", () => client.close(new Error("the agent exited")));

const step = async (what, call) => {
  try {
    return await call();
  } catch (error) {
    throw new Error(`${what}: ${error?.message ?? error} ${JSON.stringify(error?.data ?? "")}`);
  }
};
try {
  const initialized = await step("initialize", () =>
    client.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: "acp-codegen interop client (TypeScript)", version: "0.1.0" },
    }),
  );
  if (options.authenticate) await step("authenticate", () => client.request("authenticate", { methodId: options.authenticate }));
  const session = await step("session/new", () => client.request("session/new", { cwd: options.cwd, mcpServers: [] }));
  const stopReasons = [];
  for (const text of options.prompts) {
    const response = await step("session/prompt", () => client.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] }));
    stopReasons.push(response.stopReason);
  }
  console.log(JSON.stringify({ agent: initialized.agentInfo ?? null, stopReasons, ...seen }));
  agent.kill();
  process.exit(0);
} catch (error) {
  console.error(`FAIL: ${error.message} (dropped: ${JSON.stringify(seen.dropped)})`);
  agent.kill();
  process.exit(1);
}
