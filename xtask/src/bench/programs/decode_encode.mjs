// Decode + encode throughput of one implementation on the benchmark corpus:
//   node decode_encode.mjs <ours|official|floor> <module> <corpus.tsv> <runs>
// <module> is the built bindings' entry point (ours) or the official SDK's
// zod schemas (official); unused for the floor. Each corpus line is
// `TypeName<TAB>json`; every message is parsed (JSON.parse), decoded to the
// typed value, encoded and printed (JSON.stringify), as an SDK does. A first
// pass checks that every output equals its input (object key order aside)
// and warms up; then each run times the whole corpus. Prints one JSON
// object: messages, bytes, seconds per run, decode failures, outputs that
// differ, the first difference, and the peak resident memory (VmHWM, KiB).

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [implementation, modulePath, corpus, runsText] = process.argv.slice(2);
const runs = Number.parseInt(runsText ?? "", 10);
if (corpus === undefined || !Number.isInteger(runs)) {
  console.error("usage: decode_encode.mjs <ours|official|floor> <module> <corpus.tsv> <runs>");
  process.exit(2);
}

async function codecs() {
  if (implementation === "floor") {
    return () => (text) => JSON.stringify(JSON.parse(text));
  }
  const module = await import(pathToFileURL(modulePath).href);
  if (implementation === "ours") {
    return (typeName) => {
      const decode = module[`decode${typeName}`];
      return (text) => {
        const result = decode(JSON.parse(text));
        if (!result.ok) {
          throw new Error(JSON.stringify(result.issues));
        }
        return JSON.stringify(module.encode(result.value));
      };
    };
  }
  if (implementation === "official") {
    return (typeName) => {
      const schema = module[`z${typeName}`];
      return (text) => JSON.stringify(schema.parse(JSON.parse(text)));
    };
  }
  throw new Error(`unknown implementation ${implementation}`);
}

function equal(left, right) {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left))
    return left.length === right.length && left.every((item, index) => equal(item, right[index]));
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && equal(left[key], right[key]))
  );
}

function peakKib() {
  const status = readFileSync("/proc/self/status", "utf8");
  const line = status.split("\n").find((entry) => entry.startsWith("VmHWM:"));
  return line === undefined ? null : Number.parseInt(line.split(/\s+/)[1], 10);
}

const forType = await codecs();
const byType = new Map();
const messages = readFileSync(corpus, "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => {
    const tab = line.indexOf("\t");
    const typeName = line.slice(0, tab);
    if (!byType.has(typeName)) byType.set(typeName, forType(typeName));
    return { typeName, codec: byType.get(typeName), text: line.slice(tab + 1) };
  });
const bytes = messages.reduce((sum, message) => sum + Buffer.byteLength(message.text), 0);

let failures = 0;
let differ = 0;
let firstDifference = null;
messages.forEach(({ typeName, codec, text }, index) => {
  let problem = null;
  try {
    const output = codec(text);
    if (!equal(JSON.parse(output), JSON.parse(text))) {
      differ += 1;
      problem = `line ${index + 1} (${typeName}): ${text} became ${output}`;
    }
  } catch (error) {
    failures += 1;
    problem = `line ${index + 1} (${typeName}) does not decode: ${error.message}`;
  }
  firstDifference ??= problem;
});

const seconds = [];
let printed = 0;
for (let run = 0; run < runs; run += 1) {
  const start = process.hrtime.bigint();
  for (const { codec, text } of messages) {
    try {
      printed += codec(text).length;
    } catch {
      printed += 0;
    }
  }
  seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
}
console.log(
  JSON.stringify({
    messages: messages.length,
    bytes,
    seconds,
    failures,
    differ,
    first_difference: firstDifference,
    peak_kib: peakKib(),
    printed,
  }),
);
