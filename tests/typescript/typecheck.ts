// Type-level checks of a generated package, compiled (never run) by
// `cargo xtask test` under the package's own strict options in the folder it
// installs the packed package into (`<bindings>/ts-consumer/`): the package is
// found by its default name, through its `exports` and `types`, and these
// checks see its `.d.ts` files as any dependant does. Each line after a
// `@ts-expect-error` must fail to compile, and everything else must compile,
// so the checks hold in both directions. Only types every supported schema
// has in the same shape are used.

import type { Agent, Client, DecodeResult, JsonValue, MethodName, TextContent } from "acp-bindings";
import { decodeTextContent, METHODS, roundtrip } from "acp-bindings";

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
