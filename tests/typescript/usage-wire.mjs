// Runs the compiled usage program (`usage.ts`) and checks its wire, as
// `cargo xtask test` does from the consumer folder the package is installed
// in: every message must be JSON-RPC 2.0 text whose params (by the method's
// table entry) and results (by the request they answer) round-trip through
// the package unchanged, except the one update the program sends on purpose
// that this protocol version does not know, which must fail to decode.
//
//   node usage-wire.mjs <usage.js>

import { isDeepStrictEqual } from "node:util";
import { pathToFileURL } from "node:url";
import { importPackage } from "./import-package.mjs";

const { wire } = await import(pathToFileURL(process.argv[2]).href);
const { module: bindings } = await importPackage("acp-bindings");
const requests = new Map();
const failures = [];
let unknown = 0;
for (const text of wire) {
  const message = JSON.parse(text);
  if (message.jsonrpc !== "2.0") failures.push(`not JSON-RPC 2.0: ${text}`);
  const entry = bindings.METHOD_TYPES[message.method ?? requests.get(message.id)];
  const payload = "method" in message ? message.params : message.result;
  const typeName = "method" in message ? (entry?.request ?? entry?.notification)?.params : entry?.request?.result;
  if ("id" in message && "method" in message) requests.set(message.id, message.method);
  if (typeName === undefined) {
    failures.push(`no type for ${text}`);
  } else if (payload?.update?.sessionUpdate === "_zed/cursor") {
    unknown += 1;
    try {
      bindings.roundtrip(typeName, payload);
      failures.push(`an update this version does not know decoded: ${text}`);
    } catch {}
  } else if (!isDeepStrictEqual(bindings.roundtrip(typeName, payload), payload)) {
    failures.push(`${typeName} does not round-trip: ${text}`);
  }
}
if (wire.length < 7 || unknown !== 1 || failures.length > 0) {
  throw new Error(
    `the usage program's wire (${wire.length} messages, ${unknown} unknown update):\n${failures.join("\n")}`,
  );
}
console.log(`usage wire: ${wire.length} messages round-trip`);
