// A small protocol v2 agent on the official TypeScript SDK's v2 API
// (`@agentclientprotocol/sdk/experimental/v2`), for the interop matrix: the
// same v2 turn as our v2 agents (`tests/interop/typescript/agent-v2.mjs`),
// written the way `agent.mjs` writes its v1 agent (`agent({ name })`,
// `onRequest` with the method constants, `connect` on an `ndJsonStream` over
// stdio). A prompt is acknowledged at once (`running`, then the response
// with its message id) and its turn is played after: the user message
// echoed, a chunk, a tool call (in progress), a permission request, the tool
// call's end (completed when allowed, failed when not), a closing chunk and
// `idle`. `ACP_INTEROP_TRACE` names a file that records every message (the
// SDK's message stream is wrapped).

import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk/experimental/v2";

import { recorder } from "./common.mjs";

const recording = recorder(process.env.ACP_INTEROP_TRACE);

let sessions = 0;
let messages = 0;

/** The turn after its acknowledgement, ended by `idle` (`error` when a call failed). */
async function turn(client, sessionId, prompt, messageId) {
  const update = (update) => client.notify(acp.methods.client.session.update, { sessionId, update });
  const reply = `reply-to-${messageId}`;
  const chunk = (text) =>
    update({ sessionUpdate: "agent_message_chunk", messageId: reply, content: { type: "text", text } });
  let stopReason = "end_turn";
  try {
    await update({ sessionUpdate: "user_message", messageId, content: prompt });
    await chunk("Editing notes.txt.");
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      title: "Edit notes.txt",
      kind: "edit",
      status: "in_progress",
    });
    const answer = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      title: "Edit notes.txt?",
      subject: { type: "tool_call", toolCall: { toolCallId: "call-1" } },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: allowed ? "completed" : "failed" });
    await chunk(allowed ? "Edited." : "Left as it was.");
  } catch (error) {
    console.error(`the turn of ${messageId} failed: ${error?.message ?? error}`);
    stopReason = "error";
  }
  await update({ sessionUpdate: "state_update", state: "idle", stopReason });
}

const app = acp
  .agent({ name: "official TypeScript SDK interop agent (v2)" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "official TypeScript SDK interop agent (v2)", version: "2.4.0" },
    capabilities: { session: {} },
  }))
  .onRequest(acp.methods.agent.session.new, () => {
    sessions += 1;
    return { sessionId: `official-session-${sessions}` };
  })
  .onRequest(acp.methods.agent.session.close, () => ({}))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    messages += 1;
    const messageId = `message-${messages}`;
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: "state_update", state: "running" },
    });
    setImmediate(() => void turn(client, params.sessionId, params.prompt, messageId));
    return { messageId };
  });

const stdio = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const sent = recording("agent-to-client");
void sent.readable.pipeTo(stdio.writable).catch(() => {});
const connection = app.connect({
  readable: stdio.readable.pipeThrough(recording("client-to-agent")),
  writable: sent.writable,
});
await connection.closed;
