// Our TypeScript agent on protocol v2, for the interop matrix: the same turn
// as `tests/interop/rust-v2/src/bin/agent_v2.rs`, played by the TypeScript
// test agent (`tests/typescript/scripted-agent.mjs`, its `notes` turn) on the
// connection of the v2 stable bindings' package (`ACP_PACKAGE` names its
// built `dist/index.js`) over its own stdio. A prompt is acknowledged at
// once (`running`, then the response) and its turn is played after: the
// user message echoed, a chunk, a tool call (in progress), a permission
// request, the tool call's end, a closing chunk and `idle`.
// `ACP_INTEROP_TRACE` names a file that records every message.

import { scriptedAgent } from "../../typescript/scripted-agent.mjs";
import { serveAgent } from "./stdio.mjs";

const acp = await import(process.env.ACP_PACKAGE);

serveAgent(
  acp,
  scriptedAgent(acp, {
    turn: "notes",
    info: { name: "acp-codegen interop agent (TypeScript, v2)", version: "0.1.0" },
    capabilities: { session: {} },
  }),
);
