// The bindings used as a programmer would: a small agent and client, each
// one end of a connection, joined by a wire that carries JSON text. The
// client prompts; the agent streams a message chunk, a tool call, its update
// with content and a plan, then answers; the client switches on the update
// kind, and hears of the `_zed/cursor` update this protocol version does not
// know. `usage-wire.mjs` runs this program and checks that every message on
// the wire round-trips through the package. `cargo xtask test` compiles it
// against the installed package under `tsc --strict`, with and without
// `exactOptionalPropertyTypes`, on the protocol v1 schemas' bindings.
// `usage-official.ts` is the same program written with the official SDK.

import type { Agent, Client, SessionUpdate } from "acp-bindings";
import { connectAgent, connectClient } from "acp-bindings";

export const wire: string[] = [];
const log: string[] = [];

const agentEnd = connectAgent(
  (client): Agent => ({
    initialize: () => ({ protocolVersion: 1 }),
    sessionNew: () => ({ sessionId: "session-1" }),
    sessionPrompt: ({ sessionId, prompt }) => {
      const send = (update: SessionUpdate) => client.notify("session/update", { sessionId, update });
      const first = prompt[0];
      send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: first?.type === "text" ? `You said: ${first.text}` : "?" },
      });
      send({
        sessionUpdate: "tool_call",
        toolCallId: "call-1",
        title: "Reading notes.md",
        kind: "read",
        status: "in_progress",
      });
      send({
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "# Notes" } }],
      });
      send({
        sessionUpdate: "plan",
        entries: [{ content: "Summarize the notes", priority: "high", status: "pending" }],
      });
      send({ sessionUpdate: "_zed/cursor", line: 3 } as unknown as SessionUpdate);
      return { stopReason: "end_turn" };
    },
  }),
  (text) => {
    wire.push(text);
    void clientEnd.receive(text);
  },
);

const demoClient: Client = {
  sessionRequestPermission: () => ({ outcome: { outcome: "cancelled" } }),
  sessionUpdate: ({ update }) => {
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
  },
};

const clientEnd = connectClient(
  () => demoClient,
  (text) => {
    wire.push(text);
    void agentEnd.receive(text);
  },
  { dropped: ({ method, error }) => log.push(`dropped ${method}: ${error.message}`) },
);
await clientEnd.request("initialize", { protocolVersion: 1 });
const answer = await clientEnd.request("session/prompt", {
  sessionId: "session-1",
  prompt: [{ type: "text", text: "hello" }],
});
if (answer.stopReason !== "end_turn") throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
const expected = [
  "You said: hello",
  "tool call-1: Reading notes.md",
  "tool call-1 completed with 1 content",
  "plan: Summarize the notes",
];
if (JSON.stringify(log.slice(0, 4)) !== JSON.stringify(expected) || !log[4]?.includes('unknown tag "_zed/cursor"'))
  throw new Error(`the client saw ${JSON.stringify(log, null, 2)}`);
