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

import { clientOptions, permissionOutcome, runClient } from "./stdio.mjs";

const acp = await import(process.env.ACP_PACKAGE);
const options = clientOptions("client-v2.mjs --cwd ABSOLUTE_DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...", {
  authenticate: false,
});

const seen = { updates: {}, permissions: 0, dropped: [] };
/** The stop reason of the last `idle` handled (`null` when it gave none). */
let idle = undefined;
const handlers = {
  async sessionRequestPermission(params) {
    seen.permissions++;
    return permissionOutcome(params);
  },
  async sessionUpdate(params) {
    const kind = params.update.sessionUpdate;
    seen.updates[kind] = (seen.updates[kind] ?? 0) + 1;
    if (kind === "state_update" && params.update.state === "idle") idle = params.update.stopReason ?? null;
  },
};

await runClient(acp, options, seen, handlers, async (client, step) => {
  const initialized = await step("initialize", () =>
    client.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      info: { name: "acp-codegen interop client (TypeScript, v2)", version: "0.1.0" },
    }),
  );
  const session = await step("session/new", () => client.request("session/new", { cwd: options.cwd }));
  const stopReasons = [];
  for (const text of options.prompts) {
    idle = undefined;
    await step("session/prompt", () =>
      client.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] }),
    );
    if (idle === undefined) throw new Error("session/prompt: the call resolved before an idle ended its turn");
    stopReasons.push(idle);
  }
  return { agent: initialized.info ?? null, stopReasons, ...seen };
});
