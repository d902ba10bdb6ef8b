import { decodeClientIncomingNotification, encode, negotiate, roundtrip } from {{ module }};

// Decode a value by its schema type name and encode it back.
const block = roundtrip("ContentBlock", { type: "text", text: "hello" });
console.log(`ContentBlock: ${JSON.stringify(block)}`);

// Decode the params of a notification the client receives, by method.
const params = { sessionId: "s-1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } } };
const call = decodeClientIncomingNotification("session/update", params);
if (call.ok && call.value.method === "session/update") {
  console.log(`session/update: ${JSON.stringify(encode(call.value.params.update))}`);
}

// Negotiate from one initialize exchange, then check what may be sent.
const request = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } };
const response = { protocolVersion: 1, agentCapabilities: { loadSession: true } };
const negotiated = negotiate(request, response);
console.log(`client handles fs/read_text_file: ${negotiated.clientHandles("fs/read_text_file")}`);
console.log(`agent handles session/load: ${negotiated.agentHandles("session/load")}`);
const prompt = { sessionId: "s-1", prompt: [{ type: "image", data: "AA==", mimeType: "image/png" }] };
const refused = negotiated.checkOutgoing("session/prompt", prompt);
if (refused !== null) {
  console.log(`refused session/prompt at: ${JSON.stringify(refused.pointer)}`);
}
