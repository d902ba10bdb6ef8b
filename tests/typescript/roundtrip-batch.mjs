// Round-trips a batch of values through the TypeScript bindings:
//   node tests/typescript/roundtrip-batch.mjs <bindings-folder> <in.jsonl> <out.jsonl>
// Each input line is {"type": T, "value": V}; each output line is
// {"type": T, "value": roundtrip(T, V)} or {"type": T, "error": message,
// "pointer": P}, P being the JSON pointer of the error's first issue.

import { readFileSync, writeFileSync } from "node:fs";

import { loadBindings } from "./bindings.mjs";

const [folder, input, output] = process.argv.slice(2);
if (output === undefined) {
  console.error("usage: roundtrip-batch.mjs <bindings-folder> <in.jsonl> <out.jsonl>");
  process.exit(2);
}
const bindings = await loadBindings(folder);
const lines = readFileSync(input, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "");
const results = lines.map((line, index) => {
  let entry;
  try {
    entry = JSON.parse(line);
  } catch (error) {
    return { type: null, error: `line ${index + 1}: ${error.message}` };
  }
  try {
    return { type: entry.type, value: bindings.roundtrip(entry.type, entry.value) };
  } catch (error) {
    return { type: entry.type, error: String(error.message), pointer: error.issues?.[0]?.path ?? null };
  }
});
writeFileSync(output, results.map((result) => JSON.stringify(result)).join("\n") + (results.length > 0 ? "\n" : ""));
