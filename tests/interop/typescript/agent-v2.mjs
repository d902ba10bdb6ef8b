// Our TypeScript agent on protocol v2, for the interop matrix: the same turn
// as `tests/interop/rust-v2/src/bin/agent_v2.rs`, on the connection of the
// v2 stable bindings' package (`ACP_PACKAGE` names its built
// `dist/index.js`) over its own stdio. A prompt is acknowledged at once
// (`running`, then the response) and its turn is played after: the user
// message echoed, a chunk, a tool call (in progress), a permission request,
// the tool call's end, a closing chunk and `idle`. `ACP_INTEROP_TRACE` names
// a file that records every message.

import { serveAgent } from "./stdio.mjs";

const acp = await import(process.env.ACP_PACKAGE);

const sessions = new Set();
let messages = 0;

/** The turn after its acknowledgement, ended by `idle` (`error` when a call failed). */
async function turn(connection, sessionId, prompt, messageId) {
  const update = (update) => connection.notify("session/update", { sessionId, update });
  const reply = `reply-to-${messageId}`;
  const chunk = (text) =>
    update({ sessionUpdate: "agent_message_chunk", messageId: reply, content: { type: "text", text } });
  let stopReason = "end_turn";
  try {
    update({ sessionUpdate: "user_message", messageId, content: prompt });
    chunk("Editing notes.txt.");
    update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      title: "Edit notes.txt",
      kind: "edit",
      status: "in_progress",
    });
    const options = [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ];
    const subject = { type: "tool_call", toolCall: { toolCallId: "call-1" } };
    const answer = await connection.request("session/request_permission", {
      sessionId,
      title: "Edit notes.txt?",
      subject,
      options,
    });
    const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
    update({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: allowed ? "completed" : "failed" });
    chunk(allowed ? "Edited." : "Left as it was.");
  } catch (error) {
    console.error(`the turn of ${messageId} failed: ${error?.message ?? error}`);
    stopReason = "error";
  }
  update({ sessionUpdate: "state_update", state: "idle", stopReason });
}

serveAgent(acp, (connection) => ({
  initialize() {
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      info: { name: "acp-codegen interop agent (TypeScript, v2)", version: "0.1.0" },
      capabilities: { session: {} },
    };
  },
  sessionNew() {
    const sessionId = `session-${sessions.size + 1}`;
    sessions.add(sessionId);
    return { sessionId };
  },
  // `session` offers these with `session/new` and `session/prompt`: the end
  // advertises it only when the agent answers them all.
  sessionList() {
    return { sessions: [] };
  },
  sessionResume(params) {
    if (!sessions.has(params.sessionId)) throw acp.sessionNotFound(params.sessionId);
    return {};
  },
  sessionClose() {
    return {};
  },
  sessionPrompt(params) {
    if (!sessions.has(params.sessionId)) throw acp.sessionNotFound(params.sessionId);
    messages += 1;
    const messageId = `message-${messages}`;
    connection.notify("session/update", {
      sessionId: params.sessionId,
      update: { sessionUpdate: "state_update", state: "running" },
    });
    setImmediate(() => void turn(connection, params.sessionId, params.prompt, messageId));
    return { messageId };
  },
}));
