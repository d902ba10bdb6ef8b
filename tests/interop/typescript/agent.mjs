// Our TypeScript agent, for the interop matrix: the same turn as
// `tests/interop/rust/src/bin/agent.rs`, played by the TypeScript test agent
// (`tests/typescript/scripted-agent.mjs`, its `notes` turn) on the generated
// package's connection (`ACP_PACKAGE` names its built `dist/index.js`) over
// its own stdio. `ACP_INTEROP_TRACE` names a file that records every message.

import { scriptedAgent } from "../../typescript/scripted-agent.mjs";
import { serveAgent } from "./stdio.mjs";

const acp = await import(process.env.ACP_PACKAGE);

serveAgent(
  acp,
  scriptedAgent(acp, { turn: "notes", info: { name: "acp-codegen interop agent (TypeScript)", version: "0.1.0" } }),
);
