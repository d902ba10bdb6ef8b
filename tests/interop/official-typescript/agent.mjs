// A small agent on the official TypeScript SDK (`@agentclientprotocol/sdk`),
// for the interop matrix: the same turn as `tests/interop/official-rust`,
// written the way the SDK's README writes an agent (`agent({ name })`,
// `onRequest` with the method constants, `connect` on an `ndJsonStream` over
// stdio). `ACP_INTEROP_TRACE` names a file that records every message: the
// SDK has no hook for them, so its message stream is wrapped.

import { join } from "node:path";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";

import { recorder } from "./common.mjs";

const recording = recorder(process.env.ACP_INTEROP_TRACE);

let clientCapabilities = undefined;
const sessions = new Map();
const chunk = (text) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

const app = acp
  .agent({ name: "official TypeScript SDK interop agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientCapabilities = params.clientCapabilities;
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {},
      agentInfo: { name: "official TypeScript SDK interop agent", version: "2.4.0" },
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `official-session-${sessions.size + 1}`;
    sessions.set(sessionId, params.cwd);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const notes = join(sessions.get(sessionId) ?? "", "notes.txt");
    const update = (update) => client.notify(acp.methods.client.session.update, { sessionId, update });
    await update(chunk("Reading notes.txt."));
    await update({
      sessionUpdate: "tool_call",
      toolCallId: "call-1",
      title: "Read notes.txt",
      kind: "read",
      status: "in_progress",
    });
    const text = clientCapabilities?.fs?.readTextFile
      ? (await client.request(acp.methods.client.fs.readTextFile, { sessionId, path: notes })).content
      : "";
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text } }],
    });
    const answer = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId: "call-2", title: "Edit notes.txt", kind: "edit" },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
    if (allowed && clientCapabilities?.fs?.writeTextFile)
      await client.request(acp.methods.client.fs.writeTextFile, { sessionId, path: notes, content: `${text}edited\n` });
    await update(chunk(allowed ? "Edited." : "Left as it was."));
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

const stdio = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const sent = recording("agent-to-client");
void sent.readable.pipeTo(stdio.writable).catch(() => {});
const connection = app.connect({
  readable: stdio.readable.pipeThrough(recording("client-to-agent")),
  writable: sent.writable,
});
await connection.closed;
