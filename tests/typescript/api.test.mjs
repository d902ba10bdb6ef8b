// The TypeScript package's programming interface at run time, on bindings of
// any supported schema (only methods and types they all share): a value no
// decode rule changes decodes and encodes as itself, encoding
// leaves out `undefined` members, type guards pick the variant the decoder
// picks, calls decode by method name (an unknown method apart from invalid
// params), and the dispatchers route calls to an implementation and encode
// its answer. The folder comes from `ACP_BINDINGS`, as for
// `vectors.test.mjs`.

import assert from "node:assert/strict";
import { test } from "node:test";

import { loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) {
  throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
}
const bindings = await loadBindings(folder);

const prompt = { sessionId: "session-1", prompt: [{ type: "text", text: "hello" }] };
/** A `session/prompt` result in the shape of protocol v1 and v2. */
const answer = { stopReason: "end_turn", messageId: "message-1" };

function request(method, params, id = 1) {
  return { jsonrpc: "2.0", id, method, params };
}

test("encode leaves out members set to undefined, at any depth", () => {
  assert.deepEqual(bindings.encode({ text: "hi", annotations: undefined, _meta: { kept: 1, dropped: undefined } }), {
    text: "hi",
    _meta: { kept: 1 },
  });
  assert.deepEqual(
    bindings.encodeAgentRequest(7, "session/prompt", { ...prompt, _meta: undefined }),
    request("session/prompt", prompt, 7),
  );
  assert.throws(() => bindings.encode(undefined), TypeError);
});

test("a value no decode rule changes decodes and encodes as itself", () => {
  const wire = JSON.parse(JSON.stringify(prompt));
  const decoded = bindings.decodePromptRequest(wire);
  assert.ok(decoded.ok);
  assert.equal(decoded.value, wire);
  assert.equal(bindings.encode(decoded.value), wire);
  assert.deepEqual(wire, prompt);
});

test("type guards pick the variant the decoder picks", () => {
  const slider = { type: "_example/slider", maximum: 10 };
  assert.equal(bindings.isElicitationPropertySchemaString({ type: "string" }), true);
  assert.equal(bindings.isElicitationPropertySchemaString(slider), false);
  assert.equal(bindings.isElicitationPropertySchemaOther(slider), true);
  assert.equal(bindings.isElicitationPropertySchemaOther({ type: "string" }), false);
  assert.equal(bindings.isElicitationContentValueString("text"), true, "an untagged union");
  assert.equal(bindings.isElicitationContentValueString(5), false);
  for (const value of ["text", 5, 1.5, true]) {
    const decoded = bindings.decodeByName("ElicitationContentValue", value);
    assert.ok(decoded.ok);
    const picked = ["String", "Integer", "Number", "Boolean"].filter((variant) =>
      bindings[`isElicitationContentValue${variant}`](value),
    );
    assert.equal(picked.length, 1, `${JSON.stringify(value)} is ${picked.join(", ")}`);
    assert.equal(bindings.variantIndex("ElicitationContentValue", value) >= 0, true);
  }
});

test("calls decode by method name: unknown methods and invalid params apart", () => {
  const decoded = bindings.decodeAgentIncomingRequest("session/prompt", prompt);
  assert.ok(decoded.ok);
  assert.equal(decoded.value.method, "session/prompt");
  assert.deepEqual(decoded.value.params, prompt);

  const unknown = bindings.decodeAgentIncomingRequest("session/no_such_method", prompt);
  assert.equal(unknown.ok, false);
  assert.equal(unknown.error.code, -32601);
  assert.deepEqual(unknown.error.data, { method: "session/no_such_method" });

  const invalid = bindings.decodeAgentIncomingRequest("session/prompt", {
    sessionId: "session-1",
    prompt: [{ type: "text", text: 5 }],
  });
  assert.equal(invalid.ok, false);
  assert.equal(invalid.error.code, -32602);
  assert.equal(invalid.error.data.pointer, "/prompt/0/text");
  assert.match(invalid.error.message, /at "\/prompt\/0\/text"/);
  assert.deepEqual(JSON.parse(JSON.stringify(invalid.error)), invalid.error, "the error is plain JSON");

  const wrongSide = bindings.decodeAgentIncomingNotification("session/update", {});
  assert.equal(wrongSide.ok, false);
  assert.equal(wrongSide.error.code, -32601, "the client handles session/update");

  const extension = bindings.decodeClientIncomingNotification("_example/ping", { count: 1 });
  assert.ok(extension.ok);
  assert.deepEqual(extension.value, { method: "_example/ping", params: { count: 1 } });
  const bare = bindings.decodeAgentIncomingRequest("_example/ping", undefined);
  assert.ok(bare.ok);
  assert.equal(bare.value.params, undefined);

  assert.ok(bindings.decodeAgentResult("session/prompt", answer).ok);
  assert.equal(bindings.decodeAgentResult("session/prompt", { stopReason: 5, messageId: 5 }).ok, false);
});

test("the dispatcher routes requests and encodes the answer or an error", async () => {
  const seen = [];
  const agent = {
    async sessionPrompt(params) {
      seen.push(params);
      return { ...answer, _meta: undefined };
    },
    extensionRequest(method, params) {
      return { method, params };
    },
  };
  assert.deepEqual(await bindings.dispatchAgentMessage(agent, request("session/prompt", prompt)), {
    jsonrpc: "2.0",
    id: 1,
    result: answer,
  });
  assert.deepEqual(seen, [prompt]);
  assert.deepEqual(await bindings.dispatchAgentRequest(agent, "_example/echo", [1]), {
    result: { method: "_example/echo", params: [1] },
  });

  const invalid = await bindings.dispatchAgentMessage(
    agent,
    request("session/prompt", { sessionId: 5, prompt: [] }, "a"),
  );
  assert.equal(invalid.id, "a");
  assert.equal(invalid.error.code, -32602);
  assert.equal(invalid.error.data.pointer, "/sessionId");
  assert.equal(seen.length, 1, "invalid params never reach the handler");

  const absent = await bindings.dispatchAgentMessage(agent, request("initialize", { protocolVersion: 1 }));
  assert.equal(absent.error.code, -32601, "a member the implementation lacks");
  const gated = await bindings.dispatchClientMessage({}, request("elicitation/create", {}));
  assert.equal(gated.error.code, -32601, "an optional member left out answers method-not-found, whatever the params");
  assert.equal((await bindings.dispatchClientRequest({}, "_example/echo", null)).error.code, -32601);

  const failing = {
    sessionPrompt() {
      throw new bindings.RequestError(-32002, "no such session", { sessionId: "session-1" });
    },
  };
  const broken = {
    sessionPrompt() {
      throw new Error("disk full");
    },
  };
  assert.deepEqual((await bindings.dispatchAgentRequest(failing, "session/prompt", prompt)).error, {
    code: -32002,
    message: "no such session",
    data: { sessionId: "session-1" },
  });
  assert.deepEqual((await bindings.dispatchAgentRequest(broken, "session/prompt", prompt)).error, {
    code: -32603,
    message: "disk full",
  });

  for (const message of [null, [], { id: 3, method: "session/prompt" }, { jsonrpc: "2.0", id: 3 }]) {
    const response = await bindings.dispatchAgentMessage(agent, message);
    assert.equal(response.error.code, -32600, JSON.stringify(message));
  }
});

test("the dispatcher delivers notifications and reports the dropped ones", async () => {
  const updates = [];
  const client = {
    sessionUpdate(params) {
      updates.push(params.update.sessionUpdate);
    },
  };
  const dropped = [];
  const deliver = (method, params) =>
    bindings.dispatchClientMessage(client, { jsonrpc: "2.0", method, params }, (name, error) =>
      dropped.push([name, error.code]),
    );
  const chunk = { sessionId: "session-1", update: { sessionUpdate: "session_info_update", title: "Notes" } };
  assert.equal(await deliver("session/update", chunk), null);
  assert.equal(await deliver("session/update", { sessionId: "session-1" }), null);
  assert.equal(await deliver("_example/ping", {}), null);
  assert.deepEqual(updates, ["session_info_update"]);
  assert.deepEqual(dropped, [
    ["session/update", -32602],
    ["_example/ping", -32601],
  ]);
  assert.equal(await bindings.dispatchClientNotification(client, "session/update", chunk), null);
  assert.equal((await bindings.dispatchClientNotification(client, "session/update", {})).data.pointer, "/sessionId");
});

test("a connection pairs requests with their responses, decodes results and reports what it cannot handle", async () => {
  const toClient = [];
  const dropped = [];
  const end = bindings.connectClient(
    () => ({ sessionUpdate: () => {} }),
    (text) => toClient.push(JSON.parse(text)),
    { dropped: ({ method, error, line }) => dropped.push([method, error.code, line]) },
  );

  const answered = end.request("session/prompt", prompt);
  const failed = end.request("session/prompt", prompt);
  const malformed = end.request("session/prompt", prompt);
  assert.deepEqual(
    toClient.map((message) => [message.id, message.method]),
    [
      [1, "session/prompt"],
      [2, "session/prompt"],
      [3, "session/prompt"],
    ],
  );
  assert.deepEqual(toClient[0].params, prompt);
  await end.receive(
    JSON.stringify({ jsonrpc: "2.0", id: 2, error: { code: -32000, message: "auth required", data: { hint: 1 } } }),
  );
  await end.receive(JSON.stringify({ jsonrpc: "2.0", id: 1, result: answer }));
  await end.receive(JSON.stringify({ jsonrpc: "2.0", id: 3, result: { stopReason: 5, messageId: 5 } }));
  if (bindings.PROTOCOL_VERSION === 2) {
    // On protocol v2 a prompt's turn ends with the session's idle state, after its response.
    const idle = {
      sessionId: prompt.sessionId,
      update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
    };
    await end.receive(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: idle }));
  }
  assert.deepEqual(await answered, answer);
  await assert.rejects(
    failed,
    (error) => error instanceof bindings.RequestError && error.code === -32000 && error.data.hint === 1,
  );
  await assert.rejects(
    malformed,
    (error) => error instanceof bindings.DecodeError && error.message.startsWith("cannot decode PromptResponse"),
  );

  await end.receive(JSON.stringify({ jsonrpc: "2.0", id: 9, result: {} }));
  await end.receive("{not json");
  await end.receive(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/request_permission", params: {} }));
  await new Promise((resolve) => setImmediate(resolve));
  // The stray response is the fourth message received (the fifth on v2, after the idle state).
  assert.deepEqual(dropped, [[null, -32600, bindings.PROTOCOL_VERSION === 2 ? 5 : 4]]);
  assert.equal(toClient.at(-2).error.code, -32700);
  assert.deepEqual([toClient.at(-1).id, toClient.at(-1).error.code], [4, -32601]);

  const extension = end.requestExtension("_zed/ping", { n: 1 });
  end.notifyExtension("_zed/cursor", { line: 3 });
  assert.deepEqual(toClient.slice(-2), [
    { jsonrpc: "2.0", id: 4, method: "_zed/ping", params: { n: 1 } },
    { jsonrpc: "2.0", method: "_zed/cursor", params: { line: 3 } },
  ]);
  await end.receive(JSON.stringify({ jsonrpc: "2.0", id: 4, result: { pong: [1] } }));
  assert.deepEqual(await extension, { pong: [1] });

  const pending = end.request("session/prompt", prompt);
  end.close(new Error("gone"));
  await assert.rejects(pending, /gone/);
  await assert.rejects(end.request("session/prompt", prompt), /gone/);
});
