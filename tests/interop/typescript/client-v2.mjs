// Our TypeScript client on protocol v2, for the interop matrix: the same
// session as `tests/interop/rust-v2/src/bin/client_v2.rs`, on the connection
// of the v2 stable bindings' package (`ACP_PACKAGE` names its built
// `dist/index.js`). A prompt call resolves once its turn is drained (the
// acknowledgement, then the `idle` that ends the turn, handled); the turn's
// stop reason is that `idle`'s. It runs the agent command given after `--`
// over its stdio, answers permission requests with the first "allow once"
// option, prints what it saw as JSON and exits 0 when every prompt's turn
// ended, else names the first failure. `--trace FILE` records every message.
//
// node client-v2.mjs --cwd DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...

import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { isAbsolute } from "node:path";
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
  else if (argument === "--prompt") options.prompts.push(value);
  else {
    console.error(`unknown argument ${argument}`);
    process.exit(2);
  }
}
if (!options.agent?.length || !options.cwd || !isAbsolute(options.cwd)) {
  console.error("usage: client-v2.mjs --cwd ABSOLUTE_DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...");
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

const seen = { updates: {}, permissions: 0, dropped: [] };
/** The stop reason of the last `idle` handled (`null` when it gave none). */
let idle = undefined;

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
      if (kind === "state_update" && params.update.state === "idle") idle = params.update.stopReason ?? null;
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
    client.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, info: { name: "acp-codegen interop client (TypeScript, v2)", version: "0.1.0" } }),
  );
  const session = await step("session/new", () => client.request("session/new", { cwd: options.cwd }));
  const stopReasons = [];
  for (const text of options.prompts) {
    idle = undefined;
    await step("session/prompt", () => client.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] }));
    if (idle === undefined) throw new Error("session/prompt: the call resolved before an idle ended its turn");
    stopReasons.push(idle);
  }
  console.log(JSON.stringify({ agent: initialized.info ?? null, stopReasons, ...seen }));
  agent.kill();
  process.exit(0);
} catch (error) {
  console.error(`FAIL: ${error.message} (dropped: ${JSON.stringify(seen.dropped)})`);
  agent.kill();
  process.exit(1);
}
