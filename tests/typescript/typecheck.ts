// Type-level checks of a generated package, compiled (never run) by
// `cargo xtask test` under the package's own strict options in the folder it
// installs the packed package into (`<bindings>/ts-consumer/`): the package is
// found by its default name, through its `exports` and `types`, and these
// checks see its `.d.ts` files as any dependant does. Each line after a
// `@ts-expect-error` must fail to compile, and everything else must compile,
// so the checks hold in both directions. Only types every supported schema
// has in the same shape are used.

import type {
  Agent,
  AgentIncomingRequest,
  Client,
  ConnectOptions,
  DecodeResult,
  ElicitationPropertySchema,
  JsonValue,
  MethodName,
  Send,
  TextContent,
} from "acp-bindings";
import {
  connectClient,
  decodeAgentIncomingRequest,
  decodeTextContent,
  encodeAgentRequest,
  isElicitationPropertySchemaOther,
  isElicitationPropertySchemaString,
  METHODS,
  roundtrip,
} from "acp-bindings";

export const minimal: TextContent = { text: "hello" };
export const explicitNull: TextContent = { text: "hello", annotations: null };
// @ts-expect-error an optional member is absent, never `undefined`
export const undefinedMember: TextContent = { text: "hello", annotations: undefined };
// @ts-expect-error a required member cannot be left out
export const missingMember: TextContent = {};
// @ts-expect-error members have their wire types
export const wrongType: TextContent = { text: 5 };

export function decodedText(json: unknown): string | null {
  const result: DecodeResult<TextContent> = decodeTextContent(json);
  return result.ok ? result.value.text : null;
}

export const encoded: JsonValue = roundtrip("TextContent", minimal);
// @ts-expect-error the by-name codec returns JSON, not `any`
export const notAny: number = roundtrip("TextContent", minimal);

export const initialize: MethodName = METHODS.initialize;
// @ts-expect-error method names are the protocol's
export const unknownMethod: MethodName = "no/such_method";

export type AgentInitialize = Agent["initialize"];
// @ts-expect-error the client does not handle `initialize`
export type ClientInitialize = Client["initialize"];

// A switch on an extensible union's tag narrows to exactly one variant; the
// catch-all takes extension tags, and its members are `unknown`.
export function narrowed(schema: ElicitationPropertySchema): number | null | undefined {
  switch (schema.type) {
    case "string":
      return schema.minLength;
    case "_example/slider": {
      const maximum: unknown = schema["maximum"];
      return typeof maximum === "number" ? maximum : null;
    }
    default:
      return null;
  }
}
export const extension: ElicitationPropertySchema = { type: "_example/slider", maximum: 10 };
// @ts-expect-error a misspelt tag is neither a known variant nor an extension
export const misspelt: ElicitationPropertySchema = { type: "strnig" };

export function guarded(schema: ElicitationPropertySchema): string | number | null | undefined {
  if (isElicitationPropertySchemaString(schema)) return schema.minLength;
  return isElicitationPropertySchemaOther(schema) ? schema.type : null;
}

// Decoding by method name types the params of each method.
export function promptText(method: string, params: unknown): string | null {
  const decoded = decodeAgentIncomingRequest(method, params);
  if (!decoded.ok) return decoded.error.code === -32602 ? decoded.error.data.pointer : null;
  const request: AgentIncomingRequest = decoded.value;
  switch (request.method) {
    case "session/prompt":
      return request.params.sessionId;
    case "initialize":
      // @ts-expect-error initialize params carry no session
      return request.params.sessionId;
    default:
      return null;
  }
}

// Messages are typed by their method.
export const request = encodeAgentRequest(1, "session/prompt", { sessionId: "s", prompt: [] });
// @ts-expect-error the params must be the method's
export const mismatched = encodeAgentRequest(1, "session/prompt", { protocolVersion: 1 });
// @ts-expect-error the agent handles no `session/update` request
export const wrongSide = encodeAgentRequest(1, "session/update", {});

// Only gated and unstable methods may be left out of an implementation
// (v2 gates `session/prompt` by the agent's `session` capability; no
// schema gates `initialize`).
export type Initialize = Agent["initialize"];
// @ts-expect-error `initialize` is not optional
export const initializeOptional: Initialize = undefined;
export const elicitationOptional: Client["elicitationCreate"] = undefined;

// A connection's `send` may return a promise, which its writer awaits (any
// other return value is ignored); `options` is one object, whose `dropped` gets one report.
export const asyncSend: Send = async (text) => void text;
export const countingSend: Send = (text) => [text].length;
export const options: ConnectOptions = {
  dropped: ({ method, error, line }) => void [method, error.code, line],
  unordered: true,
};
// @ts-expect-error `unordered` is a boolean
export const wrongOption: ConnectOptions = { unordered: "yes" };
// @ts-expect-error `dropped` is an option, not the options
export const onlyDropped: ConnectOptions = () => undefined;
export function prompt(client: Client): Promise<unknown> {
  const end = connectClient(() => client, asyncSend, { dropped: ({ line }) => void line });
  const signal = { aborted: false, addEventListener: () => {}, removeEventListener: () => {} };
  return end.request("session/prompt", { sessionId: "s", prompt: [] }, { signal });
}
