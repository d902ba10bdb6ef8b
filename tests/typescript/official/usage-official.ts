// The program of `../usage.ts` written with the official SDK's app API,
// kept to compare the two: the same agent, client, messages and checks.
// `cargo xtask test` installs the pinned SDK (`package.json` here), compiles
// this under `tsc --strict` and runs it.

import { agent, client, type SessionUpdate } from "@agentclientprotocol/sdk";

const log: string[] = [];

const echoAgent = agent()
  .onRequest("initialize", () => ({ protocolVersion: 1 }))
  .onRequest("session/new", () => ({ sessionId: "session-1" }))
  .onRequest("session/prompt", async ({ params: { sessionId, prompt }, client }) => {
    const send = (update: SessionUpdate) => client.notify("session/update", { sessionId, update });
    const first = prompt[0];
    await send({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: first?.type === "text" ? `You said: ${first.text}` : "?" },
    });
    await send({
      sessionUpdate: "tool_call",
      toolCallId: "call-1",
      title: "Reading notes.md",
      kind: "read",
      status: "in_progress",
    });
    await send({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "# Notes" } }],
    });
    await send({
      sessionUpdate: "plan",
      entries: [{ content: "Summarize the notes", priority: "high", status: "pending" }],
    });
    await send({ sessionUpdate: "_zed/cursor", line: 3 } as unknown as SessionUpdate);
    return { stopReason: "end_turn" as const };
  });

const demoClient = client()
  .onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" as const } }))
  .onNotification("session/update", ({ params: { update } }) => {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        log.push(update.content.type === "text" ? update.content.text : `[${update.content.type}]`);
        break;
      case "tool_call":
        log.push(`tool ${update.toolCallId}: ${update.title}`);
        break;
      case "tool_call_update":
        log.push(`tool ${update.toolCallId} ${update.status ?? "updated"} with ${update.content?.length ?? 0} content`);
        break;
      case "plan":
        log.push(`plan: ${update.entries.map((entry) => entry.content).join(", ")}`);
        break;
      default:
        log.push(`not shown: ${update.sessionUpdate}`);
    }
  });

const connection = demoClient.connect(echoAgent);
await connection.agent.request("initialize", { protocolVersion: 1 });
const answer = await connection.agent.request("session/prompt", {
  sessionId: "session-1",
  prompt: [{ type: "text", text: "hello" }],
});
await new Promise((resolve) => setTimeout(resolve, 10));
if (answer.stopReason !== "end_turn") throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
const expected = [
  "You said: hello",
  "tool call-1: Reading notes.md",
  "tool call-1 completed with 1 content",
  "plan: Summarize the notes",
];
if (JSON.stringify(log.slice(0, 4)) !== JSON.stringify(expected))
  throw new Error(`the client saw ${JSON.stringify(log, null, 2)}`);
connection.close();
