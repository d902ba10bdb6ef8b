// Our TypeScript agent, for the interop matrix: the same turn as
// `tests/interop/rust/src/bin/agent.rs`, on the generated package's
// connection (`ACP_PACKAGE` names its built `dist/index.js`) over its own
// stdio. `ACP_INTEROP_TRACE` names a file that records every message.

import { join } from "node:path";

import { serveAgent } from "./stdio.mjs";

const acp = await import(process.env.ACP_PACKAGE);

let client = undefined;
const sessions = new Map();
serveAgent(acp, (connection) => ({
  async initialize(params) {
    client = params.clientCapabilities;
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentInfo: { name: "acp-codegen interop agent (TypeScript)", version: "0.1.0" },
    };
  },
  async sessionNew(params) {
    const id = `session-${sessions.size + 1}`;
    sessions.set(id, params.cwd);
    return { sessionId: id };
  },
  async sessionPrompt(params) {
    const sessionId = params.sessionId;
    if (!sessions.has(sessionId)) throw acp.sessionNotFound(sessionId);
    const notes = join(sessions.get(sessionId), "notes.txt");
    const update = (update) => connection.notify("session/update", { sessionId, update });
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Reading notes.txt." } });
    update({
      sessionUpdate: "tool_call",
      toolCallId: "call-1",
      title: "Read notes.txt",
      kind: "read",
      status: "in_progress",
    });
    const text = client?.fs?.readTextFile
      ? (await connection.request("fs/read_text_file", { sessionId, path: notes })).content
      : "";
    update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text } }],
    });
    const options = [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ];
    const answer = await connection.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "call-2", title: "Edit notes.txt", kind: "edit" },
      options,
    });
    const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
    if (allowed && client?.fs?.writeTextFile)
      await connection.request("fs/write_text_file", { sessionId, path: notes, content: `${text}edited\n` });
    update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: allowed ? "Edited." : "Left as it was." },
    });
    return { stopReason: "end_turn" };
  },
}));
