// The bindings used as a programmer would: a small agent and client joined
// through the generated dispatchers by a wire that carries JSON text. The
// client prompts; the agent streams a message chunk, a tool call, its update
// with content and a plan, then answers; the client switches on the update
// kind, and hears of the `_zed/cursor` update this protocol version does not
// know. Every message that crosses the wire must round-trip through the
// package. `cargo xtask test` compiles this against the installed package
// under `tsc --strict`, with and without `exactOptionalPropertyTypes`, and
// runs it with Node on the protocol v1 schemas' bindings.

import type { Agent, Client, JsonValue, PromptRequest, PromptResponse, SessionNotification, SessionUpdate } from "acp-bindings";
import { decodeAgentResult, dispatchAgentMessage, dispatchClientMessage, encodeAgentRequest, encodeClientNotification, roundtrip } from "acp-bindings";

/** JSON equality, member order aside. */
function same(left: unknown, right: unknown): boolean {
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return left === right;
  const keys = Object.keys(left);
  const other = right as { [key: string]: unknown };
  return keys.length === Object.keys(right).length && keys.every((key) => same((left as { [key: string]: unknown })[key], other[key]));
}

/** Sends `message` as JSON text, checking that its params (of `typeName`) round-trip. */
function wire(message: JsonValue, typeName: string): unknown {
  const received: unknown = JSON.parse(JSON.stringify(message));
  const params = (received as { params?: unknown }).params;
  if (!same(roundtrip(typeName, params), params)) throw new Error(`${typeName} does not round-trip: ${JSON.stringify(params)}`);
  return received;
}

class EchoAgent implements Agent {
  constructor(private readonly client: DemoClient) {}

  initialize = () => ({ protocolVersion: 1 });
  authenticate = () => ({});
  sessionNew = () => ({ sessionId: "session-1" });
  sessionSetMode = () => ({});
  sessionSetConfigOption = () => ({ configOptions: [] });
  cancelRequest() {}
  sessionCancel() {}

  async sessionPrompt({ sessionId, prompt }: PromptRequest): Promise<PromptResponse> {
    const send = (update: SessionUpdate) => this.client.receive(wire(encodeClientNotification("session/update", { sessionId, update }), "SessionNotification"));
    const first = prompt[0];
    await send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: first?.type === "text" ? `You said: ${first.text}` : "?" } });
    await send({ sessionUpdate: "tool_call", toolCallId: "call-1", title: "Reading notes.md", kind: "read", status: "in_progress" });
    await send({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "# Notes" } }],
    });
    await send({ sessionUpdate: "plan", entries: [{ content: "Summarize the notes", priority: "high", status: "pending" }] });
    const cursor = { jsonrpc: "2.0", method: "session/update", params: { sessionId, update: { sessionUpdate: "_zed/cursor", line: 3 } } };
    await this.client.receive(JSON.parse(JSON.stringify(cursor)));
    return { stopReason: "end_turn" };
  }
}

class DemoClient implements Client {
  readonly log: string[] = [];

  receive(message: unknown) {
    return dispatchClientMessage(this, message, (method, error) => this.log.push(`dropped ${method}: ${error.message}`));
  }

  sessionRequestPermission = () => ({ outcome: { outcome: "cancelled" as const } });
  cancelRequest() {}
  elicitationComplete() {}

  sessionUpdate({ update }: SessionNotification) {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        this.log.push(update.content.type === "text" ? update.content.text : `[${update.content.type}]`);
        break;
      case "tool_call":
        this.log.push(`tool ${update.toolCallId}: ${update.title}`);
        break;
      case "tool_call_update":
        this.log.push(`tool ${update.toolCallId} ${update.status ?? "updated"} with ${update.content?.length ?? 0} content`);
        break;
      case "plan":
        this.log.push(`plan: ${update.entries.map((entry) => entry.content).join(", ")}`);
        break;
      default:
        this.log.push(`not shown: ${update.sessionUpdate}`);
    }
  }
}

const client = new DemoClient();
const agent = new EchoAgent(client);
const request = encodeAgentRequest(1, "session/prompt", { sessionId: "session-1", prompt: [{ type: "text", text: "hello" }] });
const response = await dispatchAgentMessage(agent, wire(request, "PromptRequest"));
if (response === null || !("result" in response)) throw new Error(`session/prompt failed: ${JSON.stringify(response)}`);
const answer = decodeAgentResult("session/prompt", response.result);
if (!answer.ok || answer.value.stopReason !== "end_turn" || !same(roundtrip("PromptResponse", response.result), response.result)) {
  throw new Error(`unexpected answer ${JSON.stringify(response)}`);
}
const expected = [
  "You said: hello",
  "tool call-1: Reading notes.md",
  "tool call-1 completed with 1 content",
  "plan: Summarize the notes",
  'dropped session/update: invalid params for "session/update": cannot decode SessionNotification: at "/update/sessionUpdate": unknown tag "_zed/cursor"',
];
if (!same(client.log.slice(0, 4), expected.slice(0, 4)) || !client.log[4]?.startsWith(expected[4] ?? "")) {
  throw new Error(`the client saw ${JSON.stringify(client.log, null, 2)}`);
}
